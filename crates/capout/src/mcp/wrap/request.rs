//! The client's lines on their way to the server, byte for byte. Each
//! request is noted ([`Pending`](super::pending::Pending)) before the
//! server can have read the whole of it, so that its answer is known;
//! a call of `capout_page` is the proxy's own, answered here; and once
//! the server is gone, a request is answered with why.
//!
//! A line is walked as it comes and held only until it is known where it
//! goes (its method, and for `tools/call` the tool's name): at most
//! [`HOLD`] bytes. Past that it goes to the server.

use std::io::Write;
use std::sync::Arc;

use super::json::{Event, Take, Walker};
use super::notice::PAGE_TOOL;
use super::page;
use super::pending::Kind;
use super::session::{self, Session};

/// The most bytes of a line held before it is known where it goes.
pub const HOLD: usize = 1 << 20;

/// Where a line goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Route {
    /// Not known yet: held.
    Held,
    Server,
    /// A call of `capout_page`.
    Page,
}

/// The client's lines, read and given on.
pub struct Requests {
    session: Arc<Session>,
    walker: Walker,
    route: Route,
    held: Vec<u8>,
    id: Option<Vec<u8>>,
    method: Option<String>,
    name: Option<String>,
    params_ended: bool,
    cursor: bool,
}

impl Requests {
    /// The lines of the client of `session`.
    pub fn new(session: Arc<Session>) -> Requests {
        Requests {
            session,
            walker: Walker::new(),
            route: Route::Held,
            held: Vec::new(),
            id: None,
            method: None,
            name: None,
            params_ended: false,
            cursor: false,
        }
    }

    /// Reads the next bytes of the client's input; what goes to the
    /// server is written to `server` (whose errors are the server's end,
    /// told by its output).
    pub fn feed(&mut self, mut input: &[u8], server: &mut dyn Write) {
        while !input.is_empty() {
            let newline = memchr::memchr(b'\n', input);
            let (part, rest) = match newline {
                Some(at) => (&input[..=at], &input[at + 1..]),
                None => (input, &[][..]),
            };
            let content = &part[..part.len() - usize::from(newline.is_some())];
            self.walk(content);
            if newline.is_some() {
                self.end_line(part, server);
            } else {
                self.forward(part, server);
            }
            input = rest;
        }
    }

    fn walk(&mut self, part: &[u8]) {
        let mut at = 0;
        loop {
            match self.walker.step(part, &mut at) {
                Event::More | Event::Error => break,
                Event::Value { first, .. } => {
                    let walker = &self.walker;
                    let take = match walker.depth() {
                        0 if first == b'{' => Take::Enter,
                        1 => match walker.key(0) {
                            Some(b"id" | b"method") => Take::Capture,
                            Some(b"params") if first == b'{' => Take::Enter,
                            _ => Take::Skip,
                        },
                        2 if walker.key(0) == Some(b"params") => match walker.key(1) {
                            Some(b"name") => Take::Capture,
                            Some(b"cursor") => {
                                self.cursor = true;
                                Take::Skip
                            }
                            _ => Take::Skip,
                        },
                        _ => Take::Skip,
                    };
                    self.walker.take(take);
                }
                Event::End { .. } => {
                    let walker = &self.walker;
                    let text = || walker.captured().and_then(|c| serde_json::from_slice::<String>(c).ok());
                    match (walker.depth(), walker.key(0), walker.key(1)) {
                        (1, Some(b"id"), _) => self.id = walker.captured().map(<[u8]>::to_vec),
                        (1, Some(b"method"), _) => self.method = text(),
                        (1, Some(b"params"), _) => self.params_ended = true,
                        (2, Some(b"params"), Some(b"name")) => self.name = text(),
                        _ => {}
                    }
                }
                Event::Key { .. } | Event::Bytes(_) => {}
            }
        }
        if self.route == Route::Held {
            self.route = self.decide();
        }
    }

    /// Where the line goes, when that is known.
    fn decide(&self) -> Route {
        let ended = self.walker.complete() || self.walker.failed();
        match self.method.as_deref() {
            Some("tools/call") => match self.name.as_deref() {
                Some(PAGE_TOOL) => Route::Page,
                Some(_) => Route::Server,
                None if self.params_ended || ended => Route::Server,
                None => Route::Held,
            },
            Some(_) => Route::Server,
            None if ended => Route::Server,
            None => Route::Held,
        }
    }

    /// Gives the part on where the line goes, or holds it.
    fn forward(&mut self, part: &[u8], server: &mut dyn Write) {
        if self.route == Route::Held && self.held.len() + part.len() > HOLD {
            self.route = Route::Server;
        }
        match self.route {
            Route::Held | Route::Page => {
                if self.held.len() + part.len() <= HOLD {
                    self.held.extend_from_slice(part);
                }
            }
            Route::Server => {
                if self.session.pending().gone.is_none() {
                    let _ = server.write_all(&std::mem::take(&mut self.held));
                    let _ = server.write_all(part);
                }
            }
        }
    }

    /// The line has ended with `part`: it is noted and given on, or
    /// answered here.
    fn end_line(&mut self, part: &[u8], server: &mut dyn Write) {
        let request = self.id.clone().filter(|_| self.method.is_some());
        if self.route == Route::Page
            && let Some(id) = &request
        {
            self.held.extend_from_slice(part);
            page::answer(Arc::clone(&self.session), id.clone(), std::mem::take(&mut self.held));
        } else {
            // Noted before the server can read the line's end, and so
            // before it can answer.
            let mut pending = self.session.pending();
            if let Some(gone) = pending.gone.clone() {
                drop(pending);
                self.held.clear();
                // A notification or an answer of the client's is dropped.
                if let Some(id) = &request {
                    let _ = self.session.out.line(|w| w.write_all(&session::error_line(id, &gone)));
                }
            } else {
                if let (Some(id), Some(method)) = (&request, &self.method) {
                    let tool = self.name.as_deref().and_then(|name| self.session.caps.for_tool(name));
                    pending.insert(id, Kind::of(method, tool, !self.cursor));
                    if let (Some(name), "tools/call", Some(_)) = (&self.name, method.as_str(), tool) {
                        self.session.note_call(id, name);
                    }
                }
                drop(pending);
                self.route = Route::Server;
                self.forward(part, server);
                let _ = server.flush();
            }
        }
        self.walker.reset();
        self.route = Route::Held;
        self.held.clear();
        self.id = None;
        self.method = None;
        self.name = None;
        self.params_ended = false;
        self.cursor = false;
    }
}
