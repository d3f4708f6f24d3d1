//! Black-box tests of `capout [OPTIONS] [--] COMMAND [ARG]...`.
//!
//! Tests that must catch capout in the middle of a run wait on events (a
//! line read from its stdout, a file that appears), never on a sleep timed
//! for a fast machine. The timeouts here only guard against a hang.

use std::fs;
use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process};

/// How long any one run may take before the test gives up on it.
const GUARD: Duration = Duration::from_secs(20);

const CAPOUT: &str = env!("CARGO_BIN_EXE_capout");

fn capout(args: &[&str]) -> assert_cmd::Command {
    let mut cmd = crate::common::capout();
    cmd.args(args).timeout(GUARD);
    cmd
}

/// A directory of its own for one test, removed at the end.
struct TempDir(PathBuf);

impl TempDir {
    fn new(test: &str) -> TempDir {
        let path = std::env::temp_dir().join(format!("capout-test-{}-{test}", std::process::id()));
        let _ = fs::remove_dir_all(&path);
        fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// Kills `child` if it still runs after [`GUARD`]; dropping the returned
/// sender calls the guard off.
fn watchdog(child: &Child) -> mpsc::Sender<()> {
    let pid = pid(child.id());
    let (done, finished) = mpsc::channel::<()>();
    thread::spawn(move || {
        if finished.recv_timeout(GUARD) == Err(mpsc::RecvTimeoutError::Timeout) {
            let _ = kill_process(pid, Signal::KILL);
        }
    });
    done
}

fn pid(id: u32) -> Pid {
    Pid::from_raw(i32::try_from(id).unwrap()).unwrap()
}

/// Waits until `what` holds, checking often, for at most [`GUARD`].
fn wait_until(what: &str, mut holds: impl FnMut() -> bool) {
    let start = Instant::now();
    while !holds() {
        assert!(start.elapsed() < GUARD, "gave up waiting until {what}");
        thread::sleep(Duration::from_millis(10));
    }
}

/// Whether process `pid` runs. A zombie does not: its parent may be gone
/// and the process that inherits it may never reap it.
fn alive(pid: i32) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            !matches!(stat.rsplit(')').next().map(str::trim_start), Some(s) if s.starts_with(['Z', 'X']))
        }
        Err(_) if Path::new("/proc/self/stat").exists() => false,
        Err(_) => kill_process(Pid::from_raw(pid).unwrap(), Signal::CONT).is_ok(),
    }
}

fn read_pid(file: &Path) -> i32 {
    fs::read_to_string(file).unwrap().trim().parse().unwrap()
}

#[test]
fn exits_with_the_commands_status() {
    for code in [0, 1, 2, 7, 255] {
        capout(&["--", "sh", "-c", &format!("exit {code}")])
            .assert()
            .code(code)
            .stdout("(no output)\n")
            .stderr("");
    }
}

#[test]
fn a_command_killed_by_a_signal_kills_capout_with_the_same_signal() {
    crate::common::signals_at_their_default();
    for (signal, name) in [(9, "KILL"), (15, "TERM"), (2, "INT"), (13, "PIPE")] {
        let out = capout(&["--", "sh", "-c", &format!("echo kept; kill -{name} $$")]).output().unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "kept\n", "SIG{name}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "SIG{name}");
        assert_eq!(out.status.signal(), Some(signal), "SIG{name}: {:?}", out.status);
    }
    // So a shell sees 128 + the signal, as it would without capout.
    let script = format!("'{CAPOUT}' -- sh -c 'kill -9 $$'; echo \"status $?\"");
    let out = crate::common::clean_env(&mut Command::new("sh")).args(["-c", &script]).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "(no output)\nstatus 137\n");
}

#[test]
fn a_signal_that_makes_a_core_file_leaves_none_of_capouts() {
    crate::common::signals_at_their_default();
    let dir = TempDir::new("core");
    let out = capout(&["--", "sh", "-c", "ulimit -c unlimited; kill -QUIT $$"])
        .current_dir(&dir.0)
        .output()
        .unwrap();
    assert_eq!(out.status.signal(), Some(3));
    assert!(!out.status.core_dumped(), "{:?}", out.status);
}

#[test]
fn a_command_not_found_gives_127() {
    capout(&["--", "capout-test-no-such-command", "-c", "1"])
        .assert()
        .code(127)
        .stdout("")
        .stderr("capout: capout-test-no-such-command: command not found\n");
}

