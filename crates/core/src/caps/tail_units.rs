//! `--tail-chars N`: the last N characters (or bytes).

use std::io;

use super::{Cap, Cut, Outcome};
use crate::notice::{self, Facts, Kind};
use crate::output::Output;
use crate::text::count::{Totals, Unit};
use crate::text::ring::Ring;

/// Keeps the last `limit` units in a ring of the bytes they can take at
/// most. Where the characters start is decided once, at the end, so the
/// stream is never decoded twice.
#[derive(Debug)]
pub struct TailUnits {
    limit: u64,
    unit: Unit,
    ring: Ring,
    /// Bytes written at the end.
    kept: u64,
}

impl TailUnits {
    /// Keeps the last `limit` units.
    pub fn new(limit: u64, unit: Unit) -> Self {
        let bytes = TailUnits::ring_bytes(limit, unit);
        TailUnits { limit, unit, ring: Ring::new(usize::try_from(bytes).unwrap_or(usize::MAX)), kept: 0 }
    }

    /// The bytes of the ring that keeps the last `limit` units.
    pub fn ring_bytes(limit: u64, unit: Unit) -> u64 {
        // Four more bytes than `limit` characters can take let the
        // backward step look at a whole character before the first kept.
        match unit {
            Unit::Chars => unit.max_bytes(limit).saturating_add(4),
            Unit::Bytes => limit,
        }
    }

    /// Writes the last `limit` units of what was fed; returns how many
    /// units that is.
    pub fn write_kept(&mut self, out: &mut Output) -> io::Result<u64> {
        let held = self.ring.make_contiguous();
        let (start, shown) = self.unit.last_start(held, self.limit);
        self.kept = (held.len() - start) as u64;
        out.data(&held[start..])?;
        Ok(shown)
    }
}

impl Cap for TailUnits {
    fn feed(&mut self, piece: &[u8], _totals: &Totals, _out: &mut Output) -> io::Result<()> {
        self.ring.push(piece);
        Ok(())
    }

    fn finish(&mut self, totals: &Totals, out: &mut Output) -> io::Result<Outcome> {
        if totals.bytes() == 0 {
            return Ok(Outcome::Nothing(notice::NO_OUTPUT));
        }
        let shown = self.write_kept(out)?;
        // Cut when bytes came before the kept ones: no count needed.
        if self.kept == totals.bytes() {
            return Ok(Outcome::Whole);
        }
        // Zero when not counted: no notice reads it then.
        let total = totals.of(self.unit).unwrap_or(0);
        Ok(Outcome::Cut(
            Kind::TailUnits,
            Facts {
                shown,
                limit: self.limit,
                total,
                omitted: total.saturating_sub(shown),
                unit: self.unit.name(),
                first: total.saturating_sub(shown) + 1,
                last: total,
                next_offset: total,
            },
        ))
    }

    fn cut(&self, totals: &Totals) -> Cut {
        Cut { before_byte: Some(totals.bytes() - self.kept), ..Cut::default() }
    }
}
