//! The tools' unit tests: paths that race a swap, files that are not
//! regular, long lines, pages.

use super::grep::LineWindow;
use super::*;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;

use std::fs::File;
use std::io::{self, Cursor, Read};

use rustix::fs::FileType;

use super::super::paths::Opener;

/// `grep` with its defaults: content, no context, the profile's cap.
fn grep_of(tools: &Tools, pattern: &str, path: &str) -> Result<String, ToolError> {
    tools.grep(&GrepRequest { pattern: pattern.into(), path: path.into(), ..GrepRequest::default() })
}

fn tools() -> (tempfile::TempDir, Tools) {
    tools_with(Opener::Auto)
}

fn tools_with(opener: Opener) -> (tempfile::TempDir, Tools) {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    for sub in ["root", "saved"] {
        std::fs::create_dir(base.join(sub)).unwrap();
    }
    let mut roots = Roots::new(&base.join("root"), base.join("root"), base.join("saved"));
    roots.opener = opener;
    (dir, Tools::new(roots).unwrap())
}

/// Runs `call` on a thread of its own: its answer, or `None` when it
/// has not answered within a generous limit (it blocks).
fn answers<T: Send + 'static>(call: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || send.send(call()));
    receive.recv_timeout(std::time::Duration::from_secs(20)).ok()
}

fn mkfifo(path: &std::path::Path) {
    rustix::fs::mknodat(rustix::fs::CWD, path, FileType::Fifo, rustix::fs::Mode::from_raw_mode(0o600), 0)
        .unwrap();
}

/// `read d/f` while another thread swaps the folder `d` for a symlink
/// to a folder outside the root and back, as fast as it can: no call
/// may return a byte of the outside file. Each call waits for one
/// more swap first, so that the two interleave however the threads
/// are scheduled.
fn read_races_a_swapped_symlink(opener: Opener) {
    let (dir, tools) = tools_with(opener);
    let base = dir.path().canonicalize().unwrap();
    std::fs::create_dir(base.join("outside")).unwrap();
    std::fs::write(base.join("outside/f"), "OUTSIDE\n").unwrap();
    std::fs::create_dir(tools.roots.root.join("d")).unwrap();
    std::fs::write(tools.roots.root.join("d/f"), "inside\n").unwrap();
    std::os::unix::fs::symlink(base.join("outside"), tools.roots.root.join("swap")).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let swaps = Arc::new(AtomicU64::new(0));
    let swapper = {
        let (stop, swaps) = (Arc::clone(&stop), Arc::clone(&swaps));
        let root = File::open(&tools.roots.root).unwrap();
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let exchange = rustix::fs::RenameFlags::EXCHANGE;
                rustix::fs::renameat_with(&root, "d", &root, "swap", exchange).unwrap();
                swaps.fetch_add(1, Ordering::Relaxed);
            }
        })
    };
    let mut leaked = Vec::new();
    let mut inside = 0;
    for _ in 0..2000 {
        let seen = swaps.load(Ordering::Relaxed);
        while swaps.load(Ordering::Relaxed) == seen && !swapper.is_finished() {
            std::thread::yield_now();
        }
        match tools.read("d/f", 0, None) {
            Ok(text) if text == "     1\tinside\n" => inside += 1,
            Ok(text) if text.contains("OUTSIDE") => leaked.push(text),
            Err(e) if e.to_string().contains("OUTSIDE") => leaked.push(e.into()),
            Ok(text) => panic!("unexpected text {text:?}"),
            Err(_) => {}
        }
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    assert_eq!((leaked.len(), leaked.first()), (0, None), "{inside} calls read the inside file");
}

#[test]
fn read_never_follows_a_symlink_swapped_in_after_the_check() {
    read_races_a_swapped_symlink(Opener::Auto);
}

#[test]
fn read_never_follows_a_symlink_swapped_in_after_the_check_by_the_component_walk() {
    read_races_a_swapped_symlink(Opener::Walk);
}

