//! The MCP server of `capout-mcp`, which `capout --mcp [--root DIR]` runs: the three
//! bounded tools, `read`, `grep` and `bash`, served over the Model Context
//! Protocol on stdin and stdout, with the official Rust SDK.
//!
//! An executable of its own, so that the SDK, its async runtime and
//! ripgrep's crates stay out of the `capout` filter: linked into it, they
//! made every filter run map a third more of its binary, and its peak
//! memory passed the 4 MiB it must stay under. Each call runs on a
//! blocking thread, so a long `bash` holds up no other call; a failing call is a tool error, and the
//! session goes on.

mod leftovers;
pub mod paths;
pub mod tools;
mod transport;

use std::collections::HashMap;
use std::io::{self, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt, schemars, tool, tool_handler, tool_router};
use serde::Deserialize;

use crate::command::Stop;
use crate::exit::Exit;
use crate::signals::{self, Signals};
use crate::{cli, command};
use leftovers::Which;
use paths::Roots;
use tools::Tools;

/// `capout-mcp`: serves the tools on stdin and stdout until the client
/// closes stdin.
pub fn main() -> ExitCode {
    // Started by itself to run a command in a session of its own.
    if let Some(status) = command::exec_in_new_session() {
        return ExitCode::from(status);
    }
    // The words of `capout --mcp`, with `--mcp` itself optional.
    let mut args = std::env::args_os();
    let name = args.next().unwrap_or_default();
    let words = [name, "--mcp".into()].into_iter().chain(args.filter(|arg| arg != "--mcp"));
    let Some(root) = cli::mcp_requested(words) else {
        let _ = writeln!(io::stderr(), "usage: capout --mcp [--root DIR]");
        return Exit::Usage.into();
    };
    serve(&root)
}

/// Serves the tools until the client closes stdin. On SIGINT, SIGTERM or
/// SIGHUP, the running commands get the signal and the server ends.
fn serve(root: &Path) -> ExitCode {
    match start(root) {
        Ok(code) => code,
        Err(e) => {
            let _ = writeln!(io::stderr(), "capout: --mcp: {e}");
            Exit::Failure.into()
        }
    }
}

fn start(root: &Path) -> Result<ExitCode, String> {
    let real =
        root.canonicalize().map_err(|e| format!("--root {}: {}", root.display(), paths::reason(&e)))?;
    if !real.is_dir() {
        return Err(format!("--root {}: not a directory", root.display()));
    }
    let saved_max = saved_max()?;
    // What a call leaves running becomes the server's to find and end.
    leftovers::become_subreaper();
    // The whole outputs of `bash`, outside the root (so that `grep`
    // never meets them), removed when the server ends. Only its user
    // may list it: names and times of outputs are no one else's.
    let saved = tempfile::Builder::new()
        .prefix("capout-mcp-")
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir()
        .map_err(|e| format!("cannot make a folder for saved outputs: {}", paths::reason(&e)))?;
    let saved_path = saved.path().canonicalize().map_err(|e| paths::reason(&e))?;
    let tools = Tools::new(Roots::new(root, real, saved_path.clone()))?;
    let calls = Arc::new(Calls::default());
    let signal = watch_signals(Arc::clone(&calls), saved_path.clone())
        .map_err(|e| format!("cannot catch signals: {e}"))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    let mut tool_router = Server::tool_router();
    // Each description states the caps of the profiles actually loaded.
    for route in tool_router.map.values_mut() {
        route.attr.description = Some(describe(&route.attr.name, &tools).into());
    }
    let server = Server {
        tools: Arc::new(tools),
        calls: Arc::clone(&calls),
        saved: Arc::new(Saved { dir: saved_path, max: saved_max, files: Mutex::default() }),
        tool_router,
    };
    let at_end = Arc::new(tokio::sync::Notify::new());
    let input = Input {
        stdin: tokio::io::stdin(),
        calls: Arc::clone(&calls),
        closing: signal.closing,
        at_end: Arc::clone(&at_end),
        ended: false,
    };
    let ended = runtime.block_on(async move {
        let transport = transport::Lines::new(input, tokio::io::stdout());
        let running = server.serve(transport).await.map_err(|e| e.to_string())?;
        // The calls were told to end when the input did; a call that
        // does not end within the grace is not waited for.
        tokio::select! {
            ended = running.waiting() => ended.map(|_| ()).map_err(|e| e.to_string()),
            () = async {
                at_end.notified().await;
                tokio::time::sleep(SIGNAL_GRACE).await;
            } => Ok(()),
        }
    });
    // Nothing a call started outlives the session.
    leftovers::kill(Which::All);
    // A call stuck for good (in a system call no signal ends) is left to
    // the end of the process, not waited for.
    runtime.shutdown_background();
    drop(saved);
    ended.map(|()| ExitCode::SUCCESS)
}

