//! The layers of defaults under the command line (the config file's
//! `[defaults]`, `CAPOUT_OPTS`, a profile), parsed in one pass with it,
//! and which defaults give way to a later layer.

use std::ffi::OsString;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::parser::ValueSource;
use clap::{Arg, ArgMatches, FromArgMatches};

use capout_core::CapSpec;

use super::args::{Args, command};
use super::fast::simple;
use super::show_config::show_config;
use super::validate::Action;
use super::{usage, usage_in};

/// Parses the process's arguments over the config file and `CAPOUT_OPTS`;
/// on a usage error, prints it and exits with status 2 (0 for `--help`
/// and `--version`).
pub fn parse() -> Action {
    parse_from(std::env::args_os())
}

/// As [`parse`], with `args` (the first is the program's name) in place of
/// capout's own arguments.
pub fn parse_from<I, T>(args: I) -> Action
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let opts = std::env::var_os("CAPOUT_OPTS");
    let opts = match opts.as_deref().map(|o| o.to_str().ok_or(o)) {
        Some(Err(_)) => usage_in(CAPOUT_OPTS, "it is not valid UTF-8").exit(),
        Some(Ok(opts)) => Some(opts),
        None => None,
    };
    let file = crate::profiles::ConfigFile::load().unwrap_or_else(|e| e.exit());
    try_parse_with(args, file.as_ref(), opts).unwrap_or_else(|e| e.exit())
}

/// What `CAPOUT_OPTS` is called in messages and by `--show-config`.
const CAPOUT_OPTS: &str = "CAPOUT_OPTS";

/// Parses `args` (the first is the program's name) over the default
/// options `opts` (the value of `CAPOUT_OPTS`), without a config file.
pub fn try_parse<I, T>(args: I, opts: Option<&str>) -> Result<Action, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    try_parse_with(args, None, opts)
}

/// A layer of options (the config file's defaults, `CAPOUT_OPTS`, a
/// profile): where its words came from, and them.
#[derive(Clone, Debug)]
pub struct Layer {
    /// Where it came from, as `--show-config` says it: `config file
    /// PATH`, `CAPOUT_OPTS`, `profile NAME`, `profile NAME of config file
    /// PATH`.
    pub source: String,
    /// Where it came from, as errors name it: `config file PATH
    /// [defaults]`, `config file PATH [profile.NAME]`, `CAPOUT_OPTS`,
    /// `profile NAME`.
    pub place: String,
    /// Whether its words are the keys of a table of the config file, so
    /// that an error about one option names the key after `place`.
    pub table: bool,
    /// Its options, as words of a command line.
    pub words: Vec<OsString>,
}

/// Parses `args` (the first is the program's name) over the layers of
/// defaults, later winning: the config file's `[defaults]`, `opts` (the
/// value of `CAPOUT_OPTS`), and the profile that `--profile` names.
///
/// Each layer is turned into words, and the words of all go in front of
/// the command line's and are parsed at once, as ripgrep parses its
/// config file: a later option overrides an earlier one, so every option
/// works in every layer as it works on the command line. Each layer is
/// also parsed alone, to check that it makes sense on its own, and with
/// those before it, to learn where it ends: a cap replaces the caps of
/// earlier layers, and a few defaults give way where they do not fit (see
/// `resolve`).
pub fn try_parse_with<I, T>(
    args: I,
    file: Option<&crate::profiles::ConfigFile>,
    opts: Option<&str>,
) -> Result<Action, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let mut args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    if args.is_empty() {
        args.push("capout".into());
    }
    let mut layers = Vec::new();
    if let Some(defaults) = file.and_then(crate::profiles::ConfigFile::defaults) {
        layers.push(defaults);
    }
    if let Some(opts) = opts {
        let words = shlex::split(opts).ok_or_else(|| usage_in(CAPOUT_OPTS, "unbalanced quotes"))?;
        layers.push(Layer {
            source: CAPOUT_OPTS.into(),
            place: CAPOUT_OPTS.into(),
            table: false,
            words: words.into_iter().map(OsString::from).collect(),
        });
    }
    if layers.is_empty()
        && let Some(args) = simple(&args, file)
    {
        return args.into_action();
    }
    parse_layers(args, file, layers)
}

