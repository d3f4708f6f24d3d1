//! The examples under `examples/` build and do what their docs say.

use std::path::PathBuf;
use std::process::Command;

/// Builds example NAME and runs it with ARGS, returning its stdout and
/// stderr. Built with `--workspace`, so that its dependencies are those
/// `cargo test` has just built (and with them the example itself, which
/// `cargo test` builds too): a build of this package alone resolves other
/// features of them and compiled them all again, for a minute and a half.
fn example(name: &str, args: &[&str]) -> (String, String) {
    let built = Command::new(env!("CARGO"))
        .args(["build", "--quiet", "--workspace", "--example", name])
        // The profile this test was built in (`cargo test --release`).
        .args(if cfg!(debug_assertions) { &[][..] } else { &["--release"] })
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    assert!(built.status.success(), "{name}: {}", String::from_utf8_lossy(&built.stderr));
    // target/debug/deps/engine-HASH: the examples are in target/debug/examples.
    let exe = std::env::current_exe().expect("the test's path");
    let dir = exe.parent().and_then(|deps| deps.parent()).map(|profile| profile.join("examples"));
    let example: PathBuf = dir.expect("the test runs in target/PROFILE/deps").join(name);
    let out =
        Command::new(&example).args(args).output().unwrap_or_else(|e| panic!("{}: {e}", example.display()));
    assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
    (String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

#[test]
fn tokio_example_caps_a_childs_output_and_summarises_it() {
    let (stdout, _) = example("tokio_child", &["sh", "-c", "for i in $(seq 3000); do echo line$i; done"]);
    let want_tail = "line3000\n... (truncated, showing last 5000 chars)\ntruncated=true bytes=";
    assert!(stdout.contains(want_tail), "{stdout}");
    // 5000 characters kept: the notice and the facts line come after them.
    let kept = stdout.split("\n... (truncated").next().unwrap();
    assert_eq!(kept.chars().count() + 1, 5000);
    // The library counts every total its Summary reports.
    assert!(stdout.ends_with(" lines=Some(3000)\n"), "{stdout}");
}

#[test]
fn cap_writer_example_keeps_the_first_lines() {
    let (stdout, stderr) = example("cap_writer", &["seq", "100"]);
    let want: String = (1..=10).map(|i| i.to_string() + "\n").collect();
    assert_eq!(stdout, format!("{want}... (truncated, showing lines 1-10 of 100, next offset 10)\n"));
    assert_eq!(stderr, "exit=exit status: 0 truncated=true lines=Some(100)\n");
}
