//! `capout hook HARNESS` on the event after a tool ran (Claude Code's
//! `PostToolUse`, Gemini CLI's `AfterTool`, opencode's plugin's
//! `tool.execute.after`), fed as each harness feeds it.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common::capout_std;

/// A throwaway home, with its own temporary folder (`TMPDIR`).
fn home() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("tmp")).unwrap();
    dir
}

/// `capout hook HARNESS` in `home`, `event` on stdin, and the config file
/// `config` when there is one.
fn hook(home: &Path, harness: &str, event: &str, config: Option<&str>) -> std::process::Output {
    let mut cmd = capout_std();
    cmd.args(["hook", harness]).env("HOME", home).env("TMPDIR", home.join("tmp")).current_dir(home);
    if let Some(config) = config {
        let path = home.join("capout.toml");
        std::fs::write(&path, config).unwrap();
        cmd.env("CAPOUT_CONFIG", path);
    }
    let mut child = cmd
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let event = event.to_owned();
    let writer = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, event.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    out
}

fn lines(n: usize) -> String {
    use std::fmt::Write as _;
    (1..=n).fold(String::new(), |mut s, i| {
        let _ = writeln!(s, "line {i}");
        s
    })
}

/// The one file in `dir`.
fn only_file(dir: &Path) -> PathBuf {
    let files: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(files.len(), 1, "{files:?}");
    files.into_iter().next().unwrap()
}

/// The first 8000 characters of `text` and the notice of profile `tool`
/// that names `saved`, as the model reads them.
fn bounded(text: &str, saved: &Path) -> String {
    format!(
        "{}\n... (truncated, showing first 8000 chars; full output: {})\n",
        text[..8000].trim_end_matches('\n'),
        saved.display()
    )
}

/// A `PostToolUse` event as Claude Code 2.1.332 sends it, in `home`.
fn claude_event(home: &Path, tool: &str, response: &Value) -> String {
    json!({
        "session_id": "s1",
        "transcript_path": home.join(".claude/projects/-proj/s1.jsonl"),
        "cwd": home, "permission_mode": "default", "hook_event_name": "PostToolUse",
        "tool_name": tool, "tool_input": {"n": 100_000}, "tool_response": response,
        "tool_use_id": "toolu_01", "mcp_server": {"name": "third", "source": "user"}
    })
    .to_string()
}

#[test]
fn claude_code_an_mcp_tool_result_of_100000_lines_is_bounded_with_the_notice_and_saved() {
    let home = home();
    let long = lines(100_000);
    let event = claude_event(home.path(), "mcp__third__lines", &json!([{"type": "text", "text": long}]));
    let out = hook(home.path(), "claude-code", &event, None);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert!(out.status.success());
    let saved = only_file(&saves(home.path()));
    assert_eq!(std::fs::read_to_string(&saved).unwrap(), long);
    let answer = json!({"hookSpecificOutput": {"hookEventName": "PostToolUse",
        "updatedMCPToolOutput": [{"type": "text", "text": bounded(&long, &saved)}]}});
    assert_eq!(String::from_utf8(out.stdout).unwrap(), format!("{answer}\n"));
}

#[test]
fn claude_code_an_mcp_tool_result_that_is_a_json_document_stays_json() {
    let home = home();
    let items: Vec<String> = (0..20_000).map(|i| format!("{{\"id\": {i}}}")).collect();
    let doc = format!("{{\"items\": [{}]}}", items.join(", "));
    let event = claude_event(home.path(), "mcp__third__json_document", &Value::String(doc.clone()));
    let out = hook(home.path(), "claude-code", &event, None);
    assert!(out.status.success());
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = answer["hookSpecificOutput"]["updatedMCPToolOutput"].as_str().unwrap();
    let (document, notice) = text.trim_end().rsplit_once('\n').unwrap();
    let value: Value = serde_json::from_str(document).unwrap();
    let kept = value["items"].as_array().unwrap();
    assert_eq!(kept.len(), 50);
    assert_eq!(kept[49], json!({"id": 49}));
    let saved = only_file(&saves(home.path()));
    assert_eq!(std::fs::read_to_string(&saved).unwrap(), doc);
    assert!(notice.starts_with("... (truncated JSON: kept "), "{notice}");
    assert!(notice.ends_with(&format!("full output: {})", saved.display())), "{notice}");
}