/// The largest total size of the saved outputs of a session, by default.
const SAVED_MAX: u64 = 1 << 30;

/// The variable that sets [`SAVED_MAX`] otherwise (in bytes), for tests.
const SAVED_MAX_VAR: &str = "CAPOUT_MCP_SAVED_MAX";

fn saved_max() -> Result<u64, String> {
    match std::env::var_os(SAVED_MAX_VAR) {
        None => Ok(SAVED_MAX),
        Some(value) => value
            .to_str()
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("{SAVED_MAX_VAR}: not a number of bytes: {}", value.to_string_lossy())),
    }
}

/// The folder of saved outputs, and the bound on their total size.
struct Saved {
    dir: PathBuf,
    max: u64,
    /// The saved outputs, oldest first, with their sizes.
    files: Mutex<Vec<(std::ffi::OsString, u64)>>,
}

impl Saved {
    /// Removes the oldest saved outputs until the rest fit in the bound.
    /// The newest stays, even alone over it: the notice just named it.
    fn evict(&self) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else { return };
        let mut files = self.files.lock().unwrap_or_else(PoisonError::into_inner);
        let mut present: Vec<_> = entries
            .flatten()
            .filter_map(|entry| {
                let meta = entry.metadata().ok().filter(std::fs::Metadata::is_file)?;
                Some((entry.file_name(), meta.len()))
            })
            .collect();
        // Known ones keep their place; new ones (of this call, or of
        // calls that ended at the same time) follow.
        files.retain(|(name, _)| present.iter().any(|(n, _)| n == name));
        present.retain(|(name, _)| !files.iter().any(|(n, _)| n == name));
        files.extend(present);
        let mut total: u64 = files.iter().map(|(_, len)| len).sum();
        while total > self.max && files.len() > 1 {
            let (name, len) = files.remove(0);
            let _ = std::fs::remove_file(self.dir.join(name));
            total -= len;
        }
    }
}

/// The server's stdin. At its end the client is gone: the commands that
/// still run are told so at once, with SIGHUP, as a terminal that closes
/// tells its jobs, and SIGTERM, as a cancelled call is told, so that the
/// server ends soon after, and with it the commands, rather than when
/// their timeouts are out.
struct Input {
    stdin: tokio::io::Stdin,
    calls: Arc<Calls>,
    closing: Arc<AtomicBool>,
    /// Told once the input has ended.
    at_end: Arc<tokio::sync::Notify>,
    ended: bool,
}

impl tokio::io::AsyncRead for Input {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = std::pin::Pin::new(&mut self.stdin).poll_read(cx, buf);
        let at_end = matches!(polled, std::task::Poll::Ready(Ok(()))) && buf.filled().len() == before;
        if at_end && !std::mem::replace(&mut self.ended, true) {
            self.closing.store(true, Ordering::SeqCst);
            if self.calls.close() {
                let _ = signal_hook::low_level::raise(signal_hook::consts::SIGHUP);
            }
            self.at_end.notify_one();
        }
        polled
    }
}

