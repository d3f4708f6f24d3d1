//! What a new user meets first: error messages that say what is wrong in
//! the user's own terms, hints for a mistyped name, and the options that
//! stop a run at its cap or hide binary input.

use std::fmt::Write as _;

use crate::common::capout;

/// Runs capout with `args` on `input`: (status, stdout, stderr).
fn run(args: &[&str], input: &[u8]) -> (Option<i32>, String, String) {
    let out = capout().args(args).write_stdin(input.to_vec()).output().expect("capout runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The first line of a usage error, which must exit 2 with nothing on
/// stdout.
fn usage_error(args: &[&str]) -> String {
    let (status, stdout, stderr) = run(args, b"x\n");
    assert_eq!(status, Some(2), "{args:?}: {stderr}");
    assert_eq!(stdout, "", "{args:?}");
    stderr.lines().next().unwrap_or_default().to_owned()
}

#[test]
fn root_without_mcp_says_root_needs_mcp() {
    assert_eq!(usage_error(&["--root", "/tmp"]), "error: --root goes with --mcp: capout --mcp [--root DIR]");
    assert_eq!(
        usage_error(&["--mcp", "-n", "3"]),
        "error: --mcp takes no option but --root DIR: capout --mcp [--root DIR]"
    );
}

#[test]
fn conflicting_caps_are_named_in_command_line_order() {
    assert_eq!(
        usage_error(&["-n", "5", "-c", "5"]),
        "error: the caps --head-lines 5 and --tail-chars 5 cannot be used together"
    );
    assert_eq!(
        usage_error(&["-c", "5", "-n", "6"]),
        "error: the caps --tail-chars 5 and --head-lines 6 cannot be used together"
    );
    assert_eq!(
        usage_error(&["--tail-tokens", "3", "-m", "2"]),
        "error: the caps --tail-tokens 3 and --max-matches 2 cannot be used together"
    );
}

#[test]
fn input_that_is_a_directory_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_str().unwrap();
    let (status, stdout, stderr) = run(&["--input", path], b"");
    assert_eq!(status, Some(1));
    assert_eq!(stdout, "");
    assert_eq!(stderr, format!("capout: error reading input: cannot open {path}: is a directory\n"));
}

#[test]
fn ranges_are_written_one_way() {
    for (args, says) in [
        (&["-n", "0"][..], "'0' for '--head-lines <N>': 0 is not in 1 to 18446744073709551615"),
        (&["-c", "-3"], "'-3' for '--tail-chars <N>': -3 is not in 1 to 18446744073709551615"),
        (&["--render", "--render-width", "1"], "'1' for '--render-width <N>': 1 is not in 2 to 10000"),
        (
            &["--render", "--render-height", "1001"],
            "'1001' for '--render-height <N>': 1001 is not in 1 to 1000",
        ),
    ] {
        assert_eq!(usage_error(args), format!("error: invalid value {says}"), "{args:?}");
    }
}

#[test]
fn show_config_with_json_is_json() {
    let (status, stdout, stderr) = run(&["--json", "-n", "3", "--keep", "a\"b", "--show-config"], b"");
    assert_eq!((status, stderr.as_str()), (Some(0), ""));
    assert_eq!(
        stdout,
        concat!(
            r#"{"options":[{"option":"--head-lines 3","source":"command line"},"#,
            r#"{"option":"--keep 'a\"b'","source":"command line"},"#,
            r#"{"option":"--json","source":"command line"},"#,
            r#"{"option":"--max-line-chars 2000","source":"built-in"},"#,
            r#"{"option":"--keep-max 20","source":"built-in"},"#,
            r#"{"option":"--notice stdout","source":"built-in"},"#,
            r#"{"option":"--progress auto","source":"built-in"}]}"#,
            "\n"
        )
    );
    let parsed: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(parsed["options"][1]["option"], "--keep 'a\"b'");
}

/// A config file at `XDG_CONFIG_HOME/capout/config.toml` holding `text`,
/// in a new folder that is also the home.
fn config_home(text: &str) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir(home.path().join("capout")).unwrap();
    std::fs::write(home.path().join("capout/config.toml"), text).unwrap();
    home
}

