//! `capout init HARNESS [--project | --user] [--mcp] [--tools]
//! [--wrap-mcp] [--uninstall] [--dry-run]`: writes capout into a
//! harness's own configuration.
//!
//! Each harness's module says what capout puts where (a [`Plan`]); one
//! path (`apply`) carries out every plan: it reads and checks every
//! file first and writes only when all of them can be written, edits
//! settings as text (every byte of the user's stays, see `merge`),
//! writes through a symbolic link into its target, atomically, after a
//! backup of what was there (`FILE.capout-backup`), and `--uninstall`
//! takes out capout's entries alone.

use std::ffi::OsString;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::Value;

use crate::exit::Exit;
use crate::harness::Harness;

mod apply;
pub mod claude_code;
pub mod codex;
pub mod copilot;
pub mod crush;
pub mod droid;
pub mod gemini;
mod merge;
pub mod opencode;
pub mod pi;
pub mod qwen_code;
mod toml;

pub use apply::{Change, Plan, backup_of};

/// Where the configuration goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The user's own settings (the default).
    User,
    /// The settings of the project in the working directory.
    Project,
}

/// The options of `capout init`.
#[derive(Debug, Clone)]
pub struct Options {
    /// The harness to set up.
    pub harness: Harness,
    /// Where.
    pub scope: Scope,
    /// Also the MCP server.
    pub mcp: bool,
    /// Also the after-tool hook that bounds every other tool's output.
    pub tools: bool,
    /// Also each stdio MCP server of the harness's run under `capout
    /// --mcp-wrap --`.
    pub wrap_mcp: bool,
    /// Take capout out again.
    pub uninstall: bool,
    /// Print the change as a diff, write nothing.
    pub dry_run: bool,
}

/// Why `capout init` did nothing: every way it can fail, said in one line.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// HOME is not set.
    #[error("HOME is not set")]
    NoHome,
    /// A folder named by the environment is not an absolute path.
    #[error("{name} is '{}', which is not an absolute path; capout writes nowhere it would have to guess", path.display())]
    Relative {
        /// The variable.
        name: &'static str,
        /// Its value.
        path: PathBuf,
    },
    /// capout cannot tell where it is itself.
    #[error("cannot find capout's own path: {0}")]
    OwnPath(io::Error),
    /// A path that capout must write into a settings file is not UTF-8.
    #[error("the path '{}' is not valid UTF-8", .0.display())]
    NotUtf8(PathBuf),
    /// A file cannot be read (or is not a regular file of at most 1 MiB).
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A file, folder or link cannot be written.
    #[error("cannot {what} {}: {source}", path.display())]
    Write {
        /// What capout was doing: "write", "remove", "make the link", ...
        what: &'static str,
        /// The path.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A settings file that capout cannot edit as it is.
    #[error("{}: {why}", path.display())]
    Bad {
        /// The file.
        path: PathBuf,
        /// Why, and where in it.
        why: String,
    },
    /// Something that is not capout's is where capout would write its own.
    #[error("{} is there and is not capout's; capout leaves it", .0.display())]
    NotOurs(PathBuf),
    /// A file of the project is a link to a place outside it.
    #[error("{} points outside the project, to {}; capout leaves it and writes nothing (a file of the project must not be a copy of one elsewhere)", path.display(), target.display())]
    OutsideProject {
        /// The file in the project.
        path: PathBuf,
        /// Where it leads.
        target: PathBuf,
    },
    /// A path that a shell command of capout's would have to quote.
    #[error(
        "the path '{path}' holds {what}, which a shell command made of it would have to quote; set {var} to a folder whose path has only letters, digits and -_./=:,+@%"
    )]
    Unquotable {
        /// The path.
        path: String,
        /// What is wrong with it.
        what: String,
        /// The variable that chooses the folder.
        var: &'static str,
    },
    /// What capout would point the harness at cannot run.
    #[error("{0}")]
    CannotRun(String),
}

impl Error {
    fn write<'a>(what: &'static str, path: &'a Path) -> impl FnOnce(io::Error) -> Error + 'a {
        move |source| Error::Write { what, path: path.to_owned(), source }
    }
}

/// One of capout's entries in a settings file.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The key path, objects made as needed.
    pub keys: Vec<String>,
    /// The value capout puts there.
    pub value: Value,
    /// Whose the key is.
    pub kind: Kind,
}

