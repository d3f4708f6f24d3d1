//! The MCP server's tools (`read`, `grep`, `bash`) for JavaScript: the
//! same functions, roots and notices as `capout --mcp`, run off the
//! event loop.

use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use capout::mcp::paths::{self, Roots};
use capout::mcp::tools::{GrepRequest, Tools};
use napi::bindgen_prelude::AsyncTask;
use napi::{Env, Error, Result, Task};
use napi_derive::napi;
use rustix::process::{Pid, Signal, kill_process};
use serde_json::{Value, json};

/// The default `timeout` of `bash`, in seconds, as the server's.
const BASH_TIMEOUT: u64 = 120;

/// The most the saved outputs of one set of tools take in all, as the
/// server's: the oldest are removed first.
const SAVED_MAX: u64 = 1 << 30;

/// The variable that marks the processes of one `bash` call
/// (`PID.CALL`), so that what a call left running is found and ended.
const MARK: &str = "CAPOUT_NODE_CALL";

/// How long what a call left running gets between SIGTERM and SIGKILL,
/// as the server's.
const GRACE: Duration = Duration::from_secs(2);

static CALLS: AtomicU64 = AtomicU64::new(0);

/// The tools over one root, with the folder their saved outputs go to.
#[napi(js_name = "Tools")]
pub struct JsTools {
    tools: Arc<Tools>,
    /// The saved outputs, oldest first, with their sizes.
    files: Arc<Mutex<Vec<(OsString, u64)>>>,
    /// Removed by `close`, or when the object is collected.
    saved: Option<tempfile::TempDir>,
}

#[napi]
impl JsTools {
    /// The tools over `root`, which must be a folder, as `capout --mcp
    /// --root ROOT` has them; the whole outputs of `bash` go to a new
    /// folder outside it that only its user may list.
    #[napi(constructor)]
    pub fn new(root: String) -> Result<Self> {
        let root = Path::new(&root);
        let fail = |why: String| Error::from_reason(format!("capout: root {}: {why}", root.display()));
        let real = root.canonicalize().map_err(|e| fail(paths::reason(&e)))?;
        if !real.is_dir() {
            return Err(fail("not a directory".into()));
        }
        let saved = tempfile::Builder::new()
            .prefix("capout-mcp-")
            .permissions(std::fs::Permissions::from_mode(0o700))
            .tempdir()
            .map_err(|e| fail(format!("cannot make a folder for saved outputs: {}", paths::reason(&e))))?;
        let saved_path = saved.path().canonicalize().map_err(|e| fail(paths::reason(&e)))?;
        let tools = Tools::new(Roots::new(root, real, saved_path)).map_err(Error::from_reason)?;
        Ok(JsTools { tools: Arc::new(tools), files: Arc::default(), saved: Some(saved) })
    }

    /// The folder the whole outputs of `bash` are saved to.
    #[napi(getter)]
    pub fn saved_dir(&self) -> String {
        self.tools.roots.saved.display().to_string()
    }

    /// `read`: lines `offset`+1 … `offset`+`limit` of a file, numbered.
    #[napi(ts_return_type = "Promise<string>")]
    pub fn read(&self, path: String, offset: Option<f64>, limit: Option<f64>) -> Result<AsyncTask<Call>> {
        let offset = whole("offset", offset)?.unwrap_or(0);
        let limit = whole("limit", limit)?;
        Ok(self.call(Work::Read { path, offset, limit }))
    }

    /// `grep`: the matching lines under `path` (default `.`), as
    /// `path:line:text`.
    #[napi(ts_return_type = "Promise<string>")]
    pub fn grep(
        &self,
        pattern: String,
        path: Option<String>,
        glob: Option<String>,
        case_insensitive: Option<bool>,
    ) -> AsyncTask<Call> {
        self.call(Work::Grep {
            pattern,
            path: path.unwrap_or_else(|| ".".into()),
            glob,
            case_insensitive: case_insensitive.unwrap_or(false),
        })
    }

    /// `bash`: `sh -c COMMAND` in the root, stopped after `timeout`
    /// seconds (default 120).
    #[napi(ts_return_type = "Promise<string>")]
    pub fn bash(&self, command: String, timeout: Option<f64>) -> Result<AsyncTask<Call>> {
        let timeout = whole("timeout", timeout)?.unwrap_or(BASH_TIMEOUT);
        Ok(self.call(Work::Bash { command, timeout }))
    }

    /// Removes the folder of saved outputs; the tools still work, but the
    /// outputs cut from then on are not saved where a notice says.
    #[napi]
    pub fn close(&mut self) {
        if let Some(saved) = self.saved.take() {
            let _ = saved.close();
        }
    }

    fn call(&self, work: Work) -> AsyncTask<Call> {
        AsyncTask::new(Call { tools: Arc::clone(&self.tools), files: Arc::clone(&self.files), work })
    }
}

/// A number of the arguments as the server's schema has it: a whole
/// number, at least 0.
fn whole(name: &str, value: Option<f64>) -> Result<Option<u64>> {
    match value {
        None => Ok(None),
        #[allow(clippy::cast_sign_loss)]
        Some(n) if n.is_finite() && n >= 0.0 && n.fract() == 0.0 && n < 2f64.powi(64) => Ok(Some(n as u64)),
        Some(n) => Err(Error::from_reason(format!("{name} must be a whole number of at least 0, not {n}"))),
    }
}

enum Work {
    Read { path: String, offset: u64, limit: Option<u64> },
    Grep { pattern: String, path: String, glob: Option<String>, case_insensitive: bool },
    Bash { command: String, timeout: u64 },
}

