//! `--progress`: a live count of what was read, on stderr, while a cap
//! holds its output back.

use std::io::{self, Write};
use std::time::{Duration, Instant};

use crate::count::Totals;
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
}

impl Default for Progress {
    fn default() -> Self {
        let start = Instant::now();
        Progress { start, next: start + EVERY, shown: false }
    }
}

impl Progress {
    /// Redraws the line if the last update is old enough.
    pub fn tick(&mut self, totals: &Totals, err: &mut dyn Write) -> io::Result<()> {
        let now = Instant::now();
        if now < self.next {
            return Ok(());
        }
        self.next = now + EVERY;
        self.shown = true;
        let seconds = now.duration_since(self.start).as_secs_f64();
        // A rate for the eye: precision past 2^52 bytes does not matter.
        #[allow(clippy::cast_precision_loss)]
        let mib = |bytes: u64| bytes as f64 / (1024.0 * 1024.0);
        err.write_all(ERASE)?;
        let line = notice::progress(mib(totals.bytes), totals.lines(), mib(totals.bytes) / seconds.max(1e-9));
        err.write_all(line.as_bytes())?;
        err.flush()
    }

    /// Erases the line, if it was ever drawn.
    pub fn finish(&mut self, err: &mut dyn Write) -> io::Result<()> {
        if std::mem::take(&mut self.shown) {
            err.write_all(ERASE)?;
            err.flush()?;
        }
        Ok(())
    }
}
