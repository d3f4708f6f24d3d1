//! Helpers shared by the test suites.
#![allow(dead_code)]

pub mod model;

use std::io::{self, Read};
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

/// How long one run of the binary may take before the test fails: far
/// above what any test needs on a loaded machine, so only a hang hits it.
pub const TIME_LIMIT: Duration = Duration::from_secs(120);

/// The capout binary, with a clean environment and [`TIME_LIMIT`]. See
/// [`clean_env`].
pub fn capout() -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::from_std(capout_std());
    cmd.timeout(TIME_LIMIT);
    cmd
}

/// The capout binary as a `std::process::Command`, with a clean
/// environment, for the tests that spawn it and wait on it themselves
/// (their own bounded waits are the time limit).
pub fn capout_std() -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_capout"));
    clean_env(&mut cmd);
    cmd
}

/// Takes away what the user's own environment would change about a run:
/// `CAPOUT_OPTS` and `CAPOUT_CONFIG` are removed, and `HOME` and
/// `XDG_CONFIG_HOME` point at an empty folder, so no config file is
/// found. Also for a shell or terminal that runs capout itself. A test
/// that sets one of them afterwards overrides it.
pub fn clean_env(cmd: &mut std::process::Command) -> &mut std::process::Command {
    let home = empty_home();
    cmd.env_remove("CAPOUT_OPTS").env_remove("CAPOUT_CONFIG").env("HOME", home).env("XDG_CONFIG_HOME", home)
}

/// An empty folder under Cargo's temporary folder for the tests, made
/// once per test binary and checked to be empty.
pub fn empty_home() -> &'static PathBuf {
    static HOME: OnceLock<PathBuf> = OnceLock::new();
    HOME.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("empty-home");
        std::fs::create_dir_all(&dir).expect("the empty home is made");
        let entries = std::fs::read_dir(&dir).expect("the empty home is read").count();
        assert_eq!(entries, 0, "{} must stay empty", dir.display());
        dir
    })
}

/// A reader that hands out its data in reads of the given sizes, in turn.
pub struct Chunked<'a> {
    data: &'a [u8],
    sizes: &'a [usize],
    turn: usize,
}

impl<'a> Chunked<'a> {
    pub fn new(data: &'a [u8], sizes: &'a [usize]) -> Self {
        Chunked { data, sizes, turn: 0 }
    }
}

impl Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let size = self.sizes[self.turn % self.sizes.len()].min(buf.len()).min(self.data.len());
        self.turn += 1;
        buf[..size].copy_from_slice(&self.data[..size]);
        self.data = &self.data[size..];
        Ok(size)
    }
}

/// A small deterministic generator (xorshift64*), so failures replay.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// Text made of `atoms` pieces: ASCII, line endings, multi-byte
    /// characters, invalid and truncated UTF-8, NUL and ESC bytes.
    pub fn text(&mut self, atoms: usize) -> Vec<u8> {
        const ATOMS: &[&[u8]] = &[
            b"a",
            b"b",
            b"xyz",
            b"\n",
            b"\n",
            b"\r\n",
            b"\r",
            b"\0",
            b"\x1b",
            b"\xc3\xa9",
            b"\xe2\x82\xac",
            b"\xf0\x9f\x98\x80",
            b"\x80",
            b"\xe2\x82",
            b"\xf0\x9f",
            b"\xc0",
            b"\xff",
            b"\xed\xa0\x80",
            b"\x1b[31m",
            b"\x1b[0m",
            b"\x1b]0;title\x07",
            b"\x1b]8;;x\x1b\\",
            b"\x1b(B",
            b"\x1b[",
            b"\x07",
            b"[",
            b"]",
            b" ",
        ];
        let mut out = Vec::new();
        for _ in 0..atoms {
            out.extend_from_slice(ATOMS[self.below(ATOMS.len() as u64) as usize]);
        }
        out
    }
}
