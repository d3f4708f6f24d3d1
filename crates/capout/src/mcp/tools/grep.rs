//! `grep`: ripgrep's walk and search of a tree, in parallel, its entries
//! in path order, capped and paged by capout's engine. A file with a line
//! longer than the searcher's window is searched again by `long`, so that
//! a match anywhere in a line of any length is found.

mod long;

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use capout_core::{CapSpec, Capper};
use grep_regex::RegexMatcherBuilder;
use grep_searcher::{BinaryDetection, SearcherBuilder};
use ignore::WalkBuilder;
use ignore::overrides::OverrideBuilder;
use ignore::types::TypesBuilder;
use rustix::fs::FileType;

use super::{ToolError, Tools};
use crate::mcp::notice::{self, not_regular};

/// How much of a line ripgrep's searcher sees: the first 64 KiB (the
/// line is cut at 2000 characters when shown anyway), so that one line of
/// 300 MiB costs 64 KiB, not 300 MiB of buffer and as much again for its
/// copy. A file with a longer line is searched again, each line whole (see
/// `long`).
pub const GREP_LINE_WINDOW: usize = 64 * 1024;

/// The most heap ripgrep's searcher may add to its buffer: lines are cut
/// at [`GREP_LINE_WINDOW`] before it sees them, so this is never reached;
/// were it reached, the rest of that one file would be passed over.
pub const GREP_HEAP_LIMIT: usize = 1024 * 1024;

/// The variable that makes `grep` panic, in a debug build, when it says
/// `grep`.
#[cfg(debug_assertions)]
const PANIC_VAR: &str = "CAPOUT_TEST_PANIC";

impl Tools {
    /// `grep`: what `rg -n --sort path` prints for `request` in the files
    /// under its path (ripgrep's walk: `.gitignore` and hidden files
    /// skipped, binary files passed over), searched in parallel, each line
    /// one entry, capped and paged as the profile `grep` says.
    ///
    /// # Panics
    ///
    /// In a debug build only, when `CAPOUT_TEST_PANIC` is `grep`: the
    /// tests' way to a panic in a call.
    pub fn grep(&self, request: &GrepRequest) -> Result<String, ToolError> {
        let what = format!("{} {}", request.pattern, request.path);
        crate::ledger::record(self.entry("grep", &what), || self.grep_tree(request))
    }

