//! The estimator's state machine: the piece being read, what it costs
//! as if the input ended here, and one character at a time into it.

use super::SCALE;
use super::cost::{
    before_word, fill_cost, floor, long_run, punct_cost, punct_lead, run_after_punct, run_cost, split_cost,
    splits, word_cost,
};
use super::price;
use super::tables::{JOINS, NO_LETTER, Prefix};

/// What a character is, for the pre-tokenizer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Char {
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
pub(super) enum State {
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
pub struct Estimator {
    /// Costs of the pieces done.
    pub(super) committed: u64,
    pub(super) state: State,
    /// Extra cost of the pending piece: its non-ASCII characters.
    pub(super) extra: u64,
    /// Bytes of the pending piece (for the floor of bytes per token).
    pub(super) bytes: u64,
    /// Pairs of ASCII letters in the pending word that are rare in English
    /// and code (`xk`, `kc`), and its last ASCII letter (0–25, or
    /// `NO_LETTER`): `xkcd` is dearer than `with`.
    pub(super) rare: u64,
    pub(super) prev_letter: u8,
    /// What the punctuation that leads the pending word would cost on its
    /// own: the word never costs less.
    pub(super) lead: u64,
    /// Bytes of the pending white space that end with its last newline.
    pub(super) nl_bytes: u64,
    /// Runs of newlines: what those of the pending white space before the
    /// last cost beyond a token each ([`long_run`]), with the spaces before
    /// each ([`fill_cost`]); the bytes of the last (in punctuation, of the
    /// newlines after it), and what its `\r` add.
    pub(super) nl_extra: u64,
    pub(super) run_len: u64,
    pub(super) run_cr: u64,
    /// Bytes of the last white-space character (1, or 2–3 for U+00A0 and
    /// the like).
    pub(super) last_ws_len: u64,
    /// How the pending punctuation, when it is one ASCII character,
    /// joins the word after it ([`LEADS`](super::tables::LEADS)).
    pub(super) lead_kind: u8,
    /// The ASCII character that all of the pending punctuation is, or 0,
    /// and its last three characters: what [`run_cost`] prices it by.
    pub(super) same: u8,
    pub(super) last: u32,
    /// A character cut by the end of a piece of input.
    pub(super) partial: [u8; 4],
    pub(super) partial_len: u8,
    pub(super) partial_need: u8,
    /// Bytes fed so far.
    pub(super) pos: u64,
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
pub(super) trait Sink {
    /// Whether the boundaries are wanted at all: a loop that only tells
    /// them may then be skipped.
    const TELLS: bool = true;
    fn boundary(&mut self, at: u64, cost: u64);
}

/// A sink for the plain count.
pub(super) struct NoSink;

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
    /// [`boundaries`](super::boundaries) gives for the whole, and what
    /// [`tail_start`](super::tail_start) reads in blocks.
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
    pub(super) fn word_cost(&self, letters: u64, caps: u64, prefix: Prefix) -> u64 {
        floor(word_cost(letters, caps, prefix, self.extra, self.rare).max(self.lead), self.bytes)
    }

    /// What a pending number of `n` digits costs.
    #[inline]
    pub(super) fn digits_cost(n: u8) -> u64 {
        if n > 0 { price::DIGITS } else { 0 }
    }

    /// After the ASCII punctuation `b` was added to pending punctuation
    /// (counted in its characters): the one character all of it is, its
    /// last three, and the run before two dots that `b` ends.
    #[inline]
    pub(super) fn appended(&mut self, b: u8) {
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
    pub(super) fn punct_cost_before(&self, ascii: u64, word: bool) -> u64 {
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
    pub(super) fn escaped(&mut self) {
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
    pub(super) fn commit<S: Sink>(&mut self, at: u64, sink: &mut S) {
        self.commit_priced(self.pending(), at, sink);
    }

    /// Ends the pending piece at `at`, adding `cost`, what it costs (known
    /// where the kind of piece is).
    #[inline]
    pub(super) fn commit_priced<S: Sink>(&mut self, cost: u64, at: u64, sink: &mut S) {
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

    /// One character `c` of `n` bytes at stream offset `at`; `extra` is
    /// what it costs beyond an ASCII character of its kind (for symbols,
    /// what it costs in place of one).
    #[allow(clippy::too_many_lines)]
    #[allow(clippy::inline_always)]
    #[inline(always)]
    pub(super) fn step<S: Sink>(&mut self, c: Char, at: u64, n: u64, extra: u64, sink: &mut S) {
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
