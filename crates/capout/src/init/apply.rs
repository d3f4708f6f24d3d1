//! The one path that every harness's [`Plan`] goes through: every file
//! read and checked first, then every change written (or, with
//! `--dry-run`, shown), then what changed said file by file.

use std::io::{self, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::{Context, Entry, Error, Scope, merge, toml};

/// One thing that capout puts in a harness's configuration.
#[derive(Debug)]
pub enum Change {
    /// capout's entries in a settings file of the user's (JSON, or TOML
    /// by its extension), beside everything else in it.
    Merge {
        /// The file.
        path: PathBuf,
        /// capout's entries.
        entries: Vec<Entry>,
    },
    /// A file that is capout's alone; its first line starts with `mark`.
    Own {
        /// The file.
        path: PathBuf,
        /// Its text.
        text: String,
        /// How capout knows its own file.
        mark: &'static str,
    },
    /// A symbolic link of capout's own.
    Link {
        /// The link.
        path: PathBuf,
        /// Where it points.
        target: PathBuf,
    },
}

/// What a harness needs, and what to tell the user.
#[derive(Debug)]
pub struct Plan {
    /// The harness's name, as its users know it.
    pub name: &'static str,
    /// The changes, in the order they are written.
    pub changes: Vec<Change>,
    /// Lines said after a setup: what the user must still do.
    pub notes: Vec<String>,
}

/// The backup of `path`: the file as it was before capout's first setup.
pub fn backup_of(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".capout-backup");
    PathBuf::from(name)
}

/// A change, checked and ready to be written.
enum Step {
    File {
        /// The path as the harness names it.
        path: PathBuf,
        /// What it leads to (itself, unless it is a link).
        real: PathBuf,
        before: Option<String>,
        /// The text to write, or `None` to remove the file.
        after: Option<String>,
        /// The backup to write first (the file as it was).
        backup: Option<String>,
        /// Whether the backup goes once this is written.
        drop_backup: bool,
        said: String,
    },
    Link {
        path: PathBuf,
        target: PathBuf,
        /// `Some(target)` to make it, `None` to remove it.
        make: Option<PathBuf>,
        said: String,
    },
    /// Nothing to do; `said` says why.
    Same { path: PathBuf, said: String },
}

impl Step {
    fn changes(&self) -> bool {
        !matches!(self, Step::Same { .. })
    }
}

/// Checks every change of `plan`, then writes them all, telling `out`.
pub fn apply(cx: &Context, plan: &Plan, out: &mut dyn Write) -> Result<(), Error> {
    let steps = plan.changes.iter().map(|c| prepare(cx, c)).collect::<Result<Vec<_>, _>>()?;
    for step in &steps {
        writable(step)?;
    }
    if cx.opts.dry_run {
        for step in &steps {
            let _ = write!(out, "{}", dry(step));
        }
        return Ok(());
    }
    for step in &steps {
        write_step(step)?;
        let _ = writeln!(out, "{}", said(step));
    }
    if cx.opts.uninstall {
        for dir in tidy(cx, &steps) {
            let _ = writeln!(out, "{}: removed, capout made it and it is empty", dir.display());
        }
    }
    summary(cx, plan, steps.iter().any(Step::changes), out);
    Ok(())
}

fn said(step: &Step) -> String {
    match step {
        Step::File { path, said, .. } | Step::Link { path, said, .. } | Step::Same { path, said } => {
            format!("{}: {said}", path.display())
        }
    }
}

/// What `--dry-run` shows of a step: the diff of a file, a line for a link.
fn dry(step: &Step) -> String {
    match step {
        Step::File { path, before, after, .. } => {
            let name = path.display().to_string();
            let (a, b) = (before.as_deref().unwrap_or_default(), after.as_deref().unwrap_or_default());
            let diff = similar::TextDiff::from_lines(a, b);
            let mut text = diff.unified_diff().header(&name, &name).to_string();
            if after.is_none() {
                text = format!("{text}{name}: would be removed\n");
            }
            text
        }
        Step::Link { path, make: Some(target), .. } => {
            format!("{}: would be made, a link to {}\n", path.display(), target.display())
        }
        Step::Link { path, target, make: None, .. } => {
            format!("{}: would be removed, the link to {}\n", path.display(), target.display())
        }
        Step::Same { .. } => format!("{}\n", said(step)),
    }
}

