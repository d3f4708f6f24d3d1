//! Cells and rows, and their text as tmux captures it.

use unicode_width::UnicodeWidthChar;

/// The most bytes one cell holds: a character and what combines with it.
/// tmux's limit, so the same combining marks are kept and dropped.
pub(super) const CELL_BYTES: usize = 21;

/// The zero-width joiner: tmux joins the next character to the cell before.
pub(super) const ZWJ: char = '\u{200D}';

/// One cell: the bytes shown there, and whether it is the right half of
/// a wide character (a padding cell, shown as nothing).
#[derive(Clone, Copy)]
pub(super) struct Cell {
    pub(super) data: [u8; CELL_BYTES],
    pub(super) len: u8,
    /// Columns taken: 1, 2 for a wide character, 0 for a padding cell.
    pub(super) width: u8,
}

impl Cell {
    pub(super) const BLANK: Cell = {
        let mut data = [0; CELL_BYTES];
        data[0] = b' ';
        Cell { data, len: 1, width: 1 }
    };
    pub(super) const PADDING: Cell = Cell { data: [0; CELL_BYTES], len: 0, width: 0 };
    /// A blank at the end of a row that a wide character wrapped off
    /// before it: one column, shown as nothing.
    pub(super) const UNUSED: Cell = Cell { data: [0; CELL_BYTES], len: 0, width: 1 };

    pub(super) fn is_padding(&self) -> bool {
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
pub(super) struct Row {
    pub(super) cells: Vec<Cell>,
    pub(super) end: usize,
    pub(super) used: bool,
    pub(super) wrapped: bool,
}

impl Row {
    pub(super) fn new(width: usize) -> Self {
        Row { cells: vec![Cell::BLANK; width], end: 0, used: false, wrapped: false }
    }

    pub(super) fn reset(&mut self) {
        self.cells[..self.end].fill(Cell::BLANK);
        self.end = 0;
        self.used = false;
        self.wrapped = false;
    }

    /// The cells before `to` may now differ from a blank.
    pub(super) fn touch(&mut self, to: usize) {
        self.end = self.end.max(to);
    }

    /// Cells `from..to` are blanked.
    pub(super) fn blank(&mut self, from: usize, to: usize) {
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
pub(super) fn row_text<'a>(row: &Row, buf: &'a mut Vec<u8>) -> &'a [u8] {
    row_cells(row, buf);
    row_text_of(buf)
}

/// `buf` without its trailing spaces.
pub(super) fn row_text_of(buf: &mut Vec<u8>) -> &[u8] {
    while buf.last() == Some(&b' ') {
        buf.pop();
    }
    buf
}

/// The text of a row's cells up to its `end`, padding cells skipped; the
/// blank cells after it are spaces that a caller who needs them (a
/// wrapped row, as `tmux capture-pane -J` keeps it, spaces at its end
/// included) counts as `cells.len() - end`.
pub(super) fn row_cells(row: &Row, buf: &mut Vec<u8>) {
    buf.clear();
    let mut cells = &row.cells[..row.end];
    buf.reserve(cells.len());
    while !cells.is_empty() {
        // Most cells hold one byte: a run of them is gathered at once,
        // eight cells a step while all eight do (tested without a branch
        // for each), then one at a time up to the first that does not.
        let mut n = 0;
        while let Some(eight) = cells.get(n..n + 8)
            && eight.iter().fold(0, |any, c| any | (c.len ^ 1)) == 0
        {
            buf.extend(eight.iter().map(|c| c.data[0]));
            n += 8;
        }
        let more = cells[n..].iter().position(|c| c.len != 1).unwrap_or(cells.len() - n);
        buf.extend(cells[n..n + more].iter().map(|c| c.data[0]));
        n += more;
        cells = &cells[n..];
        // Then the cells that do not, up to the next that does: CJK text
        // is all such cells, a character and its padding cell.
        while let Some((cell, rest)) = cells.split_first()
            && cell.len != 1
        {
            let len = usize::from(cell.len);
            if len <= 4 {
                // A character alone: four bytes copied at once, the ones
                // past it taken back, rather than a call to `memcpy`.
                let at = buf.len();
                buf.extend_from_slice(&cell.data[..4]);
                buf.truncate(at + len);
            } else {
                buf.extend_from_slice(&cell.data[..len]);
            }
            cells = rest;
        }
    }
}

pub(super) fn encode(c: char) -> Cell {
    let mut cell = Cell::BLANK;
    let len = c.encode_utf8(&mut cell.data).len();
    cell.len = len as u8;
    // Control characters never reach here; the parser executes them.
    cell.width = c.width().unwrap_or(1).min(2) as u8;
    cell
}

/// Before a character of `width` columns goes at `x`: a wide character
/// that it would cut in half is blanked whole, as tmux does.
pub(super) fn overwrite(row: &mut Row, x: usize, width: usize) {
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
pub(super) fn overwrite_ascii(row: &mut Row, x: usize) {
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
