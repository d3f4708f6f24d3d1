//! `--keep REGEX`: lines that a cap cut but that match are shown after the
//! notice, so a tail cap that cut a build's first error still shows it.

use std::collections::VecDeque;
use std::convert::Infallible;

use crate::caps::{Cut, LineShaper};
use crate::count::{Totals, Unit};
use crate::matcher::{self, Event, LineAssembler, Matcher};
use crate::notice;

/// What a cap keeps at the head of the stream, as far as rescuing goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Head {
    /// Nothing.
    None,
    /// Lines up to this number.
    Lines(u64),
    /// This many units.
    Units(u64),
}

/// How far from the end a cap may keep the tail of the stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tail {
    /// It keeps no tail.
    None,
    /// This many lines.
    Lines(u64),
    /// At most this many bytes.
    Bytes(u64),
}

/// A matching line that may be in the cut part.
#[derive(Debug)]
struct Candidate {
    number: u64,
    start: u64,
    end: u64,
    /// `LINE:text`, for a candidate that would be among the first shown.
    text: Option<Vec<u8>>,
}

/// Finds the cut lines that match, holding only the first `max` of them.
///
/// A tail cap's cut ends where the kept tail starts, known only at the end;
/// the matches that may still fall inside the tail wait in a queue no longer
/// than the tail itself, while those surely cut are counted at once.
#[derive(Debug)]
pub struct Rescuer {
    matcher: Matcher,
    pattern: String,
    max: u64,
    width: u64,
    unit: Unit,
    head: Head,
    tail: Tail,
    assembler: LineAssembler,
    /// Where the head ends, once known (for [`Head::Units`]).
    head_end: Option<u64>,
    /// The totals before the current piece.
    before: Totals,
    /// Stream offset of the next byte the assembler hands out.
    pos: u64,
    /// Cut matching lines counted.
    count: u64,
    /// The first `max` of them.
    shown: Vec<Vec<u8>>,
    pending: VecDeque<Candidate>,
    /// A matching line too long to hold, still in progress.
    current: Option<Candidate>,
}

impl Rescuer {
    /// Rescues lines matching `matcher` (written as `pattern` in the
    /// notice), at most `max`, each cut to `width` units.
    pub fn new(
        matcher: Matcher,
        pattern: String,
        max: u64,
        width: u64,
        unit: Unit,
        head: Head,
        tail: Tail,
    ) -> Self {
        Rescuer {
            matcher,
            pattern,
            max,
            width,
            unit,
            head,
            tail,
            assembler: LineAssembler::default(),
            head_end: None,
            before: Totals::default(),
            pos: 0,
            count: 0,
            shown: Vec::new(),
            pending: VecDeque::new(),
            current: None,
        }
    }

    /// Matches lines on their first `limit` bytes.
    #[must_use]
    pub fn with_line_limit(self, limit: usize) -> Self {
        Rescuer { assembler: LineAssembler::new(limit), ..self }
    }

    /// Takes the next piece of the stream; `totals` counts up to its end.
    pub fn feed(&mut self, piece: &[u8], totals: &Totals) {
        if let (Head::Units(h), None) = (self.head, self.head_end) {
            let before = self.before.of(self.unit);
            if totals.of(self.unit) >= h {
                self.head_end = Some(self.before.bytes + self.unit.advance(piece, h - before).0 as u64);
            }
        }
        let mut assembler = std::mem::take(&mut self.assembler);
        let _ = assembler.feed(piece, |event| {
            self.take(&event, totals);
            Ok::<(), Infallible>(())
        });
        self.assembler = assembler;
        while self.pending.front().is_some_and(|c| self.surely_cut(c, totals)) {
            if let Some(c) = self.pending.pop_front() {
                self.confirm(c);
            }
        }
        self.before = *totals;
    }

    /// The lines to print after the notice: a header and `LINE:text` lines,
    /// or none when no cut line matched. `cut` is the cap's cut part.
    pub fn finish(mut self, totals: &Totals, cut: &Cut) -> Vec<Vec<u8>> {
        let mut assembler = std::mem::take(&mut self.assembler);
        let _ = assembler.finish(|event| {
            self.take(&event, totals);
            Ok::<(), Infallible>(())
        });
        for c in std::mem::take(&mut self.pending) {
            if cut.holds(c.number, c.start, c.end) {
                self.confirm(c);
            }
        }
        if self.count == 0 {
            return Vec::new();
        }
        let header = notice::rescued_header(&self.pattern, self.count, self.shown.len() as u64);
        std::iter::once(header.into_bytes()).chain(self.shown).collect()
    }

    fn take(&mut self, event: &Event, totals: &Totals) {
        let start = self.pos;
        let (bytes, ends) = match *event {
            Event::Line { number, bytes, whole } => {
                let body = if whole { matcher::content(bytes) } else { bytes };
                if self.matcher.is_match(body) && self.after_head(number, start) {
                    let wants_text = (self.shown.len() + self.pending.len()) < self.max as usize;
                    let text = wants_text.then(|| notice::rescued_prefix(number).into_bytes());
                    self.current = Some(Candidate { number, start, end: 0, text });
                }
                (bytes, whole)
            }
            Event::Rest { bytes, ends } => (bytes, ends),
        };
        self.pos += bytes.len() as u64;
        if let Some(Candidate { text: Some(text), .. }) = &mut self.current {
            // Enough to tell whether the line is longer than the width.
            let room =
                usize::try_from(self.unit.max_bytes(self.width)).unwrap_or(usize::MAX).saturating_add(24);
            text.extend_from_slice(&bytes[..bytes.len().min(room.saturating_sub(text.len()))]);
        }
        if ends && let Some(mut c) = self.current.take() {
            c.end = self.pos;
            if let Some(text) = &mut c.text {
                // The ending may have come in pieces; past the room it does
                // not matter, the line is longer than the width.
                let body = matcher::content(text).len();
                text.truncate(body);
                let prefix = notice::rescued_prefix(c.number).len();
                *text = shape(&text[..], prefix, self.width, self.unit);
            }
            if self.pending.is_empty() && self.surely_cut(&c, totals) {
                self.confirm(c);
            } else {
                self.pending.push_back(c);
            }
        }
    }

    fn after_head(&self, number: u64, start: u64) -> bool {
        match self.head {
            Head::None => true,
            Head::Lines(n) => number > n,
            Head::Units(_) => self.head_end.is_some_and(|end| start >= end),
        }
    }

    /// Whether a finished candidate lies before any tail the cap can keep.
    fn surely_cut(&self, c: &Candidate, totals: &Totals) -> bool {
        match self.tail {
            Tail::None => true,
            Tail::Lines(t) => c.number.saturating_add(t) <= totals.lines,
            Tail::Bytes(span) => c.end.saturating_add(span) <= totals.bytes,
        }
    }

    fn confirm(&mut self, c: Candidate) {
        self.count += 1;
        if let Some(text) = c.text
            && (self.shown.len() as u64) < self.max
        {
            self.shown.push(text);
        }
    }
}

/// `LINE:text` with the line cap applied to the text after the prefix.
fn shape(line: &[u8], prefix: usize, width: u64, unit: Unit) -> Vec<u8> {
    let mut out = line[..prefix].to_vec();
    let mut shaper = LineShaper::new(Some(width), unit, false);
    // Writing to a Vec cannot fail.
    let _ = shaper.piece(0, &line[prefix..], &mut out);
    let _ = shaper.finish(&mut out);
    out
}
