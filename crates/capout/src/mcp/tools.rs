//! The three tools, as plain functions: each returns the text the model
//! sees, or the text of a tool error. Every text is capped by capout's
//! own engine, so its notices are the CLI's to the letter.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Cursor, Read, Write};
use std::time::Duration;

use capout_core::{CapSpec, Capper, CommandSpec, Config, NoticeTarget, Options, SaveTo, Timeout};
use grep_regex::RegexMatcherBuilder;
use grep_searcher::{BinaryDetection, SearcherBuilder, sinks};
use ignore::WalkBuilder;
use ignore::overrides::OverrideBuilder;

use super::paths::{Roots, reason};
use crate::command::{self, Place};
use crate::profiles;

/// How much of a file's start decides that it is binary: a NUL byte in
/// it, as ripgrep decides (it looks at its first read, of 64 KiB).
pub const BINARY_PROBE: usize = 8 * 1024;

/// How long after SIGTERM a timed-out `bash` command gets SIGKILL.
pub const KILL_AFTER: Duration = Duration::from_secs(5);

/// The tools, with their root and the configs of their profiles.
#[derive(Clone, Debug)]
pub struct Tools {
    /// Where paths may lead.
    pub roots: Roots,
    read: Config,
    grep: Config,
    bash: Config,
}

impl Tools {
    /// The tools over `roots`, capped as the profiles `read`, `grep` and
    /// `bash` say.
    pub fn new(roots: Roots) -> Result<Tools, String> {
        let plain = |name| {
            profiles::config(name).map(|config| Config {
                // The server's text is the model's: notices with it, no
                // live count, no JSON.
                notice: NoticeTarget::Stdout,
                json: false,
                progress: false,
                ..config
            })
        };
        Ok(Tools { roots, read: plain("read")?, grep: plain("grep")?, bash: plain("bash")? })
    }

    /// The number of lines `read` shows when no limit is given.
    pub fn read_limit(&self) -> u64 {
        match self.read.cap {
            CapSpec::HeadLines { limit, .. } => limit,
            _ => 500,
        }
    }

