//! capout: bound output, and say what was cut.
//!
//! capout keeps a bounded part of a stream — the first lines, the last
//! characters, the first matches — and ends it with a notice that says
//! what was cut. Memory is sized by the cap, never by the stream; a
//! character is never split.
//!
//! The library is one engine, [`Capper`], fed as bytes arrive:
//!
//! ```
//! use capout_core::{CapSpec, Capper, Options};
//!
//! let mut options = Options::default(); // as the CLI: --tail-chars 5000
//! options.cap = CapSpec::TailLines(2);
//! let mut capper = Capper::new(options)?;
//! let mut out = Vec::new();
//! capper.push(b"a\nb\n", &mut out)?;
//! capper.push(b"c\n", &mut out)?;
//! let summary = capper.finish(&mut out)?;
//! assert_eq!(out, b"b\nc\n... (truncated, showing last 2 lines)\n");
//! assert_eq!(summary.notice.unwrap().to_string(), "... (truncated, showing last 2 lines)");
//! # Ok::<(), capout_core::Error>(())
//! ```
//!
//! A page of lines (`--head-lines 2 --offset 2`), and the first matches
//! of a [`Pattern`] (`--max-matches 2 --pattern REGEX`):
//!
//! ```
//! use capout_core::{CapSpec, Capper, Options, Pattern};
//!
//! let log = b"ok 1\nerror: a\nok 2\nerror: b\nerror: c\n";
//!
//! let mut page = Capper::new(Options::new(CapSpec::HeadLines { limit: 2, offset: 2 }))?;
//! let mut out = Vec::new();
//! page.push(log, &mut out)?;
//! let summary = page.finish(&mut out)?;
//! assert_eq!(out, b"ok 2\nerror: b\n... (truncated, showing lines 3-4 of 5, next offset 4)\n");
//! assert_eq!(summary.next_offset, Some(4));
//!
//! let mut options = Options::new(CapSpec::MaxMatches(2));
//! options.pattern = Some(Pattern::regex("^error"));
//! let mut matches = Capper::new(options)?;
//! let mut out = Vec::new();
//! matches.push(log, &mut out)?;
//! let summary = matches.finish(&mut out)?;
//! assert_eq!(out, b"error: a\nerror: b\n... (3 total, showing first 2)\n");
//! assert_eq!(summary.matches, Some(3));
//! # Ok::<(), capout_core::Error>(())
//! ```
//!
//! - [`Capper`]: `push` chunks of any size, `finish` to get the [`Summary`].
//! - [`CapWriter`]: the same behind [`std::io::Write`], for code that
//!   already writes.
//! - [`Options`]: what to keep; its defaults are the `capout` command's.
//! - [`run`]: all of a [`Read`] through a [`Capper`], set by the same
//!   [`Options`].
//!
//! The library installs nothing process-wide: no signal handler, no
//! terminal handling. Those are the `capout` binary's.

#![deny(missing_docs)]

mod capper;
mod caps;
mod notice;
mod output;
mod render;
mod save;
mod search;
mod text;
pub mod tokens;
mod transform;

use std::io::{self, Read, Write};

pub use capper::{CapWriter, Capper, Closed, Summary};
pub use notice::{Notice, Template, TemplateError, binary_output, exit_status};
pub use output::NoticeTarget;
pub use save::{SaveError, SaveTo};
pub use text::count::{Totals, Unit};

use search::matcher::Matcher;
use text::count::Need;

/// The default read size of [`run`] and [`Capper::pull`]
/// ([`Options::read_size`]).
pub const READ_SIZE: usize = 64 * 1024;

/// `--max-line-chars` when a line cap is given without it, so that no cap
/// lets an unbounded line through.
pub const DEFAULT_MAX_LINE: u64 = 2000;

/// The cap when none is given: `--tail-chars 5000`.
pub const DEFAULT_TAIL_CHARS: u64 = 5000;

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
        Limits { collapse_cr: transform::COLLAPSE_LIMIT, pattern_line: search::matcher::LINE_LIMIT }
    }
}

