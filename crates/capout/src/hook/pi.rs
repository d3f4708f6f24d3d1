//! Pi. Its bash tool runs every command as `SHELL -c COMMAND`, in a
//! process group of its own, where SHELL is the `shellPath` of Pi's
//! settings, else `/bin/bash`. `capout init pi` sets `shellPath` to
//! capout by a name of its own, `.../capout-pi/bash` (a symbolic link), so
//! that Pi hands each command, as the model wrote it, to capout, which
//! runs it in `/bin/bash` under its command mode. Nothing about the call
//! changes before that: Pi's extensions (the only rules Pi has) see, allow
//! and block the model's own command in their `tool_call` handlers, and
//! Pi shows it as written.
//!
//! Pi ends a command at its timeout, or when the user interrupts it, by
//! SIGKILL to the command's process group, which no program can pass on:
//! so capout keeps the command in that group (not in a session of its own,
//! as elsewhere), and the SIGKILL ends capout, the command and all it
//! started at once, as without capout. Pi shows then what it read so far:
//! capout has written nothing yet under a tail cap, so the model sees Pi's
//! own words that the command timed out or was aborted, without the output
//! so far.
//!
//! Pi runs no hook, so `capout hook pi` has no event to read.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use super::{Dispatch, pass};

/// The folder that capout's link for Pi lies in.
pub const LINK_DIR: &str = "capout-pi";

/// The link's own name.
pub const LINK_NAME: &str = "bash";

/// The link in Pi's agent folder `agent_dir`.
pub fn link_in(agent_dir: &Path) -> PathBuf {
    agent_dir.join(LINK_DIR).join(LINK_NAME)
}

/// Whether capout was started as the link, `.../capout-pi/bash`.
// Inlined into every run's start (hook::is_prefix), so that it touches no
// rare code.
#[inline]
pub fn is_link(argv0: &OsStr) -> bool {
    let path = Path::new(argv0);
    path.file_name() == Some(OsStr::new(LINK_NAME))
        && path.parent().and_then(Path::file_name) == Some(OsStr::new(LINK_DIR))
}

/// capout started as Pi's shell with `args`: `-c SCRIPT` runs SCRIPT under
/// capout, in capout's own process group; anything else, and a script
/// already under capout, goes to the shell as it is.
pub fn link(args: &[OsString]) -> Dispatch {
    match args {
        [c, script] if c == "-c" && !script.to_str().is_some_and(super::already_wrapped) => {
            crate::command::stay_in_group();
            Dispatch::Run(command(script.clone()))
        }
        _ => Dispatch::Done(unwrapped(args)),
    }
}

/// `capout hook pi`: Pi runs no hook.
pub fn main(_args: &[OsString]) -> Dispatch {
    Dispatch::Done(pass(&"pi: Pi runs no hook; `capout init pi` makes capout the shell of its bash tool"))
}

/// The shell Pi runs its commands in when no `shellPath` is set:
/// `/bin/bash` where it is, else `bash` found on PATH.
fn shell() -> OsString {
    if Path::new("/bin/bash").exists() { "/bin/bash".into() } else { "bash".into() }
}

/// Runs the shell with `args`, as Pi would without capout.
fn unwrapped(args: &[OsString]) -> std::process::ExitCode {
    use std::os::unix::process::CommandExt;
    let e = std::process::Command::new(shell()).args(args).exec();
    let _ = pass(&format_args!("pi: cannot run the shell: {e}"));
    crate::exit::Exit::NotExecutable.into()
}

/// The command line of capout's command mode that runs `script` in the
/// shell Pi would run it in.
pub fn command(script: OsString) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec!["capout".into(), "--profile".into(), super::profile("pi").into()];
    match super::save_dir() {
        Ok(dir) => {
            args.push("--save-dir".into());
            args.push(dir.into());
        }
        Err(e) => {
            let _ = pass(&format_args!("pi: the full output is not saved: {e}"));
        }
    }
    args.extend(["--".into(), shell(), "-c".into(), script]);
    args
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_link_is_known_by_its_folder_and_name() {
        assert!(is_link(OsStr::new("/home/u/.pi/agent/capout-pi/bash")));
        assert!(!is_link(OsStr::new("/bin/bash")));
        assert!(!is_link(OsStr::new("/x/capout-gemini/bash")));
    }

    #[test]
    fn the_script_is_one_argument_of_the_shell() {
        let args = command("cd sub && echo 'a b'".into());
        let n = args.len();
        assert_eq!(&args[n - 4..n - 2], [OsString::from("--"), shell()]);
        assert_eq!(args[n - 2], "-c");
        assert_eq!(args[n - 1], "cd sub && echo 'a b'");
    }
}
