//! The rewrites applied before counting: `--strip-ansi`, `--collapse-cr`,
//! and, with a character cap, `--max-line-chars`. All stream, so an
//! escape sequence, a `\r\n` or a character split across reads is
//! handled like any other.

use memchr::{memchr, memchr2};

use crate::caps::{LineShaper, line_pieces};
use crate::count::Unit;

/// The longest stretch of a line `--collapse-cr` holds while it waits to
/// see whether a `\r` erases it (see `CollapseCr`).
pub const COLLAPSE_LIMIT: usize = 64 * 1024;

/// The transforms in force, in the order they apply.
#[derive(Debug, Default)]
pub struct Transforms {
    strip: Option<StripAnsi>,
    collapse: Option<CollapseCr>,
    stripped: Vec<u8>,
}

impl Transforms {
    /// The transforms that `strip_ansi` and `collapse_cr` ask for, the
    /// latter holding stretches of up to `collapse_limit` bytes.
    pub fn new(strip_ansi: bool, collapse_cr: bool, collapse_limit: usize) -> Self {
        Transforms {
            strip: strip_ansi.then(StripAnsi::default),
            collapse: collapse_cr.then(|| CollapseCr::new(collapse_limit)),
            stripped: Vec::new(),
        }
    }

    /// Whether any transform is in force.
    pub fn any(&self) -> bool {
        self.strip.is_some() || self.collapse.is_some()
    }

    /// Appends the transformed `input` to `out`.
    pub fn apply(&mut self, input: &[u8], out: &mut Vec<u8>) {
        let Some(strip) = &mut self.strip else {
            return match &mut self.collapse {
                Some(collapse) => collapse.apply(input, out),
                None => out.extend_from_slice(input),
            };
        };
        match &mut self.collapse {
            Some(collapse) => {
                self.stripped.clear();
                strip.apply(input, &mut self.stripped);
                collapse.apply(&self.stripped, out);
            }
            None => strip.apply(input, out),
        }
    }

    /// Appends what the transforms still hold at the end of the input.
    pub fn finish(&mut self, out: &mut Vec<u8>) {
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
    /// Appends `input` without its escape sequences to `out`.
    pub fn apply(&mut self, mut input: &[u8], out: &mut Vec<u8>) {
        while let Some((&b, rest)) = input.split_first() {
            if self.state != Ansi::Ground {
                self.step(b, out);
                input = rest;
                continue;
            }
            let Some(i) = memchr(ESC, input) else {
                out.extend_from_slice(input);
                return;
            };
            out.extend_from_slice(&input[..i]);
            self.state = Ansi::Escape;
            input = &input[i + 1..];
        }
    }

    /// Takes one byte inside a sequence.
    // One arm per state and byte class reads as the table it is.
    #[allow(clippy::match_same_arms)]
    fn step(&mut self, b: u8, out: &mut Vec<u8>) {
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

    /// Appends the collapsed `input` to `out`.
    pub fn apply(&mut self, mut input: &[u8], out: &mut Vec<u8>) {
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
        while !input.is_empty() {
            let Some(i) = memchr2(b'\r', b'\n', input) else {
                self.hold(input, out);
                return;
            };
            let text = &input[..i];
            if input[i] == b'\n' {
                self.end_line(out);
                out.extend_from_slice(&input[..=i]);
                input = &input[i + 1..];
                continue;
            }
            match input.get(i + 1) {
                None => {
                    self.hold(text, out);
                    self.cr = true;
                    return;
                }
                Some(b'\n') => {
                    self.end_line(out);
                    out.extend_from_slice(&input[..i + 2]);
                    input = &input[i + 2..];
                }
                // Another `\r`: that one decides.
                Some(b'\r') => {
                    self.hold(text, out);
                    input = &input[i + 1..];
                }
                Some(_) => {
                    // Erased, unless it takes the stretch past the limit.
                    if self.passing || self.held.len() + text.len() > self.limit {
                        self.hold(text, out);
                    }
                    self.erase();
                    input = &input[i + 1..];
                }
            }
        }
    }

    /// Holds `text`, passing on the stretch once it goes past the limit.
    fn hold(&mut self, text: &[u8], out: &mut Vec<u8>) {
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
    fn end_line(&mut self, out: &mut Vec<u8>) {
        out.append(&mut self.held);
        self.passing = false;
    }

    /// Passes on what is held at the end of the input; a last `\r`, with
    /// nothing after it, erases nothing.
    pub fn finish(&mut self, out: &mut Vec<u8>) {
        self.cr = false;
        self.end_line(out);
    }
}
