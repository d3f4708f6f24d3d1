//! Black-box tests of the `capout` binary: exact bytes in, exact bytes out.

use assert_cmd::Command;

fn capout() -> Command {
    crate::common::capout()
}

/// Runs capout with `args` on `input`; returns stdout, checking that it
/// exits 0 with nothing on stderr.
fn run(args: &[&str], input: impl Into<Vec<u8>>) -> Vec<u8> {
    let out = capout().args(args).write_stdin(input.into()).output().expect("capout runs");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "", "stderr of {args:?}");
    assert_eq!(out.status.code(), Some(0), "status of {args:?}");
    out.stdout
}

/// `(name, args, input, expected stdout)`.
type Case = (&'static str, &'static [&'static str], &'static [u8], &'static [u8]);

/// Every case must hold to the byte.
const CASES: &[Case] = &[
    // The default cap.
    ("default_is_tail_5000_chars", &[], b"short\n", b"short\n"),
    ("empty_input_says_no_output", &[], b"", b"(no output)\n"),
    ("empty_input_no_matches", &["-m", "3"], b"", b"No matches found.\n"),
    ("empty_input_head_lines", &["-n", "3"], b"", b"(no output)\n"),
    // --tail-chars
    ("tail_chars_exactly_n_has_no_notice", &["-c", "4"], b"abc\n", b"abc\n"),
    ("tail_chars_n_plus_one", &["-c", "4"], b"xabc\n", b"abc\n... (truncated, showing last 4 chars)\n"),
    (
        "tail_chars_notice_on_its_own_line",
        &["-c", "2"],
        b"abc",
        b"bc\n... (truncated, showing last 2 chars)\n",
    ),
    (
        "tail_chars_counts_characters",
        &["-c", "2"],
        "h\u{e9}\u{20ac}".as_bytes(),
        "\u{e9}\u{20ac}\n... (truncated, showing last 2 chars)\n".as_bytes(),
    ),
    (
        "tail_chars_never_splits_a_character",
        &["-c", "1"],
        "a\u{1f600}".as_bytes(),
        "\u{1f600}\n... (truncated, showing last 1 chars)\n".as_bytes(),
    ),
    (
        "tail_chars_stray_continuation_is_one_char",
        &["-c", "2"],
        b"ab\x80\x80",
        b"\x80\x80\n... (truncated, showing last 2 chars)\n",
    ),
    (
        "tail_chars_cut_off_sequence_at_end",
        &["-c", "2"],
        b"abc\xe2\x82",
        b"c\xe2\x82\n... (truncated, showing last 2 chars)\n",
    ),
    (
        "tail_chars_overlong_is_two_chars",
        &["-c", "2"],
        b"a\xc0\x80",
        b"\xc0\x80\n... (truncated, showing last 2 chars)\n",
    ),
    ("tail_chars_nul_bytes_pass", &["-c", "3"], b"a\0b\0", b"\0b\0\n... (truncated, showing last 3 chars)\n"),
    (
        "tail_chars_crlf_is_two_chars",
        &["-c", "3"],
        b"ab\r\n",
        b"b\r\n... (truncated, showing last 3 chars)\n",
    ),
    ("tail_chars_huge_cap", &["-c", "18446744073709551615"], b"abc\n", b"abc\n"),
    (
        "tail_bytes",
        &["-c", "2", "--bytes"],
        "x\u{e9}".as_bytes(),
        b"\xc3\xa9\n... (truncated, showing last 2 bytes)\n",
    ),
    // --head-chars
    (
        "head_chars",
        &["--head-chars", "2"],
        "\u{e9}\u{e9}\u{e9}\n".as_bytes(),
        "\u{e9}\u{e9}\n... (truncated, showing first 2 chars)\n".as_bytes(),
    ),
    ("head_chars_exactly_n", &["--head-chars", "4"], b"abc\n", b"abc\n"),
    // --head-lines
    ("head_lines_exactly_n", &["-n", "2"], b"a\nb\n", b"a\nb\n"),
    (
        "head_lines_n_plus_one",
        &["-n", "2"],
        b"a\nb\nc\n",
        b"a\nb\n... (truncated, showing lines 1-2 of 3, next offset 2)\n",
    ),
    (
        "head_lines_no_final_newline_counts",
        &["-n", "1"],
        b"a\nb",
        b"a\n... (truncated, showing lines 1-1 of 2, next offset 1)\n",
    ),
    ("head_lines_last_line_without_newline", &["-n", "5"], b"a\nb", b"a\nb"),
    (
        "head_lines_window_reaches_end",
        &["-n", "2", "--offset", "1"],
        b"a\nb\nc\n",
        b"b\nc\n... (showing lines 2-3 of 3, end of input)\n",
    ),
    (
        "head_lines_offset_window",
        &["-n", "1", "--offset", "1"],
        b"a\nb\nc\n",
        b"b\n... (truncated, showing lines 2-2 of 3, next offset 2)\n",
    ),
    (
        "head_lines_offset_past_end",
        &["-n", "1", "--offset", "3"],
        b"a\nb\nc\n",
        b"... (offset 3 is past the end, input has 3 lines)\n",
    ),
    (
        "head_lines_offset_max",
        &["-n", "1", "--offset", "18446744073709551615"],
        b"a\n",
        b"... (offset 18446744073709551615 is past the end, input has 1 lines)\n",
    ),
    (
        "head_lines_limit_alias",
        &["--limit", "1"],
        b"a\nb\n",
        b"a\n... (truncated, showing lines 1-1 of 2, next offset 1)\n",
    ),
    (
        "head_lines_crlf_kept",
        &["-n", "1"],
        b"a\r\nb\r\n",
        b"a\r\n... (truncated, showing lines 1-1 of 2, next offset 1)\n",
    ),
    (
        "head_lines_line_cap",
        &["-n", "1", "--max-line-chars", "3"],
        b"abcd\r\n",
        b"abc ... (line truncated to 3 chars)\r\n",
    ),
    ("head_lines_line_cap_exactly_w", &["-n", "1", "--max-line-chars", "3"], b"abc\r\n", b"abc\r\n"),
    ("head_lines_line_cap_off", &["-n", "1", "--max-line-chars", "0"], b"abcd\n", b"abcd\n"),
    (
        "head_lines_line_cap_in_bytes",
        &["-n", "1", "--max-line-chars", "1", "--bytes"],
        "\u{e9}\n".as_bytes(),
        b"\xc3 ... (line truncated to 1 bytes)\n",
    ),
    (
        "head_lines_line_cap_multibyte",
        &["-n", "1", "--max-line-chars", "1"],
        "\u{e9}\u{e9}".as_bytes(),
        "\u{e9} ... (line truncated to 1 chars)".as_bytes(),
    ),
    (
        "head_lines_numbers",
        &["-n", "2", "-N", "--offset", "1"],
        b"a\nb\nc\n",
        b"     2\tb\n     3\tc\n... (showing lines 2-3 of 3, end of input)\n",
    ),
    ("head_lines_invalid_utf8_passes", &["-n", "1"], b"\xff\xfe\n", b"\xff\xfe\n"),
    // --max-matches
    ("max_matches_exactly_n", &["-m", "2"], b"a\nb\n", b"a\nb\n"),
    ("max_matches_n_plus_one", &["-m", "2"], b"a\nb\nc\n", b"a\nb\n... (3 total, showing first 2)\n"),
    ("max_matches_numbers", &["-m", "1", "-N"], b"a\nb\n", b"     1\ta\n... (2 total, showing first 1)\n"),
    // --max-matches --offset: later pages
    ("max_matches_offset_leaves_more", &["-m", "2", "--offset", "1"], b"a\nb\nc\nd\n", b"b\nc\n... (4 total, showing 2-3, next offset 3)\n"),
    ("max_matches_offset_reaches_end", &["-m", "2", "--offset", "2"], b"a\nb\nc\nd\n", b"c\nd\n... (4 total, showing 3-4, end of input)\n"),
    ("max_matches_offset_past_end", &["-m", "2", "--offset", "4"], b"a\nb\nc\nd\n", b"... (offset 4 is past the end, 4 total)\n"),
    ("max_matches_offset_no_match", &["-m", "2", "--offset", "4", "-e", "z"], b"a\n", b"No matches found.\n"),
    ("max_matches_offset_pattern", &["-m", "1", "--offset", "1", "-e", "x", "-N"], b"x1\ny\nx2\nx3\n", b"     3\tx2\n... (3 total, showing 2-2, next offset 2)\n"),
    // --budget-chars: whole lines up to the last that fits
    ("budget_head_lines_stops_early", &["-n", "5", "--budget-chars", "6"], b"ab\ncd\nef\n", b"ab\ncd\n... (truncated, showing lines 1-2 of 3, next offset 2)\n"),
    ("budget_head_lines_next_page", &["-n", "5", "--budget-chars", "5", "--offset", "2"], b"ab\ncd\nef\n", b"ef\n... (showing lines 3-3 of 3, end of input)\n"),
    ("budget_head_lines_first_line_cut", &["-n", "5", "--budget-chars", "3"], b"abcdef\ngh\n", b"abc ... (line truncated to 3 chars)\n... (truncated, showing lines 1-1 of 2, next offset 1)\n"),
    ("budget_head_lines_counts_numbers", &["-n", "5", "-N", "--budget-chars", "20"], b"a\nb\nc\n", b"     1\ta\n     2\tb\n... (truncated, showing lines 1-2 of 3, next offset 2)\n"),
    ("budget_head_lines_bytes", &["-n", "5", "--bytes", "--budget-chars", "6"], "\u{e9}\n\u{e9}\nx\n".as_bytes(), "\u{e9}\n\u{e9}\n... (truncated, showing lines 1-2 of 3, next offset 2)\n".as_bytes()),
    ("budget_head_lines_chars", &["-n", "5", "--budget-chars", "6"], "\u{e9}\n\u{e9}\nx\n".as_bytes(), "\u{e9}\n\u{e9}\nx\n".as_bytes()),
    ("budget_tail_lines", &["--tail-lines", "5", "--budget-chars", "6"], b"ab\ncd\nef\n", b"cd\nef\n... (truncated, showing last 2 lines)\n"),
    ("budget_tail_lines_last_line_cut", &["--tail-lines", "5", "--budget-chars", "2"], b"ab\ncdef\n", b"cd ... (line truncated to 2 chars)\n... (truncated, showing last 1 lines)\n"),
    ("budget_max_matches", &["-m", "5", "--budget-chars", "6"], b"ab\ncd\nef\n", b"ab\ncd\n... (3 total, showing first 2)\n"),
    ("budget_max_matches_page", &["-m", "5", "--budget-chars", "3", "--offset", "1"], b"ab\ncd\nef\n", b"cd\n... (3 total, showing 2-2, next offset 2)\n"),
    // --tail-lines
    ("tail_lines_exactly_n", &["--tail-lines", "2"], b"a\nb\n", b"a\nb\n"),
    ("tail_lines_n_plus_one", &["--tail-lines", "2"], b"a\nb\nc\n", b"b\nc\n... (truncated, showing last 2 lines)\n"),
    ("tail_lines_no_final_newline", &["--tail-lines", "1"], b"a\nb", b"b\n... (truncated, showing last 1 lines)\n"),
    ("tail_lines_numbers", &["--tail-lines", "1", "-N"], b"a\nb\n", b"     2\tb\n... (truncated, showing last 1 lines)\n"),
    ("tail_lines_line_cap", &["--tail-lines", "1", "--max-line-chars", "2"], b"abc\r\n", b"ab ... (line truncated to 2 chars)\r\n"),
    // head+tail pairs
    ("head_tail_lines", &["-n", "1", "--tail-lines", "1"], b"a\nb\nc\nd\n", b"a\n... (truncated, omitted 2 lines) ...\nd\n"),
    ("head_tail_lines_whole", &["-n", "2", "--tail-lines", "2"], b"a\nb\nc\nd\n", b"a\nb\nc\nd\n"),
    ("head_tail_lines_numbers", &["-n", "1", "--tail-lines", "1", "-N"], b"a\nb\nc\n", b"     1\ta\n... (truncated, omitted 1 lines) ...\n     3\tc\n"),
    ("head_tail_chars", &["--head-chars", "2", "-c", "2"], b"abcdef", b"ab\n... (truncated, omitted 2 chars) ...\nef"),
    ("head_tail_chars_whole", &["--head-chars", "3", "-c", "3"], b"abcdef", b"abcdef"),
    ("head_tail_bytes", &["--head-chars", "1", "-c", "1", "--bytes"], b"a\nb\nc", b"a\n... (truncated, omitted 3 bytes) ...\nc"),
    // --pattern
    ("pattern_counts_matching_lines", &["-m", "1", "-e", "err"], b"ok\nerr 1\nfine\nerr 2\n", b"err 1\n... (2 total, showing first 1)\n"),
    ("pattern_all_shown", &["-m", "5", "-e", "^e"], b"ok\nerr 1\n", b"err 1\n"),
    ("pattern_no_match", &["-m", "5", "-e", "zzz"], b"ok\n", b"No matches found.\n"),
    ("pattern_numbers_are_input_lines", &["-m", "5", "-e", "b", "-N"], b"a\nb\n", b"     2\tb\n"),
    ("pattern_matches_without_ending", &["-m", "5", "-e", "a$"], b"a\r\nb\n", b"a\r\n"),
    ("pattern_on_invalid_utf8", &["-m", "5", "-e", "x"], b"\xffx\n\xfe\n", b"\xffx\n"),
    ("fixed_strings", &["-m", "5", "-F", "-e", "a.b"], b"a.b\naxb\n", b"a.b\n"),
    // --strip-ansi, --collapse-cr
    ("strip_ansi", &["--strip-ansi"], b"\x1b[1;31mred\x1b[0m \x1b]0;t\x07x\x1b(B\n", b"red x\n"),
    ("strip_ansi_before_counting", &["-c", "3", "--strip-ansi"], b"ab\x1b[31mcd\n", b"cd\n... (truncated, showing last 3 chars)\n"),
    ("strip_ansi_keeps_a_newline_in_a_broken_osc", &["--strip-ansi"], b"a\x1b]0;t\nb\n", b"a\nb\n"),
    ("collapse_cr", &["--collapse-cr"], b"10%\r50%\r100%\ndone\r\n", b"100%\ndone\r\n"),
    ("collapse_cr_a_last_cr_erases_nothing", &["--collapse-cr"], b"a\nbar\r", b"a\nbar"),
    ("collapse_cr_crs_before_the_end", &["--collapse-cr"], b"10%\r20%\r\r\n", b"20%\r\n"),
    ("line_cap_before_a_char_cap", &["-c", "100", "--max-line-chars", "3"], b"abcdef\nxy\n", b"abc ... (line truncated to 3 chars)\nxy\n"),
    ("line_cap_before_head_chars", &["--head-chars", "5", "--max-line-chars", "2"], "\u{e9}\u{e9}\u{e9}\n".as_bytes(), "\u{e9}\u{e9} ..\n... (truncated, showing first 5 chars)\n".as_bytes()),
    // --keep
    ("keep_rescues_cut_lines", &["--tail-lines", "1", "--keep", "error"], b"error: one\nok\nerror: two\nend\n", b"end\n... (truncated, showing last 1 lines)\n... (cut lines matching error: 2)\n1:error: one\n3:error: two\n"),
    ("keep_max", &["--tail-lines", "1", "--keep", "e", "--keep-max", "1"], b"e1\ne2\nx\n", b"x\n... (truncated, showing last 1 lines)\n... (cut lines matching e: 2, showing first 1)\n1:e1\n"),
    ("keep_ignores_kept_lines", &["--tail-lines", "2", "--keep", "e"], b"a\nb\ne\n", b"b\ne\n... (truncated, showing last 2 lines)\n"),
    ("keep_with_head_lines", &["-n", "1", "--keep", "E"], b"a\nb\nE!\n", b"a\n... (truncated, showing lines 1-1 of 3, next offset 1)\n... (cut lines matching E: 1)\n3:E!\n"),
    ("keep_with_tail_chars_needs_whole_lines", &["-c", "4", "--keep", "x"], b"x1\nx2\nx3\n", b"\nx3\n... (truncated, showing last 4 chars)\n... (cut lines matching x: 1)\n1:x1\n"),
    ("keep_applies_the_line_cap", &["--tail-lines", "1", "--keep", "x", "--max-line-chars", "2"], b"xxxx\ny\n", b"y\n... (truncated, showing last 1 lines)\n... (cut lines matching x: 1)\n1:xx ... (line truncated to 2 chars)\n"),
    ("keep_nothing_when_nothing_cut", &["--tail-lines", "5", "--keep", "x"], b"x\n", b"x\n"),
    // --notice
    ("notice_none", &["-c", "1", "--notice", "none"], b"ab", b"b"),
    ("notice_none_no_output", &["--notice", "none"], b"", b""),
];

#[test]
fn every_case_holds_to_the_byte() {
    // Every case runs, and each one that fails is reported by its name.
    let failures: Vec<String> = CASES.iter().filter_map(failure).collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n\n{}",
        failures.len(),
        CASES.len(),
        failures.join("\n")
    );
}

/// What went wrong with a case, if anything: it must exit 0, with nothing
/// on stderr and its expected stdout. Expected and got are shown as blocks.
fn failure(&(name, args, input, want): &Case) -> Option<String> {
    let out = capout().args(args).write_stdin(input).output().expect("capout runs");
    if out.status.code() == Some(0) && out.stderr.is_empty() && out.stdout == want {
        return None;
    }
    let mut report = vec![format!("=== {name}: capout {args:?}\ninput:\n{}", block(input))];
    if out.status.code() != Some(0) {
        report.push(format!("status: {:?}, expected Some(0)\n", out.status.code()));
    }
    if !out.stderr.is_empty() {
        report.push(format!("stderr, expected empty:\n{}", block(&out.stderr)));
    }
    if out.stdout != want {
        report.push(format!("expected stdout:\n{}got stdout:\n{}", block(want), block(&out.stdout)));
    }
    Some(report.concat())
}

/// `bytes` between two rules, one line per line: other control bytes,
/// `\` and invalid UTF-8 escaped, and a missing final newline said.
fn block(bytes: &[u8]) -> String {
    let mut text = String::new();
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\n' => text.push('\n'),
                '\\' => text.push_str("\\\\"),
                c if c.is_control() => text.extend(c.escape_default()),
                c => text.push(c),
            }
        }
        text.extend(chunk.invalid().iter().map(|b| format!("\\x{b:02x}")));
    }
    if text.is_empty() || text.ends_with('\n') {
        format!("-----\n{text}-----\n")
    } else {
        format!("-----\n{text}\n----- (no newline at the end)\n")
    }
}

