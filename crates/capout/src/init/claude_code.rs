//! `capout init claude-code`: Claude Code's shell prefix and MCP server.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Edit, Options, Scope};

/// Claude Code: `CLAUDE_CODE_SHELL_PREFIX` in `settings.json`'s `env`, and
/// with `--mcp` the server in `.claude.json` (user) or `.mcp.json`
/// (project). Its Bash tool shows the model up to 30,000 characters, more
/// than profile `bash`'s 5000: capout's caps fit as they are.
pub fn edits(opts: &Options, capout: &str, home: &Path) -> Result<Vec<Edit>, String> {
    let config_dir = std::env::var_os("CLAUDE_CONFIG_DIR").filter(|d| !d.is_empty()).map(PathBuf::from);
    let (settings, mcp_file) = match opts.scope {
        Scope::User => {
            let dir = config_dir.clone().unwrap_or_else(|| home.join(".claude"));
            let mcp = config_dir.map_or_else(|| home.join(".claude.json"), |d| d.join(".claude.json"));
            (dir.join("settings.json"), mcp)
        }
        Scope::Project => (PathBuf::from(".claude/settings.json"), PathBuf::from(".mcp.json")),
    };
    let key = |k: &[&str]| k.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    // The prefix is one program's path (Claude Code quotes the part of it
    // before its last " -" as one word, and starts MCP servers through
    // it): a link to capout, beside the settings, by the name that tells
    // capout what to do.
    let dir = settings.parent().map_or_else(PathBuf::new, Path::to_path_buf);
    let link =
        std::path::absolute(dir.join(crate::hook::claude_code::PREFIX_NAME)).map_err(|e| e.to_string())?;
    let prefix = link.to_str().ok_or("the settings' folder is not valid UTF-8")?.to_owned();
    if prefix.contains(" -") {
        return Err(format!("the path '{prefix}' holds \" -\", which CLAUDE_CODE_SHELL_PREFIX cannot hold"));
    }
    // The hook decides nothing: it leaves each call's timeout for the
    // prefix, which shows the output so far before it (hook::claude_code).
    let hook = serde_json::json!({
        "matcher": "Bash",
        "hooks": [{"type": "command", "command": format!("{} hook claude-code", crate::hook::quote(capout))}],
    });
    let mut edits = vec![Edit {
        path: settings,
        entries: vec![
            (key(&["env", "CLAUDE_CODE_SHELL_PREFIX"]), Value::from(prefix)),
            (key(&["hooks", "PreToolUse", super::APPEND]), hook),
        ],
        link: Some((link, PathBuf::from(capout))),
    }];
    if opts.mcp {
        let server = serde_json::json!({"type": "stdio", "command": capout, "args": ["--mcp"]});
        edits.push(Edit {
            path: mcp_file,
            entries: vec![(key(&["mcpServers", "capout"]), server)],
            link: None,
        });
    }
    Ok(edits)
}
