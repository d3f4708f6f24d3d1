//! The ledger: one JSON line for each call that capout bounded for a
//! harness (a hook, the shell prefix, the MCP server, the proxy, a
//! module), so that `capout stats` can say what bounding kept out of the
//! context and what paging back cost.
//!
//! The ledger is `$XDG_STATE_HOME/capout/ledger.jsonl`, else
//! `~/.local/state/capout/ledger.jsonl`: mode 0600 in a folder of mode
//! 0700. A line holds the call's counts, never its output. Past half of
//! [`MAX_BYTES`], the file becomes `ledger.1.jsonl` (the one before is
//! dropped) and a new one starts: the ledger holds at most [`MAX_BYTES`],
//! the oldest lines going first.
//!
//! Each line is one `write(2)` to a file opened with `O_APPEND`, which
//! Linux makes whole with respect to every other writer of the file (the
//! file's lock is held for the whole write), so concurrent calls never
//! interleave a line. Writing never fails a call: an error is one line on
//! stderr, once a process.
//!
//! Off with `CAPOUT_LEDGER=0` or `ledger = false` in the config file. A
//! plain filter or command run writes only with `--ledger`, so that
//! capout in a script has no side effect.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

/// The most the ledger holds, both files together.
pub const MAX_BYTES: u64 = 10 << 20;

/// The characters of a command the ledger keeps.
pub const COMMAND_CHARS: usize = 200;

/// The ledger's file name in its folder, and the one before it.
const FILE: &str = "ledger.jsonl";
const OLDER: &str = "ledger.1.jsonl";

/// One call, as the ledger holds it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// When it ended, in milliseconds since the epoch.
    pub t: u64,
    /// What bounded it: `prefix`, `hook`, `mcp`, `proxy`, `python`,
    /// `node` or `cli`.
    pub front: String,
    /// The harness, where one is known (`claude-code`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub harness: Option<String>,
    /// The tool: `bash` for a shell call, `read`, `grep`, or the name of
    /// another server's tool.
    pub tool: String,
    /// The command's first [`COMMAND_CHARS`] characters (a path, a
    /// pattern or a tool's name for the other tools).
    #[serde(default)]
    pub command: String,
    /// Characters of the whole output, and its estimated tokens.
    #[serde(default)]
    pub chars_in: u64,
    #[serde(default)]
    pub tokens_in: u64,
    /// Characters and estimated tokens of what the model was shown,
    /// notices included.
    #[serde(default)]
    pub chars_shown: u64,
    #[serde(default)]
    pub tokens_shown: u64,
    /// Whether something was cut.
    #[serde(default)]
    pub cut: bool,
    /// The file the whole output was saved to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub saved: Option<String>,
    /// For a page of a saved output read back through capout: that file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_of: Option<String>,
    /// The exit status of a command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit: Option<i32>,
    /// How long the call took, in milliseconds.
    #[serde(default)]
    pub ms: u64,
}

impl Entry {
    /// An entry for a call of `tool` through `front`, ending now.
    pub fn new(front: &str, tool: &str) -> Entry {
        Entry { t: now_ms(), front: front.into(), tool: tool.into(), ..Entry::default() }
    }

    /// Sets the command, cut to [`COMMAND_CHARS`] characters.
    #[must_use]
    pub fn command(mut self, command: &str) -> Entry {
        self.command = command.chars().take(COMMAND_CHARS).collect();
        self
    }

    /// Sets how long the call took.
    #[must_use]
    pub fn took(mut self, duration: Duration) -> Entry {
        self.ms = u64::try_from(duration.as_millis()).unwrap_or(u64::MAX);
        self
    }
}

/// Milliseconds since the epoch.
pub fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(0))
}

/// Whether the ledger is on: not `CAPOUT_LEDGER=0`, and not
/// `ledger = false` in the config file.
/// The answer is the process's: a server asks once for all its calls.
pub fn enabled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| {
        if std::env::var_os("CAPOUT_LEDGER").is_some_and(|v| v == "0") {
            return false;
        }
        crate::profiles::ConfigFile::load().ok().flatten().and_then(|file| file.ledger()).unwrap_or(true)
    })
}

