//! The proxy's two directions, fed bytes as the server and the client
//! write them, in pieces of every size: what reaches the other side, to
//! the byte.

use std::path::Path;
use std::sync::Arc;

use super::caps::Caps;
use super::out::{Out, Shared};
use super::pending::{Gone, Kind};
use super::reply::Replies;
use super::request::Requests;
use super::session::Session;
use crate::mcp::paths::Roots;
use crate::mcp::tools::Tools;
use crate::profiles::ConfigFile;

/// A session whose default profile is `small` (head 40 characters) unless
/// `config` says otherwise, images over 16 bytes not passed.
struct Proxy {
    session: Arc<Session>,
    out: Shared,
    _dir: tempfile::TempDir,
}

const CONFIG: &str = "[profile.small]\nhead-chars = 40\n[profile.lines]\nhead-lines = 2\n\
                      [tools]\n\"paged_*\" = \"lines\"\n\"raw\" = false\n";

fn proxy() -> Proxy {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().canonicalize().unwrap();
    let file = ConfigFile::parse(Path::new("c.toml"), CONFIG).unwrap();
    let caps = Caps::load(Some(file), "small", &path).unwrap();
    let pager = Tools::new(Roots::new(&path, path.clone(), path.clone())).unwrap();
    let out = Shared::default();
    let mut session = Session::new(caps, path, 1 << 30, pager, Out::new(Box::new(out.clone())), "srv".into());
    session.media_cap = 16;
    Proxy { session: Arc::new(session), out, _dir: dir }
}

impl Proxy {
    fn wait(&self, id: &str, kind: Kind) {
        self.session.pending().insert(id.as_bytes(), kind);
    }

    /// What the client gets of the server's `input`, fed in pieces of
    /// `piece` bytes.
    fn replies(&self, input: &str, piece: usize) -> String {
        let mut replies = Replies::new(Arc::clone(&self.session));
        for chunk in input.as_bytes().chunks(piece.max(1)) {
            replies.feed(chunk).unwrap();
        }
        String::from_utf8(self.out.take()).unwrap()
    }

    /// What the server gets of the client's `input` (and the client).
    fn requests(&self, input: &str, piece: usize) -> (String, String) {
        let mut requests = Requests::new(Arc::clone(&self.session));
        let mut server = Vec::new();
        for chunk in input.as_bytes().chunks(piece.max(1)) {
            requests.feed(chunk, &mut server);
        }
        (String::from_utf8(server).unwrap(), String::from_utf8(self.out.take()).unwrap())
    }

    /// The saved files, by name.
    fn saved(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.session.dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    }
}

/// The replies of `lines` given to a fresh proxy in pieces of every size
/// are all the same; that output, with the waiting requests `waiting`.
fn in_every_piece(lines: &str, waiting: &[(&str, Kind)]) -> String {
    let mut first = None;
    for piece in [lines.len(), 1, 2, 3, 7, 64] {
        let proxy = proxy();
        for (id, kind) in waiting {
            proxy.wait(id, kind.clone());
        }
        let out = proxy.replies(lines, piece);
        // A saved file's name differs from run to run.
        let normal = without_dir(&normalize(&out), &proxy.session.dir);
        match &first {
            None => first = Some((out, normal)),
            Some((_, expected)) => assert_eq!(&normal, expected, "in pieces of {piece}"),
        }
    }
    first.unwrap().0
}

/// `text` with each saved file's name made `capout-X.EXT`.
fn normalize(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("/capout-") {
        let after = &rest[at + 8..];
        let end = after.find(|c: char| !c.is_ascii_alphanumeric()).unwrap_or(after.len());
        out.push_str(&rest[..at]);
        out.push_str("/capout-X");
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// The folder part of the paths in `text`: `DIR`.
fn without_dir(text: &str, proxy_dir: &Path) -> String {
    text.replace(&proxy_dir.display().to_string(), "DIR")
}

fn tool() -> Kind {
    Kind::Tool(Some(0))
}

#[test]
fn a_result_that_fits_passes_byte_for_byte() {
    let lines = concat!(
        r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"short \u00e9 \"q\""}],"isError":false}}"#,
        "\n",
        r#"{"result":{"content":[{"text":"x","type":"text"}],"structuredContent":{"a":1}} , "id" : 2 ,"jsonrpc":"2.0"}"#,
        "\r\n",
    );
    let out = in_every_piece(lines, &[("1", tool()), ("2", tool())]);
    assert_eq!(out, lines);
}

