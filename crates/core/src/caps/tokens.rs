//! The token caps: `--tail-tokens N`, `--head-tokens N` and the pair
//! `--head-tokens H --tail-tokens T`, counted by the estimator of
//! [`crate::tokens`] or, with `--tokenizer o200k|cl100k`, exactly.
//!
//! A tail cap keeps a ring of the last `N × MAX_BYTES_PER_TOKEN + 4`
//! bytes, which hold the last N estimated tokens, and cuts in it once, at
//! the end ([`tokens::tail_cut`]). An exact tail cap keeps the same ring and cuts in it by halving
//! over its character boundaries, tokenizing only the candidate tails,
//! never the whole input. A head cap with the estimator writes as the
//! input arrives and stops where the estimate first passes N; an exact
//! head cap holds the first `N × MAX_BYTES_PER_TOKEN + 4` bytes and cuts
//! them by halving.

use std::io;

use super::{Cap, Cut, Outcome};
use crate::Tokenizer;
use crate::notice::{self, Facts, Kind};
use crate::output::Output;
use crate::text::count::Totals;
use crate::text::ring::Ring;
use crate::text::utf8;
use crate::tokens::{self, Estimator, MAX_BYTES_PER_TOKEN};

/// The unit word of the token caps' notices.
pub const UNIT: &str = "tokens";

/// The bytes that hold the last (or first) `n` estimated tokens, with a
/// character more.
pub fn window_bytes(n: u64) -> u64 {
    n.saturating_mul(MAX_BYTES_PER_TOKEN).saturating_add(4)
}

/// The tokens of `bytes` on their own.
pub fn count(tokenizer: Tokenizer, bytes: &[u8]) -> u64 {
    match tokenizer {
        Tokenizer::Estimate => tokens::estimate(bytes),
        Tokenizer::O200k | Tokenizer::Cl100k => exact(tokenizer, bytes),
    }
}

#[cfg(feature = "exact-tokens")]
fn exact(tokenizer: Tokenizer, bytes: &[u8]) -> u64 {
    let kind = if tokenizer == Tokenizer::Cl100k { tokens::Exact::Cl100k } else { tokens::Exact::O200k };
    tokens::count_exact(kind, bytes) as u64
}

/// Without the feature the command line refuses the exact tokenizers; a
/// library caller that asks for one gets the estimate.
#[cfg(not(feature = "exact-tokens"))]
fn exact(_tokenizer: Tokenizer, bytes: &[u8]) -> u64 {
    tokens::estimate(bytes)
}

/// Whether a cut at `at` splits no character: a byte that continues a
/// character cannot start the kept text or follow its end.
fn boundary(bytes: &[u8], at: usize) -> bool {
    at == 0 || at >= bytes.len() || !utf8::is_continuation(bytes[at])
}

/// A character boundary strictly between `lo` and `hi`, near their middle.
fn middle(bytes: &[u8], lo: usize, hi: usize) -> Option<usize> {
    let half = lo + (hi - lo) / 2;
    (lo + 1..=half).rev().chain(half + 1..hi).find(|&at| boundary(bytes, at))
}

/// Where the last `n` tokens of `window` start: an offset on a character
/// boundary from which the rest, on its own, has at most `n` tokens, and
/// from the character before which it has more: with the estimator, that
/// of [`tokens::tail_cut`]; with an exact tokenizer, found by halving.
pub fn last_start(tokenizer: Tokenizer, window: &[u8], n: u64) -> usize {
    if tokenizer == Tokenizer::Estimate {
        return tokens::tail_cut(window, n);
    }
    let fits = |at: usize| count(tokenizer, &window[at..]) <= n;
    if fits(0) {
        return 0;
    }
    let (mut lo, mut hi) = (0, window.len());
    // The estimate is close: try its cut first, to narrow the halving.
    let guess = tokens::tail_start(window, n);
    if guess > 0 && guess < hi && boundary(window, guess) {
        if fits(guess) { hi = guess } else { lo = guess }
    }
    while let Some(mid) = middle(window, lo, hi) {
        if fits(mid) { hi = mid } else { lo = mid }
    }
    hi
}

/// Where the first `n` tokens of `window` end: an offset on a character
/// boundary before which the text, on its own, has at most `n` tokens,
/// and whose next character does not fit. `window` may end inside a
/// character when `whole` is false (more input follows): it is not kept.
pub fn first_end(tokenizer: Tokenizer, window: &[u8], n: u64, whole: bool) -> usize {
    let len = if whole { window.len() } else { window.len() - utf8::incomplete_suffix(window) };
    let fits = |at: usize| count(tokenizer, &window[..at]) <= n;
    if fits(len) {
        return len;
    }
    let (mut lo, mut hi) = (0, len);
    while let Some(mid) = middle(window, lo, hi) {
        if fits(mid) { lo = mid } else { hi = mid }
    }
    lo
}

