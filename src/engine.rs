//! The one pass: read chunks, count totals, feed the cap.

use std::io::{self, Read};

use crate::caps::{Cap, Outcome};
use crate::count::Totals;
use crate::output::Output;
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

/// Reads `input` to its end in reads of `read_size` bytes, feeding `cap`.
///
/// The bytes of a character split by a read are held back until the next
/// one, so every piece a cap sees begins and ends on a character boundary.
pub fn pass(
    cap: &mut dyn Cap,
    mut input: impl Read,
    out: &mut Output,
    read_size: usize,
) -> Result<Pass, Error> {
    let mut totals = Totals::default();
    // Three bytes in front of the read hold a character's start carried
    // over from the previous read.
    let mut buf = vec![0; read_size.max(1) + 3];
    let mut carry = 0;
    loop {
        let n = match input.read(&mut buf[carry..]) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::Read(e)),
        };
        let filled = carry + n;
        let held = if n == 0 { 0 } else { utf8::incomplete_suffix(&buf[..filled]) };
        let piece = &buf[..filled - held];
        totals.add(piece);
        cap.feed(piece, out).map_err(Error::Write)?;
        out.flush().map_err(Error::Write)?;
        if n == 0 {
            break;
        }
        buf.copy_within(filled - held..filled, 0);
        carry = held;
    }
    let outcome = cap.finish(&totals, out).map_err(Error::Write)?;
    let matches = cap.matches(&totals);
    Ok(Pass { totals, outcome, matches })
}
