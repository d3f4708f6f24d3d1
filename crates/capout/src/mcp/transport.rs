//! The server's side of the stdio transport: one JSON-RPC message a line.
//!
//! rmcp's own line transport drops a line that is not JSON, or longer
//! than its bound, without a reply, and a client waits for that reply
//! for good. Here every request gets one, as JSON-RPC 2.0 says: a line
//! that is not JSON gets a parse error (`-32700`, `id` null); a line
//! longer than [`MAX_LINE`] an invalid-request error (`-32600`) with its
//! `id` when the `id` is in the part read, else a parse error; JSON that
//! is no message an invalid-request error. No more than [`MAX_LINE`]
//! bytes of a line are ever held: the rest is read and dropped. Replies,
//! rmcp's and these, go through one writer, a whole line at a time, so
//! that none is cut into another.

use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

use super::notice;

/// The longest request line read, without its newline: 4 MiB.
pub const MAX_LINE: usize = 4 << 20;

/// JSON-RPC 2.0's code for input that is not JSON.
const PARSE_ERROR: i64 = -32700;
/// JSON-RPC 2.0's code for JSON that is not a valid request.
const INVALID_REQUEST: i64 = -32600;

/// Messages one line each from `R`, replies on `W`.
pub struct Lines<R, W> {
    input: BufReader<R>,
    /// The line read so far, at most [`MAX_LINE`] bytes.
    line: Vec<u8>,
    /// Dropping the rest of a line that is too long.
    skipping: bool,
    /// The id found in the start of the line being dropped.
    skipped_id: Option<Value>,
    out: Arc<Mutex<W>>,
}

/// What the next line is.
enum Line {
    /// In `line`, without its newline.
    Whole,
    /// Too long, with the id found in its start.
    TooLong(Option<Value>),
}

impl<R, W> Lines<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// Reads requests from `input` and writes replies to `out`.
    pub fn new(input: R, out: W) -> Self {
        Lines {
            input: BufReader::new(input),
            line: Vec::new(),
            skipping: false,
            skipped_id: None,
            out: Arc::new(Mutex::new(out)),
        }
    }

    /// The next line; `None` at the end of the input. rmcp may drop the
    /// future of `receive` at any await: the state lives in `self`, and
    /// changes only between awaits.
    async fn next_line(&mut self) -> Option<Line> {
        loop {
            let available = self.input.fill_buf().await.ok()?;
            if available.is_empty() {
                // A last line without its newline is a line still.
                return (!self.skipping && !self.line.is_empty()).then_some(Line::Whole);
            }
            let newline = memchr::memchr(b'\n', available);
            let content = newline.unwrap_or(available.len());
            let take = newline.map_or(available.len(), |at| at + 1);
            let done = if self.skipping {
                newline.map(|_| Line::TooLong(self.skipped_id.take()))
            } else if self.line.len() + content > MAX_LINE {
                let room = MAX_LINE - self.line.len();
                self.line.extend_from_slice(&available[..room]);
                let id = id_in(&self.line);
                self.line = Vec::new();
                if newline.is_some() {
                    Some(Line::TooLong(id))
                } else {
                    self.skipping = true;
                    self.skipped_id = id;
                    None
                }
            } else {
                self.line.extend_from_slice(&available[..content]);
                newline.map(|_| Line::Whole)
            };
            self.input.consume(take);
            if done.is_some() {
                self.skipping = false;
                return done;
            }
        }
    }

    /// Writes an error reply, beside what rmcp writes.
    fn reply(&self, id: Option<Value>, code: i64, message: &str) {
        let id = id.map_or_else(|| "null".to_owned(), |id| id.to_string());
        let message = Value::from(message);
        let text = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"error\":{{\"code\":{code},\"message\":{message}}}}}\n"
        );
        let out = Arc::clone(&self.out);
        // Not awaited here: rmcp may drop `receive` at an await, and the
        // reply with it.
        tokio::spawn(async move { write_line(&out, text.as_bytes()).await });
    }
}

/// Writes one whole line and flushes it, holding the writer throughout.
async fn write_line<W: AsyncWrite + Unpin>(out: &Mutex<W>, line: &[u8]) -> std::io::Result<()> {
    let mut out = out.lock().await;
    out.write_all(line).await?;
    out.flush().await
}

