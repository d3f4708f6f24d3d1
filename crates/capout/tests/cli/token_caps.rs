//! The token caps from the outside: notices and JSON byte for byte, with
//! the estimator (the default tokenizer), and how they combine with the
//! options the character caps take.

use serde_json::Value;

const TEXT: &str = "hello world, this is a test of the token caps\nsecond line here\n";

fn capout(args: &[&str], input: &str) -> assert_cmd::assert::Assert {
    crate::common::capout().args(args).write_stdin(input.to_owned()).assert()
}

fn stdout(args: &[&str], input: &str) -> String {
    let out = capout(args, input).success().get_output().stdout.clone();
    String::from_utf8(out).expect("UTF-8 output")
}

fn json(args: &[&str], input: &str) -> Value {
    let args: Vec<&str> = args.iter().copied().chain(["--json"]).collect();
    serde_json::from_str(&stdout(&args, input)).expect("one JSON object")
}

#[test]
fn each_notice_to_the_letter() {
    assert_eq!(
        stdout(&["--tail-tokens", "5"], TEXT),
        "second line here\n... (truncated, showing last 5 tokens)\n"
    );
    assert_eq!(
        stdout(&["--head-tokens", "5"], TEXT),
        "hello world, this\n... (truncated, showing first 5 tokens)\n"
    );
    assert_eq!(
        stdout(&["--head-tokens", "3", "--tail-tokens", "3"], TEXT),
        "hello world\n... (truncated, omitted 11 tokens) ...\n here\n"
    );
}

#[test]
fn nothing_cut_no_notice_and_empty_input_says_so() {
    for args in [
        &["--tail-tokens", "100"][..],
        &["--head-tokens", "100"],
        &["--head-tokens", "9", "--tail-tokens", "9"],
    ] {
        assert_eq!(stdout(args, TEXT), TEXT, "{args:?}");
        assert_eq!(stdout(args, ""), "(no output)\n", "{args:?}");
    }
}

#[test]
fn notice_format_says_tokens() {
    let template = "{shown}|{limit}|{total}|{omitted}|{unit}";
    assert_eq!(
        stdout(&["--tail-tokens", "5", "--notice-format", template], TEXT),
        "second line here\n5|5|17|12|tokens\n"
    );
    assert_eq!(
        stdout(&["--head-tokens", "5", "--notice-format", template], TEXT),
        "hello world, this\n5|5|17|12|tokens\n"
    );
    assert_eq!(
        stdout(&["--head-tokens", "3", "--tail-tokens", "3", "--notice-format", template], TEXT),
        "hello world\n6|6|17|11|tokens\n here\n"
    );
}

#[test]
fn json_has_total_tokens_and_the_tokenizer() {
    let tail = json(&["--tail-tokens", "5"], TEXT);
    assert_eq!(tail["output"], "second line here\n");
    assert_eq!(tail["notice"], "... (truncated, showing last 5 tokens)");
    assert_eq!(
        (&tail["cap"], &tail["limit"], &tail["unit"]),
        (&"tail-tokens".into(), &5.into(), &"tokens".into())
    );
    assert_eq!(
        (&tail["total_tokens"], &tail["omitted"], &tail["tokenizer"]),
        (&17.into(), &12.into(), &"estimate".into())
    );
    assert_eq!((&tail["truncated"], &tail["total_bytes"]), (&true.into(), &63.into()));

    let head = json(&["--head-tokens", "5", "--tokenizer", "estimate"], TEXT);
    assert_eq!((&head["output"], &head["cap"]), (&"hello world, this".into(), &"head-tokens".into()));
    assert_eq!(head["notice"], "... (truncated, showing first 5 tokens)");
    assert_eq!((&head["total_tokens"], &head["omitted"]), (&17.into(), &12.into()));

    let pair = json(&["--head-tokens", "3", "--tail-tokens", "3"], TEXT);
    assert_eq!(pair["output"], "hello world\n... (truncated, omitted 11 tokens) ...\n here\n");
    assert_eq!((&pair["cap"], &pair["limit"]), (&"head-tail-tokens".into(), &serde_json::json!([3, 3])));
    assert_eq!(
        (&pair["total_tokens"], &pair["omitted"], &pair["unit"]),
        (&17.into(), &11.into(), &"tokens".into())
    );

    let whole = json(&["--tail-tokens", "100"], TEXT);
    assert_eq!(
        (&whole["truncated"], &whole["total_tokens"], &whole["omitted"]),
        (&false.into(), &17.into(), &0.into())
    );

    // Null with the other caps.
    let chars = json(&["-c", "5"], TEXT);
    assert_eq!((&chars["total_tokens"], &chars["tokenizer"]), (&Value::Null, &Value::Null));
}