/// [`try_parse_with`] by the parser, with the layers of defaults found.
pub(super) fn parse_layers(
    args: Vec<OsString>,
    file: Option<&crate::profiles::ConfigFile>,
    mut layers: Vec<Layer>,
) -> Result<Action, clap::Error> {
    let program = args[0].clone();
    for layer in &layers {
        check_layer(&program, layer, &args, true)?;
    }
    // The profile: the last --profile of the command line or of a layer.
    let before: Vec<OsString> = std::iter::once(program.clone())
        .chain(layers.iter().flat_map(|l| l.words.iter().cloned()))
        .chain(args.iter().skip(1).cloned())
        .collect();
    let before_matches = parse_words(&before)?;
    let mut ends = Vec::with_capacity(layers.len() + 1);
    let mut all = vec![program.clone()];
    for layer in &layers {
        all.extend(layer.words.iter().cloned());
        ends.push(last_index(&parse_words(&all)?));
    }
    let profile = match before_matches.get_one::<String>("profile") {
        Some(name) => {
            let Some(profile) = crate::profiles::layer(file, name)? else {
                let hint = crate::profiles::similar(file, name)
                    .map(|known| format!("; did you mean {known}?"))
                    .unwrap_or_default();
                let why = format!("no such profile: {name}{hint} ({})", crate::profiles::known(file));
                // Named where the --profile came from.
                return Err(match layer_of(&before_matches, &ends, "profile").and_then(|i| layers.get(i)) {
                    Some(layer) if layer.table => usage_in(&format!("{} profile", layer.place), &why),
                    Some(layer) => usage_in(&layer.place, &why),
                    None => usage(why),
                });
            };
            check_layer(&program, &profile, &args, false)?;
            all.extend(profile.words.iter().cloned());
            ends.push(last_index(&parse_words(&all)?));
            Some(profile)
        }
        None => None,
    };
    all.extend(args.into_iter().skip(1));
    // Without a profile, these are the words parsed above.
    let matches = if profile.is_some() { parse_words(&all)? } else { before_matches };
    layers.extend(profile);
    let args = resolve(&matches, &ends)?;
    if args.show_config {
        let text = show_config(&matches, &ends, &layers, &args)?;
        return Ok(Action::ShowConfig(text));
    }
    args.into_action()
}

/// Checks that `layer` makes sense alone and holds only options that can
/// be defaults (`--profile` too where `may_name_a_profile`). The command
/// line's own mistakes are reported first, as they would be without it.
fn check_layer(
    program: &OsString,
    layer: &Layer,
    args: &[OsString],
    may_name_a_profile: bool,
) -> Result<(), clap::Error> {
    let words: Vec<OsString> = std::iter::once(program.clone()).chain(layer.words.iter().cloned()).collect();
    let alone = match parse_words(&words) {
        Ok(alone) => alone,
        Err(e) => {
            parse_words(args)?;
            return Err(from_layer(&layer.place, &e));
        }
    };
    let given = |id: &str| alone.value_source(id) == Some(ValueSource::CommandLine);
    let source = layer.place.as_str();
    if given("mcp") || given("root") {
        return Err(usage_in(source, "--mcp and --root are not defaults"));
    }
    for (id, name) in
        [("completions", "--completions"), ("show_config", "--show-config"), ("input", "--input")]
    {
        if given(id) {
            return Err(usage_in(source, &format!("{name} is not a default")));
        }
    }
    if given("profile") && !may_name_a_profile {
        return Err(usage_in(source, "a profile cannot name another profile"));
    }
    // A `--` taken as a value was refused by parse_words: this one would
    // make the command line's options a command.
    if given("command") || layer.words.iter().any(|word| word == "--") {
        return Err(usage_in(source, "a command is not a default"));
    }
    resolve(&alone, &[usize::MAX]).and_then(Args::into_run).map_err(|e| from_layer(source, &e))?;
    Ok(())
}

/// Parses `words`, the program's name first, with [`command`].
///
/// `--keep`, `--pattern` and `--notice-format` take a value that starts
/// with `-` only when it is joined to them (`--keep=-x`): given as the
/// next word, it is far more often a flag meant as one, as in
/// `--keep -i error`, which would take `-i` for the pattern and run
/// `error`. clap cannot tell the two forms apart, so a parse that lets
/// these options take any next word is checked by one that does not.
pub(super) fn parse_words(words: &[OsString]) -> Result<ArgMatches, clap::Error> {
    let mut cmd = command();
    let matches = cmd.try_get_matches_from_mut(words).map_err(true_tip)?;
    let takes_dashes: Vec<&Arg> = cmd.get_opts().filter(|arg| arg.is_allow_hyphen_values_set()).collect();
    if !may_take_a_dash_word(&takes_dashes, words) {
        return Ok(matches);
    }
    let strict = |args: &[&Arg]| {
        args.iter()
            .fold(command(), |cmd, arg| cmd.mut_arg(arg.get_id(), |arg| arg.allow_hyphen_values(false)))
            .try_get_matches_from(words)
    };
    if let Err(e) = strict(&takes_dashes) {
        let culprit = takes_dashes.iter().find(|arg| strict(&[arg]).is_err());
        return Err(match culprit {
            Some(arg) => unjoined_dash_value(arg, &matches),
            None => true_tip(e),
        });
    }
    Ok(matches)
}

