//! What the sequences do to the screen: printing, moving the cursor,
//! scrolling, erasing, inserting and deleting, modes and resets.

use super::grid::{CELL_BYTES, Cell, ZWJ, overwrite, overwrite_ascii};
use super::perform::Performer;
use super::term::{Saved, default_tabs};

impl Performer<'_> {
    // Tabs.

    pub(super) fn tab(&mut self) {
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

    pub(super) fn back_tab(&mut self, mut n: usize) {
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

    pub(super) fn clear_tabs(&mut self, how: Option<usize>) {
        let t = &mut *self.t;
        match how {
            Some(0) if t.cx < t.sx => t.tabs[t.cx] = false,
            Some(3) => t.tabs.fill(false),
            _ => {}
        }
    }
    // Printing.

    /// A printable ASCII character in the usual modes (tmux's "collect"
    /// path): wrap first if the cursor is past the last column.
    pub(super) fn put_ascii(&mut self, c: u8) {
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
    pub(super) fn put_ascii_run(&mut self, mut run: &[u8]) {
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
            // Every cell from the row's end on is blank, and a blank with
            // its first byte set is an ASCII character's cell: there, only
            // that byte is written (most text goes on rows emptied as they
            // scrolled in, and writing whole cells of 23 bytes was most
            // of its cost).
            let blank = row.end.clamp(x, x + n);
            let mut cell = Cell::BLANK;
            for (to, &c) in row.cells[x..blank].iter_mut().zip(&run[..blank - x]) {
                cell.data[0] = c;
                *to = cell;
            }
            for (to, &c) in row.cells[blank..x + n].iter_mut().zip(&run[blank - x..n]) {
                to.data[0] = c;
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
    pub(super) fn put_ascii_as_printed(&mut self, c: u8) {
        if self.t.wrap && !self.t.insert {
            self.put_ascii(c);
        } else {
            let mut cell = Cell::BLANK;
            cell.data[0] = c;
            self.put_cell(cell);
        }
    }

    /// A character of `raw` bytes and 1 or 2 columns, not
    /// [`MARK`](super::screen::MARK), in the usual modes with no joiner
    /// pending: what [`Performer::print`] does with it, without building
    /// the cell twice.
    pub(super) fn put_char(&mut self, raw: &[u8], width: usize) {
        // Two to four bytes, copied without a call to `memcpy`.
        let fill = |cell: &mut Cell| {
            *cell = Cell::BLANK;
            for (to, &b) in cell.data.iter_mut().zip(raw) {
                *to = b;
            }
            cell.len = raw.len() as u8;
            cell.width = width as u8;
        };
        let t = &mut *self.t;
        t.last = None;
        if t.cx + width > t.sx {
            // It wraps first.
            let mut cell = Cell::BLANK;
            fill(&mut cell);
            self.put_cell(cell);
            return;
        }
        let row = &mut t.rows[t.cy];
        overwrite(row, t.cx, width);
        if width == 2 {
            row.cells[t.cx + 1] = Cell::PADDING;
        }
        // Written in its place: a cell built apart, a byte at a time, was
        // read back whole to be copied, and the read waited for the bytes
        // (a quarter of the time of a render of CJK text).
        fill(&mut row.cells[t.cx]);
        row.touch(t.cx + width);
        row.used = true;
        t.cx += width;
    }

    /// Any other character, as tmux's `screen_write_cell` writes it.
    pub(super) fn put_cell(&mut self, cell: Cell) {
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

    pub(super) fn backspace(&mut self) {
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

    pub(super) fn cursor_up(&mut self, n: usize) {
        let t = &mut *self.t;
        let n = if t.cy < t.rupper { n.min(t.cy) } else { n.min(t.cy - t.rupper) };
        if t.cx == t.sx {
            t.cx -= 1;
        }
        t.cy -= n;
    }

    pub(super) fn cursor_down(&mut self, n: usize) {
        let t = &mut *self.t;
        let n = if t.cy > t.rlower { n.min(t.sy - 1 - t.cy) } else { n.min(t.rlower - t.cy) };
        if t.cx == t.sx {
            t.cx -= 1;
        } else if n == 0 {
            return;
        }
        t.cy += n;
    }

    pub(super) fn cursor_right(&mut self, n: usize) {
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
    pub(super) fn cursor_move(&mut self, x: Option<usize>, y: Option<usize>, origin: bool) {
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

    pub(super) fn restore(&mut self) {
        let saved = self.t.saved;
        self.t.origin = saved.origin;
        self.cursor_move(Some(saved.cx), Some(saved.cy), false);
    }

    // Scrolling.

    /// Line feed: down a row, or scroll the region up when the cursor is
    /// on its last row. `wrapped` marks the row as continued.
    pub(super) fn linefeed(&mut self, wrapped: bool) {
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
    pub(super) fn scroll_up(&mut self) {
        let t = &mut *self.t;
        let (upper, lower) = (t.rupper, t.rlower);
        if t.alternate.is_some() {
            self.move_lines(upper, upper + 1, lower - upper);
            return;
        }
        t.emit_row(upper, self.out);
        if upper == 0 && lower + 1 == t.rows.len() {
            t.rows.rotate_left(1);
        } else {
            t.rows.make_contiguous()[upper..=lower].rotate_left(1);
        }
        t.rows[lower].reset();
    }

    pub(super) fn reverse_index(&mut self) {
        let t = &mut *self.t;
        if t.cy == t.rupper {
            let (upper, lower) = (t.rupper, t.rlower);
            self.move_lines(upper + 1, upper, lower - upper);
        } else if t.cy > 0 {
            t.cy -= 1;
        }
    }

    pub(super) fn scroll_region(&mut self, upper: usize, lower: usize) {
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
    pub(super) fn move_lines(&mut self, to: usize, from: usize, n: usize) {
        let t = &mut *self.t;
        if n == 0 || from == to {
            return;
        }
        if to != 0 {
            t.rows[to - 1].wrapped = false;
        }
        if from < to {
            t.rows.make_contiguous()[from..to + n].rotate_right(to - from);
        } else {
            t.rows.make_contiguous()[to..from + n].rotate_left(from - to);
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

    pub(super) fn erase_characters(&mut self, n: usize) {
        let (cx, cy, sx) = (self.t.cx, self.t.cy, self.t.sx);
        let n = n.min(sx.saturating_sub(cx));
        if n > 0 {
            self.clear(cx, cy, n, 1);
        }
    }

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
        for row in t.rows.range_mut(y..y + ny) {
            row.blank(x, x + nx);
        }
    }

    /// tmux's `grid_clear_lines` over rows `from..to`; the range may be
    /// empty, and the row before still loses its wrapped flag.
    fn clear_lines(&mut self, from: usize, to: usize) {
        let t = &mut *self.t;
        for row in t.rows.range_mut(from..to) {
            row.reset();
        }
        if from != 0 {
            t.rows[from - 1].wrapped = false;
        }
    }

    pub(super) fn clear_end_of_line(&mut self) {
        let t = &mut *self.t;
        if t.cx == 0 {
            self.clear_line();
        } else if t.cx < t.sx {
            let (cx, cy, sx) = (t.cx, t.cy, t.sx);
            self.clear(cx, cy, sx - cx, 1);
        }
    }

    pub(super) fn clear_start_of_line(&mut self) {
        let t = &mut *self.t;
        if t.cx + 1 >= t.sx {
            self.clear_line();
        } else {
            let (cx, cy) = (t.cx, t.cy);
            self.clear(0, cy, cx + 1, 1);
        }
    }

    pub(super) fn clear_line(&mut self) {
        let t = &mut *self.t;
        if t.rows[t.cy].used {
            let cy = t.cy;
            self.clear_lines(cy, cy + 1);
        }
    }

    pub(super) fn clear_end_of_screen(&mut self) {
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

    pub(super) fn clear_start_of_screen(&mut self) {
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
    pub(super) fn clear_screen(&mut self) {
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

    pub(super) fn insert_characters(&mut self, n: usize) {
        let t = &mut *self.t;
        let (cx, cy, sx) = (t.cx, t.cy, t.sx);
        let n = n.min(sx.saturating_sub(cx));
        if n == 0 || cx > sx - 1 {
            return;
        }
        self.insert_cells(cx, cy, n);
    }

    pub(super) fn delete_characters(&mut self, n: usize) {
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

    pub(super) fn insert_lines(&mut self, n: usize) {
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

    pub(super) fn delete_lines(&mut self, n: usize) {
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

    pub(super) fn alternate_on(&mut self, cursor: bool) {
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

    pub(super) fn alternate_off(&mut self, cursor: bool) {
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

    pub(super) fn alignment_test(&mut self) {
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
    pub(super) fn reset(&mut self) {
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