    /// `read`: lines `offset`+1 … `offset`+`limit` of a file, numbered
    /// as `capout -N --head-lines LIMIT --offset OFFSET` numbers them.
    pub fn read(&self, path: &str, offset: u64, limit: Option<u64>) -> Result<String, String> {
        let limit = limit.unwrap_or_else(|| self.read_limit());
        if limit == 0 {
            return Err("limit must be at least 1".into());
        }
        let real = self.roots.resolve(path)?;
        if real.is_dir() {
            return Err(format!("'{path}' is a directory: read takes a file (grep searches a directory)"));
        }
        let mut file = File::open(&real).map_err(|e| format!("'{path}': {}", reason(&e)))?;
        let mut start = Vec::with_capacity(BINARY_PROBE);
        (&mut file)
            .take(BINARY_PROBE as u64)
            .read_to_end(&mut start)
            .map_err(|e| format!("'{path}': {}", reason(&e)))?;
        if memchr::memchr(0, &start).is_some() {
            let size = file.metadata().map_or(start.len() as u64, |m| m.len());
            return Ok(format!("(binary file, {size} bytes: not shown)\n"));
        }
        let cap = match self.read.cap {
            CapSpec::HeadLines { .. } => CapSpec::HeadLines { limit, offset },
            other => other,
        };
        let config = Config { cap, line_numbers: true, ..self.read.clone() };
        let mut out = Vec::new();
        capout_core::run(&config, Cursor::new(start).chain(file), &mut out, &mut io::sink())
            .map_err(|e| format!("'{path}': {e}"))?;
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    /// `grep`: the lines that match `pattern` in the files under `path`
    /// (ripgrep's walk: `.gitignore` and hidden files skipped, binary
    /// files left at their first NUL byte), as `path:line:text`, capped
    /// as the profile `grep` says.
    pub fn grep(
        &self,
        pattern: &str,
        path: &str,
        glob: Option<&str>,
        case_insensitive: bool,
    ) -> Result<String, String> {
        let real = self.roots.resolve(path)?;
        let matcher = RegexMatcherBuilder::new()
            .case_insensitive(case_insensitive)
            .build(pattern)
            .map_err(|e| format!("invalid pattern: {e}"))?;
        let mut walk = WalkBuilder::new(&real);
        walk.sort_by_file_name(std::cmp::Ord::cmp);
        if let Some(glob) = glob {
            let mut overrides = OverrideBuilder::new(&real);
            overrides.add(glob).map_err(|e| format!("invalid glob: {e}"))?;
            walk.overrides(overrides.build().map_err(|e| format!("invalid glob: {e}"))?);
        }
        let mut searcher =
            SearcherBuilder::new().line_number(true).binary_detection(BinaryDetection::quit(0)).build();
        let mut capper = Capper::new(options(&self.grep)).map_err(|e| e.to_string())?;
        let mut out = Vec::new();
        let mut line = Vec::new();
        let mut failed: Option<io::Error> = None;
        // Unreadable files and folders are passed over, as ripgrep passes
        // them over (it tells them on stderr, which a model does not see).
        for entry in walk.build().flatten() {
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                continue;
            }
            let shown = self.roots.show(entry.path()).into_owned();
            let _ = searcher.search_path(
                &matcher,
                entry.path(),
                sinks::Bytes(|number, text| {
                    line.clear();
                    let text = text.strip_suffix(b"\n").unwrap_or(text);
                    let text = text.strip_suffix(b"\r").unwrap_or(text);
                    let _ = write!(line, "{shown}:{number}:");
                    line.extend_from_slice(text);
                    line.push(b'\n');
                    match capper.push(&line, &mut out) {
                        Ok(()) => Ok(true),
                        Err(e) => {
                            failed = Some(io::Error::other(e.to_string()));
                            Ok(false)
                        }
                    }
                }),
            );
            if failed.is_some() {
                break;
            }
        }
        if let Some(e) = failed {
            return Err(e.to_string());
        }
        capper.finish(&mut out).map_err(|e| e.to_string())?;
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    /// `bash`: `sh -c COMMAND` in the root, through capout's command
    /// mode, capped as the profile `bash` says, the whole output saved in
    /// the server's folder when something was cut, and `(exit status N)`
    /// when N is not 0.
    pub fn bash(&self, script: &str, timeout: u64) -> Result<String, String> {
        if timeout == 0 {
            return Err("timeout must be at least 1 second".into());
        }
        let spec = CommandSpec {
            program: OsString::from("sh"),
            args: vec![OsString::from("-c"), OsString::from(script)],
            timeout: Some(Timeout {
                after: Duration::from_secs(timeout),
                label: format!("{timeout}s"),
                kill_after: Some(KILL_AFTER),
            }),
            stdout_only: false,
        };
        let config = Config {
            save: Some(SaveTo::Dir(self.roots.saved.clone())),
            command: Some(spec),
            ..self.bash.clone()
        };
        let place = Place { dir: Some(self.roots.root.clone()), no_stdin: true };
        let mut out = Vec::new();
        let finished =
            command::run_in(&config, &place, &mut out, &mut io::sink()).map_err(|e| e.to_string())?;
        if let Some(e) = finished.report.and_then(|r| r.save_error) {
            // The output stands; only the copy of it failed.
            let _ = writeln!(out, "(the whole output could not be saved: {e})");
        }
        if finished.ending.exit_code != 0 {
            let _ = writeln!(out, "(exit status {})", finished.ending.exit_code);
        }
        Ok(String::from_utf8_lossy(&out).into_owned())
    }
}

/// The options of a [`Capper`] that caps as `config` does.
fn options(config: &Config) -> Options {
    let mut options = Options::new(config.cap);
    options.unit = config.unit;
    options.max_line_chars = Some(config.max_line.unwrap_or(0));
    options.strip_ansi = config.strip_ansi;
    options.collapse_cr = config.collapse_cr;
    options.tokenizer = config.tokenizer;
    options
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tools() -> (tempfile::TempDir, Tools) {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        for sub in ["root", "saved"] {
            std::fs::create_dir(base.join(sub)).unwrap();
        }
        let tools = Tools::new(Roots { root: base.join("root"), saved: base.join("saved") }).unwrap();
        (dir, tools)
    }

    #[test]
    fn read_numbers_lines_and_pages() {
        let (_dir, tools) = tools();
        let text: String = "line 1\nline 2\nline 3\n".to_owned();
        std::fs::write(tools.roots.root.join("f"), text).unwrap();
        assert_eq!(
            tools.read("f", 0, Some(2)).unwrap(),
            "     1\tline 1\n     2\tline 2\n... (truncated, showing lines 1-2 of 3, next offset 2)\n"
        );
        assert_eq!(tools.read("f", 2, Some(2)).unwrap(), "     3\tline 3\n");
        assert_eq!(tools.read("f", 5, None).unwrap(), "... (offset 5 is past the end, input has 3 lines)\n");
        assert_eq!(
            tools.read(".", 0, None),
            Err("'.' is a directory: read takes a file (grep searches a directory)".into())
        );
    }

    #[test]
    fn read_does_not_show_a_binary_file() {
        let (_dir, tools) = tools();
        std::fs::write(tools.roots.root.join("b"), b"ab\0cd").unwrap();
        assert_eq!(tools.read("b", 0, None).unwrap(), "(binary file, 5 bytes: not shown)\n");
    }

    #[test]
    fn grep_counts_every_match() {
        let (_dir, tools) = tools();
        let text = (1..=60).fold(String::new(), |text, i| text + &format!("hit {i}\n"));
        std::fs::write(tools.roots.root.join("f"), text).unwrap();
        let got = tools.grep("hit", ".", None, false).unwrap();
        assert!(got.starts_with("f:1:hit 1\nf:2:hit 2\n"), "{got}");
        assert!(got.ends_with("f:50:hit 50\n... (60 total, showing first 50)\n"), "{got}");
        assert_eq!(tools.grep("nothing", ".", None, false).unwrap(), "No matches found.\n");
        assert_eq!(tools.grep("HIT 7$", ".", None, true).unwrap(), "f:7:hit 7\n");
        assert!(tools.grep("(", ".", None, false).unwrap_err().starts_with("invalid pattern"));
    }

    #[test]
    fn bash_keeps_the_tail_and_says_the_status() {
        let (_dir, tools) = tools();
        assert_eq!(tools.bash("echo hi; exit 3", 10).unwrap(), "hi\n(exit status 3)\n");
        assert_eq!(tools.bash("pwd", 10).unwrap(), format!("{}\n", tools.roots.root.display()));
        assert_eq!(tools.bash("cat", 10).unwrap(), "(no output)\n");
    }
}
