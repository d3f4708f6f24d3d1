//! The transforms and the counts where reads split the input: an escape
//! sequence or a run of `\r` cut at every position, and read sizes around
//! a page, so that the output never depends on where a read ends.

use capout_core::{CapSpec, Options};
use capout_testkit::Chunked;

/// The output of a run over `input` read `first` bytes first, then in
/// reads of `rest` bytes.
fn run_split(config: &Options, input: &[u8], first: usize, rest: usize) -> Vec<u8> {
    let sizes = [first, rest];
    let config = {
        let mut options = config.clone();
        options.read_size = first.max(rest);
        options
    };
    let mut out = Vec::new();
    let mut err = Vec::new();
    capout_core::run(&config, Chunked::new(input, &sizes), &mut out, &mut err).expect("in-memory run");
    out
}

/// Checks that `input` gives `want` whether it is read whole, split in two
/// at every position, or a byte at a time.
fn every_split(config: &Options, input: &[u8], want: &[u8]) {
    for first in 1..=input.len() {
        for rest in [1, 2, 3, input.len()] {
            let got = run_split(config, input, first, rest);
            assert!(
                got == want,
                "first read {first}, then {rest}\nwant: {:?}\ngot:  {:?}",
                String::from_utf8_lossy(want),
                String::from_utf8_lossy(&got)
            );
        }
    }
}

fn config(strip_ansi: bool, collapse_cr: bool) -> Options {
    let mut options = Options::new(CapSpec::TailChars(1000));
    options.strip_ansi = strip_ansi;
    options.collapse_cr = collapse_cr;
    options
}

#[test]
fn strip_ansi_takes_sequences_split_at_every_position() {
    let input = b"a\x1b[1;32mgr\xc3\xa9en\x1b[0m \x1b[Kb\x1b]0;title\x07c\x1b(Bd\x1b]8;;u\x1b\\e\x1b[\n\x1b]x\ny\x1b\x1b[mz\n";
    every_split(
        &config(true, false),
        input,
        "agr\u{e9}en bcde\n\ny\x1b[mz\n".replace("\x1b[m", "").as_bytes(),
    );
}

#[test]
fn strip_ansi_takes_csi_sequences_back_to_back_and_far_apart() {
    // Sequences at every distance around the 32- and 64-byte blocks in
    // which the next ESC is looked for first.
    let mut input = Vec::new();
    let mut want = Vec::new();
    for gap in [0, 1, 31, 32, 33, 63, 64, 65, 100] {
        input.extend_from_slice(b"\x1b[1;36m");
        input.extend(std::iter::repeat_n(b'x', gap));
        want.extend(std::iter::repeat_n(b'x', gap));
    }
    input.extend_from_slice(b"\x1b[0m\n");
    want.push(b'\n');
    for read in [1, 7, 64, 65, 4096] {
        assert_eq!(run_split(&config(true, false), &input, read, read), want, "reads of {read}");
    }
}

#[test]
fn collapse_cr_takes_runs_of_cr_split_at_every_position() {
    let input = b"10%\r50%\r\r100%\n\r\rdone\r\nx\r\ry\rz\nlast\r\r";
    // A last `\r` with nothing after it erases nothing, and is not kept.
    every_split(&config(false, true), input, b"100%\ndone\r\nz\nlast");
}

#[test]
fn collapse_cr_takes_frames_of_every_length() {
    // Frames and lines of lengths around the 8-byte words and the 64
    // bytes in which the next `\r` or `\n` is looked for first.
    let mut input = Vec::new();
    let mut want = Vec::new();
    for len in [0, 1, 7, 8, 9, 63, 64, 65, 130] {
        let frame = vec![b'a' + (len % 26) as u8; len];
        input.extend_from_slice(&frame);
        input.push(b'\r');
        input.extend_from_slice(&frame);
        input.extend_from_slice(b"!\r\n");
        want.extend_from_slice(&frame);
        want.extend_from_slice(b"!\r\n");
        input.extend_from_slice(&frame);
        input.push(b'\n');
        want.extend_from_slice(&frame);
        want.push(b'\n');
    }
    for read in [1, 7, 64, 65, 4096] {
        assert_eq!(run_split(&config(false, true), &input, read, read), want, "reads of {read}");
    }
}

