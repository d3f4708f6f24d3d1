//! `capout init codex` and `capout hook codex`, run as Codex CLI runs
//! them, without Codex.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::common::clean_env;

/// A throwaway home, with its own temporary folder, on the file system of
/// the binary (see [`capout_in_spaces`]).
fn home() -> tempfile::TempDir {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    std::fs::create_dir(dir.path().join("tmp")).unwrap();
    dir
}

/// capout and its MCP server in a folder whose name holds a space, as a
/// user may keep them: hard links, which capout's own path names as it
/// was started (a copy being written could be run by no test while
/// another forks).
fn capout_in_spaces(home: &Path) -> std::path::PathBuf {
    let dir = home.join("my tools");
    std::fs::create_dir(&dir).unwrap();
    std::fs::hard_link(env!("CARGO_BIN_EXE_capout-mcp"), dir.join("capout-mcp")).unwrap();
    let link = dir.join("capout");
    std::fs::hard_link(env!("CARGO_BIN_EXE_capout"), &link).unwrap();
    link
}

fn run(program: &Path, home: &Path, args: &[&str], stdin: &str) -> Output {
    let mut cmd = Command::new(program);
    clean_env(&mut cmd)
        .args(args)
        .env("HOME", home)
        .env("TMPDIR", home.join("tmp"))
        .env_remove("CODEX_HOME")
        .current_dir(home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

fn event(command: &str, cwd: &Path) -> String {
    serde_json::json!({
        "session_id": "s", "turn_id": "t", "cwd": cwd, "hook_event_name": "PreToolUse",
        "model": "m", "permission_mode": "default", "tool_name": "Bash",
        "tool_input": {"command": command}, "tool_use_id": "call_1",
    })
    .to_string()
}

#[test]
fn init_codex_writes_the_hook_with_a_path_that_holds_a_space_and_uninstall_gives_the_files_back() {
    let home = home();
    let capout = capout_in_spaces(home.path());
    let dir = home.path().join(".codex");
    std::fs::create_dir(&dir).unwrap();
    let config = "# mine\nmodel = \"o3\"   # kept\n\n[tui]\ntheme = \"dark\"\n";
    let hooks = "{\"hooks\":{\"PreToolUse\":[{\"matcher\":\"Bash\",\"hooks\":[{\"type\":\"command\",\"command\":\"audit.sh\"}]}]}}";
    std::fs::write(dir.join("config.toml"), config).unwrap();
    std::fs::write(dir.join("hooks.json"), hooks).unwrap();

    let out = run(&capout, home.path(), &["init", "codex", "--mcp"], "");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert_eq!(out.status.code(), Some(0));
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("hooks.json")).unwrap()).unwrap();
    let quoted = format!("'{}' hook codex", capout.display());
    assert_eq!(
        written,
        serde_json::json!({"hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "audit.sh"}]},
            {"matcher": "Bash", "hooks": [{"type": "command", "command": quoted}]},
        ]}})
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("config.toml")).unwrap(),
        format!("{config}\n[mcp_servers.capout]\ncommand = \"{}\"\nargs = [\"--mcp\"]\n", capout.display())
    );
    let again = run(&capout, home.path(), &["init", "codex", "--mcp"], "");
    assert!(
        String::from_utf8_lossy(&again.stdout).starts_with(&format!(
            "{}/hooks.json: unchanged\n{}/config.toml: unchanged\ncapout was set up for Codex already: nothing changed.\n",
            dir.display(),
            dir.display()
        )),
        "{}",
        String::from_utf8_lossy(&again.stdout)
    );

    let out = run(&capout, home.path(), &["init", "codex", "--mcp", "--uninstall"], "");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(dir.join("config.toml")).unwrap(), config);
    assert_eq!(std::fs::read_to_string(dir.join("hooks.json")).unwrap(), hooks);
    assert!(!dir.join("hooks.json.capout-backup").exists());
}

