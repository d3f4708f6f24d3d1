//! Every text the server shows the model that capout-core's notices do
//! not: the tools' descriptions and the server's instructions, the one
//! line `read` shows of a binary file, and the text of each tool error.
//! The figures in them come from the constants that rule the tools, so
//! that a description never contradicts what its tool does. The line that
//! stands for binary output of `bash` is the engine's
//! (`capout_core::binary_notice`), as in the CLI.

use std::fmt::Display;

use capout_core::{CapSpec, Options};
use rustix::fs::FileType;

use super::lifecycle::{GRACE, SAVED_MAX};
use super::server::BASH_TIMEOUT;
use super::tools::Tools;
use super::transport::MAX_LINE;

/// The last line of an MCP `bash` call whose command did not exit 0;
/// `signal` names the signal that killed it, as `SIGKILL`.
pub fn exit_status(code: i32, signal: Option<&str>) -> String {
    match signal {
        Some(name) => format!("(exit status {code}, killed by {name})"),
        None => format!("(exit status {code})"),
    }
}

/// What the server tells the client of itself.
pub const INSTRUCTIONS: &str = "Bounded tools: read pages files with offset/limit, grep searches with ripgrep, \
                                bash runs a shell command. Every output is capped and ends with a notice \
                                that says what was cut and how to get more.";

/// The words of a cap as a description tells them: "the first 500 lines".
fn cap_words(config: &Options) -> String {
    let unit = config.unit.name();
    match config.cap {
        CapSpec::TailChars(n) => format!("the last {n} {unit}"),
        CapSpec::HeadChars(n) => format!("the first {n} {unit}"),
        CapSpec::HeadLines { limit, .. } => format!("the first {limit} lines"),
        CapSpec::TailLines(n) => format!("the last {n} lines"),
        CapSpec::MaxMatches(n) => format!("the first {n} lines"),
        CapSpec::HeadTailLines(h, t) => format!("the first {h} and the last {t} lines"),
        CapSpec::HeadTailChars(h, t) => format!("the first {h} and the last {t} {unit}"),
        CapSpec::TailTokens(n) => format!("the last {n} tokens"),
        CapSpec::HeadTokens(n) => format!("the first {n} tokens"),
        CapSpec::HeadTailTokens(h, t) => format!("the first {h} and the last {t} tokens"),
    }
}

/// What a description says of the line cap and the budget of `config`.
fn line_words(config: &Options) -> String {
    let unit = config.unit.name();
    let budget = config.budget.map(|budget| {
        format!(
            " A page holds at most {budget} {unit} in all (whole lines only): it may end before `limit` lines, and its notice says where."
        )
    });
    let width = config.max_line().map(|w| {
        format!(" A line longer than {w} {unit} is cut and ends with ` ... (line truncated to {w} {unit})`.")
    });
    format!("{}{}", budget.unwrap_or_default(), width.unwrap_or_default())
}

/// The description of a tool, from the profiles loaded: a config file
/// that retunes a cap changes what the model is told.
pub fn describe(name: &str, tools: &Tools) -> String {
    let (read, grep, bash) = tools.profiles();
    match name {
        "read" => format!(
            "Read a text file: its lines, each numbered as `cat -n` numbers them (6-wide number, a tab, the line). Shown: {}, starting after `offset` (`limit` sets how many lines).{} When more follow, the last line is a notice `... (truncated, showing lines A-B of T, next offset B)`: call read again with offset B to see the next lines. A page after the first that reaches the end says `... (showing lines A-B of T, end of input)`; `... (offset K is past the end, input has T lines)` means the file has T lines. An empty file reads `(no output)`; a binary file is not shown. A folder, a missing file or a path outside the root is an error.",
            cap_words(read),
            line_words(read)
        ),
        "grep" => format!(
            "Search file contents with a regular expression, in parallel, as ripgrep does (`rg -n --sort path`): folders are walked, files that .gitignore ignores, hidden files and binary files are skipped; `glob` and `type` narrow the files. output_mode \"content\" (default) gives each matching line as `path:line:text` (context lines from `context_before`/`context_after`/`context` as `path-line-text`, groups apart with `--`), \"files_with_matches\" the paths, \"count\" `path:count`; paths relative to the server's root. Each line of output is one entry. Shown: {} (`limit` sets how many), after `offset`; when there are more, the last line says `... (T total, showing first N)`, and a later page `... (T total, showing A-B, next offset B)` or `... (T total, showing A-B, end of input)`: T is the exact number, and offset B shows the next page. No match reads `No matches found.`.{}",
            cap_words(grep),
            line_words(grep)
        ),
        _ => format!(
            "Run a shell command (`sh -c COMMAND`), with stdout and stderr joined in the order written and no stdin. The working directory persists from call to call (a `cd` holds for the next call, the environment does not); the first call starts in the server's root. Shown: {} of the output{}; when more was written, a notice follows: `... (truncated, showing last N chars; full output: PATH)`: the whole output is saved in PATH, which the read tool pages (its notice gives the next offset) and grep searches.{binary} A command still running after `timeout` seconds (default {timeout}) is stopped, and `... (command timed out after Ns)` says so. When the command's exit status is not 0, the last line is `(exit status N)` (124 after a timeout), or `(exit status N, killed by SIGNAME)` when a signal killed it. No output at all reads `(no output)`. Nothing the command starts outlives the call: when it ends (or is cancelled), background jobs, even those started with `&`, `nohup` or `setsid`, are ended (SIGTERM, then SIGKILL {grace} s later); run a long job in the foreground with a larger timeout instead. Saved outputs take at most {saved} in all: the oldest are removed first.",
            cap_words(bash),
            match (bash.strip_ansi, bash.collapse_cr) {
                (true, true) =>
                    ", ANSI escape sequences removed and progress frames (`\\r`) collapsed to what a terminal shows",
                (true, false) => ", ANSI escape sequences removed",
                (false, true) => ", progress frames (`\\r`) collapsed to what a terminal shows",
                (false, false) => "",
            },
            binary = binary_words(bash),
            timeout = BASH_TIMEOUT,
            grace = GRACE.as_secs(),
            saved = saved_bound(),
        ),
    }
}

