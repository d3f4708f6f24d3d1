//! `--keep`: which cut lines are rescued, and that the count stays exact
//! over many lines while only the first K are held.

fn capout(args: &[&str], input: &[u8]) -> String {
    let out = crate::common::capout().args(args).write_stdin(input.to_vec()).output().expect("capout runs");
    assert_eq!(out.status.code(), Some(0), "{args:?}");
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

const LINES: &[u8] = b"first line that is long\nmid\nend\n";

/// The marker that `--max-line-chars` writes into a line is capout's, not
/// the input's: `--keep` never matches it.
#[test]
fn keep_never_matches_the_marker_of_the_line_cap() {
    assert_eq!(
        capout(&["-c", "8", "--max-line-chars", "8", "--keep", "truncated"], LINES),
        "mid\nend\n... (truncated, showing last 8 chars)\n"
    );
    assert_eq!(
        capout(&["--head-chars", "3", "-c", "8", "--max-line-chars", "8", "--keep", "truncated"], LINES),
        "fir\n... (truncated, omitted 38 chars) ...\nmid\nend\n"
    );
    assert_eq!(
        capout(&["--tail-lines", "1", "--max-line-chars", "8", "--keep", "truncated|chars"], LINES),
        "end\n... (truncated, showing last 1 lines)\n"
    );
}

/// `--keep` matches the whole line as the transforms left it, also the
/// part that the line cap cuts off.
#[test]
fn keep_matches_the_line_before_the_line_cap_cut_it() {
    assert_eq!(
        capout(&["-c", "8", "--max-line-chars", "8", "--keep", "long"], LINES),
        "mid\nend\n... (truncated, showing last 8 chars)\n\
         ... (cut lines matching long: 1)\n1:first li ... (line truncated to 8 chars)\n"
    );
}

/// Many more matching lines than the tail holds: the count is exact.
#[test]
fn keep_counts_every_cut_match_over_many_lines() {
    let input: String = (1..=200_000).map(|i| i.to_string() + "\n").collect();
    let lines: Vec<&str> = input.lines().collect();
    let cut_matches =
        |kept_lines: usize| lines[..lines.len() - kept_lines].iter().filter(|l| l.ends_with('7')).count();
    // The last 14 characters are the last two lines, "199999\n200000\n".
    let rescued = |kept_lines: usize, first: &[&str]| {
        format!(
            "... (cut lines matching 7$: {}, showing first 3)\n{}",
            cut_matches(kept_lines),
            first.concat()
        )
    };
    let first = ["7:7\n", "17:17\n", "27:27\n"];
    assert_eq!(
        capout(&["-c", "14", "--keep", "7$", "--keep-max", "3"], input.as_bytes()),
        format!("199999\n200000\n... (truncated, showing last 14 chars)\n{}", rescued(2, &first))
    );
    let tail: String = lines[lines.len() - 500..].iter().map(|l| l.to_string() + "\n").collect();
    assert_eq!(
        capout(&["--tail-lines", "500", "--keep", "7$", "--keep-max", "3"], input.as_bytes()),
        format!("{tail}... (truncated, showing last 500 lines)\n{}", rescued(500, &first))
    );
}
