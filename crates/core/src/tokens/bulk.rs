//! The plain count's bulk lane: the cost of the whole pieces of 64 bytes
//! of plain ASCII text at once, from the bit masks of their classes,
//! without the fast lane's walk from piece to piece. ESC and `\r` are
//! plain here: coloured lines and progress frames are priced in blocks.
//!
//! A full scan (`--json`'s total, the middle notice of the token pair)
//! needs the sum of the costs, not where each piece ends. Inside a block,
//! each kind of piece leaves a mark that bit arithmetic finds for all of
//! them at once (where a word starts, a digit group, a run of
//! punctuation). Most pieces are then priced by counts of bits: white
//! space, digit groups, single punctuation, rare letter pairs. A word is
//! priced by its length, the run of letters after its start (a count of
//! trailing zeros). What is not priced by kind and length alone is read
//! piece by piece (a word of two or more capitals, whose price is the
//! larger of two; a run of punctuation longer than a character, priced by
//! which characters it holds) or left to the fast lane (a long run of
//! newlines, many spaces before a newline, a blank line of spaces), which
//! reads the same block whole.
//!
//! The block ends at the last piece boundary that the bytes in it decide;
//! what follows is read from there. Every price here is the one the fast
//! lane gives the same piece: the engine's model tests feed the same text
//! both ways.

// Inlined into the lanes with AVX-512 and AVX2, whose counts of bits are
// `popcnt`.
#![allow(clippy::inline_always)]
// The masks of the classes are named by their initials: lower, upper,
// digit, space, newline, punctuation.
#![allow(clippy::many_single_char_names)]

use super::cost::{escaped_run_cost, floor, punct_lead, punct_run_cost, word_cost};
use super::fast::{BLOCK, Block, run_end, span};
use super::price;
use super::tables::{LEADS, Prefix};

/// Prices of a word by its length, 0 to a block's: `table`, the prices
/// of the first 16 lengths, and `more` for each letter past them (as
/// `priced` gives them).
const fn by_length<const N: usize>(table: &[u64; N], more: u64) -> [u64; BLOCK + 1] {
    let mut s = [0; BLOCK + 1];
    let mut k = 1;
    while k <= BLOCK {
        s[k] = if k < N { table[k] } else { table[N - 1] + (k - N + 1) as u64 * more };
        k += 1;
    }
    s
}

/// The prices of a word's small letters by what leads it: a space,
/// nothing, punctuation.
static WORD_PRICES: [[u64; BLOCK + 1]; 3] = [
    by_length(&price::SMALL[0], price::SMALL_MORE[0]),
    by_length(&price::SMALL[1], price::SMALL_MORE[1]),
    by_length(&price::SMALL[2], price::SMALL_MORE[2]),
];

/// `mask` of the byte before each byte: bit `j` is bit `j - 1` of `mask`
/// (0 for byte 0, which follows a piece boundary).
#[inline(always)]
fn prev(mask: u64) -> u64 {
    mask << 1
}

/// `mask` of the byte after each byte: bit `j` is bit `j + 1` of `mask`
/// (0 for byte 63).
#[inline(always)]
fn next(mask: u64) -> u64 {
    mask >> 1
}

/// How many bits `mask` has (`popcnt` in the lanes with AVX2 and
/// AVX-512).
#[inline(always)]
fn bits(mask: u64) -> u64 {
    u64::from(mask.count_ones())
}

/// The cost of the whole pieces of `block` from its first byte, a piece
/// boundary, and where the last of them ends (past the first byte); `None`
/// when the block has no such piece this lane prices, or a run of 32
/// bytes of white space, and the fast lane reads it.
#[inline(always)]
pub(super) fn block_cost(block: &[u8; BLOCK], m: &Block) -> Option<(usize, u64)> {
    let marks = Marks::new(m);
    let end = marks.end(m)?;
    let within = span(0, end);
    let (cost, caps_letters) = marks.caps_words(block, m, within);
    let cost = cost
        + marks.words(block, m, within, caps_letters)
        + price::DIGITS * bits(marks.groups & within)
        + marks.punct_and_space(block, m, within);
    Some((end, cost))
}

/// Where the pieces of a block start, by kind.
struct Marks {
    /// ASCII letters.
    letter: u64,
    /// Where words start: after a byte that is not a letter, or a capital
    /// after a small letter; byte 0 when it is a letter, as the block
    /// starts at a piece boundary.
    starts: u64,
    /// The letters after them, that go on with them.
    goes_on: u64,
    /// One punctuation character that leads the word after it: not led
    /// by U+0020 itself, nor part of a longer run.
    lead: u64,
    /// Runs of punctuation that are pieces of their own (with a space
    /// that leads them and the newlines after them).
    runs: u64,
    /// Digits that start a group of three, from the start of a run.
    groups: u64,
}

