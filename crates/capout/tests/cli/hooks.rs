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
            "{{\n  \"theme\": \"dark\",\n  \"env\": {{\n    \"CLAUDE_CODE_SHELL_PREFIX\": \"{}\"\n  }}\n}}\n",
            link.display()
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
