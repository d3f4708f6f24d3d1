//! The command's clock and capout's signals, on a thread of their own:
//! the `Supervisor` sends SIGTERM, SIGCONT and SIGKILL when `--timeout`
//! says, passes on the signals capout receives, notes the command's exit,
//! and ends what is left of its group once the reader has given up the
//! pipe. [`Stop`] is a request from outside to end the command early.

use std::io::{self, PipeReader, PipeWriter, Write};
use std::process::ExitStatus;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use process_wrap::std::ChildWrapper;
use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::process::{Pid, Signal, kill_process, kill_process_group};

use super::reader::Shared;
use super::spawn::children;
use super::{GRACE, Status, drain};
use crate::signals::Signals;

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

/// The command's clock and capout's signals, on a thread of their own.
pub(super) struct Supervisor {
    /// The session's leader, through the wrapper that made the session.
    pub(super) child: Box<dyn ChildWrapper>,
    /// Its id, in the register of the commands started (`spawn`) until
    /// it is waited for.
    pub(super) pid: u32,
    pub(super) group: Pid,
    /// Asked from outside to end it; `None` once acted on.
    pub(super) stop: Option<Arc<Stop>>,
    pub(super) signals: Signals,
    pub(super) shared: Arc<Shared>,
    /// Written to once the command has exited.
    pub(super) exited_write: PipeWriter,
    /// Readable when the reader gave the pipe up.
    pub(super) control: PipeReader,
    /// When to send SIGTERM; `None` without a timeout or once it is sent.
    pub(super) term_at: Option<Instant>,
    /// How long after SIGTERM to send SIGKILL.
    pub(super) kill_after: Option<Duration>,
    /// When to send SIGKILL; set when SIGTERM is sent.
    pub(super) kill_at: Option<Instant>,
    pub(super) timed_out: bool,
    pub(super) status: Option<ExitStatus>,
}

impl Supervisor {
    /// Keeps the clock and passes signals on until the command has exited
    /// and the reader has given up its output.
    pub(super) fn run(mut self) -> io::Result<Status> {
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