#[test]
fn grep_never_follows_a_symlink_swapped_in_while_it_walks() {
    let (dir, tools) = tools();
    let base = dir.path().canonicalize().unwrap();
    std::fs::create_dir(base.join("outside")).unwrap();
    std::fs::write(base.join("outside/f"), "needle OUTSIDE\n").unwrap();
    std::fs::create_dir(tools.roots.root.join("d")).unwrap();
    std::fs::write(tools.roots.root.join("d/f"), "needle inside\n").unwrap();
    std::os::unix::fs::symlink(base.join("outside"), tools.roots.root.join("swap")).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let stop = Arc::clone(&stop);
        let root = File::open(&tools.roots.root).unwrap();
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let exchange = rustix::fs::RenameFlags::EXCHANGE;
                rustix::fs::renameat_with(&root, "d", &root, "swap", exchange).unwrap();
            }
        })
    };
    for _ in 0..500 {
        for path in [".", "d", "d/f"] {
            let text = match grep_of(&tools, "needle", path) {
                Ok(text) => text,
                Err(e) => e.into(),
            };
            assert!(!text.contains("OUTSIDE"), "{text}");
        }
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
}

#[test]
fn read_refuses_a_fifo_without_blocking() {
    let (_dir, tools) = tools();
    mkfifo(&tools.roots.root.join("p"));
    let tools = Arc::new(tools);
    let reader = Arc::clone(&tools);
    assert_eq!(
        answers(move || reader.read("p", 0, None)),
        Some(Err(ToolError::Refused("'p': a FIFO (named pipe), not a regular file".into())))
    );
    let grep = Arc::clone(&tools);
    assert_eq!(
        answers(move || grep_of(&grep, "x", "p")),
        Some(Err(ToolError::Refused("'p': a FIFO (named pipe), not a regular file".into())))
    );
}

#[test]
fn read_refuses_a_socket_and_a_device() {
    let (_dir, tools) = tools();
    let _listener = std::os::unix::net::UnixListener::bind(tools.roots.root.join("s")).unwrap();
    let socket = || Err(ToolError::Refused("'s': a socket, not a regular file".into()));
    assert_eq!(tools.read("s", 0, None), socket());
    assert_eq!(grep_of(&tools, "x", "s"), socket());
    assert_eq!(
        super::super::paths::not_regular("/dev/null", FileType::CharacterDevice),
        "'/dev/null': a character device, not a regular file"
    );
}

#[test]
fn grep_passes_over_a_fifo_it_walks_into() {
    let (_dir, tools) = tools();
    std::fs::write(tools.roots.root.join("a"), "hit\n").unwrap();
    mkfifo(&tools.roots.root.join("p"));
    std::fs::write(tools.roots.root.join("z"), "hit\n").unwrap();
    let tools = Arc::new(tools);
    assert_eq!(answers(move || grep_of(&tools, "hit", ".")), Some(Ok("a:1:hit\nz:1:hit\n".into())));
}

/// What `grep` prints for a line of `text` that matched: `path:N:`, the
/// line, cut at 2000 characters as the cap cuts it.
fn shown_line(prefix: &str, line: &str) -> String {
    let room = 2000 - prefix.len();
    if line.chars().count() <= room {
        format!("{prefix}{line}\n")
    } else {
        format!(
            "{prefix}{} ... (line truncated to 2000 chars)\n",
            line.chars().take(room).collect::<String>()
        )
    }
}

#[test]
fn grep_searches_a_long_line_whole() {
    let (_dir, tools) = tools();
    let mut text = b"short hit\n".to_vec();
    text.extend(std::iter::repeat_n(b'x', 3 * GREP_LINE_WINDOW));
    text.extend_from_slice(b" late hit\nlast hit\n");
    std::fs::write(tools.roots.root.join("f"), &text).unwrap();
    let long = shown_line("f:2:", &"x".repeat(2000));
    assert_eq!(grep_of(&tools, "hit", "f").unwrap(), format!("f:1:short hit\n{long}f:3:last hit\n"));
    assert_eq!(grep_of(&tools, "^x", "f").unwrap(), long);
    // A NUL byte in the part the searcher does not see still makes the
    // file binary.
    text[GREP_LINE_WINDOW * 2] = 0;
    std::fs::write(tools.roots.root.join("f"), &text).unwrap();
    assert_eq!(grep_of(&tools, "last", ".").unwrap(), "No matches found.\n");
}

/// A file `f` of one line: `x`s with `needle` at `at`.
fn line_with_needle(tools: &Tools, len: usize, at: usize) -> String {
    let mut line = "x".repeat(len);
    line.replace_range(at..at + "needle".len(), "needle");
    std::fs::write(tools.roots.root.join("f"), format!("{line}\n")).unwrap();
    line
}

