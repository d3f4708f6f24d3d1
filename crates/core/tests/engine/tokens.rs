//! The token estimator against its reference model, through the engine's
//! public API: random text, fed in reads of 1–7 bytes, gives the same
//! totals, piece boundaries and cuts; mostly ASCII text, fed in long
//! reads, the same totals and boundaries. Its laws, its pinned figures
//! and, with the feature `exact-tokens`, its accuracy against
//! `o200k_base` on the corpora under `tests/fixtures/tokens` (`gen.py`
//! there builds them) and the exact tokenizers' cuts are in the modules
//! below.

#[cfg(feature = "exact-tokens")]
mod accuracy;
#[cfg(feature = "exact-tokens")]
mod exact_cuts;
mod laws;
mod pinned;
mod reference;

use capout_core::tokens::Estimator;
use proptest::prelude::*;
use reference::Model;

use capout_testkit::token_text as text;

fn reads(bytes: &[u8], sizes: &[usize]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut at = 0;
    for &n in sizes.iter().cycle() {
        if at >= bytes.len() {
            break;
        }
        let n = n.min(bytes.len() - at);
        out.push((at, at + n));
        at += n;
    }
    out
}

/// Keeps the last cost told for each offset, as `boundaries` does.
fn push(out: &mut Vec<(u64, u64)>, at: u64, cost: u64) {
    match out.last_mut() {
        Some(last) if last.0 == at => last.1 = cost,
        _ => out.push((at, cost)),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// The totals after each read, and the piece boundaries.
    #[test]
    fn same_totals_and_boundaries(bytes in text(), sizes in prop::collection::vec(1usize..=7, 1..10)) {
        let (mut new, mut model) = (Estimator::default(), Model::default());
        let (mut new_at, mut model_at) = (Vec::new(), Vec::new());
        for (from, to) in reads(&bytes, &sizes) {
            new.feed_with_boundaries(&bytes[from..to], |at, cost| push(&mut new_at, at, cost));
            model.run(&bytes[from..to], &mut |at, cost| push(&mut model_at, at, cost));
            prop_assert_eq!(new.total_scaled(), model.total_scaled(), "after {} bytes", to);
            prop_assert_eq!(new.position(), model.position());
        }
        prop_assert_eq!(new_at, model_at);
        let (mut new, mut model) = (Estimator::default(), Model::default());
        new.feed(&bytes);
        model.feed(&bytes);
        prop_assert_eq!(new.total_scaled(), model.total_scaled());
    }

    /// A head cap's cut, read by read.
    #[test]
    fn same_head_cuts(
        bytes in text(),
        sizes in prop::collection::vec(1usize..=7, 1..10),
        budget in 0u64..60,
    ) {
        let (mut new, mut model) = (Estimator::default(), Model::default());
        let mut new_cut = None;
        for (from, to) in reads(&bytes, &sizes) {
            new_cut = new.cut_after(&bytes[from..to], budget);
            let model_cut = model.cut_after(&bytes[from..to], budget);
            prop_assert_eq!(new_cut, model_cut);
            prop_assert_eq!(new.total_scaled(), model.total_scaled());
            if new_cut.is_some() {
                break;
            }
        }
        if new_cut.is_none() {
            prop_assert_eq!(new.cut_at_end(budget), model.cut_at_end(budget));
        }
    }
}

/// Text that is mostly ASCII, as source, logs and prose are: long
/// stretches of it, with a character that is not ASCII now and then, so
/// that reads of many bytes go the fast way, in blocks of 64 bytes, with
/// pieces that cross from one block into the next.
fn ascii_text() -> impl Strategy<Value = Vec<u8>> {
    let atom = prop_oneof![
        6 => "[a-z]{1,12}".prop_map(String::into_bytes),
        3 => " [a-z]{1,10}".prop_map(String::into_bytes),
        2 => " ?[A-Z]{1,4}[a-z]{0,8}".prop_map(String::into_bytes),
        2 => "[0-9]{1,8}".prop_map(String::into_bytes),
        1 => "[0-9]{1,4}[\u{663}\u{966}\u{ff11}]".prop_map(String::into_bytes),
        3 => "[ \t]{1,9}".prop_map(String::into_bytes),
        2 => "[ \t]{0,3}\n{1,3}[ \t]{0,12}".prop_map(String::into_bytes),
        3 => r#"[-+*/=(){};:,.!?'"_<>\[\]@#$%&|~^`\\]{1,4}\n{0,2}"#.prop_map(String::into_bytes),
        1 => "[a-z]{60,90}".prop_map(String::into_bytes),
        1 => "[ \n\r\t\x0b\x0c\x1b\x00]{1,3}".prop_map(String::into_bytes),
        1 => "[éü中한😀\u{a0}]{1,2}".prop_map(String::into_bytes),
    ];
    prop::collection::vec(atom, 0..120).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Read in reads of up to a few hundred bytes and whole, as a pipe
    /// gives them: the same totals and piece boundaries.
    #[test]
    fn same_totals_and_boundaries_in_long_reads(
        bytes in ascii_text(),
        sizes in prop::collection::vec(1usize..=300, 1..6),
    ) {
        let (mut new, mut model) = (Estimator::default(), Model::default());
        let (mut new_at, mut model_at) = (Vec::new(), Vec::new());
        for (from, to) in reads(&bytes, &sizes) {
            new.feed_with_boundaries(&bytes[from..to], |at, cost| push(&mut new_at, at, cost));
            model.run(&bytes[from..to], &mut |at, cost| push(&mut model_at, at, cost));
            prop_assert_eq!(new.total_scaled(), model.total_scaled(), "after {} bytes", to);
        }
        prop_assert_eq!(new_at, model_at);
        let (mut new, mut model) = (Estimator::default(), Model::default());
        let (mut new_at, mut model_at) = (Vec::new(), Vec::new());
        new.feed_with_boundaries(&bytes, |at, cost| push(&mut new_at, at, cost));
        model.run(&bytes, &mut |at, cost| push(&mut model_at, at, cost));
        prop_assert_eq!(new.total_scaled(), model.total_scaled());
        prop_assert_eq!(new_at, model_at);
        // The plain count, which prices a number's groups of three at once.
        let mut plain = Estimator::default();
        for (from, to) in reads(&bytes, &sizes) {
            plain.feed(&bytes[from..to]);
        }
        prop_assert_eq!(plain.total_scaled(), model.total_scaled());
    }
}

/// Plain ASCII as source, logs and prose have it, and none of what the
/// lanes leave to the general loop (bytes that are not ASCII, `\r`, ESC),
/// so that the plain count reads most blocks whole: words of every case
/// and length, led by spaces, tabs and each punctuation character, runs
/// of punctuation with newlines, numbers, indentation, lines of spaces.
fn plain_ascii_text() -> impl Strategy<Value = Vec<u8>> {
    let atom = prop_oneof![
        6 => "[a-z]{1,12}".prop_map(String::into_bytes),
        4 => "[ \t]?[a-z]{1,10}".prop_map(String::into_bytes),
        3 => "[ \t]?[A-Z]{1,4}[a-z]{0,8}".prop_map(String::into_bytes),
        2 => r#"[-+*/=(){};:,.!?'"_<>\[\]@#$%&|~^`\\][A-Za-z]{1,6}"#.prop_map(String::into_bytes),
        2 => "[0-9]{1,8}".prop_map(String::into_bytes),
        3 => "[ \t\x0b\x0c]{1,9}".prop_map(String::into_bytes),
        2 => "[ \t]{0,12}\n{1,5}[ \t]{0,12}".prop_map(String::into_bytes),
        3 => r#" ?[-+*/=(){};:,.!?'"_<>\[\]@#$%&|~^`\\]{1,12}\n{0,5}"#.prop_map(String::into_bytes),
        1 => "[a-zA-Z]{17,40}".prop_map(String::into_bytes),
        1 => " {20,40}[a-z]?".prop_map(String::into_bytes),
    ];
    prop::collection::vec(atom, 0..150).prop_map(|v| v.concat())
}

/// The plain count of `bytes` fed whole, and the model's.
fn whole_totals(bytes: &[u8]) -> (u64, u64) {
    let (mut plain, mut model) = (Estimator::default(), Model::default());
    plain.feed(bytes);
    model.feed(bytes);
    (plain.total_scaled(), model.total_scaled())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// The plain count, which reads whole blocks of plain ASCII at once,
    /// against the model, in reads of any size and whole.
    #[test]
    fn same_plain_count_on_plain_ascii(
        bytes in plain_ascii_text(),
        sizes in prop::collection::vec(1usize..=400, 1..6),
    ) {
        let (whole, model) = whole_totals(&bytes);
        prop_assert_eq!(whole, model);
        let mut plain = Estimator::default();
        for (from, to) in reads(&bytes, &sizes) {
            plain.feed(&bytes[from..to]);
        }
        prop_assert_eq!(plain.total_scaled(), model);
    }
}

/// The calibration corpora, whole and in reads of every size from 1 to
/// 7 bytes and of 64 KiB, 1000 and 4093 bytes: the plain count gives the
/// model's total at the end of every read.
#[test]
fn same_plain_count_on_the_corpora() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/tokens");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).expect("the corpora are in the repository") {
        let path = entry.expect("a corpus").path();
        if path.extension().is_none_or(|e| e != "txt") {
            continue;
        }
        let bytes = std::fs::read(&path).expect("a corpus");
        seen += 1;
        for size in [1, 2, 3, 5, 7, 1000, 4093, 64 * 1024, bytes.len()] {
            let (mut plain, mut model) = (Estimator::default(), Model::default());
            for (from, to) in reads(&bytes, &[size]) {
                plain.feed(&bytes[from..to]);
                model.feed(&bytes[from..to]);
                assert_eq!(
                    plain.total_scaled(),
                    model.total_scaled(),
                    "{} in reads of {size}, after {to} bytes",
                    path.display()
                );
            }
        }
    }
    assert!(seen >= 10, "only {seen} corpora");
}