#[test]
fn a_command_that_cannot_be_executed_gives_126() {
    let dir = TempDir::new("not-executable");
    fs::write(dir.path("script"), "#!/bin/sh\necho hi\n").unwrap();
    capout(&["--", "./script"])
        .current_dir(&dir.0)
        .assert()
        .code(126)
        .stdout("")
        .stderr("capout: ./script: permission denied\n");
}

#[test]
fn stdout_and_stderr_are_joined_in_the_order_written() {
    capout(&["--", "sh", "-c", "echo a; echo b >&2; echo c"])
        .assert()
        .success()
        .stdout("a\nb\nc\n")
        .stderr("");
}

#[test]
fn stdout_only_leaves_stderr_on_capouts_stderr() {
    capout(&["--stdout-only", "--", "sh", "-c", "echo a; echo b >&2; echo c"])
        .assert()
        .success()
        .stdout("a\nc\n")
        .stderr("b\n");
}

#[test]
fn everything_after_the_command_word_is_the_commands() {
    capout(&["--", "echo", "-n", "hi"]).assert().success().stdout("hi");
    capout(&["echo", "-n", "hi"]).assert().success().stdout("hi");
    capout(&["-n", "1", "sh", "-c", "echo one; echo two", "-n", "5"])
        .assert()
        .success()
        .stdout("one\n... (truncated, showing lines 1-1 of 2, next offset 1)\n");
}

#[test]
fn the_commands_output_is_capped_like_stdin() {
    capout(&["-c", "3", "--", "sh", "-c", "echo hello >&2"])
        .assert()
        .success()
        .stdout("lo\n... (truncated, showing last 3 chars)\n");
    capout(&["-m", "1", "--", "printf", "a\\nb\\n"])
        .assert()
        .success()
        .stdout("a\n... (2 total, showing first 1)\n");
    capout(&["--notice", "stderr", "--head-chars", "2", "--", "printf", "abc"])
        .assert()
        .success()
        .stdout("ab")
        .stderr("... (truncated, showing first 2 chars)\n");
}

#[test]
fn a_silent_command_gives_no_output() {
    capout(&["--", "true"]).assert().success().stdout("(no output)\n").stderr("");
}

#[test]
fn a_command_that_closes_its_output_is_still_waited_for() {
    capout(&["--", "sh", "-c", "echo x; exec >&- 2>&-; sleep 0.2; exit 3"]).assert().code(3).stdout("x\n");
}

#[test]
fn a_timeout_stops_the_whole_process_group() {
    let dir = TempDir::new("timeout");
    let pid_file = dir.path("pid");
    let script = format!("sleep 30 >/dev/null 2>&1 & echo $! > '{}'; echo started; wait", pid_file.display());
    capout(&["--timeout", "1", "--", "sh", "-c", &script])
        .assert()
        .code(124)
        .stdout("started\n... (command timed out after 1s)\n")
        .stderr("");
    let grandchild = read_pid(&pid_file);
    wait_until("the command's background process is gone", || !alive(grandchild));
}

#[test]
fn a_command_that_ignores_sigterm_gets_sigkill() {
    let start = Instant::now();
    capout(&["--timeout", "1", "--kill-after", "100ms", "--notice", "stderr", "--"])
        .args(["sh", "-c", "trap '' TERM; echo started; sleep 30"])
        .assert()
        .code(124)
        .stdout("started\n")
        .stderr("... (command timed out after 1s)\n");
    // Without --kill-after it would take the default five seconds more.
    assert!(start.elapsed() < Duration::from_secs(5), "took {:?}", start.elapsed());
}

#[test]
fn the_timeout_notice_follows_the_caps_notice() {
    capout(&["-c", "3", "--timeout", "1000ms", "--", "sh", "-c", "echo hello; sleep 30"])
        .assert()
        .code(124)
        .stdout("lo\n... (truncated, showing last 3 chars)\n... (command timed out after 1000ms)\n");
}

/// Starts capout with its stdout piped, and returns it with a reader of
/// its stdout.
fn spawn(args: &[&str], dir: &Path) -> (Child, BufReader<std::process::ChildStdout>) {
    let mut child = crate::common::capout_std()
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    (child, stdout)
}

fn read_line(reader: &mut impl BufRead) -> String {
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    line
}

fn read_all(reader: &mut impl Read) -> String {
    let mut text = String::new();
    reader.read_to_string(&mut text).unwrap();
    text
}

