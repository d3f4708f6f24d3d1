//! Starting the command: in a session of its own, the program found as
//! `execvp` finds it, and a failure worded as a shell words it; and the
//! register of the commands started, so that [`reap_orphans`] reaps only
//! what no supervisor waits for.

use std::ffi::OsStr;
use std::io::{self, IsTerminal};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

use process_wrap::std::{ChildWrapper, CommandWrap, ProcessSession};
use rustix::process::Pid;

use super::{CommandSpec, Error, Place};

/// Whether commands start in capout's own process group rather than in a
/// session of their own: see [`stay_in_group`].
static IN_OWN_GROUP: AtomicBool = AtomicBool::new(false);

/// From now on, commands start in capout's own process group, not in a
/// session of their own: for a harness that starts capout as its shell, in
/// a group of its own, and ends it by SIGKILL to that group (which capout
/// cannot pass on), so that the command and all it started end with it,
/// as they would without capout.
pub fn stay_in_group() {
    IN_OWN_GROUP.store(true, Ordering::Relaxed);
}

/// The commands started and not yet waited for, by process id. Locked
/// across the start of each, so that [`reap_orphans`] never reaps one
/// whose status its supervisor waits for.
static CHILDREN: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// The register of the commands started, locked.
pub(super) fn children() -> std::sync::MutexGuard<'static, Vec<u32>> {
    CHILDREN.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Reaps the children of this process that have exited and are not the
/// commands it started: the orphans that were re-parented to it, a
/// child subreaper, once the commands that started them were gone.
pub fn reap_orphans() {
    let started = children();
    let me = std::process::id();
    let Ok(entries) = std::fs::read_dir("/proc") else { return };
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|name| name.parse::<u32>().ok()) else {
            continue;
        };
        if started.contains(&pid) {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        // `PID (NAME) STATE PPID ...`: the name may hold spaces and `)`.
        let Some((_, rest)) = stat.rsplit_once(')') else { continue };
        let mut fields = rest.split_whitespace();
        let (state, parent) = (fields.next(), fields.next().and_then(|p| p.parse::<u32>().ok()));
        if state == Some("Z")
            && parent == Some(me)
            && let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw)
        {
            let _ = rustix::process::waitpid(Some(pid), rustix::process::WaitOptions::NOHANG);
        }
    }
}

/// Starts the command in a session of its own (and so a process group of
/// its own), its stdout and stderr on `writer`.
///
/// In a session of its own the command has no controlling terminal: a
/// program that opens `/dev/tty` to ask something gets an error at once,
/// where in a background process group of capout's terminal it would be
/// stopped for good. For the same reason a terminal on stdin is not passed
/// on: the command reads end-of-file instead.
///
/// The child calls `setsid` between fork and exec, through process-wrap's
/// session wrapper (std cannot without `unsafe`); the session exists once
/// `spawn` returns, as std returns only after the exec. The program is
/// found first, as `execvp` finds it, so that a command not found or not
/// executable is told here; a file with the execute bit but no `#!` line
/// is run by `/bin/sh`, as `execvp` runs it.
pub(super) fn start(
    spec: &CommandSpec,
    place: &Place,
    writer: &io::PipeWriter,
) -> Result<Box<dyn ChildWrapper>, Error> {
    let path =
        find_program(&spec.program, place.dir.as_deref()).map_err(|e| spawn_error(&spec.program, &e))?;
    let mut command = Command::new(&path);
    command.arg0(&spec.program).args(&spec.args);
    // Both pipe ends are close-on-exec: the command gets the write end
    // only as its stdout and stderr, and nothing else of capout's.
    let stdout = writer.try_clone().map_err(Error::Setup)?;
    let stderr =
        if spec.stdout_only { Stdio::inherit() } else { writer.try_clone().map_err(Error::Setup)?.into() };
    let stdin = if place.no_stdin || io::stdin().is_terminal() { Stdio::null() } else { Stdio::inherit() };
    if let Some(dir) = &place.dir {
        command.current_dir(dir);
    }
    command.envs(place.env.iter().map(|(name, value)| (name, value)));
    command.stdin(stdin).stdout(stdout).stderr(stderr);
    let mut command = CommandWrap::from(command);
    if !IN_OWN_GROUP.load(Ordering::Relaxed) {
        command.wrap(ProcessSession);
    }
    let mut started = children();
    let spawned = command.spawn();
    if let Ok(child) = &spawned {
        started.push(child.id());
    }
    drop(started);
    // The Command holds capout's copies of the write end; the pipe ends
    // only when they are closed too.
    drop(command);
    spawned.map_err(|e| spawn_error(&spec.program, &e))
}