/// Text in CJK scripts as the plain count's CJK lane reads it: words of
/// ideographs, kana and Hangul (with `ー`), led by nothing, a space, CJK
/// punctuation or ASCII punctuation, runs of CJK punctuation with
/// newlines, and what stops the lane among them: ASCII letters and
/// digits, runs of white space, letters and symbols of other kinds,
/// full-width digits and spaces, invalid bytes and characters cut short.
fn cjk_text() -> impl Strategy<Value = Vec<u8>> {
    let atom = prop_oneof![
        8 => "[\u{4e00}-\u{9fff}]{1,12}".prop_map(String::into_bytes),
        4 => "[\u{3041}-\u{3096}\u{30a1}-\u{30fc}]{1,8}".prop_map(String::into_bytes),
        4 => " ?[\u{ac00}-\u{d7a3}]{1,6}".prop_map(String::into_bytes),
        6 => "[，。、：！？「」『』（）・…—〜]{1,3}\n{0,3}".prop_map(String::into_bytes),
        3 => "[.?!,:;()#@<]{1,2}\n{0,3}".prop_map(String::into_bytes),
        2 => " ?[a-zA-Z]{1,6}".prop_map(String::into_bytes),
        1 => "[0-9]{1,4}".prop_map(String::into_bytes),
        2 => "[ \t]{0,3}\n{1,12}[ \t]{0,2}".prop_map(String::into_bytes),
        1 => "[ \t\r\x1b]{1,3}".prop_map(String::into_bytes),
        1 => "[éЖ😀々〇Ⅰ１\u{3000}\u{a0}\u{1100}]{1,2}".prop_map(String::into_bytes),
        1 => prop_oneof![
            Just(vec![0xFF]),
            Just(vec![0x80]),
            Just(vec![0xE4, 0xB8]),
            Just(vec![0xE3, 0x80]),
            Just(vec![0xED, 0xA0, 0x80]),
            Just(vec![0xE0, 0x80, 0xBF]),
            Just(vec![0xEF, 0xBF, 0xBF]),
        ],
    ];
    prop::collection::vec(atom, 0..150).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// The plain count, which reads whole CJK pieces from a boundary,
    /// against the model: in reads of 1–7 bytes (characters cut by every
    /// read), of up to a few hundred, and whole.
    #[test]
    fn same_plain_count_on_cjk_text(
        bytes in cjk_text(),
        short in prop::collection::vec(1usize..=7, 1..10),
        long in prop::collection::vec(1usize..=300, 1..6),
    ) {
        let (whole, model) = whole_totals(&bytes);
        prop_assert_eq!(whole, model);
        for sizes in [short, long] {
            let (mut plain, mut model) = (Estimator::default(), Model::default());
            for (from, to) in reads(&bytes, &sizes) {
                plain.feed(&bytes[from..to]);
                model.feed(&bytes[from..to]);
                prop_assert_eq!(plain.total_scaled(), model.total_scaled(), "after {} bytes", to);
                prop_assert_eq!(plain.position(), model.position());
            }
        }
    }
}

