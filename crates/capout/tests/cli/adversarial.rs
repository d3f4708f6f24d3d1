//! Hostile input and faults: the binary must keep the contract, never
//! panic, never hang, and never lose what it was told to keep.

use std::io::{Read, Write};
use std::process::{Child, Stdio};

// The binary's own option parser, so that the model sees the config
// that the binary runs with.
use capout::cli::{self, Action};
use capout_testkit::model::model;

fn spawn(args: &[&str]) -> Child {
    crate::common::capout_std()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("capout starts")
}

/// Runs the binary on `input` written from a thread; returns (status, stdout, stderr).
fn run(args: &[&str], input: Vec<u8>) -> (Option<i32>, Vec<u8>, String) {
    let mut child = spawn(args);
    let mut stdin = child.stdin.take().expect("piped stdin");
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("capout ends");
    writer.join().expect("the writer ends");
    (out.status.code(), out.stdout, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// The binary's output for `args` must equal the model's for the same
/// parsed config.
fn agrees_with_model(args: &[&str], input: &[u8]) {
    let Ok(Action::Run(config)) = cli::try_parse(std::iter::once("capout").chain(args.iter().copied()), None)
    else {
        panic!("valid arguments: {args:?}")
    };
    let (status, stdout, stderr) = run(args, input.to_vec());
    assert_eq!((status, stderr.as_str()), (Some(0), ""), "{args:?}");
    let want = model(input, &config.options);
    assert!(stdout == want, "capout {args:?} differs from the model on {} bytes of input", input.len());
}

const CAPS: &[&[&str]] = &[
    &["-c", "5000"],
    &["-n", "500"],
    &["-m", "50"],
    &["--head-chars", "100"],
    &["--tail-lines", "20"],
    &["-n", "3", "--tail-lines", "3"],
    &["--head-chars", "7", "-c", "7"],
    &["-m", "5", "-e", "[\\x00-\\x1f]{3}"],
    &["--tail-lines", "5", "--keep", "\\xff", "--strip-ansi", "--collapse-cr"],
    &["-c", "9", "--bytes", "--keep", "a"],
];

#[test]
fn random_bytes_from_dev_urandom() {
    let mut input = vec![0; 1 << 20];
    std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut input)).expect("/dev/urandom");
    for args in CAPS {
        agrees_with_model(args, &input);
    }
}

#[test]
fn broken_utf8_of_every_kind() {
    // Lone surrogates, overlong forms, code points past U+10FFFF, stray
    // continuation bytes, a sequence cut off at the end.
    let input = b"\xed\xa0\x80|\xed\xbf\xbf|\xc0\xaf|\xe0\x80\xaf|\xf0\x80\x80\xaf|\xf4\x90\x80\x80|\x80\xbf|\xf0\x9f\x98";
    for n in ["1", "2", "3", "5", "8", "13"] {
        agrees_with_model(&["-c", n], input);
        agrees_with_model(&["--head-chars", n], input);
        agrees_with_model(&["-n", "1", "--max-line-chars", n], input);
    }
    let (_, out, _) = run(&["-c", "3"], b"a\xed\xa0\x80".to_vec());
    assert_eq!(out, b"\xed\xa0\x80\n... (truncated, showing last 3 chars)\n");
}

#[test]
fn a_64_mib_line_without_a_newline_streams_through_every_cap() {
    const SIZE: usize = 64 << 20;
    let x = |n: usize| "x".repeat(n);
    let marker = " ... (line truncated to 2000 chars)";
    for (args, want) in [
        (&["-c", "5000"][..], format!("{}\n... (truncated, showing last 5000 chars)\n", x(5000))),
        (&["-n", "500"], format!("{}{marker}", x(2000))),
        (&["-m", "50"], format!("{}{marker}", x(2000))),
        (&["--tail-lines", "3"], format!("{}{marker}", x(2000))),
        (&["-m", "5", "-e", "y"], "No matches found.\n".to_owned()),
    ] {
        let mut child = spawn(args);
        let mut stdin = child.stdin.take().expect("piped stdin");
        // A generator, not a file: 1 MiB at a time.
        let writer = std::thread::spawn(move || {
            let chunk = vec![b'x'; 1 << 20];
            for _ in 0..SIZE >> 20 {
                stdin.write_all(&chunk).expect("capout reads all of its input");
            }
        });
        let out = child.wait_with_output().expect("capout ends");
        writer.join().expect("the writer ends");
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stdout) == want, "{args:?}");
    }
}

