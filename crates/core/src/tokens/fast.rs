//! The estimator's fast lane: whole pieces of ASCII text read from a piece
//! boundary, each priced as soon as the byte after it is seen, with
//! nothing but the cost of the pieces done kept between them.
//!
//! The general loop of [`Estimator::run`] keeps the pending piece in the
//! estimator and decides by state and class for every run of one kind of
//! byte. Most pieces of text are short and plain (` word`, `Word`, `.len`,
//! `);\n`, `    ` before a word, `123`), and from a boundary each is known
//! whole by its bytes alone: so they are read here one after another, in
//! registers, ESC and `\r` among them (a run of punctuation that holds
//! ESC is priced by [`escaped_run_cost`], a `\r` is a newline that makes a
//! long run dearer). Anything else (a character that is not ASCII, white
//! space with newlines, a piece cut by the end of the input) stops the
//! lane at the start of that piece, where the general loop takes over with
//! the state it would have had; it comes back here at the next boundary.
//! Each price is the one the general loop gives the same piece, from the
//! same functions and tables.

use super::cost::{
    escaped_run_cost, fill_cost, floor, long_run, punct_cost, punct_lead, punct_run_cost, run_after_punct,
    word_cost,
};
use super::estimator::{Estimator, Sink, State};
use super::general::small_run;
use super::price;
use super::tables::{
    CLASS, DIGIT, LEADS, LOWER, MULTI, NEWLINE, NO_LETTER, PUNCT, Prefix, RARE_BYTES, SPACE, UPPER, rare_pair,
};

/// What leads a word read in a lane (this one, and the CJK lane), and
/// what the word costs at least.
#[derive(Clone, Copy)]
pub(super) struct Lead {
    pub(super) prefix: Prefix,
    /// Extra cost of the word (`price::APART` after `,` and the like).
    pub(super) extra: u64,
    /// What the punctuation that leads it would cost on its own.
    pub(super) floor: u64,
}

impl Lead {
    /// A word led by nothing, and one led by a space.
    pub(super) const NONE: Lead = Lead { prefix: Prefix::None, extra: 0, floor: 0 };
    pub(super) const SPACE: Lead = Lead { prefix: Prefix::Space, extra: 0, floor: 0 };
}

impl Estimator {
    /// Whether an ASCII character of `class` ends the pending piece, with
    /// nothing of it carried into the next (as `step` would commit it and
    /// begin the next piece from the start); always at a boundary. White
    /// space is left to `step`, which may split it or lead the next piece
    /// with it.
    #[inline]
    pub(super) fn ended_by(&self, class: u8) -> bool {
        match self.state {
            // The lane reads no character that is not ASCII.
            _ if class == MULTI => false,
            State::Start => true,
            State::Word { small, .. } => !(class == LOWER || class == UPPER && !small),
            State::Digits(_) => class != DIGIT,
            State::Punct { newlines: true, .. } => class != NEWLINE,
            State::Punct { chars, space, .. } => {
                class == SPACE || class == DIGIT || matches!(class, LOWER | UPPER) && (chars > 1 || space)
            }
            State::Ws { .. } => false,
        }
    }

    /// Whether the 16 bytes at `bytes[i..]` are there and all ASCII: the
    /// lane is worth starting (a block costs about as much as a few
    /// pieces, and text that is not ASCII soon stops it).
    #[inline]
    pub(super) fn ascii_ahead(bytes: &[u8], i: usize) -> bool {
        bytes
            .get(i..i + 16)
            .and_then(|w| <[u8; 16]>::try_from(w).ok())
            .is_some_and(|w| u128::from_le_bytes(w) & 0x8080_8080_8080_8080_8080_8080_8080_8080 == 0)
    }

    /// Reads the whole plain pieces that lead `bytes[i..]`, from a piece
    /// boundary (the state is `Start`, nothing pending), and returns where
    /// the first piece it leaves to the general loop starts.
    #[inline]
    pub(super) fn pieces<S: Sink>(&mut self, bytes: &[u8], i: usize, sink: &mut S) -> usize {
        #[cfg(target_arch = "x86_64")]
        if let Some(to) = self.pieces_simd(bytes, i, sink) {
            return to;
        }
        self.lane(bytes, i, sink, Portable)
    }

