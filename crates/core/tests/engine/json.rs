//! The cut of JSON (`--json-items`) against its model
//! (`capout_testkit::json`), over random documents and JSON Lines, their
//! corruptions, and random read sizes; and the values of every output
//! against its input, as `serde_json` parses them.

use capout_core::{CapSpec, JSON_MAX_DEPTH, JsonCut, NoticeTarget, Options, Summary, Unit};
use capout_testkit::json::{self, Cut};
use capout_testkit::{Chunked, Rng};
use proptest::prelude::*;

/// The options of `cut`: `--head-lines D --budget-chars B` when `lines`,
/// else `--head-chars B`; no notice.
fn options(cut: Cut, lines: bool) -> Options {
    let mut options = if lines {
        let mut options = Options::new(CapSpec::HeadLines { limit: cut.documents, offset: 0 });
        options.budget = Some(cut.budget);
        options
    } else {
        Options::new(CapSpec::HeadChars(cut.budget))
    };
    options.json_items = Some(cut.items);
    options.json_string_chars = cut.string_chars;
    options.unit = if cut.bytes { Unit::Bytes } else { Unit::Chars };
    options.notice = NoticeTarget::None;
    options
}

/// `input` through the engine with `options`, in reads of `sizes` bytes.
fn run(input: &[u8], options: &Options, sizes: &[usize]) -> (Vec<u8>, Summary) {
    let mut options = options.clone();
    options.read_size = sizes.iter().copied().max().unwrap_or(1);
    let mut out = Vec::new();
    let summary = capout_core::run(&options, Chunked::new(input, sizes), &mut out, &mut std::io::sink())
        .expect("in memory");
    (out, summary)
}

/// The engine's counts as the model's outcome holds them.
fn counts(output: Vec<u8>, json: JsonCut) -> json::Outcome {
    json::Outcome {
        output,
        items_kept: json.items_kept,
        items: json.items,
        arrays_cut: json.arrays_cut,
        strings_cut: json.strings_cut,
        documents_kept: json.documents_kept,
        documents: json.documents,
    }
}

/// A random cut for an input of `len` bytes: small numbers, so that
/// every rule bites.
fn random_cut(rng: &mut Rng, len: usize, lines: bool) -> Cut {
    let budget = 1 + rng.below(len as u64 + 8);
    Cut {
        items: 1 + rng.below(4),
        string_chars: rng.below(6),
        budget: if rng.below(5) == 0 { u64::MAX >> 1 } else { budget },
        bytes: rng.below(3) == 0,
        documents: if lines { 1 + rng.below(3) } else { u64::MAX },
    }
}

/// Checks the engine against the model on `input`, whatever it is, and
/// its output against its input by their values (`values`: `serde_json`
/// parses no deeper than 128 levels).
fn check(input: &[u8], cut: Cut, lines: bool, sizes: &[usize], values: bool) -> Result<(), TestCaseError> {
    let options = options(cut, lines);
    let (whole, summary) = run(input, &options, &[1 << 16]);
    let (split, _) = run(input, &options, sizes);
    prop_assert_eq!(&split, &whole, "read sizes {:?}", sizes);
    let json = summary.json.expect("a JSON cut");
    match json::cut(input, cut) {
        Ok(model) => {
            prop_assert_eq!(json.ended_at, None);
            prop_assert_eq!(counts(whole.clone(), json), model);
            prop_assert_eq!(summary.truncated, whole != input, "cut iff the output is not the input");
            if values && let Err(e) = json::check_values(input, &whole, cut) {
                return Err(TestCaseError::fail(e));
            }
        }
        Err(end) => {
            prop_assert_eq!(json.ended_at, Some(end as u64));
            // Capped as text: as the head cap alone caps it.
            let mut text = options;
            text.json_items = None;
            prop_assert_eq!(whole, run(input, &text, &[1 << 16]).0);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    #[test]
    fn the_cut_of_json_is_the_models(
        seed in any::<u64>(),
        size in 0u64..40,
        lines in any::<bool>(),
        sizes in prop::collection::vec(1usize..=7, 1..8),
    ) {
        let mut rng = Rng::new(seed);
        let input = json::document(&mut rng, size);
        let cut = random_cut(&mut rng, input.len(), lines);
        check(&input, cut, lines, &sizes, true)?;
    }

    #[test]
    fn json_that_stops_being_json_is_capped_as_text(
        seed in any::<u64>(),
        size in 0u64..20,
        lines in any::<bool>(),
        sizes in prop::collection::vec(1usize..=7, 1..8),
    ) {
        let mut rng = Rng::new(seed);
        let document = json::document(&mut rng, size);
        let input = json::corrupt(&mut rng, &document);
        let cut = random_cut(&mut rng, input.len(), lines);
        check(&input, cut, lines, &sizes, true)?;
    }

    #[test]
    fn a_document_that_fits_is_passed_through_byte_for_byte(
        seed in any::<u64>(),
        size in 0u64..40,
        sizes in prop::collection::vec(1usize..=7, 1..8),
    ) {
        let mut rng = Rng::new(seed);
        let input = json::document(&mut rng, size);
        let cut = Cut { items: 100, string_chars: 100, budget: input.len() as u64, bytes: true, documents: u64::MAX };
        let (out, summary) = run(&input, &options(cut, false), &sizes);
        prop_assert_eq!(&out, &input);
        prop_assert!(!summary.truncated);
    }
}

/// Nesting past the limit is cut as a long string is, on both sides of
/// it, and the model agrees, however the reads split it.
#[test]
fn nesting_past_the_limit_is_cut_as_a_string() {
    let cut = Cut { items: 3, string_chars: 4, budget: 1 << 20, bytes: false, documents: u64::MAX };
    for depth in [JSON_MAX_DEPTH - 1, JSON_MAX_DEPTH, JSON_MAX_DEPTH + 1, JSON_MAX_DEPTH + 5, 4000] {
        let mut input = "[".repeat(depth);
        input.push_str("{\"k\": \"\u{e9}]\\\"\"}");
        input.push_str(&"]".repeat(depth));
        for sizes in [&[1 << 16][..], &[1, 7, 3]] {
            check(input.as_bytes(), cut, false, sizes, false).unwrap();
        }
        let (out, summary) = run(input.as_bytes(), &options(cut, false), &[1 << 16]);
        let kept = String::from_utf8(out).unwrap();
        let open = depth.min(JSON_MAX_DEPTH);
        assert!(kept.starts_with(&"[".repeat(open)) && !kept[open..].starts_with('['), "{depth}");
        assert_eq!(summary.json.unwrap().strings_cut, u64::from(depth >= JSON_MAX_DEPTH), "{depth}");
    }
    // What is nested too deep is still read for its strings and brackets.
    let broken = format!("{}\"\\x\"{}", "[".repeat(600), "]".repeat(600));
    let (_, summary) = run(broken.as_bytes(), &options(cut, false), &[1 << 16]);
    assert_eq!(summary.json.unwrap().ended_at, Some(602));
}
