//! Running a command under a cap: `capout [OPTIONS] [--] COMMAND [ARG]...`.
//!
//! The command runs in a process group of its own, with its stdout and
//! stderr joined into one pipe, and that pipe is the input of the one pass,
//! exactly as stdin is in filter mode. [`CommandReader`] is that input: as
//! well as reading the pipe, it keeps the command's clock (the timeout, the
//! SIGKILL after it, the grace period for background processes) and passes
//! on the signals that capout receives, so the pass knows nothing of
//! processes.
//!
//! It never busy-waits and never sleeps: each wait is one `poll(2)` on the
//! pipe and on a socket that capout's signal handlers write to, with a
//! timeout that ends at the next deadline.

use std::ffi::{OsStr, OsString, c_int};
use std::fmt;
use std::io::{self, PipeReader, Read};
use std::os::unix::net::UnixStream;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::process::{Pid, Signal, kill_process_group};
use signal_hook::SigId;
use signal_hook::consts::{SIGCHLD, SIGHUP, SIGINT, SIGTERM};

use crate::{Config, Ending, Error as RunError, Report};

/// How long capout waits, once the command has exited, for background
/// processes that still hold its output open.
pub const GRACE: Duration = Duration::from_secs(1);

/// The exit status when `--timeout` expired, as GNU `timeout` has it.
pub const TIMED_OUT: u8 = 124;
/// The exit status when the command was found but could not be executed.
pub const NOT_EXECUTABLE: u8 = 126;
/// The exit status when the command was not found.
pub const NOT_FOUND: u8 = 127;

/// The signals passed on to the command's process group.
const FORWARDED: [(c_int, Signal); 3] =
    [(SIGINT, Signal::INT), (SIGTERM, Signal::TERM), (SIGHUP, Signal::HUP)];

/// A command to run, and the options that go with one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandSpec {
    /// The program, found in `PATH` when its name has no `/`.
    pub program: OsString,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// `--timeout`, when it is set and not zero.
    pub timeout: Option<Timeout>,
    /// `--stdout-only`: leave the command's stderr on capout's stderr.
    pub stdout_only: bool,
}

/// `--timeout` and `--kill-after`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timeout {
    /// How long the command may run before it gets SIGTERM.
    pub after: Duration,
    /// `--timeout` as the user gave it, with `s` added when it has no
    /// unit: the timeout notice names it so.
    pub label: String,
    /// How long after SIGTERM it gets SIGKILL; `None` for never.
    pub kill_after: Option<Duration>,
}

/// How the command ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Status {
    /// Its exit code, when it exited.
    pub code: Option<i32>,
    /// The signal that killed it, when one did.
    pub signal: Option<i32>,
    /// Whether `--timeout` expired.
    pub timed_out: bool,
}

impl Status {
    fn new(status: ExitStatus, timed_out: bool) -> Status {
        Status { code: status.code(), signal: status.signal(), timed_out }
    }

    /// How the input of the pass ended, for its notices and `--json`;
    /// `timeout` is the `--timeout` the command ran under.
    pub fn ending(&self, timeout: Option<&Timeout>) -> Ending {
        Ending {
            exit_code: i32::from(self.exit_code()),
            signal: self.signal,
            timed_out: timeout.filter(|_| self.timed_out).map(|t| t.label.clone()),
        }
    }

    /// capout's exit status for it: 124 when it timed out, 128 + the
    /// signal when a signal killed it, its own exit code otherwise.
    pub fn exit_code(&self) -> u8 {
        if self.timed_out {
            return TIMED_OUT;
        }
        match (self.code, self.signal) {
            (Some(code), _) => u8::try_from(code).unwrap_or(u8::MAX),
            (None, Some(signal)) => u8::try_from(128 + signal).unwrap_or(u8::MAX),
            // Neither happens on Unix; a stopped child is not reported.
            (None, None) => 1,
        }
    }
}

/// Why capout could not run a command to its end.
#[derive(Debug)]
pub enum Error {
    /// The command could not be started.
    Spawn {
        /// The program as given.
        program: OsString,
        /// What went wrong, as a shell says it: `command not found`.
        reason: String,
        /// Whether it was not found (127) rather than not executable (126).
        not_found: bool,
    },
    /// Setting up the pipe or the signal handlers failed.
    Setup(io::Error),
    /// The pass over its output failed.
    Run(RunError),
}

