//! Claude Code's `PostToolUse`: the hook may replace the output the
//! model reads, in `hookSpecificOutput.updatedMCPToolOutput` for an MCP
//! tool and `updatedToolOutput` for the others, each in the tool's own
//! output shape (Claude Code 2.1.332 drops a replacement whose shape is
//! not the tool's, and says nothing). An MCP tool's output is a string
//! or a list of content blocks; a built-in tool's an object of its own
//! (`WebFetch`: `{bytes, code, codeText, result, durationMs, url}`), of
//! which the longest string is what the tool returned and is bounded.
//!
//! Claude Code holds an MCP tool's output over its own limit
//! (`MAX_MCP_OUTPUT_TOKENS`, 25,000 tokens) back from the hook too: the
//! hook is given, and the model would read, the error `Error: result (N
//! characters across M lines) exceeds maximum allowed tokens. Output has
//! been saved to FILE...`, and none of the output. The hook then bounds
//! FILE, which Claude Code wrote in the session's own folder
//! (`PROJECT/SESSION/tool-results/`, beside the transcript `PROJECT/
//! SESSION.jsonl`): no file elsewhere is read, whatever a tool's output
//! says.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{Input, Kind, Tool};

/// The hook's answer to the `PostToolUse` event `text`: the replacement
/// as Claude Code reads it, or why the output is left as it is.
/// `dir` is the private folder the whole output is saved in.
pub fn answer(text: &str, dir: Result<&Path, &str>) -> Result<String, String> {
    let event: Value = serde_json::from_str(text).map_err(|e| format!("not a hook event: {e}"))?;
    let field = |name: &str| event.get(name).and_then(Value::as_str).unwrap_or_default();
    if field("hook_event_name") != "PostToolUse" {
        return Err(format!("left alone: event {}", field("hook_event_name")));
    }
    let name = field("tool_name");
    let server = event.get("mcp_server").and_then(|s| s.get("name")).and_then(Value::as_str);
    let tool = Tool { name, own: own_name(name, server), kind: kind(name) };
    let file = crate::profiles::ConfigFile::load().map_err(|e| crate::profiles::strip_error(&e))?;
    let profile = super::profile_for(file.as_ref(), &tool).map_err(|why| format!("left alone: {why}"))?;
    let Some(response) = event.get("tool_response") else {
        return Err("left alone: the event has no tool_response".into());
    };
    let cut = |input: &Input| {
        super::cut(
            &profile,
            file.as_ref(),
            input,
            dir,
            Some(super::Call { harness: "claude-code", tool: name }),
        )
        .map(|cut| cut.map(|c| c.text))
    };
    let updated = match response {
        Value::String(s) => {
            let saved = (tool.kind == Kind::Mcp).then(|| held_back(s, field("transcript_path"))).flatten();
            let cut = match &saved {
                Some(path) => cut(&Input::File(path))?,
                None => cut(&Input::Text(s.as_bytes()))?,
            };
            cut.map(Value::String)
        }
        Value::Array(blocks) => {
            let text = super::texts(blocks).ok_or("left alone: the output holds no text")?;
            cut(&Input::Text(text.as_bytes()))?.map(|t| Value::Array(super::with_text(blocks, &t)))
        }
        Value::Object(_) => {
            let at = longest(response).ok_or("left alone: the output holds no text")?;
            let text = response.pointer(&at).and_then(Value::as_str).unwrap_or_default();
            cut(&Input::Text(text.as_bytes()))?.map(|t| {
                let mut updated = response.clone();
                if let Some(slot) = updated.pointer_mut(&at) {
                    *slot = Value::String(t);
                }
                updated
            })
        }
        _ => return Err("left alone: the output is not text".into()),
    };
    let Some(updated) = updated else {
        return Err(format!("left alone: the output of {name} fits profile {profile}"));
    };
    let key = if tool.kind == Kind::Mcp { "updatedMCPToolOutput" } else { "updatedToolOutput" };
    let out = json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", key: updated}});
    Ok(out.to_string())
}

fn kind(name: &str) -> Kind {
    match name {
        _ if name.starts_with("mcp__") => Kind::Mcp,
        "WebFetch" => Kind::WebFetch,
        "Bash" => Kind::Shell,
        _ => Kind::Own,
    }
}

