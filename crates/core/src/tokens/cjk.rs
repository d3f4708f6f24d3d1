//! The plain count's lane for text in CJK scripts: whole pieces of kana,
//! CJK ideographs, Hangul and CJK punctuation read from a piece boundary,
//! each priced as soon as the character after it is seen, with nothing but
//! the cost of the pieces done kept between them.
//!
//! The fast lane (`fast.rs`) reads only ASCII, so text in these scripts
//! went through the general loop, a character at a time through `step`,
//! and each punctuation character (`，`, `。`) through the decoding of
//! `multi`: about half the speed of a full scan of ASCII text. Most of
//! its pieces are few and plain: a word of letters without case, led by
//! nothing, by one CJK punctuation character, by a space (Korean) or by
//! one ASCII punctuation character; a run of CJK punctuation with the
//! newlines after it; newlines. From a boundary each is known whole by
//! its characters alone, and priced here by the same functions and
//! tables as the general loop prices it. Anything else (an ASCII letter
//! that goes on with a word, a run of spaces, a character of another
//! kind, a piece cut by the end of the read) stops the lane at the start
//! of that piece, where the general loop takes over at a boundary.
//!
//! Only the plain count comes here: the boundaries are not told.

use std::sync::atomic::Ordering;

use super::cost::{floor, long_run, punct_lead, run_after_punct, run_cost, word_cost};
use super::estimator::{Estimator, NoSink, State};
use super::fast::Lead;
use super::price;
use super::tables::{
    CLASS, DIGIT, JOINS, KINDS, Kind, LEADS, LOWER, NEWLINE, PUNCT, SPACE, UPPER, caseless, kind,
};

/// A character of 3 bytes as the lane reads it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Cjk {
    /// A letter without case, or a small one (kana, CJK ideographs,
    /// Hangul syllables, `ー`): what `multi` makes a `Char::Lower` of,
    /// at `price::LETTER_3`.
    Letter,
    /// Punctuation or a symbol (`，`, `。`, `「`): a `Char::Punct` at
    /// `price::SYMBOL_3`.
    Symbol,
    /// Anything else, or no whole character: left to the general loop.
    Other,
}

/// What the character at `bytes[at..]` is, if it is one of 3 bytes.
// Inlined into the loops over letters, where it is most of the work.
#[allow(clippy::inline_always)]
#[inline(always)]
fn char_at(bytes: &[u8], at: usize) -> Cjk {
    let Some(&[a, b, c]) = bytes.get(at..at + 3) else {
        return Cjk::Other;
    };
    if a & 0xF0 != 0xE0 || b & 0xC0 != 0x80 || c & 0xC0 != 0x80 {
        return Cjk::Other;
    }
    // The letters of `caseless_run`, known without the tables.
    if in_caseless(u32::from_le_bytes([a, b, c, 0])) {
        return Cjk::Letter;
    }
    let cp = u32::from(a & 0x0F) << 12 | u32::from(b & 0x3F) << 6 | u32::from(c & 0x3F);
    // CJK punctuation and the full-width forms: the kind met before, as
    // `kind` keeps it, without a call.
    let slot = match cp {
        0x2000..=0x30FF => cp - 0x2000,
        0xFF00..=0xFFEF => cp - 0xFF00 + 0x1100,
        _ => return other_kind(cp),
    };
    match KINDS[slot as usize].load(Ordering::Relaxed) {
        0 => other_kind(cp),
        k if k == Kind::Small as u8 + 1 => Cjk::Letter,
        k if k == Kind::Symbol as u8 + 1 => Cjk::Symbol,
        _ => Cjk::Other,
    }
}

/// What the character `cp` of 3 bytes is, by `kind`.
#[inline(never)]
fn other_kind(cp: u32) -> Cjk {
    // An overlong form or a surrogate is no character.
    let Some(ch) = char::from_u32(cp).filter(|_| cp >= 0x800) else {
        return Cjk::Other;
    };
    match kind(ch) {
        Kind::Small => Cjk::Letter,
        Kind::Symbol => Cjk::Symbol,
        _ => Cjk::Other,
    }
}

/// [`caseless`] of the characters of 3 bytes: bit `cp % 64` of entry
/// `cp / 64`.
static CASELESS: [u64; 1024] = {
    let mut t = [0; 1024];
    let mut cp = 0;
    while cp < 0x10000 {
        if caseless(cp) {
            t[cp as usize / 64] |= 1 << (cp % 64);
        }
        cp += 1;
    }
    t
};

/// Whether the character of 3 bytes in the low bytes of `w` (a lead byte
/// and two continuations) is one of [`caseless`], by [`CASELESS`].
#[allow(clippy::inline_always)]
#[inline(always)]
fn in_caseless(w: u32) -> bool {
    let block = (w & 0x0F) << 6 | (w >> 8 & 0x3F);
    CASELESS[block as usize] >> (w >> 16 & 0x3F) & 1 != 0
}

