//! The search for matching lines against `regex` applied line by line.
//!
//! `--max-matches` with `--pattern`, and `--keep`, run their pattern over
//! many lines at once and look for the line around each match. Whatever
//! the pattern (anchors, classes that match `\n` or `\r`, case, literals),
//! the input (`\r\n`, lone `\r`, NUL, invalid UTF-8, empty lines) and the
//! reads, the lines they find must be exactly those that a naive model
//! finds: `regex::bytes::Regex` run on each line's content alone, cut to
//! the first `pattern_line` bytes on a character boundary.

use capout_core::{CapSpec, Keep, Options, Pattern};
use capout_testkit::{Chunked, Rng};
use regex::bytes::{Regex, RegexBuilder};

/// Patterns that stress a search over many lines: anchors of every kind,
/// classes that match a line's ending, matches that could cross lines,
/// empty matches, word boundaries, case, bytes that are not UTF-8.
const REGEXES: &[&str] = &[
    "a",
    "^a",
    "a$",
    "^$",
    "^",
    "$",
    r"\s",
    r"\s$",
    "[^x]",
    "^[^a]",
    "a|b$",
    "(?i)A",
    r"x\s*$",
    r"\ba\b",
    r"\Ba",
    r"a\r",
    r"\r$",
    r"^\r",
    ".",
    "^.$",
    "a.b",
    "(?s)a.b",
    r"\Aa",
    r"b\z",
    r"\Ab\z",
    "(?m)^b",
    "(?m)a$",
    "(?mR)a$",
    "(?mR)^b",
    "(?-m)^x",
    "\u{e9}",
    "[\u{e9}\u{20ac}]",
    r"\x00",
    r"(?-u:\xff)",
    "ab|ba",
    "a+$",
    "x*",
    r"\n",
    r"a\nb",
    r"[\s\S]b",
    r"^\s*$",
    r"\w$",
    r"^\W",
    "b{2}",
];

/// Literals for `--fixed-strings`.
const LITERALS: &[&str] = &["a", "ab", "\r", "a\r", "", "\u{e9}", "\n", "x\n", "A", "b\u{e9}"];

/// Line contents from a small alphabet, and line endings.
const ATOMS: &[&[u8]] = &[
    b"a",
    b"a",
    b"b",
    b"A",
    b"x",
    b" ",
    b"\t",
    b"\r",
    b"\0",
    b"\xc3\xa9",
    b"\xe2\x82\xac",
    b"\xff",
    b"\xe2\x82",
    b"\n",
    b"\n",
    b"\n",
    b"\r\n",
];

fn random_input(rng: &mut Rng) -> Vec<u8> {
    // Mostly short inputs; some of many lines, so that one read holds
    // runs of them.
    let atoms = if rng.below(4) == 0 { 300 } else { rng.below(40) } as usize;
    (0..atoms).flat_map(|_| ATOMS[rng.below(ATOMS.len() as u64) as usize].iter().copied()).collect()
}

/// The first `limit` bytes of `content`, backed off to the start of the
/// character there; a byte of an invalid sequence is a character (the
/// maximal subpart rule).
fn seen(content: &[u8], limit: usize) -> &[u8] {
    let mut end = 0;
    for chunk in content.utf8_chunks() {
        let sizes = chunk.valid().chars().map(char::len_utf8).chain(
            // An invalid piece is one character.
            (!chunk.invalid().is_empty()).then_some(chunk.invalid().len()),
        );
        for size in sizes {
            if end + size > limit {
                return &content[..end];
            }
            end += size;
        }
    }
    content
}

/// The lines of `input` with their numbers, each without its ending.
fn contents(input: &[u8]) -> Vec<(usize, &[u8])> {
    input
        .split_inclusive(|&b| b == b'\n')
        .map(|line| match line.strip_suffix(b"\n") {
            Some(body) => body.strip_suffix(b"\r").unwrap_or(body),
            None => line,
        })
        .enumerate()
        .map(|(i, body)| (i + 1, body))
        .collect()
}

