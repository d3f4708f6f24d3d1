//! The real server: started with pipes on its stdin, stdout and stderr,
//! its stderr passed on to the proxy's and its last lines kept, its end
//! waited for and told, and the way to end it (SIGTERM, then SIGKILL)
//! safe from a process id taken again by another.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::os::fd::OwnedFd;
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};

use crate::mcp::leftovers::{self, Which};

/// How many bytes of the server's stderr are kept: its last lines, for
/// the error that tells it died.
pub const STDERR_KEPT: usize = 4096;

/// How many of the lines kept an error shows.
const STDERR_LINES: usize = 10;

/// How long the server has, once its input is closed, to end by itself
/// before it is ended; and between SIGTERM and SIGKILL.
pub const GRACE: Duration = leftovers::GRACE;

/// A started server.
pub struct Server {
    pub child: Child,
    pub stdin: ChildStdin,
    pub stdout: ChildStdout,
    pub stderr: ChildStderr,
    pub handle: Arc<Handle>,
}

/// What the other threads hold of the server: how to signal it, and its
/// exit status once reaped.
pub struct Handle {
    pid: Pid,
    /// A descriptor of the process itself (Linux 5.3 on), so that a
    /// signal never reaches another process that took its id.
    pidfd: Option<OwnedFd>,
    status: Mutex<Option<ExitStatus>>,
    exited: Condvar,
    /// Its output has all been given on, and its end told.
    relayed: Mutex<bool>,
    told: Condvar,
}

impl Handle {
    /// Sends `signal` to the server, unless it has been reaped.
    pub fn signal(&self, signal: Signal) {
        let status = self.status.lock().unwrap_or_else(PoisonError::into_inner);
        if status.is_some() {
            return;
        }
        match &self.pidfd {
            Some(fd) => {
                let _ = rustix::process::pidfd_send_signal(fd, signal);
            }
            None => {
                let _ = rustix::process::kill_process(self.pid, signal);
            }
        }
    }

    /// Says the server was reaped, with `status`.
    pub fn reaped(&self, status: ExitStatus) {
        *self.status.lock().unwrap_or_else(PoisonError::into_inner) = Some(status);
        self.exited.notify_all();
    }

    /// Waits at most `limit` for the server to be reaped; its status.
    pub fn wait(&self, limit: Duration) -> Option<ExitStatus> {
        let status = self.status.lock().unwrap_or_else(PoisonError::into_inner);
        let (status, _) = self
            .exited
            .wait_timeout_while(status, limit, |s| s.is_none())
            .unwrap_or_else(PoisonError::into_inner);
        *status
    }

    /// Says that the server's output has all been given on, and its end
    /// told to the requests that waited.
    pub fn relayed(&self) {
        *self.relayed.lock().unwrap_or_else(PoisonError::into_inner) = true;
        self.told.notify_all();
    }

    /// Waits at most `limit` for [`Handle::relayed`].
    pub fn wait_relayed(&self, limit: Duration) {
        let relayed = self.relayed.lock().unwrap_or_else(PoisonError::into_inner);
        let _ = self.told.wait_timeout_while(relayed, limit, |r| !*r);
    }

    /// Ends the server and what it started: SIGTERM, then SIGKILL to
    /// what is left after [`GRACE`].
    pub fn end(&self) {
        self.signal(Signal::TERM);
        leftovers::end_unreaped(Which::All, GRACE);
        if self.wait(GRACE).is_none() {
            self.signal(Signal::KILL);
        }
    }
}

/// Starts `command` (its program and arguments), every process of it
/// marked as this proxy's, so that none outlives it.
pub fn start(command: &[OsString]) -> io::Result<Server> {
    let (program, args) = command.split_first().ok_or(io::ErrorKind::InvalidInput)?;
    let (name, value) = leftovers::mark(0);
    let mut child = Command::new(program)
        .args(args)
        .env(name, value)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let pid = Pid::from_child(&child);
    let pidfd = rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()).ok();
    let handle = Arc::new(Handle {
        pid,
        pidfd,
        status: Mutex::new(None),
        exited: Condvar::new(),
        relayed: Mutex::new(false),
        told: Condvar::new(),
    });
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(io::ErrorKind::BrokenPipe.into());
    };
    Ok(Server { child, stdin, stdout, stderr, handle })
}

