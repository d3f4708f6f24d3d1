//! Profiles and the config file: named sets of options, and the defaults
//! of every run.
//!
//! A profile is a named set of options: the built-in profiles of the
//! three standard tools, or a `[profile.NAME]` table of the config file,
//! which defines a new profile or replaces a built-in one. The config
//! file's `[defaults]` table holds options for every run. Each table is
//! turned into the words of a command line (`tail-chars = 5000` is
//! `--tail-chars=5000`, `strip-ansi = true` is `--strip-ansi`, `false` is
//! `--no-strip-ansi`), which `cli` parses as it parses the command line,
//! so that an option means the same in every layer.

use std::collections::HashMap;
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

use clap::error::ErrorKind;
use toml::{Table, Value};

use capout_core::Options;

use crate::cli::{self, Action, Layer};

/// The built-in profiles: `read`, `grep` and `bash`, the caps of the
/// three standard tools, and `tool`, the cap of every other tool's output
/// (the results that `capout --mcp-wrap` and the after-tool hooks bound):
/// the `read` budget of 8000 characters, which fits every harness
/// measured. `read` and `tool` cut JSON so that it stays JSON (50 items an
/// array, as grep keeps 50 matches). `tool`'s output is saved by the
/// front-ends that bound tools: a profile cannot name the folder of their
/// session.
pub const BUILT_IN: [(&str, &[&str]); 4] = [
    ("read", &["--head-lines", "500", "--budget-chars", "8000", "--binary", "hide", "--json-items", "50"]),
    ("grep", &["--max-matches", "50"]),
    ("bash", &["--tail-chars", "5000", "--strip-ansi", "--collapse-cr", "--binary", "hide"]),
    ("tool", &["--head-chars", "8000", "--json-items", "50", "--binary", "hide"]),
];

/// The largest config file that is read: a larger one is surely not a
/// config file, and reading it would cost every run.
pub const MAX_SIZE: u64 = crate::safe_read::MAX_SIZE;

/// A config file, read and checked: each table as words.
///
/// Every table's keys, and the kinds of their values, are checked when
/// the file is read; the values themselves (`tail-chars = 0`) are checked
/// by the parser of the command line for `[defaults]` then too, and for a
/// profile when it is used, so that a file of many profiles costs little
/// more than its parse.
#[derive(Clone, Debug, Default)]
pub struct ConfigFile {
    /// Where it was read from.
    pub path: PathBuf,
    /// The words of `[defaults]`.
    pub defaults: Vec<OsString>,
    /// The words of each `[profile.NAME]`, each with its key.
    profiles: Vec<(String, Vec<(String, OsString)>)>,
    /// The `[tools]` table: a pattern of tool names, and what bounds the
    /// output of the tools it matches.
    tools: Vec<(String, ToolRule)>,
    /// `ledger = false` turns the ledger off (`true` keeps it on).
    ledger: Option<bool>,
}

/// What the config file's `[tools]` table says of the tools whose names
/// a pattern matches (`"directory_tree" = "read"`, `"search_*" = "grep"`,
/// `"get_secret" = false`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToolRule {
    /// Their output is bounded by this profile.
    Profile(String),
    /// Their output is left as it is (`false`).
    Leave,
}

impl ConfigFile {
    /// Where the config file is: `$CAPOUT_CONFIG` (empty for none), else
    /// `$XDG_CONFIG_HOME/capout/config.toml`, else
    /// `~/.config/capout/config.toml`; and whether `CAPOUT_CONFIG` named it.
    pub fn path() -> Option<(PathBuf, bool)> {
        if let Some(path) = std::env::var_os("CAPOUT_CONFIG") {
            return (!path.is_empty()).then(|| (path.into(), true));
        }
        let absolute = |dir: OsString| Some(PathBuf::from(dir)).filter(|d| d.is_absolute());
        let base = std::env::var_os("XDG_CONFIG_HOME")
            .and_then(absolute)
            .or_else(|| std::env::var_os("HOME").and_then(absolute).map(|home| home.join(".config")))?;
        Some((base.join("capout").join("config.toml"), false))
    }

