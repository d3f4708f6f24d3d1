//! Paths of tool calls, opened beneath the server's root: a path that
//! leaves it, through `..` or through a symlink, is refused.
//!
//! A name is checked and opened in one step, by the kernel, not checked
//! and then opened again: between the two a folder of the root could be
//! swapped for a symlink to a folder outside it. `openat2` with
//! `RESOLVE_BENEATH` refuses, atomically, every resolution that leaves
//! the folder it starts from; where the kernel lacks it (before Linux
//! 5.6, or a seccomp filter that forbids it) the path is walked one
//! component at a time with `O_NOFOLLOW`, each symlink read and walked in
//! turn from a folder already open. What the file is (regular, folder,
//! FIFO, ...) is decided on the opened file, never on its name again.

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use rustix::fs::{CWD, FileType, Mode, OFlags, ResolveFlags};
use rustix::io::Errno;

use super::notice;
pub use super::notice::{not_regular, saved_output_removed};

/// How a path is opened beneath its folder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opener {
    /// `openat2` where the kernel has it, else [`Opener::Walk`].
    Auto,
    /// The walk, component by component, that stands in for `openat2`
    /// (chosen by tests, so that the walk is tested on a kernel that has
    /// `openat2`).
    Walk,
}

/// Where the tools may look: the root, and the folder the server saves
/// whole outputs to (which `read` pages).
#[derive(Clone, Debug)]
pub struct Roots {
    /// The root, canonical.
    pub root: PathBuf,
    /// The root as `--root` spelled it (absolute, `.` and `..` taken
    /// away), which may go through a symlink: an absolute path under it
    /// is inside as one under [`Roots::root`] is.
    pub given: PathBuf,
    /// The server's own folder of saved outputs, canonical.
    pub saved: PathBuf,
    /// How paths are opened.
    pub opener: Opener,
}

/// Which of the two folders a path lies in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Base {
    Root,
    Saved,
}

/// A file opened beneath the root or the folder of saved outputs.
#[derive(Debug)]
pub struct Opened {
    /// The file, opened for reading, non-blocking (which a regular file
    /// ignores).
    pub file: File,
    /// What the opened file is.
    pub kind: FileType,
    /// How it was reached: its folder joined with the path in it (not
    /// canonical: symlinks inside the root stay as named).
    pub path: PathBuf,
}

impl Opened {
    /// Whether what was opened is a regular file.
    pub fn is_regular(&self) -> bool {
        self.kind == FileType::RegularFile
    }
}

/// Why a path was not opened.
#[derive(Debug)]
enum Failure {
    /// A symlink on the way leads out of the folder.
    Escapes,
    Io(io::Error),
}

impl From<Errno> for Failure {
    fn from(e: Errno) -> Failure {
        Failure::Io(e.into())
    }
}

/// The most symlinks followed in one path, as the kernel's own limit.
const MAX_SYMLINKS: usize = 40;

/// `openat2` answered ENOSYS or EPERM once: it is not asked again.
static NO_OPENAT2: AtomicBool = AtomicBool::new(false);

impl Roots {
    /// The roots of a server started with `--root GIVEN`, whose canonical
    /// form is `root`, saving outputs in `saved` (canonical).
    pub fn new(given: &Path, root: PathBuf, saved: PathBuf) -> Roots {
        let given = std::path::absolute(given).map_or_else(|_| root.clone(), |p| lexical(&p));
        Roots { root, given, saved, opener: Opener::Auto }
    }

    /// Opens `path` as given by a call: relative paths start at the root;
    /// an absolute one must lie under the root (as given or canonical) or
    /// in the folder of saved outputs. Symlinks inside the folder are
    /// followed as long as they stay inside it.
    pub fn open(&self, path: &str) -> Result<Opened, String> {
        if path.is_empty() {
            return Err(notice::EMPTY_PATH.into());
        }
        let Some((base, rel)) = self.place(&lexical(&self.root.join(path))) else {
            return Err(notice::outside(path));
        };
        self.open_in(base, &rel).map_err(|failure| match failure {
            Failure::Escapes => notice::outside_through_symlink(path),
            Failure::Io(e) if base == Base::Saved && e.kind() == io::ErrorKind::NotFound => {
                notice::saved_output_removed(path)
            }
            Failure::Io(e) => notice::path_error(path, reason(&e)),
        })
    }

