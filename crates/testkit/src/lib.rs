//! What the test suites of capout share: a reader that splits its data
//! into reads of given sizes, a seeded generator, and the model of the
//! engine that the engine is checked against, and the model of its cut
//! of JSON.

pub mod json;
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

/// Text with every kind of piece and long runs of each kind of
/// character, invalid UTF-8 and NULs among them: the estimator's unit tests
/// and its tests against the reference model draw from it.
pub fn token_text() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
    use proptest::prelude::*;
    let run = |unit: &'static str| (1usize..70).prop_map(move |n| unit.as_bytes().repeat(n));
    let atom = prop_oneof![
        4 => "[a-z]{1,20}".prop_map(String::into_bytes),
        2 => "[A-Z][a-z]{0,8}".prop_map(String::into_bytes),
        1 => "[A-Z]{1,9}".prop_map(String::into_bytes),
        1 => "[a-zA-Z]{1,12}".prop_map(String::into_bytes),
        2 => "[0-9]{1,9}".prop_map(String::into_bytes),
        3 => "[ ]{1,5}".prop_map(String::into_bytes),
        2 => "[\t\r\n\x0b\x0c ]{1,6}".prop_map(String::into_bytes),
        2 => r#"[-+*/=(){};:,.!?'"_<>\[\]@#$%&|~^`\\]{1,12}"#.prop_map(String::into_bytes),
        2 => "[éüßжЖΩω中文字日本語のカナ한국어，。「」€→😀🎉\u{a0}\u{3000}\u{2028}٣①ǅ]{1,6}"
            .prop_map(String::into_bytes),
        1 => "[\u{80}-\u{10ffff}]{1,3}".prop_map(String::into_bytes),
        1 => prop::collection::vec(any::<u8>(), 1..6),
        1 => prop::collection::vec(prop_oneof![Just(0u8), 0x80u8..=0xff], 1..5),
        // Colour codes, and blank lines with spaces, tabs and `\r`.
        2 => "( ?[.;]?\x1b\\[[0-9;]{0,7}[mK]|\x1b[a-z(]?)".prop_map(String::into_bytes),
        1 => "([ \t]{0,14}\r?\n){1,40}".prop_map(String::into_bytes),
        1 => prop_oneof![
            run("a"), run("Z"), run("9"), run(" "), run("\n"), run(" \n"), run("-"),
            run("中"), run("한"), run("😀"), run("\u{a0}"), run("é"), run("\0"), run("ab "),
            run("\r\n"), run(".\n"), run("\x1b")
        ],
    ];
    prop::collection::vec(atom, 0..50).prop_map(|v| v.concat())
}
