//! What the cut drops, read to its end: a value (or an object's member)
//! that is not kept is only checked, since the stream is JSON only if it
//! all is, and passed over. It is most of a large document, so it has a
//! loop of its own: its state in a few words (a bit for each array or
//! object open), nothing written, nothing counted.
//!
//! The grammar and the byte at which JSON ends are those of the cutter
//! (`cut.rs`): values nested past [`MAX_DEPTH`] are checked only for their
//! strings and the balance of their brackets, as there.

use super::cut::MAX_DEPTH;
use super::lex::{self, Number, Utf8};

/// What the skim reads: a value, or a member (a key, `:`, a value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Start {
    Value,
    Member,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum Expect {
    /// A value: at the start, after `:`, after `,` in an array.
    Value,
    /// After `[`: a value or `]`.
    FirstItem,
    /// After `{`: a key or `}`.
    FirstMember,
    /// A key: at the start of a member, after `,` in an object.
    Key,
    /// After a key.
    Colon,
    /// After a value inside an array or object: `,` or its closing
    /// bracket.
    Next,
}

#[derive(Clone, Copy, Debug)]
enum Token {
    None,
    /// In a string (a key when `key`); `escape`: 0, or 5 right after `\`,
    /// or the hex digits still owed by `\u`.
    Str {
        key: bool,
        escape: u8,
    },
    Number(Number),
    Literal(&'static [u8]),
    /// Nested past the limit: brackets open; in a string and its escape
    /// as above.
    Loose {
        depth: u64,
        object: bool,
        in_string: bool,
        escape: u8,
    },
}

/// What a byte does where [`Expect`] stands, looked up in [`ACTIONS`]:
/// one jump, where a chain of tests would guess at each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum Action {
    Error,
    Space,
    String,
    Key,
    Open,
    Number,
    Literal,
    Close,
    Comma,
    Colon,
}

/// [`Action`] by [`Expect`] and byte.
static ACTIONS: [[Action; 256]; 6] = {
    let mut table = [[Action::Error; 256]; 6];
    let mut e = 0;
    while e < 6 {
        let row = &mut table[e];
        row[b' ' as usize] = Action::Space;
        row[b'\n' as usize] = Action::Space;
        row[b'\t' as usize] = Action::Space;
        row[b'\r' as usize] = Action::Space;
        let value = e == Expect::Value as usize || e == Expect::FirstItem as usize;
        let key = e == Expect::FirstMember as usize || e == Expect::Key as usize;
        if value {
            row[b'"' as usize] = Action::String;
            row[b'[' as usize] = Action::Open;
            row[b'{' as usize] = Action::Open;
            row[b'-' as usize] = Action::Number;
            let mut d = b'0';
            while d <= b'9' {
                row[d as usize] = Action::Number;
                d += 1;
            }
            row[b't' as usize] = Action::Literal;
            row[b'f' as usize] = Action::Literal;
            row[b'n' as usize] = Action::Literal;
        }
        if key {
            row[b'"' as usize] = Action::Key;
        }
        if e == Expect::FirstItem as usize || e == Expect::Next as usize {
            row[b']' as usize] = Action::Close;
        }
        if e == Expect::FirstMember as usize || e == Expect::Next as usize {
            row[b'}' as usize] = Action::Close;
        }
        if e == Expect::Next as usize {
            row[b',' as usize] = Action::Comma;
        }
        if e == Expect::Colon as usize {
            row[b':' as usize] = Action::Colon;
        }
        e += 1;
    }
    table
};

/// Where [`Skim::fast`] left off.
enum Fast {
    /// The value ended before this index.
    Ended(usize),
    /// Between tokens, at this index: the general loop goes on.
    Stopped(usize),
}

/// The whitespace at `chunk[i]` passed over: where the next token starts
/// (or the chunk ends).
#[inline]
fn space(chunk: &[u8], i: usize) -> usize {
    match chunk.get(i) {
        Some(&b) if b > b' ' => i,
        None => i,
        // One space, as after a colon or a comma on one line.
        Some(b' ') if chunk.get(i + 1).is_some_and(|&b| b > b' ') => i + 1,
        _ => i + lex::space_run(&chunk[i..]),
    }
}

