//! capout in a hostile environment: a stderr that fails, a file size
//! limit, and errors under `--json`. Whatever fails, stdout says what it
//! always says, and `--json` prints one complete object.
//!
//! Tests that need capout to have reached a point wait on an event (a
//! write that only completes once capout has read, a line on its stderr);
//! the sleeps here only make sure that more time passes than the 100 ms
//! between two progress updates, so that one more is due.

use std::fs::{self, File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::thread;
use std::time::Duration;

use serde_json::{Value, json};

const CAPOUT: &str = env!("CARGO_BIN_EXE_capout");

/// Longer than the time between two progress updates.
const PAST_AN_UPDATE: Duration = Duration::from_millis(300);

fn capout(args: &[&str]) -> Command {
    let mut cmd = crate::common::capout_std();
    cmd.args(args);
    cmd
}

/// `/dev/full`, open for writing: every write fails with ENOSPC.
fn dev_full() -> File {
    OpenOptions::new().write(true).open("/dev/full").expect("/dev/full is needed by this test")
}

/// The input `seq 1 n` gives.
fn seq(n: u32) -> Vec<u8> {
    (1..=n).flat_map(|i| format!("{i}\n").into_bytes()).collect()
}

/// Feeds capout more than any pipe holds, so that once the write is done
/// capout is surely reading; then, past the next progress update, the end.
fn feed_past_an_update(mut stdin: impl Write, end: &[u8]) {
    stdin.write_all(&vec![b'.'; 8 << 20]).unwrap();
    thread::sleep(PAST_AN_UPDATE);
    stdin.write_all(end).unwrap();
}

#[test]
fn progress_on_a_full_stderr_changes_nothing() {
    let mut child = capout(&["--progress", "always", "-c", "4"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(dev_full())
        .spawn()
        .unwrap();
    feed_past_an_update(child.stdin.take().unwrap(), b"end\n");
    let out = child.wait_with_output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "end\n... (truncated, showing last 4 chars)\n");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn progress_to_a_stderr_whose_reader_left_changes_nothing() {
    let mut child = capout(&["--progress", "always", "-c", "4"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    let (left, leaving) = std::sync::mpsc::channel::<()>();
    let writer = thread::spawn(move || {
        let mut stdin = stdin;
        while leaving.try_recv().is_err() {
            stdin.write_all(b"0123456789\n").unwrap();
        }
        thread::sleep(PAST_AN_UPDATE);
        stdin.write_all(b"end\n").unwrap();
    });
    // The live line shows; then its reader goes away.
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    stderr.read_until(b')', &mut Vec::new()).unwrap();
    drop(stderr);
    left.send(()).unwrap();
    writer.join().unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "end\n... (truncated, showing last 4 chars)\n");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn progress_on_a_full_stderr_leaves_a_command_alone() {
    let script = "seq 1000000; sleep 0.3; echo end";
    let out = capout(&["--progress", "always", "-c", "4", "--", "sh", "-c", script])
        .stdin(Stdio::null())
        .stderr(dev_full())
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "end\n... (truncated, showing last 4 chars)\n");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn progress_to_a_stderr_whose_reader_left_does_not_kill_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let go = dir.path().join("go");
    // The command writes until told to stop, then waits past an update and
    // writes once more: it would die of SIGPIPE if capout stopped reading.
    let script = "while [ ! -e \"$1\" ]; do echo 0123456789; done; sleep 0.3; echo end";
    let mut child =
        capout(&["--progress", "always", "-c", "4", "--", "sh", "-c", script, "sh", go.to_str().unwrap()])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    stderr.read_until(b')', &mut Vec::new()).unwrap();
    drop(stderr);
    fs::write(&go, "").unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "end\n... (truncated, showing last 4 chars)\n");
    assert_eq!(out.status.code(), Some(0));
}

/// capout run by `sh` under `ulimit -f 100` (at most 100 KiB), in `dir`.
fn under_a_file_size_limit(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new("sh");
    crate::common::clean_env(&mut cmd);
    cmd.args(["-c", "ulimit -f 100 && exec \"$0\" \"$@\"", CAPOUT]).args(args).current_dir(dir);
    cmd
}

/// What `seq 1000000 | capout -c 30 --save x` prints when x cannot hold it.
fn check_file_too_large(out: &Output, dir: &Path) {
    let input = seq(1_000_000);
    let kept = String::from_utf8_lossy(&input[input.len() - 30..]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("{kept}... (truncated, showing last 30 chars)\n")
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "capout: cannot save the output to x: File too large (os error 27)\n"
    );
    assert_eq!(out.status.code(), Some(1));
    // x was never half-written: it still holds what it held.
    assert_eq!(fs::read(dir.join("x")).unwrap(), b"old\n");
}

#[test]
fn a_file_size_limit_on_save_is_a_save_error() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("x"), "old\n").unwrap();
    let mut child = under_a_file_size_limit(dir.path(), &["-c", "30", "--save", "x"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = thread::spawn(move || stdin.write_all(&seq(1_000_000)));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    check_file_too_large(&out, dir.path());
}

#[test]
fn a_file_size_limit_on_save_is_a_save_error_in_command_mode() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("x"), "old\n").unwrap();
    let out = under_a_file_size_limit(dir.path(), &["-c", "30", "--save", "x", "--", "seq", "1000000"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    check_file_too_large(&out, dir.path());
}

#[test]
fn a_command_meets_a_file_size_limit_as_it_would_without_capout() {
    // Killed by SIGXFSZ (128 + 25), as under the shell alone: capout's own
    // handling of the signal is not passed on the way an ignored signal is.
    let dir = tempfile::tempdir().unwrap();
    let script = "ulimit -f 1 && head -c 5000 /dev/zero > big; echo $? > status";
    let out =
        capout(&["--", "sh", "-c", script]).current_dir(dir.path()).stdin(Stdio::null()).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(fs::read_to_string(dir.path().join("status")).unwrap(), "153\n");
}

/// The one object on stdout; stdout must be that object and a newline.
fn object(out: &Output) -> Value {
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.ends_with('\n') && text.matches('\n').count() == 1, "one line: {text:?}");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text:?}"))
}

/// An object for a run that failed before its input ended.
fn check_failed(out: &Output, message: &str, status: i32) {
    let v = object(out);
    assert_eq!(String::from_utf8_lossy(&out.stderr), format!("capout: {message}\n"));
    assert_eq!(out.status.code(), Some(status));
    assert_eq!(
        v,
        json!({
            "output": "",
            "notice": null,
            "truncated": false,
            "cap": "tail-chars",
            "limit": 5000,
            "budget": null,
            "total_bytes": null,
            "total_chars": null,
            "total_lines": null,
            "matches": null,
            "unit": "chars",
            "omitted": null,
            "first": null,
            "last": null,
            "next_offset": null,
            "total_tokens": null,
            "tokenizer": null,
            "json_items_kept": null,
            "json_items": null,
            "json_arrays_cut": null,
            "json_strings_cut": null,
            "json_documents_kept": null,
            "json_documents": null,
            "json_ended_at": null,
            "exit_code": status,
            "signal": null,
            "timed_out": false,
            "saved_to": null,
            "error": message,
        })
    );
}

#[test]
fn json_of_a_command_not_found_is_a_whole_object() {
    let out = capout(&["--json", "--", "capout-test-no-such-command"]).stdin(Stdio::null()).output().unwrap();
    check_failed(&out, "capout-test-no-such-command: command not found", 127);
}

#[test]
fn json_of_a_command_that_cannot_be_executed_is_a_whole_object() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("script"), "#!/bin/sh\necho hi\n").unwrap();
    let out =
        capout(&["--json", "--", "./script"]).current_dir(dir.path()).stdin(Stdio::null()).output().unwrap();
    check_failed(&out, "./script: permission denied", 126);
}

