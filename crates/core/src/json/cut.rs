//! The cut of a JSON text or of JSON Lines, in one pass over chunks of any
//! size: a tokenizer with a stack of the open arrays and objects, which
//! writes what it keeps into a buffer bounded by the budget.
//!
//! # What is kept
//!
//! The stream is a list of documents, the items of an array are its
//! values and the items of an object its members (a key and its value).
//! Every item is kept or dropped whole, in document order:
//!
//! - an array or object keeps its first `items` items and drops the rest;
//!   the stream keeps its first `documents` documents;
//! - a string keeps its first `string_chars` characters (an escape is the
//!   character it stands for, a surrogate pair one character) and ends
//!   with `…[+K chars]` inside its quotes, K the characters cut; a key is
//!   a string;
//! - a value nested deeper than [`MAX_DEPTH`] arrays and objects is
//!   written as the string `"…[+K chars]"`, K the characters of its text;
//! - then the budget: an item is kept when what the output holds with it
//!   fits in `budget` units together with one closing bracket for each
//!   array and object still open. An array or object needs only its two
//!   brackets to fit (its own items then decide each for itself); any
//!   other value, whole. The first item that does not fit is dropped, and
//!   with it every item after it, at any depth, and every later document:
//!   the brackets still open are closed, so the output stays valid.
//!
//! Kept items keep their bytes. The whitespace and the comma before an
//! item belong to the item (they go when it goes); the whitespace before
//! a closing bracket, and at the end of the stream, is kept when it fits
//! in the budget, else the bracket follows the last item kept directly.
//! A stream that is cut nowhere is written byte for byte.
//!
//! # Counted
//!
//! For every array and object written that lost items: the items it had
//! and those it kept ([`JsonCut`]); items inside dropped items are not
//! counted. Strings cut (and values too deep) are counted when they are
//! kept, documents whether kept or not.
//!
//! # Memory
//!
//! The output buffer (what fits in the budget), a frame for each kept
//! array and object open (at most [`MAX_DEPTH`]), a bit for each dropped
//! one (`skim.rs`), and the bytes of an escape: never a whole document or
//! a whole string.
//!
//! # Not JSON
//!
//! A stream whose first byte other than whitespace is not `[` or `{`, or
//! that stops being a JSON text or JSON Lines, fails with the offset of
//! the first byte at which no valid continuation is possible (the length
//! of the stream when it ends inside a document). Deeper than
//! [`MAX_DEPTH`], only the strings and the balance of the brackets are
//! checked, so that memory stays bounded whatever the nesting.

use super::lex::{self, CLASS, Class, Number, Utf8};
use super::skim::{Skim, Start};
use crate::JsonCut;
use crate::notice;
use crate::text::count::Unit;
use crate::text::utf8;

/// The most arrays and objects nested in one another that are kept.
pub const MAX_DEPTH: usize = 512;

/// What a [`Cutter`] keeps.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Settings {
    /// Items kept of each array and object.
    pub items: u64,
    /// Characters kept of each string; 0 for all.
    pub string_chars: u64,
    /// Units all the output may take.
    pub budget: u64,
    /// What the budget counts.
    pub unit: Unit,
    /// Documents kept of the stream.
    pub documents: u64,
}

/// A position in the output, to go back to when an item is dropped.
#[derive(Clone, Copy, Debug, Default)]
struct Mark {
    len: usize,
    used: u64,
}

/// A kept array or object, open, or (at the bottom of the stack) the
/// stream. What is dropped is read by a [`Skim`], and has no frame.
#[derive(Clone, Copy, Debug)]
struct Frame {
    object: bool,
    /// No more of its items are kept.
    closed: bool,
    /// Items begun.
    seen: u64,
    /// Items kept.
    taken: u64,
    /// Where the output ends after the last item kept (or after its
    /// opening bracket).
    mark: Mark,
}

impl Frame {
    fn new(object: bool, mark: Mark) -> Frame {
        Frame { object, closed: false, seen: 0, taken: 0, mark }
    }
}

/// What may come next between tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
    /// A document, or the end of the stream.
    Document,
    /// Whitespace after a number or literal that is a document.
    Separator,
    /// After `[`: a value or `]`.
    FirstItem,
    /// After `{`: a key or `}`.
    FirstMember,
    /// After `,` in an array: a value.
    Item,
    /// After `,` in an object: a key.
    Member,
    /// After a key: `:`.
    Colon,
    /// After `:`: the member's value.
    MemberValue,
    /// After an item: `,` or the closing bracket.
    Next,
}

