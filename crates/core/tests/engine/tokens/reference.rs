//! The estimator as it was before its fast paths, kept as the model that
//! the tests compare the estimator with: on any input, split into reads of
//! any size, the totals, the piece boundaries and the cuts are the same.
//! It follows `capout_core::tokens` line by line but for those paths; the
//! two are compared in `super` through the engine's public API. The
//! tables and the prices are the engine's own files, read here as they
//! are: the logic is the model's, the data the same.
#![allow(dead_code, clippy::pedantic)]

#[path = "../../../src/tokens/price.rs"]
mod price;
#[path = "../../../src/tokens/tables.rs"]
mod tables;

use tables::{
    APART, CAPITAL, CLASS, CLOSE, COMMON_AFTER, DIGIT, ESC, FOURS, JOINS, LEADS, LOWER, MULTI, NEWLINE,
    NO_LETTER, PUNCT, Prefix, SAME_RUN, SPACE, THREES, UPPER,
};

pub const SCALE: u64 = 1000;

/// No piece costs less than one token per this many bytes.
pub const MAX_BYTES_PER_TOKEN: u64 = 32;

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

/// Estimates `o200k_base` tokens of a stream fed in pieces of any size.
#[derive(Clone, Debug)]
pub struct Model {
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
    /// Runs of newlines: the lengths and `\r` costs of those done in the
    /// pending white space, and of the last (in punctuation, the newlines
    /// after it).
    runs: Vec<(u64, u64)>,
    run: (u64, u64),
    /// What the spaces before each run add.
    fills: u64,
    /// Bytes of the last white-space character (1, or 2–3 for U+00A0 and
    /// the like).
    last_ws_len: u64,
    /// How the pending punctuation, when it is one ASCII character,
    /// joins the word after it ([`LEADS`]).
    lead_kind: u8,
    /// The ASCII character that all of the pending punctuation is, or 0,
    /// and its last three characters (0 for one that is not ASCII).
    same: u8,
    last3: [u8; 3],
    /// A letter follows the pending piece: it is being ended by one.
    before_word: bool,
    /// A character cut by the end of a piece of input.
    partial: [u8; 4],
    partial_len: u8,
    partial_need: u8,
    /// Bytes fed so far.
    pos: u64,
}

impl Default for Model {
    fn default() -> Self {
        Model {
            committed: 0,
            state: State::Start,
            extra: 0,
            bytes: 0,
            rare: 0,
            prev_letter: NO_LETTER,
            lead: 0,
            nl_bytes: 0,
            runs: Vec::new(),
            run: (0, 0),
            fills: 0,
            last_ws_len: 1,
            lead_kind: JOINS,
            same: 0,
            last3: [0; 3],
            before_word: false,
            partial: [0; 4],
            partial_len: 0,
            partial_need: 0,
            pos: 0,
        }
    }
}

/// Told of each piece boundary: the offset in the stream where the next
/// piece starts, and the cost of the pieces before it.
pub trait Sink {
    fn boundary(&mut self, at: u64, cost: u64);
}

/// A sink for the plain count.
struct NoSink;

