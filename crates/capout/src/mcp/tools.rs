//! The three tools, as plain functions: each returns the text the model
//! sees, or the text of a tool error. Every text is capped by capout's
//! own engine, so its notices are the CLI's to the letter.

use std::ffi::OsString;
use std::io::{self, Cursor, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use capout_core::{CapSpec, Capper, NoticeTarget, Options, SaveTo};
use grep_regex::RegexMatcherBuilder;
use grep_searcher::{BinaryDetection, SearcherBuilder};
use ignore::WalkBuilder;
use ignore::overrides::OverrideBuilder;
use ignore::types::TypesBuilder;

use rustix::fs::FileType;

use super::paths::{Roots, not_regular, reason};
use crate::command::{self, CommandSpec, Place, Stop, Timeout};
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
    read: Options,
    grep: Options,
    bash: Options,
    /// Where the next `bash` command starts: where the last one ended,
    /// at first the root. The session's alone: one server serves one.
    cwd: Arc<std::sync::Mutex<PathBuf>>,
    /// Output of `bash` that is not text is replaced by one line.
    bash_binary: bool,
}

impl Tools {
    /// The tools over `roots`, capped as the profiles `read`, `grep` and
    /// `bash` say.
    pub fn new(roots: Roots) -> Result<Tools, String> {
        let plain = |name| {
            profiles::config(name).map(|mut options| {
                // The server's text is the model's: notices with it, no
                // live count, no JSON.
                options.notice = NoticeTarget::Stdout;
                options.json = false;
                options.progress = false;
                options
            })
        };
        let cwd = Arc::new(std::sync::Mutex::new(roots.root.clone()));
        let mut bash = plain("bash")?;
        // Profile bash's `--binary hide` is the switch (`binary = "show"`
        // in a config file turns it off); the tool replaces binary output
        // itself, with the path of the whole output, so the engine keeps
        // it whole.
        let bash_binary = bash.hide_binary;
        bash.hide_binary = false;
        Ok(Tools { roots, read: plain("read")?, grep: plain("grep")?, bash, cwd, bash_binary })
    }

    /// The configs of the profiles `read`, `grep` and `bash`, as loaded:
    /// the tools' descriptions state their caps.
    pub fn profiles(&self) -> (&Options, &Options, &Options) {
        (&self.read, &self.grep, &self.bash)
    }

