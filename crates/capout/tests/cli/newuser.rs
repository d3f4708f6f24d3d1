//! What a new user meets first: error messages that say what is wrong in
//! the user's own terms, hints for a mistyped name, and the options that
//! stop a run at its cap or hide binary input.

use crate::common::capout;

/// Runs capout with `args` on `input`: (status, stdout, stderr).
fn run(args: &[&str], input: &[u8]) -> (Option<i32>, String, String) {
    let out = capout().args(args).write_stdin(input.to_vec()).output().expect("capout runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The first line of a usage error, which must exit 2 with nothing on
/// stdout.
fn usage_error(args: &[&str]) -> String {
    let (status, stdout, stderr) = run(args, b"x\n");
    assert_eq!(status, Some(2), "{args:?}: {stderr}");
    assert_eq!(stdout, "", "{args:?}");
    stderr.lines().next().unwrap_or_default().to_owned()
}

#[test]
fn root_without_mcp_says_root_needs_mcp() {
    assert_eq!(usage_error(&["--root", "/tmp"]), "error: --root goes with --mcp: capout --mcp [--root DIR]");
    assert_eq!(
        usage_error(&["--mcp", "-n", "3"]),
        "error: --mcp takes no option but --root DIR: capout --mcp [--root DIR]"
    );
}

#[test]
fn conflicting_caps_are_named_in_command_line_order() {
    assert_eq!(
        usage_error(&["-n", "5", "-c", "5"]),
        "error: the caps --head-lines 5 and --tail-chars 5 cannot be used together"
    );
    assert_eq!(
        usage_error(&["-c", "5", "-n", "6"]),
        "error: the caps --tail-chars 5 and --head-lines 6 cannot be used together"
    );
    assert_eq!(
        usage_error(&["--tail-tokens", "3", "-m", "2"]),
        "error: the caps --tail-tokens 3 and --max-matches 2 cannot be used together"
    );
}

#[test]
fn input_that_is_a_directory_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_str().unwrap();
    let (status, stdout, stderr) = run(&["--input", path], b"");
    assert_eq!(status, Some(1));
    assert_eq!(stdout, "");
    assert_eq!(stderr, format!("capout: error reading input: cannot open {path}: is a directory\n"));
}

#[test]
fn ranges_are_written_one_way() {
    for (args, says) in [
        (&["-n", "0"][..], "'0' for '--head-lines <N>': 0 is not in 1 to 18446744073709551615"),
        (&["-c", "-3"], "'-3' for '--tail-chars <N>': -3 is not in 1 to 18446744073709551615"),
        (&["--render", "--render-width", "1"], "'1' for '--render-width <N>': 1 is not in 2 to 10000"),
        (
            &["--render", "--render-height", "1001"],
            "'1001' for '--render-height <N>': 1001 is not in 1 to 1000",
        ),
    ] {
        assert_eq!(usage_error(args), format!("error: invalid value {says}"), "{args:?}");
    }
}

#[test]
fn show_config_with_json_is_json() {
    let (status, stdout, stderr) = run(&["--json", "-n", "3", "--keep", "a\"b", "--show-config"], b"");
    assert_eq!((status, stderr.as_str()), (Some(0), ""));
    assert_eq!(
        stdout,
        concat!(
            r#"{"options":[{"option":"--head-lines 3","source":"command line"},"#,
            r#"{"option":"--keep 'a\"b'","source":"command line"},"#,
            r#"{"option":"--json","source":"command line"},"#,
            r#"{"option":"--max-line-chars 2000","source":"built-in"},"#,
            r#"{"option":"--keep-max 20","source":"built-in"},"#,
            r#"{"option":"--notice stdout","source":"built-in"},"#,
            r#"{"option":"--progress auto","source":"built-in"}]}"#,
            "\n"
        )
    );
    let parsed: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(parsed["options"][1]["option"], "--keep 'a\"b'");
}
