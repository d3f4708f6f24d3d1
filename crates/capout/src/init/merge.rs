//! capout's entries in a JSON settings file, edited as text: what capout
//! adds is inserted between the user's bytes, and what it takes out is cut
//! from between them, so every other byte stays as it was (a 30-digit
//! number, an escape, the order of keys, the spacing, a comment).
//!
//! Settings files are JSON with comments (`//`, `/* */`) and trailing
//! commas, as Gemini CLI and opencode read them; capout never writes
//! either, it only keeps them.
//!
//! A hand-written span editor rather than a JSONC CST crate: the one
//! tried (`jsonc-parser`'s CST) lays a one-line object out over many
//! lines when a key is appended to it, so the user's spacing changed and
//! taking the key out did not give it back.

use std::ops::Range;

use serde_json::Value;

use super::{Entry, Kind};

/// Why a file cannot be edited: said after the file's path.
pub type Why = String;

/// The byte order mark.
const BOM: char = '\u{feff}';

/// How deep values may nest: a hostile file is an error, not a stack
/// overflow.
const MAX_DEPTH: usize = 256;

/// A value of the file and where it is.
#[derive(Debug)]
struct Node {
    span: Range<usize>,
    kind: Shape,
}

#[derive(Debug)]
enum Shape {
    Object(Vec<Member>),
    Array(Vec<Node>),
    Str(String),
    /// A number, `true`, `false` or `null`: its text is its value.
    Scalar,
}

#[derive(Debug)]
struct Member {
    key: String,
    /// Where the key's opening quote is.
    start: usize,
    value: Node,
}

impl Node {
    fn members(&self) -> &[Member] {
        match &self.kind {
            Shape::Object(m) => m,
            _ => &[],
        }
    }

    /// The last member named `key` (as JSON readers take the last).
    fn get(&self, key: &str) -> Option<&Member> {
        self.members().iter().rev().find(|m| m.key == key)
    }

    /// Whether this node holds the same value as `value`.
    fn same(&self, text: &str, value: &Value) -> bool {
        match (&self.kind, value) {
            (Shape::Object(members), Value::Object(map)) => {
                members.len() == map.len()
                    && map.iter().all(|(k, v)| {
                        let found: Vec<_> = members.iter().filter(|m| &m.key == k).collect();
                        found.len() == 1 && found[0].value.same(text, v)
                    })
            }
            (Shape::Array(items), Value::Array(values)) => {
                items.len() == values.len() && items.iter().zip(values).all(|(n, v)| n.same(text, v))
            }
            (Shape::Str(s), Value::String(v)) => s == v,
            (Shape::Scalar, Value::Null | Value::Bool(_) | Value::Number(_)) => {
                text[self.span.clone()] == *value.to_string()
            }
            _ => false,
        }
    }

    /// Every string under the key `key`, at any depth.
    fn strings_at<'a>(&'a self, key: &str, out: &mut Vec<&'a str>) {
        match &self.kind {
            Shape::Object(members) => {
                for m in members {
                    if m.key == key
                        && let Shape::Str(s) = &m.value.kind
                    {
                        out.push(s);
                    }
                    m.value.strings_at(key, out);
                }
            }
            Shape::Array(items) => items.iter().for_each(|n| n.strings_at(key, out)),
            _ => {}
        }
    }
}

/// The parser: JSON with comments and trailing commas.
struct Parser<'a> {
    text: &'a str,
    at: usize,
}