#[test]
fn json_of_an_input_that_cannot_be_read_is_a_whole_object() {
    let dir = tempfile::tempdir().unwrap();
    let out = capout(&["--json"]).stdin(File::open(dir.path()).unwrap()).output().unwrap();
    check_failed(&out, "error reading input: Is a directory (os error 21)", 1);
}

#[test]
fn json_of_a_save_that_cannot_be_made_is_a_whole_object() {
    let out = capout(&["--json", "--save", "/nonexistent-dir/x.log"]).stdin(Stdio::null()).output().unwrap();
    check_failed(
        &out,
        "cannot save the output to /nonexistent-dir/x.log: No such file or directory (os error 2)",
        1,
    );
}

#[test]
fn json_of_a_save_that_fails_part_way_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let out =
        under_a_file_size_limit(dir.path(), &["--json", "-c", "8", "--save", "x", "--", "seq", "1000000"])
            .stdin(Stdio::null())
            .output()
            .unwrap();
    let v = object(&out);
    let message = "cannot save the output to x: File too large (os error 27)";
    assert_eq!(String::from_utf8_lossy(&out.stderr), format!("capout: {message}\n"));
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        (&v["output"], &v["notice"], &v["truncated"], &v["total_lines"]),
        (
            &json!("1000000\n"),
            &json!("... (truncated, showing last 8 chars)"),
            &json!(true),
            &json!(1_000_000)
        )
    );
    assert_eq!((&v["exit_code"], &v["saved_to"], &v["error"]), (&json!(1), &Value::Null, &json!(message)));
    assert!(!dir.path().join("x").exists());
}