/// The commands that `bash` calls are running, so that a signal that ends
/// the server waits until they have been told.
#[derive(Default)]
struct Calls {
    state: Mutex<CallState>,
    done: Condvar,
}

#[derive(Default)]
struct CallState {
    running: usize,
    /// The client is gone: no command starts any more.
    closed: bool,
    /// The number of the next call.
    next: u64,
    /// How to end each running call, by its number.
    stops: HashMap<u64, Arc<Stop>>,
}

impl Calls {
    fn lock(&self) -> std::sync::MutexGuard<'_, CallState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Counts a call while it runs; `None` once the client is gone.
    fn enter(self: &Arc<Self>) -> Result<CallGuard, String> {
        let stop = Arc::new(Stop::new().map_err(|e| format!("cannot run the command: {e}"))?);
        let mut state = self.lock();
        if state.closed {
            return Err("the server is ending: its client closed its input".into());
        }
        state.running += 1;
        let number = state.next;
        state.next += 1;
        state.stops.insert(number, Arc::clone(&stop));
        Ok(CallGuard { calls: Arc::clone(self), number, stop })
    }

    /// Starts no more calls and tells those that run to end; whether
    /// some still run.
    fn close(&self) -> bool {
        let mut state = self.lock();
        state.closed = true;
        for stop in state.stops.values() {
            stop.stop();
        }
        state.running > 0
    }

    /// Waits until no call runs, at most `limit`.
    fn wait_idle(&self, limit: Duration) {
        let state = self.lock();
        let _ = self.done.wait_timeout_while(state, limit, |s| s.running > 0);
    }
}

/// A running call: its number, which marks its processes, and how to
/// end it.
struct CallGuard {
    calls: Arc<Calls>,
    number: u64,
    stop: Arc<Stop>,
}

impl Drop for CallGuard {
    fn drop(&mut self) {
        let mut state = self.calls.lock();
        state.running -= 1;
        state.stops.remove(&self.number);
        drop(state);
        self.calls.done.notify_all();
    }
}

/// Ends a call whose reply is no longer awaited (the request was
/// cancelled, or the server is ending), unless disarmed.
struct StopOnDrop(Option<Arc<Stop>>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        if let Some(stop) = self.0.take() {
            stop.stop();
        }
    }
}

/// What the signal watcher is told.
struct Watch {
    /// The server itself raised SIGHUP at the end of its input.
    closing: Arc<AtomicBool>,
}

/// How long a signal that ends the server waits for the running commands
/// to end: each got the signal from capout's command mode.
const SIGNAL_GRACE: Duration = Duration::from_secs(2);

/// Catches SIGINT, SIGTERM and SIGHUP for the server's whole life.
///
/// Each `bash` call runs through command mode, which catches them too
/// while its command runs and passes them on to the command's process
/// group; it does not end the server. This watcher does: once the
/// running commands have ended (or [`SIGNAL_GRACE`] has passed), the
/// server exits as the signal would have ended it.
fn watch_signals(calls: Arc<Calls>, saved: PathBuf) -> io::Result<Watch> {
    let mut signals = Signals::catch(false)?;
    let closing = Arc::new(AtomicBool::new(false));
    let seen_closing = Arc::clone(&closing);
    std::thread::Builder::new().name("capout-mcp-signals".into()).spawn(move || {
        loop {
            let wake = signals.wake();
            let mut fds = [rustix::event::PollFd::new(&wake, rustix::event::PollFlags::IN)];
            let _ = rustix::event::poll(&mut fds, None);
            signals.drain();
            let Some(signal) = signals.take().next() else { continue };
            if seen_closing.load(Ordering::SeqCst) {
                continue;
            }
            calls.wait_idle(SIGNAL_GRACE);
            leftovers::kill(Which::All);
            // Dying of the signal runs no destructor: the folder goes now.
            let _ = std::fs::remove_dir_all(&saved);
            signals.release();
            signals::die_of(signal.as_raw());
            std::process::exit(Exit::Signal(signal.as_raw()).code().into());
        }
    })?;
    Ok(Watch { closing })
}

