//! `capout init gemini`: the `BeforeTool` hook in Gemini CLI's
//! `settings.json`, capout's link beside it (see [`crate::hook::gemini`]),
//! the one policy rule that lets Gemini CLI's engine see through the
//! wrapper to the command inside, and with `--mcp` the MCP server.
//!
//! Gemini CLI shows the model the first 8,000 and the last 32,000
//! characters of a command's output: profile `bash`'s 5000 and its notice
//! fit inside that as they are.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::{APPEND, Edit, Options, Scope, apply, read, write_atomic};
use crate::hook::gemini::link_in;

/// The name of the policy file that capout owns in `policies/`.
pub const POLICY_FILE: &str = "capout.toml";

/// Carries out `opts` for Gemini CLI, telling `out` what it did.
pub fn run(opts: &Options, capout: &str, home: &Path, out: &mut dyn Write) -> Result<(), String> {
    let dir = match opts.scope {
        Scope::User => std::env::var_os("GEMINI_CLI_HOME")
            .filter(|h| !h.is_empty())
            .map_or_else(|| home.join(".gemini"), |h| PathBuf::from(h).join(".gemini")),
        Scope::Project => PathBuf::from(".gemini"),
    };
    let dir = std::path::absolute(&dir).map_err(|e| format!("cannot find {}: {e}", dir.display()))?;
    let link = link_in(&dir);
    let link_text = link.to_str().ok_or("the settings' folder is not valid UTF-8")?.to_owned();
    if link_text.contains(char::is_whitespace) || link_text.contains(['"', '\'', '\\']) {
        return Err(format!(
            "the path '{link_text}' holds a space or a quote, which Gemini CLI's policy engine cannot see through; \
             set GEMINI_CLI_HOME to a folder whose path has none"
        ));
    }
    for edit in edits(opts, capout, &dir, &link_text) {
        apply(&edit, opts, out)?;
    }
    if opts.uninstall && !opts.dry_run {
        // The link's folder is capout's alone.
        let _ = std::fs::remove_dir(dir.join(crate::hook::gemini::LINK_DIR));
    }
    policy(&dir.join("policies").join(POLICY_FILE), &policy_text(&link_text), opts, out)
}

/// The edits of `settings.json` in `dir`: the hook, and with `--mcp` the
/// server.
pub fn edits(opts: &Options, capout: &str, dir: &Path, link: &str) -> Vec<Edit> {
    let key = |k: &[&str]| k.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    let hook = serde_json::json!({
        "matcher": "run_shell_command",
        "hooks": [{"name": "capout", "type": "command", "command": format!("{link} hook gemini"), "timeout": 10000}]
    });
    let mut entries = vec![(key(&["hooks", "BeforeTool", APPEND]), hook)];
    if opts.mcp {
        entries.push((
            key(&["mcpServers", "capout"]),
            serde_json::json!({"command": capout, "args": ["--mcp"]}),
        ));
    }
    vec![Edit {
        path: dir.join("settings.json"),
        entries,
        link: Some((dir.join(crate::hook::gemini::LINK_DIR).join("bash"), PathBuf::from(capout))),
    }]
}

/// The policy rule: the two wrapper prefixes are allowed, and the engine
/// then decides on the command inside by the user's own rules.
pub fn policy_text(link: &str) -> String {
    format!(
        "# Written by `capout init gemini`; `capout init gemini --uninstall` removes it.\n\
         # Gemini CLI checks the command that capout's hook wrapped; this rule lets\n\
         # the wrapper through, and the engine then checks the command inside it\n\
         # (`{link} -c 'COMMAND'`) by every other rule.\n\
         [[rule]]\n\
         toolName = \"run_shell_command\"\n\
         commandPrefix = [\"bash -c {link} -c\", \"{link} -c\"]\n\
         decision = \"allow\"\n\
         priority = 999\n"
    )
}