/// Internals that the benches, the fuzz target and the tests reach; not
/// part of the API, and free to change.
#[doc(hidden)]
pub mod internals {
    pub use crate::render::Screen;
    pub use crate::search::matcher::{LINE_LIMIT, Matcher};
    pub use crate::text::utf8::is_continuation;
    pub use crate::transform::COLLAPSE_LIMIT;

    /// Every total of `input`, counted in pieces of [`READ_SIZE`](crate::READ_SIZE)
    /// that end on a character boundary, as the engine counts them: the
    /// floor under the whole pass, for the benches.
    pub fn count_totals(input: &[u8]) -> crate::Totals {
        let mut totals = crate::Totals::new(crate::text::count::Need::ALL);
        let mut rest = input;
        while !rest.is_empty() {
            let mut end = rest.len().min(crate::READ_SIZE);
            while end < rest.len() && is_continuation(rest[end]) {
                end -= 1;
            }
            let (piece, tail) = rest.split_at(end);
            totals.add(piece);
            rest = tail;
        }
        totals
    }
}

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

/// How a token cap counts tokens (`--tokenizer`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Tokenizer {
    /// The estimator of [`tokens`]: no vocabulary, constant memory.
    #[default]
    Estimate,
    /// `OpenAI`'s `o200k_base`, exact (cargo feature `exact-tokens`).
    O200k,
    /// `OpenAI`'s `cl100k_base`, exact (cargo feature `exact-tokens`).
    Cl100k,
}

impl Tokenizer {
    /// The name of the tokenizer in `--tokenizer` and `--json`.
    pub fn name(self) -> &'static str {
        match self {
            Tokenizer::Estimate => "estimate",
            Tokenizer::O200k => "o200k",
            Tokenizer::Cl100k => "cl100k",
        }
    }

    /// Whether this build can count with it: the exact tokenizers need
    /// the cargo feature `exact-tokens`.
    pub fn available(self) -> bool {
        self == Tokenizer::Estimate || cfg!(feature = "exact-tokens")
    }
}

/// The limit of a cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// The limit of a single cap.
    One(u64),
    /// The head's and the tail's limits of a pair.
    Pair(u64, u64),
}

/// A line pattern as given on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    /// The pattern.
    pub text: String,
    /// Whether it is a literal string rather than a regex.
    pub fixed: bool,
}

impl Pattern {
    /// A pattern to match as a regex (Rust `regex` syntax).
    pub fn regex(text: impl Into<String>) -> Self {
        Pattern { text: text.into(), fixed: false }
    }

    /// Checks that the pattern is valid; the error says why it is not.
    pub fn check(&self) -> Result<(), PatternError> {
        self.compile("--pattern").map(drop)
    }

    /// The compiled pattern.
    #[doc(hidden)]
    pub fn matcher(&self) -> Result<Matcher, PatternError> {
        self.compile("--pattern")
    }

    fn compile(&self, option: &'static str) -> Result<Matcher, PatternError> {
        self.compile_with_case(option, false)
    }

    fn compile_with_case(&self, option: &'static str, ignore_case: bool) -> Result<Matcher, PatternError> {
        Matcher::with_case(&self.text, self.fixed, ignore_case).map_err(|source| PatternError {
            option,
            pattern: self.text.clone(),
            source: Box::new(source),
        })
    }
}

impl Keep {
    fn compile(&self, ignore_case: bool) -> Result<Matcher, PatternError> {
        Pattern::regex(self.pattern.clone()).compile_with_case("--keep", ignore_case)
    }
}

/// A pattern that is not a valid regex.
#[derive(Debug, thiserror::Error)]
#[error("{source}")]
pub struct PatternError {
    /// The option that gave it: `--pattern` or `--keep`.
    pub option: &'static str,
    /// The pattern.
    pub pattern: String,
    /// What is wrong with it, and where.
    #[source]
    source: Box<regex::Error>,
}

/// `--keep REGEX --keep-max K`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Keep {
    /// The pattern of the lines to rescue.
    pub pattern: String,
    /// How many rescued lines to show at most.
    pub max: u64,
}

