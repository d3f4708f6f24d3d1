//! What the proxy's threads share: the requests awaiting their answer,
//! the caps, the folder of saved results, the writer to the client, and
//! how the server is ended when the session cannot go on.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use serde_json::Value;

use super::caps::Caps;
use super::out::Out;
use super::pending::{Gone, Pending};
use crate::mcp::saved::Saved;
use crate::mcp::tools::Tools;

/// JSON-RPC's code for an error of the server (its range is
/// -32000..-32099): the server cannot be asked.
pub const SERVER_ERROR: i64 = -32000;

/// The session's shared state.
pub struct Session {
    pub pending: Mutex<Pending>,
    pub caps: Caps,
    /// The folder of saved results, and its bound.
    pub saved: Saved,
    pub dir: PathBuf,
    pub out: Out,
    /// The `capout_page` tool, as JSON, for tools/list.
    pub page_tool: Vec<u8>,
    /// The server's command line, as messages name it.
    pub command: String,
    /// The byte cap of an image, audio or embedded resource.
    pub media_cap: u64,
    /// What pages the saved results (`read`, with the folder as root).
    pub pager: Tools,
    /// The client's input has ended: the server's end is the session's.
    pub ending: AtomicBool,
    /// The server could not be asked while the session went on (it could
    /// not start, it ended, its tools could not be told apart), or left a
    /// request unanswered.
    pub failed: AtomicBool,
    /// Ends the server, when the session cannot go on with it.
    stop: Mutex<Option<Box<dyn FnOnce() + Send>>>,
    /// The tool and start of each call awaiting its answer, by id, for
    /// the ledger (when it is on).
    calls: Mutex<std::collections::HashMap<Vec<u8>, (String, std::time::Instant)>>,
}

impl Session {
    /// A session over the folder `dir` (canonical), its saved results
    /// at most `saved_max` bytes in all, bounded by `caps`, writing to
    /// `out`; `command` names the server.
    pub fn new(caps: Caps, dir: PathBuf, saved_max: u64, pager: Tools, out: Out, command: String) -> Session {
        let page_tool = super::page::tool(&pager, saved_max);
        let saved = Saved::new(dir.clone(), saved_max);
        Session {
            pending: Mutex::default(),
            caps,
            saved,
            dir,
            out,
            page_tool,
            command,
            media_cap: super::media::MEDIA_CAP,
            pager,
            ending: AtomicBool::new(false),
            failed: AtomicBool::new(false),
            stop: Mutex::new(None),
            calls: Mutex::default(),
        }
    }

    /// Notes the call `id` of the tool `name`, for its line in the ledger.
    /// At most `MAX_NOTED` wait: a client that never reads its answers
    /// costs no more.
    pub fn note_call(&self, id: &[u8], name: &str) {
        const MAX_NOTED: usize = 4096;
        if !crate::ledger::enabled() {
            return;
        }
        let mut calls = self.calls.lock().unwrap_or_else(PoisonError::into_inner);
        if calls.len() < MAX_NOTED {
            calls.insert(id.to_vec(), (name.to_owned(), std::time::Instant::now()));
        }
    }

    /// The tool and start of the call `id`, once it is answered.
    pub fn answered(&self, id: &[u8]) -> Option<(String, std::time::Instant)> {
        self.calls.lock().unwrap_or_else(PoisonError::into_inner).remove(id)
    }

    /// The requests awaiting their answer, locked.
    pub fn pending(&self) -> MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Says how to end the server.
    pub fn on_stop(&self, stop: Box<dyn FnOnce() + Send>) {
        *self.stop.lock().unwrap_or_else(PoisonError::into_inner) = Some(stop);
    }

    /// The server is gone, or must go, for `why`: every request that
    /// waits gets the error, and every request after it; the server is
    /// ended. Only the first reason counts.
    pub fn fail(&self, why: &Gone) {
        let mut pending = self.pending();
        if pending.gone.is_some() {
            return;
        }
        let ids = pending.drain();
        pending.gone = Some(why.clone());
        // Said before the answers: the client may end the session as soon
        // as it reads them.
        let ending = self.ending.load(Ordering::SeqCst);
        if !ending {
            eprintln!("capout: --mcp-wrap: {}", why.message);
        }
        // A request left unanswered fails the session, the client gone
        // or not.
        if !ending || !ids.is_empty() {
            self.failed.store(true, Ordering::SeqCst);
        }
        // Written while locked: a request that comes meanwhile waits and
        // then finds the server gone, so none is answered twice or never.
        for id in ids {
            let _ = self.out.line(|w| w.write_all(&error_line(&id, why)));
        }
        drop(pending);
        let stop = self.stop.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(stop) = stop {
            stop();
        }
    }
}

/// A JSON-RPC error answering the request of id `id` (its raw bytes),
/// with the server's last stderr lines as its data, when there are some.
pub fn error_line(id: &[u8], why: &Gone) -> Vec<u8> {
    let message = super::notice::with_stderr(&why.message, why.stderr.as_deref());
    let data = why.stderr.as_ref().map(|lines| serde_json::json!({ "stderr": lines }));
    error_with(id, SERVER_ERROR, &message, data)
}

/// A JSON-RPC error line of `code` and `message` for the id `id`.
pub fn error_with(id: &[u8], code: i64, message: &str, data: Option<Value>) -> Vec<u8> {
    let mut error = serde_json::json!({ "code": code, "message": message });
    if let Some(data) = data {
        error["data"] = data;
    }
    let mut line = b"{\"jsonrpc\":\"2.0\",\"id\":".to_vec();
    line.extend_from_slice(id);
    line.extend_from_slice(b",\"error\":");
    line.extend_from_slice(error.to_string().as_bytes());
    line.extend_from_slice(b"}\n");
    line
}

/// A result line for the id `id` (raw), `result` being JSON.
pub fn result_line(id: &[u8], result: &Value) -> Vec<u8> {
    let mut line = b"{\"jsonrpc\":\"2.0\",\"id\":".to_vec();
    line.extend_from_slice(id);
    line.extend_from_slice(b",\"result\":");
    line.extend_from_slice(result.to_string().as_bytes());
    line.extend_from_slice(b"}\n");
    line
}
