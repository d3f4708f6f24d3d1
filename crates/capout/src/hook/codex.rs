//! Codex CLI. Its `PreToolUse` hook (in `hooks.json`) sees each command of
//! the shell tool as `tool_input.command`, and may replace it by printing
//! `hookSpecificOutput.updatedInput` — which Codex takes only together with
//! `permissionDecision: "allow"`. That word grants nothing in Codex: an
//! `allow` without a rewrite is refused as unsupported, and what Codex keeps
//! of the hook's answer is the rewrite alone; the rewritten command then
//! goes through Codex's own checks as any command does (its sandbox, its
//! approval policy, the rules of its `.rules` files and its built-in
//! refusal of `rm -f`).
//!
//! Those checks look at the words of the command they are given, so a
//! rewrite hides the original's words from them: a rule that forbids `rm`
//! no longer matches `capout ... 'rm victim'`. This hook therefore rewrites
//! only a command that no rule can be about: none of its words, split as
//! the shell splits them and after quote removal (`r''m` is `rm`), is a
//! word of any rule file Codex reads, nor `rm`, `sudo` or `capout`. Every
//! other command, and one whose words capout cannot see as the shell does,
//! is left to Codex as it is, so that nothing is allowed that would not be
//! without capout.
//!
//! The rewrite is `CAPOUT hook codex "$0" 'COMMAND'`: the shell that Codex
//! started runs capout, which runs COMMAND in that same shell (`$0`) under
//! capout's command mode.

use std::ffi::OsString;
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde::Deserialize;

use super::{Dispatch, pass};

/// The part of a `PreToolUse` event that matters here.
#[derive(Debug, Deserialize)]
pub struct Event {
    /// `PreToolUse` for the events this hook is meant for.
    pub hook_event_name: String,
    /// `Bash` for the shell tool.
    #[serde(default)]
    pub tool_name: String,
    /// `{"command": ...}` for the shell tool.
    #[serde(default)]
    pub tool_input: serde_json::Value,
    /// The working directory of the call, where project rules are looked up.
    #[serde(default)]
    pub cwd: String,
}

/// `capout hook codex [SHELL SCRIPT]`.
pub fn main(args: &[OsString]) -> Dispatch {
    match args {
        [] => Dispatch::Done(event()),
        // A session on a terminal (`tty: true`) is one the model talks to
        // as it runs: run as without capout, which would hold its output
        // back and give it no terminal input.
        [shell, script] if std::io::stdout().is_terminal() => Dispatch::Done(unwrapped(shell, script)),
        [shell, script] => Dispatch::Run(command(shell.clone(), script.clone())),
        _ => Dispatch::Done(pass(&"codex: give a shell and a script, or a hook event on stdin")),
    }
}

/// Runs `script` in `shell` as Codex would without capout.
fn unwrapped(shell: &OsString, script: &OsString) -> ExitCode {
    use std::os::unix::process::CommandExt;
    let e = std::process::Command::new(shell).arg("-c").arg(script).exec();
    let _ = pass(&format_args!("codex: cannot run {}: {e}", shell.to_string_lossy()));
    crate::exit::Exit::NotExecutable.into()
}

/// The command line of capout's command mode that runs `script` in `shell`.
pub fn command(shell: OsString, script: OsString) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec!["capout".into(), "--profile".into(), super::profile("codex").into()];
    // Inside a read-only sandbox no file can be saved: the output is still
    // bounded, and the notice then names no file.
    if let Some(dir) = super::save_dir().ok().filter(|d| writable(d)) {
        args.push("--save-dir".into());
        args.push(dir.into());
    }
    args.extend(["--".into(), shell, "-c".into(), script]);
    args
}

/// Whether a file can be made in `dir` (a sandbox may forbid it).
fn writable(dir: &Path) -> bool {
    tempfile::Builder::new().prefix(".capout-probe-").tempfile_in(dir).is_ok()
}

