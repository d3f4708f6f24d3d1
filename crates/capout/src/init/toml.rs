//! capout's entries in a TOML file (Codex's `config.toml`), through
//! `toml_edit`: every other key, comment and blank line stays as it was.

use serde_json::Value;
use toml_edit::{Array, DocumentMut, Item, Table};

use super::merge::Why;
use super::{Entry, Kind, WRAP, is_capout};

fn parse(text: Option<&str>) -> Result<DocumentMut, Why> {
    let text = text.unwrap_or_default();
    text.parse::<DocumentMut>().map_err(|e| {
        // One line, where toml_edit's own message draws the line in question.
        let at = e.span().map_or(0, |s| s.start).min(text.len());
        let before = text.get(..at).unwrap_or_default();
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        format!("not TOML at line {line} column {column}: {}", e.message().trim_end().replace('\n', "; "))
    })
}

/// The TOML form of one of capout's values: an object is a table of its own.
fn item(value: &Value) -> Result<Item, Why> {
    Ok(match value {
        Value::Object(map) => {
            let mut table = Table::new();
            for (k, v) in map {
                table.insert(k, item(v)?);
            }
            Item::Table(table)
        }
        Value::Array(items) => {
            let mut array = Array::new();
            for v in items {
                match item(v)? {
                    Item::Value(v) => array.push(v),
                    _ => return Err("a list of tables".into()),
                }
            }
            toml_edit::value(array)
        }
        Value::String(s) => toml_edit::value(s.as_str()),
        Value::Bool(b) => toml_edit::value(*b),
        Value::Number(n) => toml_edit::value(n.as_i64().ok_or("a number that is not an integer")?),
        Value::Null => return Err("a null".into()),
    })
}

/// The text of the file after capout's entries were set in `before`.
pub fn install(before: Option<&str>, entries: &[Entry]) -> Result<String, Why> {
    let mut doc = parse(before)?;
    for entry in entries {
        if let Kind::Wrap(_) = entry.kind {
            if let Some(servers) = servers(&mut doc, &entry.keys) {
                wrap(servers, entry.value.as_str().unwrap_or("capout"));
            }
            continue;
        }
        let (last, parents) = entry.keys.split_last().ok_or("an empty key path")?;
        let mut table = doc.as_table_mut();
        for k in parents {
            let entry = table.entry(k).or_insert_with(|| {
                let mut t = Table::new();
                // `[a.b]` alone, without an empty `[a]` above it.
                t.set_implicit(true);
                Item::Table(t)
            });
            table = entry.as_table_mut().ok_or_else(|| format!("'{k}' is not a table"))?;
        }
        let new = item(&entry.value)?;
        let same = table.get(last).is_some_and(|old| old.to_string() == new.to_string());
        if !same {
            table.insert(last, new);
        }
    }
    Ok(keep_bytes(before.unwrap_or_default(), &doc.to_string()))
}

/// `edited` (what `toml_edit` wrote of `original`, changed) with every
/// line it left as it was taken from `original` as it is there:
/// `toml_edit` writes each line end as `\n` and leaves out a byte order
/// mark, and the user's `\r\n` and mark stay. A new line ends as most
/// of the file's do.
fn keep_bytes(original: &str, edited: &str) -> String {
    let body = original.strip_prefix('\u{feff}').unwrap_or(original);
    let normalized = body.replace("\r\n", "\n");
    let lines: Vec<&str> = body.split_inclusive('\n').collect();
    let crlf = body.matches("\r\n").count();
    let nl = if crlf * 2 > body.matches('\n').count() { "\r\n" } else { "\n" };
    let mut out = String::with_capacity(edited.len() + lines.len());
    out.push_str(&original[..original.len() - body.len()]);
    // (Its `\r\n` in a multi-line string it keeps: they are compared as
    // `\n` too.)
    let edited = edited.replace("\r\n", "\n");
    let diff = similar::TextDiff::from_lines(normalized.as_str(), edited.as_str());
    for change in diff.iter_all_changes() {
        match (change.tag(), change.old_index()) {
            (similar::ChangeTag::Equal, Some(i)) if i < lines.len() => out.push_str(lines[i]),
            (similar::ChangeTag::Delete, _) => {}
            _ => {
                let line = change.value();
                match line.strip_suffix('\n') {
                    Some(text) => {
                        out.push_str(text);
                        out.push_str(nl);
                    }
                    None => out.push_str(line),
                }
            }
        }
    }
    out
}

