//! `--keep REGEX`: lines that a cap cut but that match are shown after the
//! notice, so a tail cap that cut a build's first error still shows it.

use std::collections::VecDeque;
use std::convert::Infallible;

use memchr::{memchr_iter, memrchr};

use crate::caps::{Cut, LineShaper};
use crate::notice;
use crate::search::matcher::{self, Event, LineSearch, Matcher};
use crate::text::count::{Totals, Unit};

/// What a cap keeps at the head of the stream, as far as rescuing goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Head {
    /// Nothing.
    None,
    /// Lines up to this number.
    Lines(u64),
    /// This many units.
    Units(u64),
    /// This many estimated tokens.
    Tokens(u64),
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

/// A matching line among the first `max`, held with its text until it is
/// known whether the cap cut it.
#[derive(Debug)]
struct Held {
    number: u64,
    start: u64,
    end: u64,
    /// `LINE:text`.
    text: Vec<u8>,
}

/// The matching line in progress.
#[derive(Debug)]
struct Current {
    number: u64,
    start: u64,
    /// Its bytes so far.
    len: u64,
    /// `LINE:` and the line's first bytes, for one of the first `max`.
    text: Option<Vec<u8>>,
}

/// Finds the cut lines that match, holding only the first `max` of them.
///
/// Lines are matched as the transforms left them, before a line cap writes
/// its marker into them; their offsets are those of the stream the cap
/// counts, after the line cap. A tail cap's cut ends where the kept tail
/// starts, known only at the end: the matching lines past the first `max`
/// that may still fall inside the tail are one bit each in a [`Window`] no
/// longer than the tail, so memory does not grow with the number of lines.
#[derive(Debug)]
pub struct Rescuer {
    pattern: String,
    max: u64,
    width: u64,
    unit: Unit,
    head: Head,
    tail: Tail,
    /// Finds the matching lines.
    search: LineSearch,
    /// Where the head ends in the capped stream, once known (for
    /// [`Head::Units`]).
    head_end: Option<u64>,
    /// Finds where a head of [`Head::Tokens`] ends, as the cap does.
    tokens: crate::tokens::Estimator,
    /// The totals before the current piece.
    before: Totals,
    /// Every piece so far came with `capped` the piece itself (no line cap
    /// rewrites lines before the cap): the search's offsets are those of
    /// the capped stream, and `lines` is not kept.
    aligned: bool,
    /// Where line starts are, in the capped stream, once not `aligned`.
    lines: LineStarts,
    /// Matching lines after the head so far.
    candidates: u64,
    /// The first `max` of them.
    held: Vec<Held>,
    /// The others.
    window: Window,
    current: Option<Current>,
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
            pattern,
            max,
            width,
            unit,
            head,
            tail,
            search: LineSearch::new(Some(matcher), matcher::LINE_LIMIT),
            head_end: None,
            tokens: crate::tokens::Estimator::default(),
            before: Totals::new(crate::text::count::Need::ALL),
            aligned: true,
            lines: LineStarts::default(),
            candidates: 0,
            held: Vec::new(),
            window: Window::default(),
            current: None,
        }
    }

    /// Matches lines on their first `limit` bytes.
    #[must_use]
    pub fn with_line_limit(self, limit: usize) -> Self {
        Rescuer { search: self.search.with_limit(limit), ..self }
    }

    /// Takes the next piece of the stream: `piece` as the transforms left
    /// it, `capped` the same lines as the cap gets them (after a line cap;
    /// `piece` itself without one: the same slice, not a copy). `totals`
    /// counts `capped` up to its end.
    pub fn feed(&mut self, piece: &[u8], capped: &[u8], totals: &Totals) {
        if self.aligned && !std::ptr::eq(piece, capped) {
            // The streams were one up to here: the capped one's lines are
            // found from the line in progress on.
            self.aligned = false;
            let (line, start) = self.search.line_in_progress();
            self.lines = LineStarts { base: self.before.bytes(), cursor: 0, line, start };
        }
        if let (Head::Units(h), None) = (self.head, self.head_end) {
            // Counted: a head of units with --keep counts them.
            let before = self.before.of(self.unit).unwrap_or(0);
            if totals.of(self.unit).unwrap_or(0) >= h {
                self.head_end = Some(self.before.bytes() + self.unit.advance(capped, h - before).0 as u64);
            }
        }
        if let (Head::Tokens(n), None) = (self.head, self.head_end) {
            self.head_end = self.tokens.cut_after(capped, n);
        }
        let mut search = std::mem::replace(&mut self.search, LineSearch::new(None, 0));
        let _ = search.feed(piece, |event| {
            self.take(&event, capped, totals, false);
            Ok::<(), Infallible>(())
        });
        self.search = search;
        if !self.aligned {
            self.lines.pass(capped);
        } else if !piece.is_empty() && self.candidates >= self.max && !self.needs_numbers() {
            // A piece that is not empty was the capped one itself: there is
            // no line cap, so the rescuer stays aligned and needs no line
            // numbers to place the lines.
            self.search.stop_numbering();
        }
        self.before = *totals;
    }

    /// The lines to print after the notice: a header and `LINE:text` lines,
    /// or none when no cut line matched. `cut` is the cap's cut part.
    pub fn finish(mut self, totals: &Totals, cut: &Cut) -> Vec<Vec<u8>> {
        if let (Head::Tokens(n), None) = (self.head, self.head_end) {
            self.head_end = self.tokens.cut_at_end(n);
        }
        let mut search = std::mem::replace(&mut self.search, LineSearch::new(None, 0));
        let _ = search.finish(|event| {
            self.take(&event, &[], totals, true);
            Ok::<(), Infallible>(())
        });
        let shown: Vec<Vec<u8>> =
            self.held.into_iter().filter(|h| cut.holds(h.number, h.start, h.end)).map(|h| h.text).collect();
        let last = match self.tail {
            Tail::None => u64::MAX,
            Tail::Lines(_) => cut.before_line.map_or(u64::MAX, |n| n.saturating_sub(1)),
            Tail::Bytes(_) => cut.before_byte.unwrap_or(u64::MAX),
        };
        let count = shown.len() as u64 + self.window.count_to(last);
        if count == 0 {
            return Vec::new();
        }
        let header = notice::rescued_header(&self.pattern, count, shown.len() as u64);
        std::iter::once(header.into_bytes()).chain(shown).collect()
    }

    /// Takes one matching line, or more of it; `capped` is the current
    /// piece of the capped stream, `at_end` says the input is over.
    fn take(&mut self, event: &Event, capped: &[u8], totals: &Totals, at_end: bool) {
        let (bytes, ends) = match *event {
            Event::Line { number, bytes, whole, start } => {
                let start = if self.aligned { start } else { self.lines.start_of(number, capped) };
                if self.after_head(number, start) {
                    let text =
                        (self.candidates < self.max).then(|| notice::rescued_prefix(number).into_bytes());
                    self.candidates += 1;
                    self.current = Some(Current { number, start, len: 0, text });
                }
                (bytes, whole)
            }
            Event::Rest { bytes, ends } => (bytes, ends),
        };
        let Some(current) = &mut self.current else { return };
        current.len += bytes.len() as u64;
        if let Some(text) = &mut current.text {
            // Enough to tell whether the line is longer than the width.
            let room =
                usize::try_from(self.unit.max_bytes(self.width)).unwrap_or(usize::MAX).saturating_add(24);
            text.extend_from_slice(&bytes[..bytes.len().min(room.saturating_sub(text.len()))]);
        }
        if !ends {
            return;
        }
        let Some(Current { number, start, len, text }) = self.current.take() else { return };
        let end = if self.aligned {
            start + len
        } else if at_end {
            totals.bytes()
        } else {
            self.lines.start_of(number + 1, capped)
        };
        if let Some(mut text) = text {
            // The ending may have come in pieces; past the room it does not
            // matter, the line is longer than the width.
            text.truncate(matcher::content(&text).len());
            let prefix = notice::rescued_prefix(number).len();
            let text = shape(&text, prefix, self.width, self.unit);
            self.held.push(Held { number, start, end, text });
            return;
        }
        let (position, span, frontier) = match self.tail {
            Tail::None => return self.window.dropped += 1,
            Tail::Lines(t) => (number, t, totals.newlines().unwrap_or(0)),
            Tail::Bytes(span) => (end, span, totals.bytes()),
        };
        self.window.insert(position, frontier.checked_sub(span).map_or(0, |p| p + 1));
    }

    /// Whether lines past the first `max` are placed by their numbers.
    fn needs_numbers(&self) -> bool {
        matches!(self.head, Head::Lines(_)) || matches!(self.tail, Tail::Lines(_))
    }

    fn after_head(&self, number: u64, start: u64) -> bool {
        match self.head {
            Head::None => true,
            Head::Lines(n) => number > n,
            Head::Units(_) | Head::Tokens(_) => self.head_end.is_some_and(|end| start >= end),
        }
    }
}

