//! Throughput of the engine per cap, on 10 MB of generated log text held
//! in memory: one input of ASCII lines, one where most lines carry
//! multibyte UTF-8.
//!
//! Run with `cargo bench --bench engine`; divan prints bytes per second for
//! each cap. The inputs are deterministic, so runs compare across commits.

use std::io;
use std::sync::LazyLock;

use capout_core::{CapSpec, Options};
use divan::Bencher;
use divan::counter::BytesCount;

fn main() {
    divan::main();
}

/// Size of each generated input.
const INPUT_BYTES: usize = 10 * 1000 * 1000;

/// A cap as the command line would set it up.
#[derive(Clone, Copy, Debug)]
enum Cap {
    /// `-c 5000`, the default cap.
    TailChars,
    /// `-n 500`.
    HeadLines,
    /// `-m 50`.
    MaxMatches,
    /// `--head-chars 5000`.
    HeadChars,
}

const CAPS: [Cap; 4] = [Cap::TailChars, Cap::HeadLines, Cap::MaxMatches, Cap::HeadChars];

impl Cap {
    fn config(self) -> Options {
        let cap = match self {
            Cap::TailChars => CapSpec::TailChars(5000),
            Cap::HeadLines => CapSpec::HeadLines { limit: 500, offset: 0 },
            Cap::MaxMatches => CapSpec::MaxMatches(50),
            Cap::HeadChars => CapSpec::HeadChars(5000),
        };
        // The line caps cut long lines by default, as the command line does.
        Options::new(cap)
    }
}

/// Log lines of plain ASCII.
static ASCII: LazyLock<Vec<u8>> = LazyLock::new(|| log_text(INPUT_BYTES, false));

/// Log lines where most messages hold two- to four-byte characters.
static MULTIBYTE: LazyLock<Vec<u8>> = LazyLock::new(|| log_text(INPUT_BYTES, true));

/// A small deterministic generator (xorshift64), so that every run and
/// every machine benches the same bytes.
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

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// Exactly `len` bytes of log-like lines of some 50 to 250 bytes, one in
/// 500 long enough for the per-line cap to cut it.
fn log_text(len: usize, multibyte: bool) -> Vec<u8> {
    const LEVELS: &[&str] = &["INFO ", "INFO ", "INFO ", "DEBUG", "WARN ", "ERROR"];
    const ASCII_WORDS: &[&str] = &[
        "request",
        "served",
        "cache",
        "miss",
        "hit",
        "retrying",
        "connection",
        "closed",
        "user",
        "id",
        "timeout",
        "after",
        "bytes",
        "queue",
        "depth",
        "ok",
        "failed",
        "to",
        "open",
        "file",
    ];
    const WIDE_WORDS: &[&str] =
        &["café", "naïve", "größe", "€", "日本語", "テスト", "данные", "ошибка", "😀", "✓", "→", "ünïcödé"];
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut out = Vec::with_capacity(len + 512);
    let mut line = 0u64;
    while out.len() < len {
        line += 1;
        let level = rng.pick(LEVELS);
        let worker = rng.below(16);
        let ms = line % 1000;
        let secs = line / 1000 % 60;
        out.extend_from_slice(
            format!("2024-05-01T12:00:{secs:02}.{ms:03}Z {level} [worker-{worker}] ").as_bytes(),
        );
        // One line in 500 is long enough for the per-line cap to cut it.
        let words = if line.is_multiple_of(500) { 600 } else { 2 + rng.below(20) };
        for i in 0..words {
            if i > 0 {
                out.push(b' ');
            }
            let wide = multibyte && rng.below(3) == 0;
            out.extend_from_slice(rng.pick(if wide { WIDE_WORDS } else { ASCII_WORDS }).as_bytes());
        }
        out.push(b'\n');
    }
    out.truncate(len);
    out
}

fn bench_run(bencher: Bencher, cap: Cap, input: &[u8]) {
    let config = cap.config();
    bencher.counter(BytesCount::of_slice(input)).bench(|| {
        capout_core::run(&config, divan::black_box(input), &mut io::sink(), &mut io::sink())
            .expect("writing to a sink cannot fail")
    });
}

/// The whole pass on ASCII log lines.
#[divan::bench(args = CAPS)]
fn ascii(bencher: Bencher, cap: Cap) {
    bench_run(bencher, cap, &ASCII);
}

/// The whole pass on log lines with multibyte characters.
#[divan::bench(args = CAPS)]
fn multibyte(bencher: Bencher, cap: Cap) {
    bench_run(bencher, cap, &MULTIBYTE);
}

/// Counting alone (bytes, lines, characters), which every cap pays on
/// every byte: the floor under the whole pass.
#[divan::bench(args = ["ascii", "multibyte"])]
fn totals(bencher: Bencher, input: &str) {
    let input: &[u8] = if input == "ascii" { &ASCII } else { &MULTIBYTE };
    bencher
        .counter(BytesCount::of_slice(input))
        .bench(|| capout_core::internals::count_totals(divan::black_box(input)));
}

/// The default cap with other read sizes, since each read costs a call
/// and a copy, and larger reads leave the cache.
#[divan::bench(args = [16 * 1024, 64 * 1024, 256 * 1024, 1024 * 1024])]
fn read_size(bencher: Bencher, read_size: usize) {
    let config = {
        let mut options = Cap::TailChars.config();
        options.read_size = read_size;
        options
    };
    let input: &[u8] = &ASCII;
    bencher.counter(BytesCount::of_slice(input)).bench(|| {
        capout_core::run(&config, divan::black_box(input), &mut io::sink(), &mut io::sink())
            .expect("writing to a sink cannot fail")
    });
}
