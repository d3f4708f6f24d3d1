//! The Rust side of crates/node/bench/bench.sh: the engine's `push` on the
//! input the JavaScript side pushes (64 MiB of numbered lines in 64 KiB
//! chunks), for each cap it measures, counting as the module's `Capper`
//! counts: every total, for its summary. Each run is timed in CPU time
//! (user and system, of the process), which other work on a busy machine
//! does not add to.
//!
//! `cargo run --release -p capout-node --example node_push_bench` prints
//! the best of its own runs. With `--serve`, it runs once for each cap
//! named on a line of stdin and answers its CPU time in milliseconds on a
//! line of stdout: bench.mjs alternates these runs with its own, so that
//! a burst of load on the machine falls on both sides alike.

use std::io::{BufRead, Write};

use capout_core::{CapSpec, Capper, Options};
use rustix::time::{ClockId, clock_gettime};

const TOTAL: usize = 64 << 20;
const CHUNK: usize = 64 << 10;
/// Runs of each, the best taken: the machine may be busy with others.
const ROUNDS: usize = 30;

const CAPS: [(&str, CapSpec); 3] = [
    ("tailChars 5000", CapSpec::TailChars(5000)),
    ("headLines 100", CapSpec::HeadLines { limit: 100, offset: 0 }),
    ("tailLines 100", CapSpec::TailLines(100)),
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut data = Vec::with_capacity(TOTAL + 64);
    let mut n = 0u64;
    while data.len() < TOTAL {
        n += 1;
        data.extend_from_slice(format!("line {n} of the benchmark, with some text after it\n").as_bytes());
    }
    data.truncate(TOTAL);
    if std::env::args().any(|arg| arg == "--serve") {
        let mut stdout = std::io::stdout().lock();
        for line in std::io::stdin().lock().lines() {
            let line = line?;
            let (_, cap) = CAPS.iter().find(|(name, _)| *name == line).ok_or(format!("no cap {line:?}"))?;
            writeln!(stdout, "{}", once(&data, &Options::new(*cap))? * 1e3)?;
            stdout.flush()?;
        }
        return Ok(());
    }
    // The rounds of the caps interleaved, the best of each kept: a burst
    // of load spoils a round of each.
    let mut best = [f64::MAX; 3];
    for _ in 0..ROUNDS {
        for ((_, cap), best) in CAPS.iter().zip(&mut best) {
            *best = best.min(once(&data, &Options::new(*cap))?);
        }
    }
    for ((name, _), best) in CAPS.iter().zip(best) {
        println!("rust push {name}: {:.2} ms of CPU ({:.0} MiB/s)", best * 1e3, 64.0 / best);
    }
    Ok(())
}

/// One run of an engine as `options` say, as the module makes it, pushed
/// every chunk in turn: seconds of CPU.
fn once(data: &[u8], options: &Options) -> Result<f64, capout_core::Error> {
    let start = cpu();
    let mut capper = Capper::new_counting_all(options.clone())?;
    let mut out = Vec::new();
    for chunk in data.chunks(CHUNK) {
        out.clear();
        capper.push(chunk, &mut out)?;
    }
    capper.finish(&mut out)?;
    Ok(cpu() - start)
}

/// The CPU time of the process so far (all its threads, user and system),
/// in seconds: what Node's `process.cpuUsage()` gives of its own.
fn cpu() -> f64 {
    let t = clock_gettime(ClockId::ProcessCPUTime);
    #[allow(clippy::cast_precision_loss)]
    let seconds = t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9;
    seconds
}
