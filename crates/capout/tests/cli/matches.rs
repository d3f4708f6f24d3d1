//! `--max-matches` without a pattern counts the lines that are not
//! empty, as the reference grep tool does (SPEC §2).

fn capout(args: &[&str], input: &str) -> String {
    let out = crate::common::capout().args(args).write_stdin(input).output().unwrap();
    assert!(out.status.success(), "{:?}", out.status);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn empty_lines_are_not_matches() {
    let cases: [(&str, &[&str], &str, &str); 7] = [
        ("only_empty_lines", &["-m", "50"], "\n\n", "No matches found.\n"),
        ("crlf_empty_lines", &["-m", "50"], "\r\n\r\n", "No matches found.\n"),
        (
            "rg_heading_counts_its_matches",
            &["-m", "2"],
            "a.rs\n1:x\n2:y\n\nb.rs\n3:z\n",
            "a.rs\n1:x\n... (5 total, showing first 2)\n",
        ),
        ("a_blank_but_not_empty_line_matches", &["-m", "5"], " \n\n\t\n", " \n\t\n"),
        (
            "numbers_are_input_lines",
            &["-m", "2", "-N"],
            "\n\nx\n\ny\nz\n",
            "     3\tx\n     5\ty\n... (3 total, showing first 2)\n",
        ),
        ("a_last_line_without_newline", &["-m", "5"], "\n\nend", "end"),
        ("with_a_pattern_it_alone_decides", &["-m", "5", "-e", "^$"], "a\n\n\n", "\n\n"),
    ];
    let failed: Vec<String> = cases
        .iter()
        .filter_map(|(name, args, input, want)| {
            let got = capout(args, input);
            (got != *want).then(|| format!("{name}: want {want:?}, got {got:?}"))
        })
        .collect();
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