/// The page a paging cap (`--head-lines`, `--max-matches`) showed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Page {
    /// The first line (match) shown, 1-based.
    pub first: u64,
    /// The last line (match) shown.
    pub last: u64,
    /// The `--offset` of the next page; `None` when the page reaches the
    /// end.
    pub next_offset: Option<u64>,
}

/// Why a run stopped short.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Reading the input failed.
    #[error("error reading input: {0}")]
    Read(#[source] io::Error),
    /// Writing the output failed.
    #[error("error writing output: {0}")]
    Write(#[source] io::Error),
    /// The file to save the input to could not be created.
    #[error(transparent)]
    Save(SaveError),
    /// A pattern is not a valid regex.
    #[error("invalid value for '{}': {source}", source.option)]
    Pattern {
        /// What is wrong, and where.
        #[from]
        source: PatternError,
    },
}

impl Error {
    /// The error as an [`io::Error`], for a [`Write`] that caps.
    pub(crate) fn into_io(self) -> io::Error {
        match self {
            Error::Read(e) | Error::Write(e) => e,
            e => io::Error::other(e),
        }
    }
}

/// What a [`Capper`] keeps, and how it says so. The defaults are those of
/// the `capout` command: `--tail-chars 5000`, characters, notices after
/// the output; `--max-line-chars 2000` with a line cap.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {
    /// The cap.
    pub cap: CapSpec,
    /// `--pattern`, for [`CapSpec::MaxMatches`].
    pub pattern: Option<Pattern>,
    /// Characters or bytes.
    pub unit: Unit,
    /// Units kept of each line: `None` for the default (2000 with a line
    /// cap, all with a character cap), `Some(0)` for all.
    pub max_line_chars: Option<u64>,
    /// Number the kept lines (with a line cap).
    pub line_numbers: bool,
    /// The units that all a line cap keeps may take, whole lines only
    /// (`--budget-chars`).
    pub budget: Option<u64>,
    /// Matches skipped before the page of [`CapSpec::MaxMatches`]
    /// (`--offset`).
    pub match_offset: u64,
    /// Remove ANSI escape sequences first.
    pub strip_ansi: bool,
    /// Keep only what follows the last `\r` of each line.
    pub collapse_cr: bool,
    /// Show the stream as a terminal of `(columns, rows)` would, and cap
    /// its rows (`--render`): a row that scrolls off the top goes on to
    /// the cap, then, at the end, the screen's rows up to the last that
    /// holds text. It does what [`Options::strip_ansi`] and
    /// [`Options::collapse_cr`] do, and more. The screen is allocated
    /// whole: about 24 bytes a cell, twice while a full-screen program
    /// has the alternate screen. A width below 2 counts as 2 and a height
    /// below 1 as 1.
    pub render: Option<(u16, u16)>,
    /// Rescue cut lines that match.
    pub keep: Option<Keep>,
    /// `--ignore-case`: `pattern` and `keep` match without regard to case.
    pub ignore_case: bool,
    /// Where notices go.
    pub notice: NoticeTarget,
    /// The wording of the cap's notice (`--notice-format`).
    pub template: Option<Template>,
    /// Where to save the whole stream.
    pub save: Option<SaveTo>,
    /// How a token cap counts tokens.
    pub tokenizer: Tokenizer,
    /// Replace a binary stream (a NUL byte in its first 8 KiB) by one
    /// line, `(binary input, N bytes: not shown)`. The start of the
    /// stream is held back until 8 KiB or its end decide.
    pub hide_binary: bool,
    /// `--json`: the caller writes the notices, from the [`Summary`], as
    /// the `capout` command writes them into its JSON object. A capper
    /// made with [`Capper::with_options`] then writes no notice, keeps the
    /// line between the two parts of a head+tail pair in the output, and
    /// counts every total; [`Capper::new`] ignores it.
    pub json: bool,
    /// `--progress`: the caller shows a live count from
    /// [`Capper::totals`] between reads, so the lines are counted.
    pub progress: bool,
    /// The bytes [`run`] and [`Capper::pull`] ask of each read.
    pub read_size: usize,
    /// How much of one line is held in memory.
    pub limits: Limits,
    /// `--stop-at-cap` of [`run`] and [`Capper::pull`]: a head cap stops
    /// reading once it has all it keeps and has seen input past it; the
    /// notice then has no total.
    pub stop_at_cap: bool,
    /// Count every total (lines, characters, and the tokens of a token
    /// cap) whether or not a notice reads it, so that the [`Summary`] of
    /// [`run`] tells all it can, as `--json` does. [`Capper::new`] counts
    /// the lines and characters whatever this says;
    /// [`Capper::new_counting_all`] counts every total.
    pub count_totals: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            cap: CapSpec::TailChars(DEFAULT_TAIL_CHARS),
            pattern: None,
            unit: Unit::Chars,
            max_line_chars: None,
            line_numbers: false,
            budget: None,
            match_offset: 0,
            strip_ansi: false,
            collapse_cr: false,
            render: None,
            keep: None,
            ignore_case: false,
            notice: NoticeTarget::Stdout,
            template: None,
            save: None,
            tokenizer: Tokenizer::Estimate,
            hide_binary: false,
            json: false,
            progress: false,
            read_size: READ_SIZE,
            limits: Limits::default(),
            stop_at_cap: false,
            count_totals: false,
        }
    }
}