/// A string being read.
#[derive(Clone, Copy, Debug)]
struct Str {
    /// A key, whose item goes on after it.
    key: bool,
    /// Characters read (counted only when it is kept).
    chars: u64,
    /// A character was cut: nothing more is kept of it.
    cut: bool,
    /// The last character was a high surrogate written as an escape: a
    /// low surrogate escape right after it is the same character.
    high: bool,
    /// The escape being read: its bytes (`\`, then `u` and four hex
    /// digits, or one of `"\/bfnrt`), 0 when none.
    escape: [u8; 6],
    escaped: u8,
}

/// A value nested too deep, skipped to its end.
#[derive(Clone, Copy, Debug)]
struct Deep {
    /// Brackets open, its own included.
    depth: u64,
    /// It is an object (its last bracket must be `}`).
    object: bool,
    /// Inside a string; in an escape: the hex digits still owed (`\u`) or
    /// 5 right after `\`.
    in_string: bool,
    escape: u8,
    /// Characters of its text.
    chars: u64,
}

/// The token being read, across the ends of chunks.
#[derive(Clone, Copy, Debug)]
enum Token {
    /// Between tokens: [`Cutter::expect`] says what may come.
    None,
    Str(Str),
    Number(Number),
    /// The bytes of `true`, `false` or `null` still to come.
    Literal(&'static [u8]),
    Deep(Deep),
    /// A value or member that is dropped: [`Cutter::skim`] reads it.
    Skim,
}

/// Cuts a stream of JSON as the module's page says.
#[derive(Debug)]
pub(crate) struct Cutter {
    settings: Settings,
    out: Vec<u8>,
    /// Units of `out`.
    used: u64,
    /// The closing brackets owed by the kept arrays and objects open.
    owed: u64,
    stack: Vec<Frame>,
    expect: Expect,
    token: Token,
    skim: Skim,
    /// The item being read is being written (it may still be dropped).
    live: bool,
    /// An item did not fit: nothing more is kept but closing brackets.
    spent: bool,
    /// The whitespace before the next token did not fit.
    gap_over: bool,
    /// Strings cut in the live item, counted once it is kept.
    pending_cuts: u64,
    utf8: Utf8,
    /// Something was cut or dropped: the output is not the input.
    cut: bool,
    counts: JsonCut,
    /// Bytes before the chunk being read.
    offset: u64,
    /// The chunk being read is valid UTF-8, and no character is begun:
    /// what is not kept may be passed over without checking its UTF-8.
    plain: bool,
    /// The first document has begun (with `[` or `{`).
    began: bool,
    /// Where the JSON ended, once it did.
    failed: Option<u64>,
}

impl Cutter {
    pub(crate) fn new(settings: Settings) -> Cutter {
        Cutter {
            settings,
            out: Vec::new(),
            used: 0,
            owed: 0,
            stack: vec![Frame::new(false, Mark::default())],
            expect: Expect::Document,
            token: Token::None,
            skim: Skim::new(Start::Value, 0),
            live: false,
            spent: false,
            gap_over: false,
            pending_cuts: 0,
            utf8: Utf8::default(),
            cut: false,
            counts: JsonCut::default(),
            offset: 0,
            plain: false,
            began: false,
            failed: None,
        }
    }

    /// What is kept, once [`Cutter::finish`] has said the stream was JSON.
    pub(crate) fn output(&self) -> &[u8] {
        &self.out
    }

    /// Units of the output.
    pub(crate) fn used(&self) -> u64 {
        self.used
    }

    /// Whether anything was cut.
    pub(crate) fn cut(&self) -> bool {
        self.cut
    }

    /// Whether the stream began as JSON: its first byte other than
    /// whitespace is `[` or `{`.
    pub(crate) fn began(&self) -> bool {
        self.began
    }

    /// The counts of the cut.
    pub(crate) fn counts(&self) -> JsonCut {
        JsonCut { documents: self.stack[0].seen, documents_kept: self.stack[0].taken, ..self.counts }
    }

