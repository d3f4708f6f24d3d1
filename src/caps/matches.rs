//! `--max-matches N [--pattern REGEX]`: the first N matching lines; the
//! others are dropped and counted. Without a pattern every line that is
//! not empty matches, as the reference grep tool drops empty lines.

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
    /// `None` for every line that is not empty.
    matcher: Option<Matcher>,
    assembler: LineAssembler,
    shaper: LineShaper,
    /// Matching lines so far.
    count: u64,
    /// Whether the line in progress (one too long to hold) matched.
    matching: bool,
    /// The number of the line in progress: its first part may be empty
    /// (a limit smaller than its first character), so the rest numbers it.
    number: u64,
}

impl Matches {
    /// Keeps the first `limit` lines that `matcher` matches, matched on
    /// their first `line_limit` bytes.
    pub fn new(limit: u64, matcher: Option<Matcher>, line_limit: usize, shaper: LineShaper) -> Self {
        Matches {
            limit,
            matcher,
            assembler: LineAssembler::new(line_limit),
            shaper,
            count: 0,
            matching: false,
            number: 0,
        }
    }
}

/// Takes one line event: counts a match and writes it while under the cap.
fn take(m: &mut Matches, event: &Event, out: &mut Output) -> io::Result<()> {
    let bytes = match *event {
        Event::Line { number, bytes, whole } => {
            m.number = number;
            m.matching = match &m.matcher {
                Some(pattern) => pattern.is_match(if whole { matcher::content(bytes) } else { bytes }),
                // A line too long to hold whole is not empty.
                None => !whole || !matcher::content(bytes).is_empty(),
            };
            m.count += u64::from(m.matching);
            bytes
        }
        Event::Rest { bytes, .. } => bytes,
    };
    if m.matching && m.count <= m.limit { m.shaper.piece(m.number, bytes, out) } else { Ok(()) }
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
