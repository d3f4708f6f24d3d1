//! The span editor tried on documents it has never seen: JSON and JSON
//! with comments in every layout, capout's entries of every harness put
//! in and taken out. The oracle is a reader of its own ([`read`]), which
//! keeps each scalar and key as it is written, so that a changed byte of
//! the user's shows; what capout should have done is worked out on that
//! reader's values ([`expect`]), not with merge.rs's functions.

use proptest::prelude::*;

const BOM: char = '\u{feff}';
use serde_json::Value;

use super::{install, remove};
use crate::harness::Harness;
use crate::init::{Change, Context, Entry, Kind, Options, Scope};

/// A value as it is written: a scalar's text, or a container of them
/// (an object's keys as written between their quotes).
#[derive(Clone, Debug, PartialEq)]
enum J {
    Obj(Vec<(String, J)>),
    Arr(Vec<J>),
    Raw(String),
}

// ---------------------------------------------------------------- oracle

/// The oracle's reader: JSON, or with `jsonc` JSON with comments and
/// trailing commas, after an optional byte order mark. `None` for a
/// document that is not one.
fn read(text: &str, jsonc: bool) -> Option<J> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut r = Reader { s: text.as_bytes(), i: 0, jsonc };
    r.blank()?;
    let v = r.value()?;
    r.blank()?;
    (r.i == r.s.len() && matches!(v, J::Obj(_))).then_some(v)
}

struct Reader<'a> {
    s: &'a [u8],
    i: usize,
    jsonc: bool,
}

impl Reader<'_> {
    fn at(&self, b: &[u8]) -> bool {
        self.s[self.i..].starts_with(b)
    }

    fn blank(&mut self) -> Option<()> {
        loop {
            match self.s.get(self.i) {
                Some(b' ' | b'\t' | b'\n' | b'\r') => self.i += 1,
                _ if self.jsonc && self.at(b"//") => {
                    while self.s.get(self.i).is_some_and(|&b| b != b'\n') {
                        self.i += 1;
                    }
                }
                _ if self.jsonc && self.at(b"/*") => {
                    let end = self.s[self.i + 2..].windows(2).position(|w| w == b"*/")?;
                    self.i += 2 + end + 2;
                }
                _ => return Some(()),
            }
        }
    }

    fn value(&mut self) -> Option<J> {
        match *self.s.get(self.i)? {
            b'{' => {
                self.i += 1;
                let mut members = Vec::new();
                self.blank()?;
                while self.s.get(self.i) != Some(&b'}') {
                    let key = self.string()?;
                    self.blank()?;
                    (self.s.get(self.i) == Some(&b':')).then_some(())?;
                    self.i += 1;
                    self.blank()?;
                    let value = self.value()?;
                    members.push((key[1..key.len() - 1].to_owned(), value));
                    self.blank()?;
                    if !self.comma(b'}')? {
                        break;
                    }
                }
                self.i += 1;
                Some(J::Obj(members))
            }
            b'[' => {
                self.i += 1;
                let mut items = Vec::new();
                self.blank()?;
                while self.s.get(self.i) != Some(&b']') {
                    items.push(self.value()?);
                    self.blank()?;
                    if !self.comma(b']')? {
                        break;
                    }
                }
                self.i += 1;
                Some(J::Arr(items))
            }
            b'"' => self.string().map(J::Raw),
            b't' | b'f' | b'n' => {
                let word = ["true", "false", "null"].into_iter().find(|w| self.at(w.as_bytes()))?;
                self.i += word.len();
                Some(J::Raw(word.to_owned()))
            }
            _ => self.number().map(J::Raw),
        }
    }

    /// After an item: `true` when another follows, `false` at `close`
    /// (which is left to be taken).
    fn comma(&mut self, close: u8) -> Option<bool> {
        match *self.s.get(self.i)? {
            b',' => {
                self.i += 1;
                self.blank()?;
                if self.s.get(self.i) == Some(&close) {
                    return self.jsonc.then_some(false);
                }
                Some(true)
            }
            b if b == close => Some(false),
            _ => None,
        }
    }

    fn string(&mut self) -> Option<String> {
        let start = self.i;
        (self.s.get(self.i) == Some(&b'"')).then_some(())?;
        self.i += 1;
        loop {
            match *self.s.get(self.i)? {
                b'"' => break,
                b'\\' => {
                    self.i += 1;
                    match *self.s.get(self.i)? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.i += 1,
                        b'u' => {
                            let hex = self.s.get(self.i + 1..self.i + 5)?;
                            hex.iter().all(u8::is_ascii_hexdigit).then_some(())?;
                            self.i += 5;
                        }
                        _ => return None,
                    }
                }
                b if b < 0x20 => return None,
                _ => self.i += 1,
            }
        }
        self.i += 1;
        String::from_utf8(self.s[start..self.i].to_vec()).ok()
    }

    fn number(&mut self) -> Option<String> {
        let start = self.i;
        let digits = |r: &mut Self| {
            let from = r.i;
            while r.s.get(r.i).is_some_and(u8::is_ascii_digit) {
                r.i += 1;
            }
            r.i - from
        };
        if self.s.get(self.i) == Some(&b'-') {
            self.i += 1;
        }
        if self.s.get(self.i) == Some(&b'0') {
            self.i += 1;
        } else if digits(self) == 0 {
            return None;
        }
        if self.s.get(self.i) == Some(&b'.') {
            self.i += 1;
            (digits(self) > 0).then_some(())?;
        }
        if matches!(self.s.get(self.i), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.s.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            (digits(self) > 0).then_some(())?;
        }
        String::from_utf8(self.s[start..self.i].to_vec()).ok()
    }
}