/// Finds where lines start in the capped stream, moving forward only.
#[derive(Debug)]
struct LineStarts {
    /// Offset in the stream of the current piece.
    base: u64,
    /// Bytes of the current piece already passed.
    cursor: usize,
    /// The line that starts at or contains the cursor, and its start.
    line: u64,
    start: u64,
}

impl Default for LineStarts {
    fn default() -> Self {
        LineStarts { base: 0, cursor: 0, line: 1, start: 0 }
    }
}

impl LineStarts {
    /// Where line `number` starts; it must start before the end of `piece`
    /// (the current piece), and not before the last line asked for.
    fn start_of(&mut self, number: u64, piece: &[u8]) -> u64 {
        if number > self.line {
            let skip = usize::try_from(number - self.line - 1).unwrap_or(usize::MAX);
            if let Some(i) = nth_newline(&piece[self.cursor..], skip) {
                self.cursor += i + 1;
                self.line = number;
                self.start = self.base + self.cursor as u64;
            }
        }
        self.start
    }

    /// Moves past the rest of `piece`, the current piece.
    fn pass(&mut self, piece: &[u8]) {
        let rest = &piece[self.cursor..];
        if let Some(last) = memrchr(b'\n', rest) {
            self.line += bytecount::count(rest, b'\n') as u64;
            self.start = self.base + (self.cursor + last + 1) as u64;
        }
        self.base += piece.len() as u64;
        self.cursor = 0;
    }
}

