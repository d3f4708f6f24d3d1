//! `capout init opencode`, `capout hook opencode` and the `BASH_ENV` file
//! it names, run as opencode's plugin and shell tool run them, without
//! opencode.

use std::path::Path;
use std::process::Stdio;

use crate::common::capout_std;

/// A throwaway home, with its own temporary folder.
fn home() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("tmp")).unwrap();
    dir
}

fn init(home: &Path, args: &[&str]) -> std::process::Output {
    capout_std()
        .args(["init", "opencode"])
        .args(args)
        .env("HOME", home)
        .env_remove("XDG_CONFIG_HOME")
        .current_dir(home)
        .output()
        .unwrap()
}

/// `capout hook opencode` given `event` on stdin.
fn hook(home: &Path, event: &str) -> std::process::Output {
    use std::io::Write;
    let mut child = capout_std()
        .args(["hook", "opencode"])
        .env("TMPDIR", home.join("tmp"))
        .env_remove("BASH_ENV")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(event.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn init_opencode_writes_the_plugin_and_the_server_and_uninstall_gives_them_back() {
    let home = home();
    let dir = home.path().join(".config/opencode");
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join("opencode.json");
    std::fs::write(&json, "{\"model\":\"local/m\"}").unwrap();
    let out = init(home.path(), &["--mcp"]);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let plugin = std::fs::read_to_string(dir.join("plugin/capout.js")).unwrap();
    let capout = env!("CARGO_BIN_EXE_capout");
    assert!(plugin.starts_with("// capout: written by `capout init opencode`"), "{plugin}");
    assert!(plugin.contains(&format!("const CAPOUT = \"{capout}\"\n")), "{plugin}");
    assert_eq!(
        std::fs::read_to_string(&json).unwrap(),
        format!(
            "{{\"model\":\"local/m\",\"mcp\": {{\"capout\": {{\"type\": \"local\", \"command\": [\"{capout}\", \"--mcp\"], \"enabled\": true}}}}}}"
        )
    );
    let again = init(home.path(), &["--mcp"]);
    assert!(
        String::from_utf8_lossy(&again.stdout).starts_with(&format!(
            "{}: unchanged\n{}: unchanged\n",
            dir.join("plugin/capout.js").display(),
            json.display()
        )),
        "{}",
        String::from_utf8_lossy(&again.stdout)
    );
    let out = init(home.path(), &["--mcp", "--uninstall"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(&json).unwrap(), "{\"model\":\"local/m\"}");
    assert!(!dir.join("plugin/capout.js").exists());
}

#[test]
fn init_opencode_keeps_the_comments_of_an_opencode_json() {
    let home = home();
    let dir = home.path().join(".config/opencode");
    std::fs::create_dir_all(&dir).unwrap();
    let before = "{\n  // mine\n  \"model\": \"x\"\n}\n";
    std::fs::write(dir.join("opencode.json"), before).unwrap();
    let out = init(home.path(), &["--mcp"]);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert_eq!(out.status.code(), Some(0));
    let capout = env!("CARGO_BIN_EXE_capout");
    assert_eq!(
        std::fs::read_to_string(dir.join("opencode.json")).unwrap(),
        format!(
            "{{\n  // mine\n  \"model\": \"x\",\n  \"mcp\": {{\n    \"capout\": {{\n      \"type\": \"local\",\n      \
             \"command\": [\n        \"{capout}\",\n        \"--mcp\"\n      ],\n      \"enabled\": true\n    }}\n  }}\n}}\n"
        )
    );
    let out = init(home.path(), &["--mcp", "--uninstall"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(dir.join("opencode.json")).unwrap(), before);
}

#[test]
fn the_opencode_hook_names_a_bash_env_that_runs_the_unchanged_command_under_capout() {
    let home = home();
    let out = hook(
        home.path(),
        r#"{"tool":"bash","sessionID":"ses_1","callID":"call_1","args":{"command":"seq 100000; exit 3"}}"#,
    );
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let reply: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let env = reply["env"].as_object().unwrap().clone();
    let file = env["BASH_ENV"].as_str().unwrap();
    assert!(file.ends_with("/opencode.bash"), "{file}");
    assert_eq!(env["CAPOUT_OPENCODE_PID"], std::process::id().to_string());
    // As opencode's shell tool runs a command: `bash -c COMMAND`, stdin
    // closed, with the plugin's variables added to its environment.
    let run = |command: &str| {
        std::process::Command::new("bash")
            .args(["-c", command])
            .envs(env.iter().map(|(k, v)| (k, v.as_str().unwrap())))
            .env("TMPDIR", home.path().join("tmp"))
            .env_remove("CAPOUT_OPTS")
            .env_remove("CAPOUT_CONFIG")
            .env("HOME", home.path())
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let out = run("seq 100000; exit 3");
    assert_eq!(out.status.code(), Some(3));
    let text = String::from_utf8(out.stdout).unwrap();
    let (kept, notice) = text.rsplit_once("\n... ").unwrap();
    assert!(kept.ends_with("\n99999\n100000"), "{kept:?}");
    assert!(notice.starts_with("(truncated, showing last 5000 chars; full output: "), "{notice}");
    let out = run("cat <<'EOF'\nit's \"q\" $HOME\nEOF\necho \"$0\" \"${BASH_ENV-unset}\"; cd /; export X=1");
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "it's \"q\" $HOME\nbash unset\n");
    assert_eq!(out.status.code(), Some(0));
    // A shell that does not read BASH_ENV hands it on: a bash it starts
    // is not opencode's, and runs its command as it is.
    let nested = std::process::Command::new("sh")
        .args(["-c", "bash -c 'seq 100000' | wc -l"])
        .envs(env.iter().map(|(k, v)| (k, v.as_str().unwrap())))
        .env("TMPDIR", home.path().join("tmp"))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(nested.stdout).unwrap().trim(), "100000");
}

#[test]
fn the_opencode_hook_leaves_other_tools_bad_json_and_wrapped_commands_alone() {
    let home = home();
    for (event, why) in [
        (r#"{"tool":"read","args":{"filePath":"/x"}}"#, "capout: hook: opencode: left alone: tool 'read'\n"),
        (
            r#"{"tool":"bash","args":{"command":"capout --tail-lines 5 -- make"}}"#,
            "capout: hook: opencode: left alone: the command already runs under capout\n",
        ),
    ] {
        let out = hook(home.path(), event);
        assert!(out.status.success());
        assert_eq!(out.stdout, b"");
        assert_eq!(String::from_utf8(out.stderr).unwrap(), why);
    }
    let out = hook(home.path(), "{not json");
    assert!(out.status.success());
    assert_eq!(out.stdout, b"");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("capout: hook: opencode: not a hook event: ") && err.lines().count() == 1,
        "{err}"
    );
}
