//! Profiles, the config file and its layering (SPEC §10), `--input FILE`
//! (SPEC §5) and `-i, --ignore-case` (SPEC §2): black-box, exact bytes.

use assert_cmd::Command;
use std::fmt::Write;
use std::path::Path;

/// A config file with every kind of value: strings, integers, booleans
/// both ways, and a redefined built-in profile.
const CONFIG: &str = r#"
# Every kind of value.
[defaults]
strip-ansi = true
json = false
max-line-chars = 40
notice-format = "cut {omitted} {unit}"

[profile.quick]
tail-lines = 2
line-numbers = true

[profile.read]
head-lines = 1

[profile.shout]
max-matches = 5
pattern = "ERR"
ignore-case = true
"#;

/// capout with the config file `config` (none when `None`), no
/// `CAPOUT_OPTS`.
fn capout(dir: &Path, config: Option<&str>) -> Command {
    let mut cmd = crate::common::capout();
    cmd.env_remove("CAPOUT_OPTS").current_dir(dir);
    match config {
        Some(text) => {
            let path = dir.join("config.toml");
            std::fs::write(&path, text).unwrap();
            cmd.env("CAPOUT_CONFIG", path);
        }
        None => {
            cmd.env("CAPOUT_CONFIG", "");
        }
    }
    cmd
}

const INPUT: &[u8] = b"\x1b[1mone\x1b[0m\nTwo ERR\nthree err\nfour four four\n";

/// `(name, CAPOUT_OPTS, args, stdout)`, with [`CONFIG`] and [`INPUT`].
type Case = (&'static str, Option<&'static str>, &'static [&'static str], &'static str);

const LAYERS: &[Case] = &[
    // [defaults] alone: strip-ansi, the notice format; the built-in cap.
    ("defaults_apply", None, &[], "one\nTwo ERR\nthree err\nfour four four\n"),
    ("defaults_with_a_line_cap", None, &["-n", "1"], "one\ncut 3 lines\n"),
    // A profile over [defaults].
    ("profile", None, &["--profile", "quick"], "     3\tthree err\n     4\tfour four four\ncut 2 lines\n"),
    // A [profile.read] replaces the built-in read.
    ("redefined_built_in", None, &["--profile", "read"], "one\ncut 3 lines\n"),
    ("built_in_grep", None, &["--profile", "grep"], "one\nTwo ERR\nthree err\nfour four four\n"),
    // The command line's cap replaces the profile's; its -N goes with
    // --max-matches too.
    ("command_line_cap_wins", None, &["--profile", "quick", "-m", "1"], "     1\tone\ncut 3 matches\n"),
    // The command line's options go with the profile's cap.
    ("paging_a_profile", None, &["--profile", "read", "--offset", "2"], "three err\ncut 3 lines\n"),
    // CAPOUT_OPTS over [defaults], under the profile.
    ("capout_opts_over_defaults", Some("--no-strip-ansi -c 8"), &[], "ur four\ncut 37 chars\n"),
    ("profile_over_capout_opts", Some("-c 8"), &["--profile", "read"], "one\ncut 3 lines\n"),
    // A default profile in CAPOUT_OPTS; the command line's replaces it.
    ("default_profile", Some("--profile read"), &[], "one\ncut 3 lines\n"),
    (
        "command_line_profile_wins",
        Some("--profile read"),
        &["--profile", "quick", "-N"],
        "     3\tthree err\n     4\tfour four four\ncut 2 lines\n",
    ),
    // -i from a profile, with a pattern.
    ("ignore_case_profile", None, &["--profile", "shout"], "Two ERR\nthree err\n"),
    // A switch of [defaults] turned off on the command line.
    ("no_form", None, &["--no-strip-ansi", "-c", "12"], "r four four\ncut 33 chars\n"),
];

