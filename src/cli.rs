//! The command line: clap's parser, `CAPOUT_OPTS`, and their validation
//! into a [`Config`]. Nothing is read or written here.

use std::ffi::OsString;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser, ValueEnum};
use clap_complete::Shell;

use capout::{CapSpec, CommandSpec, Config, Keep, NoticeTarget, Pattern, SaveTo, Template, Timeout, Unit};

/// The per-line cap of the line caps when `--max-line-chars` is not given.
pub use capout::DEFAULT_MAX_LINE;
/// The cap when none is given: `--tail-chars 5000`.
pub const DEFAULT_TAIL_CHARS: u64 = 5000;
/// Rescued lines shown at most when `--keep-max` is not given.
pub const DEFAULT_KEEP_MAX: u64 = 20;
/// How long after SIGTERM a timed-out command gets SIGKILL when
/// `--kill-after` is not given.
pub const DEFAULT_KILL_AFTER: Duration = Duration::from_secs(5);

/// Bound a command's output: keep the first lines, the last characters or
/// the first matches, and say what was cut.
#[derive(Clone, Debug, Parser)]
#[command(
    name = "capout",
    version,
    args_override_self = true,
    override_usage = "capout [OPTIONS]\n       capout [OPTIONS] [--] COMMAND [ARG]...",
    after_help = "With no cap, --tail-chars 5000 applies. With a COMMAND, capout runs it, caps its joined \
                  stdout and stderr, and exits with its status (124 on --timeout, 126 or 127 when it \
                  cannot be run). See capout(1) for the notices and exit statuses."
)]
pub struct Args {
    /// Keep the last N characters [default cap: 5000]
    #[arg(short = 'c', long, value_name = "N", value_parser = cap_value(), allow_negative_numbers = true)]
    tail_chars: Option<u64>,

    /// Keep N lines, after --offset K lines
    #[arg(short = 'n', long, visible_alias = "limit", value_name = "N", value_parser = cap_value(), allow_negative_numbers = true)]
    head_lines: Option<u64>,

    /// Skip K lines before --head-lines starts
    #[arg(long, value_name = "K", allow_negative_numbers = true)]
    offset: Option<u64>,

    /// Keep the first N matches (lines)
    #[arg(short = 'm', long, value_name = "N", value_parser = cap_value(), allow_negative_numbers = true)]
    max_matches: Option<u64>,

    /// Keep the first N characters (with --tail-chars: both ends)
    #[arg(long, value_name = "N", value_parser = cap_value(), allow_negative_numbers = true)]
    head_chars: Option<u64>,

    /// Keep the last N lines (with --head-lines: both ends)
    #[arg(long, value_name = "N", value_parser = cap_value(), allow_negative_numbers = true)]
    tail_lines: Option<u64>,

    /// With --max-matches: count only lines matching REGEX
    #[arg(short = 'e', long, value_name = "REGEX", allow_hyphen_values = true)]
    pattern: Option<String>,

    /// With --pattern: match it as a literal string
    #[arg(short = 'F', long)]
    fixed_strings: bool,

    /// Keep W characters of each line, 0 for all [default: 2000 with the line caps, off with the others]
    #[arg(long, value_name = "W", allow_negative_numbers = true)]
    max_line_chars: Option<u64>,

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

    /// Also write the whole input, uncut, to FILE
    #[arg(long, value_name = "FILE", conflicts_with = "save_dir")]
    save: Option<PathBuf>,

    /// Also write the whole input to a new DIR/capout-XXXXXX.log, removed when nothing was cut
    #[arg(long, value_name = "DIR")]
    save_dir: Option<PathBuf>,

    /// Show a live count of what was read on stderr while a cap holds its output back [default: auto]
    #[arg(long, value_enum, value_name = "WHEN")]
    progress: Option<When>,

    /// With a command: stop it after DURATION (30, 30s, 500ms, 2m, 1h; 0 for never) and exit 124
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
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,

    /// The command to run and its arguments; everything from COMMAND on is its own
    #[arg(value_name = "COMMAND", trailing_var_arg = true, num_args = 1..)]
    command: Vec<OsString>,
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
enum When {
    Auto,
    Always,
    Never,
}

/// What the command line asks for.
#[derive(Debug)]
pub enum Action {
    /// Cap the input. Boxed: a config is large beside a shell's name.
    Run(Box<Config>),
    /// Print a completion script.
    Completions(Shell),
}

fn cap_value() -> clap::builder::RangedU64ValueParser<u64> {
    clap::value_parser!(u64).range(1..)
}

impl Args {
    /// What the arguments ask for.
    pub fn into_action(self) -> Result<Action, clap::Error> {
        // `capout --mcp [--root DIR]` alone is served before this parse
        // (see `crate::mcp::requested`): here either is mixed with others.
        if self.mcp || self.root.is_some() {
            return Err(usage("--mcp takes no option but --root DIR: capout --mcp [--root DIR]".into()));
        }
        match self.completions.as_deref() {
            Some(name) => {
                name.parse().map(Action::Completions).map_err(|e: String| invalid("--completions", &e))
            }
            None => self.into_config().map(|config| Action::Run(Box::new(config))),
        }
    }

