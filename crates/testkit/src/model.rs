//! A naive model of the spec: the whole input in memory, every cap and
//! option computed the obvious way. The engine must agree with it.

// The model is meant to read as the spec does: one table per state
// machine, one match over the caps.
#![allow(clippy::match_same_arms, clippy::too_many_lines)]

use capout_core::{CapSpec, Options, Unit};
use regex::bytes::Regex;

use super::Rng;

/// Whether `cap` counts lines, so that `--max-line-chars` shapes the lines
/// it keeps; a character cap has the line cap applied before it counts.
fn counts_lines(cap: CapSpec) -> bool {
    match cap {
        CapSpec::HeadLines { .. }
        | CapSpec::TailLines(_)
        | CapSpec::HeadTailLines(..)
        | CapSpec::MaxMatches(_) => true,
        CapSpec::TailChars(_)
        | CapSpec::HeadChars(_)
        | CapSpec::HeadTailChars(..)
        | CapSpec::TailTokens(_)
        | CapSpec::HeadTokens(_)
        | CapSpec::HeadTailTokens(..) => false,
    }
}

/// A line pattern, the naive way: a regex on bytes, or a literal looked
/// for at every position.
enum LinePattern {
    Regex(Regex),
    Literal(Vec<u8>),
}

impl LinePattern {
    fn new(text: &str, fixed: bool) -> Self {
        if fixed {
            LinePattern::Literal(text.as_bytes().to_vec())
        } else {
            LinePattern::Regex(Regex::new(text).expect("test patterns are valid"))
        }
    }

    fn is_match(&self, line: &[u8]) -> bool {
        match self {
            LinePattern::Regex(regex) => regex.is_match(line),
            LinePattern::Literal(text) => {
                text.is_empty() || line.windows(text.len()).any(|window| window == &text[..])
            }
        }
    }
}

/// Where a token cap may cut `input`: 0, the end, and the start of each
/// character, each byte of an invalid sequence being one.
fn token_cuts(input: &[u8]) -> Vec<usize> {
    let mut cuts = Vec::new();
    let mut pos = 0;
    for chunk in input.utf8_chunks() {
        for c in chunk.valid().chars() {
            cuts.push(pos);
            pos += c.len_utf8();
        }
        for _ in chunk.invalid() {
            cuts.push(pos);
            pos += 1;
        }
    }
    cuts.push(pos);
    cuts
}

/// The characters of `input` as byte ranges, by std's lossy decoding.
fn char_ranges(input: &[u8]) -> Vec<(usize, usize)> {
    let mut ranges = Vec::new();
    let mut pos = 0;
    for chunk in input.utf8_chunks() {
        for c in chunk.valid().chars() {
            ranges.push((pos, pos + c.len_utf8()));
            pos += c.len_utf8();
        }
        if !chunk.invalid().is_empty() {
            ranges.push((pos, pos + chunk.invalid().len()));
            pos += chunk.invalid().len();
        }
    }
    ranges
}

fn units(input: &[u8], unit: Unit) -> Vec<(usize, usize)> {
    match unit {
        Unit::Chars => char_ranges(input),
        Unit::Bytes => (0..input.len()).map(|i| (i, i + 1)).collect(),
    }
}

fn unit_name(unit: Unit) -> &'static str {
    if unit == Unit::Bytes { "bytes" } else { "chars" }
}

/// A line's body and its ending: `\r\n`, `\n` or nothing.
fn split_ending(line: &[u8]) -> (&[u8], &[u8]) {
    let ending = if line.ends_with(b"\r\n") { 2 } else { usize::from(line.ends_with(b"\n")) };
    line.split_at(line.len() - ending)
}

/// One line as the line caps write it.
fn shape_line(line: &[u8], number: usize, config: &Options) -> Vec<u8> {
    shape_at(line, number, config, config.max_line())
}

/// One line as a line cap of width `max_line` writes it.
fn shape_at(line: &[u8], number: usize, config: &Options, max_line: Option<u64>) -> Vec<u8> {
    let mut out = Vec::new();
    if config.line_numbers {
        out.extend_from_slice(format!("{number:>6}\t").as_bytes());
    }
    let (body, ending) = split_ending(line);
    let body_units = units(body, config.unit);
    match max_line {
        Some(w) if body_units.len() as u64 > w => {
            out.extend_from_slice(&body[..body_units[w as usize - 1].1]);
            out.extend_from_slice(
                format!(" ... (line truncated to {w} {})", unit_name(config.unit)).as_bytes(),
            );
        }
        _ => out.extend_from_slice(body),
    }
    out.extend_from_slice(ending);
    out
}