    /// The config file, or `None` when there is none: an absent file at
    /// the usual place is fine, an absent `$CAPOUT_CONFIG` is not. One
    /// that cannot be read, is not a regular file of at most
    /// [`MAX_SIZE`] bytes, or is not valid is a usage error.
    pub fn load() -> Result<Option<ConfigFile>, clap::Error> {
        let Some((path, named)) = Self::path() else { return Ok(None) };
        match crate::safe_read::read_to_string(&path, MAX_SIZE) {
            Ok(text) => Self::parse(&path, &text).map(Some),
            Err(e) if e.kind() == io::ErrorKind::NotFound && !named => Ok(None),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let why =
                    format!("cannot be read: {e} (CAPOUT_CONFIG names it; set it empty for no config file)");
                Err(error(&path, None, None, &why))
            }
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
        let keys = Keys::new();
        let mut file = ConfigFile { path: path.to_owned(), ..ConfigFile::default() };
        for (name, value) in &table {
            match (name.as_str(), value) {
                ("defaults", Value::Table(options)) => {
                    let words = keys.words(path, "defaults", options)?;
                    check_values(path, "defaults", &words)?;
                    file.defaults = words.into_iter().map(|(_, word)| word).collect();
                }
                ("profile", Value::Table(profiles)) => {
                    file.profiles.reserve(profiles.len());
                    for (profile, value) in profiles {
                        let table = format!("profile.{profile}");
                        let Value::Table(options) = value else {
                            return Err(error(path, Some(&table), None, "expected a table of options"));
                        };
                        file.profiles.push((profile.clone(), keys.words(path, &table, options)?));
                    }
                }
                ("tools", Value::Table(rules)) => {
                    for (pattern, value) in rules {
                        let fail = |why: &str| error(path, Some("tools"), Some(pattern), why);
                        let rule = match value {
                            Value::String(profile) => ToolRule::Profile(profile.clone()),
                            Value::Boolean(false) => ToolRule::Leave,
                            _ => {
                                return Err(fail(
                                    "expected the name of a profile, or false to leave the output as it is",
                                ));
                            }
                        };
                        if pattern.is_empty() {
                            return Err(fail("a pattern cannot be empty"));
                        }
                        file.tools.push((pattern.clone(), rule));
                    }
                }
                ("ledger", Value::Boolean(on)) => file.ledger = Some(*on),
                ("ledger", _) => {
                    return Err(error(path, None, Some(name), "expected true or false"));
                }
                ("defaults" | "profile" | "tools", _) => {
                    return Err(error(path, None, Some(name), "expected a table"));
                }
                (_, Value::Table(_)) => {
                    let why = "unknown table: expected [defaults], [profile.NAME] or [tools]";
                    return Err(error(path, Some(name), None, why));
                }
                _ => {
                    let why = "a key outside a table: put it under [defaults] or [profile.NAME] (the only key \
                               outside one is ledger)";
                    return Err(error(path, None, Some(name), why));
                }
            }
        }
        // Once every profile is known: a rule may name one defined below it.
        for (pattern, rule) in &file.tools {
            if let ToolRule::Profile(name) = rule
                && !names(Some(&file)).contains(&name.as_str())
            {
                let why = format!("no such profile: {name} ({})", known(Some(&file)));
                return Err(error(path, Some("tools"), Some(pattern), &why));
            }
        }
        Ok(file)
    }

    /// What `ledger = ...` says, when the file says it.
    pub fn ledger(&self) -> Option<bool> {
        self.ledger
    }

    /// The rules of the `[tools]` table, each with its pattern.
    pub fn tool_rules(&self) -> &[(String, ToolRule)] {
        &self.tools
    }