#[test]
fn a_mistyped_profile_gets_a_hint() {
    assert_eq!(
        usage_error(&["--profile=reed"]),
        "error: no such profile: reed; did you mean read? (the profiles are read, grep, bash, tool)"
    );
    assert_eq!(
        usage_error(&["--profile", "xyz"]),
        "error: no such profile: xyz (the profiles are read, grep, bash, tool)"
    );
    let home = config_home("[profile.quick]\ntail-lines = 100\n");
    let out = capout()
        .args(["--profile", "quikc"])
        .env("XDG_CONFIG_HOME", home.path())
        .write_stdin("x\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).lines().next().unwrap(),
        "error: no such profile: quikc; did you mean quick? (the profiles are read, grep, bash, tool, quick)"
    );
}

#[test]
fn list_profiles_names_the_config_files_profiles_too() {
    let home = config_home("[profile.quick]\ntail-lines = 100\n[profile.read]\nhead-lines = 3\n");
    let out = capout().arg("--list-profiles").env("XDG_CONFIG_HOME", home.path()).output().unwrap();
    assert_eq!((out.status.code(), out.stderr.as_slice()), (Some(0), &b""[..]));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "read\ngrep\nbash\ntool\nquick\n");
    // A broken config file: the built-in names, and no error to show.
    let broken = config_home("[profile.quick\n");
    let out = capout().arg("--list-profiles").env("XDG_CONFIG_HOME", broken.path()).output().unwrap();
    assert_eq!((out.status.code(), out.stderr.as_slice()), (Some(0), &b""[..]));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "read\ngrep\nbash\ntool\n");
}

#[test]
fn bash_completes_the_profiles_of_the_config_file() {
    let home = config_home("[profile.quick]\ntail-lines = 100\n[profile.deep]\nhead-lines = 2000\n");
    let bin = home.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_capout"), bin.join("capout")).unwrap();
    let script = crate::common::capout_std().args(["--completions", "bash"]).output().unwrap();
    assert!(script.status.success());
    let complete = |line: &str| {
        let words: Vec<String> = line.split(' ').map(|w| format!("'{w}'")).collect();
        let driver = format!(
            "{}\nCOMP_WORDS=({}); COMP_CWORD={}\n_capout capout\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
            String::from_utf8(script.stdout.clone()).unwrap(),
            words.join(" "),
            words.len() - 1,
        );
        let mut bash = std::process::Command::new("bash");
        crate::common::clean_env(&mut bash)
            .args(["--norc", "--noprofile", "-c", &driver])
            .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
            .env("XDG_CONFIG_HOME", home.path());
        let out = bash.output().expect("bash runs");
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{line}");
        let mut found: Vec<String> =
            String::from_utf8(out.stdout).unwrap().lines().map(str::to_owned).collect();
        found.sort();
        found
    };
    assert_eq!(complete("capout --profile "), ["bash", "deep", "grep", "quick", "read", "tool"]);
    assert_eq!(complete("capout --profile q"), ["quick"]);
}

/// 10,000 bytes whose first 8 KiB hold a NUL byte.
fn binary_input() -> Vec<u8> {
    let mut input = b"\x7fELF".to_vec();
    input.push(0);
    input.resize(10_000, b'x');
    input
}

#[test]
fn binary_hide_replaces_binary_input_with_one_line() {
    let (status, stdout, stderr) = run(&["-n", "3", "--binary", "hide"], &binary_input());
    assert_eq!(
        (status, stdout.as_str(), stderr.as_str()),
        (Some(0), "(binary output, 10000 bytes: not shown)\n", "")
    );
    // Text passes, and so does binary input by default, as head passes it.
    assert_eq!(
        run(&["-n", "1", "--binary", "hide"], b"a\nb\n").1,
        "a\n... (truncated, showing lines 1-1 of 2, next offset 1)\n"
    );
    let out = capout().args(["--head-chars", "5"]).write_stdin(binary_input()).output().unwrap();
    assert_eq!(out.stdout, b"\x7fELF\0\n... (truncated, showing first 5 chars)\n");
    // A NUL byte past the first 8 KiB is text, however the reads split.
    let mut late = vec![b'a'; 8192];
    late.push(0);
    let out = capout().args(["-c", "2", "--binary", "hide"]).write_stdin(late).output().unwrap();
    assert_eq!(out.stdout, b"a\0\n... (truncated, showing last 2 chars)\n");
}

