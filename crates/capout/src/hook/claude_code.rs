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
//! deny rule turns into a question. So the hook rewrites nothing and
//! decides nothing: it prints nothing.
//!
//! What it does is tell the prefix the call's timeout. Claude Code 2.1.332
//! sends the command's output to a file and, when the call's timeout
//! (`timeout` in the call, else `BASH_DEFAULT_TIMEOUT_MS` or two minutes,
//! at most `BASH_MAX_TIMEOUT_MS` or ten) expires, reads that file at once:
//! it shows the model what is there, then ends the command or moves it to
//! the background. A command under a tail cap has written nothing yet, so
//! the model would see nothing. The hook leaves the timeout in capout's
//! private folder, under the session and the command; the prefix takes it
//! and, just before that timeout, if the command still runs, writes what
//! the cap keeps of the output so far (from the file capout saves it to)
//! with a notice that it still runs. The command goes on as it would
//! without capout; when it ends, capout writes its output as always.

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde::Deserialize;

use super::{Dispatch, pass};
use crate::exit::Exit;

/// The name by which capout is Claude Code's shell prefix.
pub const PREFIX_NAME: &str = "capout-claude-code";

/// capout started as `CLAUDE_CODE_SHELL_PREFIX` with `args`: the Bash tool's
/// script under capout, anything else run as it is.
pub fn prefix(args: &[OsString]) -> Dispatch {
    match args {
        [script] if is_bash_script(script) && !wrapped(script) => {
            let args = command(script.clone());
            watch(script, &args);
            Dispatch::Run(args)
        }
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
    /// The session, which the Bash tool's commands see as
    /// `CLAUDE_CODE_SESSION_ID`.
    #[serde(default)]
    pub session_id: String,
    /// `{"command": ..., "timeout": ...}` for the shell tool.
    #[serde(default)]
    pub tool_input: serde_json::Value,
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

/// A `PreToolUse` event on stdin: its timeout left for the prefix, or why
/// not. Nothing is printed on stdout, ever: the call is Claude Code's to
/// allow, ask about or deny, and its command stays as the model wrote it.
fn event() -> ExitCode {
    let text = match super::after::read_event(std::io::stdin()) {
        Ok(text) => text,
        Err(why) => return pass(&format_args!("claude-code: {why}")),
    };
    if after_tool(&text) {
        let dir = super::save_dir().map_err(|e| e.to_string());
        return match super::after::claude_code::answer(&text, dir.as_deref().map_err(String::as_str)) {
            Ok(out) => super::after::print(&out),
            Err(why) => pass(&format_args!("claude-code: {why}")),
        };
    }
    let env = |name: &str| std::env::var(name).ok();
    match call(&text, &env).and_then(|call| call.leave().map_err(|e| format!("claude-code: {e}"))) {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => pass(&why),
    }
}

/// Whether the event `text` is a `PostToolUse`, whose output the hook may
/// bound (see [`super::after::claude_code`]).
fn after_tool(text: &str) -> bool {
    #[derive(Deserialize)]
    struct Name<'a> {
        #[serde(borrow)]
        hook_event_name: std::borrow::Cow<'a, str>,
    }
    serde_json::from_str::<Name>(text).is_ok_and(|n| n.hook_event_name == "PostToolUse")
}

/// A call of the Bash tool, as the hook sees it and the prefix finds it.
#[derive(Debug, PartialEq, Eq, serde::Serialize, Deserialize)]
pub struct Call {
    /// The session (`session_id`, `CLAUDE_CODE_SESSION_ID`).
    pub session: String,
    /// The command as the model wrote it.
    pub command: String,
    /// When Claude Code reads the command's output and ends it or moves
    /// it to the background, in milliseconds from its start.
    pub timeout_ms: u64,
}

/// The call that the event `text` describes, with its timeout as Claude
/// Code 2.1.332 gives it (`env` reads its variables); or why there is
/// none to leave for the prefix.
pub fn call(text: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<Call, String> {
    let ev =
        serde_json::from_str::<Event>(text).map_err(|e| format!("claude-code: not a hook event: {e}"))?;
    if ev.hook_event_name != "PreToolUse" || ev.tool_name != "Bash" {
        return Err(format!(
            "claude-code: left alone: event {} of tool '{}'",
            ev.hook_event_name, ev.tool_name
        ));
    }
    let Some(command) = ev.tool_input.get("command").and_then(serde_json::Value::as_str) else {
        return Err("claude-code: left alone: the event has no command".into());
    };
    // Claude Code reads these as integers, and ignores what is not one
    // above 0.
    let number = |name: &str| {
        let text = env(name)?;
        let digits = text.trim_start().split(|c: char| !c.is_ascii_digit()).next()?;
        digits.parse::<u64>().ok().filter(|&n| n > 0)
    };
    let default = number("BASH_DEFAULT_TIMEOUT_MS").unwrap_or(120_000);
    let max = number("BASH_MAX_TIMEOUT_MS").unwrap_or(600_000).max(default);
    // A positive, finite number of milliseconds, as a whole one.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let asked = ev
        .tool_input
        .get("timeout")
        .and_then(serde_json::Value::as_f64)
        .filter(|t| *t >= 1.0 && t.is_finite())
        .map(|t| t as u64);
    let mut timeout_ms = asked.unwrap_or(default).min(max);
    // The main agent's commands may be moved to the background sooner.
    if let Some(soon) = number("CLAUDE_CODE_AUTO_BACKGROUND_TIMEOUT_MS") {
        timeout_ms = timeout_ms.min(soon.max(2000));
    }
    Ok(Call { session: ev.session_id, command: command.to_owned(), timeout_ms })
}

impl Call {
    /// The file of the call in the private folder `dir`: named by a hash
    /// of the session and the command, which the file also holds.
    fn path_in(dir: &Path, session: &str, command: &str) -> PathBuf {
        // FNV-1a: stable from one build to the next, as the hook and the
        // prefix may be.
        let hash = session
            .bytes()
            .chain([0])
            .chain(command.bytes())
            .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
        dir.join(format!("claude-code-{hash:016x}.call"))
    }

    /// Leaves the call for the prefix in capout's private folder,
    /// replacing one of the same session and command.
    pub fn leave(&self) -> std::io::Result<()> {
        let dir = super::save_dir()?;
        let mut file = tempfile::Builder::new().prefix(".claude-code-").tempfile_in(&dir)?;
        file.write_all(serde_json::to_string(self).map_err(std::io::Error::other)?.as_bytes())?;
        file.persist(Self::path_in(&dir, &self.session, &self.command)).map_err(|e| e.error)?;
        Ok(())
    }

    /// Takes the call of `command` in `session` that the hook left in
    /// `dir`, if there is one.
    fn take(dir: &Path, session: &str, command: &str) -> Option<Call> {
        let path = Self::path_in(dir, session, command);
        let bytes = crate::safe_read::read(&path, crate::safe_read::MAX_SIZE).ok()?;
        let _ = std::fs::remove_file(&path);
        serde_json::from_slice::<Call>(&bytes).ok().filter(|c| c.session == session && c.command == command)
    }
}

/// The command in Claude Code's script (`... && eval 'COMMAND' < /dev/null
/// && pwd -P >| FILE`), as `eval` gets it: its one word, after the
/// shell's quote removal.
pub(crate) fn eval_word(script: &str) -> Option<String> {
    let at = script.find(" && eval ").or_else(|| script.find("{ eval "))?;
    first_word(script[at..].split_once("eval ")?.1)
}

/// The first shell word of `text`, after quote removal: up to a blank or
/// an operator outside quotes. `None` when there is none, or its quotes do
/// not close.
fn first_word(text: &str) -> Option<String> {
    let mut word = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() || ";&|<>()".contains(c) => break,
            '\'' => loop {
                match chars.next()? {
                    '\'' => break,
                    c => word.push(c),
                }
            },
            '"' => loop {
                match chars.next()? {
                    '"' => break,
                    '\\' => match chars.next()? {
                        c @ ('$' | '`' | '"' | '\\') => word.push(c),
                        '\n' => {}
                        c => word.extend(['\\', c]),
                    },
                    c => word.push(c),
                }
            },
            '\\' => match chars.next()? {
                '\n' => {}
                c => word.push(c),
            },
            c => word.push(c),
        }
    }
    (!word.is_empty()).then_some(word)
}

