//! `--save FILE` and `--save-dir DIR`: the whole input, uncut, written as
//! it is read.
//!
//! `--save FILE` writes a new file beside FILE and renames it onto FILE
//! when the input ends, as an editor saves: FILE is never half-written, a
//! command that reads FILE reads what it held before, and a symlink at
//! FILE is replaced rather than followed to a file elsewhere. When the run
//! fails, FILE is left as it was.
//!
//! A character device at FILE (`/dev/null`) is written to directly; a
//! FIFO, a socket or a block device is refused, and so is a file that
//! another user may have planted in a sticky directory (see `planted`):
//! capout never writes where another user may read it, and never waits
//! for a FIFO's reader.

use std::fs::{self, File};
use std::io::{self, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use rustix::fs::{FileType, Mode, OFlags};

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
    /// FILE itself, when it is a character device: there is no file to
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
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    match fs::symlink_metadata(path) {
        // Missing, or a symlink: the new file takes its place.
        Ok(meta) if meta.file_type().is_symlink() => {}
        Ok(meta) => {
            if let Some(device) = existing(path, dir, FileType::from_raw_mode(meta.mode()))? {
                return Ok(Target::Special(device));
            }
        }
        Err(_) => {}
    }
    let temp = tempfile::Builder::new()
        .prefix(".capout-")
        .suffix(".tmp")
        .rand_bytes(6)
        .tempfile_in(dir)
        .map_err(|e| without_path(&e))?;
    Ok(Target::Beside(temp))
}

/// Checks what is at `path` in `dir` already, of the kind `kind` when it
/// was looked at: a character device is opened to be written to directly
/// (returned), a regular file is left to be replaced (`None`), anything
/// else is refused. Opening never blocks (a FIFO swapped in meanwhile
/// makes `open` return at once) and never follows a symlink; what was
/// opened is what is decided on.
fn existing(path: &Path, dir: &Path, kind: FileType) -> io::Result<Option<File>> {
    if !matches!(kind, FileType::RegularFile | FileType::CharacterDevice) {
        return Err(refused(kind));
    }
    // A regular file too: renaming needs only the directory, but a file
    // that could not be written in place is not capout's to replace.
    let flags = OFlags::WRONLY | OFlags::NONBLOCK | OFlags::NOFOLLOW | OFlags::NOCTTY | OFlags::CLOEXEC;
    let fd = rustix::fs::open(path, flags, Mode::empty())?;
    let stat = rustix::fs::fstat(&fd)?;
    let kind = FileType::from_raw_mode(stat.st_mode);
    if !matches!(kind, FileType::RegularFile | FileType::CharacterDevice) {
        return Err(refused(kind));
    }
    if planted(dir, stat.st_uid)? {
        let why = "it belongs to another user, in a sticky directory that others can write";
        return Err(io::Error::new(io::ErrorKind::PermissionDenied, why));
    }
    if kind == FileType::RegularFile {
        return Ok(None);
    }
    // A device is written as any output is: a write waits for it.
    let flags = rustix::fs::fcntl_getfl(&fd)?;
    rustix::fs::fcntl_setfl(&fd, flags - OFlags::NONBLOCK)?;
    Ok(Some(File::from(fd)))
}

/// Whether a file owned by `owner` in `dir` may have been put there by
/// another user to receive what capout writes: the rule of the kernel's
/// `protected_fifos` and `protected_regular`, applied whether they are on
/// or not. In a sticky directory that others can write (`/tmp`), only a
/// file of capout's own user or of the directory's owner is written.
fn planted(dir: &Path, owner: u32) -> io::Result<bool> {
    let stat = rustix::fs::stat(dir)?;
    let mode = Mode::from_raw_mode(stat.st_mode);
    let shared = mode.contains(Mode::SVTX) && mode.intersects(Mode::WGRP | Mode::WOTH);
    Ok(shared && owner != rustix::process::geteuid().as_raw() && owner != stat.st_uid)
}

/// The error for a FILE of a kind that `--save` does not write.
fn refused(kind: FileType) -> io::Error {
    let what = match kind {
        FileType::Directory => return rustix::io::Errno::ISDIR.into(),
        FileType::Fifo => "a FIFO",
        FileType::Socket => "a socket",
        FileType::BlockDevice => "a block device",
        _ => "not a regular file",
    };
    let why = format!("it is {what}; --save writes a regular file or a character device such as /dev/null");
    io::Error::new(io::ErrorKind::InvalidInput, why)
}
