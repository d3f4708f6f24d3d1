//! A JSON walker fed one message line in pieces as they arrive, so that a
//! line of a gigabyte is never held: it says where each value starts and
//! ends, and the caller decides, value by value, to pass over it, to
//! enter it (an object's members, an array's items), to capture it
//! (a few KiB at most: an id, a name), or to have a string decoded piece
//! by piece.
//!
//! Only the values the caller enters are tracked on a stack: what is
//! passed over, however deep, costs one counter, so a hostile nesting
//! holds no memory.

/// What the caller does with a value that starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Take {
    /// Pass over it.
    Skip,
    /// Enter an object or an array: its members and items are values in
    /// turn. Anything else is captured.
    Enter,
    /// Keep its raw bytes, up to [`CAPTURE_MAX`], for [`Walker::captured`].
    Capture,
    /// A string's contents, decoded, in [`Event::Bytes`]; any other value
    /// is passed over.
    Decode,
}

/// What a step found. Offsets are in the piece given to that step.
#[derive(Debug, PartialEq, Eq)]
pub enum Event<'a> {
    /// A value starts at `at`, whose first byte is `first`; the caller
    /// says what to do with it ([`Walker::take`]) before the next step.
    Value { at: usize, first: u8 },
    /// A key of an entered object starts at `at` (its opening quote).
    Key { at: usize },
    /// The next decoded bytes of the string being decoded.
    Bytes(&'a [u8]),
    /// The current value ended just before `at`.
    End { at: usize },
    /// The piece is used up.
    More,
    /// The line is not JSON; the walker stays failed.
    Error,
}

/// The most bytes of a value that [`Take::Capture`] keeps.
pub const CAPTURE_MAX: usize = 4096;

/// The most bytes of a key that are kept: the keys asked about are short.
const KEY_MAX: usize = 64;

/// Decoded bytes are handed over in pieces of this size at most.
const DECODED_PIECE: usize = 32 * 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// A value, at the top or after `:` or after `,` in an array.
    Value,
    /// After `[`: an item or `]`.
    ArrayFirst,
    /// After `{`: a key or `}`.
    ObjectFirst,
    /// After `,` in an object: a key.
    KeyNext,
    /// In a key.
    Key,
    /// After a key: `:`.
    Colon,
    /// A value was announced; its first byte is next.
    Starting,
    /// In a string value.
    Str,
    /// In a number, `true`, `false` or `null`.
    Atom,
    /// In an object or array that is not entered.
    Skip,
    /// After a value: `,`, the end of the object or array, or, at the
    /// top, the end of the line.
    After,
    /// The top value has ended.
    Done,
    Failed,
}

/// An entered object or array.
#[derive(Debug)]
struct Frame {
    array: bool,
    /// The item being read, for an array.
    index: u64,
    /// The key of the member being read, for an object; `None` when too
    /// long to keep.
    key: Option<Vec<u8>>,
}

/// The escapes of a string being decoded.
#[derive(Clone, Copy, Debug, Default)]
struct Escape {
    /// After a backslash.
    backslash: bool,
    /// Hex digits of a `\u` still to come, and the value so far.
    hex: Option<(u8, u16)>,
    /// A high surrogate waiting for its low half.
    high: Option<u16>,
}

/// One line's walk.
#[derive(Debug)]
pub struct Walker {
    state: State,
    stack: Vec<Frame>,
    take: Take,
    /// The first byte of the value announced.
    first: u8,
    /// For a value passed over: the depth of brackets, and whether in a
    /// string, after a backslash.
    depth: u64,
    in_string: bool,
    escaped: bool,
    escape: Escape,
    /// Where the bytes of the value captured not yet kept start, in this piece.
    raw_from: usize,
    captured: Vec<u8>,
    overflow: bool,
    key: Vec<u8>,
    key_long: bool,
    decoded: Vec<u8>,
    /// `decoded` was handed over: emptied at the next step.
    handed: bool,
    /// The end of the current value, to announce after its last bytes.
    ending: Option<usize>,
}

impl Default for Walker {
    fn default() -> Self {
        Walker::new()
    }
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

impl Walker {
    /// A walker at the start of a line.
    pub fn new() -> Walker {
        Walker {
            state: State::Value,
            stack: Vec::new(),
            take: Take::Skip,
            first: 0,
            depth: 0,
            in_string: false,
            escaped: false,
            escape: Escape::default(),
            raw_from: 0,
            captured: Vec::new(),
            overflow: false,
            key: Vec::new(),
            key_long: false,
            decoded: Vec::new(),
            handed: false,
            ending: None,
        }
    }

