//! The surface a harness builds on: `--json`, `--save`, `--save-dir`,
//! `--notice-format`, `CAPOUT_OPTS`, `--progress` and `--completions`.

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use assert_cmd::Command;
use serde_json::{Value, json};

fn capout() -> Command {
    crate::common::capout()
}

fn stdout_of(cmd: &mut Command, input: &[u8]) -> String {
    let out = cmd.write_stdin(input.to_vec()).output().expect("capout runs");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert_eq!(out.status.code(), Some(0));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn json_of(args: &[&str], input: &[u8]) -> Value {
    let text = stdout_of(capout().args(args).arg("--json"), input);
    assert!(text.ends_with('\n') && text.matches('\n').count() == 1, "one line: {text:?}");
    serde_json::from_str(&text).expect("valid JSON")
}

#[test]
fn json_has_every_field() {
    let v = json_of(&["-n", "2"], b"a\nb\nc\n");
    assert_eq!(
        v,
        json!({
            "output": "a\nb\n",
            "notice": "... (truncated, showing lines 1-2 of 3, next offset 2)",
            "truncated": true,
            "cap": "head-lines",
            "limit": 2,
            "budget": null,
            "total_bytes": 6,
            "total_chars": 6,
            "total_lines": 3,
            "matches": null,
            "unit": "lines",
            "omitted": 1,
            "first": 1,
            "last": 2,
            "next_offset": 2,
            "total_tokens": null,
            "tokenizer": null,
            "json_items_kept": null,
            "json_items": null,
            "json_arrays_cut": null,
            "json_strings_cut": null,
            "json_documents_kept": null,
            "json_documents": null,
            "json_ended_at": null,
            "exit_code": 0,
            "signal": null,
            "timed_out": false,
            "saved_to": null,
            "error": null,
        })
    );
}

/// The paging fields, so that a harness never parses the notice text.
#[test]
fn json_pages_without_parsing_the_notice() {
    let fields =
        |v: &Value| ["unit", "omitted", "first", "last", "next_offset"].map(|k| v[k].clone()).to_vec();
    let cases: [(&[&str], &[u8], Value); 13] = [
        (&["-n", "2", "--offset", "2"], b"a\nb\nc\nd\ne\n", json!(["lines", 3, 3, 4, 4])),
        (&["-n", "9"], b"a\nb\n", json!(["lines", 0, 1, 2, null])),
        (&["-n", "2", "--offset", "1"], b"a\nb\n", json!(["lines", 0, 2, 2, null])),
        (&["-m", "2", "--offset", "1"], b"a\nb\nc\nd\n", json!(["matches", 2, 2, 3, 3])),
        (&["-m", "2", "--offset", "3"], b"a\nb\nc\nd\n", json!(["matches", 0, 4, 4, null])),
        (&["-n", "5", "--budget-chars", "4"], b"a\nb\nc\nd\n", json!(["lines", 2, 1, 2, 2])),
        (&["-n", "2", "--offset", "9"], b"a\nb\n", json!(["lines", null, null, null, null])),
        (&["-c", "2"], b"abcde", json!(["chars", 3, null, null, null])),
        (&["-c", "2", "--bytes"], "é\u{e9}x".as_bytes(), json!(["bytes", 3, null, null, null])),
        (&["--tail-lines", "1"], b"a\nb\nc\n", json!(["lines", 2, null, null, null])),
        (&["-m", "1"], b"a\nb\nc\n", json!(["matches", 2, 1, 1, 1])),
        (&["-n", "1", "--tail-lines", "1"], b"a\nb\nc\nd\n", json!(["lines", 2, null, null, null])),
        (&["--head-chars", "1", "-c", "1"], b"abcd", json!(["chars", 2, null, null, null])),
    ];
    for (args, input, want) in cases {
        assert_eq!(Value::from(fields(&json_of(args, input))), want, "{args:?}");
    }
}

#[test]
fn json_of_each_cap() {
    let v = json_of(&["-m", "1", "-e", "x"], b"x1\ny\nx2\n");
    assert_eq!((&v["cap"], &v["matches"], &v["output"]), (&json!("max-matches"), &json!(2), &json!("x1\n")));
    assert_eq!(v["notice"], "... (2 total, showing first 1)");
    let v = json_of(&["-n", "1", "--tail-lines", "1"], b"a\nb\nc\n");
    assert_eq!(v["output"], "a\n... (truncated, omitted 1 lines) ...\nc\n");
    assert_eq!(
        (&v["notice"], &v["limit"], &v["cap"]),
        (&Value::Null, &json!([1, 1]), &json!("head-tail-lines"))
    );
    let v = json_of(&["--head-chars", "1", "-c", "1"], b"abc");
    assert_eq!((&v["cap"], &v["limit"]), (&json!("head-tail-chars"), &json!([1, 1])));
    let v = json_of(&["--tail-lines", "1"], b"a\nb\n");
    assert_eq!((&v["cap"], &v["output"]), (&json!("tail-lines"), &json!("b\n")));
    let v = json_of(&["--head-chars", "2"], b"abc");
    assert_eq!((&v["cap"], &v["output"], &v["total_chars"]), (&json!("head-chars"), &json!("ab"), &json!(3)));
}

#[test]
fn json_writes_invalid_utf8_as_replacement_characters() {
    let v = json_of(&[], b"a\xffb\xe2\x82");
    assert_eq!(v["output"], "a\u{fffd}b\u{fffd}");
    assert_eq!(
        (&v["total_bytes"], &v["total_chars"], &v["truncated"]),
        (&json!(5), &json!(4), &json!(false))
    );
}

#[test]
fn json_notice_joins_every_notice_line() {
    let v = json_of(&["--tail-lines", "1", "--keep", "e"], b"e1\nx\n");
    assert_eq!(v["notice"], "... (truncated, showing last 1 lines)\n... (cut lines matching e: 1)\n1:e1");
    let v = json_of(&[], b"");
    assert_eq!((&v["notice"], &v["output"]), (&json!("(no output)"), &json!("")));
}

#[test]
fn save_writes_the_whole_input_and_names_it_in_the_notice() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("full.log");
    let p = path.display().to_string();
    let input: Vec<u8> = (0..5000).flat_map(|i| format!("line {i}\n").into_bytes()).collect();
    let out = stdout_of(capout().args(["--tail-lines", "1", "--save", &p]), &input);
    assert_eq!(out, format!("line 4999\n... (truncated, showing last 1 lines; full output: {p})\n"));
    assert_eq!(std::fs::read(&path).unwrap(), input);
    // Nothing cut: the file is still written, the notice is the plain one.
    let out = stdout_of(capout().args(["--save", &p]), b"");
    assert_eq!(out, "(no output)\n");
    assert_eq!(std::fs::read(&path).unwrap(), b"");
}