/// Whether `text` holds nothing but blanks and comments.
fn blank_only(text: &str) -> bool {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut r = Reader { s: text.as_bytes(), i: 0, jsonc: true };
    r.blank().is_some() && r.i == r.s.len()
}

/// A string's text as written (between its quotes), decoded into UTF-16
/// units, as a JavaScript reader holds it (a lone surrogate too).
fn units(written: &str) -> Vec<u16> {
    let mut out = Vec::new();
    let mut chars = written.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.extend(c.encode_utf16(&mut [0; 2]).iter());
            continue;
        }
        let e = chars.next().unwrap();
        out.push(match e {
            'b' => 8,
            'f' => 12,
            'n' => 10,
            'r' => 13,
            't' => 9,
            'u' => u16::from_str_radix(&chars.by_ref().take(4).collect::<String>(), 16).unwrap(),
            c => c as u16,
        });
    }
    out
}

fn is(written: &str, name: &str) -> bool {
    units(written) == name.encode_utf16().collect::<Vec<_>>()
}

/// A string scalar's value (lossy), if `raw` is one.
fn string_of(raw: &str) -> Option<String> {
    raw.starts_with('"').then(|| String::from_utf16_lossy(&units(&raw[1..raw.len() - 1])))
}

/// The value at `keys`, each key the last member of its name.
fn find<'a>(mut node: &'a J, keys: &[String]) -> Option<&'a J> {
    for k in keys {
        let J::Obj(members) = node else { return None };
        node = &members.iter().rev().find(|(m, _)| is(m, k))?.1;
    }
    Some(node)
}

fn from_value(v: &Value) -> J {
    match v {
        Value::Object(map) => J::Obj(map.iter().map(|(k, v)| (key_text(k), from_value(v))).collect()),
        Value::Array(items) => J::Arr(items.iter().map(from_value).collect()),
        scalar => J::Raw(scalar.to_string()),
    }
}

fn key_text(k: &str) -> String {
    let quoted = Value::from(k).to_string();
    quoted[1..quoted.len() - 1].to_owned()
}

