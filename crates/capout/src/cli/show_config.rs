//! `--show-config`: the options in force, and where each came from.

use clap::ArgMatches;

use super::args::{Args, command};
use super::layers::{CAPS, Layer, layer_of};
use super::{DEFAULT_KILL_AFTER, DEFAULT_TAIL_CHARS};

/// The text of `--show-config`: one line for each option in force, the
/// option as it would be written on a command line, a tab, and where it
/// came from: `built-in`, `config file PATH`, `CAPOUT_OPTS`,
/// `profile NAME` or `command line`. The options come in the order of
/// `capout --help`; a switch turned off by a `--no-` form shows as that.
pub(super) fn show_config(
    matches: &ArgMatches,
    ends: &[usize],
    layers: &[Layer],
    args: &Args,
) -> Result<String, clap::Error> {
    let run = args.clone().into_run()?;
    let config = &run.options;
    let mut lines = Vec::new();
    let mut line = |words: &str, source: &str| lines.push((words.to_owned(), source.to_owned()));
    let cmd = command();
    for arg in cmd.get_arguments() {
        let id = arg.get_id().as_str();
        let skipped = ["command", "show_config", "help", "version"].contains(&id);
        let Some(layer) = layer_of(matches, ends, id).filter(|_| !skipped && !args.gave_way.contains(&id))
        else {
            continue;
        };
        let source = layers.get(layer).map_or("command line", |l| l.source.as_str());
        let long = format!("--{}", arg.get_long().unwrap_or(id));
        match matches.get_raw(id).and_then(Iterator::last) {
            Some(value) if arg.get_action().takes_values() => {
                let value = value.to_string_lossy();
                line(&format!("{long} {}", shlex::try_quote(&value).unwrap_or(value.clone())), source);
            }
            _ => line(&long, source),
        }
    }
    let built_in = "built-in";
    let given = |id: &str| lines_mention(matches, ends, args, id);
    if !CAPS.iter().any(|id| given(id)) {
        line(&format!("--tail-chars {DEFAULT_TAIL_CHARS}"), built_in);
    }
    if let (Some(w), false) = (config.max_line(), given("max_line_chars")) {
        line(&format!("--max-line-chars {w}"), built_in);
    }
    if config.json_items.is_some() && !given("json_string_chars") {
        line(&format!("--json-string-chars {}", config.json_string_chars), built_in);
    }
    if let (Some(keep), false) = (&config.keep, given("keep_max")) {
        line(&format!("--keep-max {}", keep.max), built_in);
    }
    if let Some((width, height)) = config.render {
        if !given("render_width") {
            line(&format!("--render-width {width}"), built_in);
        }
        if !given("render_height") {
            line(&format!("--render-height {height}"), built_in);
        }
    }
    if run.command.as_ref().and_then(|c| c.timeout.as_ref()).is_some() && !given("kill_after") {
        line(&format!("--kill-after {}s", DEFAULT_KILL_AFTER.as_secs()), built_in);
    }
    if !given("notice") {
        line("--notice stdout", built_in);
    }
    if !given("progress") {
        line("--progress auto", built_in);
    }
    if config.json {
        return Ok(show_config_json(&lines));
    }
    let mut text = String::new();
    for (option, source) in &lines {
        text.push_str(option);
        text.push('\t');
        text.push_str(source);
        text.push('\n');
    }
    Ok(text)
}

/// `--show-config --json`: the lines of [`show_config`] as one object,
/// `{"options":[{"option":"--json","source":"command line"},...]}`.
fn show_config_json(lines: &[(String, String)]) -> String {
    let options: Vec<serde_json::Value> = lines
        .iter()
        .map(|(option, source)| serde_json::json!({"option": option, "source": source}))
        .collect();
    let mut text = serde_json::json!({ "options": options }).to_string();
    text.push('\n');
    text
}

/// Whether the option `id` is in force from some layer or the command line.
fn lines_mention(matches: &ArgMatches, ends: &[usize], args: &Args, id: &str) -> bool {
    layer_of(matches, ends, id).is_some() && !args.gave_way.contains(&id)
}
