//! capout in a hostile environment: a stderr that fails, a file size
//! limit. Whatever fails, stdout says what it always says.
//!
//! Tests that need capout to have reached a point wait on an event (a
//! write that only completes once capout has read, a line on its stderr);
//! the sleeps here only make sure that more time passes than the 100 ms
//! between two progress updates, so that one more is due.

use std::fs::{self, File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::thread;
use std::time::Duration;

const CAPOUT: &str = env!("CARGO_BIN_EXE_capout");

/// Longer than the time between two progress updates.
const PAST_AN_UPDATE: Duration = Duration::from_millis(300);

fn capout(args: &[&str]) -> Command {
    let mut cmd = Command::new(CAPOUT);
    cmd.args(args).env_remove("CAPOUT_OPTS");
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
    cmd.args(["-c", "ulimit -f 100 && exec \"$0\" \"$@\"", CAPOUT])
        .args(args)
        .env_remove("CAPOUT_OPTS")
        .current_dir(dir);
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