    /// Opens a file that grep's walk found at `path` (under the root or
    /// the folder of saved outputs, as [`Opened::path`] names them),
    /// beneath its folder as [`Roots::open`] opens it: the name is the
    /// walk's, the file the kernel's.
    pub fn open_found(&self, path: &Path) -> Option<Opened> {
        let (base, rel) = self.place(path)?;
        self.open_in(base, &rel).ok()
    }

    /// Opens for reading a regular file that grep's walk found at `path`
    /// under the folder `tree` (as [`Opened::path`] named it), which the
    /// walk started from and `dir` holds open: one `openat2` beneath
    /// `dir` and one `fstat`, where [`Roots::open_found`] takes five calls
    /// and resolves the whole path from the root twice (a third of
    /// grep's system time on /usr). `None` for what is not a regular file
    /// (any more) or cannot be opened.
    ///
    /// No `O_PATH` look first: the walk read the entry's type from its
    /// folder (a regular file), and what was swapped in for it since is
    /// opened harmlessly or not at all: a symlink is refused
    /// (`O_NOFOLLOW`), a FIFO does not block (`O_NONBLOCK`), a terminal
    /// is not taken (`O_NOCTTY`), and `fstat` passes over all that is not
    /// a regular file. Whatever a symlink on the way leads to is opened
    /// only by [`Roots::open_found`], which follows it while it stays
    /// inside.
    pub fn open_walked(&self, tree: &Path, dir: &File, path: &Path) -> Option<File> {
        let fast = self.opener == Opener::Auto && !NO_OPENAT2.load(Ordering::Relaxed);
        let rel = path.strip_prefix(tree).ok().filter(|_| fast);
        let Some(rel) = rel else { return self.open_found(path).filter(Opened::is_regular).map(|o| o.file) };
        let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let how = ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS;
        match rustix::fs::openat2(dir, rel, flags, Mode::empty(), how) {
            Ok(fd) => {
                let file = File::from(fd);
                (kind_of(file.as_fd()).ok()? == FileType::RegularFile).then_some(file)
            }
            // A symlink on the way (which the walk does not follow, but
            // the folder searched may be reached through one), a race
            // with a rename, or no openat2: the way that handles each.
            Err(Errno::XDEV | Errno::AGAIN | Errno::LOOP | Errno::NOSYS | Errno::PERM) => {
                self.open_found(path).filter(Opened::is_regular).map(|o| o.file)
            }
            Err(_) => None,
        }
    }

    /// Which folder `path` (absolute, lexical) lies in, and where in it.
    fn place(&self, path: &Path) -> Option<(Base, PathBuf)> {
        let within = |dir: &Path| path.strip_prefix(dir).ok().map(Path::to_path_buf);
        within(&self.root)
            .or_else(|| within(&self.given))
            .map(|rel| (Base::Root, rel))
            .or_else(|| within(&self.saved).map(|rel| (Base::Saved, rel)))
    }

    fn dir(&self, base: Base) -> &Path {
        match base {
            Base::Root => &self.root,
            Base::Saved => &self.saved,
        }
    }