impl Marks {
    #[inline(always)]
    fn new(m: &Block) -> Marks {
        let (l, u, d, p) = (m.lower, m.upper, m.digit, m.punct);
        let letter = l | u;
        let starts = letter & !prev(letter) | u & prev(l);
        // ESC leads no word.
        let lead = p & !m.esc & !prev(p) & !prev(m.plain) & next(letter);
        let mut groups = d & !prev(d);
        let mut group = groups;
        loop {
            group = d & prev(d & prev(d & prev(group)));
            if group == 0 {
                break;
            }
            groups |= group;
        }
        Marks { letter, starts, goes_on: letter & !starts, lead, runs: p & !prev(p) & !lead, groups }
    }

    /// Where the block's last piece that this lane prices ends: the last
    /// boundary that the bytes before it and the byte after it decide.
    #[inline(always)]
    fn end(&self, m: &Block) -> Option<usize> {
        let (s, n, p, plain, r) = (m.space, m.newline, m.punct, m.plain, m.cr);
        // A byte that is not ASCII decides nothing, and the boundary
        // before it may hang on the byte before it: two bytes back.
        let mut limit = (m.high.trailing_zeros() as usize).saturating_sub(2).min(BLOCK - 2);
        // The pieces the fast lane prices by their lengths: a fourth
        // newline in a row (`run_after_punct`; white space pays more only
        // past ten, `long_run`), or a third after punctuation where a `\r`
        // is among them, or a second where both are (a `\r` counts twice
        // there), an eleventh space before a newline (`fill_cost`), a line
        // of spaces between two newlines (the general loop's blank lines;
        // after punctuation they are not, but are left to the fast lane
        // too). None of them starts a piece.
        let n3 = n & prev(n) & prev(prev(n));
        let n4 = n3 & prev(prev(prev(n)));
        let after_punct = n & !n.wrapping_add(n & prev(p));
        let cr_run = (r & prev(r) | n3 & (r | prev(r) | prev(prev(r)))) & after_punct;
        let s2 = s & prev(s);
        let s4 = s2 & s2 << 2;
        let s8 = s4 & s4 << 4;
        let s11 = s8 & s8 << 3;
        // Spaces between two newlines: the run after a newline, carried to
        // its end, lands on the byte after it.
        let blank = s.wrapping_add(s & prev(n)) & !s & n;
        let hard = n4 | cr_run | (s11 & next(n)) | blank;
        limit = limit.min((hard.trailing_zeros() as usize).saturating_sub(1));
        // A piece of 33 spaces before the last is past the floor of bytes
        // a token; any run of 32 bytes of white space, two more shifts
        // away, leaves the block to the fast lane.
        let s16 = s8 & s8 << 8;
        if s16 & s16 << 16 != 0 {
            return None;
        }
        // Piece boundaries the bytes decide (not all of them: enough to
        // end the block at one).
        let bounds = self.starts & !prev(s) & !prev(self.lead)
            | s & next(self.starts)
            | self.lead
            | self.groups
            | self.runs & !prev(plain)
            | plain & next(self.runs)
            | n & !prev(n) & !prev(p) & !prev(s)
            | s & !next(s) & !next(n);
        let candidates = bounds & span(1, limit + 1);
        (candidates != 0).then(|| 63 - candidates.leading_zeros() as usize)
    }

    /// The words of two or more capitals `within`, whose price is the
    /// larger of two, one by one; and their letters.
    #[inline(always)]
    fn caps_words(&self, block: &[u8; BLOCK], m: &Block, within: u64) -> (u64, u64) {
        let (u, l) = (m.upper, m.lower);
        let mut cost = 0;
        let mut words = self.starts & u & next(u) & within;
        let mut letters = 0;
        while words != 0 {
            let at = words.trailing_zeros() as usize;
            words &= words - 1;
            let caps_end = run_end(u, at);
            let word_end = run_end(l, caps_end);
            letters |= span(at, word_end);
            let (start, prefix, extra, lead_floor) = if at > 0 && m.space >> (at - 1) & 1 != 0 {
                (at - 1, Prefix::Space, 0, 0)
            } else if at > 0 && self.lead >> (at - 1) & 1 != 0 {
                let (prefix, extra) = punct_lead(LEADS[usize::from(block[at - 1])], true);
                (at - 1, prefix, extra, floor(price::PUNCT[1], 1))
            } else {
                (at, Prefix::None, 0, 0)
            };
            let rare = bits(m.rare & span(at + 1, word_end));
            let n = (word_end - at) as u64;
            let caps = (caps_end - at) as u64;
            let price = word_cost(n, caps, prefix, extra, rare).max(lead_floor);
            cost += floor(price, (word_end - start) as u64);
        }
        (cost, letters)
    }