/// What taking capout's entries out of `before` gives: the text and the
/// entries that were there; a table they leave empty goes too, unless
/// `existed` says it was there before capout.
pub fn remove(
    before: &str,
    entries: &[Entry],
    existed: &dyn Fn(&[String]) -> bool,
) -> Result<(String, Vec<String>), Why> {
    let mut doc = parse(Some(before))?;
    let mut taken = Vec::new();
    for entry in entries {
        if let Kind::Wrap(_) = entry.kind {
            let keys = &entry.keys;
            if let Some(servers) = servers(&mut doc, keys)
                && unwrap(servers, &|name| {
                    existed(&[&keys[..], &[name.to_owned(), "args".to_owned()]].concat())
                })
            {
                taken.push(entry.name());
            }
            continue;
        }
        if remove_path(doc.as_table_mut(), &entry.keys, 0, existed) {
            taken.push(entry.name());
        }
    }
    if taken.is_empty() {
        return Ok((before.to_owned(), taken));
    }
    Ok((keep_bytes(before, &doc.to_string()), taken))
}

fn remove_path(
    table: &mut Table,
    keys: &[String],
    depth: usize,
    existed: &dyn Fn(&[String]) -> bool,
) -> bool {
    match &keys[depth..] {
        [] => false,
        [last] => table.remove(last).is_some(),
        [first, ..] => {
            let Some(inner) = table.get_mut(first).and_then(Item::as_table_mut) else { return false };
            let removed = remove_path(inner, keys, depth + 1, existed);
            if removed && inner.is_empty() && !existed(&keys[..=depth]) {
                table.remove(first);
            }
            removed
        }
    }
}

/// The table of MCP servers at `keys`, if there is one.
fn servers<'a>(doc: &'a mut DocumentMut, keys: &[String]) -> Option<&'a mut dyn toml_edit::TableLike> {
    let mut item = doc.as_item_mut();
    for k in keys {
        item = item.get_mut(k)?;
    }
    item.as_table_like_mut()
}

/// Whether `args` starts with capout's words and a program after them.
fn wrapped(args: Option<&toml_edit::Array>) -> bool {
    args.is_some_and(|a| {
        a.len() > WRAP.len()
            && a.iter().zip(WRAP).all(|(v, w)| v.as_str() == Some(w))
            && a.get(WRAP.len()).is_some_and(toml_edit::Value::is_str)
    })
}

/// `value` with the decor (blanks and comments around it) of `old`.
fn dressed_as(mut value: toml_edit::Value, old: &toml_edit::Value) -> toml_edit::Value {
    *value.decor_mut() = old.decor().clone();
    value
}

