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
//! - [`run`]: the whole of a `capout` run over a [`Read`], with `--json`,
//!   `--progress` and `--save`, as the binary does it, set by the same
//!   [`Options`].
//!
//! The library installs nothing process-wide: no signal handler, no
//! terminal handling. Those are the `capout` binary's.

#![deny(missing_docs)]

mod capper;
mod caps;
mod json;
mod notice;
mod output;
mod progress;
mod render;
mod save;
mod search;
mod text;
pub mod tokens;
mod transform;

use std::io::{self, Read, Write};

pub use capper::{CapWriter, Capper, Summary};
pub use notice::{Notice, Template, TemplateError, binary_output, exit_status};
pub use output::NoticeTarget;
pub use save::{SaveError, SaveTo};
pub use text::count::{Totals, Unit};

use progress::Progress;
use search::matcher::Matcher;
use text::count::Need;

/// The default read size of [`run`].
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

/// How the input ended: for a command, how the command ended.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ending {
    /// The status capout exits with: 0 in filter mode, else the command's.
    pub exit_code: i32,
    /// The signal that killed the command.
    pub signal: Option<i32>,
    /// The `--timeout` that stopped the command, as given.
    pub timed_out: Option<String>,
    /// The signal that stopped capout's own reading of its input, in
    /// filter mode.
    pub interrupted: Option<i32>,
}

impl Ending {
    /// The signal capout ends with, once it has written what it kept: the
    /// one that killed the command (unless `--timeout` sent it: that
    /// gives 124), or the one that interrupted capout.
    pub fn fatal_signal(&self) -> Option<i32> {
        self.signal.filter(|_| self.timed_out.is_none()).or(self.interrupted)
    }
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
    /// The input could not be started: a command that could not run.
    #[error(transparent)]
    Start(StartError),
}

/// An input that could not be started, such as a command that was not
/// found, with the status capout exits with for it. An input's reader
/// returns it as the [`io::Error`] of its first read
/// (`io::Error::other(StartError { .. })`), and [`run`] tells it as such.
#[derive(Debug, thiserror::Error)]
#[error("{source}")]
pub struct StartError {
    /// The exit status: 126 or 127 for a command, as a shell has them.
    pub status: u8,
    /// What went wrong.
    #[source]
    pub source: Box<dyn std::error::Error + Send + Sync>,
}

impl Error {
    /// The status capout exits with for the error: 2 for a usage error,
    /// 126 or 127 for a command that could not be started, 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Pattern { .. } => 2,
            Error::Start(e) => e.status,
            Error::Read(_) | Error::Write(_) | Error::Save(_) => 1,
        }
    }

    /// A read error that is an input's failure to start is that failure.
    fn of_input(e: io::Error) -> Error {
        match e.downcast::<StartError>() {
            Ok(e) => Error::Start(e),
            Err(e) => Error::Read(e),
        }
    }

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
    /// `--json` of [`run`]: one object in place of text. A [`Capper`]
    /// leaves it to its caller.
    pub json: bool,
    /// `--progress` of [`run`]: a live count on its `err` while a cap
    /// holds its output back.
    pub progress: bool,
    /// The bytes [`run`] asks of each read.
    pub read_size: usize,
    /// How much of one line is held in memory.
    pub limits: Limits,
    /// `--stop-at-cap` of [`run`]: a head cap stops reading once it has
    /// all it keeps and has seen input past it; the notice then has no
    /// total.
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

