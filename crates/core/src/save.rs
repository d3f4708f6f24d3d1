//! `--save FILE` and `--save-dir DIR`: the whole input, uncut, written as
//! it is read.
//!
//! `--save FILE` writes a new file beside FILE and renames it onto FILE
//! when the input ends, as an editor saves: FILE is never half-written, a
//! command that reads FILE reads what it held before, and a symlink at
//! FILE is replaced rather than followed to a file elsewhere. When the run
//! fails, FILE is left as it was.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

/// Where to save the whole input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SaveTo {
    /// This file, replaced when the input ends.
    File(PathBuf),
    /// A new `capout-XXXXXX.log` in this directory, removed again when
    /// nothing was cut.
    Dir(PathBuf),
}

/// An error of the file the input is saved to.
#[derive(Debug)]
pub struct SaveError {
    /// The file.
    pub path: PathBuf,
    /// What went wrong.
    pub error: io::Error,
}

impl std::fmt::Display for SaveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot save the output to {}: {}", self.path.display(), self.error)
    }
}

impl std::error::Error for SaveError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// The error without the `at path "..."` that `tempfile` adds to it: the
/// message names the file or directory already.
fn without_path(error: &io::Error) -> io::Error {
    let text = error.to_string();
    let text = text.split(" at path ").next().unwrap_or_default();
    io::Error::new(error.kind(), text.to_owned())
}

#[derive(Debug)]
enum Target {
    /// A new file beside FILE, renamed onto it at the end.
    Beside(NamedTempFile),
    /// FILE itself, when it is a device or a FIFO: there is no file to
    /// replace, and `--save /dev/null` means the device, not a new file
    /// in its place.
    Special(File),
    /// A new file in the `--save-dir` directory.
    InDir(NamedTempFile),
}

/// The file the input goes to. A write error stops the saving but not the
/// run: the capped output still matters most; the error is told at the end.
#[derive(Debug)]
pub struct Saver {
    target: Target,
    path: PathBuf,
    error: Option<io::Error>,
}

impl Saver {
    /// Creates the file, before any input is read: what cannot be written
    /// fails here.
    pub fn create(to: &SaveTo) -> Result<Saver, SaveError> {
        let (target, path) = match to {
            SaveTo::File(path) => {
                let target = beside(path).map_err(|error| SaveError { path: path.clone(), error })?;
                (target, path.clone())
            }
            SaveTo::Dir(dir) => {
                let temp = tempfile::Builder::new()
                    .prefix("capout-")
                    .suffix(".log")
                    .rand_bytes(6)
                    .tempfile_in(dir)
                    .map_err(|error| SaveError { path: dir.clone(), error: without_path(&error) })?;
                let path = temp.path().to_path_buf();
                (Target::InDir(temp), path)
            }
        };
        Ok(Saver { target, path, error: None })
    }

    /// The file's path: FILE itself for `--save FILE`.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether a write failed: the file is not the whole input.
    pub fn failed(&self) -> bool {
        self.error.is_some()
    }

    /// Appends raw input.
    pub fn write(&mut self, bytes: &[u8]) {
        if self.error.is_some() {
            return;
        }
        let result = match &mut self.target {
            // The file, not the NamedTempFile: its errors name the
            // temporary path, and the message names the file already.
            Target::Beside(temp) | Target::InDir(temp) => temp.as_file_mut().write_all(bytes),
            Target::Special(file) => file.write_all(bytes),
        };
        self.error = result.err();
    }

    /// Ends the saving, once the input has ended: FILE is replaced, and a
    /// `--save-dir` file is kept only when `cut`. Returns the path of the
    /// file left behind, or the first error; after an error, FILE is as
    /// it was.
    pub fn finish(self, cut: bool) -> Result<Option<PathBuf>, SaveError> {
        let Saver { target, path, error } = self;
        let fail = |error| SaveError { path: path.clone(), error };
        if let Some(error) = error {
            // Dropping the target removes a new file.
            return Err(fail(error));
        }
        match target {
            Target::Beside(temp) => {
                temp.persist(&path).map_err(|e| fail(e.error))?;
                Ok(Some(path))
            }
            Target::Special(mut file) => {
                file.flush().map_err(fail)?;
                Ok(Some(path))
            }
            Target::InDir(temp) if cut => {
                temp.keep().map_err(|e| fail(e.error))?;
                Ok(Some(path))
            }
            Target::InDir(_) => Ok(None),
        }
    }
}

/// The new file that will replace `path`, made now so that a FILE that
/// cannot be written fails before any input is read.
fn beside(path: &Path) -> io::Result<Target> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => return Err(rustix::io::Errno::ISDIR.into()),
        Ok(meta) if meta.is_file() => {
            // Renaming needs only the directory; but a file that could not
            // be written in place is not capout's to replace.
            OpenOptions::new().write(true).open(path)?;
        }
        Ok(meta) if !meta.is_symlink() => {
            return OpenOptions::new().write(true).truncate(true).open(path).map(Target::Special);
        }
        // Missing, or a symlink: the new file takes its place.
        _ => {}
    }
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let temp = tempfile::Builder::new()
        .prefix(".capout-")
        .suffix(".tmp")
        .rand_bytes(6)
        .tempfile_in(dir)
        .map_err(|e| without_path(&e))?;
    Ok(Target::Beside(temp))
}
