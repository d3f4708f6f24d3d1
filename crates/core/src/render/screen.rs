//! The screen's face: bytes in, finished rows out, UTF-8 cut anywhere,
//! and the text between escape sequences handed to the screen at once.

use super::csi::{Args, MAX_PARAMS, simple_csi};
use super::grid::{Cell, row_text};
use super::perform::Performer;
use super::term::Term;

/// Stands, inside the text given to the parser, for a cell whose bytes are
/// set aside first: an invalid UTF-8 sequence, or this character itself
/// when the input holds it. A private-use character, so a literal one is
/// rare.
pub(super) const MARK: char = '\u{10FFFD}';
const MARK_STR: &str = "\u{10FFFD}";

/// A terminal screen of fixed size that turns a byte stream into the rows a
/// terminal would show.
///
/// ```
/// use capout_core::internals::Screen;
///
/// let mut out = Vec::new();
/// let mut screen = Screen::new(80, 24);
/// screen.feed(b"\xe2\xa0\x99 installing\x1b[1G\x1b[0Kdone\r\n", &mut |row| out.extend_from_slice(row));
/// screen.finish(&mut |row| out.extend_from_slice(row));
/// assert_eq!(out, b"done\n");
/// ```
pub struct Screen {
    parser: vte::Parser,
    /// The parser is known to be in its ground state (it dispatched a
    /// sequence, or saw nothing yet): the text up to the next ESC is
    /// printed here, a run of ASCII at once, as the parser would print it
    /// a character at a time.
    ground: bool,
    term: Term,
    /// The start of a UTF-8 sequence that the next feed completes.
    carry: [u8; 4],
    carry_len: usize,
    /// The parameters of the last CSI sequence that the screen parsed
    /// itself, kept so that each one does not build them anew.
    args: Args,
}

impl std::fmt::Debug for Screen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Screen")
            .field("width", &self.term.sx)
            .field("height", &self.term.sy)
            .field("cursor", &(self.term.cx, self.term.cy))
            .finish_non_exhaustive()
    }
}

impl Screen {
    /// A blank screen of `width` columns and `height` rows, the cursor at
    /// the top left. A width below 2 counts as 2 (a wide character needs
    /// two columns) and a height below 1 as 1.
    ///
    /// A line feed (`\n`) also returns the cursor to the first column, as
    /// a terminal's line discipline makes it by default (`stty onlcr`):
    /// text that a program writes to a pipe has no `\r` before its `\n`.
    /// [`Screen::raw_line_feed`] turns that off.
    pub fn new(width: usize, height: usize) -> Self {
        Screen {
            parser: vte::Parser::new(),
            ground: true,
            term: Term::new(width.max(2), height.max(1)),
            carry: [0; 4],
            carry_len: 0,
            args: Args { params: [None; MAX_PARAMS], len: 0 },
        }
    }

    /// A line feed only moves the cursor down, as in a terminal whose line
    /// discipline passes output unchanged (`stty -opost`); for bytes
    /// recorded from a pseudo-terminal, which already hold the `\r\n`.
    #[must_use]
    pub fn raw_line_feed(mut self) -> Self {
        self.term.onlcr = false;
        self
    }

    /// Feeds the next bytes of the stream. `emit` is called with each row
    /// that scrolls off the top: its text, trailing blanks removed, and a
    /// `\n`; a row that the text wrapped off comes whole and without the
    /// `\n`, so that it and the rows it went on to make one line. Empty rows are held back until a row with text follows them,
    /// so the output never ends in empty rows. The bytes may be cut
    /// anywhere, even inside an escape sequence or a character: the rows
    /// are the same for any cut.
    pub fn feed(&mut self, mut bytes: &[u8], emit: &mut impl FnMut(&[u8])) {
        let emit: &mut dyn FnMut(&[u8]) = emit;
        // First finish the character that the last feed cut.
        while self.carry_len > 0 {
            let Some(&b) = bytes.first() else { return };
            let len = self.carry_len;
            let mut carry = self.carry;
            carry[len] = b;
            match std::str::from_utf8(&carry[..=len]) {
                Ok(c) => {
                    bytes = &bytes[1..];
                    self.carry_len = 0;
                    self.valid(c, emit);
                }
                Err(e) if e.error_len().is_none() => {
                    bytes = &bytes[1..];
                    self.carry = carry;
                    self.carry_len += 1;
                }
                Err(_) => {
                    // The carried bytes are invalid; `b` starts afresh.
                    self.carry_len = 0;
                    self.set_aside(&carry[..len], emit);
                }
            }
        }
        // A character cut by the end of this feed waits for the next one;
        // set apart first, so that the rest is validated once, as a whole.
        let (mut bytes, cut) = bytes.split_at(cut_character(bytes));
        while !bytes.is_empty() {
            // Validated with SIMD (`simdutf8`, already a dependency for the
            // counters); std's validation, which says where it fails, only
            // for input that does: it was a tenth of a render of CJK text.
            if let Ok(text) = simdutf8::basic::from_utf8(bytes) {
                self.valid(text, emit);
                break;
            }
            match std::str::from_utf8(bytes) {
                Ok(text) => {
                    self.valid(text, emit);
                    break;
                }
                Err(e) => {
                    let (good, rest) = bytes.split_at(e.valid_up_to());
                    // Validated again up to the invalid sequence: rare.
                    if let Ok(good) = std::str::from_utf8(good) {
                        self.valid(good, emit);
                    }
                    // A sequence cut short at the end is followed by the
                    // lead byte of the cut character: invalid, all of it.
                    let bad = e.error_len().unwrap_or(rest.len());
                    self.set_aside(&rest[..bad], emit);
                    bytes = &rest[bad..];
                }
            }
        }
        self.carry[..cut.len()].copy_from_slice(cut);
        self.carry_len = cut.len();
    }

