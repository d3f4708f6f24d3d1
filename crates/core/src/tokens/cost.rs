//! What each kind of piece costs, from its counts and the prices.

use super::price;
use super::tables::{APART, CAPITAL, CLOSE, FOURS, Prefix, SAME_RUN, THREES};
use super::{MAX_BYTES_PER_TOKEN, SCALE};

/// The floor of cost for a piece of `bytes` bytes.
#[inline]
pub(super) fn floor(cost: u64, bytes: u64) -> u64 {
    cost.max(bytes * SCALE / MAX_BYTES_PER_TOKEN)
}

/// What a run of `len` bytes of newlines in white space costs beyond a
/// token, `cr` for its `\r`: nothing up to `NL_RUN`, then at least a token
/// more, and a token per `NL_BYTES_PER_TOKEN` bytes.
#[inline]
pub(super) fn long_run(len: u64, cr: u64) -> u64 {
    if len <= price::NL_RUN { 0 } else { (len + 5) * SCALE / price::NL_BYTES_PER_TOKEN + cr }
}

/// What `bytes` of spaces before a run of newlines add to it (a blank line
/// of many spaces or tabs is more than a token), `cr` when the run starts
/// with `\r`; `after` when a line of the same white space came before
/// them, which makes the line a blank one of its own (`BLANK` or
/// `SPACES`).
#[inline]
pub(super) fn fill_cost(bytes: u64, after: bool, cr: bool) -> u64 {
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
pub(super) fn run_after_punct(len: u64, cr: u64) -> u64 {
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
pub(super) fn word_cost(letters: u64, caps: u64, prefix: Prefix, extra: u64, rare: u64) -> u64 {
    let p = prefix as usize;
    let caps = priced(&price::CAPS[p], price::CAPS_MORE[p], caps);
    let small = priced(&price::SMALL[p], price::SMALL_MORE[p], letters) + rare * price::RARE[p];
    (caps.max(small) + extra).max(SCALE)
}

#[inline]
pub(super) fn punct_cost(chars: u64) -> u64 {
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
pub(super) fn run_cost(chars: u64, same: u8, last: u32) -> u64 {
    if last as u16 == STATEMENT_END && chars >= 3 { punct_cost(chars - 1) } else { same_cost(chars, same) }
}

/// Whether `b` after punctuation that ends in `last` (as [`run_cost`]
/// takes it) starts a run priced on its own: `o200k_base` merges two dots
/// with few characters after them (`..=`, `..]`, `..,` are two tokens,
/// `'..=` three; `...`, `..)`, `../`, `.."` one), so the run before them
/// ends with the dots, which cost a token.
#[inline]
pub(super) fn splits(last: u32, b: u8) -> bool {
    last as u16 == u16::from_be_bytes(*b"..")
        && (last >> 16) as u8 != b'.'
        && !matches!(b, b'.' | b')' | b'/' | b'\\' | b'"' | b'!' | b'?' | b'<')
}

/// What the punctuation before two dots that `splits` ends costs, with
/// the dots, for `ascii` ASCII characters up to them.
#[inline]
pub(super) fn split_cost(ascii: u64) -> u64 {
    punct_cost(ascii - 2) + SCALE
}

/// The punctuation that opens an attribute of Rust, `#[`: the word after
/// it is its name (`cfg`, `derive`, `inline`, `allow`), one token in
/// `o200k_base` whatever its letters.
const ATTRIBUTE: u16 = u16::from_be_bytes([b'#', b'[']);

/// What `chars` ASCII punctuation characters that end in `last` cost
/// less when a word follows them at once ([`ATTRIBUTE`]).
#[inline]
pub(super) fn before_word(chars: u64, last: u32) -> u64 {
    if chars == 2 && last as u16 == ATTRIBUTE { price::ATTRIBUTE } else { 0 }
}

/// What the ASCII punctuation `run` (bytes of class `PUNCT`) costs, `word`
/// when a letter follows it at once.
#[allow(clippy::inline_always)]
#[inline(always)]
pub(super) fn punct_run_cost(run: &[u8], word: bool) -> u64 {
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

/// What the run `run` of ASCII punctuation and ESC (bytes of class `PUNCT`
/// or `ESC`, at least one ESC) costs, `space` when a space leads it, as
/// the state machine prices it: each ESC a token that merges with
/// nothing, so that the punctuation before it (or else the space that
/// leads the run) is priced on its own as it comes, and the punctuation
/// after the last as a run of its own characters. Such a run leads no
/// word and takes nothing off before one.
#[allow(clippy::inline_always)]
#[inline(always)]
pub(super) fn escaped_run_cost(run: &[u8], space: bool) -> u64 {
    // ESC and one character, the `ESC [` of nearly every sequence in
    // coloured output: inlined into the lanes, the longer runs are not.
    if let &[0x1B, b] = run
        && b != 0x1B
    {
        return price::ESC + if space { price::SPACES } else { 0 } + run_cost(1, 0, u32::from(b));
    }
    longer_escaped_run_cost(run, space)
}

/// [`escaped_run_cost`] of a run other than ESC and one character.
#[inline(never)]
fn longer_escaped_run_cost(run: &[u8], space: bool) -> u64 {
    let (mut done, mut chars, mut last, mut space) = (0, 0, 0u32, space);
    for &b in run {
        if b == 0x1B {
            done += price::ESC
                + if chars > 0 {
                    punct_cost(chars)
                } else if space {
                    price::SPACES
                } else {
                    0
                };
            (chars, last, space) = (0, 0, false);
            continue;
        }
        if splits(last, b) {
            done += split_cost(chars);
            chars = 0;
        }
        chars += 1;
        last = last << 8 | u32::from(b);
    }
    done + run_cost(chars, 0, last)
}

/// What a word led by one punctuation character of `kind`
/// ([`LEADS`](super::tables::LEADS)) has for a prefix, and what it costs
/// more, `capital` when its first letter is one.
#[inline]
pub(super) fn punct_lead(kind: u8, capital: bool) -> (Prefix, u64) {
    let prefix = if kind == CLOSE { Prefix::None } else { Prefix::Punct };
    let apart = kind == APART || kind == CAPITAL && !capital;
    (prefix, if apart { price::APART } else { 0 })
}