/// Whether `node` holds `value`: the same keys once each, the same
/// strings, and scalars written as `serde_json` writes them.
fn same(node: &J, value: &Value) -> bool {
    match (node, value) {
        (J::Obj(members), Value::Object(map)) => {
            members.len() == map.len()
                && map.iter().all(|(k, v)| {
                    let found: Vec<_> = members.iter().filter(|(m, _)| is(m, k)).collect();
                    found.len() == 1 && same(&found[0].1, v)
                })
        }
        (J::Arr(items), Value::Array(values)) => {
            items.len() == values.len() && items.iter().zip(values).all(|(n, v)| same(n, v))
        }
        (J::Raw(raw), Value::String(s)) => string_of(raw).as_deref() == Some(s),
        (J::Raw(raw), v) if !v.is_object() && !v.is_array() => raw.as_str() == v.to_string().as_str(),
        _ => false,
    }
}

fn commands<'a>(node: &'a J, out: &mut Vec<&'a str>) {
    match node {
        J::Obj(members) => {
            for (k, v) in members {
                if let (true, J::Raw(raw)) = (is(k, "command"), v) {
                    out.push(raw);
                }
                commands(v, out);
            }
        }
        J::Arr(items) => items.iter().for_each(|i| commands(i, out)),
        J::Raw(_) => {}
    }
}

/// The elements of a list that are capout's: every `command` string in
/// them passes the test.
fn mine(items: &[J], is_ours: fn(&str) -> bool) -> Vec<usize> {
    (0..items.len())
        .filter(|&i| {
            let mut found = Vec::new();
            commands(&items[i], &mut found);
            !found.is_empty() && found.iter().all(|c| string_of(c).is_some_and(|s| is_ours(&s)))
        })
        .collect()
}

/// Whether `doc` holds an entry of capout's (of `entries`): a key of
/// capout's or a guarded key that passes its test, also where a later
/// member of the name hides it.
fn holds_ours(doc: &J, entries: &[Entry]) -> bool {
    entries.iter().any(|e| {
        let (last, parents) = e.keys.split_last().unwrap();
        let Some(J::Obj(members)) = find(doc, parents) else { return false };
        let named = || members.iter().filter(|(m, _)| is(m, last)).map(|(_, v)| v);
        match e.kind {
            Kind::List(is_ours) => {
                matches!(named().next_back(), Some(J::Arr(items)) if !mine(items, is_ours).is_empty())
            }
            Kind::Key => named().next().is_some(),
            // The model makes no servers to wrap (see merge::wrap's tests).
            Kind::Wrap(_) => false,
            Kind::Guarded(is_ours) => {
                named().any(|v| matches!(v, J::Raw(raw) if string_of(raw).is_some_and(|s| is_ours(&s))))
            }
        }
    })
}

/// What `doc` should hold once `entries` are in: `Err` where capout must
/// refuse (a path through a value that is not an object, a list that is
/// not one, a guarded key of someone else's).
fn expect(doc: &J, entries: &[Entry]) -> Result<J, ()> {
    let mut doc = doc.clone();
    for e in entries {
        expect_one(&mut doc, e)?;
    }
    Ok(doc)
}

fn expect_one(root: &mut J, e: &Entry) -> Result<(), ()> {
    let list = matches!(e.kind, Kind::List(_));
    let mut node = root;
    for (d, k) in e.keys.iter().enumerate() {
        let J::Obj(members) = node else { return Err(()) };
        let Some(i) = members.iter().rposition(|(m, _)| is(m, k)) else {
            let mut v = if list { Value::Array(vec![e.value.clone()]) } else { e.value.clone() };
            for k in e.keys[d + 1..].iter().rev() {
                v = Value::Object([(k.clone(), v)].into_iter().collect());
            }
            members.push((key_text(k), from_value(&v)));
            return Ok(());
        };
        node = &mut members[i].1;
        if d + 1 < e.keys.len() && !matches!(node, J::Obj(_)) {
            return Err(());
        }
    }
    match e.kind {
        Kind::List(is_ours) => {
            let J::Arr(items) = node else { return Err(()) };
            let ours = mine(items, is_ours);
            if let [one] = ours[..]
                && same(&items[one], &e.value)
            {
                return Ok(());
            }
            for &i in ours.iter().rev() {
                items.remove(i);
            }
            items.push(from_value(&e.value));
        }
        Kind::Wrap(_) => {}
        Kind::Key | Kind::Guarded(_) => {
            if same(node, &e.value) {
                return Ok(());
            }
            if let Kind::Guarded(is_ours) = e.kind {
                let J::Raw(raw) = node else { return Err(()) };
                if !string_of(raw).is_some_and(|s| is_ours(&s)) {
                    return Err(());
                }
            }
            *node = from_value(&e.value);
        }
    }
    Ok(())
}