/// How long before Claude Code's timeout the output so far is written:
/// a tenth of it, from half a second to two seconds: far more than
/// writing what the cap keeps takes, also on a loaded machine.
pub fn margin(timeout: Duration) -> Duration {
    (timeout / 10).clamp(Duration::from_millis(500), Duration::from_secs(2))
}

/// In the prefix, about to run `script` as `args` say: when the hook left
/// the call's timeout and the cap holds its output back until the end (a
/// tail cap, not `--json`), a copy of that cap beside the run, fed what
/// the run reads ([`crate::run::tap`]), and a thread that writes what it
/// keeps just before the timeout ([`snapshot`]). It never delays the
/// command, and does nothing once the output has ended.
fn watch(script: &OsStr, args: &[OsString]) {
    let Some(command) = script.to_str().and_then(eval_word) else { return };
    let Some(session) = std::env::var("CLAUDE_CODE_SESSION_ID").ok().filter(|s| !s.is_empty()) else {
        return;
    };
    let Ok(dir) = super::save_dir() else { return };
    let Some(call) = Call::take(&dir, &session, &command) else { return };
    let timeout = Duration::from_millis(call.timeout_ms);
    let at = timeout.saturating_sub(margin(timeout));
    // Claude Code's clock started when it started the call's shell, the
    // leader of the call's process group: this process, unless that shell
    // forked it.
    let Some(wait) = at.checked_sub(call_age().unwrap_or_default()).filter(|w| !w.is_zero()) else { return };
    let Some(capper) = options_of(args).and_then(|o| capout_core::Capper::with_options(&o).ok()) else {
        return;
    };
    let shadow = Arc::new(Mutex::new(Shadow { capper: Some(capper), seen: false, ended: false }));
    let fed = Arc::clone(&shadow);
    let tap = move |piece: &[u8]| {
        let mut guard = fed.lock().unwrap_or_else(PoisonError::into_inner);
        let shadow = &mut *guard;
        if piece.is_empty() {
            shadow.ended = true;
            shadow.capper = None;
        } else if let Some(capper) = &mut shadow.capper {
            shadow.seen = true;
            if capper.push_with(piece, &mut std::io::sink(), &mut std::io::sink()).is_err() {
                shadow.capper = None;
            }
        }
    };
    crate::run::tap(Box::new(tap));
    let _ = std::thread::Builder::new().name("capout-snapshot".into()).spawn(move || {
        std::thread::sleep(wait);
        snapshot(&shadow, &dir, at);
    });
}

