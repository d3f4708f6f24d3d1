//! The client's side of stdout: every message a whole line, never cut
//! into another. The server's lines that pass unchanged are streamed as
//! they come, in pieces; a line of the proxy's own (a page, an error)
//! waits until the line being streamed has ended.

use std::io::{self, BufWriter, Write};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

/// The writer to the client.
pub struct Out {
    state: Mutex<State>,
    free: Condvar,
}

struct State {
    writer: BufWriter<Box<dyn Write + Send>>,
    /// A line is being streamed: no other may start.
    streaming: bool,
    /// A write failed: the client is gone.
    broken: bool,
}

impl Out {
    /// Lines to `writer`.
    pub fn new(writer: Box<dyn Write + Send>) -> Out {
        let writer = BufWriter::with_capacity(64 * 1024, writer);
        Out { state: Mutex::new(State { writer, streaming: false, broken: false }), free: Condvar::new() }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Writes one whole line with `write`, once no line is streamed.
    pub fn line(&self, write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<()> {
        let state = self.lock();
        let mut state = self.free.wait_while(state, |s| s.streaming).unwrap_or_else(PoisonError::into_inner);
        let written = write(&mut state.writer).and_then(|()| state.writer.flush());
        state.broken |= written.is_err();
        written
    }

    /// Writes the next piece of the line being streamed (by the one
    /// thread that streams); `last` ends it.
    pub fn part(&self, bytes: &[u8], last: bool) -> io::Result<()> {
        let mut state = self.lock();
        state.streaming = !last;
        let written = state.writer.write_all(bytes).and_then(|()| state.writer.flush());
        state.broken |= written.is_err();
        drop(state);
        if last {
            self.free.notify_all();
        }
        written
    }

    /// Whether a write to the client failed.
    pub fn broken(&self) -> bool {
        self.lock().broken
    }
}

/// A writer whose bytes a test reads back.
#[cfg(test)]
#[derive(Clone, Default)]
pub struct Shared(pub std::sync::Arc<Mutex<Vec<u8>>>);

#[cfg(test)]
impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
impl Shared {
    /// What was written, taken.
    pub fn take(&self) -> Vec<u8> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}
