//! `--render`: what a terminal would show, a line that the terminal
//! wrapped at its width joined back into one.
//!
//! [`Screen`] is a small streaming terminal: bytes go in with
//! [`Screen::feed`], and every row that scrolls off the top of the screen
//! comes out at once, final, through the caller's `emit`. At the end,
//! [`Screen::finish`] gives the rows still on the screen, up to the last
//! one that holds text. Memory is the window (twice, while a full-screen
//! program has the alternate screen), never the input.
//!
//! The escape grammar is the `vte` crate's; the screen model follows tmux,
//! the oracle of the tests: for the same bytes, the lines are those of
//! `tmux capture-pane -p -J -S -` in a pane of the same size, trailing
//! blanks removed: a row that the text wrapped off is joined to the next,
//! so a model reads the logical lines a program wrote. Where tmux and a hardware terminal disagree (a backspace from
//! the pending-wrap state, a wide character half overwritten, `ESC[2J`
//! scrolling the screen into the history) the model does what tmux does.
//! Deliberate differences:
//!
//! - Invalid UTF-8 is one cell of width 1 per maximal invalid sequence (as
//!   `String::from_utf8_lossy` cuts them), and the cell is written back as
//!   the original bytes; tmux drops such bytes, and most terminals show
//!   U+FFFD.
//! - Character widths come from the `unicode-width` crate; tmux asks the C
//!   library, which may differ on characters that Unicode added lately,
//!   and drops characters it has no width for.
//! - `ESC[3J` (clear the history) clears nothing: a row that scrolled off
//!   is final.
//! - `ESC[n;0r` sets a region down to the last row, as `ESC[n;r` does
//!   (the parser reads a missing and a zero parameter alike); tmux ignores
//!   it. A parameter above 65535 counts as 65535; tmux ignores a sequence
//!   with one above 2^31 - 1.
//! - DEC line-drawing characters stay the ASCII letters that select them,
//!   as in tmux's capture; colours and other attributes are dropped.

use unicode_width::UnicodeWidthChar;

/// The most bytes one cell holds: a character and what combines with it.
/// tmux's limit, so the same combining marks are kept and dropped.
const CELL_BYTES: usize = 21;

/// Stands, inside the text given to the parser, for a cell whose bytes are
/// set aside first: an invalid UTF-8 sequence, or this character itself
/// when the input holds it. A private-use character, so a literal one is
/// rare.
const MARK: char = '\u{10FFFD}';
const MARK_STR: &str = "\u{10FFFD}";

/// The zero-width joiner: tmux joins the next character to the cell before.
const ZWJ: char = '\u{200D}';

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

/// A CSI sequence at the start of `bytes` of parameters alone (digits and
/// `;`, after at most a private marker such as `?`), as `vte` parses it:
/// its length, the marker (the sequence's intermediates), the parameters
/// and the final byte. `None` for anything else (sub-parameters,
/// intermediates, controls inside, a sequence cut by the end, 32
/// parameters or more), which goes to the parser. The parameters go to
/// `args`.
fn simple_csi<'a>(bytes: &'a [u8], args: &mut Args) -> Option<(usize, &'a [u8], u8)> {
    if bytes.len() < 3 || bytes[0] != 0x1b || bytes[1] != b'[' {
        return None;
    }
    let mut i = 2;
    let marker = if (0x3c..=0x3f).contains(&bytes[i]) {
        i += 1;
        &bytes[2..3]
    } else {
        &bytes[2..2]
    };
    args.len = 0;
    let mut param: u16 = 0;
    loop {
        let b = *bytes.get(i)?;
        i += 1;
        match b {
            b'0'..=b'9' => param = param.saturating_mul(10).saturating_add(u16::from(b - b'0')),
            b';' => {
                if args.len + 2 >= MAX_PARAMS {
                    return None;
                }
                args.params[args.len] = Some(param);
                args.len += 1;
                param = 0;
            }
            0x40..=0x7e => {
                args.params[args.len] = Some(param);
                args.len += 1;
                return Some((i, marker, b));
            }
            _ => return None,
        }
    }
}

/// One cell: the bytes shown there, and whether it is the right half of
/// a wide character (a padding cell, shown as nothing).
#[derive(Clone, Copy)]
struct Cell {
    data: [u8; CELL_BYTES],
    len: u8,
    /// Columns taken: 1, 2 for a wide character, 0 for a padding cell.
    width: u8,
}

impl Cell {
    const BLANK: Cell = {
        let mut data = [0; CELL_BYTES];
        data[0] = b' ';
        Cell { data, len: 1, width: 1 }
    };
    const PADDING: Cell = Cell { data: [0; CELL_BYTES], len: 0, width: 0 };
    /// A blank at the end of a row that a wide character wrapped off
    /// before it: one column, shown as nothing.
    const UNUSED: Cell = Cell { data: [0; CELL_BYTES], len: 0, width: 1 };

    fn is_padding(&self) -> bool {
        self.width == 0
    }
}

/// A row of cells, with the two flags of tmux's lines that change what
/// is shown: `used` (tmux's `cellused != 0`: `ESC[2J` scrolls the rows up
/// to the last used one into the history) and `wrapped` (the text went on
/// to the next row, so a backspace at its start goes back up).
///
/// `end` bounds the cells that may differ from [`Cell::BLANK`]: every
/// cell from it on is blank. Most rows hold a short line on a wide
/// screen, so emptying, clearing and reading a row touch only its start,
/// not all its cells.
#[derive(Clone)]
struct Row {
    cells: Vec<Cell>,
    end: usize,
    used: bool,
    wrapped: bool,
}