/// What `doc` (after an install) should hold once capout's `entries`
/// are taken out: none of capout's, and the objects and lists on their
/// paths that `existed` does not know gone when they are left empty.
fn expect_removed(doc: &J, entries: &[Entry], existed: &dyn Fn(&[String]) -> bool) -> J {
    let mut doc = doc.clone();
    for e in entries {
        let Some((last, parents)) = e.keys.split_last() else { continue };
        let Some(J::Obj(members)) = find_mut(&mut doc, parents) else { continue };
        let mut emptied = false;
        match e.kind {
            Kind::List(is_ours) => {
                let Some((_, J::Arr(items))) = members.iter_mut().rev().find(|(m, _)| is(m, last)) else {
                    continue;
                };
                let ours = mine(items, is_ours);
                if ours.is_empty() {
                    continue;
                }
                for &i in ours.iter().rev() {
                    items.remove(i);
                }
                emptied = items.is_empty() && !existed(&e.keys);
            }
            Kind::Key => members.retain(|(m, _)| !is(m, last)),
            Kind::Wrap(_) => continue,
            Kind::Guarded(is_ours) => members.retain(|(m, v)| {
                !(is(m, last) && matches!(v, J::Raw(raw) if string_of(raw).is_some_and(|s| is_ours(&s))))
            }),
        }
        let mut depth = if emptied { e.keys.len() } else { e.keys.len() - 1 };
        while depth > 0 {
            let path = &e.keys[..depth];
            let empty = matches!(find(&doc, path), Some(J::Obj(m)) if m.is_empty())
                || matches!(find(&doc, path), Some(J::Arr(a)) if a.is_empty());
            if !empty || existed(path) {
                break;
            }
            let Some(J::Obj(members)) = find_mut(&mut doc, &path[..depth - 1]) else { break };
            let i = members.iter().rposition(|(m, _)| is(m, &path[depth - 1])).unwrap();
            members.remove(i);
            depth -= 1;
        }
    }
    doc
}

fn find_mut<'a>(mut node: &'a mut J, keys: &[String]) -> Option<&'a mut J> {
    for k in keys {
        let J::Obj(members) = node else { return None };
        node = &mut members.iter_mut().rev().find(|(m, _)| is(m, k))?.1;
    }
    Some(node)
}

// ------------------------------------------------------------- documents

/// A piece of the blanks between two tokens.
#[derive(Clone, Debug)]
enum Piece {
    Space,
    Tab,
    Newline,
    /// `// TEXT` to the end of the line.
    Line(String),
    /// `/* TEXT */`.
    Block(String),
}

/// How a document is laid out: its gaps and trailing commas are taken in
/// turn, over and over.
#[derive(Clone, Debug)]
struct Layout {
    gaps: Vec<Vec<Piece>>,
    trailing: Vec<bool>,
    jsonc: bool,
    crlf: bool,
    bom: bool,
    /// Whether the file ends with a newline (else it may end in a `//`
    /// comment).
    final_newline: bool,
}

/// A document's text, and every comment in it.
struct Doc {
    text: String,
    comments: Vec<String>,
}

struct Writer<'a> {
    layout: &'a Layout,
    out: String,
    gap: usize,
    comma: usize,
    comments: Vec<String>,
}

