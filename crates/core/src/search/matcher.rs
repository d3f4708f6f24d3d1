//! Line patterns (`--pattern`, `--keep`) and the search for the lines
//! they match.
//!
//! A pattern is matched against one line at a time, on the line's content
//! (without its ending) and at most its first [`LINE_LIMIT`] bytes. To keep
//! the cost per line low, [`LineSearch`] does not hand each line to the
//! regex engine: as ripgrep does, it runs the pattern over a whole run of
//! lines at once, and only where that finds a match does it look for the
//! line around it, confirming the match on that line alone where the two
//! could differ. The lines in between are only counted.

use memchr::memmem::Finder;
use memchr::{memchr, memrchr};
use regex::bytes::{Regex, RegexBuilder};
use regex_automata::meta;
use regex_automata::util::syntax;
use regex_syntax::hir::{Capture, Class, Hir, HirKind, Look, LookSet, Repetition};

use crate::text::utf8;

/// The most of one line held to match it. A longer line is matched on its
/// first part, so memory stays bounded on a line of any length.
pub const LINE_LIMIT: usize = 256 * 1024;

/// The capacity of a regex's lazy DFA cache.
const DFA_CACHE: usize = 256 * 1024;

/// A pattern lines are matched against, on bytes.
#[derive(Clone, Debug)]
pub struct Matcher {
    line: LinePattern,
    /// How it is run over many lines at once (see [`Matcher::find`]).
    search: Search,
    /// A match found over many lines may be false on a line holding a
    /// `\r`: the buffer pattern's anchors also match next to a `\r`.
    anchors_at_cr: bool,
}

/// How a [`Matcher`] is run over many lines at once.
#[derive(Clone, Debug)]
enum Search {
    /// As the line pattern.
    Line,
    /// As this regex: the line regex with other anchors. With `ends`,
    /// the pattern never matches a `\n`, so the end of a match tells its
    /// line and the search looks for ends alone.
    Buffer { regex: meta::Regex, ends: bool },
    /// Not at all: every line is matched on its own.
    EachLine,
}

/// The pattern as one line is matched against it.
#[derive(Clone, Debug)]
enum LinePattern {
    /// A regular expression (Rust `regex` syntax).
    Regex(Regex),
    /// A literal string (`--fixed-strings`).
    Literal(Box<Finder<'static>>),
}

impl Matcher {
    /// A matcher for `pattern`, a literal when `fixed` is set. The error
    /// says why the pattern is not valid.
    pub fn new(pattern: &str, fixed: bool) -> Result<Matcher, regex::Error> {
        Matcher::with_case(pattern, fixed, false)
    }

    /// As [`Matcher::new`]; with `ignore_case` (`--ignore-case`), letters
    /// match without regard to case (Unicode simple case folding), a
    /// literal as well as a regex.
    pub fn with_case(pattern: &str, fixed: bool, ignore_case: bool) -> Result<Matcher, regex::Error> {
        if fixed && !ignore_case {
            let finder = Box::new(Finder::new(pattern.as_bytes()).into_owned());
            return Ok(Matcher {
                line: LinePattern::Literal(finder),
                search: Search::Line,
                anchors_at_cr: false,
            });
        }
        let escaped;
        let pattern = if fixed {
            escaped = regex::escape(pattern);
            &escaped
        } else {
            pattern
        };
        let regex = RegexBuilder::new(pattern)
            .case_insensitive(ignore_case)
            // The lazy DFA's cache is the regex's largest allocation; a
            // smaller one keeps any pattern inside the memory bound, and
            // lines of a few hundred bytes rarely need more.
            .dfa_size_limit(DFA_CACHE)
            .build()?;
        let (search, anchors_at_cr) = buffer_search(pattern, ignore_case);
        Ok(Matcher { line: LinePattern::Regex(regex), search, anchors_at_cr })
    }

