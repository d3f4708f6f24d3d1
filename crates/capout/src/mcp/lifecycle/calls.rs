//! The `bash` calls that run, each with the way to end it, so that the end
//! of the input and a signal that ends the server tell them first.

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

use crate::command::Stop;
use crate::mcp::notice;

/// The commands that `bash` calls are running, so that a signal that ends
/// the server waits until they have been told.
#[derive(Default)]
pub struct Calls {
    state: Mutex<CallState>,
    done: Condvar,
}

#[derive(Default)]
struct CallState {
    running: usize,
    /// The client is gone: no command starts any more.
    closed: bool,
    /// The number of the next call.
    next: u64,
    /// How to end each running call, by its number.
    stops: HashMap<u64, Arc<Stop>>,
}

impl Calls {
    fn lock(&self) -> std::sync::MutexGuard<'_, CallState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Counts a call while it runs; `None` once the client is gone.
    pub fn enter(self: &Arc<Self>) -> Result<CallGuard, String> {
        let stop = Arc::new(Stop::new().map_err(notice::cannot_run)?);
        let mut state = self.lock();
        if state.closed {
            return Err(notice::ENDING.into());
        }
        state.running += 1;
        let number = state.next;
        state.next += 1;
        state.stops.insert(number, Arc::clone(&stop));
        Ok(CallGuard { calls: Arc::clone(self), number, stop })
    }

    /// Starts no more calls and tells those that run to end; whether
    /// some still run.
    pub fn close(&self) -> bool {
        let mut state = self.lock();
        state.closed = true;
        for stop in state.stops.values() {
            stop.stop();
        }
        state.running > 0
    }

    /// Waits until no call runs, at most `limit`.
    pub fn wait_idle(&self, limit: Duration) {
        let state = self.lock();
        let _ = self.done.wait_timeout_while(state, limit, |s| s.running > 0);
    }
}

/// A running call: its number, which marks its processes, and how to
/// end it.
pub struct CallGuard {
    calls: Arc<Calls>,
    /// The call's number.
    pub number: u64,
    /// How to end it.
    pub stop: Arc<Stop>,
}

impl Drop for CallGuard {
    fn drop(&mut self) {
        let mut state = self.calls.lock();
        state.running -= 1;
        state.stops.remove(&self.number);
        drop(state);
        self.calls.done.notify_all();
    }
}

/// Ends a call whose reply is no longer awaited (the request was
/// cancelled, or the server is ending), unless disarmed.
pub struct StopOnDrop(pub Option<Arc<Stop>>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        if let Some(stop) = self.0.take() {
            stop.stop();
        }
    }
}
