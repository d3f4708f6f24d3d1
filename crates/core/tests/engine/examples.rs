//! The examples under `examples/` build and do what their docs say.

use std::process::Command;

/// Runs `cargo run --example NAME -- ARGS` and returns its stdout and
/// stderr.
fn example(name: &str, args: &[&str]) -> (String, String) {
    let out = Command::new(env!("CARGO"))
        .args(["run", "--quiet", "--example", name, "--"])
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
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