fn summary(cx: &Context, plan: &Plan, changed: bool, out: &mut dyn Write) {
    let name = plan.name;
    let mut flags = String::new();
    if cx.opts.scope == Scope::Project {
        flags.push_str(" --project");
    }
    if cx.opts.mcp {
        flags.push_str(" --mcp");
    }
    if cx.opts.tools {
        flags.push_str(" --tools");
    }
    if cx.opts.wrap_mcp {
        flags.push_str(" --wrap-mcp");
    }
    let h = cx.opts.harness;
    if cx.opts.uninstall {
        if changed {
            let _ = writeln!(out, "capout is taken out of {name}; restart {name} for it to take effect.");
        } else {
            let _ = writeln!(out, "capout was not set up for {name} here: nothing to take out.");
        }
        return;
    }
    if changed {
        let _ = writeln!(out, "capout is set up for {name}; restart {name} for it to take effect.");
    } else {
        let _ = writeln!(out, "capout was set up for {name} already: nothing changed.");
    }
    for note in &plan.notes {
        let _ = writeln!(out, "{note}");
    }
    let _ = writeln!(out, "To undo it: capout init {h}{flags} --uninstall");
}

/// Reads the file at `path` by the config file's rule (a regular file of
/// at most 1 MiB, opened without waiting); `None` when there is none.
fn read(path: &Path) -> Result<Option<String>, Error> {
    match crate::safe_read::read_to_string(path, crate::safe_read::MAX_SIZE) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(Error::Read { path: path.to_owned(), source }),
    }
}

/// Reads capout's backup at `path`, which capout writes as a file of its
/// own: a symbolic link there (to a file or to nothing) is not capout's,
/// and is neither read nor written over.
fn read_backup(path: &Path) -> Result<Option<String>, Error> {
    let bytes = match crate::safe_read::read_no_link(path, crate::safe_read::MAX_SIZE) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(_) if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) => {
            return Err(Error::NotOurs(path.to_owned()));
        }
        Err(source) => return Err(Error::Read { path: path.to_owned(), source }),
    };
    String::from_utf8(bytes).map(Some).map_err(|_| Error::Read {
        path: path.to_owned(),
        source: io::Error::new(io::ErrorKind::InvalidData, "it is not valid UTF-8"),
    })
}

/// Where `path` leads through symbolic links (itself when it is none;
/// a link to nothing leads to the file it names).
fn resolve(path: &Path) -> PathBuf {
    let mut p = path.to_owned();
    for _ in 0..40 {
        let Ok(target) = std::fs::read_link(&p) else { break };
        p = match p.parent() {
            Some(dir) if target.is_relative() => dir.join(target),
            _ => target,
        };
    }
    p
}

/// Refuses a file of the project that leads outside it.
fn inside(cx: &Context, path: &Path) -> Result<(), Error> {
    if cx.opts.scope != Scope::Project || !path.starts_with(&cx.project) {
        return Ok(());
    }
    let root = std::fs::canonicalize(&cx.project).unwrap_or_else(|_| cx.project.clone());
    let resolved = resolve(path);
    // The deepest part that is there, with its folder links resolved.
    let mut there = resolved.as_path();
    let mut rest = Vec::new();
    while std::fs::symlink_metadata(there).is_err() {
        let (Some(parent), Some(name)) = (there.parent(), there.file_name()) else { break };
        rest.push(name);
        there = parent;
    }
    let mut real = std::fs::canonicalize(there).unwrap_or_else(|_| there.to_owned());
    real.extend(rest.iter().rev());
    if real.starts_with(&root) {
        Ok(())
    } else {
        Err(Error::OutsideProject { path: path.to_owned(), target: real })
    }
}

