//! The MCP server's tools (`read`, `grep`, `bash`) for JavaScript: the
//! same functions, roots and notices as `capout --mcp`, run off the
//! event loop, and the rules of its `bash` calls: what a call
//! starts is marked and ended with the call, `close` ends the calls still
//! running, and [`at_exit`], which the package runs on `process.on('exit')`,
//! ends every call of the process and what its calls left.

use std::path::Path;
use std::sync::Arc;

use capout::command::Stop;
use capout::mcp::hosted::{self, Hosted, HostedError};
use capout::mcp::paths::{self, Roots};
use capout::mcp::tools::{GrepMode, GrepRequest, ToolError, Tools};
use napi::bindgen_prelude::{AsyncTask, External};
use napi::{Env, Error, Result, Task};
use napi_derive::napi;
use serde_json::{Value, json};

/// The default `timeout` of `bash`, in seconds, as the server's.
const BASH_TIMEOUT: u64 = 120;

/// The tools over one root, with the folder their saved outputs go to.
#[napi(js_name = "Tools")]
pub struct JsTools {
    /// Shared by the calls, which outlive a borrow of the object: napi-rs
    /// keeps a call's borrow until its promise settles, and `close` must
    /// work then, as at `process.exit`.
    tools: Arc<Hosted>,
    root: String,
}

#[napi]
impl JsTools {
    /// The tools over `root`, which must be a folder, as `capout --mcp
    /// --root ROOT` has them; the whole outputs of `bash` go to a new
    /// folder outside it that only its user may list.
    #[napi(constructor)]
    pub fn new(root: String) -> Result<Self> {
        let given = Path::new(&root);
        let fail = |why: String| Error::from_reason(format!("capout: root {}: {why}", given.display()));
        let real = given.canonicalize().map_err(|e| fail(paths::reason(&e)))?;
        if !real.is_dir() {
            return Err(fail("not a directory".into()));
        }
        let tools = Hosted::new(given, real, "capout-mcp-", "node").map_err(|e| failed(&root, e))?;
        Ok(JsTools { tools: Arc::new(tools), root })
    }

    /// The folder the whole outputs of `bash` are saved to.
    #[napi(getter)]
    pub fn saved_dir(&self) -> String {
        self.tools.saved_dir().display().to_string()
    }

    /// `read`: lines `offset`+1 … `offset`+`limit` of a file, numbered.
    #[napi(ts_return_type = "Promise<string>")]
    pub fn read(&self, path: String, offset: Option<f64>, limit: Option<f64>) -> Result<AsyncTask<Call>> {
        let offset = whole("offset", offset)?.unwrap_or(0);
        let limit = whole("limit", limit)?;
        Ok(AsyncTask::new(Call { work: Work::Read { tools: self.tools()?, path, offset, limit } }))
    }

    /// `grep`: what the server's `grep` gives for the same arguments
    /// (the matching lines under `path`, default `.`, as `path:line:text`).
    #[napi(ts_return_type = "Promise<string>")]
    pub fn grep(&self, input: GrepInput) -> Result<AsyncTask<Call>> {
        let request = input.request()?;
        Ok(AsyncTask::new(Call { work: Work::Grep { tools: self.tools()?, request } }))
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
        // Counted now, not when it starts, so that `close` ends a call
        // still waiting for a thread of the pool too.
        let call = self.tools.call(Arc::clone(stop)).map_err(|e| failed(&self.root, e))?;
        Ok(AsyncTask::new(Call { work: Work::Bash { command, timeout, call: Some(call) } }))
    }

    /// Ends the `bash` calls still running, and removes the folder of
    /// saved outputs; the tools still work after, the next call making a
    /// new folder.
    ///
    /// Each running call is stopped (its promise settles with what its
    /// command wrote and its status) and its processes are ended at once,
    /// SIGTERM then SIGKILL with no grace: `close` may be what runs at
    /// `process.exit`, after which no thread of this process sends another
    /// signal, and Node waits for its pool's threads, so a call left
    /// running would hold the exit up for as long as its command runs.
    #[napi]
    pub fn close(&self) {
        self.tools.close();
    }

    /// The tools as they are now (with a folder again after `close`).
    fn tools(&self) -> Result<Arc<Tools>> {
        self.tools.tools().map_err(|e| failed(&self.root, e))
    }
}

/// The error of tools that could not be made, or made again.
fn failed(root: &str, e: HostedError) -> Error {
    match e {
        HostedError::Folder(why) => Error::from_reason(format!("capout: root {root}: {why}")),
        HostedError::SavedMax(why) => Error::from_reason(format!("capout: {why}")),
        HostedError::Profiles(why) => Error::from_reason(why),
    }
}

/// What the package runs on `process.on('exit')` (the main thread's):
/// every `bash` call still running is ended with what it left, SIGTERM
/// and SIGKILL at once, and the folders of saved outputs go.
#[napi]
pub fn at_exit() {
    hosted::at_exit();
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

/// A call, on the tools as they were when it was made.
enum Work {
    Read {
        tools: Arc<Tools>,
        path: String,
        offset: u64,
        limit: Option<u64>,
    },
    Grep {
        tools: Arc<Tools>,
        request: GrepRequest,
    },
    Bash {
        command: String,
        timeout: u64,
        /// Taken when it runs.
        call: Option<hosted::Call>,
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
    work: Work,
}

impl Task for Call {
    type Output = String;
    type JsValue = String;

    /// The call; a panic in it (a bug) rejects its promise with the text
    /// of a tool error, as the server answers one: unwinding out of a
    /// thread of libuv's pool would abort the process.
    fn compute(&mut self) -> Result<String> {
        hosted::guard(|| match &mut self.work {
            Work::Read { tools, path, offset, limit } => tools.read(path, *offset, *limit),
            Work::Grep { tools, request } => tools.grep(request),
            // napi-rs computes a task once.
            Work::Bash { command, timeout, call } => match call.take() {
                Some(call) => call.run(command, *timeout),
                None => Err(ToolError::Failed("capout: this call already ran".into())),
            },
        })
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