impl Parser<'_> {
    fn bytes(&self) -> &[u8] {
        self.text.as_bytes()
    }

    fn error(&self, what: &str) -> Why {
        let before = &self.text[..self.at.min(self.text.len())];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        format!("{what} at line {line} column {column}")
    }

    /// Skips blanks and comments.
    fn blank(&mut self) -> Result<(), Why> {
        loop {
            let b = self.bytes();
            match b.get(self.at) {
                Some(b' ' | b'\t' | b'\n' | b'\r') => self.at += 1,
                Some(b'/') if b.get(self.at + 1) == Some(&b'/') => {
                    self.at = memchr::memchr(b'\n', &b[self.at..]).map_or(b.len(), |n| self.at + n);
                }
                Some(b'/') if b.get(self.at + 1) == Some(&b'*') => {
                    let end = memchr::memmem::find(&b[self.at + 2..], b"*/")
                        .ok_or_else(|| self.error("a comment that never ends"))?;
                    self.at += 2 + end + 2;
                }
                _ => return Ok(()),
            }
        }
    }

    fn value(&mut self, depth: usize) -> Result<Node, Why> {
        if depth > MAX_DEPTH {
            return Err(self.error("values nested too deep"));
        }
        let start = self.at;
        let kind = match self.bytes().get(self.at) {
            Some(b'{') => {
                self.at += 1;
                let mut members = Vec::new();
                loop {
                    self.blank()?;
                    if self.bytes().get(self.at) == Some(&b'}') {
                        self.at += 1;
                        break;
                    }
                    if self.bytes().get(self.at) != Some(&b'"') {
                        return Err(self.error("a key must be a string"));
                    }
                    let key_start = self.at;
                    let key = self.string()?;
                    self.blank()?;
                    if self.bytes().get(self.at) != Some(&b':') {
                        return Err(self.error("a ':' must follow a key"));
                    }
                    self.at += 1;
                    self.blank()?;
                    let value = self.value(depth + 1)?;
                    members.push(Member { key, start: key_start, value });
                    self.blank()?;
                    match self.bytes().get(self.at) {
                        Some(b',') => self.at += 1,
                        Some(b'}') => {}
                        _ => return Err(self.error("a ',' or '}' must follow a value")),
                    }
                }
                Shape::Object(members)
            }
            Some(b'[') => {
                self.at += 1;
                let mut items = Vec::new();
                loop {
                    self.blank()?;
                    if self.bytes().get(self.at) == Some(&b']') {
                        self.at += 1;
                        break;
                    }
                    items.push(self.value(depth + 1)?);
                    self.blank()?;
                    match self.bytes().get(self.at) {
                        Some(b',') => self.at += 1,
                        Some(b']') => {}
                        _ => return Err(self.error("a ',' or ']' must follow a value")),
                    }
                }
                Shape::Array(items)
            }
            Some(b'"') => Shape::Str(self.string()?),
            Some(b't') => self.word("true")?,
            Some(b'f') => self.word("false")?,
            Some(b'n') => self.word("null")?,
            Some(b'-' | b'0'..=b'9') => self.number()?,
            Some(_) => return Err(self.error("not a JSON value")),
            None => return Err(self.error("the file ends where a value must be")),
        };
        Ok(Node { span: start..self.at, kind })
    }

    fn word(&mut self, word: &str) -> Result<Shape, Why> {
        if !self.text[self.at..].starts_with(word) {
            return Err(self.error("not a JSON value"));
        }
        self.at += word.len();
        Ok(Shape::Scalar)
    }

    fn number(&mut self) -> Result<Shape, Why> {
        let b = self.bytes();
        let mut i = self.at;
        if b[i] == b'-' {
            i += 1;
        }
        let digits = |mut i: usize| {
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            i
        };
        let whole = digits(i);
        if whole == i {
            return Err(self.error("a number without digits"));
        }
        // JSON has no `01`: a reader would refuse the file.
        if b[i] == b'0' && whole > i + 1 {
            return Err(self.error("a number with a leading zero"));
        }
        i = whole;
        if b.get(i) == Some(&b'.') {
            let frac = digits(i + 1);
            if frac == i + 1 {
                return Err(self.error("a number without digits after its point"));
            }
            i = frac;
        }
        if matches!(b.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(b.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            let exp = digits(i);
            if exp == i {
                return Err(self.error("a number without digits in its exponent"));
            }
            i = exp;
        }
        self.at = i;
        Ok(Shape::Scalar)
    }

    /// A string, its escapes decoded; `at` is on its opening quote.
    fn string(&mut self) -> Result<String, Why> {
        let mut out = String::new();
        self.at += 1;
        loop {
            let rest = &self.text[self.at..];
            let Some(stop) = rest.find(['"', '\\']) else {
                return Err(self.error("a string that never ends"));
            };
            let plain = &rest[..stop];
            if plain.bytes().any(|b| b < 0x20) {
                return Err(self.error("a control character in a string"));
            }
            out.push_str(plain);
            self.at += stop;
            if self.bytes()[self.at] == b'"' {
                self.at += 1;
                return Ok(out);
            }
            // Past the backslash alone: what follows it may be a character
            // of several bytes, which no escape is.
            self.at += 1;
            let decoded = match self.bytes().get(self.at) {
                Some(b'"') => '"',
                Some(b'\\') => '\\',
                Some(b'/') => '/',
                Some(b'b') => '\u{8}',
                Some(b'f') => '\u{c}',
                Some(b'n') => '\n',
                Some(b'r') => '\r',
                Some(b't') => '\t',
                Some(b'u') => {
                    self.at += 1;
                    let unit = self.hex4()?;
                    // A high surrogate pairs with a low one after it; alone,
                    // either is U+FFFD, and what follows is read as it is.
                    let next = self.text[self.at..].strip_prefix("\\u").and_then(|rest| rest.get(..4));
                    let low = next
                        .and_then(|hex| u32::from_str_radix(hex, 16).ok())
                        .filter(|low| (0xd800..0xdc00).contains(&unit) && (0xdc00..0xe000).contains(low));
                    let c = match low {
                        Some(low) => {
                            self.at += 6;
                            char::from_u32(0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00))
                        }
                        None => char::from_u32(unit),
                    };
                    out.push(c.unwrap_or('\u{fffd}'));
                    continue;
                }
                _ => return Err(self.error("an unknown escape in a string")),
            };
            self.at += 1;
            out.push(decoded);
        }
    }

    fn hex4(&mut self) -> Result<u32, Why> {
        let hex = self.text.get(self.at..self.at + 4).filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()));
        let hex = hex.ok_or_else(|| self.error("a \\u escape without four hex digits"))?;
        self.at += 4;
        u32::from_str_radix(hex, 16).map_err(|_| self.error("a bad \\u escape"))
    }
}

/// The file's one value (an object), or `None` for a file of blanks and
/// comments alone.
fn parse(text: &str) -> Result<Option<Node>, Why> {
    // A byte order mark, which some editors write first, is kept as it is.
    let mut p = Parser { text, at: if text.starts_with(BOM) { BOM.len_utf8() } else { 0 } };
    p.blank()?;
    if p.at == text.len() {
        return Ok(None);
    }
    let root = p.value(0)?;
    p.blank()?;
    if p.at != text.len() {
        return Err(p.error("more after the value"));
    }
    if !matches!(root.kind, Shape::Object(_)) {
        return Err("not a JSON object".into());
    }
    Ok(Some(root))
}

