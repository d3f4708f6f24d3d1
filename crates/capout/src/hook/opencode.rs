//! opencode. Its shell tool checks the user's permission rules on the
//! command it is given *after* the plugins' `tool.execute.before` has run,
//! by parsing that command: a rewritten command (`capout -- bash -c ...`)
//! would be checked as a call of capout, so a deny rule for `rm *` would no
//! longer match, and the answer "always" would allow capout with any
//! arguments. So the command is never rewritten. The plugin that
//! `capout init opencode` writes hands each shell call to `capout hook
//! opencode`, and when capout takes the call, gives the shell the
//! environment capout names through opencode's `shell.env` hook: a
//! `BASH_ENV` file, which bash reads before the command and which hands the
//! command, exactly as opencode checked it, to capout's command mode in the
//! same shell. opencode's rules, questions and answers see the model's own
//! command; a `cd` or `export` ends with the call, as without capout.
//!
//! Only bash reads `BASH_ENV`: with another shell the call runs as it is.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde::Deserialize;

use super::{Dispatch, pass};

/// The part of the plugin's event that matters here: opencode's
/// `tool.execute.before` input and its `args`.
#[derive(Debug, Deserialize)]
pub struct Event {
    /// `bash` for the shell tool.
    #[serde(default)]
    pub tool: String,
    /// The tool's arguments as the model gave them.
    #[serde(default)]
    pub args: serde_json::Value,
}

/// `capout hook opencode`: an event on stdin; or `--run SHELL SCRIPT ZEROTH`,
/// the command of a shell call, from the `BASH_ENV` file.
pub fn main(args: &[OsString]) -> Dispatch {
    match args {
        [] => Dispatch::Done(event()),
        [flag, shell, script, zeroth] if flag == "--run" => {
            Dispatch::Run(command(shell.clone(), script.clone(), zeroth.clone()))
        }
        _ => Dispatch::Done(pass(&"opencode: give a hook event on stdin")),
    }
}

/// The command line of capout's command mode that runs `script` in
/// `shell`, with `zeroth` as its `$0`, as opencode would have run it.
pub fn command(shell: OsString, script: OsString, zeroth: OsString) -> Vec<OsString> {
    let mut args: Vec<OsString> =
        vec!["capout".into(), "--profile".into(), super::profile("opencode").into()];
    match super::save_dir() {
        Ok(dir) => {
            args.push("--save-dir".into());
            args.push(dir.into());
        }
        Err(e) => {
            let _ = pass(&format_args!("opencode: the full output is not saved: {e}"));
        }
    }
    args.extend(["--".into(), shell, "-c".into(), script, zeroth]);
    args
}

/// An event on stdin: the environment for the call on stdout, or nothing.
fn event() -> ExitCode {
    let text = match super::after::read_event(std::io::stdin()) {
        Ok(text) => text,
        Err(why) => return pass(&format_args!("opencode: {why}")),
    };
    if let Ok(event) = serde_json::from_str::<serde_json::Value>(&text)
        && super::after::opencode::is_after(&event)
    {
        let dir = super::save_dir().map_err(|e| e.to_string());
        return match super::after::opencode::answer(&event, dir.as_deref().map_err(String::as_str)) {
            Ok(out) => super::after::print(&out),
            Err(why) => pass(&format_args!("opencode: {why}")),
        };
    }
    match decide(&text) {
        Err(why) => pass(&why),
        Ok(()) => match env_file() {
            Err(why) => pass(&format_args!("opencode: left alone: {why}")),
            Ok(file) => {
                let old = std::env::var_os("BASH_ENV");
                // The plugin runs this hook from opencode's own process,
                // which also starts the shell.
                let opencode = rustix::process::Pid::as_raw(rustix::process::getppid());
                let reply = reply(&file, opencode, old.as_ref().and_then(|o| o.to_str()));
                let mut out = std::io::stdout().lock();
                match writeln!(out, "{reply}").and_then(|()| out.flush()) {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(e) => pass(&format_args!("opencode: cannot write the reply: {e}")),
                }
            }
        },
    }
}

/// Whether capout takes the call that `text` describes, or why not.
pub fn decide(text: &str) -> Result<(), String> {
    let ev = serde_json::from_str::<Event>(text).map_err(|e| format!("opencode: not a hook event: {e}"))?;
    if ev.tool != "bash" {
        return Err(format!("opencode: left alone: tool '{}'", ev.tool));
    }
    let Some(command) = ev.args.get("command").and_then(serde_json::Value::as_str) else {
        return Err("opencode: left alone: the call has no command".into());
    };
    if super::already_wrapped(command) {
        return Err("opencode: left alone: the command already runs under capout".into());
    }
    Ok(())
}

