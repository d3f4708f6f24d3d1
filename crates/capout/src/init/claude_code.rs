//! `capout init claude-code`: Claude Code's shell prefix and MCP server.
//!
//! Claude Code's Bash tool shows the model up to 30,000 characters, more
//! than profile `bash`'s 5000: capout's caps fit as they are.

use std::path::PathBuf;

use serde_json::json;

use super::{Change, Context, Entry, Error, Kind, Plan, Scope, text};
use crate::hook::claude_code::PREFIX_NAME;

/// Whether a shell prefix is capout's: its program is named [`PREFIX_NAME`].
fn is_ours(prefix: &str) -> bool {
    prefix.rsplit('/').next() == Some(PREFIX_NAME)
}

/// Whether a hook's command is capout's `hook claude-code`.
fn hook_is_ours(command: &str) -> bool {
    super::runs_hook(command, "claude-code")
}

/// Claude Code: `CLAUDE_CODE_SHELL_PREFIX` in the settings' `env`, a link
/// to capout beside them by the name that tells capout what to do, and
/// with `--mcp` the server.
///
/// The prefix is a program's path (Claude Code quotes the part of it
/// before its last " -" as one word, and starts MCP servers through it),
/// so it is a path of this machine: for `--project` it goes into
/// `.claude/settings.local.json`, the project's settings that Claude Code
/// keeps out of the repository, with the link beside it; the server goes
/// into `.mcp.json`, which a team shares, as `capout` on PATH.
pub fn plan(cx: &Context) -> Result<Plan, Error> {
    let config_dir = Context::env_dir("CLAUDE_CONFIG_DIR")?;
    let (dir, settings, mcp_file) = match cx.opts.scope {
        Scope::User => {
            let dir = config_dir.clone().unwrap_or_else(|| cx.home.join(".claude"));
            let mcp = config_dir.map_or_else(|| cx.home.join(".claude.json"), |d| d.join(".claude.json"));
            (dir.clone(), dir.join("settings.json"), mcp)
        }
        Scope::Project => {
            let dir = cx.in_project(".claude");
            (dir.clone(), dir.join("settings.local.json"), cx.in_project(".mcp.json"))
        }
    };
    let link: PathBuf = dir.join(PREFIX_NAME);
    let prefix = text(&link)?;
    if prefix.contains(" -") {
        return Err(Error::CannotRun(format!(
            "the path '{prefix}' holds \" -\", which CLAUDE_CODE_SHELL_PREFIX cannot hold"
        )));
    }
    let mut changes = vec![
        Change::Merge {
            path: settings,
            entries: vec![
                Entry {
                    keys: vec!["env".into(), "CLAUDE_CODE_SHELL_PREFIX".into()],
                    value: prefix.into(),
                    kind: Kind::Guarded(is_ours),
                },
                // The hook decides nothing: it leaves each call's timeout
                // for the prefix, which shows the output so far before it
                // (hook::claude_code).
                Entry {
                    keys: vec!["hooks".into(), "PreToolUse".into()],
                    value: json!({"matcher": "Bash", "hooks": [{"type": "command",
                        "command": format!("{} hook claude-code", crate::hook::quote(&cx.capout_word()?))}]}),
                    kind: Kind::List(hook_is_ours),
                },
            ],
        },
        Change::Link { path: link, target: cx.capout.clone() },
    ];
    if cx.opts.mcp {
        let server = json!({"type": "stdio", "command": cx.capout_word()?, "args": ["--mcp"]});
        changes.push(Change::Merge {
            path: mcp_file,
            entries: vec![Entry::key(&["mcpServers", "capout"], server)],
        });
    }
    let mut notes = Vec::new();
    if cx.opts.scope == Scope::Project {
        notes.push(
            "The shell prefix is a path of this machine, so it is in .claude/settings.local.json (with its link \
             beside it), which stays out of the repository; whoever uses the project runs this init too."
                .to_owned(),
        );
        if cx.opts.mcp {
            notes.push("The project's .mcp.json names `capout`, found on PATH: whoever uses the project needs capout on PATH.".to_owned());
        }
    }
    Ok(Plan { name: "Claude Code", changes, notes })
}
