//! The `capout` binary: parse, run, map the outcome to an exit status.

use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::os::fd::AsFd;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use capout::cli::{self, Action};
use capout::exit::Exit;
use capout::run::{self, Ending, Ran};
use capout::signals::{self, Interruptible, Signals};
use capout::{command, completions, hook, pipe, seek};

fn main() -> ExitCode {
    // `capout --mcp [--root DIR]` is a server, not a filter: an
    // executable of its own, so that the filter's start-up is left be.
    if let Some(root) = cli::mcp_requested(std::env::args_os()) {
        return serve_mcp(&root);
    }
    if completions::manual_requested(std::env::args_os()) {
        return print_manual();
    }
    if completions::profiles_requested(std::env::args_os()) {
        let _ = completions::list_profiles(&mut io::stdout().lock());
        return ExitCode::SUCCESS;
    }
    // `capout hook HARNESS` and `capout init HARNESS`: cold code, found
    // by one look at the first word.
    let mut words = std::env::args_os();
    let hooked = if words.next().is_some_and(|w| hook::is_prefix(&w))
        || words.next().is_some_and(|w| hook::is_requested(&w))
    {
        match hook::requested(&std::env::args_os().collect::<Vec<_>>()) {
            Some(hook::Dispatch::Done(status)) => return status,
            Some(hook::Dispatch::Run(args)) => Some(args),
            None => None,
        }
    } else {
        None
    };
    let parsed = match hooked {
        Some(args) => cli::parse_from(args),
        None => cli::parse(),
    };
    let cli::Run { options: mut config, command, input } = match parsed {
        Action::Run(run) => *run,
        Action::Completions(shell) => {
            if shell == clap_complete::Shell::Bash {
                let _ = io::stdout().write_all(completions::bash(&cli::command()).as_bytes());
            } else {
                clap_complete::generate(shell, &mut cli::command(), "capout", &mut io::stdout());
            }
            return ExitCode::SUCCESS;
        }
        Action::ShowConfig(text) => {
            let _ = io::stdout().write_all(text.as_bytes());
            return ExitCode::SUCCESS;
        }
    };
    // Under a file size limit (`ulimit -f`), a write past it fails with
    // EFBIG, an error like any other, instead of SIGXFSZ killing capout.
    // Caught rather than ignored: a command that capout runs starts with a
    // caught signal's default action, but would inherit an ignored one.
    // Should this fail, the limit kills capout as it always did.
    let _ = signal_hook::flag::register(signal_hook::consts::SIGXFSZ, Arc::new(AtomicBool::new(false)));
    let mut out = BufWriter::with_capacity(capout_core::READ_SIZE, io::stdout().lock());
    let mut err = io::stderr().lock();
    if let Some(spec) = &command {
        // A closed stdout is handled inside: the command must still be
        // waited for, and its status stands.
        return match command::run(&config, spec, &mut out, &mut err) {
            Ok(finished) => match finished.summary.and_then(|s| s.save_error) {
                Some(e) => fail(&mut err, &e, Exit::Failure),
                None => exit(&finished.ending),
            },
            Err(e) => fail(&mut err, &e, e.exit()),
        };
    }
    // Read fd 0 as a plain file: std's Stdin takes EBADF (a stdin open
    // only for writing) for an empty input, and adds a buffer of its own.
    // A --input FILE that cannot be opened is told as the input's first
    // read error, before anything is written, so that --json still prints
    // its object.
    let input = match &input {
        // A folder opens but fails its first read: said with its name.
        Some(path) => File::open(path)
            .and_then(|file| match file.metadata() {
                Ok(meta) if meta.is_dir() => Err(io::Error::from(io::ErrorKind::IsADirectory)),
                _ => Ok(file),
            })
            .map_err(|e| io::Error::new(e.kind(), format!("cannot open {}: {e}", path.display()))),
        None => io::stdin().as_fd().try_clone_to_owned().map(File::from),
    };
    let ran = match input {
        Ok(mut stdin) => {
            // A file that cannot seek is read from where it is.
            let _ = seek::skip_to_tail(&mut stdin, &config);
            pipe::enlarge(&stdin);
            // Larger pieces than the library's default: fewer system
            // calls and fewer pieces, each with its fixed cost.
            config.read_size = pipe::INPUT_READ_SIZE;
            match Signals::catch(false) {
                Ok(signals) => {
                    // Watched: a cap with nothing more to write still ends
                    // once stdout has no reader.
                    let input = pipe::Watched::new(Interruptible::new(stdin, signals));
                    run::run_with(&config, input, &mut out, &mut err, |input| {
                        let interrupted = input.get_ref().signal().map(rustix::process::Signal::as_raw);
                        Ending {
                            exit_code: interrupted.map_or(0, |s| 128 + s),
                            interrupted,
                            ..Ending::default()
                        }
                    })
                }
                Err(e) => run::run(&config, Unreadable(Some(e)), &mut out, &mut err),
            }
        }
        // Told as the input's first read error, so that --json still
        // prints its object.
        Err(e) => run::run(&config, Unreadable(Some(e)), &mut out, &mut err),
    };
    finish(&mut err, ran)
}

