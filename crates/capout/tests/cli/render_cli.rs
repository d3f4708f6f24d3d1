//! `--render` (SPEC §12) through the binary and the library: the caps,
//! totals, notices, `--keep`, `--save` and `--json` work on the rendered
//! rows, the output does not depend on how reads split the input, and the
//! sizes are checked. That the rows themselves are what a terminal shows
//! is tests/render.rs's work, against tmux.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use capout_core::{CapSpec, Options};
use capout_testkit::Chunked;

fn capout() -> Command {
    crate::common::capout()
}

fn fixture(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/render").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Runs capout with `args` on `input`; returns stdout, checking that it
/// exits 0 with nothing on stderr.
fn run(args: &[&str], input: &[u8]) -> String {
    let out = capout().args(args).write_stdin(input).output().expect("capout runs");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "", "stderr of {args:?}");
    assert_eq!(out.status.code(), Some(0), "status of {args:?}");
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// The rows of tests/fixtures/render/dpkg.bin: dpkg's progress bar, pinned
/// to the last row, is gone; the unpacking lines stay.
fn dpkg_rows() -> String {
    let mut rows = String::new();
    for n in 1..=40 {
        let _ = writeln!(rows, "Unpacking package-{n} (1.0-{n}) ...");
    }
    rows.push_str("Processing triggers for man-db ...\n");
    rows
}

#[test]
fn render_shows_what_the_terminal_shows() {
    assert_eq!(run(&["--render", "--notice", "none", "-c", "100000"], &fixture("dpkg.bin")), dpkg_rows());
    // npm's spinner, `⠙ ESC[1G ESC[0K`, leaves an empty row.
    assert_eq!(run(&["--render"], &fixture("npm.real")), "\nadded 1 package in 896ms\n");
    // The same bytes with --strip-ansi --collapse-cr keep the spinner.
    assert_eq!(
        run(&["--strip-ansi", "--collapse-cr"], &fixture("npm.real")),
        "⠙⠹⠸\r\nadded 1 package in 896ms\r\n⠸"
    );
}

#[test]
fn render_implies_strip_ansi_and_collapse_cr_which_change_nothing_beside_it() {
    for name in ["npm.real", "dpkg.bin", "cr.bin", "tqdm.real"] {
        let input = fixture(name);
        let alone = run(&["--render", "-c", "100000"], &input);
        for extra in [&["--strip-ansi"][..], &["--collapse-cr"], &["--strip-ansi", "--collapse-cr"]] {
            let args = [&["--render", "-c", "100000"][..], extra].concat();
            assert_eq!(run(&args, &input), alone, "{name} with {extra:?}");
        }
    }
}

#[test]
fn caps_count_rendered_rows() {
    let input = fixture("dpkg.bin");
    assert_eq!(
        run(&["--render", "-n", "2"], &input),
        "Unpacking package-1 (1.0-1) ...\nUnpacking package-2 (1.0-2) ...\n\
         ... (truncated, showing lines 1-2 of 41, next offset 2)\n"
    );
    assert_eq!(
        run(&["--render", "-n", "1", "--offset", "39"], &input),
        "Unpacking package-40 (1.0-40) ...\n... (truncated, showing lines 40-40 of 41, next offset 40)\n"
    );
    assert_eq!(
        run(&["--render", "--tail-lines", "1", "-N"], &input),
        "    41\tProcessing triggers for man-db ...\n... (truncated, showing last 1 lines)\n"
    );
    assert_eq!(run(&["--render", "-m", "1", "-e", "man-db"], &input), "Processing triggers for man-db ...\n");
    assert_eq!(
        run(&["--render", "-c", "35"], &input),
        "Processing triggers for man-db ...\n... (truncated, showing last 35 chars)\n"
    );
    // The rows are counted, not the bytes of the stream: 41 rows, and
    // the characters of the rows.
    let rows = dpkg_rows();
    let template = "{total} {unit}";
    assert_eq!(
        run(&["--render", "-n", "1", "--notice-format", template], &input),
        "Unpacking package-1 (1.0-1) ...\n41 lines\n"
    );
    let total = rows.chars().count();
    assert_eq!(
        run(&["--render", "-c", "1", "--notice-format", template], &input),
        format!("\n{total} chars\n")
    );
}

#[test]
fn keep_rescues_rendered_rows() {
    assert_eq!(
        run(&["--render", "-n", "1", "--keep", "package-4"], &fixture("dpkg.bin")),
        "Unpacking package-1 (1.0-1) ...\n\
         ... (truncated, showing lines 1-1 of 41, next offset 1)\n\
         ... (cut lines matching package-4: 2)\n\
         4:Unpacking package-4 (1.0-4) ...\n\
         40:Unpacking package-40 (1.0-40) ...\n"
    );
}

#[test]
fn json_speaks_of_rendered_rows() {
    let out = run(&["--render", "-c", "10", "--json"], &fixture("npm.real"));
    let v: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    assert_eq!(
        v,
        serde_json::json!({
            "output": " in 896ms\n", "cap": "tail-chars", "error": null, "exit_code": 0,
            "limit": 10, "budget": null, "matches": null, "notice": "... (truncated, showing last 10 chars)",
            "saved_to": null, "signal": null, "timed_out": false,
            "total_bytes": 26, "total_chars": 26, "total_lines": 2, "truncated": true,
            "unit": "chars", "omitted": 16, "first": null, "last": null, "next_offset": null,
            "total_tokens": null, "tokenizer": null, "json_items_kept": null, "json_items": null,
            "json_arrays_cut": null, "json_strings_cut": null, "json_documents_kept": null,
            "json_documents": null, "json_ended_at": null
        })
    );
}

/// `--save` keeps the rendered rows, as the notices count them, so that
/// paging the file gives the rows the notice numbered (SPEC §5).
#[test]
fn save_keeps_the_rendered_rows() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dpkg.log");
    let p = path.display().to_string();
    let input = fixture("dpkg.bin");
    assert_eq!(
        run(&["--render", "-n", "1", "--save", &p], &input),
        format!(
            "Unpacking package-1 (1.0-1) ...\n... (truncated, showing lines 1-1 of 41, next offset 1; full output: {p})\n"
        )
    );
    let saved = std::fs::read(&path).unwrap();
    assert_eq!(saved, run(&["--render", "--notice", "none", "-n", "1000"], &input).into_bytes());
    assert_eq!(
        run(&["-n", "1", "--offset", "1"], &saved),
        "Unpacking package-2 (1.0-2) ...\n... (truncated, showing lines 2-2 of 41, next offset 2)\n"
    );
}

