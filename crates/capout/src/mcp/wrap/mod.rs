//! `capout --mcp-wrap [--profile NAME] -- COMMAND [ARG]...` (also
//! `capout-mcp --wrap`): a stdio MCP proxy that bounds the results of
//! another server's tools.
//!
//! It starts COMMAND as the real server and passes every message through,
//! both ways, byte for byte, but each `tools/call` result: its text is
//! bounded by the profile `tool` (or the profile the config file's
//! `[tools]` table names for that tool), `structuredContent` by the same
//! cut, and an image, audio or embedded resource over 256 KiB becomes one
//! line naming its size and the file it is saved to. The whole of what is
//! cut is saved in a folder of the session's (0700, bounded, removed at
//! the end), and the one tool the proxy adds, `capout_page`, pages it.
//!
//! - `request`: the client's lines, noted and given on (or answered:
//!   `capout_page`, a server that is gone); `reply`: the server's lines,
//!   cut where they cut, streamed where nothing changes.
//! - `json`: the walker both read lines with, in pieces, in bounded
//!   memory; `spill`: a reply's raw bytes while it may change; `media`:
//!   the bytes of images, audio and resources.
//! - `pending`: the requests awaiting their answer; `caps`: the profiles;
//!   `session`: what the threads share; `out`: the writer to the client;
//!   `server`: the real server's process; `page`: `capout_page`;
//!   `notice`: the texts.
//!
//! No thread holds a line whole: a reply of a gigabyte passes in a few
//! MiB. Each direction is one thread of blocking reads and writes, so a
//! small message costs two pipe hops more than without the proxy.

mod caps;
mod json;
mod media;
mod notice;
mod out;
mod page;
mod pending;
mod reply;
mod request;
mod server;
mod session;
mod shape;
mod spill;
#[cfg(test)]
mod tests;

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::AsFd;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use self::pending::Gone;
use self::session::Session;
use crate::exit::Exit;
use crate::mcp::leftovers::{self, Which};
use crate::mcp::paths::Roots;
use crate::mcp::saved;
use crate::mcp::tools::Tools;
use crate::signals::{self, Signals};

/// How `--mcp-wrap` is used.
pub const USAGE: &str = "usage: capout --mcp-wrap [--profile NAME] -- COMMAND [ARG]...";

/// The command line of `--mcp-wrap`, parsed.
#[derive(Debug, PartialEq, Eq)]
struct Wrap {
    /// The profile for the tools the config file names none for.
    profile: String,
    command: Vec<OsString>,
}

/// What the words after `--mcp-wrap` ask for: a proxy, the usage, or an
/// error.
#[derive(Debug, PartialEq, Eq)]
enum Parsed {
    Run(Wrap),
    Help,
    Usage(String),
}

fn parse(words: impl IntoIterator<Item = OsString>) -> Parsed {
    let mut words = words.into_iter();
    let mut profile = None;
    while let Some(word) = words.next() {
        let text = word.to_string_lossy();
        match text.as_ref() {
            "--" => break,
            "--help" | "-h" => return Parsed::Help,
            "--profile" if profile.is_none() => match words.next() {
                Some(name) => profile = Some(name.to_string_lossy().into_owned()),
                None => return Parsed::Usage("--profile takes the name of a profile".into()),
            },
            _ if text.starts_with("--profile=") && profile.is_none() => profile = Some(text[10..].to_owned()),
            _ if text.starts_with('-') => return Parsed::Usage(format!("unknown option {text}")),
            // The command, without `--` before it.
            _ => {
                let command = std::iter::once(word).chain(words).collect();
                return Parsed::Run(Wrap { profile: profile.unwrap_or_else(|| "tool".into()), command });
            }
        }
    }
    let command: Vec<OsString> = words.collect();
    if command.is_empty() {
        return Parsed::Usage("no COMMAND to run as the server".into());
    }
    Parsed::Run(Wrap { profile: profile.unwrap_or_else(|| "tool".into()), command })
}

/// `capout-mcp --wrap [OPTIONS] -- COMMAND [ARG]...`: `words` are those
/// after `--wrap`.
pub fn main(words: impl IntoIterator<Item = OsString>) -> ExitCode {
    match parse(words) {
        Parsed::Help => {
            let _ = writeln!(io::stdout(), "{USAGE}");
            ExitCode::SUCCESS
        }
        Parsed::Usage(why) => {
            let _ = writeln!(io::stderr(), "capout: --mcp-wrap: {why}\n{USAGE}");
            Exit::Usage.into()
        }
        Parsed::Run(wrap) => match run(&wrap) {
            Ok(code) => code,
            Err((exit, e)) => {
                let _ = writeln!(io::stderr(), "capout: --mcp-wrap: {e}");
                exit.into()
            }
        },
    }
}