#[test]
fn other_messages_pass_byte_for_byte() {
    let lines = concat!(
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":5}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage","params":{"messages":[]}}"#,
        "\n",
        r#"{"result":{"contents":[{"uri":"file:///x","text":"a long text that is no tool's result at all"}]},"id":3}"#,
        "\n",
        "not json at all\n",
        "\n",
        r#"{"id":1e400,"jsonrpc":"2.0","error":{"code":-1,"message":"no"}}"#,
        "\n",
    );
    // Request 7 of the client's is a tool call: the server's own request
    // 7 is not its answer.
    let out = in_every_piece(lines, &[("3", Kind::Known), ("7", tool())]);
    assert_eq!(out, lines);
}

#[test]
fn a_long_text_is_cut_by_the_profile_and_saved_whole() {
    let text = (1..=30).map(|n| format!("line {n}\n")).collect::<Vec<_>>().concat();
    let encoded = serde_json::to_string(&text).unwrap();
    for (line, before, after) in [
        (
            format!(
                r#"{{"jsonrpc":"2.0","id":5,"result":{{"content":[{{"type":"text","text":{encoded}}}],"isError":false}}}}"#
            ),
            r#"{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"#,
            r#"}],"isError":false}}"#,
        ),
        (
            format!(
                r#"{{"result":{{"content":[{{"type":"text","text":{encoded},"_meta":{{"k":[1]}}}}]}},"jsonrpc":"2.0","id":5}}"#
            ),
            r#"{"result":{"content":[{"type":"text","text":"#,
            r#","_meta":{"k":[1]}}]},"jsonrpc":"2.0","id":5}"#,
        ),
    ] {
        for piece in [line.len(), 1, 5, 13] {
            let proxy = proxy();
            proxy.wait("5", tool());
            let out = proxy.replies(&format!("{line}\n"), piece);
            let names = proxy.saved();
            assert_eq!(names.len(), 1, "{names:?}");
            let saved = proxy.session.dir.join(&names[0]);
            assert_eq!(std::fs::read_to_string(&saved).unwrap(), text);
            let kept = format!(
                "line 1\nline 2\nline 3\nline 4\nline 5\nline \n... (truncated, showing first 40 chars; full output: {})\n",
                saved.display()
            );
            let expected = format!("{before}{}{after}\n", serde_json::to_string(&kept).unwrap());
            assert_eq!(out, expected, "in pieces of {piece}");
        }
    }
}

#[test]
fn blocks_of_text_are_cut_as_one_text() {
    let line = r#"{"id":1,"result":{"content":[{"type":"text","text":"first block of twenty"},{"type":"image","data":"AAAA","mimeType":"image/png"},{"type":"text","text":"second block of text, long"},{"type":"text","text":"third"}]}}"#;
    let proxy = proxy();
    proxy.wait("1", tool());
    let out = proxy.replies(&format!("{line}\n"), 9);
    let out = without_dir(&normalize(&out), &proxy.session.dir);
    let expected = concat!(
        r#"{"id":1,"result":{"content":[{"type":"text","text":"first block of twenty\nsecond block of te\n"#,
        r#"... (truncated, showing first 40 chars; full output: DIR/capout-X.log)\n"},"#,
        r#"{"type":"image","data":"AAAA","mimeType":"image/png"}]}}"#,
        "\n"
    );
    assert_eq!(out, expected);
}

#[test]
fn an_image_over_the_byte_cap_is_one_line_naming_its_file() {
    // 24 bytes: over the cap of 16; the next, 3 bytes, within it.
    let line = r#"{"id":1,"result":{"content":[{"type":"image","data":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYX","mimeType":"image/png"},{"type":"audio","mimeType":"audio/wav","data":"AAEC"},{"type":"resource","resource":{"uri":"file:///big.txt","mimeType":"text/plain","text":"a text of more than sixteen bytes"}}]}}"#;
    let out = normalize(&in_every_piece(&format!("{line}\n"), &[("1", tool())]));
    let (_, path) = out.split_once("full output: ").unwrap();
    let dir = &path[..path.find("/capout-X").unwrap()];
    let expected = concat!(
        r#"{"id":1,"result":{"content":[{"type":"text","text":"(image, 24 bytes, image/png: not shown; full output: DIR/capout-X.png)"},"#,
        r#"{"type":"audio","mimeType":"audio/wav","data":"AAEC"},"#,
        r#"{"type":"text","text":"(resource file:///big.txt, 33 bytes, text/plain: not shown; full output: DIR/capout-X.txt)"}]}}"#,
        "\n"
    );
    assert_eq!(out.replace(dir, "DIR"), expected);
}

#[test]
fn the_saved_image_holds_its_bytes() {
    let proxy = proxy();
    proxy.wait("1", tool());
    let line = r#"{"id":1,"result":{"content":[{"type":"image","data":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYX","mimeType":"image/png"}]}}"#;
    let _ = proxy.replies(&format!("{line}\n"), 4);
    let names = proxy.saved();
    assert_eq!(names.len(), 1);
    assert_eq!(Path::new(&names[0]).extension().unwrap(), "png");
    assert_eq!(std::fs::read(proxy.session.dir.join(&names[0])).unwrap(), (0..24).collect::<Vec<u8>>());
}

