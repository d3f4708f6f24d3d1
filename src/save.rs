//! `--save FILE` and `--save-dir DIR`: the whole input, uncut, written as
//! it is read.

use std::fs::{self, File};
use std::io::{self, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

/// Where to save the whole input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SaveTo {
    /// This file, created or truncated.
    File(PathBuf),
    /// A new `capout-XXXXXX.log` in this directory, removed again when
    /// nothing was cut.
    Dir(PathBuf),
}

/// Whether saving to `to` would write over `input`, the file being read:
/// creating it would empty the input before a byte of it was read.
pub fn is_input(to: &SaveTo, input: &File) -> bool {
    let SaveTo::File(path) = to else { return false };
    match (fs::metadata(path), input.metadata()) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino() && b.is_file(),
        _ => false,
    }
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

impl std::error::Error for SaveError {}

/// The error without the `at path "..."` that `tempfile` adds to it: the
/// message names the directory already.
fn without_path(error: &io::Error) -> io::Error {
    let text = error.to_string();
    let text = text.split(" at path ").next().unwrap_or_default();
    io::Error::new(error.kind(), text.to_owned())
}

#[derive(Debug)]
enum Target {
    File(File),
    Temp(NamedTempFile),
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
    /// Creates the file, before any input is read.
    pub fn create(to: &SaveTo) -> Result<Saver, SaveError> {
        let (target, path) = match to {
            SaveTo::File(path) => {
                let file = File::create(path).map_err(|error| SaveError { path: path.clone(), error })?;
                (Target::File(file), path.clone())
            }
            SaveTo::Dir(dir) => {
                let temp = tempfile::Builder::new()
                    .prefix("capout-")
                    .suffix(".log")
                    .rand_bytes(6)
                    .tempfile_in(dir)
                    .map_err(|error| SaveError { path: dir.clone(), error: without_path(&error) })?;
                let path = temp.path().to_path_buf();
                (Target::Temp(temp), path)
            }
        };
        Ok(Saver { target, path, error: None })
    }

    /// The file's path.
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
            Target::File(file) => file.write_all(bytes),
            Target::Temp(temp) => temp.write_all(bytes),
        };
        self.error = result.err();
    }

    /// Ends the saving. A `--save-dir` file is kept only when `cut`.
    /// Returns the path of the file left behind, or the first error.
    pub fn finish(self, cut: bool) -> Result<Option<PathBuf>, SaveError> {
        let Saver { target, path, error } = self;
        if let Some(error) = error {
            return Err(SaveError { path, error });
        }
        match target {
            Target::File(mut file) => {
                file.flush().map_err(|error| SaveError { path: path.clone(), error })?;
                Ok(Some(path))
            }
            Target::Temp(temp) if cut => {
                temp.keep().map_err(|e| SaveError { path: path.clone(), error: e.error })?;
                Ok(Some(path))
            }
            // Dropping the temporary file removes it.
            Target::Temp(_) => Ok(None),
        }
    }
}
