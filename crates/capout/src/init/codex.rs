//! `capout init codex`: Codex CLI's `PreToolUse` hook in `hooks.json`, and
//! with `--mcp` the MCP server in `config.toml`.
//!
//! Codex shows the model about 10,000 characters of a command's output
//! (the head and the tail); profile `bash` keeps 5000 and the notice, and
//! the MCP server's `read` pages keep 8000 characters at most: capout's
//! caps fit inside Codex's budget as they are.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::{Edit, Options, Scope};

/// The folder of Codex's configuration: `$CODEX_HOME`, else `~/.codex`;
/// the project's `.codex` with `--project`.
pub fn folder(opts: &Options, home: &Path) -> PathBuf {
    match opts.scope {
        Scope::User => std::env::var_os("CODEX_HOME")
            .filter(|d| !d.is_empty())
            .map_or_else(|| home.join(".codex"), PathBuf::from),
        Scope::Project => PathBuf::from(".codex"),
    }
}

/// The hook (`hooks.json`'s `hooks.PreToolUse`, appended to the user's own
/// hooks) and, with `--mcp`, `[mcp_servers.capout]` in `config.toml`.
pub fn edits(opts: &Options, capout: &str, home: &Path) -> Vec<Edit> {
    let dir = folder(opts, home);
    let key = |k: &[&str]| k.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    let hook = json!({
        "matcher": "Bash",
        "hooks": [{"type": "command", "command": format!("{} hook codex", crate::hook::quote(capout))}],
    });
    let mut edits = vec![Edit {
        path: dir.join("hooks.json"),
        entries: vec![(key(&["hooks", "PreToolUse", "[]"]), hook)],
        link: None,
    }];
    if opts.mcp {
        edits.push(Edit {
            path: dir.join("config.toml"),
            entries: vec![(key(&["mcp_servers", "capout"]), json!({"command": capout, "args": ["--mcp"]}))],
            link: None,
        });
    }
    edits
}
