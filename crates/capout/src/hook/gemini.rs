//! Gemini CLI. Its `BeforeTool` hook may replace the arguments of
//! `run_shell_command` (`hookSpecificOutput.tool_input`), and Gemini CLI
//! then checks its policy rules on the replaced command, not on the one the
//! model wrote. Two things of Gemini CLI 0.61.0 decide the rewrite's shape:
//! it runs a command `bash -c X` as X alone, and its policy engine checks a
//! command `DIR/bash -c 'SCRIPT'` as that command and as SCRIPT on its own
//! (a deny rule for SCRIPT denies the whole, a question for SCRIPT asks).
//! So the model's COMMAND becomes
//!
//! ```text
//! bash -c LINK -c 'COMMAND'
//! ```
//!
//! where LINK is capout by a name of its own, `.../capout-gemini/bash`
//! (a symbolic link that `capout init gemini` makes). Gemini CLI runs
//! `LINK -c 'COMMAND'`, which is capout running COMMAND in bash in command
//! mode; the one policy rule that `init` adds allows the two wrapper
//! prefixes alone, so the engine's answer is its answer for COMMAND.
//!
//! What the engine decides by heuristics on the command as the model wrote
//! it (a `dir_path` outside the workspace, `git` in an untrusted folder,
//! `rm -f` and the like under a rule that allows every command, command
//! substitution) would be lost on the wrapped one: such calls, and `&` jobs
//! (Gemini CLI reports their process ids; capout would end them), are left
//! alone.
//!
//! LINK stands in the rewrite as one plain word: Gemini CLI strips the
//! wrapper by a pattern that sees no quotes, and its policy rule matches
//! the rewrite's text, so a link whose path would need quotes (a home
//! such as `.../g;uname;`) is never put in a command: the call is left
//! alone. So is every call where the link is not there or is not this
//! capout (`capout init gemini` never ran, or was undone), and one whose
//! rewrite would not fit in one argument of a command.

use std::ffi::{OsStr, OsString};
use std::path::Path;
use std::process::ExitCode;

use serde_json::{Map, Value};

use super::{Dispatch, pass};

/// The folder that capout's link for Gemini CLI lies in.
pub const LINK_DIR: &str = "capout-gemini";

/// The link's own name: the policy engine looks through a wrapper whose
/// program is named `bash`.
pub const LINK_NAME: &str = "bash";

/// The settings folder's link, given `capout init gemini`'s folder.
pub fn link_in(settings_dir: &Path) -> std::path::PathBuf {
    settings_dir.join(LINK_DIR).join(LINK_NAME)
}

/// Whether capout was started as the link, `.../capout-gemini/bash`.
// Inlined into every run's start (hook::is_prefix), so that it touches no
// rare code.
#[inline]
pub fn is_link(argv0: &OsStr) -> bool {
    let path = Path::new(argv0);
    path.file_name() == Some(OsStr::new(LINK_NAME))
        && path.parent().and_then(Path::file_name) == Some(OsStr::new(LINK_DIR))
}

/// capout started as the link, `argv0` its name, with `args`: `-c SCRIPT`
/// runs SCRIPT in bash under capout; `hook gemini` reads a hook event.
pub fn link(argv0: &OsStr, args: &[OsString]) -> Dispatch {
    match args {
        [c, script] if c == "-c" => Dispatch::Run(command(script.clone())),
        [hook, harness] if hook == "hook" && harness == "gemini" => Dispatch::Done(event(argv0)),
        _ => Dispatch::Done(pass(&"gemini: the link runs `-c SCRIPT` or `hook gemini`")),
    }
}

/// `capout hook gemini`: the event on stdin, rewritten for the link of
/// the user's settings folder.
pub fn main(args: &[OsString]) -> Dispatch {
    if !args.is_empty() {
        return Dispatch::Done(pass(&"gemini: takes a hook event on stdin, no arguments"));
    }
    let dir = match std::env::var_os("GEMINI_CLI_HOME").filter(|h| !h.is_empty()) {
        Some(home) => Path::new(&home).join(".gemini"),
        None => match std::env::var_os("HOME").filter(|h| !h.is_empty()) {
            Some(home) => Path::new(&home).join(".gemini"),
            None => return Dispatch::Done(pass(&"gemini: HOME is not set")),
        },
    };
    Dispatch::Done(event(link_in(&dir).as_os_str()))
}

