//! The rewrites applied before counting: `--strip-ansi`, `--collapse-cr`,
//! and, with a character cap, `--max-line-chars`. All stream, so an
//! escape sequence, a `\r\n` or a character split across reads is
//! handled like any other.

use memchr::{memchr, memchr2, memchr3, memrchr};

use crate::text::buf::PageBuf;

use crate::caps::{LineShaper, line_pieces};
use crate::text::count::Unit;

/// The longest stretch of a line `--collapse-cr` holds while it waits to
/// see whether a `\r` erases it (see `CollapseCr`).
pub const COLLAPSE_LIMIT: usize = 64 * 1024;

/// The most of a chunk that goes through the transforms at a time, so that
/// the buffers they write into stay small whatever the read size.
pub const PART: usize = 64 * 1024;

/// The transforms in force, in the order they apply.
#[derive(Debug, Default)]
pub struct Transforms {
    strip: Option<StripAnsi>,
    collapse: Option<CollapseCr>,
    /// Between the two transforms, when both are in force.
    stripped: PageBuf,
}

impl Transforms {
    /// The transforms that `strip_ansi` and `collapse_cr` ask for, the
    /// latter holding stretches of up to `collapse_limit` bytes.
    pub fn new(strip_ansi: bool, collapse_cr: bool, collapse_limit: usize) -> Self {
        Transforms {
            strip: strip_ansi.then(StripAnsi::default),
            collapse: collapse_cr.then(|| CollapseCr::new(collapse_limit)),
            // Grown to the parts that come (see `apply`): a short output
            // never zeroes (and faults in) the pages of a whole part.
            stripped: PageBuf::default(),
        }
    }

    /// Whether any transform is in force.
    pub fn any(&self) -> bool {
        self.strip.is_some() || self.collapse.is_some()
    }

    /// Appends the transformed `input` to `out`.
    pub fn apply(&mut self, input: &[u8], out: &mut PageBuf) {
        let Some(strip) = &mut self.strip else {
            return match &mut self.collapse {
                Some(collapse) => collapse.apply(input, out),
                None => out.extend_from_slice(input),
            };
        };
        match &mut self.collapse {
            Some(collapse) => {
                self.stripped.clear();
                // Stripping only removes bytes.
                self.stripped.reserve_exact(input.len());
                strip.apply(input, &mut self.stripped);
                collapse.apply(self.stripped.as_slice(), out);
            }
            None => strip.apply(input, out),
        }
    }

    /// Appends what the transforms still hold at the end of the input.
    pub fn finish(&mut self, out: &mut PageBuf) {
        if let Some(collapse) = &mut self.collapse {
            collapse.finish(out);
        }
    }
}

/// `--max-line-chars` before a character cap: each line cut to its first
/// W units with the marker, so the cap counts what the line cap left. It
/// comes after `--keep`, which sees the lines without the marker.
#[derive(Debug)]
pub struct LineCap {
    shaper: LineShaper,
}

impl LineCap {
    /// Keeps `width` units of each line.
    pub fn new(width: u64, unit: Unit) -> Self {
        LineCap { shaper: LineShaper::new(Some(width), unit, false) }
    }

    /// Appends the lines of `input`, which begins and ends on character
    /// boundaries, cut to the width, to `out`.
    pub fn apply(&mut self, input: &[u8], out: &mut Vec<u8>) {
        for piece in line_pieces(input) {
            // Writing to a Vec cannot fail.
            let _ = self.shaper.piece(0, piece, out);
        }
    }

    /// Appends the marker of a last line without `\n` that was cut.
    pub fn finish(&mut self, out: &mut Vec<u8>) {
        // Writing to a Vec cannot fail.
        let _ = self.shaper.finish(out);
    }
}

const ESC: u8 = 0x1b;
const BEL: u8 = 0x07;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Ansi {
    /// Plain text.
    #[default]
    Ground,
    /// After ESC.
    Escape,
    /// After ESC and intermediate bytes, as in `ESC ( B`.
    Intermediate,
    /// Inside `ESC [`: parameters and intermediates up to a final byte.
    Csi,
    /// Inside a string (OSC `ESC ]`, DCS, SOS, PM, APC) up to BEL or ST.
    String,
    /// ESC inside a string: `ESC \` ends it.
    StringEscape,
}

