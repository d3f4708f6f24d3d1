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
//!
//! `screen.rs` is the face (bytes in, rows out), `perform.rs` the
//! parser's callbacks, `csi.rs` the CSI sequences (their parameters, the
//! screen's own parser of the simple ones, what each does), `edit.rs`
//! what the sequences do to the screen, `term.rs` the screen's state and
//! the rows that leave it, `grid.rs` its cells and rows.

mod csi;
mod edit;
mod grid;
mod perform;
mod screen;
mod term;

pub use screen::Screen;

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