#[test]
fn save_holds_the_stream_as_the_notices_count_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("saved.log");
    let p = path.display().to_string();
    let out = stdout_of(capout().args(["--strip-ansi", "-c", "1", "--save", &p]), b"\x1b[1mab");
    assert_eq!(out, format!("b\n... (truncated, showing last 1 chars; full output: {p})\n"));
    assert_eq!(std::fs::read(&path).unwrap(), b"ab");
    // Paging the saved file gives the lines the notice numbered.
    let out =
        stdout_of(capout().args(["--collapse-cr", "-n", "1", "--save", &p]), b"10%\rfirst\n50%\rsecond\n");
    assert_eq!(
        out,
        format!("first\n... (truncated, showing lines 1-1 of 2, next offset 1; full output: {p})\n")
    );
    assert_eq!(std::fs::read(&path).unwrap(), b"first\nsecond\n");
    let page = stdout_of(capout().args(["-n", "1", "--offset", "1"]), &std::fs::read(&path).unwrap());
    assert_eq!(page, "second\n... (showing lines 2-2 of 2, end of input)\n");
    // Before any line cap: the saved lines are whole.
    stdout_of(capout().args(["-c", "100", "--max-line-chars", "2", "--save", &p]), b"abcdef\n");
    assert_eq!(std::fs::read(&path).unwrap(), b"abcdef\n");
}

#[test]
fn save_dir_keeps_the_file_only_when_something_was_cut() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display().to_string();
    let v = json_of(&["--save-dir", &d, "-n", "1"], b"a\nb\n");
    let saved = v["saved_to"].as_str().expect("a saved path").to_owned();
    let name = saved.rsplit('/').next().unwrap();
    let random =
        name.strip_prefix("capout-").and_then(|n| n.strip_suffix(".log")).expect("capout-XXXXXX.log");
    assert_eq!(random.len(), 6, "{name}");
    assert!(v["notice"].as_str().unwrap().ends_with(&format!("; full output: {saved})")));
    assert_eq!(std::fs::read(&saved).unwrap(), b"a\nb\n");
    let v = json_of(&["--save-dir", &d, "-n", "5"], b"a\nb\n");
    assert_eq!(v["saved_to"], Value::Null);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "the uncut output's file is removed");
}

