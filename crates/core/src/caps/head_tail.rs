//! The head+tail pairs: `--head-lines H --tail-lines T` and
//! `--head-chars H --tail-chars T`. The head streams out at once; the
//! tail is held; a middle line between them says what was omitted.

use std::io;

use super::{Cap, Cut, HeadLines, HeadUnits, LineSplitter, Outcome, TailLines, TailUnits};
use crate::notice::{self, Facts};
use crate::output::Output;
use crate::text::count::{Totals, Unit};

/// The facts of the middle line.
fn middle(head: u64, tail: u64, total: u64, unit: &'static str) -> Facts {
    let shown = head + tail;
    Facts {
        shown,
        limit: shown,
        total,
        omitted: total - shown,
        unit,
        first: head + 1,
        last: total - tail,
        next_offset: head,
    }
}

/// `--head-lines H --tail-lines T`.
#[derive(Debug)]
pub struct HeadTailLines {
    head: HeadLines,
    tail: TailLines,
    splitter: LineSplitter,
}

impl HeadTailLines {
    /// The first `head` lines and the last `tail` lines of the rest.
    pub fn new(head: HeadLines, tail: TailLines) -> Self {
        HeadTailLines { head, tail, splitter: LineSplitter::default() }
    }
}

impl Cap for HeadTailLines {
    fn feed(&mut self, piece: &[u8], totals: &Totals, out: &mut Output) -> io::Result<()> {
        let head_end = self.head.last();
        if self.splitter.line() > head_end {
            return self.tail.feed(piece, totals, out);
        }
        let rest = self.splitter.skip_to(piece, head_end.saturating_add(1));
        self.head.feed(&piece[..piece.len() - rest.len()], totals, out)?;
        self.tail.feed(rest, totals, out)
    }

    fn finish(&mut self, totals: &Totals, out: &mut Output) -> io::Result<Outcome> {
        // The head's own verdict speaks of a head cap alone.
        self.head.finish(totals, out)?;
        let (head, tail, total) = (self.head.last(), self.tail.limit(), totals.lines().unwrap_or(0));
        if total == 0 {
            return Ok(Outcome::Nothing(notice::NO_OUTPUT));
        }
        if total - total.min(head) <= tail {
            self.tail.write_kept(out)?;
            return Ok(Outcome::Whole);
        }
        let facts = middle(head, tail, total, "lines");
        out.middle(&facts)?;
        self.tail.write_kept(out)?;
        Ok(Outcome::Middle(facts))
    }

    fn cut(&self, totals: &Totals) -> Cut {
        Cut { after_line: Some(self.head.last()), ..self.tail.cut(totals) }
    }
}

/// `--head-chars H --tail-chars T`.
#[derive(Debug)]
pub struct HeadTailChars {
    head: HeadUnits,
    tail: TailUnits,
    unit: Unit,
    limits: (u64, u64),
}

impl HeadTailChars {
    /// The first `head` units and the last `tail` units of the rest.
    pub fn new(head: u64, tail: u64, unit: Unit) -> Self {
        HeadTailChars {
            head: HeadUnits::new(head, unit),
            tail: TailUnits::new(tail, unit),
            unit,
            limits: (head, tail),
        }
    }
}

impl Cap for HeadTailChars {
    fn feed(&mut self, piece: &[u8], totals: &Totals, out: &mut Output) -> io::Result<()> {
        let end = self.head.split(piece);
        out.data(&piece[..end])?;
        self.tail.feed(&piece[end..], totals, out)
    }

    fn finish(&mut self, totals: &Totals, out: &mut Output) -> io::Result<Outcome> {
        let (head, tail) = self.limits;
        let total = totals.of(self.unit).unwrap_or(0);
        if total == 0 {
            return Ok(Outcome::Nothing(notice::NO_OUTPUT));
        }
        if total - self.head.taken() <= tail {
            self.tail.write_kept(out)?;
            return Ok(Outcome::Whole);
        }
        let facts = middle(head, tail, total, self.unit.name());
        out.middle(&facts)?;
        self.tail.write_kept(out)?;
        Ok(Outcome::Middle(facts))
    }

    fn cut(&self, totals: &Totals) -> Cut {
        Cut { after_byte: self.head.cut(totals).after_byte, ..self.tail.cut(totals) }
    }
}