impl Row {
    fn new(width: usize) -> Self {
        Row { cells: vec![Cell::BLANK; width], end: 0, used: false, wrapped: false }
    }

    fn reset(&mut self) {
        self.cells[..self.end].fill(Cell::BLANK);
        self.end = 0;
        self.used = false;
        self.wrapped = false;
    }

    /// The cells before `to` may now differ from a blank.
    fn touch(&mut self, to: usize) {
        self.end = self.end.max(to);
    }

    /// Cells `from..to` are blanked.
    fn blank(&mut self, from: usize, to: usize) {
        let to = to.min(self.cells.len());
        if from >= to {
            return;
        }
        if from < self.end {
            self.cells[from..to.min(self.end)].fill(Cell::BLANK);
            if to >= self.end {
                self.end = from;
            }
        }
    }
}

/// The text of a row as tmux captures it: padding cells skipped, trailing
/// spaces removed.
fn row_text<'a>(row: &Row, buf: &'a mut Vec<u8>) -> &'a [u8] {
    row_cells(row, buf);
    row_text_of(buf)
}

/// `buf` without its trailing spaces.
fn row_text_of(buf: &mut Vec<u8>) -> &[u8] {
    while buf.last() == Some(&b' ') {
        buf.pop();
    }
    buf
}

/// The text of a row's cells up to its `end`, padding cells skipped; the
/// blank cells after it are spaces that a caller who needs them (a
/// wrapped row, as `tmux capture-pane -J` keeps it, spaces at its end
/// included) counts as `cells.len() - end`.
fn row_cells(row: &Row, buf: &mut Vec<u8>) {
    buf.clear();
    let mut cells = &row.cells[..row.end];
    while !cells.is_empty() {
        // Most cells hold one byte: a run of them is gathered at once.
        let n = cells.iter().position(|c| c.len != 1).unwrap_or(cells.len());
        buf.extend(cells[..n].iter().map(|c| c.data[0]));
        let Some((cell, rest)) = cells[n..].split_first() else { break };
        buf.extend_from_slice(&cell.data[..usize::from(cell.len)]);
        cells = rest;
    }
}

/// What DECSC (`ESC 7`, `CSI s`) keeps for DECRC (`ESC 8`, `CSI u`).
#[derive(Clone, Copy, Default)]
struct Saved {
    cx: usize,
    cy: usize,
    origin: bool,
}

/// The screen state. Names follow tmux's: `sx`/`sy` the size, `cx`/`cy`
/// the cursor (`cx == sx` is the pending-wrap state after the last
/// column), `rupper`/`rlower` the scroll region.
struct Term {
    sx: usize,
    sy: usize,
    rows: Vec<Row>,
    cx: usize,
    cy: usize,
    rupper: usize,
    rlower: usize,
    tabs: Vec<bool>,
    wrap: bool,
    insert: bool,
    origin: bool,
    saved: Saved,
    /// The main screen's rows while the alternate screen is shown.
    alternate: Option<Vec<Row>>,
    /// The cursor saved by `ESC[?1049h`; tmux keeps it once set.
    alternate_cursor: Option<(usize, usize)>,
    /// A zero-width joiner was printed: the next character joins the cell
    /// before the cursor.
    joiner: bool,
    /// The last ASCII character printed, for REP (`CSI b`).
    last: Option<u8>,
    /// Inside `ESC k ... ESC \` (a screen-style title), shown nowhere.
    title: bool,
    onlcr: bool,
    /// The bytes of the cell that a [`MARK`] being parsed stands for.
    aside: Option<Cell>,
    /// Empty rows that scrolled off and wait for a row with text.
    blank_rows: u64,
    /// Text of the open line was emitted: the output does not end in `\n`.
    started: bool,
    /// The spaces at the end of the open line's last row: written only
    /// when text follows them on the next row, so no line ends in blanks.
    held_spaces: usize,
    text: Vec<u8>,
}

impl Term {
    fn new(sx: usize, sy: usize) -> Self {
        Term {
            sx,
            sy,
            rows: vec![Row::new(sx); sy],
            cx: 0,
            cy: 0,
            rupper: 0,
            rlower: sy - 1,
            tabs: default_tabs(sx),
            wrap: true,
            insert: false,
            origin: false,
            saved: Saved::default(),
            alternate: None,
            alternate_cursor: None,
            joiner: false,
            last: None,
            title: false,
            onlcr: true,
            aside: None,
            blank_rows: 0,
            started: false,
            held_spaces: 0,
            text: Vec::with_capacity(sx * 4),
        }
    }