#[test]
fn hook_codex_rewrites_a_command_and_the_rewrite_runs_it_under_capout() {
    let home = home();
    let capout = capout_in_spaces(home.path());
    let out = run(&capout, home.path(), &["hook", "codex"], &event("seq 10000; exit 3", home.path()));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert_eq!(out.status.code(), Some(0));
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let command = answer["hookSpecificOutput"]["updatedInput"]["command"].as_str().unwrap();
    assert_eq!(command, format!("'{}' hook codex \"$0\" 'seq 10000; exit 3'", capout.display()));
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "allow");

    // Run as Codex runs it: in a login shell.
    let ran = run(Path::new("/bin/bash"), home.path(), &["-lc", command], "");
    let tail = (1..=10000).fold(String::new(), |mut s, i| {
        s.push_str(&i.to_string());
        s.push('\n');
        s
    });
    let tail = &tail[tail.len() - 5000..];
    let text = String::from_utf8_lossy(&ran.stdout);
    let (kept, notice) = text.split_once("... (truncated, showing last 5000 chars; full output: ").unwrap();
    assert_eq!(kept, tail);
    let saved = notice.strip_suffix(")\n").unwrap();
    assert!(saved.starts_with(&home.path().join("tmp/capout-").display().to_string()), "{saved}");
    assert_eq!(std::fs::read(saved).unwrap().len(), 48894);
    assert_eq!(ran.status.code(), Some(3));
}

#[test]
fn hook_codex_leaves_alone_a_command_that_a_rule_may_be_about() {
    let home = home();
    let rules = home.path().join(".codex/rules");
    std::fs::create_dir_all(&rules).unwrap();
    std::fs::write(rules.join("default.rules"), "prefix_rule(pattern=[\"make\"], decision=\"prompt\")\n")
        .unwrap();
    let capout = Path::new(env!("CARGO_BIN_EXE_capout"));
    for (command, word) in
        [("cd sub && make -j4", "make"), ("rm -f victim", "rm"), ("x | sudo tee y", "sudo")]
    {
        let out = run(capout, home.path(), &["hook", "codex"], &event(command, home.path()));
        assert_eq!(String::from_utf8_lossy(&out.stdout), "", "{command}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!(
                "capout: hook: codex: left alone: Codex checks its rules on the words of a command, and `{word}` may be one of a rule\n"
            )
        );
        assert_eq!(out.status.code(), Some(0));
    }
    let out = run(capout, home.path(), &["hook", "codex"], "{\"hook_event_name\": 3}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("capout: hook: codex: not a hook event: "));
    assert_eq!(out.status.code(), Some(0));
}

/// `capout hook codex` on `stdin`, run as [`run`] does but by `sh` with
/// its address space bounded (a read without end fails there, never the
/// machine), and killed if it has not answered within 20 seconds, far
/// more than an answer takes: `None` then.
fn run_bounded(program: &Path, home: &Path, stdin: &str) -> Option<Output> {
    let mut cmd = Command::new("/bin/sh");
    clean_env(&mut cmd)
        .args(["-c", "ulimit -v 4194304; exec \"$0\" hook codex"])
        .arg(program)
        .env("HOME", home)
        .env("TMPDIR", home.join("tmp"))
        .env_remove("CODEX_HOME")
        .current_dir(home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            child.wait().unwrap();
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    Some(child.wait_with_output().unwrap())
}

#[test]
fn hook_codex_answers_at_once_when_a_rule_file_is_a_fifo_or_a_link_to_a_device() {
    let capout = Path::new(env!("CARGO_BIN_EXE_capout"));
    for (name, what) in [
        ("fifo.rules", "a FIFO"),
        ("zero.rules", "a character device"),
        ("random.rules", "a character device"),
    ] {
        let home = home();
        let proj = home.path().join("proj");
        let rules = proj.join(".codex/rules");
        std::fs::create_dir_all(&rules).unwrap();
        let file = rules.join(name);
        match name {
            "fifo.rules" => {
                rustix::fs::mkfifoat(rustix::fs::CWD, &file, rustix::fs::Mode::from_raw_mode(0o600)).unwrap();
            }
            "zero.rules" => std::os::unix::fs::symlink("/dev/zero", &file).unwrap(),
            _ => std::os::unix::fs::symlink("/dev/urandom", &file).unwrap(),
        }
        let out = run_bounded(capout, home.path(), &event("seq 3", &proj)).unwrap_or_else(|| {
            panic!("capout hook codex did not answer within 20 s with {name} in the project's rules")
        });
        assert_eq!(String::from_utf8_lossy(&out.stdout), "", "{name}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!(
                "capout: hook: codex: left alone: the rule file {} cannot be read: it is {what}, not a regular file\n",
                file.display()
            )
        );
        assert_eq!(out.status.code(), Some(0));
    }
}