/// How capout knows its own entry.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    /// A key that is capout's by its name (`mcpServers.capout`).
    Key,
    /// A key that another program may hold: replaced or taken out only
    /// when the test says its string value is capout's.
    Guarded(fn(&str) -> bool),
    /// An element of the list at the key path, beside the user's own:
    /// capout's are those whose every `command` string passes the test.
    List(fn(&str) -> bool),
    /// Every stdio MCP server in the object at the key path, of the
    /// user's, run under `capout --mcp-wrap --` (the entry's value is
    /// capout's word): its program and arguments stay as they were, after
    /// capout's, and come back as they were.
    Wrap(Launch),
}

/// How a harness's configuration starts a stdio MCP server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Launch {
    /// `command` is the program, `args` its arguments (Claude Code,
    /// Gemini CLI, Codex).
    CommandArgs,
    /// `command` is a list, the program and then its arguments, under a
    /// `type` of `local` (opencode).
    CommandList,
}

/// The words that capout puts before a wrapped server's own program.
pub const WRAP: [&str; 2] = ["--mcp-wrap", "--"];

/// Whether `program` is capout (its server, or a server capout wraps
/// already): its file name is `capout` or `capout-mcp`.
pub fn is_capout(program: &str) -> bool {
    matches!(program.rsplit('/').next(), Some("capout" | "capout-mcp"))
}

impl Entry {
    /// A key of capout's own.
    pub fn key(keys: &[&str], value: Value) -> Entry {
        Entry { keys: keys.iter().map(|k| (*k).to_owned()).collect(), value, kind: Kind::Key }
    }

    /// The stdio servers in the object at `keys`, run under `capout`
    /// (capout's word in the file).
    pub fn wrap(keys: Vec<String>, capout: String, launch: Launch) -> Entry {
        Entry { keys, value: capout.into(), kind: Kind::Wrap(launch) }
    }

    /// What the entry is, for init's report.
    pub fn name(&self) -> String {
        match self.kind {
            Kind::List(_) => format!("capout's hook in {}", self.keys.join(".")),
            Kind::Wrap(_) => format!("capout --mcp-wrap around the stdio servers in {}", self.keys.join(".")),
            _ => self.keys.join("."),
        }
    }
}

/// Whether `command` is `... capout... hook HARNESS`: a hook of capout's.
pub fn runs_hook(command: &str, harness: &str) -> bool {
    let mut words = command.split_whitespace().rev();
    words.next() == Some(harness) && words.next() == Some("hook") && command.contains("capout")
}

/// What every harness's plan is made from.
pub struct Context {
    /// The options.
    pub opts: Options,
    /// The user's home, absolute.
    pub home: PathBuf,
    /// The project: the working directory, absolute.
    pub project: PathBuf,
    /// This capout, where it runs from.
    pub capout: PathBuf,
}

impl Context {
    /// The folder that the variable `name` names, when it is set (and
    /// not empty); a relative one is an error.
    pub fn env_dir(name: &'static str) -> Result<Option<PathBuf>, Error> {
        match std::env::var_os(name).filter(|d| !d.is_empty()).map(PathBuf::from) {
            Some(path) if path.is_relative() => Err(Error::Relative { name, path }),
            other => Ok(other),
        }
    }

    /// How the harness's files name capout: this binary's own path for
    /// the user's settings; `capout`, found on PATH, for the project's,
    /// which a team shares.
    pub fn capout_word(&self) -> Result<String, Error> {
        match self.opts.scope {
            Scope::Project => Ok("capout".to_owned()),
            Scope::User => text(&self.capout),
        }
    }

    /// `path` under the project.
    pub fn in_project(&self, path: &str) -> PathBuf {
        self.project.join(path)
    }
}

/// `path` as text, for a settings file.
pub fn text(path: &Path) -> Result<String, Error> {
    path.to_str().map(str::to_owned).ok_or_else(|| Error::NotUtf8(path.to_owned()))
}