    /// Starts the next line.
    pub fn reset(&mut self) {
        self.state = State::Value;
        self.stack.clear();
        self.ending = None;
        self.handed = false;
        self.decoded.clear();
    }

    /// Says what to do with the value just announced.
    pub fn take(&mut self, take: Take) {
        self.take = take;
    }

    /// Whether the line's one value has ended (only blanks may follow).
    pub fn complete(&self) -> bool {
        self.state == State::Done
    }

    /// Whether the line was found not to be JSON.
    pub fn failed(&self) -> bool {
        self.state == State::Failed
    }

    /// The raw bytes of the last value captured, or `None` when it was
    /// longer than [`CAPTURE_MAX`].
    pub fn captured(&self) -> Option<&[u8]> {
        (!self.overflow).then_some(&self.captured[..])
    }

    /// How deep the current value is: 0 for the top one.
    pub fn depth(&self) -> usize {
        self.stack.len()
    }

    /// The key that leads to the current value at `level` (0 is the top
    /// object's member), when that level is an object member whose key
    /// was kept.
    pub fn key(&self, level: usize) -> Option<&[u8]> {
        let frame = self.stack.get(level)?;
        if frame.array { None } else { frame.key.as_deref() }
    }

    /// The index that leads to the current value at `level`, when that
    /// level is an array item.
    pub fn index(&self, level: usize) -> Option<u64> {
        self.stack.get(level).filter(|f| f.array).map(|f| f.index)
    }

    /// Whether the current value's path is `path`: keys, or `None` for
    /// any array item.
    #[cfg(test)]
    pub fn at(&self, path: &[Option<&str>]) -> bool {
        path.len() == self.stack.len()
            && path.iter().enumerate().all(|(level, step)| match step {
                Some(key) => self.key(level) == Some(key.as_bytes()),
                None => self.index(level).is_some(),
            })
    }

    fn fail(&mut self) -> Event<'static> {
        self.state = State::Failed;
        Event::Error
    }

    /// The next event in `piece` from `*at` on; `*at` moves past what was
    /// read. A new piece starts at offset 0.
    pub fn step<'a>(&'a mut self, piece: &'a [u8], at: &mut usize) -> Event<'a> {
        if std::mem::take(&mut self.handed) {
            self.decoded.clear();
        }
        if let Some(end) = self.ending.take() {
            return self.ended(end);
        }
        loop {
            let Some(&b) = piece.get(*at) else { return self.piece_end(piece) };
            match self.state {
                State::Value | State::ArrayFirst => {
                    if is_space(b) {
                        *at += 1;
                    } else if b == b']' && self.state == State::ArrayFirst {
                        *at += 1;
                        return self.close(*at);
                    } else {
                        self.state = State::Starting;
                        self.first = b;
                        self.take = Take::Skip;
                        return Event::Value { at: *at, first: b };
                    }
                }
                State::Starting => {
                    if let Some(event) = self.start(b, at) {
                        return event;
                    }
                }
                State::Str => {
                    if self.take == Take::Decode {
                        let mut decoded = std::mem::take(&mut self.decoded);
                        let ended = decode(&mut self.escape, piece, at, &mut decoded, DECODED_PIECE);
                        self.decoded = decoded;
                        if ended {
                            return self.value_end(piece, *at);
                        }
                        if self.decoded.len() >= DECODED_PIECE {
                            self.handed = true;
                            return Event::Bytes(&self.decoded);
                        }
                    } else if let Some(end) = string_end(&mut self.escaped, piece, at) {
                        return self.value_end(piece, end);
                    }
                }
                State::Atom => {
                    if is_space(b) || matches!(b, b',' | b']' | b'}') {
                        return self.value_end(piece, *at);
                    }
                    if !(b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.')) {
                        return self.fail();
                    }
                    *at += 1;
                }
                State::Skip => {
                    if let Some(end) = self.skip(piece, at) {
                        return self.value_end(piece, end);
                    }
                }
                State::Failed => return Event::Error,
                _ => {
                    if let Some(event) = self.between(b, piece, at) {
                        return event;
                    }
                }
            }
        }
    }

