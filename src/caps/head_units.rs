//! `--head-chars N`: the first N characters (or bytes).

use std::io;

use super::{Cap, Outcome};
use crate::count::{Totals, Unit};
use crate::notice::{self, Facts, Kind};
use crate::output::Output;

/// Writes the first `limit` units as they arrive.
#[derive(Debug)]
pub struct HeadUnits {
    limit: u64,
    unit: Unit,
    taken: u64,
}

impl HeadUnits {
    /// Keeps the first `limit` units.
    pub fn new(limit: u64, unit: Unit) -> Self {
        HeadUnits { limit, unit, taken: 0 }
    }
}

impl Cap for HeadUnits {
    fn feed(&mut self, piece: &[u8], out: &mut Output) -> io::Result<()> {
        if self.taken < self.limit {
            let (end, n) = self.unit.advance(piece, self.limit - self.taken);
            self.taken += n;
            out.data(&piece[..end])?;
        }
        Ok(())
    }

    fn finish(&mut self, totals: &Totals, _out: &mut Output) -> io::Result<Outcome> {
        let total = totals.of(self.unit);
        if total == 0 {
            return Ok(Outcome::Nothing(notice::NO_OUTPUT));
        }
        if total <= self.limit {
            return Ok(Outcome::Whole);
        }
        Ok(Outcome::Cut(
            Kind::HeadUnits,
            Facts {
                shown: self.taken,
                limit: self.limit,
                total,
                omitted: total - self.taken,
                unit: self.unit.name(),
                first: 1,
                last: self.taken,
                next_offset: self.taken,
                saved: None,
            },
        ))
    }
}
