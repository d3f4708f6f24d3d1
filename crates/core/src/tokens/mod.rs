//! Counting tokens: an estimator without a vocabulary, and exact counts.
//!
//! # The estimator
//!
//! [`Estimator`] follows the pre-tokenizer of `o200k_base` (GPT-4o's), the
//! regular expression that splits text into pieces before byte-pair
//! encoding merges each piece into tokens:
//!
//! - a *word*: a run of letters that splits where a capital follows a small
//!   letter (`HashMap` is `Hash` + `Map`), led by at most one space or
//!   punctuation character (` the`, `.len`, `_id`);
//! - a *number*: up to three digits (`12345` is `123` + `45`);
//! - *punctuation*: a run of other characters, led by at most one space,
//!   with the newlines right after it (` {`, `);`, `;\n`);
//! - *white space*: spaces and newlines up to the last newline of a run,
//!   then the spaces before the next piece less the one that leads it.
//!
//! Four things the vocabularies do inside pieces are priced too: ESC is a
//! token that merges with nothing (`\x1b[1;32m` is six), a run of
//! newlines is one token only up to 10 (`\r\n` up to 5), after
//! punctuation up to 3 more than it, a blank line of 2, 4 or 8 spaces
//! merges with the newlines around it (`\n    \n` is one token), and a
//! run of one punctuation character up to 2, 3 or 4 long is one token
//! (`::`, ` '''`, ` ///`). All are handled where those bytes are already
//! told apart, so text without them pays nothing for it.
//!
//! It keeps only the piece being read (a few counters), and prices each
//! piece by its kind and length, the way byte-pair encoding prices it on
//! average: short words are one token and long ones more, each run of three
//! digits is one, a CJK character about one, other non-ASCII characters
//! more than ASCII ones. The prices were fitted against the exact
//! `o200k_base` on the corpora under `tests/fixtures/tokens`, and the
//! prices of words on Python, Rust, JavaScript and JSON from outside them
//! (words without a space before them, the keys of JSON, were 1.5 to 2
//! tokens where `o200k_base` has one; names in code are whole tokens more
//! often than their letters say), leaning towards more tokens than the
//! exact count, so that a cap that trusts the estimate keeps fewer tokens
//! than asked rather than more on the whole.
//!
//! Costs are kept in thousandths of a token ([`SCALE`]); [`Estimator::total`]
//! rounds up. Characters that are not valid UTF-8 cost a token a byte.
//!
//! # What a cap needs
//!
//! - **The estimate of any text is the estimate of that text on its own.**
//!   [`Estimator::feed`] takes the stream in pieces split anywhere, even
//!   inside a character: the totals are the same as for one piece, and
//!   [`Estimator::total`] after a prefix is [`estimate`] of that prefix.
//! - **Monotone:** a text that grows at its end never has a smaller
//!   estimate, so a head cap cuts where the estimate first passes its
//!   budget ([`Estimator::cut_after`]). Growing at its start, it never has
//!   a smaller one from piece boundary to piece boundary (inside a piece it
//!   may: ` aa` is priced below `aa`, as `o200k_base` counts them), so a
//!   tail cap finds the piece its cut falls in by the boundaries, then the
//!   cut inside it by halving ([`tail_start`]); the rest fits either way.
//! - **Additive at piece boundaries:** the pieces of a text from one of its
//!   piece boundaries on are the pieces of the whole from there on (the
//!   pre-tokenizer never looks back), so the estimate of a suffix that
//!   starts at a boundary is the total less the pieces before it.
//!   [`tail_start`] uses this to find the cut in two passes over the kept
//!   window, without a second estimator per candidate.
//! - **Bounded bytes per token:** no piece costs less than one token per
//!   [`MAX_BYTES_PER_TOKEN`] bytes, so the last N estimated tokens lie in the
//!   last `N × MAX_BYTES_PER_TOKEN + 4` bytes: a tail cap keeps a ring of
//!   that size and calls [`tail_cut`] on it at the end. Text nearly always
//!   takes far fewer bytes a token, so [`tail_cut`] looks in the last
//!   `N × NEAR_BYTES_PER_TOKEN` bytes first, and a file's tail cap reads
//!   no more than those when they hold more than N tokens.
//!
//! # Speed
//!
//! From a piece boundary, the common pieces of ASCII text (a word with
//! the space or punctuation that leads it, punctuation with the newlines
//! after it, white space, digits) are known whole by their bytes alone,
//! and a fast lane (`fast.rs`) reads them one after another with nothing
//! but the cost of the pieces done kept between them. It classifies 64
//! bytes at a time into bit masks (SSE2, through the `wide` crate) and
//! looks up the rare pairs of letters of the whole block at once, so that
//! a run ends at the first zero of its mask and a word's rare pairs are
//! the bits of a mask in its span. Anything else (a character that is not
//! ASCII, ESC, `\r`, a piece cut by the end of a read) goes to the general
//! loop at the start of its piece, which reads a run of one kind of
//! character at once: the small letters of a word eight at a time, words
//! led by a space one after another, digits, punctuation, white space,
//! and kana, CJK ideographs and Hangul, decoded without the standard
//! library's tables. The plain count (a total, without boundaries) goes
//! further: from a boundary, a block of plain ASCII is priced whole from
//! its bit masks (`bulk.rs`), each kind of piece by the marks it leaves
//! (where words, digit groups and runs of punctuation start), most of
//! them priced by counts of bits and each word by its length; and from
//! a boundary at a character that is not ASCII, the common pieces of CJK
//! text (a word of kana, ideographs or Hangul led
//! by nothing, a space or one punctuation character, CJK punctuation with
//! the newlines after it) are read one after another in a lane of their
//! own (`cjk.rs`), the letters of a word told by a table of bits. On
//! CPUs with AVX-512 or AVX2 the lanes run compiled for it (`simd.rs`,
//! through `pulp`): the classes of a block in a few compares, its rare
//! pairs by byte shuffles, and counts of bits with `popcnt`. A copy of
//! the estimator before these paths is kept in the engine's tests
//! (`tests/engine/tokens/`) as the model they must agree with on any
//! input split anywhere.
//!
//! # Exact counts
//!
//! With the cargo feature `exact-tokens`, `count_exact` counts with the
//! vocabularies of `o200k_base` and `cl100k_base` (the `tiktoken-rs` crate),
//! loaded on first use.

use std::sync::atomic::{AtomicU8, Ordering};

mod bulk;
mod cjk;
mod fast;
#[cfg(target_arch = "x86_64")]
mod simd;

/// Thousandths of a token: the unit costs are kept in.
pub const SCALE: u64 = 1000;

/// No piece costs less than one token per this many bytes.
pub const MAX_BYTES_PER_TOKEN: u64 = 32;

/// The bytes a token that [`tail_cut`] looks in first: more than text of
/// any common kind takes (logs about 3, prose and source 4 to 5, CJK
/// fewer), so the last N tokens are nearly always found there.
pub const NEAR_BYTES_PER_TOKEN: u64 = 6;

/// Classes of ASCII bytes, and of the first byte of a non-ASCII character.
const LOWER: u8 = 0;
const UPPER: u8 = 1;
const DIGIT: u8 = 2;
const SPACE: u8 = 3;
const NEWLINE: u8 = 4;
const PUNCT: u8 = 5;
const MULTI: u8 = 6;
/// ESC, punctuation that the vocabularies hold as a token of its own.
const ESC: u8 = 7;