impl Writer<'_> {
    fn nl(&self) -> &'static str {
        if self.layout.crlf { "\r\n" } else { "\n" }
    }

    fn gap(&mut self) {
        let pieces = &self.layout.gaps[self.gap % self.layout.gaps.len()];
        self.gap += 1;
        for piece in pieces {
            match piece {
                Piece::Space => self.out.push(' '),
                Piece::Tab => self.out.push('\t'),
                Piece::Newline => self.out.push_str(self.nl()),
                Piece::Line(t) | Piece::Block(t) if self.layout.jsonc => {
                    let n = self.comments.len();
                    let comment = if matches!(piece, Piece::Line(_)) {
                        format!("//{t}#{n}#")
                    } else {
                        format!("/*{t}#{n}#*/")
                    };
                    self.out.push_str(&comment);
                    self.comments.push(comment);
                    if matches!(piece, Piece::Line(_)) {
                        self.out.push_str(self.nl());
                    }
                }
                Piece::Line(_) | Piece::Block(_) => {}
            }
        }
    }

    fn trailing(&mut self) -> bool {
        let t = self.layout.trailing[self.comma % self.layout.trailing.len()];
        self.comma += 1;
        t && self.layout.jsonc
    }

    fn value(&mut self, j: &J) {
        match j {
            J::Raw(raw) => self.out.push_str(raw),
            J::Obj(members) => {
                self.out.push('{');
                for (n, (k, v)) in members.iter().enumerate() {
                    self.gap();
                    self.out.push('"');
                    self.out.push_str(k);
                    self.out.push('"');
                    self.gap();
                    self.out.push(':');
                    self.gap();
                    self.value(v);
                    self.gap();
                    if n + 1 < members.len() || self.trailing() {
                        self.out.push(',');
                    }
                }
                self.gap();
                self.out.push('}');
            }
            J::Arr(items) => {
                self.out.push('[');
                for (n, v) in items.iter().enumerate() {
                    self.gap();
                    self.value(v);
                    self.gap();
                    if n + 1 < items.len() || self.trailing() {
                        self.out.push(',');
                    }
                }
                self.gap();
                self.out.push(']');
            }
        }
    }
}

fn write(root: &J, layout: &Layout) -> Doc {
    let mut w = Writer { layout, out: String::new(), gap: 0, comma: 0, comments: Vec::new() };
    if layout.bom {
        w.out.push('\u{feff}');
    }
    w.gap();
    w.value(root);
    w.gap();
    if layout.final_newline {
        let nl = w.nl();
        if !w.out.ends_with(nl) {
            w.out.push_str(nl);
        }
    } else if w.out.ends_with('\n') && w.out.trim_end().rsplit('\n').next().is_some_and(|l| l.contains("//"))
    {
        // The file ends in its `//` comment, with no newline after it.
        let cut = if w.out.ends_with("\r\n") { 2 } else { 1 };
        w.out.truncate(w.out.len() - cut);
    }
    Doc { text: w.out, comments: w.comments }
}

/// Comment text: anything but a newline, and no `*/`; JSON's own
/// characters, quotes and capout's words among them.
fn comment_text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just(" "),
            Just("\""),
            Just("'"),
            Just("{"),
            Just("}"),
            Just("["),
            Just(","),
            Just(":"),
            Just("/"),
            Just("*"),
            Just("//"),
            Just("/*"),
            Just("\\"),
            Just("é"),
            Just("\u{2028}"),
            Just("capout hook codex"),
            Just("x"),
        ],
        0..6,
    )
    .prop_map(|parts| parts.concat().replace("*/", "* /"))
}

fn piece() -> impl Strategy<Value = Piece> {
    prop_oneof![
        4 => Just(Piece::Space),
        1 => Just(Piece::Tab),
        3 => Just(Piece::Newline),
        1 => comment_text().prop_map(Piece::Line),
        1 => comment_text().prop_map(Piece::Block),
    ]
}

fn layout() -> impl Strategy<Value = Layout> {
    (
        prop::collection::vec(prop::collection::vec(piece(), 0..4), 1..12),
        prop::collection::vec(any::<bool>(), 1..6),
        any::<bool>(),
        any::<bool>(),
        prop::bool::weighted(0.1),
        any::<bool>(),
    )
        .prop_map(|(gaps, trailing, jsonc, crlf, bom, final_newline)| Layout {
            gaps,
            trailing,
            jsonc,
            crlf,
            bom,
            final_newline,
        })
}

