//! What a `bash` call leaves running: its background jobs, and the
//! processes that left its group (`setsid`, `nohup`, a daemon's double
//! fork). None outlives the call.
//!
//! Each call's command gets a variable of its own, [`MARK`], which every
//! descendant inherits; a process of the server's user shows its
//! environment in `/proc`, so what carries a finished call's mark is found
//! wherever it went. The server is a child subreaper, so that those whose
//! parents are gone become its children and are reaped once ended.

use std::ffi::OsString;
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process, kill_process_group};

/// The variable that marks the processes of one call: `SERVER.CALL`, the
/// server's process id and the call's number.
pub const MARK: &str = "CAPOUT_MCP_CALL";

/// How long what a call left gets between SIGTERM and SIGKILL.
pub const GRACE: Duration = Duration::from_secs(2);

/// Makes the server the reaper of its orphaned descendants. Where the
/// system cannot, leftovers are still found and ended, by their mark.
pub fn become_subreaper() {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    let _ = rustix::process::set_child_subreaper(Some(rustix::process::getpid()));
}

/// The variable that marks the processes of call number `call`.
pub fn mark(call: u64) -> (OsString, OsString) {
    (MARK.into(), format!("{}.{call}", std::process::id()).into())
}

/// Which processes an end applies to.
#[derive(Clone, Copy)]
pub enum Which {
    /// Those of one call.
    Call(u64),
    /// Those of every call of this server.
    All,
}

impl Which {
    fn matches(self, value: &[u8]) -> bool {
        let server = std::process::id().to_string();
        let Some(call) = value.strip_prefix(server.as_bytes()).and_then(|v| v.strip_prefix(b".")) else {
            return false;
        };
        match self {
            Which::Call(n) => call == n.to_string().as_bytes(),
            Which::All => true,
        }
    }
}

/// The live processes that carry a mark `which` matches. A process that
/// has exited (a zombie) shows no environment, and so is not found.
fn find(which: Which) -> Vec<Pid> {
    let me = std::process::id();
    let prefix = format!("{MARK}=");
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid = entry.file_name().to_str()?.parse::<u32>().ok().filter(|pid| *pid != me)?;
            // Another user's process is not readable: not one of ours.
            let environ = std::fs::read(entry.path().join("environ")).ok()?;
            let marked = environ
                .split(|b| *b == 0)
                .filter_map(|var| var.strip_prefix(prefix.as_bytes()))
                .any(|value| which.matches(value));
            marked.then(|| Pid::from_raw(i32::try_from(pid).ok()?)).flatten()
        })
        .collect()
}

/// Ends what `which` left running: SIGTERM (and SIGCONT, for a stopped
/// one), then SIGKILL to what is still there after `grace`; then reaps
/// the orphans. Each signal goes only to a process found by its mark just
/// before, so that a process id taken again by another is spared, and to
/// the process group it leads, if it leads one: what of a call's group
/// dropped the mark is ended with its leader.
pub fn end(which: Which, grace: Duration) {
    end_unreaped(which, grace);
    crate::command::reap_orphans();
}

/// [`end`] without reaping: for a process that is no subreaper, whose
/// other children are not its own to wait for (the modules' hosts: the
/// orphans are init's, and Node.js and Python wait for their own
/// children).
pub fn end_unreaped(which: Which, grace: Duration) {
    // A process inside execve shows no environment for a moment (its new
    // one is not mapped yet), and a look that meets it then misses it: a
    // look that finds nothing is made again, twice, before the call is
    // taken to have left nothing. This runs beside the reply, not before.
    let mut found = signal(which, Signal::TERM);
    for _ in 0..2 {
        if found {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
        found = signal(which, Signal::TERM);
    }
    if !found {
        return;
    }
    let _ = signal(which, Signal::CONT);
    let deadline = Instant::now() + grace;
    while !find(which).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    kill_unreaped(which);
}

/// SIGKILL to what `which` left running, a few rounds, so that a process
/// forked while the first round ran is found by the next; then reaps the
/// orphans.
pub fn kill(which: Which) {
    kill_unreaped(which);
    crate::command::reap_orphans();
}

/// [`kill`] without reaping (see [`end_unreaped`]).
fn kill_unreaped(which: Which) {
    for _ in 0..4 {
        if !signal(which, Signal::KILL) {
            break;
        }
    }
}

/// Sends `signal` to each live process that `which` matches, and to the
/// process group each one leads; whether there was any.
fn signal(which: Which, signal: Signal) -> bool {
    let found = find(which);
    for &pid in &found {
        // A group whose leader carries the mark is the call's: only the
        // call's processes can have joined it (a group is joined within
        // a session, and the call's session is its own).
        if rustix::process::getpgid(Some(pid)) == Ok(pid) {
            let _ = kill_process_group(pid, signal);
        }
        let _ = kill_process(pid, signal);
    }
    !found.is_empty()
}