fn is_toml(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "toml")
}

fn install_text(path: &Path, before: Option<&str>, entries: &[Entry]) -> Result<String, Error> {
    let bad = |why| Error::Bad { path: path.to_owned(), why };
    if is_toml(path) { toml::install(before, entries) } else { merge::install(before, entries) }.map_err(bad)
}

type Existed<'a> = &'a dyn Fn(&[String]) -> bool;

fn remove_text(
    path: &Path,
    before: &str,
    entries: &[Entry],
    existed: Existed,
) -> Result<(String, Vec<String>), Error> {
    let bad = |why| Error::Bad { path: path.to_owned(), why };
    if is_toml(path) {
        toml::remove(before, entries, existed)
    } else {
        merge::remove(before, entries, existed)
    }
    .map_err(bad)
}

fn holds_nothing(path: &Path, text: &str) -> bool {
    if is_toml(path) { text.trim().is_empty() } else { merge::is_empty_object(text) }
}

fn has(path: &Path, text: &str, keys: &[String]) -> bool {
    if is_toml(path) { toml::has(text, keys) } else { merge::has(text, keys) }
}

/// Reads what is there and decides what to write.
fn prepare(cx: &Context, change: &Change) -> Result<Step, Error> {
    let uninstall = cx.opts.uninstall;
    match change {
        Change::Merge { path, entries } => {
            inside(cx, path)?;
            let backup_path = backup_of(path);
            inside(cx, &backup_path)?;
            let before = read(path)?;
            let backup = read_backup(&backup_path)?;
            if uninstall {
                uninstall_merge(path, before, backup.as_deref(), entries)
            } else {
                install_merge(path, before, backup.is_some(), entries)
            }
        }
        Change::Own { path, text, mark } => {
            inside(cx, path)?;
            let before = read(path)?;
            let ours = before.as_deref().is_none_or(|b| b.starts_with(mark));
            let same = |said: &str| Ok(Step::Same { path: path.clone(), said: said.to_owned() });
            match (uninstall, &before) {
                (false, _) if !ours => Err(Error::NotOurs(path.clone())),
                (false, Some(b)) if b == text => same("unchanged"),
                (false, _) => Ok(file(
                    path,
                    before.clone(),
                    Some(text.clone()),
                    if before.is_some() {
                        "written again, capout's own file"
                    } else {
                        "written, capout's own file"
                    },
                )),
                (true, None) => same("not there, nothing to take out"),
                (true, Some(_)) if !ours => same("not capout's, left as it is"),
                (true, Some(_)) => Ok(file(path, before, None, "removed, capout's own file")),
            }
        }
        Change::Link { path, target } => {
            if let Some(dir) = path.parent() {
                inside(cx, dir)?;
            }
            let meta = std::fs::symlink_metadata(path).ok();
            let now = meta
                .as_ref()
                .filter(|m| m.file_type().is_symlink())
                .and_then(|_| std::fs::read_link(path).ok());
            let same = |said: &str| Ok(Step::Same { path: path.clone(), said: said.to_owned() });
            match (uninstall, meta.is_some(), now) {
                (_, true, None) if !uninstall => Err(Error::NotOurs(path.clone())),
                (true, true, None) => same("not capout's link, left as it is"),
                (true, false, _) => same("not there, nothing to take out"),
                // A link the user pointed elsewhere since is theirs now.
                (true, true, Some(old)) if &old != target && old.file_name() != Some("capout".as_ref()) => {
                    same("not capout's link (it leads elsewhere), left as it is")
                }
                (true, true, Some(old)) => Ok(Step::Link {
                    path: path.clone(),
                    target: old,
                    make: None,
                    said: "link removed".into(),
                }),
                (false, _, Some(old)) if &old == target => same("unchanged"),
                (false, _, old) => Ok(Step::Link {
                    path: path.clone(),
                    target: target.clone(),
                    make: Some(target.clone()),
                    said: match old {
                        Some(old) => {
                            format!("link made again, to {} (it led to {})", target.display(), old.display())
                        }
                        None => format!("link made, to {}", target.display()),
                    },
                }),
            }
        }
    }
}

