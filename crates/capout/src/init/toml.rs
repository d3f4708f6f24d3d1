//! capout's entries in a TOML file (Codex's `config.toml`), through
//! `toml_edit`: every other key, comment and blank line stays as it was.

use std::path::Path;

use serde_json::Value;
use toml_edit::{Array, DocumentMut, Item, Table};

use super::Edit;

/// Whether `path` is a TOML file.
pub fn is_toml(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "toml")
}

fn parse(text: Option<&str>, path: &Path) -> Result<DocumentMut, String> {
    text.unwrap_or_default().parse::<DocumentMut>().map_err(|e| format!("{}: {e}", path.display()))
}

/// The TOML form of one of capout's values: an object is a table of its own.
fn item(value: &Value) -> Result<Item, String> {
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
pub fn install(before: Option<&str>, edit: &Edit) -> Result<String, String> {
    let mut doc = parse(before, &edit.path)?;
    for (keys, value) in &edit.entries {
        let (last, parents) = keys.split_last().ok_or("an empty key path")?;
        let mut table = doc.as_table_mut();
        for k in parents {
            let entry = table.entry(k).or_insert_with(|| {
                let mut t = Table::new();
                // `[a.b]` alone, without an empty `[a]` above it.
                t.set_implicit(true);
                Item::Table(t)
            });
            table = entry
                .as_table_mut()
                .ok_or_else(|| format!("{}: '{k}' is not a table", edit.path.display()))?;
        }
        let new = item(value).map_err(|e| format!("{}: {e}", edit.path.display()))?;
        let same = table.get(last).is_some_and(|old| old.to_string() == new.to_string());
        if !same {
            table.insert(last, new);
        }
    }
    Ok(doc.to_string())
}

/// The text of the file after capout's entries were taken out of `before`
/// (tables left empty by that removed too).
pub fn remove(before: &str, edit: &Edit) -> Result<String, String> {
    let mut doc = parse(Some(before), &edit.path)?;
    for (keys, _) in &edit.entries {
        remove_path(doc.as_table_mut(), keys);
    }
    Ok(doc.to_string())
}

fn remove_path(table: &mut Table, keys: &[String]) {
    match keys {
        [] => {}
        [last] => {
            table.remove(last);
        }
        [first, rest @ ..] => {
            if let Some(inner) = table.get_mut(first).and_then(Item::as_table_mut) {
                remove_path(inner, rest);
                if inner.is_empty() {
                    table.remove(first);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn edit() -> Edit {
        Edit {
            path: PathBuf::from("config.toml"),
            entries: vec![(
                vec!["mcp_servers".into(), "capout".into()],
                serde_json::json!({"command": "/bin/capout", "args": ["--mcp"]}),
            )],
            link: None,
        }
    }

    const BEFORE: &str =
        "# my settings\nmodel = \"o3\"  # the best\n\n[mcp_servers.other]\ncommand = \"x\"\n";

    #[test]
    fn install_keeps_comments_and_other_tables() {
        assert_eq!(
            install(Some(BEFORE), &edit()).unwrap(),
            "# my settings\nmodel = \"o3\"  # the best\n\n[mcp_servers.other]\ncommand = \"x\"\n\n[mcp_servers.capout]\ncommand = \"/bin/capout\"\nargs = [\"--mcp\"]\n"
        );
    }

    #[test]
    fn install_twice_is_install_once_and_remove_undoes_it() {
        let once = install(Some(BEFORE), &edit()).unwrap();
        assert_eq!(install(Some(&once), &edit()).unwrap(), once);
        assert_eq!(remove(&once, &edit()).unwrap(), BEFORE);
        assert_eq!(
            install(None, &edit()).unwrap(),
            "[mcp_servers.capout]\ncommand = \"/bin/capout\"\nargs = [\"--mcp\"]\n"
        );
        assert_eq!(remove(&install(None, &edit()).unwrap(), &edit()).unwrap(), "");
    }

    #[test]
    fn a_file_that_is_not_toml_is_an_error() {
        assert!(install(Some("a = ["), &edit()).unwrap_err().starts_with("config.toml: "));
    }
}