#[test]
fn json_usage_errors_print_nothing_on_stdout() {
    for args in [&["--json", "-c", "0"][..], &["--json", "-e", "(", "-m", "1"], &["--json", "--nope"]] {
        let out = capout(args).stdin(Stdio::null()).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

/// Gives `data`, then fails.
struct FailsAfter(&'static [u8]);

impl Read for FailsAfter {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.0.is_empty() {
            return Err(std::io::Error::other("the disk went away"));
        }
        let n = self.0.len().min(buf.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

#[test]
fn json_closes_the_object_when_reading_fails_after_output_streamed() {
    let config = {
        let mut options = capout_core::Options::new(capout_core::CapSpec::HeadLines { limit: 5, offset: 0 });
        options.json = true;
        options
    };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let result = capout::run::run(&config, FailsAfter(b"a\nb\n"), &mut out, &mut err);
    let error = result.expect_err("reading failed");
    assert_eq!(error.to_string(), "error reading input: the disk went away");
    assert_eq!(error.exit(), capout::exit::Exit::Failure);
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(
        (&v["output"], &v["error"], &v["exit_code"], &v["total_lines"]),
        (&json!("a\nb\n"), &json!("error reading input: the disk went away"), &json!(1), &Value::Null)
    );
}

/// capout's stdout, stderr and status for `input`, ended by force (and
/// the test failed) if it has not ended within 10 s.
fn within_10_s(args: &[&str], input: &[u8]) -> (Vec<u8>, String, Option<i32>) {
    let mut child =
        capout(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    // A capout that refuses early closes its stdin: the rest is not written.
    let writer = thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(10) {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("capout {args:?} still runs after 10 s");
        }
        thread::sleep(Duration::from_millis(10));
    }
    writer.join().unwrap();
    let out = child.wait_with_output().unwrap();
    (out.stdout, String::from_utf8_lossy(&out.stderr).into_owned(), out.status.code())
}

fn mkfifo(path: &Path) {
    let made = Command::new("mkfifo").arg(path).status().expect("mkfifo is needed by this test");
    assert!(made.success());
}

/// What a reader that opened `fifo` before capout ran got: everything
/// written to it since, without waiting for more.
fn read_without_waiting(reader: &mut File) -> Vec<u8> {
    let mut got = Vec::new();
    let mut buf = [0; 4096];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => return got,
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return got,
            Err(e) => panic!("{e}"),
        }
    }
}

/// A reader of the FIFO `path`, as another user's `cat path` would be,
/// opened without waiting for a writer.
fn fifo_reader(path: &Path) -> File {
    use rustix::fs::{Mode, OFlags};
    File::from(rustix::fs::open(path, OFlags::RDONLY | OFlags::NONBLOCK, Mode::empty()).unwrap())
}

const A_FIFO: &str = "it is a FIFO; --save writes a regular file or a character device such as /dev/null";

#[test]
fn save_to_a_fifo_without_a_reader_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("out.log");
    mkfifo(&fifo);
    let path = fifo.to_str().unwrap();
    let got = within_10_s(&["-c", "20", "--save", path], &seq(100_000));
    assert_eq!(got, (Vec::new(), format!("capout: cannot save the output to {path}: {A_FIFO}\n"), Some(1)));
}

#[test]
fn save_to_a_fifo_with_a_reader_sends_it_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("out.log");
    mkfifo(&fifo);
    let mut reader = fifo_reader(&fifo);
    let path = fifo.to_str().unwrap();
    let got = within_10_s(&["-c", "20", "--save", path], &seq(1000));
    assert_eq!(got, (Vec::new(), format!("capout: cannot save the output to {path}: {A_FIFO}\n"), Some(1)));
    assert_eq!(read_without_waiting(&mut reader), b"");
}

/// A new directory of mode 1777, as `/tmp` is, owned by `owner`.
fn sticky_dir(owner: u32) -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o1777)).unwrap();
    chown(dir.path(), owner);
    dir
}

/// Gives `path` to the user `uid`: the test must run as root (as CI does)
/// to make a file of another user.
fn chown(path: &Path, uid: u32) {
    std::os::unix::fs::chown(path, Some(uid), Some(uid))
        .expect("this test makes files of the user nobody (65534), which needs root");
}

const NOBODY: u32 = 65534;
const ANOTHER_USERS: &str = "it belongs to another user, in a sticky directory that others can write";

