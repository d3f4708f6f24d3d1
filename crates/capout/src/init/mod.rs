//! `capout init HARNESS [--project | --user] [--mcp] [--uninstall]
//! [--dry-run]`: writes capout into a harness's own configuration.
//!
//! Each file is merged key by key (the others keep their order), written
//! atomically (a temporary file beside it, renamed over it) after a
//! backup of what was there (`FILE.capout-backup`), and given back byte
//! for byte by `--uninstall` when nothing else changed it in between.

use std::ffi::OsString;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::{Map, Value};

use crate::exit::Exit;

pub mod claude_code;
pub mod codex;
pub mod gemini;
pub mod opencode;
mod toml;

/// Where the configuration goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The user's own settings (the default).
    User,
    /// The settings of the project in the working directory.
    Project,
}

/// The options of `capout init`.
#[derive(Debug)]
pub struct Options {
    /// The harness to set up.
    pub harness: String,
    /// Where.
    pub scope: Scope,
    /// Also the MCP server.
    pub mcp: bool,
    /// Take capout out again.
    pub uninstall: bool,
    /// Print the change as a diff, write nothing.
    pub dry_run: bool,
}

/// One file's change: what capout sets in it, key path by key path.
pub struct Edit {
    /// The file.
    pub path: PathBuf,
    /// Each key path (objects made as needed) and the value capout puts there.
    pub entries: Vec<(Vec<String>, Value)>,
    /// A symbolic link made beside it (its path, and where it points).
    pub link: Option<(PathBuf, PathBuf)>,
}

/// `capout init ...`, its arguments after `init`.
pub fn main(args: &[OsString]) -> ExitCode {
    let opts = match parse(args) {
        Ok(opts) => opts,
        Err(e) => {
            let _ = writeln!(
                io::stderr(),
                "capout: init: {e}\nusage: capout init {} [--project | --user] [--mcp] [--uninstall] [--dry-run]",
                crate::hook::HARNESSES.join(" | ")
            );
            return Exit::Usage.into();
        }
    };
    match run(&opts, &mut io::stdout()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(io::stderr(), "capout: init: {e}");
            Exit::Failure.into()
        }
    }
}

/// The options, from the words after `init`.
pub fn parse(args: &[OsString]) -> Result<Options, String> {
    let mut harness = None;
    let mut opts =
        Options { harness: String::new(), scope: Scope::User, mcp: false, uninstall: false, dry_run: false };
    let mut scopes = 0;
    for arg in args {
        match arg.to_str() {
            Some("--user") => (opts.scope, scopes) = (Scope::User, scopes + 1),
            Some("--project") => (opts.scope, scopes) = (Scope::Project, scopes + 1),
            Some("--mcp") => opts.mcp = true,
            Some("--uninstall") => opts.uninstall = true,
            Some("--dry-run") => opts.dry_run = true,
            Some(name) if !name.starts_with('-') && harness.is_none() => harness = Some(name.to_owned()),
            _ => return Err(format!("unexpected argument '{}'", arg.to_string_lossy())),
        }
    }
    if scopes > 1 {
        return Err("give --project or --user, not both".into());
    }
    opts.harness = harness.ok_or_else(|| format!("name a harness: {}", crate::hook::HARNESSES.join(", ")))?;
    Ok(opts)
}

/// Carries out `opts`, telling `out` what it did.
pub fn run(opts: &Options, out: &mut dyn Write) -> Result<(), String> {
    let capout = std::env::current_exe().map_err(|e| format!("cannot find capout's own path: {e}"))?;
    let capout = capout.to_str().ok_or("capout's own path is not valid UTF-8")?.to_owned();
    let edits = match opts.harness.as_str() {
        "claude-code" => claude_code::edits(opts, &capout, &home()?)?,
        "codex" => codex::edits(opts, &capout, &home()?),
        "gemini" => return gemini::run(opts, &capout, &home()?, out),
        "opencode" => opencode::opencode(opts, &capout, &home()?, out)?,
        other => {
            return Err(format!("unknown harness '{other}' (known: {})", crate::hook::HARNESSES.join(", ")));
        }
    };
    for edit in &edits {
        apply(edit, opts, out)?;
    }
    Ok(())
}

fn home() -> Result<PathBuf, String> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .ok_or_else(|| "HOME is not set".into())
}

/// The backup of `path`.
pub fn backup_of(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".capout-backup");
    PathBuf::from(name)
}

pub(crate) fn read(path: &Path) -> Result<Option<String>, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

