//! The options object of the JavaScript API, as the words of a `capout`
//! command line: parsed by the CLI's own parser, so that defaults,
//! profiles and error messages are the CLI's.

use capout::cli::{self, Action};
use capout_core::Options;
use serde_json::Value;

/// The keys of the options object, each the camelCase of a `capout`
/// option; only those that say how a stream is capped. Running a command,
/// reading a file, `--json` (the summary is always given) and the live
/// count belong to the CLI.
const KEYS: &[(&str, &str)] = &[
    ("tailChars", "--tail-chars"),
    ("headChars", "--head-chars"),
    ("headLines", "--head-lines"),
    ("tailLines", "--tail-lines"),
    ("offset", "--offset"),
    ("maxMatches", "--max-matches"),
    ("headTokens", "--head-tokens"),
    ("tailTokens", "--tail-tokens"),
    ("tokenizer", "--tokenizer"),
    ("pattern", "--pattern"),
    ("fixedStrings", "--fixed-strings"),
    ("ignoreCase", "--ignore-case"),
    ("maxLineChars", "--max-line-chars"),
    ("jsonItems", "--json-items"),
    ("jsonStringChars", "--json-string-chars"),
    ("bytes", "--bytes"),
    ("lineNumbers", "--line-numbers"),
    ("stripAnsi", "--strip-ansi"),
    ("collapseCr", "--collapse-cr"),
    ("render", "--render"),
    ("renderWidth", "--render-width"),
    ("renderHeight", "--render-height"),
    ("keep", "--keep"),
    ("keepMax", "--keep-max"),
    ("notice", "--notice"),
    ("noticeFormat", "--notice-format"),
    ("profile", "--profile"),
    ("save", "--save"),
    ("saveDir", "--save-dir"),
];

/// The `capout` command line that `options` stand for: a switch is
/// `--name` for `true` and `--name` with `--no-` for `false`; any other
/// value is `--name=VALUE`, so that a value that starts with `-` stays a
/// value. `null` and `undefined` are as if the key were absent.
pub fn words(options: Option<&Value>) -> Result<Vec<String>, String> {
    let mut words = vec!["capout".to_owned()];
    let map = match options {
        None | Some(Value::Null) => return Ok(words),
        Some(Value::Object(map)) => map,
        Some(_) => return Err("capout: the options must be an object".into()),
    };
    for (key, value) in map {
        let Some((_, flag)) = KEYS.iter().find(|(name, _)| name == key) else {
            let known: Vec<&str> = KEYS.iter().map(|(name, _)| *name).collect();
            return Err(format!("capout: unknown option '{key}' (known: {})", known.join(", ")));
        };
        match value {
            Value::Null => {}
            Value::Bool(true) => words.push((*flag).to_owned()),
            Value::Bool(false) => words.push(format!("--no-{}", &flag[2..])),
            Value::Number(n) => words.push(format!("{flag}={n}")),
            Value::String(s) => words.push(format!("{flag}={s}")),
            Value::Array(_) | Value::Object(_) => {
                return Err(format!("capout: option '{key}' takes a number, a string or a boolean"));
            }
        }
    }
    Ok(words)
}

/// The engine's options for `options`, or the CLI's error message (what
/// `capout` prints on stderr, without its last newline).
pub fn parse(options: Option<&Value>) -> Result<Options, String> {
    let words = words(options)?;
    // The CLI's parser costs more than capping a short text: the options
    // of the last calls are kept (as a harness calls with a few sets).
    let cached =
        PARSED.with_borrow(|parsed| parsed.iter().find(|(w, _)| *w == words).map(|(_, o)| o.clone()));
    if let Some(options) = cached {
        return Ok(options);
    }
    // No config file and no CAPOUT_OPTS: a library's result depends on
    // its arguments alone. The built-in profiles are there.
    let options = match cli::try_parse(&words, None) {
        Ok(Action::Run(run)) => run.options,
        Ok(_) => return Err("capout: the options do not ask to cap a stream".into()),
        Err(e) => return Err(e.render().to_string().trim_end().to_owned()),
    };
    PARSED.with_borrow_mut(|parsed| {
        if parsed.len() == CACHED {
            parsed.remove(0);
        }
        parsed.push((words, options.clone()));
    });
    Ok(options)
}

/// How many sets of options [`parse`] keeps parsed.
const CACHED: usize = 8;

thread_local! {
    /// The options of the last calls, as words and as parsed, oldest
    /// first. Only valid ones: an error is parsed again, and thrown again.
    static PARSED: std::cell::RefCell<Vec<(Vec<String>, Options)>> = const { std::cell::RefCell::new(Vec::new()) };
}
