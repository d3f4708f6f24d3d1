//! Where a cap cuts: a head cap as the stream is fed, a tail cap in the
//! ring it kept, by the piece boundaries.

use super::estimator::{Char, Estimator, NoSink};
use super::price;
use super::{NEAR_BYTES_PER_TOKEN, SCALE};

impl Estimator {
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

#[cfg(test)]
mod tests {
    use super::{boundaries, estimate_scaled, rest_scaled};
    use proptest::prelude::*;

    use capout_testkit::token_text as text;

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