#[test]
fn layers_apply_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let mut failed = Vec::new();
    for &(name, opts, args, want) in LAYERS {
        let mut cmd = capout(dir.path(), Some(CONFIG));
        if let Some(opts) = opts {
            cmd.env("CAPOUT_OPTS", opts);
        }
        let out = cmd.args(args).write_stdin(INPUT).output().unwrap();
        let got = (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
            out.status.code(),
        );
        if got != (want.to_owned(), String::new(), Some(0)) {
            failed.push(format!("{name}: got {got:?}, want {want:?}"));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn show_config_says_where_each_option_came_from() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    let out = capout(dir.path(), Some(CONFIG))
        .env("CAPOUT_OPTS", "--keep 'a b'")
        .args(["--profile", "quick", "--bytes", "--show-config"])
        .output()
        .unwrap();
    let file = format!("config file {}", path.display());
    let profile = format!("profile quick of config file {}", path.display());
    let want = format!(
        "--tail-lines 2\t{profile}\n--max-line-chars 40\t{file}\n--bytes\tcommand line\n--line-numbers\t{profile}\n\
         --strip-ansi\t{file}\n--keep 'a b'\tCAPOUT_OPTS\n--notice-format 'cut {{omitted}} {{unit}}'\t{file}\n\
         --profile quick\tcommand line\n--no-json\t{file}\n--keep-max 20\tbuilt-in\n--notice stdout\tbuilt-in\n\
         --progress auto\tbuilt-in\n"
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), want);
    assert_eq!(out.status.code(), Some(0));
    // Without any layer: the built-in defaults.
    let out = capout(dir.path(), None).arg("--show-config").output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "--tail-chars 5000\tbuilt-in\n--notice stdout\tbuilt-in\n--progress auto\tbuilt-in\n"
    );
    let out = capout(dir.path(), None).args(["--profile", "grep", "--show-config"]).output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "--max-matches 50\tprofile grep\n--profile grep\tcommand line\n--max-line-chars 2000\tbuilt-in\n\
         --notice stdout\tbuilt-in\n--progress auto\tbuilt-in\n"
    );
}

/// `(config file, args, what stderr's first line says after the file's
/// name)`: each kind of error exits 2 and names the file, the table and
/// the key.
const ERRORS: &[(&str, &[&str], &str)] = &[
    ("[defaults]\ntails = 5\n", &[], " [defaults] tails: unknown option"),
    (
        "[default]\njson = true\n",
        &[],
        " [default]: unknown table: expected [defaults], [profile.NAME] or [tools]",
    ),
    ("[defaults.x]\njson = true\n", &[], " [defaults] x: unknown option"),
    ("json = true\n", &[], " json: a key outside a table"),
    ("[defaults]\njson = 1\n", &[], " [defaults] json: expected true or false"),
    ("[defaults]\njson = \"yes\"\n", &[], " [defaults] json: expected true or false"),
    ("[defaults]\nkeep = true\n", &[], " [defaults] keep: expected a value, not true or false"),
    (
        "[defaults]\ntail-chars = 1.5\n",
        &[],
        " [defaults] tail-chars: expected a string, an integer or a boolean",
    ),
    (
        "[defaults]\ntail-chars = [1]\n",
        &[],
        " [defaults] tail-chars: expected a string, an integer or a boolean",
    ),
    // A profile's values are checked when it is used.
    (
        "[profile.q]\ntail-chars = 0\n",
        &["--profile", "q"],
        " [profile.q] tail-chars: invalid value '0' for '--tail-chars <N>'",
    ),
    (
        "[profile.q]\ntail-chars = -3\n",
        &["--profile", "q"],
        " [profile.q] tail-chars: invalid value '-3' for '--tail-chars <N>'",
    ),
    (
        "[profile.q]\nnotice = \"loud\"\n",
        &["--profile", "q"],
        " [profile.q] notice: invalid value 'loud' for '--notice <WHERE>'",
    ),
    (
        "[defaults]\nnotice = \"loud\"\n",
        &[],
        " [defaults] notice: invalid value 'loud' for '--notice <WHERE>'",
    ),
    // The keys of a profile are checked on every run.
    ("[profile.q]\ntails = 5\n", &[], " [profile.q] tails: unknown option"),
    ("[profile.q]\njson = 1\n", &[], " [profile.q] json: expected true or false"),
    ("[profile.q]\nprofile = \"read\"\n", &[], " [profile.q] profile: a profile cannot name another profile"),
    ("[defaults]\nno-json = true\n", &[], " [defaults] no-json: unknown option"),
    ("[defaults]\ninput = \"f\"\n", &[], " [defaults] input: unknown option"),
    ("[profile]\nq = 1\n", &[], " [profile.q]: expected a table of options"),
    ("[defaults]\njson = \n", &[], ": line 2: "),
    // A table that does not make sense alone is named.
    (
        "[profile.q]\noffset = 3\n",
        &["--profile", "q"],
        " [profile.q]: --offset goes with --head-lines or --max-matches alone",
    ),
    (
        "[defaults]\nhead-chars = 3\ntail-lines = 3\n",
        &[],
        " [defaults]: the caps --head-chars 3 and --tail-lines 3 cannot be used together",
    ),
    (
        "[defaults]\nprofile = \"nosuch\"\n",
        &[],
        " [defaults] profile: no such profile: nosuch (the profiles are read, grep, bash, tool)",
    ),
];

