//! The ledger and `capout stats`: a line for each call bounded for a
//! harness, none for a plain run unless asked, never the output itself,
//! and a report of what bounding kept out and what paging cost.

use std::path::Path;

use crate::common::capout_std;

/// capout with the ledger on, in `state` (its `XDG_STATE_HOME`).
fn capout_in(state: &Path) -> std::process::Command {
    let mut cmd = capout_std();
    cmd.env_remove("CAPOUT_LEDGER").env("XDG_STATE_HOME", state).env("TMPDIR", state.join("tmp"));
    std::fs::create_dir_all(state.join("tmp")).unwrap();
    cmd
}

/// The ledger's lines, parsed.
fn lines(state: &Path) -> Vec<serde_json::Value> {
    match std::fs::read_to_string(state.join("capout/ledger.jsonl")) {
        Ok(text) => text.lines().map(|l| serde_json::from_str(l).expect("a line of JSON")).collect(),
        Err(_) => Vec::new(),
    }
}

/// A shell call as Codex's hook runs it: `capout hook codex SHELL SCRIPT`.
fn hooked(state: &Path, script: &str) -> std::process::Output {
    capout_in(state).args(["hook", "codex", "bash", script]).output().unwrap()
}

#[test]
fn a_hooked_call_adds_one_line_with_its_counts_and_never_its_output() {
    let state = tempfile::tempdir().unwrap();
    let out = hooked(state.path(), "seq 100000 | sed s/^/zq/; exit 3");
    assert_eq!(out.status.code(), Some(3));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("zq100000\n... (truncated, showing last 5000 chars; full output: "), "{text}");
    let got = lines(state.path());
    assert_eq!(got.len(), 1, "{got:?}");
    let e = &got[0];
    assert_eq!(
        (e["front"].as_str(), e["harness"].as_str(), e["tool"].as_str()),
        (Some("hook"), Some("codex"), Some("bash"))
    );
    assert_eq!(e["command"], "seq 100000 | sed s/^/zq/; exit 3");
    assert_eq!(e["chars_in"], 788_895, "seq 100000 with zq before each line");
    assert_eq!(e["chars_shown"].as_u64(), Some(text.chars().count() as u64));
    assert!(e["tokens_in"].as_u64().unwrap() > 50 * e["tokens_shown"].as_u64().unwrap(), "{e}");
    assert_eq!((e["cut"].as_bool(), e["exit"].as_i64()), (Some(true), Some(3)));
    let saved = e["saved"].as_str().unwrap();
    assert!(Path::new(saved).is_file() && text.contains(saved), "{saved}");
    let ledger = std::fs::read_to_string(state.path().join("capout/ledger.jsonl")).unwrap();
    assert!(!ledger.contains("zq99999"), "the output is never in the ledger");
    let mode = |p: &Path| {
        std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(p).unwrap().permissions()) & 0o777
    };
    assert_eq!(mode(&state.path().join("capout/ledger.jsonl")), 0o600);
    assert_eq!(mode(&state.path().join("capout")), 0o700);
}

#[test]
fn a_plain_run_writes_only_when_asked() {
    let state = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| capout_in(state.path()).args(args).output().unwrap();
    assert!(run(&["-c", "5", "--", "seq", "100"]).status.success());
    assert!(run(&["-n", "1", "--input", "/etc/passwd"]).status.success());
    assert_eq!(lines(state.path()).len(), 0);
    assert!(run(&["--ledger", "-c", "5", "--", "seq", "100"]).status.success());
    let got = lines(state.path());
    assert_eq!(got.len(), 1);
    assert_eq!((got[0]["front"].as_str(), got[0]["tool"].as_str()), (Some("cli"), Some("command")));
    assert_eq!((got[0]["command"].as_str(), got[0]["chars_in"].as_u64()), (Some("seq 100"), Some(292)));
}

#[test]
fn capout_opts_ledger_is_turned_off_by_no_ledger_and_back_on_by_ledger() {
    let state = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let out = capout_in(state.path()).env("CAPOUT_OPTS", "--ledger").args(args).output().unwrap();
        assert_eq!(
            (out.status.code(), out.stdout.as_slice()),
            (Some(0), &b"9\n10\n... (truncated, showing last 2 lines)\n"[..]),
            "{args:?}"
        );
        lines(state.path()).len()
    };
    assert_eq!(run(&["--tail-lines", "2", "--", "seq", "10"]), 1);
    assert_eq!(run(&["--tail-lines", "2", "--no-ledger", "--", "seq", "10"]), 1);
    assert_eq!(run(&["--tail-lines", "2", "--no-ledger", "--ledger", "--", "seq", "10"]), 2);
}

