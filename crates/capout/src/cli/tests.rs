//! The command line's tests: the fast path against the parser, layers
//! and their precedence, every option from `CAPOUT_OPTS`, the `--no-`
//! forms, and dash values.

use std::ffi::OsString;

use clap::error::ErrorKind;
use clap::{Arg, ArgAction};

use capout_core::{CapSpec, Keep, NoticeTarget, Options, Pattern, SaveTo, Tokenizer, Unit};

use super::fast::simple;
use super::layers::{parse_layers, parse_words, resolve};
use super::*;
use crate::command::{CommandSpec, Timeout};

fn config(args: &[&str], opts: Option<&str>) -> Result<Options, ErrorKind> {
    run(args, opts).map(|run| run.options)
}

fn run(args: &[&str], opts: Option<&str>) -> Result<Run, ErrorKind> {
    match try_parse(std::iter::once("capout").chain(args.iter().copied()), opts) {
        Ok(Action::Run(run)) => Ok(*run),
        Ok(Action::Completions(_) | Action::ShowConfig(_)) => panic!("not a run"),
        Err(e) => Err(e.kind()),
    }
}

fn cap(args: &[&str]) -> Result<CapSpec, ErrorKind> {
    config(args, None).map(|c| c.cap)
}

#[test]
fn a_simple_command_line_gives_what_the_parser_gives() {
    let lines: [&[&str]; 11] = [
        &[],
        &["-c", "5000"],
        &["--tail-chars", "1"],
        &["-n", "007"],
        &["--head-lines", "18446744073709551615"],
        &["--head-chars", "12"],
        &["--tail-lines", "500"],
        &["--tail-tokens", "5000"],
        &["--head-tokens", "3"],
        &["-c", "0"],
        &["-c", "18446744073709551616"],
    ];
    for line in lines {
        let words: Vec<OsString> =
            std::iter::once("capout").chain(line.iter().copied()).map(Into::into).collect();
        let parsed = parse_words(&words).and_then(|m| resolve(&m, &[]));
        match simple(&words, None) {
            Some(args) => assert_eq!(format!("{args:?}"), format!("{:?}", parsed.unwrap()), "{line:?}"),
            // Left to the parser: a number it refuses.
            None => assert!(parsed.is_err(), "{line:?}"),
        }
    }
    // Anything else is left to the parser.
    for line in [
        &["-c"][..],
        &["-c", "+5"],
        &["-c", "-5"],
        &["-c", ""],
        &["-c5000"],
        &["--tail-chars=5000"],
        &["--limit", "5"],
        &["-m", "5"],
        &["--tail-tokens", "5", "--tokenizer", "o200k"],
        &["-c", "5", "-n", "5"],
        &["--json"],
        &["5000", "-c"],
    ] {
        let words: Vec<OsString> =
            std::iter::once("capout").chain(line.iter().copied()).map(Into::into).collect();
        assert!(simple(&words, None).is_none(), "{line:?}");
    }
}

/// What `simple` makes of `line`, and what the parser makes of it,
/// with the config file `file`.
fn both_ways(line: &[&str], file: Option<&crate::profiles::ConfigFile>) -> (Option<String>, String) {
    let words: Vec<OsString> =
        std::iter::once("capout").chain(line.iter().copied()).map(Into::into).collect();
    let fast = simple(&words, file).map(|args| format!("{:?}", args.into_action().map_err(|e| e.kind())));
    let layers = file.and_then(crate::profiles::ConfigFile::defaults).into_iter().collect();
    let parsed = format!("{:?}", parse_layers(words, file, layers).map_err(|e| e.kind()));
    (fast, parsed)
}

