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
//! that none is cut into another. Every reply carries its request's `id`
//! byte for byte as it came, whatever rmcp can hold (see [`Ids`]).

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::model::{JsonRpcMessage, NumberOrString};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde::de::IgnoredAny;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

use super::notice;

/// The longest request line read, without its newline: 4 MiB.
pub const MAX_LINE: usize = 4 << 20;

/// JSON-RPC 2.0's code for input that is not JSON.
const PARSE_ERROR: i64 = -32700;
/// JSON-RPC 2.0's code for JSON that is not a valid request.
const INVALID_REQUEST: i64 = -32600;

/// The method of the notification that cancels a request by its id.
const CANCELLED: &str = "notifications/cancelled";

/// What a cancellation that names no pending request gives rmcp in its
/// place: a string, which no id given to rmcp ever is (they are all
/// numbers), so that it cancels nothing.
const NO_REQUEST: &[u8] = b"\"\"";

/// Messages one line each from `R`, replies on `W`.
pub struct Lines<R, W> {
    input: BufReader<R>,
    /// The line read so far, at most [`MAX_LINE`] bytes.
    line: Vec<u8>,
    /// Dropping the rest of a line that is too long.
    skipping: bool,
    /// The id found in the start of the line being dropped.
    skipped_id: Option<Box<str>>,
    /// The ids of the requests that rmcp has and has not answered.
    ids: Ids,
    out: Arc<Mutex<W>>,
}

/// What the next line is.
enum Line {
    /// In `line`, without its newline.
    Whole,
    /// Too long, with the id found in its start, as it came.
    TooLong(Option<Box<str>>),
}

/// The ids of the requests that rmcp has not answered yet.
///
/// rmcp holds an id as an `i64` or a string and writes it back as it
/// holds it: `123456789012345678901234567890` would not parse, `1e400` not
/// even as JSON's number, and `1.0` or `"\u0041"` would come back as `1`
/// and `"A"`. So each request reaches rmcp with a number of the
/// transport's own, and its reply gets the id back as it came, byte for
/// byte. Every request is numbered, not only those rmcp cannot hold, so
/// that no number given to rmcp is ever a client's id too. An entry lives
/// from the request to its reply, or to its cancellation (after which rmcp
/// sends no reply).
#[derive(Default)]
struct Ids {
    next: i64,
    /// By the number rmcp has: the id as it came, and what it stands for.
    pending: HashMap<i64, (Box<str>, Key)>,
    /// The number of the latest pending request with each id, by what the
    /// id stands for, which a cancellation names.
    by_key: HashMap<Key, i64>,
}

/// What an id stands for: a string, whatever its escapes; a number, as
/// written.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    Text(String),
    Number(Box<str>),
}

impl Key {
    /// The key of `raw`, an id as it came (a JSON string or number).
    fn of(raw: &str) -> Key {
        match serde_json::from_str::<String>(raw) {
            Ok(text) => Key::Text(text),
            Err(_) => Key::Number(raw.into()),
        }
    }
}

impl Ids {
    /// A number no pending request has.
    fn number(&mut self) -> i64 {
        let number = self.next;
        self.next = self.next.wrapping_add(1);
        number
    }

    /// Notes that rmcp has request `number`, whose id came as `raw`.
    fn insert(&mut self, number: i64, raw: Box<str>) {
        let key = Key::of(&raw);
        self.by_key.insert(key.clone(), number);
        self.pending.insert(number, (raw, key));
    }

    /// The id as it came of request `number`, which is answered now (or
    /// cancelled): its entry goes.
    fn remove(&mut self, number: i64) -> Option<Box<str>> {
        let (raw, key) = self.pending.remove(&number)?;
        if self.by_key.get(&key) == Some(&number) {
            self.by_key.remove(&key);
        }
        Some(raw)
    }

    /// The number of the pending request whose id is `raw`.
    fn find(&self, raw: &str) -> Option<i64> {
        self.by_key.get(&Key::of(raw)).copied()
    }
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
            ids: Ids::default(),
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