/// For each letter a–z, a bit for each letter that commonly follows it in
/// English and code: the 237 pairs that make 97 % of the pairs inside
/// words of the prose and source corpora (`gen.py --pairs` prints them).
/// Row 26 is for a word's first letter: every letter is common there.
static COMMON_AFTER: [u32; 27] = [
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
fn rare_pair(prev: u8, l: u8) -> u64 {
    u64::from(COMMON_AFTER[usize::from(prev)] >> l & 1 == 0)
}

/// How many of the eight bytes of `x` (the first in its lowest byte) are
/// small ASCII letters before the first that is not, and a mask of their
/// bytes.
#[inline]
fn small_letters(x: u64) -> (usize, u64) {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // The high bit of each byte: at least `a` (its low seven bits plus
    // 0x80 - `a` carry into it), not above `z`, and ASCII.
    let low = x & !HIGH;
    let from_a = low + ONES * u64::from(0x80 - b'a');
    let past_z = low + ONES * u64::from(0x7F - b'z');
    let small = from_a & !past_z & !x & HIGH;
    let ends = !small & HIGH;
    // The high bit of the first byte past the run, moved to its low bit:
    // less one, the bits below it (all of them when all eight are letters).
    let mask = ((ends & ends.wrapping_neg()) >> 7).wrapping_sub(1);
    ((ends.trailing_zeros() / 8) as usize, mask)
}

/// The small ASCII letters that lead `bytes`, after the letter `prev`
/// (0–25, or `NO_LETTER`): how many, the rare pairs among them, and the
/// last letter (`prev` when there is none).
#[allow(clippy::inline_always)]
#[inline(always)]
fn small_run(bytes: &[u8], prev: u8) -> (usize, u64, u8) {
    let (mut n, mut rare) = (0, 0);
    // The last letter as a byte, 0 for none (it pairs with nothing).
    let mut last = if prev < NO_LETTER { b'a' + prev } else { 0 };
    // Eight at a time: where the run ends, found without a branch per
    // letter, and its rare pairs looked up for all eight with the bytes
    // past the run cleared (a pair with a 0 is no pair).
    while let Some(eight) = bytes.get(n..n + 8).and_then(|e| <[u8; 8]>::try_from(e).ok()) {
        let x = u64::from_le_bytes(eight);
        let (k, mask) = small_letters(x);
        let x = x & mask;
        let mut r = u64::from(RARE_BYTES[usize::from(last) | (x as usize & 0xFF) << 8]);
        for j in 0..7 {
            r += u64::from(RARE_BYTES[(x >> (8 * j)) as usize & 0xFFFF]);
        }
        rare += r;
        if k > 0 {
            last = eight[k - 1];
        }
        n += k;
        if k < 8 {
            return (n, rare, last.wrapping_sub(b'a').min(NO_LETTER));
        }
    }
    while let Some(&c) = bytes.get(n) {
        if !c.is_ascii_lowercase() {
            break;
        }
        rare += u64::from(RARE_BYTES[usize::from(last) | usize::from(c) << 8]);
        last = c;
        n += 1;
    }
    (n, rare, last.wrapping_sub(b'a').min(NO_LETTER))
}

/// `rare_pair` of two bytes, by the 16 bits of the pair (the first byte
/// low): 1 where both are small ASCII letters and the pair is rare, else
/// 0, so that bytes past a word, set to 0, count nothing.
static RARE_BYTES: [u8; 0x10000] = {
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

/// Whether `bytes[at..]` starts with a space and a small ASCII letter: a
/// word led by a space, the commonest piece.
#[inline]
fn space_word_at(bytes: &[u8], at: usize) -> bool {
    matches!(bytes.get(at..at + 2), Some(&[b' ', next]) if CLASS[next as usize] == LOWER)
}

/// The bytes of the run of whole 3-byte kana, CJK ideographs and Hangul
/// syllables that leads `bytes` (letters without case).
#[inline]
fn caseless_run(bytes: &[u8]) -> usize {
    let mut n = 0;
    while let Some(&[a, b, c]) = bytes.get(n..n + 3) {
        if a & 0xF0 != 0xE0 || b & 0xC0 != 0x80 || c & 0xC0 != 0x80 {
            break;
        }
        let cp = u32::from(a & 0x0F) << 12 | u32::from(b & 0x3F) << 6 | u32::from(c & 0x3F);
        if !caseless(cp) {
            break;
        }
        n += 3;
    }
    n
}

/// Whether the character `cp` is a kana, a CJK ideograph or a Hangul
/// syllable.
#[inline]
const fn caseless(cp: u32) -> bool {
    matches!(cp, 0x3041..=0x3096 | 0x30A1..=0x30FA | 0x4E00..=0x9FFF | 0xAC00..=0xD7A3)
}

/// What a non-ASCII character is to the pre-tokenizer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A letter that is not a capital (small, or without case).
    Small,
    Capital,
    Digit,
    Space,
    Symbol,
}

impl Kind {
    /// From the Unicode tables of the standard library.
    fn of(c: char) -> Kind {
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
static KINDS: [AtomicU8; 0x1100 + 0xF0] = [const { AtomicU8::new(0) }; 0x1100 + 0xF0];

/// What `c` is, through `KINDS` where it can.
#[inline]
fn kind(c: char) -> Kind {
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
static LEADS: [u8; 256] = {
    let mut t = marked([JOINS; 256], b"!\"#%*+,:;=>\\`{|}", APART);
    t[b'@' as usize] = CLOSE;
    t[b'<' as usize] = CAPITAL;
    t
};
const JOINS: u8 = 0;
const APART: u8 = 1;
const CLOSE: u8 = 2;
const CAPITAL: u8 = 3;

/// What a word led by one punctuation character of `kind` ([`LEADS`])
/// has for a prefix, and what it costs more, `capital` when its first
/// letter is one.
#[inline]
fn punct_lead(kind: u8, capital: bool) -> (Prefix, u64) {
    let prefix = if kind == CLOSE { Prefix::None } else { Prefix::Punct };
    let apart = kind == APART || kind == CAPITAL && !capital;
    (prefix, if apart { price::APART } else { 0 })
}

/// How far `o200k_base` merges a run of one ASCII punctuation character
/// into one token, with a space before it or not: any in twos (`::`,
/// `))`, `""`), these up to three (` '''`, `:::`), these up to four
/// (` ///`, `...`, `####`). Those of rulers merge much further (`=` and
/// `-` up to 16, and in 32, 48, 64: a ruler of 78 `/` or `=` is two or
/// three tokens), but longer runs keep the price of other punctuation:
/// the rulers of the corpora's logs and Python are what keeps a cap
/// there from keeping more than asked.
static SAME_RUN: [u8; 256] = marked(marked([PAIRS; 256], b"\"'<>:`", THREES), b"!#(*-./=?_", FOURS);
const PAIRS: u8 = 0;
const THREES: u8 = 1;
const FOURS: u8 = 2;

/// `prev_letter` at the start of a word.
const NO_LETTER: u8 = 26;

static CLASS: [u8; 256] = {
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

/// What a character is, for the pre-tokenizer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Char {
    /// A small letter, or a letter without case (CJK, kana, marks).
    Lower,
    /// A capital letter.
    Upper,
    Digit,
    /// White space other than a newline; `true` for U+0020 itself.
    Space(bool),
    Newline,
    Punct,
}

/// The piece being read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// At a boundary, nothing pending.
    Start,
    /// White space: `nl` counts its groups of newlines (the part up to the
    /// last newline is one piece, priced by them), `spaces` the characters
    /// after that, the last of them a plain space when `plain`.
    Ws { nl: u64, spaces: u64, plain: bool },
    /// A word: its ASCII letters, how many capitals lead them, its prefix,
    /// and whether a small letter was seen (a capital after one starts a
    /// new word).
    Word { letters: u64, caps: u64, prefix: Prefix, small: bool },
    /// Digits since the last group of three.
    Digits(u8),
    /// Punctuation: its characters, how many of them are ASCII, whether a
    /// space leads it, whether newlines follow it (then only more newlines
    /// join it).
    Punct { chars: u64, ascii: u64, space: bool, newlines: bool },
}

/// What leads a word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Prefix {
    Space = 0,
    None = 1,
    Punct = 2,
}

/// Prices, in thousandths of a token. Fitted on the corpora under
/// `tests/fixtures/tokens` against `o200k_base` (see `tests/tokens.rs`);
/// the words led by nothing or by punctuation, and `APART`, on Python
/// and JSON from outside them too; the words led by a space or by
/// punctuation, and their rare pairs, on Python, Rust and JavaScript
/// from outside them (the modules of the standard library, pip, click,
/// flask, jinja2, requests, `serde_json`, clap, npm), which `o200k_base`
/// holds in fewer tokens than the corpora.
mod price {
    /// A word of N ASCII letters (index N, up to 16) that has a small
    /// letter, by what leads it: a space, nothing, punctuation; then each
    /// letter past 16.
    pub const SMALL: [[u64; 17]; 3] = [
        [0, 1000, 1000, 1010, 1020, 1030, 1040, 1060, 1120, 1150, 1200, 1300, 1500, 1600, 1750, 1850, 1950],
        [0, 1000, 1000, 1000, 1020, 1020, 1020, 1050, 1150, 1250, 1300, 1350, 1450, 1550, 1700, 1800, 1900],
        [0, 1050, 1100, 1100, 1100, 1120, 1150, 1250, 1350, 1550, 1750, 1900, 2000, 2100, 2200, 2300, 2400],
    ];
    pub const SMALL_MORE: [u64; 3] = [150, 200, 200];
    /// The same for its leading capitals (a word of capitals only, or the
    /// `HTTP` of `HTTPServer`): rarer, so dearer.
    pub const CAPS: [[u64; 17]; 3] = [
        [0, 1000, 1000, 1070, 1100, 1150, 1600, 2000, 2400, 2800, 3200, 3600, 4000, 4400, 4800, 5200, 5600],
        [0, 1000, 1090, 1570, 2210, 2740, 3180, 3450, 3790, 4270, 4300, 4460, 4700, 4900, 5100, 5300, 5500],
        [0, 1040, 1700, 1700, 1700, 1700, 1700, 1700, 2000, 2700, 3400, 4300, 4500, 4700, 4900, 5100, 5300],
    ];
    pub const CAPS_MORE: [u64; 3] = [400, 250, 300];
    /// Each rare pair of letters, by prefix. After a space or punctuation
    /// the words are mostly names in code (` msg`, `.fp`, `_info`,
    /// `_addr`) that `o200k_base` holds whole though their pairs are rare
    /// in English: at 0.3 and 0.35 a pair, Python from outside the
    /// corpora estimated 4 to 7 % high.
    pub const RARE: [u64; 3] = [150, 600, 150];
    /// What a word led by punctuation that seldom merges with it costs
    /// more ([`LEADS`](super::LEADS)).
    pub const APART: u64 = 450;
    /// A non-ASCII letter of 2, 3 and 4 bytes.
    pub const LETTER_2: u64 = 600;
    pub const LETTER_3: u64 = 740;
    pub const LETTER_4: u64 = 1500;
    /// Up to three digits.
    pub const DIGITS: u64 = 1000;
    /// A run of ASCII punctuation of N characters (index N, up to 9).
    pub const PUNCT: [u64; 10] = [0, 1000, 1030, 1150, 2000, 2600, 3000, 3400, 3600, 3800];
    /// Each ASCII punctuation character past 9.
    pub const PUNCT_MORE: u64 = 120;
    /// A non-ASCII punctuation or symbol character of 2, 3 and 4 bytes.
    pub const SYMBOL_2: u64 = 1000;
    pub const SYMBOL_3: u64 = 1000;
    pub const SYMBOL_4: u64 = 2000;
    /// A run of white space.
    pub const SPACES: u64 = 1000;
    /// Each line of spaces after the first line of a run of white space,
    /// when it holds as many as `o200k_base` merges with the newlines
    /// around it (`\n    \n` is one token, `  \n  \n` one, `   \n   \n`
    /// two): 1, 2, 4, 8, 12 or 16 bytes before `\n`, 4 or 8 before
    /// `\r\n`; other lines cost `SPACES`. And the spaces after the last
    /// newline of white space while nothing follows them, so that no line
    /// that ends them makes the estimate drop.
    pub const BLANK: u64 = 500;
    /// ESC, a token of its own: `o200k_base` and `cl100k_base` merge it
    /// with nothing, so the `[` of `\x1b[1;32m` is one more.
    pub const ESC: u64 = 1000;
    /// Newlines in a row that cost one token (`o200k_base` holds runs of
    /// `\n` up to 10 long, and of `\r\n` up to 5, as one), and that cost
    /// nothing more than the punctuation they end (`.\n\n\n` is one
    /// token, `,\n\n\n` two, `,\n\n\n\n` three).
    pub const NL_RUN: u64 = 10;
    pub const NL_RUN_AFTER_PUNCT: u64 = 3;
    /// Past those, a token per this many newline bytes (the vocabulary's
    /// longest run is 32 and the next 16), plus `CR` for each `\r`: a
    /// long run of `\r\n` takes about 8 bytes a token.
    pub const NL_BYTES_PER_TOKEN: u64 = 16;
    pub const CR: u64 = 125;
    /// Spaces before a newline past which a token more is paid for each
    /// `FILL_BYTES_PER_TOKEN` of them (13 spaces and `\r\n`, or 11 tabs
    /// and `\n`, are two tokens).
    pub const FILL: u64 = 10;
    pub const FILL_BYTES_PER_TOKEN: u64 = 10;
    /// A byte that is not valid UTF-8.
    pub const INVALID: u64 = 1000;
    /// What `#[` costs less before a word ([`ATTRIBUTE`](super::ATTRIBUTE)):
    /// the names of attributes were 1.4 to 1.5 tokens in Rust from outside
    /// the corpora (`cfg` 2.2), one in `o200k_base`.
    pub const ATTRIBUTE: u64 = 300;
}

/// Estimates `o200k_base` tokens of a stream fed in pieces of any size.
#[derive(Clone, Debug)]
pub struct Estimator {
    /// Costs of the pieces done.
    committed: u64,
    state: State,
    /// Extra cost of the pending piece: its non-ASCII characters.
    extra: u64,
    /// Bytes of the pending piece (for the floor of bytes per token).
    bytes: u64,
    /// Pairs of ASCII letters in the pending word that are rare in English
    /// and code (`xk`, `kc`), and its last ASCII letter (0–25, or
    /// `NO_LETTER`): `xkcd` is dearer than `with`.
    rare: u64,
    prev_letter: u8,
    /// What the punctuation that leads the pending word would cost on its
    /// own: the word never costs less.
    lead: u64,
    /// Bytes of the pending white space that end with its last newline.
    nl_bytes: u64,
    /// Runs of newlines: what those of the pending white space before the
    /// last cost beyond a token each ([`long_run`]), with the spaces before
    /// each ([`fill_cost`]); the bytes of the last (in punctuation, of the
    /// newlines after it), and what its `\r` add.
    nl_extra: u64,
    run_len: u64,
    run_cr: u64,
    /// Bytes of the last white-space character (1, or 2–3 for U+00A0 and
    /// the like).
    last_ws_len: u64,
    /// How the pending punctuation, when it is one ASCII character,
    /// joins the word after it ([`LEADS`]).
    lead_kind: u8,
    /// The ASCII character that all of the pending punctuation is, or 0
    /// ([`same_cost`]), and its last three characters ([`run_cost`]).
    same: u8,
    last: u32,
    /// A character cut by the end of a piece of input.
    partial: [u8; 4],
    partial_len: u8,
    partial_need: u8,
    /// Bytes fed so far.
    pos: u64,
}

impl Default for Estimator {
    fn default() -> Self {
        Estimator {
            committed: 0,
            state: State::Start,
            extra: 0,
            bytes: 0,
            rare: 0,
            prev_letter: NO_LETTER,
            lead: 0,
            nl_bytes: 0,
            nl_extra: 0,
            run_len: 0,
            run_cr: 0,
            last_ws_len: 1,
            lead_kind: JOINS,
            same: 0,
            last: 0,
            partial: [0; 4],
            partial_len: 0,
            partial_need: 0,
            pos: 0,
        }
    }
}

/// Told of each piece boundary: the offset in the stream where the next
/// piece starts, and the cost of the pieces before it.
trait Sink {
    /// Whether the boundaries are wanted at all: a loop that only tells
    /// them may then be skipped.
    const TELLS: bool = true;
    fn boundary(&mut self, at: u64, cost: u64);
}

/// A sink for the plain count.
struct NoSink;

impl Sink for NoSink {
    const TELLS: bool = false;
    #[inline(always)]
    fn boundary(&mut self, _at: u64, _cost: u64) {}
}

impl<F: FnMut(u64, u64)> Sink for F {
    #[inline]
    fn boundary(&mut self, at: u64, cost: u64) {
        self(at, cost);
    }
}

/// The floor of cost for a piece of `bytes` bytes.
#[inline]
fn floor(cost: u64, bytes: u64) -> u64 {
    cost.max(bytes * SCALE / MAX_BYTES_PER_TOKEN)
}

/// What a run of `len` bytes of newlines in white space costs beyond a
/// token, `cr` for its `\r`: nothing up to `NL_RUN`, then at least a token
/// more, and a token per `NL_BYTES_PER_TOKEN` bytes.
#[inline]
fn long_run(len: u64, cr: u64) -> u64 {
    if len <= price::NL_RUN { 0 } else { (len + 5) * SCALE / price::NL_BYTES_PER_TOKEN + cr }
}

/// What `bytes` of spaces before a run of newlines add to it (a blank line
/// of many spaces or tabs is more than a token), `cr` when the run starts
/// with `\r`; `after` when a line of the same white space came before
/// them, which makes the line a blank one of its own (`BLANK` or
/// `SPACES`).
#[inline]
fn fill_cost(bytes: u64, after: bool, cr: bool) -> u64 {
    let fill = if bytes <= price::FILL { 0 } else { (bytes - 1) / price::FILL_BYTES_PER_TOKEN * SCALE };
    let merged = if cr { matches!(bytes, 4 | 8) } else { matches!(bytes, 1 | 2 | 4 | 8 | 12 | 16) };
    let line = match (after, merged) {
        (false, _) => 0,
        (true, true) => price::BLANK,
        (true, false) => price::SPACES,
    };
    fill + line
}

/// What the run of `len` bytes of newlines that ends punctuation (`;\n`)
/// costs beyond the punctuation: nothing up to `NL_RUN_AFTER_PUNCT`, then
/// as [`long_run`] prices a run three bytes longer, less what it prices
/// at a token. Above the exact count at every length up to 200.
#[inline]
fn run_after_punct(len: u64, cr: u64) -> u64 {
    // A `\r` counts twice towards the free run (`.\r\n\r\n\r\n` is
    // three tokens).
    // No newlines (the commonest case) have no `\r` either.
    if len == 0 || len + cr / price::CR <= price::NL_RUN_AFTER_PUNCT {
        0
    } else {
        SCALE + (len + 3) * SCALE / price::NL_BYTES_PER_TOKEN + cr
    }
}

/// The price of `n` letters from `table`, and `more` for each past it.
#[inline]
fn priced(table: &[u64; 17], more: u64, n: u64) -> u64 {
    match usize::try_from(n) {
        Ok(n) if n < table.len() => table[n],
        _ => table[16] + (n - 16).saturating_mul(more),
    }
}

/// A word of `letters` ASCII letters of which the first `caps` are
/// capitals, led by `prefix`, with `extra` for its other letters: at least
/// a token.
#[inline]
fn word_cost(letters: u64, caps: u64, prefix: Prefix, extra: u64, rare: u64) -> u64 {
    let p = prefix as usize;
    let caps = priced(&price::CAPS[p], price::CAPS_MORE[p], caps);
    let small = priced(&price::SMALL[p], price::SMALL_MORE[p], letters) + rare * price::RARE[p];
    (caps.max(small) + extra).max(SCALE)
}

#[inline]
fn punct_cost(chars: u64) -> u64 {
    match usize::try_from(chars) {
        Ok(n) if n < price::PUNCT.len() => price::PUNCT[n],
        _ => price::PUNCT[9] + (chars - 9).saturating_mul(price::PUNCT_MORE),
    }
}

/// What `chars` ASCII punctuation characters cost, `same` the one
/// character they all are (0 when they differ): a run of one character
/// that `o200k_base` merges whole ([`SAME_RUN`]) is a token, where other
/// punctuation of 2 to 4 characters averages more (` ///` was priced at
/// 1.15 tokens, `::` at 1.03, `....` at 2).
#[inline]
fn same_cost(chars: u64, same: u8) -> u64 {
    let cost = punct_cost(chars);
    if same == 0 {
        return cost;
    }
    let merged = match SAME_RUN[usize::from(same)] {
        FOURS => 4,
        THREES => 3,
        _ => 2,
    };
    if chars <= merged { SCALE } else { cost }
}

/// The last two characters of punctuation that end a statement, `);`:
/// `o200k_base` merges the `;` with what comes before it (`());` and
/// `\"]);` are a token, `);` and `();` too). `);` keeps the price of two
/// characters, 1.03: at a token, a cap of 2000 kept 2001 tokens of the
/// rust corpus's tail.
const STATEMENT_END: u16 = u16::from_be_bytes([b')', b';']);

/// What `chars` ASCII punctuation characters cost, `same` the one
/// character they all are (0 when they differ), `last` the last three
/// (the last in the low byte, 0 for one that is not ASCII): at a
/// statement's end the `;` costs nothing ([`STATEMENT_END`]).
#[inline]
fn run_cost(chars: u64, same: u8, last: u32) -> u64 {
    if last as u16 == STATEMENT_END && chars >= 3 { punct_cost(chars - 1) } else { same_cost(chars, same) }
}

/// Whether `b` after punctuation that ends in `last` (as [`run_cost`]
/// takes it) starts a run priced on its own: `o200k_base` merges two dots
/// with few characters after them (`..=`, `..]`, `..,` are two tokens,
/// `'..=` three; `...`, `..)`, `../`, `.."` one), so the run before them
/// ends with the dots, which cost a token.
#[inline]
fn splits(last: u32, b: u8) -> bool {
    last as u16 == u16::from_be_bytes(*b"..")
        && (last >> 16) as u8 != b'.'
        && !matches!(b, b'.' | b')' | b'/' | b'\\' | b'"' | b'!' | b'?' | b'<')
}

/// What the punctuation before two dots that `splits` ends costs, with
/// the dots, for `ascii` ASCII characters up to them.
#[inline]
fn split_cost(ascii: u64) -> u64 {
    punct_cost(ascii - 2) + SCALE
}

/// The punctuation that opens an attribute of Rust, `#[`: the word after
/// it is its name (`cfg`, `derive`, `inline`, `allow`), one token in
/// `o200k_base` whatever its letters.
const ATTRIBUTE: u16 = u16::from_be_bytes([b'#', b'[']);

/// What `chars` ASCII punctuation characters that end in `last` cost
/// less when a word follows them at once ([`ATTRIBUTE`]).
#[inline]
fn before_word(chars: u64, last: u32) -> u64 {
    if chars == 2 && last as u16 == ATTRIBUTE { price::ATTRIBUTE } else { 0 }
}

/// What the ASCII punctuation `run` (bytes of class `PUNCT`) costs, `word`
/// when a letter follows it at once.
#[allow(clippy::inline_always)]
#[inline(always)]
fn punct_run_cost(run: &[u8], word: bool) -> u64 {
    // Two characters, the commonest run after one (`::`, `()`, `);`):
    // too short for two dots to end a run or for a statement's end. (NUL
    // is no character of `same_cost`.) Inlined into the lanes; the longer
    // runs are not.
    if let &[a, b] = run {
        return if a == b && a != 0 {
            SCALE
        } else {
            punct_cost(2) - if word { before_word(2, u32::from(u16::from_be_bytes([a, b]))) } else { 0 }
        };
    }
    longer_run_cost(run, word)
}

/// [`punct_run_cost`] of a run of one character or of three or more.
#[inline(never)]
fn longer_run_cost(run: &[u8], word: bool) -> u64 {
    if let [first, rest @ ..] = run
        && rest.iter().all(|c| c == first)
    {
        return same_cost(run.len() as u64, *first);
    }
    // The runs that two dots end, and the last.
    let (mut done, mut chars, mut last) = (0, 0, 0);
    for &b in run {
        if splits(last, b) {
            done += split_cost(chars);
            chars = 0;
        }
        chars += 1;
        last = last << 8 | u32::from(b);
    }
    let less = if word && done == 0 { before_word(chars, last) } else { 0 };
    done + run_cost(chars, 0, last) - less
}

impl Estimator {
    /// Reads the next bytes of the stream.
    pub fn feed(&mut self, bytes: &[u8]) {
        self.run(bytes, &mut NoSink);
    }

    /// Reads the next bytes of the stream, as [`feed`](Self::feed) does,
    /// and tells `boundary` of each piece boundary on the way: the offset in
    /// the stream where the next piece starts, and the cost (in thousandths
    /// of a token) of the pieces before it. An offset can be told again
    /// with a higher cost; the last one told holds. The boundaries, like the
    /// totals, do not depend on how the stream is split into reads: what
    /// [`boundaries`] gives for the whole, and what [`tail_start`] reads in
    /// blocks.
    pub fn feed_with_boundaries(&mut self, bytes: &[u8], mut boundary: impl FnMut(u64, u64)) {
        self.run(bytes, &mut boundary);
    }

    /// The estimate of all that was fed, in whole tokens (rounded up).
    pub fn total(&self) -> u64 {
        self.total_scaled().div_ceil(SCALE)
    }

    /// The estimate of all that was fed, in thousandths of a token. The
    /// bytes of a character still cut at the end count as invalid ones, as
    /// they would if the input ended here.
    pub fn total_scaled(&self) -> u64 {
        if self.partial_len > 0 {
            let mut ended = self.clone();
            ended.flush_invalid(&mut NoSink);
            return ended.committed + ended.pending();
        }
        self.committed + self.pending()
    }

    /// Bytes fed so far.
    pub fn position(&self) -> u64 {
        self.pos
    }

    /// Feeds `chunk` up to where the estimate of the stream first passes
    /// `budget` tokens, and returns the stream offset where the kept text
    /// must end: the text before it has an estimate of at most `budget`,
    /// and never ends inside a character. The offset may be up to three
    /// bytes before `chunk` when a character cut by the previous chunk is
    /// the one that passes the budget. `None` when all of `chunk` fits (it
    /// was fed whole). After a cut the estimator is left part-way; a cap
    /// that wants the total goes on with a fresh count or [`feed`].
    ///
    /// [`feed`]: Estimator::feed
    pub fn cut_after(&mut self, chunk: &[u8], budget: u64) -> Option<u64> {
        let budget = budget.saturating_mul(SCALE);
        // Most of a chunk can go the fast way: a piece of input of B bytes
        // adds at most B tokens (no character costs more than a token a
        // byte, and a pending piece adds at most what it will cost).
        let mut done = 0;
        loop {
            let slack = budget.saturating_sub(self.total_scaled()) / (4 * SCALE);
            let fast = usize::try_from(slack).unwrap_or(usize::MAX).min(chunk.len() - done);
            if fast < 64 {
                break;
            }
            // Feed a copy first: what a piece adds is not bounded by its
            // length (a digit after spaces splits them), only in practice.
            let mut ahead = self.clone();
            ahead.feed(&chunk[done..done + fast]);
            if ahead.total_scaled() > budget {
                break;
            }
            *self = ahead;
            done += fast;
        }
        for &b in &chunk[done..] {
            if self.partial_len > 0 && b & 0xC0 != 0x80 {
                // The cut character was none: its bytes count one by one.
                if let Some(cut) = self.flush_checked(budget) {
                    return Some(cut);
                }
            }
            let before = self.pos - u64::from(self.partial_len);
            let waiting = (self.partial_len > 0).then(|| self.clone());
            self.feed(std::slice::from_ref(&b));
            if self.partial_len == 0 && self.total_scaled() > budget {
                // A sequence that turned out not to be UTF-8 is that many
                // invalid bytes, each a character of its own: the cut may
                // fall between them.
                if let Some(mut waiting) = waiting {
                    let mut seq = waiting.partial[..usize::from(waiting.partial_len)].to_vec();
                    seq.push(b);
                    if std::str::from_utf8(&seq).is_err() {
                        let cut = waiting.flush_checked(budget).unwrap_or(self.pos - 1);
                        return Some(cut);
                    }
                }
                return Some(before);
            }
        }
        None
    }

    /// At the end of the stream, after [`cut_after`] found no cut: the cut
    /// that the bytes of a character left incomplete make, if counting them
    /// passes `budget`.
    ///
    /// [`cut_after`]: Estimator::cut_after
    pub fn cut_at_end(&mut self, budget: u64) -> Option<u64> {
        self.flush_checked(budget.saturating_mul(SCALE))
    }

    /// Counts the bytes of a cut character as invalid ones, one by one,
    /// and returns where the first that passes `budget` (thousandths)
    /// starts.
    fn flush_checked(&mut self, budget: u64) -> Option<u64> {
        let n = u64::from(self.partial_len);
        let start = self.pos - n;
        self.partial_len = 0;
        for k in 0..n {
            self.step(Char::Punct, start + k, 1, price::INVALID, &mut NoSink);
            if self.total_scaled() > budget {
                return Some(start + k);
            }
        }
        None
    }

    /// The cost of the pending piece, as if the input ended here.
    #[inline]
    fn pending(&self) -> u64 {
        match self.state {
            State::Start => 0,
            State::Ws { nl, spaces, .. } => self.ws_cost(nl, spaces),
            State::Word { letters, caps, prefix, .. } => self.word_cost(letters, caps, prefix),
            State::Digits(n) => Self::digits_cost(n),
            State::Punct { ascii, .. } => self.punct_cost(ascii),
        }
    }

    /// What the part of pending white space up to its last newline costs,
    /// in `nl` runs of newlines: a token for the first, and what
    /// `nl_extra` holds for the lines of spaces between them.
    #[inline]
    fn nl_cost(&self, nl: u64) -> u64 {
        debug_assert!(nl > 0, "white space without a newline has no newline part");
        floor(price::SPACES + self.nl_extra + long_run(self.run_len, self.run_cr), self.nl_bytes)
    }

    /// What pending white space costs.
    #[inline]
    fn ws_cost(&self, nl: u64, spaces: u64) -> u64 {
        let mut c = 0;
        if nl > 0 {
            c += self.nl_cost(nl);
        }
        if spaces > 0 {
            let price = if nl > 0 { price::BLANK } else { price::SPACES };
            c += floor(price, self.bytes - self.nl_bytes);
        }
        c
    }

    /// What the pending word costs.
    #[inline]
    fn word_cost(&self, letters: u64, caps: u64, prefix: Prefix) -> u64 {
        floor(word_cost(letters, caps, prefix, self.extra, self.rare).max(self.lead), self.bytes)
    }

    /// What a pending number of `n` digits costs.
    #[inline]
    fn digits_cost(n: u8) -> u64 {
        if n > 0 { price::DIGITS } else { 0 }
    }

    /// After the ASCII punctuation `b` was added to pending punctuation
    /// (counted in its characters): the one character all of it is, its
    /// last three, and the run before two dots that `b` ends.
    #[inline]
    fn appended(&mut self, b: u8) {
        if self.same != b {
            self.same = 0;
        }
        if splits(self.last, b)
            && let State::Punct { ascii, .. } = &mut self.state
        {
            self.extra += split_cost(*ascii - 1);
            *ascii = 1;
        }
        self.last = self.last << 8 | u32::from(b);
    }

    /// What pending punctuation of `ascii` ASCII characters costs when a
    /// letter follows it, `word`, or anything else.
    #[inline]
    fn punct_cost_before(&self, ascii: u64, word: bool) -> u64 {
        let less =
            if word && self.run_len == 0 && self.extra == 0 { before_word(ascii, self.last) } else { 0 };
        self.punct_cost(ascii) - less
    }

    /// What pending punctuation of `ascii` ASCII characters costs.
    #[inline]
    fn punct_cost(&self, ascii: u64) -> u64 {
        floor(
            run_cost(ascii, self.same, self.last) + self.extra + run_after_punct(self.run_len, self.run_cr),
            self.bytes,
        )
    }

    /// After an ESC in pending punctuation: the vocabularies merge it with
    /// nothing, so what came before it in the piece (a space that leads it
    /// too) is priced as a run of its own, and it never leads a word.
    #[inline]
    fn escaped(&mut self) {
        if let State::Punct { chars, ascii, space, newlines: false } = &mut self.state {
            self.extra += if *ascii > 0 {
                punct_cost(*ascii)
            } else if *space {
                price::SPACES
            } else {
                0
            };
            *ascii = 0;
            *space = false;
            *chars = (*chars).max(2);
        }
    }

    /// Ends the pending piece at `at`, adding its cost.
    #[inline]
    fn commit<S: Sink>(&mut self, at: u64, sink: &mut S) {
        self.commit_priced(self.pending(), at, sink);
    }

    /// Ends the pending piece at `at`, adding `cost`, what it costs (known
    /// where the kind of piece is).
    #[inline]
    fn commit_priced<S: Sink>(&mut self, cost: u64, at: u64, sink: &mut S) {
        self.committed += cost;
        self.state = State::Start;
        self.extra = 0;
        self.bytes = 0;
        self.rare = 0;
        self.prev_letter = NO_LETTER;
        self.lead = 0;
        self.nl_bytes = 0;
        self.nl_extra = 0;
        self.run_len = 0;
        self.run_cr = 0;
        sink.boundary(at, self.committed);
    }

    // One loop with an arm for each class of byte, each with a copy of
    // `step` inlined for its character: long, but one place to read.
    #[allow(clippy::too_many_lines)]
    fn run<S: Sink>(&mut self, bytes: &[u8], sink: &mut S) {
        let mut i = 0;
        // Finish a character cut by the previous piece of input.
        while self.partial_len > 0 && i < bytes.len() {
            let b = bytes[i];
            if b & 0xC0 != 0x80 {
                self.flush_invalid(sink);
                break;
            }
            self.partial[self.partial_len as usize] = b;
            self.partial_len += 1;
            i += 1;
            self.pos += 1;
            if self.partial_len == self.partial_need {
                let mut buf = [0; 4];
                let n = self.partial_len as usize;
                buf[..n].copy_from_slice(&self.partial[..n]);
                self.partial_len = 0;
                self.multi(&buf[..n], sink);
            }
        }
        while i < bytes.len() {
            let mut b = bytes[i];
            let mut class = CLASS[b as usize];
            if self.ended_by(class) && Self::ascii_ahead(bytes, i) {
                // A piece boundary: the plain pieces from here go the fast
                // way (`fast.rs`).
                if let State::Punct { ascii, .. } = self.state {
                    let cost = self.punct_cost_before(ascii, matches!(class, LOWER | UPPER));
                    self.commit_priced(cost, self.pos, sink);
                } else if self.state != State::Start {
                    self.commit(self.pos, sink);
                }
                i = self.pieces(bytes, i, sink);
                let Some(&next) = bytes.get(i) else { break };
                b = next;
                class = CLASS[b as usize];
            }
            if class == MULTI {
                let n = self.caseless(&bytes[i..]);
                if n > 0 {
                    i += n;
                    continue;
                }
                // The plain count reads CJK pieces from a boundary the
                // way the fast lane reads ASCII ones (`cjk.rs`).
                if !S::TELLS && self.cjk_ready(bytes, i) {
                    let to = self.cjk_pieces(bytes, i);
                    if to > i {
                        i = to;
                        continue;
                    }
                }
                match self.multi_at(bytes, i, sink) {
                    Some(next) => i = next,
                    None => return,
                }
                continue;
            }
            // ASCII: a run of one kind of character goes in one step.
            let rest = &bytes[i..];
            let n = match (self.state, class) {
                (State::Word { small, .. }, LOWER) | (State::Word { small: small @ false, .. }, UPPER) => {
                    self.words(rest, small, sink)
                }
                (State::Start | State::Digits(_), DIGIT) => self.digits(rest, sink),
                (State::Punct { newlines: false, .. }, PUNCT) | (State::Punct { .. }, NEWLINE) => {
                    self.punct(rest)
                }
                (State::Ws { .. }, SPACE | NEWLINE) => self.white_space(rest),
                (state, SPACE)
                    if b == b' '
                        && !matches!(state, State::Ws { .. })
                        && rest.get(1).is_some_and(|&n| CLASS[n as usize] == LOWER) =>
                {
                    // ` word`, the commonest piece, straight into a word:
                    // what the steps through white space would do.
                    if state != State::Start {
                        self.commit(self.pos, sink);
                    }
                    self.state = State::Word { letters: 0, caps: 0, prefix: Prefix::Space, small: true };
                    self.bytes = 1;
                    self.pos += 1;
                    i += 1;
                    // And its letters.
                    self.words(&bytes[i..], true, sink)
                }
                _ => {
                    let at = self.pos;
                    self.pos += 1;
                    i += 1;
                    // A call of `step` for each class, each inlined with
                    // its character known, so that only the state is told
                    // apart at run time; `extra` is what a `\r` adds to a
                    // long run of newlines, what an ESC costs in place of
                    // other punctuation.
                    match class {
                        LOWER | UPPER => {
                            if class == LOWER {
                                self.step(Char::Lower, at, 1, 0, sink);
                            } else {
                                self.step(Char::Upper, at, 1, 0, sink);
                            }
                            // A letter, now in a word: count rare pairs,
                            // then the letters after it.
                            let State::Word { small, .. } = self.state else { continue };
                            let l = b.to_ascii_lowercase() - b'a';
                            self.rare += rare_pair(self.prev_letter, l);
                            self.prev_letter = l;
                            self.words(&bytes[i..], small, sink)
                        }
                        DIGIT => {
                            self.step(Char::Digit, at, 1, 0, sink);
                            if !matches!(self.state, State::Digits(_)) {
                                continue;
                            }
                            self.digits(&bytes[i..], sink)
                        }
                        SPACE => {
                            self.step(Char::Space(b == b' '), at, 1, 0, sink);
                            continue;
                        }
                        NEWLINE => {
                            let extra = if b == b'\r' { price::CR } else { 0 };
                            self.step(Char::Newline, at, 1, extra, sink);
                            continue;
                        }
                        ESC => {
                            self.step(Char::Punct, at, 1, price::ESC, sink);
                            self.escaped();
                            continue;
                        }
                        _ => {
                            self.step(Char::Punct, at, 1, 0, sink);
                            if let State::Punct { chars, space, .. } = self.state {
                                if chars == 1 {
                                    self.same = b;
                                    self.last = u32::from(b);
                                    if !space {
                                        self.lead_kind = LEADS[b as usize];
                                    }
                                } else {
                                    self.appended(b);
                                }
                            }
                            continue;
                        }
                    }
                }
            };
            self.pos += n as u64;
            i += n;
        }
    }

    /// The letters that lead `rest`, in the pending word (see
    /// [`letters`]), and the words led by a space that follow it: the
    /// commonest pieces of prose and code, without going back to the
    /// choice of a piece by the byte. Returns the bytes read.
    ///
    /// [`letters`]: Estimator::letters
    #[inline]
    fn words<S: Sink>(&mut self, rest: &[u8], small: bool, sink: &mut S) -> usize {
        let mut n = self.letters(rest, small);
        if !space_word_at(rest, n) {
            return n;
        }
        if let State::Word { letters, caps, prefix, .. } = self.state {
            self.commit_priced(self.word_cost(letters, caps, prefix), self.pos + n as u64, sink);
        }
        // From here each word is a space and small letters, with nothing
        // else pending: only the cost of the words done, and the letters
        // and rare pairs of the last, change, kept in registers.
        let mut committed = self.committed;
        loop {
            n += 1;
            let (letters, rare, last) = small_run(&rest[n..], NO_LETTER);
            n += letters;
            let letters = letters as u64;
            if !space_word_at(rest, n) {
                self.committed = committed;
                self.state = State::Word { letters, caps: 0, prefix: Prefix::Space, small: true };
                self.bytes = 1 + letters;
                self.rare = rare;
                self.prev_letter = last;
                return n;
            }
            // What `word_cost` makes of such a word.
            committed += floor(word_cost(letters, 0, Prefix::Space, 0, rare), 1 + letters);
            sink.boundary(self.pos + n as u64, committed);
        }
    }

    /// The ASCII letters that lead `rest`, in the pending word: all of its
    /// small letters, its capitals while no small letter came (`small`).
    /// Returns how many.
    // Inlined into the loops that call them, the state stays in registers
    // (about 15 % less time on prose and source than with `#[inline]`).
    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn letters(&mut self, rest: &[u8], small: bool) -> usize {
        let (mut small, mut caps) = (small, 0);
        let (mut prev, mut rare) = (self.prev_letter, self.rare);
        let mut n = 0;
        // Capitals first, one by one: few words have many.
        while !small {
            let Some(&c) = rest.get(n) else { break };
            // Only ASCII letters map below 26.
            let l = (c | 0x20).wrapping_sub(b'a');
            if l >= 26 {
                break;
            }
            if c < b'a' {
                caps += 1;
            } else {
                small = true;
            }
            rare += rare_pair(prev, l);
            prev = l;
            n += 1;
        }
        if small {
            let (k, r, last) = small_run(&rest[n..], prev);
            n += k;
            rare += r;
            prev = last;
        }
        self.prev_letter = prev;
        self.rare = rare;
        if let State::Word { letters, caps: c, small: s, .. } = &mut self.state {
            *letters += n as u64;
            *c += caps;
            *s = small;
        }
        self.bytes += n as u64;
        n
    }

    /// The digits that lead `rest`, from the Start state or a number:
    /// each three of them a piece. Returns how many.
    #[inline]
    fn digits<S: Sink>(&mut self, rest: &[u8], sink: &mut S) -> usize {
        let mut k = match self.state {
            State::Digits(k) => k,
            _ => 0,
        };
        // A number starts with no bytes of its own.
        self.bytes = 0;
        let mut n = 0;
        for &c in rest {
            if !c.is_ascii_digit() {
                break;
            }
            n += 1;
            k += 1;
            if k == 3 {
                k = 0;
                self.committed += price::DIGITS;
                sink.boundary(self.pos + n as u64, self.committed);
            }
        }
        self.state = if k == 0 { State::Start } else { State::Digits(k) };
        n
    }

    /// The punctuation, or else the newlines, that lead `rest`, in pending
    /// punctuation. Returns how many.
    #[inline]
    fn punct(&mut self, rest: &[u8]) -> usize {
        let State::Punct { chars, newlines, .. } = &mut self.state else {
            return 0;
        };
        let n = if *newlines || CLASS[rest[0] as usize] == NEWLINE {
            *newlines = true;
            let (mut n, mut cr) = (0, 0);
            for &c in rest {
                if CLASS[c as usize] != NEWLINE {
                    break;
                }
                cr += u64::from(c == b'\r');
                n += 1;
            }
            self.run_len += n as u64;
            self.run_cr += cr * price::CR;
            n
        } else {
            let n = rest.iter().position(|&c| CLASS[c as usize] != PUNCT).unwrap_or(rest.len());
            *chars += n as u64;
            // One by one, for what each tells of the run.
            for &c in &rest[..n] {
                if let State::Punct { ascii, .. } = &mut self.state {
                    *ascii += 1;
                }
                self.appended(c);
            }
            n
        };
        self.bytes += n as u64;
        n
    }

    /// The kana, CJK ideographs and Hangul syllables that lead `rest`, in
    /// a pending word: each one more letter without case. Returns their
    /// bytes (none when no word is pending).
    #[inline]
    fn caseless(&mut self, rest: &[u8]) -> usize {
        let State::Word { small, .. } = &mut self.state else {
            return 0;
        };
        let n = caseless_run(rest);
        if n > 0 {
            *small = true;
            self.extra += (n / 3) as u64 * price::LETTER_3;
            self.bytes += n as u64;
            self.pos += n as u64;
            self.prev_letter = NO_LETTER;
        }
        n
    }

    /// The spaces and newlines that lead `rest`, in pending white space.
    /// Returns how many.
    #[inline]
    fn white_space(&mut self, rest: &[u8]) -> usize {
        let State::Ws { mut nl, mut spaces, mut plain } = self.state else {
            return 0;
        };
        let mut bytes = self.bytes;
        let mut n = 0;
        for &c in rest {
            match CLASS[c as usize] {
                NEWLINE => {
                    if nl == 0 || spaces > 0 {
                        // A new run of newlines: the last is priced, and
                        // the spaces before this one.
                        self.nl_extra += long_run(self.run_len, self.run_cr)
                            + fill_cost(bytes - self.nl_bytes, nl > 0, c == b'\r');
                        self.run_len = 0;
                        self.run_cr = 0;
                        nl += 1;
                    }
                    self.run_len += 1;
                    if c == b'\r' {
                        self.run_cr += price::CR;
                    }
                    bytes += 1;
                    self.nl_bytes = bytes;
                    spaces = 0;
                    plain = false;
                }
                SPACE => {
                    bytes += 1;
                    self.last_ws_len = 1;
                    spaces += 1;
                    plain = c == b' ';
                }
                _ => break,
            }
            n += 1;
        }
        self.bytes = bytes;
        self.state = State::Ws { nl, spaces, plain };
        n
    }

    /// The non-ASCII byte at `bytes[i]` and the character it leads: returns
    /// where the next one starts, or `None` when the character is cut by
    /// the end of `bytes` (its bytes are kept for the next piece).
    fn multi_at<S: Sink>(&mut self, bytes: &[u8], i: usize, sink: &mut S) -> Option<usize> {
        let b = bytes[i];
        let need = match b {
            0xC2..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF4 => 4,
            _ => 1,
        };
        if need == 1 {
            self.pos += 1;
            self.invalid_byte(sink);
            return Some(i + 1);
        }
        let have = bytes.len() - i;
        if have < need {
            // Keep what there is; later bytes finish it.
            let mut n = 1;
            while n < have && bytes[i + n] & 0xC0 == 0x80 {
                n += 1;
            }
            if n < have {
                // Cut short by a byte that is no continuation.
                for _ in 0..n {
                    self.pos += 1;
                    self.invalid_byte(sink);
                }
                return Some(i + n);
            }
            self.partial[..n].copy_from_slice(&bytes[i..i + n]);
            self.partial_len = n as u8;
            self.partial_need = need as u8;
            self.pos += n as u64;
            return None;
        }
        if need == 3 && caseless_run(&bytes[i..i + 3]) == 3 {
            // A kana, CJK ideograph or Hangul syllable: what `multi`
            // makes of it, without decoding it again.
            self.pos += 3;
            self.step(Char::Lower, self.pos - 3, 3, price::LETTER_3, sink);
            self.prev_letter = NO_LETTER;
            return Some(i + 3);
        }
        let seq = &bytes[i..i + need];
        if seq[1..].iter().all(|&c| c & 0xC0 == 0x80) {
            self.pos += need as u64;
            self.multi(seq, sink);
            Some(i + need)
        } else {
            self.pos += 1;
            self.invalid_byte(sink);
            Some(i + 1)
        }
    }

    /// A byte that is not part of valid UTF-8: a symbol of its own.
    fn invalid_byte<S: Sink>(&mut self, sink: &mut S) {
        let at = self.pos - 1;
        self.step(Char::Punct, at, 1, price::INVALID, sink);
    }

    /// The bytes of a cut character turned out not to be one.
    fn flush_invalid<S: Sink>(&mut self, sink: &mut S) {
        let n = u64::from(self.partial_len);
        self.partial_len = 0;
        let start = self.pos - n;
        for k in 0..n {
            self.step(Char::Punct, start + k, 1, price::INVALID, sink);
        }
    }

    /// A whole multi-byte sequence `seq` that ends at `self.pos`.
    fn multi<S: Sink>(&mut self, seq: &[u8], sink: &mut S) {
        let at = self.pos - seq.len() as u64;
        let Some(c) = std::str::from_utf8(seq).ok().and_then(|s| s.chars().next()) else {
            for k in 0..seq.len() as u64 {
                self.step(Char::Punct, at + k, 1, price::INVALID, sink);
            }
            return;
        };
        let n = seq.len() as u64;
        // Kana, CJK ideographs and Hangul syllables are letters without
        // case: known without the slower lookups of the tables.
        let (class, cost) = if caseless(u32::from(c)) {
            (Char::Lower, price::LETTER_3)
        } else {
            match kind(c) {
                k @ (Kind::Small | Kind::Capital) => {
                    let cost = match n {
                        2 => price::LETTER_2,
                        3 => price::LETTER_3,
                        _ => price::LETTER_4,
                    };
                    (if k == Kind::Capital { Char::Upper } else { Char::Lower }, cost)
                }
                Kind::Digit => (Char::Digit, 0),
                Kind::Space => (Char::Space(false), 0),
                Kind::Symbol => {
                    let cost = match n {
                        2 => price::SYMBOL_2,
                        3 => price::SYMBOL_3,
                        _ => price::SYMBOL_4,
                    };
                    (Char::Punct, cost)
                }
            }
        };
        self.step(class, at, n, cost, sink);
        self.prev_letter = NO_LETTER;
    }

    /// One character `c` of `n` bytes at stream offset `at`; `extra` is
    /// what it costs beyond an ASCII character of its kind (for symbols,
    /// what it costs in place of one).
    #[allow(clippy::too_many_lines)]
    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn step<S: Sink>(&mut self, c: Char, at: u64, n: u64, extra: u64, sink: &mut S) {
        match self.state {
            State::Start => self.begin(c, at, n, extra, Prefix::None, false),
            State::Ws { nl, spaces, plain } => match c {
                Char::Newline => {
                    // Spaces between newlines make the piece dearer (and
                    // keep the estimate from dropping as it grows): they
                    // end a run of newlines, priced by its length.
                    let nl = if nl == 0 || spaces > 0 {
                        self.nl_extra += long_run(self.run_len, self.run_cr)
                            + fill_cost(self.bytes - self.nl_bytes, nl > 0, extra > 0);
                        self.run_len = 0;
                        self.run_cr = 0;
                        nl + 1
                    } else {
                        nl
                    };
                    self.run_len += n;
                    self.run_cr += extra;
                    self.bytes += n;
                    self.nl_bytes = self.bytes;
                    self.state = State::Ws { nl, spaces: 0, plain: false };
                }
                Char::Space(p) => {
                    self.bytes += n;
                    self.last_ws_len = n;
                    self.state = State::Ws { nl, spaces: spaces + 1, plain: p };
                }
                _ => {
                    // The part up to the last newline is a piece.
                    let spaces_bytes = self.bytes - self.nl_bytes;
                    let mut pieces_end = at;
                    if spaces > 0 {
                        // The last space leads the next piece (a word
                        // always; punctuation only if it is U+0020).
                        let leads = matches!(c, Char::Lower | Char::Upper) || (c == Char::Punct && plain);
                        let last = if leads { self.last_space_len() } else { 0 };
                        pieces_end = at - last;
                        if nl > 0 {
                            self.committed += self.nl_cost(nl);
                            sink.boundary(at - spaces_bytes, self.committed);
                        }
                        if spaces > 1 || !leads {
                            let rest = spaces_bytes - last;
                            if !leads && spaces > 1 {
                                // `\s+(?!\S)` then `\s+`: two pieces.
                                let one = self.last_space_len();
                                self.committed += floor(price::SPACES, rest - one);
                                sink.boundary(at - one, self.committed);
                                self.committed += price::SPACES;
                            } else {
                                self.committed += floor(price::SPACES, rest);
                            }
                            sink.boundary(pieces_end, self.committed);
                        }
                        self.state = State::Start;
                        self.extra = 0;
                        self.nl_bytes = 0;
                        self.nl_extra = 0;
                        self.run_len = 0;
                        self.run_cr = 0;
                        self.bytes = 0;
                        if leads {
                            self.bytes = last;
                            self.begin(c, at, n, extra, Prefix::Space, c == Char::Punct);
                            return;
                        }
                    } else {
                        self.commit_priced(self.ws_cost(nl, 0), pieces_end, sink);
                    }
                    self.begin(c, at, n, extra, Prefix::None, false);
                }
            },
            State::Word { letters, caps, prefix, small } => match c {
                Char::Lower => {
                    self.bytes += n;
                    self.extra += extra;
                    let letters = letters + u64::from(extra == 0);
                    self.state = State::Word { letters, caps, prefix, small: true };
                }
                Char::Upper if !small => {
                    self.bytes += n;
                    self.extra += extra;
                    let ascii = u64::from(extra == 0);
                    self.state =
                        State::Word { letters: letters + ascii, caps: caps + ascii, prefix, small: false };
                }
                _ => {
                    self.commit_priced(self.word_cost(letters, caps, prefix), at, sink);
                    self.begin(c, at, n, extra, Prefix::None, false);
                }
            },
            State::Digits(k) => {
                if c == Char::Digit {
                    let k = k + 1;
                    if k == 3 {
                        self.committed += price::DIGITS;
                        self.state = State::Start;
                        sink.boundary(at + n, self.committed);
                    } else {
                        self.state = State::Digits(k);
                    }
                } else {
                    self.commit_priced(Self::digits_cost(k), at, sink);
                    self.begin(c, at, n, extra, Prefix::None, false);
                }
            }
            State::Punct { chars, ascii, space, newlines } => match c {
                Char::Punct if !newlines => {
                    self.bytes += n;
                    self.extra += extra;
                    if extra > 0 {
                        self.same = 0;
                        self.last = 0;
                    }
                    self.state = State::Punct {
                        chars: chars + 1,
                        ascii: ascii + u64::from(extra == 0),
                        space,
                        newlines,
                    };
                }
                Char::Newline => {
                    self.bytes += n;
                    self.run_len += n;
                    self.run_cr += extra;
                    self.state = State::Punct { chars, ascii, space, newlines: true };
                }
                Char::Lower | Char::Upper if chars == 1 && !space && !newlines => {
                    // One punctuation character leads the word.
                    let bytes = self.bytes;
                    self.lead = self.punct_cost(ascii);
                    self.state = State::Start;
                    self.extra = 0;
                    self.bytes = bytes;
                    let (prefix, apart) = punct_lead(self.lead_kind, c == Char::Upper);
                    self.begin(c, at, n, extra, prefix, false);
                    // After `begin`, which tells ASCII letters by an
                    // `extra` of 0.
                    self.extra += apart;
                }
                _ => {
                    let word = matches!(c, Char::Lower | Char::Upper);
                    self.commit_priced(self.punct_cost_before(ascii, word), at, sink);
                    self.begin(c, at, n, extra, Prefix::None, false);
                }
            },
        }
    }

    /// Bytes of the last white-space character of a run: one for U+0020,
    /// else guessed from the run (tabs are one byte; a wide space is
    /// three).
    fn last_space_len(&self) -> u64 {
        self.last_ws_len
    }

    /// Starts a piece with `c`, from the Start state; `self.bytes` already
    /// holds the bytes of a prefix.
    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn begin(&mut self, c: Char, at: u64, n: u64, extra: u64, prefix: Prefix, lead_space: bool) {
        let _ = at;
        self.bytes += n;
        match c {
            Char::Lower | Char::Upper => {
                self.extra += extra;
                let ascii = u64::from(extra == 0);
                let caps = if c == Char::Upper { ascii } else { 0 };
                self.state = State::Word { letters: ascii, caps, prefix, small: c == Char::Lower };
            }
            Char::Digit => {
                self.bytes = 0;
                self.state = State::Digits(1);
            }
            Char::Space(p) => {
                self.last_ws_len = n;
                self.state = State::Ws { nl: 0, spaces: 1, plain: p };
            }
            Char::Newline => {
                self.nl_bytes = self.bytes;
                self.run_len = n;
                self.run_cr = extra;
                self.state = State::Ws { nl: 1, spaces: 0, plain: false };
            }
            Char::Punct => {
                self.lead_kind = JOINS;
                self.same = 0;
                self.last = 0;
                self.extra += extra;
                self.state = State::Punct {
                    chars: 1,
                    ascii: u64::from(extra == 0),
                    space: lead_space,
                    newlines: false,
                };
            }
        }
    }
}

/// The estimate of `bytes` on their own, in whole tokens (rounded up).
pub fn estimate(bytes: &[u8]) -> u64 {
    let mut e = Estimator::default();
    e.feed(bytes);
    e.total()
}

/// The piece boundaries of `bytes` on their own: each offset where a piece
/// starts after the first, with the cost (in thousandths of a token) of the
/// pieces before it. The estimate of `bytes[at..]` is the total less that
/// cost.
pub fn boundaries(bytes: &[u8]) -> Vec<(usize, u64)> {
    let mut out = Vec::new();
    let mut e = Estimator::default();
    e.run(bytes, &mut |at: u64, cost: u64| {
        if out.last().is_none_or(|&(last, _)| last != at as usize) {
            out.push((at as usize, cost));
        } else if let Some(last) = out.last_mut() {
            last.1 = cost;
        }
    });
    out
}

/// Where the last `budget` tokens of `window` start: an offset at the
/// start of a character from which the estimate of the rest, on its own,
/// is at most `budget`, and from the character before which it is not.
/// Where the estimate of a rest grows with each character taken in, as it
/// nearly always does, that is the smallest such offset; a mark that joins
/// the word after it can make a longer rest cost less, and then a longer
/// rest further back may fit too. Two passes over `window` find the piece
/// the cut falls in; a cut inside a piece (a word longer than the budget)
/// is found by halving. For a tail cap, `window` is the ring of the last
/// `budget × MAX_BYTES_PER_TOKEN + 4` bytes or more.
pub fn tail_start(window: &[u8], budget: u64) -> usize {
    let limit = budget.saturating_mul(SCALE);
    let mut e = Estimator::default();
    e.feed(window);
    let total = e.total_scaled();
    if total <= limit {
        return 0;
    }
    // The first boundary whose rest fits, the one before it, and the
    // boundaries around them, whose costs give the estimate of a rest
    // that starts in between (`rest_scaled`).
    let (mut lo, mut hi) = (0, window.len());
    let mut found = false;
    let mut known: Vec<(usize, u64)> = Vec::new();
    let mut after = 0;
    let mut second = Estimator::default();
    // In blocks, so as to stop a little past the boundary found.
    for block in window.chunks(4096) {
        second.run(block, &mut |at: u64, cost: u64| {
            let at = at as usize;
            match known.last_mut() {
                Some(last) if last.0 == at => last.1 = cost,
                _ if found => {
                    known.push((at, cost));
                    after += 1;
                }
                _ => {
                    if known.len() == KNOWN_BEFORE {
                        known.remove(0);
                    }
                    known.push((at, cost));
                }
            }
            if found {
                return;
            }
            if total - cost <= limit {
                hi = at;
                found = true;
            } else {
                lo = at;
            }
        });
        if found && after > KNOWN_AFTER {
            break;
        }
    }
    // The last one told may still change its cost.
    if !found || after > KNOWN_AFTER {
        known.pop();
    }
    let rest_fits = |at: usize| rest_scaled(window, at, &known, total) <= limit;
    // `lo` is too much, `hi` fits: halve between them.
    while hi - lo > 1 {
        let half = lo + (hi - lo) / 2;
        let mut mid = half;
        while mid > lo && !is_char_start(window, mid) {
            mid -= 1;
        }
        if mid == lo {
            mid = half + 1;
            while mid < hi && !is_char_start(window, mid) {
                mid += 1;
            }
            if mid == hi {
                break;
            }
        }
        if rest_fits(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    // A rest on its own can cost less than it did in context (a mark
    // before a word joins the word), so the halving may stop short: take
    // in the characters before the cut while the rest still fits, so that
    // one more character never does.
    while hi > 0 {
        let mut before = hi - 1;
        while before > 0 && !is_char_start(window, before) {
            before -= 1;
        }
        if !rest_fits(before) {
            break;
        }
        hi = before;
    }
    hi
}

/// Where a tail cap of `budget` tokens cuts the input whose last bytes are
/// `ring` (its last `budget × MAX_BYTES_PER_TOKEN + 4` bytes, or all of
/// it): at [`tail_start`] of its last `budget × NEAR_BYTES_PER_TOKEN`
/// bytes when their estimate is more than `budget`, and of the whole ring
/// otherwise. Either way the rest fits and one more character does not;
/// the cut depends only on the input's last bytes, so a file read from
/// near its end gives the cut a pipe gives.
pub fn tail_cut(ring: &[u8], budget: u64) -> usize {
    let near = usize::try_from(budget.saturating_mul(NEAR_BYTES_PER_TOKEN)).unwrap_or(usize::MAX);
    if ring.len() > near {
        let from = ring.len() - near;
        // Zero only when the whole near window fits.
        let start = tail_start(&ring[from..], budget);
        if start > 0 {
            return from + start;
        }
    }
    tail_start(ring, budget)
}

/// Piece boundaries [`tail_start`] keeps before the one its cut falls
/// after, and after it.
const KNOWN_BEFORE: usize = 8;
const KNOWN_AFTER: usize = 32;

/// The estimate of `window[from..]` on its own, in thousandths of a token,
/// given `total`, the estimate of all of `window`, and `known`, some of its
/// piece boundaries with the cost of the pieces before each (ascending,
/// each cost final). The pieces of the rest, read on their own, soon start
/// where a piece of the whole starts; from there on they are the pieces of
/// the whole, which cost `total` less what came before. So only the first
/// few pieces are read, unless none meets a known boundary.
fn rest_scaled(window: &[u8], from: usize, known: &[(usize, u64)], total: u64) -> u64 {
    let mut e = Estimator::default();
    // The last boundary told, which a later one makes final.
    let mut told: Option<(usize, u64)> = None;
    let mut met = None;
    for block in window[from..].chunks(64) {
        e.run(block, &mut |at: u64, cost: u64| {
            let at = from + at as usize;
            if met.is_some() {
                return;
            }
            if let Some((last, before)) = told.filter(|&(last, _)| last != at)
                && let Ok(i) = known.binary_search_by_key(&last, |&(k, _)| k)
            {
                met = Some(before + (total - known[i].1));
                return;
            }
            told = Some((at, cost));
        });
        if let Some(met) = met {
            return met;
        }
    }
    e.total_scaled()
}

/// Whether a character starts at `bytes[at]`, as the estimator reads
/// `bytes` from the start: a continuation byte starts one (an invalid byte)
/// unless a whole valid character that covers it starts before it.
fn is_char_start(bytes: &[u8], at: usize) -> bool {
    if bytes[at] & 0xC0 != 0x80 {
        return true;
    }
    let mut lead = at;
    while lead > 0 && at - lead < 3 && bytes[lead] & 0xC0 == 0x80 {
        lead -= 1;
    }
    let need = match bytes[lead] {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return true,
    };
    !(lead + need > at
        && bytes.len() >= lead + need
        && std::str::from_utf8(&bytes[lead..lead + need]).is_ok())
}

/// The estimate of `bytes` on their own, in thousandths of a token.
pub fn estimate_scaled(bytes: &[u8]) -> u64 {
    let mut e = Estimator::default();
    e.feed(bytes);
    e.total_scaled()
}

/// An exact tokenizer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exact {
    /// `o200k_base` (GPT-4o, GPT-4.1, o-series, GPT-5).
    O200k,
    /// `cl100k_base` (GPT-4, GPT-3.5).
    Cl100k,
}

/// The exact number of tokens of `bytes` (bytes that are not UTF-8 are
/// read as U+FFFD). The vocabulary loads on the first call for it.
#[cfg(feature = "exact-tokens")]
pub fn count_exact(kind: Exact, bytes: &[u8]) -> usize {
    let text = String::from_utf8_lossy(bytes);
    let bpe = match kind {
        Exact::O200k => vocab::o200k(),
        Exact::Cl100k => vocab::cl100k(),
    };
    bpe.encode_ordinary(&text).len()
}

#[cfg(feature = "exact-tokens")]
mod vocab;

#[cfg(test)]
mod tests {
    use super::{Kind, boundaries, estimate_scaled, kind, rest_scaled};
    use proptest::prelude::*;

    use capout_testkit::token_text as text;

    /// The kinds kept in a table are the standard library's, the first
    /// time and after.
    #[test]
    fn kinds_are_the_standard_librarys() {
        for cp in (0x80..0xD800).chain(0xE000..0x11_0000) {
            let c = char::from_u32(cp).expect("not a surrogate");
            assert_eq!(kind(c), Kind::of(c), "U+{cp:04X}");
            assert_eq!(kind(c), Kind::of(c), "U+{cp:04X} again");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// The estimate of a rest taken from the boundaries of the whole
        /// where the rest's own pieces meet them, as `tail_start` takes
        /// it, is the estimate of the rest on its own.
        #[test]
        fn rest_from_known_boundaries(bytes in text(), from in any::<prop::sample::Index>(), keep in 0usize..40) {

            let from = from.index(bytes.len() + 1);
            let total = estimate_scaled(&bytes);
            // Some of the boundaries after `from`, or none.
            let known: Vec<(usize, u64)> =
                boundaries(&bytes).into_iter().filter(|&(at, _)| at >= from).take(keep).collect();
            prop_assert_eq!(rest_scaled(&bytes, from, &known, total), estimate_scaled(&bytes[from..]));
        }
    }
}
