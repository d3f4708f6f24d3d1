//! A naive model of the cut of JSON (`--json-items`): the whole input in
//! memory, parsed by recursive descent into a tree that keeps every byte,
//! then cut by walking the tree. It shares no code with the engine.
//!
//! Also: a generator of random JSON texts and JSON Lines (with their
//! corruptions), and the checks that relate an output to its input by
//! their values, parsed by `serde_json`.

// The model reads as the rules do: one function per rule.
#![allow(clippy::too_many_lines, clippy::missing_panics_doc)]

use std::collections::HashSet;
use std::ops::Range;
use std::sync::LazyLock;

use crate::Rng;

/// The most arrays and objects nested in one another that are kept.
pub const MAX_DEPTH: usize = 512;

/// What the cut keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cut {
    /// Items kept of each array and object.
    pub items: u64,
    /// Characters kept of each string; 0 for all.
    pub string_chars: u64,
    /// Units all the output may take.
    pub budget: u64,
    /// The budget counts bytes, not characters.
    pub bytes: bool,
    /// Documents kept.
    pub documents: u64,
}

/// What the cut did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    pub output: Vec<u8>,
    pub items_kept: u64,
    pub items: u64,
    pub arrays_cut: u64,
    pub strings_cut: u64,
    pub documents_kept: u64,
    pub documents: u64,
}

/// A value, with where its bytes are.
#[derive(Clone, Debug)]
enum Node {
    /// A string, number or literal: its text.
    Scalar(Range<usize>),
    /// A string: its text (quotes included).
    Str(Range<usize>),
    /// A value nested deeper than [`MAX_DEPTH`]: its text.
    Deep(Range<usize>),
    /// An array or an object: its opening bracket, its items, the
    /// whitespace before its closing bracket, and that bracket.
    Container { object: bool, items: Vec<Item>, close_space: Range<usize> },
}

/// An item: the bytes before it (whitespace, comma, whitespace), the key
/// of a member and the bytes between it and its value, and the value.
#[derive(Clone, Debug)]
struct Item {
    before: Range<usize>,
    key: Option<(Range<usize>, Range<usize>)>,
    value: Node,
}

/// A stream of documents, each with the whitespace before it, and the
/// whitespace after the last.
struct Stream {
    documents: Vec<(Range<usize>, Node)>,
    trailing: Range<usize>,
}

/// Every byte sequence that begins a UTF-8 character and does not finish
/// it: the prefixes of the encodings of every character.
static PREFIXES: LazyLock<HashSet<Vec<u8>>> = LazyLock::new(|| {
    let mut prefixes = HashSet::new();
    for c in (0..=0x10_ffff).filter_map(char::from_u32) {
        let mut buf = [0; 4];
        let bytes = c.encode_utf8(&mut buf).as_bytes();
        for len in 1..bytes.len() {
            prefixes.insert(bytes[..len].to_vec());
        }
    }
    prefixes
});

/// A parser by recursive descent; an error is the offset of the first byte
/// no JSON can have there (the input's length when it ends too soon).
struct Parser<'a> {
    text: &'a [u8],
    at: usize,
}

type Parsed<T> = Result<T, usize>;