    /// Where the next `bash` command starts.
    pub fn cwd(&self) -> PathBuf {
        self.cwd.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
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
        let mut options = self.read.clone();
        options.cap = cap;
        options.line_numbers = true;
        let mut out = Vec::new();
        capout_core::run(&options, Cursor::new(start).chain(file), &mut out, &mut io::sink())
            .map_err(|e| format!("'{path}': {e}"))?;
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    /// `grep`: what `rg -n --sort path` prints for `request` in the files
    /// under its path (ripgrep's walk: `.gitignore` and hidden files
    /// skipped, binary files passed over), searched in parallel, each line
    /// one entry, capped and paged as the profile `grep` says.
    pub fn grep(&self, request: &GrepRequest) -> Result<String, String> {
        let opened = self.roots.open(&request.path)?;
        if !matches!(opened.kind, FileType::RegularFile | FileType::Directory) {
            return Err(not_regular(&request.path, opened.kind));
        }
        let limit = match (request.limit, self.grep.cap) {
            (Some(0), _) => return Err("limit must be at least 1".into()),
            (Some(n), _) | (None, CapSpec::MaxMatches(n)) => n,
            (None, _) => 50,
        };
        let mut builder = RegexMatcherBuilder::new();
        // As ripgrep builds it: `^` and `$` are line anchors, and a match
        // spans lines only with `multiline`.
        builder.case_insensitive(request.case_insensitive).multi_line(true);
        if !request.multiline {
            builder.line_terminator(Some(b'\n'));
        }
        let matcher = builder.build(&request.pattern).map_err(|e| format!("invalid pattern: {e}"))?;
        let mut searcher = SearcherBuilder::new();
        searcher
            .line_number(true)
            .multi_line(request.multiline)
            .binary_detection(BinaryDetection::quit(0))
            .heap_limit(Some(GREP_HEAP_LIMIT))
            .before_context(request.before)
            .after_context(request.after);
        let mut options = options(&self.grep, CapSpec::MaxMatches(limit));
        options.match_offset = request.offset;
        let width = self.grep.max_line().map(|w| self.grep.unit.max_bytes(w).saturating_add(8));
        let search = Search {
            matcher,
            searcher,
            mode: request.mode,
            context: request.before > 0 || request.after > 0,
            // A file's own entries past the end of the page are only counted.
            needed: request.offset.saturating_add(limit),
            width: width.and_then(|w| usize::try_from(w).ok()),
        };
        let found = if opened.kind == FileType::RegularFile {
            let shown = self.roots.show(&opened.path).into_owned();
            let found =
                search_file(&self.roots, &opened.path, &shown, &search, &mut Worker::new(&search), true);
            vec![(opened.path, shown, found)]
        } else {
            drop(opened.file);
            self.search_tree(&opened.path, request, &search)?
        };
        let mut capper = Capper::new(options).map_err(|e| e.to_string())?;
        let mut out = Vec::new();
        for (i, (_, _, found)) in found.iter().enumerate() {
            push_result(&mut capper, &mut out, &search, found, i == 0)?;
        }
        capper.finish(&mut out).map_err(|e| e.to_string())?;
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    /// Searches the files under `dir` that ripgrep would search, walking
    /// and searching in parallel as ripgrep does, and gives what each file
    /// with entries found, in the order of `rg --sort path`. Only the files
    /// that the page may need keep their text: once the files found so far
    /// fill a page, a file after the last of them in path order is only
    /// counted, and one that a file found later pushes off the page drops
    /// its text.
    fn search_tree(
        &self,
        dir: &Path,
        request: &GrepRequest,
        search: &Search,
    ) -> Result<Vec<(PathBuf, String, Found)>, String> {
        let mut walk = WalkBuilder::new(dir);
        if let Some(glob) = &request.glob {
            let mut overrides = OverrideBuilder::new(dir);
            overrides.add(glob).map_err(|e| format!("invalid glob: {e}"))?;
            walk.overrides(overrides.build().map_err(|e| format!("invalid glob: {e}"))?);
        }
        if let Some(kind) = &request.file_type {
            let mut types = TypesBuilder::new();
            types.add_defaults();
            types.select(kind);
            walk.types(types.build().map_err(|e| format!("invalid type: {e}"))?);
        }
        let collected = std::sync::Mutex::new(Collected::default());
        let lock = || collected.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        walk.build_parallel().run(|| {
            let mut worker = Worker::new(search);
            Box::new(move |entry| {
                let Ok(entry) = entry else { return ignore::WalkState::Continue };
                if !entry.file_type().is_some_and(|t| t.is_file()) {
                    return ignore::WalkState::Continue;
                }
                let path = entry.into_path();
                let write = lock().may_show(&path, search.needed);
                let shown = self.roots.show(&path).into_owned();
                let found = search_file(&self.roots, &path, &shown, search, &mut worker, write);
                if found.entries > 0 {
                    lock().add(path, shown, found, write, search.needed);
                }
                ignore::WalkState::Continue
            })
        });
        let collected = collected.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut all = collected.counted;
        all.extend(collected.page.into_iter().map(|(path, (shown, found))| (path, shown, found)));
        // Path order as `rg --sort path` gives it: component by component.
        all.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        Ok(all)
    }

    /// `bash`: `sh -c COMMAND` where the last command of the session
    /// ended (at first the root), through capout's command mode, capped
    /// as the profile `bash` says, the whole output saved in the server's
    /// folder when something was cut, and `(exit status N)` when N is not
    /// 0. Output that is not text is replaced by one line that says so.
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
        // The shell writes where it ended into a file of the server's own
        // folder (0700) on its way out, even through `exit N`; the command
        // itself runs by `eval`, so that its text is never parsed twice.
        let cwd_file = tempfile::Builder::new()
            .prefix("cwd-")
            .tempfile_in(&self.roots.saved)
            .map_err(|e| format!("cannot run the command: {}", super::paths::reason(&e)))?;
        let quoted = shlex::try_quote(&cwd_file.path().to_string_lossy()).map(std::borrow::Cow::into_owned);
        let quoted =
            quoted.map_err(|_| "cannot run the command: the server's folder has a NUL in its name")?;
        let wrapper = format!("trap 'pwd -P >| {quoted} 2>/dev/null' EXIT\neval \"$1\"");
        let start = self.cwd();
        // A folder removed since: start at the root again.
        let start = if start.is_dir() { start } else { self.roots.root.clone() };
        let spec = CommandSpec {
            program: OsString::from("sh"),
            args: vec![
                OsString::from("-c"),
                OsString::from(wrapper),
                OsString::from("sh"),
                OsString::from(script),
            ],
            timeout: Some(Timeout {
                after: Duration::from_secs(timeout),
                label: format!("{timeout}s"),
                kill_after: Some(KILL_AFTER),
            }),
            stdout_only: false,
        };
        let mut options = self.bash.clone();
        options.save = Some(SaveTo::Dir(self.roots.saved.clone()));
        let place = Place { dir: Some(start), no_stdin: true, env, stop };
        let mut out = Vec::new();
        let finished =
            command::run_in(&options, &spec, &place, &mut out, &mut io::sink()).map_err(|e| e.to_string())?;
        self.keep_cwd(cwd_file.path());
        let summary = finished.summary;
        if self.bash_binary && is_binary(&out) {
            let bytes = summary.as_ref().map_or(out.len() as u64, |s| s.totals.bytes());
            let saved = match summary.as_ref().and_then(|s| s.saved_to.clone()) {
                Some(path) => Some(path),
                // Nothing was cut, so what was kept is the whole output.
                None => save_whole(&self.roots.saved, &out),
            };
            out =
                capout_core::binary_output(bytes, saved.as_ref().map(|p| p.display().to_string()).as_deref())
                    .into_bytes();
            out.push(b'\n');
        }
        if let Some(e) = summary.and_then(|s| s.save_error) {
            // The output stands; only the copy of it failed.
            let _ = writeln!(out, "(the whole output could not be saved: {e})");
        }
        let ending = &finished.ending;
        if ending.exit_code != 0 {
            // The shell that runs the command reports a command killed by
            // signal N as 128 + N, as a shell user reads `$?`.
            let shell = ending.exit_code.checked_sub(128).filter(|n| (1..=64).contains(n));
            let signal = ending.signal.or(shell).filter(|_| ending.timed_out.is_none());
            let name = signal.and_then(signal_hook::low_level::signal_name);
            let _ = writeln!(out, "{}", capout_core::exit_status(ending.exit_code, name));
        }
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    /// Takes where the shell ended as where the next command starts: an
    /// absolute path to a folder, or nothing (the shell was killed, or
    /// `exec` replaced it, or the command set its own `EXIT` trap).
    fn keep_cwd(&self, file: &Path) {
        let Ok(text) = std::fs::read(file) else { return };
        let Some(line) = text.strip_suffix(b"\n") else { return };
        let path = PathBuf::from(std::ffi::OsStr::from_bytes(line));
        if path.is_absolute() && path.is_dir() {
            *self.cwd.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = path;
        }
    }
}

/// Whether the output of a command is not text: it holds a NUL byte, or
/// more than one byte in twenty is not UTF-8.
fn is_binary(out: &[u8]) -> bool {
    if memchr::memchr(0, out).is_some() {
        return true;
    }
    let invalid = out.utf8_chunks().map(|c| c.invalid().len()).sum::<usize>();
    invalid * 20 > out.len()
}

/// Saves the whole output of a command that was not cut, so that the line
/// that replaces it can name where it is.
fn save_whole(dir: &Path, out: &[u8]) -> Option<PathBuf> {
    let mut file = tempfile::Builder::new().prefix("capout-").suffix(".log").tempfile_in(dir).ok()?;
    file.write_all(out).ok()?;
    file.into_temp_path().keep().ok()
}

/// What `grep` prints for each file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GrepMode {
    /// The matching lines, `path:line:text` (`rg -n`).
    #[default]
    Content,
    /// The paths of the files with a match (`rg -l`).
    FilesWithMatches,
    /// `path:count` for each file with a match (`rg -c`).
    Count,
}

/// A `grep` call.
#[derive(Clone, Debug, Default)]
pub struct GrepRequest {
    /// The regular expression.
    pub pattern: String,
    /// The file or folder to search.
    pub path: String,
    /// Only files whose names match this glob (`rg -g`).
    pub glob: Option<String>,
    /// Only files of this ripgrep type (`rg -t`).
    pub file_type: Option<String>,
    /// What to print.
    pub mode: GrepMode,
    /// Lines of context before and after each match (`rg -B`, `rg -A`).
    pub before: usize,
    /// See `before`.
    pub after: usize,
    /// Match without regard to case (`rg -i`).
    pub case_insensitive: bool,
    /// Matches may span lines (`rg -U`).
    pub multiline: bool,
    /// Entries skipped before the page.
    pub offset: u64,
    /// Entries on the page; `None` for profile `grep`'s cap.
    pub limit: Option<u64>,
}

/// How each file is searched, shared by the threads that search.
struct Search {
    matcher: grep_regex::RegexMatcher,
    searcher: SearcherBuilder,
    mode: GrepMode,
    context: bool,
    /// A file's entries past this many are only counted.
    needed: u64,
    /// Lines are cut to this many bytes before the cap cuts them: the cap
    /// sees enough of each to cut it as it would the whole line.
    width: Option<usize>,
}

/// What the search of one file found: its entries (lines of output),
/// written out while they may still be shown, and how many there are.
#[derive(Default)]
struct Found {
    text: Vec<u8>,
    entries: u64,
    /// Entries written into `text`.
    written: u64,
}

/// A sink that writes a file's entries as `rg -n` prints them, or counts
/// them once they are past what a page can show.
struct Entries<'a> {
    found: &'a mut Found,
    shown: &'a str,
    search: &'a Search,
    /// Write text (false: the page is already full: count only).
    write: bool,
}