/// The ledger's folder: `$XDG_STATE_HOME/capout`, else
/// `~/.local/state/capout` (a relative one is ignored, as the XDG base
/// directories say).
pub fn dir() -> Option<PathBuf> {
    let absolute = |var: &str| std::env::var_os(var).map(PathBuf::from).filter(|p| p.is_absolute());
    absolute("XDG_STATE_HOME")
        .map(|state| state.join("capout"))
        .or_else(|| absolute("HOME").map(|home| home.join(".local/state/capout")))
}

/// The ledger's files, the older first (those that exist).
pub fn files() -> Vec<PathBuf> {
    dir()
        .map(|dir| [dir.join(OLDER), dir.join(FILE)].into_iter().filter(|f| f.exists()).collect())
        .unwrap_or_default()
}

/// Whether an error writing the ledger goes unsaid: in a call made for a
/// model, whose stderr the model reads (a harness's read-only sandbox
/// would have every call say it).
static QUIET: AtomicBool = AtomicBool::new(false);

/// Says no error writing the ledger, for the rest of the process.
pub fn quiet() {
    QUIET.store(true, Ordering::Relaxed);
}

/// Appends `entry` when the ledger is on; an error is said once a
/// process, on stderr (unless [`quiet`]), and never fails the call.
pub fn append(entry: &Entry) {
    if !enabled() {
        return;
    }
    let Some(dir) = dir() else { return };
    if let Err(e) = append_in(&dir, entry) {
        static SAID: AtomicBool = AtomicBool::new(false);
        if !QUIET.load(Ordering::Relaxed) && !SAID.swap(true, Ordering::Relaxed) {
            let _ = writeln!(io::stderr(), "capout: the ledger in {} is not written: {e}", dir.display());
        }
    }
}

/// Appends `entry` to the ledger in `dir`.
pub fn append_in(dir: &Path, entry: &Entry) -> io::Result<()> {
    let mut line = serde_json::to_vec(entry).map_err(io::Error::other)?;
    line.push(b'\n');
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
    let path = dir.join(FILE);
    let mut file = open(&path)?;
    if file.metadata()?.len() + line.len() as u64 > MAX_BYTES / 2 {
        file = rotate(dir, file)?;
    }
    // One write, whole or not at all: a short write (a full disk) is an
    // error, and what it wrote is at most the start of one line.
    let written = file.write(&line)?;
    if written != line.len() {
        return Err(io::Error::new(io::ErrorKind::WriteZero, "the disk took part of a line"));
    }
    Ok(())
}

/// The ledger file at `path`, for appending: made with mode 0600, and
/// refused when it is not a regular file of this user's (a link, a FIFO
/// or another's file planted there).
fn open(path: &Path) -> io::Result<File> {
    let file = OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o600)
        .custom_flags((rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK).bits().cast_signed())
        .open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() || meta.uid() != rustix::process::geteuid().as_raw() {
        return Err(io::Error::other(format!("{} is not a file of this user's", path.display())));
    }
    Ok(file)
}

/// Makes room: under a lock on the full file, it becomes the older file
/// and a new one is opened. When another writer rotated first, its new
/// file is the one to write to.
fn rotate(dir: &Path, full: File) -> io::Result<File> {
    rustix::fs::flock(&full, rustix::fs::FlockOperation::LockExclusive)?;
    let path = dir.join(FILE);
    let current = std::fs::symlink_metadata(&path).ok();
    let same = current.as_ref().is_some_and(|m| m.ino() == full.metadata().map_or(0, |f| f.ino()));
    if same {
        std::fs::rename(&path, dir.join(OLDER))?;
    }
    drop(full);
    open(&path)
}

/// Every entry of the ledger files, the oldest first; lines that are not
/// entries are passed over.
pub fn read(files: &[PathBuf]) -> Vec<Entry> {
    let mut entries = Vec::new();
    for file in files {
        let Ok(bytes) = crate::safe_read::read(file, MAX_BYTES) else { continue };
        for line in bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            if let Ok(entry) = serde_json::from_slice::<Entry>(line) {
                entries.push(entry);
            }
        }
    }
    entries
}

/// A call being recorded on this thread: its entry so far and what its
/// tool has read ([`feed`]).
struct Recording {
    entry: Entry,
    read: Count,
}

thread_local! {
    static RECORDING: std::cell::RefCell<Option<Recording>> = const { std::cell::RefCell::new(None) };
}

