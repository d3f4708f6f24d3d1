//! `--json-items`: JSON cut so that it stays JSON, or capped as text when
//! it is not.
//!
//! [`JsonCap`] stands in front of the head cap the options chose
//! (`--head-chars`, `--head-lines`). It reads the stream with a [`Cutter`]
//! (`cut.rs`: what is kept, the budget, the counts; `skim.rs`: what is
//! dropped, only checked; `lex.rs`: the tokens), and feeds the same
//! pieces to the head cap at once, into a buffer: the stream is JSON only
//! if it is JSON to its end, and if it is not, its output is the head
//! cap's, as without `--json-items`. So the output of both waits for the
//! end of the stream (or for the byte where the JSON ends), and memory is
//! what each keeps: the cut's output within its budget, the head cap's
//! within its cap.

mod cut;
mod lex;
mod skim;

use std::io;

use cut::Cutter;
pub use cut::MAX_DEPTH;
pub(crate) use cut::Settings;

use crate::JsonCut;
use crate::caps::{Cap, Cut, Outcome};
use crate::notice::{Facts, Kind, Renderer};
use crate::output::{NoticeTarget, Output, Route};
use crate::text::count::{Totals, Unit};

/// The cut of JSON in front of a head cap.
pub struct JsonCap {
    /// The head cap, for a stream that is not JSON.
    text: Box<dyn Cap>,
    /// Where the head cap writes while the stream may still be JSON: into
    /// `held`, with no notice.
    route: Route,
    held: Vec<u8>,
    /// The cut, while the stream is JSON so far (and after its end).
    cutter: Option<Cutter>,
    /// Where the JSON ended, once it did, and whether the stream began
    /// as JSON (then the notice says where it ended).
    ended_at: Option<u64>,
    began: bool,
    limit: u64,
    unit: Unit,
    /// The head cap counts lines (`--head-lines`): the limit counts
    /// documents.
    lines: bool,
}

impl JsonCap {
    /// The cut of `settings` in front of `text`, the head cap with
    /// `limit`; `lines` when it is `--head-lines`.
    pub(crate) fn new(text: Box<dyn Cap>, settings: Settings, limit: u64, lines: bool) -> Self {
        JsonCap {
            text,
            route: Route::new(NoticeTarget::None, true, Renderer::default()),
            held: Vec::new(),
            cutter: Some(Cutter::new(settings)),
            ended_at: None,
            began: false,
            limit,
            unit: settings.unit,
            lines,
        }
    }

    /// The stream stopped being JSON at byte `at`: what the head cap kept
    /// so far goes out, and the rest goes through it.
    fn not_json(&mut self, at: u64, out: &mut Output) -> io::Result<()> {
        self.began = self.cutter.take().is_some_and(|c| c.began());
        self.ended_at = Some(at);
        out.data(&std::mem::take(&mut self.held))
    }

    /// What the cut did, as a cap says it.
    fn outcome(&self, cutter: &Cutter, totals: &Totals) -> Outcome {
        if !cutter.cut() {
            return Outcome::Whole;
        }
        let counts = cutter.counts();
        let kind = if counts.documents_kept < counts.documents { Kind::JsonDocuments } else { Kind::Json };
        // `--head-lines` counts documents as lines; `--head-chars` units.
        let (shown, total, unit) = if self.lines {
            (counts.documents_kept, counts.documents, "lines")
        } else {
            (cutter.used(), totals.of(self.unit).unwrap_or(0), self.unit.name())
        };
        let facts = Facts {
            shown,
            limit: self.limit,
            total,
            omitted: total.saturating_sub(shown),
            unit,
            first: 1,
            last: shown,
            next_offset: shown,
        };
        Outcome::Cut(kind, facts)
    }
}

impl Cap for JsonCap {
    fn feed(&mut self, piece: &[u8], totals: &Totals, out: &mut Output) -> io::Result<()> {
        if let Some(cutter) = &mut self.cutter {
            match cutter.feed(piece) {
                Ok(()) => {
                    let mut held = std::mem::take(&mut self.held);
                    let fed = self.text.feed(piece, totals, &mut self.route.to(&mut held, &mut io::sink()));
                    self.held = held;
                    return fed;
                }
                Err(at) => self.not_json(at, out)?,
            }
        }
        self.text.feed(piece, totals, out)
    }

    fn finish(&mut self, totals: &Totals, out: &mut Output) -> io::Result<Outcome> {
        if let Some(cutter) = &mut self.cutter {
            match cutter.finish() {
                Ok(()) => {
                    self.held = Vec::new();
                    let cutter = self.cutter.as_ref().expect("still cutting");
                    out.data(cutter.output())?;
                    return Ok(self.outcome(cutter, totals));
                }
                Err(at) => self.not_json(at, out)?,
            }
        }
        let outcome = self.text.finish(totals, out)?;
        Ok(match outcome {
            Outcome::Cut(Kind::HeadUnits, facts) if self.began => Outcome::Cut(Kind::JsonEndedUnits, facts),
            Outcome::Cut(Kind::HeadLines, facts) if self.began => Outcome::Cut(Kind::JsonEndedLines, facts),
            outcome => outcome,
        })
    }

    fn cut(&self, totals: &Totals) -> Cut {
        if self.ended_at.is_some() { self.text.cut(totals) } else { Cut::default() }
    }

    fn shown(&self, totals: &Totals) -> Option<(u64, u64)> {
        self.ended_at.and_then(|_| self.text.shown(totals))
    }

    /// Past the head cap's budget the output is sure to be cut, as JSON
    /// or as text, and nothing after can add to what it keeps: the head
    /// cap is fed either way, so its word holds for both.
    fn past_cap(&self) -> bool {
        self.text.past_cap()
    }

    fn json(&self) -> Option<JsonCut> {
        match (&self.cutter, self.ended_at) {
            (_, Some(at)) => Some(JsonCut { ended_at: Some(at), ..JsonCut::default() }),
            (Some(cutter), None) => Some(cutter.counts()),
            (None, None) => None,
        }
    }
}