    /// Whether `line` (without its ending) holds a match.
    pub fn is_match(&self, line: &[u8]) -> bool {
        match &self.line {
            LinePattern::Regex(regex) => regex.is_match(line),
            LinePattern::Literal(finder) => finder.find(line).is_some(),
        }
    }

    /// The first match in `haystack` that starts at or after `from`, as
    /// its start and end (for a pattern that never matches a `\n`, the
    /// first end of any such match, as both): a match of the pattern run over the whole
    /// haystack, whose lines it may cross. Every line from `from` on whose
    /// content holds a match (its ending apart) holds the start of such a
    /// match or follows one, so no matching line is missed; a match found
    /// this way may still be false for the line alone ([`Matcher::confirms`]).
    fn find(&self, haystack: &[u8], from: usize) -> Option<(usize, usize)> {
        match (&self.search, &self.line) {
            (Search::Buffer { regex, ends: true }, _) => {
                // The first end of any match: its start lies on its line,
                // as no match holds a `\n`.
                let input = regex_automata::Input::new(haystack).range(from..).earliest(true);
                let end = regex.search_half(&input)?.offset();
                Some((end, end))
            }
            (Search::Buffer { regex, ends: false }, _) => {
                let m = regex.find(regex_automata::Input::new(haystack).range(from..))?;
                Some((m.start(), m.end()))
            }
            // An end past every line: the line is matched on its own.
            (Search::EachLine, _) => Some((from, usize::MAX)),
            (Search::Line, LinePattern::Regex(regex)) => {
                regex.find_at(haystack, from).map(|m| (m.start(), m.end()))
            }
            (Search::Line, LinePattern::Literal(finder)) => {
                finder.find(&haystack[from..]).map(|i| (from + i, from + i + finder.needle().len()))
            }
        }
    }

    /// Whether the line whose content is `body` holds a match, given that
    /// [`Matcher::find`] found one at `start..end` of the line. Such a match
    /// is one of the line alone when it ends within the content and no
    /// anchor of the buffer pattern could have matched at a `\r` inside
    /// it; anywhere else the line is matched on its own.
    fn confirms(&self, body: &[u8], end: usize) -> bool {
        let within = end <= body.len() && !(self.anchors_at_cr && memchr(b'\r', body).is_some());
        within || self.is_match(body)
    }
}

/// How [`Matcher::find`] runs the regex `pattern` over many lines, and
/// whether the anchors it runs with may match at a `\r`.
///
/// Within a run of lines, `^` and `$` of the line pattern must hold at the
/// start and the end of each line's content: they become the line anchors
/// of CRLF mode, which hold after a `\n` and before a `\r\n` (and also at
/// a `\r` alone, which [`Matcher::confirms`] checks). Everything else is
/// the line pattern unchanged, so `.` still matches a `\r`. Word
/// boundaries need nothing: a line's ending is not a word character, as
/// the end of the line alone is not. Classes that match `\n` (`\s`,
/// `[^a]`) may find matches that cross lines; those are confirmed on the
/// line.
fn buffer_search(pattern: &str, ignore_case: bool) -> (Search, bool) {
    // The same syntax as the line regex: `regex::bytes` parses this way.
    let config = syntax::Config::new().utf8(false).case_insensitive(ignore_case);
    let Ok(hir) = syntax::parse_with(pattern, &config) else { return (Search::EachLine, true) };
    let looks = hir.properties().look_set();
    let anchors =
        LookSet::empty().insert(Look::Start).insert(Look::End).insert(Look::StartLF).insert(Look::EndLF);
    if looks.intersect(anchors).is_empty() {
        return (Search::Line, looks.contains_anchor_crlf());
    }
    let hir = line_anchors_to_crlf(hir);
    let regex = meta::Builder::new()
        .configure(
            meta::Config::new()
                .match_kind(regex_automata::MatchKind::LeftmostFirst)
                .utf8_empty(false)
                .which_captures(regex_automata::nfa::thompson::WhichCaptures::Implicit)
                .nfa_size_limit(Some(10 << 20))
                .hybrid_cache_capacity(DFA_CACHE),
        )
        .build_from_hir(&hir);
    // Without it every line is matched on its own: correct, and slower.
    match regex {
        Ok(regex) => {
            let ends = !matches_newline(&hir);
            (Search::Buffer { regex, ends }, hir.properties().look_set().contains_anchor_crlf())
        }
        Err(_) => (Search::EachLine, true),
    }
}

/// Whether some match of `hir` may hold a `\n`.
fn matches_newline(hir: &Hir) -> bool {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => false,
        HirKind::Literal(literal) => literal.0.contains(&b'\n'),
        HirKind::Class(Class::Unicode(class)) => {
            class.ranges().iter().any(|r| r.start() <= '\n' && '\n' <= r.end())
        }
        HirKind::Class(Class::Bytes(class)) => {
            class.ranges().iter().any(|r| r.start() <= b'\n' && b'\n' <= r.end())
        }
        HirKind::Repetition(rep) => matches_newline(&rep.sub),
        HirKind::Capture(capture) => matches_newline(&capture.sub),
        HirKind::Concat(subs) | HirKind::Alternation(subs) => subs.iter().any(matches_newline),
    }
}

