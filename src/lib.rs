//! capout: a filter that bounds output.
//!
//! It reads its input once, keeps a bounded part of it — the first lines,
//! the last characters, the first matches — and ends with a notice that
//! says what was cut. Memory is sized by the cap, never by the input.
//!
//! The core is [`run`], generic over the input and the two output streams,
//! so it runs the same on stdin and stdout as on bytes in a test. A command
//! that capout runs ([`command::run`]) is one more input to it.

pub mod caps;
pub mod cli;
pub mod command;
pub mod count;
pub mod engine;
pub mod json;
pub mod matcher;
pub mod notice;
pub mod output;
pub mod pipe;
pub mod progress;
pub mod render;
pub mod rescue;
pub mod ring;
pub mod save;
pub mod seek;
pub mod signals;
pub mod tokens;
pub mod transform;
pub mod utf8;

use std::io::{Read, Write};
use std::path::PathBuf;

use caps::{
    Cap, HeadLines, HeadTailChars, HeadTailLines, HeadUnits, LineShaper, Matches, Outcome, TailLines,
    TailUnits,
};
use command::CommandSpec;
use count::Need;
pub use count::{Totals, Unit};
use engine::Stages;
use matcher::Matcher;
use notice::{Renderer, Template};
pub use output::NoticeTarget;
use output::Output;
use progress::Progress;
use rescue::{Head, Rescuer, Tail};
use save::Saver;
pub use save::{SaveError, SaveTo};

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
}

impl CapSpec {
    /// Whether the cap counts lines, so the per-line cap applies by default.
    pub fn is_line_cap(self) -> bool {
        matches!(
            self,
            CapSpec::HeadLines { .. }
                | CapSpec::TailLines(_)
                | CapSpec::MaxMatches(_)
                | CapSpec::HeadTailLines(..)
        )
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
        }
    }
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
    /// The matcher; the error says why the pattern is not valid.
    pub fn matcher(&self) -> Result<Matcher, String> {
        Matcher::new(&self.text, self.fixed)
    }
}

/// `--keep REGEX --keep-max K`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Keep {
    /// The pattern of the lines to rescue.
    pub pattern: String,
    /// How many rescued lines to show at most.
    pub max: u64,
}

/// Everything that decides what capout writes, validated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// The cap.
    pub cap: CapSpec,
    /// `--pattern`, for `--max-matches`.
    pub pattern: Option<Pattern>,
    /// Characters or bytes.
    pub unit: Unit,
    /// Units kept of each line (`--max-line-chars`), `None` for all.
    pub max_line: Option<u64>,
    /// Number the kept lines.
    pub line_numbers: bool,
    /// Remove ANSI escape sequences first.
    pub strip_ansi: bool,
    /// Keep only what follows the last `\r` of each line.
    pub collapse_cr: bool,
    /// Rescue cut lines that match.
    pub keep: Option<Keep>,
    /// Where notices go.
    pub notice: NoticeTarget,
    /// `--notice-format`.
    pub template: Option<Template>,
    /// Print one JSON object instead of text.
    pub json: bool,
    /// Where to save the whole input.
    pub save: Option<SaveTo>,
    /// Show a live count on stderr while a cap holds its output back.
    pub progress: bool,
    /// Bytes asked of each read.
    pub read_size: usize,
    /// How much of one line is held in memory.
    pub limits: engine::Limits,
    /// The command to run and cap instead of reading stdin.
    pub command: Option<CommandSpec>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            cap: CapSpec::TailChars(5000),
            pattern: None,
            unit: Unit::Chars,
            max_line: None,
            line_numbers: false,
            strip_ansi: false,
            collapse_cr: false,
            keep: None,
            notice: NoticeTarget::Stdout,
            template: None,
            json: false,
            save: None,
            progress: false,
            read_size: engine::READ_SIZE,
            limits: engine::Limits::default(),
            command: None,
        }
    }
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

/// What a run did.
#[derive(Debug)]
pub struct Report {
    /// Totals of the whole input.
    pub totals: Totals,
    /// Whether anything was cut.
    pub truncated: bool,
    /// Matching lines, for `--max-matches`.
    pub matches: Option<u64>,
    /// How the input ended.
    pub ending: Ending,
    /// The file the whole input was saved to and left behind.
    pub saved_to: Option<PathBuf>,
    /// Saving the input failed part way; the output was still written.
    pub save_error: Option<SaveError>,
}

/// Why a run stopped short.
#[derive(Debug)]
pub enum Error {
    /// Reading the input failed.
    Read(std::io::Error),
    /// Writing the output failed.
    Write(std::io::Error),
    /// The file to save the input to could not be created.
    Save(SaveError),
    /// A pattern is not a valid regex.
    Pattern {
        /// The option that gave it.
        option: &'static str,
        /// Why it is not valid.
        message: String,
    },
    /// The command could not be started.
    Command(Box<command::Error>),
}