/// The bytes at the end of `bytes` that the estimator may still be
/// waiting on: a lead byte and fewer continuation bytes than it asks for,
/// valid or not (`ED A0` is not UTF-8, but it is counted only when the
/// next byte says how). A head cap writes them once they are counted.
fn unfinished(bytes: &[u8]) -> usize {
    let from = bytes.len().saturating_sub(4);
    let Some(lead) = (from..bytes.len()).rev().find(|&i| !utf8::is_continuation(bytes[i])) else {
        return 0;
    };
    let need = match bytes[lead] {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xFF => 4,
        _ => return 0,
    };
    let have = bytes.len() - lead;
    if have < need { have } else { 0 }
}

/// Tokens of the whole stream, counted as it passes, in bounded memory.
#[derive(Debug)]
pub enum TotalTokens {
    /// The estimate: a few counters.
    Estimate(Estimator),
    /// Exact: the stream is tokenized in stretches that end where a piece
    /// of the pre-tokenizer must end (after a `\n`, before an ASCII letter
    /// or digit), so that the sum is the count of the whole.
    Exact { tokenizer: Tokenizer, pending: Vec<u8>, counted: u64 },
}

impl TotalTokens {
    /// Tokenized when this many bytes wait.
    const STRETCH: usize = 256 * 1024;

    /// A counter for `tokenizer`.
    pub fn new(tokenizer: Tokenizer) -> Self {
        match tokenizer {
            Tokenizer::Estimate => TotalTokens::Estimate(Estimator::default()),
            _ => TotalTokens::Exact { tokenizer, pending: Vec::new(), counted: 0 },
        }
    }

    /// Counts the next bytes of the stream.
    pub fn feed(&mut self, bytes: &[u8]) {
        match self {
            TotalTokens::Estimate(e) => e.feed(bytes),
            TotalTokens::Exact { tokenizer, pending, counted } => {
                pending.extend_from_slice(bytes);
                if pending.len() < Self::STRETCH {
                    return;
                }
                let at = (1..pending.len())
                    .rev()
                    .find(|&i| pending[i - 1] == b'\n' && pending[i].is_ascii_alphanumeric());
                // A stretch without such a place (one endless line) is
                // cut where a character starts: the count may be off by
                // a token there, memory stays bounded.
                let at = at.or_else(|| {
                    (pending.len() >= 4 * Self::STRETCH)
                        .then(|| pending.len() - utf8::incomplete_suffix(pending))
                        .and_then(|end| (1..end).rev().find(|&i| boundary(pending, i)))
                });
                if let Some(at) = at {
                    *counted += count(*tokenizer, &pending[..at]);
                    pending.drain(..at);
                }
            }
        }
    }

    /// The tokens of all that was fed.
    pub fn total(&mut self) -> u64 {
        match self {
            TotalTokens::Estimate(e) => e.total(),
            TotalTokens::Exact { tokenizer, pending, counted } => {
                *counted += count(*tokenizer, pending);
                pending.clear();
                *counted
            }
        }
    }
}

/// `--tail-tokens N`.
#[derive(Debug)]
pub struct TailTokens {
    limit: u64,
    tokenizer: Tokenizer,
    ring: Ring,
    /// Bytes written at the end.
    kept: u64,
    /// Counts the whole stream, when something reads the total.
    total: Option<TotalTokens>,
    counted: Option<u64>,
}

impl TailTokens {
    /// Keeps the last `limit` tokens; counts all of them when `total`.
    pub fn new(limit: u64, tokenizer: Tokenizer, total: bool) -> Self {
        let bytes = usize::try_from(window_bytes(limit)).unwrap_or(usize::MAX);
        TailTokens {
            limit,
            tokenizer,
            ring: Ring::new(bytes),
            kept: 0,
            total: total.then(|| TotalTokens::new(tokenizer)),
            counted: None,
        }
    }

    /// Writes the last `limit` tokens of what was fed; returns how many
    /// tokens that is.
    pub fn write_kept(&mut self, out: &mut Output) -> io::Result<u64> {
        let held = self.ring.make_contiguous();
        let start = last_start(self.tokenizer, held, self.limit);
        self.kept = (held.len() - start) as u64;
        let shown = count(self.tokenizer, &held[start..]);
        out.data(&held[start..])?;
        Ok(shown)
    }

    /// Whether everything fed was kept, once written.
    fn kept_all(&self, fed: u64) -> bool {
        self.kept == fed
    }

    fn total(&mut self) -> Option<u64> {
        if self.counted.is_none() {
            self.counted = self.total.as_mut().map(TotalTokens::total);
        }
        self.counted
    }
}

