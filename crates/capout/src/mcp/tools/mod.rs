//! The three tools, as plain functions: each returns the text the model
//! sees, or the text of a tool error. Every text is capped by capout's
//! own engine, so its notices are the CLI's to the letter.
//!
//! - [`read`](Tools::read): a page of a file's lines.
//! - [`grep`](Tools::grep): ripgrep's search of a tree, paged.
//! - [`bash`](Tools::bash): a shell command through command mode.

mod bash;
mod grep;
mod read;
#[cfg(test)]
mod tests;

use std::path::PathBuf;
use std::sync::Arc;

use capout_core::{CapSpec, NoticeTarget, Options};

use super::paths::Roots;
use crate::profiles;
pub use grep::{GREP_HEAP_LIMIT, GREP_LINE_WINDOW, GrepMode, GrepRequest};
pub use read::BINARY_PROBE;

/// The tools, with their root and the configs of their profiles.
#[derive(Clone, Debug)]
pub struct Tools {
    /// Where paths may lead.
    pub roots: Roots,
    read: Options,
    grep: Options,
    bash: Options,
    /// Where the next `bash` command starts: where the last one ended,
    /// at first the root. The session's alone: one server serves one.
    cwd: Arc<std::sync::Mutex<PathBuf>>,
    /// What the ledger names as the front-end of these tools' calls:
    /// `mcp`, or the module that hosts them.
    pub front: &'static str,
}

/// Why a tool call gives the model an error rather than its output; its
/// text is what the model reads, the same from the server and the
/// modules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToolError {
    /// The call asks for what cannot be given: a path outside the root
    /// or not there, a folder to read, an argument out of its range, a
    /// pattern or glob that does not parse. Another call may do.
    Refused(String),
    /// The call could not be carried out: the shell did not start, a
    /// read failed part way.
    Failed(String),
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ToolError::Refused(text) | ToolError::Failed(text) => f.write_str(text),
        }
    }
}

impl std::error::Error for ToolError {}

impl From<ToolError> for String {
    fn from(e: ToolError) -> String {
        match e {
            ToolError::Refused(text) | ToolError::Failed(text) => text,
        }
    }
}

impl Tools {
    /// The tools over `roots`, capped as the profiles `read`, `grep` and
    /// `bash` say.
    pub fn new(roots: Roots) -> Result<Tools, String> {
        let plain = |name| {
            profiles::config(name).map(|mut options| {
                // The server's text is the model's: notices with it, no
                // live count, no JSON.
                options.notice = NoticeTarget::Stdout;
                options.json = false;
                options.progress = false;
                options
            })
        };
        let cwd = Arc::new(std::sync::Mutex::new(roots.root.clone()));
        // Profile bash's `--binary hide` replaces binary output, in the
        // engine, as the CLI and its hooks replace it (`binary = "show"`
        // in a config file turns it off).
        Ok(Tools {
            roots,
            read: plain("read")?,
            grep: plain("grep")?,
            bash: plain("bash")?,
            cwd,
            front: "mcp",
        })
    }

    /// The configs of the profiles `read`, `grep` and `bash`, as loaded:
    /// the tools' descriptions state their caps.
    pub fn profiles(&self) -> (&Options, &Options, &Options) {
        (&self.read, &self.grep, &self.bash)
    }

    /// Where the next `bash` command starts.
    pub fn cwd(&self) -> PathBuf {
        self.cwd.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// The ledger's entry for a call of `tool` on `what` (a path, a
    /// pattern, a command).
    fn entry(&self, tool: &str, what: &str) -> crate::ledger::Entry {
        crate::ledger::Entry::new(self.front, tool).command(what)
    }

    /// Whether `path` is an output that a call saved: in the server's
    /// folder, or the hooks' (a harness's model may page one through
    /// `read`).
    fn is_saved(&self, path: &std::path::Path) -> bool {
        let dir = path.parent();
        dir == Some(self.roots.saved.as_path())
            || std::fs::canonicalize(crate::hook::save_dir_path())
                .is_ok_and(|hooks| dir == Some(hooks.as_path()))
    }

    /// The number of lines `read` shows when no limit is given.
    pub fn read_limit(&self) -> u64 {
        match self.read.cap {
            CapSpec::HeadLines { limit, .. } => limit,
            _ => 500,
        }
    }
}