/// Each stdio server (one with a `command`) of `servers` run under
/// `capout --mcp-wrap --`: `command` is capout, and the program, as it was
/// written, goes after capout's words at the head of `args`.
fn wrap(servers: &mut dyn toml_edit::TableLike, capout: &str) {
    for (_, item) in servers.iter_mut() {
        let Some(server) = item.as_table_like_mut() else { continue };
        let Some(command) = server.get("command").and_then(Item::as_value).filter(|v| v.is_str()).cloned()
        else {
            continue;
        };
        let program = command.as_str().unwrap_or_default();
        if is_capout(program) {
            // Wrapped before, maybe by a capout elsewhere: it is moved.
            if wrapped(server.get("args").and_then(Item::as_array)) && program != capout {
                server.insert("command", Item::Value(dressed_as(capout.into(), &command)));
            }
            continue;
        }
        let mut own = command.clone();
        own.decor_mut().clear();
        if let Some(item) = server.get_mut("args") {
            let Some(args) = item.as_array_mut() else { continue };
            // The user's first argument, tight against the bracket,
            // follows a space after capout's words (and is tight again
            // when they go).
            if let Some(first) = args.get_mut(0)
                && first.decor().prefix().and_then(toml_edit::RawString::as_str) == Some("")
            {
                first.decor_mut().set_prefix(" ");
            }
            for (i, word) in [WRAP[0].into(), WRAP[1].into(), own].into_iter().enumerate() {
                args.insert_formatted(i, word);
            }
            if let Some(first) = args.get_mut(0) {
                first.decor_mut().set_prefix("");
            }
            for i in 1..=WRAP.len() {
                if let Some(word) = args.get_mut(i) {
                    word.decor_mut().set_prefix(" ");
                }
            }
        } else {
            let mut args = Array::new();
            args.extend([WRAP[0].to_owned(), WRAP[1].to_owned()]);
            args.push_formatted(own);
            if let Some(program) = args.get_mut(WRAP.len()) {
                program.decor_mut().set_prefix(" ");
            }
            server.insert("args", toml_edit::value(args));
        }
        server.insert("command", Item::Value(dressed_as(capout.into(), &command)));
    }
}

/// Each server of `servers` that runs under `capout --mcp-wrap --` given
/// back its program and arguments; whether there was one. An `args` left
/// empty goes, unless `existed` says (for the server's name) it was there.
fn unwrap(servers: &mut dyn toml_edit::TableLike, existed: &dyn Fn(&str) -> bool) -> bool {
    let mut any = false;
    for (name, item) in servers.iter_mut() {
        let Some(server) = item.as_table_like_mut() else { continue };
        let Some(command) = server.get("command").and_then(Item::as_value).filter(|v| v.is_str()).cloned()
        else {
            continue;
        };
        if !is_capout(command.as_str().unwrap_or_default()) {
            continue;
        }
        let Some(args) = server.get_mut("args").and_then(Item::as_array_mut) else { continue };
        if !wrapped(Some(args)) {
            continue;
        }
        let mut own = args.get(WRAP.len()).cloned().unwrap_or_else(|| "".into());
        own.decor_mut().clear();
        for _ in 0..=WRAP.len() {
            args.remove(0);
        }
        if let Some(first) = args.get_mut(0)
            && first.decor().prefix().and_then(toml_edit::RawString::as_str) == Some(" ")
        {
            first.decor_mut().set_prefix("");
        }
        let empty = args.is_empty();
        server.insert("command", Item::Value(dressed_as(own, &command)));
        if empty && !existed(name.get()) {
            server.remove("args");
        }
        any = true;
    }
    any
}

