//! The estimator's fast lane: whole pieces of ASCII text read from a piece
//! boundary, each priced as soon as the byte after it is seen, with
//! nothing but the cost of the pieces done kept between them.
//!
//! The general loop of [`Estimator::run`] keeps the pending piece in the
//! estimator and decides by state and class for every run of one kind of
//! byte. Most pieces of text are short and plain (` word`, `Word`, `.len`,
//! `);\n`, `    ` before a word, `123`), and from a boundary each is known
//! whole by its bytes alone: so they are read here one after another, in
//! registers. Anything else (a character that is not ASCII, ESC, `\r`, white
//! space with newlines, a piece cut by the end of the input) stops the
//! lane at the start of that piece, where the general loop takes over with
//! the state it would have had; it comes back here at the next boundary.
//! Each price is the one the general loop gives the same piece, from the
//! same functions and tables.

use super::{
    APART, CLASS, CLOSE, DIGIT, Estimator, LEADS, LOWER, MULTI, NEWLINE, NO_LETTER, PUNCT, Prefix, SPACE,
    Sink, State, UPPER, floor, price, punct_cost, run_after_punct, small_run, word_cost,
};

/// What leads a word read in the lane, and what the word costs at least.
#[derive(Clone, Copy)]
struct Lead {
    prefix: Prefix,
    /// Extra cost of the word (`price::APART` after `,` and the like).
    extra: u64,
    /// What the punctuation that leads it would cost on its own.
    floor: u64,
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
            State::Start => true,
            _ if class == MULTI => false,
            State::Word { small, .. } => !(class == LOWER || class == UPPER && !small),
            State::Digits(_) => class != DIGIT,
            State::Punct { newlines: true, .. } => class != NEWLINE,
            State::Punct { chars, space, .. } => {
                class == SPACE || class == DIGIT || matches!(class, LOWER | UPPER) && (chars > 1 || space)
            }
            State::Ws { .. } => false,
        }
    }

    /// Reads the whole plain pieces that lead `bytes[i..]`, from a piece
    /// boundary (the state is `Start`, nothing pending), and returns where
    /// the first piece it leaves to the general loop starts.
    #[allow(clippy::too_many_lines)]
    #[inline]
    pub(super) fn pieces<S: Sink>(&mut self, bytes: &[u8], mut i: usize, sink: &mut S) -> usize {
        debug_assert!(self.state == State::Start && self.bytes == 0 && self.partial_len == 0);
        // Stream offset of `bytes[0]`.
        let base = self.pos - i as u64;
        let mut committed = self.committed;
        let class_at = |at: usize| bytes.get(at).map(|&c| CLASS[usize::from(c)]);
        // Each round reads one piece at `i` (or two where white space
        // leads a word), or stops.
        'pieces: while let Some(&b) = bytes.get(i) {
            if b == b' ' && class_at(i + 1) == Some(LOWER) {
                // ` word`, the commonest piece, often many in a row: each
                // priced with what is known of it, a space and small letters.
                loop {
                    let (k, rare, _) = small_run(&bytes[i + 1..], NO_LETTER);
                    let end = i + 1 + k;
                    if matches!(class_at(end), None | Some(MULTI)) {
                        break 'pieces;
                    }
                    let letters = k as u64;
                    committed += floor(word_cost(letters, 0, Prefix::Space, 0, rare), 1 + letters);
                    sink.boundary(base + end as u64, committed);
                    i = end;
                    if !(bytes[i] == b' ' && class_at(i + 1) == Some(LOWER)) {
                        continue 'pieces;
                    }
                }
            }
            let class = CLASS[usize::from(b)];
            // Where the word starts that this round ends with, if any: the
            // piece's first byte, its first letter, what leads it.
            let (start, letters_at, lead) = match class {
                LOWER | UPPER => (i, i, Lead { prefix: Prefix::None, extra: 0, floor: 0 }),
                SPACE => {
                    let k = bytes[i..].iter().position(|&c| CLASS[usize::from(c)] != SPACE);
                    let Some(k) = k else { break };
                    let end = i + k;
                    let leads = match CLASS[usize::from(bytes[end])] {
                        LOWER | UPPER => true,
                        // Only U+0020 leads punctuation.
                        PUNCT => bytes[end - 1] == b' ',
                        DIGIT => false,
                        _ => break,
                    };
                    // The pieces of white space before the next piece, as
                    // `step` tells them; all of its characters are a byte.
                    if k > 1 {
                        committed += floor(price::SPACES, k as u64 - 1);
                        sink.boundary(base + end as u64 - 1, committed);
                    }
                    if !leads {
                        committed += if k > 1 { price::SPACES } else { floor(price::SPACES, 1) };
                        sink.boundary(base + end as u64, committed);
                        i = end;
                        continue;
                    }
                    if CLASS[usize::from(bytes[end])] == PUNCT {
                        // Punctuation led by a space leads no word.
                        let Some(to) = punct_piece(bytes, end - 1, end, &mut committed) else {
                            // What was read is done: the space that leads
                            // the punctuation starts the piece left.
                            i = end - 1;
                            break;
                        };
                        sink.boundary(base + to as u64, committed);
                        i = to;
                        continue;
                    }
                    (end - 1, end, Lead { prefix: Prefix::Space, extra: 0, floor: 0 })
                }
                PUNCT => {
                    let next = i + 1;
                    if !matches!(class_at(next), Some(LOWER | UPPER)) {
                        let Some(to) = punct_piece(bytes, i, i, &mut committed) else { break };
                        sink.boundary(base + to as u64, committed);
                        i = to;
                        continue;
                    }
                    // One punctuation character leads the word.
                    let kind = LEADS[usize::from(b)];
                    let prefix = if kind == CLOSE { Prefix::None } else { Prefix::Punct };
                    let extra = if kind == APART { price::APART } else { 0 };
                    let floor = floor(punct_cost(1) + run_after_punct(0, 0), 1);
                    (i, next, Lead { prefix, extra, floor })
                }
                DIGIT => {
                    let k = bytes[i..].iter().position(|&c| CLASS[usize::from(c)] != DIGIT);
                    // A digit that is not ASCII would go on with the number.
                    let Some(k) = k.filter(|&k| CLASS[usize::from(bytes[i + k])] != MULTI) else { break };
                    let mut at = i;
                    while at + 3 <= i + k {
                        at += 3;
                        committed += price::DIGITS;
                        sink.boundary(base + at as u64, committed);
                    }
                    if at < i + k {
                        committed += Self::digits_cost((i + k - at) as u8);
                        sink.boundary(base + (i + k) as u64, committed);
                    }
                    i += k;
                    continue;
                }
                _ => break,
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
                rare += super::rare_pair(prev, l);
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
                    break;
                }
                Some(_) => {}
            }
            let letters = (n - letters_at) as u64;
            let cost = word_cost(letters, caps, lead.prefix, lead.extra, rare).max(lead.floor);
            committed += floor(cost, (n - start) as u64);
            sink.boundary(base + n as u64, committed);
            i = n;
        }
        self.committed = committed;
        self.pos = base + i as u64;
        i
    }
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
    let cost = punct_cost(k as u64) + run_after_punct(newlines as u64, 0);
    *committed += floor(cost, (end - start) as u64);
    Some(end)
}