/// The text of a string between its quotes: escapes of every kind (a
/// surrogate pair, a lone surrogate), characters outside ASCII, and the
/// characters that open a comment.
fn string_text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("a"),
            Just(" "),
            Just("é"),
            Just("😀"),
            Just("\u{2028}"),
            Just("//"),
            Just("/*"),
            Just("*/"),
            Just("{"),
            Just(","),
            Just("'"),
            Just("\\\""),
            Just("\\\\"),
            Just("\\/"),
            Just("\\b\\f\\n\\r\\t"),
            Just("\\u0041"),
            Just("\\u00e9"),
            Just("\\ud83d\\ude00"),
            Just("\\uD83D\\uDE00"),
            Just("\\ud800"),
            Just("\\udc00x"),
            Just("\\ud800\\u0041"),
            Just("capout hook codex"),
        ],
        0..5,
    )
    .prop_map(|parts| parts.concat())
}

fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("123456789012345678901234567890".to_owned()),
        Just("18446744073709551616".to_owned()),
        Just("-9223372036854775809".to_owned()),
        Just("0.10000000000000000555".to_owned()),
        Just("1e400".to_owned()),
        Just("-0".to_owned()),
        Just("1E+2".to_owned()),
        Just("10000".to_owned()),
        "-?(0|[1-9][0-9]{0,29})(\\.[0-9]{1,20})?([eE][+-]?[0-9]{1,3})?",
    ]
}

fn scalar() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("true".to_owned()),
        Just("false".to_owned()),
        Just("null".to_owned()),
        number(),
        string_text().prop_map(|s| format!("\"{s}\"")),
    ]
}

/// Keys: capout's own names (also written with an escape), names like
/// them, and any string.
fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("env".to_owned()),
        Just("\\u0065nv".to_owned()),
        Just("hooks".to_owned()),
        Just("PreToolUse".to_owned()),
        Just("BeforeTool".to_owned()),
        Just("mcpServers".to_owned()),
        Just("mcp".to_owned()),
        Just("capout".to_owned()),
        Just("Capout".to_owned()),
        Just("CLAUDE_CODE_SHELL_PREFIX".to_owned()),
        Just("command".to_owned()),
        Just("matcher".to_owned()),
        string_text(),
    ]
}

/// A hook of the user's own, in the shape of capout's.
fn users_hook() -> impl Strategy<Value = J> {
    let command = prop_oneof![
        Just("audit.sh"),
        Just("capout hook codex --x"),
        Just("/opt/capout/bin/lint hook"),
        Just("audit.sh hook codex"),
        Just("capoutx hook gemini"),
        // capout's own, of an older setup.
        Just("/old/capout hook codex"),
        Just("/old/capout hook claude-code"),
        Just("/old/.gemini/capout-gemini/bash hook gemini"),
    ];
    (command, any::<bool>()).prop_map(|(command, two)| {
        let one = J::Obj(vec![
            ("type".into(), J::Raw("\"command\"".into())),
            ("command".into(), J::Raw(format!("\"{command}\""))),
        ]);
        let mut hooks = vec![one];
        if two {
            hooks.push(J::Obj(vec![("command".into(), J::Raw("\"capout hook codex\"".into()))]));
        }
        J::Obj(vec![("matcher".into(), J::Raw("\"Bash\"".into())), ("hooks".into(), J::Arr(hooks))])
    })
}

fn tree() -> impl Strategy<Value = J> {
    let leaf = scalar().prop_map(J::Raw);
    leaf.prop_recursive(4, 40, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(J::Arr),
            prop::collection::vec((key(), inner), 0..5).prop_map(J::Obj),
        ]
    })
}

