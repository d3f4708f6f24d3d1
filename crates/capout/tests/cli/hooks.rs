//! `capout init claude-code` and the shell prefix it sets up, run as
//! Claude Code runs them, without Claude Code.

use std::path::Path;

use crate::common::capout_std;

/// A throwaway home, with its own temporary folder.
fn home() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("tmp")).unwrap();
    dir
}

fn init(home: &Path, args: &[&str]) -> std::process::Output {
    capout_std()
        .arg("init")
        .arg("claude-code")
        .args(args)
        .env("HOME", home)
        .env_remove("CLAUDE_CONFIG_DIR")
        .current_dir(home)
        .output()
        .unwrap()
}

#[test]
fn init_claude_code_sets_the_prefix_and_uninstall_gives_the_file_back() {
    let home = home();
    let settings = home.path().join(".claude/settings.json");
    std::fs::create_dir(home.path().join(".claude")).unwrap();
    std::fs::write(&settings, "{\"theme\":\"dark\"}").unwrap();
    let out = init(home.path(), &[]);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let link = home.path().join(".claude/capout-claude-code");
    assert_eq!(
        std::fs::read_to_string(&settings).unwrap(),
        format!(
            "{{\"theme\":\"dark\",\"env\": {{\"CLAUDE_CODE_SHELL_PREFIX\": \"{}\"}},\"hooks\": {{\"PreToolUse\": \
             [{{\"matcher\": \"Bash\", \"hooks\": [{{\"type\": \"command\", \"command\": \"{} hook claude-code\"}}]}}]}}}}",
            link.display(),
            env!("CARGO_BIN_EXE_capout")
        )
    );
    assert_eq!(std::fs::read_link(&link).unwrap(), Path::new(env!("CARGO_BIN_EXE_capout")));
    let out = init(home.path(), &["--uninstall"]);
    assert!(out.status.success());
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), "{\"theme\":\"dark\"}");
    assert!(!link.exists());
}

#[test]
fn the_prefix_runs_claude_codes_script_under_capout_and_keeps_its_status_and_cwd() {
    let home = home();
    init(home.path(), &[]);
    let cwd = home.path().join("cwd");
    let script = format!("cd /tmp && eval 'seq 100000; exit 3' < /dev/null && pwd -P >| {}", cwd.display());
    let out = std::process::Command::new(home.path().join(".claude/capout-claude-code"))
        .arg(&script)
        .env("HOME", home.path())
        .env("TMPDIR", home.path().join("tmp"))
        .env("SHELL", "/bin/bash")
        .env_remove("CAPOUT_OPTS")
        .env_remove("CAPOUT_CONFIG")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let text = String::from_utf8(out.stdout).unwrap();
    let saved = home.path().join("tmp").join(format!("capout-{}", rustix_uid()));
    let (kept, notice) = text.rsplit_once("\n... ").unwrap();
    assert!(kept.ends_with("\n99999\n100000"), "{kept:?}");
    assert!(
        notice.starts_with(&format!(
            "(truncated, showing last 5000 chars; full output: {}/capout-",
            saved.display()
        )),
        "{notice}"
    );
    assert!(!cwd.exists(), "the script's own `&& pwd` runs only after a status 0");
    let ok = format!("cd /tmp && eval 'true' < /dev/null && pwd -P >| {}", cwd.display());
    let out = std::process::Command::new(home.path().join(".claude/capout-claude-code"))
        .arg(&ok)
        .env("TMPDIR", home.path().join("tmp"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(&cwd).unwrap(), "/tmp\n");
}

#[test]
fn the_prefix_runs_a_program_with_arguments_as_it_is() {
    let home = home();
    init(home.path(), &[]);
    let out = std::process::Command::new(home.path().join(".claude/capout-claude-code"))
        .args(["printf", "%s|", "a b", "c"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "a b|c|");
}

#[test]
fn a_hook_event_on_stdin_is_left_alone_with_one_line_on_stderr() {
    let out = capout_std()
        .args(["hook", "claude-code"])
        .stdin(std::fs::File::open("/dev/null").unwrap())
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(out.stdout, b"");
    assert!(
        String::from_utf8(out.stderr).unwrap().starts_with("capout: hook: claude-code: not a hook event: ")
    );
}

fn rustix_uid() -> u32 {
    let out = std::process::Command::new("id").arg("-u").output().unwrap();
    String::from_utf8(out.stdout).unwrap().trim().parse().unwrap()
}

fn init_gemini(home: &Path, args: &[&str]) -> std::process::Output {
    capout_std()
        .arg("init")
        .arg("gemini")
        .args(args)
        .env("HOME", home)
        .env_remove("GEMINI_CLI_HOME")
        .current_dir(home)
        .output()
        .unwrap()
}

#[test]
fn init_gemini_adds_the_hook_policy_and_link_and_uninstall_gives_all_back() {
    let home = home();
    let settings = home.path().join(".gemini/settings.json");
    std::fs::create_dir(home.path().join(".gemini")).unwrap();
    let before = "{\"security\":{\"auth\":{\"selectedType\":\"gemini-api-key\"}}}";
    std::fs::write(&settings, before).unwrap();
    let out = init_gemini(home.path(), &[]);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let link = home.path().join(".gemini/capout-gemini/bash");
    let text = std::fs::read_to_string(&settings).unwrap();
    assert!(text.contains(&format!("\"command\": \"{} hook gemini\"", link.display())), "{text}");
    assert_eq!(std::fs::read_link(&link).unwrap(), Path::new(env!("CARGO_BIN_EXE_capout")));
    let policy = std::fs::read_to_string(home.path().join(".gemini/policies/capout.toml")).unwrap();
    assert!(policy.contains(&format!("commandPrefix = [\"bash -c {0} -c\", \"{0} -c\"]\n", link.display())));
    let again = init_gemini(home.path(), &[]);
    assert_eq!(String::from_utf8(again.stdout).unwrap().matches(": unchanged\n").count(), 3);
    let out = init_gemini(home.path(), &["--uninstall"]);
    assert!(out.status.success());
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), before);
    assert!(!home.path().join(".gemini/policies").exists());
    assert!(!home.path().join(".gemini/capout-gemini").exists());
}