/// An MCP tool's own name in `name` (`mcp__SERVER__TOOL`), `server` the
/// server's name as the event gives it. Claude Code writes a character of
/// the server's name that is not a letter, digit, `_` or `-` as `_`.
fn own_name<'a>(name: &'a str, server: Option<&str>) -> Option<&'a str> {
    let rest = name.strip_prefix("mcp__")?;
    if let Some(server) = server {
        let normal: String =
            server.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
        if let Some(own) = rest.strip_prefix(normal.as_str()).and_then(|r| r.strip_prefix("__")) {
            return Some(own);
        }
    }
    rest.split_once("__").map(|(_, own)| own)
}

/// The file that Claude Code saved an MCP tool's output to, when
/// `response` is its error that says so and the file is where Claude Code
/// saves those of the session whose transcript is `transcript`.
fn held_back(response: &str, transcript: &str) -> Option<PathBuf> {
    let rest = response.strip_prefix("Error: result (")?;
    let (_, rest) = rest.split_once(") exceeds maximum allowed tokens. Output has been saved to ")?;
    let path = Path::new(rest.split('\n').next()?.strip_suffix('.')?);
    let session = Path::new(transcript.strip_suffix(".jsonl")?);
    super::directly_in(path, &session.join("tool-results")).then(|| path.to_owned())
}

