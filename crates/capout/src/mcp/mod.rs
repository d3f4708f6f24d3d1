//! The MCP server of `capout-mcp`, which `capout --mcp [--root DIR]` runs: the three
//! bounded tools, `read`, `grep` and `bash`, served over the Model Context
//! Protocol on stdin and stdout (SPEC §11), with the official Rust SDK.
//!
//! An executable of its own, so that the SDK, its async runtime and
//! ripgrep's crates stay out of the `capout` filter: linked into it, they
//! made every filter run map a third more of its binary, and peak memory
//! passed SPEC §8's 4 MiB. Each call runs on a blocking thread, so a long
//! `bash` holds up no other call; a failing call is a tool error, and the
//! session goes on.

mod paths;
mod tools;

use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ErrorData, ServerHandler, ServiceExt, schemars, tool, tool_handler, tool_router};
use serde::Deserialize;

use crate::signals::{self, Signals};
use crate::{cli, command};
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
        return ExitCode::from(2);
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
            ExitCode::from(1)
        }
    }
}

fn start(root: &Path) -> Result<ExitCode, String> {
    let real =
        root.canonicalize().map_err(|e| format!("--root {}: {}", root.display(), paths::reason(&e)))?;
    if !real.is_dir() {
        return Err(format!("--root {}: not a directory", root.display()));
    }
    // The whole outputs of `bash`, outside the root (so that `grep`
    // never meets them), removed when the server ends.
    let saved = tempfile::Builder::new()
        .prefix("capout-mcp-")
        .tempdir()
        .map_err(|e| format!("cannot make a folder for saved outputs: {}", paths::reason(&e)))?;
    let saved_path = saved.path().canonicalize().map_err(|e| paths::reason(&e))?;
    let tools = Tools::new(Roots { root: real, saved: saved_path })?;
    let calls = Arc::new(Calls::default());
    let signal = watch_signals(Arc::clone(&calls)).map_err(|e| format!("cannot catch signals: {e}"))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    let server =
        Server { tools: Arc::new(tools), calls: Arc::clone(&calls), tool_router: Server::tool_router() };
    let input = Input { stdin: tokio::io::stdin(), calls, closing: signal.closing, ended: false };
    let ended = runtime.block_on(async move {
        let running = server.serve((input, tokio::io::stdout())).await.map_err(|e| e.to_string())?;
        running.waiting().await.map_err(|e| e.to_string())
    });
    // Waits for what still runs (told to end at the end of the input).
    drop(runtime);
    drop(saved);
    ended.map(|_| ExitCode::SUCCESS)
}

/// The server's stdin. At its end the client is gone: the commands that
/// still run are told so at once, with SIGHUP, as a terminal that closes
/// tells its jobs, so that the server ends soon after, and with it the
/// commands, rather than when their timeouts are out.
struct Input {
    stdin: tokio::io::Stdin,
    calls: Arc<Calls>,
    closing: Arc<AtomicBool>,
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
}

impl Calls {
    fn lock(&self) -> std::sync::MutexGuard<'_, CallState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Counts a call while it runs; `None` once the client is gone.
    fn enter(self: &Arc<Self>) -> Option<CallGuard> {
        let mut state = self.lock();
        if state.closed {
            return None;
        }
        state.running += 1;
        Some(CallGuard(Arc::clone(self)))
    }

    /// Starts no more calls; whether some still run.
    fn close(&self) -> bool {
        let mut state = self.lock();
        state.closed = true;
        state.running > 0
    }

    /// Waits until no call runs, at most `limit`.
    fn wait_idle(&self, limit: Duration) {
        let state = self.lock();
        let _ = self.done.wait_timeout_while(state, limit, |s| s.running > 0);
    }
}

struct CallGuard(Arc<Calls>);

impl Drop for CallGuard {
    fn drop(&mut self) {
        self.0.lock().running -= 1;
        self.0.done.notify_all();
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
fn watch_signals(calls: Arc<Calls>) -> io::Result<Watch> {
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
            signals.release();
            signals::die_of(signal.as_raw());
            std::process::exit(128 + signal.as_raw());
        }
    })?;
    Ok(Watch { closing })
}

