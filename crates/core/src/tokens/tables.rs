//! The tables of the estimator: the classes of bytes and characters, the
//! common pairs of letters, how punctuation leads a word and how far a
//! run of it merges. Data alone, with nothing from the rest of the crate,
//! so that the engine's tests read the same tables.

use std::sync::atomic::{AtomicU8, Ordering};

/// Classes of ASCII bytes, and of the first byte of a non-ASCII character.
pub(super) const LOWER: u8 = 0;
pub(super) const UPPER: u8 = 1;
pub(super) const DIGIT: u8 = 2;
pub(super) const SPACE: u8 = 3;
pub(super) const NEWLINE: u8 = 4;
pub(super) const PUNCT: u8 = 5;
pub(super) const MULTI: u8 = 6;
/// ESC, punctuation that the vocabularies hold as a token of its own.
pub(super) const ESC: u8 = 7;

/// `prev_letter` at the start of a word.
pub(super) const NO_LETTER: u8 = 26;

pub(super) static CLASS: [u8; 256] = {
    let mut t = [MULTI; 256];
    let mut b = 0;
    while b < 128 {
        t[b] = match b as u8 {
            b'a'..=b'z' => LOWER,
            b'A'..=b'Z' => UPPER,
            b'0'..=b'9' => DIGIT,
            b'\n' | b'\r' => NEWLINE,
            b' ' | b'\t' | 0x0B | 0x0C => SPACE,
            0x1B => ESC,
            _ => PUNCT,
        };
        b += 1;
    }
    t
};

/// For each letter a–z, a bit for each letter that commonly follows it in
/// English and code: the 237 pairs that make 97 % of the pairs inside
/// words of the prose and source corpora (`gen.py --pairs` prints them).
/// Row 26 is for a word's first letter: every letter is common there.
pub(super) static COMMON_AFTER: [u32; 27] = [
    0x01be_bd6e,
    0x0112_4a11,
    0x019a_4d91,
    0x001c_4111,
    0x01ef_b87d,
    0x001a_6131,
    0x000e_2190,
    0x0012_4111,
    0x022e_f87c,
    0x0010_4010,
    0x0004_0110,
    0x011c_4939,
    0x0010_d113,
    0x011c_cd5d,
    0x007e_f93e,
    0x001e_c911,
    0x0010_0000,
    0x011e_755d,
    0x011c_c195,
    0x011e_d19d,
    0x000e_b956,
    0x0000_0011,
    0x0006_6191,
    0x0008_8100,
    0x000c_8100,
    0x0000_0010,
    0x03ff_ffff,
];

/// Whether letter `l` (0–25) after `prev` (0–25, or `NO_LETTER`) is a
/// rare pair.
#[inline]
pub(super) fn rare_pair(prev: u8, l: u8) -> u64 {
    u64::from(COMMON_AFTER[usize::from(prev)] >> l & 1 == 0)
}

/// `rare_pair` of two bytes, by the 16 bits of the pair (the first byte
/// low): 1 where both are small ASCII letters and the pair is rare, else
/// 0, so that bytes past a word, set to 0, count nothing.
pub(super) static RARE_BYTES: [u8; 0x10000] = {
    let mut t = [0; 0x10000];
    let mut prev = 0;
    while prev < 26 {
        let mut l = 0;
        while l < 26 {
            t[(b'a' as usize + prev) | (b'a' as usize + l) << 8] = (COMMON_AFTER[prev] >> l & 1 == 0) as u8;
            l += 1;
        }
        prev += 1;
    }
    t
};

/// Whether the character `cp` is a kana, a CJK ideograph or a Hangul
/// syllable.
#[inline]
pub(super) const fn caseless(cp: u32) -> bool {
    matches!(cp, 0x3041..=0x3096 | 0x30A1..=0x30FA | 0x4E00..=0x9FFF | 0xAC00..=0xD7A3)
}

/// What a non-ASCII character is to the pre-tokenizer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// A letter that is not a capital (small, or without case).
    Small,
    Capital,
    Digit,
    Space,
    Symbol,
}