/// `hir` with every start or end anchor turned into CRLF mode's line
/// anchor.
fn line_anchors_to_crlf(hir: Hir) -> Hir {
    match hir.into_kind() {
        HirKind::Look(Look::Start | Look::StartLF) => Hir::look(Look::StartCRLF),
        HirKind::Look(Look::End | Look::EndLF) => Hir::look(Look::EndCRLF),
        HirKind::Look(look) => Hir::look(look),
        HirKind::Empty => Hir::empty(),
        HirKind::Literal(literal) => Hir::literal(literal.0),
        HirKind::Class(class) => Hir::class(class),
        HirKind::Repetition(rep) => {
            Hir::repetition(Repetition { sub: Box::new(line_anchors_to_crlf(*rep.sub)), ..rep })
        }
        HirKind::Capture(capture) => {
            Hir::capture(Capture { sub: Box::new(line_anchors_to_crlf(*capture.sub)), ..capture })
        }
        HirKind::Concat(subs) => Hir::concat(subs.into_iter().map(line_anchors_to_crlf).collect()),
        HirKind::Alternation(subs) => Hir::alternation(subs.into_iter().map(line_anchors_to_crlf).collect()),
    }
}

/// `line` without its ending, `\n` or `\r\n`.
pub fn content(line: &[u8]) -> &[u8] {
    match line.strip_suffix(b"\n") {
        Some(body) => body.strip_suffix(b"\r").unwrap_or(body),
        None => line,
    }
}

/// A matching line, or the first part of one, as [`LineSearch`] hands it
/// out.
#[derive(Debug)]
pub enum Event<'a> {
    /// A matching line: all of it when `whole`, else its first bytes, the
    /// part the pattern saw (more follows as [`Event::Rest`]).
    Line {
        /// Its line number, from 1.
        number: u64,
        /// Its bytes, with its ending when whole.
        bytes: &'a [u8],
        /// Whether `bytes` is the whole line.
        whole: bool,
        /// Where it starts, in bytes from the start of the stream.
        start: u64,
    },
    /// More of a matching line too long to hold.
    Rest {
        /// The bytes.
        bytes: &'a [u8],
        /// Whether the line is over.
        ends: bool,
    },
}

