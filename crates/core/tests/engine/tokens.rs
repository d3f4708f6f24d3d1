//! The token estimator against its reference model, through the engine's
//! public API: random text, fed in reads of 1–7 bytes, gives the same
//! totals, piece boundaries and cuts; mostly ASCII text, fed in long
//! reads, the same totals and boundaries.

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
