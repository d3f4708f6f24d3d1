//! Property: for every cap and option, the output does not depend on how
//! the input was split into reads, and equals the model's.

use capout_core::Options;
use capout_testkit::model::{model, random_config};
use capout_testkit::{Chunked, Rng};
use proptest::prelude::*;

fn run(input: &[u8], config: &Options, sizes: &[usize]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut err = Vec::new();
    let config = {
        let mut options = config.clone();
        options.read_size = sizes.iter().copied().max().unwrap_or(1);
        options
    };
    capout_core::run(&config, Chunked::new(input, sizes), &mut out, &mut err).expect("in-memory run");
    out
}

/// Bytes that stress streaming: multi-byte and broken UTF-8, line endings,
/// escape sequences.
fn input() -> impl Strategy<Value = Vec<u8>> {
    let atom = prop_oneof![
        4 => any::<u8>().prop_map(|b| vec![b]),
        2 => Just(b"\n".to_vec()),
        1 => Just(b"\r\n".to_vec()),
        1 => Just(b"\r".to_vec()),
        1 => Just("\u{e9}".as_bytes().to_vec()),
        1 => Just("\u{1f600}".as_bytes().to_vec()),
        1 => Just(b"\xe2\x82".to_vec()),
        1 => Just(b"\x1b[1;31m".to_vec()),
        1 => Just(b"\x1b]0;t\x07".to_vec()),
        // Pieces of sequences: an ESC, a string left open, its ends.
        1 => Just(b"\x1b".to_vec()),
        1 => Just(b"\x1b]8;;".to_vec()),
        1 => Just(b"\x1b(".to_vec()),
        1 => Just(b"\x1b\\".to_vec()),
        1 => Just(b"\x07".to_vec()),
        2 => Just(b"ab".to_vec()),
        // Patterns match with regard to case.
        1 => Just(b"AB".to_vec()),
    ];
    prop::collection::vec(atom, 0..80).prop_map(|atoms| atoms.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn output_is_independent_of_read_sizes(
        input in input(),
        seed in any::<u64>(),
        sizes in prop::collection::vec(1usize..=7, 1..8),
    ) {
        let config = random_config(&mut Rng::new(seed));
        let whole = run(&input, &config, &[1 << 16]);
        prop_assert_eq!(&run(&input, &config, &sizes), &whole);
        prop_assert_eq!(whole, model(&input, &config));
    }
}