/// The MCP server: the tools, and the router the SDK's macros build.
#[derive(Clone)]
struct Server {
    tools: Arc<Tools>,
    calls: Arc<Calls>,
    saved: Arc<Saved>,
    tool_router: ToolRouter<Server>,
}

/// The arguments of `read`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct ReadArgs {
    /// The file to read: relative to the server's root, or a path that a bash notice named.
    path: String,
    /// Lines to skip before the first one shown (default 0). To page on, pass the `next offset` of the notice.
    #[schemars(range(min = 0))]
    offset: Option<u64>,
    /// The most lines to show (default: the read profile's cap, given in the tool's description).
    #[schemars(range(min = 1))]
    limit: Option<u64>,
}

/// What `grep` prints.
#[derive(Debug, Default, Clone, Copy, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum OutputMode {
    /// Matching lines as `path:line:text` (`rg -n`).
    #[default]
    Content,
    /// The paths of the files with a match, one a line (`rg -l`).
    FilesWithMatches,
    /// `path:count` for each file with a match (`rg -c`).
    Count,
}

/// The arguments of `grep`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct GrepArgs {
    /// The regular expression to search for (Rust regex syntax, as ripgrep's).
    pattern: String,
    /// The file or folder to search, relative to the server's root (default ".").
    path: Option<String>,
    /// Search only files whose names match this glob, such as "*.rs" or "src/**/*.py" (as `rg -g`).
    glob: Option<String>,
    /// Search only files of this type, such as "rust", "py" or "js" (as `rg -t`).
    #[serde(rename = "type")]
    file_type: Option<String>,
    /// `content` (default): matching lines; `files_with_matches`: paths; `count`: `path:count` per file.
    output_mode: Option<OutputMode>,
    /// Lines of context before each match (as `rg -B`; default `context`); content mode only.
    context_before: Option<u32>,
    /// Lines of context after each match (as `rg -A`; default `context`); content mode only.
    context_after: Option<u32>,
    /// Lines of context before and after each match (as `rg -C`); content mode only.
    context: Option<u32>,
    /// Match without regard to case (default false).
    case_insensitive: Option<bool>,
    /// Let a match span lines, `.` still not matching a newline (as `rg -U`; default false).
    multiline: Option<bool>,
    /// Output lines to skip before the first one shown (default 0). To page on, pass the `next offset` of the notice.
    #[schemars(range(min = 0))]
    offset: Option<u64>,
    /// The most output lines to show (default: the grep profile's cap, given in the tool's description).
    #[schemars(range(min = 1))]
    limit: Option<u64>,
}

/// The arguments of `bash`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct BashArgs {
    /// The command, run as `sh -c COMMAND` where the last command ended (at first the server's root), stdout and stderr joined.
    command: String,
    /// Seconds before the command is stopped (SIGTERM, then SIGKILL 5 s later); default 120.
    #[schemars(range(min = 1))]
    timeout: Option<u64>,
}

/// The default `timeout` of `bash`, in seconds.
const BASH_TIMEOUT: u64 = 120;

#[tool_router]
impl Server {
    #[tool(description = "Read a text file.", annotations(read_only_hint = true))]
    async fn read(&self, Parameters(args): Parameters<ReadArgs>) -> Result<CallToolResult, ErrorData> {
        let tools = Arc::clone(&self.tools);
        blocking(move || tools.read(&args.path, args.offset.unwrap_or(0), args.limit)).await
    }

