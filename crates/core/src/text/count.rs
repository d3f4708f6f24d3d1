//! Totals of the stream: bytes, lines and characters, counted over whole
//! pieces with vectorised counters, and only those that are needed.

use crate::text::utf8;

/// What is counted: characters (the default) or bytes (`--bytes`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Unicode scalar values, invalid bytes counted as U+FFFD.
    Chars,
    /// Bytes.
    Bytes,
}

impl Unit {
    /// The word notices use for this unit.
    pub fn name(self) -> &'static str {
        match self {
            Unit::Chars => "chars",
            Unit::Bytes => "bytes",
        }
    }

    /// The offset just past the first `n` units of `bytes`, and how many
    /// units that is.
    pub fn advance(self, bytes: &[u8], n: u64) -> (usize, u64) {
        match self {
            Unit::Chars => utf8::advance_chars(bytes, n),
            Unit::Bytes => {
                let end = usize::try_from(n).map_or(bytes.len(), |n| n.min(bytes.len()));
                (end, end as u64)
            }
        }
    }

    /// The offset where the last `n` units of `bytes` start, and how many
    /// units that is.
    pub fn last_start(self, bytes: &[u8], n: u64) -> (usize, u64) {
        match self {
            Unit::Chars => utf8::last_chars_start(bytes, n),
            Unit::Bytes => {
                let len = usize::try_from(n).map_or(bytes.len(), |n| n.min(bytes.len()));
                (bytes.len() - len, len as u64)
            }
        }
    }

    /// The most bytes that `n` units can take.
    pub fn max_bytes(self, n: u64) -> u64 {
        match self {
            Unit::Chars => n.saturating_mul(4),
            Unit::Bytes => n,
        }
    }
}

/// Which totals a run reads. Bytes are always counted (they cost
/// nothing); lines and characters only when something will read them, so
/// a plain `--tail-chars` touches each byte only to copy it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Need {
    /// Count lines.
    pub lines: bool,
    /// Count characters.
    pub chars: bool,
}

impl Need {
    /// Every total.
    pub(crate) const ALL: Need = Need { lines: true, chars: true };
}

/// Running totals of everything the caps were fed.
///
/// Bytes are always counted; characters and lines only when something
/// reads them, and a total that was not counted reads as `None`, never
/// as a silent 0.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Totals {
    bytes: u64,
    chars: u64,
    /// `\n` bytes.
    newlines: u64,
    /// Whether the last byte counted was a `\n`.
    ends_with_newline: bool,
    need: Need,
}

/// The totals as their getters give them: one not counted shows as
/// `None`, never as a 0 that was not counted.
impl std::fmt::Debug for Totals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Totals")
            .field("bytes", &self.bytes)
            .field("chars", &self.chars())
            .field("lines", &self.lines())
            .finish_non_exhaustive()
    }
}

impl Totals {
    /// Nothing counted yet; `need` says which totals are.
    pub(crate) fn new(need: Need) -> Self {
        Totals { bytes: 0, chars: 0, newlines: 0, ends_with_newline: false, need }
    }

    /// Counts one piece of the stream, which begins on a character
    /// boundary.
    pub(crate) fn add(&mut self, piece: &[u8]) {
        let Some(&last) = piece.last() else { return };
        self.bytes += piece.len() as u64;
        match (self.need.lines, self.need.chars) {
            (true, true) => {
                let (newlines, chars) = utf8::count_newlines_and_chars(piece);
                self.newlines += newlines;
                self.chars += chars;
            }
            (true, false) => self.newlines += bytecount::count(piece, b'\n') as u64,
            (false, true) => self.chars += utf8::count_chars_fast(piece),
            (false, false) => {}
        }
        self.ends_with_newline = last == b'\n';
    }

    /// Bytes.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Characters (invalid UTF-8 counted as U+FFFD), when counted.
    pub fn chars(&self) -> Option<u64> {
        self.need.chars.then_some(self.chars)
    }

    /// Lines, counting a last line that has no `\n`, when counted.
    pub fn lines(&self) -> Option<u64> {
        self.need.lines.then(|| self.newlines + u64::from(self.bytes > 0 && !self.ends_with_newline))
    }

    /// `\n` bytes, when lines are counted.
    pub(crate) fn newlines(&self) -> Option<u64> {
        self.need.lines.then_some(self.newlines)
    }

    /// The total in `unit`, when counted.
    pub fn of(&self, unit: Unit) -> Option<u64> {
        match unit {
            Unit::Chars => self.chars(),
            Unit::Bytes => Some(self.bytes),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_lines_like_the_spec() {
        for (input, lines) in [("", 0), ("a", 1), ("a\n", 1), ("a\nb", 2), ("\n\n", 2), ("a\r\n", 1)] {
            let mut t = Totals::new(Need::ALL);
            t.add(input.as_bytes());
            assert_eq!(t.lines(), Some(lines), "{input:?}");
        }
    }

    #[test]
    fn counts_chars_of_invalid_input() {
        let mut t = Totals::new(Need::ALL);
        t.add(b"\xe2\x82\xac\x80 \xc0\x80\n");
        assert_eq!((t.bytes(), t.chars(), t.lines()), (8, Some(6), Some(1)));
        let mut t = Totals::new(Need { lines: false, chars: false });
        t.add(b"a\n");
        assert_eq!((t.bytes(), t.chars(), t.lines()), (2, None, None));
    }
}
