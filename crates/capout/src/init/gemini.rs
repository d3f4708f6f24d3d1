//! `capout init gemini`: the `BeforeTool` hook in Gemini CLI's
//! `settings.json`, capout's link in the user's Gemini folder (see
//! [`crate::hook::gemini`]), the one policy rule that lets Gemini CLI's
//! engine see through the wrapper to the command inside, and with `--mcp`
//! the MCP server. With `--tools`, the `AfterTool` hook that bounds every
//! other tool's output ([`crate::hook::after::gemini`]); with
//! `--wrap-mcp`, each stdio MCP server run under `capout --mcp-wrap --`.
//!
//! Gemini CLI shows the model the first 8,000 and the last 32,000
//! characters of a command's output: profile `bash`'s 5000 and its notice
//! fit inside that as they are.
//!
//! The link and the policy name a path of this machine, so they are the
//! user's even with `--project`: the project's `settings.json` then holds
//! the hook as `capout hook gemini` (capout on PATH), which finds the
//! link where [`link_in`] says.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::{Change, Context, Entry, Error, Kind, Launch, Plan, Scope, text};
use crate::hook::gemini::link_in;

/// The name of the policy file that capout owns in `policies/`.
pub const POLICY_FILE: &str = "capout.toml";

/// The first line of the policy file: how capout knows its own.
const POLICY_MARK: &str = "# Written by `capout init gemini`";

fn is_ours(command: &str) -> bool {
    super::runs_hook(command, "gemini")
}

/// The user's Gemini CLI folder: `$GEMINI_CLI_HOME/.gemini`, else
/// `~/.gemini`.
fn user_dir(cx: &Context) -> Result<PathBuf, Error> {
    Ok(Context::env_dir("GEMINI_CLI_HOME")?.unwrap_or_else(|| cx.home.clone()).join(".gemini"))
}

/// The hook, the link, the policy and, with `--mcp`, the server.
pub fn plan(cx: &Context) -> Result<Plan, Error> {
    let dir = user_dir(cx)?;
    let link = link_in(&dir);
    let link_text = text(&link)?;
    // The hook's rewrite and the policy rule hold the link's path as a
    // word of a shell command: one that would need quotes (or would run
    // something of its own) is refused.
    if let Some(c) = link_text.chars().find(|&c| crate::hook::quote(&c.to_string()) != c.to_string()) {
        let what = if c.is_whitespace() { "a space".to_owned() } else { format!("'{c}'") };
        return Err(Error::Unquotable {
            path: link_text,
            what,
            var: if std::env::var_os("GEMINI_CLI_HOME").is_some_and(|h| !h.is_empty()) {
                "GEMINI_CLI_HOME"
            } else {
                "HOME"
            },
        });
    }
    let (settings, command) = match cx.opts.scope {
        Scope::User => (dir.join("settings.json"), format!("{link_text} hook gemini")),
        Scope::Project => (cx.in_project(".gemini/settings.json"), "capout hook gemini".to_owned()),
    };
    let hook = json!({
        "matcher": "run_shell_command",
        "hooks": [{"name": "capout", "type": "command", "command": command, "timeout": 10000}]
    });
    let mut entries = vec![Entry {
        keys: vec!["hooks".into(), "BeforeTool".into()],
        value: hook,
        kind: Kind::List(is_ours),
    }];
    if cx.opts.tools {
        // Every tool: the hook leaves those it does not bound at once,
        // and the config file's [tools] table may name any of them.
        entries.push(Entry {
            keys: vec!["hooks".into(), "AfterTool".into()],
            value: json!({"matcher": "*",
                "hooks": [{"name": "capout", "type": "command", "command": command, "timeout": 10000}]}),
            kind: Kind::List(is_ours),
        });
    }
    if cx.opts.mcp {
        entries.push(Entry::key(
            &["mcpServers", "capout"],
            json!({"command": cx.capout_word()?, "args": ["--mcp"]}),
        ));
    }
    if cx.opts.wrap_mcp {
        entries.push(Entry::wrap(vec!["mcpServers".into()], cx.capout_word()?, Launch::CommandArgs));
    }
    let mut changes = vec![Change::Merge { path: settings, entries }];
    let mut notes = Vec::new();
    // A project's uninstall leaves the link and the policy when the
    // user's own settings still run capout's hook.
    let shared = cx.opts.scope == Scope::Project && cx.opts.uninstall && user_hook(&dir);
    if !shared {
        changes.push(Change::Link { path: link.clone(), target: cx.capout.clone() });
        changes.push(Change::Own {
            path: dir.join("policies").join(POLICY_FILE),
            text: policy_text(&link_text),
            mark: POLICY_MARK,
        });
    }
    if cx.opts.scope == Scope::Project {
        notes.push(format!(
            "The project's settings name `capout`, found on PATH; the link and the policy name paths of this \
             machine, so they are in {}: whoever uses the project needs capout on PATH and runs this init too \
             (until then capout's hook leaves their shell calls alone).",
            dir.display()
        ));
    }
    Ok(Plan { name: "Gemini CLI", changes, notes })
}

/// Whether the user's own `settings.json` in `dir` runs capout's hook.
fn user_hook(dir: &Path) -> bool {
    let hook = Entry {
        keys: vec!["hooks".into(), "BeforeTool".into()],
        value: json!(null),
        kind: Kind::List(is_ours),
    };
    crate::safe_read::read_to_string(&dir.join("settings.json"), crate::safe_read::MAX_SIZE)
        .is_ok_and(|t| super::merge::remove(&t, &[hook], &|_| true).is_ok_and(|(_, taken)| !taken.is_empty()))
}

/// The policy rule: the two wrapper prefixes are allowed, and the engine
/// then decides on the command inside by the user's own rules.
pub fn policy_text(link: &str) -> String {
    format!(
        "{POLICY_MARK}; `capout init gemini --uninstall` removes it.\n\
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_names_the_two_wrapper_prefixes() {
        let text = policy_text("/g/capout-gemini/bash");
        assert!(text.starts_with(POLICY_MARK));
        assert!(text.contains(
            "commandPrefix = [\"bash -c /g/capout-gemini/bash -c\", \"/g/capout-gemini/bash -c\"]\n"
        ));
    }
}
