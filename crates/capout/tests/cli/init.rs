//! `capout init`, tried as a user, a neighbour and a dotfiles repository
//! would try it: nothing of the user's lost, leaked or widened.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::common::clean_env;

const CAPOUT: &str = env!("CARGO_BIN_EXE_capout");

/// A throwaway home (and project in it), on the file system of the
/// binary, so that hard links to it can be made.
fn home() -> tempfile::TempDir {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    std::fs::create_dir(dir.path().join("proj")).unwrap();
    dir
}

/// `capout init ARGS` in the project of `home`, with `capout` (and
/// `capout-mcp`) on PATH, and none of the harnesses' own variables.
fn init(home: &Path, args: &[&str]) -> Output {
    init_with(home, args, |_| {})
}

fn init_with(home: &Path, args: &[&str], more: impl FnOnce(&mut Command)) -> Output {
    let mut cmd = Command::new(CAPOUT);
    clean_env(&mut cmd)
        .arg("init")
        .args(args)
        .env("HOME", home)
        .env("PATH", format!("{}:/usr/bin:/bin", bin_dir().display()))
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .env_remove("GEMINI_CLI_HOME")
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("QWEN_HOME")
        .env_remove("COPILOT_HOME")
        .current_dir(home.join("proj"))
        .stdin(Stdio::null());
    more(&mut cmd);
    cmd.output().unwrap()
}

fn bin_dir() -> PathBuf {
    Path::new(CAPOUT).parent().unwrap().to_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every file and link under `dir`, relative, sorted.
fn tree(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(dir).unwrap().display().to_string();
            if std::fs::symlink_metadata(&path).unwrap().is_dir() {
                stack.push(path);
                out.push(format!("{rel}/"));
            } else {
                out.push(rel);
            }
        }
    }
    out.sort();
    out
}

/// The JSON settings files that `init HARNESS --mcp` edits, under `home`.
fn json_files(harness: &str, home: &Path) -> Vec<PathBuf> {
    match harness {
        "claude-code" => vec![home.join(".claude/settings.json"), home.join(".claude.json")],
        "codex" => vec![home.join(".codex/hooks.json")],
        "gemini" => vec![home.join(".gemini/settings.json")],
        "qwen-code" => vec![home.join(".qwen/settings.json")],
        "copilot" => vec![home.join(".copilot/mcp-config.json")],
        "droid" => vec![home.join(".factory/mcp.json")],
        "crush" => vec![home.join(".config/crush/crush.json")],
        _ => vec![home.join(".config/opencode/opencode.json")],
    }
}

/// The harnesses that `init --mcp` sets up: all but Pi, which has no MCP
/// client.
const HARNESSES: [&str; 8] =
    ["claude-code", "codex", "gemini", "opencode", "qwen-code", "copilot", "droid", "crush"];

/// The harnesses whose shell calls capout cannot bound (yet): init sets
/// up the MCP server alone, and only when asked to.
const MCP_ONLY: [&str; 4] = ["qwen-code", "copilot", "droid", "crush"];