#[test]
fn init_gemini_refuses_a_home_with_a_space() {
    let home = home();
    let spaced = home.path().join("my home");
    std::fs::create_dir(&spaced).unwrap();
    let out = init_gemini(&spaced, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("holds a space, which a shell command made of it would have to quote")
    );
    assert!(!spaced.join(".gemini").exists());
}

#[test]
fn the_gemini_link_rewrites_an_event_and_runs_the_rewrite_under_capout() {
    let home = home();
    init_gemini(home.path(), &[]);
    let link = home.path().join(".gemini/capout-gemini/bash");
    let event = r#"{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"echo \"it's\"; seq 100000; exit 3","description":"d"}}"#;
    let mut child = std::process::Command::new(&link)
        .args(["hook", "gemini"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), event.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let command = answer["hookSpecificOutput"]["tool_input"]["command"].as_str().unwrap();
    assert_eq!(command, format!("bash -c {} -c \"echo \\\"it's\\\"; seq 100000; exit 3\"", link.display()));
    assert_eq!(answer["hookSpecificOutput"]["tool_input"]["description"], "d");
    // Gemini CLI runs what follows `bash -c `.
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(command.strip_prefix("bash -c ").unwrap())
        .env("HOME", home.path())
        .env("TMPDIR", home.path().join("tmp"))
        .env_remove("CAPOUT_OPTS")
        .env_remove("CAPOUT_CONFIG")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let text = String::from_utf8(out.stdout).unwrap();
    let (kept, notice) = text.rsplit_once("\n... ").unwrap();
    assert!(kept.ends_with("\n99999\n100000"), "{kept:?}");
    let saved = home.path().join("tmp").join(format!("capout-{}", rustix_uid()));
    assert!(notice.starts_with(&format!(
        "(truncated, showing last 5000 chars; full output: {}/capout-",
        saved.display()
    )));
}

#[test]
fn a_gemini_event_it_cannot_wrap_is_left_alone_with_one_line_on_stderr() {
    for event in [
        "{not json",
        r#"{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"rm -f x"}}"#,
    ] {
        let mut child = capout_std()
            .args(["hook", "gemini"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::io::Write::write_all(&mut child.stdin.take().unwrap(), event.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(out.stdout, b"");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.starts_with("capout: hook: gemini: ") && err.matches('\n').count() == 1, "{err}");
    }
}

#[test]
fn the_prefix_keeps_a_profile_bash_that_the_config_file_replaces() {
    let home = home();
    init(home.path(), &[]);
    let config = home.path().join("config");
    std::fs::create_dir_all(config.join("capout")).unwrap();
    std::fs::write(config.join("capout/config.toml"), "[profile.bash]\ntail-chars = 12\n").unwrap();
    let cwd = home.path().join("cwd");
    let script = format!("true && eval 'seq 100000' < /dev/null && pwd -P >| {}", cwd.display());
    let out = std::process::Command::new(home.path().join(".claude/capout-claude-code"))
        .arg(&script)
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", &config)
        .env("TMPDIR", home.path().join("tmp"))
        .env("SHELL", "/bin/bash")
        .env_remove("CAPOUT_OPTS")
        .env_remove("CAPOUT_CONFIG")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    let saved = home.path().join("tmp").join(format!("capout-{}", rustix_uid()));
    let (kept, notice) = text.split_once("\n... ").unwrap();
    assert_eq!(kept, "9999\n100000");
    assert!(
        notice.starts_with(&format!(
            "(truncated, showing last 12 chars; full output: {}/capout-",
            saved.display()
        )),
        "{notice}"
    );
}

/// `capout hook gemini` on the event of a shell call of `command`, in
/// `home` (`GEMINI_CLI_HOME`, when given, points elsewhere).
fn hook_gemini(home: &Path, gemini_home: Option<&Path>, command: &str) -> std::process::Output {
    let mut cmd = capout_std();
    cmd.args(["hook", "gemini"])
        .env("HOME", home)
        .env("TMPDIR", home.join("tmp"))
        .env_remove("GEMINI_CLI_HOME")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    if let Some(dir) = gemini_home {
        cmd.env("GEMINI_CLI_HOME", dir);
    }
    let mut child = cmd.spawn().unwrap();
    let event = serde_json::json!({
        "hook_event_name": "BeforeTool", "tool_name": "run_shell_command", "tool_input": {"command": command},
    });
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), event.to_string().as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn hook_gemini_leaves_the_call_alone_where_init_never_ran() {
    let home = home();
    let out = hook_gemini(home.path(), None, "echo hello");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "capout: hook: gemini: left alone: {}/.gemini/capout-gemini/bash cannot be run: No such file or directory (os error 2); `capout init gemini` makes the link\n",
            home.path().display()
        )
    );
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn hook_gemini_leaves_the_call_alone_when_the_link_is_not_capout() {
    let home = home();
    let link = home.path().join(".gemini/capout-gemini/bash");
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink("/bin/sh", &link).unwrap();
    let out = hook_gemini(home.path(), None, "echo hello");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "capout: hook: gemini: left alone: {} is not this capout (another program, or a capout that replaced it); `capout init gemini` makes the link\n",
            link.display()
        )
    );
}

