//! The command line: clap's parser, `CAPOUT_OPTS`, and their validation
//! into a [`Run`]. Nothing is read or written here.

use std::ffi::OsString;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::parser::ValueSource;
use clap::{Arg, ArgAction, ArgMatches, CommandFactory, FromArgMatches, Parser, ValueEnum, ValueHint};
use clap_complete::Shell;

use capout_core::{CapSpec, Keep, NoticeTarget, Options, Pattern, SaveTo, Template, Tokenizer, Unit};

/// The cap when none is given: `--tail-chars 5000`.
pub use capout_core::DEFAULT_TAIL_CHARS;
/// Rescued lines shown at most when `--keep-max` is not given.
pub const DEFAULT_KEEP_MAX: u64 = 20;
/// How long after SIGTERM a timed-out command gets SIGKILL when
/// `--kill-after` is not given.
pub const DEFAULT_KILL_AFTER: Duration = Duration::from_secs(5);
/// The terminal of `--render` when `--render-width` and `--render-height`
/// are not given: 200 columns, 50 rows.
pub const DEFAULT_RENDER: (u16, u16) = (200, 50);

/// Bound a command's output: keep the first lines, the last characters or
/// the first matches, and say what was cut.
// Default: what clap gives for an empty command line (no option has a
// default value of clap's), which `simple` relies on.
#[derive(Clone, Debug, Default, Parser)]
#[command(
    name = "capout",
    version,
    args_override_self = true,
    override_usage = "capout [OPTIONS]\n       capout [OPTIONS] [--] COMMAND [ARG]...",
    after_help = "With no cap, --tail-chars 5000 applies. With a COMMAND, capout runs it, caps its joined \
                  stdout and stderr, and exits with its status (124 on --timeout, 126 or 127 when it \
                  cannot be run). Every cap reads its input to the end, to count the total that its \
                  notice gives; a tail cap must, to find the end. --stop-at-cap stops a head cap \
                  (--head-lines, --head-chars, --max-matches) once it is full, as head does, and a \
                  command then meets a closed pipe. Every switch has a --no- form (--no-json, --no-strip-ansi, ...) \
                  that turns off a default from CAPOUT_OPTS. See capout(1) for the notices and exit \
                  statuses: capout --man | man -l - shows it."
)]
pub struct Args {
    /// Keep the last N characters [default cap: 5000]
    #[arg(short = 'c', long, value_name = "N", value_parser = cap_value, allow_negative_numbers = true)]
    tail_chars: Option<u64>,

    /// Keep N lines, after --offset K lines
    #[arg(short = 'n', long, visible_alias = "limit", value_name = "N", value_parser = cap_value, allow_negative_numbers = true)]
    head_lines: Option<u64>,

    /// Skip K lines before --head-lines starts, or K matches before --max-matches starts
    #[arg(long, value_name = "K", allow_negative_numbers = true)]
    offset: Option<u64>,

    /// Keep the first N matches (lines)
    #[arg(short = 'm', long, value_name = "N", value_parser = cap_value, allow_negative_numbers = true)]
    max_matches: Option<u64>,

    /// Keep the first N characters (with --tail-chars: both ends)
    #[arg(long, value_name = "N", value_parser = cap_value, allow_negative_numbers = true)]
    head_chars: Option<u64>,

    /// Keep the last N lines (with --head-lines: both ends)
    #[arg(long, value_name = "N", value_parser = cap_value, allow_negative_numbers = true)]
    tail_lines: Option<u64>,

    /// Keep the last N tokens (with --head-tokens: both ends)
    #[arg(long, value_name = "N", value_parser = cap_value, allow_negative_numbers = true)]
    tail_tokens: Option<u64>,

    /// Keep the first N tokens
    #[arg(long, value_name = "N", value_parser = cap_value, allow_negative_numbers = true)]
    head_tokens: Option<u64>,

    /// How the token caps count: estimate (no vocabulary), o200k or cl100k (exact) [default: estimate]
    #[arg(long, value_enum, value_name = "NAME")]
    tokenizer: Option<TokenizerArg>,

    /// With --max-matches: count only lines matching REGEX
    #[arg(short = 'e', long, value_name = "REGEX", allow_hyphen_values = true)]
    pattern: Option<String>,

    /// With --pattern: match it as a literal string
    #[arg(short = 'F', long)]
    fixed_strings: bool,

    /// Match --pattern and --keep without regard to case
    #[arg(short = 'i', long)]
    ignore_case: bool,

    /// Keep W characters of each line, 0 for all [default: 2000 with --head-lines, --tail-lines and
    /// --max-matches; off with the char caps]
    #[arg(long, value_name = "W", allow_negative_numbers = true)]
    max_line_chars: Option<u64>,

    /// With --head-lines, --tail-lines or --max-matches: keep at most N characters in all, whole
    /// lines only
    #[arg(long, value_name = "N", value_parser = cap_value, allow_negative_numbers = true)]
    budget_chars: Option<u64>,

    /// Count bytes instead of characters
    #[arg(long)]
    bytes: bool,

    /// Number kept lines as `cat -n` does
    #[arg(short = 'N', long)]
    line_numbers: bool,

    /// Remove ANSI escape sequences before counting
    #[arg(long)]
    strip_ansi: bool,

    /// Keep only the text after the last carriage return of each line
    #[arg(long)]
    collapse_cr: bool,

    /// Show what a terminal would show (cursor movement, erasures, redraws applied) and cap its rows
    #[arg(long)]
    render: bool,

    /// With --render: the terminal's width in columns, 2 to 10000 [default: 200]
    #[arg(long, value_name = "N", value_parser = render_width)]
    render_width: Option<u16>,

    /// With --render: the terminal's height in rows, 1 to 1000 [default: 50]
    #[arg(long, value_name = "N", value_parser = render_height)]
    render_height: Option<u16>,

    /// Show the cut lines that match REGEX after the notice
    #[arg(long, value_name = "REGEX", allow_hyphen_values = true)]
    keep: Option<String>,

    /// With --keep: show at most K rescued lines [default: 20]
    #[arg(long, value_name = "K", allow_negative_numbers = true)]
    keep_max: Option<u64>,

    /// Where notices go [default: stdout]
    #[arg(long, value_enum, value_name = "WHERE")]
    notice: Option<NoticeArg>,

    #[arg(
        long,
        value_name = "TEMPLATE",
        allow_hyphen_values = true,
        help = "Word the notice with TEMPLATE: {shown} {limit} {total} {omitted} {unit} {first} {last} {next_offset} {saved}"
    )]
    notice_format: Option<String>,

    /// Print one JSON object instead of text
    #[arg(long)]
    json: bool,

    /// Show input with a NUL byte in its first 8 KiB as it is, or hide it behind one line that says
    /// its size [default: show; hide in the profiles read and bash]
    #[arg(long, value_enum, value_name = "WHAT")]
    binary: Option<BinaryArg>,

    /// Stop reading once a head cap (--head-lines, --head-chars, --max-matches) is full, as head
    /// does: the notice then has no total. Without it every cap reads to the end, to count the total
    /// that its notice gives
    #[arg(long)]
    stop_at_cap: bool,

    /// Read FILE instead of stdin
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    input: Option<PathBuf>,

    /// Apply the options of profile NAME: read, grep, bash, or a [profile.NAME] of the config file
    #[arg(long, value_name = "NAME")]
    profile: Option<String>,

    /// Print the options in force, each with where it came from, and exit
    #[arg(long)]
    show_config: bool,

    /// Also write the whole input, uncut, to FILE
    #[arg(long, value_name = "FILE", overrides_with = "save_dir", value_hint = ValueHint::FilePath)]
    save: Option<PathBuf>,

    /// Also write the whole input to a new DIR/capout-XXXXXX.log, removed when nothing was cut
    #[arg(long, value_name = "DIR", overrides_with = "save", value_hint = ValueHint::DirPath)]
    save_dir: Option<PathBuf>,

    /// Show a live count of what was read on stderr while a cap holds its output back [default: auto]
    #[arg(long, value_enum, value_name = "WHEN")]
    progress: Option<When>,

    /// With a command: stop it after DURATION (30, 30s, 1.5s, 500ms, 2m, 1h, 1d; 0 for never) and exit
    /// 124
    #[arg(long, value_name = "DURATION", value_parser = duration, allow_negative_numbers = true)]
    timeout: Option<DurationArg>,

    /// With --timeout: send SIGKILL this long after SIGTERM, 0 for never [default: 5s]
    #[arg(long, value_name = "DURATION", value_parser = duration, allow_negative_numbers = true)]
    kill_after: Option<DurationArg>,

    /// With a command: leave its stderr on capout's stderr instead of joining it
    #[arg(long)]
    stdout_only: bool,

    /// Print a completion script for SHELL and exit
    #[arg(long, value_name = "SHELL", value_parser = ["bash", "zsh", "fish", "elvish"])]
    completions: Option<String>,

    /// Serve the tools read, grep and bash over the Model Context Protocol on stdin and stdout
    #[arg(long)]
    mcp: bool,

    /// With --mcp: the directory the tools work in, and that paths may not leave [default: .]
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
    root: Option<PathBuf>,

    /// The command to run and its arguments; everything from COMMAND on is its own
    #[arg(value_name = "COMMAND", trailing_var_arg = true, num_args = 1.., value_hint = ValueHint::CommandWithArguments)]
    command: Vec<OsString>,

    /// The clap ids of the options that gave way in `resolve`.
    #[arg(skip)]
    gave_way: Vec<&'static str>,

    /// The clap ids of the caps given, in command-line order, so that an
    /// error names them as they were written.
    #[arg(skip)]
    cap_order: Vec<&'static str>,
}

/// A duration as given on the command line: its value, and its text with
/// `s` added when it has no unit, as the timeout notice names it.
#[derive(Clone, Debug)]
struct DurationArg {
    value: Duration,
    label: String,
}

