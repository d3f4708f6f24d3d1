//! `capout init opencode`: the plugin `capout.js` in opencode's plugin
//! folder (`~/.config/opencode/plugin/`, or `.opencode/plugin/` with
//! `--project`), with `--mcp` the server in `opencode.json`, with
//! `--tools` the plugin's `tool.execute.after` that bounds every other
//! tool's output ([`crate::hook::after::opencode`]), and with
//! `--wrap-mcp` each local MCP server run under `capout --mcp-wrap --`.
//!
//! opencode keeps at most 2000 lines or 51,200 bytes of a tool's output
//! (its `tool_output` settings): profile `bash`'s 5000 characters and
//! profile `read`'s 8000 fit, so capout's caps are left as they are.

use serde_json::{Value, json};

use super::{Change, Context, Entry, Error, Launch, Plan, Scope};

/// The first line of the plugin capout writes: how capout knows its own.
pub const MARK: &str = "// capout: written by `capout init opencode`";

/// The plugin and, with `--mcp`, the server in `opencode.json` (in the
/// project's root with `--project`).
pub fn plan(cx: &Context) -> Result<Plan, Error> {
    let (dir, json) = match cx.opts.scope {
        Scope::Project => (cx.in_project(".opencode"), cx.in_project("opencode.json")),
        Scope::User => {
            let config = Context::env_dir("XDG_CONFIG_HOME")?.unwrap_or_else(|| cx.home.join(".config"));
            let dir = config.join("opencode");
            (dir.clone(), dir.join("opencode.json"))
        }
    };
    let capout = cx.capout_word()?;
    let mut changes = vec![Change::Own {
        path: dir.join("plugin").join("capout.js"),
        text: plugin_text(&capout, cx.opts.tools),
        mark: MARK,
    }];
    let mut servers = Vec::new();
    if cx.opts.mcp {
        let server = json!({"type": "local", "command": [capout, "--mcp"], "enabled": true});
        servers.push(Entry::key(&["mcp", "capout"], server));
    }
    if cx.opts.wrap_mcp {
        servers.push(Entry::wrap(vec!["mcp".into()], capout, Launch::CommandList));
    }
    if !servers.is_empty() {
        changes.push(Change::Merge { path: json, entries: servers });
    }
    let mut notes = Vec::new();
    if cx.opts.scope == Scope::Project {
        notes.push("The project's files name `capout`, found on PATH: whoever uses the project needs capout on PATH.".to_owned());
    }
    Ok(Plan { name: "opencode", changes, notes })
}

/// The plugin for the capout at `capout`: it asks `capout hook opencode`
/// about every shell call, and gives the shell of a call capout takes the
/// environment capout names; with `tools`, it hands capout every other
/// call's output too, and puts capout's answer in its place.
pub fn plugin_text(capout: &str, tools: bool) -> String {
    let path = Value::from(capout).to_string();
    let after = if tools { AFTER_TOOLS } else { AFTER };
    format!(
        r#"{MARK}; `capout init opencode --uninstall` removes it.
// Every call of the shell tool is handed to `capout hook opencode`; for a
// call that capout takes, the shell is given the environment capout names
// (a BASH_ENV file that runs the command, as opencode checked it, under
// capout). The command itself is never changed.
import {{ spawnSync }} from "node:child_process"

const CAPOUT = {path}

export const CapoutPlugin = async () => {{
  const pending = new Map()
  return {{
    "tool.execute.before": async (input, output) => {{
      if (input.tool !== "bash") return
      const event = JSON.stringify({{ tool: input.tool, sessionID: input.sessionID, callID: input.callID, args: output.args }})
      const hook = spawnSync(CAPOUT, ["hook", "opencode"], {{ input: event, encoding: "utf8", timeout: 10000 }})
      if (hook.status !== 0 || !hook.stdout) return
      try {{
        const env = JSON.parse(hook.stdout).env
        if (env) pending.set(input.callID, env)
      }} catch {{}}
    }},
    "shell.env": async (input, output) => {{
      const env = input.callID && pending.get(input.callID)
      if (!env) return
      pending.delete(input.callID)
      Object.assign(output.env, env)
    }},
{after}  }}
}}
"#
    )
}

/// The plugin's `tool.execute.after` without `--tools`.
const AFTER: &str = r#"    "tool.execute.after": async (input) => {
      pending.delete(input.callID)
    },
"#;

/// The plugin's `tool.execute.after` with `--tools`: every call but the
/// shell's (which the environment bounds) goes to `capout hook opencode`,
/// an MCP tool's result as the server gave it (`content`, before opencode
/// reads it), and capout's answer replaces what it names.
const AFTER_TOOLS: &str = r#"    "tool.execute.after": async (input, output) => {
      pending.delete(input.callID)
      if (input.tool === "bash" || !output) return
      const mcp = Array.isArray(output.content)
      const event = JSON.stringify({ event: "tool.execute.after", tool: input.tool, mcp, output })
      const hook = spawnSync(CAPOUT, ["hook", "opencode"], { input: event, encoding: "utf8", timeout: 10000, maxBuffer: 1 << 26 })
      if (hook.status !== 0 || !hook.stdout) return
      try {
        Object.assign(output, JSON.parse(hook.stdout))
      } catch {}
    },
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plugin_names_capout_as_a_javascript_string() {
        let text = plugin_text("/opt/my \"tools\"/capout", false);
        assert!(text.starts_with(MARK));
        assert!(text.contains("const CAPOUT = \"/opt/my \\\"tools\\\"/capout\"\n"));
    }
}
