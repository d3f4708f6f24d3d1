//! The caps: each keeps a bounded part of the stream.
//!
//! The engine feeds a cap the stream in pieces that begin and end on
//! character boundaries, then calls [`Cap::finish`] once at the end. A head
//! cap writes what it keeps as it arrives; a tail cap holds it in a buffer
//! sized by the cap and writes it at the end.

mod head_lines;
mod head_units;
mod line;
mod tail_units;

use std::io;

pub use head_lines::HeadLines;
pub use head_units::HeadUnits;
pub use line::{LineShaper, LineSplitter};
pub use tail_units::TailUnits;

use crate::count::Totals;
use crate::notice::{Facts, Kind};
use crate::output::Output;

/// What a cap did, for the notice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// All of the stream was kept.
    Whole,
    /// Nothing was kept: the line to print instead of output.
    Nothing(&'static str),
    /// Part of the stream was cut: the notice to print after the output.
    Cut(Kind, Facts),
    /// A head+tail pair cut its middle; the middle line is already written.
    Middle(Facts),
}

/// A cap: it takes the stream piece by piece and keeps a bounded part.
pub trait Cap {
    /// Takes the next piece of the stream.
    fn feed(&mut self, piece: &[u8], out: &mut Output) -> io::Result<()>;

    /// Writes what the cap held back and says what it cut. `totals`
    /// counts the whole stream.
    fn finish(&mut self, totals: &Totals, out: &mut Output) -> io::Result<Outcome>;

    /// The number of matching lines, for a cap that counts matches.
    fn matches(&self, totals: &Totals) -> Option<u64> {
        let _ = totals;
        None
    }
}
