//! Black-box tests of filter mode under SIGINT, SIGTERM and SIGHUP: what
//! was kept is shown, then capout dies of the signal.
//!
//! Each test waits on an event (a line on capout's stdout), never on a
//! sleep timed for a fast machine.

use std::io::{Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process};

/// Starts capout with its stdin and stdout on pipes.
fn start(args: &[&str]) -> (Child, Pid) {
    let child = crate::common::capout_std()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = Pid::from_raw(i32::try_from(child.id()).unwrap()).unwrap();
    (child, pid)
}

/// Starts capout on a pipe, writes `input` and keeps the pipe open; once
/// capout has printed `first` it gets `signal`. The input is written at
/// once, so capout has read all of it by the time it prints. Returns the rest of its
/// stdout and the signal it died of.
fn interrupt(args: &[&str], input: &[u8], first: &str, signal: Signal) -> (String, Option<i32>) {
    let (mut child, pid) = start(args);
    let (done, finished) = mpsc::channel::<()>();
    thread::spawn(move || {
        if finished.recv_timeout(Duration::from_secs(20)) == Err(mpsc::RecvTimeoutError::Timeout) {
            let _ = kill_process(pid, Signal::KILL);
        }
    });
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input).unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut seen = vec![0; first.len()];
    stdout.read_exact(&mut seen).unwrap();
    assert_eq!(String::from_utf8_lossy(&seen), first);
    kill_process(pid, signal).unwrap();
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    let status = child.wait().unwrap();
    drop((stdin, done));
    (rest, status.signal())
}

#[test]
fn an_interrupted_filter_shows_what_it_kept_and_dies_of_the_signal() {
    crate::common::signals_at_their_default();
    for (signal, name) in [(Signal::TERM, "SIGTERM"), (Signal::INT, "SIGINT"), (Signal::HUP, "SIGHUP")] {
        let (rest, died_of) = interrupt(&["-n", "2"], b"1\n2\n3\n4\n5\n", "1\n", signal);
        assert_eq!(
            rest,
            format!(
                "2\n... (truncated, showing lines 1-2 of 5, next offset 2)\n... (interrupted by {name})\n"
            )
        );
        assert_eq!(died_of, Some(signal.as_raw()), "{name}");
    }
}

#[test]
fn an_interrupted_tail_shows_the_end_it_kept() {
    let (rest, died_of) =
        interrupt(&["--head-lines", "1", "--tail-lines", "1"], b"1\n2\n3\n4\n", "1\n", Signal::TERM);
    assert_eq!(rest, "... (truncated, omitted 2 lines) ...\n4\n... (interrupted by SIGTERM)\n");
    assert_eq!(died_of, Some(15));
}

#[test]
fn an_interrupted_json_run_is_one_complete_object() {
    let (rest, died_of) = interrupt(&["-n", "1", "--json"], b"1\n2\n", "{\"output\":\"1\\n", Signal::TERM);
    let object: serde_json::Value = serde_json::from_str(&format!("{{\"output\":\"1\\n{rest}")).unwrap();
    assert_eq!(
        object["notice"],
        "... (truncated, showing lines 1-1 of 2, next offset 1)\n... (interrupted by SIGTERM)"
    );
    assert_eq!(object["exit_code"], 143);
    assert_eq!(died_of, Some(15));
}

/// Whether process `pid` is in a `write(2)` to its stdout, as Linux's
/// `/proc/PID/syscall` tells: the call's number (1 on `x86_64`), then fd 1.
fn writing_to_stdout(pid: u32) -> bool {
    let call = std::fs::read_to_string(format!("/proc/{pid}/syscall")).unwrap_or_default();
    let mut words = call.split_whitespace();
    let write = if cfg!(target_arch = "x86_64") { "1" } else { "64" };
    words.next() == Some(write) && words.next() == Some("0x1")
}

/// Whether `signal` is pending for process `pid`, as Linux tells.
fn pending(pid: u32, signal: Signal) -> bool {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let bit = 1u64 << (signal.as_raw() - 1);
    status
        .lines()
        .filter_map(|line| line.strip_prefix("SigPnd:").or_else(|| line.strip_prefix("ShdPnd:")))
        .any(|mask| u64::from_str_radix(mask.trim(), 16).unwrap() & bit != 0)
}

#[test]
#[cfg_attr(not(target_os = "linux"), ignore = "needs Linux's /proc")]
fn a_second_signal_ends_a_filter_blocked_on_its_output_at_once() {
    // Nobody reads capout's stdout: it blocks writing, so the first
    // signal cannot be acted on; the second ends it.
    let (mut child, pid) = start(&["-n", "1000000"]);
    let mut stdin = child.stdin.take().unwrap();
    // More than the pipes between hold: the writer blocks once capout does.
    let writer = thread::spawn(move || {
        let line = [b'x'; 1023];
        while stdin.write_all(&line).and_then(|()| stdin.write_all(b"\n")).is_ok() {}
    });
    let stdout = child.stdout.take().unwrap();
    // Only once capout is blocked in a write to its stdout.
    let start = Instant::now();
    while !writing_to_stdout(child.id()) {
        assert!(start.elapsed() < Duration::from_secs(20), "capout never blocked on its stdout");
        thread::sleep(Duration::from_millis(10));
    }
    kill_process(pid, Signal::TERM).unwrap();
    // Two signals of a kind that are both pending are one: the second is
    // sent once the first has been taken.
    let start = Instant::now();
    while pending(child.id(), Signal::TERM) {
        assert!(start.elapsed() < Duration::from_secs(20), "SIGTERM never taken");
        thread::sleep(Duration::from_millis(10));
    }
    kill_process(pid, Signal::TERM).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(15));
    drop(stdout);
    writer.join().unwrap();
}
