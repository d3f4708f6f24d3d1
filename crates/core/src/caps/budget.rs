//! A character budget for all that a line cap keeps (`--budget-chars`):
//! whole lines only, up to the last one that fits.

use std::io::{self, Write};

use super::LineShaper;
use crate::output::Output;
use crate::text::count::Unit;

/// Holds each shaped line until it is whole, then writes it if it fits in
/// what is left of the budget; once a line does not fit, nothing more is
/// written. The first line is always kept, shaped by a line cap no wider
/// than the budget, so that a page is never empty.
#[derive(Debug)]
pub struct Budget {
    unit: Unit,
    /// Units left.
    left: u64,
    /// Shapes the first line kept: the line cap at the smaller of its
    /// width and the budget.
    first: LineShaper,
    /// The shaped line in progress, once a line was kept.
    line: Vec<u8>,
    /// The line in progress has gone past what is left.
    over: bool,
    /// Lines kept.
    kept: u64,
    /// A line did not fit: nothing more is kept.
    spent: bool,
}

impl Budget {
    /// A budget of `limit` units for lines shaped as `shaper` shapes them.
    pub fn new(limit: u64, shaper: &LineShaper) -> Self {
        let width = shaper.width().map_or(limit, |w| w.min(limit));
        Budget {
            unit: shaper.unit(),
            left: limit,
            first: LineShaper::new(Some(width), shaper.unit(), shaper.numbers()),
            line: Vec::new(),
            over: false,
            kept: 0,
            spent: false,
        }
    }

    /// Lines kept so far.
    pub fn kept(&self) -> u64 {
        self.kept
    }

    /// Whether a line did not fit, so that nothing more is kept.
    pub fn spent(&self) -> bool {
        self.spent
    }

    /// Units left.
    pub fn left(&self) -> u64 {
        self.left
    }

    /// The units of `bytes`.
    pub fn units(&self, bytes: &[u8]) -> u64 {
        match self.unit {
            Unit::Bytes => bytes.len() as u64,
            Unit::Chars => self.unit.advance(bytes, u64::MAX).1,
        }
    }

    /// Counts `lines` whole lines of `units` units written by the caller.
    pub fn spend(&mut self, lines: u64, units: u64) {
        self.kept += lines;
        self.left = self.left.saturating_sub(units);
    }

    /// Marks the budget spent: the next line does not fit.
    pub fn stop(&mut self) {
        self.spent = true;
    }

    /// Takes `piece`, part of line `number`, shaped by `shaper` (a piece
    /// that ends in `\n` ends the line), and writes the line once it is
    /// whole and fits.
    pub fn piece(
        &mut self,
        number: u64,
        piece: &[u8],
        shaper: &mut LineShaper,
        out: &mut Output,
    ) -> io::Result<()> {
        if self.spent || piece.is_empty() {
            return Ok(());
        }
        let ends = piece.last() == Some(&b'\n');
        if self.kept == 0 {
            let mut counted = Counted { out, units: 0, unit: self.unit };
            self.first.piece(number, piece, &mut counted)?;
            let units = counted.units;
            self.left = self.left.saturating_sub(units);
            if ends {
                self.kept = 1;
            }
            return Ok(());
        }
        if !self.over {
            shaper.piece(number, piece, &mut self.line)?;
            // Bytes bound units from above: only a line longer in bytes
            // than what is left needs counting.
            if self.line.len() as u64 > self.left && self.units(&self.line) > self.left {
                self.over = true;
                self.line = Vec::new();
            }
        }
        if ends {
            self.end_line(out)?;
        }
        Ok(())
    }

    /// Ends a last line that has no `\n`.
    pub fn finish(&mut self, shaper: &mut LineShaper, out: &mut Output) -> io::Result<()> {
        if self.spent {
            return Ok(());
        }
        if self.kept == 0 {
            let mut counted = Counted { out, units: 0, unit: self.unit };
            let started = self.first.in_line();
            self.first.finish(&mut counted)?;
            if started {
                self.kept = 1;
            }
            return Ok(());
        }
        if shaper.in_line() {
            shaper.finish(&mut self.line)?;
            self.end_line(out)?;
        }
        Ok(())
    }

    fn end_line(&mut self, out: &mut Output) -> io::Result<()> {
        let units = if self.over { u64::MAX } else { self.units(&self.line) };
        if units <= self.left {
            out.data(&self.line)?;
            self.spend(1, units);
        } else {
            self.spent = true;
        }
        self.line.clear();
        self.over = false;
        Ok(())
    }
}

/// A writer that counts the units written through it.
struct Counted<'a, 'b> {
    out: &'a mut Output<'b>,
    units: u64,
    unit: Unit,
}

impl Write for Counted<'_, '_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.units += match self.unit {
            Unit::Bytes => buf.len() as u64,
            Unit::Chars => self.unit.advance(buf, u64::MAX).1,
        };
        self.out.data(buf)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