#[test]
fn hook_gemini_never_puts_a_hostile_gemini_cli_home_in_a_command() {
    let home = home();
    // The link is there, as `init gemini` once made it for such a home.
    let hostile = home.path().join("g;uname;");
    let link = hostile.join(".gemini/capout-gemini/bash");
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_capout"), &link).unwrap();
    let out = hook_gemini(home.path(), Some(&hostile), "echo hello");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "capout: hook: gemini: left alone: the link's path '{}' would need quotes in the command, which Gemini CLI's policy engine does not see through\n",
            link.display()
        )
    );
}

/// Runs `capout hook claude-code` on a `PreToolUse` event of `command`
/// in session `session`, as Claude Code does before the call.
fn hook_claude_code(home: &Path, session: &str, command: &str, timeout_ms: u64) -> std::process::Output {
    let mut child = capout_std()
        .args(["hook", "claude-code"])
        .env("HOME", home)
        .env("TMPDIR", home.join("tmp"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let event = serde_json::json!({
        "session_id": session, "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": command, "timeout": timeout_ms, "description": "d"}, "tool_use_id": "toolu_1",
    });
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), event.to_string().as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

/// Starts Claude Code's script for `command` through the prefix, as
/// Claude Code starts it: the leader of a process group of its own, its
/// output into a file, `out`.
fn start_prefix(home: &Path, session: &str, command: &str, out: &Path) -> std::process::Child {
    use std::os::unix::process::CommandExt;
    let quoted = format!("'{}'", command.replace('\'', "'\"'\"'"));
    let script = format!("true && eval {quoted} < /dev/null && pwd -P >| {}", home.join("cwd").display());
    std::process::Command::new(home.join(".claude/capout-claude-code"))
        .arg(&script)
        .current_dir(home)
        .env("HOME", home)
        .env("TMPDIR", home.join("tmp"))
        .env("SHELL", "/bin/bash")
        .env("CLAUDE_CODE_SESSION_ID", session)
        .env_remove("CAPOUT_OPTS")
        .env_remove("CAPOUT_CONFIG")
        .process_group(0)
        .stdout(std::fs::File::create(out).unwrap())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

#[test]
fn claude_codes_timeout_shows_the_output_so_far_before_it_and_the_command_goes_on() {
    let home = home();
    init(home.path(), &[]);
    let command = "echo start; while [ ! -e go ]; do sleep 0.05; done; echo end";
    let hooked = hook_claude_code(home.path(), "s-1", command, 2000);
    assert_eq!((hooked.status.code(), &hooked.stdout[..], &hooked.stderr[..]), (Some(0), &b""[..], &b""[..]));
    let out = home.path().join("out");
    let mut child = start_prefix(home.path(), "s-1", command, &out);
    // Claude Code reads the file when its timeout expires, 2 s after the
    // start: by then the output so far is there.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !std::fs::read_to_string(&out).unwrap().contains("still running") {
        assert!(std::time::Instant::now() < deadline, "{:?}", std::fs::read_to_string(&out));
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::fs::write(home.path().join("go"), "").unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "start\n... (still running after 1.5s: the output so far)\nstart\nend\n"
    );
}

#[test]
fn a_command_that_ends_before_claude_codes_timeout_shows_its_output_once() {
    let home = home();
    init(home.path(), &[]);
    hook_claude_code(home.path(), "s-2", "seq 3", 1000);
    let out = home.path().join("out");
    assert_eq!(start_prefix(home.path(), "s-2", "seq 3", &out).wait().unwrap().code(), Some(0));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "1\n2\n3\n");
    // The hook's note was taken: none is left for a later call.
    let saved = home.path().join("tmp").join(format!("capout-{}", rustix_uid()));
    let left: Vec<_> = std::fs::read_dir(&saved).unwrap().flatten().map(|e| e.file_name()).collect();
    assert!(left.is_empty(), "{left:?}");
}
