//! The `capout` program: what its command line asks for, the run over
//! stdin, a file or a command, and the status it ends with. The binary's
//! `main` is this module's [`main`].

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use crate::cli::{self, Action};
use crate::exit::Exit;
use crate::harness::Harness;
use crate::ledger::{self, Count, Counting, Entry};
use crate::run::{self, Ending, Ran};
use crate::signals::{self, Interruptible, Signals};
use crate::{command, completions, hook, pipe, seek};

/// What the first words of the command line ask for, before any parse:
/// one look, so that a filter's start-up pays for nothing else.
#[derive(Debug, PartialEq, Eq)]
pub enum Dispatch {
    /// `capout --mcp [--root DIR]`: the MCP server.
    Mcp(PathBuf),
    /// `capout --mcp-wrap WORDS`: the MCP proxy.
    Wrap(Vec<OsString>),
    /// `capout --man`.
    Manual,
    /// `capout --list-profiles`.
    ListProfiles,
    /// `capout stats ...`, its words after `stats`.
    Stats(Vec<OsString>),
    /// `capout hook ...`, `capout init ...`, or capout started by a
    /// harness's name for it (Claude Code's prefix, Gemini CLI's link).
    Harness,
    /// A run: the filter, or a command.
    Run,
}

impl Dispatch {
    /// What `args` (the program's name first) ask for.
    pub fn of(args: &[OsString]) -> Dispatch {
        if let Some(root) = cli::mcp_requested(args.iter().cloned()) {
            return Dispatch::Mcp(root);
        }
        if let Some(words) = cli::wrap_requested(args.iter().cloned()) {
            return Dispatch::Wrap(words);
        }
        if completions::manual_requested(args.iter().cloned()) {
            return Dispatch::Manual;
        }
        if completions::profiles_requested(args.iter().cloned()) {
            return Dispatch::ListProfiles;
        }
        if args.get(1).is_some_and(|w| w == "stats") {
            return Dispatch::Stats(args[2..].to_vec());
        }
        if args.first().is_some_and(|w| hook::is_prefix(w))
            || args.get(1).is_some_and(|w| hook::is_requested(w))
        {
            return Dispatch::Harness;
        }
        Dispatch::Run
    }
}