#[test]
fn collapse_cr_takes_a_whole_line_of_frames_as_one_at_its_limit() {
    // A line read whole goes in one step when it is no longer than the
    // limit; a longer one goes `\r` by `\r`, and its first stretch, past
    // the limit, is passed on before the `\r` comes.
    let input = b"xxxxx\rDONE\nabcde\r\rcd\ref\n";
    for (limit, want) in [
        (4, &b"xxxxxDONE\nabcdeef\n"[..]),
        (5, b"DONE\nef\n"),
        (10, b"DONE\nef\n"),
        (11, b"DONE\nef\n"),
        (12, b"DONE\nef\n"),
        (13, b"DONE\nef\n"),
    ] {
        let config = {
            let mut options = config(false, true);
            options.limits = capout_core::Limits { collapse_cr: limit, ..Default::default() };
            options
        };
        for read in [1, 3, input.len()] {
            assert_eq!(
                String::from_utf8_lossy(&run_split(&config, input, read, read)),
                String::from_utf8_lossy(want),
                "limit {limit}, reads of {read}"
            );
        }
    }
}

#[test]
fn collapse_cr_gives_the_same_read_whole_and_a_byte_at_a_time() {
    // Read whole, a line of frames goes in one step; a byte at a time,
    // `\r` by `\r`. Lines of `a`, `\r` and `\n` from a fixed generator,
    // with limits that some of their stretches and lines pass.
    let mut seed: u32 = 7;
    let mut next = |k: u32| {
        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        (seed >> 16) % k
    };
    for case in 0..400 {
        let len = 1 + next(40);
        let input: Vec<u8> = (0..len)
            .map(|_| match next(8) {
                0 | 1 => b'\r',
                2 => b'\n',
                _ => b'a' + next(3) as u8,
            })
            .collect();
        let limit = 1 + next(12) as usize;
        let config = {
            let mut options = config(false, true);
            options.limits = capout_core::Limits { collapse_cr: limit, ..Default::default() };
            options
        };
        let whole = run_split(&config, &input, input.len(), input.len());
        for read in [1, 2] {
            assert_eq!(
                String::from_utf8_lossy(&run_split(&config, &input, read, read)),
                String::from_utf8_lossy(&whole),
                "case {case}, limit {limit}, reads of {read}, input {:?}",
                String::from_utf8_lossy(&input)
            );
        }
    }
}

#[test]
fn collapse_cr_after_strip_ansi_split_at_every_position() {
    let input = b"\x1b[1m 1/3\x1b[K\r\x1b[1m 2/3\x1b[K\r\x1b[1m 3/3\x1b[0m\n";
    every_split(&config(true, true), input, b" 3/3\n");
}

#[test]
fn read_sizes_around_a_page_give_the_same_counts() {
    // Multi-byte text, so that reads end inside characters, across the
    // 4 KiB page, the 128-byte ASCII blocks and the 255-block groups
    // of the counting.
    let line = "ascii words then caf\u{e9} \u{65e5}\u{672c}\u{8a9e} \u{1f680}\n";
    let input = line.repeat(1000).into_bytes();
    let mut config = Options::default();
    config.count_totals = true;
    let counts = |read: usize| {
        let mut options = config.clone();
        options.read_size = read;
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let summary = capout_core::run(&options, Chunked::new(&input, &[read]), &mut out, &mut err)
            .expect("in-memory run");
        (out, summary.totals.bytes(), summary.totals.chars(), summary.totals.lines(), summary.omitted)
    };
    let want = counts(input.len());
    let chars = line.chars().count() as u64 * 1000;
    assert_eq!((want.1, want.2, want.3), (input.len() as u64, Some(chars), Some(1000)));
    for read in [1, 4095, 4096, 4097, 8191, 65536, 256 * 1024] {
        assert_eq!(counts(read), want, "reads of {read}");
    }
}

#[test]
fn tail_lines_holds_long_lines_cut_the_same_at_every_split() {
    // Width 3: lines of more than 3 * 4 + 4 + 2 bytes are held as their
    // start and their ending; lines around that length, `\r\n` and `\r`
    // at the cut, characters of every width, a last line without `\n`.
    let mut input = Vec::new();
    for len in [0, 1, 3, 4, 15, 16, 17, 18, 19, 40] {
        input.extend(std::iter::repeat_n(b'x', len));
        input.extend_from_slice(if len % 2 == 0 { b"\r\n" } else { b"\n" });
    }
    input.extend_from_slice("\u{e9}\u{65e5}\u{1f680}abcdefghijklmnop\r\n".as_bytes());
    input.extend_from_slice(b"\xff\xfe\xe2\x82abcdefghijklmnopq\r");
    input.extend_from_slice(b"\n\r\r\n");
    input.extend_from_slice(&[b'y'; 30]);
    for (limit, numbers) in [(1, false), (2, true), (5, true), (100, false)] {
        let config = {
            let mut options = Options::new(CapSpec::TailLines(limit));
            options.max_line_chars = Some(3);
            options.line_numbers = numbers;
            options
        };
        let want = capout_testkit::model::model(&input, &config);
        every_split(&config, &input, &want);
    }
}
