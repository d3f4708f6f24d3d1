//! The estimator's figures, pinned: the total, every piece boundary, the
//! cuts of tail and head caps, over the corpora and over generated text
//! with invalid UTF-8, NULs, CJK, emoji and long runs, as one digest. The
//! estimator is calibrated: a change here changes the README's table.

use capout_core::tokens::{self, Estimator};

/// FNV-1a over 64-bit words.
struct Digest(u64);

impl Digest {
    fn new() -> Self {
        Digest(0xcbf2_9ce4_8422_2325)
    }
    fn add(&mut self, word: u64) {
        for b in word.to_le_bytes() {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }
}

/// A xorshift generator: the same text on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const ATOMS: [&str; 24] = [
    "the",
    " word",
    " Word",
    "HTTPServer",
    "xkcd",
    "_id",
    ".len",
    "12345",
    "7",
    "  ",
    "\t",
    "\n",
    "\r\n",
    " \n  \n",
    "();",
    "=>",
    "中文字",
    "日本語の",
    "한국어",
    "，。",
    "😀🎉",
    "\u{a0}",
    "\u{3000}",
    "Ünïcödé",
];

/// Text of `atoms` pieces: words, numbers, punctuation, white space,
/// non-ASCII letters and symbols, random bytes, NULs and long runs.
fn text(rng: &mut Rng, atoms: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for _ in 0..atoms {
        match rng.below(10) {
            0..=4 => out.extend_from_slice(ATOMS[rng.below(ATOMS.len())].as_bytes()),
            5 => out.extend((0..=rng.below(4)).map(|_| rng.next() as u8)),
            6 => out.extend(std::iter::repeat_n(0u8, 1 + rng.below(3))),
            7 => {
                let unit = ["a", "Z", "9", " ", "\n", "-", "中", "😀", "\u{a0}", "é"][rng.below(10)];
                out.extend(unit.as_bytes().repeat(1 + rng.below(300)));
            }
            8 => out.extend((0..=rng.below(12)).map(|_| b'a' + rng.below(26) as u8)),
            _ => out.extend((0..=rng.below(6)).map(|_| b' ' + rng.below(95) as u8)),
        }
    }
    out
}

fn figures(d: &mut Digest, rng: &mut Rng, bytes: &[u8], budgets: &[u64]) {
    d.add(tokens::estimate_scaled(bytes));
    let mut e = Estimator::default();
    let mut rest = bytes;
    while !rest.is_empty() {
        let n = (1 + rng.below(7)).min(rest.len());
        e.feed(&rest[..n]);
        rest = &rest[n..];
        d.add(e.total_scaled());
    }
    for (at, cost) in tokens::boundaries(bytes) {
        d.add(at as u64);
        d.add(cost);
    }
    for &budget in budgets {
        d.add(tokens::tail_start(bytes, budget) as u64);
        let mut e = Estimator::default();
        let cut = bytes.chunks(1 + rng.below(4096)).find_map(|c| e.cut_after(c, budget));
        d.add(cut.or_else(|| e.cut_at_end(budget)).map_or(u64::MAX, |c| c));
    }
}

#[test]
fn figures_of_generated_text() {
    let mut d = Digest::new();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for round in 0..3000 {
        let bytes = text(&mut rng, 1 + round % 60);
        figures(&mut d, &mut rng, &bytes, &[0, 1, 3, 10, 40]);
    }
    assert_eq!(d.0, 6_055_387_555_579_882_003);
}

#[test]
fn figures_of_the_corpora() {
    let mut d = Digest::new();
    let mut rng = Rng(12);
    for name in [
        "prose",
        "logs",
        "rust",
        "python",
        "javascript",
        "json",
        "minified",
        "blobs",
        "cjk",
        "mix",
        "ansi",
        "blank",
    ] {
        let path = format!("{}/tests/fixtures/tokens/{name}.txt", env!("CARGO_MANIFEST_DIR"));
        let bytes = std::fs::read(path).expect("the corpora are in the repository");
        figures(&mut d, &mut rng, &bytes, &[1, 100, 5000]);
    }
    assert_eq!(d.0, 10_119_150_629_987_985_033);
}
