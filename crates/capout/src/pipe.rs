//! The pipes around capout: a larger pipe buffer and larger reads of the
//! input (fewer reads and fewer wake-ups on a big output, for stdin in
//! filter mode and for a command's output), and the watch on capout's own
//! stdout that ends a run whose reader has gone ([`Watched`]).

use std::fmt;
use std::io::{self, Read};
use std::os::fd::AsFd;

use rustix::event::{PollFd, PollFlags, Timespec, poll};

/// The buffer size asked for.
pub const SIZE: usize = 1 << 20;

/// The read size the `capout` filter sets for its input, a file or a
/// pipe: fewer, larger reads cost less, and a tail cap skips more of each
/// piece unread. 256 KiB reads were a little faster still, but took the
/// peak RSS of the binary past 4 MiB.
pub const INPUT_READ_SIZE: usize = 128 * 1024;

/// Asks the kernel for a [`SIZE`] buffer on `fd` when it is a pipe. The
/// default size works too, so a refusal (not a pipe, a quota) is no error.
pub fn enlarge(fd: impl AsFd) {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    let _ = rustix::pipe::fcntl_setpipe_size(fd, SIZE);
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    let _ = fd;
}

/// How much input capout reads between two looks at its stdout (see
/// [`Watched`]): one `poll(2)` a MiB costs nothing that can be measured,
/// and `yes` fills a MiB in well under a millisecond.
pub const WATCH_EVERY: u64 = 1 << 20;

/// An input that ends the run, as a write to a closed stdout does, once
/// capout's own stdout has no reader any more.
///
/// A cap that has nothing more to write (a head cap past its limit, or a
/// tail cap before its end) still reads its input to the end for its
/// totals, and would never learn from a write that nobody reads its
/// output: `capout -n 1 -- yes | head -1` would run for ever. So every
/// [`WATCH_EVERY`] bytes read, it asks `poll(2)` about stdout without
/// waiting: `POLLERR` on a pipe whose read end is closed, `POLLHUP` on a
/// socket whose peer hung up. The next read then fails with
/// [`StdoutClosed`], an error of kind [`io::ErrorKind::BrokenPipe`] that
/// the run takes as it takes a failed write (see
/// [`run::Error`](crate::run::Error)): it stops quietly.
pub struct Watched<R> {
    input: R,
    /// Bytes read since the last look.
    unwatched: u64,
}

impl<R> Watched<R> {
    /// `input`, read while capout's stdout is watched.
    pub fn new(input: R) -> Self {
        Watched { input, unwatched: 0 }
    }

    /// The input itself.
    pub fn get_ref(&self) -> &R {
        &self.input
    }

    /// The input itself, mutably.
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.input
    }
}

impl<R: Read> Read for Watched<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.unwatched >= WATCH_EVERY {
            self.unwatched = 0;
            if stdout_closed() {
                return Err(io::Error::new(io::ErrorKind::BrokenPipe, StdoutClosed));
            }
        }
        let n = self.input.read(buf)?;
        self.unwatched += n as u64;
        Ok(n)
    }
}

/// Whether capout's stdout is a pipe or socket that nobody can read any
/// more. A file, a terminal or `/dev/null` never is.
pub fn stdout_closed() -> bool {
    let stdout = io::stdout();
    let mut fds = [PollFd::new(&stdout, PollFlags::empty())];
    let zero = Timespec { tv_sec: 0, tv_nsec: 0 };
    poll(&mut fds, Some(&zero)).is_ok() && fds[0].revents().intersects(PollFlags::ERR | PollFlags::HUP)
}

/// The error of a read that [`Watched`] ended: capout's stdout is closed.
#[derive(Debug)]
pub struct StdoutClosed;

impl fmt::Display for StdoutClosed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the output has no reader")
    }
}

impl std::error::Error for StdoutClosed {}

impl StdoutClosed {
    /// Whether `e` is the error of a read that [`Watched`] ended.
    pub fn caused(e: &io::Error) -> bool {
        e.get_ref().is_some_and(<dyn std::error::Error + Send + Sync>::is::<StdoutClosed>)
    }
}