#[test]
fn binary_hide_with_a_save_keeps_the_file_and_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["-n", "3", "--binary", "hide", "--save-dir", dir.path().to_str().unwrap()];
    let (status, stdout, stderr) = run(&args, &binary_input());
    let files: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(
        (status, stdout, stderr.as_str()),
        (
            Some(0),
            format!("(binary output, 10000 bytes: not shown; full output: {})\n", files[0].display()),
            ""
        )
    );
    assert_eq!(std::fs::read(&files[0]).unwrap(), binary_input());
    let file = dir.path().join("whole.bin");
    let (_, stdout, _) = run(&["--binary", "hide", "--save", file.to_str().unwrap()], &binary_input());
    assert_eq!(stdout, format!("(binary output, 10000 bytes: not shown; full output: {})\n", file.display()));
    assert_eq!(std::fs::read(&file).unwrap(), binary_input());
}

#[test]
fn the_read_and_bash_profiles_hide_binary_input() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("prog");
    std::fs::write(&file, binary_input()).unwrap();
    let file = file.to_str().unwrap();
    let (status, stdout, _) = run(&["--profile", "read", "--input", file], b"");
    assert_eq!((status, stdout.as_str()), (Some(0), "(binary output, 10000 bytes: not shown)\n"));
    let (status, stdout, _) = run(&["--profile", "bash", "--", "cat", file], b"");
    assert_eq!((status, stdout.as_str()), (Some(0), "(binary output, 10000 bytes: not shown)\n"));
    // --binary show turns a profile's default off.
    let (_, stdout, _) =
        run(&["--profile", "bash", "--binary", "show", "--tail-chars", "3", "--", "cat", file], b"");
    assert_eq!(stdout, "xxx\n... (truncated, showing last 3 chars)\n");
    let (_, stdout, _) = run(&["--profile", "grep"], &binary_input()[..5]);
    assert_eq!(stdout.as_bytes(), b"\x7fELF\0");
}

#[test]
fn stop_at_cap_ends_a_head_cap_on_an_endless_command() {
    // Without --stop-at-cap this never ends: `yes` writes forever.
    let (status, stdout, stderr) = run(&["-n", "2", "--stop-at-cap", "--", "yes"], b"");
    assert_eq!(stderr, "");
    assert_eq!(stdout, "y\ny\n... (truncated, showing lines 1-2; the rest was not read)\n");
    // `yes` died of the closed pipe, as in `yes | head -n 2`: status 0.
    assert_eq!(status, Some(0));
    let (status, stdout, _) = run(&["--head-chars", "3", "--stop-at-cap", "--", "yes"], b"");
    assert_eq!(
        (status, stdout.as_str()),
        (Some(0), "y\ny\n... (truncated, showing first 3 chars; the rest was not read)\n")
    );
    let (status, stdout, _) = run(&["-m", "2", "-e", "y", "--stop-at-cap", "--", "yes"], b"");
    assert_eq!(
        (status, stdout.as_str()),
        (Some(0), "y\ny\n... (showing first 2 matches; the rest was not read)\n")
    );
    // A command that ends otherwise keeps its status.
    let (status, stdout, _) =
        run(&["-n", "1", "--stop-at-cap", "--", "sh", "-c", "trap '' PIPE; echo a; echo b; exit 3"], b"");
    assert_eq!(
        (status, stdout.as_str()),
        (Some(3), "a\n... (truncated, showing lines 1-1; the rest was not read)\n")
    );
}

#[test]
fn stop_at_cap_on_a_pipe_notices_only_input_past_the_cap() {
    let cases: [(&[&str], &[u8], &str); 6] = [
        (&["-n", "2"], b"a\nb\n", "a\nb\n"),
        (&["-n", "2"], b"a\nb\nc", "a\nb\n... (truncated, showing lines 1-2; the rest was not read)\n"),
        (
            &["-n", "1", "--offset", "1"],
            b"a\nb\nc\n",
            "b\n... (truncated, showing lines 2-2; the rest was not read)\n",
        ),
        (&["--head-chars", "2"], b"ab", "ab"),
        (
            &["--head-chars", "2"],
            "abc".as_bytes(),
            "ab\n... (truncated, showing first 2 chars; the rest was not read)\n",
        ),
        // Matches stop at a match past the cap, so the notice is true.
        (&["-m", "1"], b"a\n\n\n", "a\n"),
    ];
    for (args, input, want) in cases {
        let mut args = args.to_vec();
        args.push("--stop-at-cap");
        let (status, stdout, stderr) = run(&args, input);
        assert_eq!((status, stdout.as_str(), stderr.as_str()), (Some(0), want, ""), "{args:?}");
    }
    let (_, stdout, _) = run(&["-n", "1", "--stop-at-cap", "--json"], b"a\nb\n");
    let object: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(object["notice"], "... (truncated, showing lines 1-1; the rest was not read)");
    assert_eq!(
        (object["omitted"].clone(), object["next_offset"].clone()),
        (serde_json::Value::Null, 1.into())
    );
}