/// One call, run on a thread of libuv's pool: its text, or its error's.
pub struct Call {
    tools: Arc<Tools>,
    files: Arc<Mutex<Vec<(OsString, u64)>>>,
    work: Work,
}

impl Task for Call {
    type Output = String;
    type JsValue = String;

    fn compute(&mut self) -> Result<String> {
        let tools = &self.tools;
        match &self.work {
            Work::Read { path, offset, limit } => tools.read(path, *offset, *limit),
            Work::Grep { pattern, path, glob, case_insensitive } => {
                let request = GrepRequest {
                    pattern: pattern.clone(),
                    path: path.clone(),
                    glob: glob.clone(),
                    case_insensitive: *case_insensitive,
                    ..GrepRequest::default()
                };
                tools.grep(&request)
            }
            Work::Bash { command, timeout } => {
                let call = CALLS.fetch_add(1, Ordering::Relaxed);
                let mark = format!("{}.{call}", std::process::id());
                let ran = tools.bash(command, *timeout, vec![(MARK.into(), mark.clone().into())], None);
                evict(&tools.roots.saved, &self.files);
                // What the command left running ends with the call, beside
                // the reply rather than before it.
                let _ = std::thread::Builder::new().name("capout-leftovers".into()).spawn(move || end(&mark));
                ran
            }
        }
        .map_err(Error::from_reason)
    }

    fn resolve(&mut self, _: Env, output: String) -> Result<String> {
        Ok(output)
    }
}

/// Removes the oldest saved outputs until the rest fit in [`SAVED_MAX`];
/// the newest stays, even alone over it: the notice just named it.
fn evict(dir: &Path, files: &Mutex<Vec<(OsString, u64)>>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut files = files.lock().unwrap_or_else(PoisonError::into_inner);
    let mut present: Vec<_> = entries
        .flatten()
        .filter_map(|entry| {
            let meta = entry.metadata().ok().filter(std::fs::Metadata::is_file)?;
            Some((entry.file_name(), meta.len()))
        })
        .collect();
    files.retain(|(name, _)| present.iter().any(|(n, _)| n == name));
    present.retain(|(name, _)| !files.iter().any(|(n, _)| n == name));
    files.extend(present);
    let mut total: u64 = files.iter().map(|(_, len)| len).sum();
    while total > SAVED_MAX && files.len() > 1 {
        let (name, len) = files.remove(0);
        let _ = std::fs::remove_file(dir.join(name));
        total -= len;
    }
}

/// The processes of this user that carry `MARK=mark`, found in /proc.
fn marked(mark: &str) -> Vec<Pid> {
    let var = format!("{MARK}={mark}");
    let me = std::process::id();
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid = entry.file_name().to_str()?.parse::<u32>().ok().filter(|pid| *pid != me)?;
            let environ = std::fs::read(entry.path().join("environ")).ok()?;
            environ.split(|b| *b == 0).any(|v| v == var.as_bytes()).then_some(())?;
            Pid::from_raw(i32::try_from(pid).ok()?)
        })
        .collect()
}

/// Ends what a call left running, as the server does: SIGTERM (and
/// SIGCONT), then SIGKILL to what is still there after [`GRACE`]. Nothing
/// is reaped here: this process is no subreaper, so the orphans are
/// init's, and its own children are Node's to wait for.
fn end(mark: &str) {
    if marked(mark).is_empty() {
        return;
    }
    for pid in marked(mark) {
        let _ = kill_process(pid, Signal::TERM);
        let _ = kill_process(pid, Signal::CONT);
    }
    let deadline = Instant::now() + GRACE;
    while !marked(mark).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    for _ in 0..4 {
        let found = marked(mark);
        if found.is_empty() {
            break;
        }
        for pid in found {
            let _ = kill_process(pid, Signal::KILL);
        }
    }
}

/// What the tools tell a model, as `capout --mcp` lists them: each
/// tool's description, and each argument's.
#[napi]
pub fn tool_descriptions() -> Result<Value> {
    // The server's own words, from the profiles loaded; the roots only
    // name where the tools would look.
    let here = std::env::temp_dir();
    let tools = Tools::new(Roots::new(&here, here.clone(), here.clone())).map_err(Error::from_reason)?;
    let [read, grep, bash] = ["read", "grep", "bash"].map(|name| capout::mcp::describe(name, &tools));
    Ok(json!({
        "read": {
            "description": read,
            "args": {
                "path": "The file to read: relative to the server's root, or a path that a bash notice named.",
                "offset": "Lines to skip before the first one shown (default 0). To page on, pass the `next offset` of the notice.",
                "limit": "The most lines to show (default: the read profile's cap, given in the tool's description).",
            },
        },
        "grep": {
            "description": grep,
            "args": {
                "pattern": "The regular expression to search for (Rust regex syntax, as ripgrep's).",
                "path": "The file or folder to search, relative to the server's root (default \".\").",
                "glob": "Search only files whose names match this glob, such as \"*.rs\" or \"src/**/*.py\" (as `rg -g`).",
                "case_insensitive": "Match without regard to case (default false).",
            },
        },
        "bash": {
            "description": bash,
            "args": {
                "command": "The command, run as `sh -c COMMAND` where the last command ended (at first the server's root), stdout and stderr joined.",
                "timeout": "Seconds before the command is stopped (SIGTERM, then SIGKILL 5 s later); default 120.",
            },
        },
    }))
}
