//! Profiles and the config file (SPEC §10).
//!
//! A profile is a named set of options: the built-in profiles of the
//! three standard tools, or a `[profile.NAME]` table of the config file,
//! which defines a new profile or replaces a built-in one. The config
//! file's `[defaults]` table holds options for every run. Each table is
//! turned into the words of a command line (`tail-chars = 5000` is
//! `--tail-chars=5000`, `strip-ansi = true` is `--strip-ansi`, `false` is
//! `--no-strip-ansi`), which `cli` parses as it parses the command line,
//! so that an option means the same in every layer.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use clap::error::ErrorKind;
use toml::{Table, Value};

use capout_core::Config;

use crate::cli::{self, Action, Layer};

/// The built-in profiles: `read`, `grep` and `bash`, the caps of the
/// three standard tools.
pub const BUILT_IN: [(&str, &[&str]); 3] = [
    ("read", &["--head-lines", "500"]),
    ("grep", &["--max-matches", "50"]),
    ("bash", &["--tail-chars", "5000"]),
];

/// A config file, read and checked: each table as words.
#[derive(Clone, Debug, Default)]
pub struct ConfigFile {
    /// Where it was read from.
    pub path: PathBuf,
    /// The words of `[defaults]`.
    pub defaults: Vec<OsString>,
    /// The words of each `[profile.NAME]`.
    pub profiles: Vec<(String, Vec<OsString>)>,
}

impl ConfigFile {
    /// Where the config file is: `$CAPOUT_CONFIG` (empty for none), else
    /// `$XDG_CONFIG_HOME/capout/config.toml`, else
    /// `~/.config/capout/config.toml`.
    pub fn path() -> Option<PathBuf> {
        if let Some(path) = std::env::var_os("CAPOUT_CONFIG") {
            return (!path.is_empty()).then(|| path.into());
        }
        let absolute = |dir: OsString| Some(PathBuf::from(dir)).filter(|d| d.is_absolute());
        let base = std::env::var_os("XDG_CONFIG_HOME")
            .and_then(absolute)
            .or_else(|| std::env::var_os("HOME").and_then(absolute).map(|home| home.join(".config")))?;
        Some(base.join("capout").join("config.toml"))
    }

    /// The config file, or `None` when there is none: an absent file is
    /// fine. One that cannot be read or is not valid is a usage error.
    pub fn load() -> Result<Option<ConfigFile>, clap::Error> {
        let Some(path) = Self::path() else { return Ok(None) };
        match std::fs::read_to_string(&path) {
            Ok(text) => Self::parse(&path, &text).map(Some),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(error(&path, None, None, &format!("cannot be read: {e}"))),
        }
    }

    /// Checks the text of the config file at `path` and turns its tables
    /// into words. Every error names the file, and the table and the key
    /// where there is one.
    pub fn parse(path: &Path, text: &str) -> Result<ConfigFile, clap::Error> {
        let table: Table = text.parse().map_err(|e: toml::de::Error| {
            let message = e.message().to_owned();
            let place = e.span().map(|span| {
                let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
                format!("line {line}: ")
            });
            error(path, None, None, &format!("{}{message}", place.unwrap_or_default()))
        })?;
        let mut file = ConfigFile { path: path.to_owned(), ..ConfigFile::default() };
        for (name, value) in &table {
            match (name.as_str(), value) {
                ("defaults", Value::Table(options)) => file.defaults = words(path, "defaults", options)?,
                ("profile", Value::Table(profiles)) => {
                    for (profile, value) in profiles {
                        let table = format!("profile.{profile}");
                        let Value::Table(options) = value else {
                            return Err(error(path, Some(&table), None, "expected a table of options"));
                        };
                        file.profiles.push((profile.clone(), words(path, &table, options)?));
                    }
                }
                ("defaults" | "profile", _) => {
                    return Err(error(path, None, Some(name), "expected a table"));
                }
                (_, Value::Table(_)) => {
                    let why = "unknown table: expected [defaults] or [profile.NAME]";
                    return Err(error(path, Some(name), None, why));
                }
                _ => {
                    let why = "a key outside a table: put it under [defaults] or [profile.NAME]";
                    return Err(error(path, None, Some(name), why));
                }
            }
        }
        Ok(file)
    }

    /// The layer of `[defaults]`, when it holds any option.
    pub fn defaults(&self) -> Option<Layer> {
        (!self.defaults.is_empty()).then(|| Layer { source: self.source(None), words: self.defaults.clone() })
    }

    fn source(&self, profile: Option<&str>) -> String {
        match profile {
            Some(name) => format!("profile {name} of config file {}", self.path.display()),
            None => format!("config file {}", self.path.display()),
        }
    }
}

/// The layer of the profile `name`: a `[profile.NAME]` of `file`, else a
/// built-in profile; `None` when there is no such profile.
pub fn layer(file: Option<&ConfigFile>, name: &str) -> Option<Layer> {
    if let Some(file) = file
        && let Some((_, words)) = file.profiles.iter().find(|(n, _)| n == name)
    {
        return Some(Layer { source: file.source(Some(name)), words: words.clone() });
    }
    let (_, args) = BUILT_IN.iter().find(|(n, _)| *n == name)?;
    Some(Layer { source: format!("profile {name}"), words: args.iter().map(OsString::from).collect() })
}