#[test]
fn grep_finds_a_match_at_byte_150000_of_a_line_of_200_kb() {
    let (_dir, tools) = tools();
    let line = line_with_needle(&tools, 200_000, 150_000);
    assert_eq!(grep_of(&tools, "needle", "f").unwrap(), shown_line("f:1:", &line));
    assert_eq!(grep_of(&tools, "needle", ".").unwrap(), shown_line("f:1:", &line));
}

#[test]
fn grep_finds_a_match_at_the_end_of_a_line_of_1_mb() {
    let (_dir, tools) = tools();
    let line = line_with_needle(&tools, 1_000_000, 1_000_000 - "needle".len());
    assert_eq!(grep_of(&tools, "needle$", "f").unwrap(), shown_line("f:1:", &line));
    // A match longer than any window, through the DFA.
    assert_eq!(grep_of(&tools, "^x+needle$", "f").unwrap(), shown_line("f:1:", &line));
    assert_eq!(grep_of(&tools, "^x.*y", "f").unwrap(), "No matches found.\n");
}

#[test]
fn grep_tells_line_anchors_from_the_edges_of_its_windows() {
    let (_dir, tools) = tools();
    // `needle` at the start of the second window, and at the end of the
    // first: neither is the start or the end of the line.
    let window = GREP_LINE_WINDOW;
    for at in [window, window + 16 * 1024 - "needle".len(), window - 2, window + 3] {
        line_with_needle(&tools, 300_000, at);
        for pattern in ["^needle", "needle$", r"\bneedle", r"needle\b", "^x*needle$"] {
            assert_eq!(grep_of(&tools, pattern, "f").unwrap(), "No matches found.\n", "{pattern} at {at}");
        }
        assert_ne!(grep_of(&tools, r"x\Bneedle\Bx", "f").unwrap(), "No matches found.\n", "at {at}");
    }
}

#[test]
fn grep_finds_a_long_match_past_a_byte_that_is_not_ascii() {
    let (_dir, tools) = tools();
    // A Unicode word boundary beside a byte that is not ASCII is no DFA's:
    // the windows take over from there.
    let line = format!("é{} start {} end {}", "x ".repeat(100_000), "y ".repeat(100), "z ".repeat(100_000));
    std::fs::write(tools.roots.root.join("f"), format!("{line}\n")).unwrap();
    assert_eq!(grep_of(&tools, r"\bstart\b.*\bend\b", "f").unwrap(), shown_line("f:1:", &line));
    assert_eq!(grep_of(&tools, r"\bend\b.*\bstart\b", "f").unwrap(), "No matches found.\n");
}

#[test]
fn grep_of_long_lines_keeps_context_counts_and_files() {
    let (_dir, tools) = tools();
    let long = |c: &str, tail: &str| format!("{}{tail}", c.repeat(100_000));
    let lines =
        ["one".to_owned(), long("a", "hit"), "two".into(), "three".into(), long("b", ""), "hit".into()];
    std::fs::write(tools.roots.root.join("f"), lines.join("\n") + "\n").unwrap();
    let request = |mode, context| GrepRequest {
        pattern: "hit".into(),
        path: "f".into(),
        mode,
        before: context,
        after: context,
        ..GrepRequest::default()
    };
    let expected = [
        shown_line("f-1-", "one"),
        shown_line("f:2:", &lines[1]),
        shown_line("f-3-", "two"),
        "--\n".into(),
        shown_line("f-5-", &lines[4]),
        shown_line("f:6:", "hit"),
    ]
    .concat();
    assert_eq!(tools.grep(&request(GrepMode::Content, 1)).unwrap(), expected);
    assert_eq!(tools.grep(&request(GrepMode::Count, 1)).unwrap(), "f:2\n");
    assert_eq!(tools.grep(&request(GrepMode::FilesWithMatches, 0)).unwrap(), "f\n");
}

#[test]
fn grep_skips_a_binary_file_whose_first_lines_match() {
    let (_dir, tools) = tools();
    std::fs::write(tools.roots.root.join("blob.bin"), b"marker\n\0marker\n").unwrap();
    std::fs::write(tools.roots.root.join("kept.txt"), b"marker\n").unwrap();
    assert_eq!(grep_of(&tools, "marker", ".").unwrap(), "kept.txt:1:marker\n");
}

/// A reader that gives at most `step` bytes a read, as a pipe or a
/// slow file may, and counts the reads.
struct Steps<'a> {
    text: &'a [u8],
    step: usize,
    reads: usize,
}

impl Read for Steps<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        self.reads += 1;
        let n = self.text.len().min(self.step).min(out.len());
        out[..n].copy_from_slice(&self.text[..n]);
        self.text = &self.text[n..];
        Ok(n)
    }
}

