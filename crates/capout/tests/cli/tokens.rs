//! The token estimator: its laws (splits, monotony, additivity at piece
//! boundaries, the cuts of head and tail caps) on random inputs, and, with
//! the feature `exact-tokens`, its accuracy against `o200k_base` on the
//! corpora under `crates/core/tests/fixtures/tokens` (`gen.py` there builds
//! them).

use capout_core::tokens::{self, Estimator, MAX_BYTES_PER_TOKEN, SCALE};
use proptest::prelude::*;

/// Text that exercises every kind of piece: words of either case, digits,
/// punctuation, spaces, tabs and newlines, non-ASCII letters, symbols and
/// spaces, bytes that are not UTF-8, colour codes and runs of blank lines.
fn text() -> impl Strategy<Value = Vec<u8>> {
    let atom = prop_oneof![
        4 => "[a-z]{1,12}".prop_map(String::into_bytes),
        2 => "[A-Z][a-z]{0,6}".prop_map(String::into_bytes),
        1 => "[A-Z]{1,5}".prop_map(String::into_bytes),
        2 => "[0-9]{1,7}".prop_map(String::into_bytes),
        3 => "[ ]{1,5}".prop_map(String::into_bytes),
        1 => "[\t\r\n ]{1,4}".prop_map(String::into_bytes),
        2 => r#"[-+*/=(){};:,.!?'"_<>\[\]@#$%&|]{1,4}"#.prop_map(String::into_bytes),
        1 => "[éüßжЖ中文字日本語한국어，。「」€→😀\u{a0}\u{3000}٣]{1,4}".prop_map(String::into_bytes),
        1 => prop::collection::vec(any::<u8>(), 1..4),
        1 => "( ?[.;]?\x1b\\[[0-9;]{0,7}[mK]|\x1b[a-z]?)".prop_map(String::into_bytes),
        1 => "([ \t]{0,14}\r?\n){1,30}".prop_map(String::into_bytes),
    ];
    prop::collection::vec(atom, 0..40).prop_map(|v| v.concat())
}