    /// Opens `rel` (components without `..`) beneath the folder `base`.
    ///
    /// The file is first opened `O_PATH`, which opens nothing a device
    /// could notice, and only a regular file or a folder is then opened
    /// for reading: non-blocking, so that a FIFO swapped in meanwhile
    /// does not block, and without taking a terminal.
    fn open_in(&self, base: Base, rel: &Path) -> Result<Opened, Failure> {
        let dir = rustix::fs::openat(
            CWD,
            self.dir(base),
            OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        let probe = self.resolve(base, &dir, rel, OFlags::PATH)?;
        let kind = kind_of(probe.as_fd())?;
        let fd = if matches!(kind, FileType::RegularFile | FileType::Directory) {
            self.resolve(base, &dir, rel, OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY)?
        } else {
            probe
        };
        let kind = kind_of(fd.as_fd())?;
        Ok(Opened { file: File::from(fd), kind, path: self.dir(base).join(rel) })
    }

    /// `rel` opened with `flags` beneath the folder `dir`.
    fn resolve(&self, base: Base, dir: &OwnedFd, rel: &Path, flags: OFlags) -> Result<OwnedFd, Failure> {
        let flags = flags | OFlags::CLOEXEC;
        if self.opener == Opener::Auto && !NO_OPENAT2.load(Ordering::Relaxed) {
            let how = ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS;
            let rel = if rel.as_os_str().is_empty() { Path::new(".") } else { rel };
            // EAGAIN: a rename raced a `..` of a symlink's target; the
            // kernel asks to try again.
            for _ in 0..4 {
                match rustix::fs::openat2(dir, rel, flags, Mode::empty(), how) {
                    Ok(fd) => return Ok(fd),
                    Err(Errno::AGAIN) => {}
                    Err(Errno::NOSYS | Errno::PERM) => {
                        NO_OPENAT2.store(true, Ordering::Relaxed);
                        break;
                    }
                    // An absolute symlink, which RESOLVE_BENEATH always
                    // refuses: the walk follows it if it stays inside.
                    Err(Errno::XDEV) => break,
                    Err(e) => return Err(e.into()),
                }
            }
        }
        self.walk(base, dir, rel, flags)
    }

    /// Resolves `rel` beneath `dir` one component at a time: each is
    /// opened `O_PATH | O_NOFOLLOW`, a symlink is read and its target
    /// walked in its place (an absolute one from the folder itself, if it
    /// names a place inside), and a `..` never climbs above `dir`. Only
    /// the folders already open are walked from, so a swap after one
    /// step does not redirect the next.
    fn walk(&self, base: Base, dir: &OwnedFd, rel: &Path, flags: OFlags) -> Result<OwnedFd, Failure> {
        let mut folders: Vec<OwnedFd> = Vec::new();
        let mut todo: VecDeque<OsString> = names(rel).collect();
        let mut symlinks = 0;
        while let Some(name) = todo.pop_front() {
            let here = folders.last().unwrap_or(dir);
            if name == ".." {
                if folders.pop().is_none() {
                    return Err(Failure::Escapes);
                }
                continue;
            }
            let fd = rustix::fs::openat(
                here,
                &name,
                OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::empty(),
            )?;
            match kind_of(fd.as_fd())? {
                FileType::Symlink => {
                    symlinks += 1;
                    if symlinks > MAX_SYMLINKS {
                        return Err(Errno::LOOP.into());
                    }
                    let target = rustix::fs::readlinkat(&fd, "", Vec::new())?;
                    let target = Path::new(OsStr::from_bytes(target.as_bytes()));
                    let next: Vec<OsString> = if target.is_absolute() {
                        match self.place(&lexical(target)) {
                            Some((b, inside)) if b == base => {
                                folders.clear();
                                names(&inside).collect()
                            }
                            _ => return Err(Failure::Escapes),
                        }
                    } else {
                        names(target).collect()
                    };
                    for name in next.into_iter().rev() {
                        todo.push_front(name);
                    }
                }
                _ if todo.is_empty() => {
                    if flags.contains(OFlags::PATH) {
                        return Ok(fd);
                    }
                    // The same entry, opened for reading; a symlink
                    // swapped in since is refused (ELOOP), not followed.
                    return Ok(rustix::fs::openat(here, &name, flags | OFlags::NOFOLLOW, Mode::empty())?);
                }
                FileType::Directory => folders.push(fd),
                _ => return Err(Errno::NOTDIR.into()),
            }
        }
        // The folder itself, or one a `..` came back to.
        let here = folders.last().unwrap_or(dir);
        Ok(rustix::fs::openat(here, ".", flags, Mode::empty())?)
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

/// The components of `path` as names to open: `..` kept (a symlink's
/// target may climb), `.` and `/` dropped.
fn names(path: &Path) -> impl Iterator<Item = OsString> + '_ {
    path.components().filter_map(|part| match part {
        Component::Normal(name) => Some(name.to_owned()),
        Component::ParentDir => Some("..".into()),
        _ => None,
    })
}

fn kind_of(fd: BorrowedFd<'_>) -> Result<FileType, Failure> {
    Ok(FileType::from_raw_mode(rustix::fs::fstat(fd)?.st_mode))
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
    use std::io::Read;

    fn roots(opener: Opener) -> (tempfile::TempDir, Roots) {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        std::fs::create_dir(base.join("root")).unwrap();
        std::fs::create_dir(base.join("root/sub")).unwrap();
        std::fs::create_dir(base.join("saved")).unwrap();
        std::fs::write(base.join("root/a.txt"), "a").unwrap();
        std::fs::write(base.join("secret"), "s").unwrap();
        std::os::unix::fs::symlink(base.join("secret"), base.join("root/link")).unwrap();
        std::os::unix::fs::symlink("a.txt", base.join("root/inside")).unwrap();
        std::os::unix::fs::symlink("../a.txt", base.join("root/sub/up")).unwrap();
        std::os::unix::fs::symlink("../../secret", base.join("root/sub/out")).unwrap();
        std::os::unix::fs::symlink(base.join("root/a.txt"), base.join("root/absolute")).unwrap();
        std::os::unix::fs::symlink("loop", base.join("root/loop")).unwrap();
        std::os::unix::fs::symlink(base.join("root"), base.join("rootlink")).unwrap();
        let mut roots = Roots::new(&base.join("rootlink"), base.join("root"), base.join("saved"));
        roots.opener = opener;
        (dir, roots)
    }

    fn text(roots: &Roots, path: &str) -> Result<String, String> {
        let mut opened = roots.open(path)?;
        let mut text = String::new();
        opened.file.read_to_string(&mut text).map_err(|e| e.to_string())?;
        Ok(text)
    }

    fn paths_stay_inside_the_root(opener: Opener) {
        let (_dir, roots) = roots(opener);
        assert_eq!(text(&roots, "a.txt").unwrap(), "a");
        assert_eq!(text(&roots, "./x/../a.txt").unwrap(), "a");
        assert_eq!(text(&roots, "inside").unwrap(), "a");
        assert_eq!(text(&roots, "sub/up").unwrap(), "a");
        assert_eq!(text(&roots, "absolute").unwrap(), "a");
        assert_eq!(text(&roots, "../secret"), Err("'../secret' is outside the root".into()));
        assert_eq!(text(&roots, "../nosuch"), Err("'../nosuch' is outside the root".into()));
        assert_eq!(text(&roots, "link"), Err("'link' is outside the root (through a symlink)".into()));
        assert_eq!(text(&roots, "sub/out"), Err("'sub/out' is outside the root (through a symlink)".into()));
        assert_eq!(text(&roots, "/etc/passwd"), Err("'/etc/passwd' is outside the root".into()));
        assert_eq!(text(&roots, "nosuch"), Err("'nosuch': no such file or directory".into()));
        assert_eq!(text(&roots, "a.txt/x"), Err("'a.txt/x': not a directory".into()));
        assert_eq!(text(&roots, "loop"), Err("'loop': too many levels of symbolic links".into()));
        assert_eq!(text(&roots, ""), Err("the path is empty".into()));
        assert_eq!(roots.open(".").unwrap().kind, FileType::Directory);
        let saved = roots.saved.join("x.log");
        std::fs::write(&saved, "x").unwrap();
        assert_eq!(text(&roots, saved.to_str().unwrap()).unwrap(), "x");
    }

    #[test]
    fn paths_stay_inside_the_root_with_openat2() {
        paths_stay_inside_the_root(Opener::Auto);
    }

    #[test]
    fn paths_stay_inside_the_root_with_the_component_walk() {
        paths_stay_inside_the_root(Opener::Walk);
    }

    #[test]
    fn an_absolute_path_through_a_root_given_as_a_symlink_is_inside() {
        for opener in [Opener::Auto, Opener::Walk] {
            let (_dir, roots) = roots(opener);
            for root in [&roots.given, &roots.root] {
                let path = root.join("a.txt");
                assert_eq!(text(&roots, path.to_str().unwrap()).unwrap(), "a", "{}", path.display());
                let path = root.join("link");
                assert_eq!(
                    text(&roots, path.to_str().unwrap()),
                    Err(format!("'{}' is outside the root (through a symlink)", path.display()))
                );
            }
            let beside = roots.given.with_file_name("secret");
            assert_eq!(
                text(&roots, beside.to_str().unwrap()),
                Err(format!("'{}' is outside the root", beside.display()))
            );
        }
    }

    #[test]
    fn a_missing_saved_output_says_it_was_removed() {
        let (_dir, roots) = roots(Opener::Auto);
        let gone = roots.saved.join("capout-gone.log");
        let gone = gone.to_str().unwrap();
        assert_eq!(
            text(&roots, gone),
            Err(format!(
                "'{gone}': this saved output was removed (the server keeps at most 1 GiB of saved outputs, \
                 oldest removed first)"
            ))
        );
    }
}