#[test]
fn save_in_a_sticky_directory_refuses_a_file_of_another_user() {
    use std::os::unix::fs::MetadataExt;
    let dir = sticky_dir(rustix::process::geteuid().as_raw());
    let file = dir.path().join("out.log");
    fs::write(&file, b"planted\n").unwrap();
    chown(&file, NOBODY);
    let path = file.to_str().unwrap();
    let got = within_10_s(&["-c", "20", "--save", path], &seq(100_000));
    assert_eq!(
        got,
        (Vec::new(), format!("capout: cannot save the output to {path}: {ANOTHER_USERS}\n"), Some(1))
    );
    assert_eq!(
        (fs::read(&file).unwrap(), fs::metadata(&file).unwrap().uid()),
        (b"planted\n".to_vec(), NOBODY)
    );
    // Nothing else was left in the directory.
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    // A FIFO of another user, with a reader: refused, and it gets nothing.
    let fifo = dir.path().join("fifo.log");
    mkfifo(&fifo);
    chown(&fifo, NOBODY);
    let mut reader = fifo_reader(&fifo);
    let path = fifo.to_str().unwrap();
    let got = within_10_s(&["-c", "20", "--save", path], &seq(1000));
    assert_eq!(got, (Vec::new(), format!("capout: cannot save the output to {path}: {A_FIFO}\n"), Some(1)));
    assert_eq!(read_without_waiting(&mut reader), b"");
}

#[test]
fn save_in_a_sticky_directory_replaces_a_file_of_its_own_or_of_the_directory_owner() {
    let want = b"99999\n100000\n... (truncated, showing last 13 chars; full output: ".to_vec();
    for (dir_owner, file_owner) in [(NOBODY, NOBODY), (NOBODY, rustix::process::geteuid().as_raw())] {
        let dir = sticky_dir(dir_owner);
        let file = dir.path().join("out.log");
        fs::write(&file, b"old\n").unwrap();
        chown(&file, file_owner);
        let path = file.to_str().unwrap();
        let (stdout, stderr, status) = within_10_s(&["-c", "13", "--save", path], &seq(100_000));
        assert_eq!(
            (stdout, stderr, status),
            ([&want[..], path.as_bytes(), b")\n"].concat(), String::new(), Some(0))
        );
        assert_eq!(fs::read(&file).unwrap(), seq(100_000));
    }
}

#[test]
fn save_to_dev_null_writes_to_the_device() {
    let got = within_10_s(&["-c", "4", "--save", "/dev/null"], b"abcdef");
    let want = b"cdef\n... (truncated, showing last 4 chars; full output: /dev/null)\n".to_vec();
    assert_eq!(got, (want, String::new(), Some(0)));
    // Still the device, not a file in its place.
    assert!(std::os::unix::fs::FileTypeExt::is_char_device(&fs::metadata("/dev/null").unwrap().file_type()));
}

/// How long a run that should end at once may take before it is taken to
/// hang: far above what a loaded machine needs.
const HANG: Duration = Duration::from_secs(20);

/// Waits for `child` for at most [`HANG`], then kills it: a status of
/// SIGKILL says that it did not end by itself.
fn wait_or_kill(child: &mut std::process::Child) -> std::process::ExitStatus {
    let start = std::time::Instant::now();
    while start.elapsed() < HANG {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        thread::sleep(Duration::from_millis(10));
    }
    let _ = child.kill();
    child.wait().unwrap()
}

/// `yes | capout ARGS`: reads the first `first` bytes of capout's stdout,
/// closes it as `head` does, and says how capout ended, with its stderr.
fn endless_input_with_stdout_closed_after(args: &[&str], first: usize) -> (std::process::ExitStatus, String) {
    let mut yes = Command::new("yes").stdout(Stdio::piped()).spawn().expect("yes runs");
    let mut child = capout(args)
        .stdin(yes.stdout.take().unwrap())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut got = vec![0; first];
    stdout.read_exact(&mut got).unwrap();
    assert_eq!(got, b"y\n".repeat(first)[..first], "{args:?}");
    drop(stdout);
    let status = wait_or_kill(&mut child);
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    // `yes` meets the pipe that capout closed on its way out.
    let _ = yes.kill();
    let _ = yes.wait();
    (status, stderr)
}

#[test]
fn a_closed_stdout_ends_a_cap_with_nothing_more_to_write() {
    use std::os::unix::process::ExitStatusExt;
    // As `yes | head -1` ends: a head cap past its limit reads on only
    // for its totals, a pair between its head and its tail writes nothing,
    // and a tail cap writes only at the end.
    let cases: [(&[&str], usize); 7] = [
        (&["-n", "1"], 2),
        (&["-m", "1"], 2),
        (&["--head-chars", "1"], 1),
        (&["--head-lines", "1", "--tail-lines", "1"], 2),
        (&["--head-chars", "1", "--tail-chars", "1"], 1),
        (&["-c", "5"], 0),
        (&["--json", "-n", "1"], 0),
    ];
    for (args, first) in cases {
        let (status, stderr) = endless_input_with_stdout_closed_after(args, first);
        assert_eq!((status.code(), status.signal(), stderr.as_str()), (Some(0), None, ""), "{args:?}");
    }
}