    /// Reads the next chunk; once the stream is not JSON, the offset of
    /// the first byte that is not (and then always that).
    pub(crate) fn feed(&mut self, chunk: &[u8]) -> Result<(), u64> {
        if let Some(at) = self.failed {
            return Err(at);
        }
        self.plain = !self.utf8.pending() && simdutf8::basic::from_utf8(chunk).is_ok();
        let mut i = 0;
        while i < chunk.len() {
            let step = match self.token {
                Token::None => self.between(chunk, i),
                Token::Str(s) => self.string(s, chunk, i),
                Token::Number(n) => self.number(n, chunk, i),
                Token::Literal(rest) => self.literal(rest, chunk, i),
                Token::Deep(d) => self.deep(d, chunk, i),
                Token::Skim => self.skimming(chunk, i),
            };
            match step {
                Ok(next) => i = next,
                Err(at) => {
                    let at = self.offset + at as u64;
                    self.failed = Some(at);
                    self.out = Vec::new();
                    return Err(at);
                }
            }
        }
        self.offset += chunk.len() as u64;
        Ok(())
    }

    /// Ends the stream: whether it was JSON to its end, or where it ended.
    pub(crate) fn finish(&mut self) -> Result<(), u64> {
        if let Some(at) = self.failed {
            return Err(at);
        }
        let at_end = Err(self.offset);
        match self.token {
            Token::Number(n) if n.complete() && self.stack.len() == 1 => self.scalar_end(),
            Token::Skim if self.skim.may_end() && self.stack.len() == 1 => self.token = Token::None,
            Token::None if matches!(self.expect, Expect::Document | Expect::Separator) => {}
            _ => return self.fail(at_end),
        }
        if !self.began {
            return self.fail(at_end);
        }
        // The whitespace at the end, as before a closing bracket.
        self.close_gap();
        Ok(())
    }

    fn fail(&mut self, at: Result<(), u64>) -> Result<(), u64> {
        self.failed = at.err();
        self.out = Vec::new();
        at
    }

    #[inline]
    fn units(&self, bytes: &[u8]) -> u64 {
        match self.settings.unit {
            Unit::Bytes => bytes.len() as u64,
            Unit::Chars => utf8::count_leads(bytes),
        }
    }

    /// Whether `extra` more units fit, with the brackets owed.
    #[inline]
    fn fits(&self, extra: u64) -> bool {
        self.used.saturating_add(extra).saturating_add(self.owed) <= self.settings.budget
    }

    #[inline]
    fn append(&mut self, bytes: &[u8], units: u64) {
        self.out.extend_from_slice(bytes);
        self.used += units;
    }

    #[inline]
    fn here(&self) -> Mark {
        Mark { len: self.out.len(), used: self.used }
    }

    #[inline]
    fn top(&mut self) -> &mut Frame {
        let last = self.stack.len() - 1;
        &mut self.stack[last]
    }

    /// Goes back to the end of the last item kept of the innermost frame.
    fn rollback(&mut self) {
        let mark = self.stack[self.stack.len() - 1].mark;
        if self.out.len() > mark.len {
            self.out.truncate(mark.len);
            self.used = mark.used;
        }
    }

    /// The live item does not fit: it goes, and everything after it.
    fn drop_for_budget(&mut self) {
        self.rollback();
        self.live = false;
        self.spent = true;
        self.cut = true;
        self.pending_cuts = 0;
    }

    /// Writes `bytes` of the live item, or drops the item when they do
    /// not fit.
    #[inline]
    fn keep(&mut self, bytes: &[u8]) {
        if !self.live {
            return;
        }
        let units = self.units(bytes);
        if self.fits(units) {
            self.append(bytes, units);
        } else {
            self.drop_for_budget();
        }
    }

    /// Whitespace between items, which belongs to the next item or to
    /// the closing bracket after it: written for now, while it fits.
    #[inline]
    fn gap(&mut self, space: &[u8]) {
        if self.gap_over {
            return;
        }
        // Whitespace is ASCII: a byte is a unit.
        if self.fits(space.len() as u64) {
            self.append(space, space.len() as u64);
        } else {
            self.gap_over = true;
        }
    }

    /// The whitespace before a closing bracket (or at the end): kept when
    /// it fits, with the bracket owed.
    fn close_gap(&mut self) {
        if self.gap_over || !self.fits(0) {
            let before = self.out.len();
            self.rollback();
            self.cut |= self.gap_over || self.out.len() < before;
        }
        self.gap_over = false;
    }

    /// Whether the next item of the innermost frame is kept, decided where
    /// it begins: at its first byte, or at the comma before it. It is when
    /// its frame is kept, not full, the budget not spent, and the
    /// whitespace before it (which goes with it) fitted.
    fn decide_item(&mut self) {
        let spent = self.spent;
        let limit = if self.stack.len() == 1 { self.settings.documents } else { self.settings.items };
        let top = self.top();
        let allowed = !spent && !top.closed && top.seen < limit;
        if !allowed && !spent {
            top.closed = true;
        }
        if allowed && !self.gap_over {
            self.live = true;
        } else {
            self.rollback();
            self.live = false;
            self.cut = true;
            self.spent |= allowed;
        }
        self.gap_over = false;
    }