fn file(path: &Path, before: Option<String>, after: Option<String>, said: &str) -> Step {
    Step::File {
        path: path.to_owned(),
        real: resolve(path),
        before,
        after,
        backup: None,
        drop_backup: false,
        said: said.to_owned(),
    }
}

fn install_merge(
    path: &Path,
    before: Option<String>,
    has_backup: bool,
    entries: &[Entry],
) -> Result<Step, Error> {
    if before.is_none() && entries.iter().all(|e| matches!(e.kind, super::Kind::Wrap(_))) {
        return Ok(Step::Same {
            path: path.to_owned(),
            said: "not there: no MCP server to run under capout".into(),
        });
    }
    let after = install_text(path, before.as_deref(), entries)?;
    if before.as_deref() == Some(after.as_str()) {
        return Ok(Step::Same { path: path.to_owned(), said: "unchanged".into() });
    }
    // Which entries are new, and which capout had put there before.
    let mut added = Vec::new();
    let mut updated = Vec::new();
    for entry in entries {
        let was = match &before {
            Some(b) => !remove_text(path, b, std::slice::from_ref(entry), &|_| true)?.1.is_empty(),
            None => false,
        };
        let now = install_text(path, before.as_deref(), std::slice::from_ref(entry))?;
        if before.as_deref() != Some(now.as_str()) {
            if was { updated.push(entry.name()) } else { added.push(entry.name()) }
        }
    }
    let mut said = if before.is_none() {
        format!("made, with {}", added.join(", "))
    } else {
        let mut parts = Vec::new();
        if !added.is_empty() {
            parts.push(format!("added {}", added.join(", ")));
        }
        if !updated.is_empty() {
            parts.push(format!("updated {}", updated.join(", ")));
        }
        parts.join("; ")
    };
    // The backup keeps the file as it was before capout's first setup; a
    // later setup leaves it be.
    let backup = before.clone().filter(|_| !has_backup);
    if backup.is_some() {
        said = format!("{said} (as it was before: {})", backup_of(path).display());
    }
    let mut step = file(path, before, Some(after), &said);
    if let Step::File { backup: b, .. } = &mut step {
        *b = backup;
    }
    Ok(step)
}

fn uninstall_merge(
    path: &Path,
    before: Option<String>,
    backup: Option<&str>,
    entries: &[Entry],
) -> Result<Step, Error> {
    let Some(current) = before.as_deref() else {
        return Ok(Step::Same { path: path.to_owned(), said: "not there, nothing to take out".into() });
    };
    // What was there before capout (the backup tells) stays, if empty.
    let existed = |keys: &[String]| backup.is_some_and(|b| has(path, b, keys));
    let (removed, taken) = remove_text(path, current, entries, &existed)?;
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    let (after, said) = if taken.is_empty() {
        return Ok(Step::Same { path: path.to_owned(), said: "nothing to take out".into() });
    } else if let Some(saved) =
        backup.filter(|b| install_text(path, Some(b), entries).ok().as_deref() == Some(current))
    {
        // Nothing else changed the file since capout's setup: the file as it
        // was, byte for byte.
        (
            Some(saved.to_owned()),
            format!("given back as it was before capout (from {})", backup_of(path).display()),
        )
    } else if backup.is_none() && !is_link && holds_nothing(path, &removed) {
        (None, "removed, capout made it and nothing else is in it".to_owned())
    } else {
        (Some(removed), format!("took out {}", taken.join(", ")))
    };
    let mut step = file(path, before, after, &said);
    if let Step::File { drop_backup, .. } = &mut step {
        *drop_backup = backup.is_some();
    }
    Ok(step)
}