/// A member of the root: any, or one on capout's paths with the user's
/// own things in it.
fn root_member() -> impl Strategy<Value = (String, J)> {
    let event = prop_oneof![Just("PreToolUse"), Just("BeforeTool"), Just("PostToolUse")];
    let hooks = (event, prop::collection::vec(users_hook(), 0..3))
        .prop_map(|(e, list)| ("hooks".to_owned(), J::Obj(vec![(e.to_owned(), J::Arr(list))])));
    let servers =
        (prop_oneof![Just("mcpServers"), Just("mcp")], prop::collection::vec((key(), tree()), 0..3))
            .prop_map(|(k, members)| (k.to_owned(), J::Obj(members)));
    let prefix = prop_oneof![
        scalar(),
        Just("\"/old/capout-claude-code\"".to_owned()),
        Just("\"/usr/local/bin/my-prefix\"".to_owned()),
    ]
    .prop_map(|v| ("CLAUDE_CODE_SHELL_PREFIX".to_owned(), J::Raw(v)));
    let env = prop::collection::vec(prop_oneof![(key(), scalar().prop_map(J::Raw)), prefix], 0..3)
        .prop_map(|members| ("env".to_owned(), J::Obj(members)));
    prop_oneof![4 => (key(), tree()), 1 => hooks, 1 => servers, 1 => env]
}

fn document() -> impl Strategy<Value = J> {
    prop::collection::vec(root_member(), 0..6).prop_map(J::Obj)
}

/// capout's entries, as each harness's own plan makes them.
fn entries_of(harness: Harness, scope: Scope) -> Vec<Entry> {
    let cx = Context {
        opts: Options {
            harness,
            scope,
            mcp: true,
            tools: false,
            wrap_mcp: false,
            uninstall: false,
            dry_run: false,
        },
        home: "/home/u".into(),
        project: "/home/u/proj".into(),
        capout: "/opt/my 'tools'/capout".into(),
    };
    let plan = super::super::plan_of(harness)(&cx);
    let mut entries = Vec::new();
    for change in plan.unwrap().changes {
        if let Change::Merge { path, entries: e } = change
            && path.extension().is_some_and(|x| x == "json")
        {
            entries.extend(e);
        }
    }
    entries
}

fn harness() -> impl Strategy<Value = (Harness, Scope)> {
    (
        prop_oneof![
            Just(Harness::ClaudeCode),
            Just(Harness::Codex),
            Just(Harness::Gemini),
            Just(Harness::Opencode)
        ],
        prop_oneof![Just(Scope::User), Just(Scope::Project)],
    )
}

// ---------------------------------------------------------------- checks