#[test]
fn streams_of_carriage_returns_and_escapes() {
    let crs = vec![b'\r'; 1 << 20];
    agrees_with_model(&["--collapse-cr"], &crs);
    agrees_with_model(&["-c", "5"], &crs);
    agrees_with_model(&["-n", "1"], &crs);
    let (_, out, _) = run(&["--collapse-cr", "-n", "3"], crs);
    assert_eq!(out, b"(no output)\n");
    let escapes = vec![0x1b; 1 << 20];
    agrees_with_model(&["--strip-ansi"], &escapes);
    agrees_with_model(&["-c", "3"], &escapes);
    let (_, out, _) = run(&["--strip-ansi"], escapes);
    assert_eq!(out, b"(no output)\n");
}

#[test]
fn lines_of_exactly_w_and_w_plus_one_characters_at_every_cap() {
    for input in
        ["abcd\nabcde\nabc\r\nabcd\r\n", "\u{e9}\u{e9}\u{e9}\u{e9}\n\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\n"]
    {
        for cap in [&["-n", "5"][..], &["--tail-lines", "5"], &["-m", "5"], &["-n", "1", "--tail-lines", "1"]]
        {
            for extra in [&["--max-line-chars", "4"][..], &["--max-line-chars", "4", "--bytes"], &["-N"]] {
                let args: Vec<&str> = cap.iter().chain(extra).copied().collect();
                agrees_with_model(&args, input.as_bytes());
            }
        }
        agrees_with_model(&["-c", "4", "--max-line-chars", "4"], input.as_bytes());
    }
}

#[test]
fn caps_of_one_and_of_the_largest_value() {
    let input = b"first\nsecond\r\n\xff third\nlast";
    let max = "18446744073709551615";
    for n in ["1", max] {
        for args in [
            &["-c", n][..],
            &["--head-chars", n],
            &["-n", n],
            &["--tail-lines", n],
            &["-m", n],
            &["-n", n, "--tail-lines", n],
            &["--head-chars", n, "-c", n],
            &["-n", n, "--offset", max],
            &["--tail-lines", "1", "--keep", "t", "--keep-max", n],
        ] {
            agrees_with_model(args, input);
        }
    }
}

/// Closes capout's stdout after reading `keep` bytes of it; capout must
/// end quietly with status 0 and nothing on stderr.
fn close_stdout_after(args: &[&str], input: Vec<u8>, keep: usize) -> Vec<u8> {
    let mut child = spawn(args);
    let mut stdin = child.stdin.take().expect("piped stdin");
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let mut stdout = child.stdout.take().expect("piped stdout");
    let mut got = vec![0; keep];
    stdout.read_exact(&mut got).expect("capout writes that much");
    drop(stdout);
    let out = child.wait_with_output().expect("capout ends");
    writer.join().expect("the writer ends");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{args:?}");
    assert_eq!(out.status.code(), Some(0), "{args:?}");
    got
}

#[test]
fn a_closed_stdout_at_every_stage_ends_quietly() {
    let lines: Vec<u8> = (0..200_000).flat_map(|i| format!("{i:07}\n").into_bytes()).collect();
    // Before any output.
    close_stdout_after(&["-c", "5000"], lines.clone(), 0);
    close_stdout_after(&["-n", "500"], lines.clone(), 0);
    // Mid-output: a head cap streaming, a tail cap writing its end.
    let got = close_stdout_after(&["-n", "100000", "--max-line-chars", "0"], lines.clone(), 8000);
    assert_eq!(got, lines[..8000]);
    let kept = 1_000_000;
    let got = close_stdout_after(&["-c", "1000000"], lines.clone(), 500_000);
    assert_eq!(got, lines[lines.len() - kept..][..500_000]);
    // During the notice: all the kept output read, the notice not.
    let got = close_stdout_after(&["-c", "1000000"], lines.clone(), kept);
    assert_eq!(got, lines[lines.len() - kept..]);
}

#[test]
fn unreadable_stdin_is_one_error_line() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("write-only");
    let write_only = std::fs::File::create(&path).expect("a file");
    let out = crate::common::capout_std().stdin(write_only).output().expect("capout runs");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "capout: error reading input: Bad file descriptor (os error 9)\n"
    );
    assert!(out.stdout.is_empty());
}
