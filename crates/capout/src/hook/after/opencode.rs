//! opencode's `tool.execute.after`: a plugin may change the output of a
//! call in place before the model reads it. The plugin that `capout init
//! opencode --tools` writes hands capout each call but the shell's, as
//! `{"event": "tool.execute.after", "tool": NAME, "mcp": BOOL, "output":
//! ...}`, and puts capout's answer in place of what it names.
//!
//! opencode 1.18.33 hands the plugin an MCP tool's result as the server
//! gave it (`{content: [...]}`), before its own cut (the first 2000 lines
//! or 50 KB, with nothing of a longer line): the answer is `{"content":
//! [...]}`, its text blocks made one that holds the bounded text. A tool
//! of opencode's own has its text in `output`: the answer is `{"output":
//! "..."}`.

use serde_json::{Value, json};

use super::{Input, Kind, Tool};

/// The event's name, as the plugin writes it.
pub const EVENT: &str = "tool.execute.after";

/// Whether `text` is an event of the plugin's `tool.execute.after`.
pub fn is_after(event: &Value) -> bool {
    event.get("event").and_then(Value::as_str) == Some(EVENT)
}

/// The answer to the plugin's event `event`: what to put in the output,
/// or why it is left as it is. `dir` is the private folder the whole
/// output is saved in.
pub fn answer(event: &Value, dir: Result<&std::path::Path, &str>) -> Result<String, String> {
    let name = event.get("tool").and_then(Value::as_str).unwrap_or_default();
    let mcp = event.get("mcp").and_then(Value::as_bool) == Some(true);
    let kind = match name {
        _ if mcp => Kind::Mcp,
        "webfetch" => Kind::WebFetch,
        "bash" => Kind::Shell,
        _ => Kind::Own,
    };
    let tool = Tool { name, own: None, kind };
    let file = crate::profiles::ConfigFile::load().map_err(|e| crate::profiles::strip_error(&e))?;
    let profile = super::profile_for(file.as_ref(), &tool).map_err(|why| format!("left alone: {why}"))?;
    let output = event.get("output").ok_or("left alone: the event has no output")?;
    let cut = |text: &str| {
        super::cut(
            &profile,
            file.as_ref(),
            &Input::Text(text.as_bytes()),
            dir,
            Some(super::Call { harness: "opencode", tool: name }),
        )
        .map(|c| c.map(|c| c.text))
    };
    let reply = if mcp {
        let blocks =
            output.get("content").and_then(Value::as_array).ok_or("left alone: the output has no content")?;
        let text = super::texts(blocks).ok_or("left alone: the output holds no text")?;
        cut(&text)?.map(|t| json!({"content": super::with_text(blocks, &t)}))
    } else {
        let text =
            output.get("output").and_then(Value::as_str).ok_or("left alone: the output is not text")?;
        cut(text)?.map(|t| json!({"output": t}))
    };
    reply
        .map(|r| r.to_string())
        .ok_or_else(|| format!("left alone: the output of {name} fits profile {profile}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(tool: &str, mcp: bool, output: &Value) -> Value {
        json!({"event": EVENT, "tool": tool, "mcp": mcp, "output": output})
    }

    #[test]
    fn an_mcp_result_keeps_its_content_shape_and_a_tools_own_its_output() {
        let dir = tempfile::tempdir().unwrap();
        let long = super::super::tests::lines(100_000);
        let mcp = event(
            "third_lines",
            true,
            &json!({"content": [{"type": "text", "text": long}], "isError": false}),
        );
        let reply: Value = serde_json::from_str(&answer(&mcp, Ok(dir.path())).unwrap()).unwrap();
        let text = reply["content"][0]["text"].as_str().unwrap();
        assert!(text.starts_with(&long[..7990]));
        assert!(text.contains("... (truncated, showing first 8000 chars; full output: "));
        let fetch = event("webfetch", false, &json!({"title": "t", "output": long, "metadata": {}}));
        let reply: Value = serde_json::from_str(&answer(&fetch, Ok(dir.path())).unwrap()).unwrap();
        assert!(reply["output"].as_str().unwrap().starts_with(&long[..7990]));
    }

    #[test]
    fn the_shell_opencodes_own_tools_and_short_results_are_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let long = "x".repeat(20_000);
        assert!(
            answer(&event("bash", false, &json!({"output": long})), Ok(dir.path()))
                .unwrap_err()
                .contains("shell")
        );
        assert!(
            answer(&event("read", false, &json!({"output": long})), Ok(dir.path()))
                .unwrap_err()
                .contains("own tool 'read'")
        );
        assert_eq!(
            answer(
                &event("third_lines", true, &json!({"content": [{"type": "text", "text": "a"}]})),
                Ok(dir.path())
            )
            .unwrap_err(),
            "left alone: the output of third_lines fits profile tool"
        );
        assert!(is_after(&event("x", true, &json!({}))));
        assert!(!is_after(&json!({"tool": "bash"})));
    }
}
