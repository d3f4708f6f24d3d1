//! Counting tokens: an estimator without a vocabulary, and exact counts.
//!
//! # The estimator
//!
//! [`Estimator`] follows the pre-tokenizer of `o200k_base` (GPT-4o's), the
//! regular expression that splits text into pieces before byte-pair
//! encoding merges each piece into tokens:
//!
//! - a *word*: a run of letters that splits where a capital follows a small
//!   letter (`HashMap` is `Hash` + `Map`), led by at most one space or
//!   punctuation character (` the`, `.len`, `_id`);
//! - a *number*: up to three digits (`12345` is `123` + `45`);
//! - *punctuation*: a run of other characters, led by at most one space,
//!   with the newlines right after it (` {`, `);`, `;\n`);
//! - *white space*: spaces and newlines up to the last newline of a run,
//!   then the spaces before the next piece less the one that leads it.
//!
//! Four things the vocabularies do inside pieces are priced too: ESC is a
//! token that merges with nothing (`\x1b[1;32m` is six), a run of
//! newlines is one token only up to 10 (`\r\n` up to 5), after
//! punctuation up to 3 more than it, a blank line of 2, 4 or 8 spaces
//! merges with the newlines around it (`\n    \n` is one token), and a
//! run of one punctuation character up to 2, 3 or 4 long is one token
//! (`::`, ` '''`, ` ///`). All are handled where those bytes are already
//! told apart, so text without them pays nothing for it.
//!
//! It keeps only the piece being read (a few counters), and prices each
//! piece by its kind and length, the way byte-pair encoding prices it on
//! average: short words are one token and long ones more, each run of three
//! digits is one, a CJK character about one, other non-ASCII characters
//! more than ASCII ones. The prices were fitted against the exact
//! `o200k_base` on the corpora under `tests/fixtures/tokens`, and the
//! prices of words on Python, Rust, JavaScript and JSON from outside them
//! (words without a space before them, the keys of JSON, were 1.5 to 2
//! tokens where `o200k_base` has one; names in code are whole tokens more
//! often than their letters say), leaning towards more tokens than the
//! exact count, so that a cap that trusts the estimate keeps fewer tokens
//! than asked rather than more on the whole.
//!
//! Costs are kept in thousandths of a token ([`SCALE`]); [`Estimator::total`]
//! rounds up. Characters that are not valid UTF-8 cost a token a byte.
//!
//! # What a cap needs
//!
//! - **The estimate of any text is the estimate of that text on its own.**
//!   [`Estimator::feed`] takes the stream in pieces split anywhere, even
//!   inside a character: the totals are the same as for one piece, and
//!   [`Estimator::total`] after a prefix is [`estimate`] of that prefix.
//! - **Monotone:** a text that grows at its end never has a smaller
//!   estimate, so a head cap cuts where the estimate first passes its
//!   budget ([`Estimator::cut_after`]). Growing at its start, it never has
//!   a smaller one from piece boundary to piece boundary (inside a piece it
//!   may: ` aa` is priced below `aa`, as `o200k_base` counts them), so a
//!   tail cap finds the piece its cut falls in by the boundaries, then the
//!   cut inside it by halving ([`tail_start`]); the rest fits either way.
//! - **Additive at piece boundaries:** the pieces of a text from one of its
//!   piece boundaries on are the pieces of the whole from there on (the
//!   pre-tokenizer never looks back), so the estimate of a suffix that
//!   starts at a boundary is the total less the pieces before it.
//!   [`tail_start`] uses this to find the cut in two passes over the kept
//!   window, without a second estimator per candidate.
//! - **Bounded bytes per token:** no piece costs less than one token per
//!   [`MAX_BYTES_PER_TOKEN`] bytes, so the last N estimated tokens lie in the
//!   last `N × MAX_BYTES_PER_TOKEN + 4` bytes: a tail cap keeps a ring of
//!   that size and calls [`tail_cut`] on it at the end. Text nearly always
//!   takes far fewer bytes a token, so [`tail_cut`] looks in the last
//!   `N × NEAR_BYTES_PER_TOKEN` bytes first, and a file's tail cap reads
//!   no more than those when they hold more than N tokens.
//!
//! # Speed
//!
//! From a piece boundary, the common pieces of ASCII text (a word with
//! the space or punctuation that leads it, punctuation with the newlines
//! after it, white space, digits) are known whole by their bytes alone,
//! and a fast lane (`fast.rs`) reads them one after another with nothing
//! but the cost of the pieces done kept between them. It classifies 64
//! bytes at a time into bit masks (SSE2, through the `wide` crate) and
//! looks up the rare pairs of letters of the whole block at once, so that
//! a run ends at the first zero of its mask and a word's rare pairs are
//! the bits of a mask in its span. ESC and `\r`, which coloured output
//! and progress frames are full of, are read there too: ESC as
//! punctuation that merges with nothing and leads no word, `\r` as a
//! newline whose long runs cost more. Anything else (a character that
//! is not ASCII, a piece cut by the end of a read) goes to the general
//! loop at the start of its piece, which reads a run of one kind of
//! character at once: the small letters of a word eight at a time, words
//! led by a space one after another, digits, punctuation, white space,
//! and kana, CJK ideographs and Hangul, decoded without the standard
//! library's tables. The plain count (a total, without boundaries) goes
//! further: from a boundary, a block of plain ASCII is priced whole from
//! its bit masks (`bulk.rs`), each kind of piece by the marks it leaves
//! (where words, digit groups and runs of punctuation start), most of
//! them priced by counts of bits and each word by its length; and from
//! a boundary at a character that is not ASCII, the common pieces of CJK
//! text (a word of kana, ideographs or Hangul led
//! by nothing, a space or one punctuation character, CJK punctuation with
//! the newlines after it) are read one after another in a lane of their
//! own (`cjk.rs`), the letters of a word told by a table of bits. On
//! CPUs with AVX-512 or AVX2 the lanes run compiled for it (`simd.rs`,
//! through `pulp`): the classes of a block in a few compares, its rare
//! pairs by byte shuffles, and counts of bits with `popcnt`. A copy of
//! the estimator before these paths, with the same tables and prices, is
//! kept in the engine's tests (`tests/engine/tokens/`) as the model they
//! must agree with on any input split anywhere.
//!
//! # Exact counts
//!
//! With the cargo feature `exact-tokens`, `count_exact` counts with the
//! vocabularies of `o200k_base` and `cl100k_base` (the `tiktoken-rs` crate),
//! loaded on first use.
//!
//! # Files
//!
//! `tables.rs` holds the classes of bytes and characters and the tables of
//! letters and punctuation, `price.rs` every fitted price: data alone,
//! which the model in the engine's tests reads too, so that a refit is a
//! change of `price.rs` and nothing else. `cost.rs` prices a piece from
//! its counts; `estimator.rs` is the state machine (the piece being read,
//! a character at a time), `general.rs` the general loop that feeds it,
//! `fast.rs`, `bulk.rs`, `cjk.rs` and `simd.rs` the lanes; `cut.rs` finds
//! the cuts of head and tail caps; `exact.rs` and `vocab.rs` count
//! exactly.