/// The command line of capout's command mode that runs `script` in bash,
/// the shell Gemini CLI runs its commands in.
pub fn command(script: OsString) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec!["capout".into(), "--profile".into(), super::profile("gemini").into()];
    match super::save_dir() {
        Ok(dir) => {
            args.push("--save-dir".into());
            args.push(dir.into());
        }
        Err(e) => {
            let _ = pass(&format_args!("gemini: the full output is not saved: {e}"));
        }
    }
    args.extend(["--".into(), "bash".into(), "-c".into(), script]);
    args
}

fn event(link: &OsStr) -> ExitCode {
    let text = match super::after::read_event(std::io::stdin()) {
        Ok(text) => text,
        Err(why) => return pass(&format_args!("gemini: {why}")),
    };
    if after_tool(&text) {
        // The link is `GEMINI_DIR/capout-gemini/bash`.
        let Some(dir) = Path::new(link).parent().and_then(Path::parent) else {
            return pass(&"gemini: no folder of Gemini CLI's");
        };
        return match super::after::gemini::answer(&text, dir) {
            Ok(out) => super::after::print(&out),
            Err(why) => pass(&format_args!("gemini: {why}")),
        };
    }
    let Some(link) = link.to_str() else {
        return pass(&"gemini: the link's path is not valid UTF-8");
    };
    // What the rewrite runs must be there, and be this capout.
    let rewritten = rewrite(&text, link).and_then(|out| match super::not_this_capout(Path::new(link)) {
        Some(why) => Err(format!("left alone: {why}; `capout init gemini` makes the link")),
        None => Ok(out),
    });
    match rewritten {
        Ok(out) => {
            use std::io::Write;
            let mut stdout = std::io::stdout().lock();
            if writeln!(stdout, "{out}").and_then(|()| stdout.flush()).is_err() {
                return pass(&"gemini: cannot write the rewrite");
            }
            ExitCode::SUCCESS
        }
        Err(why) => pass(&format_args!("gemini: {why}")),
    }
}

/// Whether the event `text` is an `AfterTool`, whose output the hook may
/// bound (see [`super::after::gemini`]).
fn after_tool(text: &str) -> bool {
    #[derive(serde::Deserialize)]
    struct Name<'a> {
        #[serde(borrow)]
        hook_event_name: std::borrow::Cow<'a, str>,
    }
    serde_json::from_str::<Name>(text).is_ok_and(|n| n.hook_event_name == "AfterTool")
}

/// The hook's answer to the event `text`: the rewrite as JSON, or why the
/// call is left alone.
pub fn rewrite(text: &str, link: &str) -> Result<String, String> {
    let event: Value = serde_json::from_str(text).map_err(|e| format!("not a hook event: {e}"))?;
    let name = event.get("hook_event_name").and_then(Value::as_str).unwrap_or_default();
    let tool = event.get("tool_name").and_then(Value::as_str).unwrap_or_default();
    if name != "BeforeTool" || tool != "run_shell_command" {
        return Err(format!("left alone: event '{name}' of tool '{tool}'"));
    }
    let Some(input) = event.get("tool_input").and_then(Value::as_object) else {
        return Err("left alone: the event has no tool_input".into());
    };
    let command = input.get("command").and_then(Value::as_str).unwrap_or_default();
    if let Some(why) = unwrappable(command, input, link) {
        return Err(format!("left alone: {why}"));
    }
    let wrapped = wrap(command, link);
    if let Some(why) = super::too_long(&wrapped) {
        return Err(format!("left alone: {why}"));
    }
    // Gemini CLI builds the call from this object alone: every argument
    // the model gave is kept.
    let mut replaced = input.clone();
    replaced.insert("command".into(), Value::from(wrapped));
    let out = serde_json::json!({
        "hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": replaced}
    });
    Ok(out.to_string())
}