/// Writes or removes capout's own policy file `path`, whole.
fn policy(path: &Path, text: &str, opts: &Options, out: &mut dyn Write) -> Result<(), String> {
    let current = read(path)?;
    let after = (!opts.uninstall).then_some(text);
    if current.as_deref() == after {
        let _ = writeln!(out, "{}: unchanged", path.display());
        return Ok(());
    }
    if current.as_deref().is_some_and(|c| !c.starts_with("# Written by `capout init gemini`")) {
        return Err(format!("{} is there and is not capout's; capout leaves it", path.display()));
    }
    if opts.dry_run {
        let name = path.display().to_string();
        let diff =
            similar::TextDiff::from_lines(current.as_deref().unwrap_or_default(), after.unwrap_or_default());
        let _ = write!(out, "{}", diff.unified_diff().header(&name, &name));
        return Ok(());
    }
    if let Some(text) = after {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
        }
        write_atomic(path, text)?;
        let _ = writeln!(out, "{}: capout set up", path.display());
    } else {
        std::fs::remove_file(path).map_err(|e| format!("cannot remove {}: {e}", path.display()))?;
        if let Some(dir) = path.parent() {
            // The folder goes too when capout made it and nothing else is in it.
            let _ = std::fs::remove_dir(dir);
        }
        let _ = writeln!(out, "{}: capout taken out", path.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn options(uninstall: bool) -> Options {
        Options { harness: "gemini".into(), scope: Scope::User, mcp: true, uninstall, dry_run: false }
    }

    #[test]
    fn the_hook_goes_beside_the_users_hooks_and_comes_out_alone() {
        let dir = tempfile::tempdir().unwrap();
        let settings = dir.path().join("settings.json");
        let before = "{\"security\": {\"auth\": {\"selectedType\": \"gemini-api-key\"}},\n \"hooks\": {\"BeforeTool\": [{\"matcher\": \"read_file\", \"hooks\": [{\"type\": \"command\", \"command\": \"audit\"}]}]}}\n";
        std::fs::write(&settings, before).unwrap();
        let mut out = Vec::new();
        let link = "/g/capout-gemini/bash";
        for edit in edits(&options(false), "/opt/my tools/capout", dir.path(), link) {
            let edit = Edit { link: None, ..edit };
            apply(&edit, &options(false), &mut out).unwrap();
            apply(&edit, &options(false), &mut out).unwrap();
        }
        let installed: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
        let hooks = installed["hooks"]["BeforeTool"].as_array().unwrap();
        assert_eq!(hooks.len(), 2);
        assert_eq!(hooks[0]["matcher"], "read_file");
        assert_eq!(hooks[1]["hooks"][0]["command"], "/g/capout-gemini/bash hook gemini");
        assert_eq!(installed["mcpServers"]["capout"]["command"], "/opt/my tools/capout");
        // Something else changed the file since: only capout's part goes.
        let changed = std::fs::read_to_string(&settings).unwrap().replace("gemini-api-key", "oauth-personal");
        std::fs::write(&settings, &changed).unwrap();
        for edit in edits(&options(true), "/opt/my tools/capout", dir.path(), link) {
            apply(&Edit { link: None, ..edit }, &options(true), &mut out).unwrap();
        }
        let left: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
        let want: Value = serde_json::from_str(&before.replace("gemini-api-key", "oauth-personal")).unwrap();
        assert_eq!(left, want);
    }

    #[test]
    fn the_policy_file_is_written_once_and_removed_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("policies").join(POLICY_FILE);
        let text = policy_text("/g/capout-gemini/bash");
        let mut out = Vec::new();
        policy(&path, &text, &options(false), &mut out).unwrap();
        policy(&path, &text, &options(false), &mut out).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        assert!(text.contains(
            "commandPrefix = [\"bash -c /g/capout-gemini/bash -c\", \"/g/capout-gemini/bash -c\"]\n"
        ));
        policy(&path, &text, &options(true), &mut out).unwrap();
        assert!(!path.exists() && !dir.path().join("policies").exists());
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "[[rule]]\n").unwrap();
        assert!(
            policy(&path, &text, &options(false), &mut out)
                .unwrap_err()
                .ends_with("is not capout's; capout leaves it")
        );
    }
}