/// Whether one of `args` may have taken a word that starts with `-` for
/// its value: a word that ends in one of them (`--keep`, `-e`, `-Fe`) is
/// followed by one. Only then is the slower check of `parse_words` needed;
/// a false alarm costs only its time.
fn may_take_a_dash_word(args: &[&Arg], words: &[OsString]) -> bool {
    words.windows(2).any(|pair| {
        let (word, next) = (pair[0].to_string_lossy(), pair[1].as_encoded_bytes());
        let ends_in = |arg: &&Arg| match word.strip_prefix("--") {
            Some(long) => arg.get_long() == Some(long),
            None => word.starts_with('-') && arg.get_short().is_some_and(|short| word.ends_with(short)),
        };
        next.len() > 1 && next[0] == b'-' && args.iter().any(ends_in)
    })
}

/// The usage error for `--keep -x`: the value must be joined to its option.
fn unjoined_dash_value(arg: &Arg, matches: &ArgMatches) -> clap::Error {
    let long = arg.get_long().unwrap_or_default();
    let value = matches
        .get_raw(arg.get_id().as_str())
        .and_then(Iterator::last)
        .map(|v| v.to_string_lossy().into_owned())
        .filter(|v| v.starts_with('-'))
        .unwrap_or_else(|| "-x".into());
    let mut message =
        format!("a value of --{long} that starts with '-' must be joined to it, as in --{long}={value}");
    if arg.get_value_names().is_some_and(|names| names.iter().any(|name| name == "REGEX")) {
        message.push_str("; for case-insensitive matching, start the pattern with (?i)");
    }
    command().error(ErrorKind::InvalidValue, message)
}

/// Replaces clap's tip for an unknown argument, "to pass '--x' as a
/// value, use '-- --x'", which is wrong here: `--` starts a command.
fn true_tip(mut e: clap::Error) -> clap::Error {
    if e.kind() == ErrorKind::UnknownArgument
        && e.get(ContextKind::Suggested).is_some()
        && let Some(ContextValue::String(arg)) = e.get(ContextKind::InvalidArg).cloned()
    {
        let tip = format!("to pass '{arg}' as the value of an option, join it to the option: --OPTION={arg}");
        e.insert(ContextKind::Suggested, ContextValue::StyledStrs(vec![tip.into()]));
    }
    e
}

/// The last position clap gave to a word of `matches`: the words of a
/// longer parse that begins with the same words and has positions past
/// this one come after them.
fn last_index(matches: &ArgMatches) -> usize {
    matches
        .ids()
        .filter(|id| matches.value_source(id.as_str()) == Some(ValueSource::CommandLine))
        .filter_map(|id| matches.indices_of(id.as_str()))
        .flatten()
        .max()
        .unwrap_or(0)
}

/// The clap ids of the caps.
pub(super) const CAPS: [&str; 7] =
    ["tail_chars", "head_chars", "head_lines", "tail_lines", "max_matches", "tail_tokens", "head_tokens"];

/// The layer that the option `id` of `matches` came from: the index in
/// `ends` of the first layer that ends at or after its position, or
/// `ends.len()` for the command line; `None` when it was not given.
pub(super) fn layer_of(matches: &ArgMatches, ends: &[usize], id: &str) -> Option<usize> {
    if matches.value_source(id) != Some(ValueSource::CommandLine) {
        return None;
    }
    let index = matches.index_of(id)?;
    Some(ends.iter().position(|&end| index <= end).unwrap_or(ends.len()))
}

/// Resets each named field of `$args` for which `$default` holds, and
/// notes that it gave way. The field's name is its clap id.
macro_rules! give_way {
    ($args:ident, $default:ident, $($field:ident),+) => {
        $(if $default(stringify!($field)) {
            $args.$field = Default::default();
            $args.gave_way.push(stringify!($field));
        })+
    };
}