#[test]
fn claude_code_leaves_its_own_read_tool_alone_and_the_tools_table_names_it() {
    let home = home();
    let long = lines(100_000);
    let response = json!({"type": "text", "file": {"filePath": "/p/a.txt", "content": long,
        "numLines": 100_000, "startLine": 1, "totalLines": 100_000}});
    let event = claude_event(home.path(), "Read", &response);
    let out = hook(home.path(), "claude-code", &event, None);
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "capout: hook: claude-code: left alone: the harness's own tool 'Read', which pages itself (the config \
         file's [tools] table may name it)\n"
    );
    let out = hook(home.path(), "claude-code", &event, Some("[tools]\n\"Read\" = \"tool\"\n"));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let saved = only_file(&saves(home.path()));
    let mut updated = response.clone();
    updated["file"]["content"] = bounded(&long, &saved).into();
    let answer =
        json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": updated}});
    assert_eq!(String::from_utf8(out.stdout).unwrap(), format!("{answer}\n"));
}

#[test]
fn claude_code_a_tool_the_tools_table_leaves_and_a_short_result_are_left_alone() {
    let home = home();
    let event =
        claude_event(home.path(), "mcp__third__lines", &json!([{"type": "text", "text": lines(100_000)}]));
    let out = hook(home.path(), "claude-code", &event, Some("[tools]\n\"lines\" = false\n"));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "capout: hook: claude-code: left alone: the tool 'mcp__third__lines', which the config file's [tools] \
         table leaves as it is\n"
    );
    let event = claude_event(home.path(), "mcp__third__lines", &json!([{"type": "text", "text": lines(10)}]));
    let out = hook(home.path(), "claude-code", &event, None);
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "capout: hook: claude-code: left alone: the output of mcp__third__lines fits profile tool\n"
    );
}

#[test]
fn claude_code_an_mcp_result_it_held_back_is_bounded_from_its_file_in_the_session_folder() {
    let home = home();
    let results = home.path().join(".claude/projects/-proj/s1/tool-results");
    std::fs::create_dir_all(&results).unwrap();
    let file = results.join("mcp-third-lines-1.txt");
    let long = lines(100_000);
    std::fs::write(&file, &long).unwrap();
    let message = format!(
        "Error: result (1,088,895 characters across 100,000 lines) exceeds maximum allowed tokens. Output has \
         been saved to {}.\nFormat: Plain text\nUse offset and limit parameters to read specific portions of the \
         file.\n",
        file.display()
    );
    let out = hook(
        home.path(),
        "claude-code",
        &claude_event(home.path(), "mcp__third__lines", &message.into()),
        None,
    );
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let saved = only_file(&saves(home.path()));
    let answer = json!({"hookSpecificOutput": {"hookEventName": "PostToolUse",
        "updatedMCPToolOutput": bounded(&long, &saved)}});
    assert_eq!(String::from_utf8(out.stdout).unwrap(), format!("{answer}\n"));
}

#[test]
fn claude_code_bad_events_are_left_alone_with_one_line() {
    let home = home();
    for (event, why) in [
        ("{\"hook_event_name\": \"PostToolUse\", \"tool_name\": 3}", "left alone: the harness's own tool ''"),
        ("{\"hook_event_name\": \"PostToolUse\"", ""),
        ("\u{0}\u{ff}", ""),
    ] {
        let out = hook(home.path(), "claude-code", event, None);
        assert!(out.status.success());
        assert_eq!(String::from_utf8_lossy(&out.stdout), "");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("capout: hook: claude-code: ") && err.ends_with('\n'), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(why), "{err}");
    }
}

/// An `AfterTool` event as Gemini CLI 0.61.0 sends it, in `home`.
fn gemini_event(home: &Path, tool: &str, text: &str, mcp: bool) -> String {
    std::fs::create_dir_all(home.join(".gemini/tmp/proj/chats")).unwrap();
    let mut event = json!({
        "session_id": "s1", "transcript_path": home.join(".gemini/tmp/proj/chats/session-s1.jsonl"),
        "cwd": home, "hook_event_name": "AfterTool", "timestamp": "2026-12-03T17:29:15.082Z",
        "tool_name": tool, "tool_input": {"n": 100_000},
        "tool_response": {"llmContent": [{"text": format!("<untrusted_context>\n{text}\n</untrusted_context>")}],
            "returnDisplay": "line 1\n"},
    });
    if mcp {
        event["mcp_context"] = json!({"server_name": "third", "tool_name": "lines", "command": "python3"});
    }
    event.to_string()
}

