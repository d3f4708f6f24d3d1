//! Paths of tool calls, resolved against the server's root: a path that
//! leaves it, through `..` or through a symlink, is refused.

use std::path::{Component, Path, PathBuf};

/// Where the tools may look: the root, and the folder the server saves
/// whole outputs to (which `read` pages).
#[derive(Clone, Debug)]
pub struct Roots {
    /// The root, canonical.
    pub root: PathBuf,
    /// The server's own folder of saved outputs, canonical.
    pub saved: PathBuf,
}

impl Roots {
    /// `path` as given by a call, resolved: relative paths start at the
    /// root; the result, symlinks followed, lies inside the root or the
    /// folder of saved outputs, and exists.
    pub fn resolve(&self, path: &str) -> Result<PathBuf, String> {
        if path.is_empty() {
            return Err("the path is empty".into());
        }
        let joined = lexical(&self.root.join(path));
        if !self.allows(&joined) {
            return Err(format!("'{path}' is outside the root"));
        }
        let real = joined.canonicalize().map_err(|e| format!("'{path}': {}", reason(&e)))?;
        if !self.allows(&real) {
            return Err(format!("'{path}' is outside the root (through a symlink)"));
        }
        Ok(real)
    }

    fn allows(&self, path: &Path) -> bool {
        path.starts_with(&self.root) || path.starts_with(&self.saved)
    }

    /// How a call names `path`: relative to the root when inside it.
    pub fn show<'a>(&self, path: &'a Path) -> std::borrow::Cow<'a, str> {
        match path.strip_prefix(&self.root) {
            Ok(rel) if rel.as_os_str().is_empty() => ".".into(),
            Ok(rel) => rel.to_string_lossy(),
            Err(_) => path.to_string_lossy(),
        }
    }
}

/// `path` with `.` and `..` taken away without looking at the disk, so
/// that `root/../x` is seen to leave the root even when `x` does not exist.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The system's reason, as a shell words it: `no such file or directory`.
pub use crate::command::plain_reason as reason;

#[cfg(test)]
mod tests {
    use super::*;

    fn roots() -> (tempfile::TempDir, Roots) {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        std::fs::create_dir(base.join("root")).unwrap();
        std::fs::create_dir(base.join("saved")).unwrap();
        std::fs::write(base.join("root/a.txt"), "a").unwrap();
        std::fs::write(base.join("secret"), "s").unwrap();
        std::os::unix::fs::symlink(base.join("secret"), base.join("root/link")).unwrap();
        std::os::unix::fs::symlink("a.txt", base.join("root/inside")).unwrap();
        let roots = Roots { root: base.join("root"), saved: base.join("saved") };
        (dir, roots)
    }

    #[test]
    fn paths_stay_inside_the_root() {
        let (_dir, roots) = roots();
        assert_eq!(roots.resolve("a.txt").unwrap(), roots.root.join("a.txt"));
        assert_eq!(roots.resolve("./x/../a.txt").unwrap(), roots.root.join("a.txt"));
        assert_eq!(roots.resolve("inside").unwrap(), roots.root.join("a.txt"));
        assert_eq!(roots.resolve("../secret"), Err("'../secret' is outside the root".into()));
        assert_eq!(roots.resolve("../nosuch"), Err("'../nosuch' is outside the root".into()));
        assert_eq!(roots.resolve("link"), Err("'link' is outside the root (through a symlink)".into()));
        assert_eq!(roots.resolve("/etc/passwd"), Err("'/etc/passwd' is outside the root".into()));
        assert_eq!(roots.resolve("nosuch"), Err("'nosuch': no such file or directory".into()));
        assert_eq!(roots.resolve(""), Err("the path is empty".into()));
        let saved = roots.saved.join("x.log");
        std::fs::write(&saved, "x").unwrap();
        assert_eq!(roots.resolve(saved.to_str().unwrap()).unwrap(), saved);
    }
}
