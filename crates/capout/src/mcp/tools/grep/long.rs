//! `grep` in a file with a line longer than the searcher's window: the
//! file searched again, line by line, each line whole however long, in
//! bounded memory.
//!
//! ripgrep's searcher holds a whole line in its buffer, so that a line of
//! 300 MiB costs as much memory; `grep` gives it lines cut to
//! [`GREP_LINE_WINDOW`], which would miss a match past the cut. When the
//! cut was made, the file is searched again here, and a long line is
//! decided without holding it:
//!
//! - A pattern whose matches are at most [`SHORT_MATCH`] bytes long (a
//!   word, a literal, `foo.{0,80}bar`) is searched in windows of the line
//!   that overlap by [`OVERLAP`] bytes: every match lies whole in one of
//!   them, with the bytes around it that `^`, `$` and `\b` look at.
//! - A pattern with longer matches (`a.*b`) runs through a lazy DFA, byte
//!   after byte, which knows at the end of the line whether it matched,
//!   as the whole line would tell. A DFA cannot tell a Unicode word
//!   boundary beside a byte that is not ASCII: from such a byte on, and
//!   when the DFA cannot be built, the windows decide, and a match longer
//!   than [`OVERLAP`] across two of them may then be missed.
//!
//! Lines are printed as the searcher's are: their first bytes, which the
//! line cap cuts; context lines and `--` breaks as `rg -n` prints
//! them.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Seek, SeekFrom};

use grep_matcher::Matcher;
use regex_automata::hybrid::LazyStateID;
use regex_automata::hybrid::dfa::{Cache, DFA};
use regex_automata::util::start;
use regex_automata::util::syntax;

use super::{Entries, GREP_LINE_WINDOW, GrepMode, Search};

/// How many bytes of a long line each window adds.
const STEP: usize = GREP_LINE_WINDOW;

/// How many bytes of the last window the next one starts with.
pub const OVERLAP: usize = 16 * 1024;

/// The bytes beside a match that its assertions look at: a character.
const CONTEXT: usize = 4;

/// The longest match that the windows cannot miss.
pub const SHORT_MATCH: usize = OVERLAP - 2 * CONTEXT;

/// The memory a lazy DFA of one searching thread may take.
const DFA_CACHE: usize = 1 << 20;

/// How a long line is decided for one pattern, built once for a call, on
/// the first long line any thread meets.
pub(super) struct Long {
    /// For a pattern whose matches may be longer than [`SHORT_MATCH`].
    dfa: Option<DFA>,
}

impl Long {
    /// How lines are decided for `pattern`, as the matcher of `grep`
    /// reads it (ripgrep's syntax: `^` and `$` at line ends, bytes that
    /// are not UTF-8 allowed in a class).
    pub(super) fn new(pattern: &str, case_insensitive: bool) -> Long {
        let config = syntax::Config::new()
            .case_insensitive(case_insensitive)
            .multi_line(true)
            .utf8(false)
            .nest_limit(250);
        let pattern = format!("(?:{pattern})");
        let short = syntax::parse_with(&pattern, &config)
            .ok()
            .and_then(|hir| hir.properties().maximum_len())
            .is_some_and(|len| len <= SHORT_MATCH);
        let dfa = (!short).then(|| {
            let dfa = DFA::config()
                .unicode_word_boundary(true)
                .cache_capacity(DFA_CACHE)
                // Never give up on a line for a cache cleared often: the
                // windows would be the worse answer.
                .minimum_cache_clear_count(None);
            DFA::builder().configure(dfa).syntax(config).build(&pattern).ok()
        });
        Long { dfa: dfa.flatten() }
    }
}

/// What one searching thread keeps from line to line: the DFA's cache
/// and the window.
#[derive(Default)]
pub(super) struct Scratch {
    cache: Option<Cache>,
    window: Vec<u8>,
}