    fn grep_tree(&self, request: &GrepRequest) -> Result<String, ToolError> {
        // A bug on demand, for the tests that a panic in a call is an
        // error of that call in the server and the modules. Read in debug
        // builds only: what is shipped has no such switch.
        #[cfg(debug_assertions)]
        assert!(std::env::var_os(PANIC_VAR).is_none_or(|v| v != "grep"), "{PANIC_VAR} asked grep to panic");
        let opened = self.roots.open(&request.path).map_err(ToolError::Refused)?;
        if opened.kind == FileType::RegularFile && self.is_saved(&opened.path) {
            crate::ledger::note(|entry| entry.page_of = Some(opened.path.display().to_string()));
        }
        if !matches!(opened.kind, FileType::RegularFile | FileType::Directory) {
            return Err(ToolError::Refused(not_regular(&request.path, opened.kind)));
        }
        let limit = match (request.limit, self.grep.cap) {
            (Some(0), _) => return Err(ToolError::Refused(notice::LIMIT_ZERO.into())),
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
        let matcher =
            builder.build(&request.pattern).map_err(|e| ToolError::Refused(notice::invalid("pattern", e)))?;
        let mut searcher = SearcherBuilder::new();
        searcher
            .line_number(true)
            .multi_line(request.multiline)
            .binary_detection(BinaryDetection::quit(0))
            .heap_limit(Some(GREP_HEAP_LIMIT))
            .before_context(request.before)
            .after_context(request.after);
        // Every option of the profile (its notice format, `keep`, line
        // numbers, ...), but the cap and the page are the call's, each entry
        // is a match (no `pattern`), and nothing is saved: the entries past
        // the page reach the cap only as short lines to count.
        let mut options = self.grep.clone();
        options.cap = CapSpec::MaxMatches(limit);
        options.match_offset = request.offset;
        options.pattern = None;
        options.save = None;
        let width = self.grep.max_line().map(|w| self.grep.unit.max_bytes(w).saturating_add(8));
        let search = Search {
            matcher,
            searcher,
            pattern: request.pattern.clone(),
            case_insensitive: request.case_insensitive,
            multiline: request.multiline,
            long: std::sync::OnceLock::new(),
            mode: request.mode,
            context: request.before > 0 || request.after > 0,
            before: request.before,
            after: request.after,
            // A file's own entries past the end of the page are only counted.
            needed: request.offset.saturating_add(limit),
            width: width.and_then(|w| usize::try_from(w).ok()),
        };
        let found = if opened.kind == FileType::RegularFile {
            let shown = self.roots.show(&opened.path).into_owned();
            let found = search_file(&opened.file, &shown, &search, &mut Worker::new(&search), true);
            vec![(opened.path, shown, found)]
        } else {
            self.search_tree(&opened.path, &opened.file, request, &search).map_err(ToolError::Refused)?
        };
        let mut capper = Capper::new(options).map_err(|e| ToolError::Failed(e.to_string()))?;
        let mut out = Vec::new();
        for (i, (_, _, found)) in found.iter().enumerate() {
            push_result(&mut capper, &mut out, &search, found, i == 0).map_err(ToolError::Failed)?;
        }
        let summary = capper.finish(&mut out).map_err(|e| ToolError::Failed(e.to_string()))?;
        crate::ledger::note(|entry| entry.cut = summary.truncated);
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
        opened: &File,
        request: &GrepRequest,
        search: &Search,
    ) -> Result<Vec<(PathBuf, String, Found)>, String> {
        let mut walk = WalkBuilder::new(dir);
        if let Some(glob) = &request.glob {
            let mut overrides = OverrideBuilder::new(dir);
            overrides.add(glob).map_err(|e| notice::invalid("glob", e))?;
            walk.overrides(overrides.build().map_err(|e| notice::invalid("glob", e))?);
        }
        if let Some(kind) = &request.file_type {
            let mut types = TypesBuilder::new();
            types.add_defaults();
            types.select(kind);
            walk.types(types.build().map_err(|e| notice::invalid("type", e))?);
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
                let Some(file) = self.roots.open_walked(dir, opened, &path) else {
                    return ignore::WalkState::Continue;
                };
                let write = lock().may_show(&path, search.needed);
                let shown = self.roots.show(&path);
                let found = search_file(&file, &shown, search, &mut worker, write);
                if found.entries > 0 {
                    let shown = shown.into_owned();
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
    /// The pattern and its case, for the search of long lines.
    pattern: String,
    case_insensitive: bool,
    /// Matches may span lines: no search of long lines then.
    multiline: bool,
    /// How a long line is decided, once one is met.
    long: std::sync::OnceLock<long::Long>,
    mode: GrepMode,
    context: bool,
    /// Lines of context before and after a match.
    before: usize,
    after: usize,
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
    /// The searcher met binary data.
    binary: bool,
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

    /// The `--` between two groups of lines with their context.
    fn gap(&mut self) {
        if self.search.mode == GrepMode::Content {
            self.found.entries += 1;
            if self.write && self.found.written < self.search.needed {
                self.found.written += 1;
                self.found.text.extend_from_slice(b"--\n");
            }
        }
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
        self.gap();
        Ok(true)
    }

    fn binary_data(&mut self, _searcher: &grep_searcher::Searcher, _offset: u64) -> Result<bool, io::Error> {
        self.binary = true;
        Ok(true)
    }
}

/// Searches one regular file, opened beneath the root (a FIFO, a socket,
/// a device is passed over before, as ripgrep passes it over); a file
/// that cannot be read is passed over too.
fn search_file(file: &File, shown: &str, search: &Search, worker: &mut Worker, write: bool) -> Found {
    let mut found = Found::default();
    // Lines only counted need no numbers.
    let searcher = if write { &mut worker.numbered } else { &mut worker.plain };
    let mut window = LineWindow::new(file);
    let mut sink = Entries { found: &mut found, shown, search, write, binary: false };
    // A search error (a file that cannot be read, the heap limit) passes
    // the rest of that file over, as ripgrep does (it tells them on
    // stderr, which a model does not see).
    let _ = searcher.search_reader(&search.matcher, &mut window, &mut sink);
    // A line was cut: the file again, each line whole. A binary file
    // stands as the searcher left it: it stopped at its first NUL, which
    // the window passes on from a part cut.
    if window.cut && !sink.binary && !search.multiline {
        *sink.found = Found::default();
        let _ = long::search(file, search, &mut worker.long, &mut sink);
    }
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
/// (with line numbers, and without for lines only counted).
struct Worker {
    numbered: grep_searcher::Searcher,
    plain: grep_searcher::Searcher,
    long: long::Scratch,
}

impl Worker {
    fn new(search: &Search) -> Worker {
        Worker {
            numbered: search.searcher.build(),
            plain: search.searcher.clone().line_number(false).build(),
            long: long::Scratch::default(),
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
    // The ledger counts what was formatted; the entries past the page
    // never are.
    crate::ledger::feed(&found.text);
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
/// stay true. A NUL byte in a dropped part is passed on (once for each
/// part dropped), so that a binary file is still seen to be binary.
///
/// The file is read straight into the searcher's buffer and a long line
/// cut there, in place: a line of usual length costs no copy and no scan
/// of its own (a copy through a buffer of its own, and a search for each
/// newline, took 45 % of grep's user time on /usr). Each read asks at most
/// [`GREP_LINE_WINDOW`] bytes, so that only the line a read starts in and
/// the one it ends in can be longer than the window.
pub(super) struct LineWindow<R> {
    pub(super) inner: R,
    /// Bytes of the current line passed on so far; [`GREP_LINE_WINDOW`]
    /// while the rest of a long line is dropped.
    in_line: usize,
    /// Some line was cut.
    pub(super) cut: bool,
}

impl<R: Read> LineWindow<R> {
    pub(super) fn new(inner: R) -> LineWindow<R> {
        LineWindow { inner, in_line: 0, cut: false }
    }

    /// Cuts what passes the window out of `chunk` (at most
    /// [`GREP_LINE_WINDOW`] bytes just read), moving the rest to its
    /// front: how many bytes are left.
    fn window(&mut self, chunk: &mut [u8]) -> usize {
        let len = chunk.len();
        // The part that continues the current line, and its newline.
        let first = memchr::memchr(b'\n', chunk);
        let head = first.unwrap_or(len);
        // Where the last line starts: after the last newline, which the
        // cut below leaves where it is, relative to the end.
        let last = first.map(|_| memchr::memrchr(b'\n', chunk).unwrap_or(0));
        let room = GREP_LINE_WINDOW - self.in_line;
        let kept = if head <= room {
            len
        } else {
            self.cut = true;
            let nul = memchr::memchr(0, &chunk[room..head]).is_some();
            let at = room + usize::from(nul);
            if nul {
                chunk[room] = 0;
            }
            chunk.copy_within(head.., at);
            at + (len - head)
        };
        // The lines after the first newline are shorter than a read: only
        // the last, unfinished one carries on.
        self.in_line = match last {
            None => (self.in_line + head).min(GREP_LINE_WINDOW),
            Some(last) => len - 1 - last,
        };
        kept
    }
}

impl<R: Read> Read for LineWindow<R> {
    /// Gives a read as the file gives it when nothing was cut; when
    /// something was, reads on until `out` is as full as the file would
    /// have made it: ripgrep decides that a file is binary on what its
    /// first read gives it.
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let mut written = 0;
        while written < out.len() {
            let end = out.len().min(written + GREP_LINE_WINDOW);
            let n = self.inner.read(&mut out[written..end])?;
            if n == 0 {
                break;
            }
            let kept = self.window(&mut out[written..written + n]);
            written += kept;
            if kept == n {
                break;
            }
        }
        Ok(written)
    }
}
