//! The exact tokenizers' cuts: the kept text, tokenized on its own, has at
//! most N tokens, and at least N − 8 unless it is the whole input, however
//! reads of 1 to 7 bytes split the input.

use std::io::Read;

use capout_core::tokens::{self, Exact};
use capout_core::{CapSpec, NoticeTarget, Options, Tokenizer};
use proptest::prelude::*;

use super::laws::text;

/// Hands out its bytes in reads of the sizes given, in turn.
struct Reads<'a> {
    data: &'a [u8],
    sizes: Vec<usize>,
    turn: usize,
}

impl Read for Reads<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let size = self.sizes[self.turn % self.sizes.len()].min(buf.len()).min(self.data.len());
        self.turn += 1;
        buf[..size].copy_from_slice(&self.data[..size]);
        self.data = &self.data[size..];
        Ok(size)
    }
}

/// What the cap keeps of `input`, without notices.
fn kept(cap: CapSpec, tokenizer: Tokenizer, input: &[u8], sizes: Vec<usize>) -> Vec<u8> {
    let config = {
        let mut options = Options::new(cap);
        options.tokenizer = tokenizer;
        options.notice = NoticeTarget::None;
        options.read_size = 7;
        options
    };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    capout_core::run(&config, Reads { data: input, sizes, turn: 0 }, &mut out, &mut err)
        .expect("in-memory run");
    out
}

fn check(cap: CapSpec, n: u64, input: &[u8], sizes: &[usize]) -> Result<(), TestCaseError> {
    for (tokenizer, exact) in [(Tokenizer::O200k, Exact::O200k), (Tokenizer::Cl100k, Exact::Cl100k)] {
        let kept = kept(cap, tokenizer, input, sizes.to_vec());
        let count = tokens::count_exact(exact, &kept) as u64;
        prop_assert!(
            count <= n,
            "{tokenizer:?} {cap:?}: {count} tokens kept: {:?}",
            String::from_utf8_lossy(&kept)
        );
        prop_assert!(
            kept == input || count + 8 >= n,
            "{tokenizer:?} {cap:?}: only {count} tokens kept: {:?}",
            String::from_utf8_lossy(&kept)
        );
        match cap {
            CapSpec::HeadTokens(_) => prop_assert!(input.starts_with(&kept)),
            _ => prop_assert!(input.ends_with(&kept)),
        }
        // A cut never splits a character.
        if std::str::from_utf8(input).is_ok() {
            prop_assert!(std::str::from_utf8(&kept).is_ok());
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn an_exact_cut_keeps_n_minus_8_to_n_tokens(
        parts in prop::collection::vec(text(), 1..6),
        n in 1u64..60,
        sizes in prop::collection::vec(1usize..=7, 1..6),
    ) {
        let input = parts.concat();
        check(CapSpec::TailTokens(n), n, &input, &sizes)?;
        check(CapSpec::HeadTokens(n), n, &input, &sizes)?;
    }
}