/// A `PreToolUse` event on stdin: the rewrite on stdout, or nothing.
fn event() -> ExitCode {
    let mut text = String::new();
    if let Err(e) = std::io::stdin().take(1 << 24).read_to_string(&mut text) {
        return pass(&format_args!("codex: cannot read the event: {e}"));
    }
    let capout = match std::env::current_exe() {
        Ok(path) => path,
        Err(e) => return pass(&format_args!("codex: cannot find capout's own path: {e}")),
    };
    // The rewrite runs capout by this path: it must still be this capout.
    if let Some(why) = super::not_this_capout(&capout) {
        return pass(&format_args!("codex: left alone: {why}"));
    }
    let Some(capout) = capout.to_str() else {
        return pass(&"codex: capout's own path is not valid UTF-8");
    };
    match rewrite(&text, capout, &rule_words) {
        Ok(answer) => {
            let mut out = std::io::stdout().lock();
            if writeln!(out, "{answer}").and_then(|()| out.flush()).is_err() {
                return pass(&"codex: cannot write the rewrite");
            }
            ExitCode::SUCCESS
        }
        Err(why) => pass(&why),
    }
}

/// The hook's answer to the event `text`: the rewrite as Codex reads it, or
/// why the call is left alone. `words` gives the words of the rule files
/// that apply in a working directory, or why they cannot be known.
pub fn rewrite(
    text: &str,
    capout: &str,
    words: &dyn Fn(&Path) -> Result<Vec<String>, String>,
) -> Result<String, String> {
    let ev: Event = serde_json::from_str(text).map_err(|e| format!("codex: not a hook event: {e}"))?;
    if ev.hook_event_name != "PreToolUse" || ev.tool_name != "Bash" {
        return Err(format!("codex: left alone: event {} of tool '{}'", ev.hook_event_name, ev.tool_name));
    }
    let Some(command) = ev.tool_input.get("command").and_then(|c| c.as_str()) else {
        return Err("codex: left alone: the event has no command".into());
    };
    if command.trim().is_empty() {
        return Err("codex: left alone: an empty command".into());
    }
    if command.contains('\0') {
        return Err("codex: left alone: a NUL byte, which no argument of a command can hold".into());
    }
    if super::already_wrapped(command) {
        return Err("codex: left alone: the command already runs under capout".into());
    }
    let left_alone = |why: String| format!("codex: left alone: {why}");
    let rules: std::collections::HashSet<String> =
        words(Path::new(&ev.cwd)).map_err(left_alone)?.into_iter().collect();
    let command_words = words_of(command).map_err(left_alone)?;
    if let Some(word) = command_words.iter().find(|w| BUILT_IN.contains(&w.as_str()) || rules.contains(*w)) {
        return Err(format!(
            "codex: left alone: Codex checks its rules on the words of a command, and `{word}` may be one of a rule"
        ));
    }
    let wrapped = format!("{} hook codex \"$0\" {}", super::quote(capout), super::quote(command));
    if let Some(why) = super::too_long(&wrapped) {
        return Err(left_alone(why));
    }
    let answer = serde_json::json!({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "updatedInput": {"command": wrapped},
        }
    });
    Ok(answer.to_string())
}

/// Words that Codex decides on without any rule file (its refusal of
/// `rm -f`, also after `sudo`), and capout's own name, which a user's rule
/// could be about.
const BUILT_IN: &[&str] = &["rm", "sudo", "capout"];

/// Where a word ends, or another starts, with no blank between: the
/// shell's operators and the characters that open an expansion, a
/// substitution, a glob or a comment.
const BREAKS: &str = "\"'`;&|(){}<>$=\\!*?[]#~";

/// The words of a shell command that a rule could be about, each also
/// without its folder: more than the shell's words, never fewer.
///
/// Two readings are joined. The shell's own words, after quote removal
/// (`r''m`, `r\m` and `"r"m` are `rm`; a backslash-newline joins), each
/// also cut where an operator or an expansion starts another command
/// (`a;rm`, `$(rm x)`). And the command with every quote, backslash and
/// line continuation taken out, cut at blanks and at those characters:
/// a word quoted twice over (`eval 'r""m'`, `"$(r''m x)"`, a heredoc's
/// body) loses its quotes there too. A command that the shell's rules
/// cannot split (quotes that do not close) or whose words capout cannot
/// know (an escape in `$'...'`, which bash decodes) is `Err`, with why.
fn words_of(command: &str) -> Result<Vec<String>, String> {
    if has_ansi_c_escape(command) {
        return Err("an escape in $'...', whose word bash decodes and capout does not".into());
    }
    let shell_words = shlex::split(&without_heredoc_bodies(command))
        .ok_or("quotes that do not close, so capout cannot split the command into words")?;
    let bare = command.replace("\\\n", "").replace(['\'', '"', '\\'], "");
    let mut words: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut add = |word: &str| {
        for w in [word, word.rsplit('/').next().unwrap_or(word)] {
            if !w.is_empty() && seen.insert(w.to_owned()) {
                words.push(w.to_owned());
            }
        }
    };
    for word in &shell_words {
        add(word);
        word.split(|c: char| c.is_whitespace() || BREAKS.contains(c)).for_each(&mut add);
    }
    bare.split(|c: char| c.is_whitespace() || BREAKS.contains(c)).for_each(&mut add);
    Ok(words)
}