    /// [`pieces`](Self::pieces), with the blocks classified by `classify`.
    #[allow(clippy::inline_always)]
    #[inline(always)]
    pub(super) fn lane<S: Sink, C: Classify>(
        &mut self,
        bytes: &[u8],
        mut i: usize,
        sink: &mut S,
        classify: C,
    ) -> usize {
        debug_assert!(self.state == State::Start && self.bytes == 0 && self.partial_len == 0);
        // Stream offset of `bytes[0]`.
        let base = self.pos - i as u64;
        let mut committed = self.committed;
        loop {
            // Blocks of 64 bytes while there are, then byte by byte; a
            // piece too long for a block goes byte by byte too.
            let (to, stopped) = if i + BLOCK <= bytes.len() {
                match block_pieces(bytes, i, base, &mut committed, sink, classify) {
                    Ended::Stop(to) => (to, true),
                    Ended::Cross(to) if to > i => (to, false),
                    Ended::Cross(_) => scalar_pieces(bytes, i, i + 1, base, &mut committed, sink),
                }
            } else {
                scalar_pieces(bytes, i, bytes.len(), base, &mut committed, sink)
            };
            i = to;
            if stopped || i >= bytes.len() {
                break;
            }
        }
        self.committed = committed;
        self.pos = base + i as u64;
        i
    }
}

/// How the lane tells the classes of the bytes of a block.
pub(super) trait Classify: Copy {
    /// The classes of the 64 bytes of `bytes`.
    fn block(self, bytes: &[u8; BLOCK]) -> Block;
}

/// Where the CPU has no AVX2 (or is not x86-64): eight bytes at a time in
/// a `u64`, and the rare pairs by table lookups.
#[derive(Clone, Copy)]
pub(super) struct Portable;

impl Classify for Portable {
    #[inline]
    fn block(self, bytes: &[u8; BLOCK]) -> Block {
        Block::new(bytes)
    }
}

/// Bytes a block is classified in.
pub(super) const BLOCK: usize = 64;

/// How [`block_pieces`] ended: at a piece the lane leaves to the general
/// loop, or at one that goes on past the block.
enum Ended {
    Stop(usize),
    Cross(usize),
}

/// The classes of 64 bytes, a bit each (byte `j` in bit `j`).
pub(super) struct Block {
    pub(super) lower: u64,
    pub(super) upper: u64,
    pub(super) digit: u64,
    /// White space other than newlines (all of it one byte).
    pub(super) space: u64,
    /// `\n` and `\r`.
    pub(super) newline: u64,
    /// U+0020 itself.
    pub(super) plain: u64,
    /// The bytes of class `PUNCT`, and ESC.
    pub(super) punct: u64,
    /// Bytes that are not ASCII.
    pub(super) high: u64,
    /// ESC, punctuation that merges with nothing: it never leads a word,
    /// and a run that holds it is priced by [`escaped_run_cost`].
    pub(super) esc: u64,
    /// `\r`, a newline that makes a long run of them dearer.
    pub(super) cr: u64,
    /// Bit `j`: bytes `j - 1` and `j` are ASCII letters whose pair, as
    /// small letters, is rare (`RARE_BYTES`); never bit 0.
    pub(super) rare: u64,
}

/// A one in each byte of a word.
const ONES: u64 = 0x0101_0101_0101_0101;
/// The high bit of each byte of a word.
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The high bits of the bytes of `w` that are in `lo..=hi`, for `w` of
/// ASCII bytes (each below 0x80) and `lo..=hi` within ASCII: a byte plus
/// `0x80 - lo` reaches 0x80 when it is `lo` or more, plus `0x7F - hi`
/// when it is more than `hi`, and neither sum carries into the next byte.
#[inline]
fn within(w: u64, lo: u8, hi: u8) -> u64 {
    let at_least = w + ONES * u64::from(0x80 - lo);
    let above = w + ONES * u64::from(0x7F - hi);
    at_least & !above & HIGHS
}

/// The high bits of the bytes of `w` (ASCII, as for [`within`]) that are
/// `byte`: a byte of `w ^ byte` is 0 just there, and only 0 plus 0x7F
/// stays below 0x80.
#[inline]
fn is(w: u64, byte: u8) -> u64 {
    let x = w ^ (ONES * u64::from(byte));
    !(x + !HIGHS) & HIGHS
}