impl Cap for TailTokens {
    fn feed(&mut self, piece: &[u8], _totals: &Totals, _out: &mut Output) -> io::Result<()> {
        self.ring.push(piece);
        if let Some(total) = &mut self.total {
            total.feed(piece);
        }
        Ok(())
    }

    fn finish(&mut self, totals: &Totals, out: &mut Output) -> io::Result<Outcome> {
        if totals.bytes() == 0 {
            return Ok(Outcome::Nothing(notice::NO_OUTPUT));
        }
        let shown = self.write_kept(out)?;
        if self.kept_all(totals.bytes()) {
            return Ok(Outcome::Whole);
        }
        if self.kept == 0 {
            return Ok(Outcome::Nothing(notice::NO_OUTPUT));
        }
        // Zero when not counted: no notice reads it then.
        let total = self.total().unwrap_or(0).max(shown);
        Ok(Outcome::Cut(Kind::TailUnits, facts(shown, self.limit, total, total - shown + 1, total)))
    }

    fn tokens(&mut self) -> Option<u64> {
        self.total()
    }

    fn cut(&self, totals: &Totals) -> Cut {
        Cut { before_byte: Some(totals.bytes() - self.kept), ..Cut::default() }
    }
}

fn facts(shown: u64, limit: u64, total: u64, first: u64, last: u64) -> Facts {
    Facts { shown, limit, total, omitted: total - shown, unit: UNIT, first, last, next_offset: last }
}

/// `--head-tokens N`.
#[derive(Debug)]
pub struct HeadTokens {
    limit: u64,
    tokenizer: Tokenizer,
    /// The estimate of the stream up to where the head ends.
    estimator: Estimator,
    /// The estimate of the bytes written (the estimate of a prefix is the
    /// prefix's own).
    written: Estimator,
    /// Bytes of the head not written yet: with the estimator, the start of
    /// a character cut by the end of a piece; exact, all of the head until
    /// it is cut.
    unwritten: Vec<u8>,
    /// Whether the head is full.
    done: bool,
    /// Bytes written.
    bytes: u64,
    /// Tokens written.
    shown: u64,
    /// Whether bytes came after the head.
    more: bool,
    total: Option<TotalTokens>,
    counted: Option<u64>,
}

impl HeadTokens {
    /// Keeps the first `limit` tokens; counts all of them when `total`.
    pub fn new(limit: u64, tokenizer: Tokenizer, total: bool) -> Self {
        HeadTokens {
            limit,
            tokenizer,
            estimator: Estimator::default(),
            written: Estimator::default(),
            unwritten: Vec::new(),
            done: false,
            bytes: 0,
            shown: 0,
            more: false,
            total: total.then(|| TotalTokens::new(tokenizer)),
            counted: None,
        }
    }

    /// Tokens written.
    pub fn shown(&self) -> u64 {
        self.shown
    }

    /// Whether the head is full: all that comes now is past it.
    pub fn done(&self) -> bool {
        self.done
    }

    /// Counts `piece` into the total.
    fn count(&mut self, piece: &[u8]) {
        if let Some(total) = &mut self.total {
            total.feed(piece);
        }
    }

    /// Takes what `piece` has of the head and writes it; returns the bytes
    /// past the head that this call found (empty until the head is full,
    /// and after).
    pub fn take(&mut self, piece: &[u8], out: &mut Output) -> io::Result<Vec<u8>> {
        if self.done {
            self.more |= !piece.is_empty();
            return Ok(Vec::new());
        }
        let mut buf = std::mem::take(&mut self.unwritten);
        buf.extend_from_slice(piece);
        let end = if self.tokenizer == Tokenizer::Estimate {
            let start = self.bytes;
            match self.estimator.cut_after(piece, self.limit) {
                Some(cut) => {
                    self.done = true;
                    usize::try_from(cut.saturating_sub(start)).unwrap_or(usize::MAX).min(buf.len())
                }
                None => buf.len() - unfinished(&buf),
            }
        } else if buf.len() as u64 >= window_bytes(self.limit) {
            self.done = true;
            first_end(self.tokenizer, &buf, self.limit, false)
        } else {
            self.unwritten = buf;
            return Ok(Vec::new());
        };
        self.write(&buf[..end], out)?;
        if self.done {
            self.more |= end < buf.len();
            Ok(buf.split_off(end))
        } else {
            self.unwritten = buf.split_off(end);
            Ok(Vec::new())
        }
    }

    fn write(&mut self, head: &[u8], out: &mut Output) -> io::Result<()> {
        self.bytes += head.len() as u64;
        if self.tokenizer == Tokenizer::Estimate {
            self.written.feed(head);
        } else {
            self.shown += count(self.tokenizer, head);
        }
        out.data(head)
    }

