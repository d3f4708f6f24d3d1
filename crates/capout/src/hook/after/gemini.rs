//! Gemini CLI's `AfterTool`. Of what its hooks may answer (Gemini CLI
//! 0.61.0), `decision: "deny"` replaces the result with its `reason` but
//! as an error (`Tool result blocked: ...`, the call failed),
//! `additionalContext` only adds to it; `tailToolCallRequest` runs
//! another tool at once, whose result replaces the call's own, under the
//! call's own name. So the bounded output is written to a file, and the
//! answer is a tail call of Gemini CLI's own `read_file` on it: the model
//! reads the bounded output, in the call's result, as a success.
//!
//! `read_file` reads only the workspace and the project's temporary
//! folder (`~/.gemini/tmp/PROJECT`), shows a text file as it is up to
//! 2000 lines of 2000 characters each, and cuts longer lines. The file,
//! and the whole output that its notice names, are written in a private
//! folder of that project's (`capout`, 0700), where the model's
//! `read_file` can page the whole; the file is written so that no line of
//! it is cut: a JSON document's lines are broken between its values
//! (JSON still, and the same JSON), any other line longer than that is
//! cut as `--max-line-chars` cuts it.
//!
//! Gemini CLI gives the model an MCP tool's text, and a fetched page,
//! inside `<untrusted_context>` and `</untrusted_context>`: the hook
//! bounds what is inside, and the file holds it inside them again.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{Input, Kind, Tool};

/// The tool that reads the bounded output back: Gemini CLI's own.
pub const READ_FILE: &str = "read_file";

/// The longest line `read_file` shows whole.
const READ_LINE: usize = 2000;

/// Where a line of a JSON document is broken, once it is this long.
const JSON_LINE: usize = 1000;

const OPEN: &str = "<untrusted_context>\n";
const CLOSE: &str = "\n</untrusted_context>";
const ESCAPED_CLOSE: &str = "&lt;/untrusted_context&gt;";

/// The hook's answer to the `AfterTool` event `text`, `gemini_dir` the
/// user's Gemini CLI folder (`~/.gemini`): the tail call as Gemini CLI
/// reads it, or why the output is left as it is.
pub fn answer(text: &str, gemini_dir: &Path) -> Result<String, String> {
    let event: Value = serde_json::from_str(text).map_err(|e| format!("not a hook event: {e}"))?;
    let field = |name: &str| event.get(name).and_then(Value::as_str).unwrap_or_default();
    if field("hook_event_name") != "AfterTool" {
        return Err(format!("left alone: event '{}'", field("hook_event_name")));
    }
    let name = field("tool_name");
    let mcp = event.get("mcp_context").filter(|c| c.is_object());
    let own = mcp.and_then(|c| c.get("tool_name")).and_then(Value::as_str);
    let kind = match name {
        _ if mcp.is_some() => Kind::Mcp,
        "web_fetch" => Kind::WebFetch,
        "run_shell_command" => Kind::Shell,
        _ => Kind::Own,
    };
    let tool = Tool { name, own, kind };
    let file = crate::profiles::ConfigFile::load().map_err(|e| crate::profiles::strip_error(&e))?;
    let profile = super::profile_for(file.as_ref(), &tool).map_err(|why| format!("left alone: {why}"))?;
    let response = event.get("tool_response").ok_or("left alone: the event has no tool_response")?;
    if response.get("error").is_some_and(|e| !e.is_null()) {
        return Err("left alone: the call failed".into());
    }
    let (output, wrapped) = output(response.get("llmContent").unwrap_or(&Value::Null))?;
    let folder = folder(field("transcript_path"), gemini_dir)?;
    let dir = crate::hook::private_dir(folder.clone()).map_err(|e| format!("left alone: {e}"))?;
    let call = super::Call { harness: "gemini", tool: name };
    let Some(cut) =
        super::cut(&profile, file.as_ref(), &Input::Text(output.as_bytes()), Ok(&dir), Some(call))?
    else {
        return Err(format!("left alone: the output of {name} fits profile {profile}"));
    };
    let mut view = fit_lines(&cut.text);
    if wrapped {
        view = format!("{OPEN}{}{CLOSE}", view.replace("</untrusted_context>", ESCAPED_CLOSE));
    }
    let path =
        write_view(&dir, &view).map_err(|e| format!("left alone: cannot write the bounded output: {e}"))?;
    let path = path.to_str().ok_or("left alone: the folder's path is not valid UTF-8")?;
    let out = json!({"hookSpecificOutput": {"hookEventName": "AfterTool",
        "tailToolCallRequest": {"name": READ_FILE, "args": {"file_path": path}}}});
    Ok(out.to_string())
}

