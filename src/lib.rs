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
pub mod notice;
pub mod output;
pub mod ring;
pub mod utf8;

use std::io::{self, Read, Write};

use caps::{Cap, HeadLines, HeadUnits, LineShaper, Outcome, TailUnits};
use command::{CommandSpec, Status};
pub use count::{Totals, Unit};
pub use engine::Error;
pub use output::NoticeTarget;

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
    /// `--max-matches N`.
    MaxMatches(u64),
}

impl CapSpec {
    /// Whether the cap counts lines, so the per-line cap applies by default.
    pub fn is_line_cap(self) -> bool {
        matches!(self, CapSpec::HeadLines { .. } | CapSpec::MaxMatches(_))
    }
}

/// Everything that decides what capout writes, validated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// The cap.
    pub cap: CapSpec,
    /// Characters or bytes.
    pub unit: Unit,
    /// Units kept of each line (`--max-line-chars`), `None` for all.
    pub max_line: Option<u64>,
    /// Number the kept lines.
    pub line_numbers: bool,
    /// Where notices go.
    pub notice: NoticeTarget,
    /// Bytes asked of each read.
    pub read_size: usize,
    /// The command to run and cap instead of reading stdin.
    pub command: Option<CommandSpec>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            cap: CapSpec::TailChars(5000),
            unit: Unit::Chars,
            max_line: None,
            line_numbers: false,
            notice: NoticeTarget::Stdout,
            read_size: engine::READ_SIZE,
            command: None,
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
/// the notice to `out` or `err` as the config says.
pub fn run(
    config: &Config,
    input: impl Read,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Report, Error> {
    run_until(config, input, out, err, |_| Ok(None))
}

/// [`run`], with `end` called once the input is at its end and the cap has
/// written its notice. For a command's output, `end` waits for the command
/// and says how it ended, which may add a notice of its own.
pub(crate) fn run_until<R: Read>(
    config: &Config,
    mut input: R,
    out: &mut dyn Write,
    err: &mut dyn Write,
    end: impl FnOnce(&mut R) -> io::Result<Option<Status>>,
) -> Result<Report, Error> {
    let mut output = output::Output::new(out, err, config.notice);
    let mut cap = build_cap(config);
    let pass = engine::pass(cap.as_mut(), &mut input, &mut output, config.read_size)?;
    let truncated = match &pass.outcome {
        Outcome::Whole => false,
        Outcome::Nothing(line) => {
            output.notice(line).map_err(Error::Write)?;
            false
        }
        Outcome::Cut(kind, facts) => {
            output.notice(&notice::cap_notice(*kind, facts, None)).map_err(Error::Write)?;
            true
        }
        Outcome::Middle(_) => true,
    };
    // What is kept is shown before the wait for a command that closed its
    // output but runs on.
    output.flush().map_err(Error::Write)?;
    let timeout = config.command.as_ref().and_then(|c| c.timeout.as_ref());
    if let (Some(status), Some(timeout)) = (end(&mut input).map_err(Error::Read)?, timeout) {
        if status.timed_out {
            output.notice(&notice::timed_out(&timeout.label)).map_err(Error::Write)?;
        }
    }
    output.finish().map_err(Error::Write)?;
    Ok(Report { totals: pass.totals, truncated, matches: pass.matches })
}

fn build_cap(config: &Config) -> Box<dyn Cap> {
    let shaper = || LineShaper::new(config.max_line, config.unit, config.line_numbers);
    match config.cap {
        CapSpec::TailChars(n) => Box::new(TailUnits::new(n, config.unit)),
        CapSpec::HeadChars(n) => Box::new(HeadUnits::new(n, config.unit)),
        CapSpec::HeadLines { limit, offset } => Box::new(HeadLines::new(limit, offset, shaper())),
        CapSpec::MaxMatches(n) => Box::new(HeadLines::matches(n, shaper())),
    }
}
