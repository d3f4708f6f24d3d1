//! capout's entries in a TOML file (Codex's `config.toml`), through
//! `toml_edit`: every other key, comment and blank line stays as it was.

use serde_json::Value;
use toml_edit::{Array, DocumentMut, Item, Table};

use super::Entry;
use super::merge::Why;

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
    Ok(doc.to_string())
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
        if remove_path(doc.as_table_mut(), &entry.keys, 0, existed) {
            taken.push(entry.name());
        }
    }
    if taken.is_empty() {
        return Ok((before.to_owned(), taken));
    }
    Ok((doc.to_string(), taken))
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
    fn a_file_that_is_not_toml_is_an_error() {
        assert!(install(Some("a = ["), &[edit()]).is_err());
    }
}