/// The high bits of the 8 bytes of `m` as 8 bits, byte `j` in bit `j`:
/// the product moves bit `8j + 7` to bit `56 + j`, and no two of its
/// terms meet.
#[inline]
fn gather(m: u64) -> u64 {
    (m & HIGHS).wrapping_mul(0x0002_0408_1020_4081) >> 56
}

impl Block {
    /// The classes of a block, eight bytes at a time in a `u64` (where
    /// there is no vector unit the lanes of [`super::simd`] can use).
    #[inline]
    pub(super) fn new(bytes: &[u8; BLOCK]) -> Block {
        let mut m = [0u64; 9];
        for (k, word) in bytes.as_chunks::<8>().0.iter().enumerate() {
            let w = u64::from_le_bytes(*word);
            let high = w & HIGHS;
            // Each test sees a byte that is not ASCII as its low 7 bits:
            // such bytes are in `high` alone, and taken out of the others.
            let a = w & !HIGHS;
            let ascii = |v: u64| v & !high;
            // A letter as a small letter (`| 0x20` makes no letter of any
            // other byte), and its case in bit 5, moved to bit 7.
            let letter = ascii(within(a | (ONES * 0x20), b'a', b'z'));
            let small = a << 2;
            let plain = ascii(is(a, b' '));
            let space = plain | ascii(is(a, b'\t') | within(a, 0x0B, 0x0C));
            let classes = [
                letter & small,
                letter & !small,
                ascii(within(a, b'0', b'9')),
                space,
                ascii(is(a, b'\n')),
                ascii(is(a, b'\r')),
                high,
                plain,
                ascii(is(a, 0x1B)),
            ];
            for (mask, v) in m.iter_mut().zip(classes) {
                *mask |= gather(v) << (8 * k);
            }
        }
        let [lower, upper, digit, space, lf, cr, high, plain, esc] = m;
        let newline = lf | cr;
        let punct = !(lower | upper | digit | space | newline | high);
        // Eight bits at a time, each shifted by a constant; as small
        // letters: `| 0x20` makes no letter of any other byte.
        let mut rare = 0;
        for k in 0..BLOCK / 8 {
            let mut bits = 0u8;
            for t in 0..8 {
                let j = 8 * k + t;
                if j > 0 {
                    let pair = u16::from_le_bytes([bytes[j - 1], bytes[j]]) | 0x2020;
                    bits |= RARE_BYTES[usize::from(pair)] << t;
                }
            }
            rare |= u64::from(bits) << (8 * k);
        }
        Block { lower, upper, digit, space, newline, plain, punct, high, esc, cr, rare }
    }
}

/// Where the run of the bytes of `mask` that starts at `at` (below 64)
/// ends: 64 or more when it reaches the end of the block.
#[inline]
pub(super) fn run_end(mask: u64, at: usize) -> usize {
    at + (!mask >> at).trailing_zeros() as usize
}

/// The rare pairs of `rare` in bits `from..to` (`from <= to < 64`): most
/// words have none, and a count of bits is a dozen instructions on an
/// x86-64 without `popcnt`.
#[inline]
fn rare_in(rare: u64, from: usize, to: usize) -> u64 {
    let bits = rare & !0u64 << from & !(!0u64 << to);
    if bits == 0 { 0 } else { count(bits) }
}

/// Out of line, so that the common word with no rare pair does not pay
/// for the count.
#[cold]
#[inline(never)]
fn count(bits: u64) -> u64 {
    u64::from(bits.count_ones())
}

/// The bits `from..to` (`from <= to <= 64`).
#[inline]
pub(super) fn span(from: usize, to: usize) -> u64 {
    let below = |n: usize| if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
    below(to) & !below(from)
}

/// How many bits of `mask` are set in `from..to` (`from <= to <= 64`):
/// of `\r`, which most runs have none of.
#[inline]
fn bits(mask: u64, from: usize, to: usize) -> u64 {
    let bits = mask & span(from, to);
    if bits == 0 { 0 } else { count(bits) }
}

/// Whether bit `at` (below 64) of `mask` is set.
#[inline]
fn has(mask: u64, at: usize) -> bool {
    mask >> at & 1 != 0
}