impl Kind {
    /// From the Unicode tables of the standard library.
    pub(super) fn of(c: char) -> Kind {
        if c.is_alphabetic() {
            if c.is_uppercase() { Kind::Capital } else { Kind::Small }
        } else if c.is_numeric() {
            Kind::Digit
        } else if c.is_whitespace() {
            Kind::Space
        } else {
            Kind::Symbol
        }
    }

    const ALL: [Kind; 5] = [Kind::Small, Kind::Capital, Kind::Digit, Kind::Space, Kind::Symbol];
}

/// The kinds of U+2000–U+30FF (punctuation, symbols, CJK punctuation,
/// kana) and U+FF00–U+FFEF (full-width forms), the non-letters of CJK and
/// of typeset text, as they are met: 0 until then, else the kind's index
/// plus one. The lookups of the standard library's tables are slow for
/// them (a search each).
pub(super) static KINDS: [AtomicU8; 0x1100 + 0xF0] = [const { AtomicU8::new(0) }; 0x1100 + 0xF0];

/// What `c` is, through `KINDS` where it can.
#[inline]
pub(super) fn kind(c: char) -> Kind {
    let at = match u32::from(c) {
        cp @ 0x2000..=0x30FF => cp - 0x2000,
        cp @ 0xFF00..=0xFFEF => cp - 0xFF00 + 0x1100,
        _ => return Kind::of(c),
    };
    let slot = &KINDS[at as usize];
    match slot.load(Ordering::Relaxed) {
        0 => {
            let k = Kind::of(c);
            slot.store(k as u8 + 1, Ordering::Relaxed);
            k
        }
        k => Kind::ALL[usize::from(k - 1)],
    }
}

/// `table` with the entries of `bytes` set to `value`.
const fn marked(mut table: [u8; 256], bytes: &[u8], value: u8) -> [u8; 256] {
    let mut i = 0;
    while i < bytes.len() {
        table[bytes[i] as usize] = value;
        i += 1;
    }
    table
}

/// How one ASCII punctuation character joins the word after it in
/// `o200k_base` (measured on source and JSON): most join it at the price
/// of [`Prefix::Punct`] (`.append`, `_dict`, `(obj`); these hardly
/// ever do (`,entry` and `;const` are two tokens), and cost
/// `price::APART` more; `@` of a decorator (`@property`) is as good as no
/// prefix at all; `<` joins a capital (`<T`, `<Value` of generics) but
/// not a small letter (`<usize` is two tokens).
pub(super) static LEADS: [u8; 256] = {
    let mut t = marked([JOINS; 256], b"!\"#%*+,:;=>\\`{|}", APART);
    t[b'@' as usize] = CLOSE;
    t[b'<' as usize] = CAPITAL;
    t
};
pub(super) const JOINS: u8 = 0;
pub(super) const APART: u8 = 1;
pub(super) const CLOSE: u8 = 2;
pub(super) const CAPITAL: u8 = 3;

/// How far `o200k_base` merges a run of one ASCII punctuation character
/// into one token, with a space before it or not: any in twos (`::`,
/// `))`, `""`), these up to three (` '''`, `:::`), these up to four
/// (` ///`, `...`, `####`). Those of rulers merge much further (`=` and
/// `-` up to 16, and in 32, 48, 64: a ruler of 78 `/` or `=` is two or
/// three tokens), but longer runs keep the price of other punctuation:
/// the rulers of the corpora's logs and Python are what keeps a cap
/// there from keeping more than asked.
pub(super) static SAME_RUN: [u8; 256] =
    marked(marked([PAIRS; 256], b"\"'<>:`", THREES), b"!#(*-./=?_", FOURS);
const PAIRS: u8 = 0;
pub(super) const THREES: u8 = 1;
pub(super) const FOURS: u8 = 2;

/// What leads a word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Prefix {
    Space = 0,
    None = 1,
    Punct = 2,
}