impl Entries<'_> {
    fn entry(&mut self, number: Option<u64>, separator: u8, line: &[u8]) {
        self.found.entries += 1;
        if !self.write || self.found.written >= self.search.needed {
            return;
        }
        self.found.written += 1;
        let text = &mut self.found.text;
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let line = match self.search.width {
            Some(w) if line.len() > w => &line[..w],
            _ => line,
        };
        text.extend_from_slice(self.shown.as_bytes());
        text.push(separator);
        let _ = write!(text, "{}", number.unwrap_or(0));
        text.push(separator);
        text.extend_from_slice(line);
        text.push(b'\n');
    }
}

impl grep_searcher::Sink for Entries<'_> {
    type Error = io::Error;

    fn matched(
        &mut self,
        _searcher: &grep_searcher::Searcher,
        found: &grep_searcher::SinkMatch<'_>,
    ) -> Result<bool, io::Error> {
        match self.search.mode {
            GrepMode::Content => {
                let first = found.line_number();
                for (i, line) in found.lines().enumerate() {
                    self.entry(first.map(|n| n + i as u64), b':', line);
                }
            }
            // Counted as ripgrep counts: one for each match it reports.
            GrepMode::Count | GrepMode::FilesWithMatches => self.found.entries += 1,
        }
        Ok(self.search.mode != GrepMode::FilesWithMatches)
    }

    fn context(
        &mut self,
        _searcher: &grep_searcher::Searcher,
        context: &grep_searcher::SinkContext<'_>,
    ) -> Result<bool, io::Error> {
        if self.search.mode == GrepMode::Content {
            self.entry(context.line_number(), b'-', context.bytes());
        }
        Ok(true)
    }

    fn context_break(&mut self, _searcher: &grep_searcher::Searcher) -> Result<bool, io::Error> {
        if self.search.mode == GrepMode::Content {
            self.found.entries += 1;
            if self.write && self.found.written < self.search.needed {
                self.found.written += 1;
                self.found.text.extend_from_slice(b"--\n");
            }
        }
        Ok(true)
    }
}

