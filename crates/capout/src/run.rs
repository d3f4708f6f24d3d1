//! A whole run of the programs over one input: the engine's pass, how the
//! input ended (a command's status, a signal, `--timeout`), the notices in
//! their order, `--json` and `--progress`.
//!
//! The engine ([`capout_core`]) caps a stream and says what it cut; what a
//! run adds around it is the programs': the status capout exits with, the
//! notice of a timeout or an interrupting signal, the `--json` envelope
//! and the live count on stderr.

use std::fmt;
use std::io::{Read, Write};

use capout_core::{CapSpec, Capper, Notice, Options, Summary};

use crate::exit::Exit;
use crate::json;
use crate::notice;
use crate::progress::Progress;

/// How the input ended: for a command, how the command ended.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ending {
    /// The status capout exits with: 0 in filter mode, else the command's.
    pub exit_code: i32,
    /// The signal that killed the command.
    pub signal: Option<i32>,
    /// The `--timeout` that stopped the command, as given.
    pub timed_out: Option<String>,
    /// The signal that stopped capout's own reading of its input, in
    /// filter mode.
    pub interrupted: Option<i32>,
}

impl Ending {
    /// The signal capout ends with, once it has written what it kept: the
    /// one that killed the command (unless `--timeout` sent it: that
    /// gives 124), or the one that interrupted capout.
    pub fn fatal_signal(&self) -> Option<i32> {
        self.signal.filter(|_| self.timed_out.is_none()).or(self.interrupted)
    }
}

/// What a run did: the engine's [`Summary`] of the stream, and how the
/// input ended.
#[derive(Debug)]
pub struct Ran {
    /// What the engine kept and cut.
    pub summary: Summary,
    /// How the input ended; a failed save makes its status 1.
    pub ending: Ending,
}

impl Ran {
    /// A run whose input ended as `ending` says: a failed save makes
    /// capout exit 1, whatever the input's end.
    pub fn new(summary: Summary, ending: Ending) -> Ran {
        let ending = if summary.save_error.is_some() { Ending { exit_code: 1, ..ending } } else { ending };
        Ran { summary, ending }
    }

    /// Every notice line of the run, in the order they are written;
    /// `None` when there is none.
    pub fn notice_lines(&self) -> Option<Vec<Vec<u8>>> {
        Some(notice_lines(self.summary.notice.as_ref(), &self.ending)).filter(|l| !l.is_empty())
    }
}

/// An input that could not be started, such as a command that was not
/// found, with the way capout ends for it. An input's reader returns it
/// as the [`io::Error`](std::io::Error) of its first read
/// (`io::Error::other(StartError { .. })`), and [`run`] tells it as such.
#[derive(Debug)]
pub struct StartError {
    /// How capout ends: 126 or 127 for a command, as a shell has them.
    pub exit: Exit,
    /// What went wrong.
    pub source: Box<dyn std::error::Error + Send + Sync>,
}

impl fmt::Display for StartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.source.fmt(f)
    }
}

impl std::error::Error for StartError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.source)
    }
}

/// Why a run stopped short.
#[derive(Debug)]
pub enum Error {
    /// The engine's error: reading, writing, saving, a pattern.
    Run(capout_core::Error),
    /// The input could not be started: a command that could not run.
    Start(StartError),
}

impl Error {
    /// How capout ends for the error.
    pub fn exit(&self) -> Exit {
        match self {
            Error::Run(e) => Exit::of_error(e),
            Error::Start(e) => e.exit,
        }
    }

    /// A read error that is an input's failure to start is that failure;
    /// one that says capout's stdout has no reader any more
    /// ([`StdoutClosed`](crate::pipe::StdoutClosed)) is a failed write, as
    /// the next write would have been.
    fn of_engine(e: capout_core::Error) -> Error {
        match e {
            capout_core::Error::Read(e) if crate::pipe::StdoutClosed::caused(&e) => {
                Error::Run(capout_core::Error::Write(e))
            }
            capout_core::Error::Read(e) => match e.downcast::<StartError>() {
                Ok(e) => Error::Start(e),
                Err(e) => Error::Run(capout_core::Error::Read(e)),
            },
            e => Error::Run(e),
        }
    }
}

impl From<capout_core::Error> for Error {
    fn from(e: capout_core::Error) -> Error {
        Error::of_engine(e)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Run(e) => e.fmt(f),
            Error::Start(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Run(e) => e.source(),
            Error::Start(e) => e.source(),
        }
    }
}

