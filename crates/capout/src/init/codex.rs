//! `capout init codex`: Codex CLI's `PreToolUse` hook in `hooks.json`,
//! with `--mcp` the MCP server in `config.toml`, and with `--wrap-mcp`
//! each stdio MCP server there run under `capout --mcp-wrap --`. Codex
//! has no hook that may replace a tool's output, so `--tools` is refused
//! and names `--wrap-mcp`.
//!
//! Codex shows the model about 10,000 characters of a command's output
//! (the head and the tail); profile `bash` keeps 5000 and the notice, and
//! the MCP server's `read` pages keep 8000 characters at most: capout's
//! caps fit inside Codex's budget as they are.

use serde_json::json;

use super::{Change, Context, Entry, Error, Kind, Launch, Plan, Scope};

fn is_ours(command: &str) -> bool {
    super::runs_hook(command, "codex")
}

/// The hook (`hooks.json`'s `hooks.PreToolUse`, beside the user's own
/// hooks) and, with `--mcp`, `[mcp_servers.capout]` in `config.toml`: in
/// `$CODEX_HOME` (else `~/.codex`), or the project's `.codex`.
pub fn plan(cx: &Context) -> Result<Plan, Error> {
    let dir = match cx.opts.scope {
        Scope::User => Context::env_dir("CODEX_HOME")?.unwrap_or_else(|| cx.home.join(".codex")),
        Scope::Project => cx.in_project(".codex"),
    };
    if cx.opts.tools {
        return Err(Error::CannotRun(
            "Codex has no hook that may replace a tool's output, so --tools cannot bound it; --wrap-mcp runs \
             each of its stdio MCP servers under capout --mcp-wrap instead"
                .into(),
        ));
    }
    let capout = cx.capout_word()?;
    let hook = json!({
        "matcher": "Bash",
        "hooks": [{"type": "command", "command": format!("{} hook codex", crate::hook::quote(&capout))}],
    });
    let mut changes = vec![Change::Merge {
        path: dir.join("hooks.json"),
        entries: vec![Entry {
            keys: vec!["hooks".into(), "PreToolUse".into()],
            value: hook,
            kind: Kind::List(is_ours),
        }],
    }];
    let mut servers = Vec::new();
    if cx.opts.mcp {
        servers.push(Entry::key(&["mcp_servers", "capout"], json!({"command": capout, "args": ["--mcp"]})));
    }
    if cx.opts.wrap_mcp {
        servers.push(Entry::wrap(vec!["mcp_servers".into()], capout, Launch::CommandArgs));
    }
    if !servers.is_empty() {
        changes.push(Change::Merge { path: dir.join("config.toml"), entries: servers });
    }
    let mut notes = vec![
        "Codex runs a new hook only once you trust it: open /hooks in Codex and trust capout's.".to_owned(),
    ];
    if cx.opts.scope == Scope::Project {
        notes.push(
            "The project's files name `capout`, found on PATH: whoever uses the project needs capout on PATH, \
             and Codex reads a project's .codex only when the project is trusted."
                .to_owned(),
        );
    }
    Ok(Plan { name: "Codex", changes, notes })
}