    #[tool(description = "Search file contents.", annotations(read_only_hint = true))]
    async fn grep(&self, Parameters(args): Parameters<GrepArgs>) -> Result<CallToolResult, ErrorData> {
        let tools = Arc::clone(&self.tools);
        let context = args.context.unwrap_or(0) as usize;
        let request = tools::GrepRequest {
            pattern: args.pattern,
            path: args.path.unwrap_or_else(|| ".".into()),
            glob: args.glob,
            file_type: args.file_type,
            mode: match args.output_mode.unwrap_or_default() {
                OutputMode::Content => tools::GrepMode::Content,
                OutputMode::FilesWithMatches => tools::GrepMode::FilesWithMatches,
                OutputMode::Count => tools::GrepMode::Count,
            },
            before: args.context_before.map_or(context, |n| n as usize),
            after: args.context_after.map_or(context, |n| n as usize),
            case_insensitive: args.case_insensitive.unwrap_or(false),
            multiline: args.multiline.unwrap_or(false),
            offset: args.offset.unwrap_or(0),
            limit: args.limit,
        };
        blocking(move || tools.grep(&request)).await
    }

    #[tool(description = "Run a shell command.")]
    async fn bash(
        &self,
        Parameters(args): Parameters<BashArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let call = match self.calls.enter() {
            Ok(call) => call,
            Err(text) => return Ok(CallToolResult::error(vec![ContentBlock::text(text)])),
        };
        let mut abandoned = StopOnDrop(Some(Arc::clone(&call.stop)));
        let tools = Arc::clone(&self.tools);
        let saved = Arc::clone(&self.saved);
        let work = blocking(move || {
            let number = call.number;
            let env = vec![leftovers::mark(number)];
            let stop = Some(Arc::clone(&call.stop));
            let ran = tools.bash(&args.command, args.timeout.unwrap_or(BASH_TIMEOUT), env, stop);
            saved.evict();
            // What the command left running ends with the call, beside
            // the reply rather than before it.
            let ending = std::thread::Builder::new().name("capout-mcp-leftovers".into()).spawn(move || {
                leftovers::end(Which::Call(call.number), leftovers::GRACE);
                drop(call);
            });
            if ending.is_err() {
                leftovers::kill(Which::Call(number));
            }
            ran
        });
        tokio::select! {
            replied = work => {
                abandoned.0 = None;
                replied
            }
            // Cancelled: the command is ended at once (on drop), and no
            // reply is sent.
            () = context.ct.cancelled() => Err(ErrorData::internal_error("the call was cancelled", None)),
        }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("capout", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Bounded tools: read pages files with offset/limit, grep searches with ripgrep, bash runs a \
                 shell command. Every output is capped and ends with a notice that says what was cut and \
                 how to get more.",
            )
    }
}

/// The words of a cap as a description tells them: "the first 500 lines".
fn cap_words(config: &capout_core::Options) -> String {
    use capout_core::CapSpec;
    let unit = config.unit.name();
    match config.cap {
        CapSpec::TailChars(n) => format!("the last {n} {unit}"),
        CapSpec::HeadChars(n) => format!("the first {n} {unit}"),
        CapSpec::HeadLines { limit, .. } => format!("the first {limit} lines"),
        CapSpec::TailLines(n) => format!("the last {n} lines"),
        CapSpec::MaxMatches(n) => format!("the first {n} lines"),
        CapSpec::HeadTailLines(h, t) => format!("the first {h} and the last {t} lines"),
        CapSpec::HeadTailChars(h, t) => format!("the first {h} and the last {t} {unit}"),
        CapSpec::TailTokens(n) => format!("the last {n} tokens"),
        CapSpec::HeadTokens(n) => format!("the first {n} tokens"),
        CapSpec::HeadTailTokens(h, t) => format!("the first {h} and the last {t} tokens"),
    }
}

/// What a description says of the line cap and the budget of `config`.
fn line_words(config: &capout_core::Options) -> String {
    let unit = config.unit.name();
    let budget = config.budget.map(|budget| {
        format!(
            " A page holds at most {budget} {unit} in all (whole lines only): it may end before `limit` lines, and its notice says where."
        )
    });
    let width = config.max_line().map(|w| {
        format!(" A line longer than {w} {unit} is cut and ends with ` ... (line truncated to {w} {unit})`.")
    });
    format!("{}{}", budget.unwrap_or_default(), width.unwrap_or_default())
}