/// Finds the lines of a stream that match a pattern (or, without one, the
/// lines that are not empty), and hands out those alone, numbered.
///
/// The lines that lie wholly within one piece are searched all at once
/// ([`Matcher::find`]); the line that a piece leaves open is held, up to
/// the limit, and matched on its own once it is complete. A line whose
/// content (without its ending) is longer than the limit is matched on
/// its first `limit` bytes, backed off to a character boundary, and then
/// handed out as that part and the rest; where it is cut depends on the
/// line alone, never on how the stream was split.
#[derive(Debug)]
pub struct LineSearch {
    /// `None`: every line that is not empty matches.
    matcher: Option<Matcher>,
    limit: usize,
    /// The number of the line the next byte belongs to.
    number: u64,
    /// Where that line starts in the stream.
    start: u64,
    /// The bytes fed so far.
    fed: u64,
    /// The start of the line in progress.
    held: Vec<u8>,
    /// The line in progress went past the limit: its rest streams through.
    overflow: bool,
    /// The line in progress, past the limit, matched.
    matching: bool,
    /// Runs of lines are counted: `number` is right.
    numbered: bool,
}

impl LineSearch {
    /// A search for the lines that `matcher` matches on their first
    /// `limit` bytes.
    pub fn new(matcher: Option<Matcher>, limit: usize) -> Self {
        LineSearch {
            matcher,
            limit,
            number: 1,
            start: 0,
            fed: 0,
            held: Vec::new(),
            overflow: false,
            matching: false,
            numbered: true,
        }
    }

    /// The same search on the first `limit` bytes of each line.
    #[must_use]
    pub fn with_limit(self, limit: usize) -> Self {
        LineSearch { limit, ..self }
    }

    /// Stops counting the lines between matches, for a caller that no
    /// longer needs the numbers: those of the lines handed out from now
    /// on are wrong, and counting every newline is most of the cost of a
    /// search that finds much.
    pub fn stop_numbering(&mut self) {
        self.numbered = false;
    }

    /// The number of the line in progress (while numbered), and where it
    /// starts in the stream.
    pub fn line_in_progress(&self) -> (u64, u64) {
        (self.number, self.start)
    }

    /// Hands `f` the matching lines of `piece`, which begins and ends on
    /// character boundaries. Stops at the first error `f` returns.
    pub fn feed<E>(&mut self, piece: &[u8], mut f: impl FnMut(Event) -> Result<(), E>) -> Result<(), E> {
        let base = self.fed;
        self.fed += piece.len() as u64;
        let mut rest = piece;
        if !self.held.is_empty() || self.overflow {
            // The line left open completes first, on its own.
            let Some(i) = memchr(b'\n', rest) else { return self.carry(rest, &mut f) };
            self.carry(&rest[..=i], &mut f)?;
            rest = &rest[i + 1..];
        }
        let base = base + (piece.len() - rest.len()) as u64;
        let whole = memrchr(b'\n', rest).map_or(0, |i| i + 1);
        self.lines(&rest[..whole], base, &mut f)?;
        self.start = base + whole as u64;
        if whole < rest.len() { self.carry(&rest[whole..], &mut f) } else { Ok(()) }
    }

    /// Hands `f` the end of a last line that has no `\n`, if it matches.
    pub fn finish<E>(&mut self, mut f: impl FnMut(Event) -> Result<(), E>) -> Result<(), E> {
        if std::mem::take(&mut self.overflow) {
            return if self.matching { f(Event::Rest { bytes: &[], ends: true }) } else { Ok(()) };
        }
        if self.held.is_empty() {
            return Ok(());
        }
        let held = std::mem::take(&mut self.held);
        let (number, start) = (self.number, self.start);
        // Without a `\n`, a `\r` held at the end is content.
        let result = if held.len() > self.limit {
            let cut = cut_at(&held, &[], self.limit);
            if self.test(&held[..cut], false) {
                f(Event::Line { number, bytes: &held[..cut], whole: false, start })
                    .and_then(|()| f(Event::Rest { bytes: &held[cut..], ends: true }))
            } else {
                Ok(())
            }
        } else if self.test(&held, true) {
            f(Event::Line { number, bytes: &held, whole: true, start })
        } else {
            Ok(())
        };
        self.held = held;
        self.held.clear();
        result
    }

