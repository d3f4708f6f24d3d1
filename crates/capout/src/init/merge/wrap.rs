//! `--wrap-mcp` in a JSON settings file: each stdio MCP server of the
//! user's made to start `capout --mcp-wrap -- PROGRAM ARG...`, by text
//! edits alone. Wrapping replaces the program's string with capout's and
//! puts capout's words, and the program's own string as it was written,
//! just inside the list of arguments; taking capout out moves that
//! string back and cuts the same bytes out, so the file is as it was.

use std::ops::Range;

use serde_json::Value;

use super::super::{Launch, WRAP, is_capout};
use super::{Node, Parser, Shape, Why, cut, find, insert, parse, splice, splice_out};

/// What one server needs, found in `text`.
enum Edit {
    /// Its text edits, in order, apart.
    Spans(Vec<(Range<usize>, String)>),
    /// Its program replaced by capout, then an `args` list of capout's
    /// words and the program added (a server that had none).
    AddArgs { program: Range<usize>, args: Value },
}

/// The text that puts `words` (JSON text each) at the head of the list
/// `list`, whose `[` is just before `open`: on lines of their own where
/// the list has its items so, else on the bracket's line.
fn head(text: &str, open: usize, list: &[Node], words: &[&str]) -> String {
    let Some(first) = list.first() else { return words.join(", ") };
    let gap = &text[open..first.span.start];
    let over_lines = gap.contains('\n') && gap.trim().is_empty();
    let mut out = String::new();
    for w in words {
        if over_lines {
            out.push_str(gap);
            out.push_str(w);
            out.push(',');
        } else {
            out.push_str(w);
            out.push_str(", ");
        }
    }
    out
}

fn string(node: &Node) -> Option<&str> {
    match &node.kind {
        Shape::Str(s) => Some(s),
        _ => None,
    }
}

fn items(node: &Node) -> Option<&[Node]> {
    match &node.kind {
        Shape::Array(items) => Some(items),
        _ => None,
    }
}

/// Whether `items` start with capout's words (after `skip` of them).
fn starts_wrapped(items: &[Node], skip: usize) -> bool {
    items.len() > skip + WRAP.len()
        && items[skip..skip + WRAP.len()].iter().zip(WRAP).all(|(n, w)| string(n) == Some(w))
}

/// The server `server`'s wrapped form: `None` when it is not a stdio
/// server, is capout's own, or is wrapped by `capout` already.
fn wrap_one(text: &str, server: &Node, launch: Launch, capout: &str) -> Option<Edit> {
    let word = Value::from(capout).to_string();
    let get = |key: &str| server.get(key).map(|m| &m.value);
    match launch {
        Launch::CommandArgs => {
            if get("type").is_some_and(|t| string(t) != Some("stdio")) {
                return None;
            }
            let command = get("command")?;
            let program = string(command)?;
            let args = get("args");
            let list = match args {
                Some(a) => Some(items(a)?),
                None => None,
            };
            if is_capout(program) {
                // Wrapped before, maybe by a capout elsewhere: it is moved.
                let wrapped = list.is_some_and(|l| starts_wrapped(l, 0) && string(&l[WRAP.len()]).is_some());
                return (wrapped && program != capout)
                    .then(|| Edit::Spans(vec![(command.span.clone(), word)]));
            }
            let raw = &text[command.span.clone()];
            match (args, list) {
                (Some(args), Some(list)) => {
                    let open = args.span.start + 1;
                    let (w0, w1) = (Value::from(WRAP[0]).to_string(), Value::from(WRAP[1]).to_string());
                    let words = head(text, open, list, &[&w0, &w1, raw]);
                    let mut edits = vec![(command.span.clone(), word), (open..open, words)];
                    edits.sort_by_key(|(r, _)| r.start);
                    Some(Edit::Spans(edits))
                }
                _ => Some(Edit::AddArgs {
                    program: command.span.clone(),
                    args: Value::from(vec![WRAP[0], WRAP[1], program]),
                }),
            }
        }
        Launch::CommandList => {
            if get("type").and_then(string) != Some("local") {
                return None;
            }
            let command = get("command")?;
            let list = items(command)?;
            let program = string(list.first()?)?;
            if is_capout(program) {
                let wrapped = starts_wrapped(list, 1);
                return (wrapped && program != capout)
                    .then(|| Edit::Spans(vec![(list[0].span.clone(), word)]));
            }
            let open = command.span.start + 1;
            let (w0, w1) = (Value::from(WRAP[0]).to_string(), Value::from(WRAP[1]).to_string());
            Some(Edit::Spans(vec![(open..open, head(text, open, list, &[&word, &w0, &w1]))]))
        }
    }
}