impl Parser<'_> {
    fn peek(&self) -> Parsed<u8> {
        self.text.get(self.at).copied().ok_or(self.text.len())
    }

    fn space(&mut self) -> Range<usize> {
        let start = self.at;
        while matches!(self.text.get(self.at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
        start..self.at
    }

    fn expect(&mut self, b: u8) -> Parsed<()> {
        if self.peek()? != b {
            return Err(self.at);
        }
        self.at += 1;
        Ok(())
    }

    fn stream(&mut self) -> Parsed<Stream> {
        let mut documents = Vec::new();
        loop {
            let before = self.space();
            if self.at == self.text.len() {
                if documents.is_empty() {
                    return Err(self.at);
                }
                return Ok(Stream { documents, trailing: before });
            }
            if documents.is_empty() && !matches!(self.text[self.at], b'[' | b'{') {
                return Err(self.at);
            }
            // A document that is not an array or object ends at
            // whitespace or at the end.
            if let Some((_, Node::Scalar(_) | Node::Str(_))) = documents.last()
                && before.is_empty()
            {
                return Err(self.at);
            }
            let value = self.value(0)?;
            documents.push((before, value));
        }
    }

    fn value(&mut self, depth: usize) -> Parsed<Node> {
        match self.peek()? {
            b'[' | b'{' if depth == MAX_DEPTH => self.deep(),
            b'[' => self.container(false, depth),
            b'{' => self.container(true, depth),
            b'"' => self.string().map(Node::Str),
            b't' => self.word(b"true"),
            b'f' => self.word(b"false"),
            b'n' => self.word(b"null"),
            b'-' | b'0'..=b'9' => self.number(),
            _ => Err(self.at),
        }
    }

    fn container(&mut self, object: bool, depth: usize) -> Parsed<Node> {
        let close = if object { b'}' } else { b']' };
        self.at += 1;
        let mut items = Vec::new();
        let mut before = self.space();
        if self.peek()? == close {
            self.at += 1;
            return Ok(Node::Container { object, items, close_space: before });
        }
        loop {
            let key = if object {
                let key = self.string()?;
                let mid_start = self.at;
                self.space();
                self.expect(b':')?;
                self.space();
                Some((key, mid_start..self.at))
            } else {
                None
            };
            let value = self.value(depth + 1)?;
            items.push(Item { before: before.clone(), key, value });
            let after = self.space();
            match self.peek()? {
                b',' => {
                    self.at += 1;
                    self.space();
                    before = after.start..self.at;
                }
                b if b == close => {
                    self.at += 1;
                    return Ok(Node::Container { object, items, close_space: after });
                }
                _ => return Err(self.at),
            }
        }
    }

    fn string(&mut self) -> Parsed<Range<usize>> {
        let start = self.at;
        self.expect(b'"')?;
        loop {
            let b = self.peek()?;
            match b {
                b'"' => {
                    self.at += 1;
                    return Ok(start..self.at);
                }
                b'\\' => {
                    self.at += 1;
                    match self.peek()? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.at += 1,
                        b'u' => {
                            self.at += 1;
                            for _ in 0..4 {
                                if !self.peek()?.is_ascii_hexdigit() {
                                    return Err(self.at);
                                }
                                self.at += 1;
                            }
                        }
                        _ => return Err(self.at),
                    }
                }
                0..0x20 => return Err(self.at),
                0x20..0x80 => self.at += 1,
                _ => self.utf8()?,
            }
        }
    }

    /// One character of two to four bytes, checked against the set of
    /// the prefixes of every character's encoding.
    fn utf8(&mut self) -> Parsed<()> {
        let start = self.at;
        for len in 1..=4 {
            let end = start + len;
            if end > self.text.len() {
                return Err(self.text.len());
            }
            let piece = &self.text[start..end];
            if std::str::from_utf8(piece).is_ok() {
                self.at = end;
                return Ok(());
            }
            if !PREFIXES.contains(piece) {
                return Err(end - 1);
            }
        }
        Err(start + 3)
    }

    fn word(&mut self, word: &[u8]) -> Parsed<Node> {
        let start = self.at;
        for &b in word {
            self.expect(b)?;
        }
        Ok(Node::Scalar(start..self.at))
    }

    fn number(&mut self) -> Parsed<Node> {
        let start = self.at;
        let digits = |p: &mut Self| {
            let from = p.at;
            while p.text.get(p.at).is_some_and(u8::is_ascii_digit) {
                p.at += 1;
            }
            if p.at == from { Err(p.at.min(p.text.len())) } else { Ok(()) }
        };
        if self.peek()? == b'-' {
            self.at += 1;
        }
        if self.peek()? == b'0' {
            self.at += 1;
        } else {
            digits(self)?;
        }
        if self.text.get(self.at) == Some(&b'.') {
            self.at += 1;
            digits(self)?;
        }
        if matches!(self.text.get(self.at), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.text.get(self.at), Some(b'+' | b'-')) {
                self.at += 1;
            }
            digits(self)?;
        }
        Ok(Node::Scalar(start..self.at))
    }

    /// A value nested too deep: only its strings and the balance of its
    /// brackets are checked, and that its last bracket matches its first.
    fn deep(&mut self) -> Parsed<Node> {
        let start = self.at;
        let object = self.text[start] == b'{';
        let mut depth = 0usize;
        loop {
            match self.peek()? {
                b'"' => {
                    self.string()?;
                    continue;
                }
                b'[' | b'{' => depth += 1,
                b @ (b']' | b'}') => {
                    depth -= 1;
                    if depth == 0 {
                        if (b == b'}') != object {
                            return Err(self.at);
                        }
                        self.at += 1;
                        return Ok(Node::Deep(start..self.at));
                    }
                }
                b' ' | b'\t' | b'\n' | b'\r' | 0x21..=0x7e => {}
                _ => return Err(self.at),
            }
            self.at += 1;
        }
    }
}

