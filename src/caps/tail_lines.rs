//! `--tail-lines N`: the last N lines.

use std::collections::VecDeque;
use std::io;

use memchr::memrchr_iter;

use super::{Cap, Cut, LineShaper, Outcome, line_pieces};
use crate::count::Totals;
use crate::notice::{self, Facts, Kind};
use crate::output::Output;
use crate::ring::Ring;

/// Keeps the last `limit` lines, each as the line cap writes it, in a ring.
#[derive(Debug)]
pub struct TailLines {
    limit: u64,
    shaper: LineShaper,
    /// The number of the line the next byte belongs to.
    line: u64,
    /// The current line as written so far.
    current: Vec<u8>,
    /// Whole lines kept, oldest first, and their lengths in `ring`.
    ring: Ring,
    lengths: VecDeque<usize>,
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
            shaper,
            line: first,
            current: Vec::new(),
            ring: Ring::new(usize::MAX),
            lengths: VecDeque::new(),
        }
    }

    /// The lines kept.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    fn push_line(&mut self) {
        self.ring.push(&self.current);
        self.lengths.push_back(self.current.len());
        self.current.clear();
        if self.lengths.len() as u64 > self.limit {
            let oldest = self.lengths.pop_front().unwrap_or(0);
            self.ring.drop_front(oldest);
        }
    }

    /// Ends a last line without `\n` and writes the lines kept.
    pub fn write_kept(&mut self, out: &mut Output) -> io::Result<()> {
        self.shaper.finish(&mut self.current)?;
        if !self.current.is_empty() {
            self.push_line();
        }
        let (a, b) = self.ring.as_slices();
        out.data(a)?;
        out.data(b)
    }
}

impl Cap for TailLines {
    fn feed(&mut self, mut piece: &[u8], totals: &Totals, _out: &mut Output) -> io::Result<()> {
        // When the piece alone holds `limit` lines or more, all before them
        // is cut: skip it without shaping a line of it.
        let wanted = self.limit.saturating_add(u64::from(piece.last() == Some(&b'\n')));
        let newlines = totals.newlines().unwrap_or(0).saturating_sub(self.line - 1);
        if newlines >= wanted
            && let Some(i) = memrchr_iter(b'\n', piece).nth((wanted - 1) as usize)
        {
            piece = &piece[i + 1..];
            self.line = totals.newlines().unwrap_or(0) - wanted + 2;
            self.ring.clear();
            self.lengths.clear();
            self.current.clear();
            self.shaper.reset();
        }
        for part in line_pieces(piece) {
            self.shaper.piece(self.line, part, &mut self.current)?;
            if part.last() == Some(&b'\n') {
                self.push_line();
                self.line += 1;
            }
        }
        Ok(())
    }

    fn finish(&mut self, totals: &Totals, out: &mut Output) -> io::Result<Outcome> {
        let total = totals.lines().unwrap_or(0);
        if total == 0 {
            return Ok(Outcome::Nothing(notice::NO_OUTPUT));
        }
        self.write_kept(out)?;
        if total <= self.limit {
            return Ok(Outcome::Whole);
        }
        Ok(Outcome::Cut(
            Kind::TailLines,
            Facts {
                shown: self.limit,
                limit: self.limit,
                total,
                omitted: total - self.limit,
                unit: "lines",
                first: total - self.limit + 1,
                last: total,
                next_offset: total,
            },
        ))
    }

    fn cut(&self, totals: &Totals) -> Cut {
        Cut {
            before_line: Some(totals.lines().unwrap_or(0).saturating_sub(self.limit) + 1),
            ..Cut::default()
        }
    }
}
