//! The one pass: read chunks, transform them, count totals, feed the cap.

use std::io::{self, Read};

use crate::caps::{Cap, Outcome};
use crate::count::{Need, Totals};
use crate::output::Output;
use crate::progress::Progress;
use crate::rescue::Rescuer;
use crate::save::Saver;
use crate::transform::{LineCap, Transforms};
use crate::{Error, utf8};

/// The default read size.
pub const READ_SIZE: usize = 64 * 1024;

/// The internal limits on how much of one line is held in memory. The
/// output never depends on how reads split the input, also past these
/// limits; tests shrink them to cross them with small inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The longest stretch of a line `--collapse-cr` holds while it waits
    /// to see whether a `\r` erases it; a longer one is passed on whole.
    pub collapse_cr: usize,
    /// The most of one line, in bytes, that patterns (`--pattern`,
    /// `--keep`) see; a longer line is matched on its start.
    pub pattern_line: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { collapse_cr: crate::transform::COLLAPSE_LIMIT, pattern_line: crate::matcher::LINE_LIMIT }
    }
}

/// How the pass ended.
#[derive(Debug)]
pub struct Pass {
    /// Totals of the whole stream.
    pub totals: Totals,
    /// What the cap did.
    pub outcome: Outcome,
    /// Matching lines, for a cap that counts matches.
    pub matches: Option<u64>,
}

/// What the stream goes through besides the cap.
#[derive(Debug)]
pub struct Stages {
    /// `--strip-ansi`, `--collapse-cr`.
    pub transforms: Transforms,
    /// `--max-line-chars` before a character cap, after `--keep`.
    pub line_cap: Option<LineCap>,
    /// `--keep`.
    pub rescuer: Option<Rescuer>,
    /// `--save`, `--save-dir`: gets the raw input.
    pub saver: Option<Saver>,
    /// `--progress`.
    pub progress: Option<Progress>,
    /// The totals to count.
    pub need: Need,
    /// Bytes asked of each read.
    pub read_size: usize,
}

impl Default for Stages {
    fn default() -> Self {
        Stages {
            transforms: Transforms::default(),
            line_cap: None,
            rescuer: None,
            saver: None,
            progress: None,
            need: Need::ALL,
            read_size: READ_SIZE,
        }
    }
}

/// Reads `input` to its end, feeding `cap` (and the stages) the stream.
pub fn pass(
    cap: &mut dyn Cap,
    input: impl Read,
    stages: &mut Stages,
    out: &mut Output,
) -> Result<Pass, Error> {
    let mut totals = Totals::default();
    let Stages { transforms, line_cap, rescuer, saver, progress, need, read_size } = stages;
    let mut pieces = Pieces::new(input, transforms, saver.as_mut(), *read_size);
    let mut capped = Vec::new();
    while let Some((piece, last)) = pieces.next().map_err(Error::Read)? {
        let capped: &[u8] = match line_cap {
            Some(line_cap) => {
                capped.clear();
                line_cap.apply(piece, &mut capped);
                if last {
                    line_cap.finish(&mut capped);
                }
                &capped
            }
            None => piece,
        };
        totals.add(capped, *need);
        if let Some(rescuer) = rescuer {
            rescuer.feed(piece, capped, &totals);
        }
        cap.feed(capped, &totals, out).map_err(Error::Write)?;
        out.flush().map_err(Error::Write)?;
        if let Some(progress) = progress {
            progress.tick(&totals, out.err());
        }
    }
    if let Some(progress) = progress {
        progress.finish(out.err());
    }
    if saver.as_ref().is_some_and(Saver::failed) {
        out.forget_saved();
    }
    let outcome = cap.finish(&totals, out).map_err(Error::Write)?;
    let matches = cap.matches(&totals);
    Ok(Pass { totals, outcome, matches })
}

/// The input as pieces that begin and end on character boundaries: the
/// bytes of a character split by a read are held back until the next one.
struct Pieces<'a, R> {
    input: R,
    transforms: &'a mut Transforms,
    saver: Option<&'a mut Saver>,
    /// Without transforms, reads land here, behind the bytes held back.
    /// With them, the raw read lands here and its transformed bytes go to
    /// `transformed`, behind the bytes held back.
    buf: Vec<u8>,
    transformed: Vec<u8>,
    /// Bytes of the last piece in `buf`, with those held back.
    filled: usize,
    held: usize,
    done: bool,
}

impl<'a, R: Read> Pieces<'a, R> {
    fn new(input: R, transforms: &'a mut Transforms, saver: Option<&'a mut Saver>, read_size: usize) -> Self {
        // Three spare bytes hold a character's start carried over.
        let buf = vec![0; read_size.max(1) + if transforms.any() { 0 } else { 3 }];
        Pieces { input, transforms, saver, buf, transformed: Vec::new(), filled: 0, held: 0, done: false }
    }

    /// The next piece, and whether it is the last; the last one (possibly
    /// empty) is whatever was held back at the end. `None` after that.
    fn next(&mut self) -> io::Result<Option<(&[u8], bool)>> {
        if self.done {
            return Ok(None);
        }
        let data: &[u8] = if self.transforms.any() {
            let n = read(&mut self.input, &mut self.buf)?;
            if let Some(saver) = &mut self.saver {
                saver.write(&self.buf[..n]);
            }
            // Keep only the held bytes at the front of the transformed buffer.
            let consumed = self.transformed.len() - self.held;
            self.transformed.drain(..consumed);
            if n == 0 {
                self.transforms.finish(&mut self.transformed);
            } else {
                self.transforms.apply(&self.buf[..n], &mut self.transformed);
            }
            self.done = n == 0;
            &self.transformed
        } else {
            self.buf.copy_within(self.filled - self.held..self.filled, 0);
            let n = read(&mut self.input, &mut self.buf[self.held..])?;
            if let Some(saver) = &mut self.saver {
                saver.write(&self.buf[self.held..self.held + n]);
            }
            self.done = n == 0;
            self.filled = self.held + n;
            &self.buf[..self.filled]
        };
        self.held = if self.done { 0 } else { utf8::incomplete_suffix(data) };
        let end = data.len() - self.held;
        Ok(Some((&data[..end], self.done)))
    }
}

/// One read, retried when interrupted by a signal.
fn read(input: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        match input.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            result => return result,
        }
    }
}