impl Error {
    /// The status capout exits with for the error: 2 for a usage error,
    /// 126 or 127 for a command that could not be started, 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Pattern { .. } => 2,
            Error::Command(e) => e.exit_code(),
            Error::Read(_) | Error::Write(_) | Error::Save(_) => 1,
        }
    }

    /// A read error that is a command's failure to start is that failure:
    /// a command's reader starts it at the first read.
    fn of_input(self) -> Error {
        match self {
            Error::Read(e) => match e.downcast::<command::Error>() {
                Ok(e) => Error::Command(Box::new(e)),
                Err(e) => Error::Read(e),
            },
            e => e,
        }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Read(e) => write!(f, "error reading input: {e}"),
            Error::Write(e) => write!(f, "error writing output: {e}"),
            Error::Save(e) => e.fmt(f),
            Error::Pattern { option, message } => write!(f, "invalid value for '{option}': {message}"),
            Error::Command(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for Error {}

/// Reads `input` to its end and writes what the cap keeps to `out`, and
/// the notices to `out` or `err` as the config says.
///
/// With `--json`, `out` gets one complete object whatever happens after
/// the options are found valid: an error that stops the run is told in
/// its `error` field, and returned too.
pub fn run(
    config: &Config,
    input: impl Read,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Report, Error> {
    run_with(config, input, out, err, |_| Ending::default())
}

/// [`run`], where `end` is asked how the input ended once it is read to
/// its end: a command's reader waits for the command there.
pub fn run_with<R: Read>(
    config: &Config,
    mut input: R,
    out: &mut dyn Write,
    err: &mut dyn Write,
    end: impl FnOnce(&mut R) -> Ending,
) -> Result<Report, Error> {
    // An invalid pattern is a usage error: nothing is written, no file
    // is made.
    let invalid = |option| move |message| Error::Pattern { option, message };
    let matcher = config.pattern.as_ref().map(Pattern::matcher).transpose().map_err(invalid("--pattern"))?;
    let keep = config
        .keep
        .as_ref()
        .map(|k| Matcher::new(&k.pattern, false))
        .transpose()
        .map_err(invalid("--keep"))?;
    // The file is made before any input is read; failing to make it fails
    // the run before it starts, with its JSON object all the same.
    let saver = config.save.as_ref().map(Saver::create).transpose().map_err(Error::Save);
    let renderer = Renderer {
        template: config.template.clone(),
        saved: saver.as_ref().ok().and_then(Option::as_ref).map(|s| s.path().display().to_string()),
    };
    let mut output = if config.json {
        Output::json(out, err, renderer)
    } else {
        Output::new(out, err, config.notice, renderer)
    };
    let ran = saver.and_then(|saver| capped(config, matcher, keep, saver, &mut input, &mut output, end));
    finish(config, output, ran)
}

/// The run itself, once everything that makes it a usage error is ruled
/// out.
fn capped<R: Read>(
    config: &Config,
    matcher: Option<Matcher>,
    keep: Option<Matcher>,
    saver: Option<Saver>,
    input: &mut R,
    output: &mut Output,
    end: impl FnOnce(&mut R) -> Ending,
) -> Result<Report, Error> {
    let mut cap = build_cap(config, matcher);
    let mut stages = Stages {
        transforms: transform::Transforms::new(
            config.strip_ansi,
            config.collapse_cr,
            config.limits.collapse_cr,
        ),
        line_cap: char_line_cap(config).map(|w| transform::LineCap::new(w, config.unit)),
        rescuer: keep.and_then(|matcher| build_rescuer(config, matcher)),
        saver,
        progress: (config.progress && (config.json || holds_back(config.cap))).then(Progress::default),
        need: need(config),
        read_size: config.read_size,
    };
    let pass = engine::pass(cap.as_mut(), &mut *input, &mut stages, output).map_err(Error::of_input)?;
    let ending = end(input);
    let truncated = matches!(pass.outcome, Outcome::Cut(..) | Outcome::Middle(_));
    // The saved file is put in place (or given up) now that the input has
    // ended, before a notice names it.
    let (saved_to, save_error) = match stages.saver.take().map(|s| s.finish(truncated)) {
        None => (None, None),
        Some(Ok(path)) => (path, None),
        Some(Err(e)) => {
            output.forget_saved();
            (None, Some(e))
        }
    };
    let write = Error::Write;
    match &pass.outcome {
        Outcome::Whole | Outcome::Middle(_) => {}
        Outcome::Nothing(line) => output.notice(line.as_bytes()).map_err(write)?,
        Outcome::Cut(kind, facts) => {
            let line = output.render(*kind, facts);
            output.notice(line.as_bytes()).map_err(write)?;
        }
    }
    if let Some(duration) = &ending.timed_out {
        output.notice(notice::timed_out(duration).as_bytes()).map_err(write)?;
    }
    if let Some(name) = ending.interrupted.and_then(signal_hook::low_level::signal_name) {
        output.notice(notice::interrupted(name).as_bytes()).map_err(write)?;
    }
    if let Some(rescuer) = stages.rescuer.filter(|_| truncated) {
        for line in rescuer.finish(&pass.totals, &cap.cut(&pass.totals)) {
            output.notice(&line).map_err(write)?;
        }
    }
    // A failed save makes capout exit 1, whatever the command did.
    let ending = if save_error.is_some() { Ending { exit_code: 1, ..ending } } else { ending };
    Ok(Report { totals: pass.totals, truncated, matches: pass.matches, ending, saved_to, save_error })
}

/// Flushes the output and, with `--json`, ends the object: with the
/// report's fields, or with the error that stopped the run.
fn finish(config: &Config, mut output: Output, ran: Result<Report, Error>) -> Result<Report, Error> {
    let flushed = output.finish();
    let Some((out, notices)) = output.into_json() else {
        return ran.and_then(|report| flushed.map(|()| report).map_err(Error::Write));
    };
    let end = match &ran {
        Ok(report) => json::End {
            report: Some(report),
            notices: &notices,
            exit_code: report.ending.exit_code,
            error: report.save_error.as_ref().map(ToString::to_string),
        },
        Err(e) => json::End {
            report: None,
            notices: &notices,
            exit_code: i32::from(e.exit_code()),
            error: Some(e.to_string()),
        },
    };
    let written =
        flushed.and_then(|()| writeln!(out, "{}", json::end(config, &end))).and_then(|()| out.flush());
    // The error that stopped the run comes first; writing the object may
    // well fail the same way after it.
    ran.and_then(|report| written.map(|()| report).map_err(Error::Write))
}

/// The totals that something will read: the notices of the caps, `--json`,
/// a template, the live count, the rescued lines.
fn need(config: &Config) -> Need {
    if config.json || config.template.as_ref().is_some_and(Template::needs_totals) {
        return Need::ALL;
    }
    let lines = match config.cap {
        CapSpec::MaxMatches(_) => config.pattern.is_none(),
        cap => cap.is_line_cap(),
    };
    let head_units = matches!(config.cap, CapSpec::HeadChars(_) | CapSpec::HeadTailChars(..));
    let chars = config.unit == Unit::Chars
        && (matches!(config.cap, CapSpec::HeadTailChars(..)) || (head_units && config.keep.is_some()));
    Need { lines: lines || config.progress, chars }
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

fn build_cap(config: &Config, matcher: Option<Matcher>) -> Box<dyn Cap> {
    let shaper = || LineShaper::new(config.max_line, config.unit, config.line_numbers);
    match config.cap {
        CapSpec::TailChars(n) => Box::new(TailUnits::new(n, config.unit)),
        CapSpec::HeadChars(n) => Box::new(HeadUnits::new(n, config.unit)),
        CapSpec::HeadLines { limit, offset } => Box::new(HeadLines::new(limit, offset, shaper())),
        CapSpec::TailLines(n) => Box::new(TailLines::new(n, shaper())),
        CapSpec::MaxMatches(n) => match matcher {
            Some(matcher) => Box::new(Matches::new(n, matcher, config.limits.pattern_line, shaper())),
            None => Box::new(HeadLines::matches(n, shaper())),
        },
        CapSpec::HeadTailLines(h, t) => Box::new(HeadTailLines::new(
            HeadLines::new(h, 0, shaper()),
            TailLines::from_line(t, h.saturating_add(1), shaper()),
        )),
        CapSpec::HeadTailChars(h, t) => Box::new(HeadTailChars::new(h, t, config.unit)),
    }
}

/// The width of `--max-line-chars` given with a character cap, which
/// applies before the cap counts.
fn char_line_cap(config: &Config) -> Option<u64> {
    config.max_line.filter(|_| !config.cap.is_line_cap())
}

fn build_rescuer(config: &Config, matcher: Matcher) -> Option<Rescuer> {
    let keep = config.keep.as_ref()?;
    let tail_bytes = |n| config.unit.max_bytes(n).saturating_add(4);
    let (head, tail) = match config.cap {
        CapSpec::TailChars(n) => (Head::None, Tail::Bytes(tail_bytes(n))),
        CapSpec::HeadChars(n) => (Head::Units(n), Tail::None),
        CapSpec::HeadLines { limit, offset } => (Head::Lines(offset.saturating_add(limit)), Tail::None),
        CapSpec::TailLines(n) => (Head::None, Tail::Lines(n)),
        CapSpec::MaxMatches(_) => return None,
        CapSpec::HeadTailLines(h, t) => (Head::Lines(h), Tail::Lines(t)),
        CapSpec::HeadTailChars(h, t) => (Head::Units(h), Tail::Bytes(tail_bytes(t))),
    };
    let width = config.max_line.unwrap_or(cli::DEFAULT_MAX_LINE);
    let rescuer = Rescuer::new(matcher, keep.pattern.clone(), keep.max, width, config.unit, head, tail);
    Some(rescuer.with_line_limit(config.limits.pattern_line))
}