/// `capout init`'s command line.
#[derive(Debug, clap::Parser)]
#[command(
    name = "capout init",
    about = "Write capout into an agent harness's own configuration, so that every call of its shell \
             tool is bounded, with the full output saved where the model can page it",
    disable_version_flag = true,
    after_help = "init edits only its own entries: every byte of the user's settings stays, comments and \
                  symbolic links included. It says what it changed and how to undo it; restart the \
                  harness after it. See capout(1), section HARNESSES."
)]
struct Args {
    /// The harness to set up
    harness: Harness,
    /// The project's configuration, in the working directory (written for a team: `capout` on PATH)
    #[arg(long, conflicts_with = "user")]
    project: bool,
    /// The user's own configuration [default]
    #[arg(long)]
    user: bool,
    /// Also the MCP server of the tools read, grep and bash (`capout --mcp`)
    #[arg(long)]
    mcp: bool,
    /// Also the after-tool hook, which bounds the output of MCP tools and web fetches (and the tools the config file's [tools] table names)
    #[arg(long)]
    tools: bool,
    /// Also run each stdio MCP server of the harness's configuration under `capout --mcp-wrap --`
    #[arg(long)]
    wrap_mcp: bool,
    /// Take out what init put in, and nothing else
    #[arg(long)]
    uninstall: bool,
    /// Print the change as a diff, and the links it would make, and write nothing
    #[arg(long)]
    dry_run: bool,
}

/// `capout init ...`, its arguments after `init`.
pub fn main(args: &[OsString]) -> ExitCode {
    let opts = match parse(args) {
        Ok(opts) => opts,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { Exit::Usage.into() } else { ExitCode::SUCCESS };
        }
    };
    match run(&opts, &mut io::stdout()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(io::stderr(), "capout: init: {e}");
            Exit::Failure.into()
        }
    }
}

/// The options, from the words after `init`; clap's error (or help) when
/// they are not options of init.
pub fn parse(args: &[OsString]) -> Result<Options, clap::Error> {
    use clap::Parser as _;
    let words = std::iter::once(OsString::from("capout init")).chain(args.iter().cloned());
    let args = Args::try_parse_from(words)?;
    Ok(Options {
        harness: args.harness,
        scope: if args.project { Scope::Project } else { Scope::User },
        mcp: args.mcp,
        tools: args.tools,
        wrap_mcp: args.wrap_mcp,
        uninstall: args.uninstall,
        dry_run: args.dry_run,
    })
}

/// Carries out `opts`, telling `out` what it did.
pub fn run(opts: &Options, out: &mut dyn Write) -> Result<(), Error> {
    let plan = plan_of(opts.harness);
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from).ok_or(Error::NoHome)?;
    if home.is_relative() {
        return Err(Error::Relative { name: "HOME", path: home });
    }
    let project = std::env::current_dir().map_err(|e| Error::Read { path: ".".into(), source: e })?;
    let capout = std::env::current_exe().map_err(Error::OwnPath)?;
    let cx = Context { opts: opts.clone(), home, project, capout };
    let four =
        matches!(opts.harness, Harness::ClaudeCode | Harness::Codex | Harness::Gemini | Harness::Opencode);
    if !four && (opts.tools || opts.wrap_mcp) {
        let flag = if opts.tools { "--tools" } else { "--wrap-mcp" };
        return Err(Error::CannotRun(format!(
            "{flag} is there for Claude Code, Codex CLI, Gemini CLI and opencode; for {} put `capout --mcp-wrap --` \
             before a server's command in its configuration yourself",
            opts.harness.name()
        )));
    }
    let plan = plan(&cx)?;
    if !opts.uninstall {
        runs(&cx)?;
    }
    apply::apply(&cx, &plan, out)
}

/// The plan of a harness that gives capout no way to bound its shell
/// calls: without `--mcp` (and `--uninstall`), why not, and what to run
/// instead; with it, capout's MCP server alone, as `entry` in `file`.
pub fn mcp_only(
    cx: &Context,
    name: &'static str,
    why: &str,
    file: PathBuf,
    entry: Entry,
) -> Result<Plan, Error> {
    if !cx.opts.mcp && !cx.opts.uninstall {
        return Err(Error::CannotRun(format!(
            "{why}; so capout cannot bound {name}'s shell calls. `capout init {} --mcp` sets up capout's MCP server \
             (its tools bash, read and grep, each bounded, the full output saved) for the model to use instead",
            cx.opts.harness
        )));
    }
    let mut notes = vec![format!(
        "{name}'s own shell tool is left as it is ({why}): the model's calls of capout's MCP tools are bounded, its own shell calls are not."
    )];
    if cx.opts.scope == Scope::Project {
        notes.push(format!(
            "The project's {} names `capout`, found on PATH: whoever uses the project needs capout on PATH.",
            file.strip_prefix(&cx.project).unwrap_or(&file).display()
        ));
    }
    Ok(Plan { name, changes: vec![Change::Merge { path: file, entries: vec![entry] }], notes })
}

