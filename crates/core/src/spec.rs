//! [`CapSpec`]: the cap a caller chooses, and what each cap is: its
//! name, its limit, whether it counts lines or tokens, and how much of
//! the end of a stream it needs.

use crate::text::count::Unit;
use crate::{caps, tokens};

/// The cap chosen on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CapSpec {
    /// `--tail-chars N`.
    TailChars(u64),
    /// `--head-chars N`.
    HeadChars(u64),
    /// `--head-lines N --offset K`.
    HeadLines {
        /// Lines shown.
        limit: u64,
        /// Lines skipped first.
        offset: u64,
    },
    /// `--tail-lines N`.
    TailLines(u64),
    /// `--max-matches N`.
    MaxMatches(u64),
    /// `--head-lines H --tail-lines T`.
    HeadTailLines(u64, u64),
    /// `--head-chars H --tail-chars T`.
    HeadTailChars(u64, u64),
    /// `--tail-tokens N`.
    TailTokens(u64),
    /// `--head-tokens N`.
    HeadTokens(u64),
    /// `--head-tokens H --tail-tokens T`.
    HeadTailTokens(u64, u64),
}

impl CapSpec {
    /// Whether the cap counts lines, so the per-line cap applies by default.
    pub fn is_line_cap(self) -> bool {
        match self {
            CapSpec::HeadLines { .. }
            | CapSpec::TailLines(_)
            | CapSpec::MaxMatches(_)
            | CapSpec::HeadTailLines(..) => true,
            CapSpec::TailChars(_)
            | CapSpec::HeadChars(_)
            | CapSpec::HeadTailChars(..)
            | CapSpec::TailTokens(_)
            | CapSpec::HeadTokens(_)
            | CapSpec::HeadTailTokens(..) => false,
        }
    }

    /// How much of the end of a stream the cap needs to give its output,
    /// when that is all it needs (a tail cap): what reading only the end
    /// of a file may skip to. `None` for a cap that needs the stream from
    /// its start. The sizes are the caps' own, so that a change to a
    /// cap's ring changes what is read of a file with it.
    pub fn tail_need(self, unit: Unit) -> Option<TailNeed> {
        match self {
            // The ring, and a whole character before it so the cut shows.
            CapSpec::TailChars(n) => {
                Some(TailNeed::Bytes(caps::TailUnits::ring_bytes(n, unit).saturating_add(4)))
            }
            CapSpec::TailLines(n) => Some(TailNeed::Lines(n)),
            CapSpec::TailTokens(n) => Some(TailNeed::Tokens {
                limit: n,
                near: n.saturating_mul(tokens::NEAR_BYTES_PER_TOKEN),
                ring: caps::window_bytes(n),
            }),
            CapSpec::HeadChars(_)
            | CapSpec::HeadLines { .. }
            | CapSpec::MaxMatches(_)
            | CapSpec::HeadTailLines(..)
            | CapSpec::HeadTailChars(..)
            | CapSpec::HeadTokens(_)
            | CapSpec::HeadTailTokens(..) => None,
        }
    }

    /// The limit: one number, or two for a head+tail pair.
    pub fn limit(self) -> Limit {
        match self {
            CapSpec::TailChars(n)
            | CapSpec::HeadChars(n)
            | CapSpec::HeadLines { limit: n, .. }
            | CapSpec::TailLines(n)
            | CapSpec::MaxMatches(n)
            | CapSpec::TailTokens(n)
            | CapSpec::HeadTokens(n) => Limit::One(n),
            CapSpec::HeadTailLines(h, t) | CapSpec::HeadTailChars(h, t) | CapSpec::HeadTailTokens(h, t) => {
                Limit::Pair(h, t)
            }
        }
    }

    /// The name of the cap in `--json`.
    pub fn name(self) -> &'static str {
        match self {
            CapSpec::TailChars(_) => "tail-chars",
            CapSpec::HeadChars(_) => "head-chars",
            CapSpec::HeadLines { .. } => "head-lines",
            CapSpec::TailLines(_) => "tail-lines",
            CapSpec::MaxMatches(_) => "max-matches",
            CapSpec::HeadTailLines(..) => "head-tail-lines",
            CapSpec::HeadTailChars(..) => "head-tail-chars",
            CapSpec::TailTokens(_) => "tail-tokens",
            CapSpec::HeadTokens(_) => "head-tokens",
            CapSpec::HeadTailTokens(..) => "head-tail-tokens",
        }
    }

    /// Whether the cap counts tokens.
    pub fn is_token_cap(self) -> bool {
        match self {
            CapSpec::TailTokens(_) | CapSpec::HeadTokens(_) | CapSpec::HeadTailTokens(..) => true,
            CapSpec::TailChars(_)
            | CapSpec::HeadChars(_)
            | CapSpec::HeadLines { .. }
            | CapSpec::TailLines(_)
            | CapSpec::MaxMatches(_)
            | CapSpec::HeadTailLines(..)
            | CapSpec::HeadTailChars(..) => false,
        }
    }
}

/// How much of the end of a stream a tail cap needs ([`CapSpec::tail_need`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TailNeed {
    /// The last this many bytes.
    Bytes(u64),
    /// The last this many lines, and the `\n` before them.
    Lines(u64),
    /// The last `limit` tokens: the cap cuts in the last `near` bytes when
    /// they hold more than `limit` estimated tokens, else in the last
    /// `ring` bytes (`tokens::tail_cut`).
    Tokens {
        /// The cap's limit.
        limit: u64,
        /// The bytes the cut is looked for in first.
        near: u64,
        /// The bytes the cap keeps.
        ring: u64,
    },
}

/// The limit of a cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// The limit of a single cap.
    One(u64),
    /// The head's and the tail's limits of a pair.
    Pair(u64, u64),
}
