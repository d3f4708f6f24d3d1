//! The general loop: the stream read a run of one kind of character at
//! a time, into the state machine, and handed to the lanes at each piece
//! boundary they can take.

use super::cost::{fill_cost, floor, long_run, word_cost};
use super::estimator::{Char, Estimator, Sink, State};
use super::price;
use super::tables::{
    CLASS, DIGIT, ESC, Kind, LEADS, LOWER, MULTI, NEWLINE, NO_LETTER, PUNCT, Prefix, RARE_BYTES, SPACE,
    UPPER, caseless, kind, rare_pair,
};

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
pub(super) fn small_run(bytes: &[u8], prev: u8) -> (usize, u64, u8) {
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

impl Estimator {
    // One loop with an arm for each class of byte, each with a copy of
    // `step` inlined for its character: long, but one place to read.
    #[allow(clippy::too_many_lines)]
    pub(super) fn run<S: Sink>(&mut self, bytes: &[u8], sink: &mut S) {
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
    pub(super) fn flush_invalid<S: Sink>(&mut self, sink: &mut S) {
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
}