/// Where the JSON of `input` ends, when it is not a JSON text or JSON
/// Lines whose first document is an array or object.
pub fn json_end(input: &[u8]) -> Option<usize> {
    Parser { text: input, at: 0 }.stream().err()
}

/// The characters of a string's text (without its quotes), each as its
/// bytes and whether it counts: the low half of a surrogate pair written
/// as two escapes belongs to the high half before it.
fn string_pieces(text: &[u8]) -> Vec<(&[u8], bool)> {
    let mut pieces = Vec::new();
    let mut i = 0;
    let mut after_high = false;
    while i < text.len() {
        let (len, counts, high) = if text[i] == b'\\' {
            if text[i + 1] == b'u' {
                let unit =
                    u16::from_str_radix(std::str::from_utf8(&text[i + 2..i + 6]).unwrap(), 16).unwrap();
                (6, !(after_high && (0xdc00..=0xdfff).contains(&unit)), (0xd800..=0xdbff).contains(&unit))
            } else {
                (2, true, false)
            }
        } else {
            let len = std::str::from_utf8(&text[i..]).map_or_else(
                |e| {
                    std::str::from_utf8(&text[i..i + e.valid_up_to()])
                        .unwrap()
                        .chars()
                        .next()
                        .map(char::len_utf8)
                },
                |s| s.chars().next().map(char::len_utf8),
            );
            (len.unwrap_or(1), true, false)
        };
        pieces.push((&text[i..i + len], counts));
        after_high = high;
        i += len;
    }
    pieces
}

/// The marker that ends a cut string.
fn marker(chars: u64) -> String {
    format!("\u{2026}[+{chars} chars]")
}

/// Walks the tree, writing what is kept.
struct Walk<'a> {
    text: &'a [u8],
    cut: Cut,
    out: Outcome,
    /// Closing brackets owed.
    owed: u64,
    /// An item did not fit.
    spent: bool,
}

impl Walk<'_> {
    fn units(&self, bytes: &[u8]) -> u64 {
        if self.cut.bytes {
            bytes.len() as u64
        } else {
            String::from_utf8_lossy(bytes).chars().count() as u64
        }
    }

    fn used(&self) -> u64 {
        self.units(&self.out.output)
    }

    /// Whether `extra` fits after what is written, with the brackets owed.
    fn fits(&self, extra: &[u8]) -> bool {
        self.used() + self.units(extra) + self.owed <= self.cut.budget
    }

    /// A string's text cut to its first characters: its bytes, and whether
    /// it was cut.
    fn string(&self, range: Range<usize>) -> (Vec<u8>, bool) {
        let text = &self.text[range.start + 1..range.end - 1];
        let pieces = string_pieces(text);
        let chars = pieces.iter().filter(|p| p.1).count() as u64;
        let limit = self.cut.string_chars;
        if limit == 0 || chars <= limit {
            return (self.text[range].to_vec(), false);
        }
        let mut out = b"\"".to_vec();
        let mut counted = 0;
        let mut kept_last = false;
        for (bytes, counts) in pieces {
            let keep = if counts { counted < limit } else { kept_last };
            counted += u64::from(counts);
            if keep {
                out.extend_from_slice(bytes);
            }
            kept_last = keep;
        }
        out.extend_from_slice(marker(chars - limit).as_bytes());
        out.push(b'"');
        (out, true)
    }

    /// Writes `value` after `prefix` when it fits: a scalar whole, an array
    /// or object by its brackets and then its items. Returns whether it
    /// was kept, and the strings it cut that are counted once it is.
    fn item(&mut self, prefix: &[u8], value: &Node, pending: u64) -> bool {
        let (bytes, cut) = match value {
            Node::Scalar(range) => (self.text[range.clone()].to_vec(), false),
            Node::Str(range) => self.string(range.clone()),
            Node::Deep(range) => {
                let chars = String::from_utf8_lossy(&self.text[range.clone()]).chars().count() as u64;
                (format!("\"{}\"", marker(chars)).into_bytes(), true)
            }
            Node::Container { object, items, close_space } => {
                let mut opening = prefix.to_vec();
                opening.push(if *object { b'{' } else { b'[' });
                if !self.fits(&[opening.as_slice(), b"]"].concat()) {
                    return false;
                }
                self.out.output.extend_from_slice(&opening);
                self.out.strings_cut += pending;
                self.container(*object, items, close_space.clone());
                return true;
            }
        };
        let all = [prefix, &bytes].concat();
        if !self.fits(&all) {
            return false;
        }
        self.out.output.extend_from_slice(&all);
        self.out.strings_cut += pending + u64::from(cut);
        true
    }

    fn container(&mut self, object: bool, items: &[Item], close_space: Range<usize>) {
        self.owed += 1;
        let mut taken = 0;
        for item in items {
            if self.spent || taken == self.cut.items {
                continue;
            }
            let mut prefix = self.text[item.before.clone()].to_vec();
            let mut pending = 0;
            if let Some((key, mid)) = &item.key {
                let (key, cut) = self.string(key.clone());
                prefix.extend_from_slice(&key);
                prefix.extend_from_slice(&self.text[mid.clone()]);
                pending = u64::from(cut);
            }
            if self.item(&prefix, &item.value, pending) {
                taken += 1;
            } else {
                self.spent = true;
            }
        }
        let space = self.text[close_space].to_vec();
        if self.fits(&space) {
            self.out.output.extend_from_slice(&space);
        }
        self.owed -= 1;
        self.out.output.push(if object { b'}' } else { b']' });
        if (items.len() as u64) > taken {
            self.out.arrays_cut += 1;
            self.out.items += items.len() as u64;
            self.out.items_kept += taken;
        }
    }
}