    /// The layer of `[defaults]`, when it holds any option.
    pub fn defaults(&self) -> Option<Layer> {
        (!self.defaults.is_empty()).then(|| Layer {
            source: self.source(None),
            place: self.place("defaults"),
            table: true,
            words: self.defaults.clone(),
        })
    }

    fn source(&self, profile: Option<&str>) -> String {
        match profile {
            Some(name) => format!("profile {name} of config file {}", self.path.display()),
            None => format!("config file {}", self.path.display()),
        }
    }

    /// Where errors say that the table `table` is.
    fn place(&self, table: &str) -> String {
        format!("config file {} [{table}]", self.path.display())
    }
}

/// The layer of the profile `name`: a `[profile.NAME]` of `file`, else a
/// built-in profile; `None` when there is no such profile. A value that
/// its option refuses is an error naming the file, the table and the key.
pub fn layer(file: Option<&ConfigFile>, name: &str) -> Result<Option<Layer>, clap::Error> {
    if let Some(file) = file
        && let Some((_, words)) = file.profiles.iter().find(|(n, _)| n == name)
    {
        let table = format!("profile.{name}");
        check_values(&file.path, &table, words)?;
        return Ok(Some(Layer {
            source: file.source(Some(name)),
            place: file.place(&table),
            table: true,
            words: words.iter().map(|(_, word)| word.clone()).collect(),
        }));
    }
    let Some((_, args)) = BUILT_IN.iter().find(|(n, _)| *n == name) else { return Ok(None) };
    Ok(Some(Layer {
        source: format!("profile {name}"),
        place: format!("profile {name}"),
        table: false,
        words: args.iter().map(OsString::from).collect(),
    }))
}

/// The words of the built-in profile `name`, when `file` does not
/// replace it.
pub fn built_in(file: Option<&ConfigFile>, name: &str) -> Option<&'static [&'static str]> {
    if file.is_some_and(|file| file.profiles.iter().any(|(n, _)| n == name)) {
        return None;
    }
    BUILT_IN.iter().find(|(n, _)| *n == name).map(|(_, words)| *words)
}

/// What the `[tools]` table of `file` says of the tool `name`: the rule
/// of the pattern that matches it most closely. A name written out beats
/// every pattern; of two patterns, the one with more characters that are
/// not `*` or `?` wins, and of two as long, the first in the order of
/// their names.
pub fn tool_rule<'a>(file: Option<&'a ConfigFile>, name: &str) -> Option<&'a ToolRule> {
    let literal = |pattern: &str| pattern.chars().filter(|c| !matches!(c, '*' | '?')).count();
    let wild = |pattern: &str| pattern.contains(['*', '?']);
    file?
        .tools
        .iter()
        .filter(|(pattern, _)| glob_match(pattern, name))
        // Sorted by name, so that the order of the file does not matter.
        .min_by(|(a, _), (b, _)| {
            (wild(a), std::cmp::Reverse(literal(a)), a).cmp(&(wild(b), std::cmp::Reverse(literal(b)), b))
        })
        .map(|(_, rule)| rule)
}