/// The text with every stdio server in the object at `keys` wrapped in
/// `capout --mcp-wrap --`, `capout` the word that names capout.
pub fn wrap(text: &str, keys: &[String], launch: Launch, capout: &str) -> Result<String, Why> {
    let mut text = text.to_owned();
    let count = parse(&text)?.and_then(|root| find(&root, keys).map(|n| n.members().len())).unwrap_or(0);
    for i in 0..count {
        let root = parse(&text)?.ok_or("not a JSON object")?;
        let servers = find(&root, keys).ok_or("the servers went missing")?;
        let server = &servers.members()[i].value;
        if !matches!(server.kind, Shape::Object(_)) {
            continue;
        }
        match wrap_one(&text, server, launch, capout) {
            None => {}
            Some(Edit::Spans(edits)) => {
                let edits: Vec<(Range<usize>, &str)> =
                    edits.iter().map(|(r, w)| (r.clone(), w.as_str())).collect();
                text = splice_out(&text, &edits);
            }
            Some(Edit::AddArgs { program, args }) => {
                text = splice(&text, program, &Value::from(capout).to_string());
                let root = parse(&text)?.ok_or("not a JSON object")?;
                let servers = find(&root, keys).ok_or("the servers went missing")?;
                text = insert(&text, &servers.members()[i].value, Some("args"), &args);
            }
        }
    }
    Ok(text)
}

/// Where the first `n` items of the list `list` end, with the comma and
/// the one space after them that [`wrap`] wrote (before the user's own
/// blanks, which it wrote again before each of its items).
fn prefix_end(text: &str, list: &[Node], n: usize) -> usize {
    let end = list[n - 1].span.end;
    if list.len() == n {
        return end;
    }
    let mut p = Parser { text, at: end };
    let _ = p.blank();
    if text.as_bytes().get(p.at) != Some(&b',') {
        return end;
    }
    let after = p.at + 1;
    if text.as_bytes().get(after) == Some(&b' ') { after + 1 } else { after }
}

