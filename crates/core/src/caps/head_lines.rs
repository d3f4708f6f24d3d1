//! `--head-lines N --offset K`: a window of lines, written as they arrive.

use std::io;

use super::{Budget, Cap, Cut, LineShaper, LineSplitter, Outcome, line_pieces};
use crate::notice::{self, Facts, Kind};
use crate::output::Output;
use crate::text::count::Totals;

/// Writes lines `offset + 1 ..= offset + limit` as they arrive.
#[derive(Debug)]
pub struct HeadLines {
    limit: u64,
    offset: u64,
    splitter: LineSplitter,
    shaper: LineShaper,
    /// `--budget-chars`: the window ends early at the last line that fits.
    budget: Option<Budget>,
    /// Whether bytes came after the last line of the window.
    more: bool,
}

impl HeadLines {
    /// `--head-lines limit --offset offset`.
    pub fn new(limit: u64, offset: u64, shaper: LineShaper) -> Self {
        HeadLines { limit, offset, splitter: LineSplitter::default(), shaper, budget: None, more: false }
    }

    /// The same, with a budget of `budget` units for all the lines kept.
    #[must_use]
    pub fn with_budget(mut self, budget: Option<u64>) -> Self {
        self.budget = budget.map(|b| Budget::new(b, &self.shaper));
        self
    }

    /// The number of the last line of the window.
    pub fn last(&self) -> u64 {
        self.offset.saturating_add(self.limit)
    }

    /// The number of the last line kept, once the stream has ended: the
    /// window's, or where the budget stopped it.
    fn last_kept(&self, total: u64) -> u64 {
        match &self.budget {
            Some(b) if b.spent() => self.offset + b.kept(),
            _ => self.last().min(total),
        }
    }

    /// Feeds a piece with a budget: runs of plain lines as far as the
    /// budget goes, other lines through it one by one.
    fn feed_budgeted(&mut self, mut rest: &[u8], last: u64, out: &mut Output) -> io::Result<()> {
        let Some(budget) = &mut self.budget else { return Ok(()) };
        while !rest.is_empty() && self.splitter.line() <= last && !budget.spent() {
            let line = self.splitter.line();
            let (run, lines) =
                if budget.kept() == 0 { (0, 0) } else { self.shaper.plain_prefix(rest, last - line + 1) };
            if lines > 0 {
                let run = &rest[..run];
                let (end, units) = self.shaper.unit().advance(run, budget.left());
                let take = if end == run.len() {
                    run.len()
                } else {
                    budget.stop();
                    memchr::memrchr(b'\n', &run[..end]).map_or(0, |i| i + 1)
                };
                let taken = bytecount::count(&run[..take], b'\n') as u64;
                out.data(&run[..take])?;
                let units = if take == run.len() { units } else { budget.units(&run[..take]) };
                budget.spend(taken, units);
                self.splitter.advance(taken);
                rest = &rest[take..];
                continue;
            }
            let end = line_pieces(rest).next().map_or(0, <[u8]>::len);
            budget.piece(line, &rest[..end], &mut self.shaper, out)?;
            self.splitter.advance(u64::from(rest[end - 1] == b'\n'));
            rest = &rest[end..];
        }
        // What the budget left is input past what the page keeps.
        self.more |= !rest.is_empty();
        Ok(())
    }
}

impl Cap for HeadLines {
    fn feed(&mut self, piece: &[u8], _totals: &Totals, out: &mut Output) -> io::Result<()> {
        let last = self.last();
        if self.splitter.line() > last {
            self.more |= !piece.is_empty();
            return Ok(());
        }
        let mut rest = self.splitter.skip_to(piece, self.offset.saturating_add(1));
        if self.budget.is_some() {
            return self.feed_budgeted(rest, last, out);
        }
        while !rest.is_empty() && self.splitter.line() <= last {
            let line = self.splitter.line();
            // Runs of lines that need no shaping go out in one write.
            let (run, lines) = self.shaper.plain_prefix(rest, last - line + 1);
            let end = if lines > 0 {
                out.data(&rest[..run])?;
                self.splitter.advance(lines);
                run
            } else {
                let end = line_pieces(rest).next().map_or(0, <[u8]>::len);
                self.shaper.piece(line, &rest[..end], out)?;
                self.splitter.advance(u64::from(rest[end - 1] == b'\n'));
                end
            };
            rest = &rest[end..];
        }
        self.more |= !rest.is_empty();
        Ok(())
    }

    fn finish(&mut self, totals: &Totals, out: &mut Output) -> io::Result<Outcome> {
        match &mut self.budget {
            Some(budget) => budget.finish(&mut self.shaper, out)?,
            None => self.shaper.finish(out)?,
        }
        let total = totals.lines().unwrap_or(0);
        if total == 0 {
            return Ok(Outcome::Nothing(notice::NO_OUTPUT));
        }
        if self.offset >= total {
            let facts = Facts {
                limit: self.limit,
                total,
                unit: "lines",
                first: self.offset.saturating_add(1),
                last: self.offset,
                next_offset: self.offset,
                ..Facts::default()
            };
            return Ok(Outcome::Cut(Kind::PastEnd, facts));
        }
        let last = self.last_kept(total);
        let shown = last - self.offset;
        let facts = Facts {
            shown,
            limit: self.limit,
            total,
            omitted: total - shown,
            unit: "lines",
            first: self.offset + 1,
            last,
            next_offset: last,
        };
        if last == total {
            return Ok(if self.offset == 0 { Outcome::Whole } else { Outcome::Page(Kind::LastPage, facts) });
        }
        Ok(Outcome::Cut(Kind::HeadLines, facts))
    }

    fn past_cap(&self) -> bool {
        self.more
    }

    fn cut(&self, totals: &Totals) -> Cut {
        // Lines skipped by --offset were paged past, not cut.
        Cut { after_line: Some(self.last_kept(totals.lines().unwrap_or(u64::MAX))), ..Cut::default() }
    }

    fn shown(&self, totals: &Totals) -> Option<(u64, u64)> {
        let total = totals.lines()?;
        (total > self.offset).then(|| (self.offset + 1, self.last_kept(total)))
    }
}