fn fed_in(bytes: &[u8], sizes: &[usize]) -> Estimator {
    let mut e = Estimator::default();
    let mut rest = bytes;
    for &n in sizes.iter().cycle() {
        if rest.is_empty() {
            break;
        }
        let n = n.min(rest.len());
        e.feed(&rest[..n]);
        rest = &rest[n..];
    }
    e
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Reads of 1–7 bytes, split anywhere (inside characters too), give
    /// the totals of one read.
    #[test]
    fn splits_do_not_matter(bytes in text(), sizes in prop::collection::vec(1usize..=7, 1..8)) {
        let whole = fed_in(&bytes, &[bytes.len().max(1)]);
        let split = fed_in(&bytes, &sizes);
        prop_assert_eq!(split.total_scaled(), whole.total_scaled());
        prop_assert_eq!(split.total(), tokens::estimate(&bytes));
    }

    /// A longer text never has a smaller estimate: growing at its end, at
    /// each character; growing at its start, at each piece boundary
    /// (inside a piece, ` aa` costs less than `aa`, as in `o200k_base`).
    #[test]
    fn monotone(bytes in text()) {
        let mut last = 0;
        for &end in &char_starts(&bytes) {
            let now = tokens::estimate_scaled(&bytes[..end]);
            prop_assert!(now >= last, "prefix of {} bytes: {} after {}", end, now, last);
            last = now;
        }
        let mut last = 0;
        for &(start, _) in tokens::boundaries(&bytes).iter().rev() {
            let now = tokens::estimate_scaled(&bytes[start..]);
            prop_assert!(now >= last, "suffix from {}: {} after {}", start, now, last);
            last = now;
        }
        prop_assert!(tokens::estimate_scaled(&bytes) >= last);
    }

    /// From a piece boundary on, the estimate is the total less the pieces
    /// before it.
    #[test]
    fn additive_at_boundaries(bytes in text()) {
        let total = tokens::estimate_scaled(&bytes);
        for (at, before) in tokens::boundaries(&bytes) {
            prop_assert_eq!(tokens::estimate_scaled(&bytes[at..]), total - before, "boundary at {}", at);
        }
    }

    /// No piece costs less than a token per MAX_BYTES_PER_TOKEN bytes, so
    /// a ring of that many bytes a token holds a tail cap's text.
    #[test]
    fn bytes_per_token_bounded(bytes in text(), run in 0usize..200) {
        let mut bytes = bytes;
        bytes.extend(std::iter::repeat_n(b' ', run));
        bytes.extend(std::iter::repeat_n(b'a', run));
        let floor = bytes.len() as u64 * SCALE / MAX_BYTES_PER_TOKEN;
        prop_assert!(tokens::estimate_scaled(&bytes) + 4 * SCALE >= floor);
    }

    /// A head cap's cut: the text before it fits, one more character does
    /// not, and it falls at the start of a character; the same for reads
    /// of 1–7 bytes.
    #[test]
    fn head_cut(bytes in text(), budget in 0u64..40, sizes in prop::collection::vec(1usize..=7, 1..8)) {
        let mut e = Estimator::default();
        let cut = e.cut_after(&bytes, budget).or_else(|| e.cut_at_end(budget));
        let mut split = Estimator::default();
        let mut split_cut = None;
        let mut at = 0;
        for &n in sizes.iter().cycle() {
            if at >= bytes.len() || split_cut.is_some() {
                break;
            }
            let n = n.min(bytes.len() - at);
            split_cut = split.cut_after(&bytes[at..at + n], budget);
            at += n;
        }
        if split_cut.is_none() {
            split_cut = split.cut_at_end(budget);
        }
        prop_assert_eq!(cut, split_cut);
        match cut {
            None => prop_assert!(tokens::estimate(&bytes) <= budget),
            Some(end) => {
                let end = end as usize;
                prop_assert!(tokens::estimate_scaled(&bytes[..end]) <= budget * SCALE);
                let next = end + capout_char_len(&bytes[end..]);
                prop_assert!(tokens::estimate_scaled(&bytes[..next]) > budget * SCALE);
            }
        }
    }

    /// A tail cap's cut: the rest fits, one more character before it does
    /// not, and it falls at the start of a character; where each character
    /// taken in makes the rest cost more, it is the first cut that fits.
    #[test]
    fn tail_cut(bytes in text(), budget in 0u64..40) {
        let start = tokens::tail_start(&bytes, budget);
        prop_assert!(tokens::estimate_scaled(&bytes[start..]) <= budget * SCALE);
        let starts = char_starts(&bytes);
        prop_assert!(starts.contains(&start), "cut at {} inside a character", start);
        if start > 0 {
            let before = starts[starts.iter().position(|&s| s == start).unwrap() - 1];
            prop_assert!(tokens::estimate_scaled(&bytes[before..]) > budget * SCALE);
        }
        let rests: Vec<u64> = starts.iter().map(|&s| tokens::estimate_scaled(&bytes[s..])).collect();
        if rests.windows(2).all(|w| w[0] >= w[1]) {
            let first = starts.iter().zip(&rests).find(|(_, r)| **r <= budget * SCALE).map(|(s, _)| *s);
            prop_assert_eq!(Some(start), first);
        }
    }
}

/// The offsets where characters start, and the end.
fn char_starts(bytes: &[u8]) -> Vec<usize> {
    let mut out = vec![0];
    let mut at = 0;
    while at < bytes.len() {
        at += capout_char_len(&bytes[at..]);
        out.push(at);
    }
    out
}

/// The length of the character (or invalid byte) at the start of `bytes`,
/// as the estimator reads it.
fn capout_char_len(bytes: &[u8]) -> usize {
    let Some(&lead) = bytes.first() else { return 0 };
    let need = match lead {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => 1,
    };
    if need > 1 && bytes.len() >= need && std::str::from_utf8(&bytes[..need]).is_ok() { need } else { 1 }
}

/// The keys of JSON and names after a `"` are words led by nothing:
/// `o200k_base` holds each of these as one token, and they were priced
/// at 1.6 to 1.8.
#[test]
fn a_common_word_led_by_nothing_is_near_a_token() {
    for word in ["description", "properties", "identifier", "operation", "resource", "Instances"] {
        let cost = tokens::estimate_scaled(word.as_bytes());
        assert!(cost <= 1350, "{word}: {cost}");
    }
}