/// Where the number at `chunk[i]` ends, by the grammar of [`Number`],
/// when it is one and a byte follows it in `chunk` (else it may go on in
/// the next chunk, or is not JSON: the general loop says which).
#[inline]
fn number_end(chunk: &[u8], mut i: usize) -> Option<usize> {
    let digits = |mut i: usize| -> Option<usize> {
        while chunk.get(i)?.is_ascii_digit() {
            i += 1;
        }
        Some(i)
    };
    if chunk[i] == b'-' {
        i += 1;
    }
    match *chunk.get(i)? {
        b'0' => i += 1,
        b'1'..=b'9' => i = digits(i + 1)?,
        _ => return None,
    }
    if *chunk.get(i)? == b'.' {
        if !chunk.get(i + 1)?.is_ascii_digit() {
            return None;
        }
        i = digits(i + 2)?;
    }
    if matches!(*chunk.get(i)?, b'e' | b'E') {
        i += 1;
        if matches!(*chunk.get(i)?, b'+' | b'-') {
            i += 1;
        }
        if !chunk.get(i)?.is_ascii_digit() {
            return None;
        }
        i = digits(i + 1)?;
    }
    Some(i)
}

/// A dropped value being read.
#[derive(Clone, Debug)]
pub(super) struct Skim {
    /// A bit for each array or object open in the value, 1 for an object;
    /// the innermost is bit `depth - 1`.
    bits: [u64; MAX_DEPTH / 64],
    depth: usize,
    /// How many may be open before one is too deep.
    limit: usize,
    expect: Expect,
    token: Token,
    utf8: Utf8,
    /// The value is an array or object (at the top of the stream, one
    /// needs no whitespace after it).
    container: bool,
}

impl Skim {
    /// A skim of what `start` says, inside `open` arrays and objects.
    pub(super) fn new(start: Start, open: usize) -> Skim {
        Skim {
            bits: [0; MAX_DEPTH / 64],
            depth: 0,
            limit: MAX_DEPTH.saturating_sub(open),
            expect: if start == Start::Member { Expect::Key } else { Expect::Value },
            token: Token::None,
            utf8: Utf8::default(),
            container: false,
        }
    }

    /// Whether the stream may end where the skim stands: after a number
    /// that is all of the value.
    pub(super) fn may_end(&self) -> bool {
        matches!(self.token, Token::Number(n) if n.complete() && self.depth == 0)
    }

    /// Whether the value read is an array or object.
    pub(super) fn container(&self) -> bool {
        self.container
    }

    fn object(&self) -> bool {
        let d = self.depth - 1;
        self.bits[d / 64] >> (d % 64) & 1 == 1
    }

    fn push(&mut self, object: bool) {
        let d = self.depth;
        let bit = 1 << (d % 64);
        if object {
            self.bits[d / 64] |= bit;
        } else {
            self.bits[d / 64] &= !bit;
        }
        self.depth += 1;
    }

    /// Reads `chunk` from `i`: `Ok(Some(end))` when the value ends before
    /// `end`, `Ok(None)` when the chunk ends first, else the index of the
    /// first byte that is not JSON. `plain`: `chunk` is valid UTF-8 and no
    /// character was begun before it.
    pub(super) fn run(&mut self, chunk: &[u8], mut i: usize, plain: bool) -> Result<Option<usize>, usize> {
        loop {
            // A value ended: the skim is done at the top, else `,` or a
            // closing bracket may follow.
            let ended = match self.token {
                Token::None => false,
                _ => match self.resume(chunk, &mut i, plain)? {
                    Some(ended) => ended,
                    None => return Ok(None),
                },
            };
            if ended {
                if self.depth == 0 {
                    return Ok(Some(i));
                }
                self.expect = Expect::Next;
            }
            // Between tokens: the common case first, then the token it
            // stopped before, if any, by the general loop.
            if plain {
                match self.fast(chunk, i) {
                    Fast::Ended(end) => return Ok(Some(end)),
                    Fast::Stopped(at) => i = at,
                }
            }
            // Whitespace is one more action, so that whether a token
            // follows at once is guessed with the rest.
            let Some(&b) = chunk.get(i) else { return Ok(None) };
            match ACTIONS[self.expect as usize][b as usize] {
                Action::Space => {
                    i += lex::space_run(&chunk[i..]);
                    continue;
                }
                Action::String => {
                    if plain && let Some(end) = lex::skip_string(chunk, i + 1) {
                        i = end;
                        if self.depth == 0 {
                            return Ok(Some(i));
                        }
                        self.expect = Expect::Next;
                        continue;
                    }
                    self.token = Token::Str { key: false, escape: 0 };
                }
                Action::Key => {
                    if plain && let Some(end) = lex::skip_string(chunk, i + 1) {
                        i = end;
                        self.expect = Expect::Colon;
                        continue;
                    }
                    self.token = Token::Str { key: true, escape: 0 };
                }
                Action::Open => {
                    self.container |= self.depth == 0;
                    if self.depth == self.limit {
                        self.token =
                            Token::Loose { depth: 1, object: b == b'{', in_string: false, escape: 0 };
                    } else {
                        self.push(b == b'{');
                        self.expect = if b == b'{' { Expect::FirstMember } else { Expect::FirstItem };
                    }
                }
                Action::Number => self.token = Token::Number(Number::start(b)),
                Action::Literal => self.token = Token::Literal(lex::literal_rest(b)),
                Action::Close if self.depth > 0 && self.object() == (b == b'}') => {
                    self.depth -= 1;
                    i += 1;
                    if self.depth == 0 {
                        return Ok(Some(i));
                    }
                    self.expect = Expect::Next;
                    continue;
                }
                Action::Comma if self.depth > 0 => {
                    self.expect = if self.object() { Expect::Key } else { Expect::Value };
                }
                Action::Colon => self.expect = Expect::Value,
                Action::Close | Action::Comma | Action::Error => return Err(i),
            }
            i += 1;
        }
    }

