//! Throughput of the token estimator on the calibration corpora, each
//! repeated to 10 MB and held in memory, beside the vectorised character
//! count that `--tail-chars` pays for its totals.
//!
//! Run with `cargo bench --bench tokens`; divan prints bytes per second.

use std::sync::LazyLock;

use capout_core::tokens::Estimator;
use divan::Bencher;
use divan::counter::BytesCount;

fn main() {
    divan::main();
}

const INPUT_BYTES: usize = 10 * 1000 * 1000;

const CORPORA: [&str; 4] = ["logs", "rust", "prose", "cjk"];

fn corpus(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/fixtures/tokens/{name}.txt", env!("CARGO_MANIFEST_DIR"));
    let one = std::fs::read(path).expect("the corpora are in the repository");
    one.iter().copied().cycle().take(INPUT_BYTES).collect()
}

static INPUTS: LazyLock<Vec<(&str, Vec<u8>)>> =
    LazyLock::new(|| CORPORA.iter().map(|&n| (n, corpus(n))).collect());

fn input(name: &str) -> &'static [u8] {
    &INPUTS.iter().find(|(n, _)| *n == name).expect("a corpus").1
}

/// The estimator over the whole input, fed in pieces of 64 KiB as a pipe
/// gives them.
#[divan::bench(args = CORPORA)]
fn estimate(bencher: Bencher, name: &str) {
    let data = input(name);
    bencher.counter(BytesCount::new(data.len())).bench(|| {
        let mut e = Estimator::default();
        for piece in data.chunks(64 * 1024) {
            e.feed(piece);
        }
        e.total()
    });
}

/// Counting characters, the work of `--tail-chars` when it needs totals.
#[divan::bench(args = CORPORA)]
fn count_chars(bencher: Bencher, name: &str) {
    let data = input(name);
    bencher
        .counter(BytesCount::new(data.len()))
        .bench(|| data.chunks(64 * 1024).map(|p| bytecount::num_chars(p) as u64).sum::<u64>());
}

/// The estimator fed in reads of 4 KiB, as a terminal or a slow writer
/// gives them: the cost of starting and ending each read.
#[divan::bench(args = CORPORA)]
fn estimate_small_reads(bencher: Bencher, name: &str) {
    let data = input(name);
    bencher.counter(BytesCount::new(data.len())).bench(|| {
        let mut e = Estimator::default();
        for piece in data.chunks(4 * 1024) {
            e.feed(piece);
        }
        e.total()
    });
}

/// What a tail cap pays once, at the end: the cut in its ring of the
/// last `5000 × MAX_BYTES_PER_TOKEN + 4` bytes.
#[divan::bench(args = CORPORA)]
fn tail_cut(bencher: Bencher, name: &str) {
    let data = input(name);
    let ring = (5000 * capout_core::tokens::MAX_BYTES_PER_TOKEN + 4) as usize;
    let window = &data[data.len() - ring..];
    bencher.counter(BytesCount::new(window.len())).bench(|| capout_core::tokens::tail_start(window, 5000));
}

/// A head cap: feeding up to where the estimate passes a budget that the
/// whole input does not reach.
#[divan::bench(args = CORPORA)]
fn head_cut(bencher: Bencher, name: &str) {
    let data = input(name);
    bencher.counter(BytesCount::new(data.len())).bench(|| {
        let mut e = Estimator::default();
        data.chunks(64 * 1024).find_map(|piece| e.cut_after(piece, u64::MAX / 2000))
    });
}

// The floor of a full scan: the cheapest passes that look at every byte,
// beside which any estimator is measured. Through a pipe, a full scan
// fits within 1.5 × `--tail-chars --json` only if it reads about 20 GB/s
// here; only a count of one class of bytes does (README, Counting tokens).

/// Classes of bytes for the passes below: small letter, capital, digit,
/// space, other white space, ASCII punctuation, continuation byte, lead
/// byte of 2, 3 and 4 bytes.
const fn byte_class(b: u8) -> u8 {
    match b {
        b'a'..=b'z' => 0,
        b'A'..=b'Z' => 1,
        b'0'..=b'9' => 2,
        b' ' => 3,
        b'\n' | b'\r' | b'\t' => 4,
        0..=0x7F => 5,
        0x80..=0xBF => 6,
        0xC0..=0xDF => 7,
        0xE0..=0xEF => 8,
        _ => 9,
    }
}

/// A weight for each byte by its class, the cheapest per-byte model.
static BYTE_WEIGHT: [u16; 256] = {
    let mut t = [0; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = 100 + byte_class(b as u8) as u16;
        b += 1;
    }
    t
};

/// A weight for each pair of adjacent bytes by their classes (a token
/// starts where the class changes), one lookup a byte: the speed of any
/// estimator that prices pairs of byte classes, whatever its weights.
static PAIR_WEIGHT: LazyLock<Vec<u16>> = LazyLock::new(|| {
    (0..=0xFFFF_u16)
        .map(|i| {
            let [b, a] = i.to_le_bytes();
            if byte_class(a) == byte_class(b) { 30 } else { 1000 }
        })
        .collect()
});

/// One class of bytes counted (the bytes that start a character), in
/// a loop the compiler vectorises for the baseline CPU: the only shape
/// of pass that fits the budget.
#[divan::bench(args = CORPORA)]
fn floor_count_one_class(bencher: Bencher, name: &str) {
    let data = input(name);
    bencher.counter(BytesCount::new(data.len())).bench(|| {
        data.chunks(255)
            .map(|c| u64::from(c.iter().fold(0u8, |n, &b| n.wrapping_add(u8::from(b.cast_signed() >= -64)))))
            .sum::<u64>()
    });
}

/// A table lookup a byte, summed.
#[divan::bench(args = CORPORA)]
fn floor_byte_table(bencher: Bencher, name: &str) {
    let data = input(name);
    bencher.counter(BytesCount::new(data.len())).bench(|| {
        let mut sum = [0u64; 4];
        let mut fours = data.chunks_exact(4);
        for c in &mut fours {
            for (s, &b) in sum.iter_mut().zip(c) {
                *s += u64::from(BYTE_WEIGHT[usize::from(b)]);
            }
        }
        sum.iter().sum::<u64>()
            + fours.remainder().iter().map(|&b| u64::from(BYTE_WEIGHT[usize::from(b)])).sum::<u64>()
    });
}

/// A table lookup a pair of adjacent bytes, summed: a class-pair
/// estimator at its fastest.
#[divan::bench(args = CORPORA)]
fn floor_pair_table(bencher: Bencher, name: &str) {
    let data = input(name);
    let table: &[u16; 0x10000] = PAIR_WEIGHT.as_slice().try_into().expect("a table of 64 Ki");
    bencher.counter(BytesCount::new(data.len())).bench(|| {
        let mut sum = [0u64; 4];
        let mut prev = b'\n';
        let mut fours = data.chunks_exact(4);
        for c in &mut fours {
            let pairs = [[prev, c[0]], [c[0], c[1]], [c[1], c[2]], [c[2], c[3]]];
            for (s, pair) in sum.iter_mut().zip(pairs) {
                *s += u64::from(table[usize::from(u16::from_le_bytes([pair[1], pair[0]]))]);
            }
            prev = c[3];
        }
        for &b in fours.remainder() {
            sum[0] += u64::from(table[usize::from(u16::from_le_bytes([b, prev]))]);
            prev = b;
        }
        sum.iter().sum::<u64>()
    });
}