/// The lines `picked` (indices into `lines`, in order) that a budget of
/// `--budget-chars` keeps: from the first on for a head cap, whole lines
/// while they fit, the first always (cut at the budget); the last that
/// fit for a tail cap. Returns the output and how many lines it holds.
fn budgeted(lines: &[&[u8]], picked: &[usize], config: &Options, tail: bool) -> (Vec<u8>, usize) {
    let shaped = |i: usize| shape_line(lines[i], i + 1, config);
    let Some(budget) = config.budget else {
        return (picked.iter().flat_map(|&i| shaped(i)).collect(), picked.len());
    };
    let cut_width = Some(config.max_line().map_or(budget, |w| w.min(budget)));
    let count = |bytes: &[u8]| units(bytes, config.unit).len() as u64;
    if picked.is_empty() {
        return (Vec::new(), 0);
    }
    if tail {
        let mut start = 0;
        let mut total: u64 = picked.iter().map(|&i| count(&shaped(i))).sum();
        while total > budget && start + 1 < picked.len() {
            total -= count(&shaped(picked[start]));
            start += 1;
        }
        if total > budget {
            let i = picked[start];
            return (shape_at(lines[i], i + 1, config, cut_width), 1);
        }
        return (picked[start..].iter().flat_map(|&i| shaped(i)).collect(), picked.len() - start);
    }
    let first = shape_at(lines[picked[0]], picked[0] + 1, config, cut_width);
    let mut left = budget.saturating_sub(count(&first));
    let mut out = first;
    let mut kept = 1;
    for &i in &picked[1..] {
        let line = shaped(i);
        let n = count(&line);
        if n > left {
            break;
        }
        left -= n;
        out.extend_from_slice(&line);
        kept += 1;
    }
    (out, kept)
}

fn with_notice(mut out: Vec<u8>, notice: Option<String>) -> Vec<u8> {
    if let Some(notice) = notice {
        if out.last().is_some_and(|&b| b != b'\n') {
            out.push(b'\n');
        }
        out.extend_from_slice(notice.as_bytes());
        out.push(b'\n');
    }
    out
}

const ESC: u8 = 0x1b;

/// `--strip-ansi`, the naive way: the whole input at once, each escape
/// sequence measured from its ESC and dropped.
pub fn strip_ansi(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut rest = input;
    while let Some(esc) = rest.iter().position(|&b| b == ESC) {
        out.extend_from_slice(&rest[..esc]);
        rest = &rest[esc + escape_len(&rest[esc..])..];
    }
    out.extend_from_slice(rest);
    out
}

/// The length of the escape sequence `seq` starts with (`seq[0]` is ESC),
/// after ECMA-48:
///
/// - CSI, `ESC [`, parameter and intermediate bytes (0x20-0x3f), a final
///   byte (0x40-0x7e);
/// - a control string (OSC `ESC ]`, DCS `ESC P`, SOS `ESC X`, PM `ESC ^`,
///   APC `ESC _`) up to BEL or ST (`ESC \`);
/// - `ESC`, intermediate bytes (0x20-0x2f), a final byte (0x30-0x7e), as
///   `ESC ( B` and `ESC 7`.
///
/// A sequence the input ends in is dropped whole. One broken by a byte it
/// cannot hold ends before that byte, which is then read as text (or, an
/// ESC, as the next sequence): so a newline always survives.
fn escape_len(seq: &[u8]) -> usize {
    let at = |i: usize| seq.get(i).copied();
    // The end of a run of bytes in `range` from `from`.
    let run = |from: usize, range: std::ops::RangeInclusive<u8>| {
        from + seq.get(from..).unwrap_or_default().iter().take_while(|b| range.contains(b)).count()
    };
    match at(1) {
        Some(b'[') => {
            let end = run(2, 0x20..=0x3f);
            end + usize::from(matches!(at(end), Some(0x40..=0x7e)))
        }
        Some(b']' | b'P' | b'X' | b'^' | b'_') => {
            let mut i = 2;
            loop {
                match at(i) {
                    None | Some(b'\n') => return i,
                    Some(0x07) => return i + 1,
                    Some(ESC) if at(i + 1) == Some(b'\\') => return i + 2,
                    // Any other ESC starts a sequence of its own.
                    Some(ESC) => return i,
                    Some(_) => i += 1,
                }
            }
        }
        Some(0x20..=0x7e) => {
            let end = run(1, 0x20..=0x2f);
            end + usize::from(matches!(at(end), Some(0x30..=0x7e)))
        }
        // A lone ESC at the end, or one followed by a byte no sequence
        // begins with.
        _ => 1,
    }
}

