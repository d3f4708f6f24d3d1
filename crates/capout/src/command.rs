//! Running a command under a cap: `capout [OPTIONS] [--] COMMAND [ARG]...`.
//!
//! The command runs in a process group of its own, with its stdout and
//! stderr joined into one pipe, and that pipe is the input of the one pass,
//! exactly as stdin is in filter mode. [`CommandReader`] is that input;
//! the command's clock (the timeout, the SIGKILL after it) and the passing
//! on of the signals that capout receives run beside it on a thread of
//! their own, so the pass knows nothing of processes, and a blocked write
//! of capout's own output delays neither.
//!
//! Neither side busy-waits or sleeps: each wait is one `poll(2)` on the
//! pipe, or on a socket that capout's signal handlers write to, with a
//! timeout that ends at the next deadline.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::io::{self, IsTerminal, PipeReader, PipeWriter, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use process_wrap::std::{ChildWrapper, CommandWrap, ProcessSession};
use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::process::{Pid, Signal, kill_process, kill_process_group};

use crate::exit::Exit;
use crate::run::{Ending, Error as RunError, StartError};
use crate::signals::Signals;
use capout_core::{Options, Summary};

// Defined with the command line, whose result holds one: the filter drops
// that `Option<CommandSpec>` on every run, and drop glue named after this
// module would sit with the rare code (link/cold.ld).
pub use crate::cli::{CommandSpec, Timeout};