/// The plain pieces of the block of 64 bytes at `bytes[i..]`, as
/// [`scalar_pieces`] reads them, with each run found and the rare pairs of
/// each word counted by the bits of its classes.
#[allow(clippy::too_many_lines, clippy::many_single_char_names, clippy::inline_always)]
#[inline(always)]
fn block_pieces<S: Sink, C: Classify>(
    bytes: &[u8],
    i: usize,
    base: u64,
    committed: &mut u64,
    sink: &mut S,
    classify: C,
) -> Ended {
    let Some(block) = bytes.get(i..i + BLOCK).and_then(|b| <&[u8; BLOCK]>::try_from(b).ok()) else {
        return Ended::Cross(i);
    };
    // A block costs about as much as a few pieces: not for a piece the
    // lane leaves at once.
    if block[0] >= 0x80 {
        return Ended::Stop(i);
    }
    let m = classify.block(block);
    // The plain count takes the block's whole pieces at once where it can.
    if !S::TELLS
        && let Some((to, cost)) = super::bulk::block_cost(block, &m)
    {
        *committed += cost;
        return Ended::Cross(i + to);
    }
    let letter = m.lower | m.upper;
    // A space before a small letter.
    let space_word = m.plain & m.lower >> 1;
    let at = |o: usize| base + (i + o) as u64;
    let mut o = 0;
    loop {
        if o >= BLOCK {
            return Ended::Cross(i + o);
        }
        // Where the word that ends this round starts (its prefix), its
        // first letter, and what leads it.
        if has(space_word, o) {
            // ` word`, the commonest piece: a space and small letters.
            let end = run_end(m.lower, o + 1);
            if end >= BLOCK {
                return Ended::Cross(i + o);
            }
            if has(m.high, end) {
                return Ended::Stop(i + o);
            }
            let rare = rare_in(m.rare, o + 2, end);
            let letters = (end - o - 1) as u64;
            *committed += floor(word_cost(letters, 0, Prefix::Space, 0, rare), 1 + letters);
            sink.boundary(at(end), *committed);
            o = end;
            continue;
        }
        let (start, letters_at, lead) = if has(m.space | m.newline, o) {
            // White space: spaces, at most one run of newlines, and the
            // spaces after it.
            let pre = if has(m.space, o) { run_end(m.space, o) } else { o };
            if pre >= BLOCK {
                return Ended::Cross(i + o);
            }
            // What the part up to the newlines costs, and where the
            // spaces after them start.
            let (lines, from) = if has(m.newline, pre) {
                let lines_end = run_end(m.newline, pre);
                if lines_end >= BLOCK {
                    return Ended::Cross(i + o);
                }
                let (p, q) = ((pre - o) as u64, (lines_end - pre) as u64);
                // As `step` prices it: spaces before the newlines end a
                // run of none (whose first `\r` matters only to a line of
                // spaces after another).
                let fill = if p > 0 { long_run(0, 0) + fill_cost(p, false, false) } else { 0 };
                let cr = bits(m.cr, pre, lines_end) * price::CR;
                (Some(floor(price::SPACES + fill + long_run(q, cr), p + q)), lines_end)
            } else {
                (None, o)
            };
            let end = if has(m.space, from) { run_end(m.space, from) } else { from };
            if end >= BLOCK {
                return Ended::Cross(i + o);
            }
            let k = end - from;
            // The last space leads a word, and U+0020 punctuation.
            let leads = if has(letter, end) {
                k > 0
            } else if has(m.punct, end) {
                k > 0 && block[end - 1] == b' '
            } else if has(m.digit, end) {
                false
            } else {
                // A character that is not ASCII, or more newlines after
                // spaces.
                return Ended::Stop(i + o);
            };
            if let Some(cost) = lines {
                *committed += cost;
                sink.boundary(at(end - k), *committed);
                if k == 0 {
                    o = end;
                    continue;
                }
            }
            if k > 1 {
                *committed += floor(price::SPACES, k as u64 - 1);
                sink.boundary(at(end - 1), *committed);
            }
            if !leads {
                *committed += if k > 1 { price::SPACES } else { floor(price::SPACES, 1) };
                sink.boundary(at(end), *committed);
                o = end;
                continue;
            }
            if has(m.punct, end) {
                match block_punct(&m, block, end - 1, end, committed) {
                    Ok(to) => {
                        sink.boundary(at(to), *committed);
                        o = to;
                        continue;
                    }
                    Err(Ended::Stop(_)) => return Ended::Stop(i + end - 1),
                    Err(Ended::Cross(_)) => return Ended::Cross(i + end - 1),
                }
            }
            (end - 1, end, Lead::SPACE)
        } else if has(letter, o) {
            (o, o, Lead::NONE)
        } else if has(m.punct, o) {
            // ESC leads no word.
            if o + 1 >= BLOCK || !has(letter, o + 1) || has(m.esc, o) {
                match block_punct(&m, block, o, o, committed) {
                    Ok(to) => {
                        sink.boundary(at(to), *committed);
                        o = to;
                        continue;
                    }
                    Err(Ended::Stop(_)) => return Ended::Stop(i + o),
                    Err(Ended::Cross(_)) => return Ended::Cross(i + o),
                }
            }
            // One punctuation character leads the word.
            let (prefix, extra) = punct_lead(LEADS[usize::from(block[o])], has(m.upper, o + 1));
            let floor = floor(punct_cost(1) + run_after_punct(0, 0), 1);
            (o, o + 1, Lead { prefix, extra, floor })
        } else if has(m.digit, o) {
            let end = run_end(m.digit, o);
            if end >= BLOCK {
                return Ended::Cross(i + o);
            }
            // A digit that is not ASCII would go on with the number.
            if has(m.high, end) {
                return Ended::Stop(i + o);
            }
            // Each three digits a piece; without boundaries to tell,
            // all of them at once.
            let mut group = o;
            if S::TELLS {
                while group + 3 <= end {
                    group += 3;
                    *committed += price::DIGITS;
                    sink.boundary(at(group), *committed);
                }
            } else {
                let groups = (end - o) / 3;
                *committed += groups as u64 * price::DIGITS;
                group += 3 * groups;
            }
            if group < end {
                *committed += Estimator::digits_cost((end - group) as u8);
                sink.boundary(at(end), *committed);
            }
            o = end;
            continue;
        } else {
            return Ended::Stop(i + o);
        };
        // A word: capitals, then small letters, up to a byte that is
        // neither and is ASCII (a letter that is not would go on with it).
        let caps_end = run_end(m.upper, letters_at);
        let end =
            if caps_end < BLOCK && has(m.lower, caps_end) { run_end(m.lower, caps_end) } else { caps_end };
        if end >= BLOCK {
            return Ended::Cross(i + start);
        }
        if has(m.high, end) {
            return Ended::Stop(i + start);
        }
        // The pairs inside the word: those of its first letter and the
        // byte before it are none.
        let rare = rare_in(m.rare, letters_at + 1, end);
        let letters = (end - letters_at) as u64;
        let caps = (caps_end - letters_at) as u64;
        let cost = word_cost(letters, caps, lead.prefix, lead.extra, rare).max(lead.floor);
        *committed += floor(cost, (end - start) as u64);
        sink.boundary(at(end), *committed);
        o = end;
    }
}