/// Whether `name` matches `pattern`, in which `*` stands for any run of
/// characters (none too) and `?` for one; every other character for
/// itself.
pub fn glob_match(pattern: &str, name: &str) -> bool {
    let pattern: Vec<char> = pattern.chars().collect();
    let name: Vec<char> = name.chars().collect();
    let (mut p, mut n) = (0, 0);
    // Where the last `*` was, and the name's place when it was met: a
    // mismatch after it lets that `*` take one character more.
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        match pattern.get(p) {
            Some('*') => {
                star = Some((p, n));
                p += 1;
            }
            Some(&c) if c == '?' || c == name[n] => {
                p += 1;
                n += 1;
            }
            _ => match star {
                Some((at, taken)) => {
                    p = at + 1;
                    n = taken + 1;
                    star = Some((at, taken + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|&c| c == '*')
}

/// The names of the profiles there are, for an error message: the first
/// `KNOWN_NAMED` (20) of them, and how many more.
pub fn known(file: Option<&ConfigFile>) -> String {
    let mut names = names(file);
    let more = names.len().saturating_sub(KNOWN_NAMED);
    names.truncate(KNOWN_NAMED);
    let more = if more > 0 { format!(" and {more} more") } else { String::new() };
    format!("the profiles are {}{more}", names.join(", "))
}

/// The names of the profiles there are: the built-in ones, then those
/// the config file adds, each once.
pub fn names(file: Option<&ConfigFile>) -> Vec<&str> {
    let mut names: Vec<&str> = BUILT_IN.iter().map(|(name, _)| *name).collect();
    // The names of one TOML table differ: only a built-in one repeats.
    for (name, _) in file.iter().flat_map(|f| f.profiles.iter()) {
        if !BUILT_IN.iter().any(|(built_in, _)| built_in == name) {
            names.push(name);
        }
    }
    names
}

/// The profile that `name` was most likely meant to be, as clap finds the
/// option a mistyped one was meant to be (Jaro similarity above 0.7).
pub fn similar<'a>(file: Option<&'a ConfigFile>, name: &str) -> Option<&'a str> {
    names(file)
        .into_iter()
        .map(|known| (strsim::jaro(name, known), known))
        .filter(|&(confidence, _)| confidence > 0.7)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, known)| known)
}

/// How many profiles an error names at most: a file may define thousands.
const KNOWN_NAMED: usize = 20;

/// The options that a config file may not hold: those that make capout
/// do something else, and the `--no-` forms (`false` is the way to say
/// them).
const NOT_IN_A_FILE: [&str; 7] = ["help", "version", "completions", "mcp", "root", "show-config", "input"];

/// The keys a table may hold, looked up by name: each one's long option
/// and whether it is a switch. Made once for a whole file, from the
/// parser of the command line, so that a key costs a lookup.
struct Keys(HashMap<String, (String, bool)>);

impl Keys {
    fn new() -> Keys {
        let cmd = cli::command();
        let mut keys = HashMap::new();
        for arg in cmd.get_arguments() {
            let Some(long) = arg.get_long() else { continue };
            if arg.is_hide_set() || NOT_IN_A_FILE.contains(&arg.get_id().as_str()) {
                continue;
            }
            let switch = !arg.get_action().takes_values();
            for key in std::iter::once(long).chain(arg.get_visible_aliases().into_iter().flatten()) {
                keys.insert(key.to_owned(), (long.to_owned(), switch));
            }
        }
        Keys(keys)
    }

    /// The words of the options of `table` (named `name` in messages),
    /// each with its key; their values are of the right kind, but not
    /// yet checked by the parser (see [`check_values`]).
    fn words(&self, path: &Path, name: &str, table: &Table) -> Result<Vec<(String, OsString)>, clap::Error> {
        let mut words = Vec::with_capacity(table.len());
        for (key, value) in table {
            let fail = |why: &str| error(path, Some(name), Some(key), why);
            let option = self.0.get(key).filter(|_| key != "profile" || name == "defaults");
            let Some((long, switch)) = option else {
                let why = if key == "profile" {
                    "a profile cannot name another profile"
                } else {
                    "unknown option (keys are long option names without the dashes, as tail-chars)"
                };
                return Err(fail(why));
            };
            let word = match value {
                Value::Boolean(true) if *switch => format!("--{long}"),
                Value::Boolean(false) if *switch => format!("--no-{long}"),
                _ if *switch => return Err(fail("expected true or false")),
                Value::String(text) => format!("--{long}={text}"),
                Value::Integer(n) => format!("--{long}={n}"),
                Value::Boolean(_) => return Err(fail("expected a value, not true or false")),
                _ => return Err(fail("expected a string, an integer or a boolean")),
            };
            words.push((key.clone(), OsString::from(word)));
        }
        Ok(words)
    }
}