#[test]
fn a_profile_save_dir_and_command_give_what_the_parser_gives() {
    let lines: [&[&str]; 13] = [
        &["--profile", "bash", "--save-dir", "/tmp/d", "--", "bash", "-c", "echo 'a b' -- --json"],
        &["--save-dir", "/tmp/d", "--profile", "bash", "--", "true"],
        &["--profile", "bash", "--", "true"],
        &["--profile", "read", "--save-dir", "d"],
        &["--profile", "grep"],
        &["--profile", "grep", "--", "grep", "-r", "x"],
        &["--save-dir", "/tmp/my dir", "--", "make", "--", "-c"],
        &["--", "/bin/true"],
        &["--", "--profile", "bash"],
        &["-c", "5", "--", "seq", "10"],
        &["--max-matches", "5"],
        &["--tail-lines", "5", "--", "x"],
        &["-n", "0", "--", "x"],
    ];
    for line in lines {
        let (fast, parsed) = both_ways(line, None);
        match fast {
            Some(fast) => assert_eq!(fast, parsed, "{line:?}"),
            None => assert!(parsed.starts_with("Err"), "{line:?}: {parsed}"),
        }
    }
    // Left to the parser: what it alone knows how to combine.
    for line in [
        &["--profile", "bash", "-c", "5", "--", "x"][..],
        &["--profile", "nosuch", "--", "x"],
        &["--profile", "bash", "--profile", "read"],
        &["--save-dir", "", "--", "x"],
        &["--save-dir", "--", "x"],
        &["--save-dir", "-x", "--", "x"],
        &["--save-dir", "-", "--", "x"],
        &["--profile", "bash", "--"],
        &["--profile=bash", "--", "x"],
        &["--save", "f", "--", "x"],
        &["--profile", "bash", "--save-dir", "d", "--json", "--", "x"],
        &["-c", "5", "-c", "6"],
    ] {
        assert_eq!(both_ways(line, None).0, None, "{line:?}");
    }
}

#[test]
fn a_profile_that_the_config_file_replaces_is_left_to_the_parser() {
    let path = std::path::Path::new("/config.toml");
    let file = crate::profiles::ConfigFile::parse(path, "[profile.bash]\ntail-chars = 100\n").unwrap();
    let line = ["--profile", "bash", "--save-dir", "/tmp/d", "--", "true"];
    let (fast, parsed) = both_ways(&line, Some(&file));
    assert_eq!(fast, None);
    assert!(parsed.contains("TailChars(100)"), "{parsed}");
    // Another profile of the same file is still the built-in one.
    let line = ["--profile", "read", "--", "true"];
    let (fast, parsed) = both_ways(&line, Some(&file));
    assert_eq!(fast, Some(parsed));
}

#[test]
fn capout_opts_that_do_not_fit_the_cap_are_left_out() {
    let c = config(&["--tail-lines", "1"], Some("-m 2 -e 1 -F")).unwrap();
    assert_eq!((c.cap, c.pattern), (CapSpec::TailLines(1), None));
    let c = config(&["-m", "5"], Some("--keep error --keep-max 3")).unwrap();
    assert_eq!(c.keep, None);
    let c = config(&["-c", "100"], Some("-N")).unwrap();
    assert!(!c.line_numbers);
    assert!(config(&["-n", "1"], Some("-N")).unwrap().line_numbers);
    let c = run(&[], Some("--timeout 5")).unwrap();
    assert_eq!(c.command, None);
}

#[test]
fn capout_opts_errors_name_it() {
    for opts in ["--offset 1", "--keep '['", "-c 3 -n 2", "--version", "--completions bash", "-c 'x", "ls"] {
        let e = try_parse(["capout"], Some(opts)).expect_err(opts);
        assert!(e.to_string().contains("in CAPOUT_OPTS"), "{opts}: {e}");
    }
}

#[test]
fn capout_opts_are_defaults() {
    let c = config(&["--bytes"], Some("-n 5 --notice 'stderr' --max-line-chars 7")).unwrap();
    assert_eq!(
        (c.cap, c.unit, c.notice, c.max_line()),
        (CapSpec::HeadLines { limit: 5, offset: 0 }, Unit::Bytes, NoticeTarget::Stderr, Some(7))
    );
    // A cap on the command line replaces every cap of CAPOUT_OPTS.
    let c = config(&["-c", "9"], Some("-n 5 --tail-lines 3 --notice none")).unwrap();
    assert_eq!((c.cap, c.notice), (CapSpec::TailChars(9), NoticeTarget::None));
    // A later option wins.
    let c = config(&["--notice", "stdout"], Some("--notice none")).unwrap();
    assert_eq!(c.notice, NoticeTarget::Stdout);
    assert_eq!(config(&[], Some("-c 0")).map(|_| ()), Err(ErrorKind::ValueValidation));
    assert_eq!(config(&[], Some("-c '5")).map(|_| ()), Err(ErrorKind::ArgumentConflict));
}