/// Searches `file` again from its start, each line whole, into `sink`.
pub(super) fn search(
    file: &File,
    search: &Search,
    scratch: &mut Scratch,
    sink: &mut Entries,
) -> io::Result<()> {
    let mut file = file;
    file.seek(SeekFrom::Start(0))?;
    let long = search.long.get_or_init(|| Long::new(&search.pattern, search.case_insensitive));
    let mut input = BufReader::with_capacity(GREP_LINE_WINDOW, file);
    // What of a line is printed: the cap cuts it further.
    let keep = search.width.map_or(GREP_LINE_WINDOW, |w| w.min(GREP_LINE_WINDOW));
    let mut lines = Lines::new(search, sink);
    let mut line = Vec::with_capacity(GREP_LINE_WINDOW);
    let mut number = 0;
    loop {
        line.clear();
        let mut check: Option<Check> = None;
        let mut ended = false;
        loop {
            let buf = input.fill_buf()?;
            if buf.is_empty() {
                break;
            }
            let newline = memchr::memchr(b'\n', buf);
            let part = &buf[..newline.unwrap_or(buf.len())];
            // The first search saw no NUL: the file changed since. It is
            // binary now, and ends here, as the searcher would end it.
            if memchr::memchr(0, part).is_some() {
                return Ok(());
            }
            match &mut check {
                Some(check) => check.push(part),
                None if line.len() + part.len() <= GREP_LINE_WINDOW => line.extend_from_slice(part),
                None => {
                    let room = GREP_LINE_WINDOW - line.len();
                    line.extend_from_slice(&part[..room]);
                    let mut started = Check::new(long, search, scratch);
                    started.push(&line);
                    started.push(&part[room..]);
                    check = Some(started);
                }
            }
            let took = newline.map_or(buf.len(), |at| at + 1);
            input.consume(took);
            if newline.is_some() {
                ended = true;
                break;
            }
        }
        if !ended && line.is_empty() {
            return Ok(());
        }
        number += 1;
        let matched = match check {
            Some(check) => check.finish(),
            None => search.matcher.is_match(&line).unwrap_or(false),
        };
        if !lines.line(number, &line[..line.len().min(keep)], matched) || !ended {
            return Ok(());
        }
    }
}

/// Whether a long line matches, decided as its bytes come.
struct Check<'a> {
    search: &'a Search,
    /// The DFA and its state, while it decides.
    dfa: Option<(&'a DFA, LazyStateID)>,
    cache: &'a mut Option<Cache>,
    /// The last bytes of the line, to search in windows: at most
    /// [`OVERLAP`] + [`STEP`].
    window: &'a mut Vec<u8>,
    /// The window starts where the line does.
    at_start: bool,
    found: bool,
}