#[test]
fn gemini_an_mcp_tool_result_of_100000_lines_is_read_back_bounded_by_a_tail_call() {
    let home = home();
    let long = lines(100_000);
    let out = hook(home.path(), "gemini", &gemini_event(home.path(), "mcp_third_lines", &long, true), None);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let dir = home.path().join(".gemini/tmp/proj/capout");
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    let view = PathBuf::from(
        answer["hookSpecificOutput"]["tailToolCallRequest"]["args"]["file_path"].as_str().unwrap(),
    );
    assert_eq!(view.parent(), Some(dir.as_path()));
    let saved: Vec<PathBuf> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| *p != view).collect();
    assert_eq!(saved.len(), 1);
    assert_eq!(std::fs::read_to_string(&saved[0]).unwrap(), long);
    let expected = json!({"hookSpecificOutput": {"hookEventName": "AfterTool",
        "tailToolCallRequest": {"name": "read_file", "args": {"file_path": view}}}});
    assert_eq!(String::from_utf8(out.stdout).unwrap(), format!("{expected}\n"));
    assert_eq!(
        std::fs::read_to_string(&view).unwrap(),
        format!("<untrusted_context>\n{}\n</untrusted_context>", bounded(&long, &saved[0]))
    );
}

#[test]
fn gemini_leaves_its_own_read_file_alone_and_the_tools_table_names_it() {
    let home = home();
    let long = lines(100_000);
    let event = gemini_event(home.path(), "read_file", &long, false);
    let out = hook(home.path(), "gemini", &event, None);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "capout: hook: gemini: left alone: the harness's own tool 'read_file', which pages itself (the config \
         file's [tools] table may name it)\n"
    );
    let out = hook(home.path(), "gemini", &event, Some("[tools]\n\"read_file\" = \"tool\"\n"));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["hookSpecificOutput"]["tailToolCallRequest"]["name"], "read_file");
}

#[test]
fn opencode_an_mcp_tool_result_of_100000_lines_keeps_its_content_shape() {
    let home = home();
    let long = lines(100_000);
    let event = json!({"event": "tool.execute.after", "tool": "third_lines", "mcp": true,
        "output": {"content": [{"type": "text", "text": long}]}});
    let out = hook(home.path(), "opencode", &event.to_string(), None);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let saved = only_file(&saves(home.path()));
    assert_eq!(std::fs::read_to_string(&saved).unwrap(), long);
    let answer = json!({"content": [{"type": "text", "text": bounded(&long, &saved)}]});
    assert_eq!(String::from_utf8(out.stdout).unwrap(), format!("{answer}\n"));
}

#[test]
fn opencode_leaves_its_own_read_tool_alone_and_the_tools_table_names_it() {
    let home = home();
    let long = lines(100_000);
    let event = json!({"event": "tool.execute.after", "tool": "read", "mcp": false,
        "output": {"title": "a.txt", "output": long, "metadata": {}}})
    .to_string();
    let out = hook(home.path(), "opencode", &event, None);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    assert!(String::from_utf8_lossy(&out.stderr).contains("left alone: the harness's own tool 'read'"));
    let out = hook(home.path(), "opencode", &event, Some("[tools]\n\"read\" = \"tool\"\n"));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let saved = only_file(&saves(home.path()));
    let answer = json!({"output": bounded(&long, &saved)});
    assert_eq!(String::from_utf8(out.stdout).unwrap(), format!("{answer}\n"));
}

/// The private folder of saved outputs in `home`.
fn saves(home: &Path) -> PathBuf {
    home.join(format!("tmp/capout-{}", rustix::process::getuid().as_raw()))
}

#[test]
fn a_bounded_tool_output_gets_its_line_in_the_ledger() {
    let home = home();
    let long = lines(100_000);
    let event = claude_event(home.path(), "mcp__third__lines", &json!([{"type": "text", "text": long}]));
    let state = home.path().join("state");
    let mut child = capout_std()
        .args(["hook", "claude-code"])
        .env("HOME", home.path())
        .env("TMPDIR", home.path().join("tmp"))
        .env("XDG_STATE_HOME", &state)
        .env_remove("CAPOUT_LEDGER")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, event.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success());
    let saved = only_file(&saves(home.path()));
    let ledger = std::fs::read_to_string(state.join("capout/ledger.jsonl")).unwrap();
    let line: Value = serde_json::from_str(ledger.trim_end()).unwrap();
    assert_eq!(ledger.lines().count(), 1);
    assert_eq!(
        (&line["front"], &line["harness"], &line["tool"], &line["command"], &line["cut"]),
        (
            &json!("hook"),
            &json!("claude-code"),
            &json!("mcp__third__lines"),
            &json!("mcp__third__lines"),
            &json!(true)
        )
    );
    assert_eq!(line["chars_in"], long.chars().count());
    assert_eq!(line["chars_shown"], bounded(&long, &saved).chars().count());
    assert_eq!(line["saved"], saved.display().to_string());
}
