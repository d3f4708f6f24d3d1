//! The command line: clap's parser and its validation into a [`Config`].
//! No I/O happens here.

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser, ValueEnum};

use crate::{CapSpec, Config, NoticeTarget, Unit};

/// The per-line cap of the line caps when `--max-line-chars` is not given.
pub const DEFAULT_MAX_LINE: u64 = 2000;
/// The cap when none is given: `--tail-chars 5000`.
pub const DEFAULT_TAIL_CHARS: u64 = 5000;

/// Bound a command's output: keep the first lines, the last characters or
/// the first matches, and say what was cut.
#[derive(Debug, Parser)]
#[command(
    name = "capout",
    version,
    args_override_self = true,
    after_help = "With no cap, --tail-chars 5000 applies. See capout(1) for the notices and exit statuses."
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
        Ok(Config {
            cap,
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
}
