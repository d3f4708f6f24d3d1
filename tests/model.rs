//! The engine against a naive model of the spec.
//!
//! Random inputs, heavy in the cases that break streaming code (multi-byte
//! and invalid UTF-8, `\r\n`, long lines), run through the real engine
//! with reads of 1 to 7 bytes and of 64 KiB. The output must equal what a
//! model that holds the whole input in memory computes, whatever the read
//! sizes, so every chunk boundary is exercised.

mod common;

use capout::Config;
use common::model::{model, random_config};
use common::{Chunked, Rng};

fn run(input: &[u8], config: &Config, sizes: &[usize]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut err = Vec::new();
    capout::run(config, Chunked::new(input, sizes), &mut out, &mut err).expect("in-memory run");
    assert!(err.is_empty());
    out
}

#[test]
fn engine_matches_the_model_at_every_read_size() {
    let mut rng = Rng::new(0x5eed);
    for case in 0..3000 {
        let atoms = rng.below(60) as usize;
        let input = rng.text(atoms);
        let config = random_config(&mut rng);
        let want = model(&input, &config);
        for sizes in [&[1][..], &[2], &[3], &[4], &[5], &[6], &[7], &[1, 7, 2, 5, 3], &[65536]] {
            let config = Config { read_size: *sizes.iter().max().unwrap_or(&1), ..config.clone() };
            let got = run(&input, &config, sizes);
            assert!(
                got == want,
                "case {case}, reads {sizes:?}, {config:?}\ninput: {input:?}\nwant:  {:?}\ngot:   {:?}",
                String::from_utf8_lossy(&want),
                String::from_utf8_lossy(&got),
            );
        }
    }
}