impl Options {
    /// The defaults with `cap`.
    pub fn new(cap: CapSpec) -> Self {
        Options { cap, ..Options::default() }
    }
}

impl Options {
    /// The units kept of each line in force: [`Options::max_line_chars`]
    /// with its default, [`DEFAULT_MAX_LINE`] for a line cap; `None` for
    /// all.
    pub fn max_line(&self) -> Option<u64> {
        match self.max_line_chars {
            Some(0) => None,
            Some(w) => Some(w),
            None => self.cap.is_line_cap().then_some(DEFAULT_MAX_LINE),
        }
    }

    /// Whether something reads the totals of the whole input: `--json`,
    /// or a template that speaks of them.
    pub fn reads_totals(&self) -> bool {
        self.json || self.template.as_ref().is_some_and(Template::needs_totals)
    }

    /// The totals that something will read: the notices of the caps,
    /// `--json`, a template, the live count, the rescued lines. Decided
    /// here only; a total not counted reads as `None`.
    pub(crate) fn need(&self) -> Need {
        if self.reads_totals() || self.count_totals {
            return Need::ALL;
        }
        let lines = !matches!(self.cap, CapSpec::MaxMatches(_)) && self.cap.is_line_cap();
        let head_units = matches!(self.cap, CapSpec::HeadChars(_) | CapSpec::HeadTailChars(..));
        let chars = self.unit == Unit::Chars
            && (matches!(self.cap, CapSpec::HeadTailChars(..)) || (head_units && self.keep.is_some()));
        Need { lines: lines || self.progress, chars }
    }
}

/// Caps all of `input`: reads it to its end (or to the cap, with
/// [`Options::stop_at_cap`]) in reads of [`Options::read_size`] bytes,
/// writes what the cap keeps to `out` as it goes, then the notices where
/// [`Options::notice`] sends them, on `out` or `err`, and flushes both.
///
/// It is [`Capper::with_options`], [`Capper::pull`] until the input ends,
/// and [`Capper::finish_with`]: what an embedder that filters a [`Read`]
/// needs in one call. The `capout` command's run adds, around the same
/// steps, what only a program has: `--json`'s envelope, the live line of
/// `--progress`, and how a command or a signal ended the input.
pub fn run(
    options: &Options,
    mut input: impl Read,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Summary, Error> {
    let mut capper = Capper::with_options(options)?;
    while capper.pull(&mut input, out, err)? {}
    capper.finish_with(out, err)
}

impl Summary {
    /// The first and last lines (matches) shown and the offset of the
    /// next page, when a paging cap (`--head-lines`, `--max-matches`)
    /// cut.
    pub fn page(&self) -> Option<Page> {
        match (self.first, self.last) {
            (Some(first), Some(last)) if self.paged => {
                Some(Page { first, last, next_offset: self.next_offset })
            }
            _ => None,
        }
    }
}