/// `--collapse-cr`, the naive way: each line keeps the text after its
/// last `\r` that has text after it. A stretch between two `\r` longer
/// than `limit` bytes was passed on before the `\r` came: it stays.
fn collapse_cr(input: &[u8], limit: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for line in input.split_inclusive(|&b| b == b'\n') {
        let (body, ending) = split_ending(line);
        // A `\r` with nothing after it on the line erases nothing.
        let body = &body[..body.iter().rposition(|&b| b != b'\r').map_or(0, |i| i + 1)];
        let stretches: Vec<&[u8]> = body.split(|&b| b == b'\r').filter(|s| !s.is_empty()).collect();
        if let Some((last, erased)) = stretches.split_last() {
            for stretch in erased.iter().filter(|s| s.len() > limit) {
                out.extend_from_slice(stretch);
            }
            out.extend_from_slice(last);
        }
        out.extend_from_slice(ending);
    }
    out
}

/// What a pattern sees of a line's content: all of it, or when it is
/// longer than `limit` bytes its first `limit` bytes, less a character
/// they would split.
fn seen(content: &[u8], limit: usize) -> &[u8] {
    if content.len() <= limit {
        return content;
    }
    let end = char_ranges(content).iter().map(|&(_, end)| end).take_while(|&end| end <= limit).last();
    &content[..end.unwrap_or(0)]
}

fn content(line: &[u8]) -> &[u8] {
    split_ending(line).0
}

/// The cut part: lines past `after_line` and before `before_line`, bytes
/// from `after_byte` to `before_byte`.
#[derive(Clone, Copy)]
struct Region {
    after_line: usize,
    before_line: usize,
    after_byte: usize,
    before_byte: usize,
}

impl Region {
    const ALL: Region =
        Region { after_line: 0, before_line: usize::MAX, after_byte: 0, before_byte: usize::MAX };

    fn holds(&self, line: usize, start: usize, end: usize) -> bool {
        line > self.after_line
            && line < self.before_line
            && start >= self.after_byte
            && end <= self.before_byte
    }
}