#[test]
fn config_file_errors_name_the_file_the_table_and_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    let mut failed = Vec::new();
    for &(text, args, says) in ERRORS {
        let out = capout(dir.path(), Some(text)).args(args).write_stdin("x\n").output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let first = stderr.lines().next().unwrap_or_default();
        let named = first.contains(&format!("config file {}", path.display()));
        if !(named && first.contains(says) && out.status.code() == Some(2) && out.stdout.is_empty()) {
            failed.push(format!("{text:?}: {:?} {first:?}", out.status.code()));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn an_absent_config_file_is_fine_and_an_unknown_profile_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = capout(dir.path(), None);
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    cmd.env_remove("CAPOUT_CONFIG").env("XDG_CONFIG_HOME", &empty).env("HOME", &empty);
    cmd.args(["-c", "2"])
        .write_stdin("abc")
        .assert()
        .code(0)
        .stdout("bc\n... (truncated, showing last 2 chars)\n");
    // The XDG path, then ~/.config.
    let xdg = dir.path().join("xdg");
    std::fs::create_dir_all(xdg.join("capout")).unwrap();
    std::fs::write(xdg.join("capout/config.toml"), "[defaults]\nhead-chars = 1\n").unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(home.join(".config/capout")).unwrap();
    std::fs::write(home.join(".config/capout/config.toml"), "[defaults]\nhead-chars = 2\n").unwrap();
    let run = |xdg: Option<&Path>| {
        let mut cmd = capout(dir.path(), None);
        cmd.env_remove("CAPOUT_CONFIG").env("HOME", &home).env_remove("XDG_CONFIG_HOME");
        if let Some(xdg) = xdg {
            cmd.env("XDG_CONFIG_HOME", xdg);
        }
        String::from_utf8(cmd.write_stdin("abc").output().unwrap().stdout).unwrap()
    };
    assert_eq!(run(Some(&xdg)), "a\n... (truncated, showing first 1 chars)\n");
    assert_eq!(run(None), "ab\n... (truncated, showing first 2 chars)\n");
    let out = capout(dir.path(), Some(CONFIG)).args(["--profile", "nope"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with(
            "error: no such profile: nope (the profiles are read, grep, bash, tool, quick, shout)"
        ),
        "{stderr}"
    );
}

/// capout's first line on stderr, its status and stdout, with the config
/// file `config` and the arguments `args`, ended by force (and the test
/// failed) if it has not ended within 10 s. Its address space is limited
/// to 1 GiB, so that one that reads without end fails soon instead of
/// taking the machine's memory.
fn guarded(dir: &Path, config: &Path, opts: Option<&str>, args: &[&str]) -> (String, Option<i32>, Vec<u8>) {
    let mut cmd = std::process::Command::new("sh");
    cmd.args(["-c", "ulimit -v 1048576 && exec \"$0\" \"$@\"", env!("CARGO_BIN_EXE_capout")])
        .args(args)
        .current_dir(dir)
        .env_remove("CAPOUT_OPTS")
        .env("CAPOUT_CONFIG", config)
        .env("HOME", dir)
        .env("XDG_CONFIG_HOME", dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    if let Some(opts) = opts {
        cmd.env("CAPOUT_OPTS", opts);
    }
    let mut child = cmd.spawn().unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > std::time::Duration::from_secs(10) {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("capout {args:?} with the config file {} still runs after 10 s", config.display());
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    (stderr.lines().next().unwrap_or_default().to_owned(), out.status.code(), out.stdout)
}

#[test]
fn a_config_file_that_is_not_a_regular_file_is_an_error_not_a_hang() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo.toml");
    let made =
        std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo is needed by this test");
    assert!(made.success());
    let subdir = dir.path().join("config.toml");
    std::fs::create_dir(&subdir).unwrap();
    for (path, what) in [
        (fifo.as_path(), "a FIFO"),
        (Path::new("/dev/zero"), "a character device"),
        (subdir.as_path(), "a directory"),
    ] {
        let want = format!(
            "error: in config file {}: cannot be read: it is {what}, not a regular file",
            path.display()
        );
        assert_eq!(guarded(dir.path(), path, None, &["-c", "5"]), (want, Some(2), Vec::new()));
    }
}

#[test]
fn a_config_file_larger_than_1_mib_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    // Exactly 1 MiB: comment lines, then [defaults].
    let defaults = "[defaults]\nhead-chars = 2\n";
    let line = format!("#{}\n", "x".repeat(1022));
    let mut text = line.repeat(1024 - 1);
    let _ = writeln!(text, "#{}", "x".repeat(1022 - defaults.len()));
    text.push_str(defaults);
    assert_eq!(text.len(), 1 << 20);
    std::fs::write(&path, &text).unwrap();
    let mut cmd = capout(dir.path(), None);
    cmd.env("CAPOUT_CONFIG", &path);
    cmd.write_stdin("abc").assert().code(0).stdout("ab\n... (truncated, showing first 2 chars)\n");
    // One byte more.
    text.push('\n');
    std::fs::write(&path, &text).unwrap();
    let want = format!("error: in config file {}: cannot be read: it is larger than 1 MiB", path.display());
    assert_eq!(guarded(dir.path(), &path, None, &[]), (want, Some(2), Vec::new()));
}

#[test]
fn a_capout_config_that_names_a_missing_file_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("absent.toml");
    let want = format!(
        "error: in config file {}: cannot be read: No such file or directory (os error 2) \
         (CAPOUT_CONFIG names it; set it empty for no config file)",
        path.display()
    );
    assert_eq!(guarded(dir.path(), &path, None, &["-c", "5"]), (want, Some(2), Vec::new()));
}

#[test]
fn an_unknown_default_profile_is_named_where_it_was_given() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, "[defaults]\nprofile = \"nosuch\"\n[profile.quick]\ntail-lines = 2\n").unwrap();
    let known = "no such profile: nosuch (the profiles are read, grep, bash, tool, quick)";
    let file = format!("error: in config file {} [defaults] profile: {known}", path.display());
    assert_eq!(guarded(dir.path(), &path, None, &[]), (file, Some(2), Vec::new()));
    let opts = format!("error: in CAPOUT_OPTS: {known}");
    assert_eq!(guarded(dir.path(), &path, Some("--profile nosuch"), &[]), (opts, Some(2), Vec::new()));
    let line = format!("error: {known}");
    let got = guarded(dir.path(), &path, Some("--profile quick"), &["--profile", "nosuch"]);
    assert_eq!(got, (line, Some(2), Vec::new()));
    // A later layer's profile replaces the unknown one.
    let got = guarded(dir.path(), &path, Some("--profile quick"), &[]);
    assert_eq!(got, (String::new(), Some(0), b"(no output)\n".to_vec()));
}

