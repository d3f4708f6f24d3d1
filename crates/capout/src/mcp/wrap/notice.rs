//! Every text the proxy shows that the engine's notices are not: the line
//! that stands for an image, audio or resource too large to pass, the
//! description of `capout_page`, its errors, and the JSON-RPC errors of a
//! server that cannot be asked.

use std::fmt::Display;
use std::path::Path;

use super::media::MEDIA_CAP;

/// The name of the tool the proxy adds.
pub const PAGE_TOOL: &str = "capout_page";

/// What stands for a block of content of `size` bytes that is not shown:
/// `what` is `image`, `audio` or `resource URI`.
pub fn media_line(what: &str, size: u64, mime: Option<&str>, saved: Result<&Path, &str>) -> String {
    let mime = mime.map(|m| format!(", {m}")).unwrap_or_default();
    match saved {
        Ok(path) => format!("({what}, {size} bytes{mime}: not shown; full output: {})", path.display()),
        Err(e) => format!("({what}, {size} bytes{mime}: not shown; it could not be saved: {e})"),
    }
}

/// The description of `capout_page`, with the caps of the profile `read`
/// that pages: `limit` lines, at most `budget` characters a page; the
/// saved results take at most `saved_max` bytes.
pub fn page_description(limit: u64, budget: Option<u64>, saved_max: u64) -> String {
    let budget =
        budget.map(|b| format!(" (at most {b} characters a page, whole lines only)")).unwrap_or_default();
    format!(
        "Page a tool result that capout cut. A result too long for the context is cut to its start and ends with a \
         notice `... (truncated, ...; full output: PATH)`; an image, audio or embedded resource over {} KiB is \
         replaced by a line `(image, N bytes, TYPE: not shown; full output: PATH)`. Pass that PATH to read the \
         whole result: its lines, each numbered (6-wide number, a tab, the line), {limit} lines from `offset` \
         by default{budget}. When more follow, the last line is `... (truncated, showing lines A-B of T, next \
         offset B)`: call again with offset B. Only the results saved in this session can be read; they take at \
         most {} in all, the oldest removed first.",
        MEDIA_CAP >> 10,
        bytes(saved_max),
    )
}

/// A size as a description says it: `1 GiB`, or in bytes.
fn bytes(size: u64) -> String {
    if size > 0 && size.is_multiple_of(1 << 30) {
        format!("{} GiB", size >> 30)
    } else {
        format!("{size} bytes")
    }
}

/// `capout_page` of a path that is not a saved result of this session.
pub fn not_saved_here(path: &str, dir: &Path) -> String {
    format!(
        "'{path}' is not a result saved in this session: {PAGE_TOOL} reads only the files its notices name, in {}",
        dir.display()
    )
}

/// `capout_page` with arguments it cannot take.
pub fn bad_arguments(e: impl Display) -> String {
    format!("{PAGE_TOOL}: {e}")
}

/// What starts every message of the proxy's own to the client (its
/// stderr lines start `capout: --mcp-wrap: `).
pub const PREFIX: &str = "capout --mcp-wrap: ";

/// A server that could not be started.
pub fn cannot_start(command: &str, reason: &str) -> String {
    format!("cannot run the server {command}: {reason}")
}

/// A server that ended, as `status` says (`exited with status 1`,
/// `was killed by SIGKILL`), before it answered `initialize` or after.
pub fn server_ended(command: &str, status: &str, initialized: bool) -> String {
    if initialized {
        format!("the server {command} {status}")
    } else {
        format!("the server {command} {status} before it answered initialize")
    }
}

/// A tool of the server's with the name of the proxy's own.
pub fn clash(command: &str) -> String {
    format!(
        "the server {command} has a tool named {PAGE_TOOL}, the name of capout's own tool that pages cut \
         results: the two cannot be told apart (leave the server unwrapped, or rename its tool)"
    )
}

/// A reply of the server that was not JSON, and could not be given on
/// whole once part of it was cut.
pub fn reply_not_json(command: &str) -> String {
    format!("{PREFIX}the server {command} sent a reply that is not JSON")
}

/// A reply of the server that could not be kept to give it on.
pub fn reply_lost(command: &str, e: impl Display) -> String {
    format!("{PREFIX}a reply of the server {command} could not be kept: {e}")
}

/// The message of a JSON-RPC error for `message`, with the last lines of
/// the server's stderr after it.
pub fn with_stderr(message: &str, stderr: Option<&str>) -> String {
    match stderr {
        Some(lines) => format!("{PREFIX}{message}; the last lines of its stderr:\n{lines}"),
        None => format!("{PREFIX}{message}"),
    }
}