#[test]
fn the_size_is_the_terminal_s() {
    let line = "0123456789".repeat(4);
    // 40 characters on 31 columns: the row wraps, and comes out as the
    // one line it is, as `tmux capture-pane -J` joins it.
    assert_eq!(run(&["--render", "--render-width", "31"], line.as_bytes()), format!("{line}\n"));
    assert_eq!(run(&["--render"], line.as_bytes()), format!("{line}\n"));
    // Two rows: `ESC[H` goes back to the top, where the first row has
    // scrolled off and is final.
    assert_eq!(run(&["--render", "--render-height", "2"], b"a\nb\nc\x1b[Hx"), "a\nx\nc\n");
    assert_eq!(run(&["--render", "--render-height", "3"], b"a\nb\nc\x1b[Hx"), "x\nb\nc\n");
}

#[test]
fn a_size_in_capout_opts_waits_for_render() {
    let line = "0123456789".repeat(4);
    let with_opts = |args: &[&str]| {
        let out = capout()
            .env("CAPOUT_OPTS", "--render-width 31 --render-height 5")
            .args(args)
            .write_stdin(line.clone())
            .output()
            .expect("capout runs");
        assert_eq!(String::from_utf8_lossy(&out.stderr), "");
        String::from_utf8(out.stdout).unwrap()
    };
    assert_eq!(with_opts(&[]), line);
    // Two rows of 31 columns, one line: the height of 5 leaves it whole.
    assert_eq!(with_opts(&["--render", "--render-height", "1", "-n", "1"]), format!("{line}\n"));
    assert_eq!(with_opts(&["--render"]), format!("{line}\n"));
    assert_eq!(with_opts(&["--render", "--render-width", "200"]), format!("{line}\n"));
}