/// The plugin's reply: the variables to give the shell. `opencode` is the
/// process that starts it: a bash that another shell started reads the
/// file too, and leaves its command alone. The user's own `BASH_ENV`, if
/// any, travels in `CAPOUT_BASH_ENV` and is given back to the command.
pub fn reply(file: &Path, opencode: i32, old_bash_env: Option<&str>) -> String {
    let mut env = serde_json::Map::new();
    env.insert("BASH_ENV".into(), file.to_string_lossy().into_owned().into());
    env.insert("CAPOUT_OPENCODE_PID".into(), opencode.to_string().into());
    if let Some(old) = old_bash_env {
        env.insert("CAPOUT_BASH_ENV".into(), old.into());
    }
    serde_json::json!({ "env": env }).to_string()
}

/// The text of the `BASH_ENV` file for the capout at `capout`.
pub fn env_script(capout: &str) -> String {
    let capout = super::quote(capout);
    format!(
        "# capout for opencode: the shell tool's command, as opencode checked it,\n\
         # runs under capout's command mode (see `capout hook opencode`).\n\
         capout_opencode=${{CAPOUT_OPENCODE_PID-}}; unset CAPOUT_OPENCODE_PID\n\
         if [ -n \"${{CAPOUT_BASH_ENV+set}}\" ]; then BASH_ENV=$CAPOUT_BASH_ENV; unset CAPOUT_BASH_ENV; else unset BASH_ENV; fi\n\
         if [ -n \"${{BASH_EXECUTION_STRING+set}}\" ] && [ \"$PPID\" = \"$capout_opencode\" ]; then\n\
         \x20   shopt -s execfail\n\
         \x20   exec {capout} hook opencode --run \"$BASH\" \"$BASH_EXECUTION_STRING\" \"$0\"\n\
         \x20   shopt -u execfail\n\
         fi\n\
         unset capout_opencode\n\
         if [ -n \"${{BASH_ENV-}}\" ] && [ -r \"$BASH_ENV\" ]; then . \"$BASH_ENV\"; fi\n"
    )
}

/// The `BASH_ENV` file in capout's private folder, written when it is
/// missing or names another capout.
fn env_file() -> Result<PathBuf, String> {
    let capout = std::env::current_exe().map_err(|e| format!("cannot find capout's own path: {e}"))?;
    let capout = capout.to_str().ok_or("capout's own path is not valid UTF-8")?;
    let dir = super::save_dir().map_err(|e| e.to_string())?;
    let file = dir.join("opencode.bash");
    // bash expands parameters and commands in BASH_ENV's value.
    let name = file.to_str().ok_or("the temporary folder's path is not valid UTF-8")?;
    if name.contains(['$', '`', '\\']) {
        return Err(format!("bash would expand the path {name}"));
    }
    let text = env_script(capout);
    if std::fs::read(&file).ok().as_deref() != Some(text.as_bytes()) {
        let fail = |e: std::io::Error| format!("cannot write {name}: {e}");
        let mut tmp = tempfile::Builder::new().prefix(".opencode-").tempfile_in(&dir).map_err(fail)?;
        tmp.write_all(text.as_bytes()).map_err(fail)?;
        tmp.persist(&file).map_err(|e| fail(e.error))?;
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shell_call_is_taken_and_others_are_left_alone() {
        let ev = r#"{"tool":"bash","sessionID":"ses_1","callID":"call_1","args":{"command":"seq 3","description":"d"}}"#;
        assert_eq!(decide(ev), Ok(()));
        assert_eq!(
            decide(r#"{"tool":"read","args":{"filePath":"/x"}}"#),
            Err("opencode: left alone: tool 'read'".into())
        );
        assert_eq!(
            decide(r#"{"tool":"bash","args":{"command":"capout -- make"}}"#),
            Err("opencode: left alone: the command already runs under capout".into())
        );
        assert_eq!(
            decide(r#"{"tool":"bash","args":{}}"#),
            Err("opencode: left alone: the call has no command".into())
        );
        assert!(decide("{not json").unwrap_err().starts_with("opencode: not a hook event: "));
    }

    #[test]
    fn the_reply_keeps_the_users_own_bash_env() {
        assert_eq!(
            reply(Path::new("/t/o.bash"), 7, None),
            r#"{"env":{"BASH_ENV":"/t/o.bash","CAPOUT_OPENCODE_PID":"7"}}"#
        );
        assert_eq!(
            reply(Path::new("/t/o.bash"), 7, Some("/home/u/.benv")),
            r#"{"env":{"BASH_ENV":"/t/o.bash","CAPOUT_OPENCODE_PID":"7","CAPOUT_BASH_ENV":"/home/u/.benv"}}"#
        );
    }

    #[test]
    fn the_env_script_quotes_a_path_with_spaces() {
        assert!(
            env_script("/opt/my tools/capout").contains("exec '/opt/my tools/capout' hook opencode --run ")
        );
    }
}