impl Error {
    /// capout's exit status for the error.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Spawn { not_found: true, .. } => NOT_FOUND,
            Error::Spawn { not_found: false, .. } => NOT_EXECUTABLE,
            Error::Setup(_) => 1,
            Error::Run(e) => e.exit_code(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Spawn { program, reason, .. } => write!(f, "{}: {reason}", program.to_string_lossy()),
            Error::Setup(e) => write!(f, "cannot run the command: {e}"),
            Error::Run(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for Error {}

/// What came of running a command.
#[derive(Debug)]
pub struct Finished {
    /// How the command ended; capout exits with `ending.exit_code`.
    pub ending: Ending,
    /// What the pass did; `None` when capout's stdout was closed early.
    pub report: Option<Report>,
}

/// Runs the command of `config`, caps its output as `config` says, and
/// says how it ended.
///
/// The command is always waited for, whatever happens to capout's output.
/// When capout's stdout is closed early, capout stops reading and closes
/// its end of the pipe, so that a command that goes on writing meets a
/// closed pipe as it would in any pipeline; its status still stands.
pub fn run(config: &Config, out: &mut dyn io::Write, err: &mut dyn io::Write) -> Result<Finished, Error> {
    let Some(spec) = &config.command else {
        return Err(Error::Setup(io::Error::new(io::ErrorKind::InvalidInput, "no command to run")));
    };
    let timeout = spec.timeout.as_ref();
    let mut launch = Launch::Pending(spec);
    // A failed wait here fails again below, where it can be told.
    let ran = crate::run_with(config, &mut launch, out, err, |launch| match launch {
        Launch::Running(reader) => reader.wait().map(|status| status.ending(timeout)).unwrap_or_default(),
        Launch::Pending(_) | Launch::Failed => Ending::default(),
    });
    let ending = match launch {
        Launch::Running(mut reader) => {
            // After a failed pass the command must neither be left running
            // unwatched nor become a zombie.
            reader.wait().map_err(|e| Error::Run(RunError::Read(e)))?.ending(timeout)
        }
        // The pass stopped before its first read, as when the --save
        // file cannot be written, or the command could not start: it
        // never ran.
        Launch::Pending(_) | Launch::Failed => Ending::default(),
    };
    match ran {
        Ok(report) => Ok(Finished { ending, report: Some(report) }),
        Err(RunError::Write(e)) if e.kind() == io::ErrorKind::BrokenPipe => {
            Ok(Finished { ending, report: None })
        }
        Err(RunError::Command(e)) => Err(*e),
        Err(e) => Err(Error::Run(e)),
    }
}

/// The command as the input of the pass. It starts at the first read, so
/// that what the pass checks before reading (that the `--save` file can be
/// written) fails before the command runs, as it does before stdin is read.
enum Launch<'a> {
    Pending(&'a CommandSpec),
    Running(CommandReader),
    /// It could not start; the pass got the error as its read error, and
    /// tells it (in `--json` too) and hands it back.
    Failed,
}

impl Read for Launch<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Launch::Pending(spec) = *self {
            match CommandReader::spawn(spec) {
                Ok(reader) => *self = Launch::Running(reader),
                Err(e) => {
                    *self = Launch::Failed;
                    return Err(io::Error::other(e));
                }
            }
        }
        match self {
            Launch::Running(reader) => reader.read(buf),
            Launch::Pending(_) | Launch::Failed => Err(io::Error::other("the command did not start")),
        }
    }
}

/// A running command's joined output, as a [`Read`] that ends when the
/// output does, or [`GRACE`] after the command exited, whichever is first.
///
/// While it is read (and in [`CommandReader::wait`]) it enforces the
/// timeout and passes SIGINT, SIGTERM and SIGHUP on to the command's
/// process group.
pub struct CommandReader {
    child: Child,
    group: Pid,
    /// The read end of the output pipe; `None` once it is given up.
    pipe: Option<PipeReader>,
    signals: Signals,
    /// When to send SIGTERM; `None` without a timeout or once it is sent.
    term_at: Option<Instant>,
    /// How long after SIGTERM to send SIGKILL.
    kill_after: Option<Duration>,
    /// When to send SIGKILL; set when SIGTERM is sent.
    kill_at: Option<Instant>,
    timed_out: bool,
    /// The command's status, and when capout saw it exit.
    exited: Option<(ExitStatus, Instant)>,
}

impl CommandReader {
    /// Starts the command with its stdout and stderr on a new pipe.
    pub fn spawn(spec: &CommandSpec) -> Result<CommandReader, Error> {
        // Caught before the command starts, so that none is missed.
        let signals = Signals::catch().map_err(Error::Setup)?;
        let (pipe, writer) = io::pipe().map_err(Error::Setup)?;
        // Non-blocking, so that a read never waits past a deadline. The
        // flag is the read end's own: the command's end stays blocking.
        rustix::io::ioctl_fionbio(&pipe, true).map_err(|e| Error::Setup(e.into()))?;
        crate::pipe::enlarge(&pipe);
        // Both pipe ends are close-on-exec: the command gets the write end
        // only as its stdout and stderr, and nothing else of capout's.
        let stderr = if spec.stdout_only {
            Stdio::inherit()
        } else {
            writer.try_clone().map_err(Error::Setup)?.into()
        };
        let mut command = Command::new(&spec.program);
        command.args(&spec.args).process_group(0).stdin(Stdio::inherit()).stdout(writer).stderr(stderr);
        let spawned = command.spawn();
        // The Command holds capout's copies of the write end; the pipe
        // ends only when they are closed too.
        drop(command);
        let child = spawned.map_err(|e| spawn_error(&spec.program, &e))?;
        Ok(CommandReader {
            group: Pid::from_child(&child),
            child,
            pipe: Some(pipe),
            signals,
            term_at: spec.timeout.as_ref().and_then(|t| Instant::now().checked_add(t.after)),
            kill_after: spec.timeout.as_ref().and_then(|t| t.kill_after),
            kill_at: None,
            timed_out: false,
            exited: None,
        })
    }