#[test]
fn picks_the_cap() {
    assert_eq!(cap(&[]), Ok(CapSpec::TailChars(5000)));
    assert_eq!(cap(&["-n", "5", "--offset", "3"]), Ok(CapSpec::HeadLines { limit: 5, offset: 3 }));
    assert_eq!(cap(&["--limit", "5"]), Ok(CapSpec::HeadLines { limit: 5, offset: 0 }));
    assert_eq!(cap(&["-c", "1", "-c", "2"]), Ok(CapSpec::TailChars(2)));
    assert_eq!(cap(&["-m", "18446744073709551615"]), Ok(CapSpec::MaxMatches(u64::MAX)));
    assert_eq!(cap(&["--tail-lines", "2", "-n", "3"]), Ok(CapSpec::HeadTailLines(3, 2)));
    assert_eq!(cap(&["-c", "2", "--head-chars", "3"]), Ok(CapSpec::HeadTailChars(3, 2)));
}

#[test]
fn rejects_bad_caps() {
    for args in [
        &["-c", "0"][..],
        &["-c", "-1"],
        &["-c", "x"],
        &["-c", "18446744073709551616"],
        &["--offset", "-1", "-n", "1"],
    ] {
        assert_eq!(cap(args), Err(ErrorKind::ValueValidation), "{args:?}");
    }
    assert_eq!(cap(&["-c", "1", "-n", "1"]), Err(ErrorKind::ArgumentConflict));
    assert_eq!(cap(&["--offset", "1"]), Err(ErrorKind::ArgumentConflict));
    assert_eq!(cap(&["--offset", "1", "-n", "1", "--tail-lines", "1"]), Err(ErrorKind::ArgumentConflict));
    assert_eq!(cap(&["-e", "x"]), Err(ErrorKind::ArgumentConflict));
    assert_eq!(cap(&["-m", "1", "-F"]), Err(ErrorKind::ArgumentConflict));
    assert_eq!(cap(&["-m", "1", "--keep", "x"]), Err(ErrorKind::ArgumentConflict));
    assert_eq!(cap(&["--keep-max", "1"]), Err(ErrorKind::ArgumentConflict));
    assert_eq!(cap(&["-m", "1", "-e", "("]), Err(ErrorKind::ValueValidation));
    assert_eq!(cap(&["--keep", "["]), Err(ErrorKind::ValueValidation));
    assert_eq!(cap(&["-c", "1", "--tail-lines", "1"]), Err(ErrorKind::ArgumentConflict));
    assert_eq!(cap(&["-N", "-c", "5"]), Err(ErrorKind::ArgumentConflict));
}

fn command(args: &[&str]) -> Result<Option<CommandSpec>, ErrorKind> {
    run(args, None).map(|c| c.command)
}

fn words(words: &[&str]) -> Vec<OsString> {
    words.iter().map(OsString::from).collect()
}

#[test]
fn everything_from_the_command_on_is_its_own() {
    for args in [&["echo", "-n", "hi"][..], &["--", "echo", "-n", "hi"]] {
        let spec = command(args).unwrap().unwrap();
        assert_eq!((spec.program, spec.args), ("echo".into(), words(&["-n", "hi"])), "{args:?}");
    }
    let spec = command(&["-n", "3", "ls", "-n", "--timeout", "x", "--", "-c"]).unwrap().unwrap();
    assert_eq!(spec.args, words(&["-n", "--timeout", "x", "--", "-c"]));
    assert_eq!(command(&["--", "-c"]).unwrap().unwrap().program, "-c");
    assert_eq!(command(&[]), Ok(None));
    // An unknown option before the command is still a mistake.
    assert_eq!(command(&["--bogus", "ls"]), Err(ErrorKind::UnknownArgument));
}

