//! The screen's state, and the rows that leave it.

use std::collections::VecDeque;

use super::grid::{Cell, Row, row_cells, row_text_of};

/// What DECSC (`ESC 7`, `CSI s`) keeps for DECRC (`ESC 8`, `CSI u`).
#[derive(Clone, Copy, Default)]
pub(super) struct Saved {
    pub(super) cx: usize,
    pub(super) cy: usize,
    pub(super) origin: bool,
}

/// The screen state. Names follow tmux's: `sx`/`sy` the size, `cx`/`cy`
/// the cursor (`cx == sx` is the pending-wrap state after the last
/// column), `rupper`/`rlower` the scroll region.
pub(super) struct Term {
    pub(super) sx: usize,
    pub(super) sy: usize,
    /// A ring, so that scrolling the whole screen up a row, once a line
    /// of output, moves no rows.
    pub(super) rows: VecDeque<Row>,
    pub(super) cx: usize,
    pub(super) cy: usize,
    pub(super) rupper: usize,
    pub(super) rlower: usize,
    pub(super) tabs: Vec<bool>,
    pub(super) wrap: bool,
    pub(super) insert: bool,
    pub(super) origin: bool,
    pub(super) saved: Saved,
    /// The main screen's rows while the alternate screen is shown.
    pub(super) alternate: Option<VecDeque<Row>>,
    /// The cursor saved by `ESC[?1049h`; tmux keeps it once set.
    pub(super) alternate_cursor: Option<(usize, usize)>,
    /// A zero-width joiner was printed: the next character joins the cell
    /// before the cursor.
    pub(super) joiner: bool,
    /// The last ASCII character printed, for REP (`CSI b`).
    pub(super) last: Option<u8>,
    /// Inside `ESC k ... ESC \` (a screen-style title), shown nowhere.
    pub(super) title: bool,
    pub(super) onlcr: bool,
    /// The bytes of the cell that a [`MARK`](super::screen::MARK) being
    /// parsed stands for.
    pub(super) aside: Option<Cell>,
    /// Empty rows that scrolled off and wait for a row with text.
    pub(super) blank_rows: u64,
    /// Text of the open line was emitted: the output does not end in `\n`.
    pub(super) started: bool,
    /// The spaces at the end of the open line's last row: written only
    /// when text follows them on the next row, so no line ends in blanks.
    pub(super) held_spaces: usize,
    pub(super) text: Vec<u8>,
}

impl Term {
    pub(super) fn new(sx: usize, sy: usize) -> Self {
        Term {
            sx,
            sy,
            rows: VecDeque::from(vec![Row::new(sx); sy]),
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
    pub(super) fn emit_row(&mut self, y: usize, out: &mut dyn FnMut(&[u8])) {
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

pub(super) fn default_tabs(sx: usize) -> Vec<bool> {
    (0..sx).map(|x| x > 0 && x % 8 == 0).collect()
}
