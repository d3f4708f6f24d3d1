//! The Rust side of the module's push benchmark (benches/bench.py): the
//! engine fed 64 MiB in 64 KiB chunks, as `Capper.push` is fed, with the
//! default cap. Prints the best of five runs in MiB/s.

use std::time::Instant;

use capout_core::{Capper, Options};

fn main() -> Result<(), capout_core::Error> {
    let line = b"2024-01-01 12:00:00 INFO a line of ordinary log output, \xe2\x82\xac 42\n";
    let data: Vec<u8> = line.iter().copied().cycle().take(64 << 20).collect();
    let mut best = f64::MAX;
    for _ in 0..5 {
        let started = Instant::now();
        let mut capper = Capper::new_counting_all(Options::default())?;
        let mut out = Vec::new();
        for chunk in data.chunks(64 << 10) {
            out.clear();
            capper.push(chunk, &mut out)?;
        }
        capper.finish(&mut out)?;
        best = best.min(started.elapsed().as_secs_f64());
    }
    println!("rust push: {:.0} MiB/s ({:.1} ms for 64 MiB)", 64.0 / best, best * 1e3);
    Ok(())
}
