//! Claude Code. Its Bash tool hands every command, as one shell script
//! that also restores the shell's state and records the working directory
//! afterwards, to the program that `CLAUDE_CODE_SHELL_PREFIX` names, as that
//! program's one argument. That program is capout under the name
//! [`PREFIX_NAME`] (a symbolic link that `capout init claude-code` makes):
//! Claude Code also starts MCP servers and hooks through the prefix, as
//! `PREFIX PROGRAM ARG...`, and those are run as they are.
//! capout runs the script in command mode, so the working directory is
//! kept between calls exactly as without capout (the script records it),
//! and Claude Code checks its permission rules on the command the model
//! wrote, before the prefix is applied: nothing is asked or allowed that
//! would not be without capout.
//!
//! A `PreToolUse` hook could rewrite the command instead
//! (`hookSpecificOutput.updatedInput`), but Claude Code then checks its
//! rules on the rewritten command: an allow rule no longer matches, and a
//! deny rule turns into a question. So given such an event on stdin, this
//! hook leaves the call alone and says why.

use std::ffi::OsString;
use std::io::Read;
use std::process::ExitCode;

use serde::Deserialize;

use super::{Dispatch, pass};
use crate::exit::Exit;

/// The name by which capout is Claude Code's shell prefix.
pub const PREFIX_NAME: &str = "capout-claude-code";

/// capout started as `CLAUDE_CODE_SHELL_PREFIX` with `args`: the Bash tool's
/// script under capout, anything else run as it is.
pub fn prefix(args: &[OsString]) -> Dispatch {
    match args {
        [script] if is_bash_script(script) && !wrapped(script) => Dispatch::Run(command(script.clone())),
        [script] if is_bash_script(script) || !is_program(script) => Dispatch::Done(unwrapped(script)),
        [program, rest @ ..] => {
            use std::os::unix::process::CommandExt;
            let e = std::process::Command::new(program).args(rest).exec();
            let _ = pass(&format_args!("claude-code: cannot run {}: {e}", program.to_string_lossy()));
            Dispatch::Done(
                if e.kind() == std::io::ErrorKind::NotFound { Exit::NotFound } else { Exit::NotExecutable }
                    .into(),
            )
        }
        [] => Dispatch::Done(pass(&"claude-code: the shell prefix was given nothing to run")),
    }
}

/// Whether `script` is the Bash tool's: it records the working directory
/// after the command, as no MCP server's or hook's command line does.
fn is_bash_script(script: &OsString) -> bool {
    let text = script.to_string_lossy();
    text.contains(" && eval ") && text.contains(" && pwd -P >| ")
}

/// Whether `word` names a program rather than holding a shell command.
fn is_program(word: &OsString) -> bool {
    !word.to_string_lossy().contains(|c: char| c.is_whitespace() || "|&;<>()$`\\\"'*?[#~=%".contains(c))
}

/// The part of a `PreToolUse` event that matters here.
#[derive(Debug, Deserialize)]
pub struct Event {
    /// `PreToolUse` for the events this hook is meant for.
    pub hook_event_name: String,
    /// `Bash` for the shell tool.
    #[serde(default)]
    pub tool_name: String,
}

/// `capout hook claude-code [SCRIPT]`.
pub fn main(args: &[OsString]) -> Dispatch {
    match args {
        [script] if wrapped(script) => Dispatch::Done(unwrapped(script)),
        [script] => Dispatch::Run(command(script.clone())),
        [] => Dispatch::Done(event()),
        _ => Dispatch::Done(pass(&"claude-code: give one shell script, or a hook event on stdin")),
    }
}

/// The command line of capout's command mode that runs `script` in the
/// shell Claude Code wrote it for.
pub fn command(script: OsString) -> Vec<OsString> {
    let mut args: Vec<OsString> =
        vec!["capout".into(), "--profile".into(), super::profile("claude-code").into()];
    match super::save_dir() {
        Ok(dir) => {
            args.push("--save-dir".into());
            args.push(dir.into());
        }
        Err(e) => {
            let _ = super::pass(&format_args!("claude-code: the full output is not saved: {e}"));
        }
    }
    args.extend(["--".into(), shell(), "-c".into(), script]);
    args
}

