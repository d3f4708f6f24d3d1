//! The command's output as the input of the pass: [`CommandReader`], a
//! [`Read`] over the pipe that joins its stdout and stderr, and `Launch`,
//! which starts the command at the pass's first read. Reading stays on
//! the pass's thread; the command's clock runs on the supervisor's.

use std::io::{self, PipeReader, PipeWriter, Read, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::process::Pid;

use super::spawn::start;
use super::supervisor::Supervisor;
use super::{CommandSpec, Error, GRACE, Place, Status, drain};
use crate::run::StartError;
use crate::signals::Signals;

/// The command as the input of the pass. It starts at the first read, so
/// that what the pass checks before reading (that the `--save` file can be
/// written) fails before the command runs, as it does before stdin is read.
pub(super) enum Launch<'a> {
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
pub(super) struct Shared {
    /// The supervisor saw the command exit.
    pub(super) exited: AtomicBool,
    /// The reader gave the pipe up.
    pub(super) pipe_closed: AtomicBool,
    /// It gave it up because the grace period ran out, not at its end.
    pub(super) abandoned: AtomicBool,
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