#[test]
fn timeouts() {
    let timeout = |args: &[&str]| command(args).map(|c| c.and_then(|c| c.timeout));
    let given = |after: Duration, label: &str, kill_after| Timeout { after, label: label.into(), kill_after };
    let ms = Duration::from_millis;
    let five = Some(DEFAULT_KILL_AFTER);
    assert_eq!(timeout(&["--timeout", "30", "x"]), Ok(Some(given(ms(30_000), "30s", five))));
    assert_eq!(timeout(&["--timeout", "30s", "x"]), Ok(Some(given(ms(30_000), "30s", five))));
    assert_eq!(timeout(&["--timeout", "500ms", "x"]), Ok(Some(given(ms(500), "500ms", five))));
    assert_eq!(timeout(&["--timeout", "2m", "x"]), Ok(Some(given(ms(120_000), "2m", five))));
    assert_eq!(timeout(&["--timeout", "1h", "x"]), Ok(Some(given(ms(3_600_000), "1h", five))));
    assert_eq!(timeout(&["--timeout", "1.5", "x"]), Ok(Some(given(ms(1500), "1.5s", five))));
    assert_eq!(timeout(&["--timeout", "0.25m", "x"]), Ok(Some(given(ms(15_000), "0.25m", five))));
    assert_eq!(
        timeout(&["--timeout", "1", "--kill-after", "100ms", "x"]),
        Ok(Some(given(ms(1000), "1s", Some(ms(100)))))
    );
    assert_eq!(timeout(&["--timeout", "1", "--kill-after", "0", "x"]), Ok(Some(given(ms(1000), "1s", None))));
    assert_eq!(timeout(&["--timeout", "0", "x"]), Ok(None));
    assert_eq!(timeout(&["--timeout", "0.000ms", "x"]), Ok(None));
    // Too small to measure is the smallest duration, never none.
    let tiny = Some(given(Duration::from_nanos(1), "0.0000000001s", five));
    assert_eq!(timeout(&["--timeout", "0.0000000001", "x"]), Ok(tiny));
    let tiny_kill = Some(given(ms(1000), "1s", Some(Duration::from_nanos(1))));
    assert_eq!(timeout(&["--timeout", "1", "--kill-after", "0.0000000000001ms", "x"]), Ok(tiny_kill));
    assert_eq!(timeout(&["x"]), Ok(None));
    for bad in ["", "s", "-1", "1x", "1.", ".5", "1.5.", "1 s", "1S", "+1", "1e3", "99999999999999999999h"] {
        assert_eq!(timeout(&["--timeout", bad, "x"]), Err(ErrorKind::ValueValidation), "{bad:?}");
    }
    assert_eq!(timeout(&["--kill-after", "1s", "x"]), Err(ErrorKind::ArgumentConflict));
}

#[test]
fn command_options_need_a_command() {
    for args in [&["--timeout", "1"][..], &["--timeout", "1", "--kill-after", "1"], &["--stdout-only"]] {
        assert_eq!(command(args), Err(ErrorKind::ArgumentConflict), "{args:?}");
    }
    assert!(command(&["--stdout-only", "x"]).unwrap().unwrap().stdout_only);
}

#[test]
fn command_options_in_capout_opts_wait_for_a_command() {
    let with = |args: &[&str], opts| run(args, Some(opts)).map(|c| c.command);
    // Filter mode is left be.
    assert_eq!(with(&["-c", "5"], "--timeout 1m --kill-after 1s --stdout-only"), Ok(None));
    let spec = with(&["x"], "--timeout 1m --kill-after 1s --stdout-only").unwrap().unwrap();
    let timeout = spec.timeout.unwrap();
    assert_eq!((timeout.label.as_str(), timeout.kill_after), ("1m", Some(Duration::from_secs(1))));
    assert!(spec.stdout_only);
    // A default --kill-after needs a --timeout to go with.
    assert_eq!(with(&["x"], "--kill-after 1s").unwrap().unwrap().timeout, None);
    let spec = with(&["--timeout", "2", "x"], "--timeout 1m").unwrap().unwrap();
    assert_eq!(spec.timeout.unwrap().label, "2s");
    assert_eq!(with(&[], "ls"), Err(ErrorKind::ArgumentConflict));
}

