//! `capout init opencode`: the plugin `capout.js` in opencode's plugin
//! folder (`~/.config/opencode/plugin/`, or `.opencode/plugin/` with
//! `--project`), and with `--mcp` the server in `opencode.json`.
//!
//! opencode keeps at most 2000 lines or 51,200 bytes of a tool's output
//! (its `tool_output` settings): profile `bash`'s 5000 characters and
//! profile `read`'s 8000 fit, so capout's caps are left as they are.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Edit, Options, Scope};

/// The first line of the plugin capout writes: how capout knows its own.
pub const MARK: &str = "// capout: written by `capout init opencode`";

/// opencode's configuration folder for `opts.scope`.
fn config_dir(opts: &Options, home: &Path) -> PathBuf {
    match opts.scope {
        Scope::Project => PathBuf::from(".opencode"),
        Scope::User => std::env::var_os("XDG_CONFIG_HOME")
            .filter(|d| !d.is_empty())
            .map_or_else(|| home.join(".config"), PathBuf::from)
            .join("opencode"),
    }
}

/// Writes (or, with `--uninstall`, removes) the plugin, and returns the
/// edits of `opencode.json` that `--mcp` asks for.
pub fn opencode(opts: &Options, capout: &str, home: &Path, out: &mut dyn Write) -> Result<Vec<Edit>, String> {
    let dir = config_dir(opts, home);
    plugin(&dir.join("plugin").join("capout.js"), &plugin_text(capout), opts, out)?;
    if !opts.mcp {
        return Ok(Vec::new());
    }
    let json = match opts.scope {
        Scope::Project => PathBuf::from("opencode.json"),
        Scope::User => dir.join("opencode.json"),
    };
    if std::fs::read_to_string(&json).is_ok_and(|t| t.lines().any(|l| l.trim_start().starts_with("//"))) {
        return Err(format!(
            "{} has comments, which capout cannot keep; add the server by hand",
            json.display()
        ));
    }
    let server = serde_json::json!({"type": "local", "command": [capout, "--mcp"], "enabled": true});
    Ok(vec![Edit { path: json, entries: vec![(vec!["mcp".into(), "capout".into()], server)], link: None }])
}

/// The plugin for the capout at `capout`: it asks `capout hook opencode`
/// about every shell call, and gives the shell of a call capout takes the
/// environment capout names.
pub fn plugin_text(capout: &str) -> String {
    let path = Value::from(capout).to_string();
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
    "tool.execute.after": async (input) => {{
      pending.delete(input.callID)
    }},
  }}
}}
"#
    )
}

/// Writes or removes the plugin file at `path`: a file of capout's own
/// (its first line is [`MARK`]) is replaced or removed, anything else
/// there is left.
fn plugin(path: &Path, text: &str, opts: &Options, out: &mut dyn Write) -> Result<(), String> {
    let current = match std::fs::read_to_string(path) {
        Ok(t) => Some(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    if current.as_deref().is_some_and(|t| !t.starts_with(MARK)) {
        return Err(format!("{} is there and is not capout's; capout leaves it", path.display()));
    }
    let after = (!opts.uninstall).then_some(text);
    if after == current.as_deref() {
        let what = if current.is_some() { "unchanged" } else { "not there, nothing to undo" };
        let _ = writeln!(out, "{}: {what}", path.display());
        return Ok(());
    }
    if opts.dry_run {
        let name = path.display().to_string();
        let diff =
            similar::TextDiff::from_lines(current.as_deref().unwrap_or_default(), after.unwrap_or_default());
        let _ = write!(out, "{}", diff.unified_diff().header(&name, &name));
        return Ok(());
    }
    match after {
        None => {
            std::fs::remove_file(path).map_err(|e| format!("cannot remove {}: {e}", path.display()))?;
            let _ = writeln!(out, "{}: capout taken out", path.display());
        }
        Some(text) => {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
            }
            super::write_atomic(path, text)?;
            let _ = writeln!(out, "{}: capout set up", path.display());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(uninstall: bool, dry_run: bool) -> Options {
        Options { harness: "opencode".into(), scope: Scope::User, mcp: false, uninstall, dry_run }
    }

    #[test]
    fn the_plugin_names_capout_as_a_javascript_string() {
        let text = plugin_text("/opt/my \"tools\"/capout");
        assert!(text.starts_with(MARK));
        assert!(text.contains("const CAPOUT = \"/opt/my \\\"tools\\\"/capout\"\n"));
    }

    #[test]
    fn the_plugin_is_written_once_removed_and_another_file_is_left() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("plugin").join("capout.js");
        let mut out = Vec::new();
        plugin(&path, "// capout: written by `capout init opencode`; x\n", &opts(false, true), &mut out)
            .unwrap();
        assert!(!path.exists());
        plugin(&path, "// capout: written by `capout init opencode`; x\n", &opts(false, false), &mut out)
            .unwrap();
        plugin(&path, "// capout: written by `capout init opencode`; x\n", &opts(false, false), &mut out)
            .unwrap();
        plugin(&path, "", &opts(true, false), &mut out).unwrap();
        assert!(!path.exists());
        let name = path.display();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!(
                "--- {name}\n+++ {name}\n@@ -0,0 +1 @@\n+// capout: written by `capout init opencode`; x\n\
                 {name}: capout set up\n{name}: unchanged\n{name}: capout taken out\n"
            )
        );
        std::fs::write(&path, "export const Mine = 1\n").unwrap();
        assert_eq!(
            plugin(&path, "x", &opts(true, false), &mut Vec::new()).unwrap_err(),
            format!("{name} is there and is not capout's; capout leaves it")
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "export const Mine = 1\n");
    }
}
