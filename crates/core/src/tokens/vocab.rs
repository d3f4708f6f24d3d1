//! The vocabularies of the exact tokenizers, each on 64 KiB pages of its
//! own.
//!
//! The kernel maps a program's file-backed pages 64 KiB around each page
//! a run touches. Embedded as `tiktoken-rs` embeds them, the 5 MB of
//! vocabularies lay in read-only data between the constants every run
//! reads (number formatting tables, the option names), so that a run of
//! `-c 5000` mapped their first and last pages and one more 64 KiB of
//! data than without them. Here each is aligned to 64 KiB and padded to a
//! multiple of it: nothing a run reads shares a window with them, and a
//! run that does not ask for exact tokens maps none of their pages. The
//! files are `tiktoken-rs`'s own (its `assets/`), byte for byte; the tests
//! check that the counts are its counts.

use std::sync::LazyLock;

use base64::Engine as _;
use rustc_hash::FxHashMap;
use tiktoken_rs::{CoreBPE, Rank};

/// 64 KiB alignment, and so a size that is a multiple of 64 KiB.
#[repr(C, align(65536))]
struct Pages<T: ?Sized>(T);

// Statics on 64 KiB pages of their own: the kernel maps a program's file
// pages in 64 KiB windows around each page a run reads, and no window
// holds a vocabulary and anything else, so a run that does not ask for
// one maps none of its pages (tests/cli/vocab_pages.rs of capout).
static O200K: Pages<[u8; include_bytes!("../../assets/o200k_base.tiktoken").len()]> =
    Pages(*include_bytes!("../../assets/o200k_base.tiktoken"));
static CL100K: Pages<[u8; include_bytes!("../../assets/cl100k_base.tiktoken").len()]> =
    Pages(*include_bytes!("../../assets/cl100k_base.tiktoken"));

/// `cl100k_base`'s split pattern, as `tiktoken-rs` gives it (it names
/// only `o200k_base`'s).
const CL100K_PATTERN: &str = "'(?i:[sdmt]|ll|ve|re)|[^\\r\\n\\p{L}\\p{N}]?+\\p{L}++|\\p{N}{1,3}+| ?[^\\s\\p{L}\\p{N}]++[\\r\\n]*+|\\s++$|\\s*[\\r\\n]|\\s+(?!\\S)|\\s";

/// `o200k_base`, loaded on the first call.
pub(super) fn o200k() -> &'static CoreBPE {
    static BPE: LazyLock<CoreBPE> = LazyLock::new(|| {
        load(
            &O200K.0,
            &[("<|endoftext|>", 199_999), ("<|endofprompt|>", 200_018)],
            tiktoken_rs::O200K_BASE_PAT_STR,
        )
    });
    &BPE
}

/// `cl100k_base`, loaded on the first call.
pub(super) fn cl100k() -> &'static CoreBPE {
    static BPE: LazyLock<CoreBPE> = LazyLock::new(|| {
        load(
            &CL100K.0,
            &[
                ("<|endoftext|>", 100_257),
                ("<|fim_prefix|>", 100_258),
                ("<|fim_middle|>", 100_259),
                ("<|fim_suffix|>", 100_260),
                ("<|endofprompt|>", 100_276),
            ],
            CL100K_PATTERN,
        )
    });
    &BPE
}

/// A vocabulary in tiktoken's format: a line per token, its bytes in
/// base64 and its rank. The data is embedded and checked by the tests, so
/// a malformed line is a build defect, never input.
fn load(data: &[u8], special: &[(&str, Rank)], pattern: &str) -> CoreBPE {
    let mut encoder = FxHashMap::default();
    for line in data.split(|&b| b == b'\n').filter(|line| !line.is_empty()) {
        let space = line.iter().position(|&b| b == b' ').expect("a vocabulary line has a rank");
        let token = base64::engine::general_purpose::STANDARD
            .decode(&line[..space])
            .expect("a vocabulary token is base64");
        let rank = std::str::from_utf8(&line[space + 1..])
            .ok()
            .and_then(|rank| rank.parse::<Rank>().ok())
            .expect("a vocabulary rank is a number");
        encoder.insert(token, rank);
    }
    let special = special.iter().map(|&(text, rank)| (text.to_owned(), rank)).collect();
    CoreBPE::new(encoder, special, pattern).expect("the vocabulary's pattern compiles")
}

#[cfg(test)]
mod tests {
    use super::{CL100K, O200K, Pages, cl100k, o200k};

    #[test]
    fn vocabularies_lie_on_64_kib_pages_of_their_own() {
        let all: [&Pages<[u8]>; 2] = [&O200K, &CL100K];
        for data in all {
            let start = std::ptr::from_ref::<Pages<[u8]>>(data).cast::<u8>() as usize;
            assert_eq!(start % 65536, 0);
            assert_eq!(size_of_val(data) % 65536, 0);
        }
    }

    #[test]
    fn counts_are_tiktoken_rs_counts() {
        let text = "fn main() {\n    println!(\"héllo, wörld\"); // 東京 ✓\n}\n\n\n   \t x = 10_000;\n";
        assert_eq!(
            o200k().encode_with_special_tokens(text),
            tiktoken_rs::o200k_base_singleton().encode_with_special_tokens(text)
        );
        assert_eq!(
            cl100k().encode_with_special_tokens(text),
            tiktoken_rs::cl100k_base_singleton().encode_with_special_tokens(text)
        );
        assert_eq!(o200k().encode_ordinary(text).len(), 27);
    }
}