/// Where the `n`-th newline of `bytes` is (from 0). Matching lines may be
/// far apart: the lines between are counted a block at a time, not
/// stepped over one by one.
fn nth_newline(bytes: &[u8], mut n: usize) -> Option<usize> {
    const BLOCK: usize = 256;
    let mut base = 0;
    while bytes.len() - base > BLOCK {
        let count = bytecount::count(&bytes[base..base + BLOCK], b'\n');
        if count > n {
            break;
        }
        n -= count;
        base += BLOCK;
    }
    memchr_iter(b'\n', &bytes[base..]).nth(n).map(|i| base + i)
}

/// Positions (line numbers or end offsets) of matching lines that may lie
/// in a tail, one bit each, from the oldest that may still be in it. Older
/// ones are surely cut and only counted, so it spans at most the tail.
#[derive(Debug, Default)]
struct Window {
    /// The position of the first bit of `words`, a multiple of 64.
    base: u64,
    words: VecDeque<u64>,
    /// Positions counted and dropped.
    dropped: u64,
}

impl Window {
    /// Adds `position`, no lower than any before it; positions below
    /// `cut_below` are surely cut.
    fn insert(&mut self, position: u64, cut_below: u64) {
        // Whole words at a time: matching lines may be far apart.
        let cut = usize::try_from(cut_below.saturating_sub(self.base) / 64).unwrap_or(usize::MAX);
        let cut = cut.min(self.words.len());
        self.dropped += self.words.range(..cut).map(|w| u64::from(w.count_ones())).sum::<u64>();
        self.words.drain(..cut);
        self.base += 64 * cut as u64;
        if self.words.is_empty() {
            self.base = position & !63;
        }
        let index = usize::try_from((position - self.base) / 64).unwrap_or(usize::MAX);
        if self.words.len() <= index {
            self.words.resize(index + 1, 0);
        }
        self.words[index] |= 1 << ((position - self.base) % 64);
    }