    /// A step between values (keys, `:`, `,`, the end of an object or
    /// array, the blanks after the top value); an event when one comes.
    fn between(&mut self, b: u8, piece: &[u8], at: &mut usize) -> Option<Event<'static>> {
        match self.state {
            State::ObjectFirst | State::KeyNext => {
                if is_space(b) {
                    *at += 1;
                } else if b == b'}' && self.state == State::ObjectFirst {
                    *at += 1;
                    return Some(self.close(*at));
                } else if b == b'"' {
                    let key_at = *at;
                    *at += 1;
                    self.state = State::Key;
                    self.key.clear();
                    self.key_long = false;
                    self.escape = Escape::default();
                    return Some(Event::Key { at: key_at });
                } else {
                    return Some(self.fail());
                }
            }
            State::Key if self.key_long => {
                let ended = string_end(&mut self.escaped, piece, at);
                if ended.is_some() {
                    self.state = State::Colon;
                }
            }
            State::Key => {
                let mut key = std::mem::take(&mut self.key);
                let ended = decode(&mut self.escape, piece, at, &mut key, KEY_MAX);
                self.key = key;
                if ended {
                    self.state = State::Colon;
                } else if self.key.len() >= KEY_MAX {
                    // Too long to be asked about: the rest is only passed over.
                    self.key_long = true;
                    self.escaped = self.escape.backslash;
                }
            }
            State::Colon => {
                if is_space(b) {
                    *at += 1;
                } else if b == b':' {
                    *at += 1;
                    let key = (!self.key_long).then(|| self.key.clone());
                    if let Some(frame) = self.stack.last_mut() {
                        frame.key = key;
                    }
                    self.state = State::Value;
                } else {
                    return Some(self.fail());
                }
            }
            State::After => {
                if is_space(b) {
                    *at += 1;
                    return None;
                }
                let Some(frame) = self.stack.last_mut() else { return Some(self.fail()) };
                match (b, frame.array) {
                    (b',', true) => {
                        frame.index += 1;
                        self.state = State::Value;
                    }
                    (b',', false) => self.state = State::KeyNext,
                    (b']', true) | (b'}', false) => {
                        *at += 1;
                        return Some(self.close(*at));
                    }
                    _ => return Some(self.fail()),
                }
                *at += 1;
            }
            State::Done => {
                if !is_space(b) {
                    return Some(self.fail());
                }
                *at += 1;
            }
            _ => {}
        }
        None
    }

    /// The first byte of an announced value, taken as the caller said.
    fn start(&mut self, b: u8, at: &mut usize) -> Option<Event<'static>> {
        self.captured.clear();
        self.overflow = false;
        self.raw_from = *at;
        let take = self.take;
        match b {
            b'{' | b'[' if take == Take::Enter => {
                *at += 1;
                self.stack.push(Frame { array: b == b'[', index: 0, key: None });
                self.state = if b == b'[' { State::ArrayFirst } else { State::ObjectFirst };
            }
            b'{' | b'[' => {
                *at += 1;
                self.depth = 1;
                self.in_string = false;
                self.escaped = false;
                self.state = State::Skip;
            }
            b'"' => {
                *at += 1;
                self.escaped = false;
                self.escape = Escape::default();
                if take == Take::Enter {
                    self.take = Take::Capture;
                }
                self.state = State::Str;
            }
            b'-' | b'0'..=b'9' | b't' | b'f' | b'n' => {
                if matches!(take, Take::Enter | Take::Decode) {
                    self.take = if take == Take::Enter { Take::Capture } else { Take::Skip };
                }
                self.state = State::Atom;
            }
            _ => return Some(self.fail()),
        }
        None
    }

    /// Passes over an object or array not entered; the offset after its
    /// end when it ends in this piece.
    fn skip(&mut self, piece: &[u8], at: &mut usize) -> Option<usize> {
        while *at < piece.len() {
            if self.in_string {
                if let Some(end) = string_end(&mut self.escaped, piece, at) {
                    self.in_string = false;
                    *at = end;
                }
                continue;
            }
            let b = piece[*at];
            *at += 1;
            match b {
                b'"' => {
                    self.in_string = true;
                    self.escaped = false;
                }
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => {
                    self.depth -= 1;
                    if self.depth == 0 {
                        return Some(*at);
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// The current value (not entered) ends before `end`: its last bytes
    /// first, when the caller takes them.
    fn value_end<'a>(&'a mut self, piece: &'a [u8], end: usize) -> Event<'a> {
        match self.take {
            Take::Decode if self.state == State::Str => {
                if self.decoded.is_empty() {
                    self.ended(end)
                } else {
                    self.ending = Some(end);
                    self.handed = true;
                    Event::Bytes(&self.decoded)
                }
            }
            Take::Capture => {
                self.keep(&piece[self.raw_from..end]);
                self.ended(end)
            }
            _ => self.ended(end),
        }
    }

    fn keep(&mut self, bytes: &[u8]) {
        if self.captured.len() + bytes.len() > CAPTURE_MAX {
            self.overflow = true;
        } else if !self.overflow {
            self.captured.extend_from_slice(bytes);
        }
    }

    fn ended(&mut self, end: usize) -> Event<'static> {
        self.state = if self.stack.is_empty() { State::Done } else { State::After };
        Event::End { at: end }
    }

    /// An entered object or array closes before `end`: it is the current
    /// value again.
    fn close(&mut self, end: usize) -> Event<'static> {
        self.stack.pop();
        self.ended(end)
    }

    /// The piece ends: what the current value has of it is handed over.
    fn piece_end<'a>(&'a mut self, piece: &'a [u8]) -> Event<'a> {
        let from = std::mem::take(&mut self.raw_from);
        match (self.state, self.take) {
            (State::Str, Take::Decode) if !self.decoded.is_empty() => {
                self.handed = true;
                Event::Bytes(&self.decoded)
            }
            (State::Str | State::Atom | State::Skip, Take::Capture) => {
                self.keep(&piece[from.min(piece.len())..]);
                Event::More
            }
            _ => Event::More,
        }
    }
}

/// Finds the end of a string's contents (the offset after its closing
/// quote), not decoding them; `escaped` says that the last piece ended
/// after a backslash.
fn string_end(escaped: &mut bool, piece: &[u8], at: &mut usize) -> Option<usize> {
    if std::mem::take(escaped) {
        if *at >= piece.len() {
            *escaped = true;
            return None;
        }
        *at += 1;
    }
    loop {
        match memchr::memchr2(b'"', b'\\', &piece[*at..]) {
            None => {
                *at = piece.len();
                return None;
            }
            Some(i) if piece[*at + i] == b'"' => {
                *at += i + 1;
                return Some(*at);
            }
            Some(i) => {
                *at += i + 1;
                if *at >= piece.len() {
                    *escaped = true;
                    return None;
                }
                *at += 1;
            }
        }
    }
}

/// Decodes a string's contents from `piece` into `out` until its closing
/// quote (true, `*at` past it) or the end of the piece, or until `out`
/// holds `room` bytes. A lone surrogate becomes U+FFFD.
fn decode(escape: &mut Escape, piece: &[u8], at: &mut usize, out: &mut Vec<u8>, room: usize) -> bool {
    while *at < piece.len() && out.len() < room {
        if let Some((left, value)) = escape.hex {
            let Some(digit) = (piece[*at] as char).to_digit(16) else {
                // Not a \u escape after all: what it stood for is lost.
                escape.hex = None;
                push_char(escape, out, 0xFFFD);
                continue;
            };
            *at += 1;
            let value = (value << 4) | digit as u16;
            if left > 1 {
                escape.hex = Some((left - 1, value));
            } else {
                escape.hex = None;
                push_unit(escape, out, value);
            }
            continue;
        }
        if escape.backslash {
            escape.backslash = false;
            let b = piece[*at];
            *at += 1;
            let byte = match b {
                b'u' => {
                    escape.hex = Some((4, 0));
                    continue;
                }
                b'n' => b'\n',
                b't' => b'\t',
                b'r' => b'\r',
                b'b' => 0x08,
                b'f' => 0x0c,
                other => other,
            };
            flush_high(escape, out);
            out.push(byte);
            continue;
        }
        let rest = &piece[*at..];
        let room_left = room - out.len();
        let window = &rest[..rest.len().min(room_left)];
        let Some(i) = memchr::memchr2(b'"', b'\\', window) else {
            if !window.is_empty() {
                flush_high(escape, out);
                out.extend_from_slice(window);
            }
            *at += window.len();
            continue;
        };
        if i > 0 {
            flush_high(escape, out);
            out.extend_from_slice(&window[..i]);
        }
        *at += i + 1;
        if window[i] == b'"' {
            flush_high(escape, out);
            return true;
        }
        escape.backslash = true;
    }
    false
}

/// A high surrogate with no low half after it.
fn flush_high(escape: &mut Escape, out: &mut Vec<u8>) {
    if escape.high.take().is_some() {
        out.extend_from_slice("\u{FFFD}".as_bytes());
    }
}

/// One UTF-16 unit of a `\u` escape.
fn push_unit(escape: &mut Escape, out: &mut Vec<u8>, unit: u16) {
    match unit {
        0xD800..=0xDBFF => {
            flush_high(escape, out);
            escape.high = Some(unit);
        }
        0xDC00..=0xDFFF => match escape.high.take() {
            Some(high) => {
                let c = 0x10000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(unit) - 0xDC00);
                push_char(escape, out, c);
            }
            None => push_char(escape, out, 0xFFFD),
        },
        _ => push_char(escape, out, u32::from(unit)),
    }
}

fn push_char(escape: &mut Escape, out: &mut Vec<u8>, c: u32) {
    flush_high(escape, out);
    let c = char::from_u32(c).unwrap_or('\u{FFFD}');
    let mut buf = [0; 4];
    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a walk of `line` in pieces of `size` bytes reports: each event
    /// as text, the bytes of a value joined, the offsets made absolute.
    /// `decide` says what to take of each value from its path.
    fn walk(line: &[u8], size: usize, decide: &dyn Fn(&Walker, u8) -> Take) -> Vec<String> {
        let mut walker = Walker::new();
        let mut events = Vec::new();
        let mut bytes = Vec::new();
        for (n, piece) in line.chunks(size.max(1)).enumerate() {
            let base = n * size;
            let mut at = 0;
            loop {
                match walker.step(piece, &mut at) {
                    Event::More => break,
                    Event::Error => {
                        events.push("error".to_owned());
                        return events;
                    }
                    Event::Bytes(b) => bytes.extend_from_slice(b),
                    Event::Value { at, first } => {
                        let take = decide(&walker, first);
                        walker.take(take);
                        events.push(format!("value {} {}", base + at, first as char));
                    }
                    Event::Key { at } => events.push(format!("key {}", base + at)),
                    Event::End { at } => {
                        if !bytes.is_empty() {
                            events.push(format!("bytes {}", String::from_utf8_lossy(&bytes)));
                            bytes.clear();
                        }
                        if let Some(c) = walker.captured().filter(|c| !c.is_empty()) {
                            events.push(format!("captured {}", String::from_utf8_lossy(c)));
                        }
                        events.push(format!("end {}", base + at));
                    }
                }
            }
        }
        events.push(if walker.complete() { "complete" } else { "incomplete" }.to_owned());
        events
    }

    fn by_path(w: &Walker, _: u8) -> Take {
        if w.at(&[])
            || w.at(&[Some("result")])
            || w.at(&[Some("result"), Some("content")])
            || w.at(&[Some("result"), Some("content"), None])
        {
            Take::Enter
        } else if w.at(&[Some("result"), Some("content"), None, Some("text")]) {
            Take::Decode
        } else if w.at(&[Some("id")]) || w.at(&[Some("result"), Some("structuredContent")]) {
            Take::Capture
        } else {
            Take::Skip
        }
    }

    const LINES: [&str; 9] = [
        r#"{"jsonrpc":"2.0","id":12345678901234567890,"result":{"content":[{"type":"text","text":"a\nb\"c\\d\u00e9\ud83d\ude00é"}]}}"#,
        r#"{"result":{"content":[{"text":"x","type":"text"},{"type":"image","data":"AAA="}],"structuredContent":{"a":[1,2,{"b":"}]"}]},"isError":false},"jsonrpc":"2.0","id":"a\"b"}"#,
        r#" { "id" : 1 , "result" : { "content" : [ ] } } "#,
        r#"{"id":1,"result":{"content":[{"text":"\ud83d x \udc00 \ud83d"}]}}"#,
        r#"{"id":[1,{"x":"]"}],"method":"x","params":{"a":[[[[]]]],"b":"\\\""}}"#,
        r#"{"id":1,"result":{"structuredContent":"str\"ing","content":[]}}"#,
        r#"{"id":1,"result":{"structuredContent":-1.5e+3}}"#,
        r"[1,2,3]",
        r#"{"a":true,"b":null,"c":false}"#,
    ];

    #[test]
    fn a_walk_is_the_same_in_pieces_of_every_size() {
        for line in LINES {
            let whole = walk(line.as_bytes(), line.len(), &by_path);
            assert_eq!(whole.last().map(String::as_str), Some("complete"), "{line}: {whole:?}");
            for size in 1..line.len() {
                assert_eq!(walk(line.as_bytes(), size, &by_path), whole, "{line} in pieces of {size}");
            }
        }
    }

    #[test]
    fn strings_are_decoded_surrogates_joined_and_lone_ones_replaced() {
        let events = walk(LINES[0].as_bytes(), 1000, &by_path);
        assert!(events.contains(&"bytes a\nb\"c\\dé😀é".to_owned()), "{events:?}");
        assert!(events.contains(&"captured 12345678901234567890".to_owned()), "{events:?}");
        let events = walk(LINES[3].as_bytes(), 1000, &by_path);
        assert!(events.contains(&"bytes \u{FFFD} x \u{FFFD} \u{FFFD}".to_owned()), "{events:?}");
    }

    #[test]
    fn captured_values_come_whole_and_positions_are_exact() {
        let line = LINES[1];
        let events = walk(line.as_bytes(), 1000, &by_path);
        assert!(events.contains(&r#"captured {"a":[1,2,{"b":"}]"}]}"#.to_owned()), "{events:?}");
        assert!(events.contains(&r#"captured "a\"b""#.to_owned()), "{events:?}");
        let start = line.find(r#"{"a":"#).unwrap();
        assert!(events.contains(&format!("value {start} {{")), "{events:?}");
        let end = start + r#"{"a":[1,2,{"b":"}]"}]}"#.len();
        assert!(events.contains(&format!("end {end}")), "{events:?}");
        let raw = walk(LINES[6].as_bytes(), 1000, &by_path);
        assert!(raw.contains(&"captured -1.5e+3".to_owned()), "{raw:?}");
    }

    #[test]
    fn what_is_not_json_is_an_error() {
        for line in
            [r#"{"a" 1}"#, r#"{"a":1,}"#, r#"{"a":[1 2]}"#, r#"{"a":1}x"#, "{'a':1}", "]", r#"{"a":1]"#]
        {
            let events = walk(line.as_bytes(), 1000, &|_, _| Take::Enter);
            assert_eq!(events.last().map(String::as_str), Some("error"), "{line}: {events:?}");
        }
        let events = walk(br#"{"a":"#, 1000, &|_, _| Take::Enter);
        assert_eq!(events.last().map(String::as_str), Some("incomplete"));
    }

    #[test]
    fn a_deep_nesting_passed_over_holds_no_stack() {
        let mut line = b"{\"a\":".to_vec();
        line.extend(std::iter::repeat_n(b'[', 100_000));
        line.extend(std::iter::repeat_n(b']', 100_000));
        line.push(b'}');
        let mut walker = Walker::new();
        let mut at = 0;
        loop {
            match walker.step(&line, &mut at) {
                Event::Value { .. } => {
                    let take = if walker.depth() == 0 { Take::Enter } else { Take::Skip };
                    walker.take(take);
                }
                Event::More | Event::Error => break,
                _ => {}
            }
        }
        assert!(walker.complete());
        assert!(walker.stack.capacity() < 16);
    }

    #[test]
    fn a_capture_past_its_bound_is_none() {
        let line = format!(r#"{{"id":"{}"}}"#, "x".repeat(CAPTURE_MAX));
        let mut walker = Walker::new();
        let mut at = 0;
        let mut captured = Some(Vec::new());
        loop {
            let event = walker.step(line.as_bytes(), &mut at);
            let (value, end) = (matches!(event, Event::Value { .. }), matches!(event, Event::End { .. }));
            if matches!(event, Event::More | Event::Error) {
                break;
            }
            if value {
                let take = if walker.depth() == 0 { Take::Enter } else { Take::Capture };
                walker.take(take);
            }
            if end && walker.depth() == 1 {
                captured = walker.captured().map(<[u8]>::to_vec);
            }
        }
        assert_eq!(captured, None);
    }
}