/// How long capout waits on an empty pipe, once the command has exited,
/// for background processes that still hold its output open.
pub const GRACE: Duration = Duration::from_secs(1);

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
            exit_code: i32::from(self.exit().code()),
            signal: self.signal,
            timed_out: timeout.filter(|_| self.timed_out).map(|t| t.label.clone()),
            interrupted: None,
        }
    }

    /// How capout ends for it: timed out, killed by a signal, or with
    /// the command's own exit code.
    pub fn exit(&self) -> Exit {
        if self.timed_out {
            return Exit::TimedOut;
        }
        match (self.code, self.signal) {
            (Some(0), _) => Exit::Success,
            (Some(code), _) => Exit::Command(u8::try_from(code).unwrap_or(u8::MAX)),
            (None, Some(signal)) => Exit::Signal(signal),
            // Neither happens on Unix; a stopped child is not reported.
            (None, None) => Exit::Failure,
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
    /// How capout ends for the error.
    pub fn exit(&self) -> Exit {
        match self {
            Error::Spawn { not_found: true, .. } => Exit::NotFound,
            Error::Spawn { not_found: false, .. } => Exit::NotExecutable,
            Error::Setup(_) => Exit::Failure,
            Error::Run(e) => e.exit(),
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
    pub summary: Option<Summary>,
}

/// Runs the command `spec`, caps its output as `options` say, and
/// says how it ended.
///
/// The command is always waited for, whatever happens to capout's output.
/// When capout's stdout is closed early, capout stops reading and closes
/// its end of the pipe, so that a command that goes on writing meets a
/// closed pipe as it would in any pipeline; its status still stands.
/// This is the `capout` command's: `out` is taken to be capout's own
/// stdout, which is watched as the output is read
/// ([`pipe::Watched`](crate::pipe::Watched)), so that a cap with nothing
/// more to write learns of it too.
pub fn run(
    options: &Options,
    spec: &CommandSpec,
    out: &mut dyn io::Write,
    err: &mut dyn io::Write,
) -> Result<Finished, Error> {
    run_watched(options, spec, &Place::default(), true, out, err)
}

/// Where a command runs, beyond what its [`CommandSpec`] says.
#[derive(Clone, Debug, Default)]
pub struct Place {
    /// The directory it starts in; `None` for capout's own.
    pub dir: Option<PathBuf>,
    /// Give it end-of-file on stdin rather than capout's stdin, which
    /// belongs to someone else (the MCP server's requests).
    pub no_stdin: bool,
    /// Variables added to its environment, which its descendants inherit:
    /// the MCP server finds what a call left behind by one of them.
    pub env: Vec<(OsString, OsString)>,
    /// Ends the command early when asked, as its timeout would.
    pub stop: Option<Arc<Stop>>,
}

/// A request from outside to end a running command (a cancelled MCP
/// call): its group gets SIGTERM at once and SIGKILL after the grace of
/// its timeout, as when the timeout expires.
#[derive(Debug)]
pub struct Stop {
    asked: AtomicBool,
    /// Readable once asked, so that the supervisor's `poll` wakes.
    wake: PipeReader,
    wake_write: PipeWriter,
}

impl Stop {
    /// A request not yet made.
    pub fn new() -> io::Result<Stop> {
        let (wake, wake_write) = crate::signals::wake_pipe()?;
        Ok(Stop { asked: AtomicBool::new(false), wake, wake_write })
    }

    /// Asks the command to end; asking again does nothing more.
    pub fn stop(&self) {
        if !self.asked.swap(true, Ordering::SeqCst) {
            let _ = (&self.wake_write).write(&[0]);
        }
    }

    /// Whether the command was asked to end.
    pub fn asked(&self) -> bool {
        self.asked.load(Ordering::SeqCst)
    }
}

/// The commands started and not yet waited for, by process id. Locked
/// across the start of each, so that [`reap_orphans`] never reaps one
/// whose status its supervisor waits for.
static CHILDREN: Mutex<Vec<u32>> = Mutex::new(Vec::new());

fn children() -> std::sync::MutexGuard<'static, Vec<u32>> {
    CHILDREN.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Reaps the children of this process that have exited and are not the
/// commands it started: the orphans that were re-parented to it, a
/// child subreaper, once the commands that started them were gone.
pub fn reap_orphans() {
    let started = children();
    let me = std::process::id();
    let Ok(entries) = std::fs::read_dir("/proc") else { return };
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|name| name.parse::<u32>().ok()) else {
            continue;
        };
        if started.contains(&pid) {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        // `PID (NAME) STATE PPID ...`: the name may hold spaces and `)`.
        let Some((_, rest)) = stat.rsplit_once(')') else { continue };
        let mut fields = rest.split_whitespace();
        let (state, parent) = (fields.next(), fields.next().and_then(|p| p.parse::<u32>().ok()));
        if state == Some("Z")
            && parent == Some(me)
            && let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw)
        {
            let _ = rustix::process::waitpid(Some(pid), rustix::process::WaitOptions::NOHANG);
        }
    }
}

/// [`run`], with the command started in `place`, and its output written
/// to `out`, which is not capout's stdout (the MCP server's and the
/// modules' calls write to a buffer).
pub fn run_in(
    options: &Options,
    spec: &CommandSpec,
    place: &Place,
    out: &mut dyn io::Write,
    err: &mut dyn io::Write,
) -> Result<Finished, Error> {
    run_watched(options, spec, place, false, out, err)
}

/// [`run_in`]; with `watch`, capout's stdout is watched for a reader that
/// has gone.
fn run_watched(
    options: &Options,
    spec: &CommandSpec,
    place: &Place,
    watch: bool,
    out: &mut dyn io::Write,
    err: &mut dyn io::Write,
) -> Result<Finished, Error> {
    let timeout = spec.timeout.as_ref();
    let mut launch = Launch::Pending(spec, place);
    let end = |launch: &mut Launch<'_>| match launch {
        // A failed wait here fails again below, where it can be told.
        Launch::Running(reader) => reader.wait().map(|status| status.ending(timeout)).unwrap_or_default(),
        Launch::Pending(..) | Launch::Failed => Ending::default(),
    };
    let ran = if watch {
        let input = crate::pipe::Watched::new(&mut launch);
        crate::run::run_with(options, input, out, err, |input| end(input.get_mut()))
    } else {
        crate::run::run_with(options, &mut launch, out, err, |launch| end(launch))
    };
    let ending = match launch {
        Launch::Running(mut reader) => {
            // After a failed pass the command must neither be left running
            // unwatched nor become a zombie.
            reader.wait().map_err(|e| Error::Run(capout_core::Error::Read(e).into()))?.ending(timeout)
        }
        // The pass stopped before its first read, as when the --save
        // file cannot be written, or the command could not start: it
        // never ran.
        Launch::Pending(..) | Launch::Failed => Ending::default(),
    };
    match ran {
        // The summary's ending is the engine's word on it: a command that
        // the pipe capout closed at its cap killed ended well.
        Ok(ran) => Ok(Finished { ending: ran.ending, summary: Some(ran.summary) }),
        Err(RunError::Run(capout_core::Error::Write(e))) if e.kind() == io::ErrorKind::BrokenPipe => {
            Ok(Finished { ending, summary: None })
        }
        Err(RunError::Start(e)) => match e.source.downcast::<Error>() {
            Ok(e) => Err(*e),
            Err(source) => Err(Error::Run(RunError::Start(StartError { source, ..e }))),
        },
        Err(e) => Err(Error::Run(e)),
    }
}

