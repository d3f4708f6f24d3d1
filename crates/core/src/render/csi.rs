//! CSI sequences: their parameters, the screen's own parser of the
//! simple ones, and what each does.

use super::perform::Performer;
use super::term::Saved;

/// A CSI sequence at the start of `bytes` of parameters alone (digits and
/// `;`, after at most a private marker such as `?`), as `vte` parses it:
/// its length, the marker (the sequence's intermediates), the parameters
/// and the final byte. `None` for anything else (sub-parameters,
/// intermediates, controls inside, a sequence cut by the end, 32
/// parameters or more), which goes to the parser. The parameters go to
/// `args`.
pub(super) fn simple_csi<'a>(bytes: &'a [u8], args: &mut Args) -> Option<(usize, &'a [u8], u8)> {
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

/// The parameters of a CSI sequence, read as tmux's `input_get` does. A
/// parameter with sub-parameters (`1:2`) is a string to tmux, and the
/// sequences that read one do nothing.
pub(super) struct Args {
    /// Each parameter's value; `None` for one with sub-parameters.
    pub(super) params: [Option<u16>; MAX_PARAMS],
    pub(super) len: usize,
}

/// The most parameters a CSI sequence has: `vte`'s limit (a sequence
/// with more is ignored).
pub(super) const MAX_PARAMS: usize = 32;

impl Args {
    pub(super) fn of(params: &vte::Params) -> Self {
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
    /// A CSI sequence that `vte` would not ignore, dispatched.
    pub(super) fn csi_sequence(&mut self, args: &Args, intermediates: &[u8], action: char) {
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
}