    /// Ends the stream: `emit` gets the rows still on the screen, up to
    /// the last one that holds text. A character cut by the end of the
    /// input counts as invalid UTF-8.
    pub fn finish(mut self, emit: &mut impl FnMut(&[u8])) {
        let emit: &mut dyn FnMut(&[u8]) = emit;
        if self.carry_len > 0 {
            let carry = self.carry;
            let len = self.carry_len;
            self.carry_len = 0;
            self.set_aside(&carry[..len], emit);
        }
        let t = &mut self.term;
        let last = (0..t.sy).rev().find(|&y| !row_text(&t.rows[y], &mut t.text).is_empty());
        if let Some(last) = last {
            for y in 0..=last {
                t.emit_row(y, emit);
            }
        }
        // A line wrapped onto rows that hold no text ends here.
        if t.started {
            emit(b"\n");
        }
    }

    /// Valid UTF-8 goes to the parser. A literal [`MARK`] prints as the
    /// cell that setting its bytes aside would make.
    fn valid(&mut self, text: &str, emit: &mut dyn FnMut(&[u8])) {
        self.advance(text, emit);
    }

    /// Gives the parser a [`MARK`] that prints as `raw`. Inside an escape
    /// sequence the mark is swallowed like any other character.
    fn set_aside(&mut self, raw: &[u8], emit: &mut dyn FnMut(&[u8])) {
        let mut cell = Cell::BLANK;
        cell.data[..raw.len()].copy_from_slice(raw);
        cell.len = raw.len() as u8;
        self.term.aside = Some(cell);
        self.advance(MARK_STR, emit);
        self.term.aside = None;
    }

    /// Valid UTF-8, whole characters, to the screen. Printing a
    /// character at a time through the parser took most of the time of a
    /// render; the parser now sees only what lies between an ESC and the
    /// end of its sequence, and the text in between is printed here, as
    /// are the CSI sequences of parameters alone (colours, `ESC[K`,
    /// cursor moves), the bulk of a program's escapes.
    fn advance(&mut self, mut text: &str, emit: &mut dyn FnMut(&[u8])) {
        let mut performer = Performer { t: &mut self.term, out: emit, dispatched: false };
        while !text.is_empty() {
            if self.ground {
                // Up to the next ESC, which is a character boundary.
                text = &text[performer.ground_text(text)..];
                let Some((len, marker, action)) = simple_csi(text.as_bytes(), &mut self.args) else {
                    // The ESC, if any, leaves the ground state.
                    self.ground = text.is_empty();
                    continue;
                };
                // What `vte` would dispatch for these bytes.
                performer.t.title = false;
                performer.csi_sequence(&self.args, marker, char::from(action));
                text = &text[len..];
            } else {
                // Up to the end of the next CSI or ESC sequence, after
                // which the parser is in its ground state.
                performer.dispatched = false;
                let parsed = self.parser.advance_until_terminated(&mut performer, text.as_bytes());
                // The parser stops after the ASCII byte that ends a
                // sequence, or at the end: a character boundary.
                text = text.get(parsed..).unwrap_or_default();
                self.ground = performer.dispatched;
            }
        }
    }
}

/// A cut UTF-8 character at the end of `bytes`: where it starts, or
/// `bytes.len()` when the bytes end in a whole character (or in an
/// invalid sequence).
fn cut_character(bytes: &[u8]) -> usize {
    for start in (bytes.len().saturating_sub(3)..bytes.len()).rev() {
        match bytes[start] {
            0x80..=0xbf => {}
            0xc0.. => {
                return match std::str::from_utf8(&bytes[start..]) {
                    Err(e) if e.error_len().is_none() => start,
                    _ => bytes.len(),
                };
            }
            _ => break,
        }
    }
    bytes.len()
}