/// The program: its command line, and the status it exits with.
pub fn main() -> ExitCode {
    let started = Instant::now();
    let args: Vec<OsString> = std::env::args_os().collect();
    let (parsed, origin) = match Dispatch::of(&args) {
        Dispatch::Mcp(root) => return exec_sibling("--mcp", ["--root".into(), root.into_os_string()]),
        Dispatch::Wrap(words) => {
            return exec_sibling("--mcp-wrap", std::iter::once("--wrap".into()).chain(words));
        }
        Dispatch::Manual => return exec_sibling("--man", ["--man".into()]),
        Dispatch::ListProfiles => {
            let _ = completions::list_profiles(&mut io::stdout().lock());
            return ExitCode::SUCCESS;
        }
        Dispatch::Stats(words) => return crate::stats::main(&words),
        Dispatch::Harness => match hook::requested(&args) {
            Some(hook::Dispatch::Done(status)) => return status,
            Some(hook::Dispatch::Run(words)) => (cli::parse_from(words), Origin::of(&args)),
            None => (cli::parse(), None),
        },
        Dispatch::Run => (cli::parse(), None),
    };
    let run = match parsed {
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
    // Only a run that asked for the ledger hears of its errors: a call
    // made for a model has its stderr read by the model.
    if !run.ledger {
        ledger::quiet();
    }
    let origin = origin.or_else(|| run.ledger.then(|| Origin::cli(&run)));
    run_one(run, origin, started)
}

/// Who a run bounds output for, as the ledger says it.
struct Origin {
    front: &'static str,
    harness: Option<Harness>,
    tool: &'static str,
    command: String,
}

impl Origin {
    /// The origin of a run that a harness's hook or prefix asked for,
    /// from capout's own command line.
    fn of(args: &[OsString]) -> Option<Origin> {
        let last = args.last()?.to_string_lossy();
        if args.first().is_some_and(|a| hook::is_prefix(a)) {
            let (front, harness, command) = if hook::gemini::is_link(&args[0]) {
                ("hook", Harness::Gemini, last.into_owned())
            } else if hook::pi::is_link(&args[0]) {
                // Pi's shell: the script is the model's command as written.
                ("shell", Harness::Pi, last.into_owned())
            } else {
                let command = hook::claude_code::eval_word(&last).unwrap_or_else(|| last.into_owned());
                ("prefix", Harness::ClaudeCode, command)
            };
            return Some(Origin { front, harness: Some(harness), tool: "bash", command });
        }
        let harness = args.get(2).and_then(|h| h.to_str()).and_then(Harness::of)?;
        let command = match harness {
            Harness::ClaudeCode => hook::claude_code::eval_word(&last).unwrap_or_else(|| last.into_owned()),
            _ => last.into_owned(),
        };
        Some(Origin { front: "hook", harness: Some(harness), tool: "bash", command })
    }

    /// The origin of a plain run given `--ledger`.
    fn cli(run: &cli::Run) -> Origin {
        let (tool, command) = match &run.command {
            Some(spec) => {
                let words = std::iter::once(&spec.program).chain(&spec.args);
                ("command", words.map(|w| w.to_string_lossy()).collect::<Vec<_>>().join(" "))
            }
            None => ("filter", run.input.as_ref().map(|p| p.display().to_string()).unwrap_or_default()),
        };
        Origin { front: "cli", harness: None, tool, command }
    }
}

/// What a run read and wrote, counted for the ledger.
struct Counted {
    read: Arc<Mutex<Count>>,
}

impl Counted {
    /// Counts what the process's run reads (its input, or its command's
    /// output).
    fn start() -> Counted {
        let read = Arc::new(Mutex::new(Count::default()));
        let fed = Arc::clone(&read);
        run::tap(Box::new(move |piece: &[u8]| fed.lock().unwrap_or_else(PoisonError::into_inner).add(piece)));
        Counted { read }
    }

    /// The ledger's line for the run: what came in, what `shown` says was
    /// written, and how it ended.
    fn entry(&self, origin: &Origin, shown: &Count, summary: Option<&capout_core::Summary>) -> Entry {
        let (chars_in, tokens_in) = self.read.lock().unwrap_or_else(PoisonError::into_inner).totals();
        let (chars_shown, tokens_shown) = shown.totals();
        Entry {
            harness: origin.harness.map(|h| h.name().to_owned()),
            chars_in,
            tokens_in,
            chars_shown,
            tokens_shown,
            cut: summary.is_some_and(|s| s.truncated),
            saved: summary.and_then(|s| s.saved_to.as_ref()).map(|p| p.display().to_string()),
            ..Entry::new(origin.front, origin.tool).command(&origin.command)
        }
    }
}

/// Runs `run`: its command, or the filter over stdin or `--input`.
fn run_one(run: cli::Run, origin: Option<Origin>, started: Instant) -> ExitCode {
    let cli::Run { options: mut config, command, input, .. } = run;
    // Under a file size limit (`ulimit -f`), a write past it fails with
    // EFBIG, an error like any other, instead of SIGXFSZ killing capout.
    // Caught rather than ignored: a command that capout runs starts with a
    // caught signal's default action, but would inherit an ignored one.
    // Should this fail, the limit kills capout as it always did.
    let _ = signal_hook::flag::register(signal_hook::consts::SIGXFSZ, Arc::new(AtomicBool::new(false)));
    // A page of an output capout saved, read back through capout, is a
    // page of the call that saved it.
    let page_of = page_of(input.as_deref());
    let origin = origin.or_else(|| {
        page_of.as_ref().map(|_| Origin { front: "cli", harness: None, tool: "read", command: String::new() })
    });
    let counted = origin.as_ref().filter(|_| ledger::enabled()).map(|_| Counted::start());
    let mut out = Counting {
        inner: BufWriter::with_capacity(capout_core::READ_SIZE, io::stdout().lock()),
        count: Count::default(),
    };
    let mut err = io::stderr().lock();
    let record = |out: &Counting<_>, summary: Option<&capout_core::Summary>, exit: Option<i32>| {
        if let (Some(counted), Some(origin)) = (&counted, &origin) {
            let mut entry = counted.entry(origin, &out.count, summary);
            entry.exit = exit;
            entry.page_of = page_of.as_ref().map(|p| p.display().to_string());
            ledger::append(&entry.took(started.elapsed()));
        }
    };
    if let Some(spec) = &command {
        // A closed stdout is handled inside: the command must still be
        // waited for, and its status stands.
        let finished = command::run(&config, spec, &mut out, &mut err);
        let _ = out.flush();
        return match finished {
            Ok(finished) => {
                record(&out, finished.summary.as_ref(), Some(finished.ending.exit_code));
                match finished.summary.and_then(|s| s.save_error) {
                    Some(e) => fail(&mut err, &e, Exit::Failure),
                    None => exit(&finished.ending),
                }
            }
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
    if let Ok(ran) = &ran {
        record(&out, Some(&ran.summary), None);
    }
    finish(&mut err, ran)
}

/// The saved output that the input is, when it is one: a file in the
/// private folder of saved outputs (`--input FILE`, or stdin redirected
/// from it).
fn page_of(input: Option<&Path>) -> Option<PathBuf> {
    let path = match input {
        Some(path) => std::fs::canonicalize(path).ok()?,
        None => std::fs::read_link("/proc/self/fd/0").ok().filter(|p| p.is_absolute())?,
    };
    let dir = std::fs::canonicalize(hook::save_dir_path()).ok()?;
    (path.parent() == Some(dir.as_path()) && path.is_file()).then_some(path)
}

/// Replaces capout with `capout-mcp ARGS`, from capout's own folder,
/// where every way of installing capout puts both: the MCP server, the
/// proxy and the manual page live there, so that the filter carries none
/// of them. `option` names what asked for it in an error.
fn exec_sibling(option: &str, args: impl IntoIterator<Item = OsString>) -> ExitCode {
    use std::os::unix::process::CommandExt;
    if !cfg!(feature = "mcp") {
        return fail(
            &mut io::stderr(),
            &format_args!("{option}: built without capout-mcp (cargo feature mcp)"),
            Exit::Usage,
        );
    }
    let server = match std::env::current_exe() {
        Ok(exe) => exe.with_file_name("capout-mcp"),
        Err(e) => {
            return fail(
                &mut io::stderr(),
                &format_args!("{option}: cannot find capout's own path: {e}"),
                Exit::Failure,
            );
        }
    };
    let e = std::process::Command::new(&server).args(args).exec();
    let reason = command::plain_reason(&e);
    let hint = if e.kind() == io::ErrorKind::NotFound {
        " (build both programs: cargo build --release -p capout, or cargo install --locked --path crates/capout)"
    } else {
        ""
    };
    fail(
        &mut io::stderr(),
        &format_args!("{option}: cannot run {}: {reason}{hint}", server.display()),
        Exit::Failure,
    )
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_words_say_what_is_asked_for() {
        let words = |line: &[&str]| -> Vec<OsString> { line.iter().map(OsString::from).collect() };
        for (line, want) in [
            (&["capout", "--mcp"][..], Dispatch::Mcp(".".into())),
            (&["capout", "--mcp", "--root", "d"], Dispatch::Mcp("d".into())),
            (&["capout", "--mcp-wrap", "--", "srv"], Dispatch::Wrap(words(&["--", "srv"]))),
            (&["capout", "--man"], Dispatch::Manual),
            (&["capout", "--list-profiles"], Dispatch::ListProfiles),
            (&["capout", "stats", "--json"], Dispatch::Stats(words(&["--json"]))),
            (&["capout", "hook", "codex"], Dispatch::Harness),
            (&["capout", "init", "gemini"], Dispatch::Harness),
            (&["/h/.claude/capout-claude-code", "script"], Dispatch::Harness),
            (&["/h/.gemini/capout-gemini/bash", "-c", "ls"], Dispatch::Harness),
            (&["capout", "-c", "5"], Dispatch::Run),
            (&["capout", "--man", "x"], Dispatch::Run),
            (&["capout", "--", "stats"], Dispatch::Run),
            (&["capout"], Dispatch::Run),
        ] {
            assert_eq!(Dispatch::of(&words(line)), want, "{line:?}");
        }
    }
}