    /// At the end of the stream: writes what is left of the head, and
    /// returns the bytes past it.
    pub fn end(&mut self, out: &mut Output) -> io::Result<Vec<u8>> {
        if self.done {
            self.shown = self.shown.max(self.shown_estimate());
            return Ok(Vec::new());
        }
        self.done = true;
        let mut buf = std::mem::take(&mut self.unwritten);
        let end = if self.tokenizer == Tokenizer::Estimate {
            let start = self.bytes;
            match self.estimator.cut_at_end(self.limit) {
                Some(cut) => usize::try_from(cut.saturating_sub(start)).unwrap_or(usize::MAX).min(buf.len()),
                None => buf.len(),
            }
        } else {
            first_end(self.tokenizer, &buf, self.limit, true)
        };
        self.write(&buf[..end], out)?;
        self.more |= end < buf.len();
        self.shown = self.shown.max(self.shown_estimate());
        Ok(buf.split_off(end))
    }

    /// With the estimator, the tokens of the bytes written.
    fn shown_estimate(&self) -> u64 {
        self.written.total()
    }

    fn total(&mut self) -> Option<u64> {
        if self.counted.is_none() {
            self.counted = self.total.as_mut().map(TotalTokens::total);
        }
        self.counted
    }
}

impl Cap for HeadTokens {
    fn feed(&mut self, piece: &[u8], _totals: &Totals, out: &mut Output) -> io::Result<()> {
        self.count(piece);
        self.take(piece, out).map(drop)
    }

    fn finish(&mut self, totals: &Totals, out: &mut Output) -> io::Result<Outcome> {
        self.end(out)?;
        if totals.bytes() == 0 || (self.bytes == 0 && self.more) {
            return Ok(Outcome::Nothing(notice::NO_OUTPUT));
        }
        if !self.more {
            return Ok(Outcome::Whole);
        }
        let shown = self.shown;
        let total = self.total().unwrap_or(0).max(shown);
        Ok(Outcome::Cut(Kind::HeadUnits, facts(shown, self.limit, total, 1, shown)))
    }

    fn tokens(&mut self) -> Option<u64> {
        self.total()
    }

    fn cut(&self, _totals: &Totals) -> Cut {
        Cut { after_byte: Some(self.bytes), ..Cut::default() }
    }
}

/// `--head-tokens H --tail-tokens T`.
#[derive(Debug)]
pub struct HeadTailTokens {
    head: HeadTokens,
    tail: TailTokens,
    total: TotalTokens,
    /// Bytes given to the tail.
    tail_fed: u64,
}

impl HeadTailTokens {
    /// The first `head` tokens and the last `tail` tokens of the rest.
    pub fn new(head: u64, tail: u64, tokenizer: Tokenizer) -> Self {
        HeadTailTokens {
            head: HeadTokens::new(head, tokenizer, false),
            tail: TailTokens::new(tail, tokenizer, false),
            total: TotalTokens::new(tokenizer),
            tail_fed: 0,
        }
    }

    fn pass_on(&mut self, bytes: &[u8], totals: &Totals, out: &mut Output) -> io::Result<()> {
        self.tail_fed += bytes.len() as u64;
        self.tail.feed(bytes, totals, out)
    }
}

impl Cap for HeadTailTokens {
    fn feed(&mut self, piece: &[u8], totals: &Totals, out: &mut Output) -> io::Result<()> {
        self.total.feed(piece);
        if self.head.done() {
            return self.pass_on(piece, totals, out);
        }
        let rest = self.head.take(piece, out)?;
        self.pass_on(&rest, totals, out)
    }

    fn finish(&mut self, totals: &Totals, out: &mut Output) -> io::Result<Outcome> {
        let rest = self.head.end(out)?;
        self.pass_on(&rest, totals, out)?;
        if totals.bytes() == 0 {
            return Ok(Outcome::Nothing(notice::NO_OUTPUT));
        }
        // Whole when the tail keeps all that the head left.
        let window = self.tail.ring.make_contiguous();
        let start = last_start(self.tail.tokenizer, window, self.tail.limit);
        if start == 0 && window.len() as u64 == self.tail_fed {
            self.tail.write_kept(out)?;
            return Ok(Outcome::Whole);
        }
        let total = self.total.total();
        let head = self.head.shown();
        let tail = count(self.tail.tokenizer, &window[start..]);
        let shown = head + tail;
        let total = total.max(shown);
        let facts = Facts {
            shown,
            limit: self.head.limit.saturating_add(self.tail.limit),
            total,
            omitted: total - shown,
            unit: UNIT,
            first: head + 1,
            last: total - tail,
            next_offset: head,
        };
        out.middle(&facts)?;
        self.tail.write_kept(out)?;
        Ok(Outcome::Middle(facts))
    }

    fn tokens(&mut self) -> Option<u64> {
        Some(self.total.total())
    }

    fn cut(&self, totals: &Totals) -> Cut {
        Cut { after_byte: Some(self.head.bytes), ..self.tail.cut(totals) }
    }
}