#[test]
fn signals_to_capout_go_to_the_command() {
    let dir = TempDir::new("signals");
    // The command traps SIGTERM, says so and exits 7. Its background
    // process starts before it says it is ready, so the signal finds it.
    let script = "trap 'echo got TERM; exit 7' TERM; sleep 30 & echo ready; wait";
    let (mut child, mut stdout) = spawn(&["-n", "10", "--", "sh", "-c", script], &dir.0);
    let guard = watchdog(&child);
    assert_eq!(read_line(&mut stdout), "ready\n");
    kill_process(pid(child.id()), Signal::TERM).unwrap();
    assert_eq!(read_all(&mut stdout), "got TERM\n");
    assert_eq!(child.wait().unwrap().code(), Some(7));
    drop(guard);
}

#[test]
fn a_command_killed_by_a_passed_on_signal_gives_its_status() {
    let dir = TempDir::new("signal-death");
    let (mut child, mut stdout) = spawn(&["-n", "10", "--", "sh", "-c", "echo ready; sleep 30"], &dir.0);
    let guard = watchdog(&child);
    assert_eq!(read_line(&mut stdout), "ready\n");
    kill_process(pid(child.id()), Signal::TERM).unwrap();
    assert_eq!(read_all(&mut stdout), "");
    assert_eq!(child.wait().unwrap().signal(), Some(15));
    drop(guard);
}

#[test]
#[cfg_attr(not(target_os = "linux"), ignore = "needs Linux's /proc")]
fn a_signal_capout_was_started_ignoring_stays_ignored_for_the_command() {
    // As under nohup: SIGHUP ignored.
    let script = format!("trap '' HUP; exec '{CAPOUT}' -- grep SigIgn /proc/self/status");
    let output = crate::common::clean_env(&mut Command::new("sh")).args(["-c", &script]).output().unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    let mask = text.strip_prefix("SigIgn:").expect("a SigIgn line").trim();
    assert_eq!(u64::from_str_radix(mask, 16).unwrap() & 1, 1, "{text:?}");
}

#[test]
fn background_processes_holding_the_output_do_not_hang_capout() {
    let dir = TempDir::new("background");
    let start = Instant::now();
    capout(&["--", "sh", "-c", "sleep 30 & echo $! > pid; echo started"])
        .current_dir(&dir.0)
        .assert()
        .success()
        .stdout("started\n");
    assert!(start.elapsed() < Duration::from_secs(10), "took {:?}", start.elapsed());
    let _ = kill_process(Pid::from_raw(read_pid(&dir.path("pid"))).unwrap(), Signal::KILL);
}

/// `capout -- sh -c SCRIPT` in `dir`, with a clean environment.
fn in_clean_env(script: &str, dir: &TempDir) -> assert_cmd::Command {
    let mut cmd = capout(&["--", "sh", "-c", script]);
    cmd.current_dir(&dir.0)
        .env_remove("CAPOUT_OPTS")
        .env_remove("CAPOUT_CONFIG")
        .env("HOME", &dir.0)
        .env("XDG_CONFIG_HOME", &dir.0);
    cmd
}

#[test]
fn a_background_job_left_when_the_command_exits_gets_sighup() {
    crate::common::signals_at_their_default();
    let dir = TempDir::new("leftover");
    in_clean_env("echo fg; sleep 97 & echo $! > job", &dir).assert().success().stdout("fg\n");
    let job = read_pid(&dir.path("job"));
    wait_until("the job left behind is gone", || !alive(job));
}

#[test]
fn a_nohup_job_outlives_the_command() {
    crate::common::signals_at_their_default();
    let dir = TempDir::new("nohup");
    // Both jobs get SIGHUP at once: once the plain one is gone, the one
    // under nohup has had its own.
    let script = "echo fg; sleep 97 & echo $! > plain; nohup sleep 97 >/dev/null 2>&1 & echo $! > kept";
    in_clean_env(script, &dir).assert().success().stdout("fg\n");
    let (plain, kept) = (read_pid(&dir.path("plain")), read_pid(&dir.path("kept")));
    wait_until("the plain job is gone", || !alive(plain));
    let survived = alive(kept);
    let _ = kill_process(Pid::from_raw(kept).unwrap(), Signal::KILL);
    assert!(survived, "the job under nohup was ended");
}

/// The fields of `/proc/PID/stat` after the command name.
fn stat_fields(pid: u32) -> Vec<String> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    stat.rsplit(')').next().unwrap().split_whitespace().map(String::from).collect()
}

