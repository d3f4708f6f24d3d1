//! What the test suites of capout share: a reader that splits its data
//! into reads of given sizes, a seeded generator, and the model of the
//! engine that the engine is checked against.

pub mod model;

use std::io::{self, Read};

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

    // Not an Iterator: the generator never ends, and callers ask it for
    // numbers in ranges of their own.
    #[allow(clippy::should_implement_trait)]
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
