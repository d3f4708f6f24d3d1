//! `--json`: one object in place of text, for harnesses that parse.
//!
//! The kept output streams into the object's first field as it comes, so
//! `--json` holds no more of it in memory than plain output does; the
//! other fields follow once the input is read. Once the options are found
//! valid, the object is always completed: an error that stops the run
//! ends it with the `error` field set, so a harness that parses stdout
//! never meets half an object.

use serde_json::{Map, Value, json};

use crate::{CapSpec, Config, Report};

/// What the object starts with: the `output` field, up to its text.
pub const START: &[u8] = b"{\"output\":\"";

/// `text` escaped for the inside of a JSON string.
pub fn escape(text: &str) -> String {
    let quoted = Value::String(text.to_owned()).to_string();
    quoted[1..quoted.len() - 1].to_owned()
}

/// How a run ended, for the fields after `output`.
#[derive(Debug)]
pub struct End<'a> {
    /// What the run did; `None` when an error stopped it before the end
    /// of its input, and the totals are not known.
    pub report: Option<&'a Report>,
    /// The notice lines, as plain output would print them.
    pub notices: &'a [Vec<u8>],
    /// The status capout exits with.
    pub exit_code: i32,
    /// The message of the error, when there was one.
    pub error: Option<String>,
}

/// What ends the object: the end of the `output` string, then the other
/// fields. Invalid UTF-8 is written as U+FFFD.
pub fn end(config: &Config, end: &End) -> String {
    let End { report, notices, exit_code, error } = end;
    let notice = (!notices.is_empty()).then(|| String::from_utf8_lossy(&notices.join(&b'\n')).into_owned());
    let limit = match config.cap {
        CapSpec::TailChars(n)
        | CapSpec::HeadChars(n)
        | CapSpec::HeadLines { limit: n, .. }
        | CapSpec::TailLines(n)
        | CapSpec::MaxMatches(n) => json!(n),
        CapSpec::HeadTailLines(h, t) | CapSpec::HeadTailChars(h, t) => json!([h, t]),
    };
    let fields = Map::from_iter([
        ("notice".to_owned(), json!(notice)),
        ("truncated".to_owned(), json!(report.is_some_and(|r| r.truncated))),
        ("cap".to_owned(), json!(config.cap.name())),
        ("limit".to_owned(), limit),
        ("total_bytes".to_owned(), json!(report.map(|r| r.totals.bytes))),
        ("total_chars".to_owned(), json!(report.map(|r| r.totals.chars))),
        ("total_lines".to_owned(), json!(report.map(|r| r.totals.lines()))),
        ("matches".to_owned(), json!(report.and_then(|r| r.matches))),
        ("exit_code".to_owned(), json!(exit_code)),
        ("signal".to_owned(), json!(report.and_then(|r| r.ending.signal))),
        ("timed_out".to_owned(), json!(report.is_some_and(|r| r.ending.timed_out.is_some()))),
        (
            "saved_to".to_owned(),
            json!(report.and_then(|r| r.saved_to.as_ref()).map(|p| p.display().to_string())),
        ),
        ("error".to_owned(), json!(error)),
    ]);
    let object = Value::Object(fields).to_string();
    // `{"notice":...}` becomes `","notice":...}`: the output string ends.
    format!("\",{}", &object[1..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_what_json_strings_cannot_hold() {
        assert_eq!(escape("a\"b\\c\n\t\u{1}\u{e9}"), "a\\\"b\\\\c\\n\\t\\u0001\u{e9}");
    }
}
