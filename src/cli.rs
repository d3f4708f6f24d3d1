//! The command line: clap's parser and its validation into a [`Config`].
//! No I/O happens here.

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser, ValueEnum};

use crate::{CapSpec, Config, Keep, NoticeTarget, Pattern, Unit};

/// The per-line cap of the line caps when `--max-line-chars` is not given.
pub const DEFAULT_MAX_LINE: u64 = 2000;
/// The cap when none is given: `--tail-chars 5000`.
pub const DEFAULT_TAIL_CHARS: u64 = 5000;
/// Rescued lines shown at most when `--keep-max` is not given.
pub const DEFAULT_KEEP_MAX: u64 = 20;

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

    /// Keep W characters of each line, 0 for all [default: 2000 with the line caps]
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
        let cap = self.cap()?;
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
        if let Some(Err(e)) = pattern.as_ref().map(Pattern::matcher) {
            return Err(invalid("--pattern", &e));
        }
        let keep = self.keep.map(|pattern| Keep { pattern, max: self.keep_max.unwrap_or(DEFAULT_KEEP_MAX) });
        if let Some(Err(e)) =
            keep.as_ref().map(|k| Pattern { text: k.pattern.clone(), fixed: false }.matcher())
        {
            return Err(invalid("--keep", &e));
        }
        let max_line = match self.max_line_chars {
            Some(0) => None,
            Some(w) => Some(w),
            None => cap.is_line_cap().then_some(DEFAULT_MAX_LINE),
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
                NoticeArg::Stdout => NoticeTarget::Stdout,
                NoticeArg::Stderr => NoticeTarget::Stderr,
                NoticeArg::None => NoticeTarget::None,
            },
            ..Config::default()
        })
    }

    /// The cap: one of them, or one of the two head+tail pairs.
    fn cap(&self) -> Result<CapSpec, clap::Error> {
        let given: Vec<(&str, u64)> = [
            ("--tail-chars", self.tail_chars),
            ("--head-chars", self.head_chars),
            ("--head-lines", self.head_lines),
            ("--tail-lines", self.tail_lines),
            ("--max-matches", self.max_matches),
        ]
        .into_iter()
        .filter_map(|(name, n)| n.map(|n| (name, n)))
        .collect();
        Ok(match given.as_slice() {
            [] => CapSpec::TailChars(DEFAULT_TAIL_CHARS),
            [("--tail-chars", n)] => CapSpec::TailChars(*n),
            [("--head-chars", n)] => CapSpec::HeadChars(*n),
            [("--head-lines", n)] => CapSpec::HeadLines { limit: *n, offset: self.offset.unwrap_or(0) },
            [("--tail-lines", n)] => CapSpec::TailLines(*n),
            [("--max-matches", n)] => CapSpec::MaxMatches(*n),
            [("--tail-chars", t), ("--head-chars", h)] => CapSpec::HeadTailChars(*h, *t),
            [("--head-lines", h), ("--tail-lines", t)] => CapSpec::HeadTailLines(*h, *t),
            [(a, _), (b, _), ..] => {
                return Err(usage(format!("the caps {a} and {b} cannot be used together")));
            }
            [(other, _)] => unreachable!("no cap is named {other}"),
        })
    }
}

fn invalid(option: &str, why: &str) -> clap::Error {
    Args::command().error(ErrorKind::ValueValidation, format!("invalid value for '{option}': {why}"))
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
}