/// The copy of the run's cap that keeps the output so far.
struct Shadow {
    /// The cap, until the output so far is written (or the copy failed).
    capper: Option<capout_core::Capper>,
    /// Whether the command wrote anything yet.
    seen: bool,
    /// Whether the output ended: the run then writes it all itself.
    ended: bool,
}

/// The options of the run that `args` give, for its copy of the cap: none
/// when the cap writes as it reads (the output so far is then in Claude
/// Code's file already) or the output is one JSON object.
fn options_of(args: &[OsString]) -> Option<capout_core::Options> {
    let opts = std::env::var("CAPOUT_OPTS").ok();
    let file = crate::profiles::ConfigFile::load().ok().flatten();
    let crate::cli::Action::Run(run) =
        crate::cli::try_parse_with(args, file.as_ref(), opts.as_deref()).ok()?
    else {
        return None;
    };
    let mut options = run.options;
    let holds_back = matches!(
        options.cap,
        capout_core::CapSpec::TailChars(_)
            | capout_core::CapSpec::TailLines(_)
            | capout_core::CapSpec::TailTokens(_)
    );
    if !holds_back || options.json {
        return None;
    }
    options.save = None;
    options.progress = false;
    Some(options)
}

/// How long ago this process's group leader started (Claude Code's shell
/// for the call), from its start time in `/proc`.
fn call_age() -> Option<Duration> {
    let group = rustix::process::getpgrp();
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", group.as_raw_nonzero())).ok()?;
    // `PID (NAME) STATE ...`: the name may hold spaces and `)`; the start
    // time is the 22nd field, the 20th after the name.
    let ticks: u64 = stat.rsplit_once(')')?.1.split_whitespace().nth(19)?.parse().ok()?;
    let uptime = std::fs::read_to_string("/proc/uptime").ok()?;
    let now: f64 = uptime.split_whitespace().next()?.parse().ok()?;
    #[allow(clippy::cast_precision_loss)] // ticks since boot: far below 2^52
    let age = now - ticks as f64 / rustix::param::clock_ticks_per_second() as f64;
    (age >= 0.0).then(|| Duration::from_secs_f64(age))
}