/// [`punct_piece`] in a block: where the piece ends, or how the lane ends
/// at it.
#[inline]
fn block_punct(
    m: &Block,
    block: &[u8; BLOCK],
    start: usize,
    at: usize,
    committed: &mut u64,
) -> Result<usize, Ended> {
    let end = run_end(m.punct, at);
    if end >= BLOCK {
        return Err(Ended::Cross(0));
    }
    let mut to = end;
    if has(m.newline, end) {
        // After the newlines any character ends the piece.
        to = run_end(m.newline, end);
        if to >= BLOCK {
            return Err(Ended::Cross(0));
        }
    } else if !has(m.lower | m.upper | m.digit | m.space, end) {
        // A character that is not ASCII.
        return Err(Ended::Stop(0));
    }
    let run = if m.esc & span(at, end) == 0 {
        punct_run_cost(&block[at..end], to == end && has(m.lower | m.upper, end))
    } else {
        escaped_run_cost(&block[at..end], start < at)
    };
    let cost = run + run_after_punct((to - end) as u64, bits(m.cr, end, to) * price::CR);
    *committed += floor(cost, (to - start) as u64);
    Ok(to)
}

/// The plain pieces that start in `bytes[i..until]`, one by one: returns
/// where the last read ends, and whether the lane stops there (at a piece
/// it leaves to the general loop, or at the end of `bytes`).
#[allow(clippy::too_many_lines, clippy::many_single_char_names)]
#[inline]
fn scalar_pieces<S: Sink>(
    bytes: &[u8],
    mut i: usize,
    until: usize,
    base: u64,
    committed: &mut u64,
    sink: &mut S,
) -> (usize, bool) {
    let class_at = |at: usize| bytes.get(at).map(|&c| CLASS[usize::from(c)]);
    // Each round reads one piece at `i` (or two where white space
    // leads a word), or stops.
    'pieces: while i < until {
        let b = bytes[i];
        if b == b' ' && class_at(i + 1) == Some(LOWER) {
            // ` word`, the commonest piece, often many in a row: each
            // priced with what is known of it, a space and small letters.
            loop {
                let (k, rare, _) = small_run(&bytes[i + 1..], NO_LETTER);
                let end = i + 1 + k;
                if matches!(class_at(end), None | Some(MULTI)) {
                    return (i, true);
                }
                let letters = k as u64;
                *committed += floor(word_cost(letters, 0, Prefix::Space, 0, rare), 1 + letters);
                sink.boundary(base + end as u64, *committed);
                i = end;
                if i >= until || !(bytes[i] == b' ' && class_at(i + 1) == Some(LOWER)) {
                    continue 'pieces;
                }
            }
        }
        let class = CLASS[usize::from(b)];
        // Where the word starts that this round ends with, if any: the
        // piece's first byte, its first letter, what leads it.
        let (start, letters_at, lead) = match class {
            LOWER | UPPER => (i, i, Lead::NONE),
            SPACE => {
                let k = bytes[i..].iter().position(|&c| CLASS[usize::from(c)] != SPACE);
                let Some(k) = k else { return (i, true) };
                let end = i + k;
                let leads = match CLASS[usize::from(bytes[end])] {
                    LOWER | UPPER => true,
                    // Only U+0020 leads punctuation.
                    PUNCT => bytes[end - 1] == b' ',
                    DIGIT => false,
                    _ => return (i, true),
                };
                // The pieces of white space before the next piece, as
                // `step` tells them; all of its characters are a byte.
                if k > 1 {
                    *committed += floor(price::SPACES, k as u64 - 1);
                    sink.boundary(base + end as u64 - 1, *committed);
                }
                if !leads {
                    *committed += if k > 1 { price::SPACES } else { floor(price::SPACES, 1) };
                    sink.boundary(base + end as u64, *committed);
                    i = end;
                    continue;
                }
                if CLASS[usize::from(bytes[end])] == PUNCT {
                    // Punctuation led by a space leads no word.
                    let Some(to) = punct_piece(bytes, end - 1, end, committed) else {
                        // What was read is done: the space that leads
                        // the punctuation starts the piece left.
                        i = end - 1;
                        return (i, true);
                    };
                    sink.boundary(base + to as u64, *committed);
                    i = to;
                    continue;
                }
                (end - 1, end, Lead::SPACE)
            }
            PUNCT => {
                let next = i + 1;
                if !matches!(class_at(next), Some(LOWER | UPPER)) {
                    let Some(to) = punct_piece(bytes, i, i, committed) else { return (i, true) };
                    sink.boundary(base + to as u64, *committed);
                    i = to;
                    continue;
                }
                // One punctuation character leads the word.
                let (prefix, extra) = punct_lead(LEADS[usize::from(b)], class_at(next) == Some(UPPER));
                let floor = floor(punct_cost(1) + run_after_punct(0, 0), 1);
                (i, next, Lead { prefix, extra, floor })
            }
            DIGIT => {
                let k = bytes[i..].iter().position(|&c| CLASS[usize::from(c)] != DIGIT);
                // A digit that is not ASCII would go on with the number.
                let Some(k) = k.filter(|&k| CLASS[usize::from(bytes[i + k])] != MULTI) else {
                    return (i, true);
                };
                let mut at = i;
                while at + 3 <= i + k {
                    at += 3;
                    *committed += price::DIGITS;
                    sink.boundary(base + at as u64, *committed);
                }
                if at < i + k {
                    *committed += Estimator::digits_cost((i + k - at) as u8);
                    sink.boundary(base + (i + k) as u64, *committed);
                }
                i += k;
                continue;
            }
            _ => return (i, true),
        };
        // A word: capitals, then small letters; it ends before the
        // first byte that is neither, which must be ASCII (a letter
        // that is not would go on with it).
        let mut n = letters_at;
        let mut caps = 0;
        let mut prev = NO_LETTER;
        let mut rare = 0;
        while let Some(&c) = bytes.get(n) {
            if CLASS[usize::from(c)] != UPPER {
                break;
            }
            let l = c - b'A';
            rare += rare_pair(prev, l);
            prev = l;
            caps += 1;
            n += 1;
        }
        if class_at(n) == Some(LOWER) {
            let (k, r, _) = small_run(&bytes[n..], prev);
            n += k;
            rare += r;
        }
        match class_at(n) {
            None | Some(MULTI) => {
                i = start;
                return (i, true);
            }
            Some(_) => {}
        }
        let letters = (n - letters_at) as u64;
        let cost = word_cost(letters, caps, lead.prefix, lead.extra, rare).max(lead.floor);
        *committed += floor(cost, (n - start) as u64);
        sink.boundary(base + n as u64, *committed);
        i = n;
    }
    (i, i >= bytes.len())
}

