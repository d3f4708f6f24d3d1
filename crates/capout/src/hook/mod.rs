//! `capout hook HARNESS`: runs a harness's shell commands under capout's
//! command mode, so that their output is bounded, with the full output
//! saved in a private folder that the model's own read tool can page.
//!
//! Each harness's wire format has a module of its own.

pub mod after;
pub mod claude_code;
pub mod codex;
pub mod copilot;
pub mod crush;
pub mod droid;
pub mod gemini;
pub mod opencode;
pub mod pi;
pub mod qwen_code;

use std::ffi::{OsStr, OsString};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::PathBuf;
use std::process::ExitCode;

use crate::harness::Harness;

/// What the `capout` binary does with its arguments.
pub enum Dispatch {
    /// The hook or `init` ran; exit with this status.
    Done(ExitCode),
    /// Run capout's command mode with these arguments (the first is the
    /// program's name), as if they had been given.
    Run(Vec<OsString>),
}

/// Whether capout's first argument, `word`, starts `capout hook` or
/// `capout init`.
// Inlined into every run's start, so that it touches no rare code.
#[inline]
pub fn is_requested(word: &OsStr) -> bool {
    word.to_str().is_some_and(|w| w == "hook" || w == "init")
}

/// Whether capout was started by the name that Claude Code's
/// `CLAUDE_CODE_SHELL_PREFIX` holds (see [`claude_code`]), or as Gemini
/// CLI's link (see [`gemini`]) or Pi's shell (see [`pi`]).
// Inlined into every run's start, so that it touches no rare code.
#[inline]
pub fn is_prefix(argv0: &OsStr) -> bool {
    std::path::Path::new(argv0).file_name() == Some(OsStr::new(claude_code::PREFIX_NAME))
        || gemini::is_link(argv0)
        || pi::is_link(argv0)
}

/// Whether `args` (the program's name first) ask for `capout hook ...` or
/// `capout init ...`, and if so what to do. Looks at one word only, so
/// that the filter's start-up is left be.
pub fn requested(args: &[OsString]) -> Option<Dispatch> {
    if args.first().is_some_and(|a| gemini::is_link(a)) {
        return Some(gemini::link(&args[0], &args[1..]));
    }
    if args.first().is_some_and(|a| pi::is_link(a)) {
        return Some(pi::link(&args[1..]));
    }
    if args.first().is_some_and(|a| is_prefix(a)) {
        return Some(claude_code::prefix(&args[1..]));
    }
    let first = args.get(1)?.to_str()?;
    if first == "init" {
        return Some(Dispatch::Done(crate::init::main(&args[2..])));
    }
    if first != "hook" {
        return None;
    }
    Some(run(&args[2..]))
}

/// `capout hook`'s command line, for its help and its errors: what
/// follows the harness is the harness's own (a shell script, a shell and
/// a script), never options of capout's.
#[derive(Debug, clap::Parser)]
#[command(
    name = "capout hook",
    about = "Bound a harness's shell call: read its hook event on stdin and print the rewrite in its \
             schema, or run the script it gives under capout",
    disable_version_flag = true,
    after_help = "A hook never breaks a call: on an event it cannot use it prints nothing, says why on \
                  stderr and exits 0. `capout init HARNESS` sets it up; see capout(1)."
)]
struct Args {
    /// The harness whose event or command this is
    harness: Harness,
    /// What the harness gives after it (none: an event on stdin)
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    rest: Vec<OsString>,
}

/// `capout hook ARG...`, its arguments after `hook`. `--help` alone after
/// `hook` or the harness is the help; any other word after the harness is
/// the harness's.
fn run(args: &[OsString]) -> Dispatch {
    use clap::Parser as _;
    let help = |word: &OsString| word == "--help" || word == "-h";
    let harness = match args {
        [] => None,
        [word] | [word, _] if help(word) => None,
        [name, rest @ ..] => name.to_str().and_then(Harness::of).filter(|_| !matches!(rest, [w] if help(w))),
    };
    let Some(harness) = harness else {
        let words = std::iter::once(OsString::from("capout hook")).chain(args.iter().cloned());
        return Dispatch::Done(match Args::try_parse_from(words) {
            Err(e) if !e.use_stderr() => {
                let _ = e.print();
                ExitCode::SUCCESS
            }
            Err(e) => match args.first().and_then(|w| w.to_str()) {
                None => pass(&format_args!("name a harness: {}", Harness::names(", "))),
                Some(name) if !name.starts_with('-') => {
                    pass(&format_args!("unknown harness '{name}' (known: {})", Harness::names(", ")))
                }
                Some(_) => {
                    let text = e.render().to_string();
                    let first = text.lines().next().unwrap_or_default();
                    pass(&first.strip_prefix("error: ").unwrap_or(first))
                }
            },
            // A harness with `--help` after it, which clap took as the help.
            Ok(_) => pass(&"give a harness"),
        });
    };
    let rest = &args[1..];
    match harness {
        Harness::ClaudeCode => claude_code::main(rest),
        Harness::Gemini => gemini::main(rest),
        Harness::Codex => codex::main(rest),
        Harness::Opencode => opencode::main(rest),
        Harness::QwenCode => qwen_code::main(rest),
        Harness::Pi => pi::main(rest),
        Harness::Copilot => copilot::main(rest),
        Harness::Droid => droid::main(rest),
        Harness::Crush => crush::main(rest),
    }
}

