//! The MCP server's tools (`read`, `grep`, `bash`) for JavaScript: the
//! same functions, roots and notices as `capout --mcp`, run off the
//! event loop.

use std::collections::HashMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use capout::command::Stop;
use capout::mcp::leftovers::{self, Which};
use capout::mcp::paths::{self, Roots};
use capout::mcp::saved::{self, Saved};
use capout::mcp::tools::{GrepMode, GrepRequest, Tools};
use napi::bindgen_prelude::{AsyncTask, External};
use napi::{Env, Error, Result, Task};
use napi_derive::napi;
use serde_json::{Value, json};

/// The default `timeout` of `bash`, in seconds, as the server's.
const BASH_TIMEOUT: u64 = 120;

/// The number of the next `bash` call, which marks its processes (with
/// this process's id), as the server numbers its calls.
static CALLS: AtomicU64 = AtomicU64::new(0);

/// The tools over one root, with the folder their saved outputs go to.
#[napi(js_name = "Tools")]
pub struct JsTools {
    tools: Arc<Tools>,
    /// The saved outputs, under the server's bound on their total size.
    outputs: Arc<Saved>,
    /// Removed by `close`, or when the object is collected. Behind a
    /// lock, as `close` takes the object shared: a running call holds it
    /// (napi-rs keeps a call's borrow of the object until its promise
    /// settles), and `close` must work then, as at `process.exit`.
    saved: Mutex<Option<tempfile::TempDir>>,
    /// The `bash` calls made and not yet ended, by number: what `close`
    /// ends.
    running: Arc<Mutex<HashMap<u64, Arc<Stop>>>>,
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
        // The server's bound, and its variable for tests.
        let max = saved::saved_max().map_err(|e| Error::from_reason(format!("capout: {e}")))?;
        let outputs = Arc::new(Saved::new(saved_path.clone(), max));
        let tools = Tools::new(Roots::new(root, real, saved_path)).map_err(Error::from_reason)?;
        Ok(JsTools {
            tools: Arc::new(tools),
            outputs,
            saved: Mutex::new(Some(saved)),
            running: Arc::default(),
        })
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

    /// `grep`: what the server's `grep` gives for the same arguments
    /// (the matching lines under `path`, default `.`, as `path:line:text`).
    #[napi(ts_return_type = "Promise<string>")]
    pub fn grep(&self, input: GrepInput) -> Result<AsyncTask<Call>> {
        Ok(self.call(Work::Grep(input.request()?)))
    }

    /// `bash`: `sh -c COMMAND` in the root, stopped after `timeout`
    /// seconds (default 120), or when `stop` is told to ([`bash_stop`]).
    #[napi(ts_return_type = "Promise<string>")]
    pub fn bash(
        &self,
        command: String,
        timeout: Option<f64>,
        #[napi(ts_arg_type = "ExternalObject<'Stop'>")] stop: &External<Arc<Stop>>,
    ) -> Result<AsyncTask<Call>> {
        let timeout = whole("timeout", timeout)?.unwrap_or(BASH_TIMEOUT);
        // Numbered now, not when it starts, so that `close` ends a call
        // still waiting for a thread of the pool too.
        let call = CALLS.fetch_add(1, Ordering::Relaxed);
        lock(&self.running).insert(call, Arc::clone(stop));
        let running = Arc::clone(&self.running);
        Ok(self.call(Work::Bash { command, timeout, stop: Arc::clone(stop), call, running }))
    }

    /// Ends the `bash` calls still running, and removes the folder of
    /// saved outputs; the tools still work, but the outputs cut from then
    /// on are not saved where a notice says.
    ///
    /// Each running call is stopped (its promise settles with what its
    /// command wrote and its status) and its processes are ended at once, SIGTERM then SIGKILL
    /// with no grace: `close` is what runs at `process.exit`, after which
    /// no thread of this process sends another signal, and Node waits for
    /// its pool's threads, so a call left running would hold the exit up
    /// for as long as its command runs.
    #[napi]
    pub fn close(&self) {
        let calls: Vec<(u64, Arc<Stop>)> = lock(&self.running).drain().collect();
        for (call, stop) in calls {
            stop.stop();
            leftovers::end_unreaped(Which::Call(call), Duration::ZERO);
        }
        if let Some(saved) = lock(&self.saved).take() {
            let _ = saved.close();
        }
    }

    fn call(&self, work: Work) -> AsyncTask<Call> {
        AsyncTask::new(Call { tools: Arc::clone(&self.tools), outputs: Arc::clone(&self.outputs), work })
    }
}

/// The state behind `mutex`, even if a thread panicked holding it: a map
/// and a folder, whole after any step.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
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

/// The arguments of `grep`, with the names and meanings of the server's
/// (`null` is as if absent).
#[napi(object)]
pub struct GrepInput {
    pub pattern: String,
    pub path: Option<String>,
    pub glob: Option<String>,
    #[napi(js_name = "type")]
    pub file_type: Option<String>,
    #[napi(js_name = "output_mode", ts_type = "'content' | 'files_with_matches' | 'count' | null")]
    pub output_mode: Option<String>,
    #[napi(js_name = "context_before")]
    pub context_before: Option<f64>,
    #[napi(js_name = "context_after")]
    pub context_after: Option<f64>,
    pub context: Option<f64>,
    #[napi(js_name = "case_insensitive")]
    pub case_insensitive: Option<bool>,
    pub multiline: Option<bool>,
    pub offset: Option<f64>,
    pub limit: Option<f64>,
}