/// Whether the command in Claude Code's script (`... && eval 'COMMAND'
/// ...`) already runs under capout.
fn wrapped(script: &OsString) -> bool {
    let text = script.to_string_lossy();
    text.find("eval '").is_some_and(|at| super::already_wrapped(&text[at + 6..]))
}

/// Runs the script as Claude Code would without capout: in its shell.
fn unwrapped(script: &OsString) -> ExitCode {
    use std::os::unix::process::CommandExt;
    let e = std::process::Command::new(shell()).arg("-c").arg(script).exec();
    let _ = pass(&format_args!("claude-code: cannot run the shell: {e}"));
    Exit::NotExecutable.into()
}

/// The shell that Claude Code runs its commands in: `CLAUDE_CODE_SHELL`,
/// else SHELL when it is bash or zsh, else bash.
fn shell() -> OsString {
    if let Some(shell) = std::env::var_os("CLAUDE_CODE_SHELL").filter(|s| !s.is_empty()) {
        return shell;
    }
    std::env::var_os("SHELL")
        .filter(|s| {
            let name = std::path::Path::new(s).file_name().and_then(|n| n.to_str());
            matches!(name, Some("bash" | "zsh"))
        })
        .unwrap_or_else(|| "bash".into())
}

/// A `PreToolUse` event on stdin: left alone, with the reason.
fn event() -> ExitCode {
    let mut text = String::new();
    if let Err(e) = std::io::stdin().take(1 << 24).read_to_string(&mut text) {
        return pass(&format_args!("claude-code: cannot read the event: {e}"));
    }
    pass(&verdict(&text))
}

/// Why an event on stdin is left alone.
pub fn verdict(text: &str) -> String {
    match serde_json::from_str::<Event>(text) {
        Err(e) => format!("claude-code: not a hook event: {e}"),
        Ok(ev) if ev.hook_event_name != "PreToolUse" || ev.tool_name != "Bash" => {
            format!("claude-code: left alone: event {} of tool '{}'", ev.hook_event_name, ev.tool_name)
        }
        Ok(_) => "claude-code: left alone: Claude Code checks its permission rules on a rewritten command; \
                  `capout init claude-code` wraps commands through CLAUDE_CODE_SHELL_PREFIX instead"
            .to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `PreToolUse` event as Claude Code 2.1.332 sends it.
    const SAMPLE: &str = r#"{"session_id":"08e7bc43-14de-46ef-8923-07c87726ae70","transcript_path":"/tmp/t/.claude/projects/-tmp-t-proj/08e7bc43.jsonl","cwd":"/tmp/t/proj","prompt_id":"82e65f22","permission_mode":"default","effort":{"level":"medium"},"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"pwd; exit 3","description":"run"},"tool_use_id":"toolu_e052c4bc631e4823950b"}"#;

    #[test]
    fn a_bash_event_is_left_alone_with_the_reason() {
        assert_eq!(
            verdict(SAMPLE),
            "claude-code: left alone: Claude Code checks its permission rules on a rewritten command; \
             `capout init claude-code` wraps commands through CLAUDE_CODE_SHELL_PREFIX instead"
        );
    }

    #[test]
    fn bad_json_and_other_tools_are_left_alone() {
        assert!(verdict("{not json").starts_with("claude-code: not a hook event: "));
        assert_eq!(
            verdict(r#"{"hook_event_name":"PreToolUse","tool_name":"Read"}"#),
            "claude-code: left alone: event PreToolUse of tool 'Read'"
        );
    }

    #[test]
    fn a_command_already_under_capout_is_seen() {
        assert!(wrapped(
            &"source s || true && eval 'capout --tail-lines 5 -- make' < /dev/null && pwd -P >| f".into()
        ));
        assert!(!wrapped(&"source s || true && eval 'seq 10' < /dev/null && pwd -P >| f".into()));
    }

    #[test]
    fn the_script_is_one_argument_of_the_shell() {
        let args = command("echo 'a b' && pwd -P >| /tmp/cwd".into());
        let n = args.len();
        assert_eq!(args[n - 2], "-c");
        assert_eq!(args[n - 1], "echo 'a b' && pwd -P >| /tmp/cwd");
        assert_eq!(args[n - 4], "--");
    }
}
