//! The Rust side of crates/node/bench/bench.sh: the engine's `push`
//! throughput on the input the JavaScript side pushes (64 MiB of numbered
//! lines in 64 KiB chunks), for each cap it measures.
//!
//! `cargo run --release -p capout-node --example node_push_bench`

use std::time::Instant;

use capout_core::{CapSpec, Capper, NoticeTarget, Options, Template};

const TOTAL: usize = 64 << 20;
const CHUNK: usize = 64 << 10;

fn main() -> Result<(), capout_core::Error> {
    let mut data = Vec::with_capacity(TOTAL + 64);
    let mut n = 0u64;
    while data.len() < TOTAL {
        n += 1;
        data.extend_from_slice(format!("line {n} of the benchmark, with some text after it\n").as_bytes());
    }
    data.truncate(TOTAL);
    let caps = [
        ("tailChars 5000", CapSpec::TailChars(5000)),
        ("headLines 100", CapSpec::HeadLines { limit: 100, offset: 0 }),
        ("tailLines 100", CapSpec::TailLines(100)),
    ];
    // What the module does for its summary: a second engine that counts
    // every total, as `--json` does (a template that needs them).
    let counting = |cap| {
        let mut options = Options::new(cap);
        options.template = Template::parse("{total}").ok();
        options.notice = NoticeTarget::None;
        options
    };
    for (name, cap) in caps {
        let bare = best_of(&data, &[Options::new(cap)])?;
        let both = best_of(&data, &[Options::new(cap), counting(cap)])?;
        println!(
            "rust push {name}: {:.1} ms ({:.0} MiB/s); with the counting engine, as the module: {:.1} ms ({:.0} MiB/s)",
            bare * 1e3,
            64.0 / bare,
            both * 1e3,
            64.0 / both
        );
    }
    Ok(())
}

/// The best of five runs of engines as `options` say, each pushed every
/// chunk in turn: seconds.
fn best_of(data: &[u8], options: &[Options]) -> Result<f64, capout_core::Error> {
    let mut best = f64::MAX;
    for _ in 0..5 {
        let start = Instant::now();
        let mut cappers = options.iter().map(|o| Capper::new(o.clone())).collect::<Result<Vec<_>, _>>()?;
        let mut out = Vec::new();
        for chunk in data.chunks(CHUNK) {
            out.clear();
            for capper in &mut cappers {
                capper.push(chunk, &mut out)?;
            }
        }
        for capper in cappers {
            capper.finish(&mut out)?;
        }
        best = best.min(start.elapsed().as_secs_f64());
    }
    Ok(best)
}