/// The command as the input of the pass. It starts at the first read, so
/// that what the pass checks before reading (that the `--save` file can be
/// written) fails before the command runs, as it does before stdin is read.
enum Launch<'a> {
    Pending(&'a CommandSpec, &'a Place),
    Running(CommandReader),
    /// It could not start; the pass got the error as its read error, and
    /// tells it (in `--json` too) and hands it back.
    Failed,
}

impl Read for Launch<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Launch::Pending(spec, place) = *self {
            match CommandReader::spawn_in(spec, place) {
                Ok(reader) => *self = Launch::Running(reader),
                Err(e) => {
                    *self = Launch::Failed;
                    return Err(io::Error::other(StartError { exit: e.exit(), source: Box::new(e) }));
                }
            }
        }
        match self {
            Launch::Running(reader) => reader.read(buf),
            Launch::Pending(..) | Launch::Failed => Err(io::Error::other("the command did not start")),
        }
    }
}

/// A running command's joined output, as a [`Read`] that ends when the
/// output does, or once capout has waited [`GRACE`] on an empty pipe after
/// the command exited, whichever is first.
///
/// The command's clock (the timeout, the SIGKILL after it) and the passing
/// on of signals run on a thread of their own, the `Supervisor`, so that
/// they keep time while capout is blocked writing its own output. Reading
/// stays here, on the thread of the pass: every byte written before the
/// command exited is read, however slowly capout's reader drains it.
pub struct CommandReader {
    /// The read end of the output pipe; `None` once it is given up.
    pipe: Option<PipeReader>,
    shared: Arc<Shared>,
    /// Readable once the supervisor has seen the command exit.
    exited: PipeReader,
    /// Tells the supervisor that the pipe was given up.
    control: PipeWriter,
    /// What is left of [`GRACE`] once the command has exited.
    grace: Duration,
    supervisor: Option<JoinHandle<io::Result<Status>>>,
    /// How the command ended, once waited for.
    status: Option<Status>,
}

/// What the two sides of a running command tell each other.
#[derive(Default)]
struct Shared {
    /// The supervisor saw the command exit.
    exited: AtomicBool,
    /// The reader gave the pipe up.
    pipe_closed: AtomicBool,
    /// It gave it up because the grace period ran out, not at its end.
    abandoned: AtomicBool,
}

impl CommandReader {
    /// Starts the command with its stdout and stderr on a new pipe.
    /// It starts in `place`.
    pub fn spawn_in(spec: &CommandSpec, place: &Place) -> Result<CommandReader, Error> {
        // Caught before the command starts, so that none is missed.
        let signals = Signals::catch(true).map_err(Error::Setup)?;
        let (pipe, writer) = io::pipe().map_err(Error::Setup)?;
        // Non-blocking, so that a read never waits past a deadline. The
        // flag is the read end's own: the command's end stays blocking.
        rustix::io::ioctl_fionbio(&pipe, true).map_err(|e| Error::Setup(e.into()))?;
        crate::pipe::enlarge(&pipe);
        let child = start(spec, place, &writer)?;
        let pid = child.id();
        // The leader of the session, and so of its group, has the group's id.
        let group = child.try_inner_child().map(Pid::from_child);
        drop(writer);
        let (exited, exited_write) = crate::signals::wake_pipe().map_err(Error::Setup)?;
        let (control_read, control) = crate::signals::wake_pipe().map_err(Error::Setup)?;
        let shared = Arc::new(Shared::default());
        let supervisor = Supervisor {
            group: group.ok_or_else(|| Error::Setup(io::Error::other("no process id for the command")))?,
            pid,
            child,
            stop: place.stop.clone(),
            signals,
            shared: Arc::clone(&shared),
            exited_write,
            control: control_read,
            term_at: spec.timeout.as_ref().and_then(|t| Instant::now().checked_add(t.after)),
            kill_after: spec.timeout.as_ref().and_then(|t| t.kill_after),
            kill_at: None,
            timed_out: false,
            status: None,
        };
        let supervisor = thread::Builder::new()
            .name("capout-supervisor".into())
            .spawn(move || supervisor.run())
            .map_err(Error::Setup)?;
        Ok(CommandReader {
            pipe: Some(pipe),
            shared,
            exited,
            control,
            grace: GRACE,
            supervisor: Some(supervisor),
            status: None,
        })
    }