fn write_step(step: &Step) -> Result<(), Error> {
    match step {
        Step::Same { .. } => Ok(()),
        Step::File { path, real, before, after, backup, drop_backup, .. } => {
            if let Some(text) = backup {
                let mode = std::fs::metadata(real).ok().map(|m| m.permissions().mode());
                write_atomic(&backup_of(path), text, mode, owner_for(real, true))?;
            }
            match after {
                Some(text) if Some(text) != before.as_ref() => {
                    if let Some(dir) = real.parent() {
                        make_dirs(dir).map_err(Error::write("make", dir))?;
                    }
                    let mode = std::fs::metadata(real).ok().map(|m| m.permissions().mode());
                    write_atomic(real, text, mode, owner_for(real, true))?;
                }
                Some(_) => {}
                None => match std::fs::remove_file(path) {
                    Err(e) if e.kind() != io::ErrorKind::NotFound => {
                        return Err(Error::write("remove", path)(e));
                    }
                    _ => {}
                },
            }
            if *drop_backup {
                let backup = backup_of(path);
                match std::fs::remove_file(&backup) {
                    Err(e) if e.kind() != io::ErrorKind::NotFound => {
                        return Err(Error::write("remove", &backup)(e));
                    }
                    _ => {}
                }
            }
            Ok(())
        }
        Step::Link { path, make: Some(target), .. } => {
            if let Some(dir) = path.parent() {
                make_dirs(dir).map_err(Error::write("make", dir))?;
            }
            link_atomic(path, target).map_err(Error::write("make the link", path))
        }
        Step::Link { path, make: None, .. } => match std::fs::remove_file(path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(Error::write("remove", path)(e)),
            _ => Ok(()),
        },
    }
}

/// Refuses, before anything is written, a change whose folder capout
/// could not write in (the nearest folder that is there, for one that
/// capout would make).
fn writable(step: &Step) -> Result<(), Error> {
    let (Step::File { real: path, .. } | Step::Link { path, .. }) = step else { return Ok(()) };
    let mut dir = path.parent();
    while let Some(d) = dir {
        if std::fs::symlink_metadata(d).is_ok() {
            return rustix::fs::access(d, rustix::fs::Access::WRITE_OK)
                .map_err(|e| Error::write("write in", d)(e.into()));
        }
        dir = d.parent();
    }
    Ok(())
}

/// Who is to own what capout writes at `path` (`follow`ing a link there,
/// or not): the file it replaces keeps its owner and group; a new one
/// that root makes in a folder of another user's (`sudo capout init` with
/// the user's HOME) gets the folder's, so that the user can still read
/// and change their own settings. `None`: as the kernel makes it.
fn owner_for(path: &Path, follow: bool) -> Option<(u32, u32)> {
    use std::os::unix::fs::MetadataExt;
    let meta = if follow { std::fs::metadata(path) } else { std::fs::symlink_metadata(path) };
    if let Ok(m) = meta {
        return Some((m.uid(), m.gid()));
    }
    if !rustix::process::geteuid().is_root() {
        return None;
    }
    let folder = path.ancestors().skip(1).find_map(|d| std::fs::metadata(d).ok())?;
    Some((folder.uid(), folder.gid()))
}

/// Writes `text` to a temporary file beside `path` and renames it over
/// `path`, with the mode `mode` (else the one a new file gets) and the
/// `owner` and group (where the process may give them): a reader sees
/// the old file or the new, never half of one.
fn write_atomic(path: &Path, text: &str, mode: Option<u32>, owner: Option<(u32, u32)>) -> Result<(), Error> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let fail = Error::write("write", path);
    let result = (|| {
        let mut tmp = tempfile::Builder::new().prefix(".capout-").tempfile_in(dir)?;
        tmp.write_all(text.as_bytes())?;
        let mode = mode.unwrap_or_else(|| 0o666 & !umask());
        if let Some((uid, gid)) = owner {
            // Only root may give a file away: for anyone else it is theirs.
            let _ = std::os::unix::fs::fchown(tmp.as_file(), Some(uid), Some(gid));
        }
        tmp.as_file().set_permissions(std::fs::Permissions::from_mode(mode))?;
        tmp.as_file().sync_all()?;
        tmp.persist(path).map_err(|e| e.error)?;
        Ok(())
    })();
    result.map_err(fail)
}