/// Whether `command` holds an ANSI-C quote `$'...'` with a backslash in it
/// (`$'\x72m'` is `rm`). Double quotes are looked through, as a word
/// built of `"$"'...'` becomes such a quote once `eval` reads it.
fn has_ansi_c_escape(command: &str) -> bool {
    let bare = command.replace('"', "");
    bare.match_indices("$'").any(|(at, _)| {
        let body = &bare[at + 2..];
        body.find(['\\', '\'']).is_some_and(|end| body[end..].starts_with('\\'))
    })
}

/// `command` without the bodies of its heredocs, whose lines are the
/// input of a command, not words of one (an apostrophe there opens no
/// quote). A body that bash expands (`<<EOF`, not `<<'EOF'`) may run
/// commands; its words are still read, with every quote taken out, by
/// [`words_of`].
fn without_heredoc_bodies(command: &str) -> String {
    let mut out = String::with_capacity(command.len());
    // The delimiters of the heredocs opened on the current line, and
    // whether each strips leading tabs (`<<-`).
    let mut pending: Vec<(String, bool)> = Vec::new();
    let mut lines = command.split_inclusive('\n');
    while let Some(line) = lines.next() {
        out.push_str(line);
        pending.extend(heredocs_opened(line));
        for (delimiter, tabs) in pending.drain(..) {
            for body in lines.by_ref() {
                let body = body.strip_suffix('\n').unwrap_or(body);
                let body = if tabs { body.trim_start_matches('\t') } else { body };
                if body == delimiter {
                    out.push('\n');
                    break;
                }
            }
        }
    }
    out
}

/// The heredocs that `line` opens, in order: each delimiter as the shell
/// compares it (its quotes taken out), and whether it is `<<-`.
fn heredocs_opened(line: &str) -> Vec<(String, bool)> {
    let mut found = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("<<") {
        rest = &rest[at + 2..];
        if let Some(after) = rest.strip_prefix('<') {
            // `<<<` is a here-string: no body follows.
            rest = after.trim_start_matches('<');
            continue;
        }
        let tabs = rest.starts_with('-');
        let word = rest.trim_start_matches('-').trim_start_matches([' ', '\t']);
        let end = word.find(|c: char| c.is_whitespace() || ";&|()<>".contains(c)).unwrap_or(word.len());
        let delimiter: String = word[..end].chars().filter(|c| !matches!(c, '\'' | '"' | '\\')).collect();
        if !delimiter.is_empty() {
            found.push((delimiter, tabs));
        }
        rest = &word[end..];
    }
    found
}

/// The words of every rule file that Codex reads for a call in `cwd`: its
/// own folder's (`$CODEX_HOME`, else `~/.codex`), the system's
/// (`/etc/codex`), and each project's `.codex` from `cwd` up: the
/// `rules/*.rules` files and `requirements.toml`. Each is read as
/// [`crate::safe_read`] reads (a regular file of at most 1 MiB, without
/// waiting): one that is there but cannot be read so (a FIFO, a link to a
/// device, a huge file, one that a project carries in git) is `Err`,
/// since its rules could be about any word; so is a `.rules` file that
/// builds a word (see `literals`). A string's escapes are decoded, and
/// a comment's quotes open no string.
pub fn rule_words(cwd: &Path) -> Result<Vec<String>, String> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(home) = std::env::var_os("CODEX_HOME").filter(|h| !h.is_empty()) {
        dirs.push(PathBuf::from(home));
    } else if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        dirs.push(Path::new(&home).join(".codex"));
    }
    dirs.push(PathBuf::from("/etc/codex"));
    dirs.extend(cwd.ancestors().filter(|d| d.is_absolute()).map(|d| d.join(".codex")));
    let mut words = Vec::new();
    for dir in dirs {
        let mut files = vec![dir.join("requirements.toml")];
        if let Ok(entries) = std::fs::read_dir(dir.join("rules")) {
            files.extend(
                entries.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "rules")),
            );
        }
        for file in files {
            let text = match crate::safe_read::read(&file, crate::safe_read::MAX_SIZE) {
                Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(format!("the rule file {} cannot be read: {e}", file.display())),
            };
            let starlark = file.extension().is_some_and(|x| x == "rules");
            let strings = literals(&text, starlark).map_err(|what| {
                format!(
                    "the rule file {} builds a word with {what}, so any command may be one of its rules",
                    file.display()
                )
            })?;
            for w in strings.iter().flat_map(|s| s.split_whitespace()) {
                words.push(w.to_owned());
                words.push(w.rsplit('/').next().unwrap_or(w).to_owned());
            }
        }
    }
    Ok(words)
}

