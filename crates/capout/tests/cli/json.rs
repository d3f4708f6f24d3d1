//! `--json` (SPEC §7), byte for byte: `output` first, then every other
//! field sorted by name, whatever the run; the kept output escaped as
//! JSON escapes it, invalid UTF-8 as U+FFFD.

use std::fs::File;
use std::os::unix::process::ExitStatusExt;
use std::process::Stdio;

use crate::common::{capout, capout_std};

/// What `capout ARGS --json` prints for `input`, and its status.
fn json(args: &[&str], input: &[u8]) -> (String, Option<i32>) {
    let out = capout().arg("--json").args(args).write_stdin(input).output().unwrap();
    (String::from_utf8(out.stdout).expect("the object is UTF-8"), out.status.code())
}

#[test]
fn json_escapes_every_character_a_json_string_cannot_hold() {
    let input =
        b"a\x00\x01\x08\t\x0b\x0c\r\x1b[1m\x1f\x7f \"q\" \\ / \xc3\xa9 \xff \xe2\x82 x\xf0\x9f\xa6\x80\n";
    assert_eq!(
        json(&["-n", "5", "--no-strip-ansi"], input),
        (
            "{\"output\":\"a\\u0000\\u0001\\b\\t\\u000b\\f\\r\\u001b[1m\\u001f\x7f \\\"q\\\" \\\\ / \u{e9} \u{fffd} \
             \u{fffd} x\u{1f980}\\n\",\"budget\":null,\"cap\":\"head-lines\",\"error\":null,\"exit_code\":0,\
             \"first\":1,\"json_arrays_cut\":null,\"json_documents\":null,\"json_documents_kept\":null,\
             \"json_ended_at\":null,\"json_items\":null,\"json_items_kept\":null,\"json_strings_cut\":null,\
             \"last\":1,\"limit\":5,\"matches\":null,\"next_offset\":null,\"notice\":null,\"omitted\":0,\
             \"saved_to\":null,\"signal\":null,\"timed_out\":false,\"tokenizer\":null,\"total_bytes\":37,\
             \"total_chars\":32,\"total_lines\":1,\"total_tokens\":null,\"truncated\":false,\"unit\":\"lines\"}\n"
                .to_owned(),
            Some(0)
        )
    );
}

#[test]
fn json_of_a_character_cut_off_at_the_end_of_the_input_is_one_replacement_character() {
    assert_eq!(
        json(&["-n", "3"], b"ab\xe2\x82"),
        (
            "{\"output\":\"ab\u{fffd}\",\"budget\":null,\"cap\":\"head-lines\",\"error\":null,\"exit_code\":0,\
             \"first\":1,\"json_arrays_cut\":null,\"json_documents\":null,\"json_documents_kept\":null,\
             \"json_ended_at\":null,\"json_items\":null,\"json_items_kept\":null,\"json_strings_cut\":null,\
             \"last\":1,\"limit\":3,\"matches\":null,\"next_offset\":null,\"notice\":null,\"omitted\":0,\
             \"saved_to\":null,\"signal\":null,\"timed_out\":false,\"tokenizer\":null,\"total_bytes\":4,\
             \"total_chars\":3,\"total_lines\":1,\"total_tokens\":null,\"truncated\":false,\"unit\":\"lines\"}\n"
                .to_owned(),
            Some(0)
        )
    );
}