#[test]
fn the_ledger_is_off_with_capout_ledger_0_or_in_the_config_file() {
    let state = tempfile::tempdir().unwrap();
    let out =
        capout_in(state.path()).env("CAPOUT_LEDGER", "0").args(["hook", "codex", "bash", "seq 10"]).output();
    assert!(out.unwrap().status.success());
    let config = state.path().join("config.toml");
    std::fs::write(&config, "ledger = false\n").unwrap();
    let out = capout_in(state.path())
        .env("CAPOUT_CONFIG", &config)
        .args(["hook", "codex", "bash", "seq 10"])
        .output();
    assert!(out.unwrap().status.success());
    assert_eq!(lines(state.path()).len(), 0);
    std::fs::write(&config, "ledger = \"no\"\n").unwrap();
    let out = capout_in(state.path()).env("CAPOUT_CONFIG", &config).args(["-c", "5"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("ledger: expected true or false"), "{out:?}");
}

#[test]
fn a_ledger_that_cannot_be_written_never_fails_the_call_and_a_model_never_reads_of_it() {
    let state = tempfile::tempdir().unwrap();
    // A file where the state folder should be: nothing can be made in it,
    // as in a harness's read-only sandbox.
    let blocked = state.path().join("blocked");
    std::fs::write(&blocked, "").unwrap();
    std::fs::create_dir_all(state.path().join("tmp")).unwrap();
    let run = |args: &[&str]| {
        capout_std()
            .env_remove("CAPOUT_LEDGER")
            .env("XDG_STATE_HOME", &blocked)
            .env("TMPDIR", state.path().join("tmp"))
            .args(args)
            .output()
            .unwrap()
    };
    // A hooked call's stderr is the model's to read: the ledger is not
    // its business.
    let out = run(&["hook", "codex", "bash", "echo hi; exit 4"]);
    let got = (out.status.code(), String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(got, (Some(4), "hi\n".into(), "".into()));
    // A run that asked for it is told, in one line.
    let out = run(&["--ledger", "--", "sh", "-c", "echo hi; exit 4"]);
    assert_eq!((out.status.code(), String::from_utf8_lossy(&out.stdout).as_ref()), (Some(4), "hi\n"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("capout: the ledger in ") && err.contains("is not written"), "{err}");
}

#[test]
fn reading_a_saved_output_back_is_a_page_and_stats_counts_it() {
    let state = tempfile::tempdir().unwrap();
    let out = hooked(state.path(), "seq 100000");
    assert!(out.status.success());
    let saved = lines(state.path())[0]["saved"].as_str().unwrap().to_owned();
    let page =
        capout_in(state.path()).args(["--profile", "read", "--offset", "500", "--input", &saved]).output();
    assert!(page.unwrap().status.success());
    let got = lines(state.path());
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!((got[1]["tool"].as_str(), got[1]["page_of"].as_str()), (Some("read"), Some(saved.as_str())));
    let json = capout_in(state.path()).args(["stats", "--json"]).output().unwrap();
    assert!(json.status.success(), "{json:?}");
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!((report["calls"].as_u64(), report["cut"].as_u64()), (Some(1), Some(1)));
    assert_eq!((report["pages"].as_u64(), report["cut_read_back"].as_u64()), (Some(1), Some(1)));
    assert_eq!(report["top"][0]["command"], "seq 100000");
    assert!(report["tokens_kept_out"].as_u64().unwrap() > 100_000, "{report}");
    let text = capout_in(state.path()).args(["stats"]).output().unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.starts_with("calls bounded                1\n  cut                        1  (100%)\n"),
        "{text}"
    );
}

#[test]
fn stats_of_a_harness_with_no_calls_says_the_ledger_has_others() {
    let state = tempfile::tempdir().unwrap();
    assert!(hooked(state.path(), "seq 10").status.success());
    let out = capout_in(state.path()).args(["stats", "--harness", "gemini"]).output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "No calls in the ledger match --since or --harness (1 in all).\n"
    );
    let out = capout_in(&state.path().join("empty")).args(["stats"]).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "No calls in the ledger yet.\n");
}

#[test]
fn a_call_of_pis_shell_is_written_as_pis_with_the_command_as_written() {
    let state = tempfile::tempdir().unwrap();
    let dir = state.path().join("agent/capout-pi");
    std::fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_capout"), dir.join("bash")).unwrap();
    let mut cmd = std::process::Command::new(dir.join("bash"));
    crate::common::clean_env(&mut cmd)
        .env_remove("CAPOUT_LEDGER")
        .env("XDG_STATE_HOME", state.path())
        .env("TMPDIR", state.path().join("tmp"));
    std::fs::create_dir_all(state.path().join("tmp")).unwrap();
    let out = cmd.args(["-c", "seq 3; exit 4"]).output().unwrap();
    assert_eq!((out.status.code(), &out.stdout[..]), (Some(4), &b"1\n2\n3\n"[..]));
    let got = lines(state.path());
    assert_eq!(got.len(), 1, "{got:?}");
    let e = &got[0];
    assert_eq!(
        (e["front"].as_str(), e["harness"].as_str(), e["tool"].as_str(), e["command"].as_str()),
        (Some("shell"), Some("pi"), Some("bash"), Some("seq 3; exit 4"))
    );
}