impl<'a> Check<'a> {
    fn new(long: &'a Long, search: &'a Search, scratch: &'a mut Scratch) -> Check<'a> {
        scratch.window.clear();
        let cache = &mut scratch.cache;
        let dfa = long.dfa.as_ref().and_then(|dfa| {
            let cache = cache.get_or_insert_with(|| dfa.create_cache());
            let state = dfa.start_state(cache, &start::Config::new()).ok()?;
            Some((dfa, state))
        });
        Check { search, dfa, cache, window: &mut scratch.window, at_start: true, found: false }
    }

    /// The next bytes of the line.
    fn push(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() && !self.found {
            let room = OVERLAP + STEP - self.window.len();
            let (now, rest) = bytes.split_at(bytes.len().min(room));
            self.step(now);
            self.window.extend_from_slice(now);
            bytes = rest;
            if self.window.len() == OVERLAP + STEP {
                if self.dfa.is_none() && self.in_window(false) {
                    self.found = true;
                }
                self.window.drain(..STEP);
                self.at_start = false;
            }
        }
    }

    /// Runs the DFA over `bytes`; past a byte it cannot decide on, the
    /// windows decide.
    fn step(&mut self, bytes: &[u8]) {
        let Some((dfa, mut state)) = self.dfa else { return };
        let Some(cache) = self.cache.as_mut() else { return };
        for &byte in bytes {
            match dfa.next_state(cache, state, byte) {
                Ok(next) if next.is_match() => {
                    self.found = true;
                    return;
                }
                Ok(next) if next.is_dead() => {
                    // No match can start or end any more: nothing to find.
                    self.dfa = Some((dfa, next));
                    return;
                }
                Ok(next) if !next.is_quit() => state = next,
                // The windows take over from here: the window gets these
                // bytes too, and holds the ones before them.
                _ => {
                    self.dfa = None;
                    return;
                }
            }
        }
        self.dfa = Some((dfa, state));
    }

    /// Whether the line matched, now that it has ended.
    fn finish(self) -> bool {
        if self.found {
            return true;
        }
        match self.dfa {
            Some((_, state)) if state.is_dead() => false,
            Some((dfa, state)) => self
                .cache
                .as_mut()
                .and_then(|cache| dfa.next_eoi_state(cache, state).ok())
                .map_or_else(|| self.in_window(true), |end| end.is_match()),
            None => self.in_window(true),
        }
    }

    /// Whether the window holds a match whose surroundings it holds too:
    /// one that starts past its first [`CONTEXT`] bytes (unless the line
    /// starts there) and ends before its last ones (unless the line ends
    /// there, `last`). A match that ends too close to the end is whole in
    /// the next window, which starts [`OVERLAP`] bytes before this one
    /// ends.
    fn in_window(&self, last: bool) -> bool {
        let window = self.window.as_slice();
        let from = if self.at_start { 0 } else { CONTEXT.min(window.len()) };
        let until = if last { window.len() } else { window.len().saturating_sub(CONTEXT) };
        matches!(self.search.matcher.find_at(window, from), Ok(Some(m)) if m.end() <= until)
    }
}

/// The lines of a file handed to the sink as the searcher hands them: the
/// matching ones, their context, and a break between groups.
struct Lines<'s, 'e> {
    sink: &'s mut Entries<'e>,
    mode: GrepMode,
    after: usize,
    /// The lines that may come before a match as its context, at most as
    /// many as a page may show: numbers and the part printed.
    before: VecDeque<(u64, Vec<u8>)>,
    before_max: usize,
    /// Lines still to show after the last match.
    after_left: usize,
    /// The number of the last line handed on.
    last: Option<u64>,
}

impl<'s, 'e> Lines<'s, 'e> {
    fn new(search: &Search, sink: &'s mut Entries<'e>) -> Lines<'s, 'e> {
        let content = search.mode == GrepMode::Content;
        let page = usize::try_from(search.needed).unwrap_or(usize::MAX);
        Lines {
            sink,
            mode: search.mode,
            after: if content { search.after } else { 0 },
            before: VecDeque::new(),
            before_max: if content { search.before.min(page) } else { 0 },
            after_left: 0,
            last: None,
        }
    }

    /// Hands on line `number`; whether the search goes on.
    fn line(&mut self, number: u64, text: &[u8], matched: bool) -> bool {
        if matched {
            if self.mode != GrepMode::Content {
                self.sink.found.entries += 1;
                return self.mode != GrepMode::FilesWithMatches;
            }
            while let Some((n, text)) = self.before.pop_front() {
                self.show(n, b'-', &text);
            }
            self.show(number, b':', text);
            self.after_left = self.after;
        } else if self.after_left > 0 {
            self.after_left -= 1;
            self.show(number, b'-', text);
        } else if self.before_max > 0 {
            if self.before.len() == self.before_max {
                self.before.pop_front();
            }
            self.before.push_back((number, text.to_vec()));
        }
        true
    }

    fn show(&mut self, number: u64, separator: u8, text: &[u8]) {
        let context = self.after > 0 || self.before_max > 0;
        if context && self.last.is_some_and(|last| number > last + 1) {
            self.sink.gap();
        }
        self.last = Some(number);
        self.sink.entry(Some(number), separator, text);
    }
}
