//! The three tools, as plain functions: each returns the text the model
//! sees, or the text of a tool error. Every text is capped by capout's
//! own engine, so its notices are the CLI's to the letter.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Cursor, Read, Write};
use std::sync::Arc;
use std::time::Duration;

use capout_core::{CapSpec, Capper, CommandSpec, Config, NoticeTarget, Options, SaveTo, Timeout};
use grep_regex::RegexMatcherBuilder;
use grep_searcher::{BinaryDetection, SearcherBuilder, sinks};
use ignore::WalkBuilder;
use ignore::overrides::OverrideBuilder;

use rustix::fs::FileType;

use super::paths::{Roots, not_regular, reason};
use crate::command::{self, Place, Stop};
use crate::profiles;

/// How much of a file's start decides that it is binary: a NUL byte in
/// it, as ripgrep decides (it looks at its first read, of 64 KiB).
pub const BINARY_PROBE: usize = 8 * 1024;

/// How much of a line `grep` searches and shows: the first 64 KiB (the
/// line is cut at 2000 characters when shown anyway). A longer line is
/// searched in its start, so that one line of 300 MiB costs 64 KiB, not
/// 300 MiB of buffer and as much again for its copy.
pub const GREP_LINE_WINDOW: usize = 64 * 1024;

/// The most heap ripgrep's searcher may add to its buffer: lines are cut
/// at [`GREP_LINE_WINDOW`] before it sees them, so this is never reached;
/// were it reached, the rest of that one file would be passed over.
pub const GREP_HEAP_LIMIT: usize = 1024 * 1024;

/// How long after SIGTERM a timed-out `bash` command gets SIGKILL.
pub const KILL_AFTER: Duration = Duration::from_secs(5);

/// The tools, with their root and the configs of their profiles.
#[derive(Clone, Debug)]
pub struct Tools {
    /// Where paths may lead.
    pub roots: Roots,
    read: Config,
    grep: Config,
    bash: Config,
}

impl Tools {
    /// The tools over `roots`, capped as the profiles `read`, `grep` and
    /// `bash` say.
    pub fn new(roots: Roots) -> Result<Tools, String> {
        let plain = |name| {
            profiles::config(name).map(|config| Config {
                // The server's text is the model's: notices with it, no
                // live count, no JSON.
                notice: NoticeTarget::Stdout,
                json: false,
                progress: false,
                ..config
            })
        };
        Ok(Tools { roots, read: plain("read")?, grep: plain("grep")?, bash: plain("bash")? })
    }

    /// The number of lines `read` shows when no limit is given.
    pub fn read_limit(&self) -> u64 {
        match self.read.cap {
            CapSpec::HeadLines { limit, .. } => limit,
            _ => 500,
        }
    }