#[test]
#[cfg_attr(not(target_os = "linux"), ignore = "needs Linux's /proc")]
fn waiting_for_the_command_costs_no_cpu_time() {
    let dir = TempDir::new("no-busy-wait");
    // A timeout that falls due while capout waits out the background
    // process once the command has exited.
    let script = "sleep 30 & echo $! > pid; echo started";
    let (mut child, mut stdout) = spawn(&["--timeout", "600ms", "--", "sh", "-c", script], &dir.0);
    let guard = watchdog(&child);
    assert_eq!(read_all(&mut stdout), "started\n");
    // Read before it is reaped: a zombie keeps its CPU times.
    wait_until("capout has exited", || stat_fields(child.id())[0] == "Z");
    let fields = stat_fields(child.id());
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(0));
    drop(guard);
    let _ = kill_process(Pid::from_raw(read_pid(&dir.path("pid"))).unwrap(), Signal::KILL);
    // A second of waiting spent polling would cost most of a second.
    assert!(ticks < 20, "capout used {ticks} clock ticks of CPU time");
}

#[test]
fn head_caps_show_lines_as_the_command_prints_them() {
    let dir = TempDir::new("streaming");
    // The command prints a line, then waits until the test has read it.
    let script = "echo first; while [ ! -e go ]; do sleep 0.01; done; echo second";
    let (mut child, mut stdout) = spawn(&["-n", "10", "--", "sh", "-c", script], &dir.0);
    let guard = watchdog(&child);
    assert_eq!(read_line(&mut stdout), "first\n", "the first line was not shown while the command ran");
    fs::write(dir.path("go"), "").unwrap();
    assert_eq!(read_all(&mut stdout), "second\n");
    assert_eq!(child.wait().unwrap().code(), Some(0));
    drop(guard);
}

#[test]
fn a_closed_stdout_stops_capout_quietly_and_the_command_meets_a_closed_pipe() {
    let dir = TempDir::new("closed-stdout");
    let script = "echo first; while [ ! -e go ]; do sleep 0.01; done; while :; do echo more; done";
    let (mut child, mut stdout) = spawn(&["-n", "1000000000", "--", "sh", "-c", script], &dir.0);
    let guard = watchdog(&child);
    assert_eq!(read_line(&mut stdout), "first\n");
    drop(stdout);
    fs::write(dir.path("go"), "").unwrap();
    let status = child.wait().unwrap();
    // The command died of SIGPIPE, as it would writing into `| head -1`,
    // and capout with it.
    assert_eq!(status.signal(), Some(13));
    assert_eq!(read_all(&mut child.stderr.take().unwrap()), "");
    drop(guard);
}

#[test]
#[cfg_attr(not(target_os = "linux"), ignore = "needs Linux's /proc")]
fn the_command_gets_no_file_descriptors_of_capouts() {
    // Whatever the test itself passes down is in both listings.
    let list = |program: &str, args: &[&str]| {
        let output = Command::new(program).args(args).stdin(Stdio::null()).output().unwrap();
        assert!(output.status.success(), "{output:?}");
        String::from_utf8(output.stdout).unwrap()
    };
    assert_eq!(list(CAPOUT, &["--", "ls", "/proc/self/fd"]), list("ls", &["/proc/self/fd"]));
}