/// Leaves the call alone: one line on stderr, nothing on stdout, status 0,
/// so that a hook never breaks the harness's tool call.
pub fn pass(why: &dyn std::fmt::Display) -> ExitCode {
    let _ = writeln!(io::stderr(), "capout: hook: {why}");
    ExitCode::SUCCESS
}

/// The profile a harness's commands run under: the one named after the
/// harness when the config file defines it, else `bash`.
pub fn profile(harness: &str) -> &str {
    let file = crate::profiles::ConfigFile::load().ok().flatten();
    match crate::profiles::layer(file.as_ref(), harness) {
        Ok(Some(_)) => harness,
        _ => "bash",
    }
}

/// Where the private folder of saved outputs is, made or not: see
/// [`save_dir`].
pub fn save_dir_path() -> PathBuf {
    std::env::temp_dir().join(format!("capout-{}", rustix::process::getuid().as_raw()))
}

/// The private folder of saved outputs, `$TMPDIR/capout-UID`, mode 0700:
/// made when missing, and refused when it is not a folder of the user's
/// own that only they can read (another user could have planted it).
pub fn save_dir() -> io::Result<PathBuf> {
    private_dir(save_dir_path())
}

/// The folder `dir`, mode 0700, as [`save_dir`] makes and checks its own.
pub fn private_dir(dir: PathBuf) -> io::Result<PathBuf> {
    let uid = rustix::process::getuid().as_raw();
    match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    let meta = std::fs::symlink_metadata(&dir)?;
    if !meta.is_dir() || meta.uid() != uid || meta.mode() & 0o077 != 0 {
        return Err(io::Error::other(format!(
            "{} is not a folder of this user's with mode 0700",
            dir.display()
        )));
    }
    Ok(dir)
}

/// `word` quoted for a POSIX shell: as it is when it needs no quoting,
/// else in single quotes, each `'` written `'\''`.
pub fn quote(word: &str) -> String {
    let plain =
        !word.is_empty() && word.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b));
    if plain {
        return word.to_owned();
    }
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// The longest rewrite a hook gives, in bytes: one argument of a command
/// holds less than 128 KiB on Linux (`MAX_ARG_STRLEN`, its terminating NUL
/// included), and the harness hands the rewrite to its shell as one.
pub const MAX_REWRITE: usize = 128 * 1024 - 1;

/// Why `rewrite` cannot be given to the harness, if it cannot: at or over
/// 128 KiB the shell that would run it fails to start (`E2BIG`), where
/// the command as it was runs.
pub fn too_long(rewrite: &str) -> Option<String> {
    (rewrite.len() > MAX_REWRITE).then(|| {
        format!(
            "the rewrite would be {} bytes, at or over the 128 KiB that one argument of a command may hold",
            rewrite.len()
        )
    })
}

/// Why `path` is not this very capout, if it is not: a rewrite that names
/// it would run something else, or fail with 127 for every call. `path`
/// is followed to the file it names, which must be the one this process
/// runs (the same file, not a copy or one that replaced it).
pub fn not_this_capout(path: &std::path::Path) -> Option<String> {
    let this = match std::fs::metadata("/proc/self/exe") {
        Ok(this) => this,
        Err(e) => return Some(format!("cannot tell which program this capout is: {e}")),
    };
    match std::fs::metadata(path) {
        Err(e) => Some(format!("{} cannot be run: {e}", path.display())),
        Ok(there) if there.dev() != this.dev() || there.ino() != this.ino() => Some(format!(
            "{} is not this capout (another program, or a capout that replaced it)",
            path.display()
        )),
        Ok(_) => None,
    }
}

/// Whether `command` already runs under capout: its first word is a
/// program named `capout`, maybe after `exec` or quoted.
pub fn already_wrapped(command: &str) -> bool {
    let mut rest = command.trim_start();
    if let Some(after) = rest.strip_prefix("exec ") {
        rest = after.trim_start();
    }
    let first = match rest.chars().next() {
        Some(q @ ('\'' | '"')) => rest[1..].split(q).next().unwrap_or_default(),
        _ => rest.split_ascii_whitespace().next().unwrap_or_default(),
    };
    first.rsplit('/').next() == Some("capout")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quote_leaves_plain_words_and_escapes_single_quotes() {
        assert_eq!(quote("/usr/bin/capout"), "/usr/bin/capout");
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("it's"), r"'it'\''s'");
        assert_eq!(quote(""), "''");
    }

    #[test]
    fn already_wrapped_sees_capout_as_the_first_word() {
        assert!(already_wrapped("capout --profile bash -- make"));
        assert!(already_wrapped("  '/opt/my tools/capout' -- make"));
        assert!(already_wrapped("exec /usr/bin/capout -- make"));
        assert!(!already_wrapped("echo capout"));
        assert!(!already_wrapped("capoutx -- make"));
    }
}