impl Sink for NoSink {
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
fn long_run((len, cr): (u64, u64)) -> u64 {
    if len <= price::NL_RUN { 0 } else { (len + 5) * SCALE / price::NL_BYTES_PER_TOKEN + cr }
}

fn run_after_punct((len, cr): (u64, u64)) -> u64 {
    if len + cr / price::CR <= price::NL_RUN_AFTER_PUNCT {
        0
    } else {
        SCALE + (len + 3) * SCALE / price::NL_BYTES_PER_TOKEN + cr
    }
}

fn floor(cost: u64, bytes: u64) -> u64 {
    cost.max(bytes * SCALE / MAX_BYTES_PER_TOKEN)
}

/// The price of `n` letters from `table`, and `more` for each past it.
fn priced(table: &[u64; 17], more: u64, n: u64) -> u64 {
    match usize::try_from(n) {
        Ok(n) if n < table.len() => table[n],
        _ => table[16] + (n - 16).saturating_mul(more),
    }
}

/// A word of `letters` ASCII letters of which the first `caps` are
/// capitals, led by `prefix`, with `extra` for its other letters: at least
/// a token.
fn word_cost(letters: u64, caps: u64, prefix: Prefix, extra: u64, rare: u64) -> u64 {
    let p = prefix as usize;
    let caps = priced(&price::CAPS[p], price::CAPS_MORE[p], caps);
    let small = priced(&price::SMALL[p], price::SMALL_MORE[p], letters) + rare * price::RARE[p];
    (caps.max(small) + extra).max(SCALE)
}

fn punct_cost(chars: u64) -> u64 {
    match usize::try_from(chars) {
        Ok(n) if n < price::PUNCT.len() => price::PUNCT[n],
        _ => price::PUNCT[9] + (chars - 9).saturating_mul(price::PUNCT_MORE),
    }
}

/// `chars` ASCII punctuation characters that end in `last3`: a `;` after
/// `)` costs nothing.
fn run_cost(chars: u64, same: u8, last3: [u8; 3]) -> u64 {
    if last3[1..] == *b");" && chars >= 3 { punct_cost(chars - 1) } else { same_cost(chars, same) }
}

/// Two dots, not three, and a character they do not merge with: the run
/// before the dots is priced on its own, the dots a token.
fn splits(last3: [u8; 3], b: u8) -> bool {
    last3[1..] == *b".." && last3[0] != b'.' && !b"./)\\\"!?<".contains(&b)
}

/// `chars` ASCII punctuation characters, all of them `same` (0 when they
/// differ): a token for a run of one character that merges whole.
fn same_cost(chars: u64, same: u8) -> u64 {
    let kind = SAME_RUN[same as usize];
    if same != 0 && (chars <= 2 || chars <= 3 && kind == THREES || chars <= 4 && kind == FOURS) {
        SCALE
    } else {
        punct_cost(chars)
    }
}

impl Model {
    /// Reads the next bytes of the stream.
    pub fn feed(&mut self, bytes: &[u8]) {
        self.run(bytes, &mut NoSink);
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
    /// [`feed`]: Model::feed
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
    /// [`cut_after`]: Model::cut_after
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
    fn pending(&self) -> u64 {
        match self.state {
            State::Start => 0,
            State::Ws { nl, spaces, .. } => {
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
            State::Word { letters, caps, prefix, .. } => {
                floor(word_cost(letters, caps, prefix, self.extra, self.rare).max(self.lead), self.bytes)
            }
            State::Digits(n) => {
                if n > 0 {
                    price::DIGITS
                } else {
                    0
                }
            }
            State::Punct { ascii, .. } => {
                // `#[` before the name of an attribute.
                let attribute = self.before_word
                    && ascii == 2
                    && self.last3[1..] == *b"#["
                    && self.extra == 0
                    && self.run.0 == 0;
                let less = if attribute { price::ATTRIBUTE } else { 0 };
                floor(
                    run_cost(ascii, self.same, self.last3) + self.extra + run_after_punct(self.run) - less,
                    self.bytes,
                )
            }
        }
    }

    /// The lines after the first are priced in `fills`.
    fn nl_cost(&self, _nl: u64) -> u64 {
        let runs: u64 = self.runs.iter().map(|&r| long_run(r)).sum::<u64>() + long_run(self.run);
        floor(price::SPACES + runs + self.fills, self.nl_bytes)
    }

    fn reset_runs(&mut self) {
        self.nl_bytes = 0;
        self.runs.clear();
        self.run = (0, 0);
        self.fills = 0;
    }

    /// Ends the pending piece at `at`, adding its cost.
    #[inline]
    fn commit<S: Sink>(&mut self, at: u64, sink: &mut S) {
        self.committed += self.pending();
        self.state = State::Start;
        self.extra = 0;
        self.bytes = 0;
        self.rare = 0;
        self.prev_letter = NO_LETTER;
        self.lead = 0;
        self.reset_runs();
        sink.boundary(at, self.committed);
    }

    pub fn run<S: Sink>(&mut self, bytes: &[u8], sink: &mut S) {
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
            let b = bytes[i];
            let class = CLASS[b as usize];
            if class == MULTI {
                match self.multi_at(bytes, i, sink) {
                    Some(next) => i = next,
                    None => return,
                }
                continue;
            }
            // ASCII. Runs of small letters and of spaces go the fast way.
            match (self.state, class) {
                (State::Word { letters, caps, prefix, .. }, LOWER) => {
                    let mut j = i;
                    let (mut prev, mut rare) = (self.prev_letter, self.rare);
                    while j < bytes.len() && CLASS[bytes[j] as usize] == LOWER {
                        let l = bytes[j] - b'a';
                        rare += u64::from(COMMON_AFTER[prev as usize] >> l & 1 == 0);
                        prev = l;
                        j += 1;
                    }
                    self.prev_letter = prev;
                    self.rare = rare;
                    let n = (j - i) as u64;
                    self.state = State::Word { letters: letters + n, caps, prefix, small: true };
                    self.bytes += n;
                    self.pos += n;
                    i = j;
                }
                (state, SPACE)
                    if b == b' '
                        && !matches!(state, State::Ws { .. })
                        && bytes.get(i + 1).is_some_and(|&n| CLASS[n as usize] == LOWER) =>
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
                }
                (State::Ws { nl, spaces, .. }, SPACE) if b == b' ' => {
                    let mut j = i + 1;
                    while j < bytes.len() && bytes[j] == b' ' {
                        j += 1;
                    }
                    let n = (j - i) as u64;
                    self.state = State::Ws { nl, spaces: spaces + n, plain: true };
                    self.last_ws_len = 1;
                    self.bytes += n;
                    self.pos += n;
                    i = j;
                }
                _ => {
                    let c = match class {
                        LOWER => Char::Lower,
                        UPPER => Char::Upper,
                        DIGIT => Char::Digit,
                        SPACE => Char::Space(b == b' '),
                        NEWLINE => Char::Newline,
                        _ => Char::Punct,
                    };
                    let extra = match b {
                        b'\r' => price::CR,
                        0x1B => price::ESC,
                        _ => 0,
                    };
                    let at = self.pos;
                    self.pos += 1;
                    self.step(c, at, 1, extra, sink);
                    if class == PUNCT
                        && let State::Punct { chars, space, .. } = self.state
                    {
                        if chars == 1 {
                            self.same = b;
                            self.last3 = [0, 0, b];
                            if !space {
                                self.lead_kind = LEADS[b as usize];
                            }
                        } else {
                            if self.same != b {
                                self.same = 0;
                            }
                            if splits(self.last3, b)
                                && let State::Punct { ascii, .. } = &mut self.state
                            {
                                self.extra += punct_cost(*ascii - 3) + SCALE;
                                *ascii = 1;
                            }
                            self.last3 = [self.last3[1], self.last3[2], b];
                        }
                    }
                    if class == ESC {
                        // ESC merges with nothing: what came before it in
                        // its piece is priced on its own; it leads no word.
                        if let State::Punct { chars, ascii, space, newlines: false } = self.state {
                            self.extra += if ascii > 0 {
                                punct_cost(ascii)
                            } else if space {
                                price::SPACES
                            } else {
                                0
                            };
                            self.state =
                                State::Punct { chars: chars.max(2), ascii: 0, space: false, newlines: false };
                        }
                    }
                    if class <= UPPER {
                        // A letter, now in a word: count rare pairs.
                        let l = b.to_ascii_lowercase() - b'a';
                        self.rare += u64::from(COMMON_AFTER[self.prev_letter as usize] >> l & 1 == 0);
                        self.prev_letter = l;
                    }
                    i += 1;
                }
            }
        }
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
        let caseless = matches!(c, '\u{3041}'..='\u{3096}' | '\u{30A1}'..='\u{30FA}' | '\u{4E00}'..='\u{9FFF}' | '\u{AC00}'..='\u{D7A3}');
        let (class, cost) = if caseless {
            (Char::Lower, price::LETTER_3)
        } else if c.is_alphabetic() {
            let cost = match n {
                2 => price::LETTER_2,
                3 => price::LETTER_3,
                _ => price::LETTER_4,
            };
            (if c.is_uppercase() { Char::Upper } else { Char::Lower }, cost)
        } else if c.is_numeric() {
            (Char::Digit, 0)
        } else if c.is_whitespace() {
            (Char::Space(false), 0)
        } else {
            let cost = match n {
                2 => price::SYMBOL_2,
                3 => price::SYMBOL_3,
                _ => price::SYMBOL_4,
            };
            (Char::Punct, cost)
        };
        self.step(class, at, n, cost, sink);
        self.prev_letter = NO_LETTER;
    }