    /// An item of the innermost frame begins.
    #[inline]
    fn count_item(&mut self) {
        self.top().seen += 1;
    }

    /// The live item was kept to its end.
    #[inline]
    fn commit(&mut self) {
        if self.live {
            self.counts.strings_cut += std::mem::take(&mut self.pending_cuts);
            let here = self.here();
            let top = self.top();
            top.taken += 1;
            top.mark = here;
            self.live = false;
        }
    }

    /// A value that is not an array or object has ended.
    fn scalar_end(&mut self) {
        self.token = Token::None;
        self.commit();
        self.expect = if self.stack.len() == 1 { Expect::Separator } else { Expect::Next };
    }

    /// Between tokens, from `i`: whitespace and structure, up to the
    /// start of a token.
    fn between(&mut self, chunk: &[u8], mut i: usize) -> Result<usize, usize> {
        while i < chunk.len() {
            let b = chunk[i];
            if CLASS[b as usize] == Class::Space {
                let end = i + lex::space_run(&chunk[i..]);
                self.space(&chunk[i..end]);
                i = end;
                continue;
            }
            let object = self.stack[self.stack.len() - 1].object;
            match (self.expect, b) {
                (Expect::Next, b',') if self.stack.len() > 1 => self.comma(object),
                (Expect::Next | Expect::FirstItem, b']') if !object => self.close(),
                (Expect::Next | Expect::FirstMember, b'}') if object => self.close(),
                (Expect::Colon, b':') => {
                    self.keep(b":");
                    self.expect = Expect::MemberValue;
                }
                (Expect::FirstMember | Expect::Member, b'"') => {
                    if self.expect == Expect::FirstMember {
                        self.decide_item();
                    }
                    self.count_item();
                    if !self.live {
                        return Ok(self.begin_skim(Start::Member, i));
                    }
                    self.begin_string(true);
                    return Ok(i + 1);
                }
                (Expect::Document, _) if !self.began && b != b'[' && b != b'{' => return Err(i),
                (Expect::Document | Expect::FirstItem | Expect::Item | Expect::MemberValue, _) => {
                    match self.expect {
                        Expect::MemberValue => {}
                        Expect::Item => self.count_item(),
                        _ => {
                            self.began = true;
                            self.decide_item();
                            self.count_item();
                        }
                    }
                    // An array or object that does not fit with its
                    // brackets is dropped; what is dropped is only read.
                    if self.live && matches!(b, b'[' | b'{') && self.stack.len() <= MAX_DEPTH && !self.fits(2)
                    {
                        self.drop_for_budget();
                    }
                    if !self.live {
                        return Ok(self.begin_skim(Start::Value, i));
                    }
                    if !self.value(b) {
                        return Err(i);
                    }
                    if !matches!(self.token, Token::None) {
                        return Ok(i + 1);
                    }
                }
                _ => return Err(i),
            }
            i += 1;
        }
        Ok(i)
    }

    #[inline]
    fn space(&mut self, space: &[u8]) {
        match self.expect {
            Expect::Separator => {
                self.expect = Expect::Document;
                self.gap(space);
            }
            Expect::Document | Expect::FirstItem | Expect::FirstMember | Expect::Next => self.gap(space),
            Expect::Item | Expect::Member | Expect::Colon | Expect::MemberValue => self.keep(space),
        }
    }

    /// `,` after an item: whether the next is kept is decided here.
    fn comma(&mut self, object: bool) {
        self.decide_item();
        self.keep(b",");
        self.expect = if object { Expect::Member } else { Expect::Item };
    }

    /// The start of a value (the item's, or a member's after its colon):
    /// `false` when `b` cannot start one.
    fn value(&mut self, b: u8) -> bool {
        match b {
            b'[' | b'{' => self.open(b == b'{'),
            b'"' => self.begin_string(false),
            b'-' | b'0'..=b'9' => {
                self.keep(&[b]);
                self.token = Token::Number(Number::start(b));
            }
            b't' | b'f' | b'n' => {
                self.keep(&[b]);
                self.token = Token::Literal(lex::literal_rest(b));
            }
            _ => return false,
        }
        true
    }