    /// Fills in what this command line leaves open from `defaults`, the
    /// options of `CAPOUT_OPTS`: a later option wins over an earlier, and
    /// a cap here replaces all the caps there.
    fn over(self, defaults: Args) -> Args {
        let has_cap = [self.tail_chars, self.head_chars, self.head_lines, self.tail_lines, self.max_matches]
            .iter()
            .any(Option::is_some);
        let caps = if has_cap { &self } else { &defaults };
        let (tail_chars, head_lines, max_matches, head_chars, tail_lines) =
            (caps.tail_chars, caps.head_lines, caps.max_matches, caps.head_chars, caps.tail_lines);
        let (save, save_dir) = if self.save.is_some() || self.save_dir.is_some() {
            (self.save, self.save_dir)
        } else {
            (defaults.save, defaults.save_dir)
        };
        // Options of a cap go with it; a default that does not fit the
        // cap in force is left out, as a default timeout is without a
        // command, so that CAPOUT_OPTS never breaks a command line.
        let matches = max_matches.is_some();
        let line_cap = matches || head_lines.is_some() || tail_lines.is_some();
        let (keep, keep_max) = match self.keep {
            Some(keep) => (Some(keep), self.keep_max.or(defaults.keep_max)),
            None if matches => (None, self.keep_max),
            None => (defaults.keep, self.keep_max.or(defaults.keep_max)),
        };
        // The options of a command apply from CAPOUT_OPTS only when there
        // is a command, so that a default timeout leaves filter mode be.
        let runs = !self.command.is_empty();
        let timeout = if runs { self.timeout.or(defaults.timeout) } else { self.timeout };
        let kill_after = self.kill_after.or(defaults.kill_after.filter(|_| runs && timeout.is_some()));
        Args {
            tail_chars,
            head_lines,
            max_matches,
            head_chars,
            tail_lines,
            offset: if has_cap { self.offset } else { self.offset.or(defaults.offset) },
            pattern: if has_cap { self.pattern } else { self.pattern.or(defaults.pattern) },
            fixed_strings: self.fixed_strings || (!has_cap && defaults.fixed_strings),
            max_line_chars: self.max_line_chars.or(defaults.max_line_chars),
            bytes: self.bytes || defaults.bytes,
            line_numbers: self.line_numbers || (line_cap && defaults.line_numbers),
            strip_ansi: self.strip_ansi || defaults.strip_ansi,
            collapse_cr: self.collapse_cr || defaults.collapse_cr,
            keep,
            keep_max,
            notice: self.notice.or(defaults.notice),
            notice_format: self.notice_format.or(defaults.notice_format),
            json: self.json || defaults.json,
            save,
            save_dir,
            progress: self.progress.or(defaults.progress),
            timeout,
            kill_after,
            stdout_only: self.stdout_only || (runs && defaults.stdout_only),
            completions: self.completions,
            mcp: self.mcp,
            root: self.root,
            command: self.command,
        }
    }

    /// The config, checking what clap cannot: how caps and options combine.
    fn into_config(self) -> Result<Config, clap::Error> {
        let cap = self.cap()?;
        let command = self.command_spec()?;
        let named = |name: &str| matches!((name, cap), ("--head-lines", CapSpec::HeadLines { .. }));
        if self.offset.is_some() && !named("--head-lines") {
            return Err(usage("--offset goes with --head-lines alone".into()));
        }
        let matches = matches!(cap, CapSpec::MaxMatches(_));
        if self.pattern.is_some() && !matches {
            return Err(usage("--pattern goes with --max-matches".into()));
        }
        if self.fixed_strings && self.pattern.is_none() {
            return Err(usage("--fixed-strings goes with --pattern".into()));
        }
        if self.keep.is_some() && matches {
            return Err(usage("--keep does not go with --max-matches".into()));
        }
        if self.keep_max.is_some() && self.keep.is_none() {
            return Err(usage("--keep-max goes with --keep".into()));
        }
        if self.line_numbers && !cap.is_line_cap() {
            return Err(usage(
                "--line-numbers goes with a line cap or --max-matches, not a character cap".into(),
            ));
        }
        let pattern = self.pattern.map(|text| Pattern { text, fixed: self.fixed_strings });
        if let Some(Err(e)) = pattern.as_ref().map(Pattern::check) {
            return Err(invalid("--pattern", &e.to_string()));
        }
        let keep = self.keep.map(|pattern| Keep { pattern, max: self.keep_max.unwrap_or(DEFAULT_KEEP_MAX) });
        if let Some(Err(e)) = keep.as_ref().map(|k| Pattern { text: k.pattern.clone(), fixed: false }.check())
        {
            return Err(invalid("--keep", &e.to_string()));
        }
        let max_line = match self.max_line_chars {
            Some(0) => None,
            Some(w) => Some(w),
            None => cap.is_line_cap().then_some(DEFAULT_MAX_LINE),
        };
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
        Ok(Config {
            cap,
            pattern,
            unit: if self.bytes { Unit::Bytes } else { Unit::Chars },
            max_line,
            line_numbers: self.line_numbers,
            strip_ansi: self.strip_ansi,
            collapse_cr: self.collapse_cr,
            keep,
            notice: match self.notice {
                None | Some(NoticeArg::Stdout) => NoticeTarget::Stdout,
                Some(NoticeArg::Stderr) => NoticeTarget::Stderr,
                Some(NoticeArg::None) => NoticeTarget::None,
            },
            template,
            json: self.json,
            save,
            progress: match self.progress {
                None | Some(When::Auto) => std::io::stderr().is_terminal(),
                Some(When::Always) => true,
                Some(When::Never) => false,
            },
            command,
            ..Config::default()
        })
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
            (tc, hc, hl, tl, mm) => {
                let names = ["--tail-chars", "--head-chars", "--head-lines", "--tail-lines", "--max-matches"];
                let given: Vec<String> = names
                    .into_iter()
                    .zip([tc, hc, hl, tl, mm])
                    .filter_map(|(name, value)| value.map(|v| format!("{name} {v}")))
                    .collect();
                return Err(usage(format!("the caps {} cannot be used together", given.join(" and "))));
            }
        })
    }
}