/// Where the run of the letters of [`caseless`] that starts at `at`
/// ends, from a table of bits: a few instructions a letter. Those of the
/// tables (`ー`) and the last one or two letters of `bytes` are read by
/// [`char_at`].
#[inline]
fn letters_end(bytes: &[u8], mut at: usize) -> usize {
    while let Some(&[a, b, c, _]) = bytes.get(at..at + 4) {
        let w = u32::from_le_bytes([a, b, c, 0]);
        // A lead byte of 3 and two continuations.
        if w & 0x00C0_C0F0 != 0x0080_80E0 {
            return at;
        }
        if !in_caseless(w) {
            break;
        }
        at += 3;
    }
    while char_at(bytes, at) == Cjk::Letter {
        at += 3;
    }
    at
}

/// Where the run of `\n` that starts at `at` ends, when the byte after it
/// is there and ends the run (a `\r` would go on with it).
#[inline]
fn newlines_end(bytes: &[u8], at: usize) -> Option<usize> {
    let k = bytes[at..].iter().position(|&c| c != b'\n')?;
    (CLASS[usize::from(bytes[at + k])] != NEWLINE).then_some(at + k)
}

/// The piece that starts at `bytes[o]`, a piece boundary: where it ends
/// and what it costs, or `None` when it is left to the general loop.
#[inline]
fn piece(bytes: &[u8], o: usize) -> Option<(usize, u64)> {
    let b = *bytes.get(o)?;
    // Where the letters of the word that the piece is start, and what
    // leads them.
    let (letters_at, lead) = if b >= 0x80 {
        match char_at(bytes, o) {
            Cjk::Letter => (o, Lead::NONE),
            Cjk::Symbol => {
                // A run of symbols, each a character of punctuation that
                // is not ASCII: `Estimator::punct_cost` of no ASCII ones.
                let mut end = o + 3;
                let mut extra = price::SYMBOL_3;
                while char_at(bytes, end) == Cjk::Symbol {
                    end += 3;
                    extra += price::SYMBOL_3;
                }
                let cost = |newlines: usize, to: usize| {
                    floor(run_cost(0, 0, 0) + extra + run_after_punct(newlines as u64, 0), (to - o) as u64)
                };
                let &next = bytes.get(end)?;
                if next >= 0x80 {
                    if char_at(bytes, end) != Cjk::Letter {
                        return None;
                    }
                    if end > o + 3 {
                        return Some((end, cost(0, end)));
                    }
                    // One character leads the word after it.
                    let (prefix, extra) = punct_lead(JOINS, false);
                    (end, Lead { prefix, extra, floor: cost(0, end) })
                } else if next == b'\n' {
                    let to = newlines_end(bytes, end)?;
                    return Some((to, cost(to - end, to)));
                } else if matches!(CLASS[usize::from(next)], SPACE | DIGIT) {
                    return Some((end, cost(0, end)));
                } else {
                    // ASCII punctuation goes on with the run, a letter may
                    // be led by it, ESC and `\r` are the general loop's.
                    return None;
                }
            }
            Cjk::Other => return None,
        }
    } else if b == b'\n' {
        // Newlines before a character that is not white space: a token
        // for the run, as `Estimator::nl_cost` prices the first.
        let to = newlines_end(bytes, o)?;
        let ends = match bytes[to] {
            0x80.. => char_at(bytes, to) != Cjk::Other,
            c => matches!(CLASS[usize::from(c)], LOWER | UPPER | DIGIT | PUNCT),
        };
        if !ends {
            return None;
        }
        let run = (to - o) as u64;
        return Some((to, floor(price::SPACES + long_run(run, 0), run)));
    } else if b == b' ' {
        // A space leads the word after it (Korean).
        if char_at(bytes, o + 1) != Cjk::Letter {
            return None;
        }
        (o + 1, Lead::SPACE)
    } else if CLASS[usize::from(b)] == PUNCT {
        // One ASCII punctuation character (`.`, `?` after Korean): the
        // run of one character, as the general loop keeps it.
        let cost = |newlines: usize, to: usize| {
            floor(run_cost(1, b, u32::from(b)) + run_after_punct(newlines as u64, 0), (to - o) as u64)
        };
        let &next = bytes.get(o + 1)?;
        if next >= 0x80 {
            if char_at(bytes, o + 1) != Cjk::Letter {
                return None;
            }
            let (prefix, extra) = punct_lead(LEADS[usize::from(b)], false);
            (o + 1, Lead { prefix, extra, floor: cost(0, o + 1) })
        } else if next == b'\n' {
            let to = newlines_end(bytes, o + 1)?;
            return Some((to, cost(to - o - 1, to)));
        } else if matches!(CLASS[usize::from(next)], SPACE | DIGIT) {
            return Some((o + 1, cost(0, o + 1)));
        } else {
            return None;
        }
    } else {
        return None;
    };
    // The word: letters of 3 bytes, up to a character that ends it.
    let end = letters_end(bytes, letters_at);
    let extra = lead.extra + (end - letters_at) as u64 / 3 * price::LETTER_3;
    let &next = bytes.get(end)?;
    let ends = if next >= 0x80 {
        // Any other character of 3 bytes (punctuation, a capital, a digit,
        // white space) or sequence of 3 that is none (invalid bytes) ends
        // it; one of 2 or 4 bytes may be a letter that goes on with it.
        matches!(bytes.get(end..end + 3), Some(&[a, b, c]) if a & 0xF0 == 0xE0 && b & 0xC0 == 0x80 && c & 0xC0 == 0x80)
    } else {
        // A small ASCII letter goes on with the word; any other ASCII
        // character ends it (a capital after a small letter too).
        CLASS[usize::from(next)] != LOWER
    };
    if !ends {
        return None;
    }
    let cost = word_cost(0, 0, lead.prefix, extra, 0).max(lead.floor);
    Some((end, floor(cost, (end - o) as u64)))
}