    fn open(&mut self, object: bool) {
        if self.stack.len() > MAX_DEPTH {
            self.token = Token::Deep(Deep { depth: 1, object, in_string: false, escape: 0, chars: 1 });
            return;
        }
        // Kept: `between` found that its brackets fit.
        self.append(if object { b"{" } else { b"[" }, 1);
        self.commit();
        self.owed += 1;
        self.stack.push(Frame::new(object, self.here()));
        self.expect = if object { Expect::FirstMember } else { Expect::FirstItem };
    }

    /// A closing bracket that matches the innermost frame.
    fn close(&mut self) {
        let frame = self.stack[self.stack.len() - 1];
        self.close_gap();
        self.owed -= 1;
        self.append(if frame.object { b"}" } else { b"]" }, 1);
        if frame.seen > frame.taken {
            self.counts.arrays_cut += 1;
            self.counts.items += frame.seen;
            self.counts.items_kept += frame.taken;
        }
        self.stack.pop();
        let here = self.here();
        self.top().mark = here;
        self.expect = if self.stack.len() == 1 { Expect::Document } else { Expect::Next };
    }

    /// A dropped value (or member) begins at `chunk[i]`: a skim reads it,
    /// from `i`.
    fn begin_skim(&mut self, start: Start, i: usize) -> usize {
        self.skim = Skim::new(start, self.stack.len() - 1);
        self.token = Token::Skim;
        i
    }

    /// Inside a dropped value, from `i`.
    fn skimming(&mut self, chunk: &[u8], i: usize) -> Result<usize, usize> {
        let Some(end) = self.skim.run(chunk, i, self.plain)? else { return Ok(chunk.len()) };
        self.token = Token::None;
        self.expect = match self.stack.len() {
            1 if self.skim.container() => Expect::Document,
            1 => Expect::Separator,
            _ => Expect::Next,
        };
        Ok(end)
    }

    fn begin_string(&mut self, key: bool) {
        self.keep(b"\"");
        self.token = Token::Str(Str { key, chars: 0, cut: false, high: false, escape: [0; 6], escaped: 0 });
    }

    /// Inside a string, from `i`.
    fn string(&mut self, mut s: Str, chunk: &[u8], mut i: usize) -> Result<usize, usize> {
        let limit = self.settings.string_chars;
        while i < chunk.len() {
            if s.escaped > 0 {
                i = self.escape(&mut s, chunk, i)?;
                continue;
            }
            let (run, wide) = lex::plain_run(&chunk[i..]);
            if run > 0 {
                let text = &chunk[i..i + run];
                if wide || self.utf8.pending() {
                    self.utf8.check(text).map_err(|at| i + at)?;
                }
                if self.live {
                    self.string_text(&mut s, text, limit);
                }
                s.high = false;
                i += run;
                continue;
            }
            if self.utf8.pending() {
                return Err(i);
            }
            match chunk[i] {
                b'"' => {
                    self.end_string(s, limit);
                    return Ok(i + 1);
                }
                b'\\' => {
                    s.escape[0] = b'\\';
                    s.escaped = 1;
                    i += 1;
                }
                _ => return Err(i),
            }
        }
        self.token = Token::Str(s);
        Ok(i)
    }

    /// Plain text of a kept string: what is within `limit` characters.
    fn string_text(&mut self, s: &mut Str, text: &[u8], limit: u64) {
        let leads = utf8::count_leads(text);
        let end = if limit == 0 {
            text.len()
        } else if s.cut {
            0
        } else {
            let room = limit - s.chars;
            if leads <= room {
                text.len()
            } else {
                s.cut = true;
                // The start of the first character cut: the bytes before
                // it end the last one kept, if it began in an earlier
                // chunk.
                text.iter()
                    .enumerate()
                    .filter(|&(_, &b)| !utf8::is_continuation(b))
                    .nth(room as usize)
                    .map_or(text.len(), |(i, _)| i)
            }
        };
        s.chars += leads;
        self.keep(&text[..end]);
    }