    /// Row `y` is final: out it goes, after the empty rows held back.
    /// A wrapped row goes out without its `\n`: the rows it wrapped onto
    /// continue its line, as `tmux capture-pane -J` joins them, and the
    /// first row that is not wrapped ends it. Blanks at the end of a
    /// line are removed, also where they end a wrapped row.
    fn emit_row(&mut self, y: usize, out: &mut dyn FnMut(&[u8])) {
        const NEWLINES: [u8; 64] = [b'\n'; 64];
        const SPACES: [u8; 64] = [b' '; 64];
        let wrapped = self.rows[y].wrapped;
        row_cells(&self.rows[y], &mut self.text);
        let cells = self.text.len();
        let text = row_text_of(&mut self.text).len();
        let spaces = cells - text + (self.sx - self.rows[y].end);
        if text == 0 {
            if wrapped {
                self.held_spaces += spaces;
            } else {
                // The end of the open line, or an empty line.
                if self.started {
                    out(b"\n");
                } else {
                    self.blank_rows += 1;
                }
                (self.started, self.held_spaces) = (false, 0);
            }
            return;
        }
        if !self.started {
            while self.blank_rows > 0 {
                let n = self.blank_rows.min(NEWLINES.len() as u64);
                out(&NEWLINES[..n as usize]);
                self.blank_rows -= n;
            }
        }
        while self.held_spaces > 0 {
            let n = self.held_spaces.min(SPACES.len());
            out(&SPACES[..n]);
            self.held_spaces -= n;
        }
        if wrapped {
            (self.started, self.held_spaces) = (true, spaces);
        } else {
            self.text.push(b'\n');
            self.started = false;
        }
        out(&self.text);
    }
}

fn default_tabs(sx: usize) -> Vec<bool> {
    (0..sx).map(|x| x > 0 && x % 8 == 0).collect()
}

/// The parser's callbacks, with where finished rows go.
struct Performer<'a> {
    t: &'a mut Term,
    out: &'a mut dyn FnMut(&[u8]),
    /// A CSI or ESC sequence was dispatched: the parser is in its ground
    /// state, and stops there.
    dispatched: bool,
}

impl Performer<'_> {
    /// Text in the parser's ground state, valid UTF-8 of whole
    /// characters, up to its first ESC: what `vte` does with it (controls
    /// executed, the rest printed), with a run of printable ASCII written
    /// at once. Returns where the ESC is (the length of `text` when there
    /// is none).
    fn ground_text(&mut self, text: &str) -> usize {
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

impl Performer<'_> {
    /// A CSI sequence that `vte` would not ignore, dispatched.
    fn csi_sequence(&mut self, args: &Args, intermediates: &[u8], action: char) {
        let known = match (intermediates, action) {
            (b"", _) => self.csi(args, action),
            (b"?", 'h') => self.private_modes(args, true),
            (b"?", 'l') => self.private_modes(args, false),
            (b">", 'c' | 'm' | 'n' | 'q') | (b" ", 'q') => true,
            _ => false,
        };
        // tmux forgets the character for REP after any sequence it knows.
        if known {
            self.t.last = None;
        }
    }
}

fn encode(c: char) -> Cell {
    let mut cell = Cell::BLANK;
    let len = c.encode_utf8(&mut cell.data).len();
    cell.len = len as u8;
    // Control characters never reach here; the parser executes them.
    cell.width = c.width().unwrap_or(1).min(2) as u8;
    cell
}

/// The parameters of a CSI sequence, read as tmux's `input_get` does. A
/// parameter with sub-parameters (`1:2`) is a string to tmux, and the
/// sequences that read one do nothing.
struct Args {
    /// Each parameter's value; `None` for one with sub-parameters.
    params: [Option<u16>; MAX_PARAMS],
    len: usize,
}

/// The most parameters a CSI sequence has: `vte`'s limit (a sequence
/// with more is ignored).
const MAX_PARAMS: usize = 32;

impl Args {
    fn of(params: &vte::Params) -> Self {
        let mut args = Args { params: [None; MAX_PARAMS], len: 0 };
        for (to, param) in args.params.iter_mut().zip(params.iter()) {
            *to = match param {
                [n] => Some(*n),
                _ => None,
            };
            args.len += 1;
        }
        args
    }

    /// Parameter `i`: `default` when missing or 0, at least `min`.
    fn get(&self, i: usize, min: usize, default: usize) -> Option<usize> {
        if i >= self.len {
            return Some(default);
        }
        match self.params[i] {
            Some(0) => Some(default),
            Some(n) => Some(usize::from(n).max(min)),
            None => None,
        }
    }

    fn all(&self) -> impl Iterator<Item = Option<usize>> + '_ {
        self.params[..self.len].iter().map(|p| p.map(usize::from))
    }
}

