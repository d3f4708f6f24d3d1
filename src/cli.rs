//! The command line: clap's parser and its validation into a [`Config`].
//! No I/O happens here.

use std::ffi::OsString;
use std::time::Duration;

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser, ValueEnum};

use crate::command::{CommandSpec, Timeout};
use crate::{CapSpec, Config, NoticeTarget, Unit};

/// The per-line cap of the line caps when `--max-line-chars` is not given.
pub const DEFAULT_MAX_LINE: u64 = 2000;
/// The cap when none is given: `--tail-chars 5000`.
pub const DEFAULT_TAIL_CHARS: u64 = 5000;
/// How long after SIGTERM a timed-out command gets SIGKILL when
/// `--kill-after` is not given.
pub const DEFAULT_KILL_AFTER: Duration = Duration::from_secs(5);

/// Bound a command's output: keep the first lines, the last characters or
/// the first matches, and say what was cut.
#[derive(Debug, Parser)]
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

    /// Keep the first N characters
    #[arg(long, value_name = "N", value_parser = cap_value(), allow_negative_numbers = true)]
    head_chars: Option<u64>,

    /// Keep W characters of each line, 0 for all [default: 2000 with the line caps]
    #[arg(long, value_name = "W", allow_negative_numbers = true)]
    max_line_chars: Option<u64>,

    /// Count bytes instead of characters
    #[arg(long)]
    bytes: bool,

    /// Number kept lines as `cat -n` does
    #[arg(short = 'N', long)]
    line_numbers: bool,

    /// Where notices go
    #[arg(long, value_enum, value_name = "WHERE", default_value_t = NoticeArg::Stdout)]
    notice: NoticeArg,

    /// With a command: stop it after DURATION (30, 30s, 500ms, 2m, 1h; 0 for never) and exit 124
    #[arg(long, value_name = "DURATION", value_parser = duration, allow_negative_numbers = true)]
    timeout: Option<DurationArg>,

    /// With --timeout: send SIGKILL this long after SIGTERM, 0 for never [default: 5s]
    #[arg(long, value_name = "DURATION", value_parser = duration, allow_negative_numbers = true)]
    kill_after: Option<DurationArg>,

    /// With a command: leave its stderr on capout's stderr instead of joining it
    #[arg(long)]
    stdout_only: bool,

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

fn cap_value() -> clap::builder::RangedU64ValueParser<u64> {
    clap::value_parser!(u64).range(1..)
}

impl Args {
    /// Checks what clap cannot: how caps and options combine.
    pub fn into_config(self) -> Result<Config, clap::Error> {
        let caps: Vec<(&str, u64)> = [
            ("--tail-chars", self.tail_chars),
            ("--head-lines", self.head_lines),
            ("--max-matches", self.max_matches),
            ("--head-chars", self.head_chars),
        ]
        .into_iter()
        .filter_map(|(name, n)| n.map(|n| (name, n)))
        .collect();
        let cap = match caps.as_slice() {
            [] => CapSpec::TailChars(DEFAULT_TAIL_CHARS),
            [("--tail-chars", n)] => CapSpec::TailChars(*n),
            [("--head-chars", n)] => CapSpec::HeadChars(*n),
            [("--max-matches", n)] => CapSpec::MaxMatches(*n),
            [("--head-lines", n)] => CapSpec::HeadLines { limit: *n, offset: self.offset.unwrap_or(0) },
            [(a, _), (b, _), ..] => {
                return Err(usage(format!("the caps {a} and {b} cannot be used together")));
            }
            [(other, _)] => unreachable!("no cap is named {other}"),
        };
        if self.offset.is_some() && !matches!(cap, CapSpec::HeadLines { .. }) {
            return Err(usage("--offset goes with --head-lines".into()));
        }
        if self.line_numbers && !cap.is_line_cap() {
            return Err(usage(
                "--line-numbers goes with a line cap or --max-matches, not a character cap".into(),
            ));
        }
        let max_line = match self.max_line_chars {
            Some(0) => None,
            Some(w) => Some(w),
            None => cap.is_line_cap().then_some(DEFAULT_MAX_LINE),
        };
        let command = self.command_spec()?;
        Ok(Config {
            cap,
            command,
            unit: if self.bytes { Unit::Bytes } else { Unit::Chars },
            max_line,
            line_numbers: self.line_numbers,
            notice: match self.notice {
                NoticeArg::Stdout => NoticeTarget::Stdout,
                NoticeArg::Stderr => NoticeTarget::Stderr,
                NoticeArg::None => NoticeTarget::None,
            },
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
}

fn usage(message: String) -> clap::Error {
    Args::command().error(ErrorKind::ArgumentConflict, message)
}

/// Parses the process's arguments into a config; on a usage error, prints
/// it and exits with status 2 (0 for `--help` and `--version`).
pub fn parse() -> Config {
    Args::parse().into_config().unwrap_or_else(|e| e.exit())
}

/// Parses `args` (the first is the program's name) into a config.
pub fn try_parse<I, T>(args: I) -> Result<Config, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    Args::try_parse_from(args)?.into_config()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cap(args: &[&str]) -> Result<CapSpec, ErrorKind> {
        try_parse(std::iter::once("capout").chain(args.iter().copied())).map(|c| c.cap).map_err(|e| e.kind())
    }

    #[test]
    fn picks_the_cap() {
        assert_eq!(cap(&[]), Ok(CapSpec::TailChars(5000)));
        assert_eq!(cap(&["-n", "5", "--offset", "3"]), Ok(CapSpec::HeadLines { limit: 5, offset: 3 }));
        assert_eq!(cap(&["--limit", "5"]), Ok(CapSpec::HeadLines { limit: 5, offset: 0 }));
        assert_eq!(cap(&["-c", "1", "-c", "2"]), Ok(CapSpec::TailChars(2)));
        assert_eq!(cap(&["-m", "18446744073709551615"]), Ok(CapSpec::MaxMatches(u64::MAX)));
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
        assert_eq!(cap(&["-N", "-c", "5"]), Err(ErrorKind::ArgumentConflict));
    }

    fn command(args: &[&str]) -> Result<Option<CommandSpec>, ErrorKind> {
        try_parse(std::iter::once("capout").chain(args.iter().copied()))
            .map(|c| c.command)
            .map_err(|e| e.kind())
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
}