/// The names of the profiles there are, for an error message.
pub fn known(file: Option<&ConfigFile>) -> String {
    let mut names: Vec<&str> = BUILT_IN.iter().map(|(name, _)| *name).collect();
    for (name, _) in file.iter().flat_map(|f| f.profiles.iter()) {
        if !names.contains(&name.as_str()) {
            names.push(name);
        }
    }
    format!("the profiles are {}", names.join(", "))
}

/// The options that a config file may not hold: those that make capout
/// do something else, and the `--no-` forms (`false` is the way to say
/// them).
const NOT_IN_A_FILE: [&str; 7] = ["help", "version", "completions", "mcp", "root", "show-config", "input"];

/// The words of the options of `table` (named `name` in messages).
fn words(path: &Path, name: &str, table: &Table) -> Result<Vec<OsString>, clap::Error> {
    let cmd = cli::command();
    let mut words = Vec::new();
    for (key, value) in table {
        let fail = |why: &str| error(path, Some(name), Some(key), why);
        let arg = cmd
            .get_arguments()
            .filter(|arg| !arg.is_hide_set() && !NOT_IN_A_FILE.contains(&arg.get_id().as_str()))
            .find(|arg| {
                arg.get_long() == Some(key.as_str())
                    || arg.get_visible_aliases().is_some_and(|aliases| aliases.contains(&key.as_str()))
            })
            .filter(|arg| arg.get_long() != Some("profile") || name == "defaults");
        let Some(arg) = arg else {
            let why = if key == "profile" {
                "a profile cannot name another profile"
            } else {
                "unknown option (keys are long option names without the dashes, as tail-chars)"
            };
            return Err(fail(why));
        };
        let long = arg.get_long().unwrap_or(key);
        let switch = !arg.get_action().takes_values();
        let word = match value {
            Value::Boolean(true) if switch => format!("--{long}"),
            Value::Boolean(false) if switch => format!("--no-{long}"),
            _ if switch => return Err(fail("expected true or false")),
            Value::String(text) => format!("--{long}={text}"),
            Value::Integer(n) => format!("--{long}={n}"),
            Value::Boolean(_) => return Err(fail("expected a value, not true or false")),
            _ => return Err(fail("expected a string, an integer or a boolean")),
        };
        // The value is checked here, where the key is known.
        let check = cmd.clone().try_get_matches_from(["capout", word.as_str()]);
        if let Err(e) = check {
            let text = e.render().to_string();
            let first = text.lines().next().unwrap_or_default();
            return Err(fail(first.strip_prefix("error: ").unwrap_or(first)));
        }
        words.push(OsString::from(word));
    }
    Ok(words)
}

/// The usage error for a config file, naming the file, the table and the
/// key where there is one.
fn error(path: &Path, table: Option<&str>, key: Option<&str>, why: &str) -> clap::Error {
    let table = table.map(|table| format!(" [{table}]")).unwrap_or_default();
    let key = key.map(|key| format!(" {key}")).unwrap_or_default();
    let place = format!("config file {}{table}{key}", path.display());
    cli::command().error(ErrorKind::InvalidValue, format!("in {place}: {why}"))
}

/// The config of the profile `name`: its options alone, over the
/// built-in defaults; a `[profile.NAME]` of the config file replaces a
/// built-in profile of that name.
#[allow(dead_code, reason = "for capout-mcp; the filter reads profiles through cli")]
pub fn config(name: &str) -> Result<Config, String> {
    let file = ConfigFile::load().map_err(|e| strip_error(&e))?;
    config_with(file.as_ref(), name)
}

fn config_with(file: Option<&ConfigFile>, name: &str) -> Result<Config, String> {
    // Only the profile: the file's [defaults] are for the command line.
    let file = file.map(|f| ConfigFile { defaults: Vec::new(), ..f.clone() });
    match cli::try_parse_with(["capout", "--profile", name], file.as_ref(), None) {
        Ok(Action::Run(config)) => Ok(*config),
        Ok(_) => Err(format!("profile {name}: not a set of options")),
        Err(e) => Err(strip_error(&e)),
    }
}

/// A usage error's first line, without clap's `error: `.
fn strip_error(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let first = text.lines().next().unwrap_or_default();
    first.strip_prefix("error: ").unwrap_or(first).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use capout_core::CapSpec;

    #[test]
    fn the_built_in_profiles_are_the_standard_caps() {
        let config = |name| config_with(None, name);
        assert_eq!(config("read").unwrap().cap, CapSpec::HeadLines { limit: 500, offset: 0 });
        assert_eq!(config("grep").unwrap().cap, CapSpec::MaxMatches(50));
        assert_eq!(config("bash").unwrap().cap, CapSpec::TailChars(5000));
        assert_eq!(config("read").unwrap().max_line, Some(2000));
        assert!(config("nosuch").unwrap_err().contains("no such profile: nosuch"));
    }

    #[test]
    fn a_profile_of_the_config_file_replaces_a_built_in_one() {
        let file = ConfigFile::parse(
            Path::new("c.toml"),
            "[defaults]\njson = true\n[profile.read]\nhead-lines = 80\n[profile.quick]\ntail-lines = 9\n",
        )
        .unwrap();
        let read = config_with(Some(&file), "read").unwrap();
        // The [defaults] are not the profile's.
        assert_eq!((read.cap, read.json), (CapSpec::HeadLines { limit: 80, offset: 0 }, false));
        assert_eq!(config_with(Some(&file), "quick").unwrap().cap, CapSpec::TailLines(9));
        assert_eq!(config_with(Some(&file), "grep").unwrap().cap, CapSpec::MaxMatches(50));
    }
}