    /// Whether a line matches: `seen` is its content when `whole`, else
    /// the first part of a line too long to hold.
    fn test(&self, seen: &[u8], whole: bool) -> bool {
        match &self.matcher {
            Some(matcher) => matcher.is_match(seen),
            // A line too long to hold whole is not empty.
            None => !whole || !seen.is_empty(),
        }
    }

    /// Searches `lines`, whole lines that start the current one at `base`
    /// in the stream: runs of lines within the limit all at once, a line
    /// past it on its own.
    fn lines<E>(
        &mut self,
        lines: &[u8],
        base: u64,
        f: &mut impl FnMut(Event) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut from = 0;
        while from < lines.len() {
            let (run_end, long_end) = self.short_run(lines, from);
            self.search(&lines[..run_end], from, base, f)?;
            if run_end < lines.len() {
                self.long_line(&lines[run_end..long_end], base + run_end as u64, f)?;
            }
            from = long_end;
        }
        Ok(())
    }

    /// The lines of `lines` from `from` on whose content fits the limit:
    /// where they end, and where the line after them, longer than the
    /// limit, ends (both the end of `lines` when there is none).
    fn short_run(&self, lines: &[u8], from: usize) -> (usize, usize) {
        // A stretch of limit + 1 bytes that holds a newline ends only
        // lines within the limit, so one look per stretch finds the long
        // lines.
        let window = self.limit.saturating_add(1);
        let mut start = from;
        while lines.len() - start > window {
            if let Some(i) = memrchr(b'\n', &lines[start..start + window]) {
                start += i + 1;
                continue;
            }
            let end = memchr(b'\n', &lines[start + window..]).map_or(lines.len() - 1, |i| start + window + i);
            let body = end - start - usize::from(lines[end - 1] == b'\r');
            if body > self.limit {
                return (start, end + 1);
            }
            start = end + 1;
        }
        (lines.len(), lines.len())
    }

    /// Searches `lines[from..]`, whole lines within the limit, the bytes
    /// before `from` only context, and counts its lines; `lines` starts at
    /// `base` in the stream.
    fn search<E>(
        &mut self,
        lines: &[u8],
        from: usize,
        base: u64,
        f: &mut impl FnMut(Event) -> Result<(), E>,
    ) -> Result<(), E> {
        // `number` is the number of the line that starts at `counted`.
        let mut counted = from;
        let mut at = from;
        while at < lines.len() {
            let (start, end) = match &self.matcher {
                Some(matcher) => match matcher.find(lines, at) {
                    Some(found) => found,
                    None => break,
                },
                None => (at, at),
            };
            if start >= lines.len() {
                break;
            }
            let line_start = memrchr(b'\n', &lines[at..start]).map_or(at, |i| at + i + 1);
            let line_end = start + memchr(b'\n', &lines[start..]).map_or(lines.len() - start, |i| i + 1);
            let line = &lines[line_start..line_end];
            let body = content(line);
            let hit = match &self.matcher {
                Some(matcher) => matcher.confirms(body, end.saturating_sub(line_start)),
                None => !body.is_empty(),
            };
            if hit {
                if self.numbered {
                    self.number += bytecount::count(&lines[counted..line_start], b'\n') as u64;
                    counted = line_start;
                }
                f(Event::Line {
                    number: self.number,
                    bytes: line,
                    whole: true,
                    start: base + line_start as u64,
                })?;
            }
            at = line_end;
        }
        if self.numbered {
            self.number += bytecount::count(&lines[counted..], b'\n') as u64;
        }
        Ok(())
    }

    /// Matches one whole line longer than the limit, which starts at
    /// `start` in the stream, on its first part.
    fn long_line<E>(
        &mut self,
        line: &[u8],
        start: u64,
        f: &mut impl FnMut(Event) -> Result<(), E>,
    ) -> Result<(), E> {
        let number = self.number;
        self.number += 1;
        let cut = cut_at(&[], line, self.limit);
        if !self.test(&line[..cut], false) {
            return Ok(());
        }
        f(Event::Line { number, bytes: &line[..cut], whole: false, start })?;
        f(Event::Rest { bytes: &line[cut..], ends: true })
    }

