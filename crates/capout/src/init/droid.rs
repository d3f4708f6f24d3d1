//! `capout init droid`: capout's MCP server in Factory Droid's
//! `mcp.json`, and nothing for its shell tool (see [`crate::hook::droid`]).
//!
//! Droid shows the model the first and last lines of a command's output
//! that is too long, with the file it saved the whole in; capout's MCP
//! `bash` tool keeps the last 5000 characters, and Droid's `Read` tool
//! pages the saved output. Droid loads an MCP tool when the model asks
//! its `ToolSearch` for it.

use serde_json::json;

use super::{Context, Entry, Error, Plan, Scope};

/// Why capout does not bound Droid's shell calls, as init says it.
pub const WHY: &str = "Factory Droid 0.225.2 checks its command allow and deny lists and its autonomy level on the \
                       command that a PreToolUse hook's updatedInput gives in the place of the model's: a rewrite \
                       that runs the command under capout would hide its words from them (a deny list with rm would \
                       no longer deny it, an allow list with git status would no longer allow it)";

/// `mcpServers.capout` in `~/.factory/mcp.json`, or the project's
/// `.factory/mcp.json`.
pub fn plan(cx: &Context) -> Result<Plan, Error> {
    let file = match cx.opts.scope {
        Scope::User => cx.home.join(".factory").join("mcp.json"),
        Scope::Project => cx.in_project(".factory/mcp.json"),
    };
    let server = json!({"type": "stdio", "command": cx.capout_word()?, "args": ["--mcp"]});
    super::mcp_only(cx, "Factory Droid", WHY, file, Entry::key(&["mcpServers", "capout"], server))
}