/// The text of `content` (a string, or parts that are all text), with
/// the `<untrusted_context>` around each part taken off; and whether
/// there was one.
fn output(content: &Value) -> Result<(String, bool), String> {
    let parts: Vec<&str> = match content {
        Value::String(s) => vec![s],
        Value::Array(parts) => parts
            .iter()
            .map(|p| {
                p.get("text").and_then(Value::as_str).filter(|_| p.as_object().is_some_and(|o| o.len() == 1))
            })
            .collect::<Option<_>>()
            .ok_or("left alone: the output holds parts that are not text")?,
        Value::Object(o) if o.len() == 1 && o.get("text").is_some_and(Value::is_string) => {
            vec![o["text"].as_str().unwrap_or_default()]
        }
        _ => return Err("left alone: the output is not text".into()),
    };
    let mut text = String::new();
    let mut wrapped = !parts.is_empty();
    for (i, part) in parts.iter().enumerate() {
        let inner = part.strip_prefix(OPEN).and_then(|p| p.strip_suffix(CLOSE));
        wrapped &= inner.is_some();
        if i > 0 && !text.ends_with('\n') {
            text.push('\n');
        }
        match inner {
            Some(inner) => text.push_str(&inner.replace(ESCAPED_CLOSE, "</untrusted_context>")),
            None => text.push_str(part),
        }
    }
    if !wrapped {
        text = parts.join("\n");
    }
    Ok((text, wrapped))
}

/// The project's temporary folder of Gemini CLI, where `read_file` may
/// read: the one that holds the session's transcript (`~/.gemini/tmp/
/// PROJECT/chats/...`), and only when it is one of `gemini_dir`'s.
fn folder(transcript: &str, gemini_dir: &Path) -> Result<PathBuf, String> {
    let transcript = Path::new(transcript);
    let project = transcript.parent().and_then(Path::parent).filter(|p| {
        transcript.parent().and_then(Path::file_name).is_some_and(|n| n == "chats")
            && super::directly_in(p, &gemini_dir.join("tmp"))
    });
    project.map(|p| p.join("capout")).ok_or_else(|| {
        format!(
            "left alone: the transcript {} is not in a project folder of {}, where read_file may read",
            transcript.display(),
            gemini_dir.join("tmp").display()
        )
    })
}

/// `text` with no line longer than `read_file` shows whole: a JSON
/// document (all of `text` but its last line, the notice) broken between
/// its values, any other long line cut with the line cap's marker.
fn fit_lines(text: &str) -> String {
    if text.lines().all(|l| l.chars().count() <= READ_LINE) {
        return text.to_owned();
    }
    let body = text.trim_end_matches('\n');
    if let Some((document, notice)) = body.rsplit_once('\n')
        && serde_json::from_str::<serde::de::IgnoredAny>(document).is_ok()
    {
        let rest = &text[document.len()..];
        debug_assert!(rest.trim_start_matches('\n').starts_with(notice));
        return cut_lines(&format!("{}{rest}", break_json(document)));
    }
    cut_lines(text)
}

/// Each line of `text` longer than `read_file` shows whole, cut to its
/// first characters and the line cap's marker.
fn cut_lines(text: &str) -> String {
    const KEPT: usize = READ_LINE - 100;
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let (body, end) = line.strip_suffix('\n').map_or((line, ""), |b| (b, "\n"));
        if body.char_indices().nth(READ_LINE).is_none() {
            out.push_str(line);
        } else {
            let at = body.char_indices().nth(KEPT).map_or(body.len(), |(i, _)| i);
            out.push_str(&body[..at]);
            out.push_str(" ... (line truncated to ");
            out.push_str(&KEPT.to_string());
            out.push_str(" chars)");
            out.push_str(end);
        }
    }
    out
}