/// The options that must go with `id` for it to make sense, given
/// with it in `CAPOUT_OPTS` or on the command line alike.
fn companions(id: &str) -> &'static [&'static str] {
    match id {
        "offset" | "line_numbers" | "budget_chars" | "stop_at_cap" | "json_items" => &["-n", "5"],
        "json_string_chars" => &["-n", "5", "--json-items", "3"],
        "pattern" => &["-m", "5"],
        "fixed_strings" | "ignore_case" => &["-m", "5", "-e", "x"],
        "keep_max" => &["--keep", "x"],
        "kill_after" => &["--timeout", "1"],
        "render_width" | "render_height" => &["--render"],
        _ => &[],
    }
}

/// Values to try for an option, by the name of its value.
fn samples(arg: &Arg) -> Vec<String> {
    if !arg.get_action().takes_values() {
        return vec![];
    }
    let possible = arg.get_possible_values();
    if !possible.is_empty() {
        return possible.iter().map(|v| v.get_name().to_owned()).collect();
    }
    let name = arg.get_value_names().and_then(|names| names.first()).map(ToString::to_string);
    let sample = match name.as_deref() {
        None => return vec![],
        Some("N" | "K" | "W" | "M") => "3",
        Some("REGEX") => "x",
        Some("TEMPLATE") => "cut {omitted}",
        Some("DURATION") => "9s",
        Some("FILE") => "saved.log",
        Some("DIR") => "logs",
        Some("NAME") => "read",
        Some(other) => panic!("no sample value for {other}: add one"),
    };
    vec![sample.to_owned()]
}

fn quoted(words: &[&str]) -> String {
    shlex::try_join(words.iter().copied()).unwrap()
}

/// The options a user sets: all but the positional command, the
/// `--no-` forms and those that make capout do something else.
fn options() -> Vec<Arg> {
    super::command()
        .get_arguments()
        .filter(|arg| arg.get_long().is_some_and(|long| !long.starts_with("no-")))
        .filter(|arg| !matches!(arg.get_action(), ArgAction::Help | ArgAction::Version))
        // Not defaults: they make capout do something else, or name
        // what it reads.
        .filter(|arg| {
            !["completions", "mcp", "root", "show_config", "input"].contains(&arg.get_id().as_str())
        })
        // Without the exact tokenizers, --tokenizer has one value, the
        // default: `a_build_without_exact_tokenizers_says_so` checks it.
        .filter(|arg| cfg!(feature = "exact-tokens") || arg.get_id() != "tokenizer")
        .cloned()
        .collect()
}

#[test]
fn only_mcp_and_root_are_served_early() {
    let words = |args: &[&str]| -> Vec<OsString> {
        std::iter::once("capout").chain(args.iter().copied()).map(OsString::from).collect()
    };
    assert_eq!(mcp_requested(words(&["--mcp"])), Some(".".into()));
    assert_eq!(mcp_requested(words(&["--mcp", "--root", "d"])), Some("d".into()));
    assert_eq!(mcp_requested(words(&["--root", "d", "--mcp"])), Some("d".into()));
    assert_eq!(mcp_requested(words(&["--root=d", "--mcp"])), Some("d".into()));
    for args in [&[][..], &["--root", "d"], &["--mcp", "-n", "5"], &["--mcp", "--root"], &["--mcp", "--mcp"]]
    {
        assert_eq!(mcp_requested(words(args)), None, "{args:?}");
    }
}

#[test]
fn every_option_works_from_capout_opts() {
    let options = options();
    assert!(options.len() > 20, "{options:?}");
    for arg in options {
        let (id, long) = (arg.get_id().as_str(), format!("--{}", arg.get_long().unwrap()));
        let with = companions(id);
        let values = samples(&arg);
        let values: Vec<Option<&str>> =
            if values.is_empty() { vec![None] } else { values.iter().map(|v| Some(v.as_str())).collect() };
        let mut differs = false;
        for value in values {
            let mut words = with.to_vec();
            words.push(&long);
            words.extend(value);
            // With and without a command: an option works in either
            // mode it is valid in, and in one at least.
            let mut valid = false;
            for tail in [&[][..], &["x"]] {
                let Ok(on_the_command_line) = run(&[&words[..], tail].concat(), None) else {
                    continue;
                };
                valid = true;
                let from_opts = run(tail, Some(&quoted(&words)));
                assert_eq!(from_opts.as_ref(), Ok(&on_the_command_line), "CAPOUT_OPTS={words:?} {tail:?}");
                differs |= from_opts != run(tail, Some(&quoted(with)));
            }
            assert!(valid, "{words:?} is valid with or without a command (add companions?)");
        }
        assert!(differs, "{long} from CAPOUT_OPTS changes the config");
    }
}

