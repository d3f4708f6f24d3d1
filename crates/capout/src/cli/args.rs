//! The options of the command line as clap parses them: [`Args`], the
//! value parsers, and the clap command with a `--no-` form of each switch.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Arg, ArgAction, CommandFactory, Parser, ValueEnum, ValueHint};

use capout_core::Tokenizer;

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
    after_help = "Commands:\n  \
                  capout init HARNESS      write capout into a harness's own configuration (capout init --help)\n  \
                  capout hook HARNESS      a harness's hook, which capout init sets up (capout hook --help)\n  \
                  capout --man             print the manual page (capout --man | man -l -)\n  \
                  capout stats             what bounding saved: the ledger of bounded calls (capout stats --help)\n  \
                  capout --mcp             the MCP server: read, grep and bash, bounded (capout-mcp --help)\n  \
                  capout --mcp-wrap -- CMD bound the tool results of another MCP server CMD\n  \
                  capout --list-profiles   list the profiles, built-in and of the config file\n\n\
                  With no cap, --tail-chars 5000 applies. With a COMMAND, capout runs it, caps its joined \
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
    pub(super) tail_chars: Option<u64>,

    /// Keep N lines, after --offset K lines
    #[arg(short = 'n', long, visible_alias = "limit", value_name = "N", value_parser = cap_value, allow_negative_numbers = true)]
    pub(super) head_lines: Option<u64>,

    /// Skip K lines before --head-lines starts, or K matches before --max-matches starts
    #[arg(long, value_name = "K", allow_negative_numbers = true)]
    pub(super) offset: Option<u64>,

    /// Keep the first N matches (lines)
    #[arg(short = 'm', long, value_name = "N", value_parser = cap_value, allow_negative_numbers = true)]
    pub(super) max_matches: Option<u64>,

    /// Keep the first N characters (with --tail-chars: both ends)
    #[arg(long, value_name = "N", value_parser = cap_value, allow_negative_numbers = true)]
    pub(super) head_chars: Option<u64>,

    /// Keep the last N lines (with --head-lines: both ends)
    #[arg(long, value_name = "N", value_parser = cap_value, allow_negative_numbers = true)]
    pub(super) tail_lines: Option<u64>,

    /// Keep the last N tokens (with --head-tokens: both ends)
    #[arg(long, value_name = "N", value_parser = cap_value, allow_negative_numbers = true)]
    pub(super) tail_tokens: Option<u64>,

    /// Keep the first N tokens
    #[arg(long, value_name = "N", value_parser = cap_value, allow_negative_numbers = true)]
    pub(super) head_tokens: Option<u64>,

    /// How the token caps count: estimate (no vocabulary), o200k or cl100k (exact) [default: estimate]
    #[arg(long, value_enum, value_name = "NAME")]
    pub(super) tokenizer: Option<TokenizerArg>,

    /// With --max-matches: count only lines matching REGEX
    #[arg(short = 'e', long, value_name = "REGEX", allow_hyphen_values = true)]
    pub(super) pattern: Option<String>,

    /// With --pattern: match it as a literal string
    #[arg(short = 'F', long)]
    pub(super) fixed_strings: bool,

    /// Match --pattern and --keep without regard to case
    #[arg(short = 'i', long)]
    pub(super) ignore_case: bool,

    /// Keep W characters of each line, 0 for all [default: 2000 with --head-lines, --tail-lines and
    /// --max-matches; off with the char caps]
    #[arg(long, value_name = "W", allow_negative_numbers = true)]
    pub(super) max_line_chars: Option<u64>,

    /// With --head-lines, --tail-lines or --max-matches: keep at most N characters in all, whole
    /// lines only
    #[arg(long, value_name = "N", value_parser = cap_value, allow_negative_numbers = true)]
    pub(super) budget_chars: Option<u64>,

    /// With --head-chars or --head-lines: keep JSON valid, each array and object keeping its first N
    /// items, within the cap (--head-lines then counts documents)
    #[arg(long, value_name = "N", value_parser = cap_value, allow_negative_numbers = true)]
    pub(super) json_items: Option<u64>,

    /// With --json-items: keep the first M characters of each string, 0 for all [default: 1000]
    #[arg(long, value_name = "M", allow_negative_numbers = true)]
    pub(super) json_string_chars: Option<u64>,

    /// Count bytes instead of characters
    #[arg(long)]
    pub(super) bytes: bool,

    /// Number kept lines as `cat -n` does
    #[arg(short = 'N', long)]
    pub(super) line_numbers: bool,

    /// Remove ANSI escape sequences before counting
    #[arg(long)]
    pub(super) strip_ansi: bool,

    /// Keep only the text after the last carriage return of each line
    #[arg(long)]
    pub(super) collapse_cr: bool,

    /// Show what a terminal would show (cursor movement, erasures, redraws applied) and cap its rows
    #[arg(long)]
    pub(super) render: bool,

    /// With --render: the terminal's width in columns, 2 to 10000 [default: 200]
    #[arg(long, value_name = "N", value_parser = render_width)]
    pub(super) render_width: Option<u16>,

    /// With --render: the terminal's height in rows, 1 to 1000 [default: 50]
    #[arg(long, value_name = "N", value_parser = render_height)]
    pub(super) render_height: Option<u16>,

    /// Show the cut lines that match REGEX after the notice
    #[arg(long, value_name = "REGEX", allow_hyphen_values = true)]
    pub(super) keep: Option<String>,

    /// With --keep: show at most K rescued lines [default: 20]
    #[arg(long, value_name = "K", allow_negative_numbers = true)]
    pub(super) keep_max: Option<u64>,

    /// Where notices go [default: stdout]
    #[arg(long, value_enum, value_name = "WHERE")]
    pub(super) notice: Option<NoticeArg>,

    #[arg(
        long,
        value_name = "TEMPLATE",
        allow_hyphen_values = true,
        help = "Word the notice with TEMPLATE: {shown} {limit} {total} {omitted} {unit} {first} {last} {next_offset} {saved}; \
                with --json-items {json_items_kept} {json_items} {json_arrays_cut} {json_strings_cut} \
                {json_documents_kept} {json_documents} {json_ended_at}"
    )]
    pub(super) notice_format: Option<String>,

    /// Print one JSON object instead of text
    #[arg(long)]
    pub(super) json: bool,

    /// Show input with a NUL byte in its first 8 KiB as it is, or hide it behind one line that says
    /// its size [default: show; hide in the profiles read and bash]
    #[arg(long, value_enum, value_name = "WHAT")]
    pub(super) binary: Option<BinaryArg>,

    /// Stop reading once a head cap (--head-lines, --head-chars, --max-matches) is full, as head
    /// does: the notice then has no total. Without it every cap reads to the end, to count the total
    /// that its notice gives
    #[arg(long)]
    pub(super) stop_at_cap: bool,

    /// Read FILE instead of stdin
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub(super) input: Option<PathBuf>,

    /// Add a line for this run to the ledger that `capout stats` reads (a hooked call always does,
    /// a plain run only with this)
    #[arg(long)]
    pub(super) ledger: bool,

    /// Apply the options of profile NAME: read, grep, bash, tool, or a [profile.NAME] of the config file
    #[arg(long, value_name = "NAME")]
    pub(super) profile: Option<String>,

    /// Print the options in force, each with where it came from, and exit
    #[arg(long)]
    pub(super) show_config: bool,

    /// Also write the whole input, uncut, to FILE
    #[arg(long, value_name = "FILE", overrides_with = "save_dir", value_hint = ValueHint::FilePath)]
    pub(super) save: Option<PathBuf>,

    /// Also write the whole input to a new DIR/capout-XXXXXX.log, removed when nothing was cut
    #[arg(long, value_name = "DIR", overrides_with = "save", value_hint = ValueHint::DirPath)]
    pub(super) save_dir: Option<PathBuf>,

    /// Show a live count of what was read on stderr while a cap holds its output back [default: auto]
    #[arg(long, value_enum, value_name = "WHEN")]
    pub(super) progress: Option<When>,

    /// With a command: stop it after DURATION (30, 30s, 1.5s, 500ms, 2m, 1h, 1d; 0 for never) and exit
    /// 124
    #[arg(long, value_name = "DURATION", value_parser = duration, allow_negative_numbers = true)]
    pub(super) timeout: Option<DurationArg>,

    /// With --timeout: send SIGKILL this long after SIGTERM, 0 for never [default: 5s]
    #[arg(long, value_name = "DURATION", value_parser = duration, allow_negative_numbers = true)]
    pub(super) kill_after: Option<DurationArg>,

    /// With a command: leave its stderr on capout's stderr instead of joining it
    #[arg(long)]
    pub(super) stdout_only: bool,

    /// Print a completion script for SHELL and exit
    #[arg(long, value_name = "SHELL", value_parser = ["bash", "zsh", "fish", "elvish"])]
    pub(super) completions: Option<String>,

    /// Serve the tools read, grep and bash over the Model Context Protocol on stdin and stdout
    #[arg(long)]
    pub(super) mcp: bool,

    /// With --mcp: the directory the tools work in, and that paths may not leave [default: .]
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub(super) root: Option<PathBuf>,

    /// The command to run and its arguments; everything from COMMAND on is its own
    #[arg(value_name = "COMMAND", trailing_var_arg = true, num_args = 1.., value_hint = ValueHint::CommandWithArguments)]
    pub(super) command: Vec<OsString>,

    /// The clap ids of the options that gave way in `resolve`.
    #[arg(skip)]
    pub(super) gave_way: Vec<&'static str>,

    /// The clap ids of the caps given, in command-line order, so that an
    /// error names them as they were written.
    #[arg(skip)]
    pub(super) cap_order: Vec<&'static str>,
}

/// A duration as given on the command line: its value, and its text with
/// `s` added when it has no unit, as the timeout notice names it.
#[derive(Clone, Debug)]
pub(super) struct DurationArg {
    pub(super) value: Duration,
    pub(super) label: String,
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
pub(super) enum NoticeArg {
    Stdout,
    Stderr,
    None,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub(super) enum TokenizerArg {
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
pub(super) enum BinaryArg {
    Show,
    Hide,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub(super) enum When {
    Auto,
    Always,
    Never,
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
