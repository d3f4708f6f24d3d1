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
        format!("{{\"theme\":\"dark\",\"env\": {{\"CLAUDE_CODE_SHELL_PREFIX\": \"{}\"}}}}", link.display())
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
