//! The whole outputs that `bash` saves, in the server's own folder, kept
//! under a bound on their total size.

use std::path::PathBuf;
use std::sync::{Mutex, PoisonError};

/// The largest total size of the saved outputs of a session, by default.
pub const SAVED_MAX: u64 = 1 << 30;

/// The variable that sets [`SAVED_MAX`] otherwise (in bytes), for tests.
const SAVED_MAX_VAR: &str = "CAPOUT_MCP_SAVED_MAX";

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
    files: Mutex<Vec<(std::ffi::OsString, u64)>>,
}

impl Saved {
    /// The saved outputs in `dir`, at most `max` bytes in all.
    pub fn new(dir: PathBuf, max: u64) -> Saved {
        Saved { dir, max, files: Mutex::default() }
    }

    /// Removes the oldest saved outputs until the rest fit in the bound.
    /// The newest stays, even alone over it: the notice just named it.
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