#[test]
fn save_to_a_path_that_cannot_be_written_fails_before_reading() {
    let out = capout().args(["--save", "/nonexistent-dir/x.log"]).write_stdin("a\n").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "capout: cannot save the output to /nonexistent-dir/x.log: No such file or directory (os error 2)\n"
    );
}

#[test]
#[cfg_attr(not(target_os = "linux"), ignore = "needs Linux's /dev/full")]
fn save_to_a_full_disk_still_prints_the_output_and_fails() {
    assert!(std::path::Path::new("/dev/full").exists(), "needs /dev/full, which every Linux system has");
    let out = capout().args(["-c", "2", "--save", "/dev/full"]).write_stdin("abc").output().unwrap();
    // The notice does not point at a copy that is not whole.
    assert_eq!(out.stdout, b"bc\n... (truncated, showing last 2 chars)\n");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "capout: cannot save the output to /dev/full: No space left on device (os error 28)\n"
    );
    assert_eq!(out.status.code(), Some(1));
    let out =
        capout().args(["-c", "2", "--save", "/dev/full", "--json"]).write_stdin("abc").output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((&v["saved_to"], &v["exit_code"]), (&Value::Null, &json!(1)));
    assert_eq!(v["notice"], "... (truncated, showing last 2 chars)");
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn notice_format_fills_every_placeholder() {
    let template = "{shown}|{limit}|{total}|{omitted}|{unit}|{first}|{last}|{next_offset}|{saved}|{{}}";
    let out =
        stdout_of(capout().args(["-n", "2", "--offset", "1", "--notice-format", template]), b"a\nb\nc\nd\n");
    assert_eq!(out, "b\nc\n2|2|4|2|lines|2|3|3||{}\n");
    let out = stdout_of(
        capout().args(["-n", "3", "--offset", "9", "--notice-format", "{limit} {total} {first}"]),
        b"a\n",
    );
    assert_eq!(out, "3 1 10\n");
    let out = stdout_of(capout().args(["-c", "2", "--notice-format", "[{omitted} {unit} cut]"]), b"abcd");
    assert_eq!(out, "cd\n[2 chars cut]\n");
    let out = stdout_of(
        capout().args(["--tail-lines", "1", "-n", "1", "--notice-format", "~{omitted}~"]),
        b"a\nb\nc\n",
    );
    assert_eq!(out, "a\n~1~\nc\n");
}

#[test]
fn notice_format_rejects_unknown_placeholders() {
    let out = capout().args(["--notice-format", "{nope}"]).write_stdin("").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown placeholder '{nope}'"));
}

#[test]
fn capout_opts_are_defaults_that_the_command_line_overrides() {
    let out =
        stdout_of(capout().env("CAPOUT_OPTS", "--head-lines 1 --notice-format 'cut {omitted}'"), b"a\nb\n");
    assert_eq!(out, "a\ncut 1\n");
    let out =
        stdout_of(capout().env("CAPOUT_OPTS", "--head-lines 1 --tail-lines 1").args(["-c", "1"]), b"a\nb\n");
    assert_eq!(out, "\n... (truncated, showing last 1 chars)\n");
    let out = capout().env("CAPOUT_OPTS", "--max-matches zero").write_stdin("").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("CAPOUT_OPTS") && stderr.contains("'zero' for '--max-matches <N>'"), "{stderr}");
}

