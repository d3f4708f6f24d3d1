//! `capout init crush`: capout's MCP server in Crush's `crush.json`, and
//! nothing for its shell tool (see [`crate::hook::crush`]).
//!
//! Crush shows the model at most 30,000 characters of a command's output
//! (its head and tail, the rest in a file); capout's MCP tools keep 5000
//! (`bash`) and 8000 (`read`): both fit.

use serde_json::json;

use super::{Context, Entry, Error, Plan, Scope};

/// Why capout does not bound Crush's shell calls, as init says it.
pub const WHY: &str = "no Crush could be run to prove a rewrite of its shell calls: the npm package of Crush \
                       0.96.1 downloads the program from GitHub when it is installed, and capout's tests of a \
                       harness run the real program from the npm registry, offline; its PreToolUse hook \
                       (updated_input) stays untried";

/// `mcp.capout` in `$XDG_CONFIG_HOME/crush/crush.json` (else
/// `~/.config/crush/crush.json`), or the project's `crush.json`.
pub fn plan(cx: &Context) -> Result<Plan, Error> {
    let file = match cx.opts.scope {
        Scope::User => Context::env_dir("XDG_CONFIG_HOME")?
            .unwrap_or_else(|| cx.home.join(".config"))
            .join("crush")
            .join("crush.json"),
        Scope::Project => cx.in_project("crush.json"),
    };
    let server = json!({"type": "stdio", "command": cx.capout_word()?, "args": ["--mcp"]});
    super::mcp_only(cx, "Crush", WHY, file, Entry::key(&["mcp", "capout"], server))
}