/// The function that makes `harness`'s plan.
fn plan_of(harness: Harness) -> fn(&Context) -> Result<Plan, Error> {
    match harness {
        Harness::ClaudeCode => claude_code::plan,
        Harness::Codex => codex::plan,
        Harness::Gemini => gemini::plan,
        Harness::Opencode => opencode::plan,
        Harness::QwenCode => qwen_code::plan,
        Harness::Pi => pi::plan,
        Harness::Copilot => copilot::plan,
        Harness::Droid => droid::plan,
        Harness::Crush => crush::plan,
    }
}

/// Checks that what init points the harness at can run: `capout` on
/// PATH for a project's files, and with `--mcp` the server beside the
/// capout that runs it (`capout --mcp` is `capout-mcp` from capout's own
/// folder).
fn runs(cx: &Context) -> Result<(), Error> {
    let capout = match cx.opts.scope {
        Scope::User => cx.capout.clone(),
        Scope::Project => on_path("capout").ok_or_else(|| {
            Error::CannotRun(format!(
                "--project writes `capout` into the project's files, to be found on PATH, and there is no capout on PATH here; \
                 put the folder of {} on PATH (or install capout), then run this again",
                cx.capout.display()
            ))
        })?,
    };
    if cx.opts.wrap_mcp && !cfg!(feature = "mcp") {
        return Err(Error::CannotRun(
            "this capout was built without its MCP server (cargo feature mcp), so `capout --mcp-wrap` cannot start"
                .into(),
        ));
    }
    if !cx.opts.mcp {
        return Ok(());
    }
    if !cfg!(feature = "mcp") {
        return Err(Error::CannotRun(
            "this capout was built without its MCP server (cargo feature mcp), so `capout --mcp` cannot start".into(),
        ));
    }
    let real = std::fs::canonicalize(&capout).unwrap_or(capout);
    let server = real.with_file_name("capout-mcp");
    if !is_executable(&server) {
        return Err(Error::CannotRun(format!(
            "--mcp sets up `capout --mcp`, which runs {}, and there is none; build or install it beside capout \
             (cargo build --bins, or cargo install --locked --path crates/capout), then run this again",
            server.display()
        )));
    }
    Ok(())
}

/// The program `name` as the shell finds it on PATH.
pub fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).filter(|d| d.is_absolute()).map(|d| d.join(name)).find(|p| is_executable(p))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(words: &[&str]) -> Result<Options, clap::Error> {
        parse(&words.iter().map(OsString::from).collect::<Vec<_>>())
    }

    #[test]
    fn the_words_after_init_are_the_options() {
        let o = parsed(&["gemini", "--project", "--mcp", "--dry-run"]).unwrap();
        assert_eq!(
            (o.harness, o.scope, o.mcp, o.uninstall, o.dry_run),
            (Harness::Gemini, Scope::Project, true, false, true)
        );
        let o = parsed(&["claude-code", "--tools", "--wrap-mcp"]).unwrap();
        assert_eq!((o.tools, o.wrap_mcp, o.mcp), (true, true, false));
        let kind = |words: &[&str]| parsed(words).unwrap_err().kind();
        assert_eq!(kind(&["codex", "--user", "--project"]), clap::error::ErrorKind::ArgumentConflict);
        assert_eq!(kind(&["codex", "--force"]), clap::error::ErrorKind::UnknownArgument);
        assert_eq!(kind(&["vim"]), clap::error::ErrorKind::InvalidValue);
        assert_eq!(kind(&[]), clap::error::ErrorKind::MissingRequiredArgument);
        assert_eq!(kind(&["--help"]), clap::error::ErrorKind::DisplayHelp);
    }

    #[test]
    fn a_hook_of_capouts_is_known_by_its_last_words() {
        assert!(runs_hook("'/opt/my tools/capout' hook codex", "codex"));
        assert!(runs_hook("/h/.gemini/capout-gemini/bash hook gemini", "gemini"));
        assert!(!runs_hook("capout hook codex --x", "codex"));
        assert!(!runs_hook("audit.sh hook codex", "codex"));
    }
}