/// The process's file mode creation mask.
fn umask() -> u32 {
    use rustix::fs::Mode;
    let old = rustix::process::umask(Mode::from_raw_mode(0o022));
    rustix::process::umask(old);
    old.as_raw_mode()
}

/// Makes `path` a symbolic link to `target` in one step: the link is made
/// under a name of its own in the same folder, then renamed over `path`,
/// so that two inits at once both succeed and a harness never finds no link.
fn link_atomic(path: &Path, target: &Path) -> io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    for n in 0..100u32 {
        let tmp = dir.join(format!(".capout-link-{}-{nanos}-{n}", std::process::id()));
        match std::os::unix::fs::symlink(target, &tmp) {
            Ok(()) => {
                if let Some((uid, gid)) = owner_for(path, false) {
                    let _ = std::os::unix::fs::lchown(&tmp, Some(uid), Some(gid));
                }
                return std::fs::rename(&tmp, path).inspect_err(|_| {
                    let _ = std::fs::remove_file(&tmp);
                });
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(io::ErrorKind::AlreadyExists, "no free temporary name for the link"))
}

/// The extended attribute that marks a folder capout made: the uninstall
/// removes such a folder once it is empty, and no other (an empty folder
/// of the user's stays). It leaves no file behind, and a team's
/// repository never holds it; where the file system keeps no such
/// attributes, the folders capout made stay after an uninstall.
const MADE: &str = "user.capout.made";

/// Makes `dir` and the folders above it that are missing, each marked as
/// capout's ([`MADE`]).
fn make_dirs(dir: &Path) -> io::Result<()> {
    let missing: Vec<&Path> = dir.ancestors().take_while(|d| std::fs::symlink_metadata(d).is_err()).collect();
    for d in missing.into_iter().rev() {
        let owner = owner_for(d, false);
        match std::fs::create_dir(d) {
            Ok(()) => {
                if let Some((uid, gid)) = owner {
                    let _ = std::os::unix::fs::chown(d, Some(uid), Some(gid));
                }
                let _ = rustix::fs::lsetxattr(d, MADE, b"", rustix::fs::XattrFlags::empty());
            }
            // Another init at the same moment made it.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    // A folder above that is a link to a folder, or one made meanwhile.
    std::fs::create_dir_all(dir)
}

/// Whether capout made the folder `dir` ([`MADE`]).
fn made_by_capout(dir: &Path) -> bool {
    rustix::fs::lgetxattr_query(dir, MADE).is_ok()
}

/// After an uninstall: the folders on the paths capout wrote that capout
/// made and that are empty now, removed from the deepest up, never the
/// home or the project itself nor anything above them.
fn tidy(cx: &Context, steps: &[Step]) -> Vec<PathBuf> {
    let tops = [&cx.home, &cx.project];
    let mut removed = Vec::new();
    for step in steps {
        let (Step::File { path, .. } | Step::Link { path, .. }) = step else { continue };
        let mut dir = path.parent();
        while let Some(d) = dir {
            // Below the home or the project, and neither of them nor above one.
            let below =
                tops.iter().any(|top| d.starts_with(top)) && !tops.iter().any(|top| top.starts_with(d));
            if !below || !made_by_capout(d) || std::fs::remove_dir(d).is_err() {
                break;
            }
            removed.push(d.to_owned());
            dir = d.parent();
        }
    }
    removed
}
