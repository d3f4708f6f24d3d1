//! Reading only the end of a seekable file: the output must be the same
//! as from a pipe, from the file's current offset on.

use std::io::{Seek, SeekFrom, Write};
use std::process::Stdio;
use std::time::{Duration, Instant};

use capout_testkit::Rng;

fn capout_on_file(args: &[&str], file: std::fs::File) -> Vec<u8> {
    let out = crate::common::capout_std().args(args).stdin(file).output().expect("capout runs");
    assert_eq!(out.status.code(), Some(0));
    out.stdout
}

fn capout_on_pipe(args: &[&str], input: &[u8]) -> Vec<u8> {
    crate::common::capout().args(args).write_stdin(input.to_vec()).output().expect("capout runs").stdout
}

#[test]
fn a_file_gives_the_same_output_as_a_pipe() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut rng = Rng::new(0x5eec);
    for case in 0..40 {
        let atoms = (rng.below(4000) + if case % 5 == 0 { 0 } else { 20 }) as usize;
        let input = rng.text(atoms);
        let path = dir.path().join(format!("{case}.log"));
        std::fs::write(&path, &input).expect("written");
        let skip = if case % 3 == 0 { rng.below(input.len() as u64 + 1) } else { 0 };
        for args in [
            &["-c", "7"][..],
            &["-c", "300"],
            &["-c", "5", "--bytes"],
            &["--tail-lines", "3"],
            &["--tail-lines", "40", "--max-line-chars", "5"],
            &["--tail-lines", "1", "--notice-format", "{shown} {unit}"],
            &["--tail-tokens", "3"],
            &["--tail-tokens", "40"],
        ] {
            let mut file = std::fs::File::open(&path).expect("opened");
            file.seek(SeekFrom::Start(skip)).expect("seekable");
            let want = capout_on_pipe(args, &input[skip as usize..]);
            assert_eq!(capout_on_file(args, file), want, "case {case}, capout {args:?}, from {skip}");
        }
    }
}

/// A token tail cap from a file reads the last `N × 6` bytes when they
/// hold more than N tokens, and its whole ring otherwise: text of many
/// bytes a token (runs of blanks), dense text, and each after the other
/// give what a pipe gives, cut or whole.
#[test]
fn a_token_tail_of_any_density_gives_the_same_output_as_a_pipe() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let dense = "ab, cd 12; ".repeat(400);
    let blanks = format!("x{}\n", " ".repeat(120)).repeat(60);
    for (case, input) in [
        dense.clone(),
        blanks.clone(),
        format!("{dense}{blanks}"),
        format!("{blanks}{dense}"),
        format!("{dense}{}", &blanks[..300]),
        format!("{blanks}{}", &dense[..50]),
    ]
    .iter()
    .enumerate()
    {
        let path = dir.path().join(format!("{case}.txt"));
        std::fs::write(&path, input).expect("written");
        for n in ["1", "3", "40", "200", "5000"] {
            let args = ["--tail-tokens", n];
            let want = capout_on_pipe(&args, input.as_bytes());
            let file = std::fs::File::open(&path).expect("opened");
            assert_eq!(capout_on_file(&args, file), want, "case {case}, capout {args:?}");
            if n != "5000" {
                let notice = format!("... (truncated, showing last {n} tokens)\n");
                assert!(want.ends_with(notice.as_bytes()), "case {case}, {n}: cut");
            }
        }
    }
}

/// A sparse file of one TiB with a few lines at its end: read whole, it
/// would take many minutes; read from its end, it takes no time.
fn sparse_terabyte(dir: &std::path::Path) -> std::fs::File {
    let path = dir.join("sparse.log");
    let mut file = std::fs::File::create(&path).expect("created");
    file.seek(SeekFrom::Start(1 << 40)).expect("seekable");
    file.write_all(b"\nnext to last\nlast\n").expect("written");
    std::fs::File::open(&path).expect("opened")
}

#[test]
fn a_tail_cap_reads_only_the_end_of_a_huge_file() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (args, want) in [
        (&["--tail-lines", "2"][..], &b"next to last\nlast\n... (truncated, showing last 2 lines)\n"[..]),
        (&["-c", "5"], b"last\n... (truncated, showing last 5 chars)\n"),
        (&["--tail-tokens", "3"], b"last\n... (truncated, showing last 3 tokens)\n"),
    ] {
        let mut child = crate::common::capout_std()
            .args(args)
            .stdin(sparse_terabyte(dir.path()))
            .stdout(Stdio::piped())
            .spawn()
            .expect("capout runs");
        // A guard against a full read, not a timing: it ends at once or never.
        let deadline = Instant::now() + Duration::from_secs(60);
        while child.try_wait().expect("waitable").is_none() {
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("capout {args:?} read the whole file");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let out = child.wait_with_output().expect("capout ends");
        assert_eq!(out.stdout, want, "{args:?}");
    }
}

/// Files of `/proc` and `/sys` report a size of 0 or one page whatever they
/// hold: a tail cap must read them as a pipe, as GNU `tail` does, not seek
/// by their size. Both directories are part of every Linux system; where
/// one is missing this test fails rather than pass without checking.
#[test]
fn kernel_files_give_the_same_output_as_a_pipe() {
    for path in ["/sys/devices/system/cpu/online", "/proc/version"] {
        let input = std::fs::read(path).unwrap_or_else(|e| panic!("this test needs {path}: {e}"));
        assert!(!input.is_empty(), "{path} is empty");
        for args in [
            &["-c", "8"][..],
            &["-c", "3"],
            &["-c", "2", "--bytes"],
            &["--tail-lines", "1"],
            &["--tail-lines", "1", "--max-line-chars", "4"],
            &["--tail-tokens", "2"],
        ] {
            let want = capout_on_pipe(args, &input);
            assert_ne!(want, b"(no output)\n", "{path}");
            let file = std::fs::File::open(path).expect("opened");
            assert_eq!(
                String::from_utf8_lossy(&capout_on_file(args, file)),
                String::from_utf8_lossy(&want),
                "capout {args:?} < {path}"
            );
        }
    }
}