/// Runs `call`, a call of a tool that the MCP server, the proxy or a
/// module serves, and appends its line: `entry`, with what the tool read
/// (as it said through [`feed`] and [`note`]) and what the call gave the
/// model (its text, or its error's). With the ledger off, only runs it.
pub fn record<E: std::fmt::Display>(
    entry: Entry,
    call: impl FnOnce() -> Result<String, E>,
) -> Result<String, E> {
    if !enabled() {
        return call();
    }
    let started = std::time::Instant::now();
    let outer = RECORDING.with(|r| r.replace(Some(Recording { entry, read: Count::default() })));
    let result = call();
    let Some(Recording { entry, read }) = RECORDING.with(|r| r.replace(outer)) else { return result };
    let mut shown = Count::default();
    match &result {
        Ok(text) => shown.add(text.as_bytes()),
        Err(e) => shown.add(e.to_string().as_bytes()),
    }
    let ((chars_in, tokens_in), (chars_shown, tokens_shown)) = (read.totals(), shown.totals());
    append(&Entry { chars_in, tokens_in, chars_shown, tokens_shown, ..entry }.took(started.elapsed()));
    result
}

/// Counts `bytes` as read by the call this thread records, if any: the
/// whole output, before any cut.
pub fn feed(bytes: &[u8]) {
    RECORDING.with(|r| {
        if let Some(recording) = r.borrow_mut().as_mut() {
            recording.read.add(bytes);
        }
    });
}

/// Changes the entry of the call this thread records, if any: whether it
/// was cut, where it was saved, how it ended.
pub fn note(change: impl FnOnce(&mut Entry)) {
    RECORDING.with(|r| {
        if let Some(recording) = r.borrow_mut().as_mut() {
            change(&mut recording.entry);
        }
    });
}

/// A reader whose bytes are [`feed`] as they are read.
pub struct Fed<R>(pub R);

impl<R: io::Read> io::Read for Fed<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.0.read(buf)?;
        feed(&buf[..n]);
        Ok(n)
    }
}

/// The bytes whose tokens a [`Count`] estimates; past them, tokens are
/// extrapolated at the rate they had (a line of the ledger needs no more,
/// and the estimate costs about 0.4 ms a MiB).
pub const ESTIMATED_BYTES: u64 = 1 << 20;

/// Counts characters and estimated tokens of what passes through.
#[derive(Default)]
pub struct Count {
    chars: u64,
    bytes: u64,
    tokens: capout_core::tokens::Estimator,
    /// The bytes the estimator was fed.
    estimated: u64,
    /// The start of a character cut off by the end of a piece.
    held: Vec<u8>,
}

impl Count {
    /// Counts `bytes`, the next piece.
    pub fn add(&mut self, bytes: &[u8]) {
        self.bytes += bytes.len() as u64;
        if self.estimated < ESTIMATED_BYTES {
            let take =
                bytes.len().min(usize::try_from(ESTIMATED_BYTES - self.estimated).unwrap_or(usize::MAX));
            self.tokens.feed(&bytes[..take]);
            self.estimated += take as u64;
        }
        self.held.extend_from_slice(bytes);
        let whole = self.held.len() - capout_core::internals::incomplete_suffix(&self.held);
        self.chars += String::from_utf8_lossy(&self.held[..whole]).chars().count() as u64;
        self.held.drain(..whole);
    }

    /// The characters and the estimated tokens counted.
    pub fn totals(&self) -> (u64, u64) {
        let held = String::from_utf8_lossy(&self.held).chars().count() as u64;
        let tokens = self.tokens.total();
        let tokens = if self.bytes > self.estimated && self.estimated > 0 {
            let whole = u128::from(tokens) * u128::from(self.bytes) / u128::from(self.estimated);
            u64::try_from(whole).unwrap_or(u64::MAX)
        } else {
            tokens
        };
        (self.chars + held, tokens)
    }
}