    /// Inside an escape: its next byte.
    fn escape(&mut self, s: &mut Str, chunk: &[u8], i: usize) -> Result<usize, usize> {
        let b = chunk[i];
        let n = usize::from(s.escaped);
        let ok = match n {
            1 => matches!(b, b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' | b'u'),
            _ => lex::hex(b).is_some(),
        };
        if !ok {
            return Err(i);
        }
        s.escape[n] = b;
        s.escaped += 1;
        let done = if s.escape[1] == b'u' { n == 5 } else { n == 1 };
        if done {
            let len = usize::from(s.escaped);
            s.escaped = 0;
            if self.live {
                self.escaped_char(s, len);
            }
        }
        Ok(i + 1)
    }

    /// A whole escape of a kept string: one character, or the second
    /// half of a surrogate pair.
    fn escaped_char(&mut self, s: &mut Str, len: usize) {
        let unit = (s.escape[1] == b'u')
            .then(|| s.escape[2..6].iter().fold(0u16, |v, &d| v << 4 | lex::hex(d).unwrap_or(0)));
        let low_half = s.high && unit.is_some_and(|u| (0xdc00..=0xdfff).contains(&u));
        s.high = unit.is_some_and(|u| (0xd800..=0xdbff).contains(&u));
        let limit = self.settings.string_chars;
        let kept = if low_half {
            !s.cut
        } else {
            s.chars += 1;
            let kept = limit == 0 || (!s.cut && s.chars <= limit);
            s.cut |= !kept;
            kept
        };
        if kept {
            let escape = s.escape;
            self.keep(&escape[..len]);
        }
    }

    fn end_string(&mut self, s: Str, limit: u64) {
        if s.cut && self.live {
            self.pending_cuts += 1;
            self.cut = true;
            self.keep(notice::json_cut(s.chars - limit).as_bytes());
        }
        self.keep(b"\"");
        self.token = Token::None;
        if s.key {
            self.expect = Expect::Colon;
        } else {
            self.scalar_end();
        }
    }

    /// Inside a number, from `i`: it ends before the first byte that
    /// does not go on it (read again between tokens), if it may end there.
    fn number(&mut self, mut n: Number, chunk: &[u8], i: usize) -> Result<usize, usize> {
        let mut end = i;
        while end < chunk.len() {
            match n.next(chunk[end]) {
                Some(next) => n = next,
                None => break,
            }
            end += 1;
        }
        self.keep(&chunk[i..end]);
        if end == chunk.len() {
            self.token = Token::Number(n);
        } else if n.complete() {
            self.scalar_end();
        } else {
            return Err(end);
        }
        Ok(end)
    }

    /// Inside `true`, `false` or `null`, from `i`.
    fn literal(&mut self, rest: &'static [u8], chunk: &[u8], i: usize) -> Result<usize, usize> {
        let n = rest.len().min(chunk.len() - i);
        if let Some(bad) = (0..n).find(|&k| chunk[i + k] != rest[k]) {
            return Err(i + bad);
        }
        self.keep(&rest[..n]);
        if n == rest.len() {
            self.scalar_end();
        } else {
            self.token = Token::Literal(&rest[n..]);
        }
        Ok(i + n)
    }

    /// Inside a value nested too deep, from `i`.
    fn deep(&mut self, mut d: Deep, chunk: &[u8], mut i: usize) -> Result<usize, usize> {
        let start = i;
        while i < chunk.len() {
            let b = chunk[i];
            if d.in_string {
                if d.escape == 5 {
                    if !matches!(b, b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' | b'u') {
                        return Err(i);
                    }
                    d.escape = if b == b'u' { 4 } else { 0 };
                    i += 1;
                } else if d.escape > 0 {
                    lex::hex(b).ok_or(i)?;
                    d.escape -= 1;
                    i += 1;
                } else {
                    let (run, wide) = lex::plain_run(&chunk[i..]);
                    if wide || self.utf8.pending() {
                        self.utf8.check(&chunk[i..i + run]).map_err(|at| i + at)?;
                    }
                    i += run;
                    if i == chunk.len() {
                        break;
                    }
                    if self.utf8.pending() {
                        return Err(i);
                    }
                    match chunk[i] {
                        b'"' => d.in_string = false,
                        b'\\' => d.escape = 5,
                        _ => return Err(i),
                    }
                    i += 1;
                }
                continue;
            }
            match b {
                b'"' => d.in_string = true,
                b'[' | b'{' => d.depth += 1,
                b']' | b'}' => {
                    d.depth -= 1;
                    if d.depth == 0 {
                        if (b == b'}') != d.object {
                            return Err(i);
                        }
                        i += 1;
                        d.chars += utf8::count_leads(&chunk[start..i]);
                        self.deep_end(d.chars);
                        return Ok(i);
                    }
                }
                b' ' | b'\t' | b'\n' | b'\r' | 0x21..=0x7e => {}
                _ => return Err(i),
            }
            i += 1;
        }
        d.chars += utf8::count_leads(&chunk[start..i]);
        self.token = Token::Deep(d);
        Ok(i)
    }

    /// The end of a value nested too deep: written as a cut string.
    fn deep_end(&mut self, chars: u64) {
        if self.live {
            self.pending_cuts += 1;
            self.cut = true;
            let marker = format!("\"{}\"", notice::json_cut(chars));
            self.keep(marker.as_bytes());
        }
        self.scalar_end();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(items: u64, string_chars: u64, budget: u64) -> Settings {
        Settings { items, string_chars, budget, unit: Unit::Chars, documents: u64::MAX }
    }

    /// The cut of `input` fed in reads of `size` bytes: its output, or
    /// where the JSON ended.
    fn cut_in(input: &str, settings: Settings, size: usize) -> Result<(String, JsonCut), u64> {
        let mut cutter = Cutter::new(settings);
        for chunk in input.as_bytes().chunks(size.max(1)) {
            let _ = cutter.feed(chunk);
        }
        cutter.finish()?;
        Ok((String::from_utf8(cutter.output().to_vec()).expect("UTF-8"), cutter.counts()))
    }

    /// [`cut_in`], the same for every read size from 1 to 7 and whole.
    fn cut(input: &str, settings: Settings) -> Result<(String, JsonCut), u64> {
        let whole = cut_in(input, settings, input.len());
        for size in 1..=7 {
            assert_eq!(cut_in(input, settings, size), whole, "{input:?} in reads of {size}");
        }
        whole
    }

    fn out(input: &str, settings: Settings) -> String {
        cut(input, settings).expect("JSON").0
    }

    #[test]
    fn what_fits_is_passed_through() {
        for input in [
            "[]",
            " { } \n",
            "[1, 2.5e-3 , \"a\\u00e9\\n\" ,true,false,null ]",
            "{\"k\" : {\"a\":[[]]}, \"z\":-0}\n{}\n[0]\n",
            "[] \"top\" 12 true\n",
        ] {
            assert_eq!(out(input, settings(100, 100, 1000)), input);
        }
    }

    #[test]
    fn arrays_and_objects_keep_their_first_items() {
        let s = settings(2, 0, u64::MAX);
        assert_eq!(out("[1, 2, 3, 4]", s), "[1, 2]");
        assert_eq!(out("[\n  1,\n  2,\n  3\n]\n", s), "[\n  1,\n  2\n]\n");
        assert_eq!(out(r#"{"a": 1, "b": [1,2,3], "c": 3}"#, s), r#"{"a": 1, "b": [1,2]}"#);
        let (_, counts) = cut(r#"{"a": 1, "b": [1,2,3], "c": 3}"#, s).unwrap();
        assert_eq!((counts.items_kept, counts.items, counts.arrays_cut), (4, 6, 2));
    }

    #[test]
    fn long_strings_keep_their_first_characters() {
        let s = settings(10, 3, u64::MAX);
        assert_eq!(out(r#"["abcdef", "abc", "ab"]"#, s), "[\"abc…[+3 chars]\", \"abc\", \"ab\"]");
        assert_eq!(out(r#"["é€😀x"]"#, s), "[\"é€😀…[+1 chars]\"]");
        assert_eq!(out(r#"["\n\u00e9\ud83d\ude00\tx"]"#, s), "[\"\\n\\u00e9\\ud83d\\ude00…[+2 chars]\"]");
        assert_eq!(out(r#"{"abcdef": "x"}"#, s), "{\"abc…[+3 chars]\": \"x\"}");
        assert_eq!(cut(r#"{"abcdef": "x"}"#, s).unwrap().1.strings_cut, 1);
    }

    #[test]
    fn the_budget_drops_the_last_items_first() {
        // `[1, 22, 333]` is 12: with 10, `333` does not fit with the `]`.
        let s = |budget| settings(100, 0, budget);
        assert_eq!(out("[1, 22, 333]", s(12)), "[1, 22, 333]");
        assert_eq!(out("[1, 22, 333]", s(11)), "[1, 22]");
        assert_eq!(out("[1, 22, 333]", s(7)), "[1, 22]");
        assert_eq!(out("[1, 22, 333]", s(6)), "[1]");
        assert_eq!(out("[1, 22, 333]", s(2)), "[]");
        assert_eq!(out("[[1, 2], [3, 4]]", s(11)), "[[1, 2]]");
        assert_eq!(out("[[1, 2], [3, 4]]", s(12)), "[[1, 2], []]");
        assert_eq!(out("[[1, 2], [3, 4]]", s(13)), "[[1, 2], [3]]");
        assert_eq!(out("{\"a\": [1, 2], \"b\": 2}", s(14)), "{\"a\": [1, 2]}");
        let (_, counts) = cut("[[1, 2], [3, 4], 5]", s(13)).unwrap();
        assert_eq!((counts.items_kept, counts.items, counts.arrays_cut), (3, 5, 2));
    }

    #[test]
    fn the_space_before_a_closing_bracket_is_kept_when_it_fits() {
        let s = |budget| settings(100, 0, budget);
        assert_eq!(out("[\n  1,\n  2\n]", s(12)), "[\n  1,\n  2\n]");
        assert_eq!(out("[\n  1,\n  2\n]", s(11)), "[\n  1,\n  2]");
        assert_eq!(out("[\n  1,\n  2\n]", s(10)), "[\n  1\n]");
        assert_eq!(out("[\n  1,\n  2\n]\n", s(12)), "[\n  1,\n  2\n]");
    }

    #[test]
    fn documents_of_json_lines() {
        let input = "{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n";
        assert_eq!(
            out(input, Settings { documents: 2, ..settings(9, 0, u64::MAX) }),
            "{\"a\":1}\n{\"b\":2}\n"
        );
        assert_eq!(out(input, settings(9, 0, 17)), "{\"a\":1}\n{\"b\":2}\n");
        let (_, counts) = cut(input, settings(9, 0, 17)).unwrap();
        assert_eq!((counts.documents_kept, counts.documents), (2, 3));
    }

    #[test]
    fn what_is_not_json_says_where_it_ended() {
        let s = settings(10, 10, 100);
        assert_eq!(cut("hello", s), Err(0));
        assert_eq!(cut("  \"a\"", s), Err(2));
        assert_eq!(cut("", s), Err(0));
        assert_eq!(cut("  ", s), Err(2));
        assert_eq!(cut("[1, 2", s), Err(5));
        assert_eq!(cut("[1, 2}", s), Err(5));
        assert_eq!(cut("{\"a\" 1}", s), Err(5));
        assert_eq!(cut("[01]", s), Err(2));
        assert_eq!(cut("[1.]", s), Err(3));
        assert_eq!(cut("[tru]", s), Err(4));
        assert_eq!(cut("[\"a\u{1}\"]", s), Err(3));
        assert_eq!(cut("[\"\\x\"]", s), Err(3));
        assert_eq!(cut("[1,]", s), Err(3));
        assert_eq!(cut("{} x", s), Err(3));
        assert_eq!(cut("[] 1x", s), Err(4));
        assert_eq!(cut("[] 12", s).map(|r| r.0), Ok("[] 12".to_owned()));
    }

    /// What is dropped is read by a fast loop when the read holds it and
    /// by a general one when the reads split it: both find the same end,
    /// or the same byte where the JSON ends, for every byte of a dropped
    /// item replaced, removed or doubled.
    #[test]
    fn a_dropped_item_ends_at_the_same_byte_however_it_is_read() {
        let item = "{\n  \"a\": [1, -0.5e+3, 2E7, true, false, null, \"x\\u00e9\\n\", {}, []],\n  \"b\": {\"c\": \"é\"}\n}";
        let input = format!("[0, {item}, 12, \"s\" ]");
        let s = settings(1, 0, u64::MAX);
        assert_eq!(out(&input, s), "[0 ]");
        let dropped = 4..4 + item.len();
        for at in dropped {
            for b in [
                b"x", b",", b":", b"]", b"}", b"[", b"{", b"\"", b"\\", b"1", b"-", b"e", b".", b" ", b"\x01",
            ] {
                let mut changed = input.clone().into_bytes();
                changed[at] = b[0];
                let mut removed = input.clone().into_bytes();
                removed.remove(at);
                let mut doubled = input.clone().into_bytes();
                doubled.insert(at, input.as_bytes()[at]);
                for bytes in [changed, removed, doubled] {
                    if let Ok(text) = String::from_utf8(bytes) {
                        let _ = cut(&text, s);
                    }
                }
            }
        }
    }

    #[test]
    fn values_nested_too_deep_become_a_cut_string() {
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 2), "]".repeat(MAX_DEPTH + 2));
        let kept = out(&deep, settings(10, 10, u64::MAX));
        let want = format!("{}\"…[+4 chars]\"{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert_eq!(kept, want);
        assert_eq!(cut(&deep, settings(10, 10, u64::MAX)).unwrap().1.strings_cut, 1);
    }
}