/// Where the first ESC of `bytes` is. In coloured output the next one is
/// often a few bytes away: the first 64 bytes are tested eight at a time
/// in a word before `memchr`, whose set-up costs more than a short look.
#[inline]
fn find_esc(bytes: &[u8]) -> Option<usize> {
    const NEAR: usize = 64;
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let near = &bytes[..bytes.len().min(NEAR)];
    let (words, tail) = near.as_chunks::<8>();
    for (i, word) in words.iter().enumerate() {
        // A byte of `x` is zero where the word holds an ESC; the lowest
        // byte flagged is the first zero (a borrow only flags bytes
        // above a zero one).
        let x = u64::from_le_bytes(*word) ^ (ONES * u64::from(ESC));
        let zero = x.wrapping_sub(ONES) & !x & HIGH;
        if zero != 0 {
            return Some(i * 8 + zero.trailing_zeros() as usize / 8);
        }
    }
    if let Some(j) = tail.iter().position(|&b| b == ESC) {
        return Some(near.len() - tail.len() + j);
    }
    memchr(ESC, &bytes[near.len()..]).map(|i| i + near.len())
}

/// The length of the CSI sequence that `bytes` (what follows an ESC)
/// starts with, `[`, parameter and intermediate bytes and a final byte,
/// when it is all there; `None` for any other sequence or one that goes
/// on past `bytes`.
#[inline]
fn whole_csi(bytes: &[u8]) -> Option<usize> {
    if bytes.first() != Some(&b'[') {
        return None;
    }
    let params = bytes[1..].iter().take_while(|b| (0x20..=0x3f).contains(*b)).count();
    match bytes.get(1 + params) {
        Some(0x40..=0x7e) => Some(2 + params),
        _ => None,
    }
}

/// Removes ANSI escape sequences (ECMA-48): CSI, OSC and the other
/// strings, and two-byte and intermediate ESC sequences.
///
/// A sequence broken by a byte it cannot contain ends there, and that
/// byte is kept: a newline is never swallowed by a malformed sequence.
#[derive(Debug, Default)]
pub struct StripAnsi {
    state: Ansi,
}

impl StripAnsi {
    /// Appends `input` without its escape sequences to `out`: the text
    /// between two ESC bytes is copied whole, and only the bytes of a
    /// sequence are looked at one by one.
    pub fn apply(&mut self, input: &[u8], out: &mut PageBuf) {
        // A sequence begun in an earlier input ends first.
        let mut pos = self.sequence(input, 0, out);
        while let Some(esc) = find_esc(&input[pos..]) {
            let esc = pos + esc;
            if esc > pos {
                out.extend_from_slice(&input[pos..esc]);
            }
            // The common sequence, a whole CSI such as `ESC [ 1 ; 32 m`,
            // is skipped at once; any other goes through the states.
            if let Some(end) = whole_csi(&input[esc + 1..]) {
                pos = esc + 1 + end;
                continue;
            }
            self.state = Ansi::Escape;
            pos = self.sequence(input, esc + 1, out);
        }
        out.extend_from_slice(&input[pos..]);
    }

    /// Takes the bytes of the sequence in progress from `input[pos..]`;
    /// returns where the text after it starts (the end of `input` when
    /// the sequence goes on past it).
    fn sequence(&mut self, input: &[u8], mut pos: usize, out: &mut PageBuf) -> usize {
        while self.state != Ansi::Ground {
            match self.state {
                // Parameter and intermediate bytes, up to the final one.
                Ansi::Csi => pos += input[pos..].iter().take_while(|b| (0x20..=0x3f).contains(*b)).count(),
                // A string ends at BEL or ESC, or is broken by a newline.
                Ansi::String => match memchr3(BEL, ESC, b'\n', &input[pos..]) {
                    Some(i) => pos += i,
                    None => return input.len(),
                },
                _ => {}
            }
            let Some(&b) = input.get(pos) else { return input.len() };
            self.step(b, out);
            pos += 1;
        }
        pos
    }

