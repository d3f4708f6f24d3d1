//! `capout init qwen-code`: capout's MCP server in qwen-code's
//! `settings.json`, and nothing for its shell tool, which qwen-code 0.24.4
//! gives a hook or a setting no way to rewrite (see
//! [`crate::hook::qwen_code`]).
//!
//! qwen-code shows the model a notice, the file it saved the output in,
//! and the head and tail of a command's long output (4491 characters of
//! `seq 100000`); capout's MCP `bash` tool keeps the last 5000 characters,
//! and qwen-code's `read_file` pages the saved output. qwen-code loads an
//! MCP tool when the model asks its `tool_search` for it, and calls it by
//! its `tool_call`.

use serde_json::json;

use super::{Context, Entry, Error, Plan, Scope};

/// Why capout cannot bound qwen-code's shell calls, as init says it.
pub const WHY: &str = "qwen-code 0.24.4 gives a hook no way to rewrite a shell call: its PreToolUse hook may allow, \
                       deny or ask, and the updatedInput it prints is ignored; only a PermissionRequest hook's \
                       updatedInput is taken, and only together with an answer that grants a call qwen-code would \
                       have asked about; and it takes BASH_ENV out of its settings and its environment";

/// `mcpServers.capout` in `$QWEN_HOME/settings.json` (else
/// `~/.qwen/settings.json`), or the project's `.qwen/settings.json`.
pub fn plan(cx: &Context) -> Result<Plan, Error> {
    let file = match cx.opts.scope {
        Scope::User => {
            Context::env_dir("QWEN_HOME")?.unwrap_or_else(|| cx.home.join(".qwen")).join("settings.json")
        }
        Scope::Project => cx.in_project(".qwen/settings.json"),
    };
    let server = json!({"command": cx.capout_word()?, "args": ["--mcp"]});
    super::mcp_only(cx, "qwen-code", WHY, file, Entry::key(&["mcpServers", "capout"], server))
}
