//! The one pass: read chunks, transform them, count totals, feed the cap.

use std::io::{self, Read};

use crate::caps::{Cap, Outcome};
use crate::count::Totals;
use crate::output::Output;
use crate::rescue::Rescuer;
use crate::transform::Transforms;
use crate::utf8;

/// The default read size.
pub const READ_SIZE: usize = 64 * 1024;

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

/// A failure of the pass, told apart by side: reading the input, or
/// writing the output (where a closed pipe is a quiet end).
#[derive(Debug)]
pub enum Error {
    /// Reading the input failed.
    Read(io::Error),
    /// Writing the output failed.
    Write(io::Error),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Read(e) => write!(f, "error reading input: {e}"),
            Error::Write(e) => write!(f, "error writing output: {e}"),
        }
    }
}

impl std::error::Error for Error {}

/// Reads `input` to its end in reads of `read_size` bytes, feeding `cap`
/// (and `rescuer`) the transformed stream.
pub fn pass(
    cap: &mut dyn Cap,
    input: impl Read,
    transforms: Transforms,
    mut rescuer: Option<&mut Rescuer>,
    out: &mut Output,
    read_size: usize,
) -> Result<Pass, Error> {
    let mut totals = Totals::default();
    let mut pieces = Pieces::new(input, transforms, read_size);
    while let Some(piece) = pieces.next().map_err(Error::Read)? {
        totals.add(piece);
        if let Some(rescuer) = rescuer.as_deref_mut() {
            rescuer.feed(piece, &totals);
        }
        cap.feed(piece, &totals, out).map_err(Error::Write)?;
        out.flush().map_err(Error::Write)?;
    }
    let outcome = cap.finish(&totals, out).map_err(Error::Write)?;
    let matches = cap.matches(&totals);
    Ok(Pass { totals, outcome, matches })
}

/// The input as pieces that begin and end on character boundaries: the
/// bytes of a character split by a read are held back until the next one.
struct Pieces<R> {
    input: R,
    transforms: Transforms,
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

impl<R: Read> Pieces<R> {
    fn new(input: R, transforms: Transforms, read_size: usize) -> Self {
        // Three spare bytes hold a character's start carried over.
        let buf = vec![0; read_size.max(1) + if transforms.any() { 0 } else { 3 }];
        Pieces { input, transforms, buf, transformed: Vec::new(), filled: 0, held: 0, done: false }
    }

    /// The next piece; the last one (possibly empty) is whatever was held
    /// back at the end. `None` after that.
    fn next(&mut self) -> io::Result<Option<&[u8]>> {
        if self.done {
            return Ok(None);
        }
        let data: &[u8] = if self.transforms.any() {
            let n = read(&mut self.input, &mut self.buf)?;
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
            self.done = n == 0;
            self.filled = self.held + n;
            &self.buf[..self.filled]
        };
        self.held = if self.done { 0 } else { utf8::incomplete_suffix(data) };
        let end = data.len() - self.held;
        Ok(Some(&data[..end]))
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