#[test]
fn json_of_a_head_and_tail_pair_gives_its_limits_as_a_pair() {
    assert_eq!(
        json(&["--head-lines", "2", "--tail-lines", "2"], b"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"),
        (
            "{\"output\":\"1\\n2\\n... (truncated, omitted 6 lines) ...\\n9\\n10\\n\",\"budget\":null,\
             \"cap\":\"head-tail-lines\",\"error\":null,\"exit_code\":0,\"first\":null,\"json_arrays_cut\":null,\
             \"json_documents\":null,\"json_documents_kept\":null,\"json_ended_at\":null,\"json_items\":null,\
             \"json_items_kept\":null,\"json_strings_cut\":null,\"last\":null,\"limit\":[2,2],\"matches\":null,\
             \"next_offset\":null,\"notice\":null,\"omitted\":6,\"saved_to\":null,\"signal\":null,\
             \"timed_out\":false,\"tokenizer\":null,\"total_bytes\":21,\"total_chars\":21,\"total_lines\":10,\
             \"total_tokens\":null,\"truncated\":true,\"unit\":\"lines\"}\n"
                .to_owned(),
            Some(0)
        )
    );
}

#[test]
fn json_of_a_token_cap_names_its_tokenizer() {
    assert_eq!(
        json(&["--tail-tokens", "3"], b"one two three four five six\n"),
        (
            "{\"output\":\" six\\n\",\"budget\":null,\"cap\":\"tail-tokens\",\"error\":null,\"exit_code\":0,\
             \"first\":null,\"json_arrays_cut\":null,\"json_documents\":null,\"json_documents_kept\":null,\
             \"json_ended_at\":null,\"json_items\":null,\"json_items_kept\":null,\"json_strings_cut\":null,\
             \"last\":null,\"limit\":3,\"matches\":null,\"next_offset\":null,\
             \"notice\":\"... (truncated, showing last 3 tokens)\",\"omitted\":5,\"saved_to\":null,\
             \"signal\":null,\"timed_out\":false,\"tokenizer\":\"estimate\",\"total_bytes\":28,\
             \"total_chars\":28,\"total_lines\":1,\"total_tokens\":8,\"truncated\":true,\"unit\":\"tokens\"}\n"
                .to_owned(),
            Some(0)
        )
    );
}

#[test]
fn json_of_a_cut_of_json_gives_its_counts() {
    assert_eq!(
        json(&["--json-items", "2", "-n", "100"], b"[1,2,3,4,{\"a\":\"b\",\"c\":\"d\",\"e\":\"f\"}]\n"),
        (
            "{\"output\":\"[1,2]\\n\",\"budget\":null,\"cap\":\"head-lines\",\"error\":null,\"exit_code\":0,\
             \"first\":null,\"json_arrays_cut\":1,\"json_documents\":1,\"json_documents_kept\":1,\
             \"json_ended_at\":null,\"json_items\":5,\"json_items_kept\":2,\"json_strings_cut\":0,\
             \"last\":null,\"limit\":100,\"matches\":null,\"next_offset\":null,\
             \"notice\":\"... (truncated JSON: kept 2 of 5 items in 1 arrays, 0 strings cut)\",\"omitted\":0,\
             \"saved_to\":null,\"signal\":null,\"timed_out\":false,\"tokenizer\":null,\"total_bytes\":36,\
             \"total_chars\":36,\"total_lines\":1,\"total_tokens\":null,\"truncated\":true,\"unit\":\"lines\"}\n"
                .to_owned(),
            Some(0)
        )
    );
}

#[test]
fn json_of_an_input_that_is_not_json_says_where_its_json_ended() {
    assert_eq!(
        json(&["--json-items", "2", "-n", "100"], b"not json\n"),
        (
            "{\"output\":\"not json\\n\",\"budget\":null,\"cap\":\"head-lines\",\"error\":null,\"exit_code\":0,\
             \"first\":1,\"json_arrays_cut\":null,\"json_documents\":null,\"json_documents_kept\":null,\
             \"json_ended_at\":0,\"json_items\":null,\"json_items_kept\":null,\"json_strings_cut\":null,\
             \"last\":1,\"limit\":100,\"matches\":null,\"next_offset\":null,\"notice\":null,\"omitted\":0,\
             \"saved_to\":null,\"signal\":null,\"timed_out\":false,\"tokenizer\":null,\"total_bytes\":9,\
             \"total_chars\":9,\"total_lines\":1,\"total_tokens\":null,\"truncated\":false,\"unit\":\"lines\"}\n"
                .to_owned(),
            Some(0)
        )
    );
}