/// The naive model: the numbers of the lines `regex` matches on their
/// first `limit` bytes.
fn model(input: &[u8], regex: &Regex, limit: usize) -> Vec<usize> {
    contents(input)
        .into_iter()
        .filter(|(_, body)| regex.is_match(seen(body, limit)))
        .map(|(n, _)| n)
        .collect()
}

fn run(input: &[u8], config: &Options, sizes: &[usize]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut err = Vec::new();
    let config = {
        let mut options = config.clone();
        options.read_size = sizes.iter().copied().max().unwrap_or(1);
        options
    };
    capout_core::run(&config, Chunked::new(input, sizes), &mut out, &mut err).expect("in-memory run");
    assert!(err.is_empty(), "{}", String::from_utf8_lossy(&err));
    out
}

/// What `-m` with `-N` and no line cap prints for the lines `numbers`.
fn numbered(input: &[u8], numbers: &[usize]) -> Vec<u8> {
    let lines: Vec<&[u8]> = input.split_inclusive(|&b| b == b'\n').collect();
    let mut out = Vec::new();
    for &n in numbers {
        out.extend_from_slice(format!("{n:>6}\t").as_bytes());
        out.extend_from_slice(lines[n - 1]);
    }
    if numbers.is_empty() {
        out.extend_from_slice(b"No matches found.\n");
    }
    out
}

/// What `--head-lines 1 --keep` prints after its notice for the lines
/// `numbers` (line 1 is kept, so never rescued).
fn rescued(input: &[u8], pattern: &str, numbers: &[usize]) -> Vec<u8> {
    let lines = contents(input);
    let numbers: Vec<usize> = numbers.iter().copied().filter(|&n| n > 1).collect();
    if numbers.is_empty() {
        return Vec::new();
    }
    let mut out = format!("... (cut lines matching {pattern}: {})\n", numbers.len()).into_bytes();
    for n in numbers {
        out.extend_from_slice(format!("{n}:").as_bytes());
        out.extend_from_slice(lines[n - 1].1);
        out.push(b'\n');
    }
    out
}

/// Read sizes: 1 to 7 bytes in turn, or one large read.
fn random_sizes(rng: &mut Rng) -> Vec<usize> {
    match rng.below(4) {
        0 => vec![1 << 16],
        1 => vec![1 + rng.below(7) as usize],
        _ => (0..=rng.below(6)).map(|_| 1 + rng.below(7) as usize).collect(),
    }
}

#[test]
fn max_matches_finds_the_lines_that_regex_matches_line_by_line() {
    let mut rng = Rng::new(0x005e_a7c4);
    for case in 0..3000 {
        let input = random_input(&mut rng);
        let fixed = rng.below(4) == 0;
        let text = if fixed {
            LITERALS[rng.below(LITERALS.len() as u64) as usize]
        } else {
            REGEXES[rng.below(REGEXES.len() as u64) as usize]
        };
        let ignore_case = rng.below(3) == 0;
        let limit = if rng.below(2) == 0 {
            1 + rng.below(12) as usize
        } else {
            capout_core::Limits::default().pattern_line
        };
        let naive = RegexBuilder::new(&if fixed { regex::escape(text) } else { text.to_owned() })
            .case_insensitive(ignore_case)
            .build()
            .expect("test patterns are valid");
        let want = model(&input, &naive, limit);
        let config = {
            let mut options = Options::new(CapSpec::MaxMatches(u64::MAX));
            options.pattern = Some(Pattern { text: text.into(), fixed });
            options.ignore_case = ignore_case;
            options.line_numbers = true;
            options.max_line_chars = Some(0);
            options.limits = capout_core::Limits { pattern_line: limit, ..capout_core::Limits::default() };
            options
        };
        for sizes in [random_sizes(&mut rng), random_sizes(&mut rng)] {
            let got = run(&input, &config, &sizes);
            let want = numbered(&input, &want);
            assert!(
                got == want,
                "case {case}: {text:?} fixed {fixed} -i {ignore_case} window {limit}, reads {sizes:?}\n\
                 input: {:?}\nwant: {:?}\ngot:  {:?}",
                String::from_utf8_lossy(&input),
                String::from_utf8_lossy(&want),
                String::from_utf8_lossy(&got),
            );
        }
    }
}

