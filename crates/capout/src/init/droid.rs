//! `capout init droid`: capout's MCP server in Factory Droid's
//! `mcp.json`, and nothing yet for its shell tool (see
//! [`crate::hook::droid`]).

use serde_json::json;

use super::{Context, Entry, Error, Plan, Scope};

/// Why capout does not bound Droid's shell calls yet, as init says it.
pub const WHY: &str = "capout does not rewrite Factory Droid's shell calls yet: its PreToolUse hook's \
                       updatedInput is not yet proven inside Droid 0.225.2 to keep its command allow and deny \
                       lists and its autonomy levels as they are";

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