    /// The common case read fast: whole tokens of a plain chunk, between
    /// tokens from `i`. Where the grammar stands is where the code is, not
    /// a state looked up at each token, so that each test has a branch of
    /// its own to predict, and a member's key, colon and value are read in
    /// one go. It stops before a token it cannot finish in the chunk (one
    /// that reaches its end, or a byte that is not JSON there, or a
    /// bracket past the limit), with `expect` and the brackets open as
    /// [`Skim::run`] has them there: that loop reads the token, so the
    /// byte where JSON ends is found by one code.
    #[inline]
    fn fast(&mut self, chunk: &[u8], mut i: usize) -> Fast {
        let mut at = self.expect;
        // Whether the innermost bracket open is `{`, at hand for each comma
        // and closing bracket.
        let mut object = self.depth > 0 && self.object();
        loop {
            if matches!(at, Expect::Key | Expect::FirstMember | Expect::Colon) {
                if at != Expect::Colon {
                    i = space(chunk, i);
                    match chunk.get(i) {
                        Some(b'"') => match lex::skip_string(chunk, i + 1) {
                            Some(end) => i = end,
                            None => return self.stop(at, i),
                        },
                        Some(b'}') if at == Expect::FirstMember => {
                            self.depth -= 1;
                            i += 1;
                            if self.depth == 0 {
                                return Fast::Ended(i);
                            }
                            object = self.object();
                            at = Expect::Next;
                            continue;
                        }
                        _ => return self.stop(at, i),
                    }
                }
                i = space(chunk, i);
                if chunk.get(i) != Some(&b':') {
                    return self.stop(Expect::Colon, i);
                }
                i += 1;
                at = Expect::Value;
            }
            if matches!(at, Expect::Value | Expect::FirstItem) {
                i = space(chunk, i);
                let Some(&b) = chunk.get(i) else { return self.stop(at, i) };
                match b {
                    b'"' => match lex::skip_string(chunk, i + 1) {
                        Some(end) => i = end,
                        None => return self.stop(at, i),
                    },
                    b'{' | b'[' => {
                        if self.depth == self.limit {
                            return self.stop(at, i);
                        }
                        self.container |= self.depth == 0;
                        object = b == b'{';
                        self.push(object);
                        i += 1;
                        at = if b == b'{' { Expect::FirstMember } else { Expect::FirstItem };
                        continue;
                    }
                    b'-' | b'0'..=b'9' => match number_end(chunk, i) {
                        Some(end) => i = end,
                        None => return self.stop(at, i),
                    },
                    b't' | b'f' | b'n' => {
                        let word: &[u8] = match b {
                            b't' => b"true",
                            b'f' => b"false",
                            _ => b"null",
                        };
                        if chunk.get(i..i + word.len()) != Some(word) {
                            return self.stop(at, i);
                        }
                        i += word.len();
                    }
                    // `[` was the last byte: the array is empty.
                    b']' if at == Expect::FirstItem => {
                        self.depth -= 1;
                        i += 1;
                        if self.depth > 0 {
                            object = self.object();
                        }
                    }
                    _ => return self.stop(at, i),
                }
                if self.depth == 0 {
                    return Fast::Ended(i);
                }
            }
            // After a value in an array or object: `,` and the next item,
            // or the closing brackets.
            loop {
                i = space(chunk, i);
                match chunk.get(i) {
                    Some(b',') => {
                        i += 1;
                        at = if object { Expect::Key } else { Expect::Value };
                        break;
                    }
                    Some(&b) if (b == b']' || b == b'}') && object == (b == b'}') => {
                        self.depth -= 1;
                        i += 1;
                        if self.depth == 0 {
                            return Fast::Ended(i);
                        }
                        object = self.object();
                    }
                    _ => return self.stop(Expect::Next, i),
                }
            }
        }
    }

