//! The engine against a naive model of the spec.
//!
//! Random inputs, heavy in the cases that break streaming code (multi-byte
//! and invalid UTF-8, `\r\n`, long lines), run through the real engine
//! with reads of 1 to 7 bytes and of 64 KiB. The output must equal what a
//! model that holds the whole input in memory computes, whatever the read
//! sizes, so every chunk boundary is exercised.

mod common;

use capout::{CapSpec, Config, NoticeTarget, Unit};
use common::{Chunked, Rng};

/// The characters of `input` as byte ranges, by std's lossy decoding.
fn char_ranges(input: &[u8]) -> Vec<(usize, usize)> {
    let mut ranges = Vec::new();
    let mut pos = 0;
    for chunk in input.utf8_chunks() {
        for c in chunk.valid().chars() {
            ranges.push((pos, pos + c.len_utf8()));
            pos += c.len_utf8();
        }
        if !chunk.invalid().is_empty() {
            ranges.push((pos, pos + chunk.invalid().len()));
            pos += chunk.invalid().len();
        }
    }
    ranges
}

fn units(input: &[u8], unit: Unit) -> Vec<(usize, usize)> {
    match unit {
        Unit::Chars => char_ranges(input),
        Unit::Bytes => (0..input.len()).map(|i| (i, i + 1)).collect(),
    }
}

fn unit_name(unit: Unit) -> &'static str {
    if unit == Unit::Bytes { "bytes" } else { "chars" }
}

/// One line as the line caps write it.
fn shape_line(line: &[u8], number: usize, config: &Config) -> Vec<u8> {
    let mut out = Vec::new();
    if config.line_numbers {
        out.extend_from_slice(format!("{number:>6}\t").as_bytes());
    }
    let ending: &[u8] = if line.ends_with(b"\r\n") {
        b"\r\n"
    } else if line.ends_with(b"\n") {
        b"\n"
    } else {
        b""
    };
    let body = &line[..line.len() - ending.len()];
    let body_units = units(body, config.unit);
    match config.max_line {
        Some(w) if body_units.len() as u64 > w => {
            out.extend_from_slice(&body[..body_units[w as usize - 1].1]);
            out.extend_from_slice(
                format!(" ... (line truncated to {w} {})", unit_name(config.unit)).as_bytes(),
            );
        }
        _ => out.extend_from_slice(body),
    }
    out.extend_from_slice(ending);
    out
}

fn with_notice(mut out: Vec<u8>, notice: Option<String>) -> Vec<u8> {
    if let Some(notice) = notice {
        if out.last().is_some_and(|&b| b != b'\n') {
            out.push(b'\n');
        }
        out.extend_from_slice(notice.as_bytes());
        out.push(b'\n');
    }
    out
}

/// What capout must print for `input`, computed the naive way.
fn model(input: &[u8], config: &Config) -> Vec<u8> {
    let lines: Vec<&[u8]> = input.split_inclusive(|&b| b == b'\n').collect();
    let total_lines = lines.len();
    let window = |from: usize, to: usize| -> Vec<u8> {
        lines[from..to].iter().enumerate().flat_map(|(i, l)| shape_line(l, from + i + 1, config)).collect()
    };
    let u = units(input, config.unit);
    let name = unit_name(config.unit);
    match config.cap {
        _ if input.is_empty() && matches!(config.cap, CapSpec::MaxMatches(_)) => {
            with_notice(Vec::new(), Some("No matches found.".into()))
        }
        _ if input.is_empty() => with_notice(Vec::new(), Some("(no output)".into())),
        CapSpec::TailChars(n) => {
            let n = n as usize;
            if u.len() <= n {
                input.to_vec()
            } else {
                let out = input[u[u.len() - n].0..].to_vec();
                with_notice(out, Some(format!("... (truncated, showing last {n} {name})")))
            }
        }
        CapSpec::HeadChars(n) => {
            let n = n as usize;
            if u.len() <= n {
                input.to_vec()
            } else {
                let out = input[..u[n].0].to_vec();
                with_notice(out, Some(format!("... (truncated, showing first {n} {name})")))
            }
        }
        CapSpec::HeadLines { limit, offset } => {
            let (k, n) = (offset as usize, limit as usize);
            if k >= total_lines {
                return with_notice(
                    Vec::new(),
                    Some(format!("... (offset {k} is past the end, input has {total_lines} lines)")),
                );
            }
            let b = (k + n).min(total_lines);
            let notice = (b < total_lines).then(|| {
                format!("... (truncated, showing lines {}-{b} of {total_lines}, next offset {b})", k + 1)
            });
            with_notice(window(k, b), notice)
        }
        CapSpec::MaxMatches(n) => {
            let n = n as usize;
            let notice = (total_lines > n).then(|| format!("... ({total_lines} total, showing first {n})"));
            with_notice(window(0, n.min(total_lines)), notice)
        }
    }
}

fn random_config(rng: &mut Rng) -> Config {
    let n = 1 + rng.below(12);
    let cap = match rng.below(4) {
        0 => CapSpec::TailChars(n),
        1 => CapSpec::HeadChars(n),
        2 => CapSpec::HeadLines { limit: n, offset: rng.below(6) },
        _ => CapSpec::MaxMatches(n),
    };
    let line_cap = matches!(cap, CapSpec::HeadLines { .. } | CapSpec::MaxMatches(_));
    Config {
        cap,
        unit: if rng.below(4) == 0 { Unit::Bytes } else { Unit::Chars },
        max_line: if line_cap && rng.below(2) == 0 { Some(1 + rng.below(6)) } else { None },
        line_numbers: line_cap && rng.below(3) == 0,
        notice: NoticeTarget::Stdout,
        read_size: 1,
    }
}

fn run(input: &[u8], config: &Config, sizes: &[usize]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut err = Vec::new();
    capout::run(config, Chunked::new(input, sizes), &mut out, &mut err).expect("in-memory run");
    assert!(err.is_empty());
    out
}

#[test]
fn engine_matches_the_model_at_every_read_size() {
    let mut rng = Rng::new(0x5eed);
    for case in 0..3000 {
        let atoms = rng.below(60) as usize;
        let input = rng.text(atoms);
        let config = random_config(&mut rng);
        let want = model(&input, &config);
        for sizes in [&[1][..], &[2], &[3], &[4], &[5], &[6], &[7], &[1, 7, 2, 5, 3], &[65536]] {
            let config = Config { read_size: *sizes.iter().max().unwrap_or(&1), ..config.clone() };
            let got = run(&input, &config, sizes);
            assert!(
                got == want,
                "case {case}, reads {sizes:?}, {config:?}\ninput: {input:?}\nwant:  {:?}\ngot:   {:?}",
                String::from_utf8_lossy(&want),
                String::from_utf8_lossy(&got),
            );
        }
    }
}