/// Parses `30`, `30s`, `500ms`, `2m`, `1h` or `1d`; a decimal fraction
/// (`1.5s`) is allowed, as GNU `timeout` allows it.
fn duration(text: &str) -> Result<DurationArg, String> {
    const NANOS: [(&str, u128); 5] = [
        ("ms", 1_000_000),
        ("s", 1_000_000_000),
        ("m", 60_000_000_000),
        ("h", 3_600_000_000_000),
        ("d", 86_400_000_000_000),
    ];
    let (number, per_unit, label) = match NANOS.iter().find(|(unit, _)| text.ends_with(unit)) {
        Some(&(unit, nanos)) => (&text[..text.len() - unit.len()], nanos, text.to_owned()),
        None => (text, 1_000_000_000, format!("{text}s")),
    };
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || !(fraction.is_empty() || digits(fraction)) || number.ends_with('.') {
        return Err("expected a number and an optional unit ms, s, m, h or d, as in 30s or 500ms".into());
    }
    // Exact integer arithmetic in nanoseconds. Fraction digits past the
    // 18th are far below a nanosecond in any unit and are dropped.
    let fraction = &fraction[..fraction.len().min(18)];
    let scale = 10u128.pow(fraction.len() as u32);
    let value = whole
        .parse::<u128>()
        .ok()
        .and_then(|whole| whole.checked_mul(per_unit))
        .and_then(|n| n.checked_add(fraction.parse::<u128>().unwrap_or(0) * per_unit / scale))
        .and_then(|n| {
            Some(Duration::new(u64::try_from(n / 1_000_000_000).ok()?, (n % 1_000_000_000) as u32))
        });
    // Only zero is zero: a duration too small to measure is the smallest.
    let value = value.map(|v| {
        if v.is_zero() && number.bytes().any(|b| b.is_ascii_digit() && b != b'0') {
            Duration::from_nanos(1)
        } else {
            v
        }
    });
    match value {
        Some(value) => Ok(DurationArg { value, label }),
        None => Err("the duration is too long".into()),
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum NoticeArg {
    Stdout,
    Stderr,
    None,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum TokenizerArg {
    Estimate,
    O200k,
    Cl100k,
}

impl From<TokenizerArg> for Tokenizer {
    fn from(arg: TokenizerArg) -> Tokenizer {
        match arg {
            TokenizerArg::Estimate => Tokenizer::Estimate,
            TokenizerArg::O200k => Tokenizer::O200k,
            TokenizerArg::Cl100k => Tokenizer::Cl100k,
        }
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum BinaryArg {
    Show,
    Hide,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum When {
    Auto,
    Always,
    Never,
}

/// What the command line asks for.
#[derive(Debug)]
pub enum Action {
    /// Cap the input. Boxed: a run is large beside a shell's name.
    Run(Box<Run>),
    /// Print a completion script.
    Completions(Shell),
    /// Print the options in force (`--show-config`): this text.
    ShowConfig(String),
}

/// A run the command line asks for: the engine's options, and what the
/// program does around the engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    /// What the engine keeps, and how it says so.
    pub options: Options,
    /// The command to run, whose output is the input.
    pub command: Option<CommandSpec>,
    /// `--input FILE`: the file read instead of stdin.
    pub input: Option<PathBuf>,
}

/// A cap: a number from 1 to 2^64-1.
fn cap_value(text: &str) -> Result<u64, String> {
    in_range(text, 1, u64::MAX)
}

/// `--render-width`: 2 to 10000 columns.
fn render_width(text: &str) -> Result<u16, String> {
    in_range(text, 2, 10_000).map(|n| n as u16)
}

/// `--render-height`: 1 to 1000 rows.
fn render_height(text: &str) -> Result<u16, String> {
    in_range(text, 1, 1000).map(|n| n as u16)
}

/// A whole number from `low` to `high`, whose error names the range in
/// words, the same for every option (clap's own says `1..N` for one and
/// `1..=N` for another).
fn in_range(text: &str, low: u64, high: u64) -> Result<u64, String> {
    let number: i128 = text.parse().map_err(|e: std::num::ParseIntError| e.to_string())?;
    u64::try_from(number)
        .ok()
        .filter(|n| (low..=high).contains(n))
        .ok_or_else(|| format!("{number} is not in {low} to {high}"))
}

impl Args {
    /// What the arguments ask for.
    pub fn into_action(self) -> Result<Action, clap::Error> {
        // `capout --mcp [--root DIR]` alone is served before this parse
        // (see `mcp_requested`): here either is mixed with others.
        if self.root.is_some() && !self.mcp {
            return Err(usage("--root goes with --mcp: capout --mcp [--root DIR]".into()));
        }
        if self.mcp {
            return Err(usage("--mcp takes no option but --root DIR: capout --mcp [--root DIR]".into()));
        }
        match self.completions.as_deref() {
            Some(name) => {
                name.parse().map(Action::Completions).map_err(|e: String| invalid("--completions", &e))
            }
            None => self.into_run().map(|run| Action::Run(Box::new(run))),
        }
    }

    /// The config, checking what clap cannot: how caps and options combine.
    /// Checks that each option goes with what it belongs to: its cap, a
    /// pattern, `--render`, a command or none.
    fn check_companions(&self, cap: CapSpec, runs: bool) -> Result<(), clap::Error> {
        if self.offset.is_some() && !matches!(cap, CapSpec::HeadLines { .. } | CapSpec::MaxMatches(_)) {
            return Err(usage("--offset goes with --head-lines or --max-matches alone".into()));
        }
        if self.budget_chars.is_some()
            && !matches!(cap, CapSpec::HeadLines { .. } | CapSpec::TailLines(_) | CapSpec::MaxMatches(_))
        {
            return Err(usage(
                "--budget-chars goes with --head-lines, --tail-lines or --max-matches alone".into(),
            ));
        }
        let matches = matches!(cap, CapSpec::MaxMatches(_));
        if self.pattern.is_some() && !matches {
            return Err(usage("--pattern goes with --max-matches".into()));
        }
        if self.fixed_strings && self.pattern.is_none() {
            return Err(usage("--fixed-strings goes with --pattern".into()));
        }
        if self.keep.is_some() && self.budget_chars.is_some() {
            return Err(usage("--keep does not go with --budget-chars".into()));
        }
        if self.keep.is_some() && matches {
            return Err(usage("--keep does not go with --max-matches".into()));
        }
        if self.keep_max.is_some() && self.keep.is_none() {
            return Err(usage("--keep-max goes with --keep".into()));
        }
        for (given, name) in [(self.render_width, "--render-width"), (self.render_height, "--render-height")]
        {
            if given.is_some() && !self.render {
                return Err(usage(format!("{name} goes with --render")));
            }
        }
        if self.line_numbers && !cap.is_line_cap() {
            return Err(usage(
                "--line-numbers goes with a line cap or --max-matches, not a character cap".into(),
            ));
        }
        let tokenizer = self.tokenizer.map_or(Tokenizer::Estimate, Tokenizer::from);
        if !tokenizer.available() {
            return Err(usage(format!(
                "--tokenizer {}: capout was built without exact tokenizers (cargo feature exact-tokens)",
                tokenizer.name()
            )));
        }
        if self.ignore_case && self.pattern.is_none() && self.keep.is_none() {
            return Err(usage("--ignore-case goes with --pattern or --keep".into()));
        }
        let head = matches!(cap, CapSpec::HeadLines { .. } | CapSpec::HeadChars(_) | CapSpec::MaxMatches(_));
        if self.stop_at_cap && !head {
            return Err(usage("--stop-at-cap goes with --head-lines, --head-chars or --max-matches".into()));
        }
        if self.stop_at_cap && self.keep.is_some() {
            return Err(usage(
                "--stop-at-cap does not go with --keep: the lines after the cap are not read".into(),
            ));
        }
        if self.input.is_some() && runs {
            return Err(usage(
                "--input goes without a command: capout --input FILE, or capout -- COMMAND [ARG]...".into(),
            ));
        }
        Ok(())
    }

    fn into_run(self) -> Result<Run, clap::Error> {
        let cap = self.cap()?;
        let command = self.command_spec()?;
        self.check_companions(cap, command.is_some())?;
        let tokenizer = self.tokenizer.map_or(Tokenizer::Estimate, Tokenizer::from);
        let pattern = self.pattern.map(|text| Pattern { text, fixed: self.fixed_strings });
        if let Some(Err(e)) = pattern.as_ref().map(Pattern::check) {
            return Err(invalid("--pattern", &e.to_string()));
        }
        let keep = self.keep.map(|pattern| Keep { pattern, max: self.keep_max.unwrap_or(DEFAULT_KEEP_MAX) });
        if let Some(Err(e)) = keep.as_ref().map(|k| Pattern { text: k.pattern.clone(), fixed: false }.check())
        {
            return Err(invalid("--keep", &e.to_string()));
        }
        let template = match self.notice_format.as_deref().map(Template::parse) {
            Some(Err(e)) => {
                let template = self.notice_format.as_deref().unwrap_or_default();
                return Err(invalid("--notice-format", &format!("{e} in '{template}'")));
            }
            Some(Ok(t)) => Some(t),
            None => None,
        };
        let save = match (self.save, self.save_dir) {
            (Some(file), _) => Some(SaveTo::File(file)),
            (None, Some(dir)) => Some(SaveTo::Dir(dir)),
            (None, None) => None,
        };
        let mut options = Options::new(cap);
        options.pattern = pattern;
        options.unit = if self.bytes { Unit::Bytes } else { Unit::Chars };
        options.tokenizer = tokenizer;
        options.max_line_chars = self.max_line_chars;
        options.line_numbers = self.line_numbers;
        options.budget = self.budget_chars;
        options.match_offset =
            if matches!(cap, CapSpec::MaxMatches(_)) { self.offset.unwrap_or(0) } else { 0 };
        options.strip_ansi = self.strip_ansi;
        options.collapse_cr = self.collapse_cr;
        options.render = self.render.then(|| {
            let (width, height) = DEFAULT_RENDER;
            (self.render_width.unwrap_or(width), self.render_height.unwrap_or(height))
        });
        options.keep = keep;
        options.notice = match self.notice {
            None | Some(NoticeArg::Stdout) => NoticeTarget::Stdout,
            Some(NoticeArg::Stderr) => NoticeTarget::Stderr,
            Some(NoticeArg::None) => NoticeTarget::None,
        };
        options.template = template;
        options.json = self.json;
        options.save = save;
        options.progress = match self.progress {
            None | Some(When::Auto) => std::io::stderr().is_terminal(),
            Some(When::Always) => true,
            Some(When::Never) => false,
        };
        options.ignore_case = self.ignore_case;
        options.hide_binary = matches!(self.binary, Some(BinaryArg::Hide));
        options.stop_at_cap = self.stop_at_cap;
        Ok(Run { options, command, input: self.input })
    }

    /// The command to run, with the options that only make sense with one.
    fn command_spec(&self) -> Result<Option<CommandSpec>, clap::Error> {
        if self.command.is_empty() {
            for (given, name) in [
                (self.timeout.is_some(), "--timeout"),
                (self.kill_after.is_some(), "--kill-after"),
                (self.stdout_only, "--stdout-only"),
            ] {
                if given {
                    return Err(usage(format!(
                        "{name} goes with a command: capout [OPTIONS] -- COMMAND [ARG]..."
                    )));
                }
            }
            return Ok(None);
        }
        if self.kill_after.is_some() && self.timeout.is_none() {
            return Err(usage("--kill-after goes with --timeout".into()));
        }
        // Zero turns a timer off, as in GNU timeout.
        let nonzero = |d: Duration| (!d.is_zero()).then_some(d);
        let timeout = self.timeout.as_ref().filter(|t| !t.value.is_zero()).map(|t| Timeout {
            after: t.value,
            label: t.label.clone(),
            kill_after: self.kill_after.as_ref().map_or(Some(DEFAULT_KILL_AFTER), |k| nonzero(k.value)),
        });
        let mut words = self.command.iter().cloned();
        let program = words.next().unwrap_or_default();
        Ok(Some(CommandSpec { program, args: words.collect(), timeout, stdout_only: self.stdout_only }))
    }

    /// The cap: one of them, or one of the two head+tail pairs.
    fn cap(&self) -> Result<CapSpec, clap::Error> {
        let others = [self.tail_chars, self.head_chars, self.head_lines, self.tail_lines, self.max_matches];
        match (self.head_tokens, self.tail_tokens) {
            (None, None) => {}
            (head, tail) if others.iter().all(Option::is_none) => {
                return Ok(match (head, tail) {
                    (Some(h), Some(t)) => CapSpec::HeadTailTokens(h, t),
                    (Some(h), None) => CapSpec::HeadTokens(h),
                    (_, t) => CapSpec::TailTokens(t.unwrap_or_default()),
                });
            }
            _ => return Err(self.conflicting_caps()),
        }
        let offset = self.offset.unwrap_or(0);
        Ok(match (self.tail_chars, self.head_chars, self.head_lines, self.tail_lines, self.max_matches) {
            (None, None, None, None, None) => CapSpec::TailChars(DEFAULT_TAIL_CHARS),
            (Some(n), None, None, None, None) => CapSpec::TailChars(n),
            (None, Some(n), None, None, None) => CapSpec::HeadChars(n),
            (None, None, Some(limit), None, None) => CapSpec::HeadLines { limit, offset },
            (None, None, None, Some(n), None) => CapSpec::TailLines(n),
            (None, None, None, None, Some(n)) => CapSpec::MaxMatches(n),
            (Some(t), Some(h), None, None, None) => CapSpec::HeadTailChars(h, t),
            (None, None, Some(h), Some(t), None) => CapSpec::HeadTailLines(h, t),
            _ => return Err(self.conflicting_caps()),
        })
    }

    /// The usage error of caps that do not go together.
    fn conflicting_caps(&self) -> clap::Error {
        let caps = [
            ("tail_chars", "--tail-chars", self.tail_chars),
            ("head_chars", "--head-chars", self.head_chars),
            ("head_lines", "--head-lines", self.head_lines),
            ("tail_lines", "--tail-lines", self.tail_lines),
            ("max_matches", "--max-matches", self.max_matches),
            ("head_tokens", "--head-tokens", self.head_tokens),
            ("tail_tokens", "--tail-tokens", self.tail_tokens),
        ];
        let mut given: Vec<(usize, String)> = caps
            .into_iter()
            .filter_map(|(id, name, value)| {
                let place = self.cap_order.iter().position(|&o| o == id).unwrap_or(usize::MAX);
                value.map(|v| (place, format!("{name} {v}")))
            })
            .collect();
        given.sort_by_key(|&(place, _)| place);
        let given: Vec<String> = given.into_iter().map(|(_, text)| text).collect();
        usage(format!("the caps {} cannot be used together", given.join(" and ")))
    }
}

fn invalid(option: &str, why: &str) -> clap::Error {
    command().error(ErrorKind::ValueValidation, format!("invalid value for '{option}': {why}"))
}

fn usage(message: String) -> clap::Error {
    command().error(ErrorKind::ArgumentConflict, message)
}

/// Parses the process's arguments over the config file and `CAPOUT_OPTS`;
/// on a usage error, prints it and exits with status 2 (0 for `--help`
/// and `--version`).
pub fn parse() -> Action {
    parse_from(std::env::args_os())
}

/// As [`parse`], with `args` (the first is the program's name) in place of
/// capout's own arguments.
pub fn parse_from<I, T>(args: I) -> Action
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let opts = std::env::var_os("CAPOUT_OPTS");
    let opts = match opts.as_deref().map(|o| o.to_str().ok_or(o)) {
        Some(Err(_)) => usage_in(CAPOUT_OPTS, "it is not valid UTF-8").exit(),
        Some(Ok(opts)) => Some(opts),
        None => None,
    };
    let file = crate::profiles::ConfigFile::load().unwrap_or_else(|e| e.exit());
    try_parse_with(args, file.as_ref(), opts).unwrap_or_else(|e| e.exit())
}

/// What `CAPOUT_OPTS` is called in messages and by `--show-config`.
const CAPOUT_OPTS: &str = "CAPOUT_OPTS";

/// Parses `args` (the first is the program's name) over the default
/// options `opts` (the value of `CAPOUT_OPTS`), without a config file.
pub fn try_parse<I, T>(args: I, opts: Option<&str>) -> Result<Action, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    try_parse_with(args, None, opts)
}

/// A layer of options (the config file's defaults, `CAPOUT_OPTS`, a
/// profile): where its words came from, and them.
#[derive(Clone, Debug)]
pub struct Layer {
    /// Where it came from, as `--show-config` says it: `config file
    /// PATH`, `CAPOUT_OPTS`, `profile NAME`, `profile NAME of config file
    /// PATH`.
    pub source: String,
    /// Where it came from, as errors name it: `config file PATH
    /// [defaults]`, `config file PATH [profile.NAME]`, `CAPOUT_OPTS`,
    /// `profile NAME`.
    pub place: String,
    /// Whether its words are the keys of a table of the config file, so
    /// that an error about one option names the key after `place`.
    pub table: bool,
    /// Its options, as words of a command line.
    pub words: Vec<OsString>,
}

/// Parses `args` (the first is the program's name) over the layers of
/// defaults, later winning: the config file's `[defaults]`, `opts` (the
/// value of `CAPOUT_OPTS`), and the profile that `--profile` names.
///
/// Each layer is turned into words, and the words of all go in front of
/// the command line's and are parsed at once, as ripgrep parses its
/// config file: a later option overrides an earlier one, so every option
/// works in every layer as it works on the command line. Each layer is
/// also parsed alone, to check that it makes sense on its own, and with
/// those before it, to learn where it ends: a cap replaces the caps of
/// earlier layers, and a few defaults give way where they do not fit (see
/// `resolve`).
pub fn try_parse_with<I, T>(
    args: I,
    file: Option<&crate::profiles::ConfigFile>,
    opts: Option<&str>,
) -> Result<Action, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let mut args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    if args.is_empty() {
        args.push("capout".into());
    }
    let mut layers = Vec::new();
    if let Some(defaults) = file.and_then(crate::profiles::ConfigFile::defaults) {
        layers.push(defaults);
    }
    if let Some(opts) = opts {
        let words = shlex::split(opts).ok_or_else(|| usage_in(CAPOUT_OPTS, "unbalanced quotes"))?;
        layers.push(Layer {
            source: CAPOUT_OPTS.into(),
            place: CAPOUT_OPTS.into(),
            table: false,
            words: words.into_iter().map(OsString::from).collect(),
        });
    }
    if layers.is_empty()
        && let Some(args) = simple(&args, file)
    {
        return args.into_action();
    }
    parse_layers(args, file, layers)
}

/// [`try_parse_with`] by the parser, with the layers of defaults found.
fn parse_layers(
    args: Vec<OsString>,
    file: Option<&crate::profiles::ConfigFile>,
    mut layers: Vec<Layer>,
) -> Result<Action, clap::Error> {
    let program = args[0].clone();
    for layer in &layers {
        check_layer(&program, layer, &args, true)?;
    }
    // The profile: the last --profile of the command line or of a layer.
    let before: Vec<OsString> = std::iter::once(program.clone())
        .chain(layers.iter().flat_map(|l| l.words.iter().cloned()))
        .chain(args.iter().skip(1).cloned())
        .collect();
    let before_matches = parse_words(&before)?;
    let mut ends = Vec::with_capacity(layers.len() + 1);
    let mut all = vec![program.clone()];
    for layer in &layers {
        all.extend(layer.words.iter().cloned());
        ends.push(last_index(&parse_words(&all)?));
    }
    let profile = match before_matches.get_one::<String>("profile") {
        Some(name) => {
            let Some(profile) = crate::profiles::layer(file, name)? else {
                let hint = crate::profiles::similar(file, name)
                    .map(|known| format!("; did you mean {known}?"))
                    .unwrap_or_default();
                let why = format!("no such profile: {name}{hint} ({})", crate::profiles::known(file));
                // Named where the --profile came from.
                return Err(match layer_of(&before_matches, &ends, "profile").and_then(|i| layers.get(i)) {
                    Some(layer) if layer.table => usage_in(&format!("{} profile", layer.place), &why),
                    Some(layer) => usage_in(&layer.place, &why),
                    None => usage(why),
                });
            };
            check_layer(&program, &profile, &args, false)?;
            all.extend(profile.words.iter().cloned());
            ends.push(last_index(&parse_words(&all)?));
            Some(profile)
        }
        None => None,
    };
    all.extend(args.into_iter().skip(1));
    // Without a profile, these are the words parsed above.
    let matches = if profile.is_some() { parse_words(&all)? } else { before_matches };
    layers.extend(profile);
    let args = resolve(&matches, &ends)?;
    if args.show_config {
        let text = show_config(&matches, &ends, &layers, &args)?;
        return Ok(Action::ShowConfig(text));
    }
    args.into_action()
}

/// The options of `args` (the first is the program's name) without
/// building the parser, when they are none or one cap and its number, as
/// in `capout -c 5000`, or a built-in profile that `file` leaves as it is
/// with `--save-dir DIR`, either or both, and then maybe `-- COMMAND
/// [ARG]...`, as Claude Code's shell prefix runs every command: the
/// parser costs more than the rest of a run on a small input. Anything
/// else, a number clap would refuse included, is left to the parser
/// (`None`), which gives the same options for these.
fn simple(args: &[OsString], file: Option<&crate::profiles::ConfigFile>) -> Option<Args> {
    let mut parsed = Args::default();
    let mut words = &args[1..];
    // Everything after the first `--` is the command's own: no word
    // before it may be one that takes `--` for its value, as the forms
    // below ensure.
    if let Some(at) = words.iter().position(|w| w == "--") {
        let command = &words[at + 1..];
        if command.is_empty() {
            return None;
        }
        parsed.command = command.to_vec();
        words = &words[..at];
    }
    match words {
        [] => {}
        [option, number] if option != "--profile" && option != "--save-dir" => {
            set_cap(&mut parsed, option.to_str()?, number.to_str()?)?;
        }
        _ => {
            let (profile, save_dir) = match words {
                [p, name] if p == "--profile" => (Some(name), None),
                [s, dir] if s == "--save-dir" => (None, Some(dir)),
                [p, name, s, dir] | [s, dir, p, name] if p == "--profile" && s == "--save-dir" => {
                    (Some(name), Some(dir))
                }
                _ => return None,
            };
            if let Some(dir) = save_dir {
                // clap refuses an empty path, and takes a word that starts
                // with `-` for an option.
                if dir.is_empty() || dir.as_encoded_bytes()[0] == b'-' {
                    return None;
                }
                parsed.save_dir = Some(PathBuf::from(dir));
            }
            if let Some(name) = profile {
                let name = name.to_str()?;
                let mut profile = crate::profiles::built_in(file, name)?.iter();
                while let Some(&word) = profile.next() {
                    match word {
                        "--strip-ansi" => parsed.strip_ansi = true,
                        "--collapse-cr" => parsed.collapse_cr = true,
                        "--binary" => {
                            parsed.binary = Some(match *profile.next()? {
                                "hide" => BinaryArg::Hide,
                                "show" => BinaryArg::Show,
                                _ => return None,
                            });
                        }
                        "--budget-chars" => parsed.budget_chars = Some(number(profile.next()?)?),
                        cap => set_cap(&mut parsed, cap, profile.next()?)?,
                    }
                }
                parsed.profile = Some(name.to_owned());
            }
        }
    }
    Some(parsed)
}

/// Sets the cap `option` to the number `text` in `parsed`, a cap not set before,
/// when both are as the parser takes them without a question.
fn set_cap(parsed: &mut Args, option: &str, text: &str) -> Option<()> {
    if !parsed.cap_order.is_empty() {
        return None;
    }
    let (field, id) = match option {
        "-c" | "--tail-chars" => (&mut parsed.tail_chars, "tail_chars"),
        "-n" | "--head-lines" => (&mut parsed.head_lines, "head_lines"),
        "--head-chars" => (&mut parsed.head_chars, "head_chars"),
        "--tail-lines" => (&mut parsed.tail_lines, "tail_lines"),
        "--tail-tokens" => (&mut parsed.tail_tokens, "tail_tokens"),
        "--head-tokens" => (&mut parsed.head_tokens, "head_tokens"),
        "--max-matches" => (&mut parsed.max_matches, "max_matches"),
        _ => return None,
    };
    *field = Some(number(text)?);
    parsed.cap_order.push(id);
    Some(())
}

/// A cap's number in plain digits, from 1 up, as `cap_value` takes it.
fn number(text: &str) -> Option<u64> {
    text.bytes().all(|b| b.is_ascii_digit()).then(|| text.parse::<u64>().ok()).flatten().filter(|&n| n >= 1)
}

/// Checks that `layer` makes sense alone and holds only options that can
/// be defaults (`--profile` too where `may_name_a_profile`). The command
/// line's own mistakes are reported first, as they would be without it.
fn check_layer(
    program: &OsString,
    layer: &Layer,
    args: &[OsString],
    may_name_a_profile: bool,
) -> Result<(), clap::Error> {
    let words: Vec<OsString> = std::iter::once(program.clone()).chain(layer.words.iter().cloned()).collect();
    let alone = match parse_words(&words) {
        Ok(alone) => alone,
        Err(e) => {
            parse_words(args)?;
            return Err(from_layer(&layer.place, &e));
        }
    };
    let given = |id: &str| alone.value_source(id) == Some(ValueSource::CommandLine);
    let source = layer.place.as_str();
    if given("mcp") || given("root") {
        return Err(usage_in(source, "--mcp and --root are not defaults"));
    }
    for (id, name) in
        [("completions", "--completions"), ("show_config", "--show-config"), ("input", "--input")]
    {
        if given(id) {
            return Err(usage_in(source, &format!("{name} is not a default")));
        }
    }
    if given("profile") && !may_name_a_profile {
        return Err(usage_in(source, "a profile cannot name another profile"));
    }
    // A `--` taken as a value was refused by parse_words: this one would
    // make the command line's options a command.
    if given("command") || layer.words.iter().any(|word| word == "--") {
        return Err(usage_in(source, "a command is not a default"));
    }
    resolve(&alone, &[usize::MAX]).and_then(Args::into_run).map_err(|e| from_layer(source, &e))?;
    Ok(())
}

/// Parses `words`, the program's name first, with [`command`].
///
/// `--keep`, `--pattern` and `--notice-format` take a value that starts
/// with `-` only when it is joined to them (`--keep=-x`): given as the
/// next word, it is far more often a flag meant as one, as in
/// `--keep -i error`, which would take `-i` for the pattern and run
/// `error`. clap cannot tell the two forms apart, so a parse that lets
/// these options take any next word is checked by one that does not.
fn parse_words(words: &[OsString]) -> Result<ArgMatches, clap::Error> {
    let mut cmd = command();
    let matches = cmd.try_get_matches_from_mut(words).map_err(true_tip)?;
    let takes_dashes: Vec<&Arg> = cmd.get_opts().filter(|arg| arg.is_allow_hyphen_values_set()).collect();
    if !may_take_a_dash_word(&takes_dashes, words) {
        return Ok(matches);
    }
    let strict = |args: &[&Arg]| {
        args.iter()
            .fold(command(), |cmd, arg| cmd.mut_arg(arg.get_id(), |arg| arg.allow_hyphen_values(false)))
            .try_get_matches_from(words)
    };
    if let Err(e) = strict(&takes_dashes) {
        let culprit = takes_dashes.iter().find(|arg| strict(&[arg]).is_err());
        return Err(match culprit {
            Some(arg) => unjoined_dash_value(arg, &matches),
            None => true_tip(e),
        });
    }
    Ok(matches)
}

/// Whether one of `args` may have taken a word that starts with `-` for
/// its value: a word that ends in one of them (`--keep`, `-e`, `-Fe`) is
/// followed by one. Only then is the slower check of `parse_words` needed;
/// a false alarm costs only its time.
fn may_take_a_dash_word(args: &[&Arg], words: &[OsString]) -> bool {
    words.windows(2).any(|pair| {
        let (word, next) = (pair[0].to_string_lossy(), pair[1].as_encoded_bytes());
        let ends_in = |arg: &&Arg| match word.strip_prefix("--") {
            Some(long) => arg.get_long() == Some(long),
            None => word.starts_with('-') && arg.get_short().is_some_and(|short| word.ends_with(short)),
        };
        next.len() > 1 && next[0] == b'-' && args.iter().any(ends_in)
    })
}

/// The usage error for `--keep -x`: the value must be joined to its option.
fn unjoined_dash_value(arg: &Arg, matches: &ArgMatches) -> clap::Error {
    let long = arg.get_long().unwrap_or_default();
    let value = matches
        .get_raw(arg.get_id().as_str())
        .and_then(Iterator::last)
        .map(|v| v.to_string_lossy().into_owned())
        .filter(|v| v.starts_with('-'))
        .unwrap_or_else(|| "-x".into());
    let mut message =
        format!("a value of --{long} that starts with '-' must be joined to it, as in --{long}={value}");
    if arg.get_value_names().is_some_and(|names| names.iter().any(|name| name == "REGEX")) {
        message.push_str("; for case-insensitive matching, start the pattern with (?i)");
    }
    command().error(ErrorKind::InvalidValue, message)
}

/// Replaces clap's tip for an unknown argument, "to pass '--x' as a
/// value, use '-- --x'", which is wrong here: `--` starts a command.
fn true_tip(mut e: clap::Error) -> clap::Error {
    if e.kind() == ErrorKind::UnknownArgument
        && e.get(ContextKind::Suggested).is_some()
        && let Some(ContextValue::String(arg)) = e.get(ContextKind::InvalidArg).cloned()
    {
        let tip = format!("to pass '{arg}' as the value of an option, join it to the option: --OPTION={arg}");
        e.insert(ContextKind::Suggested, ContextValue::StyledStrs(vec![tip.into()]));
    }
    e
}

/// The last position clap gave to a word of `matches`: the words of a
/// longer parse that begins with the same words and has positions past
/// this one come after them.
fn last_index(matches: &ArgMatches) -> usize {
    matches
        .ids()
        .filter(|id| matches.value_source(id.as_str()) == Some(ValueSource::CommandLine))
        .filter_map(|id| matches.indices_of(id.as_str()))
        .flatten()
        .max()
        .unwrap_or(0)
}

/// The clap ids of the caps.
const CAPS: [&str; 7] =
    ["tail_chars", "head_chars", "head_lines", "tail_lines", "max_matches", "tail_tokens", "head_tokens"];

/// The layer that the option `id` of `matches` came from: the index in
/// `ends` of the first layer that ends at or after its position, or
/// `ends.len()` for the command line; `None` when it was not given.
fn layer_of(matches: &ArgMatches, ends: &[usize], id: &str) -> Option<usize> {
    if matches.value_source(id) != Some(ValueSource::CommandLine) {
        return None;
    }
    let index = matches.index_of(id)?;
    Some(ends.iter().position(|&end| index <= end).unwrap_or(ends.len()))
}

/// Resets each named field of `$args` for which `$default` holds, and
/// notes that it gave way. The field's name is its clap id.
macro_rules! give_way {
    ($args:ident, $default:ident, $($field:ident),+) => {
        $(if $default(stringify!($field)) {
            $args.$field = Default::default();
            $args.gave_way.push(stringify!($field));
        })+
    };
}

/// The options that `matches` holds, where the values at positions up to
/// `ends[i]` came from layer `i` of the defaults (the config file's
/// `[defaults]`, `CAPOUT_OPTS`, the profile) and the rest from the command
/// line. Each option has its last value; only these defaults give way, so
/// that a layer never breaks a later one:
/// - the caps of the last layer that gives a cap win: the caps of earlier
///   layers give way with the options that belong to them (`--offset`,
///   `--pattern`, `--fixed-strings`), and a default `--keep` and
///   `--keep-max` give way to `--max-matches`, which they do not go with;
/// - `-N` waits for a line cap, `--stop-at-cap` for a head cap without
///   `--keep`, `-i` for a pattern, a `--render` size for
///   `--render`, and the options of a command (`--timeout`,
///   `--kill-after`, `--stdout-only`) for a command (and `--kill-after`
///   for a `--timeout`).
fn resolve(matches: &ArgMatches, ends: &[usize]) -> Result<Args, clap::Error> {
    let mut args = Args::from_arg_matches(matches)?;
    let mut order: Vec<(usize, &'static str)> =
        CAPS.iter().filter_map(|&id| Some((matches.index_of(id)?, id))).collect();
    order.sort_unstable();
    args.cap_order = order.into_iter().map(|(_, id)| id).collect();
    let layer = |id: &str| layer_of(matches, ends, id);
    let default = |id: &str| layer(id).is_some_and(|l| l < ends.len());
    if let Some(last) = CAPS.iter().filter_map(|id| layer(id)).max() {
        let earlier = |id: &str| layer(id).is_some_and(|l| l < last);
        give_way!(args, earlier, tail_chars, head_chars, head_lines, tail_lines, max_matches);
        give_way!(args, earlier, tail_tokens, head_tokens);
        give_way!(args, earlier, offset, pattern, fixed_strings, budget_chars);
    }
    if args.max_matches.is_some() {
        give_way!(args, default, keep, keep_max);
    }
    if !args.cap().is_ok_and(CapSpec::is_line_cap) {
        give_way!(args, default, line_numbers);
    }
    if !args.cap().is_ok_and(|c| {
        matches!(c, CapSpec::HeadLines { .. } | CapSpec::TailLines(_) | CapSpec::MaxMatches(_))
    }) {
        give_way!(args, default, budget_chars);
    }
    if args.pattern.is_none() && args.keep.is_none() {
        give_way!(args, default, ignore_case);
    }
    // A default --stop-at-cap waits for a head cap without --keep.
    let head = args.cap().is_ok_and(|cap| {
        matches!(cap, CapSpec::HeadLines { .. } | CapSpec::HeadChars(_) | CapSpec::MaxMatches(_))
    });
    if !head || args.keep.is_some() {
        give_way!(args, default, stop_at_cap);
    }
    if args.command.is_empty() {
        give_way!(args, default, timeout, kill_after, stdout_only);
    }
    if args.timeout.is_none() {
        give_way!(args, default, kill_after);
    }
    // A default size waits for --render, as --kill-after for a --timeout.
    if !args.render {
        give_way!(args, default, render_width, render_height);
    }
    Ok(args)
}

/// The root of `capout --mcp` (`.` unless given), when the command line
/// is that and nothing else: `--mcp`, with `--root DIR` (or `--root=DIR`) before or after it.
/// Any other word leaves it to the ordinary parse, which says what is
/// wrong and documents both options in `--help`.
pub fn mcp_requested(args: impl IntoIterator<Item = OsString>) -> Option<PathBuf> {
    let mut words = args.into_iter().skip(1);
    let (mut mcp, mut root) = (false, None);
    while let Some(word) = words.next() {
        match word.to_str() {
            Some("--mcp") if !mcp => mcp = true,
            Some("--root") if root.is_none() => root = Some(PathBuf::from(words.next()?)),
            Some(w) if root.is_none() && w.starts_with("--root=") => root = Some(PathBuf::from(&w[7..])),
            _ => return None,
        }
    }
    mcp.then(|| root.unwrap_or_else(|| PathBuf::from(".")))
}

/// The text of `--show-config`: one line for each option in force, the
/// option as it would be written on a command line, a tab, and where it
/// came from: `built-in`, `config file PATH`, `CAPOUT_OPTS`,
/// `profile NAME` or `command line`. The options come in the order of
/// `capout --help`; a switch turned off by a `--no-` form shows as that.
fn show_config(
    matches: &ArgMatches,
    ends: &[usize],
    layers: &[Layer],
    args: &Args,
) -> Result<String, clap::Error> {
    let run = args.clone().into_run()?;
    let config = &run.options;
    let mut lines = Vec::new();
    let mut line = |words: &str, source: &str| lines.push((words.to_owned(), source.to_owned()));
    let cmd = command();
    for arg in cmd.get_arguments() {
        let id = arg.get_id().as_str();
        let skipped = ["command", "show_config", "help", "version"].contains(&id);
        let Some(layer) = layer_of(matches, ends, id).filter(|_| !skipped && !args.gave_way.contains(&id))
        else {
            continue;
        };
        let source = layers.get(layer).map_or("command line", |l| l.source.as_str());
        let long = format!("--{}", arg.get_long().unwrap_or(id));
        match matches.get_raw(id).and_then(Iterator::last) {
            Some(value) if arg.get_action().takes_values() => {
                let value = value.to_string_lossy();
                line(&format!("{long} {}", shlex::try_quote(&value).unwrap_or(value.clone())), source);
            }
            _ => line(&long, source),
        }
    }
    let built_in = "built-in";
    let given = |id: &str| lines_mention(matches, ends, args, id);
    if !CAPS.iter().any(|id| given(id)) {
        line(&format!("--tail-chars {DEFAULT_TAIL_CHARS}"), built_in);
    }
    if let (Some(w), false) = (config.max_line(), given("max_line_chars")) {
        line(&format!("--max-line-chars {w}"), built_in);
    }
    if let (Some(keep), false) = (&config.keep, given("keep_max")) {
        line(&format!("--keep-max {}", keep.max), built_in);
    }
    if let Some((width, height)) = config.render {
        if !given("render_width") {
            line(&format!("--render-width {width}"), built_in);
        }
        if !given("render_height") {
            line(&format!("--render-height {height}"), built_in);
        }
    }
    if run.command.as_ref().and_then(|c| c.timeout.as_ref()).is_some() && !given("kill_after") {
        line(&format!("--kill-after {}s", DEFAULT_KILL_AFTER.as_secs()), built_in);
    }
    if !given("notice") {
        line("--notice stdout", built_in);
    }
    if !given("progress") {
        line("--progress auto", built_in);
    }
    if config.json {
        return Ok(show_config_json(&lines));
    }
    let mut text = String::new();
    for (option, source) in &lines {
        text.push_str(option);
        text.push('\t');
        text.push_str(source);
        text.push('\n');
    }
    Ok(text)
}

/// `--show-config --json`: the lines of [`show_config`] as one object,
/// `{"options":[{"option":"--json","source":"command line"},...]}`.
fn show_config_json(lines: &[(String, String)]) -> String {
    let string = |text: &str| {
        let mut quoted = String::from("\"");
        for c in text.chars() {
            match c {
                '"' => quoted.push_str("\\\""),
                '\\' => quoted.push_str("\\\\"),
                c if u32::from(c) < 0x20 => {
                    let _ = std::fmt::Write::write_fmt(&mut quoted, format_args!("\\u{:04x}", u32::from(c)));
                }
                c => quoted.push(c),
            }
        }
        quoted.push('"');
        quoted
    };
    let options: Vec<String> = lines
        .iter()
        .map(|(option, source)| format!("{{\"option\":{},\"source\":{}}}", string(option), string(source)))
        .collect();
    format!("{{\"options\":[{}]}}\n", options.join(","))
}

/// Whether the option `id` is in force from some layer or the command line.
fn lines_mention(matches: &ArgMatches, ends: &[usize], args: &Args, id: &str) -> bool {
    layer_of(matches, ends, id).is_some() && !args.gave_way.contains(&id)
}

fn usage_in(source: &str, message: &str) -> clap::Error {
    command().error(ErrorKind::ArgumentConflict, format!("in {source}: {message}"))
}

/// A command to run, and the options that go with one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandSpec {
    /// The program, found in `PATH` when its name has no `/`.
    pub program: OsString,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// `--timeout`, when it is set and not zero.
    pub timeout: Option<Timeout>,
    /// `--stdout-only`: leave the command's stderr on capout's stderr.
    pub stdout_only: bool,
}

/// `--timeout` and `--kill-after`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timeout {
    /// How long the command may run before it gets SIGTERM.
    pub after: Duration,
    /// `--timeout` as the user gave it, with `s` added when it has no
    /// unit: the timeout notice names it so.
    pub label: String,
    /// How long after SIGTERM it gets SIGKILL; `None` for never.
    pub kill_after: Option<Duration>,
}

#[cfg(test)]
thread_local! {
    /// How many times this thread built [`command`]: the tests of the
    /// config file count them, as the work that must not grow with it.
    pub static PARSERS_BUILT: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The clap command, for parsing, `--completions` and the tests: the
/// options of [`Args`], and for each switch `--NAME` a hidden `--no-NAME`
/// that turns it off. The later of the two wins. Each option's value has a
/// hint for completions: a file, a folder, or `Other` (nothing to
/// complete).
pub fn command() -> clap::Command {
    #[cfg(test)]
    PARSERS_BUILT.with(|built| built.set(built.get() + 1));
    let cmd = Args::command();
    // Overrides work both ways: `--json` also clears a `--no-json` before it.
    let negations: Vec<Arg> = cmd
        .get_arguments()
        .filter(|arg| matches!(arg.get_action(), ArgAction::SetTrue))
        // Modes, not options to turn off.
        .filter(|arg| arg.get_id() != "mcp" && arg.get_id() != "show_config")
        .filter_map(|arg| {
            let long = arg.get_long()?;
            let no = format!("no-{long}");
            Some(
                Arg::new(no.clone())
                    .long(no)
                    .action(ArgAction::SetTrue)
                    .overrides_with(arg.get_id().clone())
                    .hide(true)
                    .help(format!("Turn --{long} off")),
            )
        })
        .collect();
    // A value that is not a path (a number, a pattern, a name) completes
    // to nothing rather than to file names.
    let cmd = cmd.mut_args(|arg| {
        if arg.get_action().takes_values()
            && arg.get_long().is_some()
            && arg.get_value_hint() == ValueHint::Unknown
        {
            arg.value_hint(ValueHint::Other)
        } else {
            arg
        }
    });
    cmd.args(negations)
}

/// Says that a usage error came from the layer `source`.
fn from_layer(source: &str, e: &clap::Error) -> clap::Error {
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        return usage_in(source, "--help and --version are not defaults");
    }
    let text = e.render().to_string();
    let first = text.lines().next().unwrap_or_default();
    let message = first.strip_prefix("error: ").unwrap_or(first);
    command().error(e.kind(), format!("in {source}: {message}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(args: &[&str], opts: Option<&str>) -> Result<Options, ErrorKind> {
        run(args, opts).map(|run| run.options)
    }

    fn run(args: &[&str], opts: Option<&str>) -> Result<Run, ErrorKind> {
        match try_parse(std::iter::once("capout").chain(args.iter().copied()), opts) {
            Ok(Action::Run(run)) => Ok(*run),
            Ok(Action::Completions(_) | Action::ShowConfig(_)) => panic!("not a run"),
            Err(e) => Err(e.kind()),
        }
    }

    fn cap(args: &[&str]) -> Result<CapSpec, ErrorKind> {
        config(args, None).map(|c| c.cap)
    }

    #[test]
    fn a_simple_command_line_gives_what_the_parser_gives() {
        let lines: [&[&str]; 11] = [
            &[],
            &["-c", "5000"],
            &["--tail-chars", "1"],
            &["-n", "007"],
            &["--head-lines", "18446744073709551615"],
            &["--head-chars", "12"],
            &["--tail-lines", "500"],
            &["--tail-tokens", "5000"],
            &["--head-tokens", "3"],
            &["-c", "0"],
            &["-c", "18446744073709551616"],
        ];
        for line in lines {
            let words: Vec<OsString> =
                std::iter::once("capout").chain(line.iter().copied()).map(Into::into).collect();
            let parsed = parse_words(&words).and_then(|m| resolve(&m, &[]));
            match simple(&words, None) {
                Some(args) => assert_eq!(format!("{args:?}"), format!("{:?}", parsed.unwrap()), "{line:?}"),
                // Left to the parser: a number it refuses.
                None => assert!(parsed.is_err(), "{line:?}"),
            }
        }
        // Anything else is left to the parser.
        for line in [
            &["-c"][..],
            &["-c", "+5"],
            &["-c", "-5"],
            &["-c", ""],
            &["-c5000"],
            &["--tail-chars=5000"],
            &["--limit", "5"],
            &["-m", "5"],
            &["--tail-tokens", "5", "--tokenizer", "o200k"],
            &["-c", "5", "-n", "5"],
            &["--json"],
            &["5000", "-c"],
        ] {
            let words: Vec<OsString> =
                std::iter::once("capout").chain(line.iter().copied()).map(Into::into).collect();
            assert!(simple(&words, None).is_none(), "{line:?}");
        }
    }

    /// What `simple` makes of `line`, and what the parser makes of it,
    /// with the config file `file`.
    fn both_ways(line: &[&str], file: Option<&crate::profiles::ConfigFile>) -> (Option<String>, String) {
        let words: Vec<OsString> =
            std::iter::once("capout").chain(line.iter().copied()).map(Into::into).collect();
        let fast = simple(&words, file).map(|args| format!("{:?}", args.into_action().map_err(|e| e.kind())));
        let layers = file.and_then(crate::profiles::ConfigFile::defaults).into_iter().collect();
        let parsed = format!("{:?}", parse_layers(words, file, layers).map_err(|e| e.kind()));
        (fast, parsed)
    }

    #[test]
    fn a_profile_save_dir_and_command_give_what_the_parser_gives() {
        let lines: [&[&str]; 13] = [
            &["--profile", "bash", "--save-dir", "/tmp/d", "--", "bash", "-c", "echo 'a b' -- --json"],
            &["--save-dir", "/tmp/d", "--profile", "bash", "--", "true"],
            &["--profile", "bash", "--", "true"],
            &["--profile", "read", "--save-dir", "d"],
            &["--profile", "grep"],
            &["--profile", "grep", "--", "grep", "-r", "x"],
            &["--save-dir", "/tmp/my dir", "--", "make", "--", "-c"],
            &["--", "/bin/true"],
            &["--", "--profile", "bash"],
            &["-c", "5", "--", "seq", "10"],
            &["--max-matches", "5"],
            &["--tail-lines", "5", "--", "x"],
            &["-n", "0", "--", "x"],
        ];
        for line in lines {
            let (fast, parsed) = both_ways(line, None);
            match fast {
                Some(fast) => assert_eq!(fast, parsed, "{line:?}"),
                None => assert!(parsed.starts_with("Err"), "{line:?}: {parsed}"),
            }
        }
        // Left to the parser: what it alone knows how to combine.
        for line in [
            &["--profile", "bash", "-c", "5", "--", "x"][..],
            &["--profile", "nosuch", "--", "x"],
            &["--profile", "bash", "--profile", "read"],
            &["--save-dir", "", "--", "x"],
            &["--save-dir", "--", "x"],
            &["--save-dir", "-x", "--", "x"],
            &["--save-dir", "-", "--", "x"],
            &["--profile", "bash", "--"],
            &["--profile=bash", "--", "x"],
            &["--save", "f", "--", "x"],
            &["--profile", "bash", "--save-dir", "d", "--json", "--", "x"],
            &["-c", "5", "-c", "6"],
        ] {
            assert_eq!(both_ways(line, None).0, None, "{line:?}");
        }
    }

    #[test]
    fn a_profile_that_the_config_file_replaces_is_left_to_the_parser() {
        let path = std::path::Path::new("/config.toml");
        let file = crate::profiles::ConfigFile::parse(path, "[profile.bash]\ntail-chars = 100\n").unwrap();
        let line = ["--profile", "bash", "--save-dir", "/tmp/d", "--", "true"];
        let (fast, parsed) = both_ways(&line, Some(&file));
        assert_eq!(fast, None);
        assert!(parsed.contains("TailChars(100)"), "{parsed}");
        // Another profile of the same file is still the built-in one.
        let line = ["--profile", "read", "--", "true"];
        let (fast, parsed) = both_ways(&line, Some(&file));
        assert_eq!(fast, Some(parsed));
    }

    #[test]
    fn capout_opts_that_do_not_fit_the_cap_are_left_out() {
        let c = config(&["--tail-lines", "1"], Some("-m 2 -e 1 -F")).unwrap();
        assert_eq!((c.cap, c.pattern), (CapSpec::TailLines(1), None));
        let c = config(&["-m", "5"], Some("--keep error --keep-max 3")).unwrap();
        assert_eq!(c.keep, None);
        let c = config(&["-c", "100"], Some("-N")).unwrap();
        assert!(!c.line_numbers);
        assert!(config(&["-n", "1"], Some("-N")).unwrap().line_numbers);
        let c = run(&[], Some("--timeout 5")).unwrap();
        assert_eq!(c.command, None);
    }

    #[test]
    fn capout_opts_errors_name_it() {
        for opts in
            ["--offset 1", "--keep '['", "-c 3 -n 2", "--version", "--completions bash", "-c 'x", "ls"]
        {
            let e = try_parse(["capout"], Some(opts)).expect_err(opts);
            assert!(e.to_string().contains("in CAPOUT_OPTS"), "{opts}: {e}");
        }
    }

    #[test]
    fn capout_opts_are_defaults() {
        let c = config(&["--bytes"], Some("-n 5 --notice 'stderr' --max-line-chars 7")).unwrap();
        assert_eq!(
            (c.cap, c.unit, c.notice, c.max_line()),
            (CapSpec::HeadLines { limit: 5, offset: 0 }, Unit::Bytes, NoticeTarget::Stderr, Some(7))
        );
        // A cap on the command line replaces every cap of CAPOUT_OPTS.
        let c = config(&["-c", "9"], Some("-n 5 --tail-lines 3 --notice none")).unwrap();
        assert_eq!((c.cap, c.notice), (CapSpec::TailChars(9), NoticeTarget::None));
        // A later option wins.
        let c = config(&["--notice", "stdout"], Some("--notice none")).unwrap();
        assert_eq!(c.notice, NoticeTarget::Stdout);
        assert_eq!(config(&[], Some("-c 0")).map(|_| ()), Err(ErrorKind::ValueValidation));
        assert_eq!(config(&[], Some("-c '5")).map(|_| ()), Err(ErrorKind::ArgumentConflict));
    }

    #[test]
    fn picks_the_cap() {
        assert_eq!(cap(&[]), Ok(CapSpec::TailChars(5000)));
        assert_eq!(cap(&["-n", "5", "--offset", "3"]), Ok(CapSpec::HeadLines { limit: 5, offset: 3 }));
        assert_eq!(cap(&["--limit", "5"]), Ok(CapSpec::HeadLines { limit: 5, offset: 0 }));
        assert_eq!(cap(&["-c", "1", "-c", "2"]), Ok(CapSpec::TailChars(2)));
        assert_eq!(cap(&["-m", "18446744073709551615"]), Ok(CapSpec::MaxMatches(u64::MAX)));
        assert_eq!(cap(&["--tail-lines", "2", "-n", "3"]), Ok(CapSpec::HeadTailLines(3, 2)));
        assert_eq!(cap(&["-c", "2", "--head-chars", "3"]), Ok(CapSpec::HeadTailChars(3, 2)));
    }

    #[test]
    fn rejects_bad_caps() {
        for args in [
            &["-c", "0"][..],
            &["-c", "-1"],
            &["-c", "x"],
            &["-c", "18446744073709551616"],
            &["--offset", "-1", "-n", "1"],
        ] {
            assert_eq!(cap(args), Err(ErrorKind::ValueValidation), "{args:?}");
        }
        assert_eq!(cap(&["-c", "1", "-n", "1"]), Err(ErrorKind::ArgumentConflict));
        assert_eq!(cap(&["--offset", "1"]), Err(ErrorKind::ArgumentConflict));
        assert_eq!(cap(&["--offset", "1", "-n", "1", "--tail-lines", "1"]), Err(ErrorKind::ArgumentConflict));
        assert_eq!(cap(&["-e", "x"]), Err(ErrorKind::ArgumentConflict));
        assert_eq!(cap(&["-m", "1", "-F"]), Err(ErrorKind::ArgumentConflict));
        assert_eq!(cap(&["-m", "1", "--keep", "x"]), Err(ErrorKind::ArgumentConflict));
        assert_eq!(cap(&["--keep-max", "1"]), Err(ErrorKind::ArgumentConflict));
        assert_eq!(cap(&["-m", "1", "-e", "("]), Err(ErrorKind::ValueValidation));
        assert_eq!(cap(&["--keep", "["]), Err(ErrorKind::ValueValidation));
        assert_eq!(cap(&["-c", "1", "--tail-lines", "1"]), Err(ErrorKind::ArgumentConflict));
        assert_eq!(cap(&["-N", "-c", "5"]), Err(ErrorKind::ArgumentConflict));
    }

    fn command(args: &[&str]) -> Result<Option<CommandSpec>, ErrorKind> {
        run(args, None).map(|c| c.command)
    }

    fn words(words: &[&str]) -> Vec<OsString> {
        words.iter().map(OsString::from).collect()
    }

    #[test]
    fn everything_from_the_command_on_is_its_own() {
        for args in [&["echo", "-n", "hi"][..], &["--", "echo", "-n", "hi"]] {
            let spec = command(args).unwrap().unwrap();
            assert_eq!((spec.program, spec.args), ("echo".into(), words(&["-n", "hi"])), "{args:?}");
        }
        let spec = command(&["-n", "3", "ls", "-n", "--timeout", "x", "--", "-c"]).unwrap().unwrap();
        assert_eq!(spec.args, words(&["-n", "--timeout", "x", "--", "-c"]));
        assert_eq!(command(&["--", "-c"]).unwrap().unwrap().program, "-c");
        assert_eq!(command(&[]), Ok(None));
        // An unknown option before the command is still a mistake.
        assert_eq!(command(&["--bogus", "ls"]), Err(ErrorKind::UnknownArgument));
    }

    #[test]
    fn timeouts() {
        let timeout = |args: &[&str]| command(args).map(|c| c.and_then(|c| c.timeout));
        let given =
            |after: Duration, label: &str, kill_after| Timeout { after, label: label.into(), kill_after };
        let ms = Duration::from_millis;
        let five = Some(DEFAULT_KILL_AFTER);
        assert_eq!(timeout(&["--timeout", "30", "x"]), Ok(Some(given(ms(30_000), "30s", five))));
        assert_eq!(timeout(&["--timeout", "30s", "x"]), Ok(Some(given(ms(30_000), "30s", five))));
        assert_eq!(timeout(&["--timeout", "500ms", "x"]), Ok(Some(given(ms(500), "500ms", five))));
        assert_eq!(timeout(&["--timeout", "2m", "x"]), Ok(Some(given(ms(120_000), "2m", five))));
        assert_eq!(timeout(&["--timeout", "1h", "x"]), Ok(Some(given(ms(3_600_000), "1h", five))));
        assert_eq!(timeout(&["--timeout", "1.5", "x"]), Ok(Some(given(ms(1500), "1.5s", five))));
        assert_eq!(timeout(&["--timeout", "0.25m", "x"]), Ok(Some(given(ms(15_000), "0.25m", five))));
        assert_eq!(
            timeout(&["--timeout", "1", "--kill-after", "100ms", "x"]),
            Ok(Some(given(ms(1000), "1s", Some(ms(100)))))
        );
        assert_eq!(
            timeout(&["--timeout", "1", "--kill-after", "0", "x"]),
            Ok(Some(given(ms(1000), "1s", None)))
        );
        assert_eq!(timeout(&["--timeout", "0", "x"]), Ok(None));
        assert_eq!(timeout(&["--timeout", "0.000ms", "x"]), Ok(None));
        // Too small to measure is the smallest duration, never none.
        let tiny = Some(given(Duration::from_nanos(1), "0.0000000001s", five));
        assert_eq!(timeout(&["--timeout", "0.0000000001", "x"]), Ok(tiny));
        let tiny_kill = Some(given(ms(1000), "1s", Some(Duration::from_nanos(1))));
        assert_eq!(timeout(&["--timeout", "1", "--kill-after", "0.0000000000001ms", "x"]), Ok(tiny_kill));
        assert_eq!(timeout(&["x"]), Ok(None));
        for bad in
            ["", "s", "-1", "1x", "1.", ".5", "1.5.", "1 s", "1S", "+1", "1e3", "99999999999999999999h"]
        {
            assert_eq!(timeout(&["--timeout", bad, "x"]), Err(ErrorKind::ValueValidation), "{bad:?}");
        }
        assert_eq!(timeout(&["--kill-after", "1s", "x"]), Err(ErrorKind::ArgumentConflict));
    }

    #[test]
    fn command_options_need_a_command() {
        for args in [&["--timeout", "1"][..], &["--timeout", "1", "--kill-after", "1"], &["--stdout-only"]] {
            assert_eq!(command(args), Err(ErrorKind::ArgumentConflict), "{args:?}");
        }
        assert!(command(&["--stdout-only", "x"]).unwrap().unwrap().stdout_only);
    }

    #[test]
    fn command_options_in_capout_opts_wait_for_a_command() {
        let with = |args: &[&str], opts| run(args, Some(opts)).map(|c| c.command);
        // Filter mode is left be.
        assert_eq!(with(&["-c", "5"], "--timeout 1m --kill-after 1s --stdout-only"), Ok(None));
        let spec = with(&["x"], "--timeout 1m --kill-after 1s --stdout-only").unwrap().unwrap();
        let timeout = spec.timeout.unwrap();
        assert_eq!((timeout.label.as_str(), timeout.kill_after), ("1m", Some(Duration::from_secs(1))));
        assert!(spec.stdout_only);
        // A default --kill-after needs a --timeout to go with.
        assert_eq!(with(&["x"], "--kill-after 1s").unwrap().unwrap().timeout, None);
        let spec = with(&["--timeout", "2", "x"], "--timeout 1m").unwrap().unwrap();
        assert_eq!(spec.timeout.unwrap().label, "2s");
        assert_eq!(with(&[], "ls"), Err(ErrorKind::ArgumentConflict));
    }

    /// The options that must go with `id` for it to make sense, given
    /// with it in `CAPOUT_OPTS` or on the command line alike.
    fn companions(id: &str) -> &'static [&'static str] {
        match id {
            "offset" | "line_numbers" | "budget_chars" | "stop_at_cap" => &["-n", "5"],
            "pattern" => &["-m", "5"],
            "fixed_strings" | "ignore_case" => &["-m", "5", "-e", "x"],
            "keep_max" => &["--keep", "x"],
            "kill_after" => &["--timeout", "1"],
            "render_width" | "render_height" => &["--render"],
            _ => &[],
        }
    }

    /// Values to try for an option, by the name of its value.
    fn samples(arg: &Arg) -> Vec<String> {
        if !arg.get_action().takes_values() {
            return vec![];
        }
        let possible = arg.get_possible_values();
        if !possible.is_empty() {
            return possible.iter().map(|v| v.get_name().to_owned()).collect();
        }
        let name = arg.get_value_names().and_then(|names| names.first()).map(ToString::to_string);
        let sample = match name.as_deref() {
            None => return vec![],
            Some("N" | "K" | "W") => "3",
            Some("REGEX") => "x",
            Some("TEMPLATE") => "cut {omitted}",
            Some("DURATION") => "9s",
            Some("FILE") => "saved.log",
            Some("DIR") => "logs",
            Some("NAME") => "read",
            Some(other) => panic!("no sample value for {other}: add one"),
        };
        vec![sample.to_owned()]
    }

    fn quoted(words: &[&str]) -> String {
        shlex::try_join(words.iter().copied()).unwrap()
    }

    /// The options a user sets: all but the positional command, the
    /// `--no-` forms and those that make capout do something else.
    fn options() -> Vec<Arg> {
        super::command()
            .get_arguments()
            .filter(|arg| arg.get_long().is_some_and(|long| !long.starts_with("no-")))
            .filter(|arg| !matches!(arg.get_action(), ArgAction::Help | ArgAction::Version))
            // Not defaults: they make capout do something else, or name
            // what it reads.
            .filter(|arg| {
                !["completions", "mcp", "root", "show_config", "input"].contains(&arg.get_id().as_str())
            })
            // Without the exact tokenizers, --tokenizer has one value, the
            // default: `a_build_without_exact_tokenizers_says_so` checks it.
            .filter(|arg| cfg!(feature = "exact-tokens") || arg.get_id() != "tokenizer")
            .cloned()
            .collect()
    }

    #[test]
    fn only_mcp_and_root_are_served_early() {
        let words = |args: &[&str]| -> Vec<OsString> {
            std::iter::once("capout").chain(args.iter().copied()).map(OsString::from).collect()
        };
        assert_eq!(mcp_requested(words(&["--mcp"])), Some(".".into()));
        assert_eq!(mcp_requested(words(&["--mcp", "--root", "d"])), Some("d".into()));
        assert_eq!(mcp_requested(words(&["--root", "d", "--mcp"])), Some("d".into()));
        assert_eq!(mcp_requested(words(&["--root=d", "--mcp"])), Some("d".into()));
        for args in
            [&[][..], &["--root", "d"], &["--mcp", "-n", "5"], &["--mcp", "--root"], &["--mcp", "--mcp"]]
        {
            assert_eq!(mcp_requested(words(args)), None, "{args:?}");
        }
    }

    #[test]
    fn every_option_works_from_capout_opts() {
        let options = options();
        assert!(options.len() > 20, "{options:?}");
        for arg in options {
            let (id, long) = (arg.get_id().as_str(), format!("--{}", arg.get_long().unwrap()));
            let with = companions(id);
            let values = samples(&arg);
            let values: Vec<Option<&str>> = if values.is_empty() {
                vec![None]
            } else {
                values.iter().map(|v| Some(v.as_str())).collect()
            };
            let mut differs = false;
            for value in values {
                let mut words = with.to_vec();
                words.push(&long);
                words.extend(value);
                // With and without a command: an option works in either
                // mode it is valid in, and in one at least.
                let mut valid = false;
                for tail in [&[][..], &["x"]] {
                    let Ok(on_the_command_line) = run(&[&words[..], tail].concat(), None) else {
                        continue;
                    };
                    valid = true;
                    let from_opts = run(tail, Some(&quoted(&words)));
                    assert_eq!(
                        from_opts.as_ref(),
                        Ok(&on_the_command_line),
                        "CAPOUT_OPTS={words:?} {tail:?}"
                    );
                    differs |= from_opts != run(tail, Some(&quoted(with)));
                }
                assert!(valid, "{words:?} is valid with or without a command (add companions?)");
            }
            assert!(differs, "{long} from CAPOUT_OPTS changes the config");
        }
    }

    #[test]
    fn token_caps_conflict_with_the_others_and_replace_capout_opts_caps() {
        assert_eq!(cap(&["--tail-tokens", "5"]), Ok(CapSpec::TailTokens(5)));
        assert_eq!(cap(&["--head-tokens", "5"]), Ok(CapSpec::HeadTokens(5)));
        assert_eq!(cap(&["--tail-tokens", "2", "--head-tokens", "3"]), Ok(CapSpec::HeadTailTokens(3, 2)));
        assert_eq!(cap(&["--tail-tokens", "0"]), Err(ErrorKind::ValueValidation));
        for other in
            [&["-c", "3"][..], &["--head-chars", "3"], &["-n", "3"], &["--tail-lines", "3"], &["-m", "3"]]
        {
            assert_eq!(cap(&[other, &["--tail-tokens", "5"]].concat()), Err(ErrorKind::ArgumentConflict));
            assert_eq!(cap(&[other, &["--head-tokens", "5"]].concat()), Err(ErrorKind::ArgumentConflict));
            // A cap on the command line replaces those of CAPOUT_OPTS,
            // both ways.
            let c = config(&["--tail-tokens", "5"], Some(&quoted(other))).unwrap();
            assert_eq!(c.cap, CapSpec::TailTokens(5));
            let c = config(other, Some("--head-tokens 4 --tail-tokens 5")).unwrap();
            assert_ne!(c.cap, CapSpec::HeadTailTokens(4, 5));
        }
        let c = config(&["--tail-tokens", "9"], Some("--tokenizer estimate --max-line-chars 7")).unwrap();
        assert_eq!(
            (c.cap, c.tokenizer, c.max_line()),
            (CapSpec::TailTokens(9), Tokenizer::Estimate, Some(7))
        );
        // --max-line-chars is off unless given.
        assert_eq!(config(&["--head-tokens", "9"], None).unwrap().max_line(), None);
    }

    #[test]
    fn a_build_without_exact_tokenizers_says_so() {
        for name in ["o200k", "cl100k"] {
            let got = config(&["--tail-tokens", "5", "--tokenizer", name], None);
            if cfg!(feature = "exact-tokens") {
                assert_eq!(got.map(|c| c.tokenizer.name()), Ok(name));
            } else {
                let e = try_parse(["capout", "--tail-tokens", "5", "--tokenizer", name], None).err().unwrap();
                assert_eq!(e.exit_code(), 2);
                assert!(
                    e.to_string().contains(&format!(
                        "--tokenizer {name}: capout was built without exact tokenizers (cargo feature exact-tokens)"
                    )),
                    "{e}"
                );
            }
        }
    }

    #[test]
    fn every_switch_has_a_no_form_that_turns_it_off() {
        let switches: Vec<Arg> =
            options().into_iter().filter(|arg| matches!(arg.get_action(), ArgAction::SetTrue)).collect();
        assert!(switches.len() >= 7, "{switches:?}");
        let cmd = super::command();
        for arg in switches {
            let long = arg.get_long().unwrap();
            let (on, off) = (format!("--{long}"), format!("--no-{long}"));
            let (on, off) = (on.as_str(), off.as_str());
            assert!(cmd.get_arguments().any(|a| a.get_long() == Some(&off[2..]) && a.is_hide_set()), "{off}");
            let with = companions(arg.get_id().as_str());
            let mut valid = false;
            for tail in [&[][..], &["x"]] {
                let Ok(plain) = run(&[with, tail].concat(), None) else { continue };
                let Ok(turned_on) = run(&[with, &[on], tail].concat(), None) else { continue };
                valid = true;
                assert_ne!(plain, turned_on, "{on} {tail:?} changes the config");
                // From CAPOUT_OPTS, turned off on the command line.
                let opts = quoted(&[with, &[on]].concat());
                assert_eq!(run(&[&[off], tail].concat(), Some(&opts)), Ok(plain.clone()), "{off} {tail:?}");
                // On one command line, the later wins.
                assert_eq!(run(&[with, &[on, off], tail].concat(), None), Ok(plain.clone()), "{off}");
                assert_eq!(run(&[with, &[off, on], tail].concat(), None), Ok(turned_on), "{on}");
            }
            assert!(valid, "{on} is valid with or without a command");
        }
    }

    #[test]
    fn a_value_that_starts_with_a_dash_is_joined_to_its_option() {
        let message = |args: &[&str], opts| match try_parse(
            std::iter::once("capout").chain(args.iter().copied()),
            opts,
        ) {
            Ok(_) => panic!("{args:?} {opts:?} parsed"),
            Err(e) => (e.kind(), e.to_string()),
        };
        let (kind, text) = message(&["--tail-lines", "5", "--keep", "-i", "error"], None);
        assert_eq!(kind, ErrorKind::InvalidValue);
        assert!(
            text.contains("a value of --keep that starts with '-' must be joined to it, as in --keep=-i"),
            "{text}"
        );
        assert!(text.contains("(?i)"), "{text}");
        let (_, text) = message(&["-m", "1", "-e", "--json"], None);
        assert!(text.contains("as in --pattern=--json"), "{text}");
        let (_, text) = message(&["--notice-format", "-{shown}"], None);
        assert!(text.contains("--notice-format=-{shown}") && !text.contains("(?i)"), "{text}");
        let (_, text) = message(&["-m", "1", "-Fe", "-x"], None);
        assert!(text.contains("as in --pattern=-x"), "{text}");
        let (_, text) = message(&["--keep", "x", "--keep", "-i"], None);
        assert!(text.contains("as in --keep=-i"), "{text}");
        let (_, text) = message(&[], Some("--keep -x"));
        assert!(text.contains("in CAPOUT_OPTS: a value of --keep"), "{text}");
        let keep = |args: &[&str]| config(args, None).map(|c| c.keep.map(|k| k.pattern));
        assert_eq!(keep(&["--keep=-i"]), Ok(Some("-i".into())));
        assert_eq!(keep(&["--keep=--"]), Ok(Some("--".into())));
        assert_eq!(keep(&["--keep", "-"]), Ok(Some("-".into())));
        assert_eq!(config(&["-m", "1", "-e-x"], None).map(|c| c.pattern.unwrap().text), Ok("-x".into()));
        assert!(config(&["--notice-format=-{shown}"], None).unwrap().template.is_some());
        // The command's own words are its own.
        assert_eq!(command(&["grep", "-e", "-x"]).unwrap().unwrap().args, words(&["-e", "-x"]));
    }

    #[test]
    fn capout_opts_cannot_start_a_command() {
        for opts in ["--", "-n 5 --", "--keep=x -- ls"] {
            let e = try_parse(["capout", "-n", "1"], Some(opts)).expect_err(opts);
            assert!(e.to_string().contains("in CAPOUT_OPTS: a command is not a default"), "{opts}: {e}");
        }
    }

    #[test]
    fn save_and_save_dir_replace_each_other() {
        let save = |args: &[&str], opts| config(args, opts).map(|c| c.save);
        let file = Ok(Some(SaveTo::File("f".into())));
        let dir = Ok(Some(SaveTo::Dir("d".into())));
        assert_eq!(save(&["--save", "f"], Some("--save-dir d")), file);
        assert_eq!(save(&["--save-dir", "d"], Some("--save f")), dir);
        assert_eq!(save(&["--save-dir", "d", "--save", "f"], None), file);
        assert_eq!(save(&[], Some("--save f")), file);
    }

    #[test]
    fn the_command_line_is_read_after_capout_opts() {
        // Options of the command line that need a cap of CAPOUT_OPTS.
        let c = config(&["--offset", "4", "-N"], Some("-n 2")).unwrap();
        assert_eq!((c.cap, c.line_numbers), (CapSpec::HeadLines { limit: 2, offset: 4 }, true));
        let c = config(&["-e", "y", "-F"], Some("-m 2 -e x")).unwrap();
        assert_eq!(c.pattern, Some(Pattern { text: "y".into(), fixed: true }));
        // A cap there, in any form, replaces the caps of CAPOUT_OPTS.
        let c = config(&["--limit=3"], Some("--head-chars 2 -c 9")).unwrap();
        assert_eq!(c.cap, CapSpec::HeadLines { limit: 3, offset: 0 });
        let c = config(&["-Nn3"], Some("--tail-lines 2 --keep e --keep-max 1")).unwrap();
        assert_eq!((c.cap, c.keep.map(|k| k.max)), (CapSpec::HeadLines { limit: 3, offset: 0 }, Some(1)));
        // Only from CAPOUT_OPTS do options give way; on the command line
        // they are mistakes.
        assert_eq!(cap(&["-m", "2", "--keep", "e"]), Err(ErrorKind::ArgumentConflict));
        assert_eq!(
            config(&["-m", "2", "--keep", "e"], Some("-n 1")).map(|_| ()),
            Err(ErrorKind::ArgumentConflict)
        );
        assert_eq!(config(&["-c", "2", "-N"], Some("-n 1")).map(|_| ()), Err(ErrorKind::ArgumentConflict));
        // A default --keep-max goes with a --keep of the command line.
        let c = config(&["--keep", "e"], Some("--keep-max 2 --keep f")).unwrap();
        assert_eq!(c.keep, Some(Keep { pattern: "e".into(), max: 2 }));
    }

    /// (command line, `CAPOUT_OPTS`, cap, pattern, keep, line numbers).
    type LayerCase<'a> = (&'a [&'a str], Option<&'a str>, CapSpec, Option<&'a str>, bool, bool);

    #[test]
    fn the_caps_of_the_last_layer_that_gives_one_win() {
        let file = crate::profiles::ConfigFile::parse(
            std::path::Path::new("c.toml"),
            "[defaults]\nhead-chars = 7\ntail-chars = 9\nkeep = \"e\"\n\
             [profile.p]\nmax-matches = 4\npattern = \"x\"\n[profile.n]\nline-numbers = true\n",
        )
        .unwrap();
        let cap = |args: &[&str], opts| match try_parse_with(
            std::iter::once("capout").chain(args.iter().copied()),
            Some(&file),
            opts,
        ) {
            Ok(Action::Run(run)) => {
                let c = run.options;
                Ok((c.cap, c.pattern.map(|p| p.text), c.keep.is_some(), c.line_numbers))
            }
            Ok(_) => panic!("not a run"),
            Err(e) => Err(e.kind()),
        };
        let (pair, tail5) = (CapSpec::HeadTailChars(7, 9), CapSpec::TailLines(5));
        let cases: [LayerCase; 8] = [
            (&[], None, pair, None, true, false),
            (&[], Some("--tail-lines 5"), tail5, None, true, false),
            (&["--profile", "p"], Some("--tail-lines 5"), CapSpec::MaxMatches(4), Some("x"), false, false),
            (&["-e", "y"], Some("--profile p"), CapSpec::MaxMatches(4), Some("y"), false, false),
            (
                &["--profile", "p", "-n", "2"],
                None,
                CapSpec::HeadLines { limit: 2, offset: 0 },
                None,
                true,
                false,
            ),
            // A profile without a cap leaves the caps of earlier layers.
            (&["--profile", "n"], Some("--tail-lines 5"), tail5, None, true, true),
            (&["--profile", "n"], None, pair, None, true, false),
            (&["--profile", "n", "-c", "3"], Some("-m 1"), CapSpec::TailChars(3), None, true, false),
        ];
        for (args, opts, want, pattern, keep, numbers) in cases {
            assert_eq!(
                cap(args, opts),
                Ok((want, pattern.map(String::from), keep, numbers)),
                "{args:?} {opts:?}"
            );
        }
        assert_eq!(cap(&["--profile", "q"], None), Err(ErrorKind::ArgumentConflict));
        // A default --keep gives way to a profile's --max-matches; on the
        // command line, it is a mistake.
        assert_eq!(
            cap(&[], Some("--profile p --keep e")),
            Ok((CapSpec::MaxMatches(4), Some("x".into()), false, false))
        );
        assert_eq!(cap(&["--profile", "p", "--keep", "e"], None), Err(ErrorKind::ArgumentConflict));
    }
}