/// Coloured output and progress frames as build and test tools print
/// them, all ASCII, so that the lanes read it in blocks: SGR codes and
/// other escape sequences before, after and inside words, punctuation
/// and white space (`:\x1b[0m`, ` \x1b[1m`, `..\x1b`, `\t\x1b`), ESC
/// alone and in runs, frames ended by `\r`, and `\r` in every place a
/// newline goes (`]\r`, `.\r\n`, `;\r\r`, blank lines with `\r`, long
/// runs of `\r\n`).
fn coloured_text() -> impl Strategy<Value = Vec<u8>> {
    let atom = prop_oneof![
        6 => "\x1b\\[[0-9;]{0,8}[mKGHJ]".prop_map(String::into_bytes),
        1 => "\x1b[()][AB0]|\x1b\\][0-9];[a-z ]{0,8}\x07|\x1b[a-zA-Z=>78]?".prop_map(String::into_bytes),
        5 => "[ \t]?[a-zA-Z]{1,12}".prop_map(String::into_bytes),
        2 => "[0-9]{1,6}(\\.[0-9]{1,2})?%?".prop_map(String::into_bytes),
        4 => r#"[ \t]?[-+*/=(){};:,.!?'"_<>\[\]@#$%&|~^`\\]{0,4}\x1b"#.prop_map(String::into_bytes),
        3 => r#" ?[-+*/=(){};:,.!?'"_<>\[\]@#$%&|~^`\\]{1,4}[\r\n]{0,4}"#.prop_map(String::into_bytes),
        3 => "[ \t]{0,12}[\r\n]{1,4}[ \t]{0,4}".prop_map(String::into_bytes),
        2 => "\\[[=#>]{0,12} {0,12}\\] [0-9]{1,3}/[0-9]{1,3}\r".prop_map(String::into_bytes),
        1 => "(\r\n){4,12}|\r{2,12}|( {1,9}\r?\n){2,4}".prop_map(String::into_bytes),
        1 => "[ \t]{10,40}[\r\x1b]?".prop_map(String::into_bytes),
        1 => "[éü中😀\x00]".prop_map(String::into_bytes),
    ];
    prop::collection::vec(atom, 0..150).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Coloured text and `\r` frames, which the lanes read with the
    /// pieces around them: the same totals and piece boundaries as the
    /// model, in reads of 1–7 bytes, of up to a few hundred, and whole,
    /// and the same plain count.
    #[test]
    fn same_figures_on_coloured_text_and_frames(
        bytes in coloured_text(),
        short in prop::collection::vec(1usize..=7, 1..10),
        long in prop::collection::vec(1usize..=300, 1..6),
    ) {
        let (whole, model_total) = whole_totals(&bytes);
        prop_assert_eq!(whole, model_total);
        for sizes in [short, long, vec![bytes.len().max(1)]] {
            let (mut new, mut model, mut plain) = (Estimator::default(), Model::default(), Estimator::default());
            let (mut new_at, mut model_at) = (Vec::new(), Vec::new());
            for (from, to) in reads(&bytes, &sizes) {
                new.feed_with_boundaries(&bytes[from..to], |at, cost| push(&mut new_at, at, cost));
                model.run(&bytes[from..to], &mut |at, cost| push(&mut model_at, at, cost));
                plain.feed(&bytes[from..to]);
                prop_assert_eq!(new.total_scaled(), model.total_scaled(), "after {} bytes", to);
                prop_assert_eq!(plain.total_scaled(), model.total_scaled(), "plain, after {} bytes", to);
            }
            prop_assert_eq!(&new_at, &model_at);
        }
    }
}
