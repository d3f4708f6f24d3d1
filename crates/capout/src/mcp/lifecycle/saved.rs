//! The whole outputs that `bash` saves, in a folder of their own, kept
//! under a bound on their total size: the server's, and the Node.js
//! module's tools', which keep them alike.

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::{Mutex, PoisonError};

/// The largest total size of the saved outputs of a session, by default.
pub const SAVED_MAX: u64 = 1 << 30;

/// The variable that sets [`SAVED_MAX`] otherwise (in bytes), for tests.
const SAVED_MAX_VAR: &str = "CAPOUT_MCP_SAVED_MAX";

/// The bound on the saved outputs: [`SAVED_MAX`], or the number of bytes
/// that `CAPOUT_MCP_SAVED_MAX` gives; an error names a value that is no
/// number.
pub fn saved_max() -> Result<u64, String> {
    match std::env::var_os(SAVED_MAX_VAR) {
        None => Ok(SAVED_MAX),
        Some(value) => value
            .to_str()
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("{SAVED_MAX_VAR}: not a number of bytes: {}", value.to_string_lossy())),
    }
}

/// The folder of saved outputs, and the bound on their total size.
pub struct Saved {
    dir: PathBuf,
    max: u64,
    /// The saved outputs, oldest first, with their sizes.
    files: Mutex<Vec<(OsString, u64)>>,
}

impl Saved {
    /// The saved outputs in `dir`, at most `max` bytes in all.
    pub fn new(dir: PathBuf, max: u64) -> Saved {
        Saved { dir, max, files: Mutex::default() }
    }

    /// Removes the oldest saved outputs until the rest fit in the bound.
    /// The newest stays, even alone over it: the notice just named it.
    /// Called after each call that may have saved one.
    pub fn evict(&self) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else { return };
        let mut files = self.files.lock().unwrap_or_else(PoisonError::into_inner);
        let mut present: Vec<_> = entries
            .flatten()
            .filter_map(|entry| {
                let meta = entry.metadata().ok().filter(std::fs::Metadata::is_file)?;
                Some((entry.file_name(), meta.len()))
            })
            .collect();
        // Known ones keep their place; new ones (of this call, or of
        // calls that ended at the same time) follow.
        files.retain(|(name, _)| present.iter().any(|(n, _)| n == name));
        present.retain(|(name, _)| !files.iter().any(|(n, _)| n == name));
        files.extend(present);
        let mut total: u64 = files.iter().map(|(_, len)| len).sum();
        while total > self.max && files.len() > 1 {
            let (name, len) = files.remove(0);
            let _ = std::fs::remove_file(self.dir.join(name));
            total -= len;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Saved;
    use std::path::Path;

    fn save(dir: &Path, name: &str, len: usize) {
        std::fs::write(dir.join(name), vec![b'x'; len]).unwrap();
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<_> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        names.sort();
        names
    }

    #[test]
    fn outputs_within_the_bound_are_all_kept() {
        let dir = tempfile::tempdir().unwrap();
        let saved = Saved::new(dir.path().into(), 30);
        save(dir.path(), "a", 10);
        saved.evict();
        save(dir.path(), "b", 20);
        saved.evict();
        assert_eq!(names(dir.path()), ["a", "b"]);
    }

    #[test]
    fn past_the_bound_the_oldest_go_first() {
        let dir = tempfile::tempdir().unwrap();
        let saved = Saved::new(dir.path().into(), 25);
        // Named so that the folder's order is not the order of saving.
        for name in ["c", "b", "a"] {
            save(dir.path(), name, 10);
            saved.evict();
        }
        assert_eq!(names(dir.path()), ["a", "b"]);
        save(dir.path(), "d", 10);
        saved.evict();
        assert_eq!(names(dir.path()), ["a", "d"]);
    }

    #[test]
    fn the_newest_stays_though_alone_over_the_bound() {
        let dir = tempfile::tempdir().unwrap();
        let saved = Saved::new(dir.path().into(), 5);
        save(dir.path(), "a", 10);
        saved.evict();
        assert_eq!(names(dir.path()), ["a"]);
        save(dir.path(), "b", 10);
        saved.evict();
        assert_eq!(names(dir.path()), ["b"]);
    }

    #[test]
    fn an_output_removed_by_another_no_longer_counts() {
        let dir = tempfile::tempdir().unwrap();
        let saved = Saved::new(dir.path().into(), 25);
        save(dir.path(), "a", 10);
        saved.evict();
        save(dir.path(), "b", 10);
        saved.evict();
        std::fs::remove_file(dir.path().join("a")).unwrap();
        save(dir.path(), "c", 10);
        saved.evict();
        assert_eq!(names(dir.path()), ["b", "c"]);
    }

    #[test]
    fn a_folder_gone_is_no_error() {
        let dir = tempfile::tempdir().unwrap();
        let saved = Saved::new(dir.path().join("gone"), 5);
        saved.evict();
    }
}
