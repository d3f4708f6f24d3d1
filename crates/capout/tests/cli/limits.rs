//! The internal limits on what one line may hold in memory: the stretch
//! that `--collapse-cr` holds and the part of a line that patterns see.
//! Past them, as below them, the output depends on the input alone, never
//! on how reads split it.

use std::io::Write;
use std::process::Stdio;

use capout_core::{CapSpec, Options, Pattern};
use capout_testkit::Chunked;

/// The output of the library for `input` read in reads of `size` bytes.
fn run_in_reads(config: &Options, input: &[u8], size: usize) -> Vec<u8> {
    let config = {
        let mut options = config.clone();
        options.read_size = size;
        options
    };
    let mut out = Vec::new();
    capout_core::run(&config, Chunked::new(input, &[size]), &mut out, &mut Vec::new())
        .expect("in-memory run");
    out
}

/// The output of the binary for `input` written to a pipe in writes of
/// `size` bytes.
fn capout_on_pipe(args: &[&str], input: &[u8], size: usize) -> Vec<u8> {
    let mut child = crate::common::capout_std()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("capout starts");
    let mut stdin = child.stdin.take().expect("piped stdin");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        for chunk in input.chunks(size) {
            stdin.write_all(chunk).expect("capout reads its input");
        }
    });
    let out = child.wait_with_output().expect("capout ends");
    writer.join().expect("the writer ends");
    assert_eq!(out.status.code(), Some(0));
    out.stdout
}

fn capout_on_file(args: &[&str], input: &[u8]) -> Vec<u8> {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("input");
    std::fs::write(&path, input).expect("written");
    let out = crate::common::capout_std()
        .args(args)
        .stdin(std::fs::File::open(&path).expect("opened"))
        .output()
        .expect("capout runs");
    assert_eq!(out.status.code(), Some(0));
    out.stdout
}

/// 70,000 `x` are more than `--collapse-cr` holds: they were passed on
/// before the `\r` came, so the `\r` erases nothing of them.
#[test]
fn collapse_cr_past_its_limit_gives_the_same_output_for_every_read_size() {
    let mut input = vec![b'x'; 70_000];
    input.extend_from_slice(b"\rDONE\n");
    let want = b"xxxxxDONE\n... (truncated, showing last 10 chars)\n";
    let config = {
        let mut options = Options::new(CapSpec::TailChars(10));
        options.collapse_cr = true;
        options
    };
    for size in [1, 7, 4096, 65_536, 1 << 20] {
        let got = run_in_reads(&config, &input, size);
        assert_eq!(String::from_utf8_lossy(&got), String::from_utf8_lossy(want), "reads of {size}");
    }
    let args = ["-c", "10", "--collapse-cr"];
    assert_eq!(String::from_utf8_lossy(&capout_on_file(&args, &input)), String::from_utf8_lossy(want));
    for size in [4096, 1000] {
        let got = capout_on_pipe(&args, &input, size);
        assert_eq!(String::from_utf8_lossy(&got), String::from_utf8_lossy(want), "writes of {size}");
    }
}

/// Below the limit a `\r` erases the stretch before it, whatever the reads.
#[test]
fn collapse_cr_below_its_limit_erases_the_stretch() {
    let mut input = vec![b'x'; 60_000];
    input.extend_from_slice(b"\rDONE\n");
    let config = {
        let mut options = Options::new(CapSpec::TailChars(10));
        options.collapse_cr = true;
        options
    };
    for size in [1, 4096, 65_536, 1 << 20] {
        assert_eq!(run_in_reads(&config, &input, size), b"DONE\n", "reads of {size}");
    }
}

/// A line longer than patterns see is matched on its start only, whether
/// it arrives in one read or in many.
#[test]
fn a_line_past_the_pattern_window_is_matched_on_its_start_for_every_read_size() {
    let window = capout_core::Limits::default().pattern_line;
    let mut late = vec![b'a'; window];
    late.extend_from_slice(b"needle\n");
    let mut early = b"needle".to_vec();
    early.extend_from_slice(&vec![b'a'; window]);
    early.push(b'\n');
    let config = {
        let mut options = Options::new(CapSpec::MaxMatches(5));
        options.pattern = Some(Pattern { text: "needle".into(), fixed: false });
        options.max_line_chars = Some(8);
        options
    };
    for size in [4096, 65_536, 1 << 20] {
        assert_eq!(run_in_reads(&config, &late, size), b"No matches found.\n", "reads of {size}");
        assert_eq!(
            String::from_utf8_lossy(&run_in_reads(&config, &early, size)),
            "needleaa ... (line truncated to 8 chars)\n",
            "reads of {size}"
        );
    }
}

/// A line whose content fills the window exactly is seen whole, its
/// `\r\n` ending apart, however the ending is split.
#[test]
fn a_line_that_fills_the_pattern_window_is_seen_whole() {
    let window = capout_core::Limits::default().pattern_line;
    let mut input = vec![b'a'; window - 1];
    input.extend_from_slice(b"z\r\n");
    let config = {
        let mut options = Options::new(CapSpec::MaxMatches(5));
        options.pattern = Some(Pattern { text: "z$".into(), fixed: false });
        options.max_line_chars = Some(3);
        options
    };
    for size in [1 << 20, 65_536, window, window + 1, window + 2] {
        assert_eq!(
            String::from_utf8_lossy(&run_in_reads(&config, &input, size)),
            "aaa ... (line truncated to 3 chars)\r\n",
            "reads of {size}"
        );
    }
}