/// The description of a tool, from the profiles loaded: a config file
/// that retunes a cap changes what the model is told.
pub fn describe(name: &str, tools: &Tools) -> String {
    let (read, grep, bash) = tools.profiles();
    match name {
        "read" => format!(
            "Read a text file: its lines, each numbered as `cat -n` numbers them (6-wide number, a tab, the line). Shown: {}, starting after `offset` (`limit` sets how many lines).{} When more follow, the last line is a notice `... (truncated, showing lines A-B of T, next offset B)`: call read again with offset B to see the next lines. A page after the first that reaches the end says `... (showing lines A-B of T, end of input)`; `... (offset K is past the end, input has T lines)` means the file has T lines. An empty file reads `(no output)`; a binary file is not shown. A folder, a missing file or a path outside the root is an error.",
            cap_words(read),
            line_words(read)
        ),
        "grep" => format!(
            "Search file contents with a regular expression, in parallel, as ripgrep does (`rg -n --sort path`): folders are walked, files that .gitignore ignores, hidden files and binary files are skipped; `glob` and `type` narrow the files. output_mode \"content\" (default) gives each matching line as `path:line:text` (context lines from `context_before`/`context_after`/`context` as `path-line-text`, groups apart with `--`), \"files_with_matches\" the paths, \"count\" `path:count`; paths relative to the server's root. Each line of output is one entry. Shown: {} (`limit` sets how many), after `offset`; when there are more, the last line says `... (T total, showing first N)`, and a later page `... (T total, showing A-B, next offset B)` or `... (T total, showing A-B, end of input)`: T is the exact number, and offset B shows the next page. No match reads `No matches found.`.{}",
            cap_words(grep),
            line_words(grep)
        ),
        _ => format!(
            "Run a shell command (`sh -c COMMAND`), with stdout and stderr joined in the order written and no stdin. The working directory persists from call to call (a `cd` holds for the next call, the environment does not); the first call starts in the server's root. Shown: {} of the output{}; when more was written, a notice follows: `... (truncated, showing last N chars; full output: PATH)`: the whole output is saved in PATH, which the read tool pages (its notice gives the next offset) and grep searches. Output that is not text is replaced by `(binary output, N bytes: not shown; full output: PATH)`. A command still running after `timeout` seconds (default 120) is stopped, and `... (command timed out after Ns)` says so. When the command's exit status is not 0, the last line is `(exit status N)` (124 after a timeout), or `(exit status N, killed by SIGNAME)` when a signal killed it. No output at all reads `(no output)`. Nothing the command starts outlives the call: when it ends (or is cancelled), background jobs, even those started with `&`, `nohup` or `setsid`, are ended (SIGTERM, then SIGKILL 2 s later); run a long job in the foreground with a larger timeout instead. Saved outputs take at most 1 GiB in all: the oldest are removed first.",
            cap_words(bash),
            match (bash.strip_ansi, bash.collapse_cr) {
                (true, true) =>
                    ", ANSI escape sequences removed and progress frames (`\\r`) collapsed to what a terminal shows",
                (true, false) => ", ANSI escape sequences removed",
                (false, true) => ", progress frames (`\\r`) collapsed to what a terminal shows",
                (false, false) => "",
            }
        ),
    }
}

/// Runs a tool on a blocking thread: its text, or its error as a tool
/// error (never a protocol error: the model reads what went wrong).
async fn blocking(
    call: impl FnOnce() -> Result<String, String> + Send + 'static,
) -> Result<CallToolResult, ErrorData> {
    match tokio::task::spawn_blocking(call).await {
        Ok(Ok(text)) => Ok(CallToolResult::success(vec![ContentBlock::text(text)])),
        Ok(Err(text)) => Ok(CallToolResult::error(vec![ContentBlock::text(text)])),
        Err(e) => Err(ErrorData::internal_error(format!("the tool failed: {e}"), None)),
    }
}