/// The file in `dir` that this run saves the command's output to, as
/// `--save-dir` names it: the one of this process's open files there.
fn saved_file(dir: &Path) -> Option<PathBuf> {
    std::fs::read_dir("/proc/self/fd").ok()?.flatten().find_map(|fd| {
        let target = std::fs::read_link(fd.path()).ok()?;
        let name = target.file_name()?.to_str()?;
        let named = name.starts_with("capout-") && target.extension().is_some_and(|x| x == "log");
        (target.parent() == Some(dir) && named).then_some(target)
    })
}

/// Writes, to capout's stdout (the file Claude Code reads), what the copy
/// of the cap keeps of the output so far, with a notice that the command
/// still runs `after` its start and where its full output goes (`dir`'s
/// file, when the cap cut it). Nothing when the command wrote nothing yet
/// (Claude Code shows nothing then either), or its output has ended: the
/// lock held while writing keeps the run's own output after this one.
fn snapshot(shadow: &Mutex<Shadow>, dir: &Path, after: Duration) {
    let mut shadow = shadow.lock().unwrap_or_else(PoisonError::into_inner);
    if shadow.ended || !shadow.seen {
        return;
    }
    let Some(capper) = shadow.capper.take() else { return };
    let mut out = Vec::new();
    let Ok(summary) = capper.finish_with(&mut out, &mut std::io::sink()) else { return };
    if !out.is_empty() && !out.ends_with(b"\n") {
        out.push(b'\n');
    }
    let saved = summary.truncated.then(|| saved_file(dir)).flatten();
    let label = format!("{:.1}s", after.as_secs_f64());
    let saved = saved.as_ref().map(|p| p.to_string_lossy());
    out.extend_from_slice(crate::notice::still_running(&label, saved.as_deref()).as_bytes());
    out.push(b'\n');
    let Ok(stdout) = std::os::fd::AsFd::as_fd(&std::io::stdout()).try_clone_to_owned() else { return };
    let _ = std::fs::File::from(stdout).write_all(&out);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `PreToolUse` event as Claude Code 2.1.332 sends it.
    const SAMPLE: &str = r#"{"session_id":"08e7bc43-14de-46ef-8923-07c87726ae70","transcript_path":"/tmp/t/.claude/projects/-tmp-t-proj/08e7bc43.jsonl","cwd":"/tmp/t/proj","prompt_id":"82e65f22","permission_mode":"default","effort":{"level":"medium"},"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"pwd; exit 3","description":"run"},"tool_use_id":"toolu_e052c4bc631e4823950b"}"#;

    fn env<'a>(vars: &'a [(&str, &str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| vars.iter().find(|(n, _)| *n == name).map(|(_, v)| (*v).to_owned())
    }

    fn with_input(input: &str) -> String {
        SAMPLE.replace(r#"{"command":"pwd; exit 3","description":"run"}"#, input)
    }

    #[test]
    fn a_bash_event_gives_the_call_and_the_timeout_claude_code_gives_it() {
        let call = call(SAMPLE, &env(&[])).unwrap();
        assert_eq!(
            call,
            Call {
                session: "08e7bc43-14de-46ef-8923-07c87726ae70".into(),
                command: "pwd; exit 3".into(),
                timeout_ms: 120_000
            }
        );
        let asked = with_input(r#"{"command":"make","timeout":3000}"#);
        assert_eq!(call_ms(&asked, &[]), 3000);
        assert_eq!(call_ms(&with_input(r#"{"command":"make","timeout":9000000}"#), &[]), 600_000);
        assert_eq!(call_ms(SAMPLE, &[("BASH_DEFAULT_TIMEOUT_MS", "5000")]), 5000);
        assert_eq!(call_ms(SAMPLE, &[("BASH_DEFAULT_TIMEOUT_MS", "x")]), 120_000);
        assert_eq!(
            call_ms(
                &with_input(r#"{"command":"make","timeout":9000000}"#),
                &[("BASH_MAX_TIMEOUT_MS", "900000")]
            ),
            900_000
        );
        // A maximum below the default is the default.
        assert_eq!(call_ms(SAMPLE, &[("BASH_MAX_TIMEOUT_MS", "1000")]), 120_000);
        assert_eq!(call_ms(&asked, &[("CLAUDE_CODE_AUTO_BACKGROUND_TIMEOUT_MS", "1")]), 2000);
    }

    fn call_ms(text: &str, vars: &[(&str, &str)]) -> u64 {
        call(text, &env(vars)).unwrap().timeout_ms
    }

    #[test]
    fn bad_json_and_other_tools_are_left_alone() {
        assert!(call("{not json", &env(&[])).unwrap_err().starts_with("claude-code: not a hook event: "));
        assert_eq!(
            call(r#"{"hook_event_name":"PreToolUse","tool_name":"Read"}"#, &env(&[])).unwrap_err(),
            "claude-code: left alone: event PreToolUse of tool 'Read'"
        );
        assert_eq!(
            call(r#"{"hook_event_name":"PreToolUse","tool_name":"Bash"}"#, &env(&[])).unwrap_err(),
            "claude-code: left alone: the event has no command"
        );
    }

    #[test]
    fn the_prefix_finds_the_command_in_claude_codes_script() {
        let script = "source /s.sh 2>/dev/null || true && \\builtin shopt -u extglob 2>/dev/null || true && eval 'echo \"it'\"'\"'s\" | cat' < /dev/null && pwd -P >| /tmp/claude-9f3a-cwd";
        assert_eq!(eval_word(script).as_deref(), Some("echo \"it's\" | cat"));
        assert_eq!(eval_word("true && { eval 'make -j4'; } && pwd -P >| f").as_deref(), Some("make -j4"));
        assert_eq!(eval_word("no command here"), None);
    }

    #[test]
    fn the_call_left_by_the_hook_is_taken_once_and_only_for_its_session_and_command() {
        let dir = tempfile::tempdir().unwrap();
        let call = Call { session: "s1".into(), command: "make".into(), timeout_ms: 3000 };
        let path = Call::path_in(dir.path(), "s1", "make");
        std::fs::write(&path, serde_json::to_string(&call).unwrap()).unwrap();
        assert_eq!(Call::take(dir.path(), "s2", "make"), None);
        assert_eq!(Call::take(dir.path(), "s1", "make -j4"), None);
        assert_eq!(Call::take(dir.path(), "s1", "make"), Some(call));
        assert_eq!(Call::take(dir.path(), "s1", "make"), None);
        assert_ne!(Call::path_in(dir.path(), "s1", "make"), Call::path_in(dir.path(), "s", "1make"));
    }

    #[test]
    fn the_output_so_far_comes_a_tenth_of_the_timeout_early_within_bounds() {
        assert_eq!(margin(Duration::from_secs(3)), Duration::from_millis(500));
        assert_eq!(margin(Duration::from_secs(8)), Duration::from_millis(800));
        assert_eq!(margin(Duration::from_secs(120)), Duration::from_secs(2));
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