/// Searches one file, opened beneath the root as `read` opens it; what
/// is not a regular file (a FIFO, a socket, a device) is passed over, as
/// ripgrep passes it over, and so is a file that cannot be read.
fn search_file(
    roots: &Roots,
    path: &Path,
    shown: &str,
    search: &Search,
    worker: &mut Worker,
    write: bool,
) -> Found {
    let mut found = Found::default();
    let Some(opened) = roots.open_found(path) else { return found };
    if opened.kind != FileType::RegularFile {
        return found;
    }
    // Lines only counted need no numbers.
    let searcher = if write { &mut worker.numbered } else { &mut worker.plain };
    let sink = Entries { found: &mut found, shown, search, write };
    // A search error (a file that cannot be read, the heap limit) passes
    // the rest of that file over, as ripgrep does (it tells them on
    // stderr, which a model does not see).
    let _ = searcher.search_reader(&search.matcher, LineWindow::new(opened.file, &mut worker.buf), sink);
    if search.mode != GrepMode::Content && found.entries > 0 {
        found.written = 1;
        found.text = match search.mode {
            GrepMode::Count => format!("{shown}:{}\n", found.entries).into_bytes(),
            _ => format!("{shown}\n").into_bytes(),
        };
        found.entries = 1;
    }
    found
}