    /// `read`: lines `offset`+1 … `offset`+`limit` of a file, numbered
    /// as `capout -N --head-lines LIMIT --offset OFFSET` numbers them.
    pub fn read(&self, path: &str, offset: u64, limit: Option<u64>) -> Result<String, String> {
        let limit = limit.unwrap_or_else(|| self.read_limit());
        if limit == 0 {
            return Err("limit must be at least 1".into());
        }
        let opened = self.roots.open(path)?;
        match opened.kind {
            FileType::RegularFile => {}
            FileType::Directory => {
                return Err(format!(
                    "'{path}' is a directory: read takes a file (grep searches a directory)"
                ));
            }
            kind => return Err(not_regular(path, kind)),
        }
        // Opened non-blocking, which a regular file ignores.
        let mut file = opened.file;
        let mut start = Vec::with_capacity(BINARY_PROBE);
        (&mut file)
            .take(BINARY_PROBE as u64)
            .read_to_end(&mut start)
            .map_err(|e| format!("'{path}': {}", reason(&e)))?;
        if memchr::memchr(0, &start).is_some() {
            let size = file.metadata().map_or(start.len() as u64, |m| m.len());
            return Ok(format!("(binary file, {size} bytes: not shown)\n"));
        }
        let cap = match self.read.cap {
            CapSpec::HeadLines { .. } => CapSpec::HeadLines { limit, offset },
            other => other,
        };
        let config = Config { cap, line_numbers: true, ..self.read.clone() };
        let mut out = Vec::new();
        capout_core::run(&config, Cursor::new(start).chain(file), &mut out, &mut io::sink())
            .map_err(|e| format!("'{path}': {e}"))?;
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    /// `grep`: the lines that match `pattern` in the files under `path`
    /// (ripgrep's walk: `.gitignore` and hidden files skipped, binary
    /// files left at their first NUL byte), as `path:line:text`, capped
    /// as the profile `grep` says.
    pub fn grep(
        &self,
        pattern: &str,
        path: &str,
        glob: Option<&str>,
        case_insensitive: bool,
    ) -> Result<String, String> {
        let opened = self.roots.open(path)?;
        if !matches!(opened.kind, FileType::RegularFile | FileType::Directory) {
            return Err(not_regular(path, opened.kind));
        }
        let matcher = RegexMatcherBuilder::new()
            .case_insensitive(case_insensitive)
            .build(pattern)
            .map_err(|e| format!("invalid pattern: {e}"))?;
        let mut searcher = SearcherBuilder::new()
            .line_number(true)
            .binary_detection(BinaryDetection::quit(0))
            .heap_limit(Some(GREP_HEAP_LIMIT))
            .build();
        let mut capper = Capper::new(options(&self.grep)).map_err(|e| e.to_string())?;
        let mut out = Vec::new();
        let mut line = Vec::new();
        let mut failed: Option<io::Error> = None;
        let mut search = |file: File, shown: &str| {
            // A search error (a file that cannot be read, the heap limit)
            // passes the rest of that file over, as ripgrep passes it over
            // (it tells them on stderr, which a model does not see).
            let _ = searcher.search_reader(
                &matcher,
                LineWindow::new(file),
                sinks::Bytes(|number, text| {
                    line.clear();
                    let text = text.strip_suffix(b"\n").unwrap_or(text);
                    let text = text.strip_suffix(b"\r").unwrap_or(text);
                    let _ = write!(line, "{shown}:{number}:");
                    line.extend_from_slice(text);
                    line.push(b'\n');
                    match capper.push(&line, &mut out) {
                        Ok(()) => Ok(true),
                        Err(e) => {
                            failed = Some(io::Error::other(e.to_string()));
                            Ok(false)
                        }
                    }
                }),
            );
            failed.is_none()
        };
        if opened.kind == FileType::RegularFile {
            let shown = self.roots.show(&opened.path).into_owned();
            search(opened.file, &shown);
        } else {
            drop(opened.file);
            let mut walk = WalkBuilder::new(&opened.path);
            walk.sort_by_file_name(std::cmp::Ord::cmp);
            if let Some(glob) = glob {
                let mut overrides = OverrideBuilder::new(&opened.path);
                overrides.add(glob).map_err(|e| format!("invalid glob: {e}"))?;
                walk.overrides(overrides.build().map_err(|e| format!("invalid glob: {e}"))?);
            }
            // The walk only names the files: each is opened beneath the
            // root as `read` opens it, and what is not a regular file
            // (a FIFO, a socket, a device) is passed over, as ripgrep does.
            for entry in walk.build().flatten() {
                if !entry.file_type().is_some_and(|t| t.is_file()) {
                    continue;
                }
                let Some(found) = self.roots.open_found(entry.path()) else { continue };
                if found.kind != FileType::RegularFile {
                    continue;
                }
                let shown = self.roots.show(entry.path()).into_owned();
                if !search(found.file, &shown) {
                    break;
                }
            }
        }
        if let Some(e) = failed {
            return Err(e.to_string());
        }
        capper.finish(&mut out).map_err(|e| e.to_string())?;
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    /// `bash`: `sh -c COMMAND` in the root, through capout's command
    /// mode, capped as the profile `bash` says, the whole output saved in
    /// the server's folder when something was cut, and `(exit status N)`
    /// when N is not 0.
    /// `env` is added to the command's environment; `stop` ends it early.
    pub fn bash(
        &self,
        script: &str,
        timeout: u64,
        env: Vec<(OsString, OsString)>,
        stop: Option<Arc<Stop>>,
    ) -> Result<String, String> {
        if timeout == 0 {
            return Err("timeout must be at least 1 second".into());
        }
        let spec = CommandSpec {
            program: OsString::from("sh"),
            args: vec![OsString::from("-c"), OsString::from(script)],
            timeout: Some(Timeout {
                after: Duration::from_secs(timeout),
                label: format!("{timeout}s"),
                kill_after: Some(KILL_AFTER),
            }),
            stdout_only: false,
        };
        let config = Config {
            save: Some(SaveTo::Dir(self.roots.saved.clone())),
            command: Some(spec),
            ..self.bash.clone()
        };
        let place = Place { dir: Some(self.roots.root.clone()), no_stdin: true, env, stop };
        let mut out = Vec::new();
        let finished =
            command::run_in(&config, &place, &mut out, &mut io::sink()).map_err(|e| e.to_string())?;
        if let Some(e) = finished.report.and_then(|r| r.save_error) {
            // The output stands; only the copy of it failed.
            let _ = writeln!(out, "(the whole output could not be saved: {e})");
        }
        if finished.ending.exit_code != 0 {
            let _ = writeln!(out, "(exit status {})", finished.ending.exit_code);
        }
        Ok(String::from_utf8_lossy(&out).into_owned())
    }
}

/// A reader that passes the first [`GREP_LINE_WINDOW`] bytes of each line
/// and its newline, and drops the rest of the line, so that line numbers
/// stay true. A NUL byte in a dropped part is passed on (once per read),
/// so that a binary file is still seen to be binary.
struct LineWindow<R> {
    inner: R,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// Bytes of the current line passed on so far.
    in_line: usize,
}

impl<R: Read> LineWindow<R> {
    fn new(inner: R) -> LineWindow<R> {
        LineWindow { inner, buf: vec![0; 64 * 1024], start: 0, end: 0, in_line: 0 }
    }
}

impl<R: Read> Read for LineWindow<R> {
    /// Fills `out` as far as the file goes, as the file itself would:
    /// ripgrep decides that a file is binary on what one read gives it.
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let mut written = 0;
        while written < out.len() {
            if self.start == self.end {
                let n = self.inner.read(&mut self.buf)?;
                if n == 0 {
                    break;
                }
                (self.start, self.end) = (0, n);
            }
            let chunk = &self.buf[self.start..self.end];
            if self.in_line == GREP_LINE_WINDOW {
                // Past the window: drop up to the newline.
                let dropped = memchr::memchr(b'\n', chunk).unwrap_or(chunk.len());
                let nul = memchr::memchr(0, &chunk[..dropped]).is_some();
                self.start += dropped;
                if self.start < self.end {
                    self.in_line = 0;
                }
                if nul {
                    out[written] = 0;
                    written += 1;
                }
                continue;
            }
            let room = (GREP_LINE_WINDOW - self.in_line).min(out.len() - written).min(chunk.len());
            let n = if let Some(i) = memchr::memchr(b'\n', &chunk[..room]) {
                self.in_line = 0;
                i + 1
            } else {
                self.in_line += room;
                room
            };
            out[written..written + n].copy_from_slice(&chunk[..n]);
            written += n;
            self.start += n;
        }
        Ok(written)
    }
}

/// The options of a [`Capper`] that caps as `config` does.
fn options(config: &Config) -> Options {
    let mut options = Options::new(config.cap);
    options.unit = config.unit;
    options.max_line_chars = Some(config.max_line.unwrap_or(0));
    options.strip_ansi = config.strip_ansi;
    options.collapse_cr = config.collapse_cr;
    options.tokenizer = config.tokenizer;
    options
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::sync::mpsc;

    use super::super::paths::Opener;

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
                Ok(text) | Err(text) if text.contains("OUTSIDE") => leaked.push(text),
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
                let text = match tools.grep("needle", path, None, false) {
                    Ok(text) | Err(text) => text,
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
            Some(Err("'p': a FIFO (named pipe), not a regular file".into()))
        );
        let grep = Arc::clone(&tools);
        assert_eq!(
            answers(move || grep.grep("x", "p", None, false)),
            Some(Err("'p': a FIFO (named pipe), not a regular file".into()))
        );
    }

