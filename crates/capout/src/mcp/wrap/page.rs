//! `capout_page`, the one tool the proxy adds: a page of a result it
//! saved in this session, as the `read` tool of `capout --mcp` pages a
//! file (numbered lines, the `--head-lines` notice with its next offset),
//! and nothing else.

use std::path::{Component, Path};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Value, json};

use super::notice::{self, PAGE_TOOL};
use super::session::{self, Session};
use crate::mcp::tools::Tools;

/// The tool as tools/list gives it, its description stating the caps of
/// `pager`'s profile `read`, the saved results bounded by `saved_max`.
pub fn tool(pager: &Tools, saved_max: u64) -> Vec<u8> {
    let limit = pager.read_limit();
    let budget = pager.profiles().0.budget;
    json!({
        "name": PAGE_TOOL,
        "description": notice::page_description(limit, budget, saved_max),
        "inputSchema": {
            "type": "object",
            "properties": {
                "path": {
                    "type": "string",
                    "description": "The saved result to read: the path that a notice of a cut result named."
                },
                "offset": {
                    "type": "integer",
                    "minimum": 0,
                    "description": "Lines to skip before the first one shown (default 0). To page on, pass the `next offset` of the notice."
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "description": format!("The most lines to show (default {limit}).")
                }
            },
            "required": ["path"]
        },
        "annotations": { "readOnlyHint": true }
    })
    .to_string()
    .into_bytes()
}

/// The arguments of `capout_page`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    path: String,
    offset: Option<u64>,
    limit: Option<u64>,
}

/// Answers the call `line` (the whole request, of id `id`) on a thread of
/// its own: reading a large saved result holds up no other message.
pub fn answer(session: Arc<Session>, id: Vec<u8>, line: Vec<u8>) {
    let run = move || {
        let result = match page(&session, &line) {
            Ok(text) => json!({ "content": [{ "type": "text", "text": text }], "isError": false }),
            Err(text) => json!({ "content": [{ "type": "text", "text": text }], "isError": true }),
        };
        let _ = session.out.line(|w| w.write_all(&session::result_line(&id, &result)));
    };
    if let Err(e) = std::thread::Builder::new().name("capout-wrap-page".into()).spawn(run) {
        eprintln!("capout: --mcp-wrap: cannot page: {e}");
    }
}

/// The page the call `line` asks for, or the text of its error.
fn page(session: &Session, line: &[u8]) -> Result<String, String> {
    let request: Value = serde_json::from_slice(line).map_err(notice::bad_arguments)?;
    let arguments = request.pointer("/params/arguments").cloned().unwrap_or_else(|| json!({}));
    let args: Args = serde_json::from_value(arguments).map_err(notice::bad_arguments)?;
    if !saved_here(&args.path, &session.dir) {
        return Err(notice::not_saved_here(&args.path, &session.dir));
    }
    if !Path::new(&args.path).exists() {
        return Err(crate::mcp::paths::saved_output_removed(&args.path));
    }
    session.pager.read(&args.path, args.offset.unwrap_or(0), args.limit).map_err(String::from)
}

/// Whether `path` names a file in the folder `dir` by its words: an
/// absolute path, no `..`. (Opening it then follows no symlink out.)
fn saved_here(path: &str, dir: &Path) -> bool {
    let path = Path::new(path);
    path.is_absolute()
        && !path.components().any(|c| c == Component::ParentDir)
        && path.strip_prefix(dir).is_ok_and(|rest| rest.components().count() == 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_file_of_the_folder_is_saved_here() {
        let dir = Path::new("/run/capout-wrap-x");
        assert!(saved_here("/run/capout-wrap-x/capout-a.log", dir));
        assert!(!saved_here("/run/capout-wrap-x", dir));
        assert!(!saved_here("/run/capout-wrap-x/../etc/passwd", dir));
        assert!(!saved_here("/run/capout-wrap-x/a/b", dir));
        assert!(!saved_here("capout-a.log", dir));
        assert!(!saved_here("/etc/passwd", dir));
        assert!(!saved_here("/run/capout-wrap-xy/capout-a.log", dir));
    }
}