/// The last bytes of the server's stderr.
#[derive(Default)]
pub struct StderrTail {
    kept: Mutex<(VecDeque<u8>, bool)>,
    ended: Condvar,
}

impl StderrTail {
    /// Copies `stderr` to the proxy's own stderr until it ends, keeping
    /// its last [`STDERR_KEPT`] bytes.
    pub fn copy(&self, mut stderr: impl Read) {
        let mut buf = vec![0; 8 * 1024];
        let mut own = io::stderr();
        loop {
            let n = match stderr.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            };
            let _ = own.write_all(&buf[..n]);
            let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
            kept.0.extend(&buf[..n]);
            let over = kept.0.len().saturating_sub(STDERR_KEPT);
            kept.0.drain(..over);
        }
        self.kept.lock().unwrap_or_else(PoisonError::into_inner).1 = true;
        self.ended.notify_all();
    }

    /// The last lines kept, once stderr has ended (or `limit` has
    /// passed: a process the server left may hold it open); `None` when
    /// it wrote nothing.
    pub fn lines(&self, limit: Duration) -> Option<String> {
        let kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        let (kept, _) =
            self.ended.wait_timeout_while(kept, limit, |k| !k.1).unwrap_or_else(PoisonError::into_inner);
        let bytes: Vec<u8> = kept.0.iter().copied().collect();
        tail_lines(&bytes, kept.0.len() >= STDERR_KEPT)
    }
}

/// The last [`STDERR_LINES`] lines of `bytes`; `cut` when their start was
/// lost, so that the first line may be partial and goes.
fn tail_lines(bytes: &[u8], cut: bool) -> Option<String> {
    let text = String::from_utf8_lossy(bytes);
    let mut lines: Vec<&str> = text.lines().collect();
    if cut && lines.len() > 1 {
        lines.remove(0);
    }
    let lines: Vec<&str> = lines.into_iter().filter(|l| !l.trim().is_empty()).collect();
    let lines = &lines[lines.len().saturating_sub(STDERR_LINES)..];
    (!lines.is_empty()).then(|| lines.join("\n"))
}

/// How a process ended, as an error says it: `exited with status 1`,
/// `was killed by SIGKILL`.
pub fn status_words(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with status {code}"),
        (None, Some(signal)) => match signal_hook::low_level::signal_name(signal) {
            Some(name) => format!("was killed by {name}"),
            None => format!("was killed by signal {signal}"),
        },
        (None, None) => "ended".to_owned(),
    }
}

/// Waits until the server has exited, when its output has closed: a
/// server that stays without its output is ended after [`GRACE`].
pub fn reap(mut child: Child, handle: &Handle) -> Option<ExitStatus> {
    let deadline = Instant::now() + GRACE;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            Ok(None) => {
                handle.end_direct(&mut child);
                break child.wait().ok();
            }
            Err(_) => break None,
        }
    };
    if let Some(status) = status {
        handle.reaped(status);
    }
    status
}

impl Handle {
    /// Ends the server itself, which closed its output but stays.
    fn end_direct(&self, child: &mut Child) {
        self.signal(Signal::TERM);
        let deadline = Instant::now() + GRACE;
        while Instant::now() < deadline {
            if child.try_wait().ok().flatten().is_some() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.signal(Signal::KILL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_lines_of_stderr_are_kept() {
        assert_eq!(tail_lines(b"", false), None);
        assert_eq!(tail_lines(b"\n\n", false), None);
        assert_eq!(tail_lines(b"one\ntwo\n", false).as_deref(), Some("one\ntwo"));
        assert_eq!(tail_lines(b"tial\nwhole\n", true).as_deref(), Some("whole"));
        let many = (1..=30).map(|n| format!("line {n}\n")).collect::<Vec<_>>().concat();
        let kept = tail_lines(many.as_bytes(), false).unwrap();
        assert_eq!(kept.lines().count(), STDERR_LINES);
        assert!(kept.starts_with("line 21\n") && kept.ends_with("line 30"), "{kept}");
    }

    #[test]
    fn an_end_is_told_as_a_shell_tells_it() {
        assert_eq!(status_words(ExitStatus::from_raw(1 << 8)), "exited with status 1");
        assert_eq!(status_words(ExitStatus::from_raw(9)), "was killed by SIGKILL");
    }
}
