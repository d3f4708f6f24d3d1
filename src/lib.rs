//! capout: a filter that bounds output.
//!
//! It reads its input once, keeps a bounded part of it — the first lines,
//! the last characters, the first matches — and ends with a notice that
//! says what was cut. Memory is sized by the cap, never by the input.
//!
//! The core is [`run`], generic over the input and the two output streams,
//! so it runs the same on stdin and stdout as on bytes in a test.

pub mod caps;
pub mod cli;
pub mod count;
pub mod engine;
pub mod matcher;
pub mod notice;
pub mod output;
pub mod rescue;
pub mod ring;
pub mod transform;
pub mod utf8;

use std::io::{Read, Write};

use caps::{
    Cap, HeadLines, HeadTailChars, HeadTailLines, HeadUnits, LineShaper, Matches, Outcome, TailLines,
    TailUnits,
};
pub use count::{Totals, Unit};
pub use engine::Error;
use matcher::Matcher;
pub use output::NoticeTarget;
use rescue::{Head, Rescuer, Tail};

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
    /// Bytes asked of each read.
    pub read_size: usize,
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
            read_size: engine::READ_SIZE,
        }
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
}

/// Reads `input` to its end and writes what the cap keeps to `out`, and
/// the notices to `out` or `err` as the config says.
pub fn run(
    config: &Config,
    input: impl Read,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Report, Error> {
    let mut output = output::Output::new(out, err, config.notice, notice::Renderer::default());
    let mut cap = build_cap(config);
    let mut rescuer = build_rescuer(config);
    let transforms = transform::Transforms::new(config.strip_ansi, config.collapse_cr);
    let pass =
        engine::pass(cap.as_mut(), input, transforms, rescuer.as_mut(), &mut output, config.read_size)?;
    let truncated = match &pass.outcome {
        Outcome::Whole => false,
        Outcome::Nothing(line) => {
            output.notice(line.as_bytes()).map_err(Error::Write)?;
            false
        }
        Outcome::Cut(kind, facts) => {
            let line = output.render(*kind, facts);
            output.notice(line.as_bytes()).map_err(Error::Write)?;
            true
        }
        Outcome::Middle(_) => true,
    };
    if let Some(rescuer) = rescuer.filter(|_| truncated) {
        for line in rescuer.finish(&pass.totals, &cap.cut(&pass.totals)) {
            output.notice(&line).map_err(Error::Write)?;
        }
    }
    output.finish().map_err(Error::Write)?;
    Ok(Report { totals: pass.totals, truncated, matches: pass.matches })
}

fn build_cap(config: &Config) -> Box<dyn Cap> {
    let shaper = || LineShaper::new(config.max_line, config.unit, config.line_numbers);
    let matcher = config.pattern.as_ref().and_then(|p| p.matcher().ok());
    match config.cap {
        CapSpec::TailChars(n) => Box::new(TailUnits::new(n, config.unit)),
        CapSpec::HeadChars(n) => Box::new(HeadUnits::new(n, config.unit)),
        CapSpec::HeadLines { limit, offset } => Box::new(HeadLines::new(limit, offset, shaper())),
        CapSpec::TailLines(n) => Box::new(TailLines::new(n, shaper())),
        CapSpec::MaxMatches(n) => match matcher {
            Some(matcher) => Box::new(Matches::new(n, matcher, shaper())),
            None => Box::new(HeadLines::matches(n, shaper())),
        },
        CapSpec::HeadTailLines(h, t) => Box::new(HeadTailLines::new(
            HeadLines::new(h, 0, shaper()),
            TailLines::from_line(t, h.saturating_add(1), shaper()),
        )),
        CapSpec::HeadTailChars(h, t) => Box::new(HeadTailChars::new(h, t, config.unit)),
    }
}

fn build_rescuer(config: &Config) -> Option<Rescuer> {
    let keep = config.keep.as_ref()?;
    let matcher = Matcher::new(&keep.pattern, false).ok()?;
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
    Some(Rescuer::new(matcher, keep.pattern.clone(), keep.max, width, config.unit, head, tail))
}