/// `,entry` is two tokens in `o200k_base`, `.entry` one: the
/// punctuation that seldom joins the word after it is priced dearer.
#[test]
fn a_word_after_a_comma_costs_more_than_after_a_dot() {
    for word in ["entry", "options", "const", "value"] {
        let apart = tokens::estimate_scaled(format!(",{word}").as_bytes());
        let joined = tokens::estimate_scaled(format!(".{word}").as_bytes());
        assert!(apart >= joined + 400, "{word}: ,{apart} .{joined}");
    }
}

/// Names in code after punctuation or a space (`(msg`, `.fp`, `_info`,
/// ` msg`) are one token in `o200k_base` though their letter pairs are
/// rare in English: each rare pair there costs 0.15, where it costs 0.6
/// after nothing (`(msg` was 2.35, then 1.85).
#[test]
fn a_name_after_punctuation_pays_less_for_its_rare_pairs() {
    let names =
        [("(msg", 1400), (".fp", 1250), ("_info", 1250), ("_offset", 1300), ("(self", 1100), (" msg", 1310)];
    for (word, cost) in names {
        assert_eq!(tokens::estimate_scaled(word.as_bytes()), cost, "{word}");
    }
}

/// `o200k_base` merges a blank line of 2, 4 or 8 spaces with the
/// newlines around it (`\n    \n` is one token, and so are four lines of
/// four spaces): each such line after the first costs half a token, where
/// it cost one. A line of 3 spaces, or of 2 before `\r\n`, is a token of
/// its own there, and still costs one.
#[test]
fn blank_lines_of_indentation_cost_half_a_token_each() {
    assert_eq!(tokens::estimate_scaled(b"\n    \n    \n    \n"), 2500);
    assert_eq!(tokens::estimate_scaled(b"x\n  \n  \n  y"), 5000);
    assert_eq!(tokens::estimate_scaled(b"\n   \n   \n"), 3000);
    assert_eq!(tokens::estimate_scaled(b"\r\n  \r\n"), 2000);
    // Spaces that end the input after a newline: no more than the blank
    // line they may start.
    assert_eq!(tokens::estimate_scaled(b"\n    "), 1500);
}

#[test]
fn pieces_of_a_line() {
    // `HashMap` splits at the capital, `12345` after three digits, the
    // last of three spaces leads the word, `;\n` is one piece.
    let text = b"let x = HashMap::new(12345);\n   foo";
    let starts: Vec<usize> = tokens::boundaries(text).iter().map(|&(at, _)| at).collect();
    assert_eq!(starts, [3, 5, 7, 12, 15, 17, 20, 21, 24, 26, 29, 31]);
}

/// Accuracy against the exact `o200k_base`, on 5 KB windows of each corpus.
#[cfg(feature = "exact-tokens")]
#[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation, clippy::cast_sign_loss)]
mod accuracy {
    use capout_core::tokens::{self, Exact};

    const CORPORA: [&str; 12] = [
        "prose",
        "logs",
        "ansi",
        "blank",
        "rust",
        "python",
        "javascript",
        "json",
        "minified",
        "blobs",
        "cjk",
        "mix",
    ];
    const WINDOW: usize = 5000;
    const STRIDE: usize = 1000;

