//! The Rust side of crates/node/bench/bench.sh: the engine's `push`
//! throughput on the input the JavaScript side pushes (64 MiB of numbered
//! lines in 64 KiB chunks), for each cap it measures, counting as the
//! module's `Capper` counts: every total, for its summary.
//!
//! `cargo run --release -p capout-node --example node_push_bench`

use std::time::Instant;

use capout_core::{CapSpec, Capper, Options};

const TOTAL: usize = 64 << 20;
const CHUNK: usize = 64 << 10;
/// Runs of each, the best taken: the machine may be busy with others.
const ROUNDS: usize = 30;

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
    // The rounds of the caps interleaved, the best of each kept, as the
    // JavaScript side runs them: a burst of load spoils a round of each.
    let mut best = [f64::MAX; 3];
    for _ in 0..ROUNDS {
        for ((_, cap), best) in caps.iter().zip(&mut best) {
            *best = best.min(once(&data, &Options::new(*cap))?);
        }
    }
    for ((name, _), best) in caps.iter().zip(best) {
        println!("rust push {name}: {:.2} ms ({:.0} MiB/s)", best * 1e3, 64.0 / best);
    }
    Ok(())
}

/// One run of an engine as `options` say, as the module makes it, pushed
/// every chunk in turn: seconds.
fn once(data: &[u8], options: &Options) -> Result<f64, capout_core::Error> {
    let start = Instant::now();
    let mut capper = Capper::new_counting_all(options.clone())?;
    let mut out = Vec::new();
    for chunk in data.chunks(CHUNK) {
        out.clear();
        capper.push(chunk, &mut out)?;
    }
    capper.finish(&mut out)?;
    Ok(start.elapsed().as_secs_f64())
}