/// What one searching thread reuses from file to file: its searchers
/// (with line numbers, and without for lines only counted) and its read
/// buffer.
struct Worker {
    numbered: grep_searcher::Searcher,
    plain: grep_searcher::Searcher,
    buf: Vec<u8>,
}

impl Worker {
    fn new(search: &Search) -> Worker {
        Worker {
            numbered: search.searcher.build(),
            plain: search.searcher.clone().line_number(false).build(),
            buf: vec![0; 64 * 1024],
        }
    }
}

/// What the threads of a search found so far.
#[derive(Default)]
struct Collected {
    /// The files whose text a page may show, in path order.
    page: std::collections::BTreeMap<PathBuf, (String, Found)>,
    /// Their entries.
    page_entries: u64,
    /// The files only counted.
    counted: Vec<(PathBuf, String, Found)>,
}

impl Collected {
    /// Whether a file at `path` may be on the page: not once the files
    /// before it fill one.
    fn may_show(&self, path: &Path, needed: u64) -> bool {
        self.page_entries < needed
            || self.page.last_key_value().is_some_and(|(last, _)| path < last.as_path())
    }

    fn add(&mut self, path: PathBuf, shown: String, found: Found, written: bool, needed: u64) {
        if !written {
            self.counted.push((path, shown, found));
            return;
        }
        self.page_entries += found.entries;
        self.page.insert(path, (shown, found));
        // The last file is off the page when those before it fill it.
        while let Some(entry) = self.page.last_entry() {
            let entries = entry.get().1.entries;
            if self.page_entries - entries < needed {
                break;
            }
            self.page_entries -= entries;
            let (path, (shown, mut found)) = entry.remove_entry();
            found.text = Vec::new();
            found.written = 0;
            self.counted.push((path, shown, found));
        }
    }
}

/// Hands what a file found to the cap: the text written, then one short
/// line for each entry only counted; in context mode a `--` line stands
/// between files, as ripgrep prints it.
fn push_result(
    capper: &mut Capper,
    out: &mut Vec<u8>,
    search: &Search,
    found: &Found,
    first: bool,
) -> Result<(), String> {
    let push = |capper: &mut Capper, out: &mut Vec<u8>, bytes: &[u8]| {
        capper.push(bytes, out).map_err(|e| e.to_string())
    };
    if search.context && search.mode == GrepMode::Content && !first {
        push(capper, out, b"--\n")?;
    }
    push(capper, out, &found.text)?;
    let mut counted = found.entries - found.written;
    // The lines past the page are never shown: a short line stands for
    // each, so that the cap counts them.
    let filler = b"-\n".repeat(4096);
    while counted > 0 {
        let n = counted.min(4096);
        push(capper, out, &filler[..2 * usize::try_from(n).unwrap_or(4096)])?;
        counted -= n;
    }
    Ok(())
}