    #[test]
    fn read_refuses_a_socket_and_a_device() {
        let (_dir, tools) = tools();
        let _listener = std::os::unix::net::UnixListener::bind(tools.roots.root.join("s")).unwrap();
        assert_eq!(tools.read("s", 0, None), Err("'s': a socket, not a regular file".into()));
        assert_eq!(tools.grep("x", "s", None, false), Err("'s': a socket, not a regular file".into()));
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
        assert_eq!(
            answers(move || tools.grep("hit", ".", None, false)),
            Some(Ok("a:1:hit\nz:1:hit\n".into()))
        );
    }

    #[test]
    fn grep_searches_a_long_line_in_its_start() {
        let (_dir, tools) = tools();
        let mut text = b"short hit\n".to_vec();
        text.extend(std::iter::repeat_n(b'x', 3 * GREP_LINE_WINDOW));
        text.extend_from_slice(b" late hit\nlast hit\n");
        std::fs::write(tools.roots.root.join("f"), &text).unwrap();
        let long = format!("f:2:{} ... (line truncated to 2000 chars)\n", "x".repeat(2000 - "f:2:".len()));
        assert_eq!(tools.grep("hit", "f", None, false).unwrap(), "f:1:short hit\nf:3:last hit\n");
        assert_eq!(tools.grep("^x", "f", None, false).unwrap(), long);
        // A NUL byte in the part not searched still makes the file binary.
        text[GREP_LINE_WINDOW * 2] = 0;
        std::fs::write(tools.roots.root.join("f"), &text).unwrap();
        assert_eq!(tools.grep("last", ".", None, false).unwrap(), "No matches found.\n");
    }