/// Reads a piece of ASCII punctuation that starts at `start` (a space that
/// leads it, or its first character) with its first character at `at`,
/// and the newlines right after it, and adds its cost to `committed`.
/// Returns where it ends; `None`, with nothing added, when the byte after
/// it is not there or is one the lane leaves to the general loop (ESC, a
/// character that is not ASCII, `\r`).
#[inline]
fn punct_piece(bytes: &[u8], start: usize, at: usize, committed: &mut u64) -> Option<usize> {
    let k = bytes[at..].iter().position(|&c| CLASS[usize::from(c)] != PUNCT)?;
    let mut end = at + k;
    let mut newlines = 0;
    match bytes[end] {
        b'\n' => {
            newlines = bytes[end..].iter().position(|&c| c != b'\n')?;
            end += newlines;
            // After the newlines any character ends the piece, but a
            // `\r` is one more of them.
            if bytes[end] == b'\r' {
                return None;
            }
        }
        c if matches!(CLASS[usize::from(c)], NEWLINE | MULTI) || c == 0x1B => return None,
        _ => {}
    }
    let word = newlines == 0 && bytes[end].is_ascii_alphabetic();
    let cost = punct_run_cost(&bytes[at..at + k], word) + run_after_punct(newlines as u64, 0);
    *committed += floor(cost, (end - start) as u64);
    Some(end)
}