impl Estimator {
    /// Whether the plain count may read CJK pieces from `bytes[i]`, a byte
    /// that is not ASCII: at a piece boundary, or where the character
    /// there ends the pending piece, which is then committed as `step`
    /// would commit it.
    #[inline]
    pub(super) fn cjk_ready(&mut self, bytes: &[u8], i: usize) -> bool {
        let ends = match self.state {
            State::Start => return true,
            State::Word { .. } => char_at(bytes, i) == Cjk::Symbol,
            State::Punct { newlines: true, .. } | State::Digits(_) | State::Ws { spaces: 0, .. } => {
                char_at(bytes, i) != Cjk::Other
            }
            State::Punct { chars, space, .. } => (chars > 1 || space) && char_at(bytes, i) == Cjk::Letter,
            State::Ws { .. } => false,
        };
        if ends {
            if let State::Punct { ascii, .. } = self.state {
                let word = char_at(bytes, i) == Cjk::Letter;
                self.commit_priced(self.punct_cost_before(ascii, word), self.pos, &mut NoSink);
            } else {
                self.commit(self.pos, &mut NoSink);
            }
        }
        ends
    }

    /// Reads the whole CJK pieces that lead `bytes[i..]`, from a piece
    /// boundary (the state is `Start`, nothing pending), and returns where
    /// the first piece it leaves to the general loop starts.
    #[inline]
    pub(super) fn cjk_pieces(&mut self, bytes: &[u8], i: usize) -> usize {
        debug_assert!(self.state == State::Start && self.bytes == 0 && self.partial_len == 0);
        let base = self.pos - i as u64;
        let mut committed = self.committed;
        let mut o = i;
        while let Some((end, cost)) = piece(bytes, o) {
            committed += cost;
            o = end;
        }
        self.committed = committed;
        self.pos = base + o as u64;
        o
    }
}

#[cfg(test)]
mod tests {
    use super::{Cjk, Kind, char_at, kind, letters_end};

    /// Every character of 3 bytes, before a space and at the end of the
    /// bytes: a letter to both readers when `kind` makes it a small one or
    /// one without case, a symbol when it makes it one; no byte sequence
    /// of 3 that is not a character is either.
    #[test]
    fn characters_of_three_bytes_as_kind_tells_them() {
        for cp in 0x800..=0xFFFF_u32 {
            let Some(c) = char::from_u32(cp) else {
                let bytes = [0xED, 0xA0 | (cp >> 6 & 0x1F) as u8, 0x80 | (cp & 0x3F) as u8, b' '];
                assert!(char_at(&bytes, 0) == Cjk::Other && letters_end(&bytes, 0) == 0, "{cp:#x}");
                continue;
            };
            let mut bytes = [b' '; 4];
            c.encode_utf8(&mut bytes);
            let letter = super::caseless(cp) || kind(c) == Kind::Small;
            let expected = if letter {
                Cjk::Letter
            } else if kind(c) == Kind::Symbol {
                Cjk::Symbol
            } else {
                Cjk::Other
            };
            for b in [&bytes[..], &bytes[..3]] {
                assert!(char_at(b, 0) == expected, "{cp:#x}");
                assert_eq!(letters_end(b, 0), if letter { 3 } else { 0 }, "{cp:#x}");
            }
        }
        // Overlong forms.
        for bytes in [[0xE0, 0x80, 0x80, b' '], [0xE0, 0x9F, 0xBF, b' ']] {
            assert!(char_at(&bytes, 0) == Cjk::Other && letters_end(&bytes, 0) == 0);
        }
    }
}
