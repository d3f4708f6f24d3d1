//! `--max-matches N [--pattern REGEX]`: the first N matching lines; the
//! others are dropped and counted. Without a pattern every line that is
//! not empty matches, as the `grep` tool of the common agent harnesses
//! drops empty lines.

use std::io;

use super::{Cap, Cut, LineShaper, Outcome};
use crate::count::Totals;
use crate::matcher::{Event, LineSearch, Matcher};
use crate::notice::{self, Facts, Kind};
use crate::output::Output;

/// Writes the first `limit` lines that match as they arrive.
#[derive(Debug)]
pub struct Matches {
    limit: u64,
    /// Finds the matching lines.
    search: LineSearch,
    shaper: LineShaper,
    /// Matching lines so far.
    count: u64,
    /// The number of the matching line in progress.
    number: u64,
}

impl Matches {
    /// Keeps the first `limit` lines that `matcher` matches (`None`: that
    /// are not empty), matched on their first `line_limit` bytes.
    pub fn new(limit: u64, matcher: Option<Matcher>, line_limit: usize, shaper: LineShaper) -> Self {
        let mut search = LineSearch::new(matcher, line_limit);
        // Line numbers are only shown: without them, counting the lines
        // between rare matches would be a pass over the whole input.
        if !shaper.numbers() {
            search.stop_numbering();
        }
        Matches { limit, search, shaper, count: 0, number: 0 }
    }
}

/// Takes one matching line, or more of it: counts it and writes it while
/// under the cap.
fn take(
    count: &mut u64,
    number: &mut u64,
    limit: u64,
    shaper: &mut LineShaper,
    event: &Event,
    out: &mut Output,
) -> io::Result<()> {
    let bytes = match *event {
        Event::Line { number: line, bytes, .. } => {
            *number = line;
            *count += 1;
            bytes
        }
        Event::Rest { bytes, .. } => bytes,
    };
    if *count <= limit { shaper.piece(*number, bytes, out) } else { Ok(()) }
}

impl Cap for Matches {
    fn feed(&mut self, piece: &[u8], _totals: &Totals, out: &mut Output) -> io::Result<()> {
        let Matches { limit, search, shaper, count, number } = self;
        search.feed(piece, |event| take(count, number, *limit, shaper, &event, out))?;
        if *count > *limit {
            // Past the cap lines are only counted: their numbers are not
            // needed, and counting newlines is most of the cost of a
            // pattern that matches often.
            search.stop_numbering();
        }
        Ok(())
    }

    fn finish(&mut self, _totals: &Totals, out: &mut Output) -> io::Result<Outcome> {
        let Matches { limit, search, shaper, count, number } = self;
        search.finish(|event| take(count, number, *limit, shaper, &event, out))?;
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

    /// Past the cap once a match past it was seen: the notice then says
    /// truly that there were more.
    fn past_cap(&self) -> bool {
        self.count > self.limit
    }

    fn cut(&self, _totals: &Totals) -> Cut {
        // Rescuing lines does not go with --max-matches.
        Cut::default()
    }
}