/// Every property of one install and uninstall of `entries` in `doc`.
fn check(doc: &Doc, layout: &Layout, entries: &[Entry]) -> Result<(), TestCaseError> {
    let before = &doc.text;
    let model =
        read(before, layout.jsonc).ok_or_else(|| TestCaseError::fail("the generated text is no document"))?;
    let existed = |keys: &[String]| find(&model, keys).is_some();
    let ours = holds_ours(&model, entries);

    // Without capout's entries, an uninstall changes nothing.
    if !ours {
        let (back, taken) = remove(before, entries, &existed).map_err(TestCaseError::fail)?;
        prop_assert_eq!(&back, before, "uninstall of a file without capout's entries");
        prop_assert!(taken.is_empty());
    }

    let expected = expect(&model, entries);
    let after = match install(Some(before), entries) {
        Ok(after) => after,
        Err(why) => {
            prop_assert!(expected.is_err(), "refused a document it can edit: {}", why);
            return Ok(());
        }
    };
    prop_assert!(expected.is_ok(), "edited a document it must refuse:\n{}", after);
    let got = read(&after, layout.jsonc);
    prop_assert!(got.is_some(), "the file no longer parses:\n{}", after);
    prop_assert_eq!(got.unwrap(), expected.unwrap(), "the values after install:\n{}", after);
    if !layout.jsonc {
        // What capout writes is JSON where the file is.
        prop_assert!(read(&after, false).is_some(), "JSON became JSONC:\n{}", after);
        // serde_json's reader too, which checks each value's syntax
        // without making numbers of them.
        let stripped = after.strip_prefix(BOM).unwrap_or(&after);
        prop_assert!(
            serde_json::from_str::<serde::de::IgnoredAny>(stripped).is_ok(),
            "serde_json refuses:\n{}",
            after
        );
    }
    for comment in &doc.comments {
        prop_assert_eq!(
            after.matches(comment.as_str()).count(),
            1,
            "comment {} after install:\n{}",
            comment,
            after
        );
    }
    if layout.bom {
        prop_assert!(after.starts_with(BOM), "the byte order mark");
    }

    // Install twice is install once.
    prop_assert_eq!(
        &install(Some(&after), entries).map_err(TestCaseError::fail)?,
        &after,
        "a second install"
    );

    // Uninstall after install gives the file back.
    let (back, taken) = remove(&after, entries, &existed).map_err(TestCaseError::fail)?;
    prop_assert!(!taken.is_empty());
    let got = read(&back, layout.jsonc);
    prop_assert!(got.is_some(), "the file no longer parses after uninstall:\n{}", back);
    prop_assert!(!holds_ours(got.as_ref().unwrap(), entries), "capout's entries left:\n{}", back);
    let installed = read(&after, layout.jsonc).unwrap();
    prop_assert_eq!(
        got.unwrap(),
        expect_removed(&installed, entries, &existed),
        "the values after uninstall:\n{}",
        back
    );
    for comment in &doc.comments {
        prop_assert_eq!(
            back.matches(comment.as_str()).count(),
            1,
            "comment {} after uninstall:\n{}",
            comment,
            back
        );
    }
    if !ours {
        // The one layout that cannot come back: an empty object or list of
        // the user's over lines with blanks alone in it, which capout's
        // entry fills as it fills `{}`, comes back as `{}`.
        if squeezed(before) == *before {
            prop_assert_eq!(&back, before, "uninstall after install, from:\n{}", after);
        } else {
            prop_assert_eq!(squeezed(&back), squeezed(before), "uninstall after install, from:\n{}", after);
        }
    }
    Ok(())
}

/// `text` with each `{` or `[` that blanks over lines alone part from its
/// closing bracket written `{}` or `[]`.
fn squeezed(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let c = text[i..].chars().next().unwrap();
        out.push(c);
        i += c.len_utf8();
        if c == '{' || c == '[' {
            let end = i + text[i..].len() - text[i..].trim_start_matches([' ', '\t', '\r', '\n']).len();
            let close = if c == '{' { b'}' } else { b']' };
            if b.get(end) == Some(&close) && text[i..end].contains('\n') {
                i = end;
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn install_and_uninstall_keep_every_byte_of_the_users(
        root in document(),
        layout in layout(),
        (harness, scope) in harness(),
    ) {
        let doc = write(&root, &layout);
        check(&doc, &layout, &entries_of(harness, scope))?;
    }

    /// A document with a byte changed, taken out or put in: an error or
    /// an edit, never a panic, and an edit only of what is a document.
    #[test]
    fn a_damaged_document_is_an_error_or_a_document(
        root in document(),
        layout in layout(),
        (harness, scope) in harness(),
        at in any::<prop::sample::Index>(),
        with in prop_oneof![Just(""), Just("\""), Just("\\"), Just("{"), Just("}"), Just(","), Just("/"),
                            Just("*"), Just("é"), Just("\u{1}"), Just("]"), Just(":"), Just("\\u12")],
        cut in any::<bool>(),
    ) {
        let doc = write(&root, &layout);
        let mut text = doc.text.clone();
        let mut i = at.index(text.len() + 1);
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        if cut && i < text.len() {
            let len = text[i..].chars().next().unwrap().len_utf8();
            text.replace_range(i..i + len, with);
        } else {
            text.insert_str(i, with);
        }
        let entries = entries_of(harness, scope);
        let valid = read(&text, true).is_some() || blank_only(&text);
        let installed = install(Some(&text), &entries);
        let _ = remove(&text, &entries, &|_| false);
        if !valid {
            prop_assert!(installed.is_err(), "edited what is no document:\n{:?}", text);
        }
    }
}