/// The cut of `input`, or where its JSON ends.
pub fn cut(input: &[u8], cut: Cut) -> Result<Outcome, usize> {
    let stream = Parser { text: input, at: 0 }.stream()?;
    let mut walk = Walk { text: input, cut, out: Outcome::default(), owed: 0, spent: false };
    for (before, document) in &stream.documents {
        walk.out.documents += 1;
        if walk.spent || walk.out.documents_kept == cut.documents {
            continue;
        }
        let before = input[before.clone()].to_vec();
        if walk.item(&before, document, 0) {
            walk.out.documents_kept += 1;
        } else {
            walk.spent = true;
        }
    }
    let trailing = input[stream.trailing].to_vec();
    if walk.fits(&trailing) {
        walk.out.output.extend_from_slice(&trailing);
    }
    Ok(walk.out)
}

/// A random JSON text or JSON Lines of a few documents, the first an
/// array or object, with every kind of value, spacing and escape; `size`
/// bounds how many values it has.
pub fn document(rng: &mut Rng, size: u64) -> Vec<u8> {
    let mut out = Vec::new();
    let documents = 1 + rng.below(3) * rng.below(3);
    for i in 0..documents {
        if i > 0 || rng.below(4) == 0 {
            space(rng, &mut out, i > 0);
        }
        let mut budget = size;
        if i == 0 || rng.below(2) == 0 {
            container(rng, &mut out, &mut budget, 0);
        } else {
            value(rng, &mut out, &mut budget, 0);
        }
    }
    if rng.below(2) == 0 {
        space(rng, &mut out, false);
    }
    out
}

/// Whitespace, maybe none unless `some`: pretty-printed or odd.
fn space(rng: &mut Rng, out: &mut Vec<u8>, some: bool) {
    const SPACES: &[&[u8]] = &[b"", b" ", b"\n", b"\n  ", b"\n    ", b"\t", b"\r\n", b"  \n\t "];
    let mut pick = SPACES[rng.below(SPACES.len() as u64) as usize];
    if some && pick.is_empty() {
        pick = b"\n";
    }
    out.extend_from_slice(pick);
}