#[test]
fn token_caps_conflict_with_the_others_and_replace_capout_opts_caps() {
    assert_eq!(cap(&["--tail-tokens", "5"]), Ok(CapSpec::TailTokens(5)));
    assert_eq!(cap(&["--head-tokens", "5"]), Ok(CapSpec::HeadTokens(5)));
    assert_eq!(cap(&["--tail-tokens", "2", "--head-tokens", "3"]), Ok(CapSpec::HeadTailTokens(3, 2)));
    assert_eq!(cap(&["--tail-tokens", "0"]), Err(ErrorKind::ValueValidation));
    for other in
        [&["-c", "3"][..], &["--head-chars", "3"], &["-n", "3"], &["--tail-lines", "3"], &["-m", "3"]]
    {
        assert_eq!(cap(&[other, &["--tail-tokens", "5"]].concat()), Err(ErrorKind::ArgumentConflict));
        assert_eq!(cap(&[other, &["--head-tokens", "5"]].concat()), Err(ErrorKind::ArgumentConflict));
        // A cap on the command line replaces those of CAPOUT_OPTS,
        // both ways.
        let c = config(&["--tail-tokens", "5"], Some(&quoted(other))).unwrap();
        assert_eq!(c.cap, CapSpec::TailTokens(5));
        let c = config(other, Some("--head-tokens 4 --tail-tokens 5")).unwrap();
        assert_ne!(c.cap, CapSpec::HeadTailTokens(4, 5));
    }
    let c = config(&["--tail-tokens", "9"], Some("--tokenizer estimate --max-line-chars 7")).unwrap();
    assert_eq!((c.cap, c.tokenizer, c.max_line()), (CapSpec::TailTokens(9), Tokenizer::Estimate, Some(7)));
    // --max-line-chars is off unless given.
    assert_eq!(config(&["--head-tokens", "9"], None).unwrap().max_line(), None);
}

#[test]
fn a_build_without_exact_tokenizers_says_so() {
    for name in ["o200k", "cl100k"] {
        let got = config(&["--tail-tokens", "5", "--tokenizer", name], None);
        if cfg!(feature = "exact-tokens") {
            assert_eq!(got.map(|c| c.tokenizer.name()), Ok(name));
        } else {
            let e = try_parse(["capout", "--tail-tokens", "5", "--tokenizer", name], None).err().unwrap();
            assert_eq!(e.exit_code(), 2);
            assert!(
                e.to_string().contains(&format!(
                    "--tokenizer {name}: capout was built without exact tokenizers (cargo feature exact-tokens)"
                )),
                "{e}"
            );
        }
    }
}

#[test]
fn every_switch_has_a_no_form_that_turns_it_off() {
    let switches: Vec<Arg> =
        options().into_iter().filter(|arg| matches!(arg.get_action(), ArgAction::SetTrue)).collect();
    assert!(switches.len() >= 7, "{switches:?}");
    let cmd = super::command();
    for arg in switches {
        let long = arg.get_long().unwrap();
        let (on, off) = (format!("--{long}"), format!("--no-{long}"));
        let (on, off) = (on.as_str(), off.as_str());
        assert!(cmd.get_arguments().any(|a| a.get_long() == Some(&off[2..]) && a.is_hide_set()), "{off}");
        let with = companions(arg.get_id().as_str());
        let mut valid = false;
        for tail in [&[][..], &["x"]] {
            let Ok(plain) = run(&[with, tail].concat(), None) else { continue };
            let Ok(turned_on) = run(&[with, &[on], tail].concat(), None) else { continue };
            valid = true;
            assert_ne!(plain, turned_on, "{on} {tail:?} changes the config");
            // From CAPOUT_OPTS, turned off on the command line.
            let opts = quoted(&[with, &[on]].concat());
            assert_eq!(run(&[&[off], tail].concat(), Some(&opts)), Ok(plain.clone()), "{off} {tail:?}");
            // On one command line, the later wins.
            assert_eq!(run(&[with, &[on, off], tail].concat(), None), Ok(plain.clone()), "{off}");
            assert_eq!(run(&[with, &[off, on], tail].concat(), None), Ok(turned_on), "{on}");
        }
        assert!(valid, "{on} is valid with or without a command");
    }
}