/// The JSON pointer of the longest string in `value`, if it holds one.
fn longest(value: &Value) -> Option<String> {
    fn walk(value: &Value, at: &mut String, best: &mut Option<(usize, String)>) {
        match value {
            Value::String(s) if best.as_ref().is_none_or(|(n, _)| s.len() > *n) => {
                *best = Some((s.len(), at.clone()));
            }
            Value::Object(map) => {
                for (k, v) in map {
                    let len = at.len();
                    at.push('/');
                    at.push_str(&k.replace('~', "~0").replace('/', "~1"));
                    walk(v, at, best);
                    at.truncate(len);
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    let len = at.len();
                    at.push('/');
                    at.push_str(&i.to_string());
                    walk(v, at, best);
                    at.truncate(len);
                }
            }
            _ => {}
        }
    }
    let mut best = None;
    walk(value, &mut String::new(), &mut best);
    best.map(|(_, at)| at)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `PostToolUse` event of an MCP tool as Claude Code 2.1.332 sends it.
    fn event(tool: &str, response: &Value) -> String {
        json!({
            "session_id": "0cc49bff-3f35-499c-a0d7-8d5788b40655",
            "transcript_path": "/h/.claude/projects/-h-proj/0cc49bff-3f35-499c-a0d7-8d5788b40655.jsonl",
            "cwd": "/h/proj", "prompt_id": "ed551d8b", "permission_mode": "default",
            "effort": {"level": "medium"}, "hook_event_name": "PostToolUse", "tool_name": tool,
            "tool_input": {"n": 5}, "tool_response": response, "tool_use_id": "toolu_052851bb0c434e0b8fff",
            "duration_ms": 27, "mcp_server": {"name": "third", "source": "user"}
        })
        .to_string()
    }

    use super::super::tests::lines;

    fn updated(answer: &str, key: &str) -> Value {
        let out: Value = serde_json::from_str(answer).unwrap();
        assert_eq!(out["hookSpecificOutput"]["hookEventName"], "PostToolUse");
        out["hookSpecificOutput"][key].clone()
    }

    #[test]
    fn a_long_mcp_text_is_cut_in_its_own_shape() {
        let dir = tempfile::tempdir().unwrap();
        let long = lines(2000);
        let blocks = json!([{"type": "text", "text": long}]);
        let got = updated(
            &answer(&event("mcp__third__lines", &blocks), Ok(dir.path())).unwrap(),
            "updatedMCPToolOutput",
        );
        let text = got[0]["text"].as_str().unwrap();
        assert_eq!(got[0]["type"], "text");
        assert!(text.starts_with(&long[..7990]), "{text}");
        assert!(text.contains("... (truncated, showing first 8000 chars; full output: "), "{text}");
        let as_string = updated(
            &answer(&event("mcp__third__lines", &Value::String(long.clone())), Ok(dir.path())).unwrap(),
            "updatedMCPToolOutput",
        );
        assert!(as_string.as_str().unwrap().starts_with(&long[..7990]));
    }

    #[test]
    fn a_short_output_and_the_harnesss_own_tools_are_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let blocks = json!([{"type": "text", "text": "line 1\n"}]);
        assert_eq!(
            answer(&event("mcp__third__lines", &blocks), Ok(dir.path())).unwrap_err(),
            "left alone: the output of mcp__third__lines fits profile tool"
        );
        let read = json!({"type": "text", "file": {"filePath": "/h/a", "content": lines(5000)}});
        assert!(
            answer(&event("Read", &read), Ok(dir.path()))
                .unwrap_err()
                .starts_with("left alone: the harness's own tool 'Read'")
        );
        assert!(answer("{not json", Ok(dir.path())).unwrap_err().starts_with("not a hook event: "));
        assert_eq!(
            answer(&event("mcp__third__lines", &blocks).replace("PostToolUse", "PreToolUse"), Ok(dir.path()))
                .unwrap_err(),
            "left alone: event PreToolUse"
        );
    }

    #[test]
    fn a_web_fetch_keeps_its_shape_with_its_result_cut() {
        let dir = tempfile::tempdir().unwrap();
        let response = json!({"bytes": 90000, "code": 200, "codeText": "OK", "result": "w".repeat(9000),
            "durationMs": 12, "url": "https://example.com/"});
        let got =
            updated(&answer(&event("WebFetch", &response), Ok(dir.path())).unwrap(), "updatedToolOutput");
        assert_eq!(got["code"], 200);
        assert_eq!(got["url"], "https://example.com/");
        assert!(got["result"].as_str().unwrap().starts_with(&format!(
            "{}\n... (truncated, showing first 8000 chars; full output: ",
            "w".repeat(8000)
        )));
    }

    #[test]
    fn an_output_claude_code_held_back_is_read_from_its_file_in_the_session_folder() {
        let home = tempfile::tempdir().unwrap();
        let project = home.path().join("projects/-h-proj");
        let results = project.join("s1/tool-results");
        std::fs::create_dir_all(&results).unwrap();
        let file = results.join("mcp-third-lines-1.txt");
        let long = lines(100_000);
        std::fs::write(&file, &long).unwrap();
        let message = |path: &Path| {
            format!(
                "Error: result (1,088,895 characters across 100,000 lines) exceeds maximum allowed tokens. Output has been saved to {}.\nFormat: Plain text\nUse offset and limit parameters to read specific portions of the file.\n",
                path.display()
            )
        };
        let with = |path: &Path| {
            event("mcp__third__lines", &Value::String(message(path))).replace(
                "/h/.claude/projects/-h-proj/0cc49bff-3f35-499c-a0d7-8d5788b40655.jsonl",
                &project.join("s1.jsonl").display().to_string(),
            )
        };
        let saved = tempfile::tempdir().unwrap();
        let got = updated(&answer(&with(&file), Ok(saved.path())).unwrap(), "updatedMCPToolOutput");
        let text = got.as_str().unwrap();
        assert!(text.starts_with(&long[..7990]), "{text}");
        let path = text.rsplit_once("full output: ").unwrap().1.trim_end().trim_end_matches(')');
        assert_eq!(std::fs::read_to_string(path).unwrap(), long);
        // A file anywhere else is never read: the message is the output.
        let elsewhere = home.path().join("secret.txt");
        std::fs::write(&elsewhere, &long).unwrap();
        assert!(answer(&with(&elsewhere), Ok(saved.path())).unwrap_err().ends_with("fits profile tool"));
        assert!(
            answer(&with(&results.join("../../s1/tool-results/mcp-third-lines-1.txt")), Ok(saved.path()))
                .is_err()
        );
    }

    #[test]
    fn a_rule_may_name_the_tool_by_its_servers_name() {
        assert_eq!(own_name("mcp__third__lines", Some("third")), Some("lines"));
        assert_eq!(own_name("mcp__my_srv__get__x", Some("my.srv")), Some("get__x"));
        assert_eq!(own_name("mcp__a__b", None), Some("b"));
        assert_eq!(own_name("Read", None), None);
    }
}
