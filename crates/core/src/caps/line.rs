//! Lines: splitting the stream into them, and writing them with a line
//! number and the per-line cap (`--max-line-chars`).

use std::io::{self, Write};

use memchr::{memchr, memchr_iter, memrchr};

use crate::notice;
use crate::text::count::Unit;

/// The pieces of `bytes` that end each with a `\n`, but for the last,
/// which ends where `bytes` does: one line each, or a part of one.
pub fn line_pieces(mut bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    std::iter::from_fn(move || {
        if bytes.is_empty() {
            return None;
        }
        let (piece, rest) = bytes.split_at(memchr(b'\n', bytes).map_or(bytes.len(), |i| i + 1));
        bytes = rest;
        Some(piece)
    })
}

/// Splits the stream into pieces that each lie within one line, and
/// numbers the lines.
#[derive(Debug)]
pub struct LineSplitter {
    line: u64,
}

impl Default for LineSplitter {
    fn default() -> Self {
        LineSplitter { line: 1 }
    }
}

impl LineSplitter {
    /// The number of the line the next byte belongs to.
    pub fn line(&self) -> u64 {
        self.line
    }

    /// Calls `f` with each piece of `chunk` and its line number; a piece
    /// that ends in `\n` ends its line. Stops early when `f` returns false.
    #[cfg(test)]
    pub fn split<'a>(&mut self, chunk: &'a [u8], mut f: impl FnMut(u64, &'a [u8]) -> bool) {
        for piece in line_pieces(chunk) {
            let line = self.line;
            if piece.last() == Some(&b'\n') {
                self.line += 1;
            }
            if !f(line, piece) {
                return;
            }
        }
    }

    /// Counts `lines` whole lines passed over by the caller.
    pub fn advance(&mut self, lines: u64) {
        self.line += lines;
    }

    /// Skips whole lines until line `line` starts; returns what is left of
    /// `chunk` (empty when it ends before that line).
    pub fn skip_to<'a>(&mut self, chunk: &'a [u8], line: u64) -> &'a [u8] {
        if self.line >= line {
            return chunk;
        }
        for i in memchr::memchr_iter(b'\n', chunk) {
            self.line += 1;
            if self.line >= line {
                return &chunk[i + 1..];
            }
        }
        &chunk[chunk.len()..]
    }
}

/// Writes lines, piece by piece, with an optional `cat -n` style number and
/// the per-line cap: the first W units of each line, then a marker before
/// the line's ending (`\n` or `\r\n`, kept and not counted).
#[derive(Debug)]
pub struct LineShaper {
    width: Option<u64>,
    unit: Unit,
    numbers: bool,
    marker: String,
    /// Inside a line: its first piece has been written.
    in_line: bool,
    /// Units of the current line written so far.
    used: u64,
    /// The current line was cut at the width.
    cut: bool,
    /// The last piece ended in `\r`, which is the line's ending if a `\n`
    /// follows and content otherwise.
    pending_cr: bool,
}

impl LineShaper {
    /// A shaper that keeps `width` units of each line (`None`: all) and
    /// numbers lines when `numbers` is set.
    pub fn new(width: Option<u64>, unit: Unit, numbers: bool) -> Self {
        LineShaper {
            width,
            unit,
            numbers,
            marker: width.map(|w| notice::line_truncated(w, unit.name())).unwrap_or_default(),
            in_line: false,
            used: 0,
            cut: false,
            pending_cr: false,
        }
    }

    /// Whether it numbers lines.
    pub fn numbers(&self) -> bool {
        self.numbers
    }

    /// The units kept of each line, `None` for all.
    pub fn width(&self) -> Option<u64> {
        self.width
    }

    /// What it counts in.
    pub fn unit(&self) -> Unit {
        self.unit
    }

    /// Whether a line was begun and not ended.
    pub fn in_line(&self) -> bool {
        self.in_line
    }

    /// The most bytes of a line's start that decide how it is written:
    /// past them a line is cut whatever follows, so a line longer than
    /// this and its two last bytes (its ending) may be held as this many
    /// bytes of its start and those two. `None` without a width.
    pub fn deciding_bytes(&self) -> Option<usize> {
        // W units take at most max_bytes(W) bytes; four more hold the
        // whole of the character after them, which makes the cut.
        self.width.map(|w| usize::try_from(self.unit.max_bytes(w).saturating_add(4)).unwrap_or(usize::MAX))
    }

    /// The longest line, in bytes, that is sure to be written whole:
    /// `usize::MAX` without a width.
    pub fn never_cut(&self) -> usize {
        self.width.map_or(usize::MAX, |w| usize::try_from(w).unwrap_or(usize::MAX))
    }

    /// How much of `start`, the first [`LineShaper::deciding_bytes`] of a
    /// longer line, is written for it: the bytes of its first W units and
    /// one more, which makes the cut.
    pub fn deciding_len(&self, start: &[u8]) -> usize {
        match self.width {
            Some(w) => (self.unit.advance(start, w).0 + 1).min(start.len()),
            None => start.len(),
        }
    }

    /// Writes `piece`, part of line `number`; a piece that ends in `\n`
    /// ends the line.
    pub fn piece(&mut self, number: u64, piece: &[u8], out: &mut impl Write) -> io::Result<()> {
        let Some((&last, body)) = piece.split_last() else { return Ok(()) };
        if !self.in_line {
            self.in_line = true;
            self.used = 0;
            self.cut = false;
            self.pending_cr = false;
            if self.numbers {
                write!(out, "{number:>6}\t")?;
            }
        }
        if self.width.is_none() {
            self.in_line = last != b'\n';
            return out.write_all(piece);
        }
        if last != b'\n' {
            self.flush_cr(out)?;
            return match piece.strip_suffix(b"\r") {
                Some(content) => {
                    self.content(content, false, out)?;
                    self.pending_cr = true;
                    Ok(())
                }
                None => self.content(piece, false, out),
            };
        }
        let (content, crlf) = match body.strip_suffix(b"\r") {
            Some(content) => (content, true),
            None if body.is_empty() && self.pending_cr => {
                self.pending_cr = false;
                (body, true)
            }
            None => (body, false),
        };
        self.flush_cr(out)?;
        self.content(content, true, out)?;
        self.end(out)?;
        out.write_all(if crlf { b"\r\n" } else { b"\n" })
    }