#[test]
fn notice_to_stderr_leaves_stdout_untouched() {
    let out = capout().args(["-c", "1", "--notice", "stderr"]).write_stdin("ab").output().unwrap();
    assert_eq!(out.stdout, b"b");
    assert_eq!(out.stderr, b"... (truncated, showing last 1 chars)\n");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn a_one_mib_line_is_capped() {
    let mut line = vec![b'x'; 1 << 20];
    line.push(b'\n');
    let got = run(&["-n", "1"], line.clone());
    let mut want = vec![b'x'; 2000];
    want.extend_from_slice(b" ... (line truncated to 2000 chars)\n");
    assert_eq!(got, want);
    let got = run(&["-c", "3"], line);
    assert_eq!(got, b"xx\n... (truncated, showing last 3 chars)\n");
}

#[test]
fn usage_errors_exit_2_and_name_the_option() {
    for (args, says) in [
        (&["-c", "0"][..], "'0' for '--tail-chars <N>'"),
        (&["-n", "-3"], "'-3' for '--head-lines <N>'"),
        (&["-m", "many"], "'many' for '--max-matches <N>'"),
        (&["--head-chars", "18446744073709551616"], "'18446744073709551616' for '--head-chars <N>'"),
        (&["-c", "1", "-n", "2"], "the caps --tail-chars 1 and --head-lines 2 cannot"),
        (&["--offset", "2"], "--offset"),
        (&["-N"], "--line-numbers"),
        (&["--notice", "loud"], "'loud' for '--notice <WHERE>'"),
        (&["--bogus"], "'--bogus'"),
    ] {
        let out = capout().args(args).write_stdin("x\n").output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?} should say {says:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn a_directory_on_stdin_is_one_error_line() {
    let dir = std::env::temp_dir();
    let out = crate::common::capout_std().stdin(std::fs::File::open(&dir).unwrap()).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "capout: error reading input: Is a directory (os error 21)\n"
    );
}

#[test]
fn a_closed_stdout_ends_capout_quietly() {
    use std::io::{Read, Write};
    use std::process::Stdio;
    let mut child = crate::common::capout_std()
        .args(["-n", "100000", "--max-line-chars", "0"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 2];
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"1\n").unwrap();
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    // Keep writing until capout notices that nobody reads its output.
    let line = vec![b'y'; 4096];
    for _ in 0..1000 {
        if stdin.write_all(&line).is_err() {
            break;
        }
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert_eq!(first, *b"1\n");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn help_and_version_exit_0() {
    capout().arg("--help").assert().success();
    capout().arg("--version").assert().success().stdout(format!("capout {}\n", env!("CARGO_PKG_VERSION")));
}

#[test]
fn the_man_page_documents_every_long_option_of_help() {
    let help = capout().arg("--help").output().unwrap().stdout;
    let help = String::from_utf8(help).unwrap();
    let man = include_str!("../../../../man/capout.1").replace("\\-", "-");
    let mut options: Vec<&str> = help
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .filter(|word| word.starts_with("--") && word.len() > 2)
        .collect();
    options.sort_unstable();
    options.dedup();
    assert!(options.len() > 20, "--help lists the options: {options:?}");
    for option in options {
        let documented = man.match_indices(option).any(|(i, _)| {
            !man[i + option.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '-')
        });
        assert!(documented, "man/capout.1 lacks {option}");
    }
}

/// Runs capout with `CAPOUT_OPTS` set to `opts`; returns stdout, stderr
/// and the exit status.
fn run_with_opts(opts: &str, args: &[&str], input: &[u8]) -> (Vec<u8>, String, Option<i32>) {
    let out = capout().env("CAPOUT_OPTS", opts).args(args).write_stdin(input).output().unwrap();
    (out.stdout, String::from_utf8_lossy(&out.stderr).into_owned(), out.status.code())
}

fn help() -> String {
    String::from_utf8(capout().arg("--help").output().unwrap().stdout).unwrap()
}

/// The switches that `--help` lists: its options that take no value, but
/// for --help, --version, --mcp and --show-config (modes of their own).
fn switches() -> Vec<String> {
    let help = help();
    let mut switches: Vec<String> = help
        .lines()
        .filter(|line| line.len() - line.trim_start().len() <= 6)
        .filter_map(|line| line.trim_start().split_once("  ").map(|(spec, _)| spec))
        .filter(|spec| spec.starts_with('-') && !spec.contains('<'))
        .filter_map(|spec| spec.rsplit(", ").next()?.strip_prefix("--"))
        .filter(|name| !["help", "version", "mcp", "show-config"].contains(name))
        .map(str::to_owned)
        .collect();
    switches.sort();
    switches
}

/// `(switch, what goes with it in CAPOUT_OPTS, command line, input, stdout
/// without the switch)`: each input shows what the switch does.
type Switch = (&'static str, &'static str, &'static [&'static str], &'static [u8], &'static [u8]);

const SWITCHES: &[Switch] = &[
    ("bytes", "-c 1", &[], "\u{e9}".as_bytes(), "\u{e9}".as_bytes()),
    ("collapse-cr", "", &[], b"a\rb\n", b"a\rb\n"),
    ("fixed-strings", "-m 5 -e a.b", &[], b"axb\n", b"axb\n"),
    ("ignore-case", "-m 5 -e A", &[], b"a\n", b"No matches found.\n"),
    ("json", "", &[], b"x\n", b"x\n"),
    ("line-numbers", "-n 5", &[], b"a\n", b"a\n"),
    ("render", "", &[], b"ab\x1b[1Gc\n", b"ab\x1b[1Gc\n"),
    ("stdout-only", "", &["sh", "-c", "echo out; echo err >&2"], b"", b"out\nerr\n"),
    ("stop-at-cap", "-n 1", &[], b"a\nb\n", b"a\n... (truncated, showing lines 1-1 of 2, next offset 1)\n"),
    ("strip-ansi", "", &[], b"\x1b[1mx\x1b[0m\n", b"\x1b[1mx\x1b[0m\n"),
];

#[test]
fn every_switch_from_capout_opts_is_turned_off_by_its_no_form() {
    let names: Vec<&str> = SWITCHES.iter().map(|s| s.0).collect();
    // --ledger changes no output: the ledger's own tests turn it off.
    let listed: Vec<String> = switches().into_iter().filter(|s| s != "ledger").collect();
    assert_eq!(listed, names, "every switch of --help has a case here");
    for &(name, with, args, input, plain) in SWITCHES {
        let (on, off) = (format!("--{name}"), format!("--no-{name}"));
        let opts = format!("{with} {on}");
        let (stdout, stderr, status) = run_with_opts(with, args, input);
        assert_eq!((stdout.as_slice(), stderr.as_str(), status), (plain, "", Some(0)), "{name}: without it");
        let switched = run_with_opts(&opts, args, input);
        assert_ne!(switched.0, plain, "{name}: CAPOUT_OPTS={opts:?} changes the output");
        let turned_off = run_with_opts(&opts, &[&[off.as_str()], args].concat(), input);
        assert_eq!(
            turned_off,
            (plain.to_vec(), String::new(), Some(0)),
            "{name}: CAPOUT_OPTS={opts:?} {off}"
        );
        // And back on: the later of the two wins.
        let again = run_with_opts(&format!("{opts} {off}"), &[&[on.as_str()], args].concat(), input);
        assert_eq!(again, switched, "{name}: {off} then {on}");
    }
}

#[test]
fn the_man_page_documents_the_no_form_of_every_switch() {
    let man = include_str!("../../../../man/capout.1").replace("\\-", "-");
    for name in switches() {
        let off = format!("--no-{name}");
        let documented = man
            .match_indices(&off)
            .any(|(i, _)| !man[i + off.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '-'));
        assert!(documented, "man/capout.1 lacks {off}");
    }
}

#[test]
fn a_value_that_starts_with_a_dash_must_be_joined_to_its_option() {
    let first_line = |stderr: &str| stderr.lines().next().unwrap_or_default().to_owned();
    // `-i` is not taken for the pattern, and `error` is not run.
    let (stdout, stderr, status) = run_with_opts("", &["--tail-lines", "5", "--keep", "-i", "error"], b"a\n");
    assert_eq!((stdout.as_slice(), status), (&b""[..], Some(2)), "{stderr}");
    assert_eq!(
        first_line(&stderr),
        "error: a value of --keep that starts with '-' must be joined to it, as in --keep=-i; \
         for case-insensitive matching, start the pattern with (?i)"
    );
    let (_, stderr, status) = run_with_opts("", &["--notice-format", "-- {shown} --"], b"");
    assert_eq!(status, Some(2));
    assert_eq!(
        first_line(&stderr),
        "error: a value of --notice-format that starts with '-' must be joined to it, as in \
         --notice-format=-- {shown} --"
    );
    let (_, stderr, status) = run_with_opts("-m 5 -e -x", &[], b"");
    assert_eq!(status, Some(2));
    assert!(
        first_line(&stderr).starts_with("error: in CAPOUT_OPTS: a value of --pattern that starts"),
        "{stderr}"
    );
    // Joined, it is the value.
    let out = run(&["--tail-lines", "1", "--keep=-i"], &b"-i\nb\n"[..]);
    assert_eq!(
        String::from_utf8_lossy(&out),
        "b\n... (truncated, showing last 1 lines)\n... (cut lines matching -i: 1)\n1:-i\n"
    );
    assert_eq!(run(&["-m", "5", "-e-x"], &b"a\n-x\n"[..]), b"-x\n");
}

#[test]
fn an_unknown_option_gets_a_tip_that_holds() {
    let (stdout, stderr, status) = run_with_opts("", &["--tail", "5"], b"");
    assert_eq!((stdout.as_slice(), status), (&b""[..], Some(2)));
    assert!(stderr.starts_with("error: unexpected argument '--tail' found\n"), "{stderr}");
    // `capout -- --tail` would run a command named --tail.
    assert!(!stderr.contains("'-- --tail'"), "{stderr}");
    assert!(stderr.contains("tip: a similar argument exists: '--tail-"), "{stderr}");
    assert!(
        stderr.contains(
            "tip: to pass '--tail' as the value of an option, join it to the option: --OPTION=--tail\n"
        ),
        "{stderr}"
    );
}

#[test]
fn help_gives_every_duration_unit_and_the_line_caps_default() {
    let help = help().split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        help.contains("stop it after DURATION (30, 30s, 1.5s, 500ms, 2m, 1h, 1d; 0 for never)"),
        "{help}"
    );
    assert!(
        help.contains(
            "[default: 2000 with --head-lines, --tail-lines and --max-matches; off with the char caps]"
        ),
        "{help}"
    );
    assert!(help.contains("Every switch has a --no- form"), "{help}");
}

#[test]
fn the_test_helper_removes_the_users_environment() {
    let cmd = crate::common::capout_std();
    let envs: std::collections::HashMap<_, _> = cmd.get_envs().collect();
    let home = Some(crate::common::empty_home().as_os_str());
    assert_eq!(envs.get(std::ffi::OsStr::new("CAPOUT_OPTS")), Some(&None));
    assert_eq!(envs.get(std::ffi::OsStr::new("CAPOUT_CONFIG")), Some(&None));
    assert_eq!(envs.get(std::ffi::OsStr::new("HOME")), Some(&home));
    assert_eq!(envs.get(std::ffi::OsStr::new("XDG_CONFIG_HOME")), Some(&home));
    assert_eq!(std::fs::read_dir(crate::common::empty_home()).unwrap().count(), 0);
}

#[test]
fn the_test_helper_wins_over_a_hostile_environment() {
    // What a user's shell would hand the tests: a cap in CAPOUT_OPTS and a
    // config file with defaults, where capout looks for each.
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("capout").join("config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, "[defaults]\nhead-lines = 2\n").unwrap();
    let hostile = || {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_capout"));
        cmd.env("CAPOUT_OPTS", "-n 1").env("CAPOUT_CONFIG", &config).env("XDG_CONFIG_HOME", dir.path());
        cmd
    };
    let run = |cmd: std::process::Command| {
        assert_cmd::Command::from_std(cmd)
            .timeout(crate::common::TIME_LIMIT)
            .write_stdin("1\n2\n3\n")
            .output()
            .unwrap()
    };
    // Without the helper, the environment cuts the output.
    let out = run(hostile());
    assert_ne!(String::from_utf8_lossy(&out.stdout), "1\n2\n3\n");
    let mut cleaned = hostile();
    crate::common::clean_env(&mut cleaned);
    let out = run(cleaned);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "1\n2\n3\n");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}