    /// One character `c` of `n` bytes at stream offset `at`; `extra` is
    /// what it costs beyond an ASCII character of its kind (for symbols,
    /// what it costs in place of one).
    #[allow(clippy::too_many_lines)]
    fn step<S: Sink>(&mut self, c: Char, at: u64, n: u64, extra: u64, sink: &mut S) {
        match self.state {
            State::Start => self.begin(c, at, n, extra, Prefix::None, false),
            State::Ws { nl, spaces, plain } => match c {
                Char::Newline => {
                    // Spaces between newlines make the piece dearer (and
                    // keep the estimate from dropping as it grows).
                    if spaces > 0 {
                        let fill = self.bytes - self.nl_bytes;
                        if fill > price::FILL {
                            self.fills += (fill - 1) / price::FILL_BYTES_PER_TOKEN * SCALE;
                        }
                        if nl > 0 {
                            // A blank line of its own.
                            let merged = if extra > 0 {
                                matches!(fill, 4 | 8)
                            } else {
                                matches!(fill, 1 | 2 | 4 | 8 | 12 | 16)
                            };
                            self.fills += if merged { price::BLANK } else { price::SPACES };
                        }
                    }
                    let nl = if nl == 0 || spaces == 0 { nl.max(1) } else { nl + 1 };
                    if spaces > 0 || self.run.0 == 0 {
                        if self.run.0 > 0 {
                            self.runs.push(self.run);
                        }
                        self.run = (0, 0);
                    }
                    self.run.0 += n;
                    self.run.1 += extra;
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
                        self.reset_runs();
                        self.bytes = 0;
                        if leads {
                            self.bytes = last;
                            self.begin(c, at, n, extra, Prefix::Space, c == Char::Punct);
                            return;
                        }
                    } else {
                        self.commit(pieces_end, sink);
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
                    self.commit(at, sink);
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
                    self.commit(at, sink);
                    self.begin(c, at, n, extra, Prefix::None, false);
                }
            }
            State::Punct { chars, ascii, space, newlines } => match c {
                Char::Punct if !newlines => {
                    self.bytes += n;
                    self.extra += extra;
                    if extra > 0 {
                        self.same = 0;
                        self.last3 = [0; 3];
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
                    self.run.0 += n;
                    self.run.1 += extra;
                    self.state = State::Punct { chars, ascii, space, newlines: true };
                }
                Char::Lower | Char::Upper if chars == 1 && !space && !newlines => {
                    // One punctuation character leads the word.
                    let bytes = self.bytes;
                    self.lead = self.pending();
                    self.state = State::Start;
                    self.extra = 0;
                    self.bytes = bytes;
                    let kind = self.lead_kind;
                    let prefix = if kind == CLOSE { Prefix::None } else { Prefix::Punct };
                    self.begin(c, at, n, extra, prefix, false);
                    // After `begin`, which tells ASCII letters by an
                    // `extra` of 0.
                    if kind == APART || kind == CAPITAL && c != Char::Upper {
                        self.extra += price::APART;
                    }
                }
                _ => {
                    self.before_word = matches!(c, Char::Lower | Char::Upper);
                    self.commit(at, sink);
                    self.before_word = false;
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
                self.run = (n, extra);
                self.state = State::Ws { nl: 1, spaces: 0, plain: false };
            }
            Char::Punct => {
                self.lead_kind = JOINS;
                self.same = 0;
                self.last3 = [0; 3];
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