impl<R, W> Transport<RoleServer> for Lines<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let out = Arc::clone(&self.out);
        async move {
            let mut line = serde_json::to_vec(&item)?;
            line.push(b'\n');
            write_line(&out, &line).await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            match self.next_line().await? {
                Line::TooLong(Some(id)) => self.reply(Some(id), INVALID_REQUEST, &notice::too_long()),
                Line::TooLong(None) => self.reply(None, PARSE_ERROR, &notice::too_long_no_id()),
                Line::Whole => {
                    let line = std::mem::take(&mut self.line);
                    if let Some(message) = self.message(&line) {
                        return Some(message);
                    }
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.out.lock().await.flush().await
    }
}

impl<R, W> Lines<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// The message on a line, or `None` when there is none: the line was
    /// blank, or was answered here.
    fn message(&self, line: &[u8]) -> Option<RxJsonRpcMessage<RoleServer>> {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        // RFC 8259 lets a parser pass over a byte order mark.
        let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        if line.trim_ascii().is_empty() {
            return None;
        }
        let e = match serde_json::from_slice(line) {
            Ok(message) => return Some(message),
            Err(e) => e,
        };
        if matches!(e.classify(), serde_json::error::Category::Syntax | serde_json::error::Category::Eof) {
            self.reply(None, PARSE_ERROR, notice::NOT_JSON);
            return None;
        }
        let Ok(value) = serde_json::from_slice::<Value>(line) else {
            self.reply(None, PARSE_ERROR, notice::NOT_JSON);
            return None;
        };
        let id = value.get("id").filter(|id| id.is_number() || id.is_string()).cloned();
        // A notification gets no reply, not even an error (and rmcp
        // passes over those it does not know).
        if id.is_none() && value.get("method").is_some() && value.get("id").is_none() {
            return None;
        }
        self.reply(id, INVALID_REQUEST, notice::NOT_A_MESSAGE);
        None
    }
}

/// The `id` of a request from the start of its line, when that start
/// holds it whole: a number or a string, a member of the outermost
/// object.
fn id_in(start: &[u8]) -> Option<Value> {
    let mut at = skip_space(start, 0);
    if start.get(at) != Some(&b'{') {
        return None;
    }
    at += 1;
    loop {
        at = skip_space(start, at);
        let key_end = value_end(start, at).filter(|_| start.get(at) == Some(&b'"'))?;
        let key: String = serde_json::from_slice(&start[at..key_end]).ok()?;
        at = skip_space(start, key_end);
        if start.get(at) != Some(&b':') {
            return None;
        }
        at = skip_space(start, at + 1);
        let end = value_end(start, at)?;
        if key == "id" {
            let id: Value = serde_json::from_slice(&start[at..end]).ok()?;
            return (id.is_number() || id.is_string()).then_some(id);
        }
        at = skip_space(start, end);
        if start.get(at) != Some(&b',') {
            return None;
        }
        at += 1;
    }
}

fn skip_space(text: &[u8], mut at: usize) -> usize {
    while text.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

/// Where the JSON value that starts at `at` ends; `None` when `text`
/// ends first. Only its extent is found: its parse comes later.
fn value_end(text: &[u8], at: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, &b) in text.iter().enumerate().skip(at) {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => {
                    in_string = false;
                    if depth == 0 {
                        return Some(i + 1);
                    }
                }
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            // A number, `true`, `false` or `null` ends where a delimiter starts.
            b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n' if depth == 0 => {
                return (i > at).then_some(i);
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_is_read_from_the_start_of_a_line() {
        assert_eq!(
            id_in(br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"x":"#),
            Some(Value::from(7))
        );
        assert_eq!(id_in(br#"{ "a" : {"id": 1, "b": "}"}, "id" : "x\"y" , "#), Some(Value::from("x\"y")));
        assert_eq!(id_in(br#"{"method":"x","params":"aaaa"#), None);
        assert_eq!(id_in(br#"{"id":7"#), None);
        assert_eq!(id_in(br#"{"id":null,"#), None);
        assert_eq!(id_in(b"[1,2"), None);
        assert_eq!(id_in(b""), None);
    }
}