#[test]
fn structured_content_that_does_not_fit_keeps_its_shape() {
    let long = "x".repeat(1200);
    for (line, expected) in [
        // As MCPServer gives a tool's text: the text, and the same in
        // `{"result": ...}` for its output schema.
        (
            format!(r#"{{"id":1,"result":{{"content":[],"structuredContent":{{"result":"{long}"}},"isError":false}}}}"#),
            format!(
                r#"{{"id":1,"result":{{"content":[],"structuredContent":{{"result":"{}…[+200 chars]"}},"isError":false}}}}"#,
                "x".repeat(1000)
            ),
        ),
        (
            format!(r#"{{"id":1,"result":{{"structuredContent":{{"items":[1,2,3,{}],"n":20}}}}}}"#, "40000,".repeat(9) + "9"),
            r#"{"id":1,"result":{"structuredContent":{"items":[1,2,3,40000,40000,40000,40000,40000],"n":20}}}"#.to_owned(),
        ),
        (
            r#"{"id":1,"result":{"content":[],"structuredContent":{"a":1}}}"#.to_owned(),
            r#"{"id":1,"result":{"content":[],"structuredContent":{"a":1}}}"#.to_owned(),
        ),
    ] {
        let out = in_every_piece(&format!("{line}\n"), &[("1", tool())]);
        assert_eq!(out, format!("{expected}\n"), "{line}");
    }
}

#[test]
fn each_tool_is_cut_by_the_profile_its_rule_names() {
    let text = (1..=5).map(|n| format!("l{n}\n")).collect::<Vec<_>>().concat();
    let line = format!(
        r#"{{"id":1,"result":{{"content":[{{"type":"text","text":{}}}]}}}}"#,
        serde_json::to_string(&text).unwrap()
    );
    let proxy = proxy();
    let profile = proxy.session.caps.for_tool("paged_x");
    assert_eq!(proxy.session.caps.for_tool("raw"), None);
    proxy.wait("1", Kind::Tool(profile));
    let out = without_dir(&normalize(&proxy.replies(&format!("{line}\n"), 3)), &proxy.session.dir);
    assert_eq!(
        out,
        "{\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"l1\\nl2\\n... (truncated, showing lines 1-2 of 5, next offset 2; full output: DIR/capout-X.log)\\n\"}]}}\n"
    );
    // A tool left alone passes whole.
    let proxy = self::proxy();
    proxy.wait("1", Kind::Tool(None));
    let long =
        format!(r#"{{"id":1,"result":{{"content":[{{"type":"text","text":"{}"}}]}}}}"#, "x".repeat(100));
    assert_eq!(proxy.replies(&format!("{long}\n"), 3), format!("{long}\n"));
}

#[test]
fn an_answer_whose_id_comes_last_is_cut_as_what_waits_says() {
    let long = "y".repeat(100);
    let line =
        format!(r#"{{"result":{{"content":[{{"type":"text","text":"{long}"}}]}},"jsonrpc":"2.0","id":9}}"#);
    let cut = |waiting: &[(&str, Kind)]| {
        let out = in_every_piece(&format!("{line}\n"), waiting);
        out.contains("(truncated, showing first 40 chars")
    };
    assert!(cut(&[("9", tool())]));
    // Two tools of two profiles wait: each cut is made, the id chooses.
    assert!(cut(&[("9", tool()), ("8", Kind::Tool(Some(1)))]));
    // Another request of a kind unknown waits: the raw bytes are kept
    // whole, and the id still chooses the cut.
    assert!(cut(&[("9", tool()), ("4", Kind::Unknown)]));
    // The answer is that unknown request's: it passes whole.
    let line = line.replace("\"id\":9", "\"id\":4");
    let out = in_every_piece(&format!("{line}\n"), &[("9", tool()), ("4", Kind::Unknown)]);
    assert_eq!(out, format!("{line}\n"));
}

#[test]
fn the_first_page_of_tools_gets_capout_page_once() {
    let proxy = proxy();
    let page = String::from_utf8(proxy.session.page_tool.clone()).unwrap();
    let lines = concat!(
        r#"{"id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}],"nextCursor":"c2"}}"#,
        "\n",
        r#"{"result":{"tools":[ ]},"id":2}"#,
        "\n",
        r#"{"id":3,"result":{"tools":[{"name":"b"}]}}"#,
        "\n",
    );
    let out = in_every_piece(
        lines,
        &[
            ("1", Kind::List { first: true }),
            ("2", Kind::List { first: true }),
            ("3", Kind::List { first: false }),
        ],
    );
    let expected = format!(
        "{{\"id\":1,\"result\":{{\"tools\":[{{\"name\":\"a\",\"inputSchema\":{{\"type\":\"object\"}}}},{page}],\"nextCursor\":\"c2\"}}}}\n\
         {{\"result\":{{\"tools\":[ {page}]}},\"id\":2}}\n\
         {{\"id\":3,\"result\":{{\"tools\":[{{\"name\":\"b\"}}]}}}}\n"
    );
    assert_eq!(out, expected);
}

#[test]
fn a_server_tool_named_capout_page_is_an_error_naming_both() {
    let proxy = proxy();
    proxy.wait("1", Kind::List { first: true });
    proxy.wait("2", tool());
    let out = proxy.replies("{\"id\":1,\"result\":{\"tools\":[{\"name\":\"capout_page\"}]}}\n", 5);
    let message = "capout --mcp-wrap: the server srv has a tool named capout_page, the name of capout's own tool \
                   that pages cut results: the two cannot be told apart (leave the server unwrapped, or rename its tool)";
    let error = |id| {
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"error\":{{\"code\":-32000,\"message\":\"{message}\"}}}}\n"
        )
    };
    assert_eq!(out, format!("{}{}", error(1), error(2)));
    // And every request after it.
    let (server, client) = proxy.requests("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n", 4);
    assert_eq!((server.as_str(), client), ("", error(3)));
}

#[test]
fn requests_reach_the_server_byte_for_byte_and_are_noted() {
    let proxy = proxy();
    let lines = concat!(
        r#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"tools/call","params":{"name":"paged_a","arguments":{"x":"}"}}}"#,
        "\n",
        r#"{"method":"tools/call","params":{"arguments":{"big":[1,2]},"name":"raw"},"jsonrpc":"2.0","id":"s"}"#,
        "\r\n",
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"c"}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#,
        "\n",
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":0,"result":{"role":"assistant"}}"#,
        "\n",
        "garbage\n",
    );
    for piece in [lines.len(), 1, 6] {
        let (server, client) = proxy.requests(lines, piece);
        assert_eq!((server.as_str(), client.as_str()), (lines, ""), "in pieces of {piece}");
        let pending = proxy.session.pending();
        assert_eq!(pending.get(b"123456789012345678901234567890"), Some(Kind::Tool(Some(1))));
        assert_eq!(pending.get(br#""s""#), Some(Kind::Tool(None)));
        assert_eq!(pending.get(b"2"), Some(Kind::List { first: false }));
        assert_eq!(pending.get(b"3"), Some(Kind::List { first: true }));
        assert_eq!(pending.get(b"0"), None);
    }
}

#[test]
fn capout_page_is_answered_by_the_proxy() {
    let proxy = proxy();
    std::fs::write(proxy.session.dir.join("capout-a.log"), "a\nb\nc\n").unwrap();
    let path = proxy.session.dir.join("capout-a.log").display().to_string();
    let call = |id: &str, args: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"capout_page","arguments":{args}}}}}"#
        ) + "\n"
    };
    let answer = |input: String| {
        let (server, client) = proxy.requests(&input, 7);
        assert_eq!(server, "");
        if client.is_empty() { wait_for(&proxy.out) } else { client }
    };
    let answer_of = answer(call("1", &format!(r#"{{"path":"{path}","offset":1,"limit":1}}"#)));
    assert_eq!(
        answer_of,
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"     2\\tb\\n... (truncated, showing lines 2-2 of 3, next offset 2)\\n\"}],\"isError\":false}}\n"
    );
    let refused = answer(call("2", r#"{"path":"/etc/passwd"}"#));
    assert!(refused.contains("is not a result saved in this session"), "{refused}");
    assert!(refused.contains("\"isError\":true"), "{refused}");
    let bad = answer(call("3", r#"{"offset":1}"#));
    assert!(bad.contains("capout_page: missing field `path`"), "{bad}");
}

/// What the client got, once a thread of the proxy's wrote it.
fn wait_for(out: &Shared) -> String {
    for _ in 0..500 {
        let got = out.take();
        if !got.is_empty() {
            return String::from_utf8(got).unwrap();
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("no answer");
}

#[test]
fn once_the_server_is_gone_requests_are_answered_with_why() {
    let proxy = proxy();
    proxy.wait("1", tool());
    proxy.session.fail(&Gone {
        message: "the server srv exited with status 3".into(),
        stderr: Some("oops\nbad".into()),
    });
    let error = |id| {
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"error\":{{\"code\":-32000,\"message\":\"capout --mcp-wrap: the server srv exited with status 3; the last lines of its stderr:\\noops\\nbad\",\"data\":{{\"stderr\":\"oops\\nbad\"}}}}}}\n"
        )
    };
    assert_eq!(String::from_utf8(proxy.out.take()).unwrap(), error("1"));
    let (server, client) = proxy.requests(
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"ping\"}\n",
        3,
    );
    assert_eq!((server.as_str(), client), ("", error("\"x\"")));
}