    /// Takes one byte inside a sequence.
    // One arm per state and byte class reads as the table it is.
    #[allow(clippy::match_same_arms)]
    fn step(&mut self, b: u8, out: &mut PageBuf) {
        self.state = match (self.state, b) {
            (Ansi::Escape, b'[') => Ansi::Csi,
            (Ansi::Escape, b']' | b'P' | b'X' | b'^' | b'_') => Ansi::String,
            (Ansi::Escape | Ansi::Intermediate, 0x20..=0x2f) => Ansi::Intermediate,
            (Ansi::Escape | Ansi::Intermediate, 0x30..=0x7e) | (Ansi::Csi, 0x40..=0x7e) => Ansi::Ground,
            (Ansi::Csi, 0x20..=0x3f) => Ansi::Csi,
            (Ansi::Escape | Ansi::Intermediate | Ansi::Csi, ESC) => Ansi::Escape,
            (Ansi::String, BEL) | (Ansi::StringEscape, b'\\') => Ansi::Ground,
            (Ansi::String, ESC) => Ansi::StringEscape,
            (Ansi::String, b) if b != b'\n' => Ansi::String,
            (Ansi::StringEscape, _) => {
                // An ESC in a string that does not end it starts a new sequence.
                self.state = Ansi::Escape;
                return self.step(b, out);
            }
            // A byte no sequence can hold ends the sequence and is kept.
            (_, b) => {
                out.push(b);
                Ansi::Ground
            }
        };
    }
}

/// Keeps only the text after the last `\r` of each line, as a terminal
/// shows a progress bar; a `\r\n` ending stays. A `\r` with no text after
/// it on its line (at the end of the input, or before another `\r` or the
/// line's end) erases nothing, as on a terminal.
///
/// The stretch of text since a line's start or its last `\r` is held until
/// it is known whether a `\r` erases it, up to a limit: a longer stretch is
/// passed on whole, so memory stays bounded on a huge line, and a `\r`
/// after it erases only what follows it. Where a stretch passes the limit
/// depends on its length alone, never on how reads split it.
#[derive(Debug)]
pub struct CollapseCr {
    limit: usize,
    /// The line's text since its start or its last `\r`, not yet passed on.
    held: Vec<u8>,
    /// The current stretch went past the limit: it is passed on as it comes.
    passing: bool,
    /// The last input byte was a `\r`, its effect unknown yet.
    cr: bool,
}

impl Default for CollapseCr {
    fn default() -> Self {
        CollapseCr::new(COLLAPSE_LIMIT)
    }
}

impl CollapseCr {
    /// Holds stretches of up to `limit` bytes.
    pub fn new(limit: usize) -> Self {
        CollapseCr { limit, held: Vec::new(), passing: false, cr: false }
    }

    /// Appends the collapsed `input` to `out`. It jumps from `\r` to
    /// `\r`: the lines between two are copied whole.
    pub fn apply(&mut self, mut input: &[u8], out: &mut PageBuf) {
        if self.cr && !input.is_empty() {
            self.cr = false;
            match input[0] {
                b'\n' => {
                    self.end_line(out);
                    out.extend_from_slice(b"\r\n");
                    input = &input[1..];
                }
                // Another `\r`: that one decides.
                b'\r' => {}
                _ => self.erase(),
            }
        }
        // The one-step path of `last_frame` is tried while less than this
        // is left of the input.
        let mut frames_from = usize::MAX;
        while !input.is_empty() {
            // A progress bar redraws every few dozen bytes: when the next
            // `\r` comes before any `\n`, the text before it is one
            // stretch, found in one search.
            let (i, stretch) = match memchr2(b'\r', b'\n', input) {
                Some(i) if input[i] == b'\r' => (i, &input[..i]),
                _ => {
                    let Some(i) = memchr(b'\r', input) else {
                        self.lines(input, out);
                        return;
                    };
                    (i, self.whole_lines(&input[..i], out))
                }
            };
            // The common case, a progress bar's line: its frames go in one
            // step, not one `\r` at a time. A line that cannot is not
            // searched again at each of its `\r`.
            if input.len() < frames_from {
                match self.last_frame(input, i, stretch.len()) {
                    Ok((from, end)) => {
                        out.extend_from_slice(&input[from..=end]);
                        input = &input[end + 1..];
                        continue;
                    }
                    Err(end) => frames_from = input.len() - end,
                }
            }
            match input.get(i + 1) {
                None => {
                    self.hold(stretch, out);
                    self.cr = true;
                    return;
                }
                Some(b'\n') => {
                    self.end_line(out);
                    out.extend_from_slice(stretch);
                    out.extend_from_slice(b"\r\n");
                    input = &input[i + 2..];
                }
                // Another `\r`: that one decides.
                Some(b'\r') => {
                    self.hold(stretch, out);
                    input = &input[i + 1..];
                }
                Some(_) => {
                    // Erased, unless it takes the stretch past the limit:
                    // then it is passed on first. Text erased is never
                    // copied.
                    if self.passing || self.held.len() + stretch.len() > self.limit {
                        self.hold(stretch, out);
                    }
                    self.erase();
                    input = &input[i + 1..];
                }
            }
        }
    }