#[test]
fn a_config_file_of_20000_profiles_is_read_and_any_of_them_used() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("[defaults]\nstrip-ansi = true\n");
    for i in 0..20_000 {
        let _ = write!(text, "[profile.p{i}]\nhead-lines = {}\njson = true\n", i % 7 + 5);
    }
    assert!(text.len() < 1 << 20);
    let input = "\x1b[1ma\x1b[0m\nb\nc\nd\ne\nf\ng\nh\n";
    let out =
        capout(dir.path(), Some(&text)).args(["--profile", "p19999"]).write_stdin(input).output().unwrap();
    assert_eq!(
        (String::from_utf8_lossy(&out.stdout).as_ref(), out.stderr.as_slice(), out.status.code()),
        (
            "{\"output\":\"a\\nb\\nc\\nd\\ne\\n\",\"budget\":null,\"cap\":\"head-lines\",\"error\":null,\"exit_code\":0,\
             \"first\":1,\"json_arrays_cut\":null,\"json_documents\":null,\"json_documents_kept\":null,\
             \"json_ended_at\":null,\"json_items\":null,\"json_items_kept\":null,\"json_strings_cut\":null,\"last\":5,\"limit\":5,\"matches\":null,\"next_offset\":5,\
             \"notice\":\"... (truncated, showing lines 1-5 of 8, next offset 5)\",\"omitted\":3,\
             \"saved_to\":null,\"signal\":null,\"timed_out\":false,\"tokenizer\":null,\"total_bytes\":16,\
             \"total_chars\":16,\"total_lines\":8,\"total_tokens\":null,\"truncated\":true,\"unit\":\"lines\"}\n",
            &b""[..],
            Some(0)
        )
    );
    // An unknown profile names 20 of them and counts the rest.
    let out = capout(dir.path(), Some(&text)).args(["--profile", "nosuch"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with(
            "error: no such profile: nosuch (the profiles are read, grep, bash, tool, p0, p1, p10, p100, p1000, \
             p10000, p10001, p10002, p10003, p10004, p10005, p10006, p10007, p10008, p10009, p1001 \
             and 19984 more)\n"
        ),
        "{stderr}"
    );
}