/// A writer that counts what it passes on ([`Count`]).
pub struct Counting<W> {
    /// Where it writes.
    pub inner: W,
    /// What it has written.
    pub count: Count,
}

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(bytes)?;
        self.count.add(&bytes[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn entry(n: u64) -> Entry {
        Entry { chars_in: n, ..Entry::new("hook", "bash").command("seq 100000") }
    }

    #[test]
    fn a_line_is_an_entry_and_the_ledger_is_private() {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("state/capout");
        append_in(&dir, &entry(7)).unwrap();
        append_in(&dir, &entry(8)).unwrap();
        let file = dir.join(FILE);
        assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777, 0o700);
        let got = read(&[file]);
        assert_eq!(got.iter().map(|e| e.chars_in).collect::<Vec<_>>(), [7, 8]);
        assert_eq!(got[0].command, "seq 100000");
    }

    #[test]
    fn tokens_past_the_first_mib_are_extrapolated_at_its_rate() {
        let piece = "word ".repeat(1000);
        let (mut small, mut large) = (Count::default(), Count::default());
        for _ in 0..(ESTIMATED_BYTES / piece.len() as u64) {
            small.add(piece.as_bytes());
        }
        for _ in 0..3 * (ESTIMATED_BYTES / piece.len() as u64) {
            large.add(piece.as_bytes());
        }
        let ((small_chars, small_tokens), (large_chars, large_tokens)) = (small.totals(), large.totals());
        assert_eq!(large_chars, 3 * small_chars);
        assert!(small_tokens > 100_000, "{small_tokens}");
        assert!(large_tokens.abs_diff(3 * small_tokens) <= 3, "{large_tokens} against {small_tokens}");
    }

    #[test]
    fn a_command_is_kept_to_its_first_200_characters() {
        let long = "é".repeat(300);
        assert_eq!(Entry::new("hook", "bash").command(&long).command.chars().count(), COMMAND_CHARS);
    }

    #[test]
    fn past_half_the_bound_the_file_becomes_the_older_one() {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("capout");
        append_in(&dir, &entry(1)).unwrap();
        // As full as the bound allows: the next line starts a new file.
        let file = OpenOptions::new().append(true).open(dir.join(FILE)).unwrap();
        file.set_len(MAX_BYTES / 2).unwrap();
        append_in(&dir, &entry(2)).unwrap();
        assert_eq!(std::fs::metadata(dir.join(OLDER)).unwrap().len(), MAX_BYTES / 2);
        assert_eq!(read(&[dir.join(FILE)]).iter().map(|e| e.chars_in).collect::<Vec<_>>(), [2]);
        // Again: the oldest file goes, the ledger never holds more.
        let file = OpenOptions::new().append(true).open(dir.join(FILE)).unwrap();
        file.set_len(MAX_BYTES / 2).unwrap();
        append_in(&dir, &entry(3)).unwrap();
        let sizes: u64 = [OLDER, FILE].iter().map(|f| std::fs::metadata(dir.join(f)).unwrap().len()).sum();
        assert!(sizes <= MAX_BYTES, "{sizes}");
        assert_eq!(read(&[dir.join(FILE)]).iter().map(|e| e.chars_in).collect::<Vec<_>>(), [3]);
    }

    #[test]
    fn a_ledger_that_is_a_link_or_a_fifo_is_refused() {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("capout");
        std::fs::create_dir(&dir).unwrap();
        std::os::unix::fs::symlink(home.path().join("elsewhere"), dir.join(FILE)).unwrap();
        assert!(append_in(&dir, &entry(1)).is_err());
        assert!(!home.path().join("elsewhere").exists());
        std::fs::remove_file(dir.join(FILE)).unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            dir.join(FILE),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        assert!(append_in(&dir, &entry(1)).is_err());
    }

    #[test]
    fn concurrent_writers_never_interleave_a_line() {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("capout");
        std::thread::scope(|s| {
            for t in 0..8 {
                let dir = &dir;
                s.spawn(move || {
                    for i in 0..200 {
                        let e = Entry { command: "x".repeat(190), ..entry(t * 1000 + i) };
                        append_in(dir, &e).unwrap();
                    }
                });
            }
        });
        let text = std::fs::read_to_string(dir.join(FILE)).unwrap();
        assert_eq!(text.lines().count(), 1600);
        assert_eq!(read(&[dir.join(FILE)]).len(), 1600, "every line is a whole entry");
    }

    #[test]
    fn counting_counts_characters_split_between_writes() {
        let mut count = Count::default();
        for piece in ["caf\u{e9} ".as_bytes(), &[0xe2, 0x9c], &[0x93, b'\n']] {
            count.add(piece);
        }
        assert_eq!(count.totals().0, 7);
        assert!(count.totals().1 >= 2);
    }
}