/// A reader that passes the first [`GREP_LINE_WINDOW`] bytes of each line
/// and its newline, and drops the rest of the line, so that line numbers
/// stay true. A NUL byte in a dropped part is passed on (once per read),
/// so that a binary file is still seen to be binary.
struct LineWindow<'b, R> {
    inner: R,
    buf: &'b mut [u8],
    start: usize,
    end: usize,
    /// Bytes of the current line passed on so far.
    in_line: usize,
}

impl<'b, R: Read> LineWindow<'b, R> {
    /// Reads `inner` through `buf`, which a thread reuses file after file.
    fn new(inner: R, buf: &'b mut [u8]) -> LineWindow<'b, R> {
        LineWindow { inner, buf, start: 0, end: 0, in_line: 0 }
    }
}

impl<R: Read> Read for LineWindow<'_, R> {
    /// Fills `out` as far as the file goes, as the file itself would:
    /// ripgrep decides that a file is binary on what one read gives it.
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let mut written = 0;
        while written < out.len() {
            if self.start == self.end {
                let n = self.inner.read(self.buf)?;
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

/// The options of a [`Capper`] that caps with `cap` as the profile
/// `config` does.
fn options(config: &Options, cap: CapSpec) -> Options {
    let mut options = Options::new(cap);
    options.unit = config.unit;
    options.max_line_chars = Some(config.max_line().unwrap_or(0));
    options.strip_ansi = config.strip_ansi;
    options.collapse_cr = config.collapse_cr;
    options.tokenizer = config.tokenizer;
    options.budget = config.budget;
    options
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::sync::mpsc;

    use std::fs::File;

    use super::super::paths::Opener;

    /// `grep` with its defaults: content, no context, the profile's cap.
    fn grep_of(tools: &Tools, pattern: &str, path: &str) -> Result<String, String> {
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
                let text = match grep_of(&tools, "needle", path) {
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
            answers(move || grep_of(&grep, "x", "p")),
            Some(Err("'p': a FIFO (named pipe), not a regular file".into()))
        );
    }

    #[test]
    fn read_refuses_a_socket_and_a_device() {
        let (_dir, tools) = tools();
        let _listener = std::os::unix::net::UnixListener::bind(tools.roots.root.join("s")).unwrap();
        assert_eq!(tools.read("s", 0, None), Err("'s': a socket, not a regular file".into()));
        assert_eq!(grep_of(&tools, "x", "s"), Err("'s': a socket, not a regular file".into()));
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

    #[test]
    fn grep_searches_a_long_line_in_its_start() {
        let (_dir, tools) = tools();
        let mut text = b"short hit\n".to_vec();
        text.extend(std::iter::repeat_n(b'x', 3 * GREP_LINE_WINDOW));
        text.extend_from_slice(b" late hit\nlast hit\n");
        std::fs::write(tools.roots.root.join("f"), &text).unwrap();
        let long = format!("f:2:{} ... (line truncated to 2000 chars)\n", "x".repeat(2000 - "f:2:".len()));
        assert_eq!(grep_of(&tools, "hit", "f").unwrap(), "f:1:short hit\nf:3:last hit\n");
        assert_eq!(grep_of(&tools, "^x", "f").unwrap(), long);
        // A NUL byte in the part not searched still makes the file binary.
        text[GREP_LINE_WINDOW * 2] = 0;
        std::fs::write(tools.roots.root.join("f"), &text).unwrap();
        assert_eq!(grep_of(&tools, "last", ".").unwrap(), "No matches found.\n");
    }

    #[test]
    fn grep_skips_a_binary_file_whose_first_lines_match() {
        let (_dir, tools) = tools();
        std::fs::write(tools.roots.root.join("blob.bin"), b"marker\n\0marker\n").unwrap();
        std::fs::write(tools.roots.root.join("kept.txt"), b"marker\n").unwrap();
        assert_eq!(grep_of(&tools, "marker", ".").unwrap(), "kept.txt:1:marker\n");
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
            let mut buf = vec![0; 64 * 1024];
            let mut window = LineWindow::new(Cursor::new(&text), &mut buf);
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
        assert!(grep_of(&tools, "(", ".").unwrap_err().starts_with("invalid pattern"));
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
