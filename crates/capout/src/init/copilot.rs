//! `capout init copilot`: capout's MCP server in GitHub Copilot CLI's
//! `mcp-config.json`, and nothing for its shell tool (see
//! [`crate::hook::copilot`]).
//!
//! Copilot shows the model at most a notice, the file it saved the
//! output in and the first lines of a command's output that is too large
//! (about 900 characters of `seq 100000`); capout's MCP `bash` tool keeps
//! the last 5000 characters, and Copilot's `view` tool pages the saved
//! output.

use serde_json::json;

use super::{Context, Entry, Error, Plan, Scope};

/// Why capout does not bound Copilot CLI's shell calls, as init says it.
pub const WHY: &str = "GitHub Copilot CLI 1.0.102 checks its permission rules on the command that a preToolUse \
                       hook's modifiedArgs gives in the place of the model's: a rewrite that runs the command under \
                       capout would hide its words from them (a rule that denies rm would no longer deny it, one \
                       that allows git would no longer allow it), and the hook cannot see the rules given on \
                       Copilot's command line";

/// `mcpServers.capout` in `$COPILOT_HOME/mcp-config.json` (else
/// `~/.copilot/mcp-config.json`), or the project's `.mcp.json`.
pub fn plan(cx: &Context) -> Result<Plan, Error> {
    let file = match cx.opts.scope {
        Scope::User => Context::env_dir("COPILOT_HOME")?
            .unwrap_or_else(|| cx.home.join(".copilot"))
            .join("mcp-config.json"),
        Scope::Project => cx.in_project(".mcp.json"),
    };
    let server = json!({"type": "local", "command": cx.capout_word()?, "args": ["--mcp"], "tools": ["*"]});
    super::mcp_only(cx, "GitHub Copilot CLI", WHY, file, Entry::key(&["mcpServers", "capout"], server))
}