    /// The other words `within`: by what leads each (a space, nothing,
    /// punctuation), each priced by its length, and their rare pairs.
    #[inline(always)]
    fn words(&self, block: &[u8; BLOCK], m: &Block, within: u64, caps_letters: u64) -> u64 {
        let mut cost = 0;
        let words = self.starts & within & !caps_letters;
        // What each punctuation character that leads a word makes of it
        // (`@` leads as nothing does; some are priced apart).
        let mut after_punct = 0;
        let mut leads = self.lead & next(words);
        while leads != 0 {
            let at = leads.trailing_zeros() as usize;
            leads &= leads - 1;
            let (prefix, extra) = punct_lead(LEADS[usize::from(block[at])], m.upper >> (at + 1) & 1 != 0);
            cost += extra;
            if prefix == Prefix::Punct {
                after_punct |= 1 << (at + 1);
            }
        }
        let after_space = words & prev(m.space);
        // The letters of the words that each kind leads: a run of letters
        // that go on from one of its starts, cleared by the carry of
        // adding it.
        let letters_of = |first: u64| {
            let run = self.goes_on | first;
            run & !run.wrapping_add(first)
        };
        let spaced = letters_of(after_space);
        let punctuated = letters_of(after_punct);
        let bare = self.letter & within & !spaced & !punctuated & !caps_letters;
        let [space_prices, bare_prices, punct_prices] = &WORD_PRICES;
        cost += self.priced(words & spaced, space_prices)
            + self.priced(words & bare, bare_prices)
            + self.priced(words & punctuated, punct_prices);
        let rare = m.rare & self.goes_on;
        cost + price::RARE[0] * bits(rare & spaced)
            + price::RARE[1] * bits(rare & bare)
            + price::RARE[2] * bits(rare & punctuated)
    }

    /// The words that start at `starts`, each priced by its length from
    /// `prices`.
    #[inline(always)]
    fn priced(&self, mut starts: u64, prices: &[u64; BLOCK + 1]) -> u64 {
        let mut cost = 0;
        while starts != 0 {
            let at = starts.trailing_zeros();
            starts &= starts - 1;
            // The letter at `at` and those after it that go on with it.
            let len = 1 + (!(self.goes_on >> at >> 1)).trailing_zeros() as usize;
            cost += prices[len.min(BLOCK)];
        }
        cost
    }

    /// Punctuation and white space `within`.
    #[inline(always)]
    fn punct_and_space(&self, block: &[u8; BLOCK], m: &Block, within: u64) -> u64 {
        let (d, s, n, p) = (m.digit, m.space, m.newline, m.punct);
        // Punctuation: a token a character on its own; a longer run as its
        // characters price it (`::`, `#[` before a word, `);`). The
        // newlines after it (three at most here) cost nothing more.
        let runs = self.runs & within;
        let single = runs & !next(p) & !m.esc;
        let mut cost = price::PUNCT[1] * bits(single);
        let mut longer = runs & !single;
        while longer != 0 {
            let at = longer.trailing_zeros() as usize;
            longer &= longer - 1;
            let end = run_end(p, at);
            cost += if m.esc & span(at, end) == 0 {
                punct_run_cost(&block[at..end], self.letter >> end & 1 != 0)
            } else {
                escaped_run_cost(&block[at..end], at > 0 && m.plain >> (at - 1) & 1 != 0)
            };
        }
        // White space: a token for the part up to its newlines; of a run
        // of spaces before something else, a token for all but the last
        // when there are two or more, and one for the last when it leads
        // nothing (a digit, or punctuation after a space that is not
        // U+0020).
        let lines = n & !prev(n) & !prev(p);
        let run_starts = s & !prev(s);
        let run_ends = s & !next(s);
        let many = bits(run_starts & next(s) & within) - bits(run_ends & prev(s) & next(n) & within);
        let alone = run_ends & (next(d) | next(p) & !m.plain);
        cost + price::SPACES * (bits(lines & within) + many + bits(alone & within))
    }
}
