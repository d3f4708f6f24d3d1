//! The exact tokenizers' vocabularies cost a run that does not ask for
//! them no memory: none of their pages is in the running filter's page
//! table. The kernel maps a program's file pages around each page a run
//! reads (64 KiB windows), so a vocabulary that shared a window with data
//! every run reads would be mapped in part by every run; each vocabulary
//! is a static aligned to 64 KiB, of a size that is a multiple of it
//! (`crates/core/src/tokens/vocab.rs`), so that no window holds both.

use std::io::{Read, Seek, SeekFrom, Write};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::common::{TIME_LIMIT, capout_std};

/// The vocabularies in the binary: the address (from the start of the
/// loaded file) and size of each, from `nm -S` (binutils; the test fails
/// without it).
fn vocabularies() -> Vec<(u64, u64)> {
    let out = std::process::Command::new("nm")
        .args(["-S", "--defined-only", env!("CARGO_BIN_EXE_capout")])
        .output()
        .expect("nm runs (binutils)");
    assert!(out.status.success(), "nm -S failed");
    let text = String::from_utf8_lossy(&out.stdout);
    let hex = |word: &str| u64::from_str_radix(word, 16).expect("a hexadecimal field of nm");
    let found: Vec<(u64, u64)> = text
        .lines()
        .filter(|line| line.contains("6tokens5vocab5O200K") || line.contains("6tokens5vocab6CL100K"))
        .map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            (hex(words[0]), hex(words[1]))
        })
        .collect();
    assert_eq!(found.len(), 2, "the two vocabularies among the symbols of the binary:\n{text}");
    found
}

/// Where process `pid` loaded its executable: the start of the mapping of
/// the file's first bytes.
fn load_base(pid: u32) -> u64 {
    let exe = std::fs::read_link(format!("/proc/{pid}/exe")).expect("the process's executable");
    let maps = std::fs::read_to_string(format!("/proc/{pid}/maps")).expect("the process's maps");
    maps.lines()
        .find(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            words.len() >= 6 && words[2] == "00000000" && std::path::Path::new(words[5]) == exe
        })
        .and_then(|line| line.split('-').next())
        .map_or_else(
            || panic!("no mapping of {} in:\n{maps}", exe.display()),
            |start| u64::from_str_radix(start, 16).expect("a hexadecimal address"),
        )
}

/// How many pages of the vocabularies are present in process `pid`.
fn vocabulary_pages(pid: u32, vocabularies: &[(u64, u64)]) -> usize {
    let base = load_base(pid);
    vocabularies.iter().map(|&(start, size)| present_pages(pid, base + start, size)).sum()
}

/// How many of the pages from `start` for `size` bytes are present in the
/// page table of process `pid` (bit 63 of each entry of its pagemap).
fn present_pages(pid: u32, start: u64, size: u64) -> usize {
    let first = start / 4096;
    let count = usize::try_from(size.div_ceil(4096)).expect("a page count");
    let mut pagemap = std::fs::File::open(format!("/proc/{pid}/pagemap")).expect("the pagemap opens");
    pagemap.seek(SeekFrom::Start(first * 8)).expect("the pagemap seeks");
    let mut entries = vec![0u8; count * 8];
    pagemap.read_exact(&mut entries).expect("the pagemap reads");
    entries
        .chunks_exact(8)
        .filter(|entry| u64::from_le_bytes((*entry).try_into().expect("8 bytes")) >> 63 == 1)
        .count()
}

/// The bytes that process `pid` has read so far (`rchar` of its io file).
fn bytes_read(pid: u32) -> usize {
    let io = std::fs::read_to_string(format!("/proc/{pid}/io")).expect("the io file reads");
    io.lines()
        .find_map(|line| line.strip_prefix("rchar: "))
        .and_then(|n| n.trim().parse().ok())
        .expect("rchar in the io file")
}

/// Starts the filter with `args`, writes 1 MiB of log lines and keeps its
/// stdin open, and waits until it has read them all.
fn running(args: &[&str]) -> (Child, std::process::ChildStdin) {
    let mut child = capout_std()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("capout starts");
    let mut stdin = child.stdin.take().expect("its stdin");
    let line = "2026-11-30T12:00:00Z \x1b[32mINFO\x1b[0m worker-3 request served: café ✓ 10%\r50%\r100%\n";
    let input = line.repeat(1024 * 1024 / line.len());
    stdin.write_all(input.as_bytes()).expect("the input is written");
    stdin.flush().expect("the input is flushed");
    let deadline = Instant::now() + TIME_LIMIT;
    while bytes_read(child.id()) < input.len() {
        assert!(Instant::now() < deadline, "capout did not read its input in {TIME_LIMIT:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
    (child, stdin)
}

/// Ends the filter: its input ends, and it must exit within the limit.
fn end(mut child: Child, stdin: std::process::ChildStdin) {
    drop(stdin);
    let deadline = Instant::now() + TIME_LIMIT;
    while child.try_wait().expect("the filter is waited on").is_none() {
        if Instant::now() >= deadline {
            let _ = child.kill();
            panic!("capout did not exit in {TIME_LIMIT:?} after its input ended");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_run_without_exact_tokens_maps_no_vocabulary_page() {
    let vocab = vocabularies();
    for (start, size) in &vocab {
        assert_eq!(
            (start % 65536, size % 65536),
            (0, 0),
            "the vocabularies lie on 64 KiB pages of their own"
        );
    }
    for args in [&["-c", "5000"][..], &["-m", "50", "-e", "w[aeiou]rker"], &["--tail-tokens", "500"]] {
        let (child, stdin) = running(args);
        let present = vocabulary_pages(child.id(), &vocab);
        end(child, stdin);
        assert_eq!(present, 0, "capout {args:?} mapped {present} pages of the vocabularies");
    }
    // The same reading sees the pages of a run that uses one: cut at 50
    // tokens, the filter has counted exactly once it has read its input.
    let (child, stdin) = running(&["--tokenizer", "o200k", "--head-tokens", "50"]);
    let deadline = Instant::now() + TIME_LIMIT;
    let mut present = vocabulary_pages(child.id(), &vocab);
    while present == 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
        present = vocabulary_pages(child.id(), &vocab);
    }
    end(child, stdin);
    assert!(present > 0, "a run with --tokenizer o200k showed no vocabulary page present");
}
