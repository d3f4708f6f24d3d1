//! Exact counts with the vocabularies of `o200k_base` and `cl100k_base`.

#[cfg(feature = "exact-tokens")]
use super::vocab;

/// An exact tokenizer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exact {
    /// `o200k_base` (GPT-4o, GPT-4.1, o-series, GPT-5).
    O200k,
    /// `cl100k_base` (GPT-4, GPT-3.5).
    Cl100k,
}

/// The exact number of tokens of `bytes` (bytes that are not UTF-8 are
/// read as U+FFFD). The vocabulary loads on the first call for it.
#[cfg(feature = "exact-tokens")]
pub fn count_exact(kind: Exact, bytes: &[u8]) -> usize {
    let text = String::from_utf8_lossy(bytes);
    let bpe = match kind {
        Exact::O200k => vocab::o200k(),
        Exact::Cl100k => vocab::cl100k(),
    };
    bpe.encode_ordinary(&text).len()
}