#[test]
fn stop_at_cap_goes_with_a_head_cap_alone() {
    assert_eq!(
        usage_error(&["-c", "5", "--stop-at-cap"]),
        "error: --stop-at-cap goes with --head-lines, --head-chars or --max-matches"
    );
    assert_eq!(
        usage_error(&["-n", "5", "--keep", "x", "--stop-at-cap"]),
        "error: --stop-at-cap does not go with --keep: the lines after the cap are not read"
    );
}

#[test]
fn help_says_which_caps_read_to_the_end() {
    let out = capout().arg("--help").output().unwrap();
    let help = String::from_utf8(out.stdout).unwrap().split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        help.contains(
            "Every cap reads its input to the end, to count the total that its notice gives; a tail cap must, \
             to find the end. --stop-at-cap stops a head cap (--head-lines, --head-chars, --max-matches) \
             once it is full, as head does, and a command then meets a closed pipe."
        ),
        "{help}"
    );
}

#[test]
fn render_joins_a_line_the_terminal_wrapped() {
    // A 600-character compiler command on a terminal of 200 columns: one
    // line, not three rows; the line after it stays a line of its own.
    let command = format!("Running `rustc --crate-name app {}`", "-C opt-level=3 ".repeat(38));
    assert_eq!(command.chars().count(), 603);
    let input = format!("{command}\r\nerror: could not compile\r\n");
    let (status, stdout, _) = run(&["--render", "-n", "5"], input.as_bytes());
    assert_eq!(status, Some(0));
    assert_eq!(stdout, format!("{command}\nerror: could not compile\n"));
    // A space at the very end of a wrapped row joins the two words.
    let (_, stdout, _) = run(&["--render", "--render-width", "4"], b"abc de\n");
    assert_eq!(stdout, "abc de\n");
    // Spaces that end a wrapped row and then the line are removed.
    let (_, stdout, _) = run(&["--render", "--render-width", "4"], b"abc      \nx\n");
    assert_eq!(stdout, "abc\nx\n");
    // The line counts once for the caps: -n 1 keeps it whole.
    let (_, stdout, _) = run(&["--render", "--render-width", "4", "-n", "1"], b"abcdefghij\nk\n");
    assert_eq!(stdout, "abcdefghij\n... (truncated, showing lines 1-1 of 2, next offset 1)\n");
}

/// What `cargo build -v` prints for a failing build of 137 crates: a
/// `Compiling` and a `Running rustc` line for each (which mention
/// `--error-format=json` and `--cap-lints warn`), a warning early on, an
/// error, and the end.
fn cargo_build_v() -> String {
    let mut log = String::new();
    for i in 1..=137 {
        let _ = writeln!(log, "   Compiling crate-{i} v0.1.0");
        let _ = writeln!(
            log,
            "     Running `rustc --crate-name crate_{i} --edition=2021 src/lib.rs --error-format=json \
             --json=diagnostic-rendered-ansi,artifacts,future-incompat --crate-type lib -C debuginfo=2 \
             --cap-lints warn -W warnings`"
        );
        if i == 20 {
            log.push_str("warning: unused variable: `x`\n  --> src/lib.rs:3:9\n");
        }
        if i == 30 {
            log.push_str("src/shim.c:7:5: warning: implicit declaration of function 'f'\n");
        }
    }
    log.push_str("   Compiling app v0.1.0\n");
    log.push_str("error[E0425]: cannot find value `confg` in this scope\n  --> src/main.rs:12:5\n");
    log.push_str("error: could not compile `app` (bin \"app\") due to 1 previous error\n");
    log
}

