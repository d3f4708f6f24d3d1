//! The tools in a process that is not the server: the Python and Node.js
//! modules'. Their `bash` calls keep the rules of the server's:
//! each call marks what it starts, as the server's calls do, and what it
//! leaves running (a background job, a `setsid` or `nohup` one) is ended
//! with it; [`Hosted::close`] ends the calls of one set of tools at once;
//! [`at_exit`], which the modules run as their host exits (`atexit` in
//! Python, `process.on('exit')` in Node.js), ends every call of the
//! process and what its calls left, and removes the folders of saved
//! outputs still there.
//!
//! The host is not made a child subreaper, as the server makes itself:
//! the orphans of every child of the host's own (a `subprocess` or
//! `child_process` job that double-forks) would become the host's to
//! reap, zombies in a process that never waits for them, and reaping
//! them here would take exit statuses that the host's own code waits
//! for. So a module reaches a call's processes by their mark and by their
//! process group (a group whose leader carries the mark): a process that
//! drops the mark and leaves its group too is beyond it, where the
//! server, as their subreaper, would still find it. The ended processes
//! are reaped by init, or by the host if it is a subreaper itself.

use std::collections::HashMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use super::leftovers::{self, GRACE, Which};
use super::saved::{self, Saved};
use crate::command::Stop;
use crate::mcp::paths::{self, Roots};
use crate::mcp::tools::{ToolError, Tools};

/// The number of the next `bash` call of this process, which marks its
/// processes (with the process's id).
static NEXT_CALL: AtomicU64 = AtomicU64::new(0);

/// [`at_exit`] has run: the host is exiting.
static EXITING: AtomicBool = AtomicBool::new(false);

/// What [`at_exit`] ends and removes: every running call and every folder
/// of saved outputs of this process.
static PROCESS: Mutex<Process> = Mutex::new(Process { pid: 0, calls: Vec::new(), folders: Vec::new() });

struct Process {
    /// The process these belong to: a child made by `fork` inherits
    /// them, and must not end its parent's calls or remove its folders.
    pid: u32,
    calls: Vec<(u64, Arc<Stop>)>,
    folders: Vec<PathBuf>,
}

/// This process's calls and folders.
fn process() -> MutexGuard<'static, Process> {
    let mut process = lock(&PROCESS);
    let me = std::process::id();
    if process.pid != me {
        *process = Process { pid: me, calls: Vec::new(), folders: Vec::new() };
    }
    process
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Why the tools could not be made.
#[derive(Debug)]
pub enum HostedError {
    /// The folder of saved outputs could not be made.
    Folder(String),
    /// `CAPOUT_MCP_SAVED_MAX` is no number of bytes.
    SavedMax(String),
    /// The profiles of the tools (the config file) are wrong.
    Profiles(String),
}

impl std::fmt::Display for HostedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HostedError::Folder(why) | HostedError::SavedMax(why) | HostedError::Profiles(why) => {
                f.write_str(why)
            }
        }
    }
}

/// The tools over one root in a module, with their folder of saved
/// outputs and their running `bash` calls.
pub struct Hosted {
    /// What the folder's name starts with (`capout-py-`).
    prefix: &'static str,
    /// The bound on the saved outputs.
    max: u64,
    open: Mutex<Open>,
    /// The calls of these tools that run, by number.
    calls: Arc<Mutex<HashMap<u64, Arc<Stop>>>>,
}

/// The tools as they are now.
struct Open {
    tools: Arc<Tools>,
    saved: Arc<Saved>,
    /// The folder of saved outputs; `None` once closed, until a call
    /// needs one again.
    folder: Option<Folder>,
}

/// A folder of saved outputs, removed when dropped (by the process that
/// made it only) or at the process's exit.
struct Folder {
    path: PathBuf,
    owner: u32,
}

impl Folder {
    fn new(prefix: &str) -> Result<Folder, HostedError> {
        let made = tempfile::Builder::new()
            .prefix(prefix)
            .permissions(std::fs::Permissions::from_mode(0o700))
            .tempdir()
            .map_err(|e| {
                HostedError::Folder(format!("cannot make a folder for saved outputs: {}", paths::reason(&e)))
            })?;
        let path = made.path().canonicalize().map_err(|e| HostedError::Folder(paths::reason(&e)))?;
        // Removed by this type, not by tempfile's: only in the process
        // that made it.
        let _ = made.keep();
        process().folders.push(path.clone());
        Ok(Folder { path, owner: std::process::id() })
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        if self.owner != std::process::id() {
            return;
        }
        let _ = std::fs::remove_dir_all(&self.path);
        process().folders.retain(|path| *path != self.path);
    }
}

impl Hosted {
    /// The tools over `root` (as given; `real` is it canonical, a folder),
    /// their saved outputs in a new folder outside it, named `prefix…`,
    /// that only its user may list, and bound as the server bounds them;
    /// the ledger names `front` (`python`, `node`) as what served them.
    pub fn new(
        root: &Path,
        real: PathBuf,
        prefix: &'static str,
        front: &'static str,
    ) -> Result<Hosted, HostedError> {
        let max = saved::saved_max().map_err(HostedError::SavedMax)?;
        let folder = Folder::new(prefix)?;
        let mut tools =
            Tools::new(Roots::new(root, real, folder.path.clone())).map_err(HostedError::Profiles)?;
        tools.front = front;
        let saved = Arc::new(Saved::new(folder.path.clone(), max));
        let open = Open { tools: Arc::new(tools), saved, folder: Some(folder) };
        Ok(Hosted { prefix, max, open: Mutex::new(open), calls: Arc::default() })
    }

