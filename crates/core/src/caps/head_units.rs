//! `--head-chars N`: the first N characters (or bytes).

use std::io;

use super::{Cap, Cut, Outcome};
use crate::notice::{self, Facts, Kind};
use crate::output::Output;
use crate::text::count::{Totals, Unit};

/// Writes the first `limit` units as they arrive.
#[derive(Debug)]
pub struct HeadUnits {
    limit: u64,
    unit: Unit,
    taken: u64,
    /// Bytes of the units taken.
    bytes: u64,
    /// Whether bytes came after the units taken.
    more: bool,
}

impl HeadUnits {
    /// Keeps the first `limit` units.
    pub fn new(limit: u64, unit: Unit) -> Self {
        HeadUnits { limit, unit, taken: 0, bytes: 0, more: false }
    }

    /// Takes what `piece` has of the head; returns the offset where the
    /// head ends in it (its length when the head is not full yet).
    pub fn split(&mut self, piece: &[u8]) -> usize {
        if self.taken == self.limit {
            self.more |= !piece.is_empty();
            return 0;
        }
        let (end, n) = self.unit.advance(piece, self.limit - self.taken);
        self.taken += n;
        self.bytes += end as u64;
        self.more |= end < piece.len();
        end
    }

    /// Units taken.
    pub fn taken(&self) -> u64 {
        self.taken
    }
}

impl Cap for HeadUnits {
    fn feed(&mut self, piece: &[u8], _totals: &Totals, out: &mut Output) -> io::Result<()> {
        let end = self.split(piece);
        out.data(&piece[..end])
    }

    fn finish(&mut self, totals: &Totals, _out: &mut Output) -> io::Result<Outcome> {
        if totals.bytes() == 0 {
            return Ok(Outcome::Nothing(notice::NO_OUTPUT));
        }
        if !self.more {
            return Ok(Outcome::Whole);
        }
        let total = totals.of(self.unit).unwrap_or(0);
        Ok(Outcome::Cut(
            Kind::HeadUnits,
            Facts {
                shown: self.taken,
                limit: self.limit,
                total,
                omitted: total.saturating_sub(self.taken),
                unit: self.unit.name(),
                first: 1,
                last: self.taken,
                next_offset: self.taken,
            },
        ))
    }

    fn past_cap(&self) -> bool {
        self.more
    }

    fn cut(&self, _totals: &Totals) -> Cut {
        Cut { after_byte: Some(self.bytes), ..Cut::default() }
    }
}
