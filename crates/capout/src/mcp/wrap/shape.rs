//! The cut of `structuredContent` that keeps its shape, for a profile
//! whose own cut does not keep JSON valid (one without `--json-items`):
//! every member stays, so that a client that checks the result against
//! the tool's output schema still can; a string longer than
//! [`STRING_CHARS`] characters keeps its first ones followed by
//! `…[+K chars]` inside the string, as `--json-items` cuts one; and once
//! the budget is spent, the items of an array after its first are left
//! out.
//!
//! It is made as the value streams, as edits of the reply's spill: the
//! value itself is never held.

use super::json::Take;
use super::spill::Edit;

/// The characters a string keeps (as `--json-string-chars` by default).
pub const STRING_CHARS: u64 = 1000;

/// Containers nested deeper than this are kept as they are.
const MAX_LEVEL: usize = 64;

/// One `structuredContent`'s cut, as it streams.
#[derive(Debug)]
pub struct Shape {
    budget: u64,
    /// Where `structuredContent` starts in the spill, and the bytes the
    /// edits so far take out and put in: what it keeps so far, exactly.
    origin: u64,
    removed: u64,
    added: u64,
    /// Where the last item ended, by level, in the spill.
    ends: Vec<u64>,
    /// The levels of the containers entered.
    open: Vec<usize>,
    /// Where the current value starts.
    start: u64,
    /// The item being left out: where its removal starts.
    leaving: Option<u64>,
    string: Option<Cut>,
    /// The edits that make the cut, in the order of the spill.
    pub edits: Vec<Edit>,
}

/// A string being read: its first characters, and how many it has.
#[derive(Debug, Default)]
struct Cut {
    kept: Vec<u8>,
    chars: u64,
}

impl Shape {
    /// A cut of the value that starts at `origin` in the spill, that
    /// keeps about `budget` bytes.
    pub fn new(budget: u64, origin: u64) -> Shape {
        Shape {
            budget,
            origin,
            removed: 0,
            added: 0,
            ends: Vec::new(),
            open: Vec::new(),
            start: 0,
            leaving: None,
            string: None,
            edits: Vec::new(),
        }
    }

    /// A value starts at `start` (in the spill) at `level` (0: a member
    /// or item of `structuredContent` itself); `item` is its index when
    /// it is an array's item.
    pub fn value(&mut self, level: usize, item: Option<u64>, first: u8, start: u64) -> Take {
        self.start = start;
        let kept = (start - self.origin + self.added).saturating_sub(self.removed);
        if let Some(index) = item
            && index > 0
            && kept > self.budget
        {
            self.leaving = self.ends.get(level).copied();
            if self.leaving.is_some() {
                return Take::Skip;
            }
        }
        match first {
            b'"' => {
                self.string = Some(Cut::default());
                Take::Decode
            }
            b'{' | b'[' if level < MAX_LEVEL => {
                self.open.push(level);
                if self.ends.len() <= level + 1 {
                    self.ends.resize(level + 2, 0);
                }
                self.ends[level + 1] = start + 1;
                Take::Enter
            }
            _ => Take::Skip,
        }
    }

    /// Whether the value starting is left out: its bytes may go.
    pub fn leaving(&self) -> bool {
        self.leaving.is_some()
    }

    /// The next decoded bytes of the current string; whether it is now
    /// sure to be cut (its bytes may go).
    pub fn bytes(&mut self, bytes: &[u8]) -> bool {
        let Some(cut) = &mut self.string else { return false };
        let starts = |bytes: &[u8]| bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count() as u64;
        if cut.chars > STRING_CHARS {
            cut.chars += starts(bytes);
            return true;
        }
        for (at, &b) in bytes.iter().enumerate() {
            // A character starts at each byte that is not a continuation.
            if b & 0xC0 != 0x80 {
                cut.chars += 1;
                if cut.chars > STRING_CHARS {
                    // The rest counts, and is not kept.
                    cut.chars += starts(&bytes[at + 1..]);
                    return true;
                }
            }
            cut.kept.push(b);
        }
        cut.chars > STRING_CHARS
    }

    /// The current value at `level` ended at `end`; `item` when it is an
    /// array's item.
    pub fn end(&mut self, level: usize, item: bool, end: u64) {
        if self.open.last() == Some(&level) {
            self.open.pop();
        } else if let Some(from) = self.leaving.take() {
            self.removed += end - from;
            self.edits.push(Edit { start: from, end, with: Vec::new() });
        } else if let Some(cut) = self.string.take()
            && cut.chars > STRING_CHARS
        {
            let text =
                format!("{}…[+{} chars]", String::from_utf8_lossy(&cut.kept), cut.chars - STRING_CHARS);
            let with = serde_json::to_vec(&text).unwrap_or_default();
            self.removed += end - self.start;
            self.added += with.len() as u64;
            self.edits.push(Edit { start: self.start, end, with });
        }
        if item && let Some(last) = self.ends.get_mut(level) {
            *last = end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::wrap::json::{Event, Walker};
    use crate::mcp::wrap::spill::Spill;

    /// `document` cut by a shape of `budget`, the edits made on its bytes.
    fn cut(document: &str, budget: u64) -> String {
        let mut walker = Walker::new();
        let mut shape = Shape::new(budget, 0);
        let mut at = 0;
        let bytes = document.as_bytes();
        loop {
            let event = walker.step(bytes, &mut at);
            match event {
                Event::More | Event::Error => break,
                Event::Value { at: start, first } => {
                    let depth = walker.depth();
                    let take = if depth == 0 {
                        Take::Enter
                    } else {
                        let item = walker.index(depth - 1);
                        shape.value(depth - 1, item, first, start as u64)
                    };
                    walker.take(take);
                }
                Event::Bytes(b) => {
                    shape.bytes(b);
                }
                Event::End { at: end } => {
                    let depth = walker.depth();
                    if depth > 0 {
                        let item = walker.index(depth - 1).is_some();
                        shape.end(depth - 1, item, end as u64);
                    }
                }
                Event::Key { .. } => {}
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let mut spill = Spill::new(dir.path().into());
        spill.write(bytes);
        let mut out = Vec::new();
        spill.emit(&shape.edits, b"", &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn long_strings_keep_their_start_and_every_member_stays() {
        let long = "é".repeat(1500);
        let document = format!(r#"{{"result":"{long}","n":1,"short":"ok"}}"#);
        let expected = format!(r#"{{"result":"{}…[+500 chars]","n":1,"short":"ok"}}"#, "é".repeat(1000));
        assert_eq!(cut(&document, 100_000), expected);
    }

    #[test]
    fn past_the_budget_items_after_the_first_are_left_out() {
        let items: Vec<String> = (0..100).map(|i| format!(r#"{{"id":{i}}}"#)).collect();
        let document = format!(r#"{{"items":[{}],"more":[1, 2, 3],"total":100}}"#, items.join(", "));
        // The items that start past 40 bytes are left out.
        let got = cut(&document, 40);
        assert_eq!(got, r#"{"items":[{"id":0}, {"id":1}, {"id":2}, {"id":3}],"more":[1],"total":100}"#);
        serde_json::from_str::<serde_json::Value>(&got).unwrap();
    }

    #[test]
    fn a_document_within_the_budget_is_left_as_it_is() {
        let document = r#"{ "a" : [1, {"b": "c"}], "d": null }"#;
        assert_eq!(cut(document, 1000), document);
    }
}