#[test]
fn progress_always_shows_a_live_count_and_erases_it() {
    let mut child = crate::common::capout_std()
        .args(["--progress", "always", "-c", "3"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    // Feed lines until the live line appears: an event, not a sleep.
    let stop = Arc::new(AtomicBool::new(false));
    let stopped = Arc::clone(&stop);
    let writer = std::thread::spawn(move || {
        while !stopped.load(Ordering::Relaxed) {
            if stdin.write_all(b"0123456789\n").is_err() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    });
    let mut seen = Vec::new();
    stderr.read_until(b')', &mut seen).unwrap();
    stop.store(true, Ordering::Relaxed);
    let text = String::from_utf8_lossy(&seen).into_owned();
    assert!(
        text.starts_with("\r\x1b[Kcapout: ") && text.contains(" lines read (") && text.contains(" MiB/s)"),
        "{text:?}"
    );
    writer.join().unwrap();
    let out = child.wait_with_output().unwrap();
    let mut rest = Vec::new();
    std::io::Read::read_to_end(&mut stderr, &mut rest).unwrap();
    assert!(rest.ends_with(b"\r\x1b[K"), "erased at the end: {:?}", String::from_utf8_lossy(&rest));
    assert_eq!(out.stdout, b"89\n... (truncated, showing last 3 chars)\n");
}

#[test]
fn progress_never_and_auto_off_a_terminal_print_nothing() {
    for when in ["never", "auto"] {
        let out = capout().args(["--progress", when]).write_stdin(vec![b'x'; 1 << 20]).output().unwrap();
        assert!(out.stderr.is_empty(), "{when}");
    }
}

#[test]
fn completions_for_each_shell() {
    for (shell, says) in [
        ("bash", "_capout()"),
        ("zsh", "#compdef capout"),
        ("fish", "complete -c capout"),
        ("elvish", "capout"),
    ] {
        let out = capout().args(["--completions", shell]).output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains(says) && text.contains("--tail-chars"), "{shell}");
    }
    assert_eq!(capout().args(["--completions", "tcsh"]).output().unwrap().status.code(), Some(2));
}

/// The wheel installs completions committed in the tree (its build runs no
/// step after cargo's), so a new option must reach them:
/// `packaging/completions.sh` rewrites them.
#[test]
fn the_committed_completions_are_what_capout_prints() {
    let share = concat!(env!("CARGO_MANIFEST_DIR"), "/../../packaging/wheel-data/data/share");
    for (shell, file) in [
        ("bash", "bash-completion/completions/capout"),
        ("zsh", "zsh/site-functions/_capout"),
        ("fish", "fish/vendor_completions.d/capout.fish"),
    ] {
        let out = capout().args(["--completions", shell]).output().unwrap();
        let committed = std::fs::read(format!("{share}/{file}")).unwrap();
        assert!(
            out.stdout == committed,
            "packaging/wheel-data/data/share/{file} is not what capout --completions {shell} prints: \
             run packaging/completions.sh and commit the result"
        );
    }
}

#[test]
fn json_output_is_the_plain_output_whatever_splits_it() {
    // Many lines of multi-byte characters: rings wrap mid-character.
    let input: Vec<u8> =
        (0..3000).flat_map(|i| format!("{i} \u{e9}\u{20ac}\u{1f600} \u{e9}\u{e9}\n").into_bytes()).collect();
    let mut input = input;
    input.extend_from_slice(b"\xff\xe2\x82");
    for args in [
        &["-c", "5000"][..],
        &["--tail-lines", "333"],
        &["-n", "77", "--offset", "5"],
        &["-m", "9", "-e", "7"],
        &["--head-chars", "4321"],
        &["-c", "10", "--bytes"],
    ] {
        json_and_plain_agree(args, &input);
    }
    // Long lines, fewer to a read than the cap keeps: the ring of
    // --tail-lines wraps, and its two halves split characters.
    let long: Vec<u8> = (0..3000)
        .flat_map(|i| format!("{i} {}\n", "\u{e9}\u{20ac}\u{1f600}".repeat(300)).into_bytes())
        .collect();
    json_and_plain_agree(&["--tail-lines", "100"], &long);
}

/// The `output` of `--json` is the plain output, as text.
fn json_and_plain_agree(args: &[&str], input: &[u8]) {
    let plain = stdout_of(capout().args(args).args(["--notice", "none"]), input);
    let v = json_of(args, input);
    assert_eq!(v["output"].as_str(), Some(plain.as_str()), "{args:?}");
}

#[test]
fn save_onto_the_input_file_keeps_what_was_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("in.log");
    std::fs::write(&path, "1\n2\n").unwrap();
    let p = path.display().to_string();
    let out = crate::common::capout_std()
        .args(["-n", "1", "--save", &p])
        .stdin(std::fs::File::open(&path).unwrap())
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("1\n... (truncated, showing lines 1-1 of 2, next offset 1; full output: {p})\n")
    );
    assert_eq!(std::fs::read(&path).unwrap(), b"1\n2\n");
}

#[test]
fn save_onto_a_file_the_command_reads_gives_it_the_old_content() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f"), "1\n2\n3\n").unwrap();
    let out =
        capout().args(["-n", "1", "--save", "f", "--", "cat", "f"]).current_dir(dir.path()).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "1\n... (truncated, showing lines 1-1 of 3, next offset 1; full output: f)\n"
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(std::fs::read(dir.path().join("f")).unwrap(), b"1\n2\n3\n");
}

#[test]
fn save_replaces_a_symlink_instead_of_writing_through_it() {
    let dir = tempfile::tempdir().unwrap();
    let (target, link) = (dir.path().join("target"), dir.path().join("link"));
    std::fs::write(&target, "target\n").unwrap();
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let out = stdout_of(capout().args(["--save", link.to_str().unwrap()]), b"new\n");
    assert_eq!(out, "new\n");
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_file());
    assert_eq!(std::fs::read(&link).unwrap(), b"new\n");
    assert_eq!(std::fs::read(&target).unwrap(), b"target\n");
}