    /// The fast loop stops at `i`, where `expect` is `at`.
    fn stop(&mut self, at: Expect, i: usize) -> Fast {
        self.expect = at;
        Fast::Stopped(i)
    }

    /// Inside the token begun, from `*i`: whether a value ended with it
    /// (a key does not end one), or `None` when the chunk ended first.
    fn resume(&mut self, chunk: &[u8], i: &mut usize, plain: bool) -> Result<Option<bool>, usize> {
        let ended = match self.token {
            Token::None => false,
            Token::Str { key, escape } => {
                if let Some(escape) = self.string(chunk, i, escape, plain)? {
                    self.token = Token::Str { key, escape };
                    return Ok(None);
                }
                if key {
                    self.expect = Expect::Colon;
                }
                !key
            }
            Token::Number(mut n) => {
                while let Some(&b) = chunk.get(*i) {
                    match n.next(b) {
                        Some(next) => n = next,
                        None => break,
                    }
                    *i += 1;
                }
                if *i == chunk.len() {
                    self.token = Token::Number(n);
                    return Ok(None);
                }
                if !n.complete() {
                    return Err(*i);
                }
                true
            }
            Token::Literal(rest) => {
                let n = rest.len().min(chunk.len() - *i);
                if let Some(bad) = (0..n).find(|&k| chunk[*i + k] != rest[k]) {
                    return Err(*i + bad);
                }
                *i += n;
                if n < rest.len() {
                    self.token = Token::Literal(&rest[n..]);
                    return Ok(None);
                }
                true
            }
            Token::Loose { .. } => {
                if !self.loose(chunk, i)? {
                    return Ok(None);
                }
                true
            }
        };
        self.token = Token::None;
        Ok(Some(ended))
    }

    /// Inside a string from `*i`, with `escape` as in [`Token::Str`]:
    /// `None` once it ended (`*i` after its quote), else the escape state
    /// at the chunk's end.
    fn string(
        &mut self,
        chunk: &[u8],
        i: &mut usize,
        mut escape: u8,
        plain: bool,
    ) -> Result<Option<u8>, usize> {
        while *i < chunk.len() {
            let b = chunk[*i];
            if escape == 5 {
                if !matches!(b, b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' | b'u') {
                    return Err(*i);
                }
                escape = if b == b'u' { 4 } else { 0 };
                *i += 1;
                continue;
            }
            if escape > 0 {
                lex::hex(b).ok_or(*i)?;
                escape -= 1;
                *i += 1;
                continue;
            }
            let (run, wide) = lex::plain_run(&chunk[*i..]);
            // A plain chunk holds only whole characters: nothing to check
            // unless one was begun before it.
            if self.utf8.pending() || wide && !plain {
                self.utf8.check(&chunk[*i..*i + run]).map_err(|at| *i + at)?;
            }
            *i += run;
            let Some(&b) = chunk.get(*i) else { break };
            if self.utf8.pending() {
                return Err(*i);
            }
            *i += 1;
            match b {
                b'"' => return Ok(None),
                b'\\' => escape = 5,
                _ => return Err(*i - 1),
            }
        }
        Ok(Some(escape))
    }

    /// Inside a value nested too deep: whether it ended.
    fn loose(&mut self, chunk: &[u8], i: &mut usize) -> Result<bool, usize> {
        let Token::Loose { mut depth, object, mut in_string, mut escape } = self.token else {
            return Ok(true);
        };
        while *i < chunk.len() {
            if in_string {
                match self.string(chunk, i, escape, false)? {
                    Some(e) => escape = e,
                    None => in_string = false,
                }
                continue;
            }
            let b = chunk[*i];
            *i += 1;
            match b {
                b'"' => (in_string, escape) = (true, 0),
                b'[' | b'{' => depth += 1,
                b']' | b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        if (b == b'}') != object {
                            return Err(*i - 1);
                        }
                        return Ok(true);
                    }
                }
                b' ' | b'\t' | b'\n' | b'\r' | 0x21..=0x7e => {}
                _ => return Err(*i - 1),
            }
        }
        self.token = Token::Loose { depth, object, in_string, escape };
        Ok(false)
    }
}