    /// Writes an error reply, beside what rmcp writes; `id` as it came.
    fn reply(&self, id: Option<&str>, code: i64, message: &str) {
        let id = id.unwrap_or("null");
        let message = serde_json::Value::from(message);
        let text = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"error\":{{\"code\":{code},\"message\":{message}}}}}\n"
        );
        let out = Arc::clone(&self.out);
        // Not awaited here: rmcp may drop `receive` at an await, and the
        // reply with it.
        tokio::spawn(async move { write_line(&out, text.as_bytes()).await });
    }

    /// A message of rmcp's as a line, the id of a reply as it came.
    fn encode(&mut self, item: &TxJsonRpcMessage<RoleServer>) -> std::io::Result<Vec<u8>> {
        let mut line = serde_json::to_vec(item)?;
        let answered = match item {
            JsonRpcMessage::Response(response) => Some(&response.id),
            JsonRpcMessage::Error(error) => error.id.as_ref(),
            JsonRpcMessage::Request(_) | JsonRpcMessage::Notification(_) => None,
        };
        if let Some(&NumberOrString::Number(number)) = answered
            && let Some(raw) = self.ids.remove(number)
            && let Some(at) = member(&line, "id")
        {
            line.splice(at, raw.bytes());
        }
        line.push(b'\n');
        Ok(line)
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
        // Encoded now, not in the future: rmcp calls `send` for a reply
        // and handles the next message only after, so a cancellation that
        // comes later finds its entry gone.
        let line = self.encode(&item);
        let out = Arc::clone(&self.out);
        async move { write_line(&out, &line?).await }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            match self.next_line().await? {
                Line::TooLong(Some(id)) => self.reply(Some(&id), INVALID_REQUEST, &notice::too_long()),
                Line::TooLong(None) => self.reply(None, PARSE_ERROR, &notice::too_long_no_id()),
                Line::Whole => {
                    let line = std::mem::take(&mut self.line);
                    if let Some(message) = self.message(line) {
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
    /// blank, or was answered here. A request reaches rmcp with a number
    /// of [`Ids`] for its id, and a cancellation with the number of the
    /// request it names.
    fn message(&mut self, mut line: Vec<u8>) -> Option<RxJsonRpcMessage<RoleServer>> {
        if line.ends_with(b"\r") {
            line.pop();
        }
        // RFC 8259 lets a parser pass over a byte order mark.
        if line.starts_with(b"\xEF\xBB\xBF") {
            line.drain(..3);
        }
        if line.trim_ascii().is_empty() {
            return None;
        }
        // JSON at all? Checked without converting a number, so that an id
        // of `1e400` is JSON, as it is.
        if serde_json::from_slice::<IgnoredAny>(&line).is_err() {
            self.reply(None, PARSE_ERROR, notice::NOT_JSON);
            return None;
        }
        let id = member(&line, "id").and_then(|at| id_at(&line, at.clone()).map(|raw| (at, raw)));
        let method = member(&line, "method");
        let mut request = None;
        if let (Some((at, raw)), Some(_)) = (&id, &method) {
            let number = self.ids.number();
            line.splice(at.clone(), number.to_string().into_bytes());
            request = Some((number, raw.clone()));
        } else if method.as_ref().is_some_and(|at| {
            serde_json::from_slice::<String>(&line[at.clone()]).ok().as_deref() == Some(CANCELLED)
        }) {
            self.name_cancelled(&mut line);
        }
        match serde_json::from_slice(&line) {
            Ok(message) => {
                if let Some((number, raw)) = request {
                    self.ids.insert(number, raw);
                }
                Some(message)
            }
            // A notification gets no reply, not even an error (and rmcp
            // passes over those it does not know).
            Err(_) if method.is_some() && member(&line, "id").is_none() => None,
            Err(_) => {
                self.reply(id.as_ref().map(|(_, raw)| &**raw), INVALID_REQUEST, notice::NOT_A_MESSAGE);
                None
            }
        }
    }

    /// Puts in `line`, a cancellation, the number of the request it names
    /// in place of its id; of a request no longer pending, an id that
    /// names none. rmcp sends no reply to a request once cancelled: its
    /// entry goes now.
    fn name_cancelled(&mut self, line: &mut Vec<u8>) {
        let Some(params) = member(line, "params") else { return };
        let Some(at) = member(&line[params.clone()], "requestId") else { return };
        let at = params.start + at.start..params.start + at.end;
        let Some(raw) = id_at(line, at.clone()) else { return };
        match self.ids.find(&raw) {
            Some(number) => {
                self.ids.remove(number);
                line.splice(at, number.to_string().into_bytes());
            }
            None => {
                line.splice(at, NO_REQUEST.iter().copied());
            }
        }
    }
}

/// The id at `at` in `text`, as it came, when it is one: a JSON number or
/// string (checked without converting it).
fn id_at(text: &[u8], at: Range<usize>) -> Option<Box<str>> {
    let raw = text.get(at)?;
    let id = matches!(raw.first(), Some(b'"' | b'-' | b'0'..=b'9'));
    (id && serde_json::from_slice::<IgnoredAny>(raw).is_ok())
        .then(|| std::str::from_utf8(raw).ok().map(Box::from))
        .flatten()
}

/// The `id` of a request from the start of its line, as it came, when
/// that start holds it whole: a number or a string, a member of the
/// outermost object.
fn id_in(start: &[u8]) -> Option<Box<str>> {
    id_at(start, member(start, "id")?)
}

/// Where the value of the member `name` of the object that `text` starts
/// with lies; `None` when `text` is no object, or ends before that value
/// does. Only the outermost object's own members count.
fn member(text: &[u8], name: &str) -> Option<Range<usize>> {
    let mut at = skip_space(text, 0);
    if text.get(at) != Some(&b'{') {
        return None;
    }
    at += 1;
    loop {
        at = skip_space(text, at);
        let key_end = value_end(text, at).filter(|_| text.get(at) == Some(&b'"'))?;
        let key: String = serde_json::from_slice(&text[at..key_end]).ok()?;
        at = skip_space(text, key_end);
        if text.get(at) != Some(&b':') {
            return None;
        }
        at = skip_space(text, at + 1);
        let end = value_end(text, at)?;
        if key == name {
            return Some(at..end);
        }
        at = skip_space(text, end);
        if text.get(at) != Some(&b',') {
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
    use rmcp::model::{ClientNotification, ErrorData, ServerResult};
    use tokio::io::AsyncReadExt;

    #[test]
    fn the_id_is_read_from_the_start_of_a_line() {
        assert_eq!(
            id_in(br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"x":"#),
            Some("7".into())
        );
        assert_eq!(id_in(br#"{ "a" : {"id": 1, "b": "}"}, "id" : "x\"y" , "#), Some(r#""x\"y""#.into()));
        assert_eq!(id_in(br#"{"id":1e400,"params":"aaaa"#), Some("1e400".into()));
        assert_eq!(id_in(br#"{"method":"x","params":"aaaa"#), None);
        assert_eq!(id_in(br#"{"id":7"#), None);
        assert_eq!(id_in(br#"{"id":null,"#), None);
        assert_eq!(id_in(br#"{"id":12x,"#), None);
        assert_eq!(id_in(b"[1,2"), None);
        assert_eq!(id_in(b""), None);
    }

    /// Runs `test` on a runtime of its own, with the transport over
    /// `input`; gives what it wrote.
    fn with_lines(
        input: &'static [u8],
        test: impl AsyncFnOnce(&mut Lines<&'static [u8], tokio::io::DuplexStream>),
    ) -> String {
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        runtime.block_on(async {
            let (out, mut written) = tokio::io::duplex(1 << 20);
            let mut lines = Lines::new(input, out);
            test(&mut lines).await;
            // The error replies are written by tasks of their own.
            tokio::task::yield_now().await;
            drop(lines);
            let mut replies = String::new();
            written.read_to_string(&mut replies).await.unwrap();
            replies
        })
    }

    /// The ids that rmcp alone would give back otherwise, or not at all.
    const IDS: [&str; 7] = [
        "123456789012345678901234567890",
        "18446744073709551616",
        "-9223372036854775809",
        "1e400",
        "1.0",
        r#""\u0041""#,
        "7",
    ];

    #[test]
    fn a_request_id_is_echoed_byte_for_byte() {
        let input =
            IDS.map(|id| format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n")).concat();
        let written = with_lines(input.leak().as_bytes(), async |lines| {
            for _ in IDS {
                let Some(JsonRpcMessage::Request(request)) = lines.receive().await else {
                    panic!("no request")
                };
                assert!(matches!(request.id, NumberOrString::Number(_)), "{:?}", request.id);
                lines.send(JsonRpcMessage::response(ServerResult::empty(()), request.id)).await.unwrap();
            }
            assert!(lines.ids.pending.is_empty() && lines.ids.by_key.is_empty());
        });
        let expected =
            IDS.map(|id| format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{}}}}\n")).concat();
        assert_eq!(written, expected);
    }

    #[test]
    fn an_error_reply_echoes_the_id_byte_for_byte() {
        let input = b"{\"jsonrpc\":\"2.0\",\"id\":1e400,\"method\":\"x\"}\n{\"jsonrpc\":\"2.0\",\"id\":2e400,\"nomethod\":1}\n";
        let written = with_lines(input, async |lines| {
            let Some(JsonRpcMessage::Request(request)) = lines.receive().await else { panic!("no request") };
            let error = ErrorData::method_not_found::<rmcp::model::PingRequestMethod>();
            lines.send(JsonRpcMessage::error(error, Some(request.id))).await.unwrap();
            assert!(lines.receive().await.is_none());
        });
        let lines: Vec<&str> = written.lines().collect();
        assert!(lines[0].starts_with(r#"{"jsonrpc":"2.0","id":1e400,"error":"#), "{written}");
        assert_eq!(
            lines[1],
            r#"{"jsonrpc":"2.0","id":2e400,"error":{"code":-32600,"message":"Invalid Request: not a JSON-RPC 2.0 message"}}"#
        );
    }

    /// The request id a cancellation gave rmcp.
    fn cancelled_id(message: Option<RxJsonRpcMessage<RoleServer>>) -> Option<NumberOrString> {
        let Some(JsonRpcMessage::Notification(notification)) = message else { panic!("no notification") };
        let ClientNotification::CancelledNotification(cancelled) = notification.notification else {
            panic!("not a cancellation")
        };
        cancelled.params.request_id
    }

    #[test]
    fn a_cancellation_names_the_request_by_the_number_rmcp_has() {
        let input = concat!(
            r#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}"#,
            "\n",
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":123456789012345678901234567890}}"#,
            "\n",
            // Once cancelled, or never sent: it names no request rmcp has.
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":123456789012345678901234567890}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":0}}"#,
            "\n",
        );
        with_lines(input.as_bytes(), async |lines| {
            let Some(JsonRpcMessage::Request(request)) = lines.receive().await else { panic!("no request") };
            assert_eq!(cancelled_id(lines.receive().await), Some(request.id));
            assert!(lines.ids.pending.is_empty());
            assert_eq!(cancelled_id(lines.receive().await), Some(NumberOrString::String("".into())));
            assert_eq!(cancelled_id(lines.receive().await), Some(NumberOrString::String("".into())));
        });
    }

    #[test]
    fn a_response_of_the_client_keeps_its_id() {
        let input = b"{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n";
        with_lines(input, async |lines| {
            let Some(JsonRpcMessage::Response(response)) = lines.receive().await else {
                panic!("no response")
            };
            assert_eq!(response.id, NumberOrString::Number(3));
        });
    }
}