/// Checks each of the `words` of the table `table` with the parser of the
/// command line, where its key is known, so that an error names it.
fn check_values(path: &Path, table: &str, words: &[(String, OsString)]) -> Result<(), clap::Error> {
    if words.is_empty() {
        return Ok(());
    }
    let mut cmd = cli::command();
    for (key, word) in words {
        if let Err(e) = cmd.try_get_matches_from_mut([OsString::from("capout"), word.clone()]) {
            let text = e.render().to_string();
            let first = text.lines().next().unwrap_or_default();
            return Err(error(path, Some(table), Some(key), first.strip_prefix("error: ").unwrap_or(first)));
        }
    }
    Ok(())
}

/// The usage error for a config file, naming the file, the table and the
/// key where there is one.
fn error(path: &Path, table: Option<&str>, key: Option<&str>, why: &str) -> clap::Error {
    let table = table.map(|table| format!(" [{table}]")).unwrap_or_default();
    let key = key.map(|key| format!(" {key}")).unwrap_or_default();
    let place = format!("config file {}{table}{key}", path.display());
    cli::command().error(ErrorKind::InvalidValue, format!("in {place}: {why}"))
}

/// The options of the profile `name`: its options alone, over the
/// built-in defaults; a `[profile.NAME]` of the config file replaces a
/// built-in profile of that name.
pub fn config(name: &str) -> Result<Options, String> {
    let file = ConfigFile::load().map_err(|e| strip_error(&e))?;
    config_with(file.as_ref(), name)
}

/// [`config`], with the config file `file` read already.
pub fn config_with(file: Option<&ConfigFile>, name: &str) -> Result<Options, String> {
    // Only the profile: the file's [defaults] are for the command line.
    let file = file.map(|f| ConfigFile { defaults: Vec::new(), ..f.clone() });
    match cli::try_parse_with(["capout", "--profile", name], file.as_ref(), None) {
        Ok(Action::Run(run)) => Ok(run.options),
        Ok(_) => Err(format!("profile {name}: not a set of options")),
        Err(e) => Err(strip_error(&e)),
    }
}