#[test]
fn bad_sizes_are_usage_errors() {
    let cases: [(&[&str], &str); 8] = [
        (
            &["--render", "--render-width", "1"],
            "invalid value '1' for '--render-width <N>': 1 is not in 2 to 10000",
        ),
        (
            &["--render", "--render-width", "0"],
            "invalid value '0' for '--render-width <N>': 0 is not in 2 to 10000",
        ),
        (
            &["--render", "--render-width", "10001"],
            "invalid value '10001' for '--render-width <N>': 10001 is not in 2 to 10000",
        ),
        (
            &["--render", "--render-height", "0"],
            "invalid value '0' for '--render-height <N>': 0 is not in 1 to 1000",
        ),
        (
            &["--render", "--render-height", "1001"],
            "invalid value '1001' for '--render-height <N>': 1001 is not in 1 to 1000",
        ),
        (
            &["--render", "--render-width", "x"],
            "invalid value 'x' for '--render-width <N>': invalid digit found in string",
        ),
        (&["--render-width", "80"], "--render-width goes with --render"),
        (&["--render-height", "24"], "--render-height goes with --render"),
    ];
    for (args, message) in cases {
        let out = capout().args(args).write_stdin("x\n").output().expect("capout runs");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(out.stdout, b"", "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.lines().next(), Some(format!("error: {message}").as_str()), "{args:?}");
    }
    // In CAPOUT_OPTS, an error names it.
    let out = capout().env("CAPOUT_OPTS", "--render --render-width 1").output().expect("capout runs");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("error: in CAPOUT_OPTS: invalid value '1' for '--render-width <N>'"),
        "{stderr}"
    );
}

fn fixtures() -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/render"))
            .expect("the fixture directory")
            .map(|entry| entry.unwrap().path())
            .filter(|path| matches!(path.extension().and_then(|e| e.to_str()), Some("bin" | "real")))
            .collect();
    paths.sort();
    assert!(paths.len() >= 15, "fixtures missing: {paths:?}");
    paths
}

/// The library's output for `input` read in reads of the sizes given, in
/// turn.
fn in_reads(config: &Options, input: &[u8], sizes: &[usize]) -> Vec<u8> {
    let config = {
        let mut options = config.clone();
        options.read_size = sizes.iter().copied().max().unwrap_or(1);
        options
    };
    let mut out = Vec::new();
    capout_core::run(&config, Chunked::new(input, sizes), &mut out, &mut Vec::new()).expect("in-memory run");
    out
}

/// Every fixture, under caps that write as they go and caps that hold
/// back, gives the same output for reads of 1 to 7 bytes as for one read.
#[test]
fn output_is_the_same_for_reads_of_1_to_7_bytes() {
    let caps = [
        CapSpec::TailChars(1_000_000),
        CapSpec::HeadLines { limit: 3, offset: 2 },
        CapSpec::TailLines(4),
        CapSpec::HeadTailChars(40, 40),
    ];
    let patterns: [&[usize]; 9] =
        [&[1], &[2], &[3], &[4], &[5], &[6], &[7], &[1, 2, 3, 4, 5, 6, 7], &[7, 3, 1, 6, 2, 5, 4]];
    for path in fixtures() {
        let input = std::fs::read(&path).unwrap();
        for cap in caps {
            for render in [(200, 50), (31, 7)] {
                let config = {
                    let mut options = Options::new(cap);
                    options.render = Some(render);
                    options
                };
                let whole = in_reads(&config, &input, &[input.len().max(1)]);
                for sizes in patterns {
                    assert!(
                        in_reads(&config, &input, sizes) == whole,
                        "{} with {cap:?} at {render:?} in reads of {sizes:?}",
                        path.display()
                    );
                }
            }
        }
    }
}

/// A read that finishes far more rows than one batch of the stage holds
/// (64 KiB) gives what small reads give.
#[test]
fn a_read_of_many_rows_is_fed_on_in_batches_alike() {
    let mut input = Vec::new();
    for n in 0..30_000 {
        input.extend_from_slice(format!("\x1b[32mline {n}\x1b[0m\r\n").as_bytes());
    }
    let mut expected = String::new();
    for n in 0..30_000 {
        let _ = writeln!(expected, "line {n}");
    }
    let config = {
        let mut options = Options::new(CapSpec::TailChars(1_000_000));
        options.render = Some((200, 50));
        options
    };
    assert_eq!(String::from_utf8(in_reads(&config, &input, &[input.len()])).unwrap(), expected);
    assert_eq!(String::from_utf8(in_reads(&config, &input, &[7])).unwrap(), expected);
    let head = {
        let mut options = config;
        options.cap = CapSpec::HeadLines { limit: 2, offset: 29_000 };
        options
    };
    assert_eq!(
        String::from_utf8(in_reads(&head, &input, &[input.len()])).unwrap(),
        "line 29000\nline 29001\n... (truncated, showing lines 29001-29002 of 30000, next offset 29002)\n"
    );
}
