//! `--head-lines N --offset K`: a window of lines, written as they arrive.

use std::io;

use super::{Cap, Cut, LineShaper, LineSplitter, Outcome, line_pieces};
use crate::count::Totals;
use crate::notice::{self, Facts, Kind};
use crate::output::Output;

/// Writes lines `offset + 1 ..= offset + limit` as they arrive.
#[derive(Debug)]
pub struct HeadLines {
    limit: u64,
    offset: u64,
    splitter: LineSplitter,
    shaper: LineShaper,
    /// Whether bytes came after the last line of the window.
    more: bool,
}

impl HeadLines {
    /// `--head-lines limit --offset offset`.
    pub fn new(limit: u64, offset: u64, shaper: LineShaper) -> Self {
        HeadLines { limit, offset, splitter: LineSplitter::default(), shaper, more: false }
    }

    /// The number of the last line of the window.
    pub fn last(&self) -> u64 {
        self.offset.saturating_add(self.limit)
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
        self.shaper.finish(out)?;
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
        let shown = self.limit.min(total - self.offset);
        let last = self.offset + shown;
        if last == total {
            return Ok(Outcome::Whole);
        }
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
        Ok(Outcome::Cut(Kind::HeadLines, facts))
    }

    fn past_cap(&self) -> bool {
        self.more
    }

    fn cut(&self, _totals: &Totals) -> Cut {
        // Lines skipped by --offset were paged past, not cut.
        Cut { after_line: Some(self.last()), ..Cut::default() }
    }
}