impl Performer<'_> {
    /// A CSI sequence without intermediates; false if tmux does not know
    /// it.
    fn csi(&mut self, args: &Args, action: char) -> bool {
        match action {
            'h' | 'l' => {
                for mode in args.all() {
                    if mode == Some(4) {
                        self.t.insert = action == 'h';
                    }
                }
                return true;
            }
            's' => {
                let t = &mut *self.t;
                t.saved = Saved { cx: t.cx, cy: t.cy, origin: t.origin };
                return true;
            }
            'u' => {
                self.restore();
                return true;
            }
            // SGR, device reports and window operations change no cell.
            'c' | 'm' | 'n' | 't' => return true,
            _ => {}
        }
        let Some(n) = args.get(0, 1, 1) else {
            // A string parameter (`1:2`): tmux's handlers do nothing.
            return true;
        };
        let (sx, sy) = (self.t.sx, self.t.sy);
        match action {
            '@' => self.insert_characters(n),
            'A' => self.cursor_up(n),
            'B' => self.cursor_down(n),
            'C' => self.cursor_right(n),
            'D' => self.t.cx -= n.min(self.t.cx),
            'E' => {
                self.t.cx = 0;
                self.cursor_down(n);
            }
            'F' => {
                self.t.cx = 0;
                self.cursor_up(n);
            }
            'G' | '`' => self.cursor_move(Some(n - 1), None, true),
            'H' | 'f' => {
                if let Some(m) = args.get(1, 1, 1) {
                    self.cursor_move(Some(m - 1), Some(n - 1), true);
                }
            }
            'J' => match args.get(0, 0, 0) {
                Some(0) => self.clear_end_of_screen(),
                Some(1) => self.clear_start_of_screen(),
                Some(2) => self.clear_screen(),
                _ => {}
            },
            'K' => match args.get(0, 0, 0) {
                Some(0) => self.clear_end_of_line(),
                Some(1) => self.clear_start_of_line(),
                Some(2) => self.clear_line(),
                _ => {}
            },
            'L' => self.insert_lines(n),
            'M' => self.delete_lines(n),
            'P' => self.delete_characters(n),
            'S' => {
                for _ in 0..n.min(self.t.rlower - self.t.rupper + 1) {
                    self.scroll_up();
                }
            }
            'T' => {
                let (upper, lower) = (self.t.rupper, self.t.rlower);
                for _ in 0..n.min(lower - upper + 1) {
                    self.move_lines(upper + 1, upper, lower - upper);
                }
            }
            'X' => self.erase_characters(n),
            'Z' => self.back_tab(n),
            'b' => {
                if let Some(c) = self.t.last {
                    for _ in 0..n.min(sx - self.t.cx) {
                        self.put_ascii_as_printed(c);
                    }
                }
            }
            'd' => self.cursor_move(None, Some(n - 1), true),
            'g' => self.clear_tabs(args.get(0, 0, 0)),
            'r' => {
                if let Some(m) = args.get(1, 1, sy) {
                    self.scroll_region(n - 1, m - 1);
                }
            }
            _ => return false,
        }
        true
    }

    fn tab(&mut self) {
        let t = &mut *self.t;
        if t.cx + 1 < t.sx {
            loop {
                t.cx += 1;
                if t.tabs[t.cx] || t.cx + 1 >= t.sx {
                    break;
                }
            }
        }
    }

    fn back_tab(&mut self, mut n: usize) {
        let t = &mut *self.t;
        let mut cx = t.cx.min(t.sx - 1);
        while cx > 0 && n > 0 {
            n -= 1;
            cx -= 1;
            while cx > 0 && !t.tabs[cx] {
                cx -= 1;
            }
        }
        t.cx = cx;
    }

    fn clear_tabs(&mut self, how: Option<usize>) {
        let t = &mut *self.t;
        match how {
            Some(0) if t.cx < t.sx => t.tabs[t.cx] = false,
            Some(3) => t.tabs.fill(false),
            _ => {}
        }
    }

    fn erase_characters(&mut self, n: usize) {
        let (cx, cy, sx) = (self.t.cx, self.t.cy, self.t.sx);
        let n = n.min(sx.saturating_sub(cx));
        if n > 0 {
            self.clear(cx, cy, n, 1);
        }
    }

    fn private_modes(&mut self, args: &Args, set: bool) -> bool {
        for mode in args.all() {
            match mode {
                Some(3) => {
                    self.cursor_move(Some(0), Some(0), true);
                    self.clear_screen();
                }
                Some(6) => {
                    self.t.origin = set;
                    self.cursor_move(Some(0), Some(0), true);
                }
                Some(7) => self.t.wrap = set,
                Some(47 | 1047) if set => self.alternate_on(false),
                Some(47 | 1047) => self.alternate_off(false),
                Some(1049) if set => self.alternate_on(true),
                Some(1049) => self.alternate_off(true),
                _ => {}
            }
        }
        true
    }

    // Printing.

    /// A printable ASCII character in the usual modes (tmux's "collect"
    /// path): wrap first if the cursor is past the last column.
    fn put_ascii(&mut self, c: u8) {
        let t = &mut *self.t;
        if t.cx > t.sx - 1 {
            self.linefeed(true);
            self.t.cx = 0;
        }
        let t = &mut *self.t;
        let mut cell = Cell::BLANK;
        cell.data[0] = c;
        overwrite_ascii(&mut t.rows[t.cy], t.cx);
        let row = &mut t.rows[t.cy];
        row.cells[t.cx] = cell;
        row.touch(t.cx + 1);
        row.used = true;
        t.cx += 1;
    }

    /// [`Performer::put_ascii`] for each byte of `run`, printable ASCII,
    /// a row's worth at a time: a character written over the one before
    /// it in the run has nothing to blank, so only the ends of each piece
    /// are looked at.
    fn put_ascii_run(&mut self, mut run: &[u8]) {
        while !run.is_empty() {
            let t = &mut *self.t;
            if t.cx > t.sx - 1 {
                self.linefeed(true);
                self.t.cx = 0;
            }
            let t = &mut *self.t;
            let (x, n) = (t.cx, run.len().min(t.sx - t.cx));
            let row = &mut t.rows[t.cy];
            overwrite_ascii(row, x);
            let mut cell = Cell::BLANK;
            for (to, &c) in row.cells[x..x + n].iter_mut().zip(&run[..n]) {
                cell.data[0] = c;
                *to = cell;
            }
            // What the last one blanks after it (the cells before were
            // written over).
            overwrite_ascii(row, x + n - 1);
            row.touch(x + n);
            row.used = true;
            t.cx += n;
            run = &run[n..];
        }
    }

    /// REP repeats the last character through tmux's print path.
    fn put_ascii_as_printed(&mut self, c: u8) {
        if self.t.wrap && !self.t.insert {
            self.put_ascii(c);
        } else {
            let mut cell = Cell::BLANK;
            cell.data[0] = c;
            self.put_cell(cell);
        }
    }

    /// A character of `raw` bytes and 1 or 2 columns, not [`MARK`], in
    /// the usual modes with no joiner pending: what [`Performer::print`]
    /// does with it, without building the cell twice.
    fn put_char(&mut self, raw: &[u8], width: usize) {
        let t = &mut *self.t;
        t.last = None;
        let mut cell = Cell::BLANK;
        cell.data[..raw.len()].copy_from_slice(raw);
        cell.len = raw.len() as u8;
        cell.width = width as u8;
        if t.cx + width > t.sx {
            // It wraps first.
            self.put_cell(cell);
            return;
        }
        let row = &mut t.rows[t.cy];
        overwrite(row, t.cx, width);
        if width == 2 {
            row.cells[t.cx + 1] = Cell::PADDING;
        }
        row.cells[t.cx] = cell;
        row.touch(t.cx + width);
        row.used = true;
        t.cx += width;
    }

    /// Any other character, as tmux's `screen_write_cell` writes it.
    fn put_cell(&mut self, cell: Cell) {
        let t = &mut *self.t;
        let width = usize::from(cell.width);
        let sx = t.sx;
        if t.joiner || width == 0 {
            if t.joiner {
                t.joiner = false;
                let mut joiner = Cell::PADDING;
                let len = ZWJ.encode_utf8(&mut joiner.data).len();
                joiner.len = len as u8;
                self.combine(&joiner);
            }
            self.combine(&cell);
            return;
        }
        if !t.wrap && width > 1 && (t.cx != sx && t.cx + width > sx) {
            return;
        }
        if t.insert {
            let (cx, cy) = (t.cx, t.cy);
            self.insert_cells(cx, cy, width);
        }
        let t = &mut *self.t;
        if t.wrap && t.cx + width > sx {
            // The columns a wide character did not fit in were never
            // written: tmux's `-J` leaves them out of the joined line.
            let row = &mut t.rows[t.cy];
            for cell in &mut row.cells[t.cx.min(sx)..] {
                if cell.len == 1 && cell.data[0] == b' ' && cell.width == 1 {
                    *cell = Cell::UNUSED;
                }
            }
            row.touch(sx);
            self.linefeed(true);
            self.t.cx = 0;
        }
        let t = &mut *self.t;
        if t.cx + width > sx {
            return;
        }
        let row = &mut t.rows[t.cy];
        overwrite(row, t.cx, width);
        for x in t.cx + 1..t.cx + width {
            row.cells[x] = Cell::PADDING;
        }
        row.cells[t.cx] = cell;
        row.touch(t.cx + width);
        row.used = true;
        let stick = usize::from(!t.wrap);
        if t.cx + stick + width <= sx {
            t.cx += width;
        } else {
            t.cx = sx - stick;
        }
    }

    /// A zero-width character joins the cell left of the cursor.
    fn combine(&mut self, mark: &Cell) {
        let t = &mut *self.t;
        let row = &mut t.rows[t.cy];
        let Some(x) = (0..t.cx).rev().find(|&x| !row.cells[x].is_padding()) else { return };
        let cell = &mut row.cells[x];
        let (len, add) = (usize::from(cell.len), usize::from(mark.len));
        if len + add > CELL_BYTES {
            return;
        }
        cell.data[len..len + add].copy_from_slice(&mark.data[..add]);
        cell.len += mark.len;
        row.touch(x + 1);
        row.used = true;
    }

    // Cursor movement.

    fn backspace(&mut self) {
        let t = &mut *self.t;
        if t.cx == 0 {
            if t.cy > 0 && t.rows[t.cy - 1].wrapped {
                t.cy -= 1;
                t.cx = t.sx - 1;
            }
        } else {
            t.cx -= 1;
        }
    }

    fn cursor_up(&mut self, n: usize) {
        let t = &mut *self.t;
        let n = if t.cy < t.rupper { n.min(t.cy) } else { n.min(t.cy - t.rupper) };
        if t.cx == t.sx {
            t.cx -= 1;
        }
        t.cy -= n;
    }

    fn cursor_down(&mut self, n: usize) {
        let t = &mut *self.t;
        let n = if t.cy > t.rlower { n.min(t.sy - 1 - t.cy) } else { n.min(t.rlower - t.cy) };
        if t.cx == t.sx {
            t.cx -= 1;
        } else if n == 0 {
            return;
        }
        t.cy += n;
    }

    fn cursor_right(&mut self, n: usize) {
        let t = &mut *self.t;
        if t.cx < t.sx {
            t.cx += n.min(t.sx - 1 - t.cx);
        } else {
            // From the pending-wrap state tmux lands on the last column.
            t.cx = t.sx - 1;
        }
    }

    /// CUP and friends; `origin` makes the row relative to the scroll
    /// region when origin mode is on.
    fn cursor_move(&mut self, x: Option<usize>, y: Option<usize>, origin: bool) {
        let t = &mut *self.t;
        let mut y = y;
        if origin && t.origin {
            y = y.map(|y| if y > t.rlower - t.rupper { t.rlower } else { y + t.rupper });
        }
        if let Some(x) = x {
            t.cx = x.min(t.sx - 1);
        }
        if let Some(y) = y {
            t.cy = y.min(t.sy - 1);
        }
    }

    fn restore(&mut self) {
        let saved = self.t.saved;
        self.t.origin = saved.origin;
        self.cursor_move(Some(saved.cx), Some(saved.cy), false);
    }

    // Scrolling.

    /// Line feed: down a row, or scroll the region up when the cursor is
    /// on its last row. `wrapped` marks the row as continued.
    fn linefeed(&mut self, wrapped: bool) {
        let t = &mut *self.t;
        if wrapped {
            t.rows[t.cy].wrapped = true;
        }
        if t.cy == t.rlower {
            self.scroll_up();
        } else if t.cy < t.sy - 1 {
            t.cy += 1;
        }
    }

    /// Scrolls the region up a row. On the main screen its top row goes
    /// to the history, which is the output, even when the region does not
    /// start at the top of the screen (as in tmux).
    fn scroll_up(&mut self) {
        let t = &mut *self.t;
        let (upper, lower) = (t.rupper, t.rlower);
        if t.alternate.is_some() {
            self.move_lines(upper, upper + 1, lower - upper);
            return;
        }
        t.emit_row(upper, self.out);
        t.rows[upper..=lower].rotate_left(1);
        t.rows[lower].reset();
    }

    fn reverse_index(&mut self) {
        let t = &mut *self.t;
        if t.cy == t.rupper {
            let (upper, lower) = (t.rupper, t.rlower);
            self.move_lines(upper + 1, upper, lower - upper);
        } else if t.cy > 0 {
            t.cy -= 1;
        }
    }

    fn scroll_region(&mut self, upper: usize, lower: usize) {
        let t = &mut *self.t;
        let upper = upper.min(t.sy - 1);
        let lower = lower.min(t.sy - 1);
        if upper >= lower {
            return;
        }
        t.cx = 0;
        t.cy = 0;
        t.rupper = upper;
        t.rlower = lower;
    }

    /// tmux's `grid_move_lines`: `n` rows from `from` to `to`; the rows
    /// they leave are emptied, and the rows before either end lose their
    /// wrapped flag.
    fn move_lines(&mut self, to: usize, from: usize, n: usize) {
        let t = &mut *self.t;
        if n == 0 || from == to {
            return;
        }
        if to != 0 {
            t.rows[to - 1].wrapped = false;
        }
        if from < to {
            t.rows[from..to + n].rotate_right(to - from);
        } else {
            t.rows[to..from + n].rotate_left(from - to);
        }
        for y in from..from + n {
            if y < to || y >= to + n {
                t.rows[y].reset();
            }
        }
        if from != 0 && (from < to || from >= to + n) {
            t.rows[from - 1].wrapped = false;
        }
    }

    // Erasing.

    /// tmux's `grid_clear`: whole rows are emptied (and the row before
    /// loses its wrapped flag), part of a row is blanked.
    fn clear(&mut self, x: usize, y: usize, nx: usize, ny: usize) {
        let t = &mut *self.t;
        if nx == 0 || ny == 0 {
            return;
        }
        if x == 0 && nx == t.sx {
            self.clear_lines(y, y + ny);
            return;
        }
        for row in &mut t.rows[y..y + ny] {
            row.blank(x, x + nx);
        }
    }

    /// tmux's `grid_clear_lines` over rows `from..to`; the range may be
    /// empty, and the row before still loses its wrapped flag.
    fn clear_lines(&mut self, from: usize, to: usize) {
        let t = &mut *self.t;
        for row in &mut t.rows[from..to] {
            row.reset();
        }
        if from != 0 {
            t.rows[from - 1].wrapped = false;
        }
    }

    fn clear_end_of_line(&mut self) {
        let t = &mut *self.t;
        if t.cx == 0 {
            self.clear_line();
        } else if t.cx < t.sx {
            let (cx, cy, sx) = (t.cx, t.cy, t.sx);
            self.clear(cx, cy, sx - cx, 1);
        }
    }

    fn clear_start_of_line(&mut self) {
        let t = &mut *self.t;
        if t.cx + 1 >= t.sx {
            self.clear_line();
        } else {
            let (cx, cy) = (t.cx, t.cy);
            self.clear(0, cy, cx + 1, 1);
        }
    }

    fn clear_line(&mut self) {
        let t = &mut *self.t;
        if t.rows[t.cy].used {
            let cy = t.cy;
            self.clear_lines(cy, cy + 1);
        }
    }

    fn clear_end_of_screen(&mut self) {
        let t = &mut *self.t;
        if t.cx == 0 && t.cy == 0 && t.alternate.is_none() {
            self.scroll_screen_into_history();
            return;
        }
        let (cx, cy, sx, sy) = (t.cx, t.cy, t.sx, t.sy);
        if cx < sx {
            self.clear(cx, cy, sx - cx, 1);
        }
        self.clear(0, cy + 1, sx, sy - (cy + 1));
    }

    fn clear_start_of_screen(&mut self) {
        let t = &mut *self.t;
        let (cx, cy, sx) = (t.cx, t.cy, t.sx);
        if cy > 0 {
            self.clear(0, 0, sx, cy);
        }
        if cx > sx - 1 {
            self.clear(0, cy, sx, 1);
        } else {
            self.clear(0, cy, cx + 1, 1);
        }
    }

    /// `ESC[2J`. tmux (`scroll-on-clear`) moves the main screen's rows up to
    /// the last used one into the history rather than erasing them.
    fn clear_screen(&mut self) {
        if self.t.alternate.is_some() {
            let sy = self.t.sy;
            self.clear_lines(0, sy);
        } else {
            self.scroll_screen_into_history();
        }
    }

    fn scroll_screen_into_history(&mut self) {
        let t = &mut *self.t;
        let used = t.rows.iter().rposition(|row| row.used).map_or(0, |y| y + 1);
        for y in 0..used {
            t.emit_row(y, self.out);
        }
        let sy = t.sy;
        self.clear_lines(0, sy);
    }

    // Inserting and deleting.

    /// tmux's `grid_move_cells`: `n` cells from `from` to `to` on row `y`;
    /// the cells they leave are blanked.
    fn move_cells(&mut self, y: usize, to: usize, from: usize, n: usize) {
        let row = &mut self.t.rows[y];
        if n == 0 || from == to {
            return;
        }
        row.cells.copy_within(from..from + n, to);
        for x in from..from + n {
            if x < to || x >= to + n {
                row.cells[x] = Cell::BLANK;
            }
        }
        row.touch(to + n);
        row.used = true;
    }

    fn insert_cells(&mut self, x: usize, y: usize, n: usize) {
        let sx = self.t.sx;
        if x + 1 >= sx {
            if x < sx {
                self.clear(x, y, 1, 1);
            }
        } else {
            self.move_cells(y, x + n, x, sx.saturating_sub(x + n));
        }
    }

    fn insert_characters(&mut self, n: usize) {
        let t = &mut *self.t;
        let (cx, cy, sx) = (t.cx, t.cy, t.sx);
        let n = n.min(sx.saturating_sub(cx));
        if n == 0 || cx > sx - 1 {
            return;
        }
        self.insert_cells(cx, cy, n);
    }

    fn delete_characters(&mut self, n: usize) {
        let t = &mut *self.t;
        let (cx, cy, sx) = (t.cx, t.cy, t.sx);
        let n = n.min(sx.saturating_sub(cx));
        if n == 0 || cx > sx - 1 {
            return;
        }
        self.move_cells(cy, cx, cx + n, sx - cx - n);
        if cx + 2 * n >= sx {
            // tmux's second clear; when its count wraps below zero it does
            // nothing, and the move above has blanked the end already.
            self.clear(sx - n, cy, cx + 2 * n - sx, 1);
        }
    }

    fn insert_lines(&mut self, n: usize) {
        let t = &mut *self.t;
        let (cy, sy, upper, lower) = (t.cy, t.sy, t.rupper, t.rlower);
        if cy < upper || cy > lower {
            // Outside the region tmux only moves rows: those that would
            // move past the end stay as they were.
            let n = n.min(sy - cy);
            self.move_lines(cy + n, cy, sy - cy - n);
            return;
        }
        let n = n.min(lower + 1 - cy);
        let kept = lower + 1 - cy - n;
        self.move_lines(cy + n, cy, kept);
        self.clear_lines_wrapping(cy + kept, n, kept);
    }

    fn delete_lines(&mut self, n: usize) {
        let t = &mut *self.t;
        let (cy, sy, upper, lower) = (t.cy, t.sy, t.rupper, t.rlower);
        if cy < upper || cy > lower {
            let n = n.min(sy - cy);
            self.move_lines(cy, cy + n, sy - cy - n);
            // tmux: grid_clear(0, sy - n, sx, cy + n - (sy - n)).
            self.clear_lines_wrapping(sy - n, cy + n, sy - n);
            return;
        }
        let n = n.min(lower + 1 - cy);
        let kept = lower + 1 - cy - n;
        self.move_lines(cy, cy + n, kept);
        self.clear_lines_wrapping(cy + kept, n, kept);
    }

    /// tmux's `grid_clear(0, from, sx, a - b)` with unsigned arithmetic:
    /// nothing when `a == b`, else the rows `from..from + a - b`, an
    /// empty range when `a < b` (but the row before `from` still loses its
    /// wrapped flag).
    fn clear_lines_wrapping(&mut self, from: usize, a: usize, b: usize) {
        if a == b {
            return;
        }
        let to = if a > b { from + (a - b) } else { from };
        self.clear_lines(from, to);
    }

    // Modes and resets.

    fn alternate_on(&mut self, cursor: bool) {
        let t = &mut *self.t;
        if t.alternate.is_some() {
            return;
        }
        t.alternate = Some(t.rows.clone());
        if cursor {
            t.alternate_cursor = Some((t.cx, t.cy));
        }
        for row in &mut t.rows {
            row.reset();
        }
    }

    fn alternate_off(&mut self, cursor: bool) {
        let t = &mut *self.t;
        if cursor && let Some((cx, cy)) = t.alternate_cursor {
            t.cx = cx;
            t.cy = cy;
        }
        if let Some(rows) = t.alternate.take() {
            t.rows = rows;
        }
        t.cx = t.cx.min(t.sx - 1);
        t.cy = t.cy.min(t.sy - 1);
    }

    fn alignment_test(&mut self) {
        let t = &mut *self.t;
        let mut e = Cell::BLANK;
        e.data[0] = b'E';
        for row in &mut t.rows {
            row.cells.fill(e);
            row.end = row.cells.len();
            row.used = true;
        }
        t.cx = 0;
        t.cy = 0;
        t.rupper = 0;
        t.rlower = t.sy - 1;
    }

    /// RIS (`ESC c`): tabs, region and modes reset, the screen cleared as
    /// `ESC[2J` clears it, the cursor home. The alternate screen stays.
    fn reset(&mut self) {
        let t = &mut *self.t;
        t.saved = Saved { origin: t.saved.origin, ..Saved::default() };
        t.tabs = default_tabs(t.sx);
        let sy = t.sy;
        self.scroll_region(0, sy - 1);
        let t = &mut *self.t;
        t.wrap = true;
        t.insert = false;
        t.origin = false;
        self.clear_screen();
        self.t.cx = 0;
        self.t.cy = 0;
    }
}