/// The options that `matches` holds, where the values at positions up to
/// `ends[i]` came from layer `i` of the defaults (the config file's
/// `[defaults]`, `CAPOUT_OPTS`, the profile) and the rest from the command
/// line. Each option has its last value; only these defaults give way, so
/// that a layer never breaks a later one:
/// - the caps of the last layer that gives a cap win: the caps of earlier
///   layers give way with the options that belong to them (`--offset`,
///   `--pattern`, `--fixed-strings`), and a default `--keep` and
///   `--keep-max` give way to `--max-matches`, which they do not go with;
/// - `-N` waits for a line cap, `--stop-at-cap` for a head cap without
///   `--keep`, `-i` for a pattern, a `--render` size for
///   `--render`, and the options of a command (`--timeout`,
///   `--kill-after`, `--stdout-only`) for a command (and `--kill-after`
///   for a `--timeout`).
pub(super) fn resolve(matches: &ArgMatches, ends: &[usize]) -> Result<Args, clap::Error> {
    let mut args = Args::from_arg_matches(matches)?;
    let mut order: Vec<(usize, &'static str)> =
        CAPS.iter().filter_map(|&id| Some((matches.index_of(id)?, id))).collect();
    order.sort_unstable();
    args.cap_order = order.into_iter().map(|(_, id)| id).collect();
    let layer = |id: &str| layer_of(matches, ends, id);
    let default = |id: &str| layer(id).is_some_and(|l| l < ends.len());
    if let Some(last) = CAPS.iter().filter_map(|id| layer(id)).max() {
        let earlier = |id: &str| layer(id).is_some_and(|l| l < last);
        give_way!(args, earlier, tail_chars, head_chars, head_lines, tail_lines, max_matches);
        give_way!(args, earlier, tail_tokens, head_tokens);
        give_way!(args, earlier, offset, pattern, fixed_strings, budget_chars);
    }
    if args.max_matches.is_some() {
        give_way!(args, default, keep, keep_max);
    }
    if !args.cap().is_ok_and(CapSpec::is_line_cap) {
        give_way!(args, default, line_numbers);
    }
    if !args.cap().is_ok_and(|c| {
        matches!(c, CapSpec::HeadLines { .. } | CapSpec::TailLines(_) | CapSpec::MaxMatches(_))
    }) {
        give_way!(args, default, budget_chars);
    }
    if args.pattern.is_none() && args.keep.is_none() {
        give_way!(args, default, ignore_case);
    }
    // A default --stop-at-cap waits for a head cap without --keep.
    let head = args.cap().is_ok_and(|cap| {
        matches!(cap, CapSpec::HeadLines { .. } | CapSpec::HeadChars(_) | CapSpec::MaxMatches(_))
    });
    if !head || args.keep.is_some() {
        give_way!(args, default, stop_at_cap);
    }
    if args.command.is_empty() {
        give_way!(args, default, timeout, kill_after, stdout_only);
    }
    if args.timeout.is_none() {
        give_way!(args, default, kill_after);
    }
    // A default size waits for --render, as --kill-after for a --timeout.
    if !args.render {
        give_way!(args, default, render_width, render_height);
    }
    json_gives_way(&mut args, &layer, ends.len());
    Ok(args)
}

/// `--json-items` (and `--json-string-chars` with it) from a default waits
/// for a head cap. Against an option its output cannot have (a page past
/// an offset, line numbers, rescued lines, a stop at the cap, a line cap
/// before `--head-chars`) the later layer wins and the other gives way,
/// so that `--profile read --offset 500` pages lines as before; `layer`
/// gives `command_line` for the command line.
fn json_gives_way(args: &mut Args, layer: &dyn Fn(&str) -> Option<usize>, command_line: usize) {
    let Some(json) = args.json_items.and(layer("json_items")) else { return };
    let cap = args.cap();
    let head_chars = cap.as_ref().is_ok_and(|c| matches!(c, CapSpec::HeadChars(_)));
    let head = head_chars || cap.as_ref().is_ok_and(|c| matches!(c, CapSpec::HeadLines { .. }));
    let conflicts = [
        ("offset", args.offset.is_some_and(|k| k > 0)),
        ("line_numbers", args.line_numbers),
        ("keep", args.keep.is_some()),
        ("stop_at_cap", args.stop_at_cap),
        ("max_line_chars", head_chars && args.max_line_chars.is_some()),
    ];
    let overruled = conflicts.iter().any(|&(id, given)| given && layer(id).is_some_and(|other| other > json));
    if (!head || overruled) && json < command_line {
        args.json_items = None;
        args.json_string_chars = None;
        args.gave_way.extend(["json_items", "json_string_chars"]);
        return;
    }
    for (id, given) in conflicts {
        if !given || layer(id).is_none_or(|other| other >= json) {
            continue;
        }
        match id {
            "offset" => args.offset = None,
            "line_numbers" => args.line_numbers = false,
            "keep" => {
                (args.keep, args.keep_max) = (None, None);
                args.gave_way.push("keep_max");
            }
            "stop_at_cap" => args.stop_at_cap = false,
            _ => args.max_line_chars = None,
        }
        args.gave_way.push(id);
    }
}

/// Says that a usage error came from the layer `source`.
fn from_layer(source: &str, e: &clap::Error) -> clap::Error {
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        return usage_in(source, "--help and --version are not defaults");
    }
    let text = e.render().to_string();
    let first = text.lines().next().unwrap_or_default();
    let message = first.strip_prefix("error: ").unwrap_or(first);
    command().error(e.kind(), format!("in {source}: {message}"))
}