    /// The longest start of `bytes` made of whole lines, `max_lines` at
    /// most, that this shaper would write unchanged: no numbers, and every
    /// line within the width in bytes. Returns its length and its lines.
    /// Such runs go out in one write instead of line by line.
    pub fn plain_prefix(&self, bytes: &[u8], max_lines: u64) -> (usize, u64) {
        if self.numbers || self.in_line || max_lines == 0 {
            return (0, 0);
        }
        // Where the `n`-th newline of `bytes` ends.
        let nth_end =
            |bytes: &[u8], n: u64| memchr_iter(b'\n', bytes).nth((n - 1) as usize).map_or(0, |i| i + 1);
        let Some(width) = self.width else {
            let Some(last) = memrchr(b'\n', bytes) else { return (0, 0) };
            let lines = bytecount::count(&bytes[..=last], b'\n') as u64;
            return if lines <= max_lines {
                (last + 1, lines)
            } else {
                (nth_end(bytes, max_lines), max_lines)
            };
        };
        // A window of width + 1 bytes that holds a newline ends only lines
        // of at most that many bytes, ending included.
        let window = usize::try_from(width).unwrap_or(usize::MAX).saturating_add(1);
        let (mut end, mut lines) = (0, 0);
        while lines < max_lines {
            let rest = &bytes[end..];
            let Some(last) = memrchr(b'\n', &rest[..rest.len().min(window)]) else { break };
            let run = &rest[..=last];
            let n = bytecount::count(run, b'\n') as u64;
            if lines + n > max_lines {
                return (end + nth_end(run, max_lines - lines), max_lines);
            }
            end += run.len();
            lines += n;
        }
        (end, lines)
    }

    /// Ends a last line that has no `\n`.
    pub fn finish(&mut self, out: &mut impl Write) -> io::Result<()> {
        if self.in_line && self.width.is_some() {
            self.flush_cr(out)?;
            self.end(out)?;
        }
        self.in_line = false;
        Ok(())
    }

    /// Writes the marker of a cut line; the line is over.
    fn end(&mut self, out: &mut impl Write) -> io::Result<()> {
        self.in_line = false;
        if self.cut { out.write_all(self.marker.as_bytes()) } else { Ok(()) }
    }

    /// A `\r` held back turned out to be content.
    fn flush_cr(&mut self, out: &mut impl Write) -> io::Result<()> {
        if std::mem::take(&mut self.pending_cr) {
            self.content(b"\r", false, out)?;
        }
        Ok(())
    }

    /// Writes line content up to the width. `last` says the line ends after
    /// it, so a short line needs no counting.
    fn content(&mut self, bytes: &[u8], last: bool, out: &mut impl Write) -> io::Result<()> {
        let Some(width) = self.width else { return out.write_all(bytes) };
        if self.cut || bytes.is_empty() {
            return Ok(());
        }
        let left = width - self.used;
        if last && bytes.len() as u64 <= left {
            return out.write_all(bytes);
        }
        let (end, n) = self.unit.advance(bytes, left);
        self.used += n;
        self.cut = end < bytes.len();
        out.write_all(&bytes[..end])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(width: Option<u64>, numbers: bool, pieces: &[&[u8]]) -> String {
        let mut shaper = LineShaper::new(width, Unit::Chars, numbers);
        let mut out = Vec::new();
        let mut splitter = LineSplitter::default();
        for piece in pieces {
            splitter.split(piece, |line, p| {
                shaper.piece(line, p, &mut out).unwrap();
                true
            });
        }
        shaper.finish(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn cuts_long_lines_before_their_ending() {
        let cut = " ... (line truncated to 3 chars)";
        assert_eq!(shape(Some(3), false, &[b"abc\nabcd\r\nab\r\n"]), format!("abc\nabc{cut}\r\nab\r\n"));
        assert_eq!(shape(Some(3), false, &[b"ab", b"c\r", b"\nabc\r", b"d\n"]), format!("abc\r\nabc{cut}\n"));
        assert_eq!(shape(Some(3), false, &[b"abcd"]), format!("abc{cut}"));
        assert_eq!(shape(Some(3), false, &[b"ab\r"]), "ab\r");
        assert_eq!(
            shape(Some(2), false, &["\u{e9}\u{e9}\u{e9}\n".as_bytes()]),
            "\u{e9}\u{e9} ... (line truncated to 2 chars)\n"
        );
    }

    #[test]
    fn numbers_lines_like_cat_n() {
        assert_eq!(shape(None, true, &[b"a\nb", b"c\n\n"]), "     1\ta\n     2\tbc\n     3\t\n");
    }

    #[test]
    fn skips_to_a_line() {
        let mut s = LineSplitter::default();
        assert_eq!(s.skip_to(b"a\nb\nc", 3), b"c");
        let mut s = LineSplitter::default();
        assert_eq!(s.skip_to(b"a\nb", 3), b"");
        assert_eq!(s.skip_to(b"\nc\n", 3), b"c\n");
        let mut s = LineSplitter::default();
        assert_eq!(s.skip_to(b"abc", 1), b"abc");
    }
}