/// The strings of a rule file, their escapes decoded as Codex decodes
/// them: Starlark (`.rules`), or with `starlark` false TOML. Codex
/// evaluates a `.rules` file, so a word of its rules may be built (`"cu" +
/// "rl"`, an f-string, a method or an index of a string): `Err` says how,
/// as capout cannot know such a word.
fn literals(text: &str, starlark: bool) -> Result<Vec<String>, String> {
    const KEYWORDS: &[&str] = &["in", "not", "and", "or", "if", "elif", "else", "for", "return", "lambda"];
    let mut out = Vec::new();
    // Whether what came last ends a value, so that a `[` after it is an
    // index, not a list.
    let mut after_value = false;
    let mut i = 0;
    while let Some(c) = text[i..].chars().next() {
        match c {
            '#' => {
                i = text[i..].find('\n').map_or(text.len(), |n| i + n);
                continue;
            }
            '"' | '\'' => {
                // The prefix of a string is the letters just before it.
                let word = text[..i].len()
                    - text[..i].trim_end_matches(|c: char| c.is_alphanumeric() || c == '_').len();
                let prefix = text[i - word..i].to_ascii_lowercase();
                let prefixed = starlark
                    && !prefix.is_empty()
                    && prefix.len() <= 2
                    && prefix.chars().all(|p| "frb".contains(p));
                if prefixed && prefix.contains('f') {
                    return Err("an f-string".into());
                }
                let raw = if starlark { prefixed && prefix.contains('r') } else { c == '\'' };
                let quotes = if text[i..].starts_with(&c.to_string().repeat(3)) { 3 } else { 1 };
                let close = c.to_string().repeat(quotes);
                let body_start = i + quotes;
                let mut j = body_start;
                while j < text.len() && !text[j..].starts_with(&close) {
                    // A backslash keeps the next character in the string (in
                    // a raw Starlark string too; a TOML literal string has
                    // no escapes).
                    let step = if text[j..].starts_with('\\') && (starlark || !raw) { 2 } else { 1 };
                    j += text[j..].chars().take(step).map(char::len_utf8).sum::<usize>();
                }
                let body = &text[body_start..j.min(text.len())];
                out.push(if raw { body.to_owned() } else { unescape(body) });
                i = (j + close.len()).min(text.len());
                after_value = true;
                continue;
            }
            '+' | '%' | '*' if starlark => return Err(format!("'{c}'")),
            '.' if starlark && text[i + 1..].starts_with(|c: char| c.is_alphabetic() || c == '_') => {
                return Err("a method call".into());
            }
            '[' if starlark && after_value => return Err("an index or a slice".into()),
            c if c.is_alphanumeric() || c == '_' => {
                let len = text[i..].len()
                    - text[i..].trim_start_matches(|c: char| c.is_alphanumeric() || c == '_').len();
                after_value = !KEYWORDS.contains(&&text[i..i + len]);
                i += len;
                continue;
            }
            ')' | ']' | '}' => after_value = true,
            ' ' | '\t' | '\r' => {}
            _ => after_value = false,
        }
        i += c.len_utf8();
    }
    Ok(out)
}

