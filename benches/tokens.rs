//! Throughput of the token estimator on the calibration corpora, each
//! repeated to 10 MB and held in memory, beside the vectorised character
//! count that `--tail-chars` pays for its totals.
//!
//! Run with `cargo bench --bench tokens`; divan prints bytes per second.

use std::sync::LazyLock;

use capout::tokens::Estimator;
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
    let ring = (5000 * capout::tokens::MAX_BYTES_PER_TOKEN + 4) as usize;
    let window = &data[data.len() - ring..];
    bencher.counter(BytesCount::new(window.len())).bench(|| capout::tokens::tail_start(window, 5000));
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