    /// The tools, with a folder of saved outputs: a new one when they
    /// were closed, the session's working directory kept.
    pub fn tools(&self) -> Result<Arc<Tools>, HostedError> {
        Ok(Arc::clone(&self.reopen()?.tools))
    }

    fn reopen(&self) -> Result<MutexGuard<'_, Open>, HostedError> {
        let mut open = lock(&self.open);
        if open.folder.is_none() {
            let folder = Folder::new(self.prefix)?;
            let mut tools = Tools::clone(&open.tools);
            tools.roots.saved.clone_from(&folder.path);
            open.saved = Arc::new(Saved::new(folder.path.clone(), self.max));
            open.tools = Arc::new(tools);
            open.folder = Some(folder);
        }
        Ok(open)
    }

    /// The root, canonical.
    pub fn root(&self) -> PathBuf {
        lock(&self.open).tools.roots.root.clone()
    }

    /// The folder the whole outputs of `bash` are saved to (after
    /// `close`, the one removed, until a call makes a new one).
    pub fn saved_dir(&self) -> PathBuf {
        lock(&self.open).tools.roots.saved.clone()
    }

    /// A `bash` call, counted among those that run from now on, so that
    /// `close` and the exit end it even before it starts; `stop` ends it
    /// early.
    pub fn call(&self, stop: Arc<Stop>) -> Result<Call, HostedError> {
        let open = self.reopen()?;
        let number = NEXT_CALL.fetch_add(1, Ordering::Relaxed);
        lock(&self.calls).insert(number, Arc::clone(&stop));
        process().calls.push((number, Arc::clone(&stop)));
        Ok(Call {
            number,
            stop,
            tools: Arc::clone(&open.tools),
            saved: Arc::clone(&open.saved),
            calls: Arc::clone(&self.calls),
        })
    }

    /// Ends the `bash` calls of these tools that still run, and removes
    /// their folder of saved outputs. Each call is stopped (it returns
    /// what its command wrote and its status) and its processes get
    /// SIGTERM and SIGKILL at once, without a grace: `close` is what a
    /// host runs as it exits. The tools still work after: the next call
    /// makes a new folder.
    pub fn close(&self) {
        let calls: Vec<(u64, Arc<Stop>)> = lock(&self.calls).drain().collect();
        for (number, stop) in calls {
            stop.stop();
            leftovers::end_unreaped(Which::Call(number), Duration::ZERO);
        }
        lock(&self.open).folder = None;
    }
}

/// A `bash` call of a module's tools.
pub struct Call {
    number: u64,
    stop: Arc<Stop>,
    tools: Arc<Tools>,
    saved: Arc<Saved>,
    /// The running calls of its tools, which it leaves once ended.
    calls: Arc<Mutex<HashMap<u64, Arc<Stop>>>>,
}

impl Call {
    /// Runs `command` as the server's `bash` does, its processes marked;
    /// what it leaves running is ended beside the reply, SIGTERM, then
    /// SIGKILL after the server's grace.
    pub fn run(self, command: &str, timeout: u64) -> Result<String, ToolError> {
        let env = vec![leftovers::mark(self.number)];
        let ran = self.tools.bash(command, timeout, env, Some(Arc::clone(&self.stop)));
        self.saved.evict();
        let number = self.number;
        drop(self);
        let end = move || leftovers::end_unreaped(Which::Call(number), GRACE);
        if std::thread::Builder::new().name("capout-leftovers".into()).spawn(end).is_err() {
            leftovers::end_unreaped(Which::Call(number), Duration::ZERO);
        }
        ran
    }
}

impl Drop for Call {
    fn drop(&mut self) {
        lock(&self.calls).remove(&self.number);
        process().calls.retain(|(number, _)| *number != self.number);
    }
}

/// Ends every `bash` call of this process and what its calls left
/// running (SIGTERM and SIGKILL at once, their groups too), and removes
/// the folders of saved outputs still there: what a module runs as its
/// host exits. Nothing of a parent's is touched in a child made by
/// `fork`.
pub fn at_exit() {
    EXITING.store(true, Ordering::SeqCst);
    let (calls, folders) = {
        let mut process = process();
        (std::mem::take(&mut process.calls), std::mem::take(&mut process.folders))
    };
    for (_, stop) in &calls {
        stop.stop();
    }
    leftovers::end_unreaped(Which::All, Duration::ZERO);
    for folder in folders {
        let _ = std::fs::remove_dir_all(folder);
    }
}

/// Whether [`at_exit`] has run: a call that it ended returns into a host
/// that is going away (the Python module's thread then waits for the end
/// rather than taking the interpreter's lock again).
pub fn exiting() -> bool {
    EXITING.load(Ordering::SeqCst)
}

/// Runs a tool call, a panic in it (a bug) turned into the call's error,
/// as the server turns one into a tool error: the host goes on. (With
/// `panic = "abort"` a panic would end the host: the modules are built
/// with unwinding, see the workspace's profiles.)
pub fn guard(call: impl FnOnce() -> Result<String, ToolError>) -> Result<String, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(call))
        .unwrap_or_else(|payload| Err(ToolError::Failed(panicked(&*payload))))
        .map_err(String::from)
}

/// The text of a tool error for a call that panicked with `payload`.
pub fn panicked(payload: &(dyn std::any::Any + Send)) -> String {
    let message = payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic");
    crate::mcp::notice::tool_failed(format_args!("a bug in capout: {message}"))
}