/// Whether the table at `keys` is in `text`.
pub fn has(text: &str, keys: &[String]) -> bool {
    let Ok(doc) = parse(Some(text)) else { return false };
    let mut item = doc.as_item();
    for k in keys {
        match item.get(k) {
            Some(i) => item = i,
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit() -> Entry {
        Entry::key(
            &["mcp_servers", "capout"],
            serde_json::json!({"command": "/bin/capout", "args": ["--mcp"]}),
        )
    }

    const BEFORE: &str =
        "# my settings\nmodel = \"o3\"  # the best\n\n[mcp_servers.other]\ncommand = \"x\"\n";

    fn none(_: &[String]) -> bool {
        false
    }

    #[test]
    fn install_keeps_comments_and_other_tables() {
        assert_eq!(
            install(Some(BEFORE), &[edit()]).unwrap(),
            "# my settings\nmodel = \"o3\"  # the best\n\n[mcp_servers.other]\ncommand = \"x\"\n\n[mcp_servers.capout]\ncommand = \"/bin/capout\"\nargs = [\"--mcp\"]\n"
        );
    }

    #[test]
    fn install_twice_is_install_once_and_remove_undoes_it() {
        let once = install(Some(BEFORE), &[edit()]).unwrap();
        assert_eq!(install(Some(&once), &[edit()]).unwrap(), once);
        assert_eq!(remove(&once, &[edit()], &none).unwrap().0, BEFORE);
        assert_eq!(
            install(None, &[edit()]).unwrap(),
            "[mcp_servers.capout]\ncommand = \"/bin/capout\"\nargs = [\"--mcp\"]\n"
        );
        assert_eq!(remove(&install(None, &[edit()]).unwrap(), &[edit()], &none).unwrap().0, "");
        assert_eq!(remove(BEFORE, &[edit()], &none).unwrap(), (BEFORE.to_owned(), Vec::new()));
    }

    #[test]
    fn line_ends_of_crlf_and_a_byte_order_mark_are_kept() {
        for before in [
            "# mine\r\nmodel = \"o3\"\r\n\r\n[tui]\r\ntheme = \"dark\" # kept\r\n",
            "\u{feff}model = 1\n",
            "\u{feff}a = 1\r\nb = \"\"\"x\r\ny\"\"\"\nc = 2\r\n",
        ] {
            let after = install(Some(before), &[edit()]).unwrap();
            assert!(after.starts_with(&before[..before.len() - 1]), "{after:?}");
            if before.contains("\r\n") {
                assert!(
                    after.ends_with(
                        "[mcp_servers.capout]\r\ncommand = \"/bin/capout\"\r\nargs = [\"--mcp\"]\r\n"
                    ),
                    "{after:?}"
                );
            }
            assert_eq!(install(Some(&after), &[edit()]).unwrap(), after);
            assert_eq!(remove(&after, &[edit()], &none).unwrap().0, before, "{after:?}");
        }
    }

    fn wrap_entry(capout: &str) -> Entry {
        Entry {
            keys: vec!["mcp_servers".into()],
            value: capout.into(),
            kind: Kind::Wrap(crate::init::Launch::CommandArgs),
        }
    }

    #[test]
    fn a_codex_stdio_server_runs_under_capout_and_comes_back_to_the_byte() {
        for before in [
            "model = \"o3\"\n\n[mcp_servers.third]\ncommand = \"python3\"  # mine\nargs = [\"srv.py\", '-v' ]\n\n[mcp_servers.web]\nurl = \"https://x/\"\n",
            "[mcp_servers.third]\ncommand = 'srv'\nenv = { A = \"1\" }\n",
            "mcp_servers.third = { command = \"srv\", args = [] }\n",
        ] {
            let wrapped = install(Some(before), &[wrap_entry("/opt/capout")]).unwrap();
            let doc: toml::Table = wrapped.parse().unwrap();
            let third = &doc["mcp_servers"]["third"];
            assert_eq!(third["command"].as_str(), Some("/opt/capout"), "{wrapped}");
            let args = third["args"].as_array().unwrap();
            assert_eq!((args[0].as_str(), args[1].as_str()), (Some("--mcp-wrap"), Some("--")), "{wrapped}");
            assert_eq!(install(Some(&wrapped), &[wrap_entry("/opt/capout")]).unwrap(), wrapped);
            let existed = |keys: &[String]| has(before, keys);
            let (back, taken) = remove(&wrapped, &[wrap_entry("/opt/capout")], &existed).unwrap();
            assert_eq!(back, before, "{wrapped}");
            assert_eq!(taken.len(), 1);
        }
        let moved = install(
            Some(&install(Some("[mcp_servers.a]\ncommand = \"x\"\n"), &[wrap_entry("/old/capout")]).unwrap()),
            &[wrap_entry("/new/capout")],
        )
        .unwrap();
        assert!(moved.starts_with("[mcp_servers.a]\ncommand = \"/new/capout\"\n"), "{moved}");
    }

    #[test]
    fn a_file_that_is_not_toml_is_an_error() {
        assert!(install(Some("a = ["), &[edit()]).is_err());
    }
}