    /// The positions up to `last`.
    fn count_to(&self, last: u64) -> u64 {
        let mut count = self.dropped;
        for (i, &word) in self.words.iter().enumerate() {
            let from = self.base + 64 * i as u64;
            if from > last {
                break;
            }
            let bits = last - from;
            let mask = if bits >= 63 { u64::MAX } else { (1 << (bits + 1)) - 1 };
            count += u64::from((word & mask).count_ones());
        }
        count
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::count::Need;

    /// Feeds `lines` empty lines in pieces of 64 KiB; returns the rescuer
    /// and the totals.
    fn feed_empty_lines(tail: Tail, lines: usize) -> (Rescuer, Totals) {
        let matcher = Matcher::new("^", false).expect("valid");
        let mut rescuer = Rescuer::new(matcher, "^".into(), 2, 10, Unit::Chars, Head::None, tail);
        let piece = vec![b'\n'; 1 << 16];
        let mut totals = Totals::new(Need::ALL);
        let mut left = lines;
        let mut widest = 0;
        while left > 0 {
            let piece = &piece[..left.min(piece.len())];
            totals.add(piece);
            rescuer.feed(piece, piece, &totals);
            widest = widest.max(rescuer.window.words.len());
            left -= piece.len();
        }
        assert!(rescuer.held.len() <= 2);
        let span = match tail {
            Tail::Lines(n) | Tail::Bytes(n) => n,
            Tail::None => 0,
        };
        assert!(widest as u64 <= span / 64 + 2, "{widest} words for a tail of {span}");
        (rescuer, totals)
    }

    /// The matching lines of `input` (pattern `a`, on their first `limit`
    /// bytes) as the rescuer holds them, fed in pieces of 1 to 7 bytes
    /// drawn from `seed`; `capped` a copy of each piece or the piece itself.
    fn held_lines(input: &[u8], limit: usize, seed: u64, copy: bool) -> Vec<(u64, u64, u64)> {
        let matcher = Matcher::new("a", false).expect("valid");
        let mut rescuer =
            Rescuer::new(matcher, "a".into(), u64::MAX, 5, Unit::Chars, Head::None, Tail::Bytes(1 << 20))
                .with_line_limit(limit);
        let mut totals = Totals::new(Need::ALL);
        let (mut state, mut at) = (seed, 0);
        while at < input.len() {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let end = input.len().min(at + 1 + (state >> 33) as usize % 7);
            let piece = &input[at..end];
            totals.add(piece);
            let copied = piece.to_vec();
            rescuer.feed(piece, if copy { &copied } else { piece }, &totals);
            at = end;
        }
        let mut search = std::mem::replace(&mut rescuer.search, LineSearch::new(None, 0));
        let _ = search.finish(|event| {
            rescuer.take(&event, &[], &totals, true);
            Ok::<(), Infallible>(())
        });
        rescuer.held.iter().map(|h| (h.number, h.start, h.end)).collect()
    }

    /// Without a line cap the rescuer takes each line's place from the
    /// search; with one it finds it in the capped stream: both give each
    /// matching line's number, start and end, however the input is split.
    #[test]
    fn holds_each_matching_line_at_its_place_in_the_stream() {
        let input = b"ab\r\nb\n\naaaaaaaaaa\nba\rb\n\nxxa\naaaaaaaaaaaa";
        let mut want = Vec::new();
        let mut start = 0;
        for (i, line) in input.split_inclusive(|&b| b == b'\n').enumerate() {
            let end = start + line.len() as u64;
            if line.contains(&b'a') {
                want.push((i as u64 + 1, start, end));
            }
            start = end;
        }
        for limit in [3, matcher::LINE_LIMIT] {
            for seed in 0..50 {
                for copy in [false, true] {
                    assert_eq!(held_lines(input, limit, seed, copy), want, "{limit} {seed} {copy}");
                }
            }
        }
    }

    #[test]
    fn finds_the_nth_newline_across_blocks() {
        let bytes: Vec<u8> = (0..2000).map(|i| if i % 7 == 3 { b'\n' } else { b'x' }).collect();
        let want: Vec<usize> = memchr_iter(b'\n', &bytes).collect();
        for (n, &at) in want.iter().enumerate() {
            assert_eq!(nth_newline(&bytes, n), Some(at), "{n}");
        }
        assert_eq!(nth_newline(&bytes, want.len()), None);
        assert_eq!(nth_newline(b"", 0), None);
    }

    #[test]
    fn a_tail_window_holds_one_bit_per_position_of_the_tail() {
        let (rescuer, totals) = feed_empty_lines(Tail::Bytes(1000), 1_000_000);
        let cut = Cut { before_byte: Some(totals.bytes() - 600), ..Cut::default() };
        let lines = rescuer.finish(&totals, &cut);
        assert_eq!(lines[0], b"... (cut lines matching ^: 999400, showing first 2)");
        assert_eq!(&lines[1..], [b"1:".to_vec(), b"2:".to_vec()]);

        let (rescuer, totals) = feed_empty_lines(Tail::Lines(300), 1_000_000);
        let cut = Cut { before_line: Some(totals.lines().unwrap() - 300 + 1), ..Cut::default() };
        let lines = rescuer.finish(&totals, &cut);
        assert_eq!(lines[0], b"... (cut lines matching ^: 999700, showing first 2)");
    }
}