/// The text of a file after capout's entries were set in `before`.
pub fn install(before: Option<&str>, edit: &Edit) -> Result<String, String> {
    if toml::is_toml(&edit.path) {
        return toml::install(before, edit);
    }
    let mut root = parse_object(before, &edit.path)?;
    for (keys, value) in &edit.entries {
        let (last, parents) = keys.split_last().ok_or("an empty key path")?;
        if last == APPEND {
            append(&mut root, parents, value, &edit.path)?;
            continue;
        }
        let mut map = &mut root;
        for k in parents {
            let entry = map.entry(k.clone()).or_insert_with(|| Value::Object(Map::new()));
            map = entry
                .as_object_mut()
                .ok_or_else(|| format!("{}: '{k}' is not an object", edit.path.display()))?;
        }
        // Another program's shell prefix is the user's: never replaced.
        if let Some(old) = map.get(last).filter(|old| *old != value)
            && last == "CLAUDE_CODE_SHELL_PREFIX"
            && !old.as_str().is_some_and(|s| s.ends_with(crate::hook::claude_code::PREFIX_NAME))
        {
            return Err(format!(
                "{}: {} is already set to {old}; capout leaves it",
                edit.path.display(),
                keys.join(".")
            ));
        }
        map.insert(last.clone(), value.clone());
    }
    render(&root)
}

/// The last key of an entry that goes into a list (a harness's list of
/// hooks) beside the user's own, rather than at a key of its own.
pub const APPEND: &str = "[]";

/// Whether an element of a list is capout's: a string in it runs
/// `capout hook HARNESS`.
fn is_ours(value: &Value) -> bool {
    match value {
        Value::String(s) => s.contains("capout") && s.split_whitespace().rev().nth(1) == Some("hook"),
        Value::Array(items) => items.iter().any(is_ours),
        Value::Object(map) => map.values().any(is_ours),
        _ => false,
    }
}

/// Puts `value` at the end of the list at `keys` (made as needed), in
/// place of capout's own elements there (capout may have moved).
fn append(root: &mut Map<String, Value>, keys: &[String], value: &Value, path: &Path) -> Result<(), String> {
    let (list, parents) = keys.split_last().ok_or("an empty key path")?;
    let mut map = root;
    for k in parents {
        let entry = map.entry(k.clone()).or_insert_with(|| Value::Object(Map::new()));
        map = entry.as_object_mut().ok_or_else(|| format!("{}: '{k}' is not an object", path.display()))?;
    }
    let items = map.entry(list.clone()).or_insert_with(|| Value::Array(Vec::new()));
    let items = items.as_array_mut().ok_or_else(|| format!("{}: '{list}' is not a list", path.display()))?;
    if items.iter().filter(|item| is_ours(item)).eq([value]) {
        return Ok(());
    }
    items.retain(|item| !is_ours(item));
    items.push(value.clone());
    Ok(())
}

/// The text of a file after capout's entries were taken out of `before`
/// (objects left empty by that removed too).
pub fn remove(before: &str, edit: &Edit) -> Result<String, String> {
    if toml::is_toml(&edit.path) {
        return toml::remove(before, edit);
    }
    let mut root = parse_object(Some(before), &edit.path)?;
    for (keys, _) in &edit.entries {
        remove_path(&mut root, keys);
    }
    render(&root)
}

fn remove_path(map: &mut Map<String, Value>, keys: &[String]) {
    match keys {
        [] => {}
        [last] => {
            map.shift_remove(last);
        }
        [first, last] if last == APPEND => {
            if let Some(Value::Array(items)) = map.get_mut(first) {
                items.retain(|item| !is_ours(item));
                if items.is_empty() {
                    map.shift_remove(first);
                }
            }
        }
        [first, rest @ ..] => {
            if let Some(Value::Object(inner)) = map.get_mut(first) {
                remove_path(inner, rest);
                if inner.is_empty() {
                    map.shift_remove(first);
                }
            }
        }
    }
}

fn parse_object(text: Option<&str>, path: &Path) -> Result<Map<String, Value>, String> {
    match text.filter(|t| !t.trim().is_empty()) {
        None => Ok(Map::new()),
        Some(text) => match serde_json::from_str(text) {
            Ok(Value::Object(map)) => Ok(map),
            Ok(_) => Err(format!("{}: not a JSON object", path.display())),
            Err(e) => Err(format!("{}: {e}", path.display())),
        },
    }
}

fn render(root: &Map<String, Value>) -> Result<String, String> {
    let mut text = serde_json::to_string_pretty(root).map_err(|e| e.to_string())?;
    text.push('\n');
    Ok(text)
}

