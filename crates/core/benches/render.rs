//! Throughput of `--render`'s screen model on 10 MB of
//! generated build output with spinners: compiler lines, `\r` progress
//! bars, npm-style `ESC[1G ESC[0K` spinner frames, a status line redrawn
//! with `ESC[1A`, colours, and some wide characters.
//!
//! Run with `cargo bench --bench render`; divan prints bytes per second.

use std::sync::LazyLock;

use capout_core::internals::Screen;
use divan::Bencher;
use divan::counter::BytesCount;

fn main() {
    divan::main();
}

const INPUT_BYTES: usize = 10 * 1000 * 1000;

static BUILD_OUTPUT: LazyLock<Vec<u8>> = LazyLock::new(|| {
    let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
    let mut out = Vec::with_capacity(INPUT_BYTES + 4096);
    let mut i = 0usize;
    while out.len() < INPUT_BYTES {
        out.extend_from_slice(
            format!(
                "\x1b[1m\x1b[92m   Compiling\x1b[0m crate-{i} v0.{}.{} (/src/crate-{i})\r\n",
                i % 7,
                i % 13
            )
            .as_bytes(),
        );
        for pct in (0..=100).step_by(20) {
            let bar = "#".repeat(pct / 4);
            out.extend_from_slice(format!("\rdownloading {pct:3}% [{bar:<25}] 日本語").as_bytes());
        }
        out.extend_from_slice(b"\r\n");
        for f in 0..10 {
            out.extend_from_slice(
                format!("{} reify:pkg-{i}: timing\x1b[1G\x1b[0K", frames[(i + f) % 10]).as_bytes(),
            );
        }
        out.extend_from_slice(format!("  jobs: {}/{}\x1b[K\r\n\x1b[1A", i % 64, 64).as_bytes());
        if i.is_multiple_of(50) {
            out.extend_from_slice(b"warning: unused variable `x`\r\n  --> src/lib.rs:1:5\r\n");
        }
        i += 1;
    }
    out
});

/// The screen model alone, fed in 64 KiB reads as the engine reads, at
/// the default size and at 80x24.
#[divan::bench(args = [(200, 50), (80, 24)])]
fn build_output(bencher: Bencher, (width, height): (usize, usize)) {
    let input = &*BUILD_OUTPUT;
    bencher.counter(BytesCount::new(input.len())).bench(|| {
        let mut rows = 0usize;
        let mut screen = Screen::new(width, height);
        let mut emit = |row: &[u8]| rows += row.len();
        for chunk in input.chunks(64 * 1024) {
            screen.feed(chunk, &mut emit);
        }
        screen.finish(&mut emit);
        rows
    });
}
