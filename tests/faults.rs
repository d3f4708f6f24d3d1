//! capout in a hostile environment: a stderr that fails. Whatever fails,
//! stdout says what it always says.
//!
//! Tests that need capout to have reached a point wait on an event (a
//! write that only completes once capout has read, a line on its stderr);
//! the sleeps here only make sure that more time passes than the 100 ms
//! between two progress updates, so that one more is due.

use std::fs::{self, File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
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