/// What capout must print for `input`, computed the naive way.
pub fn model(input: &[u8], config: &Options) -> Vec<u8> {
    let mut input = input.to_vec();
    if config.strip_ansi {
        input = strip_ansi(&input);
    }
    if config.collapse_cr {
        input = collapse_cr(&input, config.limits.collapse_cr);
    }
    // `--keep` sees the lines as the transforms left them.
    let unshaped = input.clone();
    // Given with a character cap, the line cap applies first.
    if !counts_lines(config.cap) && config.max_line().is_some() {
        let lines = input.split_inclusive(|&b| b == b'\n');
        input = lines.enumerate().flat_map(|(i, line)| shape_line(line, i + 1, config)).collect();
    }
    let input = &input[..];
    let lines: Vec<&[u8]> = input.split_inclusive(|&b| b == b'\n').collect();
    let total_lines = lines.len();
    let shaped = |index: usize| shape_line(lines[index], index + 1, config);
    let window = |from: usize, to: usize| -> Vec<u8> { (from..to).flat_map(shaped).collect() };
    let u = units(input, config.unit);
    let total_units = u.len();
    let name = unit_name(config.unit);
    // Byte offset where unit `i` starts (the end for `i` = total).
    let unit_at = |i: usize| if i < total_units { u[i].0 } else { input.len() };
    let middle = |omitted: usize, unit: &str| format!("... (truncated, omitted {omitted} {unit}) ...");

    if input.is_empty() {
        let nothing =
            if matches!(config.cap, CapSpec::MaxMatches(_)) { "No matches found." } else { "(no output)" };
        return with_notice(Vec::new(), Some(nothing.into()));
    }
    // The output, the notice after it, and the cut part.
    let (out, notice, cut): (Vec<u8>, Option<String>, Option<Region>) = match config.cap {
        CapSpec::TailChars(n) => {
            let n = n as usize;
            if total_units <= n {
                (input.to_vec(), None, None)
            } else {
                let start = unit_at(total_units - n);
                let notice = format!("... (truncated, showing last {n} {name})");
                (input[start..].to_vec(), Some(notice), Some(Region { before_byte: start, ..Region::ALL }))
            }
        }
        CapSpec::HeadChars(n) => {
            let n = n as usize;
            if total_units <= n {
                (input.to_vec(), None, None)
            } else {
                let end = unit_at(n);
                let notice = format!("... (truncated, showing first {n} {name})");
                (input[..end].to_vec(), Some(notice), Some(Region { after_byte: end, ..Region::ALL }))
            }
        }
        CapSpec::HeadTailChars(h, t) => {
            let (h, t) = (h as usize, t as usize);
            if total_units <= h.saturating_add(t) {
                (input.to_vec(), None, None)
            } else {
                let (end, start) = (unit_at(h), unit_at(total_units - t));
                let mut out = with_notice(input[..end].to_vec(), Some(middle(total_units - h - t, name)));
                out.extend_from_slice(&input[start..]);
                (out, None, Some(Region { after_byte: end, before_byte: start, ..Region::ALL }))
            }
        }
        // The estimate of a text is the unit here, taken as given. The
        // head's cut is checked against every possible cut tried in turn;
        // the tail's is `tail_cut` over the bytes the engine holds (the
        // last N × 32 + 4 after the head), whose own rule tests/tokens.rs
        // checks against every cut: what is checked here is the engine's
        // ring, its pieces and its notices, for every split of the input.
        CapSpec::TailTokens(_) | CapSpec::HeadTokens(_) | CapSpec::HeadTailTokens(..) => {
            use capout_core::tokens::{MAX_BYTES_PER_TOKEN, estimate, tail_cut};
            let cuts = token_cuts(input);
            let (head, tail) = match config.cap {
                CapSpec::TailTokens(t) => (None, Some(t)),
                CapSpec::HeadTokens(h) => (Some(h), None),
                CapSpec::HeadTailTokens(h, t) => (Some(h), Some(t)),
                _ => unreachable!(),
            };
            // The longest prefix that fits the head, the longest suffix
            // after it that fits the tail.
            let end = head.map_or(input.len(), |h| {
                *cuts.iter().rev().find(|&&e| estimate(&input[..e]) <= h).unwrap_or(&0)
            });
            let from = if head.is_some() { end } else { 0 };
            let start = tail.map_or(input.len(), |t| {
                let ring = usize::try_from(t.saturating_mul(MAX_BYTES_PER_TOKEN).saturating_add(4))
                    .unwrap_or(usize::MAX);
                let window = from.max(input.len().saturating_sub(ring));
                window + tail_cut(&input[window..], t)
            });
            let (head_shown, tail_shown) = (estimate(&input[..end]), estimate(&input[start..]));
            match (head, tail) {
                (None, Some(_)) if start == 0 => (input.to_vec(), None, None),
                (None, _) if start == input.len() => {
                    return with_notice(Vec::new(), Some("(no output)".into()));
                }
                (None, _) => {
                    let notice = format!("... (truncated, showing last {tail_shown} tokens)");
                    (
                        input[start..].to_vec(),
                        Some(notice),
                        Some(Region { before_byte: start, ..Region::ALL }),
                    )
                }
                (Some(_), None) if end == input.len() => (input.to_vec(), None, None),
                (Some(_), None) if end == 0 => return with_notice(Vec::new(), Some("(no output)".into())),
                (Some(_), None) => {
                    let notice = format!("... (truncated, showing first {head_shown} tokens)");
                    (input[..end].to_vec(), Some(notice), Some(Region { after_byte: end, ..Region::ALL }))
                }
                _ if start == end => (input.to_vec(), None, None),
                _ => {
                    let shown = head_shown + tail_shown;
                    let total = estimate(input).max(shown);
                    let mut out =
                        with_notice(input[..end].to_vec(), Some(middle((total - shown) as usize, "tokens")));
                    out.extend_from_slice(&input[start..]);
                    (out, None, Some(Region { after_byte: end, before_byte: start, ..Region::ALL }))
                }
            }
        }
        CapSpec::HeadLines { limit, offset } => {
            let (k, n) = (offset as usize, limit as usize);
            if k >= total_lines {
                let notice = format!("... (offset {k} is past the end, input has {total_lines} lines)");
                (Vec::new(), Some(notice), None)
            } else {
                let b = k.saturating_add(n).min(total_lines);
                let (out, kept) = budgeted(&lines, &(k..b).collect::<Vec<_>>(), config, false);
                let b = k + kept;
                let cut = b < total_lines;
                let notice = if cut {
                    Some(format!(
                        "... (truncated, showing lines {}-{b} of {total_lines}, next offset {b})",
                        k + 1
                    ))
                } else {
                    (k > 0)
                        .then(|| format!("... (showing lines {}-{b} of {total_lines}, end of input)", k + 1))
                };
                (out, notice, cut.then_some(Region { after_line: b, ..Region::ALL }))
            }
        }
        CapSpec::TailLines(n) => {
            let n = n as usize;
            let first = total_lines.saturating_sub(n);
            let (out, kept) = budgeted(&lines, &(first..total_lines).collect::<Vec<_>>(), config, true);
            if kept == total_lines {
                (out, None, None)
            } else {
                let first = total_lines - kept;
                let notice = format!("... (truncated, showing last {kept} lines)");
                (out, Some(notice), Some(Region { before_line: first + 1, ..Region::ALL }))
            }
        }
        CapSpec::HeadTailLines(h, t) => {
            let (h, t) = (h as usize, t as usize);
            if total_lines <= h.saturating_add(t) {
                (window(0, total_lines), None, None)
            } else {
                let mut out = with_notice(window(0, h), Some(middle(total_lines - h - t, "lines")));
                out.extend(window(total_lines - t, total_lines));
                let region = Region { after_line: h, before_line: total_lines - t + 1, ..Region::ALL };
                (out, None, Some(region))
            }
        }
        CapSpec::MaxMatches(n) => {
            let n = n as usize;
            let hits: Vec<usize> = match &config.pattern {
                // Without a pattern, every line but an empty one.
                None => (0..total_lines).filter(|&i| !content(lines[i]).is_empty()).collect(),
                Some(p) => {
                    let matcher = LinePattern::new(&p.text, p.fixed);
                    let limit = config.limits.pattern_line;
                    (0..total_lines).filter(|&i| matcher.is_match(seen(content(lines[i]), limit))).collect()
                }
            };
            if hits.is_empty() {
                return with_notice(Vec::new(), Some("No matches found.".into()));
            }
            let (k, total) = (config.match_offset as usize, hits.len());
            if k >= total {
                return with_notice(
                    Vec::new(),
                    Some(format!("... (offset {k} is past the end, {total} total)")),
                );
            }
            let page = &hits[k..total.min(k.saturating_add(n))];
            let (out, kept) = budgeted(&lines, page, config, false);
            let b = k + kept;
            let notice = match (k, b < total) {
                (0, true) => Some(format!("... ({total} total, showing first {kept})")),
                (0, false) => None,
                (_, true) => Some(format!("... ({total} total, showing {}-{b}, next offset {b})", k + 1)),
                (_, false) => Some(format!("... ({total} total, showing {}-{b}, end of input)", k + 1)),
            };
            (out, notice, None)
        }
    };
    let mut out = with_notice(out, notice);
    if let (Some(keep), Some(cut)) = (&config.keep, cut) {
        let unshaped: Vec<&[u8]> = unshaped.split_inclusive(|&b| b == b'\n').collect();
        out = with_rescued(out, &lines, &unshaped, cut, keep, config);
    }
    out
}