#[test]
fn the_readme_keep_pattern_rescues_compiler_errors_not_command_lines() {
    let readme = include_str!("../../../../README.md");
    let pattern = r"(^|: )(error|warning)(\[|:)";
    assert!(readme.contains(&format!("make 2>&1 | capout --tail-lines 40 --keep '{pattern}'")));
    let (status, stdout, _) = run(&["--tail-lines", "3", "--keep", pattern], cargo_build_v().as_bytes());
    assert_eq!(status, Some(0));
    assert_eq!(
        stdout,
        concat!(
            "error[E0425]: cannot find value `confg` in this scope\n",
            "  --> src/main.rs:12:5\n",
            "error: could not compile `app` (bin \"app\") due to 1 previous error\n",
            "... (truncated, showing last 3 lines)\n",
            "... (cut lines matching (^|: )(error|warning)(\\[|:): 2)\n",
            "41:warning: unused variable: `x`\n",
            "63:src/shim.c:7:5: warning: implicit declaration of function 'f'\n",
        )
    );
    // The pattern the README had rescued the command lines instead.
    let (_, stdout, _) = run(&["--tail-lines", "3", "--keep", "error|warning"], cargo_build_v().as_bytes());
    assert!(stdout.contains("... (cut lines matching error|warning: 139, showing first 20)\n"), "{stdout}");
}

#[test]
fn man_prints_the_manual_page() {
    let out = capout().arg("--man").output().unwrap();
    assert_eq!((out.status.code(), out.stderr.as_slice()), (Some(0), &b""[..]));
    assert_eq!(out.stdout, include_bytes!("../../../../man/capout.1"));
    // As the README and the man page say to read it after cargo or uv.
    let readme = include_str!("../../../../README.md");
    assert!(readme.contains("`capout --man | man -l -`"));
    // Only alone: with other words it is no option of a run.
    let (status, _, stderr) = run(&["--man", "-n", "1"], b"");
    assert_eq!(status, Some(2), "{stderr}");
}

#[test]
fn a_default_stop_at_cap_waits_for_a_head_cap() {
    let with_opts = |args: &[&str]| {
        let out = capout()
            .env("CAPOUT_OPTS", "--stop-at-cap")
            .args(args)
            .write_stdin("a\nb\nc\n")
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
    };
    assert_eq!(with_opts(&["-c", "2"]), (Some(0), "c\n... (truncated, showing last 2 chars)\n".into()));
    assert_eq!(
        with_opts(&["-n", "1"]),
        (Some(0), "a\n... (truncated, showing lines 1-1; the rest was not read)\n".into())
    );
    assert_eq!(
        with_opts(&["-n", "1", "--keep", "c"]),
        (
            Some(0),
            "a\n... (truncated, showing lines 1-1 of 3, next offset 1)\n... (cut lines matching c: 1)\n3:c\n"
                .into()
        )
    );
}

#[test]
fn the_documentation_cites_no_document_outside_the_repository() {
    let docs = [
        ("README.md", include_str!("../../../../README.md")),
        ("man/capout.1", include_str!("../../../../man/capout.1")),
        ("Cargo.toml", include_str!("../../../../Cargo.toml")),
        ("crates/capout/Cargo.toml", include_str!("../../../../crates/capout/Cargo.toml")),
        ("crates/core/Cargo.toml", include_str!("../../../../crates/core/Cargo.toml")),
        ("crates/testkit/Cargo.toml", include_str!("../../../../crates/testkit/Cargo.toml")),
    ];
    for (name, text) in docs {
        for word in ["SPEC", "§", "reference grep"] {
            assert!(!text.contains(word), "{name} cites {word:?}");
        }
    }
    let man = include_str!("../../../../man/capout.1");
    assert!(!man.contains("The README says"), "the man page defers to the README");
    assert!(man.contains("(chars, bytes, lines, matches or tokens)"));
}