#[test]
fn command_options_without_a_command_are_usage_errors() {
    for args in [&["--timeout", "5"][..], &["--kill-after", "5"], &["--stdout-only"]] {
        capout(args).write_stdin("x").assert().code(2).stdout("");
    }
    capout(&["--timeout", "5x", "--", "true"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("'5x' for '--timeout <DURATION>'"));
    capout(&["--kill-after", "1s", "--", "true"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--kill-after"));
}

#[test]
fn a_command_killed_mid_output_keeps_what_it_printed() {
    let dir = TempDir::new("killed-mid-output");
    let pid_file = dir.path("pid");
    let script = format!("echo $$ > {}.tmp; mv {0}.tmp {0}; seq 1 50000; exec sleep 30", pid_file.display());
    let child = crate::common::capout_std()
        .args(["--tail-lines", "2", "--", "sh", "-c", &script])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let guard = watchdog(&child);
    wait_until("the command wrote its pid", || pid_file.exists());
    // `exec sleep` keeps the pid: once it sleeps, all the output is out.
    let pid = read_pid(&pid_file);
    wait_until("the command sleeps", || {
        fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|c| c.trim() == "sleep")
    });
    kill_process(Pid::from_raw(pid).unwrap(), Signal::KILL).unwrap();
    let out = child.wait_with_output().unwrap();
    drop(guard);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "49999\n50000\n... (truncated, showing last 2 lines)\n");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert_eq!(out.status.signal(), Some(9));
}

/// Starts `sh -c SCRIPT` under capout with `args`, the script told to write
/// its pid to a file first; returns capout and the command's pid.
fn spawn_with_pid(args: &[&str], script: &str, dir: &TempDir) -> (Child, i32) {
    let pid_file = dir.path("pid");
    let script = format!("echo $$ > {0}.tmp; mv {0}.tmp {0}; {script}", pid_file.display());
    let child = crate::common::capout_std()
        .args(args)
        .args(["--", "sh", "-c", &script])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_until("the command wrote its pid", || pid_file.exists());
    (child, read_pid(&pid_file))
}

#[test]
fn every_byte_written_before_the_command_exited_reaches_a_slow_reader() {
    // The command is done at once; capout's reader takes a few seconds,
    // far past the grace for background processes.
    let mut child = crate::common::capout_std()
        .args(["-n", "200000", "--", "seq", "30000"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let guard = watchdog(&child);
    let mut stdout = child.stdout.take().unwrap();
    let (mut text, mut buf) = (Vec::new(), [0; 4096]);
    loop {
        let n = stdout.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        text.extend_from_slice(&buf[..n]);
        thread::sleep(Duration::from_millis(50));
    }
    assert!(child.wait().unwrap().success());
    drop(guard);
    let expected = Command::new("seq").arg("30000").output().unwrap().stdout;
    assert!(text == expected, "{} bytes of {}", text.len(), expected.len());
}

#[test]
fn a_timeout_acts_while_capouts_stdout_is_blocked() {
    let dir = TempDir::new("timeout-blocked");
    // Far more than the pipe to the reader holds, which reads nothing yet.
    let (mut child, pid) =
        spawn_with_pid(&["-n", "1000000", "--timeout", "1"], "seq 100000; exec sleep 60", &dir);
    let guard = watchdog(&child);
    wait_until("the timeout stopped the command", || !alive(pid));
    let out = read_all(&mut child.stdout.take().unwrap());
    assert!(out.ends_with("99999\n100000\n... (command timed out after 1s)\n"), "{}", &out[out.len() - 60..]);
    assert_eq!(child.wait().unwrap().code(), Some(124));
    drop(guard);
}

#[test]
fn signals_are_passed_on_while_capouts_stdout_is_blocked() {
    let dir = TempDir::new("signal-blocked");
    let (mut child, pid) = spawn_with_pid(&["-n", "1000000"], "seq 100000; exec sleep 60", &dir);
    let guard = watchdog(&child);
    wait_until("the command sleeps", || {
        fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|c| c.trim() == "sleep")
    });
    kill_process(pid_of(&child), Signal::TERM).unwrap();
    wait_until("the signal reached the command", || !alive(pid));
    let out = read_all(&mut child.stdout.take().unwrap());
    assert!(out.ends_with("99999\n100000\n"), "{}", &out[out.len() - 60..]);
    assert_eq!(child.wait().unwrap().signal(), Some(15));
    drop(guard);
}

fn pid_of(child: &Child) -> Pid {
    pid(child.id())
}

#[test]
fn a_stopped_command_is_continued_after_sigterm() {
    for kill_after in ["0", "60"] {
        let out = capout(&[
            "--timeout",
            "0.2",
            "--kill-after",
            kill_after,
            "--",
            "sh",
            "-c",
            "echo a; kill -STOP $$",
        ])
        .output()
        .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "a\n... (command timed out after 0.2s)\n");
        assert_eq!(out.status.code(), Some(124));
    }
}

#[test]
fn a_timeout_too_small_to_measure_still_times_out() {
    capout(&["--timeout", "0.0000000001", "--", "sleep", "60"])
        .assert()
        .code(124)
        .stdout("(no output)\n... (command timed out after 0.0000000001s)\n");
}

#[test]
fn a_script_without_a_shebang_line_is_run_by_sh() {
    let dir = TempDir::new("no-shebang");
    let script = dir.path("script");
    fs::write(&script, "echo \"run by sh: $1\"\nexit 3\n").unwrap();
    fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    capout(&["--", "./script", "x"]).current_dir(&dir.0).assert().code(3).stdout("run by sh: x\n");
    // Found in PATH too, as execvp finds it.
    let path = format!("{}:{}", dir.0.display(), std::env::var("PATH").unwrap_or_default());
    capout(&["--", "script", "y"]).env("PATH", path).assert().code(3).stdout("run by sh: y\n");
}

/// Runs `sh -c SCRIPT` in a new pseudo-terminal, as `script(1)` makes
/// one; its stdin stays open and silent. Returns what the terminal showed
/// and the exit status.
fn in_a_terminal(script: &str) -> (String, Option<i32>) {
    let mut child = crate::common::clean_env(&mut Command::new("script"))
        .args(["-qec", script, "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("script(1), from util-linux, makes the pseudo-terminal of this test");
    let guard = watchdog(&child);
    let stdin = child.stdin.take();
    let out = read_all(&mut child.stdout.take().unwrap());
    let status = child.wait().unwrap();
    drop((stdin, guard));
    (out.replace("\r\n", "\n"), status.code())
}

#[test]
fn a_command_reading_the_terminal_gets_end_of_file() {
    let (out, code) =
        in_a_terminal(&format!("'{CAPOUT}' --progress never -- sh -c 'cat; echo read to the end'"));
    assert_eq!(out, "read to the end\n");
    assert_eq!(code, Some(0));
}

#[test]
fn a_command_opening_the_terminal_gets_an_error_at_once() {
    // In a session of its own the command has no controlling terminal.
    let script = "read x < /dev/tty; echo \"status $?\"";
    let (out, code) = in_a_terminal(&format!("'{CAPOUT}' --progress never -- sh -c '{script}'"));
    assert!(out.contains("/dev/tty") && out.ends_with("status 2\n"), "{out:?}");
    assert_eq!(code, Some(0));
}

#[cfg(target_os = "linux")]
#[test]
fn the_command_runs_in_a_session_of_its_own() {
    // Its session is its own process: it leads it.
    let out = capout(&["--", "sh", "-c", "echo $$; cut -d' ' -f6 /proc/$$/stat"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), lines.next(), "{text:?}");
}

#[test]
fn a_closed_stdout_ends_a_cap_with_nothing_more_to_write_on_an_endless_command() {
    // `capout -n 1 -- yes | head -1` ends as `yes | head -1` does: capout
    // closes the command's pipe, `yes` dies of SIGPIPE, and capout with it.
    let dir = TempDir::new("closed-stdout-endless");
    let cases: [(&[&str], usize); 6] = [
        (&["-n", "1"], 2),
        (&["-m", "1"], 2),
        (&["--head-chars", "1"], 1),
        (&["--head-lines", "1", "--tail-lines", "1"], 2),
        (&["--head-chars", "1", "--tail-chars", "1"], 1),
        (&["-c", "5"], 0),
    ];
    for (args, first) in cases {
        let (mut child, mut stdout) = spawn(&[args, &["--", "yes"]].concat(), &dir.0);
        let guard = watchdog(&child);
        let mut got = vec![0; first];
        stdout.read_exact(&mut got).unwrap();
        assert_eq!(got, b"y\n".repeat(first)[..first], "{args:?}");
        drop(stdout);
        let status = child.wait().unwrap();
        assert_eq!(status.signal(), Some(13), "{args:?}: {status:?}");
        assert_eq!(read_all(&mut child.stderr.take().unwrap()), "", "{args:?}");
        drop(guard);
    }
}

#[test]
fn binary_output_of_a_command_is_saved_and_its_line_names_the_file() {
    // What a harness hook runs: profile bash (`--binary hide`) with a
    // folder to save in.
    let dir = TempDir::new("binary-saved");
    let script = r"printf '\177ELF\2\1\1\0'; head -c 20000 /dev/zero; seq 100000";
    let expected = Command::new("bash").args(["-c", script]).output().unwrap().stdout;
    let saved = dir.path("saved");
    fs::create_dir(&saved).unwrap();
    let out =
        capout(&["--profile", "bash", "--save-dir", saved.to_str().unwrap(), "--", "bash", "-c", script])
            .output()
            .unwrap();
    let files: Vec<PathBuf> = fs::read_dir(&saved).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!(
            "(binary output, {} bytes: not shown; full output: {})\n",
            expected.len(),
            files[0].display()
        )
    );
    assert_eq!(fs::read(&files[0]).unwrap(), expected);
    assert_eq!((out.status.code(), out.stderr.as_slice()), (Some(0), &b""[..]));
}
