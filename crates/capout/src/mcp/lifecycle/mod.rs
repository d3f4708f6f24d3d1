//! The server's life: its start (the root, the folder of saved outputs,
//! the runtime), the end of its input, its signals, and its shutdown, in
//! which nothing a call started outlives the session.

mod calls;
pub mod hosted;
pub mod leftovers;
pub mod saved;

use std::io::{self, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rmcp::ServiceExt;

use super::paths::{self, Roots};
use super::server::Server;
use super::tools::Tools;
use super::transport;
use crate::cli;
use crate::exit::Exit;
use crate::signals::{self, Signals};
pub(super) use calls::{CallGuard, Calls, StopOnDrop};
pub(super) use leftovers::{GRACE, Which, end, kill, mark};
pub(super) use saved::{SAVED_MAX, Saved};

/// What `capout-mcp --help` prints.
const HELP: &str = "\
capout-mcp: the MCP server of capout, and its proxy

Usage: capout-mcp [--mcp] [--root DIR]
       capout-mcp --wrap [--profile NAME] -- COMMAND [ARG]...

The first serves the tools read, grep and bash over the Model Context
Protocol on stdin and stdout, over the folder DIR (default: the current
one), each bounded as capout's profiles of those names say; capout --mcp
runs it. The second (capout --mcp-wrap) starts COMMAND as an MCP server
and passes every message through, but bounds each tool's result by the
profile tool (or NAME, or what the config file's [tools] table says).

Options:
      --root DIR      The folder the tools may reach (paths never leave it)
      --wrap          Start COMMAND as an MCP server and bound its tools' results
      --profile NAME  With --wrap: the profile that bounds them (default: tool)
  -h, --help          Print this help
  -V, --version       Print the version

See capout --man (the sections HARNESSES and BOUNDING ANOTHER MCP SERVER).
";

/// `capout-mcp`: serves the tools on stdin and stdout until the client
/// closes stdin.
pub fn main() -> ExitCode {
    let first = std::env::args_os().nth(1);
    match first.as_ref().and_then(|w| w.to_str()) {
        Some("--help" | "-h") => {
            let _ = io::stdout().write_all(HELP.as_bytes());
            return ExitCode::SUCCESS;
        }
        Some("--version" | "-V") => {
            let _ = writeln!(io::stdout(), "capout-mcp {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        _ => {}
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
    let saved_max = saved::saved_max()?;
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
    let server = Server::new(tools, Arc::clone(&calls), Saved::new(saved_path, saved_max));
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