/// The server's command line as messages name it.
fn command_words(command: &[OsString]) -> String {
    let words: Vec<String> = command.iter().map(|w| w.to_string_lossy().into_owned()).collect();
    let text = shlex::try_join(words.iter().map(String::as_str)).unwrap_or_else(|_| words.join(" "));
    // A long command line is named by its start.
    match text.char_indices().nth(200) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text,
    }
}

/// The proxy's session; an error is one that ends it before it starts:
/// a config file or a profile that is not valid is a usage error.
fn run(wrap: &Wrap) -> Result<ExitCode, (Exit, String)> {
    let usage = |e: String| (Exit::Usage, e);
    let failure = |e: String| (Exit::Failure, e);
    let file = crate::profiles::ConfigFile::load().map_err(|e| usage(crate::profiles::strip_error(&e)))?;
    let saved_max = saved::saved_max().map_err(usage)?;
    // What the server leaves running becomes the proxy's to find and end.
    leftovers::become_subreaper();
    let folder = tempfile::Builder::new()
        .prefix("capout-mcp-wrap-")
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir()
        .map_err(|e| failure(format!("cannot make a folder for saved results: {e}")))?;
    let dir = folder
        .path()
        .canonicalize()
        .map_err(|e| failure(format!("cannot find the folder of saved results: {e}")))?;
    let caps = caps::Caps::load(file, &wrap.profile, &dir).map_err(usage)?;
    let mut pager = Tools::new(Roots::new(&dir, dir.clone(), dir.clone())).map_err(usage)?;
    pager.front = "proxy";
    let stdout = io::stdout().as_fd().try_clone_to_owned().map_err(|e| failure(e.to_string()))?;
    let command = command_words(&wrap.command);
    let out = out::Out::new(Box::new(File::from(stdout)));
    let session = Arc::new(Session::new(caps, dir.clone(), saved_max, pager, out, command));
    // Caught before the server starts: a signal that comes meanwhile is
    // seen once the watcher runs, and still ends the server.
    let signals = Signals::catch(false).map_err(|e| failure(format!("cannot catch signals: {e}")))?;
    let started = start_server(&session, wrap).map_err(failure)?;
    let (mut stdin, handle) = started.map_or((None, None), |(stdin, handle)| (Some(stdin), Some(handle)));
    watch_signals(signals, &session, handle.clone(), &dir)
        .map_err(|e| failure(format!("cannot catch signals: {e}")))?;
    relay_client(&session, stdin.as_mut());
    // The client is gone: the server reads the end of its input, and has
    // the grace to end by itself; then it is ended, and what it started.
    session.ending.store(true, Ordering::SeqCst);
    drop(stdin);
    if let Some(handle) = &handle
        && handle.wait(server::GRACE).is_none()
    {
        handle.end();
    }
    leftovers::end_unreaped(Which::All, server::GRACE);
    // The last answers, and the errors of what the server left
    // unanswered, reach the client before the proxy ends.
    if let Some(handle) = &handle {
        handle.wait_relayed(server::GRACE);
    }
    crate::command::reap_orphans();
    drop(folder);
    Ok(if session.failed.load(Ordering::SeqCst) { Exit::Failure.into() } else { ExitCode::SUCCESS })
}

/// Starts the server, with a thread for its output and one for its
/// stderr; `None` when it cannot be started (every request is then
/// answered with why).
fn start_server(
    session: &Arc<Session>,
    wrap: &Wrap,
) -> Result<Option<(std::process::ChildStdin, Arc<server::Handle>)>, String> {
    let server = match server::start(&wrap.command) {
        Ok(server) => server,
        Err(e) => {
            let reason = match e.kind() {
                io::ErrorKind::NotFound if wrap.command[0].as_encoded_bytes().contains(&b'/') => {
                    "no such file or directory".to_owned()
                }
                io::ErrorKind::NotFound => "command not found".to_owned(),
                _ => crate::command::plain_reason(&e),
            };
            session.fail(&Gone { message: notice::cannot_start(&session.command, &reason), stderr: None });
            return Ok(None);
        }
    };
    let server::Server { child, stdin, stdout, stderr, handle } = server;
    let tail = Arc::new(server::StderrTail::default());
    let copier = Arc::clone(&tail);
    std::thread::Builder::new()
        .name("capout-wrap-stderr".into())
        .spawn(move || copier.copy(stderr))
        .map_err(|e| e.to_string())?;
    let ending = Arc::clone(&handle);
    session.on_stop(Box::new(move || ending.end()));
    let replies = Arc::clone(session);
    let reaper = Arc::clone(&handle);
    std::thread::Builder::new()
        .name("capout-wrap-server".into())
        .spawn(move || relay_server(&replies, stdout, child, &reaper, &tail))
        .map_err(|e| e.to_string())?;
    Ok(Some((stdin, handle)))
}