fn container(rng: &mut Rng, out: &mut Vec<u8>, budget: &mut u64, depth: usize) {
    let object = rng.below(2) == 0;
    out.push(if object { b'{' } else { b'[' });
    let items = if *budget == 0 { 0 } else { rng.below(6) * rng.below(3) };
    for i in 0..items {
        if i > 0 {
            if rng.below(4) == 0 {
                space(rng, out, false);
            }
            out.push(b',');
        }
        space(rng, out, false);
        if object {
            string(rng, out);
            if rng.below(3) == 0 {
                space(rng, out, false);
            }
            out.push(b':');
            space(rng, out, false);
        }
        value(rng, out, budget, depth + 1);
    }
    space(rng, out, false);
    out.push(if object { b'}' } else { b']' });
}

fn value(rng: &mut Rng, out: &mut Vec<u8>, budget: &mut u64, depth: usize) {
    *budget = budget.saturating_sub(1);
    match rng.below(10) {
        0..=2 if depth < 6 && *budget > 0 => container(rng, out, budget, depth),
        0..=4 => string(rng, out),
        5 | 6 => {
            const NUMBERS: &[&str] = &[
                "0",
                "-0",
                "7",
                "-12",
                "3.25",
                "1e9",
                "-2.5E-3",
                "1E+2",
                "0.000",
                "123456789012345678901234567890",
            ];
            out.extend_from_slice(NUMBERS[rng.below(NUMBERS.len() as u64) as usize].as_bytes());
        }
        7 => out.extend_from_slice(b"true"),
        8 => out.extend_from_slice(b"false"),
        _ => out.extend_from_slice(b"null"),
    }
}

fn string(rng: &mut Rng, out: &mut Vec<u8>) {
    const PIECES: &[&str] = &[
        "a",
        "b",
        "xyz",
        " ",
        "é",
        "€",
        "😀",
        "中文",
        "\\n",
        "\\t",
        "\\\"",
        "\\\\",
        "\\/",
        "\\b",
        "\\f",
        "\\r",
        "\\u00e9",
        "\\u20AC",
        "\\ud83d\\ude00",
        "\\u0000",
        "[",
        "]",
        "{",
        "}",
        ",",
        ":",
    ];
    out.push(b'"');
    let len = rng.below(4) * rng.below(5);
    for _ in 0..len {
        out.extend_from_slice(PIECES[rng.below(PIECES.len() as u64) as usize].as_bytes());
    }
    out.push(b'"');
}

/// `input` made not JSON at a random place: cut short, or a byte put in,
/// replaced or taken out.
pub fn corrupt(rng: &mut Rng, input: &[u8]) -> Vec<u8> {
    const BYTES: &[u8] = b"x,:]}[{\"\\\x01\xff\xc3 0-e.";
    let mut out = input.to_vec();
    let at = rng.below(input.len() as u64 + 1) as usize;
    let b = BYTES[rng.below(BYTES.len() as u64) as usize];
    match rng.below(4) {
        0 => out.truncate(at),
        1 => out.insert(at, b),
        2 if at < out.len() => out[at] = b,
        _ if at < out.len() => {
            out.remove(at);
        }
        _ => out.push(b),
    }
    out
}

/// A JSON value as `serde_json` parses it, with every member of an
/// object in order, a key that comes twice too (which `serde_json`'s own
/// maps merge).
#[derive(Debug, PartialEq)]
enum Value {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<Value>),
    Object(Vec<(String, Value)>),
}

impl<'de> serde::Deserialize<'de> for Value {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(Visitor)
    }
}

struct Visitor;

impl<'de> serde::de::Visitor<'de> for Visitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    #[allow(clippy::cast_precision_loss)]
    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::Number(n as f64))
    }

    #[allow(clippy::cast_precision_loss)]
    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(Value::Number(n as f64))
    }

    fn visit_f64<E>(self, n: f64) -> Result<Value, E> {
        Ok(Value::Number(n))
    }

    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_owned()))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut members = Vec::new();
        while let Some(member) = map.next_entry()? {
            members.push(member);
        }
        Ok(Value::Object(members))
    }
}