    /// Gives up the output pipe if it is still open and waits for the
    /// command to end, still keeping its clock and passing on signals.
    /// A command still writing meets a closed pipe, as in any pipeline.
    pub fn wait(&mut self) -> io::Result<Status> {
        self.pipe = None;
        loop {
            self.tend()?;
            if let Some((status, _)) = self.exited {
                // The command is gone: from now on capout's own signals
                // act on capout again.
                self.signals.release();
                return Ok(Status::new(status, self.timed_out));
            }
            self.sleep()?;
        }
    }

    /// Does what is due: passes on the signals that came, notes the
    /// command's exit, and acts on the deadlines that have passed.
    fn tend(&mut self) -> io::Result<()> {
        let now = Instant::now();
        if self.signals.take_child()
            && self.exited.is_none()
            && let Some(status) = self.child.try_wait()?
        {
            self.exited = Some((status, now));
            // It ended in time: no timeout is due any more.
            self.term_at = None;
        }
        // Once the command has been reaped and its pipe given up, its
        // group may be gone and its id taken by another: signal no more.
        let group_may_live = self.exited.is_none() || self.pipe.is_some();
        for signal in self.signals.take_forwarded() {
            if group_may_live {
                let _ = kill_process_group(self.group, signal);
            }
        }
        if self.term_at.is_some_and(|at| now >= at) {
            self.term_at = None;
            self.timed_out = true;
            let _ = kill_process_group(self.group, Signal::TERM);
            self.kill_at = self.kill_after.and_then(|d| now.checked_add(d));
        }
        if self.kill_at.is_some_and(|at| now >= at) && group_may_live {
            self.kill_at = None;
            let _ = kill_process_group(self.group, Signal::KILL);
        }
        if self.grace_end().is_some_and(|at| now >= at) {
            self.pipe = None;
            // A timed-out command was told to stop, all of it: what is
            // left of its group and still holds the pipe is killed now
            // rather than left behind.
            if self.kill_at.take().is_some() {
                let _ = kill_process_group(self.group, Signal::KILL);
            }
        }
        Ok(())
    }

    /// When the wait for background processes ends, once the command has
    /// exited and while its pipe is open.
    fn grace_end(&self) -> Option<Instant> {
        let (_, exited_at) = self.exited?;
        self.pipe.as_ref()?;
        Some(exited_at.checked_add(GRACE).unwrap_or(exited_at))
    }