#[test]
fn hook_codex_leaves_alone_a_command_built_of_quoted_parts_of_a_rules_word() {
    let home = home();
    let rules = home.path().join(".codex/rules");
    std::fs::create_dir_all(&rules).unwrap();
    std::fs::write(rules.join("default.rules"), "prefix_rule(pattern=[\"curl\"], decision=\"forbidden\")\n")
        .unwrap();
    let capout = Path::new(env!("CARGO_BIN_EXE_capout"));
    for (command, word) in [
        ("r''m -f victim", "rm"),
        ("r\\m -f victim", "rm"),
        ("\"r\"m -f victim", "rm"),
        ("su''do ls", "sudo"),
        ("cu''rl -s example.com", "curl"),
    ] {
        let out = run(capout, home.path(), &["hook", "codex"], &event(command, home.path()));
        assert_eq!(String::from_utf8_lossy(&out.stdout), "", "{command}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!(
                "capout: hook: codex: left alone: Codex checks its rules on the words of a command, and `{word}` may be one of a rule\n"
            )
        );
    }
}

#[test]
fn hook_codex_leaves_the_call_alone_when_the_capout_it_would_run_is_gone() {
    let home = home();
    let capout = capout_in_spaces(home.path());
    let mut cmd = Command::new(&capout);
    clean_env(&mut cmd)
        .args(["hook", "codex"])
        .env("HOME", home.path())
        .env("TMPDIR", home.path().join("tmp"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    // The hook waits for its event: the program it runs is gone by then,
    // as after an upgrade that removed it.
    std::fs::remove_file(&capout).unwrap();
    child.stdin.take().unwrap().write_all(event("seq 3", home.path()).as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with(&format!(
            "capout: hook: codex: left alone: {} (deleted) cannot be run: ",
            capout.display()
        )),
        "{err}"
    );
    assert_eq!(out.status.code(), Some(0));
}

/// A command that fits one argument but whose rewrite would not (each '
/// of it is four bytes of the rewrite: 99 KB become over 128 KiB, what
/// one argument of a command may hold) is left to Codex, which runs it
/// as it is; a short one runs under capout.
#[test]
fn hook_codex_leaves_alone_a_command_whose_rewrite_would_pass_128_kib() {
    let home = home();
    let capout = Path::new(env!("CARGO_BIN_EXE_capout"));
    let quoted = format!("echo {}", "'a'".repeat(33_000));
    let out = run(capout, home.path(), &["hook", "codex"], &event(&quoted, home.path()));
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "", "no rewrite");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("at or over the 128 KiB that one argument of a command may hold"), "{err}");
    // As Codex then runs it: bash -c COMMAND, which the kernel takes.
    let ran = Command::new("bash").args(["-c", &quoted]).output().unwrap();
    assert_eq!(ran.stdout.len(), 33_000 + 1);
    let out = run(capout, home.path(), &["hook", "codex"], &event("seq 100000", home.path()));
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rewritten = answer["hookSpecificOutput"]["updatedInput"]["command"].as_str().unwrap();
    let ran =
        Command::new("bash").args(["-c", rewritten]).env("TMPDIR", home.path().join("tmp")).output().unwrap();
    let text = String::from_utf8_lossy(&ran.stdout);
    assert!(text.contains("\n100000\n... (truncated, showing last 5000 chars; full output: "), "{text:?}");
}
