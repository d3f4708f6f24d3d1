//! `--tail-lines N`: the last N lines.

use std::io;

use memchr::{memchr, memrchr, memrchr_iter};

use super::{Cap, Cut, LineShaper, Outcome, line_pieces};
use crate::notice::{self, Facts, Kind};
use crate::output::Output;
use crate::text::count::Totals;
use crate::text::ring::Ring;

/// Keeps the last `limit` lines as they came, in a ring, and writes them
/// through the line cap only at the end: runs of whole lines are copied
/// in one piece, and no line is shaped that a later one pushes out.
///
/// With a width, a line longer than the bytes that decide how it is
/// written ([`LineShaper::deciding_bytes`]) is held as the bytes of its
/// first W units and one more, and its last two (its ending), which the
/// line cap writes as it would the whole line; memory stays bounded by
/// the lines kept, about as it is by the lines written.
#[derive(Debug)]
pub struct TailLines {
    limit: u64,
    shaper: LineShaper,
    /// Bytes of a line's start held while it comes; a line of at most
    /// two more is held whole. `usize::MAX` without a width.
    prefix: usize,
    /// Runs of lines of at most this many bytes each are copied whole.
    short: usize,
    /// The number of the line the next byte belongs to.
    line: u64,
    /// Whole lines kept, oldest first, as they came or cut as above.
    ring: Ring,
    /// `\n` bytes in `ring`: the whole lines it holds.
    lines: u64,
    /// The start of the line in progress, up to `prefix + 2` bytes.
    current: Vec<u8>,
    /// Bytes of the line in progress so far.
    current_len: usize,
    /// Its last two bytes, once it is longer than `current` holds.
    last_two: [u8; 2],
    /// `--budget-chars`: the units that all the lines kept may take.
    budget: Option<u64>,
    /// Lines written, once the stream has ended.
    kept: u64,
}

impl TailLines {
    /// Keeps the last `limit` lines of the stream.
    pub fn new(limit: u64, shaper: LineShaper) -> Self {
        TailLines::from_line(limit, 1, shaper)
    }

    /// Keeps the last `limit` lines of a stream whose first line is
    /// number `first`.
    pub fn from_line(limit: u64, first: u64, shaper: LineShaper) -> Self {
        TailLines {
            limit,
            prefix: shaper.deciding_bytes().unwrap_or(usize::MAX),
            short: shaper.never_cut().saturating_add(2),
            shaper,
            line: first,
            ring: Ring::new(usize::MAX),
            lines: 0,
            current: Vec::new(),
            current_len: 0,
            last_two: [0; 2],
            budget: None,
            kept: 0,
        }
    }

    /// The same, with a budget of `budget` units for all the lines kept:
    /// the last lines that fit.
    #[must_use]
    pub fn with_budget(mut self, budget: Option<u64>) -> Self {
        self.budget = budget;
        self
    }

    /// How many of the `held` lines of `bytes` (the oldest first) the
    /// budget drops, and whether the one line left must be cut to it.
    fn over_budget(&mut self, held: u64, first: u64) -> (u64, bool) {
        let Some(limit) = self.budget else { return (0, false) };
        let mut shaper = LineShaper::new(self.shaper.width(), self.shaper.unit(), self.shaper.numbers());
        let mut scratch = Vec::new();
        let unit = self.shaper.unit();
        let bytes = self.ring.make_contiguous();
        let mut units = |number: u64, part: &[u8]| {
            scratch.clear();
            // Writing to a vector cannot fail.
            let _ = shaper.piece(number, part, &mut scratch).and_then(|()| shaper.finish(&mut scratch));
            match unit {
                crate::text::count::Unit::Bytes => scratch.len() as u64,
                crate::text::count::Unit::Chars => unit.advance(&scratch, u64::MAX).1,
            }
        };
        let mut total: u64 = 0;
        for (number, part) in (first..).zip(line_pieces(bytes)) {
            total = total.saturating_add(units(number, part));
        }
        let mut dropped = 0;
        for (number, part) in (first..).zip(line_pieces(bytes)) {
            if total <= limit || dropped + 1 >= held {
                break;
            }
            total -= units(number, part);
            dropped += 1;
        }
        (dropped, total > limit)
    }

    /// The lines kept.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// The longest line held whole.
    fn whole(&self) -> usize {
        self.prefix.saturating_add(2)
    }

    /// Adds `bytes` to the line in progress.
    fn extend_current(&mut self, bytes: &[u8]) {
        let room = self.whole().saturating_sub(self.current.len());
        self.current.extend_from_slice(&bytes[..room.min(bytes.len())]);
        self.current_len += bytes.len();
        match bytes {
            [.., x, y] => self.last_two = [*x, *y],
            [y] => self.last_two = [self.last_two[1], *y],
            [] => {}
        }
    }

    /// Moves the line in progress, whole or cut, to the ring.
    fn push_current(&mut self) {
        if self.current_len <= self.whole() {
            self.ring.push(&self.current);
        } else {
            let start = &self.current[..self.prefix];
            self.ring.push(&start[..self.shaper.deciding_len(start)]);
            self.ring.push(&self.last_two);
        }
        // The last byte of the line is always the second of `last_two`.
        self.lines += u64::from(self.last_two[1] == b'\n');
        self.current.clear();
        self.current_len = 0;
    }

