//! The bash completion script, run in a real bash: `_capout` is called as
//! bash's programmable completion calls it, with `COMP_WORDS` and
//! `COMP_CWORD`, in a folder with a known file and subfolder and a `PATH`
//! with a known command.

use std::process::Command;

/// The candidates that `_capout` gives for the words `line` (split on
/// spaces; a trailing space starts a new, empty word).
fn candidates(line: &str) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("alpha.txt"), "a\n").unwrap();
    std::fs::create_dir(dir.path().join("subdir")).unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let tool = bin.join("carfoo");
    std::fs::write(&tool, "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(&tool, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let script = crate::common::capout_std().args(["--completions", "bash"]).output().unwrap();
    assert!(script.status.success());
    let words: Vec<&str> = line.split(' ').collect();
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let driver = format!(
        "{}\nCOMP_WORDS=({}); COMP_CWORD={}; COMP_LINE='{line}'; COMP_POINT=${{#COMP_LINE}}\n\
         _capout capout \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"\n\
         printf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
        String::from_utf8(script.stdout).unwrap(),
        quoted.join(" "),
        words.len() - 1,
    );
    let out = Command::new("bash")
        .args(["--norc", "--noprofile", "-c", &driver])
        .current_dir(dir.path())
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .output()
        .expect("bash runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{line}");
    let mut found: Vec<String> =
        String::from_utf8(out.stdout).unwrap().lines().filter(|l| !l.is_empty()).map(str::to_owned).collect();
    found.sort();
    found
}

fn files() -> Vec<String> {
    vec!["alpha.txt".into(), "bin".into(), "subdir".into()]
}

#[test]
fn after_the_command_word_the_commands_own_arguments_complete() {
    assert_eq!(candidates("capout -n 5 ls "), files());
    assert_eq!(candidates("capout -Nn 5 ls -l "), files());
    assert_eq!(candidates("capout --tail-lines=5 ls a"), ["alpha.txt"]);
    // Not capout's options, even when the word starts with a dash.
    assert_eq!(candidates("capout ls --ta"), Vec::<String>::new());
    assert_eq!(candidates("capout -- ls --ta"), Vec::<String>::new());
}

#[test]
fn the_command_word_completes_command_names() {
    assert_eq!(candidates("capout -- car"), ["carfoo"]);
    assert_eq!(candidates("capout -c 5 car"), ["carfoo"]);
    assert_eq!(candidates("capout -- --"), Vec::<String>::new());
}

#[test]
fn numbers_complete_to_nothing_and_paths_to_paths() {
    for line in ["capout -c ", "capout -n ", "capout --max-matches ", "capout --timeout ", "capout -e "] {
        assert_eq!(candidates(line), Vec::<String>::new(), "{line}");
    }
    assert_eq!(candidates("capout --save "), files());
    assert_eq!(candidates("capout --input al"), ["alpha.txt"]);
    assert_eq!(candidates("capout --save-dir "), ["bin", "subdir"]);
    assert_eq!(candidates("capout --progress a"), ["always", "auto"]);
    assert_eq!(candidates("capout --profile "), ["bash", "grep", "read", "tool"]);
}

#[test]
fn options_complete_before_the_command() {
    assert_eq!(candidates("capout --tail-c"), ["--tail-chars"]);
    assert_eq!(candidates("capout -n 5 --no-js"), ["--no-json"]);
}