/// A string's body with its escapes decoded (Starlark's and TOML's); an
/// escape that is neither stays as it is.
fn unescape(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let hex = |chars: &mut std::iter::Peekable<std::str::Chars>, n: usize| {
            let digits: String = (0..n).map_while(|_| chars.next_if(char::is_ascii_hexdigit)).collect();
            u32::from_str_radix(&digits, 16).ok().and_then(char::from_u32)
        };
        let decoded = match chars.next() {
            Some('n') => Some('\n'),
            Some('t') => Some('\t'),
            Some('r') => Some('\r'),
            Some('a') => Some('\u{7}'),
            Some('b') => Some('\u{8}'),
            Some('f') => Some('\u{c}'),
            Some('v') => Some('\u{b}'),
            Some('e') => Some('\u{1b}'),
            Some('\n') => continue,
            Some('x') => hex(&mut chars, 2),
            Some('u') => hex(&mut chars, 4),
            Some('U') => hex(&mut chars, 8),
            Some(d @ '0'..='7') => {
                let mut n = d.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.next_if(|c| ('0'..='7').contains(c)) {
                        Some(d) => n = n * 8 + d.to_digit(8).unwrap_or(0),
                        None => break,
                    }
                }
                char::from_u32(n)
            }
            Some(c @ ('"' | '\'' | '\\')) => Some(c),
            Some(c) => {
                out.push('\\');
                Some(c)
            }
            None => Some('\\'),
        };
        out.extend(decoded);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `PreToolUse` event as Codex CLI 0.171.0 sends it.
    const SAMPLE: &str = r#"{"session_id":"01a232e3-c0a3-75c2-adcb-e984a71ac262","turn_id":"01a232e3-c0c3-72f0-b3b3-768626a52ca0","transcript_path":"/tmp/h/.codex/sessions/rollout.jsonl","cwd":"/tmp/h/proj","hook_event_name":"PreToolUse","model":"test-model","permission_mode":"bypassPermissions","tool_name":"Bash","tool_input":{"command":"seq 100000"},"tool_use_id":"call_a716e8c3bc86477ab4f1"}"#;

    #[allow(clippy::unnecessary_wraps)] // the type `rewrite` takes
    fn none(_: &Path) -> Result<Vec<String>, String> {
        Ok(Vec::new())
    }

    fn with_command(command: &str) -> String {
        SAMPLE.replace(r#""seq 100000""#, &serde_json::to_string(command).unwrap())
    }

    #[test]
    fn a_shell_command_is_wrapped_in_codexs_schema() {
        assert_eq!(
            rewrite(SAMPLE, "/opt/my tools/capout", &none).unwrap(),
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"'/opt/my tools/capout' hook codex \"$0\" 'seq 100000'"}}}"#
        );
    }

    #[test]
    fn a_capout_path_that_would_run_something_is_one_quoted_word() {
        let answer: serde_json::Value =
            serde_json::from_str(&rewrite(SAMPLE, "/tmp/g;uname;/it's/capout", &none).unwrap()).unwrap();
        assert_eq!(
            answer["hookSpecificOutput"]["updatedInput"]["command"],
            "'/tmp/g;uname;/it'\\''s/capout' hook codex \"$0\" 'seq 100000'"
        );
    }

    #[test]
    fn quotes_and_heredocs_stay_one_argument() {
        let command = "cat <<'EOF'\nit's \"x\"\nEOF";
        let answer: serde_json::Value =
            serde_json::from_str(&rewrite(&with_command(command), "/bin/capout", &none).unwrap()).unwrap();
        assert_eq!(
            answer["hookSpecificOutput"]["updatedInput"]["command"],
            "/bin/capout hook codex \"$0\" 'cat <<'\\''EOF'\\''\nit'\\''s \"x\"\nEOF'"
        );
    }

    #[test]
    fn a_word_of_a_rule_leaves_the_command_to_codex() {
        let rules = |_: &Path| Ok(vec!["git".to_owned(), "status".to_owned()]);
        assert_eq!(
            rewrite(&with_command("cd sub && git status"), "/bin/capout", &rules).unwrap_err(),
            "codex: left alone: Codex checks its rules on the words of a command, and `git` may be one of a rule"
        );
        assert!(rewrite(&with_command("/bin/rm -f victim"), "/bin/capout", &none).is_err());
        assert!(rewrite(&with_command("echo $(sudo ls)"), "/bin/capout", &none).is_err());
        assert!(rewrite(&with_command("seq 3 | capout -n 1"), "/bin/capout", &none).is_err());
    }

    #[test]
    fn a_command_with_a_nul_byte_is_left_alone() {
        assert_eq!(
            rewrite(&with_command("echo a\0b"), "/bin/capout", &none).unwrap_err(),
            "codex: left alone: a NUL byte, which no argument of a command can hold"
        );
    }

    #[test]
    fn bad_json_other_events_and_wrapped_commands_are_left_alone() {
        assert!(
            rewrite("{not json", "/bin/capout", &none).unwrap_err().starts_with("codex: not a hook event: ")
        );
        assert_eq!(
            rewrite(r#"{"hook_event_name":"PostToolUse","tool_name":"Bash"}"#, "/bin/capout", &none)
                .unwrap_err(),
            "codex: left alone: event PostToolUse of tool 'Bash'"
        );
        assert_eq!(
            rewrite(&with_command("'/opt/x/capout' hook codex \"$0\" 'ls'"), "/bin/capout", &none)
                .unwrap_err(),
            "codex: left alone: the command already runs under capout"
        );
    }

    #[test]
    fn rule_files_give_their_quoted_words() {
        let text = "# a comment\nprefix_rule(pattern=[\"git\", [\"status\", 'log']], decision=\"allow\", justification=\"read \\\"only\\\"\")\nhost_executable(name=\"rm\", paths=[\"/usr/bin/rm\"])\n";
        assert_eq!(
            literals(text, true).unwrap(),
            ["git", "status", "log", "allow", "read \"only\"", "rm", "/usr/bin/rm"]
        );
    }

    /// The words of a project whose one rule file holds `text`.
    fn words_of_rules(text: &str) -> Result<Vec<String>, String> {
        let home = tempfile::tempdir().unwrap();
        let rules = home.path().join("proj/.codex/rules");
        std::fs::create_dir_all(&rules).unwrap();
        std::fs::write(rules.join("a.rules"), text).unwrap();
        rule_words(&home.path().join("proj")).map_err(|e| e.replace(&home.path().display().to_string(), "H"))
    }

    #[test]
    fn a_rule_file_that_builds_its_words_leaves_every_command_to_codex() {
        // Codex reads its rules as Starlark: what a rule is about may be
        // computed, and capout reads words, not programs.
        for (text, what) in [
            ("prefix_rule(pattern=[\"cu\" + \"rl\"], decision=\"forbidden\")", "'+'"),
            ("prefix_rule(pattern=[\"%s\" % \"curl\"])", "'%'"),
            ("prefix_rule(pattern=[\"\".join([\"cu\", \"rl\"])])", "a method call"),
            ("prefix_rule(pattern=[\"CURL\".lower()])", "a method call"),
            ("a = \"cu\"\nprefix_rule(pattern=[f\"{a}rl\"])", "an f-string"),
            ("prefix_rule(pattern=[\"xcurl\"[1:]])", "an index or a slice"),
            ("prefix_rule(pattern=[\"c\" * 1])", "'*'"),
        ] {
            assert_eq!(
                words_of_rules(text),
                Err(format!(
                    "the rule file H/proj/.codex/rules/a.rules builds a word with {what}, so any command may be one of its rules"
                )),
                "{text}"
            );
        }
    }

    #[test]
    fn a_rule_files_escapes_are_read_as_codex_reads_them() {
        for text in [
            "prefix_rule(pattern=[\"\\x63url\"])",
            "prefix_rule(pattern=[\"\\143url\"])",
            "prefix_rule(pattern=['\\u0063url'])",
            "prefix_rule(pattern=[\"\"\"curl\"\"\"])",
            "prefix_rule(pattern=[r\"curl\"], justification = \"1.5 \\\" # not a comment\")",
            // An apostrophe in a comment opens no string.
            "# don't\nprefix_rule(pattern=[\"curl\"], decision = \"forbidden\")\n# won't",
            "x = 1.5\nfor p in [\"curl\"]:\n    prefix_rule(pattern=[p])",
        ] {
            let words = words_of_rules(text).unwrap();
            assert!(words.iter().any(|w| w == "curl"), "{text}: {words:?}");
        }
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join("proj/.codex")).unwrap();
        std::fs::write(
            home.path().join("proj/.codex/requirements.toml"),
            "[rules]\nprefix_rules = [{ pattern = [{ token = \"\\u0063url\" }], decision = \"forbidden\" }]\nx = 1.5 # a.b(\n",
        )
        .unwrap();
        let words = rule_words(&home.path().join("proj")).unwrap();
        assert!(words.iter().any(|w| w == "curl"), "{words:?}");
    }

    #[test]
    fn rule_words_reads_the_users_and_the_projects_rules() {
        let home = tempfile::tempdir().unwrap();
        let proj = home.path().join("proj/sub");
        std::fs::create_dir_all(home.path().join("proj/.codex/rules")).unwrap();
        std::fs::create_dir_all(&proj).unwrap();
        std::fs::write(home.path().join("proj/.codex/rules/a.rules"), "prefix_rule(pattern=[\"make\"])")
            .unwrap();
        let words = rule_words(&proj).unwrap();
        assert!(words.iter().any(|w| w == "make"), "{words:?}");
    }

    /// What the hook says of `command`, given rules on `curl` and `make`.
    fn verdict(command: &str) -> Result<String, String> {
        let rules = |_: &Path| Ok(vec!["curl".to_owned(), "make".to_owned()]);
        rewrite(&with_command(command), "/bin/capout", &rules)
    }

    #[test]
    fn a_word_built_of_quoted_parts_is_the_word_of_a_rule() {
        let leaves = |word: &str| {
            format!(
                "codex: left alone: Codex checks its rules on the words of a command, and `{word}` may be one of a rule"
            )
        };
        for (command, word) in [
            ("r''m -f victim", "rm"),
            ("r\\m -f victim", "rm"),
            ("\"r\"m -f victim", "rm"),
            ("'r'\"m\" -f victim", "rm"),
            ("/bin/r''m -f victim", "rm"),
            ("r\\\nm -f victim", "rm"),
            ("su''do ls", "sudo"),
            ("cu''rl -s example.com", "curl"),
            ("ma\"\"ke -j4", "make"),
            ("c''apout -n 1 -- ls", "capout"),
            ("echo ok;r''m x", "rm"),
            ("true&&r\\m x", "rm"),
            ("echo $(r''m x)", "rm"),
            ("echo \"$(r\"\"m x)\"", "rm"),
            ("echo `r''m x`", "rm"),
            ("eval 'r\"\"m x'", "rm"),
            ("bash -c \"r'm' x\"", "rm"),
            ("x=cu''rl; $x example.com", "curl"),
            ("cat <<EOF\n$(r''m x)\nEOF", "rm"),
            ("echo hi # \n r''m x", "rm"),
        ] {
            assert_eq!(verdict(command).unwrap_err(), leaves(word), "{command:?}");
        }
    }

    #[test]
    fn hostile_commands_never_hide_a_rules_word() {
        // A word of a rule, or of Codex's own refusals, anywhere: the
        // command is Codex's.
        for command in [
            "env r''m -f victim",
            "xargs r''m < list",
            "command r''m x",
            "builtin exec r''m x",
            "/usr/bin/env -S 'r''m -f' victim",
            "echo $(echo $(echo `r''m x`))",
            "cat <<E\\OF\nrm x\nEOF",
            "cat <<'E F'\nrm x\nE F",
            "cat <<EOF;\n`cu''rl x`\nEOF",
            "cat <<-EOF\n\tcurl x\n\tEOF",
            "echo a\\\n;c\\\nurl x",
            "(cu''rl x)",
            "{ cu''rl x; }",
            "if true; then cu\\rl x; fi",
            "f() { cu\"\"rl x; }; f",
            "x=cu; y=rl; eval \"$x$y\" || curl x",
            "shopt -s expand_aliases; alias x=cu''rl; x",
            "nohup su\\do ls &",
            "time ma''ke",
            "echo hi > >(cu''rl x)",
            "[[ $(cu''rl x) ]]",
            "echo ${y:=$(cu''rl x)}",
            "$\"r\"m x",
            &format!("{} ; r''m x", "a".repeat(100_000)),
        ] {
            let why = verdict(command).unwrap_err();
            assert!(why.starts_with("codex: left alone: "), "{command:?}: {why}");
        }
        // What Codex cannot read as a word either (an expansion, a
        // program of another name) gains nothing from capout's rewrite:
        // Codex's rules never match it, with capout or without.
        for command in ["find . -delete", "ｒｍ x", "гm x", "r\u{200b}m x", "x=xrm; ${x:1} victim", "{r,}m x"]
        {
            assert!(verdict(command).is_ok(), "{command:?}: {:?}", verdict(command));
        }
    }

    #[test]
    fn words_the_shell_would_decode_or_cannot_split_leave_the_command_to_codex() {
        for (command, why) in [
            ("$'\\x72m' -f victim", "an escape in $'...', whose word bash decodes and capout does not"),
            ("echo \"$\"'\\162m' x", "an escape in $'...', whose word bash decodes and capout does not"),
            ("echo 'unclosed", "quotes that do not close, so capout cannot split the command into words"),
            ("echo \"unclosed", "quotes that do not close, so capout cannot split the command into words"),
        ] {
            assert_eq!(verdict(command).unwrap_err(), format!("codex: left alone: {why}"), "{command:?}");
        }
    }

    #[test]
    fn commands_whose_words_no_rule_names_are_still_wrapped() {
        for command in [
            "seq 3 | grep 2",
            "echo 'removal' rmdir-x",
            "cat <<'EOF'\nit's here\nEOF\necho done",
            "cat <<-EOF\n\tdon't\n\tEOF\necho done",
            "printf '%s\\n' $'no escape' a\\ b",
            "grep -E 'x$' f && sed 's/\\./,/' g",
            "echo \"a'b\" 'c\"d'",
        ] {
            assert!(verdict(command).is_ok(), "{command:?}: {:?}", verdict(command));
        }
    }

    #[test]
    fn a_rewrite_of_128_kib_or_more_is_left_alone() {
        let wrapped = |command: &str| -> Result<usize, String> {
            let answer: serde_json::Value =
                serde_json::from_str(&rewrite(&with_command(command), "/c", &none)?).unwrap();
            Ok(answer["hookSpecificOutput"]["updatedInput"]["command"].as_str().unwrap().len())
        };
        let overhead = wrapped("x").unwrap() - 1;
        let longest = "x".repeat(super::super::MAX_REWRITE - overhead);
        assert_eq!(wrapped(&longest), Ok(128 * 1024 - 1));
        assert_eq!(
            wrapped(&format!("{longest}x")).unwrap_err(),
            "codex: left alone: the rewrite would be 131072 bytes, at or over the 128 KiB that one argument of a command may hold"
        );
        // Each ' of the command is four bytes of the rewrite ('\''): a 99 KB
        // command of `bash -c` grows past the limit.
        let quoted = format!("echo {}", "'a'".repeat(33_000));
        assert!(wrapped(&quoted).unwrap_err().starts_with("codex: left alone: the rewrite would be 2"));
    }

    #[test]
    fn a_rule_file_that_is_a_fifo_or_a_device_is_refused_without_blocking() {
        let home = tempfile::tempdir().unwrap();
        let rules = home.path().join("proj/.codex/rules");
        std::fs::create_dir_all(&rules).unwrap();
        let fifo = rules.join("fifo.rules");
        rustix::fs::mkfifoat(rustix::fs::CWD, &fifo, rustix::fs::Mode::from_raw_mode(0o600)).unwrap();
        let err = rule_words(&home.path().join("proj")).unwrap_err();
        assert_eq!(
            err,
            format!("the rule file {} cannot be read: it is a FIFO, not a regular file", fifo.display())
        );
        std::fs::remove_file(&fifo).unwrap();
        std::os::unix::fs::symlink("/dev/zero", rules.join("zero.rules")).unwrap();
        assert!(
            rule_words(&home.path().join("proj"))
                .unwrap_err()
                .ends_with("it is a character device, not a regular file")
        );
        std::fs::remove_file(rules.join("zero.rules")).unwrap();
        std::fs::write(rules.join("big.rules"), vec![b'#'; (crate::safe_read::MAX_SIZE + 1) as usize])
            .unwrap();
        assert!(rule_words(&home.path().join("proj")).unwrap_err().ends_with("it is larger than 1 MiB"));
        // Codex reads only `*.rules`: another file there is no rule file.
        std::fs::rename(rules.join("big.rules"), rules.join("big.rules.orig")).unwrap();
        assert!(rule_words(&home.path().join("proj")).is_ok());
    }
}