/// Before a character of `width` columns goes at `x`: a wide character
/// that it would cut in half is blanked whole, as tmux does.
fn overwrite(row: &mut Row, x: usize, width: usize) {
    let now = row.cells[x];
    if now.is_padding() {
        // Blank the padding back to its character, and the character.
        let mut xx = x;
        while xx > 0 && row.cells[xx].is_padding() {
            row.cells[xx] = Cell::BLANK;
            xx -= 1;
        }
        row.cells[xx] = Cell::BLANK;
    }
    if width != 1 || now.width != 1 {
        let mut xx = x + width;
        while xx < row.cells.len() && row.cells[xx].is_padding() {
            row.cells[xx] = Cell::BLANK;
            xx += 1;
        }
    }
}

/// The same for printable ASCII, which tmux writes by another path: its
/// walk back over padding stops before column 0, so a wide character in
/// column 0 whose right half is overwritten keeps its left half.
fn overwrite_ascii(row: &mut Row, x: usize) {
    let mut xx = x;
    while xx > 0 {
        if !row.cells[xx].is_padding() {
            if row.cells[xx].width > 1 {
                row.cells[xx] = Cell::BLANK;
            }
            break;
        }
        row.cells[xx] = Cell::BLANK;
        xx -= 1;
    }
    let mut xx = x + 1;
    while xx < row.cells.len() && row.cells[xx].is_padding() {
        row.cells[xx] = Cell::BLANK;
        xx += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::Screen;

    fn render(width: usize, height: usize, input: &[u8]) -> String {
        let mut out = Vec::new();
        let mut screen = Screen::new(width, height);
        screen.feed(input, &mut |row| out.extend_from_slice(row));
        screen.finish(&mut |row| out.extend_from_slice(row));
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn text_after_a_carriage_return_overwrites_only_its_cells() {
        assert_eq!(render(80, 24, "日本語テキスト 0 😀\r进度 0%".as_bytes()), "进度 0% キスト 0 😀\n");
    }

    #[test]
    fn invalid_utf8_is_written_back_as_it_came() {
        let out = {
            let mut out = Vec::new();
            let mut screen = Screen::new(10, 3);
            screen.feed(b"a\xffb\xe4\xbfc\r\xf4\x8f\xbf\xbd", &mut |row| out.extend_from_slice(row));
            screen.finish(&mut |row| out.extend_from_slice(row));
            out
        };
        assert_eq!(out, b"\xf4\x8f\xbf\xbd\xffb\xe4\xbfc\n");
    }

    /// The screen parses CSI sequences of parameters alone itself; after
    /// an OSC string the parser is back in its ground state unseen, so
    /// the same bytes go through `vte` instead. Both must draw alike.
    #[test]
    fn csi_sequences_parsed_by_the_screen_draw_as_the_parser_s_do() {
        let many = format!("\x1b[{}H", "1;".repeat(40));
        let sequences = [
            "\x1b[H",
            "\x1b[2;5H",
            "\x1b[;7H",
            "\x1b[3A",
            "\x1b[B",
            "\x1b[2C",
            "\x1b[99999D",
            "\x1b[4G",
            "\x1b[K",
            "\x1b[1K",
            "\x1b[2K",
            "\x1b[J",
            "\x1b[1J",
            "\x1b[2J",
            "\x1b[2@",
            "\x1b[3P",
            "\x1b[2X",
            "\x1b[L",
            "\x1b[2M",
            "\x1b[S",
            "\x1b[T",
            "\x1b[2;3r",
            "\x1b[0;0r",
            "\x1b[3b",
            "\x1b[?7l",
            "\x1b[?7h",
            "\x1b[?6h",
            "\x1b[?1049h",
            "\x1b[?1049l",
            "\x1b[4h",
            "\x1b[4l",
            "\x1b[1;31m",
            "\x1b[s",
            "\x1b[u",
            "\x1b[1:2A",
            "\x1b[>c",
            "\x1b[?",
            "\x1b[1\r2C",
            "\x1b[=5h",
            &many,
        ];
        for a in sequences {
            for b in sequences {
                let text = format!("abc\r\n日本語 x{a}de{b}f😀g\nhij");
                for (width, height) in [(10, 4), (3, 2)] {
                    assert_eq!(
                        render(width, height, text.as_bytes()),
                        render(width, height, format!("\x1b]0;t\x07{text}").as_bytes()),
                        "{text:?} at {width}x{height}"
                    );
                }
            }
        }
    }

    #[test]
    fn clearing_the_history_takes_back_nothing() {
        assert_eq!(render(10, 2, b"a\nb\nc\x1b[3J"), "a\nb\nc\n");
    }

    #[test]
    fn a_screen_left_in_the_alternate_screen_shows_it() {
        assert_eq!(render(10, 3, b"main\n\x1b[?1049hfull"), "\nfull\n");
    }
}