    /// Where the text after the last `\r` of a line starts and where its
    /// `\n` is, when that `\r` erases all that came before it on the line:
    /// `input[i]` is a `\r`, and the `before` bytes before it are all of
    /// the line since its start or its last erasing `\r`. That holds when
    /// nothing of the line is held or was passed on, the line ends in
    /// `input`, no longer than the limit (so no stretch of it is passed on),
    /// and its last `\r` has text after it. The `\r`s before erase what
    /// they erase, and the last erases it all: what is left is the text
    /// after it, with the line's `\n`. Otherwise, where in `input` to try
    /// again at the earliest: past the line's end, or the next `\r` when
    /// something is held.
    fn last_frame(&self, input: &[u8], i: usize, before: usize) -> Result<(usize, usize), usize> {
        if !self.held.is_empty() || self.passing {
            return Err(i);
        }
        let Some(end) = memchr(b'\n', &input[i + 1..]).map(|n| i + 1 + n) else {
            return Err(input.len());
        };
        if end - (i - before) > self.limit {
            return Err(end);
        }
        // `input[i]` is a `\r`, so there is a last one.
        let last = memrchr(b'\r', &input[i..end]).map_or(i, |r| i + r);
        if last + 1 < end { Ok((last + 1, end)) } else { Err(end) }
    }

    /// Takes `text`, which holds no `\r`: the lines it ends go out whole;
    /// returns the stretch after its last `\n`, for the caller.
    fn whole_lines<'a>(&mut self, text: &'a [u8], out: &mut PageBuf) -> &'a [u8] {
        match memrchr(b'\n', text) {
            None => text,
            Some(last) => {
                self.end_line(out);
                out.extend_from_slice(&text[..=last]);
                &text[last + 1..]
            }
        }
    }

    /// Takes `text`, which holds no `\r`: the lines it ends go out whole,
    /// and the stretch after its last `\n` is held.
    fn lines(&mut self, text: &[u8], out: &mut PageBuf) {
        let stretch = self.whole_lines(text, out);
        self.hold(stretch, out);
    }

    /// Holds `text`, passing on the stretch once it goes past the limit.
    fn hold(&mut self, text: &[u8], out: &mut PageBuf) {
        if self.passing {
            out.extend_from_slice(text);
        } else if self.held.len() + text.len() > self.limit {
            out.append(&mut self.held);
            out.extend_from_slice(text);
            self.passing = true;
        } else {
            self.held.extend_from_slice(text);
        }
    }

    /// A `\r` with text after it: the stretch held is erased.
    fn erase(&mut self) {
        self.held.clear();
        self.passing = false;
    }

    /// The line ends: what is held stays.
    fn end_line(&mut self, out: &mut PageBuf) {
        out.append(&mut self.held);
        self.passing = false;
    }

    /// Passes on what is held at the end of the input; a last `\r`, with
    /// nothing after it, erases nothing.
    pub fn finish(&mut self, out: &mut PageBuf) {
        self.cr = false;
        self.end_line(out);
    }
}