#[test]
fn json_of_a_save_that_fails_gives_its_error_and_status_1() {
    assert_eq!(
        json(&["-c", "8", "--save", "/dev/full"], b"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"),
        (
            "{\"output\":\"\\n8\\n9\\n10\\n\",\"budget\":null,\"cap\":\"tail-chars\",\
             \"error\":\"cannot save the output to /dev/full: No space left on device (os error 28)\",\
             \"exit_code\":1,\"first\":null,\"json_arrays_cut\":null,\"json_documents\":null,\
             \"json_documents_kept\":null,\"json_ended_at\":null,\"json_items\":null,\"json_items_kept\":null,\
             \"json_strings_cut\":null,\"last\":null,\"limit\":8,\"matches\":null,\"next_offset\":null,\
             \"notice\":\"... (truncated, showing last 8 chars)\",\"omitted\":13,\"saved_to\":null,\
             \"signal\":null,\"timed_out\":false,\"tokenizer\":null,\"total_bytes\":21,\"total_chars\":21,\
             \"total_lines\":10,\"total_tokens\":null,\"truncated\":true,\"unit\":\"chars\"}\n"
                .to_owned(),
            Some(1)
        )
    );
}

#[test]
fn json_of_a_command_killed_by_a_signal_gives_the_signal() {
    // capout ends by the command's signal, once the object is written.
    let out = capout().args(["--json", "--", "sh", "-c", "echo a; kill -TERM $$"]).output().unwrap();
    assert_eq!(
        (String::from_utf8_lossy(&out.stdout), out.status.signal()),
        (
            "{\"output\":\"a\\n\",\"budget\":null,\"cap\":\"tail-chars\",\"error\":null,\"exit_code\":143,\
             \"first\":null,\"json_arrays_cut\":null,\"json_documents\":null,\"json_documents_kept\":null,\
             \"json_ended_at\":null,\"json_items\":null,\"json_items_kept\":null,\"json_strings_cut\":null,\
             \"last\":null,\"limit\":5000,\"matches\":null,\"next_offset\":null,\"notice\":null,\"omitted\":0,\
             \"saved_to\":null,\"signal\":15,\"timed_out\":false,\"tokenizer\":null,\"total_bytes\":2,\
             \"total_chars\":2,\"total_lines\":1,\"total_tokens\":null,\"truncated\":false,\"unit\":\"chars\"}\n"
                .into(),
            Some(15)
        )
    );
}

#[test]
fn json_of_an_input_that_cannot_be_read_has_no_counts() {
    let dir = tempfile::tempdir().unwrap();
    let out = capout_std()
        .arg("--json")
        .stdin(File::open(dir.path()).unwrap())
        .stderr(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        (String::from_utf8_lossy(&out.stdout), out.status.code()),
        (
            "{\"output\":\"\",\"budget\":null,\"cap\":\"tail-chars\",\
             \"error\":\"error reading input: Is a directory (os error 21)\",\"exit_code\":1,\"first\":null,\
             \"json_arrays_cut\":null,\"json_documents\":null,\"json_documents_kept\":null,\
             \"json_ended_at\":null,\"json_items\":null,\"json_items_kept\":null,\"json_strings_cut\":null,\
             \"last\":null,\"limit\":5000,\"matches\":null,\"next_offset\":null,\"notice\":null,\
             \"omitted\":null,\"saved_to\":null,\"signal\":null,\"timed_out\":false,\"tokenizer\":null,\
             \"total_bytes\":null,\"total_chars\":null,\"total_lines\":null,\"total_tokens\":null,\
             \"truncated\":false,\"unit\":\"chars\"}\n"
                .into(),
            Some(1)
        )
    );
}
