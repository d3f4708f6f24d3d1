//! The library reports what the CLI reports: a `Summary` of a `Capper`
//! counts every total it has a field for, and an uncounted total never
//! shows as 0.

use capout_core::{CapSpec, Capper, Options, Pattern};

/// `input` through a capper made from `options`: its output and summary.
fn cap(options: Options, input: &[u8]) -> (Vec<u8>, capout_core::Summary) {
    let mut capper = Capper::new(options).unwrap();
    let mut out = Vec::new();
    capper.push(input, &mut out).unwrap();
    let summary = capper.finish(&mut out).unwrap();
    (out, summary)
}

#[test]
fn tail_chars_summary_counts_omitted_and_chars_as_json_does() {
    let input = "h\u{e9}llo\nw\u{f6}rld\n".repeat(100);
    let (out, summary) = cap(Options::new(CapSpec::TailChars(6)), input.as_bytes());
    assert_eq!(out, "w\u{f6}rld\n... (truncated, showing last 6 chars)\n".as_bytes());
    // What `capout -c 6 --json` gives: "omitted":1194,"total_chars":1200.
    assert_eq!(summary.totals.chars(), Some(1200));
    assert_eq!(summary.totals.lines(), Some(200));
    assert_eq!(summary.omitted, Some(1194));
    assert_eq!(
        format!("{:?}", summary.totals),
        "Totals { bytes: 1400, chars: Some(1200), lines: Some(200), .. }"
    );
    let (_, summary) = cap(Options::new(CapSpec::HeadChars(6)), input.as_bytes());
    assert_eq!(summary.omitted, Some(1194));
}

#[test]
fn debug_of_totals_never_shows_an_uncounted_zero() {
    // A plain --tail-chars run counts no characters: they read as None.
    let mut out = Vec::new();
    let report =
        capout_core::run(&Options::default(), &b"abc\n"[..], &mut out, &mut std::io::sink()).unwrap();
    assert_eq!(report.totals.chars(), None);
    assert_eq!(format!("{:?}", report.totals), "Totals { bytes: 4, chars: None, lines: None, .. }");
}

#[test]
fn the_readme_page_and_pattern_examples_hold() {
    let log = b"ok 1\nerror: a\nok 2\nerror: b\nerror: c\n";
    let (out, summary) = cap(Options::new(CapSpec::HeadLines { limit: 2, offset: 2 }), log);
    assert_eq!(out, b"ok 2\nerror: b\n... (truncated, showing lines 3-4 of 5, next offset 4)\n");
    assert_eq!((summary.first, summary.last, summary.next_offset), (Some(3), Some(4), Some(4)));
    let mut options = Options::new(CapSpec::MaxMatches(2));
    options.pattern = Some(Pattern::regex("^error"));
    let (out, summary) = cap(options, log);
    assert_eq!(out, b"error: a\nerror: b\n... (3 total, showing first 2)\n");
    assert_eq!(summary.matches, Some(3));
}

#[test]
fn hide_binary_replaces_a_binary_stream_however_it_is_split() {
    let mut input = vec![b'a'; 9000];
    input[8191] = 0;
    for size in [1, 7, 4096, 9000] {
        let mut options = Options::new(CapSpec::HeadLines { limit: 5, offset: 0 });
        options.hide_binary = true;
        let mut capper = Capper::new(options).unwrap();
        let mut out = Vec::new();
        for chunk in input.chunks(size) {
            capper.push(chunk, &mut out).unwrap();
        }
        capper.finish(&mut out).unwrap();
        assert_eq!(out, b"(binary output, 9000 bytes: not shown)\n", "reads of {size}");
    }
}

#[test]
fn a_binary_stream_saved_to_a_dir_is_kept_and_its_line_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut input = b"\x7fELF\x02\x01\x01\0".to_vec();
    input.extend(std::iter::repeat_n(0, 20_000));
    input.extend((1..=1000).flat_map(|i| format!("{i}\n").into_bytes()));
    for size in [1, 4096, input.len()] {
        let mut options = Options::new(CapSpec::TailChars(5000));
        options.hide_binary = true;
        options.strip_ansi = true;
        options.save = Some(capout_core::SaveTo::Dir(dir.path().to_path_buf()));
        let mut capper = Capper::new(options).unwrap();
        let mut out = Vec::new();
        for chunk in input.chunks(size) {
            capper.push(chunk, &mut out).unwrap();
        }
        let summary = capper.finish(&mut out).unwrap();
        let saved = summary.saved_to.clone().expect("a binary stream is always saved");
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!("(binary output, {} bytes: not shown; full output: {})\n", input.len(), saved.display()),
            "reads of {size}"
        );
        // The stream as it came, not the line that stands for it.
        assert_eq!(std::fs::read(&saved).unwrap(), input);
        assert!(summary.truncated);
        std::fs::remove_file(saved).unwrap();
    }
}

#[test]
fn invalid_utf8_without_a_nul_is_text_for_hide_binary() {
    let mut options = Options::new(CapSpec::TailChars(5000));
    options.hide_binary = true;
    let (out, summary) = cap(options, b"caf\xe9\n\xff\xfe stray\n");
    assert_eq!(out, b"caf\xe9\n\xff\xfe stray\n");
    assert!(!summary.truncated);
}

#[test]
fn past_cap_and_stop_give_the_notice_of_the_rest_not_read() {
    let mut capper = Capper::new(Options::new(CapSpec::HeadLines { limit: 2, offset: 0 })).unwrap();
    let mut out = Vec::new();
    capper.push(b"a\nb\n", &mut out).unwrap();
    assert!(!capper.past_cap());
    capper.push(b"c", &mut out).unwrap();
    assert!(capper.past_cap());
    capper.stop();
    let summary = capper.finish(&mut out).unwrap();
    assert_eq!(out, b"a\nb\n... (truncated, showing lines 1-2; the rest was not read)\n");
    assert_eq!(summary.omitted, None);
}