#[test]
fn the_line_window_gives_a_read_of_short_lines_as_the_file_gave_it() {
    let text = b"one\ntwo\nthree\n".repeat(10);
    let mut window = LineWindow::new(Steps { text: &text, step: 20, reads: 0 });
    let mut out = vec![0; 64 * 1024];
    assert_eq!(window.read(&mut out).unwrap(), 20);
    assert_eq!(&out[..20], &text[..20]);
    assert_eq!(window.inner.reads, 1);
}

#[test]
fn the_line_window_keeps_line_numbers_at_every_read_size() {
    let mut text = Vec::new();
    for n in 0..5 {
        text.extend(std::iter::repeat_n(b'a' + n, GREP_LINE_WINDOW - 1 + usize::from(n)));
        text.push(b'\n');
    }
    text.extend_from_slice(b"end");
    let expected: Vec<u8> = text
        .split(|&b| b == b'\n')
        .map(|line| &line[..line.len().min(GREP_LINE_WINDOW)])
        .collect::<Vec<_>>()
        .join(&b'\n');
    for size in [1, 7, 4096, GREP_LINE_WINDOW, 3 * GREP_LINE_WINDOW] {
        let mut window = LineWindow::new(Cursor::new(&text));
        let (mut got, mut buf) = (Vec::new(), vec![0; size]);
        loop {
            let n = window.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            got.extend_from_slice(&buf[..n]);
        }
        assert!(got == expected, "read size {size}");
    }
}

#[test]
fn read_numbers_lines_and_pages() {
    let (_dir, tools) = tools();
    let text: String = "line 1\nline 2\nline 3\n".to_owned();
    std::fs::write(tools.roots.root.join("f"), text).unwrap();
    assert_eq!(
        tools.read("f", 0, Some(2)).unwrap(),
        "     1\tline 1\n     2\tline 2\n... (truncated, showing lines 1-2 of 3, next offset 2)\n"
    );
    assert_eq!(
        tools.read("f", 2, Some(2)).unwrap(),
        "     3\tline 3\n... (showing lines 3-3 of 3, end of input)\n"
    );
    assert_eq!(tools.read("f", 5, None).unwrap(), "... (offset 5 is past the end, input has 3 lines)\n");
    assert_eq!(
        tools.read(".", 0, None),
        Err(ToolError::Refused("'.' is a directory: read takes a file (grep searches a directory)".into()))
    );
}

#[test]
fn read_does_not_show_a_binary_file() {
    let (_dir, tools) = tools();
    std::fs::write(tools.roots.root.join("b"), b"ab\0cd").unwrap();
    assert_eq!(tools.read("b", 0, None).unwrap(), "(binary file, 5 bytes: not shown)\n");
}

#[test]
fn grep_counts_every_match() {
    let (_dir, tools) = tools();
    let text = (1..=60).fold(String::new(), |text, i| text + &format!("hit {i}\n"));
    std::fs::write(tools.roots.root.join("f"), text).unwrap();
    let got = grep_of(&tools, "hit", ".").unwrap();
    assert!(got.starts_with("f:1:hit 1\nf:2:hit 2\n"), "{got}");
    assert!(got.ends_with("f:50:hit 50\n... (60 total, showing first 50)\n"), "{got}");
    assert_eq!(grep_of(&tools, "nothing", ".").unwrap(), "No matches found.\n");
    assert_eq!(
        tools
            .grep(&GrepRequest {
                pattern: "HIT 7$".into(),
                path: ".".into(),
                case_insensitive: true,
                ..GrepRequest::default()
            })
            .unwrap(),
        "f:7:hit 7\n"
    );
    let refused = grep_of(&tools, "(", ".").unwrap_err();
    assert!(
        matches!(&refused, ToolError::Refused(text) if text.starts_with("invalid pattern")),
        "{refused:?}"
    );
}

#[test]
fn bash_keeps_the_tail_and_says_the_status() {
    let (_dir, tools) = tools();
    assert_eq!(tools.bash("echo hi; exit 3", 10, Vec::new(), None).unwrap(), "hi\n(exit status 3)\n");
    assert_eq!(tools.bash("pwd", 10, Vec::new(), None).unwrap(), format!("{}\n", tools.roots.root.display()));
    assert_eq!(tools.bash("cat", 10, Vec::new(), None).unwrap(), "(no output)\n");
}