/// Checks that `text` is a settings file capout can edit.
#[cfg(test)]
fn check(text: &str) -> Result<(), Why> {
    parse(text).map(|_| ())
}

/// How the file lays out its values, as far as capout needs to follow it.
struct Style {
    newline: &'static str,
    unit: String,
}

impl Style {
    fn of(text: &str) -> Style {
        let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
        // The first indented line's indentation is one level.
        let unit = text
            .lines()
            .skip(1)
            .map(|l| &l[..l.len() - l.trim_start_matches([' ', '\t']).len()])
            .find(|i| !i.is_empty())
            .unwrap_or("  ")
            .to_owned();
        Style { newline, unit }
    }
}

/// The indentation of the line that `at` is on.
fn indent_at(text: &str, at: usize) -> &str {
    let line = text[..at].rfind('\n').map_or(0, |n| n + 1);
    let rest = &text[line..];
    &rest[..rest.len() - rest.trim_start_matches([' ', '\t']).len()]
}

/// `value` as JSON text: over lines at `indent` (one more `unit` a
/// level), or on one line.
fn render(value: &Value, style: &Style, indent: &str, multiline: bool) -> String {
    let mut out = String::new();
    write_value(&mut out, value, style, indent, multiline);
    out
}

fn write_value(out: &mut String, value: &Value, style: &Style, indent: &str, multiline: bool) {
    let inner = format!("{indent}{}", style.unit);
    let (open, close, items): (char, char, Vec<(Option<&String>, &Value)>) = match value {
        Value::Object(map) => ('{', '}', map.iter().map(|(k, v)| (Some(k), v)).collect()),
        Value::Array(items) => ('[', ']', items.iter().map(|v| (None, v)).collect()),
        scalar => {
            out.push_str(&scalar.to_string());
            return;
        }
    };
    out.push(open);
    for (n, (key, v)) in items.iter().enumerate() {
        if n > 0 {
            out.push(',');
            if !multiline {
                out.push(' ');
            }
        }
        if multiline {
            out.push_str(style.newline);
            out.push_str(&inner);
        }
        if let Some(key) = key {
            out.push_str(&Value::from(key.as_str()).to_string());
            out.push_str(": ");
        }
        write_value(out, v, style, &inner, multiline);
    }
    if multiline && !items.is_empty() {
        out.push_str(style.newline);
        out.push_str(indent);
    }
    out.push(close);
}

/// `text` with `range` replaced by `with`.
fn splice(text: &str, range: Range<usize>, with: &str) -> String {
    let mut out = String::with_capacity(text.len() + with.len());
    out.push_str(&text[..range.start]);
    out.push_str(with);
    out.push_str(&text[range.end..]);
    out
}

/// The text with `item` (a member `"key": value`, or an element) added
/// at the end of the container `node`.
fn insert(text: &str, node: &Node, key: Option<&str>, value: &Value) -> String {
    let style = Style::of(text);
    let container = &text[node.span.clone()];
    let starts: Vec<usize> = match &node.kind {
        Shape::Object(m) => m.iter().map(|m| m.start).collect(),
        Shape::Array(items) => items.iter().map(|n| n.span.start).collect(),
        _ => Vec::new(),
    };
    let ends: Vec<usize> = match &node.kind {
        Shape::Object(m) => m.iter().map(|m| m.value.span.end).collect(),
        Shape::Array(items) => items.iter().map(|n| n.span.end).collect(),
        _ => Vec::new(),
    };
    let own = indent_at(text, node.span.start);
    let lead = |rendered: String| match key {
        Some(k) => format!("{}: {rendered}", Value::from(k)),
        None => rendered,
    };
    if let (Some(&first), Some(&last)) = (starts.first(), ends.last()) {
        // A container over lines has its first item on a line of its own.
        let multiline = text[node.span.start + 1..first].contains('\n');
        if multiline {
            let indent = indent_at(text, first);
            let item = lead(render(value, &style, indent, true));
            splice(text, last..last, &format!(",{}{indent}{item}", style.newline))
        } else {
            // The user's own spacing after a comma, if there is one to see.
            let gap = if let Some(&second) = starts.get(1) {
                let between = &text[ends[0]..second];
                let after = between.find(',').map_or(between.len(), |n| n + 1);
                // Its blanks alone: a comment there is the user's, said once.
                text[ends[0] + after..blanks_after(text, ends[0] + after)].to_owned()
            } else {
                // One member: the spacing after its colon.
                match &node.kind {
                    Shape::Object(m) => {
                        let before = &text[..m[0].value.span.start];
                        before[before.trim_end().len()..].to_owned()
                    }
                    _ => " ".to_owned(),
                }
            };
            let item = lead(render(value, &style, own, false));
            splice(text, last..last, &format!(",{gap}{item}"))
        }
    } else {
        // `{}` in a file over lines is laid out over lines; one with
        // anything between its brackets keeps that where it is.
        let multiline = container.contains('\n') || container.len() == 2 && text.contains('\n');
        let open = node.span.start + 1;
        if multiline {
            let indent = format!("{own}{}", style.unit);
            let item = lead(render(value, &style, &indent, true));
            let close =
                if container.contains('\n') { String::new() } else { format!("{}{own}", style.newline) };
            splice(text, open..open, &format!("{}{indent}{item}{close}", style.newline))
        } else {
            splice(text, open..open, &lead(render(value, &style, own, false)))
        }
    }
}