/// The names in `dir`, sorted.
fn names_in(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn save_leaves_the_file_as_it_was_when_the_input_fails() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    std::fs::write(&path, "old\n").unwrap();
    // A directory as stdin: the first read fails.
    let out = crate::common::capout_std()
        .args(["--save", path.to_str().unwrap()])
        .stdin(std::fs::File::open(dir.path()).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read(&path).unwrap(), b"old\n");
    assert_eq!(names_in(dir.path()), ["f"], "nothing is left behind");
}

#[test]
fn saved_files_are_readable_by_their_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    std::fs::write(&path, "old\n").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    stdout_of(capout().args(["--save", path.to_str().unwrap()]), b"new\n");
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&path), 0o600);
    let d = dir.path().join("d");
    std::fs::create_dir(&d).unwrap();
    let v = json_of(&["--save-dir", d.to_str().unwrap(), "-c", "1"], b"new\n");
    assert_eq!(mode(std::path::Path::new(v["saved_to"].as_str().unwrap())), 0o600);
}

#[test]
fn save_to_a_directory_fails_before_the_command_runs() {
    let dir = tempfile::tempdir().unwrap();
    let out = capout()
        .args(["--save", ".", "--", "sh", "-c", "echo ran > ran"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "capout: cannot save the output to .: Is a directory (os error 21)\n"
    );
    assert_eq!(names_in(dir.path()), Vec::<String>::new(), "the command never ran");
}

#[test]
fn save_dir_that_does_not_exist_is_one_error_line() {
    let out = capout().args(["--save-dir", "/nonexistent-dir"]).write_stdin("a\n").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "capout: cannot save the output to /nonexistent-dir: No such file or directory (os error 2)\n"
    );
}

/// Pages of a line cap with a character budget, each asked for at the
/// `next_offset` of the one before, give every line of the input once.
#[test]
fn budget_pages_rebuild_the_input() {
    let input: String = (1..=300).map(|i| "x".repeat(i % 37) + "\n").collect();
    let mut rebuilt = String::new();
    let mut offset = 0;
    let mut pages = 0;
    loop {
        let offset_arg = offset.to_string();
        let v = json_of(&["-n", "50", "--budget-chars", "400", "--offset", &offset_arg], input.as_bytes());
        assert_eq!(v["budget"], json!(400));
        let output = v["output"].as_str().unwrap();
        assert!(output.chars().count() <= 400, "{output:?}");
        rebuilt.push_str(output);
        pages += 1;
        let Some(next) = v["next_offset"].as_u64() else {
            assert_eq!(v["last"], json!(300));
            break;
        };
        assert_eq!(v["first"], json!(offset + 1));
        assert_eq!(v["last"], json!(next));
        offset = next;
    }
    assert_eq!(rebuilt, input);
    assert!(pages > 6, "{pages} pages: the budget, not the 50 lines, ended them");
}

/// Profile `read` carries a character budget that fits the tool-output
/// limits of the common harnesses, and `--json` reports it.
#[test]
fn profile_read_carries_a_budget() {
    let input: String = (0..500).map(|_| "y".repeat(99) + "\n").collect();
    let v = json_of(&["--profile", "read"], input.as_bytes());
    assert_eq!((&v["budget"], &v["last"], &v["next_offset"]), (&json!(8000), &json!(80), &json!(80)));
    assert_eq!(v["notice"], json!("... (truncated, showing lines 1-80 of 500, next offset 80)"));
}

/// `--offset` pages `--max-matches` and `--head-lines` only; a budget goes
/// with a line cap alone.
#[test]
fn offset_and_budget_go_with_their_caps() {
    for (args, says) in [
        (
            &["--tail-lines", "2", "--offset", "1"][..],
            "--offset goes with --head-lines or --max-matches alone",
        ),
        (
            &["-c", "2", "--budget-chars", "1"][..],
            "--budget-chars goes with --head-lines, --tail-lines or --max-matches alone",
        ),
        (
            &["-n", "1", "--tail-lines", "1", "--budget-chars", "1"][..],
            "--budget-chars goes with --head-lines, --tail-lines or --max-matches alone",
        ),
        (&["-n", "2", "--budget-chars", "1", "--keep", "x"][..], "--keep does not go with --budget-chars"),
        (&["-n", "2", "--budget-chars", "0"][..], "--budget-chars"),
    ] {
        let out = capout().args(args).write_stdin("a\n").output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(says) && out.status.code() == Some(2) && out.stdout.is_empty(),
            "{args:?}: {stderr}"
        );
    }
}
