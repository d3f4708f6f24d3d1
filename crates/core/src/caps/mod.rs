//! The caps: each keeps a bounded part of the stream.
//!
//! The engine feeds a cap the stream in pieces that begin and end on
//! character boundaries, then calls [`Cap::finish`] once at the end. A head
//! cap writes what it keeps as it arrives; a tail cap holds it in a buffer
//! sized by the cap and writes it at the end.

mod budget;
mod head_lines;
mod head_tail;
mod head_units;
mod line;
mod matches;
mod tail_lines;
mod tail_units;
mod tokens;

use std::io;

pub use budget::Budget;
pub use head_lines::HeadLines;
pub use head_tail::{HeadTailChars, HeadTailLines};
pub use head_units::HeadUnits;
pub use line::{LineShaper, LineSplitter, line_pieces};
pub use matches::Matches;
pub use tail_lines::TailLines;
pub use tail_units::TailUnits;
pub use tokens::{HeadTailTokens, HeadTokens, TailTokens, window_bytes};

use crate::notice::{Facts, Kind};
use crate::output::Output;
use crate::text::count::Totals;

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
    /// A later page that cut nothing past it: the notice says where it
    /// stands.
    Page(Kind, Facts),
}

/// A cap: it takes the stream piece by piece and keeps a bounded part.
pub trait Cap: Send {
    /// Takes the next piece of the stream; `totals` counts the stream up
    /// to the end of this piece.
    fn feed(&mut self, piece: &[u8], totals: &Totals, out: &mut Output) -> io::Result<()>;

    /// Writes what the cap held back and says what it cut. `totals`
    /// counts the whole stream.
    fn finish(&mut self, totals: &Totals, out: &mut Output) -> io::Result<Outcome>;

    /// The number of matching lines, for a cap that counts matches.
    fn matches(&self, totals: &Totals) -> Option<u64> {
        let _ = totals;
        None
    }

    /// Tokens of the whole stream, for a token cap that counted them.
    fn tokens(&mut self) -> Option<u64> {
        None
    }

    /// The part of the stream that was cut, once [`Cap::finish`] has run.
    fn cut(&self, totals: &Totals) -> Cut;

    /// The first and last units of the page shown, for a cap that pages
    /// (`--head-lines`, `--max-matches`), once [`Cap::finish`] has run.
    fn shown(&self, totals: &Totals) -> Option<(u64, u64)> {
        let _ = totals;
        None
    }

    /// Whether the cap has kept all it will keep and has been fed input
    /// past it, so that reading on could only count (`--stop-at-cap`).
    /// Only the head caps ever are.
    fn past_cap(&self) -> bool {
        false
    }

    /// What the cut of JSON did, for the cap that cuts JSON
    /// (`--json-items`).
    fn json(&self) -> Option<crate::JsonCut> {
        None
    }
}

/// The part of the stream a cap cut, as bounds on lines and byte offsets:
/// a line lies wholly inside it when it is past every `after` bound and
/// before every `before` bound.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cut {
    /// Lines up to this number were kept.
    pub after_line: Option<u64>,
    /// Bytes before this offset were kept.
    pub after_byte: Option<u64>,
    /// Lines from this number on were kept.
    pub before_line: Option<u64>,
    /// Bytes from this offset on were kept.
    pub before_byte: Option<u64>,
}

impl Cut {
    /// Whether the line `number`, bytes `start..end`, lies wholly inside.
    pub fn holds(&self, number: u64, start: u64, end: u64) -> bool {
        self.after_line.is_none_or(|n| number > n)
            && self.after_byte.is_none_or(|b| start >= b)
            && self.before_line.is_none_or(|n| number < n)
            && self.before_byte.is_none_or(|b| end <= b)
    }
}