/// The text with the `n`th item of the container `node` cut out, with
/// its comma and the blanks that [`insert`] put around it; every comment
/// stays, wherever it is (one inside the item stays where the item was).
fn cut(text: &str, node: &Node, n: usize) -> String {
    let spans: Vec<Range<usize>> = match &node.kind {
        Shape::Object(m) => m.iter().map(|m| m.start..m.value.span.end).collect(),
        Shape::Array(items) => items.iter().map(|n| n.span.clone()).collect(),
        _ => return text.to_owned(),
    };
    let this = spans[n].clone();
    let kept = comments_in(text, this.clone());
    let comma_after = |end: usize| {
        // The comma after an item, past blanks and comments.
        let mut p = Parser { text, at: end };
        let _ = p.blank();
        (text.as_bytes().get(p.at) == Some(&b',')).then_some(p.at)
    };
    if n > 0 {
        // The comma after the item before, and the item with the blanks
        // before it.
        let prev = spans[n - 1].end;
        let comma = comma_after(prev).unwrap_or(prev);
        let start = blanks_before(text, comma + 1, this.start);
        return splice_out(text, &[(comma..comma + 1, ""), (start..this.end, &kept)]);
    }
    if spans.len() > 1 {
        // The item, its comma and the blanks after the comma.
        let comma = comma_after(this.end).unwrap_or(this.end);
        let next = blanks_after(text, comma + 1).min(spans[1].start);
        return splice_out(text, &[(this.start..this.end, &kept), (comma..next, "")]);
    }
    // The one item: with the blanks before it and its comma, if it has one.
    let open = node.span.start + 1;
    let start = blanks_before(text, open, this.start);
    let mut ranges = vec![(start..this.end, kept.as_str())];
    if let Some(comma) = comma_after(this.end) {
        ranges.push((comma..comma + 1, ""));
    }
    let removed: usize = ranges.iter().map(|(r, with)| r.len() - with.len()).sum();
    let out = splice_out(text, &ranges);
    // A `{}` in a file over lines got its closing bracket on a line of its
    // own (see `insert`): that line goes too. (So an empty object of the
    // user's with just that line in it comes back as `{}`, when no backup
    // gives the file back as it was.)
    let close = node.span.end - 1 - removed;
    let added = format!("{}{}", Style::of(text).newline, indent_at(text, node.span.start));
    if out[open..close] == added { splice(&out, open..close, "") } else { out }
}

/// `text` with each range (in order, apart) replaced by its text.
fn splice_out(text: &str, ranges: &[(Range<usize>, &str)]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (r, with) in ranges {
        out.push_str(&text[at..r.start]);
        out.push_str(with);
        at = r.end;
    }
    out.push_str(&text[at..]);
    out
}

/// The comments between the tokens in `range` (none in its strings), each
/// as written, a `//` comment with the newline that ends it.
fn comments_in(text: &str, range: Range<usize>) -> String {
    let b = text.as_bytes();
    let mut out = String::new();
    let mut i = range.start;
    while i < range.end {
        match b[i] {
            b'"' => {
                i += 1;
                while i < range.end && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let end = memchr::memchr(b'\n', &b[i..range.end]).map_or(range.end, |n| i + n + 1);
                out.push_str(&text[i..end]);
                i = end;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end =
                    memchr::memmem::find(&b[i + 2..range.end], b"*/").map_or(range.end, |n| i + 2 + n + 2);
                out.push_str(&text[i..end]);
                i = end;
            }
            _ => i += 1,
        }
    }
    out
}

/// Where the blanks just before `at` start, `floor` at the earliest: after
/// the last comment between them (and after the newline that ends a `//`
/// comment, which must stay).
fn blanks_before(text: &str, floor: usize, at: usize) -> usize {
    let b = text.as_bytes();
    let mut start = floor;
    let mut i = floor;
    while i < at {
        match b[i] {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = memchr::memchr(b'\n', &b[i..at]).map_or(at, |n| i + n + 1);
                start = i;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = memchr::memmem::find(&b[i + 2..at], b"*/").map_or(at, |n| i + 2 + n + 2);
                start = i;
            }
            _ => {
                i += 1;
                start = i;
            }
        }
    }
    start
}

/// Where the blanks (not comments) that start at `from` end.
fn blanks_after(text: &str, from: usize) -> usize {
    from + text[from..].len() - text[from..].trim_start_matches([' ', '\t', '\n', '\r']).len()
}

/// Follows `keys` from the root: the node there, if there is one.
fn find<'a>(root: &'a Node, keys: &[String]) -> Option<&'a Node> {
    keys.iter().try_fold(root, |node, k| node.get(k).map(|m| &m.value))
}

