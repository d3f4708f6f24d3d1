//! `capout init claude-code`: Claude Code's shell prefix, and with
//! `--mcp` the MCP server, with `--tools` the `PostToolUse` hook that
//! bounds every other tool's output (see [`crate::hook::after`]), with
//! `--wrap-mcp` each stdio MCP server run under `capout --mcp-wrap --`.
//!
//! Claude Code's Bash tool shows the model up to 30,000 characters, more
//! than profile `bash`'s 5000: capout's caps fit as they are.

use std::path::PathBuf;

use serde_json::json;

use super::{Change, Context, Entry, Error, Kind, Launch, Plan, Scope, text};
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
    let hook_command = format!("{} hook claude-code", crate::hook::quote(&cx.capout_word()?));
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
                    value: json!({"matcher": "Bash", "hooks": [{"type": "command", "command": hook_command}]}),
                    kind: Kind::List(hook_is_ours),
                },
            ],
        },
        Change::Link { path: link, target: cx.capout.clone() },
    ];
    if cx.opts.tools
        && let Change::Merge { entries, .. } = &mut changes[0]
    {
        // Every tool: the hook leaves those it does not bound at once,
        // and the config file's [tools] table may name any of them.
        entries.push(Entry {
            keys: vec!["hooks".into(), "PostToolUse".into()],
            value: json!({"matcher": "*", "hooks": [{"type": "command", "command": hook_command}]}),
            kind: Kind::List(hook_is_ours),
        });
    }
    let mut servers = Vec::new();
    if cx.opts.mcp {
        let server = json!({"type": "stdio", "command": cx.capout_word()?, "args": ["--mcp"]});
        servers.push(Entry::key(&["mcpServers", "capout"], server));
    }
    if cx.opts.wrap_mcp {
        let capout = cx.capout_word()?;
        let wrap = |keys: Vec<String>| Entry::wrap(keys, capout.clone(), Launch::CommandArgs);
        servers.push(wrap(vec!["mcpServers".into()]));
        if cx.opts.scope == Scope::User {
            // The servers Claude Code keeps for this project alone, in the
            // same file.
            servers.push(wrap(vec!["projects".into(), text(&cx.project)?, "mcpServers".into()]));
        }
    }
    if !servers.is_empty() {
        changes.push(Change::Merge { path: mcp_file, entries: servers });
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