/// `command` under capout, as Gemini CLI runs it and checks it. The link
/// is quoted as a shell word; [`rewrite`] gives it only where that leaves
/// it as it is ([`is_plain`]).
pub fn wrap(command: &str, link: &str) -> String {
    format!("bash -c {} -c {}", super::quote(link), quote(command))
}

/// Whether the path `link` can stand in a rewrite, and in the policy rule
/// that lets it through, as it is: one word that needs no quotes for
/// bash, for Gemini CLI's parser and for its wrapper pattern (letters,
/// digits and `-_./=:,+@%` alone). Any other path, `.../g;uname;` or one
/// with a space, a quote or a `$`, is never put in a command.
pub fn is_plain(link: &str) -> bool {
    super::quote(link) == link
}

/// `command` as one word that Gemini CLI's policy engine unquotes to
/// exactly `command`, as bash does: in single quotes when it holds none
/// (the engine drops the quotes and nothing else), else in double quotes
/// with `\`, `"`, `$` and `` ` `` escaped.
fn quote(command: &str) -> String {
    if !command.contains('\'') {
        return format!("'{command}'");
    }
    let mut out = String::with_capacity(command.len() + 8);
    out.push('"');
    for c in command.chars() {
        if matches!(c, '\\' | '"' | '$' | '`') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// The words whose presence makes Gemini CLI 0.61.0's heuristics decide
/// on the command as written (`isDangerousCommand`, `containsGitCommand`).
const HEURISTIC_WORDS: &[&str] = &["rm", "ln", "sudo", "find", "rg", "git", "base64"];

/// Why `command` is left as it is, if it is.
fn unwrappable(command: &str, input: &Map<String, Value>, link: &str) -> Option<String> {
    if command.trim().is_empty() {
        return Some("an empty command".into());
    }
    if command.contains('\0') {
        return Some("a NUL byte, which no argument of a command can hold".into());
    }
    if !is_plain(link) {
        return Some(format!(
            "the link's path '{link}' would need quotes in the command, which Gemini CLI's policy engine does not see through"
        ));
    }
    if super::already_wrapped(command) || command.contains(&format!("{LINK_DIR}/{LINK_NAME}")) {
        return Some("the command already runs under capout".into());
    }
    if input.get("dir_path").is_some_and(|d| d.as_str() != Some("")) {
        return Some(
            "a dir_path, which Gemini CLI checks against the workspace on the command as written".into(),
        );
    }
    if input.get("is_background").and_then(Value::as_bool) == Some(true) {
        return Some("a background command".into());
    }
    if ["$(", "`", "<(", ">("].iter().any(|s| command.contains(s)) {
        return Some("command substitution, which Gemini CLI refuses on the command as written".into());
    }
    if has_job(command) {
        return Some("an `&` job, whose process id Gemini CLI reports and capout would end".into());
    }
    // The words as written, and as the heuristics read them: with every
    // parameter taken out (shell-quote, given no environment, reads `$x`
    // and `${x}` as nothing, and skips the character after `$@`).
    let readings =
        [command.to_owned(), without_parameters(command, false), without_parameters(command, true)];
    let word = readings.iter().find_map(|reading| {
        let plain: String = reading.chars().filter(|c| !matches!(c, '\'' | '"' | '\\')).collect();
        plain
            .split(|c: char| c.is_whitespace() || ";&|()<>{}=".contains(c))
            .map(|w| w.rsplit('/').next().unwrap_or(w).to_ascii_lowercase())
            .find(|w| HEURISTIC_WORDS.contains(&w.trim_end_matches(".exe")))
    });
    word.map(|w| format!("'{w}', on which Gemini CLI decides by heuristics of the command as written"))
}

/// `command` without its parameters: `${...}`, `$NAME` and `$` with one
/// of `*@#?$!_-`, and with `skip` the character after such a `$@` too.
fn without_parameters(command: &str, skip: bool) -> String {
    let mut out = String::with_capacity(command.len());
    let mut chars = command.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '$' {
            out.push(c);
            continue;
        }
        match chars.peek() {
            Some('{') => {
                for c in chars.by_ref() {
                    if c == '}' {
                        break;
                    }
                }
            }
            Some(c) if "*@#?$!_-".contains(*c) => {
                chars.next();
                if skip {
                    chars.next();
                }
            }
            Some(c) if c.is_ascii_alphanumeric() || *c == '_' => {
                while chars.next_if(|c| c.is_ascii_alphanumeric() || *c == '_').is_some() {}
            }
            _ => out.push('$'),
        }
    }
    out
}

/// Whether `command` holds an `&` that starts a job (not `&&`, `>&`,
/// `&>`, `<&` or `|&`).
fn has_job(command: &str) -> bool {
    let b = command.as_bytes();
    (0..b.len()).any(|i| {
        b[i] == b'&'
            && !matches!(b.get(i + 1), Some(b'&' | b'>'))
            && !(i > 0 && matches!(b[i - 1], b'&' | b'>' | b'<' | b'|'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINK: &str = "/home/u/.gemini/capout-gemini/bash";

    /// A `BeforeTool` event as Gemini CLI 0.61.0 sends it.
    fn event(input: &str) -> String {
        format!(
            r#"{{"session_id":"3f1c","transcript_path":"/home/u/.gemini/tmp/x/chats/s.json","cwd":"/home/u/proj","hook_event_name":"BeforeTool","timestamp":"2026-12-01T18:00:00.000Z","tool_name":"run_shell_command","tool_input":{input}}}"#
        )
    }

    #[test]
    fn a_shell_call_is_wrapped_keeping_its_other_arguments() {
        let out = rewrite(&event(r#"{"command":"seq 3; exit 3","description":"count"}"#), LINK).unwrap();
        assert_eq!(
            out,
            r#"{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"command":"bash -c /home/u/.gemini/capout-gemini/bash -c 'seq 3; exit 3'","description":"count"}}}"#
        );
    }

    #[test]
    fn single_quotes_go_in_double_quotes_with_escapes() {
        assert_eq!(
            wrap("echo \"it's\" $HOME `x` \\n", LINK),
            format!(r#"bash -c {LINK} -c "echo \"it's\" \$HOME \`x\` \\n""#)
        );
        assert_eq!(wrap("cat <<'EOF'\na\nEOF", LINK), format!("bash -c {LINK} -c \"cat <<'EOF'\na\nEOF\""));
    }

    #[test]
    fn bad_json_and_other_tools_are_left_alone() {
        assert!(rewrite("{not json", LINK).unwrap_err().starts_with("not a hook event: "));
        let other =
            r#"{"hook_event_name":"BeforeTool","tool_name":"read_file","tool_input":{"file_path":"a"}}"#;
        assert_eq!(rewrite(other, LINK).unwrap_err(), "left alone: event 'BeforeTool' of tool 'read_file'");
        assert_eq!(
            rewrite(r#"{"hook_event_name":"BeforeTool","tool_name":"run_shell_command"}"#, LINK).unwrap_err(),
            "left alone: the event has no tool_input"
        );
    }

    #[test]
    fn calls_that_heuristics_decide_are_left_alone() {
        for input in [
            r#"{"command":"rm -f victim"}"#,
            r#"{"command":"echo a && /bin/RM -f b"}"#,
            r#"{"command":"git status"}"#,
            r#"{"command":"r'm' -f x"}"#,
            r#"{"command":"ls","dir_path":"/etc"}"#,
            r#"{"command":"echo $(id)"}"#,
            r#"{"command":"sleep 9 &"}"#,
            r#"{"command":"make","is_background":true}"#,
            r#"{"command":"capout -- make"}"#,
            r#"{"command":"bash -c /x/capout-gemini/bash -c 'ls'"}"#,
            r#"{"command":"  "}"#,
        ] {
            assert!(rewrite(&event(input), LINK).unwrap_err().starts_with("left alone: "), "{input}");
        }
    }

    #[test]
    fn a_word_that_a_parameter_splits_is_the_word_gemini_clis_heuristics_see() {
        // Gemini CLI's heuristics read the command with every `$NAME` and
        // `${...}` taken out (shell-quote, with no environment): `r${x}m`
        // is `rm` to them, as to bash when x is not set.
        for (command, word) in [
            ("r${x}m -f victim", "rm"),
            ("r\"$x\"m -f victim", "rm"),
            ("r$xyz\"\"m -f victim", "rm"),
            ("g${HOME#/}it status", "git"),
            ("su${1}do ls", "sudo"),
            ("r$@xm -f victim", "rm"),
            ("fi$_xnd . -delete", "find"),
        ] {
            let input = serde_json::json!({ "command": command }).to_string();
            assert_eq!(
                rewrite(&event(&input), LINK).unwrap_err(),
                format!(
                    "left alone: '{word}', on which Gemini CLI decides by heuristics of the command as written"
                ),
                "{command}"
            );
        }
        assert!(rewrite(&event(r#"{"command":"echo \"$HOME/x\" ${PWD}"}"#), LINK).is_ok());
    }

    #[test]
    fn a_command_with_a_nul_byte_is_left_alone() {
        assert_eq!(
            rewrite(&event(r#"{"command":"echo a\u0000b"}"#), LINK).unwrap_err(),
            "left alone: a NUL byte, which no argument of a command can hold"
        );
    }

    #[test]
    fn redirections_and_chains_are_not_jobs() {
        assert!(!has_job("a && b || c 2>&1 &> f |& g <&0"));
        assert!(has_job("a & b"));
        assert!(has_job("a&"));
    }

    #[test]
    fn a_link_path_with_a_space_is_refused() {
        assert!(rewrite(&event(r#"{"command":"ls"}"#), "/home/a b/.gemini/capout-gemini/bash").is_err());
    }

    #[test]
    fn a_link_path_that_would_run_something_is_never_put_in_a_command() {
        for home in [
            "/tmp/g;uname;",
            "/tmp/g$(uname)",
            "/tmp/g`uname`",
            "/tmp/g'x",
            "/tmp/g\"x",
            "/tmp/g\nuname",
            "/tmp/g|uname",
            "/tmp/g&",
            "/tmp/ü",
        ] {
            let link = format!("{home}/.gemini/capout-gemini/bash");
            assert_eq!(
                rewrite(&event(r#"{"command":"echo hello"}"#), &link).unwrap_err(),
                format!(
                    "left alone: the link's path '{link}' would need quotes in the command, which Gemini CLI's policy engine does not see through"
                ),
                "{home}"
            );
        }
        assert!(
            rewrite(&event(r#"{"command":"echo hello"}"#), "/h/a-b_c.d+e@f%g,h:i=j/capout-gemini/bash")
                .is_ok()
        );
    }

    #[test]
    fn a_rewrite_of_128_kib_or_more_is_left_alone() {
        let length = |command: &str| {
            let input = serde_json::json!({ "command": command }).to_string();
            let out: Value = serde_json::from_str(&rewrite(&event(&input), LINK)?).unwrap();
            Ok::<_, String>(out["hookSpecificOutput"]["tool_input"]["command"].as_str().unwrap().len())
        };
        let overhead = length("x").unwrap() - 1;
        let longest = "x".repeat(super::super::MAX_REWRITE - overhead);
        assert_eq!(length(&longest), Ok(128 * 1024 - 1));
        assert_eq!(
            length(&format!("{longest}x")).unwrap_err(),
            "left alone: the rewrite would be 131072 bytes, at or over the 128 KiB that one argument of a command may hold"
        );
    }

    #[test]
    fn the_link_is_known_by_its_folder_and_name() {
        assert!(is_link(OsStr::new(LINK)));
        assert!(!is_link(OsStr::new("/bin/bash")));
        assert!(!is_link(OsStr::new("/x/capout-gemini/capout")));
    }
}
