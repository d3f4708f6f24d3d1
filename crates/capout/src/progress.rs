//! `--progress`: a live count of what was read, on stderr, while a cap
//! holds its output back.
//!
//! It is decoration: when stderr fails (a full disk, a reader that left),
//! the line is turned off and the run goes on as if it had never been
//! asked for. Stopping there would lose stdout, and in command mode leave
//! the command to die of SIGPIPE on a pipe nobody reads.

use std::io::{self, Write};
use std::time::{Duration, Instant};

use capout_core::Totals;

use crate::notice;

/// At most ten updates a second.
const EVERY: Duration = Duration::from_millis(100);

/// Erases the line the cursor is on.
const ERASE: &[u8] = b"\r\x1b[K";

/// The live line: bytes and lines read, and the rate.
#[derive(Debug)]
pub struct Progress {
    start: Instant,
    next: Instant,
    shown: bool,
    /// stderr failed: nothing more is drawn.
    off: bool,
}

impl Default for Progress {
    fn default() -> Self {
        let start = Instant::now();
        Progress { start, next: start + EVERY, shown: false, off: false }
    }
}

impl Progress {
    /// Redraws the line if the last update is old enough. A failing
    /// `err` turns the line off; it is never an error of the run.
    pub fn tick(&mut self, totals: &Totals, err: &mut dyn Write) {
        let now = Instant::now();
        if self.off || now < self.next {
            return;
        }
        self.next = now + EVERY;
        self.shown = true;
        self.off = Self::draw(now.duration_since(self.start), totals, err).is_err();
    }

    fn draw(elapsed: Duration, totals: &Totals, err: &mut dyn Write) -> io::Result<()> {
        let seconds = elapsed.as_secs_f64();
        // A rate for the eye: precision past 2^52 bytes does not matter.
        #[allow(clippy::cast_precision_loss)]
        let mib = |bytes: u64| bytes as f64 / (1024.0 * 1024.0);
        err.write_all(ERASE)?;
        let line = notice::progress(
            mib(totals.bytes()),
            totals.lines().unwrap_or(0),
            mib(totals.bytes()) / seconds.max(1e-9),
        );
        err.write_all(line.as_bytes())?;
        err.flush()
    }

    /// Erases the line, if it was ever drawn; a failing `err` is no
    /// error here either.
    pub fn finish(&mut self, err: &mut dyn Write) {
        if std::mem::take(&mut self.shown) && !self.off {
            self.off = err.write_all(ERASE).and_then(|()| err.flush()).is_err();
        }
    }
}
