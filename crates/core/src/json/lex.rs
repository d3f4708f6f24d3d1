//! The lexical grammar of JSON (RFC 8259), as pieces a streaming parser
//! resumes between chunks: byte classes, the UTF-8 of strings, numbers
//! and the three literals.

/// What a byte is between tokens.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Class {
    /// Space, tab, `\n`, `\r`.
    Space,
    /// Anything else: a structural character, the start of a token, or
    /// a byte that is not JSON there.
    Other,
}

/// [`Class`] by byte.
pub(super) static CLASS: [Class; 256] = {
    let mut table = [Class::Other; 256];
    table[b' ' as usize] = Class::Space;
    table[b'\t' as usize] = Class::Space;
    table[b'\n' as usize] = Class::Space;
    table[b'\r' as usize] = Class::Space;
    table
};

/// Bytes that a string holds as they are: all but `"`, `\` and the
/// control characters below U+0020 (bytes of 0x80 and up are checked as
/// UTF-8 apart).
pub(super) static PLAIN: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0x20;
    while b < 256 {
        table[b] = b != b'"' as usize && b != b'\\' as usize;
        b += 1;
    }
    table
};

/// Eight bytes at once, as a word (the last ones of a short slice are
/// not read).
const LANES: usize = 8;
const ONES: u64 = u64::from_ne_bytes([0x01; LANES]);
const HIGHS: u64 = u64::from_ne_bytes([0x80; LANES]);

fn word(bytes: &[u8], i: usize) -> u64 {
    let mut lanes = [0; LANES];
    lanes.copy_from_slice(&bytes[i..i + LANES]);
    u64::from_le_bytes(lanes)
}

/// The high bit of each byte of `word` that is `b`. Only the lowest one
/// is exact (a borrow may mark a byte above a true one), which is all the
/// scans below read.
fn bytes_equal(word: u64, b: u8) -> u64 {
    let x = word ^ (ONES * u64::from(b));
    x.wrapping_sub(ONES) & !x & HIGHS
}

/// The high bit of each byte of `word` below `b` (≤ 0x80), lowest exact.
fn bytes_below(word: u64, b: u8) -> u64 {
    word.wrapping_sub(ONES * u64::from(b)) & !word & HIGHS
}

/// The index of the lowest byte marked in `mask`.
fn first(mask: u64) -> usize {
    (mask.trailing_zeros() / 8) as usize
}

/// The high bit of each byte of `word` that is `b`, exactly (no borrow
/// crosses bytes).
fn bytes_equal_exact(word: u64, b: u8) -> u64 {
    let x = word ^ (ONES * u64::from(b));
    !(((x & !HIGHS) + !HIGHS) | x) & HIGHS
}

/// The length of the run of whitespace at the start of `bytes`.
#[inline]
pub(super) fn space_run(bytes: &[u8]) -> usize {
    let mut i = 0;
    // A word at a time: a line's end and its indentation are most often
    // one word.
    while i + LANES <= bytes.len() {
        let w = word(bytes, i);
        let space = bytes_equal_exact(w, b' ')
            | bytes_equal_exact(w, b'\n')
            | bytes_equal_exact(w, b'\t')
            | bytes_equal_exact(w, b'\r');
        let other = !space & HIGHS;
        if other != 0 {
            return i + first(other);
        }
        i += LANES;
    }
    i + bytes[i..].iter().position(|&b| CLASS[b as usize] != Class::Space).unwrap_or(bytes.len() - i)
}

/// Where the first byte that is not [`PLAIN`] is in the words of `bytes`
/// from `i`: `(index, 0x80 or more seen)`; at the last whole word's end
/// when none is.
#[inline]
fn plain_words(bytes: &[u8], mut i: usize) -> (usize, bool) {
    let mut wide = 0;
    while i + LANES <= bytes.len() {
        let w = word(bytes, i);
        let stop = bytes_equal(w, b'"') | bytes_equal(w, b'\\') | bytes_below(w, 0x20);
        if stop != 0 {
            let end = first(stop);
            // The bytes before the stop: those of its word below it.
            let before = if end == 0 { 0 } else { w & (u64::MAX >> (64 - 8 * end)) };
            return (i + end, wide | before & HIGHS != 0);
        }
        wide |= w & HIGHS;
        i += LANES;
    }
    (i, wide != 0)
}

/// The length of the run of [`PLAIN`] bytes at the start of `bytes`, and
/// whether one of them is 0x80 or above.
#[inline]
pub(super) fn plain_run(bytes: &[u8]) -> (usize, bool) {
    let (mut i, mut wide) = plain_words(bytes, 0);
    if i + LANES > bytes.len() {
        while i < bytes.len() && PLAIN[bytes[i] as usize] {
            wide |= bytes[i] >= 0x80;
            i += 1;
        }
    }
    (i, wide)
}