/// The server's output to the client, until it ends; then its end is
/// told to every request still waiting.
fn relay_server(
    session: &Arc<Session>,
    mut stdout: std::process::ChildStdout,
    child: std::process::Child,
    handle: &server::Handle,
    tail: &server::StderrTail,
) {
    let mut replies = reply::Replies::new(Arc::clone(session));
    let mut buf = vec![0; 64 * 1024];
    loop {
        match stdout.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                if replies.feed(&buf[..n]).is_err() {
                    // The client stopped reading: the session is over.
                    break;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    let _ = replies.finish();
    drop(stdout);
    let status = server::reap(child, handle);
    // Even once the client's input has ended: it may still read the
    // answers to what it asked.
    let initialized = session.pending().initialized;
    let words = status.map_or_else(|| "ended".to_owned(), server::status_words);
    let message = notice::server_ended(&session.command, &words, initialized);
    session.fail(&Gone { message, stderr: tail.lines(server::GRACE) });
    handle.relayed();
}

/// The client's input to the server, until it ends.
fn relay_client(session: &Arc<Session>, mut server: Option<&mut std::process::ChildStdin>) {
    let Ok(stdin) = io::stdin().as_fd().try_clone_to_owned() else { return };
    let mut stdin = File::from(stdin);
    let mut requests = request::Requests::new(Arc::clone(session));
    let mut buf = vec![0; 64 * 1024];
    let mut sink = io::sink();
    loop {
        let n = match stdin.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        let to: &mut dyn Write = match server.as_deref_mut() {
            Some(stdin) => stdin,
            None => &mut sink,
        };
        requests.feed(&buf[..n], to);
        if session.out.broken() {
            break;
        }
    }
}

/// Catches SIGINT, SIGTERM and SIGHUP for the proxy's whole life: the
/// server is ended (SIGTERM, then SIGKILL), the folder removed, and the
/// proxy dies of the signal.
fn watch_signals(
    mut signals: Signals,
    session: &Arc<Session>,
    handle: Option<Arc<server::Handle>>,
    dir: &Path,
) -> io::Result<()> {
    let session = Arc::clone(session);
    let dir = dir.to_path_buf();
    std::thread::Builder::new().name("capout-wrap-signals".into()).spawn(move || {
        loop {
            let wake = signals.wake();
            let mut fds = [rustix::event::PollFd::new(&wake, rustix::event::PollFlags::IN)];
            let _ = rustix::event::poll(&mut fds, None);
            signals.drain();
            let Some(signal) = signals.take().next() else { continue };
            session.ending.store(true, Ordering::SeqCst);
            if let Some(handle) = &handle {
                handle.end();
            }
            leftovers::end_unreaped(Which::All, server::GRACE);
            // Dying of the signal runs no destructor: the folder goes now.
            let _ = std::fs::remove_dir_all(&dir);
            signals.release();
            signals::die_of(signal.as_raw());
            std::process::exit(Exit::Signal(signal.as_raw()).code().into());
        }
    })?;
    Ok(())
}

#[cfg(test)]
mod usage {
    use super::*;

    fn words(text: &str) -> Vec<OsString> {
        text.split_whitespace().map(OsString::from).collect()
    }

    #[test]
    fn the_command_line_of_mcp_wrap() {
        let run = |profile: &str, command: &str| {
            Parsed::Run(Wrap { profile: profile.into(), command: words(command) })
        };
        assert_eq!(parse(words("-- npx -y server --flag")), run("tool", "npx -y server --flag"));
        assert_eq!(parse(words("--profile read -- srv -- x")), run("read", "srv -- x"));
        assert_eq!(parse(words("--profile=quick srv")), run("quick", "srv"));
        assert_eq!(parse(words("srv --profile x")), run("tool", "srv --profile x"));
        assert_eq!(parse(words("--help")), Parsed::Help);
        assert_eq!(parse(words("")), Parsed::Usage("no COMMAND to run as the server".into()));
        assert_eq!(parse(words("--")), Parsed::Usage("no COMMAND to run as the server".into()));
        assert_eq!(parse(words("--profile")), Parsed::Usage("--profile takes the name of a profile".into()));
        assert_eq!(parse(words("--root x -- srv")), Parsed::Usage("unknown option --root".into()));
        let argv = |text: &str| words(&format!("capout {text}"));
        assert_eq!(crate::cli::wrap_requested(argv("--mcp-wrap -- srv")), Some(words("-- srv")));
        assert_eq!(crate::cli::wrap_requested(argv("-c 5 --mcp-wrap")), None);
        assert_eq!(crate::cli::wrap_requested(argv("--mcp")), None);
    }

    #[test]
    fn a_long_command_is_named_by_its_start() {
        assert_eq!(command_words(&words("npx -y a b")), "npx -y a b");
        assert_eq!(command_words(&[OsString::from("my server"), OsString::from("x")]), "'my server' x");
        let long = command_words(&[OsString::from("x".repeat(300))]);
        assert_eq!(long, format!("{}...", "x".repeat(200)));
    }
}
