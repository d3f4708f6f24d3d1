//! `bash`: a shell command through capout's command mode, where the last
//! one ended, its whole output saved when something was cut or it was
//! binary.

use std::ffi::OsString;
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use capout_core::SaveTo;

use super::{ToolError, Tools};
use crate::cli::DEFAULT_KILL_AFTER;
use crate::command::{self, CommandSpec, Place, Stop, Timeout};
use crate::mcp::notice;
use crate::mcp::paths::reason;

impl Tools {
    /// `bash`: `sh -c COMMAND` where the last command of the session
    /// ended (at first the root), through capout's command mode, capped
    /// as the profile `bash` says, the whole output saved in the server's
    /// folder when something was cut, and `(exit status N)` when N is not
    /// 0. Binary output (a NUL byte in its first 8 KiB) is replaced by the
    /// engine's one line, which names the saved file, as in the CLI.
    /// `env` is added to the command's environment; `stop` ends it early.
    pub fn bash(
        &self,
        script: &str,
        timeout: u64,
        env: Vec<(OsString, OsString)>,
        stop: Option<Arc<Stop>>,
    ) -> Result<String, ToolError> {
        crate::ledger::record(self.entry("bash", script), || self.run_bash(script, timeout, env, stop))
    }

    fn run_bash(
        &self,
        script: &str,
        timeout: u64,
        env: Vec<(OsString, OsString)>,
        stop: Option<Arc<Stop>>,
    ) -> Result<String, ToolError> {
        if timeout == 0 {
            return Err(ToolError::Refused(notice::TIMEOUT_ZERO.into()));
        }
        // The shell writes where it ended into a file of the server's own
        // folder (0700) on its way out, even through `exit N`; the command
        // itself runs by `eval`, so that its text is never parsed twice.
        let cwd_file = tempfile::Builder::new()
            .prefix("cwd-")
            .tempfile_in(&self.roots.saved)
            .map_err(|e| ToolError::Failed(notice::cannot_run(reason(&e))))?;
        let quoted = shlex::try_quote(&cwd_file.path().to_string_lossy()).map(std::borrow::Cow::into_owned);
        let quoted = quoted.map_err(|_| {
            ToolError::Failed(notice::cannot_run("the server's folder has a NUL in its name"))
        })?;
        let wrapper = format!("trap 'pwd -P >| {quoted} 2>/dev/null' EXIT\neval \"$1\"");
        let start = self.cwd();
        // A folder removed since: start at the root again.
        let start = if start.is_dir() { start } else { self.roots.root.clone() };
        let spec = CommandSpec {
            program: OsString::from("sh"),
            args: vec![
                OsString::from("-c"),
                OsString::from(wrapper),
                OsString::from("sh"),
                OsString::from(script),
            ],
            timeout: Some(Timeout {
                after: Duration::from_secs(timeout),
                label: format!("{timeout}s"),
                kill_after: Some(DEFAULT_KILL_AFTER),
            }),
            stdout_only: false,
        };
        let mut options = self.bash.clone();
        options.save = Some(SaveTo::Dir(self.roots.saved.clone()));
        let place = Place { dir: Some(start), no_stdin: true, env, stop };
        let mut out = Vec::new();
        let finished = command::run_in(&options, &spec, &place, &mut out, &mut io::sink())
            .map_err(|e| ToolError::Failed(e.to_string()))?;
        self.keep_cwd(cwd_file.path());
        crate::ledger::note(|entry| {
            entry.exit = Some(finished.ending.exit_code);
            if let Some(summary) = &finished.summary {
                entry.cut = summary.truncated;
                entry.saved = summary.saved_to.as_ref().map(|p| p.display().to_string());
            }
        });
        if let Some(e) = finished.summary.and_then(|s| s.save_error) {
            // The output stands; only the copy of it failed.
            let _ = writeln!(out, "{}", notice::not_saved(e));
        }
        let ending = &finished.ending;
        if ending.exit_code != 0 {
            // The shell that runs the command reports a command killed by
            // signal N as 128 + N, as a shell user reads `$?`.
            let shell = ending.exit_code.checked_sub(128).filter(|n| (1..=64).contains(n));
            let signal = ending.signal.or(shell).filter(|_| ending.timed_out.is_none());
            let name = signal.and_then(signal_hook::low_level::signal_name);
            let _ = writeln!(out, "{}", crate::mcp::notice::exit_status(ending.exit_code, name));
        }
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    /// Takes where the shell ended as where the next command starts: an
    /// absolute path to a folder, or nothing (the shell was killed, or
    /// `exec` replaced it, or the command set its own `EXIT` trap).
    fn keep_cwd(&self, file: &Path) {
        let Ok(text) = std::fs::read(file) else { return };
        let Some(line) = text.strip_suffix(b"\n") else { return };
        let path = PathBuf::from(std::ffi::OsStr::from_bytes(line));
        if path.is_absolute() && path.is_dir() {
            *self.cwd.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = path;
        }
    }
}