    /// Waits until the pipe can be read, a signal comes or the next
    /// deadline passes.
    fn sleep(&mut self) -> io::Result<()> {
        let next = [self.term_at, self.kill_at, self.grace_end()].into_iter().flatten().min();
        // Some systems refuse poll timeouts past `c_int::MAX` ms; the
        // loop around the call waits on after a day.
        let timeout = next.map(|at| {
            let wait = at.saturating_duration_since(Instant::now()).min(Duration::from_secs(86_400));
            Timespec::try_from(wait).unwrap_or(Timespec { tv_sec: 86_400, tv_nsec: 0 })
        });
        let mut fds = Vec::with_capacity(2);
        fds.push(PollFd::new(&self.signals.wake, PollFlags::IN));
        if let Some(pipe) = &self.pipe {
            fds.push(PollFd::new(pipe, PollFlags::IN));
        }
        match poll(&mut fds, timeout.as_ref()) {
            Ok(_) | Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
        // Emptied before the flags are read, so a signal that comes
        // between the two wakes the next poll instead of being missed.
        self.signals.drain();
        Ok(())
    }
}

impl Read for CommandReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            self.tend()?;
            let Some(pipe) = &mut self.pipe else { return Ok(0) };
            // Read first and poll only when the pipe is empty: a command
            // that writes fast costs one system call per read.
            match pipe.read(buf) {
                Ok(0) => {
                    self.pipe = None;
                    return Ok(0);
                }
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => self.sleep()?,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
}

/// capout's own SIGINT, SIGTERM, SIGHUP and SIGCHLD, caught while a
/// command runs: each sets a flag and writes a byte to a socket that
/// [`CommandReader`] polls.
struct Signals {
    /// The read end of the wake-up socket.
    wake: UnixStream,
    /// A flag for each signal to pass on; a signal that capout was started
    /// with ignored (as under `nohup`) is left alone, so the command
    /// inherits it ignored.
    forwarded: Vec<(Arc<AtomicBool>, Signal)>,
    child: Arc<AtomicBool>,
    /// The actions to remove once the command is done.
    ids: Vec<SigId>,
    catching: bool,
}

/// What the process's signal handling is, across all [`Signals`].
struct Catchers {
    /// How many [`Signals`] are catching.
    count: usize,
    /// The signals of [`FORWARDED`] that capout may catch, decided once.
    caught: Option<Vec<(c_int, Signal)>>,
}

static CATCHERS: Mutex<Catchers> = Mutex::new(Catchers { count: 0, caught: None });
/// Whether no [`Signals`] is catching, so SIGINT, SIGTERM and SIGHUP do
/// what they do by default, to capout. Read by the signal handler, which
/// cannot take a lock.
static RELEASED: AtomicBool = AtomicBool::new(true);

impl Signals {
    fn catch() -> io::Result<Signals> {
        let (wake, wake_write) = UnixStream::pair()?;
        wake.set_nonblocking(true)?;
        let caught = {
            let mut catchers = CATCHERS.lock().unwrap_or_else(PoisonError::into_inner);
            if catchers.caught.is_none() {
                let caught: Vec<_> = FORWARDED.into_iter().filter(|(number, _)| !ignored(*number)).collect();
                // Registered before any other action and never removed, so
                // that once released, the default action comes first.
                for (number, _) in &caught {
                    signal_hook::flag::register_conditional_default(*number, &RELEASED)?;
                }
                catchers.caught = Some(caught);
            }
            catchers.count += 1;
            RELEASED.store(false, Ordering::SeqCst);
            catchers.caught.clone().unwrap_or_default()
        };
        let mut signals = Signals {
            wake,
            forwarded: caught.iter().map(|(_, signal)| (Arc::new(AtomicBool::new(false)), *signal)).collect(),
            child: Arc::new(AtomicBool::new(false)),
            ids: Vec::new(),
            catching: true,
        };
        let numbers = caught.iter().map(|(number, _)| *number);
        for (number, (flag, _)) in numbers.clone().zip(&signals.forwarded) {
            signals.ids.push(signal_hook::flag::register(number, Arc::clone(flag))?);
        }
        signals.ids.push(signal_hook::flag::register(SIGCHLD, Arc::clone(&signals.child))?);
        // Each flag is set before the byte is written, so the flags are
        // set by the time poll wakes.
        for number in numbers.chain([SIGCHLD]) {
            signals.ids.push(signal_hook::low_level::pipe::register(number, wake_write.try_clone()?)?);
        }
        Ok(signals)
    }