/// The UTF-8 of a string, checked as it arrives, by Unicode's table of
/// well-formed sequences (no overlong forms, no surrogates, nothing past
/// U+10FFFF), across the ends of chunks.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Utf8 {
    /// Continuation bytes still owed by the character begun.
    need: u8,
    /// The range the next continuation byte must fall in.
    low: u8,
    high: u8,
}

impl Utf8 {
    /// Whether a character is begun and not finished.
    pub(super) fn pending(self) -> bool {
        self.need > 0
    }

    /// Checks `bytes`, the plain bytes of a string; on a byte that no
    /// well-formed sequence can have there, its index.
    pub(super) fn check(&mut self, bytes: &[u8]) -> Result<(), usize> {
        if self.need == 0 && simdutf8::basic::from_utf8(bytes).is_ok() {
            return Ok(());
        }
        for (i, &b) in bytes.iter().enumerate() {
            self.byte(b).map_err(|()| i)?;
        }
        Ok(())
    }

    fn byte(&mut self, b: u8) -> Result<(), ()> {
        if self.need > 0 {
            if !(self.low..=self.high).contains(&b) {
                return Err(());
            }
            self.need -= 1;
            (self.low, self.high) = (0x80, 0xbf);
            return Ok(());
        }
        let (need, low, high) = match b {
            0x00..=0x7f => return Ok(()),
            0xc2..=0xdf => (1, 0x80, 0xbf),
            0xe0 => (2, 0xa0, 0xbf),
            0xed => (2, 0x80, 0x9f),
            0xe1..=0xef => (2, 0x80, 0xbf),
            0xf0 => (3, 0x90, 0xbf),
            0xf1..=0xf3 => (3, 0x80, 0xbf),
            0xf4 => (3, 0x80, 0x8f),
            _ => return Err(()),
        };
        *self = Utf8 { need, low, high };
        Ok(())
    }
}

/// Where a number stands, by the grammar
/// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Number {
    /// After `-`.
    Minus,
    /// After a leading `0`.
    Zero,
    /// In the digits of the integer part.
    Int,
    /// After `.`.
    Dot,
    /// In the digits of the fraction.
    Frac,
    /// After `e` or `E`.
    Exp,
    /// After the sign of the exponent.
    ExpSign,
    /// In the digits of the exponent.
    ExpDigits,
}

impl Number {
    /// The state after the first byte of a number, `-` or a digit.
    pub(super) fn start(b: u8) -> Number {
        match b {
            b'-' => Number::Minus,
            b'0' => Number::Zero,
            _ => Number::Int,
        }
    }

    /// The state after `b`, or `None` when `b` does not go on the number
    /// (which then ends there, if it may: [`Number::complete`]).
    pub(super) fn next(self, b: u8) -> Option<Number> {
        use Number::{Dot, Exp, ExpDigits, ExpSign, Frac, Int, Minus, Zero};
        Some(match (self, b) {
            (Minus, b'0') => Zero,
            (Minus, b'1'..=b'9') | (Int, b'0'..=b'9') => Int,
            (Zero | Int, b'.') => Dot,
            (Dot | Frac, b'0'..=b'9') => Frac,
            (Zero | Int | Frac, b'e' | b'E') => Exp,
            (Exp, b'+' | b'-') => ExpSign,
            (Exp | ExpSign | ExpDigits, b'0'..=b'9') => ExpDigits,
            _ => return None,
        })
    }

    /// Whether the number may end here.
    pub(super) fn complete(self) -> bool {
        matches!(self, Number::Zero | Number::Int | Number::Frac | Number::ExpDigits)
    }
}

/// The bytes of the literal that starts with `b`, after it.
pub(super) fn literal_rest(b: u8) -> &'static [u8] {
    match b {
        b't' => b"rue",
        b'f' => b"alse",
        _ => b"ull",
    }
}

/// Where the string whose text starts at `chunk[i]` ends (the index after
/// its closing quote), when it ends in `chunk` and has no control
/// character or malformed escape; `chunk` is valid UTF-8.
// Inlined into the skim's fast loop, which it is most of: called, its
// registers saved and restored took a tenth of its time under a profile.
#[allow(clippy::inline_always)]
#[inline(always)]
pub(super) fn skip_string(chunk: &[u8], mut i: usize) -> Option<usize> {
    loop {
        // A word at a time to the first quote, backslash or control
        // character; the bytes after the last whole word one by one.
        let mut j = i;
        loop {
            if j + LANES > chunk.len() {
                j += chunk[j..].iter().position(|&b| !PLAIN[b as usize])?;
                break;
            }
            let w = word(chunk, j);
            let stop = bytes_equal(w, b'"') | bytes_equal(w, b'\\') | bytes_below(w, 0x20);
            if stop != 0 {
                j += first(stop);
                break;
            }
            j += LANES;
        }
        match chunk[j] {
            b'"' => return Some(j + 1),
            b'\\' => match *chunk.get(j + 1)? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i = j + 2,
                b'u' if chunk.get(j + 2..j + 6)?.iter().all(|&h| hex(h).is_some()) => i = j + 6,
                _ => return None,
            },
            _ => return None,
        }
    }
}

