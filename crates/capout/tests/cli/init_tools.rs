//! `capout init HARNESS --tools` (the after-tool hooks) and `--wrap-mcp`
//! (each stdio MCP server run under `capout --mcp-wrap --`), and their
//! `--uninstall`: the user's settings given back byte for byte.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::common::clean_env;

const CAPOUT: &str = env!("CARGO_BIN_EXE_capout");

/// A throwaway home with a project in it.
fn home() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("proj")).unwrap();
    dir
}

/// `capout init ARGS` in the project of `home`, with capout on PATH.
fn init(home: &Path, args: &[&str]) -> Output {
    let mut cmd = Command::new(CAPOUT);
    clean_env(&mut cmd)
        .arg("init")
        .args(args)
        .env("HOME", home)
        .env("PATH", format!("{}:/usr/bin:/bin", Path::new(CAPOUT).parent().unwrap().display()))
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .env_remove("GEMINI_CLI_HOME")
        .current_dir(home.join("proj"))
        .stdin(Stdio::null());
    cmd.output().unwrap()
}

fn ok(out: &Output) -> String {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn init_claude_code_tools_adds_the_post_tool_use_hook_and_uninstall_gives_the_file_back() {
    let home = home();
    let settings = home.path().join(".claude/settings.json");
    write(&settings, "{\"theme\":\"dark\"}");
    let out = ok(&init(home.path(), &["claude-code", "--tools"]));
    assert!(out.ends_with("To undo it: capout init claude-code --tools --uninstall\n"), "{out}");
    let link = home.path().join(".claude/capout-claude-code");
    assert_eq!(
        read(&settings),
        format!(
            "{{\"theme\":\"dark\",\"env\": {{\"CLAUDE_CODE_SHELL_PREFIX\": \"{}\"}},\"hooks\": {{\"PreToolUse\": \
             [{{\"matcher\": \"Bash\", \"hooks\": [{{\"type\": \"command\", \"command\": \"{CAPOUT} hook \
             claude-code\"}}]}}], \"PostToolUse\": [{{\"matcher\": \"*\", \"hooks\": [{{\"type\": \"command\", \
             \"command\": \"{CAPOUT} hook claude-code\"}}]}}]}}}}",
            link.display()
        )
    );
    let again = ok(&init(home.path(), &["claude-code", "--tools"]));
    assert!(again.starts_with(&format!("{}: unchanged\n", settings.display())), "{again}");
    ok(&init(home.path(), &["claude-code", "--tools", "--uninstall"]));
    assert_eq!(read(&settings), "{\"theme\":\"dark\"}");
}

/// A `~/.claude.json` as Claude Code writes it, with a stdio server, a
/// remote one and one of the project `project`'s own.
fn claude_json(project: &Path) -> String {
    format!(
        "{{\n  \"numStartups\": 3,\n  \"mcpServers\": {{\n    \"third\": {{\n      \"type\": \"stdio\",\n      \
         \"command\": \"python3\",\n      \"args\": [\n        \"srv.py\"\n      ],\n      \"env\": {{}}\n    }},\n    \
         \"web\": {{\n      \"type\": \"http\",\n      \"url\": \"https://example.com/mcp\"\n    }}\n  }},\n  \
         \"projects\": {{\n    \"{}\": {{\n      \"mcpServers\": {{\n        \"mine\": {{\"command\": \"node\", \
         \"args\": [\"l.js\"]}}\n      }}\n    }}\n  }}\n}}\n",
        project.display()
    )
}

#[test]
fn init_claude_code_wrap_mcp_runs_each_stdio_server_under_capout_and_uninstall_gives_it_back() {
    let home = home();
    let file = home.path().join(".claude.json");
    let before = claude_json(&home.path().join("proj"));
    write(&file, &before);
    let out = ok(&init(home.path(), &["claude-code", "--wrap-mcp"]));
    assert!(out.contains(&format!(
        "{}: added capout --mcp-wrap around the stdio servers in mcpServers, capout --mcp-wrap around the stdio \
         servers in projects.{}.mcpServers (as it was before: {}.capout-backup)\n",
        file.display(),
        home.path().join("proj").display(),
        file.display()
    )));
    let wrapped = before
        .replace(
            "\"command\": \"python3\",\n      \"args\": [\n",
            &format!(
                "\"command\": \"{CAPOUT}\",\n      \"args\": [\n        \"--mcp-wrap\",\n        \"--\",\n        \
                 \"python3\",\n"
            ),
        )
        .replace(
            "{\"command\": \"node\", \"args\": [\"l.js\"]}",
            &format!("{{\"command\": \"{CAPOUT}\", \"args\": [\"--mcp-wrap\", \"--\", \"node\", \"l.js\"]}}"),
        );
    assert_eq!(read(&file), wrapped);
    ok(&init(home.path(), &["claude-code", "--wrap-mcp", "--uninstall"]));
    assert_eq!(read(&file), before);
}

#[test]
fn a_wrapped_server_comes_back_after_the_file_changed_elsewhere() {
    let home = home();
    let file = home.path().join(".claude.json");
    let before = claude_json(&home.path().join("proj"));
    write(&file, &before);
    ok(&init(home.path(), &["claude-code", "--wrap-mcp"]));
    // Claude Code counts its starts in the same file.
    write(&file, &read(&file).replace("\"numStartups\": 3", "\"numStartups\": 4"));
    let out = ok(&init(home.path(), &["claude-code", "--wrap-mcp", "--uninstall"]));
    assert!(
        out.contains(&format!("{}: took out capout --mcp-wrap around the stdio servers", file.display())),
        "{out}"
    );
    assert_eq!(read(&file), before.replace("\"numStartups\": 3", "\"numStartups\": 4"));
}

#[test]
fn wrap_mcp_dry_run_shows_the_change_and_writes_nothing() {
    let home = home();
    let file = home.path().join(".gemini/settings.json");
    let before = "{\"mcpServers\": {\"third\": {\"command\": \"python3\", \"args\": [\"srv.py\"]}}}\n";
    write(&file, before);
    let out = ok(&init(home.path(), &["gemini", "--wrap-mcp", "--dry-run"]));
    assert!(
        out.contains(&format!(
            "-{before}+{{\"mcpServers\": {{\"third\": {{\"command\": \"{CAPOUT}\", \"args\": [\"--mcp-wrap\", \"--\", \
             \"python3\", \"srv.py\"]}}}},"
        )),
        "{out}"
    );
    assert_eq!(read(&file), before);
    assert!(!home.path().join(".gemini/capout-gemini").exists());
}

#[test]
fn init_gemini_tools_and_wrap_mcp_and_uninstall_gives_the_file_back() {
    let home = home();
    let file = home.path().join(".gemini/settings.json");
    let before = "{\n  // mine\n  \"mcpServers\": {\"third\": {\"command\": \"python3\", \"args\": [\"srv.py\"]}, \
                  \"web\": {\"httpUrl\": \"https://x/\"}}\n}\n";
    write(&file, before);
    ok(&init(home.path(), &["gemini", "--tools", "--wrap-mcp"]));
    let link = home.path().join(".gemini/capout-gemini/bash");
    let hook = format!(
        "{{\"name\": \"capout\", \"type\": \"command\", \"command\": \"{} hook gemini\", \"timeout\": 10000}}",
        link.display()
    );
    assert_eq!(
        read(&file),
        format!(
            "{{\n  // mine\n  \"mcpServers\": {{\"third\": {{\"command\": \"{CAPOUT}\", \"args\": [\"--mcp-wrap\", \
             \"--\", \"python3\", \"srv.py\"]}}, \"web\": {{\"httpUrl\": \"https://x/\"}}}},\n  \"hooks\": {{\n    \
             \"BeforeTool\": [\n      {{\n        \"matcher\": \"run_shell_command\",\n        \"hooks\": [\n          \
             {hook_over_lines}\n        ]\n      }}\n    ],\n    \"AfterTool\": [\n      {{\n        \"matcher\": \
             \"*\",\n        \"hooks\": [\n          {hook_over_lines}\n        ]\n      }}\n    ]\n  }}\n}}\n",
            hook_over_lines = hook_lines(&link)
        ),
        "{hook}"
    );
    ok(&init(home.path(), &["gemini", "--tools", "--wrap-mcp", "--uninstall"]));
    assert_eq!(read(&file), before);
}

/// capout's Gemini CLI hook as init lays it out in a file over lines.
fn hook_lines(link: &Path) -> String {
    format!(
        "{{\n            \"name\": \"capout\",\n            \"type\": \"command\",\n            \"command\": \"{} hook \
         gemini\",\n            \"timeout\": 10000\n          }}",
        link.display()
    )
}

#[test]
fn init_opencode_tools_writes_the_after_hook_and_wrap_mcp_puts_capout_first() {
    let home = home();
    let dir = home.path().join(".config/opencode");
    let json = dir.join("opencode.json");
    let before = "{\"mcp\": {\"third\": {\"type\": \"local\", \"command\": [\"python3\", \"srv.py\"]}, \"web\": \
                  {\"type\": \"remote\", \"url\": \"https://x/\"}}}";
    write(&json, before);
    ok(&init(home.path(), &["opencode", "--tools", "--wrap-mcp"]));
    let plugin = read(&dir.join("plugin/capout.js"));
    assert!(
        plugin.contains(
            "const event = JSON.stringify({ event: \"tool.execute.after\", tool: input.tool, mcp, output })"
        ),
        "{plugin}"
    );
    assert!(plugin.contains("Object.assign(output, JSON.parse(hook.stdout))"), "{plugin}");
    assert_eq!(
        read(&json),
        before.replace("[\"python3\"", &format!("[\"{CAPOUT}\", \"--mcp-wrap\", \"--\", \"python3\""))
    );
    // Without --tools the plugin hands capout the shell's calls alone.
    ok(&init(home.path(), &["opencode"]));
    assert!(!read(&dir.join("plugin/capout.js")).contains("JSON.parse(hook.stdout))"));
    ok(&init(home.path(), &["opencode", "--tools", "--wrap-mcp", "--uninstall"]));
    assert_eq!(read(&json), before);
    assert!(!dir.join("plugin/capout.js").exists());
}

#[test]
fn init_codex_wrap_mcp_edits_config_toml_and_tools_is_refused() {
    let home = home();
    let config = home.path().join(".codex/config.toml");
    let before = "model = \"o3\"  # the best\n\n[mcp_servers.third]\ncommand = \"python3\"\nargs = [\"srv.py\"]\n\n\
                  [mcp_servers.web]\nurl = \"https://x/\"\n";
    write(&config, before);
    let out = init(home.path(), &["codex", "--tools"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "capout: init: Codex has no hook that may replace a tool's output, so --tools cannot bound it; --wrap-mcp \
         runs each of its stdio MCP servers under capout --mcp-wrap instead\n"
    );
    assert_eq!(read(&config), before);
    ok(&init(home.path(), &["codex", "--wrap-mcp"]));
    assert_eq!(
        read(&config),
        before.replace(
            "command = \"python3\"\nargs = [\"srv.py\"]",
            &format!("command = \"{CAPOUT}\"\nargs = [\"--mcp-wrap\", \"--\", \"python3\", \"srv.py\"]")
        )
    );
    ok(&init(home.path(), &["codex", "--wrap-mcp", "--uninstall"]));
    assert_eq!(read(&config), before);
}

#[test]
fn wrap_mcp_with_no_servers_file_makes_none() {
    let home = home();
    let out = ok(&init(home.path(), &["codex", "--wrap-mcp"]));
    assert!(
        out.contains(&format!(
            "{}: not there: no MCP server to run under capout\n",
            home.path().join(".codex/config.toml").display()
        )),
        "{out}"
    );
    assert!(!home.path().join(".codex/config.toml").exists());
}

#[test]
fn wrap_mcp_leaves_capouts_own_server_and_remote_ones_as_they_are() {
    let home = home();
    let file = home.path().join(".claude.json");
    let before = "{\"mcpServers\": {\"third\": {\"command\": \"srv\"}, \"web\": {\"type\": \"sse\", \"url\": \"https://x/\"}}}";
    write(&file, before);
    ok(&init(home.path(), &["claude-code", "--mcp", "--wrap-mcp"]));
    assert_eq!(
        read(&file),
        format!(
            "{{\"mcpServers\": {{\"third\": {{\"command\": \"{CAPOUT}\", \"args\": [\"--mcp-wrap\", \"--\", \"srv\"]}}, \
             \"web\": {{\"type\": \"sse\", \"url\": \"https://x/\"}}, \"capout\": {{\"type\": \"stdio\", \"command\": \
             \"{CAPOUT}\", \"args\": [\"--mcp\"]}}}}}}"
        )
    );
    let again = ok(&init(home.path(), &["claude-code", "--mcp", "--wrap-mcp"]));
    assert!(again.contains(&format!("{}: unchanged\n", file.display())), "{again}");
    ok(&init(home.path(), &["claude-code", "--mcp", "--wrap-mcp", "--uninstall"]));
    assert_eq!(read(&file), before);
}

#[test]
fn tools_and_wrap_mcp_for_another_harness_are_refused_and_write_nothing() {
    let home = home();
    for flag in ["--tools", "--wrap-mcp"] {
        let out = init(home.path(), &["pi", flag]);
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!(
                "capout: init: {flag} is there for Claude Code, Codex CLI, Gemini CLI and opencode; for pi put \
                 `capout --mcp-wrap --` before a server's command in its configuration yourself\n"
            )
        );
    }
    let entries: Vec<_> = std::fs::read_dir(home.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(entries, ["proj"]);
}