    #[test]
    fn grep_skips_a_binary_file_whose_first_lines_match() {
        let (_dir, tools) = tools();
        std::fs::write(tools.roots.root.join("blob.bin"), b"marker\n\0marker\n").unwrap();
        std::fs::write(tools.roots.root.join("kept.txt"), b"marker\n").unwrap();
        assert_eq!(tools.grep("marker", ".", None, false).unwrap(), "kept.txt:1:marker\n");
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
        assert_eq!(tools.read("f", 2, Some(2)).unwrap(), "     3\tline 3\n");
        assert_eq!(tools.read("f", 5, None).unwrap(), "... (offset 5 is past the end, input has 3 lines)\n");
        assert_eq!(
            tools.read(".", 0, None),
            Err("'.' is a directory: read takes a file (grep searches a directory)".into())
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
        let got = tools.grep("hit", ".", None, false).unwrap();
        assert!(got.starts_with("f:1:hit 1\nf:2:hit 2\n"), "{got}");
        assert!(got.ends_with("f:50:hit 50\n... (60 total, showing first 50)\n"), "{got}");
        assert_eq!(tools.grep("nothing", ".", None, false).unwrap(), "No matches found.\n");
        assert_eq!(tools.grep("HIT 7$", ".", None, true).unwrap(), "f:7:hit 7\n");
        assert!(tools.grep("(", ".", None, false).unwrap_err().starts_with("invalid pattern"));
    }

    #[test]
    fn bash_keeps_the_tail_and_says_the_status() {
        let (_dir, tools) = tools();
        assert_eq!(tools.bash("echo hi; exit 3", 10, Vec::new(), None).unwrap(), "hi\n(exit status 3)\n");
        assert_eq!(
            tools.bash("pwd", 10, Vec::new(), None).unwrap(),
            format!("{}\n", tools.roots.root.display())
        );
        assert_eq!(tools.bash("cat", 10, Vec::new(), None).unwrap(), "(no output)\n");
    }
}