    /// The signals to pass on that came since the last call.
    fn take_forwarded(&self) -> impl Iterator<Item = Signal> + '_ {
        self.forwarded
            .iter()
            .filter(|(flag, _)| flag.swap(false, Ordering::SeqCst))
            .map(|(_, signal)| *signal)
    }

    /// Whether a child changed state since the last call.
    fn take_child(&self) -> bool {
        self.child.swap(false, Ordering::SeqCst)
    }

    /// Empties the wake-up socket.
    fn drain(&mut self) {
        let mut buf = [0; 64];
        while matches!(self.wake.read(&mut buf), Ok(n) if n > 0) {}
    }

    /// Stops catching: the signals act on capout again.
    fn release(&mut self) {
        for id in self.ids.drain(..) {
            signal_hook::low_level::unregister(id);
        }
        if std::mem::take(&mut self.catching) {
            let mut catchers = CATCHERS.lock().unwrap_or_else(PoisonError::into_inner);
            catchers.count -= 1;
            if catchers.count == 0 {
                RELEASED.store(true, Ordering::SeqCst);
            }
        }
    }
}

impl Drop for Signals {
    fn drop(&mut self) {
        self.release();
    }
}

/// Whether capout was started with `signal` ignored. Linux tells it in
/// `/proc`; elsewhere it is taken as not ignored.
fn ignored(signal: c_int) -> bool {
    if !cfg!(any(target_os = "linux", target_os = "android")) {
        return false;
    }
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else { return false };
    let mask = status.lines().find_map(|line| line.strip_prefix("SigIgn:")).map(str::trim);
    let mask = mask.and_then(|hex| u64::from_str_radix(hex, 16).ok()).unwrap_or(0);
    u32::try_from(signal - 1).ok().and_then(|bit| mask.checked_shr(bit)).is_some_and(|m| m & 1 == 1)
}

/// The error for a command that could not be started, worded as a shell
/// words it.
fn spawn_error(program: &OsStr, e: &io::Error) -> Error {
    let has_slash = program.as_encoded_bytes().contains(&b'/');
    let not_found = e.kind() == io::ErrorKind::NotFound;
    let reason = match e.kind() {
        io::ErrorKind::NotFound if has_slash => "no such file or directory".to_owned(),
        io::ErrorKind::NotFound => "command not found".to_owned(),
        io::ErrorKind::PermissionDenied if Path::new(program).is_dir() => "is a directory".to_owned(),
        io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
        _ => plain_reason(e),
    };
    Error::Spawn { program: program.to_owned(), reason, not_found }
}

/// The system's message for an error, as a shell shows it: `exec format
/// error`, without Rust's `(os error 8)`.
fn plain_reason(e: &io::Error) -> String {
    let text = e.to_string();
    let text = text.split(" (os error").next().unwrap_or(&text);
    let mut chars = text.chars();
    chars.next().map(|first| first.to_lowercase().chain(chars).collect()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes() {
        let status = |code, signal, timed_out| Status { code, signal, timed_out }.exit_code();
        assert_eq!(status(Some(0), None, false), 0);
        assert_eq!(status(Some(255), None, false), 255);
        assert_eq!(status(None, Some(9), false), 137);
        assert_eq!(status(None, Some(15), true), 124);
        assert_eq!(status(Some(0), None, true), 124);
    }

    #[test]
    fn spawn_errors_read_as_a_shell_says_them() {
        let e = |program: &str, kind| spawn_error(OsStr::new(program), &io::Error::from(kind));
        assert_eq!(e("nosuch", io::ErrorKind::NotFound).to_string(), "nosuch: command not found");
        assert_eq!(e("nosuch", io::ErrorKind::NotFound).exit_code(), 127);
        assert_eq!(e("./nosuch", io::ErrorKind::NotFound).to_string(), "./nosuch: no such file or directory");
        assert_eq!(e("./file", io::ErrorKind::PermissionDenied).to_string(), "./file: permission denied");
        assert_eq!(e("./file", io::ErrorKind::PermissionDenied).exit_code(), 126);
        assert_eq!(e("/", io::ErrorKind::PermissionDenied).to_string(), "/: is a directory");
        let exec_format = spawn_error(OsStr::new("./x"), &io::Error::from_raw_os_error(8));
        assert_eq!(exec_format.to_string(), "./x: exec format error");
        assert_eq!(exec_format.exit_code(), 126);
    }
}