fn put(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn init_gemini_refuses_a_gemini_cli_home_with_shell_metacharacters() {
    let home = home();
    let evil = home.path().join("g;uname;");
    std::fs::create_dir(&evil).unwrap();
    let out = init_with(home.path(), &["gemini", "--mcp"], |c| {
        c.env("GEMINI_CLI_HOME", &evil);
    });
    assert_eq!(
        stderr(&out),
        format!(
            "capout: init: the path '{}/.gemini/capout-gemini/bash' holds ';', which a shell command made of it \
             would have to quote; set GEMINI_CLI_HOME to a folder whose path has only letters, digits and -_./=:,+@%\n",
            evil.display()
        )
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(tree(&evil), Vec::<String>::new());
    for name in ["a'b", "a$(x)", "a`x`", "a\"b", "a\\b", "a&b", "a|b", "a*b"] {
        let odd = home.path().join(name);
        std::fs::create_dir(&odd).unwrap();
        let out = init_with(home.path(), &["gemini"], |c| {
            c.env("GEMINI_CLI_HOME", &odd);
        });
        assert_eq!(out.status.code(), Some(1), "{name}: {}", stderr(&out));
        assert!(!odd.join(".gemini").exists(), "{name}");
    }
}

#[test]
fn init_claude_code_project_refuses_an_mcp_json_that_links_outside_the_project() {
    let home = home();
    let account = home.path().join(".claude.json");
    let secret = "{\"oauthAccount\": {\"emailAddress\": \"me@example.com\"}, \"projects\": {}}\n";
    put(&account, secret);
    let proj = home.path().join("proj");
    std::os::unix::fs::symlink(&account, proj.join(".mcp.json")).unwrap();
    let out = init(home.path(), &["claude-code", "--project", "--mcp"]);
    assert_eq!(
        stderr(&out),
        format!(
            "capout: init: {} points outside the project, to {}; capout leaves it and writes nothing \
             (a file of the project must not be a copy of one elsewhere)\n",
            proj.join(".mcp.json").display(),
            std::fs::canonicalize(&account).unwrap().display()
        )
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(read(&account), secret);
    assert_eq!(tree(&proj), [".mcp.json"]);
    assert!(std::fs::symlink_metadata(proj.join(".mcp.json")).unwrap().file_type().is_symlink());

    // A folder of the project that is a link outside it, likewise.
    std::fs::remove_file(proj.join(".mcp.json")).unwrap();
    std::fs::create_dir(home.path().join(".codex")).unwrap();
    std::os::unix::fs::symlink(home.path().join(".codex"), proj.join(".codex")).unwrap();
    let out = init(home.path(), &["codex", "--project"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("points outside the project"), "{}", stderr(&out));
    assert_eq!(tree(&home.path().join(".codex")), Vec::<String>::new());
}

#[test]
fn init_project_writes_no_machine_path_into_the_files_a_team_commits() {
    for harness in HARNESSES {
        let home = home();
        let out = init(home.path(), &[harness, "--project", "--mcp"]);
        assert_eq!(out.status.code(), Some(0), "{harness}: {}", stderr(&out));
        assert!(stdout(&out).contains("`capout`, found on PATH"), "{harness}: {}", stdout(&out));
        let proj = home.path().join("proj");
        // Claude Code's prefix is this machine's: in the settings that
        // Claude Code keeps out of the repository, with its link.
        let local = [".claude/settings.local.json", ".claude/capout-claude-code"];
        let shared: Vec<String> =
            tree(&proj).into_iter().filter(|f| !f.ends_with('/') && !local.contains(&f.as_str())).collect();
        assert!(!shared.is_empty(), "{harness}");
        for file in shared {
            let path = proj.join(&file);
            let meta = std::fs::symlink_metadata(&path).unwrap();
            assert!(!meta.file_type().is_symlink(), "{harness}: {file} is a link");
            let text = read(&path);
            for machine in [home.path(), &bin_dir(), Path::new(env!("CARGO_TARGET_TMPDIR"))] {
                assert!(
                    !text.contains(&*machine.to_string_lossy()),
                    "{harness}: {file} names {}:\n{text}",
                    machine.display()
                );
            }
            assert!(!text.contains("/capout\""), "{harness}: {file}:\n{text}");
        }
    }
}

#[test]
fn init_project_needs_capout_on_path_and_says_so() {
    let home = home();
    let out = init_with(home.path(), &["opencode", "--project"], |c| {
        c.env("PATH", "/usr/bin:/bin");
    });
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!(
            "capout: init: --project writes `capout` into the project's files, to be found on PATH, and there is \
             no capout on PATH here; put the folder of {CAPOUT} on PATH (or install capout), then run this again\n"
        )
    );
    assert_eq!(tree(&home.path().join("proj")), Vec::<String>::new());
}

#[test]
fn uninstall_leaves_settings_without_capouts_entries_byte_for_byte() {
    let contents = [
        "{}",
        "{\"env\":{}}",
        "{\"env\":{\"CLAUDE_CODE_SHELL_PREFIX\":\"/usr/local/bin/my-own-prefix\"}}",
        "{\"mine\": 1}",
        "{\"hooks\": {\"PreToolUse\": [], \"BeforeTool\": []}, \"mcpServers\": {}, \"mcp\": {}}\n",
    ];
    for harness in HARNESSES {
        for text in contents {
            let home = home();
            let files = json_files(harness, home.path());
            for f in &files {
                put(f, text);
            }
            let out = init(home.path(), &[harness, "--mcp", "--uninstall"]);
            assert_eq!(out.status.code(), Some(0), "{harness} {text}: {}", stderr(&out));
            for f in &files {
                assert_eq!(read(f), text, "{harness}: {}", f.display());
                assert!(
                    stdout(&out).contains(&format!("{}: nothing to take out\n", f.display())),
                    "{}",
                    stdout(&out)
                );
            }
            assert!(
                stdout(&out).ends_with(" here: nothing to take out.\n"),
                "{harness} {text}: {}",
                stdout(&out)
            );
        }
    }
}

#[test]
fn uninstall_takes_out_capouts_entries_alone_and_keeps_the_users_prefix() {
    let home = home();
    let settings = home.path().join(".claude/settings.json");
    let theirs = "{\"env\":{\"CLAUDE_CODE_SHELL_PREFIX\":\"/usr/local/bin/my-own-prefix\"}}";
    put(&settings, theirs);
    let out = init(home.path(), &["claude-code"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!(
            "capout: init: {}: env.CLAUDE_CODE_SHELL_PREFIX is already set to \"/usr/local/bin/my-own-prefix\"; capout leaves it\n",
            settings.display()
        )
    );
    assert_eq!(read(&settings), theirs);
    assert_eq!(tree(&home.path().join(".claude")), ["settings.json"]);
    // Set up, then the user adds a key of their own: only capout's goes.
    std::fs::write(&settings, "{\"theme\":\"dark\"}").unwrap();
    assert_eq!(init(home.path(), &["claude-code"]).status.code(), Some(0));
    let changed = format!("{{\"model\":\"opus\",{}", &read(&settings)[1..]);
    std::fs::write(&settings, &changed).unwrap();
    let out = init(home.path(), &["claude-code", "--uninstall"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(read(&settings), "{\"model\":\"opus\",\"theme\":\"dark\"}");
    assert!(
        stdout(&out).contains(": took out env.CLAUDE_CODE_SHELL_PREFIX, capout's hook in hooks.PreToolUse\n"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_symlinked_settings_file_is_edited_through_its_link() {
    for (harness, file) in [
        ("claude-code", ".claude/settings.json"),
        ("codex", ".codex/hooks.json"),
        ("gemini", ".gemini/settings.json"),
    ] {
        let home = home();
        let dotfiles = home.path().join("dotfiles");
        let target = dotfiles.join("settings.json");
        let mine = "{\n  \"mine\": true\n}\n";
        put(&target, mine);
        let link = home.path().join(file);
        std::fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink("../dotfiles/settings.json", &link).unwrap();
        let out = init(home.path(), &[harness]);
        assert_eq!(out.status.code(), Some(0), "{harness}: {}", stderr(&out));
        assert_eq!(std::fs::read_link(&link).unwrap(), Path::new("../dotfiles/settings.json"), "{harness}");
        let installed = read(&target);
        assert!(
            installed.starts_with("{\n  \"mine\": true,\n") && installed.contains("capout"),
            "{harness}: {installed}"
        );
        assert_eq!(tree(&dotfiles), ["settings.json"], "{harness}: the target is written in its own folder");
        let out = init(home.path(), &[harness, "--uninstall"]);
        assert_eq!(out.status.code(), Some(0), "{harness}: {}", stderr(&out));
        assert_eq!(std::fs::read_link(&link).unwrap(), Path::new("../dotfiles/settings.json"), "{harness}");
        assert_eq!(read(&target), mine, "{harness}");
        assert!(!Path::new(&format!("{}.capout-backup", link.display())).exists());
    }
}

#[test]
fn numbers_and_escapes_keep_their_bytes_in_every_harness() {
    let values = [
        "123456789012345678901234567890",
        "18446744073709551616",
        "-9223372036854775809",
        "0.10000000000000000555",
        "1E400",
        "\"caf\\u00e9 \\\"q\\\" \\/ \\ud83d\\ude00\"",
    ];
    let text = format!(
        "{{\"n\": {}, \"u\": {}, \"i\": {}, \"f\": {}, \"e\": {}, \"s\": {}}}\n",
        values[0], values[1], values[2], values[3], values[4], values[5]
    );
    for harness in HARNESSES {
        let home = home();
        let files = json_files(harness, home.path());
        for f in &files {
            put(f, &text);
        }
        let out = init(home.path(), &[harness, "--mcp"]);
        assert_eq!(out.status.code(), Some(0), "{harness}: {}", stderr(&out));
        for f in &files {
            let after = read(f);
            assert!(after.starts_with(&text[..text.len() - 2]), "{harness}: {after}");
        }
        let out = init(home.path(), &[harness, "--mcp", "--uninstall"]);
        assert_eq!(out.status.code(), Some(0), "{harness}: {}", stderr(&out));
        for f in &files {
            assert_eq!(read(f), text, "{harness}");
        }
    }
}

#[test]
fn a_fifo_settings_file_is_refused_at_once() {
    let home = home();
    let settings = home.path().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let made = Command::new("mkfifo").arg(&settings).status().unwrap();
    assert!(made.success());
    let out = crate::common::capout()
        .args(["init", "claude-code"])
        .env("HOME", home.path())
        .env_remove("CLAUDE_CONFIG_DIR")
        .current_dir(home.path())
        .output()
        .unwrap();
    assert_eq!(
        stderr(&out),
        format!("capout: init: cannot read {}: it is a FIFO, not a regular file\n", settings.display())
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn a_settings_file_that_links_to_dev_zero_is_refused() {
    let home = home();
    let settings = home.path().join(".gemini/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &settings).unwrap();
    // A bound on memory, so that reading /dev/zero to its end fails
    // rather than fills the machine.
    let out = Command::new("bash")
        .args(["-c", "ulimit -v 2000000; exec \"$0\" init gemini", CAPOUT])
        .env("HOME", home.path())
        .env_remove("GEMINI_CLI_HOME")
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("QWEN_HOME")
        .env_remove("COPILOT_HOME")
        .current_dir(home.path())
        .output()
        .unwrap();
    assert_eq!(
        stderr(&out),
        format!(
            "capout: init: cannot read {}: it is a character device, not a regular file\n",
            settings.display()
        )
    );
    assert_eq!(out.status.code(), Some(1));
    let big = home.path().join(".codex/hooks.json");
    put(&big, &format!("{{\"pad\": \"{}\"}}", "x".repeat(1 << 20)));
    let out = init(home.path(), &["codex"]);
    assert_eq!(
        stderr(&out),
        format!("capout: init: cannot read {}: it is larger than 1 MiB\n", big.display())
    );
}

#[test]
fn init_refuses_a_relative_home() {
    let dir = home();
    let out = Command::new(CAPOUT)
        .args(["init", "claude-code"])
        .env("HOME", "rel/home")
        .env_remove("CLAUDE_CONFIG_DIR")
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(
        stderr(&out),
        "capout: init: HOME is 'rel/home', which is not an absolute path; capout writes nowhere it would have to guess\n"
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(tree(dir.path()), ["proj/"]);
    let out = init_with(dir.path(), &["codex"], |c| {
        c.env("CODEX_HOME", "rel/codex");
    });
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("capout: init: CODEX_HOME is 'rel/codex', which is not an absolute path")
    );
}

#[test]
fn twenty_inits_of_gemini_with_mcp_at_once_all_succeed() {
    // Half of them run capout from one folder and half from another, so
    // that each finds the link leading to the other and makes it anew.
    let bins = home();
    let places: Vec<PathBuf> = ["a", "b"]
        .iter()
        .map(|d| {
            let dir = bins.path().join(d);
            std::fs::create_dir(&dir).unwrap();
            std::fs::hard_link(env!("CARGO_BIN_EXE_capout-mcp"), dir.join("capout-mcp")).unwrap();
            std::fs::hard_link(CAPOUT, dir.join("capout")).unwrap();
            dir.join("capout")
        })
        .collect();
    for _ in 0..10 {
        let home = home();
        // Each waits for the end of its stdin, and the test ends them all
        // at once: the twenty start together.
        let mut children: Vec<_> = (0..20)
            .map(|n| {
                let mut cmd = Command::new("sh");
                clean_env(&mut cmd)
                    .args(["-c", "read _; exec \"$0\" init gemini --mcp"])
                    .arg(&places[n % 2])
                    .env("HOME", home.path())
                    .env_remove("GEMINI_CLI_HOME")
                    .current_dir(home.path())
                    .stdin(Stdio::piped())
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let gates: Vec<_> = children.iter_mut().map(|c| c.stdin.take().unwrap()).collect();
        drop(gates);
        let failed: Vec<String> = children
            .into_iter()
            .map(|child| child.wait_with_output().unwrap())
            .filter(|out| out.status.code() != Some(0))
            .map(|out| stderr(&out))
            .collect();
        assert_eq!(failed, Vec::<String>::new());
        let settings = read(&home.path().join(".gemini/settings.json"));
        assert_eq!(settings.matches("hook gemini").count(), 1, "{settings}");
        let link = home.path().join(".gemini/capout-gemini/bash");
        assert!(places.contains(&std::fs::read_link(&link).unwrap()));
        assert_eq!(tree(&home.path().join(".gemini/capout-gemini")), ["bash"]);
    }
}

#[test]
fn a_bad_config_toml_means_init_codex_writes_nothing() {
    let home = home();
    let config = home.path().join(".codex/config.toml");
    put(&config, "model = [\n");
    let out = init(home.path(), &["codex", "--mcp"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with(&format!(
            "capout: init: {}: not TOML at line 2 column 1: invalid array; expected `]`\n",
            config.display()
        )),
        "{}",
        stderr(&out)
    );
    assert_eq!(stderr(&out).matches('\n').count(), 1, "{}", stderr(&out));
    assert_eq!(tree(&home.path().join(".codex")), ["config.toml"]);
    assert_eq!(stdout(&out), "");
}

#[test]
fn gemini_settings_with_comments_keep_them() {
    let home = home();
    let settings = home.path().join(".gemini/settings.json");
    let before =
        "{\n  // my key\n  \"security\": {\"auth\": {\"selectedType\": \"gemini-api-key\"}}, /* kept */\n}\n";
    put(&settings, before);
    let out = init(home.path(), &["gemini", "--mcp"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let after = read(&settings);
    assert!(
        after.starts_with(
            "{\n  // my key\n  \"security\": {\"auth\": {\"selectedType\": \"gemini-api-key\"}},\n  \"hooks\""
        ),
        "{after}"
    );
    assert!(after.ends_with("}, /* kept */\n}\n"), "{after}");
    let out = init(home.path(), &["gemini", "--mcp", "--uninstall"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(read(&settings), before);
}

#[test]
fn uninstall_gives_an_empty_home_back_empty() {
    for harness in HARNESSES {
        let home = home();
        let out = init(home.path(), &[harness, "--mcp"]);
        assert_eq!(out.status.code(), Some(0), "{harness}: {}", stderr(&out));
        assert!(tree(home.path()).len() > 1, "{harness}");
        let out = init(home.path(), &[harness, "--mcp", "--uninstall"]);
        assert_eq!(out.status.code(), Some(0), "{harness}: {}", stderr(&out));
        assert_eq!(tree(home.path()), ["proj/"], "{harness}: {}", stdout(&out));
    }
}

#[test]
fn dry_run_shows_the_links_it_would_make_and_remove() {
    let home = home();
    let link = home.path().join(".gemini/capout-gemini/bash");
    let out = init(home.path(), &["gemini", "--dry-run"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(&format!("{}: would be made, a link to {CAPOUT}\n", link.display())),
        "{}",
        stdout(&out)
    );
    assert_eq!(tree(home.path()), ["proj/"]);
    assert_eq!(init(home.path(), &["gemini"]).status.code(), Some(0));
    let out = init(home.path(), &["gemini", "--uninstall", "--dry-run"]);
    assert!(
        stdout(&out).contains(&format!("{}: would be removed, the link to {CAPOUT}\n", link.display())),
        "{}",
        stdout(&out)
    );
    assert!(link.exists());
    let claude = home.path().join(".claude/capout-claude-code");
    let out = init(home.path(), &["claude-code", "--dry-run"]);
    assert!(
        stdout(&out).contains(&format!("{}: would be made, a link to {CAPOUT}\n", claude.display())),
        "{}",
        stdout(&out)
    );
}

#[test]
fn uninstall_leaves_a_link_that_the_user_pointed_elsewhere() {
    let home = home();
    assert_eq!(init(home.path(), &["gemini"]).status.code(), Some(0));
    let link = home.path().join(".gemini/capout-gemini/bash");
    std::fs::remove_file(&link).unwrap();
    std::os::unix::fs::symlink("/bin/true", &link).unwrap();
    let out = init(home.path(), &["gemini", "--uninstall"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(&format!(
            "{}: not capout's link (it leads elsewhere), left as it is\n",
            link.display()
        )),
        "{}",
        stdout(&out)
    );
    assert_eq!(std::fs::read_link(&link).unwrap(), Path::new("/bin/true"));
}

#[test]
fn init_mcp_without_capout_mcp_beside_capout_is_refused() {
    let home = home();
    let alone = home.path().join("bin");
    std::fs::create_dir(&alone).unwrap();
    std::fs::hard_link(CAPOUT, alone.join("capout")).unwrap();
    let mut cmd = Command::new(alone.join("capout"));
    let out = clean_env(&mut cmd)
        .args(["init", "claude-code", "--mcp"])
        .env("HOME", home.path())
        .env_remove("CLAUDE_CONFIG_DIR")
        .current_dir(home.path())
        .output()
        .unwrap();
    assert_eq!(
        stderr(&out),
        format!(
            "capout: init: --mcp sets up `capout --mcp`, which runs {}, and there is none; build or install it \
             beside capout (cargo build --bins, or cargo install --locked --path crates/capout), then run this again\n",
            alone.join("capout-mcp").display()
        )
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(tree(home.path()), ["bin/", "bin/capout", "proj/"]);
}

#[test]
fn init_says_what_changed_how_to_undo_it_and_to_restart() {
    let home = home();
    let h = home.path().display();
    put(&home.path().join(".claude/settings.json"), "{\"theme\":\"dark\"}\n");
    let out = init(home.path(), &["claude-code", "--mcp"]);
    assert_eq!(
        stdout(&out),
        format!(
            "{h}/.claude/settings.json: added env.CLAUDE_CODE_SHELL_PREFIX, capout's hook in hooks.PreToolUse (as it was before: {h}/.claude/settings.json.capout-backup)\n\
             {h}/.claude/capout-claude-code: link made, to {CAPOUT}\n\
             {h}/.claude.json: made, with mcpServers.capout\n\
             capout is set up for Claude Code; restart Claude Code for it to take effect.\n\
             To undo it: capout init claude-code --mcp --uninstall\n"
        )
    );
    let out = init(home.path(), &["claude-code", "--mcp", "--uninstall"]);
    assert_eq!(
        stdout(&out),
        format!(
            "{h}/.claude/settings.json: given back as it was before capout (from {h}/.claude/settings.json.capout-backup)\n\
             {h}/.claude/capout-claude-code: link removed\n\
             {h}/.claude.json: removed, capout made it and nothing else is in it\n\
             capout is taken out of Claude Code; restart Claude Code for it to take effect.\n"
        )
    );
    let out = init(home.path(), &["codex", "--project"]);
    let text = stdout(&out);
    assert!(
        text.contains(
            "Codex runs a new hook only once you trust it: open /hooks in Codex and trust capout's.\n"
        ),
        "{text}"
    );
    assert!(text.ends_with("To undo it: capout init codex --project --uninstall\n"), "{text}");
}

#[test]
fn a_projects_uninstall_leaves_the_link_and_policy_the_users_own_setup_runs() {
    let home = home();
    let link = home.path().join(".gemini/capout-gemini/bash");
    let policy = home.path().join(".gemini/policies/capout.toml");
    assert_eq!(init(home.path(), &["gemini"]).status.code(), Some(0));
    let out = init(home.path(), &["gemini", "--project"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        read(&home.path().join("proj/.gemini/settings.json")),
        "{\n  \"hooks\": {\n    \"BeforeTool\": [\n      {\n        \"matcher\": \"run_shell_command\",\n        \"hooks\": [\n          \
         {\n            \"name\": \"capout\",\n            \"type\": \"command\",\n            \"command\": \"capout hook gemini\",\n            \
         \"timeout\": 10000\n          }\n        ]\n      }\n    ]\n  }\n}\n"
    );
    let out = init(home.path(), &["gemini", "--project", "--uninstall"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(tree(&home.path().join("proj")), Vec::<String>::new());
    assert!(link.exists() && policy.exists());
    let out = init(home.path(), &["gemini", "--uninstall"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(tree(home.path()), ["proj/"]);
}

#[test]
fn a_settings_file_with_a_backslash_before_a_character_outside_ascii_is_refused_in_one_line() {
    let home = home();
    let hooks = home.path().join(".codex/hooks.json");
    put(&hooks, "{\"note\": \"caf\\é\"}\n");
    let out = init(home.path(), &["codex"]);
    assert_eq!(
        stderr(&out),
        format!("capout: init: {}: an unknown escape in a string at line 1 column 15\n", hooks.display())
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(read(&hooks), "{\"note\": \"caf\\é\"}\n");
}

#[test]
fn a_backup_that_is_a_symbolic_link_is_refused_and_left_as_it_is() {
    for target in ["secret", "nowhere"] {
        let home = home();
        let settings = home.path().join(".claude/settings.json");
        put(&settings, "{\"a\": 1}\n");
        let secret = home.path().join("secret");
        std::fs::write(&secret, "{\"mine\": true}\n").unwrap();
        let backup = home.path().join(".claude/settings.json.capout-backup");
        std::os::unix::fs::symlink(home.path().join(target), &backup).unwrap();
        for args in [&["claude-code"][..], &["claude-code", "--uninstall"]] {
            let out = init(home.path(), args);
            assert_eq!(
                stderr(&out),
                format!(
                    "capout: init: {} is there and is not capout's; capout leaves it\n",
                    backup.display()
                ),
                "{target} {args:?}"
            );
            assert_eq!(out.status.code(), Some(1));
            assert_eq!(read(&settings), "{\"a\": 1}\n");
            assert_eq!(std::fs::read_link(&backup).unwrap(), home.path().join(target));
            assert_eq!(read(&secret), "{\"mine\": true}\n");
            assert_eq!(tree(&home.path().join(".claude")), ["settings.json", "settings.json.capout-backup"]);
        }
    }
}

#[test]
fn uninstall_keeps_the_empty_folders_the_user_had_before() {
    let home = home();
    let folders = [".claude", ".codex", ".gemini/policies", ".config/opencode/plugin"];
    for f in folders {
        std::fs::create_dir_all(home.path().join(f)).unwrap();
    }
    let before = tree(home.path());
    for harness in HARNESSES {
        let out = init(home.path(), &[harness, "--mcp"]);
        assert_eq!(out.status.code(), Some(0), "{harness}: {}", stderr(&out));
        let out = init(home.path(), &[harness, "--mcp", "--uninstall"]);
        assert_eq!(out.status.code(), Some(0), "{harness}: {}", stderr(&out));
        assert_eq!(tree(home.path()), before, "{harness}: {}", stdout(&out));
    }
}

#[test]
fn init_as_root_in_a_users_home_keeps_the_owner_of_every_file_and_folder() {
    use std::os::unix::fs::MetadataExt;
    // Only root can write a home that is not its own (`sudo capout init`
    // with the user's HOME): as anyone else, the case cannot arise.
    if rustix::process::geteuid().as_raw() != 0 {
        return;
    }
    let home = home();
    let settings = home.path().join(".claude/settings.json");
    put(&settings, "{\"a\": 1}\n");
    std::os::unix::fs::chown(home.path(), Some(1234), Some(5678)).unwrap();
    std::os::unix::fs::chown(settings.parent().unwrap(), Some(1234), Some(5678)).unwrap();
    std::os::unix::fs::chown(&settings, Some(1234), Some(5678)).unwrap();
    for harness in HARNESSES {
        let out = init(home.path(), &[harness, "--mcp"]);
        assert_eq!(out.status.code(), Some(0), "{harness}: {}", stderr(&out));
    }
    let mut stack = vec![home.path().to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.ends_with("proj") {
                continue;
            }
            let meta = std::fs::symlink_metadata(&path).unwrap();
            assert_eq!((meta.uid(), meta.gid()), (1234, 5678), "{}", path.display());
            if meta.is_dir() {
                stack.push(path);
            }
        }
    }
}

#[test]
fn init_of_a_harness_whose_shell_calls_capout_cannot_bound_says_why_and_offers_mcp() {
    for harness in MCP_ONLY {
        let home = home();
        let out = init(home.path(), &[harness]);
        assert_eq!(out.status.code(), Some(1), "{harness}");
        let text = stderr(&out);
        assert!(text.starts_with("capout: init: "), "{harness}: {text}");
        assert!(text.contains("so capout cannot bound"), "{harness}: {text}");
        assert!(text.ends_with(&format!("`capout init {harness} --mcp` sets up capout's MCP server (its tools bash, read and grep, each bounded, the full output saved) for the model to use instead\n")), "{harness}: {text}");
        assert_eq!(text.lines().count(), 1, "{harness}: {text}");
        assert_eq!(stdout(&out), "");
        assert_eq!(tree(home.path()), ["proj/"], "{harness}");
        let out = init(home.path(), &[harness, "--mcp"]);
        assert_eq!(out.status.code(), Some(0), "{harness}: {}", stderr(&out));
        assert!(stdout(&out).contains("own shell tool is left as it is ("), "{harness}: {}", stdout(&out));
        let file = &json_files(harness, home.path())[0];
        let value: serde_json::Value = serde_json::from_str(&read(file)).unwrap();
        let key = if harness == "crush" { "mcp" } else { "mcpServers" };
        assert_eq!(value[key]["capout"]["command"], CAPOUT, "{harness}: {value}");
        assert_eq!(value[key]["capout"]["args"], serde_json::json!(["--mcp"]), "{harness}: {value}");
    }
}

#[test]
fn init_pi_makes_capouts_link_its_shell_path_and_uninstall_gives_the_settings_back_byte_for_byte() {
    let home = home();
    let agent = home.path().join(".pi/agent");
    let settings = agent.join("settings.json");
    let before = "{\n  // the user's\n  \"defaultThinkingLevel\": \"off\"\n}\n";
    put(&settings, before);
    let out = init(home.path(), &["pi"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let link = agent.join("capout-pi/bash");
    assert_eq!(std::fs::read_link(&link).unwrap(), Path::new(CAPOUT));
    assert_eq!(
        read(&settings),
        format!(
            "{{\n  // the user's\n  \"defaultThinkingLevel\": \"off\",\n  \"shellPath\": \"{}\"\n}}\n",
            link.display()
        )
    );
    let again = init(home.path(), &["pi"]);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert_eq!(stdout(&again).matches(": unchanged").count(), 2, "{}", stdout(&again));
    let out = init(home.path(), &["pi", "--uninstall"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(read(&settings), before);
    assert_eq!(tree(home.path()), [".pi/", ".pi/agent/", ".pi/agent/settings.json", "proj/"]);
}

#[test]
fn init_pi_leaves_a_shell_path_of_the_users_own() {
    let home = home();
    let settings = home.path().join(".pi/agent/settings.json");
    let before = "{\"shellPath\": \"/usr/bin/zsh\"}\n";
    put(&settings, before);
    let out = init(home.path(), &["pi"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("shellPath is already set to \"/usr/bin/zsh\"; capout leaves it"),
        "{}",
        stderr(&out)
    );
    assert_eq!(read(&settings), before);
    assert!(!home.path().join(".pi/agent/capout-pi").exists());
    let out = init(home.path(), &["pi", "--uninstall"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(read(&settings), before);
}

#[test]
fn init_pi_follows_pi_coding_agent_dir_and_refuses_mcp_and_project() {
    let home = home();
    let agent = home.path().join("pi-agent");
    let out = init_with(home.path(), &["pi", "--dry-run"], |c| {
        c.env("PI_CODING_AGENT_DIR", &agent);
    });
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(&format!(
            "{}: would be made, a link to {CAPOUT}\n",
            agent.join("capout-pi/bash").display()
        )),
        "{}",
        stdout(&out)
    );
    assert_eq!(tree(home.path()), ["proj/"]);
    for (flag, why) in [("--mcp", "Pi has no MCP client"), ("--project", "names a program of this machine")] {
        let out = init(home.path(), &["pi", flag]);
        assert_eq!(out.status.code(), Some(1), "{flag}");
        assert!(
            stderr(&out).starts_with("capout: init: ") && stderr(&out).contains(why),
            "{flag}: {}",
            stderr(&out)
        );
        assert_eq!(tree(home.path()), ["proj/"], "{flag}");
    }
}
