//! The parser's callbacks: text printed, controls executed, escape and
//! CSI sequences dispatched.

use unicode_width::UnicodeWidthChar;

use super::csi::Args;
use super::grid::{Cell, ZWJ, encode};
use super::screen::MARK;
use super::term::{Saved, Term};

/// The parser's callbacks, with where finished rows go.
pub(super) struct Performer<'a> {
    pub(super) t: &'a mut Term,
    pub(super) out: &'a mut dyn FnMut(&[u8]),
    /// A CSI or ESC sequence was dispatched: the parser is in its ground
    /// state, and stops there.
    pub(super) dispatched: bool,
}

impl Performer<'_> {
    /// Text in the parser's ground state, valid UTF-8 of whole
    /// characters, up to its first ESC: what `vte` does with it (controls
    /// executed, the rest printed), with a run of printable ASCII written
    /// at once. Returns where the ESC is (the length of `text` when there
    /// is none).
    pub(super) fn ground_text(&mut self, text: &str) -> usize {
        use vte::Perform as _;
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if (0x20..0x7f).contains(&b) {
                let run = i + printable_run(&bytes[i..]);
                if !self.t.title && self.t.wrap && !self.t.insert {
                    self.put_ascii_run(&bytes[i..run]);
                    self.t.last = Some(bytes[run - 1]);
                } else {
                    for &c in &bytes[i..run] {
                        self.print(char::from(c));
                    }
                }
                i = run;
            } else if b == 0x1b {
                return i;
            } else if b < 0x80 {
                if b == 0x7f {
                    self.print('\x7f');
                } else {
                    self.execute(b);
                }
                i += 1;
            } else {
                let c = text[i..].chars().next().unwrap_or(char::REPLACEMENT_CHARACTER);
                let len = c.len_utf8();
                if ('\u{80}'..='\u{9f}').contains(&c) {
                    // A C1 control, executed as vte executes it.
                    self.execute(c as u8);
                } else if let Some(width @ 1..) = c.width()
                    && c != MARK
                    && !self.t.title
                    && self.t.wrap
                    && !self.t.insert
                    && !self.t.joiner
                {
                    self.put_char(&bytes[i..i + len], width.min(2));
                } else {
                    self.print(c);
                }
                i += len;
            }
        }
        bytes.len()
    }
}

/// The length of the run of printable ASCII (0x20 to 0x7e) that starts
/// `bytes`, looked at eight bytes at a time.
fn printable_run(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let (words, _) = bytes.as_chunks::<8>();
    let mut n = 0;
    for word in words {
        let w = u64::from_le_bytes(*word);
        // A byte below 0x20 borrows into its high bit; one at 0x7f or
        // above has it set after adding 1. A carry or borrow out of a
        // byte comes only from one that is itself caught.
        let below = w.wrapping_sub(0x20 * ONES) & !w;
        let above = w.wrapping_add(ONES) | w;
        if (below | above) & HIGH != 0 {
            break;
        }
        n += 8;
    }
    n + bytes[n..].iter().position(|b| !(0x20..0x7f).contains(b)).unwrap_or(bytes.len() - n)
}

impl vte::Perform for Performer<'_> {
    fn terminated(&self) -> bool {
        self.dispatched
    }

    fn print(&mut self, c: char) {
        if self.t.title || c == '\x7f' {
            return;
        }
        if c == MARK {
            let cell = self.t.aside.unwrap_or(Cell { width: 1, ..encode(MARK) });
            self.t.last = None;
            self.put_cell(cell);
        } else if c.is_ascii() {
            self.t.last = Some(c as u8);
            if self.t.wrap && !self.t.insert {
                self.put_ascii(c as u8);
            } else {
                self.put_cell(encode(c));
            }
        } else {
            self.t.last = None;
            if c == ZWJ {
                self.t.joiner = true;
                return;
            }
            self.put_cell(encode(c));
        }
    }

    fn execute(&mut self, byte: u8) {
        if self.t.title {
            // Only CAN and SUB end a title string; other controls are
            // part of it.
            if matches!(byte, 0x18 | 0x1a) {
                self.t.title = false;
                self.t.last = None;
            }
            return;
        }
        self.t.last = None;
        let t = &mut *self.t;
        match byte {
            0x08 => self.backspace(),
            0x09 => self.tab(),
            0x0a => {
                self.linefeed(false);
                if self.t.onlcr {
                    self.t.cx = 0;
                }
            }
            0x0b | 0x0c => self.linefeed(false),
            0x0d => t.cx = 0,
            _ => {}
        }
    }

    fn hook(&mut self, _: &vte::Params, _: &[u8], _: bool, _: char) {
        self.t.title = false;
    }

    fn osc_dispatch(&mut self, _: &[&[u8]], _: bool) {
        self.t.title = false;
    }

    fn csi_dispatch(&mut self, params: &vte::Params, intermediates: &[u8], ignore: bool, action: char) {
        self.dispatched = true;
        self.t.title = false;
        if ignore {
            return;
        }
        self.csi_sequence(&Args::of(params), intermediates, action);
    }

    fn esc_dispatch(&mut self, intermediates: &[u8], _: bool, byte: u8) {
        self.dispatched = true;
        self.t.title = false;
        let t = &mut *self.t;
        match (intermediates, byte) {
            (b"", b'7') => t.saved = Saved { cx: t.cx, cy: t.cy, origin: t.origin },
            (b"", b'8') => self.restore(),
            (b"#", b'8') => self.alignment_test(),
            (b"", b'D') => self.linefeed(false),
            (b"", b'E') => {
                t.cx = 0;
                self.linefeed(false);
            }
            (b"", b'H') => {
                if t.cx < t.sx {
                    t.tabs[t.cx] = true;
                }
            }
            (b"", b'M') => self.reverse_index(),
            (b"", b'c') => self.reset(),
            (b"", b'k') => {
                // Not a dispatch in tmux: a title string starts, and `last`
                // stays.
                t.title = true;
                return;
            }
            (b"", b'=' | b'>' | b'\\') | (b"(" | b")", b'0' | b'B') => {}
            _ => return,
        }
        self.t.last = None;
    }
}