#[test]
fn a_value_that_starts_with_a_dash_is_joined_to_its_option() {
    let message =
        |args: &[&str], opts| match try_parse(std::iter::once("capout").chain(args.iter().copied()), opts) {
            Ok(_) => panic!("{args:?} {opts:?} parsed"),
            Err(e) => (e.kind(), e.to_string()),
        };
    let (kind, text) = message(&["--tail-lines", "5", "--keep", "-i", "error"], None);
    assert_eq!(kind, ErrorKind::InvalidValue);
    assert!(
        text.contains("a value of --keep that starts with '-' must be joined to it, as in --keep=-i"),
        "{text}"
    );
    assert!(text.contains("(?i)"), "{text}");
    let (_, text) = message(&["-m", "1", "-e", "--json"], None);
    assert!(text.contains("as in --pattern=--json"), "{text}");
    let (_, text) = message(&["--notice-format", "-{shown}"], None);
    assert!(text.contains("--notice-format=-{shown}") && !text.contains("(?i)"), "{text}");
    let (_, text) = message(&["-m", "1", "-Fe", "-x"], None);
    assert!(text.contains("as in --pattern=-x"), "{text}");
    let (_, text) = message(&["--keep", "x", "--keep", "-i"], None);
    assert!(text.contains("as in --keep=-i"), "{text}");
    let (_, text) = message(&[], Some("--keep -x"));
    assert!(text.contains("in CAPOUT_OPTS: a value of --keep"), "{text}");
    let keep = |args: &[&str]| config(args, None).map(|c| c.keep.map(|k| k.pattern));
    assert_eq!(keep(&["--keep=-i"]), Ok(Some("-i".into())));
    assert_eq!(keep(&["--keep=--"]), Ok(Some("--".into())));
    assert_eq!(keep(&["--keep", "-"]), Ok(Some("-".into())));
    assert_eq!(config(&["-m", "1", "-e-x"], None).map(|c| c.pattern.unwrap().text), Ok("-x".into()));
    assert!(config(&["--notice-format=-{shown}"], None).unwrap().template.is_some());
    // The command's own words are its own.
    assert_eq!(command(&["grep", "-e", "-x"]).unwrap().unwrap().args, words(&["-e", "-x"]));
}

#[test]
fn capout_opts_cannot_start_a_command() {
    for opts in ["--", "-n 5 --", "--keep=x -- ls"] {
        let e = try_parse(["capout", "-n", "1"], Some(opts)).expect_err(opts);
        assert!(e.to_string().contains("in CAPOUT_OPTS: a command is not a default"), "{opts}: {e}");
    }
}

#[test]
fn save_and_save_dir_replace_each_other() {
    let save = |args: &[&str], opts| config(args, opts).map(|c| c.save);
    let file = Ok(Some(SaveTo::File("f".into())));
    let dir = Ok(Some(SaveTo::Dir("d".into())));
    assert_eq!(save(&["--save", "f"], Some("--save-dir d")), file);
    assert_eq!(save(&["--save-dir", "d"], Some("--save f")), dir);
    assert_eq!(save(&["--save-dir", "d", "--save", "f"], None), file);
    assert_eq!(save(&[], Some("--save f")), file);
}

