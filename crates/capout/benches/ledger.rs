//! What the ledger costs a call: appending one line (a hooked call's
//! entry, a command of 200 characters and a saved path) to a ledger in a
//! temporary folder, and counting what a call showed and what it read.
//!
//! Run with `cargo bench -p capout --bench ledger`; divan prints the time
//! of one append, of counting 5000 characters shown, and of counting the
//! whole of what a call read (its first MiB: past it tokens are
//! extrapolated).

use capout::ledger::{self, Count, Entry};
use divan::Bencher;

fn main() {
    divan::main();
}

fn entry() -> Entry {
    Entry {
        harness: Some("claude-code".into()),
        chars_in: 588_895,
        tokens_in: 299_001,
        chars_shown: 5094,
        tokens_shown: 2527,
        cut: true,
        saved: Some("/tmp/capout-1000/capout-lqtcfi.log".into()),
        exit: Some(0),
        ms: 68,
        ..Entry::new("prefix", "bash").command(&"cargo test --workspace -- --nocapture ".repeat(6))
    }
}

#[divan::bench]
fn append_one_line(bencher: Bencher) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let entry = entry();
    bencher.bench_local(|| ledger::append_in(dir.path(), &entry).expect("the line is appended"));
}

#[divan::bench]
fn count_what_a_call_shows(bencher: Bencher) {
    let shown = "   Compiling crate-299 v0.1.0\n".repeat(170);
    bencher.bench_local(|| {
        let mut count = Count::default();
        count.add(shown.as_bytes());
        count.totals()
    });
}

/// What counting costs on the whole output of `seq 100000` (588,895
/// characters), which a hooked call counts for its line as it reads it.
#[divan::bench]
fn count_what_a_call_read(bencher: Bencher) {
    let read = (1..=100_000).fold(String::new(), |mut read, n| {
        use std::fmt::Write as _;
        let _ = writeln!(read, "{n}");
        read
    });
    bencher.bench_local(|| {
        let mut count = Count::default();
        for piece in read.as_bytes().chunks(capout_core::READ_SIZE) {
            count.add(piece);
        }
        count.totals()
    });
}
