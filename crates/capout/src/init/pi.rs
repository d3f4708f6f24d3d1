//! `capout init pi`: `shellPath` in Pi's `settings.json` names capout's
//! link in Pi's agent folder, so that Pi's bash tool runs each command
//! under capout (see [`crate::hook::pi`]).
//!
//! Pi shows the model the last 2000 lines or 50 KB of a command's output;
//! profile `bash` keeps 5000 characters and the notice, which fit, and
//! Pi's `read` tool pages the saved output.

use super::{Change, Context, Entry, Error, Kind, Plan, Scope, text};
use crate::hook::pi::{LINK_DIR, LINK_NAME, link_in};

/// Whether a `shellPath` is capout's: its program is the link.
fn is_ours(path: &str) -> bool {
    path.ends_with(&format!("/{LINK_DIR}/{LINK_NAME}"))
}

/// The shell path and its link, in `$PI_CODING_AGENT_DIR` (else
/// `~/.pi/agent`).
pub fn plan(cx: &Context) -> Result<Plan, Error> {
    if cx.opts.mcp {
        return Err(Error::CannotRun(
            "Pi has no MCP client, so --mcp has nothing to set up; `capout init pi` bounds its bash tool"
                .into(),
        ));
    }
    if cx.opts.scope == Scope::Project {
        return Err(Error::CannotRun(
            "Pi's shellPath names a program of this machine, which a project's files must not: \
             `capout init pi` sets it up in the user's own settings, for every project"
                .into(),
        ));
    }
    let dir = Context::env_dir("PI_CODING_AGENT_DIR")?.unwrap_or_else(|| cx.home.join(".pi").join("agent"));
    let link = link_in(&dir);
    let entry =
        Entry { keys: vec!["shellPath".into()], value: text(&link)?.into(), kind: Kind::Guarded(is_ours) };
    let changes = vec![
        Change::Merge { path: dir.join("settings.json"), entries: vec![entry] },
        Change::Link { path: link, target: cx.capout.clone() },
    ];
    let notes = vec![
        "A project's own .pi/settings.json with a shellPath of its own still takes the place of capout's there."
            .to_owned(),
    ];
    Ok(Plan { name: "Pi", changes, notes })
}