/// The JSON `document` with a line end after a `,`, `[` or `{` outside
/// its strings wherever its line has grown to [`JSON_LINE`] characters:
/// the same JSON, in lines `read_file` shows whole (unless one string
/// is longer than they are).
fn break_json(document: &str) -> String {
    let mut out = String::with_capacity(document.len() + document.len() / JSON_LINE);
    let (mut in_string, mut escaped, mut line) = (false, false, 0usize);
    for c in document.chars() {
        out.push(c);
        line = if c == '\n' { 0 } else { line + 1 };
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
        } else if c == '"' {
            in_string = true;
        } else if matches!(c, ',' | '[' | '{') && line >= JSON_LINE {
            out.push('\n');
            line = 0;
        }
    }
    out
}

/// Writes `view` to a new file in `dir`, kept for `read_file`.
fn write_view(dir: &Path, view: &str) -> std::io::Result<PathBuf> {
    let mut file =
        tempfile::Builder::new().prefix("capout-view-").suffix(".txt").rand_bytes(6).tempfile_in(dir)?;
    file.write_all(view.as_bytes())?;
    let (_, path) = file.keep().map_err(|e| e.error)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// An `AfterTool` event of an MCP tool as Gemini CLI 0.61.0 sends it,
    /// in the home `home`.
    fn event(home: &Path, tool: &str, content: &Value) -> String {
        // Gemini CLI has made the project's folder by the time a tool runs.
        std::fs::create_dir_all(home.join(".gemini/tmp/proj/chats")).unwrap();
        json!({
            "session_id": "7ec74199-bff1-4a10-b18d-00bb08d6965b",
            "transcript_path": home.join(".gemini/tmp/proj/chats/session-2026-12-03T17-29-7ec74199.jsonl"),
            "cwd": home.join("proj"), "hook_event_name": "AfterTool", "timestamp": "2026-12-03T17:29:15.082Z",
            "tool_name": tool, "tool_input": {"n": 5},
            "tool_response": {"llmContent": content, "returnDisplay": "line 1\n"},
            "mcp_context": {"server_name": "third", "tool_name": "lines", "command": "python3", "args": ["srv.py"]}
        })
        .to_string()
    }

    fn wrap(text: &str) -> String {
        format!("{OPEN}{text}{CLOSE}")
    }

    fn view_of(answer: &str) -> (PathBuf, String) {
        let out: Value = serde_json::from_str(answer).unwrap();
        let call = &out["hookSpecificOutput"]["tailToolCallRequest"];
        assert_eq!(call["name"], READ_FILE);
        let path = PathBuf::from(call["args"]["file_path"].as_str().unwrap());
        let text = std::fs::read_to_string(&path).unwrap();
        (path, text)
    }

    #[test]
    fn a_long_mcp_output_is_read_back_bounded_inside_its_untrusted_context() {
        let home = tempfile::tempdir().unwrap();
        let long = super::super::tests::lines(100_000);
        let content = json!([{"text": wrap(&long)}]);
        let (path, view) = view_of(
            &answer(&event(home.path(), "mcp_third_lines", &content), &home.path().join(".gemini")).unwrap(),
        );
        let dir = home.path().join(".gemini/tmp/proj/capout");
        assert_eq!(path.parent(), Some(dir.as_path()));
        assert_eq!(std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777, 0o700);
        let inner = view.strip_prefix(OPEN).unwrap().strip_suffix(CLOSE).unwrap();
        let (kept, notice) = inner.trim_end().rsplit_once('\n').unwrap();
        assert_eq!(kept, long[..8000].trim_end_matches('\n'));
        let saved = notice.strip_prefix("... (truncated, showing first 8000 chars; full output: ").unwrap();
        let saved = Path::new(saved.strip_suffix(')').unwrap());
        assert_eq!(saved.parent(), Some(dir.as_path()));
        assert_eq!(std::fs::read_to_string(saved).unwrap(), long);
    }

    #[test]
    fn a_json_document_is_broken_into_lines_read_file_shows_whole_and_stays_the_same_json() {
        let home = tempfile::tempdir().unwrap();
        let items: Vec<String> =
            (0..20_000).map(|i| format!("{{\"id\": {i}, \"name\": \"item {i}\"}}")).collect();
        let doc = format!("{{\"items\": [{}]}}", items.join(", "));
        let content = json!([{"text": wrap(&doc)}]);
        let (_, view) = view_of(
            &answer(&event(home.path(), "mcp_third_json_document", &content), &home.path().join(".gemini"))
                .unwrap(),
        );
        let inner = view.strip_prefix(OPEN).unwrap().strip_suffix(CLOSE).unwrap();
        assert!(inner.lines().all(|l| l.len() <= READ_LINE), "{inner}");
        let (document, notice) = inner.trim_end().rsplit_once('\n').unwrap();
        let value: Value = serde_json::from_str(document).unwrap();
        let unbroken = document.replace('\n', "");
        let expected: Value = serde_json::from_str(&unbroken).unwrap();
        assert_eq!(value, expected);
        assert_eq!(value["items"][49]["name"], "item 49");
        assert!(notice.starts_with("... (truncated JSON: kept "), "{notice}");
    }

    #[test]
    fn a_long_line_of_text_is_cut_with_the_line_caps_marker() {
        let text = format!("{}\nshort\n", "é".repeat(5000));
        let fit = fit_lines(&text);
        assert_eq!(fit, format!("{} ... (line truncated to 1900 chars)\nshort\n", "é".repeat(1900)));
        assert_eq!(fit_lines("a\nb\n"), "a\nb\n");
    }

    #[test]
    fn break_json_leaves_strings_whole() {
        let doc = format!("[\"{}\", \"a,b\\\",[\", 1]", "x".repeat(1500));
        let broken = break_json(&doc);
        assert_eq!(broken, format!("[\"{}\",\n \"a,b\\\",[\", 1]", "x".repeat(1500)));
    }

    #[test]
    fn other_tools_failed_calls_and_odd_events_are_left_alone() {
        let home = tempfile::tempdir().unwrap();
        let gemini = home.path().join(".gemini");
        let read = event(home.path(), "read_file", &json!("x".repeat(20_000)))
            .replace(r#""mcp_context""#, r#""no_context""#);
        assert!(
            answer(&read, &gemini).unwrap_err().starts_with("left alone: the harness's own tool 'read_file'")
        );
        let failed = event(home.path(), "mcp_third_lines", &json!("x"))
            .replace(r#""returnDisplay""#, r#""error":{"message":"boom"},"returnDisplay""#);
        assert_eq!(answer(&failed, &gemini).unwrap_err(), "left alone: the call failed");
        let image = json!([{"text": wrap("a")}, {"inlineData": {"data": "AA", "mimeType": "image/png"}}]);
        assert_eq!(
            answer(&event(home.path(), "mcp_third_lines", &image), &gemini).unwrap_err(),
            "left alone: the output holds parts that are not text"
        );
        let elsewhere = event(home.path(), "mcp_third_lines", &json!("x".repeat(20_000)));
        assert!(
            answer(&elsewhere, &home.path().join("other")).unwrap_err().contains("where read_file may read")
        );
        assert!(answer("{", &gemini).unwrap_err().starts_with("not a hook event: "));
    }

    #[test]
    fn the_untrusted_context_is_taken_off_and_given_back_as_gemini_cli_writes_it() {
        let (text, wrapped) =
            output(&json!([{"text": wrap("a &lt;/untrusted_context&gt; b")}, {"text": wrap("c")}])).unwrap();
        assert_eq!((text.as_str(), wrapped), ("a </untrusted_context> b\nc", true));
        let (text, wrapped) = output(&json!("plain")).unwrap();
        assert_eq!((text.as_str(), wrapped), ("plain", false));
    }
}