    /// Adds whole lines, held whole, to the ring.
    fn push_lines(&mut self, run: &[u8]) {
        self.ring.push(run);
        self.lines += bytecount::count(run, b'\n') as u64;
        self.trim();
    }

    /// Drops the oldest lines past the limit.
    fn trim(&mut self) {
        if self.lines > self.limit {
            let drop = self.lines - self.limit;
            self.ring.drop_lines(usize::try_from(drop).unwrap_or(usize::MAX));
            self.lines -= drop;
        }
    }

    /// Takes `piece`, which follows what was fed before.
    fn take(&mut self, mut piece: &[u8]) {
        if self.current_len > 0 {
            let Some(end) = memchr(b'\n', piece) else { return self.extend_current(piece) };
            self.extend_current(&piece[..=end]);
            self.push_current();
            self.trim();
            piece = &piece[end + 1..];
        }
        let short = self.short;
        while !piece.is_empty() {
            // A window of `short` bytes that holds a newline ends only
            // lines that are held whole, and as short as the line cap
            // would write them.
            let window = &piece[..piece.len().min(short)];
            if let Some(last) = memrchr(b'\n', window) {
                self.push_lines(&piece[..=last]);
                piece = &piece[last + 1..];
                continue;
            }
            if window.len() < short {
                // The start of a line, which may yet be short.
                return self.extend_current(piece);
            }
            // A longer line: its start, then its end.
            self.extend_current(window);
            let rest = &piece[window.len()..];
            let Some(end) = memchr(b'\n', rest) else { return self.extend_current(rest) };
            self.extend_current(&rest[..=end]);
            self.push_current();
            self.trim();
            piece = &rest[end + 1..];
        }
    }

    /// Ends a last line without `\n` and writes the lines kept, through
    /// the line cap.
    pub fn write_kept(&mut self, out: &mut Output) -> io::Result<()> {
        let partial = self.current_len > 0;
        if partial {
            self.push_current();
        }
        let held = self.lines + u64::from(partial);
        if held > self.limit {
            self.ring.drop_lines(1);
        }
        let held = held.min(self.limit);
        // The line in progress, or the last whole one, is the last held.
        let last = if partial { self.line } else { self.line - 1 };
        let first = (last + 1).saturating_sub(held);
        let (dropped, cut) = self.over_budget(held, first);
        self.kept = held - dropped;
        if cut {
            // The last line alone is longer than the budget: it is cut as
            // the line cap cuts, at the budget.
            let width = self.budget.map(|b| self.shaper.width().map_or(b, |w| w.min(b)));
            self.shaper = LineShaper::new(width, self.shaper.unit(), self.shaper.numbers());
        }
        let mut batch = Vec::new();
        for (number, part) in (first..)
            .zip(line_pieces(self.ring.make_contiguous()))
            .skip(usize::try_from(dropped).unwrap_or(usize::MAX))
        {
            self.shaper.piece(number, part, &mut batch)?;
            if batch.len() >= 64 * 1024 {
                out.data(&batch)?;
                batch.clear();
            }
        }
        self.shaper.finish(&mut batch)?;
        out.data(&batch)
    }
}

/// Where the `n`-th `\n` from the end of `bytes` is (`n` ≥ 1): blocks
/// are counted backwards with the vectorised counter, and only the block
/// that holds it is searched newline by newline.
fn nth_newline_from_end(bytes: &[u8], n: u64) -> Option<usize> {
    const BLOCK: usize = 4096;
    let mut end = bytes.len();
    let mut left = n;
    while end > 0 {
        let start = end.saturating_sub(BLOCK);
        let block = &bytes[start..end];
        let count = bytecount::count(block, b'\n') as u64;
        if count >= left {
            return memrchr_iter(b'\n', block).nth((left - 1) as usize).map(|i| start + i);
        }
        left -= count;
        end = start;
    }
    None
}

impl Cap for TailLines {
    fn feed(&mut self, mut piece: &[u8], totals: &Totals, _out: &mut Output) -> io::Result<()> {
        let newlines = totals.newlines().unwrap_or(0);
        // When the piece alone holds `limit` lines or more, all before them
        // is cut: skip it without looking at a line of it.
        let wanted = self.limit.saturating_add(u64::from(piece.last() == Some(&b'\n')));
        if newlines.saturating_sub(self.line - 1) >= wanted
            && let Some(i) = nth_newline_from_end(piece, wanted)
        {
            piece = &piece[i + 1..];
            self.ring.clear();
            self.lines = 0;
            self.current.clear();
            self.current_len = 0;
        }
        self.take(piece);
        self.line = newlines + 1;
        Ok(())
    }

    fn finish(&mut self, totals: &Totals, out: &mut Output) -> io::Result<Outcome> {
        let total = totals.lines().unwrap_or(0);
        if total == 0 {
            return Ok(Outcome::Nothing(notice::NO_OUTPUT));
        }
        self.write_kept(out)?;
        if self.kept >= total {
            return Ok(Outcome::Whole);
        }
        Ok(Outcome::Cut(
            Kind::TailLines,
            Facts {
                shown: self.kept,
                limit: self.limit,
                total,
                omitted: total - self.kept,
                unit: "lines",
                first: total - self.kept + 1,
                last: total,
                next_offset: total,
            },
        ))
    }

    fn cut(&self, totals: &Totals) -> Cut {
        Cut { before_line: Some(totals.lines().unwrap_or(0).saturating_sub(self.kept) + 1), ..Cut::default() }
    }
}