#[test]
fn help_works_on_every_subcommand_and_names_them() {
    for (args, first) in [
        (&["init", "--help"][..], "Write capout into an agent harness's own configuration"),
        (&["init", "codex", "--help"], "Write capout into an agent harness's own configuration"),
        (&["hook", "--help"], "Bound a harness's shell call"),
        (&["hook", "-h"], "Bound a harness's shell call"),
        (&["hook", "claude-code", "--help"], "Bound a harness's shell call"),
    ] {
        let (status, stdout, stderr) = run(args, b"");
        assert_eq!((status, stderr.as_str()), (Some(0), ""), "{args:?}");
        assert!(stdout.starts_with(first), "{args:?}: {stdout}");
        for harness in ["claude-code", "codex", "gemini", "opencode"] {
            assert!(stdout.contains(harness), "{args:?} does not name {harness}: {stdout}");
        }
    }
    let (status, help, _) = run(&["--help"], b"");
    assert_eq!(status, Some(0));
    let commands = ["capout init HARNESS", "capout hook HARNESS", "capout --man", "capout --list-profiles"];
    for command in commands.into_iter().chain(["capout stats", "capout --mcp ", "capout --mcp-wrap -- CMD"]) {
        assert!(help.contains(command), "capout --help does not name {command}:\n{help}");
    }
    let (status, stdout, stderr) = run(&["stats", "--help"], b"");
    assert_eq!((status, stderr.as_str()), (Some(0), ""));
    assert!(stdout.starts_with("What bounding saved: "), "{stdout}");
}

#[test]
fn a_hook_with_a_wrong_harness_leaves_the_call_alone_and_says_why() {
    for (args, why) in [
        (
            &["hook"][..],
            "capout: hook: name a harness: claude-code, codex, gemini, opencode, qwen-code, pi, copilot, droid, crush\n",
        ),
        (
            &["hook", "vim"],
            "capout: hook: unknown harness 'vim' (known: claude-code, codex, gemini, opencode, qwen-code, pi, copilot, droid, crush)\n",
        ),
    ] {
        assert_eq!(run(args, b"{}"), (Some(0), String::new(), why.to_owned()), "{args:?}");
    }
    let (status, stdout, stderr) = run(&["init", "vim"], b"");
    assert_eq!((status, stdout.as_str()), (Some(2), ""));
    assert!(stderr.contains("invalid value 'vim'") && stderr.contains("codex"), "{stderr}");
}

/// The guide's table of the built-in profiles: each row's options are
/// those that `--show-config` says come from the profile, in its order.
#[test]
fn the_guides_profile_table_is_what_show_config_says() {
    let guide = include_str!("../../../../docs/GUIDE.md");
    let mut rows = 0;
    for line in guide.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.split(" | ").collect();
        let name = cells[0].trim_start_matches("| `").trim_end_matches('`');
        if !["read", "grep", "bash", "tool"].contains(&name) {
            continue;
        }
        rows += 1;
        let (status, stdout, stderr) = run(&["--profile", name, "--show-config"], b"");
        assert_eq!((status, stderr.as_str()), (Some(0), ""), "{name}");
        let from = format!("\tprofile {name}");
        let options: Vec<&str> = stdout.lines().filter_map(|l| l.strip_suffix(from.as_str())).collect();
        assert_eq!(cells[1].trim_matches('`'), options.join(" "), "the guide's row of profile {name}");
    }
    assert_eq!(rows, 4, "the guide has a row for each built-in profile");
}

/// What hosts calls for others is built to unwind on a panic, so that a
/// bug in one call is an error of that call (the tests of that run debug
/// builds, which always unwind): the profile, and each build that ships
/// the Python extension, the Node addon and capout-mcp.
#[test]
fn what_hosts_calls_is_built_in_the_profile_that_unwinds() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let read = |file: &str| std::fs::read_to_string(format!("{root}/{file}")).unwrap();
    let cargo = read("Cargo.toml");
    let profile = cargo.split("[profile.release-unwind]").nth(1).expect("a profile release-unwind");
    assert!(profile.trim_start().starts_with("inherits = \"release\"\npanic = \"unwind\"\n"), "{profile}");
    assert!(read("pyproject.toml").contains("\nprofile = \"release-unwind\"\n"), "the wheel's extension");
    assert!(
        read("crates/python/build.rs").contains("let profile = \"release-unwind\";"),
        "the wheel's programs"
    );
    let npm = read("packaging/npm-pack.sh");
    for build in [
        "--profile release-unwind --locked -p capout --bin capout-mcp",
        "--profile release-unwind --locked -p capout-node",
    ] {
        assert!(npm.contains(build), "npm-pack.sh: {build}");
    }
}