/// Reads `input` to its end and writes what the cap keeps to `out`, and
/// the notices to `out` or `err` as the options say.
///
/// With `--json`, `out` gets one complete object whatever happens after
/// the options are found valid: an error that stops the run is told in
/// its `error` field, and returned too.
pub fn run(
    options: &Options,
    input: impl Read,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Ran, Error> {
    run_with(options, input, out, err, |_| Ending::default())
}

/// [`run`], where `end` is asked how the input ended once it is read to
/// its end: a command's reader waits for the command there.
///
/// The steps read on their own: set-up ([`Capper::with_options`]:
/// patterns, the save file), the pass and how the input ended
/// (`capped`), and, with `--json`, the end of the object
/// ([`json::Object`]).
pub fn run_with<R: Read>(
    options: &Options,
    mut input: R,
    out: &mut dyn Write,
    err: &mut dyn Write,
    end: impl FnOnce(&mut R) -> Ending,
) -> Result<Ran, Error> {
    // An invalid pattern is a usage error: nothing is written, no file
    // is made. A save file that cannot be made fails the run before it
    // starts, with its JSON object all the same.
    let capper = match Capper::with_options(options) {
        Err(e @ capout_core::Error::Pattern { .. }) => return Err(Error::Run(e)),
        capper => capper.map_err(Error::Run),
    };
    if options.json {
        let mut object = json::Object::new(out);
        let ran = capper.and_then(|capper| capped(options, capper, &mut input, &mut object, err, end));
        object.end(options, ran, err)
    } else {
        let ran = capper.and_then(|capper| capped(options, capper, &mut input, out, err, end));
        let flushed = out.flush().and_then(|()| err.flush());
        ran.and_then(|ran| flushed.map(|()| ran).map_err(|e| Error::Run(capout_core::Error::Write(e))))
    }
}

/// The run itself, once everything that makes it a usage error is ruled
/// out: the pass with its live count, how the input ended, the notices.
fn capped<R: Read>(
    options: &Options,
    mut capper: Capper,
    input: &mut R,
    out: &mut dyn Write,
    err: &mut dyn Write,
    end: impl FnOnce(&mut R) -> Ending,
) -> Result<Ran, Error> {
    let mut progress =
        (options.progress && (options.json || holds_back(options.cap))).then(Progress::default);
    let mut tapped = Tapped(&mut *input);
    while capper.pull(&mut tapped, out, err)? {
        if let Some(progress) = &mut progress {
            progress.tick(capper.totals(), err);
        }
    }
    if let Some(progress) = &mut progress {
        progress.finish(err);
    }
    let stopped = capper.stopped();
    let mut closed = capper.close(out, err)?;
    let ending = end(input);
    // Stopped at the cap, capout closed the pipe: a command that the
    // closed pipe killed ended as `cmd | head` lets it end, and the run
    // is a success, as the pipeline's status is head's.
    let sigpipe = signal_hook::consts::SIGPIPE;
    let ending = if stopped && ending.signal == Some(sigpipe) && ending.timed_out.is_none() {
        Ending { exit_code: 0, signal: None, ..ending }
    } else {
        ending
    };
    for line in notice_lines(closed.summary().notice.as_ref(), &ending) {
        closed.notify(&line, out, err)?;
    }
    Ok(Ran::new(closed.finish(out, err)?, ending))
}

/// The notice lines of a run, in their order: the cap's, how the input
/// ended, the rescued lines.
fn notice_lines(notice: Option<&Notice>, ending: &Ending) -> Vec<Vec<u8>> {
    let mut lines = Vec::new();
    if let Some(line) = notice.and_then(Notice::cap) {
        lines.push(line.as_bytes().to_vec());
    }
    if let Some(duration) = &ending.timed_out {
        lines.push(notice::timed_out(duration).into_bytes());
    }
    if let Some(name) = ending.interrupted.and_then(signal_hook::low_level::signal_name) {
        lines.push(notice::interrupted(name).into_bytes());
    }
    lines.extend(notice.into_iter().flat_map(Notice::rescued).map(<[u8]>::to_vec));
    lines
}

/// The watchers of what a run reads, beside the run: each is given every
/// piece that the input gives, and an empty one at its end, before the
/// run writes what its cap held back (`capout hook claude-code` keeps the
/// output so far with one, the ledger counts what came in with another).
/// Added before the process's run; with none, a run reads as it always
/// did.
static TAPS: std::sync::Mutex<Vec<Box<Tap>>> = std::sync::Mutex::new(Vec::new());

/// What a watcher of `TAPS` is.
pub type Tap = dyn Fn(&[u8]) + Send + Sync;

/// Adds a watcher of what the process's run reads.
pub fn tap(watcher: Box<Tap>) {
    TAPS.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(watcher);
}

/// The input of a run, shown to [`TAPS`] as it is read.
struct Tapped<'a, R>(&'a mut R);

impl<R: Read> Read for Tapped<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.0.read(buf)?;
        crate::ledger::feed(&buf[..n]);
        let taps = TAPS.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        for tap in taps.iter() {
            tap(&buf[..n]);
        }
        Ok(n)
    }
}

/// Whether the cap writes its output only at the end, so a live count
/// helps on a long input.
fn holds_back(cap: CapSpec) -> bool {
    matches!(
        cap,
        CapSpec::TailChars(_)
            | CapSpec::TailLines(_)
            | CapSpec::HeadTailLines(..)
            | CapSpec::HeadTailChars(..)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The notice of a timeout and of an interrupting signal stand
    /// between the cap's own notice and the lines `--keep` rescued.
    #[test]
    fn notice_lines_put_the_ending_between_the_cap_and_the_rescued_lines() {
        let mut options = Options::new(CapSpec::TailLines(1));
        options.keep = Some(capout_core::Keep { pattern: "^e".into(), max: 5 });
        let ending = Ending { timed_out: Some("2s".into()), interrupted: Some(15), ..Ending::default() };
        let mut out = Vec::new();
        let ran = run_with(&options, &b"e1\nb\nc\n"[..], &mut out, &mut std::io::sink(), |_| ending.clone())
            .expect("in memory");
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "c\n... (truncated, showing last 1 lines)\n... (command timed out after 2s)\n\
             ... (interrupted by SIGTERM)\n... (cut lines matching ^e: 1)\n1:e1\n"
        );
        assert_eq!(ran.notice_lines().map(|l| l.len()), Some(5));
    }
}