#[test]
fn a_profile_in_capout_opts_may_not_be_in_a_profile() {
    let dir = tempfile::tempdir().unwrap();
    let out = capout(dir.path(), Some(CONFIG)).env("CAPOUT_OPTS", "--show-config").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("in CAPOUT_OPTS: --show-config is not a default"));
    let out = capout(dir.path(), None).env("CAPOUT_OPTS", "--input f").output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("in CAPOUT_OPTS: --input is not a default"));
}

#[test]
fn input_reads_a_file_instead_of_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("log.txt");
    let text = (1..=100_000).fold(String::new(), |mut text, i| {
        let _ = writeln!(text, "line {i}");
        text
    });
    std::fs::write(&file, &text).unwrap();
    let file = file.to_str().unwrap();
    capout(dir.path(), None)
        .args(["--input", file, "--tail-lines", "2"])
        .write_stdin("not this\n")
        .assert()
        .code(0)
        .stdout("line 99999\nline 100000\n... (truncated, showing last 2 lines)\n");
    capout(dir.path(), None)
        .args(["--input", "log.txt", "-n", "1", "--offset", "4"])
        .assert()
        .code(0)
        .stdout("line 5\n... (truncated, showing lines 5-5 of 100000, next offset 5)\n");
}

#[test]
fn an_input_file_that_cannot_be_opened_is_an_error_before_any_output() {
    let dir = tempfile::tempdir().unwrap();
    let out = capout(dir.path(), None).args(["--input", "absent.txt"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "capout: error reading input: cannot open absent.txt: No such file or directory (os error 2)\n"
    );
    let out = capout(dir.path(), None).args(["--json", "--input", "absent.txt"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let json = String::from_utf8(out.stdout).unwrap();
    assert!(json.starts_with(r#"{"output":"","#) && json.ends_with("}\n"), "{json}");
    assert!(
        json.contains(
            r#""error":"error reading input: cannot open absent.txt: No such file or directory (os error 2)""#
        ),
        "{json}"
    );
    assert!(json.contains(r#""exit_code":1"#), "{json}");
    // With a command, a usage error.
    let out = capout(dir.path(), None).args(["--input", "absent.txt", "ls"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--input goes without a command"));
}

#[test]
fn a_command_not_found_that_is_a_file_says_how_to_read_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("dmesg.txt"), "x\n").unwrap();
    std::fs::write(dir.path().join("a b.log"), "x\n").unwrap();
    for (name, says) in [
        ("dmesg.txt", "capout: dmesg.txt: command not found (to read the file: capout --input dmesg.txt)\n"),
        ("a b.log", "capout: a b.log: command not found (to read the file: capout --input 'a b.log')\n"),
        ("nosuch.txt", "capout: nosuch.txt: command not found\n"),
    ] {
        let out = capout(dir.path(), None).arg(name).output().unwrap();
        assert_eq!((String::from_utf8_lossy(&out.stderr).as_ref(), out.status.code()), (says, Some(127)));
    }
}

#[test]
fn ignore_case_applies_to_pattern_and_keep() {
    let dir = tempfile::tempdir().unwrap();
    let input = "Error: A.B\nerror: a.b\nok axb\nERROR: done\n";
    let run = |args: &[&str]| {
        let out = capout(dir.path(), None).args(args).write_stdin(input).output().unwrap();
        (String::from_utf8(out.stdout).unwrap(), out.status.code())
    };
    let ok = |s: &str| (s.to_owned(), Some(0));
    assert_eq!(run(&["-m", "9", "-e", "error"]), ok("error: a.b\n"));
    assert_eq!(run(&["-m", "9", "-e", "error", "-i"]), ok("Error: A.B\nerror: a.b\nERROR: done\n"));
    assert_eq!(run(&["-m", "9", "--ignore-case", "-Fe", "a.b"]), ok("Error: A.B\nerror: a.b\n"));
    assert_eq!(run(&["-m", "9", "-Fe", "a.b"]), ok("error: a.b\n"));
    assert_eq!(run(&["-m", "9", "-ie", "É|a\\.B"]), ok("Error: A.B\nerror: a.b\n"));
    assert_eq!(
        run(&["--tail-lines", "1", "--keep", "error", "-i"]),
        ok(
            "ERROR: done\n... (truncated, showing last 1 lines)\n... (cut lines matching error: 2)\n1:Error: A.B\n2:error: a.b\n"
        )
    );
    // Without a pattern, a usage error.
    assert_eq!(run(&["-i"]).1, Some(2));
}