/// Checks what the cut kept against the input by their values, as
/// `serde_json` parses them: every output document is the input's in
/// order, every array and object of it holds at most `items` items that
/// are the first of the input's, every string is the input's or its first
/// `string_chars` characters followed by `…[+K chars]` with K what was
/// cut. `Err` says what is wrong. An input that `serde_json` refuses
/// although RFC 8259 allows it (a lone surrogate escape) is not checked.
pub fn check_values(input: &[u8], output: &[u8], cut: Cut) -> Result<(), String> {
    let parse = |bytes: &[u8]| -> Result<Vec<Value>, String> {
        serde_json::Deserializer::from_slice(bytes)
            .into_iter::<Value>()
            .collect::<Result<_, _>>()
            .map_err(|e| format!("{e} in {:?}", String::from_utf8_lossy(bytes)))
    };
    let Ok(inputs) = parse(input) else { return Ok(()) };
    let outputs = parse(output).map_err(|e| format!("the output does not parse: {e}"))?;
    if outputs.len() > inputs.len() || outputs.len() as u64 > cut.documents {
        return Err(format!("{} documents out of {}", outputs.len(), inputs.len()));
    }
    for (kept, whole) in outputs.iter().zip(&inputs) {
        check_value(kept, whole, cut)?;
    }
    Ok(())
}

fn check_value(kept: &Value, whole: &Value, cut: Cut) -> Result<(), String> {
    match (kept, whole) {
        (Value::Array(kept), Value::Array(whole)) => {
            if kept.len() > whole.len() || kept.len() as u64 > cut.items {
                return Err(format!("{} items kept of {}", kept.len(), whole.len()));
            }
            kept.iter().zip(whole).try_for_each(|(k, w)| check_value(k, w, cut))
        }
        (Value::Object(kept), Value::Object(whole)) => {
            if kept.len() > whole.len() || kept.len() as u64 > cut.items {
                return Err(format!("{} members kept of {}", kept.len(), whole.len()));
            }
            for ((kept_key, kept), (key, whole)) in kept.iter().zip(whole) {
                check_string(kept_key, key, cut)?;
                check_value(kept, whole, cut)?;
            }
            Ok(())
        }
        (Value::String(kept), Value::String(whole)) => check_string(kept, whole, cut),
        _ if kept == whole => Ok(()),
        _ => Err(format!("{kept:?} is not {whole:?}")),
    }
}

fn check_string(kept: &str, whole: &str, cut: Cut) -> Result<(), String> {
    let chars = whole.chars().count() as u64;
    if cut.string_chars == 0 || chars <= cut.string_chars {
        return if kept == whole { Ok(()) } else { Err(format!("{kept:?} is not {whole:?}")) };
    }
    let head: String = whole.chars().take(cut.string_chars as usize).collect();
    let want = format!("{head}{}", marker(chars - cut.string_chars));
    if kept == want { Ok(()) } else { Err(format!("{kept:?} is not {want:?}, the cut of {whole:?}")) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut_all(items: u64, string_chars: u64, budget: u64) -> Cut {
        Cut { items, string_chars, budget, bytes: false, documents: u64::MAX }
    }

    #[test]
    fn the_model_cuts_as_the_rules_say() {
        let out = |input: &str, c| String::from_utf8(cut(input.as_bytes(), c).unwrap().output).unwrap();
        assert_eq!(out("[1, 2, 3]", cut_all(2, 0, 100)), "[1, 2]");
        assert_eq!(out("[\n  1,\n  2\n]", cut_all(9, 0, 11)), "[\n  1,\n  2]");
        assert_eq!(out("{\"abcd\": \"x\"}", cut_all(9, 2, 100)), "{\"ab…[+2 chars]\": \"x\"}");
        assert_eq!(out("[\"\\ud83d\\ude00a\"]", cut_all(9, 1, 100)), "[\"\\ud83d\\ude00…[+1 chars]\"]");
        assert_eq!(out("[[1, 2], [3, 4]]", cut_all(9, 0, 12)), "[[1, 2], []]");
    }

    #[test]
    fn the_model_finds_where_json_ends() {
        for (input, at) in [
            ("x", 0),
            ("", 0),
            (" 1", 1),
            ("[1,]", 3),
            ("[01]", 2),
            ("[\"\u{e9}\"]", usize::MAX),
            ("[\"\\u12\"]", 6),
            ("{} x", 3),
            ("[] 1 2x", 6),
        ] {
            assert_eq!(json_end(input.as_bytes()).unwrap_or(usize::MAX), at, "{input:?}");
        }
        assert_eq!(json_end(b"[\"\xe2\x82\x41\"]"), Some(4));
        assert_eq!(json_end(b"[\"\xed\xa0\x80\"]"), Some(3));
        assert_eq!(json_end(b"[\"\xe2\x82"), Some(4));
    }
}