    /// Takes `part`, the next bytes of the line in progress, which end it
    /// when they end in `\n`.
    fn carry<E>(&mut self, part: &[u8], f: &mut impl FnMut(Event) -> Result<(), E>) -> Result<(), E> {
        let ends = part.last() == Some(&b'\n');
        let (number, start) = (self.number, self.start);
        if ends {
            self.number += 1;
        }
        if self.overflow {
            self.overflow = !ends;
            return if self.matching { f(Event::Rest { bytes: part, ends }) } else { Ok(()) };
        }
        let held = &self.held;
        let len = held.len() + part.len();
        let byte_at = |i: usize| if i < held.len() { held[i] } else { part[i - held.len()] };
        // The line's content so far; a last `\r` may start its ending.
        let ending = if ends {
            1 + usize::from(len >= 2 && byte_at(len - 2) == b'\r')
        } else {
            usize::from(byte_at(len - 1) == b'\r')
        };
        let body = len - ending;
        if body <= self.limit {
            if held.is_empty() && ends {
                return if self.test(content(part), true) {
                    f(Event::Line { number, bytes: part, whole: true, start })
                } else {
                    Ok(())
                };
            }
            if self.held.capacity() < self.limit + 2 {
                // Once, to the limit: growing by doubling would copy and
                // could leave twice the limit behind.
                self.held.reserve_exact(self.limit + 2 - self.held.len());
            }
            self.held.extend_from_slice(part);
            if !ends {
                return Ok(());
            }
            let held = std::mem::take(&mut self.held);
            let result = if self.test(content(&held), true) {
                f(Event::Line { number, bytes: &held, whole: true, start })
            } else {
                Ok(())
            };
            self.held = held;
            self.held.clear();
            return result;
        }
        // Past the limit: the line's first `limit` bytes, cut on a
        // character boundary, are matched and handed out, and the rest of
        // the line streams through.
        let cut = cut_at(&self.held, part, self.limit);
        let mut held = std::mem::take(&mut self.held);
        let result = if cut >= held.len() {
            let take = cut - held.len();
            held.extend_from_slice(&part[..take]);
            self.matching = self.test(&held, false);
            if self.matching {
                f(Event::Line { number, bytes: &held, whole: false, start })
                    .and_then(|()| f(Event::Rest { bytes: &part[take..], ends }))
            } else {
                Ok(())
            }
        } else {
            // Only a `\r` held past the limit, which turned out to be content.
            self.matching = self.test(&held[..cut], false);
            if self.matching {
                f(Event::Line { number, bytes: &held[..cut], whole: false, start })
                    .and_then(|()| f(Event::Rest { bytes: &held[cut..], ends: false }))
                    .and_then(|()| f(Event::Rest { bytes: part, ends }))
            } else {
                Ok(())
            }
        };
        held.clear();
        self.held = held;
        self.overflow = !ends;
        result
    }
}