/// Replaces capout with `capout-mcp`, the MCP server, from capout's own
/// directory, where every way of installing capout puts both.
#[cfg(feature = "mcp")]
fn serve_mcp(root: &std::path::Path) -> ExitCode {
    use std::os::unix::process::CommandExt;
    let server = match std::env::current_exe() {
        Ok(exe) => exe.with_file_name("capout-mcp"),
        Err(e) => {
            return fail(
                &mut io::stderr(),
                &format_args!("--mcp: cannot find capout's own path: {e}"),
                Exit::Failure,
            );
        }
    };
    let e = std::process::Command::new(&server).arg("--root").arg(root).exec();
    let reason = command::plain_reason(&e);
    fail(&mut io::stderr(), &format_args!("--mcp: cannot run {}: {reason}", server.display()), Exit::Failure)
}

/// `capout --man`: `capout-mcp --man`, from capout's own directory, prints
/// the page (see `completions::MANUAL`).
#[cfg(feature = "mcp")]
fn print_manual() -> ExitCode {
    use std::os::unix::process::CommandExt;
    let server = match std::env::current_exe() {
        Ok(exe) => exe.with_file_name("capout-mcp"),
        Err(e) => {
            return fail(
                &mut io::stderr(),
                &format_args!("--man: cannot find capout's own path: {e}"),
                Exit::Failure,
            );
        }
    };
    let e = std::process::Command::new(&server).arg("--man").exec();
    let reason = command::plain_reason(&e);
    fail(&mut io::stderr(), &format_args!("--man: cannot run {}: {reason}", server.display()), Exit::Failure)
}

#[cfg(not(feature = "mcp"))]
fn print_manual() -> ExitCode {
    fail(
        &mut io::stderr(),
        &"--man: built without capout-mcp, which holds the page (cargo feature mcp)",
        Exit::Usage,
    )
}

#[cfg(not(feature = "mcp"))]
fn serve_mcp(_: &std::path::Path) -> ExitCode {
    fail(&mut io::stderr(), &"--mcp: built without the MCP server (cargo feature mcp)", Exit::Usage)
}

/// The exit status of a filter-mode run, with its error on stderr.
fn finish(err: &mut dyn Write, ran: Result<Ran, run::Error>) -> ExitCode {
    match ran {
        Ok(ran) => match ran.summary.save_error {
            Some(e) => fail(err, &e, Exit::Failure),
            None => exit(&ran.ending),
        },
        // A reader that stopped listening is not an error.
        Err(run::Error::Run(capout_core::Error::Write(e))) if e.kind() == io::ErrorKind::BrokenPipe => {
            ExitCode::SUCCESS
        }
        Err(e) => fail(err, &e, e.exit()),
    }
}

/// An input whose first read fails with the error it holds.
struct Unreadable(Option<io::Error>);

impl Read for Unreadable {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        Err(self.0.take().unwrap_or_else(|| io::Error::other("the input cannot be read")))
    }
}

/// capout's exit: as the command ended, or as the signal that interrupted
/// it; a shell then sees what it would have seen without capout.
fn exit(ending: &Ending) -> ExitCode {
    if let Some(signal) = ending.fatal_signal() {
        signals::die_of(signal);
    }
    Exit::of_status(ending.exit_code).into()
}

/// One line on stderr, and the way the run ends.
fn fail(err: &mut dyn Write, e: &dyn std::fmt::Display, exit: Exit) -> ExitCode {
    let _ = writeln!(err, "capout: {e}");
    exit.into()
}