/// The file that `execvp` runs for `program`: itself when it names a
/// path, else the first executable file of that name in `PATH`. The error
/// is the one `execvp` would give.
fn find_program(program: &OsStr, dir: Option<&Path>) -> io::Result<PathBuf> {
    let executable =
        |file: &Path| file.metadata().map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
    if program.as_encoded_bytes().contains(&b'/') {
        // A relative path names a file in the folder the command runs in.
        let path = dir.map_or_else(|| PathBuf::from(program), |dir| dir.join(program));
        return if executable(&path)? { Ok(path) } else { Err(io::ErrorKind::PermissionDenied.into()) };
    }
    let path = std::env::var_os("PATH").unwrap_or_else(|| "/bin:/usr/bin".into());
    let mut found = Err(io::ErrorKind::NotFound.into());
    for file in std::env::split_paths(&path).map(|dir| dir.join(program)) {
        match executable(&file) {
            Ok(true) => return Ok(file),
            // As execvp: a file found but not executable, when no other is.
            Ok(false) if file.is_file() => found = Err(io::ErrorKind::PermissionDenied.into()),
            _ => {}
        }
    }
    found
}

/// The error for a command that could not be started, worded as a shell
/// words it.
fn spawn_error(program: &OsStr, e: &io::Error) -> Error {
    let has_slash = program.as_encoded_bytes().contains(&b'/');
    let not_found = e.kind() == io::ErrorKind::NotFound;
    let reason = match e.kind() {
        io::ErrorKind::NotFound if has_slash => "no such file or directory".to_owned(),
        // `capout dmesg.txt` meant to read the file, most likely.
        io::ErrorKind::NotFound if Path::new(program).is_file() => format!(
            "command not found (to read the file: capout --input {})",
            shlex::try_quote(&program.to_string_lossy()).unwrap_or_default()
        ),
        io::ErrorKind::NotFound => "command not found".to_owned(),
        io::ErrorKind::PermissionDenied if Path::new(program).is_dir() => "is a directory".to_owned(),
        io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
        _ => plain_reason(e),
    };
    Error::Spawn { program: program.to_owned(), reason, not_found }
}

/// The system's message for an error, as a shell shows it: `exec format
/// error`, without Rust's `(os error 8)`.
pub fn plain_reason(e: &io::Error) -> String {
    let text = e.to_string();
    let text = text.split(" (os error").next().unwrap_or(&text);
    let mut chars = text.chars();
    chars.next().map(|first| first.to_lowercase().chain(chars).collect()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spawn_errors_read_as_a_shell_says_them() {
        let e = |program: &str, kind| spawn_error(OsStr::new(program), &io::Error::from(kind));
        assert_eq!(e("nosuch", io::ErrorKind::NotFound).to_string(), "nosuch: command not found");
        assert_eq!(e("nosuch", io::ErrorKind::NotFound).exit().code(), 127);
        assert_eq!(e("./nosuch", io::ErrorKind::NotFound).to_string(), "./nosuch: no such file or directory");
        assert_eq!(e("./file", io::ErrorKind::PermissionDenied).to_string(), "./file: permission denied");
        assert_eq!(e("./file", io::ErrorKind::PermissionDenied).exit().code(), 126);
        assert_eq!(e("/", io::ErrorKind::PermissionDenied).to_string(), "/: is a directory");
        let exec_format = spawn_error(OsStr::new("./x"), &io::Error::from_raw_os_error(8));
        assert_eq!(exec_format.to_string(), "./x: exec format error");
        assert_eq!(exec_format.exit().code(), 126);
    }
}