/// The MCP server: the tools, and the router the SDK's macros build.
#[derive(Clone)]
struct Server {
    tools: Arc<Tools>,
    calls: Arc<Calls>,
    tool_router: ToolRouter<Server>,
}

/// The arguments of `read`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct ReadArgs {
    /// The file to read: relative to the server's root, or a path that a bash notice named.
    path: String,
    /// Lines to skip before the first one shown (default 0). To page on, pass the `next offset` of the notice.
    offset: Option<u64>,
    /// The most lines to show (default 500).
    limit: Option<u64>,
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
    /// Match without regard to case (default false).
    case_insensitive: Option<bool>,
}

/// The arguments of `bash`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct BashArgs {
    /// The command, run as `sh -c COMMAND` in the server's root, stdout and stderr joined.
    command: String,
    /// Seconds before the command is stopped (SIGTERM, then SIGKILL 5 s later); default 120.
    timeout: Option<u64>,
}

/// The default `timeout` of `bash`, in seconds.
const BASH_TIMEOUT: u64 = 120;

#[tool_router]
impl Server {
    #[tool(
        description = "Read a text file: its lines, each numbered as `cat -n` numbers them (6-wide number, a tab, the line). At most `limit` lines (default 500) are shown, starting after `offset`. When more follow, the last line is a notice `... (truncated, showing lines A-B of T, next offset B)`: call read again with offset B to see the next lines. `... (offset K is past the end, input has T lines)` means the file has T lines. A line longer than 2000 characters is cut and ends with ` ... (line truncated to 2000 chars)`. An empty file reads `(no output)`; a binary file is not shown. A folder, a missing file or a path outside the root is an error.",
        annotations(read_only_hint = true)
    )]
    async fn read(&self, Parameters(args): Parameters<ReadArgs>) -> Result<CallToolResult, ErrorData> {
        let tools = Arc::clone(&self.tools);
        blocking(move || tools.read(&args.path, args.offset.unwrap_or(0), args.limit)).await
    }

    #[tool(
        description = "Search file contents with a regular expression, as ripgrep does: folders are walked, files that .gitignore ignores, hidden files and binary files are skipped. Each matching line is `path:line:text`, paths relative to the server's root. At most 50 matching lines are shown; when there are more, the last line says `... (T total, showing first 50)`: T is the exact number of matching lines, so narrow the pattern, the path or the glob to see the rest. No match reads `No matches found.`. A line longer than 2000 characters is cut and ends with ` ... (line truncated to 2000 chars)`.",
        annotations(read_only_hint = true)
    )]
    async fn grep(&self, Parameters(args): Parameters<GrepArgs>) -> Result<CallToolResult, ErrorData> {
        let tools = Arc::clone(&self.tools);
        blocking(move || {
            let path = args.path.as_deref().unwrap_or(".");
            tools.grep(&args.pattern, path, args.glob.as_deref(), args.case_insensitive.unwrap_or(false))
        })
        .await
    }

    #[tool(
        description = "Run a shell command (`sh -c COMMAND`) in the server's root, with stdout and stderr joined in the order written and no stdin. Only the last 5000 characters of its output are shown; when more was written, a notice follows: `... (truncated, showing last 5000 chars; full output: PATH)`: the whole output is saved in PATH, which the read tool pages (its notice gives the next offset) and grep searches. A command still running after `timeout` seconds (default 120) is stopped, and `... (command timed out after Ns)` says so. When the command's exit status is not 0, the last line is `(exit status N)` (124 after a timeout, 128+N when killed by signal N). No output at all reads `(no output)`."
    )]
    async fn bash(&self, Parameters(args): Parameters<BashArgs>) -> Result<CallToolResult, ErrorData> {
        let tools = Arc::clone(&self.tools);
        let calls = Arc::clone(&self.calls);
        blocking(move || {
            let Some(_running) = calls.enter() else {
                return Err("the server is ending: its client closed its input".into());
            };
            tools.bash(&args.command, args.timeout.unwrap_or(BASH_TIMEOUT))
        })
        .await
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