/// Installs or uninstalls one file's entries.
pub(crate) fn apply(edit: &Edit, opts: &Options, out: &mut dyn Write) -> Result<(), String> {
    let path = &edit.path;
    let current = read(path)?;
    let backup = backup_of(path);
    let after: Option<String> = if opts.uninstall {
        let Some(current) = current.as_deref() else {
            let _ = writeln!(out, "{}: not there, nothing to undo", path.display());
            return Ok(());
        };
        // Nothing else changed the file since capout's install: the file
        // as it was before, byte for byte (or no file, if there was none).
        let saved = read(&backup)?;
        if install(saved.as_deref(), edit).ok().as_deref() == Some(current) {
            saved
        } else {
            let removed = remove(current, edit)?;
            let empty = removed.trim().is_empty() || removed == "{}\n";
            (!empty || saved.is_some()).then_some(removed)
        }
    } else {
        Some(install(current.as_deref(), edit)?)
    };
    if !opts.dry_run {
        link(edit, opts.uninstall)?;
    }
    if after == current {
        let _ = writeln!(out, "{}: unchanged", path.display());
        return Ok(());
    }
    if opts.dry_run {
        let (a, b) = (current.as_deref().unwrap_or_default(), after.as_deref().unwrap_or_default());
        let name = path.display().to_string();
        let diff = similar::TextDiff::from_lines(a, b);
        let _ = write!(out, "{}", diff.unified_diff().header(&name, &name));
        return Ok(());
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
    }
    if opts.uninstall {
        match &after {
            Some(text) => write_atomic(path, text)?,
            None => {
                std::fs::remove_file(path).map_err(|e| format!("cannot remove {}: {e}", path.display()))?;
            }
        }
        let _ = std::fs::remove_file(&backup);
        let _ = writeln!(out, "{}: capout taken out", path.display());
    } else {
        // The backup holds the file as it was before capout's first
        // install; a later install keeps it.
        if let (Some(text), false) = (&current, backup.exists()) {
            write_atomic(&backup, text)?;
        }
        write_atomic(path, after.as_deref().unwrap_or_default())?;
        let _ = writeln!(out, "{}: capout set up", path.display());
    }
    Ok(())
}

/// Makes or removes the edit's link: a link of capout's own is replaced
/// (capout may have moved), anything else at that path is left.
fn link(edit: &Edit, uninstall: bool) -> Result<(), String> {
    let Some((path, target)) = &edit.link else { return Ok(()) };
    let ours = std::fs::symlink_metadata(path).ok().map(|m| m.file_type().is_symlink());
    match (ours, uninstall) {
        (Some(false), _) => {
            Err(format!("{} is there and is not capout's link; capout leaves it", path.display()))
        }
        (Some(true), true) => {
            std::fs::remove_file(path).map_err(|e| format!("cannot remove {}: {e}", path.display()))
        }
        (None, true) => Ok(()),
        (_, false) => {
            if std::fs::read_link(path).ok().as_ref() == Some(target) {
                return Ok(());
            }
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
            }
            let _ = std::fs::remove_file(path);
            std::os::unix::fs::symlink(target, path)
                .map_err(|e| format!("cannot make the link {}: {e}", path.display()))
        }
    }
}