/// Where a line too long to hold is cut: the last character boundary at
/// or before `limit` of the line `held` followed by `part`.
fn cut_at(held: &[u8], part: &[u8], limit: usize) -> usize {
    // The boundary is decided by the bytes around it alone.
    let from = limit.saturating_sub(3);
    let mut window = [0; 8];
    let mut len = 0;
    for (slot, &b) in window.iter_mut().zip(held.iter().chain(part).skip(from)) {
        *slot = b;
        len += 1;
    }
    from + utf8::floor_boundary(&window[..len], limit - from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_line_endings() {
        assert_eq!(content(b"a\r\n"), b"a");
        assert_eq!(content(b"a\n"), b"a");
        assert_eq!(content(b"a\r"), b"a\r");
        assert_eq!(content(b"a"), b"a");
    }

    /// The lines that `search` hands out of `pieces`, with their numbers
    /// and whether they are whole.
    fn found(search: &mut LineSearch, pieces: &[&[u8]]) -> Vec<(u64, Vec<u8>, bool)> {
        let mut lines = Vec::new();
        let mut take = |e: Event| {
            match e {
                Event::Line { number, bytes, whole, .. } => lines.push((number, bytes.to_vec(), whole)),
                Event::Rest { bytes, .. } => {
                    lines.last_mut().expect("a line first").1.extend_from_slice(bytes);
                }
            }
            Ok::<(), ()>(())
        };
        for piece in pieces {
            search.feed(piece, &mut take).unwrap();
        }
        search.finish(&mut take).unwrap();
        lines
    }

    #[test]
    fn numbers_the_lines_it_finds_across_pieces() {
        let mut search = LineSearch::new(None, LINE_LIMIT);
        assert_eq!(
            found(&mut search, &[&b"ab"[..], b"c\n\nd", b"\n", b"e"]),
            [(1, b"abc\n".to_vec(), true), (3, b"d\n".to_vec(), true), (4, b"e".to_vec(), true)]
        );
        let mut search = LineSearch::new(Some(Matcher::new("^[ce]", false).unwrap()), LINE_LIMIT);
        assert_eq!(
            found(&mut search, &[&b"ab\nc\nd\r\ne\r\n"[..], b"xc\ncc"]),
            [(2, b"c\n".to_vec(), true), (4, b"e\r\n".to_vec(), true), (6, b"cc".to_vec(), true)]
        );
    }

    #[test]
    fn matches_a_long_line_on_its_first_part() {
        for pieces in
            [&[&b"xx\nabcdef\nab\n"[..]][..], &[b"xx\nab", b"cdef\nab\n"], &[b"xx\nabcdef\na", b"b\n"]]
        {
            let mut search = LineSearch::new(Some(Matcher::new("b", false).unwrap()), 3);
            assert_eq!(
                found(&mut search, pieces),
                [(2, b"abcdef\n".to_vec(), false), (3, b"ab\n".to_vec(), true)],
                "{pieces:?}"
            );
            let mut search = LineSearch::new(Some(Matcher::new("d", false).unwrap()), 3);
            assert!(found(&mut search, pieces).is_empty(), "{pieces:?}");
        }
    }

    #[test]
    fn gives_where_each_line_starts_in_the_stream_at_every_split() {
        let text = b"ab\nxbcdef\nb\r\nbbbbbb\n\nb";
        // Line number and start of each line, and where the lines found end.
        let starts = [(1, 0), (2, 3), (3, 10), (4, 13), (6, 21)];
        for limit in [3, LINE_LIMIT] {
            for first in 0..=text.len() {
                for second in first..=text.len() {
                    let mut search = LineSearch::new(Some(Matcher::new("b", false).unwrap()), limit);
                    let mut got = Vec::new();
                    let mut take = |e: Event| {
                        if let Event::Line { number, start, .. } = e {
                            got.push((number, start));
                        }
                        Ok::<(), ()>(())
                    };
                    for piece in [&text[..first], &text[first..second], &text[second..]] {
                        search.feed(piece, &mut take).unwrap();
                    }
                    search.finish(&mut take).unwrap();
                    assert_eq!(got, starts, "{limit} {first} {second}");
                }
            }
        }
    }

    #[test]
    fn anchors_hold_at_each_lines_content() {
        let text = b"az\r\nb\rz\nzb\n\rz\r\r\n";
        for (pattern, want) in
            [("^a", &[1][..]), ("z$", &[1, 2]), ("^b", &[2]), ("^z", &[3]), (r"\Az\z", &[])]
        {
            let mut search = LineSearch::new(Some(Matcher::new(pattern, false).unwrap()), LINE_LIMIT);
            let numbers: Vec<u64> = found(&mut search, &[text]).into_iter().map(|l| l.0).collect();
            assert_eq!(numbers, want, "{pattern}");
        }
    }
}