mod bulk;
mod cjk;
mod cost;
mod cut;
mod estimator;
mod exact;
mod fast;
mod general;
mod price;
#[cfg(target_arch = "x86_64")]
mod simd;
mod tables;
#[cfg(feature = "exact-tokens")]
mod vocab;

pub use cut::{boundaries, estimate, estimate_scaled, tail_cut, tail_start};
pub use estimator::Estimator;
pub use exact::Exact;
#[cfg(feature = "exact-tokens")]
pub use exact::count_exact;

/// Thousandths of a token: the unit costs are kept in.
pub const SCALE: u64 = 1000;

/// No piece costs less than one token per this many bytes.
pub const MAX_BYTES_PER_TOKEN: u64 = 32;

/// The bytes a token that [`tail_cut`] looks in first: more than text of
/// any common kind takes (logs about 3, prose and source 4 to 5, CJK
/// fewer), so the last N tokens are nearly always found there.
pub const NEAR_BYTES_PER_TOKEN: u64 = 6;

#[cfg(test)]
mod tests {
    use super::tables::{Kind, kind};

    /// The kinds kept in a table are the standard library's, the first
    /// time and after.
    #[test]
    fn kinds_are_the_standard_librarys() {
        for cp in (0x80..0xD800).chain(0xE000..0x11_0000) {
            let c = char::from_u32(cp).expect("not a surrogate");
            assert_eq!(kind(c), Kind::of(c), "U+{cp:04X}");
            assert_eq!(kind(c), Kind::of(c), "U+{cp:04X} again");
        }
    }
}