/// What the `bash` description says of binary output under `config`.
fn binary_words(config: &Options) -> String {
    let sniff = capout_core::BINARY_SNIFF / 1024;
    if config.hide_binary {
        format!(
            " Binary output (a NUL byte in its first {sniff} KiB) is replaced by `{}`; text with a few bytes that are not UTF-8 is shown, each such byte as U+FFFD.",
            capout_core::binary_notice("N", Some("PATH"))
        )
    } else {
        String::new()
    }
}

/// The bound on the saved outputs, as a description and an error say it.
fn saved_bound() -> String {
    if SAVED_MAX.is_multiple_of(1 << 30) {
        format!("{} GiB", SAVED_MAX >> 30)
    } else {
        format!("{SAVED_MAX} bytes")
    }
}

/// What `read` shows of a file with a NUL byte in its start.
pub fn binary_file(size: u64) -> String {
    format!("(binary file, {size} bytes: not shown)\n")
}

/// The line after a `bash` output whose copy could not be saved.
pub fn not_saved(e: impl Display) -> String {
    format!("(the whole output could not be saved: {e})")
}

/// A `limit` of 0.
pub const LIMIT_ZERO: &str = "limit must be at least 1";

/// A `timeout` of 0.
pub const TIMEOUT_ZERO: &str = "timeout must be at least 1 second";

/// An empty path.
pub const EMPTY_PATH: &str = "the path is empty";

/// A path that leaves the root by its words.
pub fn outside(path: &str) -> String {
    format!("'{path}' is outside the root")
}

/// A path that leaves the root through a symlink.
pub fn outside_through_symlink(path: &str) -> String {
    format!("'{path}' is outside the root (through a symlink)")
}

/// A path the system refused, for `reason`.
pub fn path_error(path: &str, reason: impl Display) -> String {
    format!("'{path}': {reason}")
}

/// `read` of a folder.
pub fn read_a_directory(path: &str) -> String {
    format!("'{path}' is a directory: read takes a file (grep searches a directory)")
}

/// The tool error for `path`, which is not a regular file but `kind`.
pub fn not_regular(path: &str, kind: FileType) -> String {
    let what = match kind {
        FileType::Directory => "a directory",
        FileType::Fifo => "a FIFO (named pipe)",
        FileType::Socket => "a socket",
        FileType::CharacterDevice => "a character device",
        FileType::BlockDevice => "a block device",
        _ => "of an unknown kind",
    };
    format!("'{path}': {what}, not a regular file")
}

/// The tool error for a path in the folder of saved outputs that is not
/// there: the server removes the oldest saved outputs beyond its bound.
pub fn saved_output_removed(path: &str) -> String {
    format!(
        "'{path}': this saved output was removed (the server keeps at most {} of saved outputs, oldest \
         removed first)",
        saved_bound()
    )
}

/// A `pattern`, `glob` or `type` (`what`) of `grep` that does not parse.
pub fn invalid(what: &str, e: impl Display) -> String {
    format!("invalid {what}: {e}")
}

/// A `bash` command that could not be started.
pub fn cannot_run(e: impl Display) -> String {
    format!("cannot run the command: {e}")
}

/// A `bash` call after the client closed its input.
pub const ENDING: &str = "the server is ending: its client closed its input";

/// The error of a call whose request was cancelled.
pub const CANCELLED: &str = "the call was cancelled";

/// A tool whose thread failed.
pub fn tool_failed(e: impl Display) -> String {
    format!("the tool failed: {e}")
}

/// JSON-RPC's error message for a request line that is not JSON.
pub const NOT_JSON: &str = "Parse error: the line is not JSON";

/// JSON-RPC's error message for JSON that is not a request.
pub const NOT_A_MESSAGE: &str = "Invalid Request: not a JSON-RPC 2.0 message";

/// JSON-RPC's error message for a request line past [`MAX_LINE`] in whose
/// start no id was found.
pub fn too_long_no_id() -> String {
    format!("Parse error: the line is longer than {MAX_LINE} bytes, and no id was found in them")
}

/// JSON-RPC's error message for a request line past [`MAX_LINE`].
pub fn too_long() -> String {
    format!("Invalid Request: the line is longer than {MAX_LINE} bytes")
}