impl GrepInput {
    /// The server's request for these arguments, defaults as the server
    /// gives them: `context_before` and `context_after` default to
    /// `context`. A number out of the schema's range is refused.
    fn request(self) -> Result<GrepRequest> {
        let lines = |name: &str, value: Option<f64>| -> Result<Option<usize>> {
            match whole(name, value)? {
                Some(n) if n > u64::from(u32::MAX) => Err(Error::from_reason(format!(
                    "{name} must be a whole number of at most {}, not {n}",
                    u32::MAX
                ))),
                n => Ok(n.map(|n| n as usize)),
            }
        };
        let context = lines("context", self.context)?.unwrap_or(0);
        let mode = match self.output_mode.as_deref() {
            None | Some("content") => GrepMode::Content,
            Some("files_with_matches") => GrepMode::FilesWithMatches,
            Some("count") => GrepMode::Count,
            Some(other) => {
                return Err(Error::from_reason(format!(
                    "output_mode must be content, files_with_matches or count, not {other:?}"
                )));
            }
        };
        Ok(GrepRequest {
            pattern: self.pattern,
            path: self.path.unwrap_or_else(|| ".".into()),
            glob: self.glob,
            file_type: self.file_type,
            mode,
            before: lines("context_before", self.context_before)?.unwrap_or(context),
            after: lines("context_after", self.context_after)?.unwrap_or(context),
            case_insensitive: self.case_insensitive.unwrap_or(false),
            multiline: self.multiline.unwrap_or(false),
            offset: whole("offset", self.offset)?.unwrap_or(0),
            limit: whole("limit", self.limit)?,
        })
    }
}

enum Work {
    Read {
        path: String,
        offset: u64,
        limit: Option<u64>,
    },
    Grep(GrepRequest),
    Bash {
        command: String,
        timeout: u64,
        stop: Arc<Stop>,
        /// The call's number, which marks its processes.
        call: u64,
        /// The running calls of its tools, which it leaves once ended.
        running: Arc<Mutex<HashMap<u64, Arc<Stop>>>>,
    },
}

/// A way to end a `bash` call while it runs, for an `AbortSignal`: made
/// before the call, told by [`bash_stop`].
#[napi(ts_return_type = "ExternalObject<'Stop'>")]
pub fn bash_stopper() -> Result<External<Arc<Stop>>> {
    let stop = Stop::new().map_err(|e| Error::from_reason(format!("cannot run the command: {e}")))?;
    Ok(External::new(Arc::new(stop)))
}

/// Ends the `bash` call made with `stop`, as a cancelled call of the
/// server ends: its whole process group gets SIGTERM at once (and
/// SIGCONT), then SIGKILL after the grace of its timeout; what left the
/// group is ended with the call, as always. Before the call starts, the
/// call ends as soon as it starts; after it, this does nothing.
#[napi]
pub fn bash_stop(#[napi(ts_arg_type = "ExternalObject<'Stop'>")] stop: &External<Arc<Stop>>) {
    stop.stop();
}

/// One call, run on a thread of libuv's pool: its text, or its error's.
pub struct Call {
    tools: Arc<Tools>,
    outputs: Arc<Saved>,
    work: Work,
}

impl Task for Call {
    type Output = String;
    type JsValue = String;

    fn compute(&mut self) -> Result<String> {
        let tools = &self.tools;
        match &self.work {
            Work::Read { path, offset, limit } => tools.read(path, *offset, *limit),
            Work::Grep(request) => tools.grep(request),
            Work::Bash { command, timeout, stop, call, running } => {
                let call = *call;
                let ran = tools.bash(command, *timeout, vec![leftovers::mark(call)], Some(Arc::clone(stop)));
                lock(running).remove(&call);
                self.outputs.evict();
                // What the command left running ends with the call, beside
                // the reply rather than before it.
                // Ended as the server ends them, but not reaped: this
                // process is no subreaper, so the orphans are init's, and
                // its own children are Node's to wait for.
                let end = move || leftovers::end_unreaped(Which::Call(call), leftovers::GRACE);
                let _ = std::thread::Builder::new().name("capout-leftovers".into()).spawn(end);
                ran
            }
        }
        .map_err(Error::from_reason)
    }

    fn resolve(&mut self, _: Env, output: String) -> Result<String> {
        Ok(output)
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
                "type": "Search only files of this type, such as \"rust\", \"py\" or \"js\" (as `rg -t`).",
                "output_mode": "`content` (default): matching lines; `files_with_matches`: paths; `count`: `path:count` per file.",
                "context_before": "Lines of context before each match (as `rg -B`; default `context`); content mode only.",
                "context_after": "Lines of context after each match (as `rg -A`; default `context`); content mode only.",
                "context": "Lines of context before and after each match (as `rg -C`); content mode only.",
                "case_insensitive": "Match without regard to case (default false).",
                "multiline": "Let a match span lines, `.` still not matching a newline (as `rg -U`; default false).",
                "offset": "Output lines to skip before the first one shown (default 0). To page on, pass the `next offset` of the notice.",
                "limit": "The most output lines to show (default: the grep profile's cap, given in the tool's description).",
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