/// The value of a hexadecimal digit.
pub(super) fn hex(b: u8) -> Option<u16> {
    match b {
        b'0'..=b'9' => Some(u16::from(b - b'0')),
        b'a'..=b'f' => Some(u16::from(b - b'a' + 10)),
        b'A'..=b'F' => Some(u16::from(b - b'A' + 10)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The checker agrees with the standard library on every split of
    /// every short sequence of interesting bytes.
    #[test]
    fn utf8_check_is_the_standard_one_across_splits() {
        const BYTES: [u8; 16] =
            [b'a', 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5];
        for a in BYTES {
            for b in BYTES {
                for c in BYTES {
                    for d in BYTES {
                        let bytes = [a, b, c, d];
                        let valid = std::str::from_utf8(&bytes).is_ok();
                        for split in 0..=4 {
                            let mut utf8 = Utf8::default();
                            let ok = utf8.check(&bytes[..split]).is_ok()
                                && utf8.check(&bytes[split..]).is_ok()
                                && !utf8.pending();
                            assert_eq!(ok, valid, "{bytes:x?} split at {split}");
                        }
                    }
                }
            }
        }
    }

    /// The word-at-a-time scans agree with a byte at a time, wherever
    /// the byte that stops them is.
    #[test]
    fn scans_find_the_first_byte_that_stops_them() {
        for len in 0..20 {
            for at in 0..=len {
                for (stop, wide) in [(b'"', false), (b'\\', false), (0x1f, false), (b'x', true)] {
                    let mut bytes = vec![b'a'; len];
                    if at < len {
                        bytes[at] = stop;
                    }
                    if wide && at < len {
                        bytes[at] = 0xc3;
                    }
                    let plain = if wide { len } else { at };
                    assert_eq!(plain_run(&bytes), (plain, wide && at < len), "{bytes:?}");
                    let mut spaces: Vec<u8> = (0..len).map(|k| b" \n\t\r"[k * 7 % 4]).collect();
                    if at < len {
                        spaces[at] = stop;
                    }
                    assert_eq!(space_run(&spaces), at, "{spaces:?}");
                }
            }
        }
    }

    /// A string's end is found at the first quote, wherever it is in
    /// the lanes, and a control character before it stops the scan.
    #[test]
    fn skip_string_stops_at_the_first_quote_or_control_character() {
        for len in 0..40 {
            for at in 0..len {
                for (stop, end) in [(b'"', Some(at + 1)), (0x1f, None), (0x00, None)] {
                    let mut bytes = vec![b'a'; len];
                    bytes[at] = stop;
                    bytes.push(b'"');
                    assert_eq!(skip_string(&bytes, 0), end, "{bytes:?}");
                    bytes[at] = b'\\';
                    bytes.insert(at + 1, b'n');
                    assert_eq!(skip_string(&bytes, 0), Some(len + 2), "{bytes:?}");
                }
            }
        }
    }

    #[test]
    fn the_offending_byte_is_found() {
        let mut utf8 = Utf8::default();
        assert_eq!(utf8.check(b"ab\xe2\x82\x41"), Err(4));
        let mut utf8 = Utf8::default();
        assert_eq!(utf8.check(b"\xed\xa0\x80"), Err(1));
        let mut utf8 = Utf8::default();
        assert_eq!(utf8.check("é€😀".as_bytes()), Ok(()));
    }

    #[test]
    fn numbers_follow_the_grammar() {
        let complete = |text: &str| {
            let bytes = text.as_bytes();
            let mut state = Number::start(bytes[0]);
            for &b in &bytes[1..] {
                match state.next(b) {
                    Some(next) => state = next,
                    None => return false,
                }
            }
            state.complete()
        };
        for good in ["0", "-0", "12", "-1.5", "1e9", "1E+9", "0.0e-0", "123456789012345678901234567890"] {
            assert!(complete(good), "{good}");
        }
        for bad in ["-", "01", "1.", ".5", "1e", "1e+", "--1", "1.e5", "+1"] {
            assert!(
                !bad.starts_with(['-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9']) || !complete(bad),
                "{bad}"
            );
        }
    }
}