/// A usage error's first line, without clap's `error: `.
pub fn strip_error(e: &clap::Error) -> String {
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
        assert_eq!(config("tool").unwrap().cap, CapSpec::HeadChars(8000));
        assert!(config("tool").unwrap().hide_binary);
        assert_eq!(config("tool").unwrap().json_items, Some(50));
        assert_eq!(config("read").unwrap().json_items, Some(50));
        assert_eq!(config("read").unwrap().max_line(), Some(2000));
        assert!(config("nosuch").unwrap_err().contains("no such profile: nosuch"));
    }

    /// A config file of `n` profiles of two keys each, and `[defaults]`
    /// of one.
    fn profiles(n: usize) -> String {
        let mut text = String::from("[defaults]\nstrip-ansi = true\n");
        for i in 0..n {
            let _ = std::fmt::Write::write_fmt(
                &mut text,
                format_args!("[profile.p{i}]\nhead-lines = {}\njson = true\n", i + 1),
            );
        }
        text
    }

    /// How many times `f` builds the parser of the command line.
    fn parsers_built<T>(f: impl FnOnce() -> T) -> (T, usize) {
        let before = cli::PARSERS_BUILT.with(std::cell::Cell::get);
        let value = f();
        (value, cli::PARSERS_BUILT.with(std::cell::Cell::get) - before)
    }

    #[test]
    fn reading_a_config_file_builds_the_parser_as_often_for_2000_profiles_as_for_2() {
        let path = Path::new("c.toml");
        let (few, few_built) = parsers_built(|| ConfigFile::parse(path, &profiles(2)).unwrap());
        let (many, many_built) = parsers_built(|| ConfigFile::parse(path, &profiles(2000)).unwrap());
        assert_eq!((few.profiles.len(), many.profiles.len()), (2, 2000));
        // The table of keys, and the check of the values of [defaults].
        assert_eq!((few_built, many_built), (2, 2));
        // A profile's values are checked when it is used, once.
        let (layer, built) = parsers_built(|| layer(Some(&many), "p1999").unwrap().unwrap());
        assert_eq!(layer.words, ["--head-lines=2000", "--json"]);
        assert_eq!(built, 1);
    }

    #[test]
    fn a_bad_value_in_a_profile_is_an_error_when_the_profile_is_used() {
        let path = Path::new("c.toml");
        let file =
            ConfigFile::parse(path, "[profile.q]\ntail-chars = 0\n[profile.r]\ntail-chars = 5\n").unwrap();
        assert_eq!(layer(Some(&file), "r").unwrap().unwrap().words, ["--tail-chars=5"]);
        let e = strip_error(&layer(Some(&file), "q").unwrap_err());
        assert_eq!(
            e,
            "in config file c.toml [profile.q] tail-chars: invalid value '0' for '--tail-chars <N>': 0 is not in 1 to 18446744073709551615"
        );
        // In [defaults], at once.
        let e = strip_error(&ConfigFile::parse(path, "[defaults]\ntail-chars = 0\n").unwrap_err());
        assert!(e.starts_with("in config file c.toml [defaults] tail-chars: invalid value '0'"), "{e}");
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

    #[test]
    fn a_glob_matches_as_a_shell_pattern_does() {
        let cases = [
            ("*", "", true),
            ("*", "anything", true),
            ("search_*", "search_code", true),
            ("search_*", "search_", true),
            ("search_*", "research_code", false),
            ("*_file", "read_text_file", true),
            ("*_file", "read_text_files", false),
            ("a*b*c", "aXbYbZc", true),
            ("a*b*c", "aXbYbZ", false),
            ("?at", "cat", true),
            ("?at", "at", false),
            ("mcp__github__*", "mcp__github__search", true),
            ("exact", "exact", true),
            ("exact", "exactly", false),
            ("é*", "été", true),
        ];
        for (pattern, name, expected) in cases {
            assert_eq!(glob_match(pattern, name), expected, "{pattern} against {name}");
        }
    }

    #[test]
    fn the_closest_tools_pattern_names_the_profile() {
        let file = ConfigFile::parse(
            Path::new("c.toml"),
            "[tools]\n\"*\" = \"bash\"\n\"read_*\" = \"grep\"\n\"read_text_*\" = \"quick\"\n\
             \"read_text_file\" = \"read\"\n\"secret\" = false\n[profile.quick]\nhead-lines = 3\n",
        )
        .unwrap();
        let rule = |name| tool_rule(Some(&file), name).cloned();
        let profile = |name: &str| Some(ToolRule::Profile(name.into()));
        assert_eq!(rule("read_text_file"), profile("read"));
        assert_eq!(rule("read_text_files"), profile("quick"));
        assert_eq!(rule("read_media_file"), profile("grep"));
        assert_eq!(rule("other"), profile("bash"));
        assert_eq!(rule("secret"), Some(ToolRule::Leave));
        assert_eq!(tool_rule(None, "x"), None);
        let none = ConfigFile::parse(Path::new("c.toml"), "[tools]\n\"a\" = \"read\"\n").unwrap();
        assert_eq!(tool_rule(Some(&none), "b"), None);
    }

    #[test]
    fn a_tools_rule_must_name_a_profile_or_be_false() {
        let e = |text: &str| strip_error(&ConfigFile::parse(Path::new("c.toml"), text).unwrap_err());
        assert_eq!(
            e("[tools]\nx = \"nosuch\"\n"),
            "in config file c.toml [tools] x: no such profile: nosuch (the profiles are read, grep, bash, tool)"
        );
        assert_eq!(
            e("[tools]\nx = true\n"),
            "in config file c.toml [tools] x: expected the name of a profile, or false to leave the output as it is"
        );
        assert_eq!(
            e("[tools]\n\"\" = \"read\"\n"),
            "in config file c.toml [tools] : a pattern cannot be empty"
        );
        assert_eq!(e("tools = 1\n"), "in config file c.toml tools: expected a table");
    }
}