#[cfg(test)]
mod tests {
    use super::{BLOCK, Block, gather};

    /// Every byte at every place of a block, among letters: the classes
    /// of the eight-bytes-at-a-time lane, as each byte's own tells them.
    #[test]
    fn each_byte_is_of_its_class_at_every_place() {
        for b in 0..=255u8 {
            for at in 0..BLOCK {
                let mut block = [b'x'; BLOCK];
                block[at] = b;
                let m = Block::new(&block);
                let bit = |mask: u64| mask >> at & 1 == 1;
                let (lower, upper, digit) =
                    (b.is_ascii_lowercase(), b.is_ascii_uppercase(), b.is_ascii_digit());
                let space = matches!(b, b' ' | b'\t' | 0x0B | 0x0C);
                let newline = matches!(b, b'\n' | b'\r');
                let high = b >= 0x80;
                let want = [lower, upper, digit, space, newline, b == b' ', high, b == 0x1B, b == b'\r'];
                let got =
                    [m.lower, m.upper, m.digit, m.space, m.newline, m.plain, m.high, m.esc, m.cr].map(bit);
                assert_eq!(got, want, "{b:#04x} at {at}");
                assert_eq!(
                    bit(m.punct),
                    !(lower || upper || digit || space || newline || high),
                    "{b:#04x} at {at}"
                );
                // The letters around it are letters.
                assert_eq!(m.lower | 1 << at, u64::MAX, "{b:#04x} at {at}");
            }
        }
    }

    #[test]
    fn gather_takes_the_high_bit_of_each_byte() {
        for bits in 0..=255u64 {
            let spread = (0..8).filter(|j| bits >> j & 1 == 1).fold(0u64, |m, j| m | 0xC3 << (8 * j));
            assert_eq!(gather(spread), bits);
        }
    }
}
