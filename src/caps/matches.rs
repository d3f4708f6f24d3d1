//! `--max-matches N --pattern REGEX`: the first N matching lines; the
//! others are dropped and counted.

use std::io;

use super::{Cap, Cut, LineShaper, Outcome};
use crate::count::Totals;
use crate::matcher::{self, Event, LineAssembler, Matcher};
use crate::notice::{self, Facts, Kind};
use crate::output::Output;

/// Writes the first `limit` lines that match as they arrive.
#[derive(Debug)]
pub struct Matches {
    limit: u64,
    matcher: Matcher,
    assembler: LineAssembler,
    shaper: LineShaper,
    /// Matching lines so far.
    count: u64,
    /// Whether the line in progress (one too long to hold) matched.
    matching: bool,
}

impl Matches {
    /// Keeps the first `limit` lines that `matcher` matches, matched on
    /// their first `line_limit` bytes.
    pub fn new(limit: u64, matcher: Matcher, line_limit: usize, shaper: LineShaper) -> Self {
        Matches {
            limit,
            matcher,
            assembler: LineAssembler::new(line_limit),
            shaper,
            count: 0,
            matching: false,
        }
    }
}

/// Takes one line event: counts a match and writes it while under the cap.
fn take(m: &mut Matches, event: &Event, out: &mut Output) -> io::Result<()> {
    let (number, bytes) = match *event {
        Event::Line { number, bytes, whole } => {
            m.matching = m.matcher.is_match(if whole { matcher::content(bytes) } else { bytes });
            m.count += u64::from(m.matching);
            (number, bytes)
        }
        Event::Rest { bytes, .. } => (0, bytes),
    };
    if m.matching && m.count <= m.limit { m.shaper.piece(number, bytes, out) } else { Ok(()) }
}

impl Cap for Matches {
    fn feed(&mut self, piece: &[u8], _totals: &Totals, out: &mut Output) -> io::Result<()> {
        let mut assembler = std::mem::take(&mut self.assembler);
        let result = assembler.feed(piece, |event| take(self, &event, out));
        self.assembler = assembler;
        result
    }

    fn finish(&mut self, _totals: &Totals, out: &mut Output) -> io::Result<Outcome> {
        let mut assembler = std::mem::take(&mut self.assembler);
        assembler.finish(|event| take(self, &event, out))?;
        self.shaper.finish(out)?;
        if self.count == 0 {
            return Ok(Outcome::Nothing(notice::NO_MATCHES));
        }
        if self.count <= self.limit {
            return Ok(Outcome::Whole);
        }
        Ok(Outcome::Cut(
            Kind::Matches,
            Facts {
                shown: self.limit,
                limit: self.limit,
                total: self.count,
                omitted: self.count - self.limit,
                unit: "matches",
                first: 1,
                last: self.limit,
                next_offset: self.limit,
            },
        ))
    }

    fn matches(&self, _totals: &Totals) -> Option<u64> {
        Some(self.count)
    }

    fn cut(&self, _totals: &Totals) -> Cut {
        // Rescuing lines does not go with --max-matches.
        Cut::default()
    }
}