fn invalid(option: &str, why: &str) -> clap::Error {
    Args::command().error(ErrorKind::ValueValidation, format!("invalid value for '{option}': {why}"))
}

fn usage(message: String) -> clap::Error {
    Args::command().error(ErrorKind::ArgumentConflict, message)
}

/// Parses the process's arguments and `CAPOUT_OPTS`; on a usage error,
/// prints it and exits with status 2 (0 for `--help` and `--version`).
pub fn parse() -> Action {
    let opts = std::env::var_os("CAPOUT_OPTS");
    let opts = match opts.as_deref().map(|o| o.to_str().ok_or(o)) {
        Some(Err(_)) => usage_in_capout_opts("it is not valid UTF-8").exit(),
        Some(Ok(opts)) => Some(opts),
        None => None,
    };
    try_parse(std::env::args_os(), opts).unwrap_or_else(|e| e.exit())
}

/// Parses `args` (the first is the program's name) over the default
/// options `opts` (the value of `CAPOUT_OPTS`).
pub fn try_parse<I, T>(args: I, opts: Option<&str>) -> Result<Action, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args = Args::try_parse_from(args)?;
    match opts.map(defaults).transpose()? {
        Some(defaults) => args.over(defaults).into_action(),
        None => args.into_action(),
    }
}

/// The options of `CAPOUT_OPTS`, which must make sense on their own
/// (but for a timeout, which waits for a command, and line numbers, which
/// wait for a line cap); every error names it.
fn defaults(opts: &str) -> Result<Args, clap::Error> {
    let words = shlex::split(opts).ok_or_else(|| usage_in_capout_opts("unbalanced quotes"))?;
    let defaults = Args::try_parse_from(std::iter::once("capout".to_owned()).chain(words)).map_err(|e| {
        match e.kind() {
            ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                usage_in_capout_opts("--help and --version are not defaults")
            }
            _ => from_capout_opts(&e),
        }
    })?;
    if defaults.mcp || defaults.root.is_some() {
        return Err(usage_in_capout_opts("--mcp and --root are not defaults"));
    }
    if defaults.completions.is_some() {
        return Err(usage_in_capout_opts("--completions is not a default"));
    }
    if !defaults.command.is_empty() {
        return Err(usage_in_capout_opts("a command is not a default"));
    }
    let alone =
        Args { timeout: None, kill_after: None, stdout_only: false, line_numbers: false, ..defaults.clone() };
    alone.into_config().map_err(|e| from_capout_opts(&e))?;
    Ok(defaults)
}

fn usage_in_capout_opts(message: &str) -> clap::Error {
    Args::command().error(ErrorKind::ArgumentConflict, format!("in CAPOUT_OPTS: {message}"))
}

/// The clap command, for `--completions` and the tests.
pub fn command() -> clap::Command {
    Args::command()
}

/// Says that a usage error came from `CAPOUT_OPTS`.
fn from_capout_opts(e: &clap::Error) -> clap::Error {
    let text = e.render().to_string();
    let first = text.lines().next().unwrap_or_default();
    let message = first.strip_prefix("error: ").unwrap_or(first);
    Args::command().error(e.kind(), format!("in CAPOUT_OPTS: {message}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(args: &[&str], opts: Option<&str>) -> Result<Config, ErrorKind> {
        match try_parse(std::iter::once("capout").chain(args.iter().copied()), opts) {
            Ok(Action::Run(config)) => Ok(*config),
            Ok(Action::Completions(_)) => panic!("not a run"),
            Err(e) => Err(e.kind()),
        }
    }

    fn cap(args: &[&str]) -> Result<CapSpec, ErrorKind> {
        config(args, None).map(|c| c.cap)
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
        let c = config(&[], Some("--timeout 5")).unwrap();
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
            (c.cap, c.unit, c.notice, c.max_line),
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
        config(args, None).map(|c| c.command)
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
        let with = |args: &[&str], opts| config(args, Some(opts)).map(|c| c.command);
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
}
