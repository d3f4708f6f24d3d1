//! `capout init copilot`: capout's MCP server in GitHub Copilot CLI's
//! `mcp-config.json`, and nothing yet for its shell tool (see
//! [`crate::hook::copilot`]).

use serde_json::json;

use super::{Context, Entry, Error, Plan, Scope};

/// Why capout does not bound Copilot CLI's shell calls yet, as init says it.
pub const WHY: &str = "capout does not rewrite GitHub Copilot CLI's shell calls yet: its preToolUse hook's \
                       modifiedArgs is not yet proven inside Copilot CLI 1.0.102 to keep its permission rules \
                       and its shell sessions as they are";

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
