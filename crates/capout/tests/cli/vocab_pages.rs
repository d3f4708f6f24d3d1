//! The exact tokenizers' vocabularies cost a run that does not ask for
//! them no memory: none of their pages is in the running filter's page
//! table. The kernel maps a program's file pages around each page a run
//! reads, so a vocabulary that shared a 64 KiB window with data or code
//! every run reads would be mapped in part by every run; link/cold.ld
//! gives them pages of their own (`.rodata.vocab`).

use std::io::{Read, Seek, SeekFrom, Write};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::common::{TIME_LIMIT, capout_std};

/// Where `.rodata.vocab` lies in the binary: its address and size, from
/// `readelf -SW` (binutils; the test fails without it).
fn vocab_section() -> (u64, u64) {
    let out = std::process::Command::new("readelf")
        .args(["-SW", env!("CARGO_BIN_EXE_capout")])
        .output()
        .expect("readelf runs (binutils)");
    assert!(out.status.success(), "readelf -SW failed");
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|line| line.split_whitespace().any(|word| word == ".rodata.vocab"))
        .unwrap_or_else(|| panic!("no .rodata.vocab section in the binary:\n{text}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|word| *word == ".rodata.vocab").expect("the section's name");
    let hex = |word: &str| u64::from_str_radix(word, 16).expect("a hexadecimal field of readelf");
    // [Nr] Name Type Address Off Size ...
    (hex(words[at + 2]), hex(words[at + 4]))
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
    let (start, size) = vocab_section();
    assert_eq!((start % 65536, size % 65536), (0, 0), "the vocabularies lie on 64 KiB pages of their own");
    for args in [&["-c", "5000"][..], &["-m", "50", "-e", "w[aeiou]rker"], &["--tail-tokens", "500"]] {
        let (child, stdin) = running(args);
        let present = present_pages(child.id(), start, size);
        end(child, stdin);
        assert_eq!(present, 0, "capout {args:?} mapped {present} pages of the vocabularies");
    }
    // The same reading sees the pages of a run that uses one: cut at 50
    // tokens, the filter has counted exactly once it has read its input.
    let (child, stdin) = running(&["--tokenizer", "o200k", "--head-tokens", "50"]);
    let deadline = Instant::now() + TIME_LIMIT;
    let mut present = present_pages(child.id(), start, size);
    while present == 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
        present = present_pages(child.id(), start, size);
    }
    end(child, stdin);
    assert!(present > 0, "a run with --tokenizer o200k showed no vocabulary page present");
}