    /// Ratios estimate/exact and (bytes/4)/exact over the windows of a
    /// corpus; windows start and end at characters.
    fn ratios(name: &str) -> (Vec<f64>, Vec<f64>) {
        let path = format!("{}/../core/tests/fixtures/tokens/{name}.txt", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(path).expect("the corpora are in the repository");
        text_ratios(&text)
    }

    /// The ratios of `ratios` over the windows of `text`.
    fn text_ratios(text: &str) -> (Vec<f64>, Vec<f64>) {
        let (mut est, mut quarter) = (Vec::new(), Vec::new());
        let mut start = 0;
        while start + WINDOW <= text.len() {
            let mut s = start;
            while !text.is_char_boundary(s) {
                s += 1;
            }
            let mut e = (s + WINDOW).min(text.len());
            while !text.is_char_boundary(e) {
                e -= 1;
            }
            let window = &text.as_bytes()[s..e];
            let exact = tokens::count_exact(Exact::O200k, window) as f64;
            est.push(tokens::estimate(window) as f64 / exact);
            quarter.push(window.len() as f64 / 4.0 / exact);
            start += STRIDE;
        }
        est.sort_by(f64::total_cmp);
        quarter.sort_by(f64::total_cmp);
        (est, quarter)
    }

    /// The value at quantile `q` of sorted `v` (nearest rank).
    fn quantile(v: &[f64], q: f64) -> f64 {
        let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
        v[rank - 1]
    }

    /// Median, p5, p95, and the worst (farthest from 1) of sorted ratios.
    fn figures(v: &[f64]) -> [f64; 4] {
        let worst = if (1.0 - v[0]).abs() > (v[v.len() - 1] - 1.0).abs() { v[0] } else { v[v.len() - 1] };
        [quantile(v, 0.5), quantile(v, 0.05), quantile(v, 0.95), worst]
    }

    /// Per corpus: the median ratio within 0.95–1.05 and 95 % of windows
    /// within 0.85–1.15; over all windows, a lean towards more tokens than
    /// exact (median ≥ 1). Prints the table of the README, bytes/4's
    /// figures beside.
    #[test]
    fn estimate_tracks_o200k() {
        let mut failures = Vec::new();
        let mut all = Vec::new();
        println!(
            "| corpus | windows | estimate: median | p5 | p95 | worst | bytes/4: median | p5 | p95 | worst |"
        );
        println!("| --- | --: | --: | --: | --: | --: | --: | --: | --: | --: |");
        for name in CORPORA {
            let (est, quarter) = ratios(name);
            let [med, p5, p95, worst] = figures(&est);
            let [qmed, q5, q95, qworst] = figures(&quarter);
            println!(
                "| {name} | {} | {med:.3} | {p5:.3} | {p95:.3} | {worst:.3} | {qmed:.3} | {q5:.3} | {q95:.3} | {qworst:.3} |",
                est.len()
            );
            // 95 % of windows within the band: the 2.5th and 97.5th
            // percentiles are inside it.
            let (lo, hi) = (quantile(&est, 0.025), quantile(&est, 0.975));
            if !(0.95..=1.05).contains(&med) {
                failures.push(format!("{name}: median {med:.3} outside 0.95–1.05"));
            }
            all.extend(est);
            if lo < 0.85 || hi > 1.15 {
                failures.push(format!("{name}: 95 % of windows in {lo:.3}–{hi:.3}, not within 0.85–1.15"));
            }
        }
        all.sort_by(f64::total_cmp);
        let median = quantile(&all, 0.5);
        println!("all windows: median {median:.3}");
        if median < 1.0 {
            failures.push(format!("all corpora: median {median:.3} below 1"));
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    /// The figures of `estimate_tracks_o200k` on text from outside the
    /// corpora: `CAPOUT_TOKENS_TEXT` names groups of files, the groups
    /// apart by `;`, the files of a group by `:`, each group's files read
    /// as one text (`cargo test -p capout --features exact-tokens --test cli
    /// held_out -- --ignored --nocapture`).
    #[test]
    #[ignore = "reads files named by CAPOUT_TOKENS_TEXT"]
    fn held_out() {
        let groups = std::env::var("CAPOUT_TOKENS_TEXT").expect("CAPOUT_TOKENS_TEXT names files");
        println!("| text | windows | median | p5 | p95 | worst |");
        println!("| --- | --: | --: | --: | --: | --: |");
        for group in groups.split(';').filter(|g| !g.is_empty()) {
            let text: String = group
                .split(':')
                .map(|f| std::fs::read_to_string(f).unwrap_or_else(|e| panic!("{f}: {e}")))
                .collect();
            let (est, _) = text_ratios(&text);
            let [med, p5, p95, worst] = figures(&est);
            let name = group.split(':').map(|f| f.rsplit('/').next().unwrap_or(f)).collect::<Vec<_>>();
            println!("| {} | {} | {med:.3} | {p5:.3} | {p95:.3} | {worst:.3} |", name.join(" "), est.len());
        }
    }

    /// For fitting too: the pieces of the files that `CAPOUT_TOKENS_TEXT`
    /// names (as `held_out` reads it) whose estimates pass their exact
    /// counts by the most tokens in all, then those that fall short by the
    /// most; `COARSE=1` groups them with their letters as `a` and `A`,
    /// `TOP=N` prints N.
    #[test]
    #[ignore = "prints figures for fitting, checks nothing"]
    fn piece_overshoot() {
        use std::collections::HashMap;
        let groups = std::env::var("CAPOUT_TOKENS_TEXT").expect("CAPOUT_TOKENS_TEXT names files");
        let coarse = std::env::var("COARSE").is_ok();
        let mut table: HashMap<String, (f64, f64, usize)> = HashMap::new();
        let mut total = (0.0, 0.0);
        for f in groups.split([';', ':']).filter(|g| !g.is_empty()) {
            let text = std::fs::read(f).unwrap();
            let mut cuts: Vec<usize> = tokens::boundaries(&text).iter().map(|&(a, _)| a).collect();
            cuts.insert(0, 0);
            cuts.push(text.len());
            for w in cuts.windows(2) {
                let piece = &text[w[0]..w[1]];
                let exact = tokens::count_exact(Exact::O200k, piece) as f64;
                let est = tokens::estimate_scaled(piece) as f64 / 1000.0;
                // Letters as `a` and `A` before the escapes, so that `\n` stays.
                let text = String::from_utf8_lossy(piece);
                let text: String = if coarse {
                    text.chars()
                        .map(|c| match c {
                            'a'..='z' => 'a',
                            'A'..='Z' => 'A',
                            c => c,
                        })
                        .collect()
                } else {
                    text.into_owned()
                };
                let key = format!("{text:?}");
                let e = table.entry(key).or_default();
                e.0 += exact;
                e.1 += est;
                e.2 += 1;
                total.0 += exact;
                total.1 += est;
            }
        }
        println!("total exact {} est {:.0} ratio {:.4}", total.0, total.1, total.1 / total.0);
        let mut v: Vec<_> = table.into_iter().collect();
        v.sort_by(|a, b| (b.1.1 - b.1.0).total_cmp(&(a.1.1 - a.1.0)));
        let top: usize = std::env::var("TOP").ok().and_then(|t| t.parse().ok()).unwrap_or(60);
        for (k, (exact, est, n)) in v.iter().take(top) {
            println!(
                "{:>8.1} n={n:6} exact={:.3} est={:.3} {k}",
                est - exact,
                exact / *n as f64,
                est / *n as f64
            );
        }
        println!("--- under");
        for (k, (exact, est, n)) in v.iter().rev().take(top / 2) {
            println!(
                "{:>8.1} n={n:6} exact={:.3} est={:.3} {k}",
                est - exact,
                exact / *n as f64,
                est / *n as f64
            );
        }
    }

    /// What a token cap with the estimator keeps of `input`, without
    /// notices.
    fn kept(cap: capout_core::CapSpec, input: &[u8]) -> Vec<u8> {
        let config = {
            let mut options = capout_core::Options::new(cap);
            options.notice = capout_core::NoticeTarget::None;
            options
        };
        let (mut out, mut err) = (Vec::new(), Vec::new());
        capout_core::run(&config, input, &mut out, &mut err).expect("in-memory run");
        out
    }

    /// Corpora where the estimate runs near the exact count or below it
    /// (random data, minified code with one-letter names, CJK, and the mix
    /// that holds them): a cap may keep a little more than N there.
    const LEAN_LOW: [&str; 4] = ["minified", "blobs", "cjk", "mix"];

    /// What a cap of 2000 estimated tokens may keep past 2000 exact
    /// tokens, in thousandths: the estimate is fitted to code from outside
    /// the corpora, which runs higher than theirs.
    const OVER: u64 = 25;

    /// The estimator errs towards fewer tokens: what a cap of 2000
    /// estimated tokens keeps has at most 2.5 % more than 2000 exact
    /// `o200k_base` tokens, for the head and the tail of inputs that end
    /// at ten places in each corpus (coloured CI logs and runs of blank
    /// lines among them) but those of `LEAN_LOW`. Prints, per corpus, the
    /// most kept as a share of N for N of 50 to 2000: the README's second
    /// table.
    #[test]
    fn an_estimated_cut_keeps_about_n_exact_tokens() {
        use capout_core::CapSpec;
        const NS: [u64; 4] = [50, 200, 500, 2000];
        let mut failures = Vec::new();
        println!("| corpus | N = 50 | 200 | 500 | 2000 |");
        println!("| --- | --: | --: | --: | --: |");
        for name in CORPORA {
            let path = format!("{}/../core/tests/fixtures/tokens/{name}.txt", env!("CARGO_MANIFEST_DIR"));
            let text = std::fs::read(path).expect("the corpora are in the repository");
            let mut most = [0.0f64; NS.len()];
            for k in 1..=10 {
                // Inputs that end at a line's end, a tenth of the corpus
                // apart; the heads start a tenth further in each time.
                let line_end = |at: usize| text[..at].iter().rposition(|&b| b == b'\n').map(|e| e + 1);
                let end = line_end(text.len() * k / 10).unwrap_or(text.len());
                let start = line_end(text.len() * (k - 1) / 10).unwrap_or(0);
                for (i, n) in NS.into_iter().enumerate() {
                    for (cap, input) in
                        [(CapSpec::TailTokens(n), &text[..end]), (CapSpec::HeadTokens(n), &text[start..])]
                    {
                        let exact = tokens::count_exact(Exact::O200k, &kept(cap, input)) as u64;
                        most[i] = most[i].max(exact as f64 / n as f64);
                        if exact * 1000 > n * (1000 + OVER) && n == 2000 && !LEAN_LOW.contains(&name) {
                            failures.push(format!(
                                "{name}: {cap:?} of {} bytes kept {exact} tokens",
                                input.len()
                            ));
                        }
                    }
                }
            }
            let row: Vec<String> = most.iter().map(|m| format!("{:.1} %", m * 100.0)).collect();
            println!("| {name} | {} |", row.join(" | "));
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    /// Prices of the estimator's pieces on the corpora: the mean exact
    /// count of the pieces of each kind and length. For fitting the prices
    /// of `crates/core/src/tokens/mod.rs`: `cargo test --features exact-tokens --test
    /// tokens piece_prices -- --ignored --nocapture`.
    #[test]
    #[ignore = "prints figures for fitting, checks nothing"]
    fn piece_prices() {
        use std::collections::BTreeMap;
        let mut table: BTreeMap<(String, usize), (f64, f64, usize)> = BTreeMap::new();
        // CORPUS=NAME looks at one corpus.
        let only = std::env::var("CORPUS").ok();
        for name in CORPORA.iter().filter(|n| only.as_deref().is_none_or(|o| o == **n)) {
            let path = format!("{}/../core/tests/fixtures/tokens/{name}.txt", env!("CARGO_MANIFEST_DIR"));
            let text = std::fs::read(path).unwrap();
            let mut cuts: Vec<usize> = tokens::boundaries(&text).iter().map(|&(a, _)| a).collect();
            cuts.insert(0, 0);
            cuts.push(text.len());
            for w in cuts.windows(2) {
                let piece = &text[w[0]..w[1]];
                let s = String::from_utf8_lossy(piece);
                let body = s.trim_start_matches(|c: char| {
                    !c.is_alphanumeric() && !c.is_whitespace() && s.chars().count() > 1
                });
                let lead_punct = body.len() != s.len();
                let body = if lead_punct { body } else { s.trim_start_matches(' ') };
                let first = body.chars().next().unwrap_or(' ');
                let kind = if first.is_ascii_alphabetic() && body.is_ascii() {
                    let caps = body.len() > 1 && body.chars().all(|c| c.is_ascii_uppercase());
                    format!(
                        "{}{}{}",
                        if caps { "CAPS" } else { "word" },
                        if lead_punct { "+p" } else { "" },
                        if s.starts_with(' ') { "+sp" } else { "" }
                    )
                } else if first.is_alphabetic() {
                    format!("na{}", first.len_utf8())
                } else if first.is_ascii_digit() {
                    "digits".into()
                } else if first.is_whitespace() {
                    if s.contains('\n') { "nl".into() } else { "ws".into() }
                } else if body.is_ascii() {
                    "punct".into()
                } else {
                    "nasym".into()
                };
                let n = if kind.starts_with("na") {
                    body.chars().count()
                } else {
                    body.trim_end_matches('\n').len()
                };
                // Pairs of consonants in a row, a sign of text that is no word.
                let cons = |c: u8| c.is_ascii_alphabetic() && !b"aeiouyAEIOUY".contains(&c);
                let cc = body.as_bytes().windows(2).filter(|w| cons(w[0]) && cons(w[1])).count();
                let kind = if kind.starts_with("word") || kind.starts_with("CAPS") {
                    format!("{kind}/cc{}", cc.min(3))
                } else {
                    kind
                };
                let exact = tokens::count_exact(Exact::O200k, piece) as f64;
                let est = tokens::estimate_scaled(piece) as f64 / 1000.0;
                let e = table.entry((kind, n.min(40))).or_default();
                e.0 += exact;
                e.1 += est;
                e.2 += 1;
            }
        }
        for ((kind, n), (exact, est, count)) in table {
            if count >= 5 {
                println!(
                    "{kind:10} {n:3} n={count:6} exact={:.3} est={:.3} sum_exact={exact:.0} sum_est={est:.0}",
                    exact / count as f64,
                    est / count as f64
                );
            }
        }
    }
}

/// The exact tokenizers' cuts: the kept text, tokenized on its own, has at
/// most N tokens, and at least N − 8 unless it is the whole input, however
/// reads of 1 to 7 bytes split the input.
#[cfg(feature = "exact-tokens")]
mod exact_cuts {
    use std::io::Read;

    use capout_core::tokens::{self, Exact};
    use capout_core::{CapSpec, NoticeTarget, Options, Tokenizer};
    use proptest::prelude::*;

    use super::text;

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

    #[test]
    fn exact_caps_from_the_command_line() {
        // capout's stdout for `args` on one short line.
        let run = |args: &[&str]| {
            crate::common::capout()
                .args(args)
                .write_stdin("hello world foo bar baz\n")
                .assert()
                .success()
                .get_output()
                .stdout
                .clone()
        };
        for name in ["o200k", "cl100k"] {
            let out = run(&["--tail-tokens", "3", "--tokenizer", name, "--json"]);
            let object: serde_json::Value = serde_json::from_slice(&out).expect("one JSON object");
            assert_eq!(object["output"], " bar baz\n");
            assert_eq!(object["notice"], "... (truncated, showing last 3 tokens)");
            assert_eq!((&object["tokenizer"], &object["total_tokens"]), (&name.into(), &6.into()));
            let out = run(&["--head-tokens", "2", "--tail-tokens", "2", "--tokenizer", name]);
            assert_eq!(
                String::from_utf8_lossy(&out),
                "hello wor\n... (truncated, omitted 2 tokens) ...\n baz\n"
            );
        }
    }

    /// The exact total of `--json` is counted in stretches, so that memory
    /// stays bounded: it must be the count of the whole input at once.
    #[test]
    fn the_exact_total_of_a_long_input_is_its_whole_count() {
        let mut input = String::new();
        let mut i = 0u64;
        while input.len() < 700_000 {
            i += 1;
            let word =
                ["error", "ok", "Build", "42", "  indented", "naïve", "中文", "{\"k\": 1}"][(i % 8) as usize];
            input.push_str(word);
            input.push_str(" line ");
            input.push_str(&i.to_string());
            input.push_str(" of the log\n");
            if i.is_multiple_of(5) {
                input.push_str("\n  \n");
            }
        }
        for (name, exact) in [("o200k", Exact::O200k), ("cl100k", Exact::Cl100k)] {
            let out = crate::common::capout()
                .args(["--tail-tokens", "10", "--tokenizer", name, "--json"])
                .write_stdin(input.clone())
                .assert()
                .success()
                .get_output()
                .stdout
                .clone();
            let object: serde_json::Value = serde_json::from_slice(&out).expect("one JSON object");
            assert_eq!(object["total_tokens"], tokens::count_exact(exact, input.as_bytes()), "{name}");
        }
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
}

/// The estimator's figures, pinned: the total, every piece boundary, the
/// cuts of tail and head caps, over the corpora and over generated text
/// with invalid UTF-8, NULs, CJK, emoji and long runs, as one digest. The
/// estimator is calibrated: a change here changes the README's table.
mod pinned {
    use capout_core::tokens::{self, Estimator};

    /// FNV-1a over 64-bit words.
    struct Digest(u64);

    impl Digest {
        fn new() -> Self {
            Digest(0xcbf2_9ce4_8422_2325)
        }
        fn add(&mut self, word: u64) {
            for b in word.to_le_bytes() {
                self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
            }
        }
    }

    /// A xorshift generator: the same text on every run.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    const ATOMS: [&str; 24] = [
        "the",
        " word",
        " Word",
        "HTTPServer",
        "xkcd",
        "_id",
        ".len",
        "12345",
        "7",
        "  ",
        "\t",
        "\n",
        "\r\n",
        " \n  \n",
        "();",
        "=>",
        "中文字",
        "日本語の",
        "한국어",
        "，。",
        "😀🎉",
        "\u{a0}",
        "\u{3000}",
        "Ünïcödé",
    ];

    /// Text of `atoms` pieces: words, numbers, punctuation, white space,
    /// non-ASCII letters and symbols, random bytes, NULs and long runs.
    fn text(rng: &mut Rng, atoms: usize) -> Vec<u8> {
        let mut out = Vec::new();
        for _ in 0..atoms {
            match rng.below(10) {
                0..=4 => out.extend_from_slice(ATOMS[rng.below(ATOMS.len())].as_bytes()),
                5 => out.extend((0..=rng.below(4)).map(|_| rng.next() as u8)),
                6 => out.extend(std::iter::repeat_n(0u8, 1 + rng.below(3))),
                7 => {
                    let unit = ["a", "Z", "9", " ", "\n", "-", "中", "😀", "\u{a0}", "é"][rng.below(10)];
                    out.extend(unit.as_bytes().repeat(1 + rng.below(300)));
                }
                8 => out.extend((0..=rng.below(12)).map(|_| b'a' + rng.below(26) as u8)),
                _ => out.extend((0..=rng.below(6)).map(|_| b' ' + rng.below(95) as u8)),
            }
        }
        out
    }

    fn figures(d: &mut Digest, rng: &mut Rng, bytes: &[u8], budgets: &[u64]) {
        d.add(tokens::estimate_scaled(bytes));
        let mut e = Estimator::default();
        let mut rest = bytes;
        while !rest.is_empty() {
            let n = (1 + rng.below(7)).min(rest.len());
            e.feed(&rest[..n]);
            rest = &rest[n..];
            d.add(e.total_scaled());
        }
        for (at, cost) in tokens::boundaries(bytes) {
            d.add(at as u64);
            d.add(cost);
        }
        for &budget in budgets {
            d.add(tokens::tail_start(bytes, budget) as u64);
            let mut e = Estimator::default();
            let cut = bytes.chunks(1 + rng.below(4096)).find_map(|c| e.cut_after(c, budget));
            d.add(cut.or_else(|| e.cut_at_end(budget)).map_or(u64::MAX, |c| c));
        }
    }

    #[test]
    fn figures_of_generated_text() {
        let mut d = Digest::new();
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for round in 0..3000 {
            let bytes = text(&mut rng, 1 + round % 60);
            figures(&mut d, &mut rng, &bytes, &[0, 1, 3, 10, 40]);
        }
        assert_eq!(d.0, 6_055_387_555_579_882_003);
    }

    #[test]
    fn figures_of_the_corpora() {
        let mut d = Digest::new();
        let mut rng = Rng(12);
        for name in [
            "prose",
            "logs",
            "rust",
            "python",
            "javascript",
            "json",
            "minified",
            "blobs",
            "cjk",
            "mix",
            "ansi",
            "blank",
        ] {
            let path = format!("{}/../core/tests/fixtures/tokens/{name}.txt", env!("CARGO_MANIFEST_DIR"));
            let bytes = std::fs::read(path).expect("the corpora are in the repository");
            figures(&mut d, &mut rng, &bytes, &[1, 100, 5000]);
        }
        assert_eq!(d.0, 10_119_150_629_987_985_033);
    }
}