/// The rescued lines of `--keep` after the output: `lines` as the cap
/// counted them, `unshaped` the same lines before a line cap.
fn with_rescued(
    mut out: Vec<u8>,
    lines: &[&[u8]],
    unshaped: &[&[u8]],
    cut: Region,
    keep: &capout_core::Keep,
    config: &Options,
) -> Vec<u8> {
    let matcher = LinePattern::new(&keep.pattern, false);
    let width = config.max_line().unwrap_or(2000) as usize;
    let mut start = 0;
    let mut rescued = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let end = start + line.len();
        let body = content(unshaped[i]);
        if cut.holds(i + 1, start, end) && matcher.is_match(seen(body, config.limits.pattern_line)) {
            let body_units = units(body, config.unit);
            let mut text = format!("{}:", i + 1).into_bytes();
            if body_units.len() > width {
                text.extend_from_slice(&body[..body_units[width - 1].1]);
                let unit = unit_name(config.unit);
                text.extend_from_slice(format!(" ... (line truncated to {width} {unit})").as_bytes());
            } else {
                text.extend_from_slice(body);
            }
            rescued.push(text);
        }
        start = end;
    }
    if rescued.is_empty() {
        return out;
    }
    let (m, k) = (rescued.len(), keep.max as usize);
    let header = if m > k {
        format!("... (cut lines matching {}: {m}, showing first {k})", keep.pattern)
    } else {
        format!("... (cut lines matching {}: {m})", keep.pattern)
    };
    out = with_notice(out, Some(header));
    for text in rescued.into_iter().take(k) {
        out.extend_from_slice(&text);
        out.push(b'\n');
    }
    out
}