/// Writes `text` to a temporary file beside `path` and renames it over
/// `path`, keeping `path`'s permissions: a reader sees the old file or the
/// new, never half of one.
pub(crate) fn write_atomic(path: &Path, text: &str) -> Result<(), String> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let fail = |e: io::Error| format!("cannot write {}: {e}", path.display());
    let mut tmp = tempfile::Builder::new().prefix(".capout-").tempfile_in(dir).map_err(fail)?;
    tmp.write_all(text.as_bytes()).map_err(fail)?;
    if let Ok(meta) = std::fs::metadata(path) {
        tmp.as_file().set_permissions(meta.permissions()).map_err(fail)?;
    }
    tmp.as_file().sync_all().map_err(fail)?;
    tmp.persist(path).map_err(|e| fail(e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit() -> Edit {
        Edit {
            path: PathBuf::from("settings.json"),
            entries: vec![(
                vec!["env".into(), "CLAUDE_CODE_SHELL_PREFIX".into()],
                Value::from("/bin/capout-claude-code"),
            )],
            link: None,
        }
    }

    #[test]
    fn install_keeps_the_other_keys_in_their_order() {
        let before = "{\"model\": \"x\", \"env\": {\"B\": \"1\", \"A\": \"2\"}, \"alpha\": true}";
        assert_eq!(
            install(Some(before), &edit()).unwrap(),
            "{\n  \"model\": \"x\",\n  \"env\": {\n    \"B\": \"1\",\n    \"A\": \"2\",\n    \"CLAUDE_CODE_SHELL_PREFIX\": \"/bin/capout-claude-code\"\n  },\n  \"alpha\": true\n}\n"
        );
    }

    #[test]
    fn install_twice_is_install_once() {
        let once = install(None, &edit()).unwrap();
        assert_eq!(install(Some(&once), &edit()).unwrap(), once);
    }

    #[test]
    fn install_leaves_a_prefix_of_someone_else() {
        let before = r#"{"env": {"CLAUDE_CODE_SHELL_PREFIX": "/usr/bin/logger.sh"}}"#;
        assert_eq!(
            install(Some(before), &edit()).unwrap_err(),
            "settings.json: env.CLAUDE_CODE_SHELL_PREFIX is already set to \"/usr/bin/logger.sh\"; capout leaves it"
        );
    }

    #[test]
    fn remove_takes_out_what_install_put_in() {
        let before = "{\n  \"model\": \"x\"\n}\n";
        let installed = install(Some(before), &edit()).unwrap();
        assert_eq!(remove(&installed, &edit()).unwrap(), before);
    }

    #[test]
    fn uninstall_gives_back_the_bytes_and_removes_a_file_it_made() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        let odd = "{ \"model\":\"x\" ,\n\t\"env\":{} }";
        std::fs::write(&path, odd).unwrap();
        let mut e = edit();
        e.path = path.clone();
        let mut opts = Options {
            harness: "claude-code".into(),
            scope: Scope::User,
            mcp: false,
            uninstall: false,
            dry_run: false,
        };
        let mut out = Vec::new();
        apply(&e, &opts, &mut out).unwrap();
        apply(&e, &opts, &mut out).unwrap();
        assert_ne!(std::fs::read_to_string(&path).unwrap(), odd);
        opts.uninstall = true;
        apply(&e, &opts, &mut out).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), odd);
        assert!(!backup_of(&path).exists());
        let fresh = dir.path().join("new.json");
        e.path = fresh.clone();
        opts.uninstall = false;
        apply(&e, &opts, &mut out).unwrap();
        opts.uninstall = true;
        apply(&e, &opts, &mut out).unwrap();
        assert!(!fresh.exists());
    }

    #[test]
    fn a_hook_goes_beside_the_users_own_hooks_once() {
        let hook = |path: &str| serde_json::json!({"matcher": "Bash", "hooks": [{"type": "command", "command": format!("{path} hook codex")}]});
        let mut e = Edit {
            path: PathBuf::from("hooks.json"),
            entries: vec![(vec!["hooks".into(), "PreToolUse".into(), APPEND.into()], hook("/bin/capout"))],
            link: None,
        };
        let before = r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "audit.sh"}]}]}}"#;
        let once = install(Some(before), &e).unwrap();
        assert_eq!(install(Some(&once), &e).unwrap(), once);
        e.entries[0].1 = hook("'/opt/new place/capout'");
        let moved = install(Some(&once), &e).unwrap();
        assert_eq!(moved.matches("hook codex").count(), 1, "{moved}");
        assert!(moved.contains("audit.sh") && moved.contains("new place"), "{moved}");
        assert_eq!(
            remove(&moved, &e).unwrap(),
            "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"matcher\": \"Bash\",\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"audit.sh\"\n          }\n        ]\n      }\n    ]\n  }\n}\n"
        );
        assert_eq!(remove(&install(None, &e).unwrap(), &e).unwrap(), "{}\n");
    }

    #[test]
    fn dry_run_prints_a_diff_and_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        std::fs::write(&path, "{}\n").unwrap();
        let mut e = edit();
        e.path = path.clone();
        let opts = Options {
            harness: "claude-code".into(),
            scope: Scope::User,
            mcp: false,
            uninstall: false,
            dry_run: true,
        };
        let mut out = Vec::new();
        apply(&e, &opts, &mut out).unwrap();
        let name = path.display();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!(
                "--- {name}\n+++ {name}\n@@ -1 +1,5 @@\n-{{}}\n+{{\n+  \"env\": {{\n+    \"CLAUDE_CODE_SHELL_PREFIX\": \"/bin/capout-claude-code\"\n+  }}\n+}}\n"
            )
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{}\n");
    }
}
