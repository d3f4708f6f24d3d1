//! `--max-matches N [--offset K] [--pattern REGEX]`: matching lines
//! K+1 … K+N; the others are dropped and counted. Without a pattern every
//! line that is not empty matches, as the `grep` tool of the common agent
//! harnesses drops empty lines.

use std::io;

use super::{Budget, Cap, Cut, LineShaper, Outcome};
use crate::notice::{self, Facts, Kind};
use crate::output::Output;
use crate::search::matcher::{Event, LineSearch, Matcher};
use crate::text::count::Totals;

/// Writes the matching lines of the page as they arrive.
#[derive(Debug)]
pub struct Matches {
    limit: u64,
    /// Matching lines skipped before the page.
    offset: u64,
    /// Finds the matching lines.
    search: LineSearch,
    shaper: LineShaper,
    /// `--budget-chars`: the page ends early at the last line that fits.
    budget: Option<Budget>,
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
        Matches { limit, offset: 0, search, shaper, budget: None, count: 0, number: 0 }
    }

    /// The same, past the first `offset` matches, with a budget of
    /// `budget` units for all the lines kept.
    #[must_use]
    pub fn paged(mut self, offset: u64, budget: Option<u64>) -> Self {
        self.offset = offset;
        self.budget = budget.map(|b| Budget::new(b, &self.shaper));
        self
    }

    /// The number of the last match of the page, once the stream has
    /// ended.
    fn last_kept(&self) -> u64 {
        match &self.budget {
            Some(b) if b.spent() => self.offset + b.kept(),
            _ => self.offset.saturating_add(self.limit).min(self.count),
        }
    }
}

/// Takes one matching line, or more of it: counts it and writes it while
/// on the page.
fn take(m: &mut Matches, event: &Event, out: &mut Output) -> io::Result<()> {
    let bytes = match *event {
        Event::Line { number: line, bytes, .. } => {
            m.number = line;
            m.count += 1;
            bytes
        }
        Event::Rest { bytes, .. } => bytes,
    };
    if m.count <= m.offset || m.count - m.offset > m.limit {
        return Ok(());
    }
    match &mut m.budget {
        Some(budget) => budget.piece(m.number, bytes, &mut m.shaper, out),
        None => m.shaper.piece(m.number, bytes, out),
    }
}

impl Cap for Matches {
    fn feed(&mut self, piece: &[u8], _totals: &Totals, out: &mut Output) -> io::Result<()> {
        let mut search = std::mem::replace(&mut self.search, LineSearch::new(None, 0));
        let fed = search.feed(piece, |event| take(self, &event, out));
        if self.count > self.offset.saturating_add(self.limit) {
            // Past the cap lines are only counted: their numbers are not
            // needed, and counting newlines is most of the cost of a
            // pattern that matches often.
            search.stop_numbering();
        }
        self.search = search;
        fed
    }

    fn finish(&mut self, _totals: &Totals, out: &mut Output) -> io::Result<Outcome> {
        let mut search = std::mem::replace(&mut self.search, LineSearch::new(None, 0));
        let found = search.finish(|event| take(self, &event, out));
        self.search = search;
        found?;
        match &mut self.budget {
            Some(budget) => budget.finish(&mut self.shaper, out)?,
            None => self.shaper.finish(out)?,
        }
        if self.count == 0 {
            return Ok(Outcome::Nothing(notice::NO_MATCHES));
        }
        let total = self.count;
        if self.offset >= total {
            let facts = Facts {
                limit: self.limit,
                total,
                unit: "matches",
                first: self.offset.saturating_add(1),
                last: self.offset,
                next_offset: self.offset,
                ..Facts::default()
            };
            return Ok(Outcome::Cut(Kind::MatchesPastEnd, facts));
        }
        let last = self.last_kept();
        let shown = last - self.offset;
        let facts = Facts {
            shown,
            limit: self.limit,
            total,
            omitted: total - shown,
            unit: "matches",
            first: self.offset + 1,
            last,
            next_offset: last,
        };
        Ok(match (self.offset, last == total) {
            (0, true) => Outcome::Whole,
            (_, true) => Outcome::Page(Kind::MatchesLastPage, facts),
            (0, false) => Outcome::Cut(Kind::Matches, facts),
            (_, false) => Outcome::Cut(Kind::MatchesPage, facts),
        })
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

    fn shown(&self, _totals: &Totals) -> Option<(u64, u64)> {
        (self.count > self.offset).then(|| (self.offset + 1, self.last_kept()))
    }
}
