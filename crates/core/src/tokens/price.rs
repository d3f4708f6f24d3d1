//! Prices, in thousandths of a token. Fitted on the corpora under
//! `tests/fixtures/tokens` against `o200k_base` (see
//! `tests/engine/tokens/accuracy.rs`); the words led by nothing or by
//! punctuation, and `APART`, on Python and JSON from outside them too;
//! the words led by a space or by punctuation, and their rare pairs, on
//! Python, Rust and JavaScript from outside them (the modules of the
//! standard library, pip, click, flask, jinja2, requests, `serde_json`,
//! clap, npm), which `o200k_base` holds in fewer tokens than the corpora.
//!
//! Numbers alone, with nothing from the rest of the crate: a refit is a
//! change of this file, and the engine's tests read the same prices.

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
/// more (`LEADS` in `tables.rs`).
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
/// What `#[` costs less before a word (`ATTRIBUTE` in `cost.rs`):
/// the names of attributes were 1.4 to 1.5 tokens in Rust from outside
/// the corpora (`cfg` 2.2), one in `o200k_base`.
pub const ATTRIBUTE: u64 = 300;