/// A random config, with small caps so that cuts happen.
pub fn random_config(rng: &mut Rng) -> Options {
    let (a, b) = (1 + rng.below(12), 1 + rng.below(12));
    let cap = match rng.below(10) {
        7 => CapSpec::TailTokens(a),
        8 => CapSpec::HeadTokens(a),
        9 => CapSpec::HeadTailTokens(a % 6 + 1, b % 6 + 1),
        0 => CapSpec::TailChars(a),
        1 => CapSpec::HeadChars(a),
        2 => CapSpec::HeadLines { limit: a, offset: rng.below(6) },
        3 => CapSpec::TailLines(a),
        4 => CapSpec::HeadTailLines(a % 4 + 1, b % 4 + 1),
        5 => CapSpec::HeadTailChars(a, b),
        _ => CapSpec::MaxMatches(a),
    };
    let matches = matches!(cap, CapSpec::MaxMatches(_));
    let pattern = (matches && rng.below(3) != 0).then(|| {
        const PATTERNS: &[(&str, bool)] = &[
            ("a", false),
            ("^b", false),
            ("z$", false),
            ("[\u{e9}\u{20ac}]", false),
            ("yz", true),
            ("\u{e9}", true),
        ];
        let (text, fixed) = PATTERNS[rng.below(PATTERNS.len() as u64) as usize];
        capout_core::Pattern { text: text.into(), fixed }
    });
    let budgets = matches!(cap, CapSpec::HeadLines { .. } | CapSpec::TailLines(_) | CapSpec::MaxMatches(_));
    let budget = (budgets && rng.below(2) == 0).then(|| 1 + rng.below(30));
    let keep = (!matches && budget.is_none() && rng.below(2) == 0).then(|| {
        const KEEP: &[&str] = &["a", "^x", "\u{20ac}", "b$"];
        capout_core::Keep { pattern: KEEP[rng.below(KEEP.len() as u64) as usize].into(), max: rng.below(4) }
    });
    let mut options = Options::new(cap);
    options.pattern = pattern;
    options.unit = if rng.below(4) == 0 { Unit::Bytes } else { Unit::Chars };
    options.max_line_chars = Some(if rng.below(2) == 0 { 1 + rng.below(6) } else { 0 });
    options.line_numbers = counts_lines(cap) && rng.below(3) == 0;
    options.budget = budget;
    options.match_offset = if matches { rng.below(4) } else { 0 };
    options.strip_ansi = rng.below(3) == 0;
    options.collapse_cr = rng.below(3) == 0;
    options.keep = keep;
    options.read_size = 1;
    // Limits small enough that short inputs cross them, half the time.
    options.limits = if rng.below(2) == 0 {
        capout_core::Limits {
            collapse_cr: 1 + rng.below(8) as usize,
            pattern_line: 1 + rng.below(12) as usize,
        }
    } else {
        capout_core::Limits::default()
    };
    options
}