/// Reads `input` to its end and writes what the cap keeps to `out`, and
/// the notices to `out` or `err` as the options say.
///
/// With `--json`, `out` gets one complete object whatever happens after
/// the options are found valid: an error that stops the run is told in
/// its `error` field, and returned too.
pub fn run(
    config: &Options,
    input: impl Read,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Summary, Error> {
    run_with(config, input, out, err, |_| Ending::default())
}

/// [`run`], where `end` is asked how the input ended once it is read to
/// its end: a command's reader waits for the command there.
///
/// The steps read on their own: set-up (`Capper::with_config`: patterns,
/// the save file), the pass (`pass`), the notices in their order
/// (`tell`), and, with `--json`, the end of the object (`json::Object`).
pub fn run_with<R: Read>(
    config: &Options,
    mut input: R,
    out: &mut dyn Write,
    err: &mut dyn Write,
    end: impl FnOnce(&mut R) -> Ending,
) -> Result<Summary, Error> {
    // An invalid pattern is a usage error: nothing is written, no file
    // is made. A save file that cannot be made fails the run before it
    // starts, with its JSON object all the same.
    let capper = match Capper::with_config(config) {
        Err(e @ Error::Pattern { .. }) => return Err(e),
        capper => capper,
    };
    if config.json {
        let mut object = json::Object::new(out);
        let ran = capper.and_then(|capper| capped(config, capper, &mut input, &mut object, err, end));
        object.end(config, ran, err)
    } else {
        let ran = capper.and_then(|capper| capped(config, capper, &mut input, out, err, end));
        let flushed = out.flush().and_then(|()| err.flush());
        ran.and_then(|report| flushed.map(|()| report).map_err(Error::Write))
    }
}

/// The run itself, once everything that makes it a usage error is ruled
/// out: the pass, how the input ended, the notices.
fn capped<R: Read>(
    config: &Options,
    mut capper: Capper,
    input: &mut R,
    out: &mut dyn Write,
    err: &mut dyn Write,
    end: impl FnOnce(&mut R) -> Ending,
) -> Result<Summary, Error> {
    let summary = pass(config, &mut capper, input, out, err)?;
    let ending = end(input);
    // Stopped at the cap, capout closed the pipe: a command that the
    // closed pipe killed ended as `cmd | head` lets it end, and the run
    // is a success, as the pipeline's status is head's.
    let sigpipe = signal_hook::consts::SIGPIPE;
    let ending = if capper.stopped() && ending.signal == Some(sigpipe) && ending.timed_out.is_none() {
        Ending { exit_code: 0, signal: None, ..ending }
    } else {
        ending
    };
    tell(&mut capper, &summary, &ending, out, err)?;
    // A failed save makes capout exit 1, whatever the command did.
    let ending = if summary.save_error.is_some() { Ending { exit_code: 1, ..ending } } else { ending };
    Ok(Summary { ending, ..summary })
}

/// Reads `input` to its end into `capper`, with the live count on `err`
/// when asked for, and ends the stream.
fn pass(
    config: &Options,
    capper: &mut Capper,
    input: &mut impl Read,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Summary, Error> {
    let mut progress = (config.progress && (config.json || holds_back(config.cap))).then(Progress::default);
    // Page-aligned: a read into a buffer that starts part way into a page
    // costs the kernel more, and the transforms copy from it into
    // buffers aligned alike.
    let mut buf = text::buf::PageBuf::zeroed(config.read_size.max(1));
    loop {
        let n = read(input, buf.as_mut_slice()).map_err(Error::of_input)?;
        if n == 0 {
            break;
        }
        capper.push_with(&buf.as_slice()[..n], out, err)?;
        if let Some(progress) = &mut progress {
            progress.tick(capper.totals(), err);
        }
        if config.stop_at_cap && capper.past_cap() {
            capper.stop();
            break;
        }
    }
    if let Some(progress) = &mut progress {
        progress.finish(err);
    }
    capper.close(out, err)
}

/// Writes the notices, in their order.
fn tell(
    capper: &mut Capper,
    summary: &Summary,
    ending: &Ending,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), Error> {
    for line in notice_lines(summary.notice.as_ref(), ending) {
        capper.notify(&line, out, err)?;
    }
    Ok(())
}

/// The notice lines of a run, in their order: the cap's, how the input
/// ended, the rescued lines.
fn notice_lines(notice: Option<&Notice>, ending: &Ending) -> Vec<Vec<u8>> {
    let mut lines = Vec::new();
    if let Some(line) = notice.and_then(Notice::cap) {
        lines.push(line.as_bytes().to_vec());
    }
    if let Some(duration) = &ending.timed_out {
        lines.push(notice::timed_out(duration).into_bytes());
    }
    if let Some(name) = ending.interrupted.and_then(signal_hook::low_level::signal_name) {
        lines.push(notice::interrupted(name).into_bytes());
    }
    lines.extend(notice.map_or(&[][..], |n| &n.rescued[..]).iter().cloned());
    lines
}

impl Summary {
    /// Every notice line of the run, in the order they are written;
    /// `None` when there is none.
    pub fn notice_lines(&self) -> Option<Vec<Vec<u8>>> {
        Some(notice_lines(self.notice.as_ref(), &self.ending)).filter(|l| !l.is_empty())
    }

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

/// One read, retried when interrupted by a signal.
fn read(input: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        match input.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            result => return result,
        }
    }
}

/// Whether the cap writes its output only at the end, so a live count
/// helps on a long input.
fn holds_back(cap: CapSpec) -> bool {
    matches!(
        cap,
        CapSpec::TailChars(_)
            | CapSpec::TailLines(_)
            | CapSpec::HeadTailLines(..)
            | CapSpec::HeadTailChars(..)
    )
}