/// Which elements of a list are capout's, by [`Kind::List`]'s test.
fn ours(list: &Node, is_ours: fn(&str) -> bool) -> Vec<usize> {
    match &list.kind {
        Shape::Array(items) => (0..items.len())
            .filter(|&i| {
                let mut commands = Vec::new();
                items[i].strings_at("command", &mut commands);
                !commands.is_empty() && commands.iter().all(|c| is_ours(c))
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The text of the file after capout's `entries` were set in `before`.
pub fn install(before: Option<&str>, entries: &[Entry]) -> Result<String, Why> {
    let mut text = before.unwrap_or_default().to_owned();
    if parse(&text)?.is_none() {
        // A file of blanks and comments: an object after them, on a line
        // of its own.
        let nl = Style::of(&text).newline;
        let apart = if text.trim_start_matches(BOM).is_empty() || text.ends_with('\n') { "" } else { nl };
        text = format!("{text}{apart}{{}}{nl}");
    }
    for entry in entries {
        text = install_one(&text, entry)?;
    }
    Ok(text)
}

fn install_one(text: &str, entry: &Entry) -> Result<String, Why> {
    if let Kind::Wrap(launch) = entry.kind {
        return wrap::wrap(text, &entry.keys, launch, entry.value.as_str().unwrap_or("capout"));
    }
    let root = parse(text)?.ok_or("not a JSON object")?;
    let (list, keys) = match entry.kind {
        Kind::List(_) => (true, &entry.keys[..]),
        _ => (false, &entry.keys[..]),
    };
    // The deepest object there is on the path, and the keys after it.
    let mut node = &root;
    let mut depth = 0;
    while depth < keys.len() {
        match node.get(&keys[depth]) {
            Some(m) => {
                let end = depth + 1 == keys.len();
                if !end && !matches!(m.value.kind, Shape::Object(_)) {
                    return Err(format!("'{}' is not an object", keys[..=depth].join(".")));
                }
                node = &m.value;
                depth += 1;
            }
            None => break,
        }
    }
    if depth < keys.len() {
        // Made whole, from the first key that is missing.
        let mut value = if list { Value::Array(vec![entry.value.clone()]) } else { entry.value.clone() };
        for k in keys[depth + 1..].iter().rev() {
            value = Value::Object([(k.clone(), value)].into_iter().collect());
        }
        return Ok(insert(text, node, Some(&keys[depth]), &value));
    }
    match entry.kind {
        Kind::List(is_ours) => {
            let Shape::Array(_) = node.kind else {
                return Err(format!("'{}' is not a list", keys.join(".")));
            };
            let mine = ours(node, is_ours);
            if let [one] = mine[..]
                && let Shape::Array(items) = &node.kind
                && items[one].same(text, &entry.value)
            {
                return Ok(text.to_owned());
            }
            // capout may have moved: its old element goes, the new one goes last.
            let mut text = text.to_owned();
            for &i in mine.iter().rev() {
                let root = parse(&text)?.ok_or("not a JSON object")?;
                let list = find(&root, keys).ok_or("the list went missing")?;
                text = cut(&text, list, i);
            }
            let root = parse(&text)?.ok_or("not a JSON object")?;
            let list = find(&root, keys).ok_or("the list went missing")?;
            Ok(insert(&text, list, None, &entry.value))
        }
        Kind::Wrap(_) => Ok(text.to_owned()),
        Kind::Key | Kind::Guarded(_) => {
            if node.same(text, &entry.value) {
                return Ok(text.to_owned());
            }
            if let Kind::Guarded(is_ours) = entry.kind {
                let ours = matches!(&node.kind, Shape::Str(s) if is_ours(s));
                if !ours {
                    return Err(format!(
                        "{} is already set to {}; capout leaves it",
                        keys.join("."),
                        &text[node.span.clone()]
                    ));
                }
            }
            let style = Style::of(text);
            let indent = indent_at(text, node.span.start);
            // A value over lines stays over lines; one on a line stays on it.
            let scalar = !matches!(node.kind, Shape::Object(_) | Shape::Array(_));
            let multiline = text[node.span.clone()].contains('\n') || scalar && text.contains('\n');
            // A comment in the old value stays, before the new one.
            let kept = comments_in(text, node.span.clone());
            let value = render(&entry.value, &style, indent, multiline);
            Ok(splice(text, node.span.clone(), &format!("{kept}{value}")))
        }
    }
}

/// What taking capout's entries out of `before` gives: the text, and the
/// entries that were there. An object that the entries leave empty goes
/// too, unless `existed` says it was there before capout (as the backup
/// shows).
pub fn remove(
    before: &str,
    entries: &[Entry],
    existed: &dyn Fn(&[String]) -> bool,
) -> Result<(String, Vec<String>), Why> {
    let mut text = before.to_owned();
    let mut taken = Vec::new();
    for entry in entries {
        let Some(root) = parse(&text)? else { break };
        let keys = &entry.keys[..];
        if let Kind::Wrap(launch) = entry.kind {
            let (unwrapped, names) = wrap::unwrap(&text, keys, launch, existed)?;
            if !names.is_empty() {
                text = unwrapped;
                taken.push(entry.name());
            }
            continue;
        }
        let Some((last, parents)) = keys.split_last() else { continue };
        let Some(parent) = find(&root, parents) else { continue };
        let mut emptied = false;
        match entry.kind {
            Kind::List(is_ours) => {
                let Some(member) = parent.get(last) else { continue };
                let mine = ours(&member.value, is_ours);
                if mine.is_empty() {
                    continue;
                }
                for &i in mine.iter().rev() {
                    let now = parse(&text)?.ok_or("not a JSON object")?;
                    let items = find(&now, keys).ok_or("the list went missing")?;
                    text = cut(&text, items, i);
                }
                let root = parse(&text)?.ok_or("not a JSON object")?;
                if find(&root, keys).is_some_and(|l| matches!(&l.kind, Shape::Array(a) if a.is_empty()))
                    && !existed(keys)
                {
                    emptied = true;
                }
                taken.push(format!("capout's hook in {}", keys.join(".")));
            }
            Kind::Wrap(_) => {}
            Kind::Key | Kind::Guarded(_) => {
                // Every member of the name (a reader takes the last of
                // several, so an earlier one would take capout's place).
                let mine: Vec<usize> = (0..parent.members().len())
                    .filter(|&i| {
                        let m = &parent.members()[i];
                        m.key == *last
                            && match entry.kind {
                                Kind::Guarded(is_ours) => {
                                    matches!(&m.value.kind, Shape::Str(s) if is_ours(s))
                                }
                                _ => true,
                            }
                    })
                    .collect();
                if mine.is_empty() {
                    continue;
                }
                for &i in mine.iter().rev() {
                    let now = parse(&text)?.ok_or("not a JSON object")?;
                    let parent = find(&now, parents).ok_or("the object went missing")?;
                    text = cut(&text, parent, i);
                }
                taken.push(keys.join("."));
            }
        }
        // Objects that capout made and that are empty now go, upwards.
        let mut depth = if emptied { keys.len() } else { keys.len() - 1 };
        while depth > 0 {
            let root = parse(&text)?.ok_or("not a JSON object")?;
            let path = &keys[..depth];
            let Some(node) = find(&root, path) else { break };
            let empty = match &node.kind {
                Shape::Object(m) => m.is_empty(),
                Shape::Array(a) => a.is_empty(),
                _ => false,
            };
            if !empty || existed(path) {
                break;
            }
            let parent = find(&root, &path[..depth - 1]).ok_or("the object went missing")?;
            let n = parent.members().iter().rposition(|m| m.key == path[depth - 1]).unwrap_or(0);
            text = cut(&text, parent, n);
            depth -= 1;
        }
    }
    Ok((text, taken))
}

/// Whether the object at `keys` is in `text` (a file that is not JSON
/// has none).
pub fn has(text: &str, keys: &[String]) -> bool {
    parse(text).ok().flatten().is_some_and(|root| find(&root, keys).is_some())
}

/// Whether `text` holds nothing but an empty object (and blanks).
pub fn is_empty_object(text: &str) -> bool {
    parse(text).ok().flatten().is_some_and(|root| root.members().is_empty())
        && !text.contains("//")
        && !text.contains("/*")
}

#[cfg(test)]
mod props;
pub mod wrap;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn key(keys: &[&str], value: Value) -> Entry {
        Entry { keys: keys.iter().map(|k| (*k).to_owned()).collect(), value, kind: Kind::Key }
    }

    fn hook_is_ours(s: &str) -> bool {
        s.ends_with(" hook codex") && s.contains("capout")
    }

    fn hook(command: &str) -> Entry {
        Entry {
            keys: vec!["hooks".into(), "PreToolUse".into()],
            value: json!({"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}),
            kind: Kind::List(hook_is_ours),
        }
    }

    fn none(_: &[String]) -> bool {
        false
    }

    #[test]
    fn a_key_goes_last_in_the_users_layout_and_comes_out_to_the_byte() {
        for before in [
            "{\"theme\":\"dark\"}",
            "{\"theme\": \"dark\", \"n\": 1}\n",
            "{\n    \"theme\": \"dark\",\n    \"x\": [1, 2]\n}\n",
            "{\n  // mine\n  \"model\": \"x\", /* c */\n}\n",
            "{\r\n  \"a\": 1\r\n}\r\n",
            "{\"big\": 123456789012345678901234567890, \"f\": 0.10000000000000000555, \"e\": \"\\u00e9\"}",
        ] {
            let e = key(&["env", "K"], json!("v"));
            let after = install(Some(before), std::slice::from_ref(&e)).unwrap();
            // Every byte of the user's is there, in its order.
            let mut rest = after.chars();
            assert!(before.chars().all(|c| rest.any(|d| d == c)), "{after}");
            assert_eq!(install(Some(&after), std::slice::from_ref(&e)).unwrap(), after);
            let (back, taken) = remove(&after, std::slice::from_ref(&e), &none).unwrap();
            assert_eq!(back, before, "{after}");
            assert_eq!(taken, ["env.K"]);
        }
    }

    #[test]
    fn the_layout_of_what_capout_adds_follows_the_file() {
        let e = key(&["env", "K"], json!("v"));
        assert_eq!(
            install(Some("{\"a\":1}"), std::slice::from_ref(&e)).unwrap(),
            "{\"a\":1,\"env\": {\"K\": \"v\"}}"
        );
        assert_eq!(
            install(Some("{\"a\": 1}"), std::slice::from_ref(&e)).unwrap(),
            "{\"a\": 1, \"env\": {\"K\": \"v\"}}"
        );
        assert_eq!(
            install(Some("{\n    \"a\": 1\n}\n"), std::slice::from_ref(&e)).unwrap(),
            "{\n    \"a\": 1,\n    \"env\": {\n        \"K\": \"v\"\n    }\n}\n"
        );
        assert_eq!(
            install(None, std::slice::from_ref(&e)).unwrap(),
            "{\n  \"env\": {\n    \"K\": \"v\"\n  }\n}\n"
        );
        assert_eq!(
            install(Some("{\"env\":{}}"), std::slice::from_ref(&e)).unwrap(),
            "{\"env\":{\"K\": \"v\"}}"
        );
        assert_eq!(
            install(Some("{\n  \"env\": {}\n}\n"), std::slice::from_ref(&e)).unwrap(),
            "{\n  \"env\": {\n    \"K\": \"v\"\n  }\n}\n"
        );
    }

    #[test]
    fn an_object_that_was_there_before_stays_when_it_is_left_empty() {
        let e = key(&["env", "K"], json!("v"));
        let after = install(Some("{\"env\":{}}"), std::slice::from_ref(&e)).unwrap();
        let kept = |k: &[String]| k == ["env"];
        assert_eq!(remove(&after, std::slice::from_ref(&e), &kept).unwrap().0, "{\"env\":{}}");
        assert_eq!(remove(&after, std::slice::from_ref(&e), &none).unwrap().0, "{}");
    }

    #[test]
    fn a_hook_goes_beside_the_users_own_once_and_replaces_capouts_old_one() {
        let before = r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "audit.sh"}]}]}}"#;
        let once = install(Some(before), &[hook("/bin/capout hook codex")]).unwrap();
        assert_eq!(install(Some(&once), &[hook("/bin/capout hook codex")]).unwrap(), once);
        let moved = install(Some(&once), &[hook("'/opt/new place/capout' hook codex")]).unwrap();
        assert_eq!(moved.matches("hook codex").count(), 1, "{moved}");
        assert!(moved.contains("audit.sh") && moved.contains("new place"), "{moved}");
        assert_eq!(remove(&moved, &[hook("x")], &none).unwrap().0, before);
        let fresh = install(None, &[hook("capout hook codex")]).unwrap();
        assert_eq!(remove(&fresh, &[hook("x")], &none).unwrap().0, "{}\n");
    }

    #[test]
    fn a_list_element_that_runs_a_users_hook_too_is_not_capouts() {
        let before = r#"{"hooks": {"PreToolUse": [{"hooks": [{"command": "capout hook codex"}, {"command": "audit.sh"}]}]}}"#;
        assert_eq!(remove(before, &[hook("x")], &none).unwrap(), (before.to_owned(), Vec::new()));
    }

    #[test]
    fn a_guarded_key_of_someone_else_is_left_and_refused() {
        fn mine(s: &str) -> bool {
            s.ends_with("/capout-claude-code")
        }
        let e = Entry {
            keys: vec!["env".into(), "P".into()],
            value: json!("/h/capout-claude-code"),
            kind: Kind::Guarded(mine),
        };
        let theirs = r#"{"env":{"P":"/usr/local/bin/my-own-prefix"}}"#;
        assert_eq!(
            install(Some(theirs), std::slice::from_ref(&e)).unwrap_err(),
            "env.P is already set to \"/usr/local/bin/my-own-prefix\"; capout leaves it"
        );
        assert_eq!(remove(theirs, std::slice::from_ref(&e), &none).unwrap(), (theirs.to_owned(), Vec::new()));
        let old = r#"{"env":{"P":"/old/capout-claude-code"}}"#;
        assert_eq!(
            install(Some(old), std::slice::from_ref(&e)).unwrap(),
            r#"{"env":{"P":"/h/capout-claude-code"}}"#
        );
    }

    #[test]
    fn bad_files_are_errors_that_say_where() {
        assert_eq!(check("{\n  a: 1\n}").unwrap_err(), "a key must be a string at line 2 column 3");
        assert_eq!(check("[1]").unwrap_err(), "not a JSON object");
        assert_eq!(check("{\"a\": 1} x").unwrap_err(), "more after the value at line 1 column 10");
        assert!(check(&"[".repeat(100_000)).is_err());
        assert!(check("{\"a\": \"\\ud800\"}").is_ok());
        let e = key(&["a", "b"], json!(1));
        assert_eq!(install(Some("{\"a\": 3}"), &[e]).unwrap_err(), "'a' is not an object");
    }

    #[test]
    fn a_backslash_before_a_character_outside_ascii_is_an_error_not_a_panic() {
        assert_eq!(
            check("{\"a\": \"\\é\"}").unwrap_err(),
            "an unknown escape in a string at line 1 column 9"
        );
        assert_eq!(check("{\"\\😀\": 1}").unwrap_err(), "an unknown escape in a string at line 1 column 4");
        assert_eq!(check("{\"a\": \"\\").unwrap_err(), "an unknown escape in a string at line 1 column 9");
    }

    #[test]
    fn a_number_with_a_leading_zero_is_refused() {
        assert_eq!(check("{\"a\": 0001}").unwrap_err(), "a number with a leading zero at line 1 column 7");
        assert_eq!(check("{\"a\": [-01.5]}").unwrap_err(), "a number with a leading zero at line 1 column 8");
        assert!(check("{\"a\": [0, -0, 0.01, 0e5, 10]}").is_ok());
    }

    #[test]
    fn a_comment_beside_capouts_entry_stays_when_the_entry_is_taken_out() {
        let e = key(&["env", "K"], json!("v"));
        let kept = |k: &[String]| k == ["env"];
        for (before, after) in [
            ("{\"env\": {\"K\": \"v\", /* next */ \"x\": 1}}", "{\"env\": {/* next */ \"x\": 1}}"),
            ("{\"env\": {\"x\": 1, /* capout's */ \"K\": \"v\"}}", "{\"env\": {\"x\": 1 /* capout's */}}"),
            ("{\"env\": {\"x\": 1, // capout's\n  \"K\": \"v\"\n}}", "{\"env\": {\"x\": 1 // capout's\n\n}}"),
            ("{\"env\": {\"K\": \"v\" /* mine */, }}", "{\"env\": { /* mine */ }}"),
            ("{\"env\": {\"K\": \"v\" // mine\n, \"x\": 1}}", "{\"env\": { // mine\n\"x\": 1}}"),
        ] {
            assert_eq!(remove(before, std::slice::from_ref(&e), &kept).unwrap().0, after, "{before}");
        }
    }

    #[test]
    fn the_blanks_of_an_empty_object_of_the_users_come_back() {
        let e = key(&["env", "K"], json!("v"));
        let kept = |k: &[String]| k == ["env"];
        for before in [
            "{\"env\": { }}",
            "{\"env\": {/* c */}}",
            "{\n  \"env\": { }\n}\n",
            "{\n  \"env\": { // c\n  }\n}\n",
            "{\r\n\t\"env\": {\t}\r\n}",
            "{\n  \"env\": {}\n}\n",
        ] {
            let after = install(Some(before), std::slice::from_ref(&e)).unwrap();
            assert_eq!(remove(&after, std::slice::from_ref(&e), &kept).unwrap().0, before, "{after}");
        }
    }

    #[test]
    fn the_spacing_of_a_new_member_holds_no_comment_of_the_users() {
        let e = key(&["K"], json!(1));
        let after = install(Some("{\"a\": 1, /* x */ \"b\": 2}"), std::slice::from_ref(&e)).unwrap();
        assert_eq!(after, "{\"a\": 1, /* x */ \"b\": 2, \"K\": 1}");
    }

    #[test]
    fn a_byte_order_mark_is_kept() {
        let e = key(&["k"], json!(true));
        let before = "\u{feff}{\"a\": 1}\n";
        let after = install(Some(before), std::slice::from_ref(&e)).unwrap();
        assert_eq!(after, "\u{feff}{\"a\": 1, \"k\": true}\n");
        assert_eq!(remove(&after, std::slice::from_ref(&e), &none).unwrap().0, before);
        assert_eq!(
            install(Some("\u{feff}"), std::slice::from_ref(&e)).unwrap(),
            "\u{feff}{\n  \"k\": true\n}\n"
        );
        assert_eq!(check("{}\u{feff}").unwrap_err(), "more after the value at line 1 column 3");
    }

    #[test]
    fn a_file_of_comments_keeps_its_blank_lines_and_its_line_ends() {
        let e = key(&["k"], json!(true));
        assert_eq!(
            install(Some("// mine\r\n\r\n"), std::slice::from_ref(&e)).unwrap(),
            "// mine\r\n\r\n{\r\n  \"k\": true\r\n}\r\n"
        );
        assert_eq!(
            install(Some("/* mine */"), std::slice::from_ref(&e)).unwrap(),
            "/* mine */\n{\n  \"k\": true\n}\n"
        );
        assert_eq!(
            install(Some("// mine"), std::slice::from_ref(&e)).unwrap(),
            "// mine\n{\n  \"k\": true\n}\n"
        );
    }

    #[test]
    fn a_comment_inside_capouts_entry_stays_when_it_is_replaced_or_taken_out() {
        let e = key(&["mcp", "capout"], json!({"command": "/new/capout"}));
        let kept = |k: &[String]| k == ["mcp"];
        let before = "{\"mcp\": {\"capout\" /* mine */: {\"command\": \"/old/capout\" // moved\n}}}";
        let after = install(Some(before), std::slice::from_ref(&e)).unwrap();
        assert_eq!(
            after,
            "{\"mcp\": {\"capout\" /* mine */: // moved\n{\n  \"command\": \"/new/capout\"\n}}}"
        );
        assert_eq!(
            remove(&after, std::slice::from_ref(&e), &kept).unwrap().0,
            "{\"mcp\": {/* mine */// moved\n}}"
        );
    }

    #[test]
    fn an_empty_object_over_lines_comes_back_as_it_was() {
        let e = key(&["K"], json!("v"));
        for before in ["{\n }", "{\n\n}\n", "{\r\n\t\r\n}"] {
            let after = install(Some(before), std::slice::from_ref(&e)).unwrap();
            assert_eq!(remove(&after, std::slice::from_ref(&e), &none).unwrap().0, before, "{after:?}");
        }
    }

    #[test]
    fn every_member_of_capouts_name_is_taken_out() {
        let e = key(&["mcp", "capout"], json!(1));
        let kept = |k: &[String]| k == ["mcp"];
        let (after, taken) =
            remove("{\"mcp\": {\"capout\": 1, \"x\": 0, \"capout\": 2}}", &[e], &kept).unwrap();
        assert_eq!((after.as_str(), taken), ("{\"mcp\": {\"x\": 0}}", vec!["mcp.capout".to_owned()]));
    }

    #[test]
    fn a_lone_surrogate_leaves_the_escape_after_it_as_it_is() {
        assert!(has("{\"\\ud800\\u0041\": 1}", &["\u{fffd}A".to_owned()]));
        assert!(has("{\"\\ud83d\\ude00\\udc00\": 1}", &["😀\u{fffd}".to_owned()]));
        assert!(has("{\"\\ud800\\ud83d\\ude00\": 1}", &["\u{fffd}😀".to_owned()]));
    }

    #[test]
    fn a_file_of_blanks_or_comments_gets_an_object() {
        let e = key(&["k"], json!(true));
        assert_eq!(install(Some(""), std::slice::from_ref(&e)).unwrap(), "{\n  \"k\": true\n}\n");
        assert_eq!(
            install(Some("// mine\n"), std::slice::from_ref(&e)).unwrap(),
            "// mine\n{\n  \"k\": true\n}\n"
        );
    }
}