#[test]
fn the_command_line_is_read_after_capout_opts() {
    // Options of the command line that need a cap of CAPOUT_OPTS.
    let c = config(&["--offset", "4", "-N"], Some("-n 2")).unwrap();
    assert_eq!((c.cap, c.line_numbers), (CapSpec::HeadLines { limit: 2, offset: 4 }, true));
    let c = config(&["-e", "y", "-F"], Some("-m 2 -e x")).unwrap();
    assert_eq!(c.pattern, Some(Pattern { text: "y".into(), fixed: true }));
    // A cap there, in any form, replaces the caps of CAPOUT_OPTS.
    let c = config(&["--limit=3"], Some("--head-chars 2 -c 9")).unwrap();
    assert_eq!(c.cap, CapSpec::HeadLines { limit: 3, offset: 0 });
    let c = config(&["-Nn3"], Some("--tail-lines 2 --keep e --keep-max 1")).unwrap();
    assert_eq!((c.cap, c.keep.map(|k| k.max)), (CapSpec::HeadLines { limit: 3, offset: 0 }, Some(1)));
    // Only from CAPOUT_OPTS do options give way; on the command line
    // they are mistakes.
    assert_eq!(cap(&["-m", "2", "--keep", "e"]), Err(ErrorKind::ArgumentConflict));
    assert_eq!(
        config(&["-m", "2", "--keep", "e"], Some("-n 1")).map(|_| ()),
        Err(ErrorKind::ArgumentConflict)
    );
    assert_eq!(config(&["-c", "2", "-N"], Some("-n 1")).map(|_| ()), Err(ErrorKind::ArgumentConflict));
    // A default --keep-max goes with a --keep of the command line.
    let c = config(&["--keep", "e"], Some("--keep-max 2 --keep f")).unwrap();
    assert_eq!(c.keep, Some(Keep { pattern: "e".into(), max: 2 }));
}

/// (command line, `CAPOUT_OPTS`, cap, pattern, keep, line numbers).
type LayerCase<'a> = (&'a [&'a str], Option<&'a str>, CapSpec, Option<&'a str>, bool, bool);

#[test]
fn the_caps_of_the_last_layer_that_gives_one_win() {
    let file = crate::profiles::ConfigFile::parse(
        std::path::Path::new("c.toml"),
        "[defaults]\nhead-chars = 7\ntail-chars = 9\nkeep = \"e\"\n\
         [profile.p]\nmax-matches = 4\npattern = \"x\"\n[profile.n]\nline-numbers = true\n",
    )
    .unwrap();
    let cap = |args: &[&str], opts| match try_parse_with(
        std::iter::once("capout").chain(args.iter().copied()),
        Some(&file),
        opts,
    ) {
        Ok(Action::Run(run)) => {
            let c = run.options;
            Ok((c.cap, c.pattern.map(|p| p.text), c.keep.is_some(), c.line_numbers))
        }
        Ok(_) => panic!("not a run"),
        Err(e) => Err(e.kind()),
    };
    let (pair, tail5) = (CapSpec::HeadTailChars(7, 9), CapSpec::TailLines(5));
    let cases: [LayerCase; 8] = [
        (&[], None, pair, None, true, false),
        (&[], Some("--tail-lines 5"), tail5, None, true, false),
        (&["--profile", "p"], Some("--tail-lines 5"), CapSpec::MaxMatches(4), Some("x"), false, false),
        (&["-e", "y"], Some("--profile p"), CapSpec::MaxMatches(4), Some("y"), false, false),
        (&["--profile", "p", "-n", "2"], None, CapSpec::HeadLines { limit: 2, offset: 0 }, None, true, false),
        // A profile without a cap leaves the caps of earlier layers.
        (&["--profile", "n"], Some("--tail-lines 5"), tail5, None, true, true),
        (&["--profile", "n"], None, pair, None, true, false),
        (&["--profile", "n", "-c", "3"], Some("-m 1"), CapSpec::TailChars(3), None, true, false),
    ];
    for (args, opts, want, pattern, keep, numbers) in cases {
        assert_eq!(
            cap(args, opts),
            Ok((want, pattern.map(String::from), keep, numbers)),
            "{args:?} {opts:?}"
        );
    }
    assert_eq!(cap(&["--profile", "q"], None), Err(ErrorKind::ArgumentConflict));
    // A default --keep gives way to a profile's --max-matches; on the
    // command line, it is a mistake.
    assert_eq!(
        cap(&[], Some("--profile p --keep e")),
        Ok((CapSpec::MaxMatches(4), Some("x".into()), false, false))
    );
    assert_eq!(cap(&["--profile", "p", "--keep", "e"], None), Err(ErrorKind::ArgumentConflict));
}
