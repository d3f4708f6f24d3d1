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
//! pipe, or on a pipe that capout's signal handlers write to, with a
//! timeout that ends at the next deadline.
//!
//! - this file: what a run of a command gives ([`Status`], [`Finished`],
//!   [`Error`]), where it runs ([`Place`]), and [`run`] and [`run_in`];
//! - `reader`: the command's output as the input of the pass
//!   ([`CommandReader`]), started at the pass's first read;
//! - `supervisor`: the command's clock and capout's signals, on a thread
//!   of their own, and [`Stop`], a request from outside to end it;
//! - `spawn`: starting the command in a session of its own, found as
//!   `execvp` finds it, its errors worded as a shell words them, and the
//!   register of the commands started, which [`reap_orphans`] respects.

mod reader;
mod spawn;
mod supervisor;

use std::ffi::OsString;
use std::fmt;
use std::io::{self, PipeReader, Read};
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::ExitStatus;
use std::sync::Arc;
use std::time::Duration;

use crate::exit::Exit;
use crate::run::{Ending, Error as RunError, StartError};
use capout_core::{Options, Summary};

pub use reader::CommandReader;
use reader::Launch;
pub use spawn::{plain_reason, reap_orphans, stay_in_group};
pub use supervisor::Stop;

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

/// Reads what is there to read of a non-blocking pipe.
fn drain(mut pipe: &PipeReader) {
    let mut buf = [0; 64];
    while matches!(pipe.read(&mut buf), Ok(n) if n > 0) {}
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
}