    /// Gives up the output pipe if it is still open and waits for the
    /// command to end, while its clock still runs and signals are still
    /// passed on. A command still writing meets a closed pipe, as in any
    /// pipeline.
    pub fn wait(&mut self) -> io::Result<Status> {
        self.close(false);
        if let Some(supervisor) = self.supervisor.take() {
            let status =
                supervisor.join().unwrap_or_else(|_| Err(io::Error::other("the supervisor failed")))?;
            self.status = Some(status);
        }
        self.status.ok_or_else(|| io::Error::other("the command's status was lost"))
    }

    fn close(&mut self, abandoned: bool) {
        if self.pipe.take().is_some() {
            self.shared.abandoned.store(abandoned, Ordering::SeqCst);
            self.shared.pipe_closed.store(true, Ordering::SeqCst);
            let _ = (&self.control).write(&[0]);
        }
    }

    /// Waits until the pipe can be read. Once the command has exited, the
    /// time spent waiting here counts against the grace period; `false`
    /// when it has run out.
    fn await_data(&mut self) -> io::Result<bool> {
        let Some(pipe) = &self.pipe else { return Ok(false) };
        let exited = self.shared.exited.load(Ordering::SeqCst);
        if exited && self.grace.is_zero() {
            return Ok(false);
        }
        let timeout =
            exited.then(|| Timespec::try_from(self.grace).unwrap_or(Timespec { tv_sec: 1, tv_nsec: 0 }));
        let mut fds = [PollFd::new(pipe, PollFlags::IN), PollFd::new(&self.exited, PollFlags::IN)];
        let start = Instant::now();
        match poll(&mut fds, timeout.as_ref()) {
            Ok(_) | Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
        if exited {
            self.grace = self.grace.saturating_sub(start.elapsed());
        }
        drain(&self.exited);
        Ok(true)
    }
}

impl Read for CommandReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            let Some(pipe) = &mut self.pipe else { return Ok(0) };
            // Read first and poll only when the pipe is empty: a command
            // that writes fast costs one system call per read.
            match pipe.read(buf) {
                Ok(0) => {
                    self.close(false);
                    return Ok(0);
                }
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    if !self.await_data()? {
                        self.close(true);
                        return Ok(0);
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
}

impl Drop for CommandReader {
    fn drop(&mut self) {
        // Never leave the command unwatched: its clock runs to its end.
        if self.supervisor.is_some() {
            let _ = self.wait();
        }
    }
}

/// Reads what is there to read of a non-blocking pipe.
fn drain(mut pipe: &PipeReader) {
    let mut buf = [0; 64];
    while matches!(pipe.read(&mut buf), Ok(n) if n > 0) {}
}

/// The command's clock and capout's signals, on a thread of their own.
struct Supervisor {
    /// The session's leader, through the wrapper that made the session.
    child: Box<dyn ChildWrapper>,
    /// Its id, in [`CHILDREN`] until it is waited for.
    pid: u32,
    group: Pid,
    /// Asked from outside to end it; `None` once acted on.
    stop: Option<Arc<Stop>>,
    signals: Signals,
    shared: Arc<Shared>,
    /// Written to once the command has exited.
    exited_write: PipeWriter,
    /// Readable when the reader gave the pipe up.
    control: PipeReader,
    /// When to send SIGTERM; `None` without a timeout or once it is sent.
    term_at: Option<Instant>,
    /// How long after SIGTERM to send SIGKILL.
    kill_after: Option<Duration>,
    /// When to send SIGKILL; set when SIGTERM is sent.
    kill_at: Option<Instant>,
    timed_out: bool,
    status: Option<ExitStatus>,
}

impl Supervisor {
    /// Keeps the clock and passes signals on until the command has exited
    /// and the reader has given up its output.
    fn run(mut self) -> io::Result<Status> {
        loop {
            self.tend()?;
            if let Some(status) = self.status
                && self.shared.pipe_closed.load(Ordering::SeqCst)
            {
                // A timed-out command was told to stop, all of it: what is
                // left of its group and still held the pipe when the grace
                // period ran out is killed now rather than left behind.
                if self.kill_at.is_some() && self.shared.abandoned.load(Ordering::SeqCst) {
                    self.signal(Signal::KILL);
                } else {
                    // What is left of its group (background jobs) gets
                    // what a closing terminal sends its jobs: SIGHUP, so
                    // that a job started with `nohup` lives on, on purpose.
                    let _ = kill_process_group(self.group, Signal::HUP);
                    let _ = kill_process_group(self.group, Signal::CONT);
                }
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
            && self.status.is_none()
            // The leader's own status, as std's `Child` waits for it: the
            // session wrapper's `try_wait` waits for the whole group, and
            // loses the leader's status when another of the group is a
            // child of capout's too (the MCP server is a subreaper).
            && let Some(status) = self.child.inner_mut().try_wait()?
        {
            self.status = Some(status);
            children().retain(|pid| *pid != self.pid);
            // It ended in time: no timeout is due any more.
            self.term_at = None;
            self.shared.exited.store(true, Ordering::SeqCst);
            let _ = (&self.exited_write).write(&[0]);
        }
        // Once the command has been reaped and its pipe given up, its
        // group may be gone and its id taken by another: signal no more.
        let group_may_live = self.status.is_none() || !self.shared.pipe_closed.load(Ordering::SeqCst);
        for signal in self.signals.take().collect::<Vec<_>>() {
            if group_may_live {
                self.stop(signal);
            }
        }
        if let Some(stop) = self.stop.take_if(|stop| stop.asked()) {
            drain(&stop.wake);
            if group_may_live {
                // As a timeout does, but without saying it timed out.
                self.term_at = None;
                self.stop(Signal::TERM);
                let grace = self.kill_after.unwrap_or(GRACE);
                self.kill_at = self.kill_at.or_else(|| now.checked_add(grace));
            }
        }
        if self.term_at.is_some_and(|at| now >= at) {
            self.term_at = None;
            self.timed_out = true;
            self.stop(Signal::TERM);
            self.kill_at = self.kill_after.and_then(|d| now.checked_add(d));
        }
        if self.kill_at.is_some_and(|at| now >= at) && group_may_live {
            self.kill_at = None;
            self.signal(Signal::KILL);
        }
        Ok(())
    }

    /// Sends `signal` to the command's group, then SIGCONT, as GNU
    /// `timeout` does, so that a stopped command acts on it too.
    fn stop(&self, signal: Signal) {
        self.signal(signal);
        self.signal(Signal::CONT);
    }

    /// Sends `signal` to the command's process group; when there is no
    /// such group any more, the command's own process gets it, while it is
    /// not reaped.
    fn signal(&self, signal: Signal) {
        if kill_process_group(self.group, signal) == Err(rustix::io::Errno::SRCH) && self.status.is_none() {
            let _ = kill_process(self.group, signal);
        }
    }

    /// Waits until a signal comes, the reader gives the pipe up, or the
    /// next deadline passes.
    fn sleep(&mut self) -> io::Result<()> {
        let next = [self.term_at, self.kill_at].into_iter().flatten().min();
        // Some systems refuse poll timeouts past `c_int::MAX` ms; the
        // loop around the call waits on after a day.
        let timeout = next.map(|at| {
            let wait = at.saturating_duration_since(Instant::now()).min(Duration::from_secs(86_400));
            Timespec::try_from(wait).unwrap_or(Timespec { tv_sec: 86_400, tv_nsec: 0 })
        });
        let wake = self.signals.wake();
        let mut fds = vec![PollFd::new(&wake, PollFlags::IN), PollFd::new(&self.control, PollFlags::IN)];
        if let Some(stop) = &self.stop {
            fds.push(PollFd::new(&stop.wake, PollFlags::IN));
        }
        match poll(&mut fds, timeout.as_ref()) {
            Ok(_) | Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
        // Emptied before the flags are read, so a signal that comes
        // between the two wakes the next poll instead of being missed.
        self.signals.drain();
        drain(&self.control);
        Ok(())
    }
}

/// Starts the command in a session of its own (and so a process group of
/// its own), its stdout and stderr on `writer`.
///
/// In a session of its own the command has no controlling terminal: a
/// program that opens `/dev/tty` to ask something gets an error at once,
/// where in a background process group of capout's terminal it would be
/// stopped for good. For the same reason a terminal on stdin is not passed
/// on: the command reads end-of-file instead.
///
/// The child calls `setsid` between fork and exec, through process-wrap's
/// session wrapper (std cannot without `unsafe`); the session exists once
/// `spawn` returns, as std returns only after the exec. The program is
/// found first, as `execvp` finds it, so that a command not found or not
/// executable is told here; a file with the execute bit but no `#!` line
/// is run by `/bin/sh`, as `execvp` runs it.
fn start(spec: &CommandSpec, place: &Place, writer: &io::PipeWriter) -> Result<Box<dyn ChildWrapper>, Error> {
    let path =
        find_program(&spec.program, place.dir.as_deref()).map_err(|e| spawn_error(&spec.program, &e))?;
    let mut command = Command::new(&path);
    command.arg0(&spec.program).args(&spec.args);
    // Both pipe ends are close-on-exec: the command gets the write end
    // only as its stdout and stderr, and nothing else of capout's.
    let stdout = writer.try_clone().map_err(Error::Setup)?;
    let stderr =
        if spec.stdout_only { Stdio::inherit() } else { writer.try_clone().map_err(Error::Setup)?.into() };
    let stdin = if place.no_stdin || io::stdin().is_terminal() { Stdio::null() } else { Stdio::inherit() };
    if let Some(dir) = &place.dir {
        command.current_dir(dir);
    }
    command.envs(place.env.iter().map(|(name, value)| (name, value)));
    command.stdin(stdin).stdout(stdout).stderr(stderr);
    let mut command = CommandWrap::from(command);
    command.wrap(ProcessSession);
    let mut started = children();
    let spawned = command.spawn();
    if let Ok(child) = &spawned {
        started.push(child.id());
    }
    drop(started);
    // The Command holds capout's copies of the write end; the pipe ends
    // only when they are closed too.
    drop(command);
    spawned.map_err(|e| spawn_error(&spec.program, &e))
}

/// The file that `execvp` runs for `program`: itself when it names a
/// path, else the first executable file of that name in `PATH`. The error
/// is the one `execvp` would give.
fn find_program(program: &OsStr, dir: Option<&Path>) -> io::Result<PathBuf> {
    let executable =
        |file: &Path| file.metadata().map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
    if program.as_encoded_bytes().contains(&b'/') {
        // A relative path names a file in the folder the command runs in.
        let path = dir.map_or_else(|| PathBuf::from(program), |dir| dir.join(program));
        return if executable(&path)? { Ok(path) } else { Err(io::ErrorKind::PermissionDenied.into()) };
    }
    let path = std::env::var_os("PATH").unwrap_or_else(|| "/bin:/usr/bin".into());
    let mut found = Err(io::ErrorKind::NotFound.into());
    for file in std::env::split_paths(&path).map(|dir| dir.join(program)) {
        match executable(&file) {
            Ok(true) => return Ok(file),
            // As execvp: a file found but not executable, when no other is.
            Ok(false) if file.is_file() => found = Err(io::ErrorKind::PermissionDenied.into()),
            _ => {}
        }
    }
    found
}

/// The error for a command that could not be started, worded as a shell
/// words it.
fn spawn_error(program: &OsStr, e: &io::Error) -> Error {
    let has_slash = program.as_encoded_bytes().contains(&b'/');
    let not_found = e.kind() == io::ErrorKind::NotFound;
    let reason = match e.kind() {
        io::ErrorKind::NotFound if has_slash => "no such file or directory".to_owned(),
        // `capout dmesg.txt` meant to read the file, most likely.
        io::ErrorKind::NotFound if Path::new(program).is_file() => format!(
            "command not found (to read the file: capout --input {})",
            shlex::try_quote(&program.to_string_lossy()).unwrap_or_default()
        ),
        io::ErrorKind::NotFound => "command not found".to_owned(),
        io::ErrorKind::PermissionDenied if Path::new(program).is_dir() => "is a directory".to_owned(),
        io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
        _ => plain_reason(e),
    };
    Error::Spawn { program: program.to_owned(), reason, not_found }
}

/// The system's message for an error, as a shell shows it: `exec format
/// error`, without Rust's `(os error 8)`.
pub fn plain_reason(e: &io::Error) -> String {
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
        let status = |code, signal, timed_out| Status { code, signal, timed_out }.exit().code();
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
        assert_eq!(e("nosuch", io::ErrorKind::NotFound).exit().code(), 127);
        assert_eq!(e("./nosuch", io::ErrorKind::NotFound).to_string(), "./nosuch: no such file or directory");
        assert_eq!(e("./file", io::ErrorKind::PermissionDenied).to_string(), "./file: permission denied");
        assert_eq!(e("./file", io::ErrorKind::PermissionDenied).exit().code(), 126);
        assert_eq!(e("/", io::ErrorKind::PermissionDenied).to_string(), "/: is a directory");
        let exec_format = spawn_error(OsStr::new("./x"), &io::Error::from_raw_os_error(8));
        assert_eq!(exec_format.to_string(), "./x: exec format error");
        assert_eq!(exec_format.exit().code(), 126);
    }
}