#[test]
fn they_combine_with_keep_transforms_save_and_a_command() {
    let log = "error: first\nok\nok\nok\nok\nok\nok\nfinal words here\n";
    assert_eq!(
        stdout(&["--tail-tokens", "4", "--keep", "error"], log),
        " words here\n... (truncated, showing last 4 tokens)\n... (cut lines matching error: 1)\n1:error: first\n"
    );
    assert_eq!(
        stdout(
            &["--head-tokens", "3", "--keep", "error"],
            "a\nb\nc\nerror: late one\nmore text follows here\n"
        ),
        "a\nb\n... (truncated, showing first 3 tokens)\n... (cut lines matching error: 1)\n4:error: late one\n"
    );
    assert_eq!(
        stdout(&["--tail-tokens", "3", "--strip-ansi"], "\x1b[31mred\x1b[0m text here and more words\n"),
        " words\n... (truncated, showing last 3 tokens)\n"
    );
    // --max-line-chars is off unless given.
    let wide = format!("{}\n", "word ".repeat(3000));
    assert_eq!(stdout(&["--head-tokens", "100000"], &wide), wide);
    assert_eq!(
        stdout(&["--head-tokens", "2", "--max-line-chars", "3"], "abcdef\n"),
        "abc\n... (truncated, showing first 2 tokens)\n"
    );

    let dir = tempfile::tempdir().expect("a temporary directory");
    let saved = dir.path().join("full.log");
    let saved_arg = saved.to_str().expect("UTF-8 path");
    assert_eq!(
        stdout(&["--tail-tokens", "5", "--save", saved_arg], TEXT),
        format!("second line here\n... (truncated, showing last 5 tokens; full output: {saved_arg})\n")
    );
    assert_eq!(std::fs::read_to_string(&saved).expect("saved"), TEXT);

    let out = crate::common::capout()
        .args(["--tail-tokens", "4", "--", "sh", "-c", "echo one two three four five six; exit 3"])
        .assert()
        .code(3)
        .get_output()
        .stdout
        .clone();
    assert_eq!(out, b" five six\n... (truncated, showing last 4 tokens)\n");
}

#[test]
fn token_caps_conflict_with_other_caps() {
    let out = capout(&["--tail-tokens", "5", "-c", "3"], TEXT).code(2).get_output().clone();
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the caps --tail-tokens 5 and --tail-chars 3 cannot be used together"), "{err}");
    capout(&["--head-tokens", "5", "-n", "3"], TEXT).code(2);
    capout(&["--tail-tokens", "0"], TEXT).code(2);
}

#[cfg(not(feature = "exact-tokens"))]
#[test]
fn a_build_without_exact_tokenizers_says_so() {
    for name in ["o200k", "cl100k"] {
        let out = capout(&["--tail-tokens", "5", "--tokenizer", name], TEXT).code(2).get_output().clone();
        assert!(out.stdout.is_empty());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!(
                "--tokenizer {name}: capout was built without exact tokenizers (cargo feature exact-tokens)"
            )),
            "{err}"
        );
    }
}

/// The exact tokenizers from the command line.
#[cfg(feature = "exact-tokens")]
mod exact {
    use capout_core::tokens::{self, Exact};

    #[test]
    fn exact_caps_from_the_command_line() {
        // capout's stdout for `args` on one short line.
        let run = |args: &[&str]| {
            crate::common::capout()
                .args(args)
                .write_stdin("hello world foo bar baz\n")
                .assert()
                .success()
                .get_output()
                .stdout
                .clone()
        };
        for name in ["o200k", "cl100k"] {
            let out = run(&["--tail-tokens", "3", "--tokenizer", name, "--json"]);
            let object: serde_json::Value = serde_json::from_slice(&out).expect("one JSON object");
            assert_eq!(object["output"], " bar baz\n");
            assert_eq!(object["notice"], "... (truncated, showing last 3 tokens)");
            assert_eq!((&object["tokenizer"], &object["total_tokens"]), (&name.into(), &6.into()));
            let out = run(&["--head-tokens", "2", "--tail-tokens", "2", "--tokenizer", name]);
            assert_eq!(
                String::from_utf8_lossy(&out),
                "hello wor\n... (truncated, omitted 2 tokens) ...\n baz\n"
            );
        }
    }

    /// The exact total of `--json` is counted in stretches, so that memory
    /// stays bounded: it must be the count of the whole input at once.
    #[test]
    fn the_exact_total_of_a_long_input_is_its_whole_count() {
        let mut input = String::new();
        let mut i = 0u64;
        while input.len() < 700_000 {
            i += 1;
            let word =
                ["error", "ok", "Build", "42", "  indented", "naïve", "中文", "{\"k\": 1}"][(i % 8) as usize];
            input.push_str(word);
            input.push_str(" line ");
            input.push_str(&i.to_string());
            input.push_str(" of the log\n");
            if i.is_multiple_of(5) {
                input.push_str("\n  \n");
            }
        }
        for (name, exact) in [("o200k", Exact::O200k), ("cl100k", Exact::Cl100k)] {
            let out = crate::common::capout()
                .args(["--tail-tokens", "10", "--tokenizer", name, "--json"])
                .write_stdin(input.clone())
                .assert()
                .success()
                .get_output()
                .stdout
                .clone();
            let object: serde_json::Value = serde_json::from_slice(&out).expect("one JSON object");
            assert_eq!(object["total_tokens"], tokens::count_exact(exact, input.as_bytes()), "{name}");
        }
    }
}