/// The text with every server in the object at `keys` that runs under
/// `capout --mcp-wrap --` given back its own program and arguments, and
/// the names of those servers. An `args` list left empty goes, unless
/// `existed` says the server had one before capout.
pub fn unwrap(
    text: &str,
    keys: &[String],
    launch: Launch,
    existed: &dyn Fn(&[String]) -> bool,
) -> Result<(String, Vec<String>), Why> {
    let mut text = text.to_owned();
    let mut names = Vec::new();
    let count = parse(&text)?.and_then(|root| find(&root, keys).map(|n| n.members().len())).unwrap_or(0);
    for i in 0..count {
        let root = parse(&text)?.ok_or("not a JSON object")?;
        let servers = find(&root, keys).ok_or("the servers went missing")?;
        let member = &servers.members()[i];
        let get = |key: &str| member.value.get(key).map(|m| &m.value);
        let edits: Vec<(Range<usize>, String)> = match launch {
            Launch::CommandArgs => {
                let (Some(command), Some(args)) = (get("command"), get("args")) else { continue };
                let (Some(program), Some(list)) = (string(command), items(args)) else { continue };
                if !is_capout(program) || !starts_wrapped(list, 0) || string(&list[WRAP.len()]).is_none() {
                    continue;
                }
                let raw = text[list[WRAP.len()].span.clone()].to_owned();
                let open = args.span.start + 1;
                let mut edits = vec![
                    (command.span.clone(), raw),
                    (open..prefix_end(&text, list, WRAP.len() + 1), String::new()),
                ];
                edits.sort_by_key(|(r, _)| r.start);
                edits
            }
            Launch::CommandList => {
                let Some(list) = get("command").and_then(items) else { continue };
                if !list.first().and_then(string).is_some_and(is_capout) || !starts_wrapped(list, 1) {
                    continue;
                }
                let open = get("command").map_or(0, |c| c.span.start + 1);
                vec![(open..prefix_end(&text, list, WRAP.len() + 1), String::new())]
            }
        };
        let name = member.key.clone();
        let edits: Vec<(Range<usize>, &str)> = edits.iter().map(|(r, w)| (r.clone(), w.as_str())).collect();
        text = splice_out(&text, &edits);
        names.push(name.clone());
        if launch == Launch::CommandArgs {
            let mut at: Vec<String> = keys.to_vec();
            at.extend([name, "args".to_owned()]);
            let root = parse(&text)?.ok_or("not a JSON object")?;
            let server = find(&root, &at[..at.len() - 1]).ok_or("the server went missing")?;
            let empty = server.get("args").and_then(|m| items(&m.value)).is_some_and(<[Node]>::is_empty);
            if empty && !existed(&at) {
                let n = server.members().iter().rposition(|m| m.key == "args").unwrap_or(0);
                text = cut(&text, server, n);
            }
        }
    }
    Ok((text, names))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys() -> Vec<String> {
        vec!["mcpServers".to_owned()]
    }

    fn none(_: &[String]) -> bool {
        false
    }

    #[test]
    fn a_stdio_server_runs_under_capout_and_comes_back_to_the_byte() {
        for before in [
            "{\"mcpServers\": {\"third\": {\"command\": \"python3\", \"args\": [\"srv.py\", \"-v\"]}}}",
            "{\n  \"mcpServers\": {\n    \"third\": {\n      \"type\": \"stdio\",\n      \"command\": \"py\\u0074hon3\",\n      \"args\": [\n        \"srv.py\"\n      ],\n      \"env\": {}\n    }\n  }\n}\n",
            "{\"mcpServers\": {\"a\": {\"args\": [ ], \"command\": \"x\"}, \"b\": {\"command\": \"y\", \"args\": [\"1\"]}}}",
            "{\"mcpServers\": {\"a\": {\"command\": \"x\", \"args\": [ \"1\" , \"2\" ]}}}",
        ] {
            let wrapped = wrap(before, &keys(), Launch::CommandArgs, "/opt/capout").unwrap();
            assert_ne!(wrapped, before);
            let value: Value = serde_json::from_str(&wrapped).unwrap();
            for (_, server) in value["mcpServers"].as_object().unwrap() {
                assert_eq!(server["command"], "/opt/capout");
                assert_eq!(server["args"][0], "--mcp-wrap");
                assert_eq!(server["args"][1], "--");
            }
            assert_eq!(wrap(&wrapped, &keys(), Launch::CommandArgs, "/opt/capout").unwrap(), wrapped);
            // What the backup holds tells which lists the user wrote.
            let existed = |keys: &[String]| super::super::has(before, keys);
            let (back, names) = unwrap(&wrapped, &keys(), Launch::CommandArgs, &existed).unwrap();
            assert_eq!(back, before);
            assert!(!names.is_empty());
        }
    }

    #[test]
    fn arguments_over_lines_get_capouts_on_lines_of_their_own() {
        let before =
            "{\n  \"mcpServers\": {\"t\": {\"command\": \"python3\", \"args\": [\n    \"srv.py\"\n  ]}}\n}\n";
        let wrapped = wrap(before, &keys(), Launch::CommandArgs, "capout").unwrap();
        assert_eq!(
            wrapped,
            "{\n  \"mcpServers\": {\"t\": {\"command\": \"capout\", \"args\": [\n    \"--mcp-wrap\",\n    \"--\",\n    \"python3\",\n    \"srv.py\"\n  ]}}\n}\n"
        );
        assert_eq!(unwrap(&wrapped, &keys(), Launch::CommandArgs, &none).unwrap().0, before);
    }

    #[test]
    fn a_server_without_arguments_gets_them_and_loses_them_again() {
        let before = "{\"mcpServers\": {\"third\": {\"command\": \"srv\"}}}";
        let wrapped = wrap(before, &keys(), Launch::CommandArgs, "capout").unwrap();
        assert_eq!(
            wrapped,
            "{\"mcpServers\": {\"third\": {\"command\": \"capout\", \"args\": [\"--mcp-wrap\", \"--\", \"srv\"]}}}"
        );
        assert_eq!(unwrap(&wrapped, &keys(), Launch::CommandArgs, &none).unwrap().0, before);
        // One the user wrote empty stays, when the backup shows it.
        let empty = "{\"mcpServers\": {\"third\": {\"command\": \"srv\", \"args\": []}}}";
        let wrapped = wrap(empty, &keys(), Launch::CommandArgs, "capout").unwrap();
        assert_eq!(unwrap(&wrapped, &keys(), Launch::CommandArgs, &|_| true).unwrap().0, empty);
    }

    #[test]
    fn remote_servers_capouts_own_and_odd_entries_are_left_alone() {
        let before = "{\"mcpServers\": {\"web\": {\"type\": \"http\", \"url\": \"https://x/\"}, \"capout\": \
                      {\"command\": \"/opt/capout\", \"args\": [\"--mcp\"]}, \"n\": 3, \"bad\": {\"command\": 1}}}";
        assert_eq!(wrap(before, &keys(), Launch::CommandArgs, "/opt/capout").unwrap(), before);
        assert_eq!(unwrap(before, &keys(), Launch::CommandArgs, &none).unwrap(), (before.to_owned(), vec![]));
        assert_eq!(wrap("{}", &keys(), Launch::CommandArgs, "capout").unwrap(), "{}");
    }

    #[test]
    fn a_moved_capout_is_followed() {
        let before = "{\"mcpServers\": {\"third\": {\"command\": \"srv\", \"args\": [\"a\"]}}}";
        let old = wrap(before, &keys(), Launch::CommandArgs, "/old/capout").unwrap();
        let new = wrap(&old, &keys(), Launch::CommandArgs, "/new/capout").unwrap();
        assert_eq!(new, old.replace("/old/", "/new/"));
        assert_eq!(unwrap(&new, &keys(), Launch::CommandArgs, &none).unwrap().0, before);
    }

    #[test]
    fn an_opencode_local_server_has_capout_first_in_its_command() {
        let keys = vec!["mcp".to_owned()];
        let before = "{\n  \"mcp\": {\n    \"third\": {\"type\": \"local\", \"command\": [\"python3\", \"srv.py\"]},\n    \"web\": {\"type\": \"remote\", \"url\": \"https://x/\"}\n  }\n}\n";
        let wrapped = wrap(before, &keys, Launch::CommandList, "capout").unwrap();
        assert_eq!(
            wrapped,
            before.replace("[\"python3\"", "[\"capout\", \"--mcp-wrap\", \"--\", \"python3\"")
        );
        assert_eq!(wrap(&wrapped, &keys, Launch::CommandList, "capout").unwrap(), wrapped);
        let (back, names) = unwrap(&wrapped, &keys, Launch::CommandList, &none).unwrap();
        assert_eq!((back.as_str(), names), (before, vec!["third".to_owned()]));
    }
}