/// Past its cap `-m` only counts the lines that match (it no longer
/// numbers them): the total in its notice is still the model's.
#[test]
fn max_matches_counts_the_lines_past_its_cap_that_regex_matches() {
    let mut rng = Rng::new(0x00c0_07ed);
    for case in 0..3000 {
        // Many lines, so that the count runs on through later reads.
        let input: Vec<u8> = (0..2).flat_map(|_| random_input(&mut rng)).collect();
        let text = REGEXES[rng.below(REGEXES.len() as u64) as usize];
        let ignore_case = rng.below(3) == 0;
        let cap = 1 + rng.below(3);
        let naive = RegexBuilder::new(text).case_insensitive(ignore_case).build().expect("valid");
        let found = model(&input, &naive, capout_core::Limits::default().pattern_line);
        let shown = found.len().min(cap as usize);
        let mut want = numbered(&input, &found[..shown]);
        if found.is_empty() {
            want = b"No matches found.\n".to_vec();
        } else if found.len() > shown {
            want.extend_from_slice(format!("... ({} total, showing first {cap})\n", found.len()).as_bytes());
        }
        let config = {
            let mut options = Options::new(CapSpec::MaxMatches(cap));
            options.pattern = Some(Pattern { text: text.into(), fixed: false });
            options.ignore_case = ignore_case;
            options.line_numbers = true;
            options.max_line_chars = Some(0);
            options
        };
        for sizes in [random_sizes(&mut rng), random_sizes(&mut rng)] {
            let got = run(&input, &config, &sizes);
            assert!(
                got == want,
                "case {case}: {text:?} -i {ignore_case} -m {cap}, reads {sizes:?}\n\
                 input: {:?}\nwant: {:?}\ngot:  {:?}",
                String::from_utf8_lossy(&input),
                String::from_utf8_lossy(&want),
                String::from_utf8_lossy(&got),
            );
        }
    }
}

#[test]
fn keep_rescues_the_lines_that_regex_matches_line_by_line() {
    let mut rng = Rng::new(0x6ee9);
    for case in 0..2000 {
        let input = random_input(&mut rng);
        let text = REGEXES[rng.below(REGEXES.len() as u64) as usize];
        let ignore_case = rng.below(3) == 0;
        let limit = if rng.below(2) == 0 {
            1 + rng.below(12) as usize
        } else {
            capout_core::Limits::default().pattern_line
        };
        let naive = RegexBuilder::new(text).case_insensitive(ignore_case).build().expect("valid");
        let want = rescued(&input, text, &model(&input, &naive, limit));
        let config = {
            let mut options = Options::new(CapSpec::HeadLines { limit: 1, offset: 0 });
            options.keep = Some(Keep { pattern: text.into(), max: u64::MAX });
            options.ignore_case = ignore_case;
            options.max_line_chars = Some(u64::MAX);
            options.limits = capout_core::Limits { pattern_line: limit, ..capout_core::Limits::default() };
            options
        };
        for sizes in [random_sizes(&mut rng), random_sizes(&mut rng)] {
            let out = run(&input, &config, &sizes);
            // What follows the --head-lines notice, if anything was cut.
            let got = match out.windows(12).position(|w| w == b"next offset ") {
                Some(at) => {
                    let end = at + out[at..].iter().position(|&b| b == b'\n').expect("a notice line") + 1;
                    out[end..].to_vec()
                }
                None => Vec::new(),
            };
            assert!(
                got == want,
                "case {case}: {text:?} -i {ignore_case} window {limit}, reads {sizes:?}\n\
                 input: {:?}\nwant: {:?}\ngot:  {:?}",
                String::from_utf8_lossy(&input),
                String::from_utf8_lossy(&want),
                String::from_utf8_lossy(&got),
            );
        }
    }
}
