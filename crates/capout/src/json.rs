//! `--json`: one object in place of text, for harnesses that parse.
//!
//! The kept output streams into the object's first field as it comes, so
//! `--json` holds no more of it in memory than plain output does; the
//! other fields follow once the input is read. Once the options are found
//! valid, the object is always completed: an error that stops the run
//! ends it with the `error` field set, so a harness that parses stdout
//! never meets half an object.

use std::io::{self, Write};

use serde_json::{Value, json};

use capout_core::internals::incomplete_suffix;
use capout_core::{CapSpec, Limit, Options, Summary};

use crate::run::{Error, Ran};

/// What the object starts with: the `output` field, up to its text.
const START: &[u8] = b"{\"output\":\"";

/// `text` escaped for the inside of a JSON string.
fn escape(text: &str) -> String {
    let quoted = Value::String(text.to_owned()).to_string();
    quoted[1..quoted.len() - 1].to_owned()
}

/// The object, written as the run goes: the kept output goes out escaped
/// into its `output` string, with the start of a character split between
/// two writes held back. The object is started by the first write, so
/// that a run that fails before it has written nothing that cannot be
/// completed.
pub struct Object<'a> {
    out: &'a mut dyn Write,
    started: bool,
    held: Vec<u8>,
}

impl<'a> Object<'a> {
    /// The object, not yet started, to be written to `out`.
    pub fn new(out: &'a mut dyn Write) -> Self {
        Object { out, started: false, held: Vec::new() }
    }

    fn start(&mut self) -> io::Result<()> {
        if !self.started {
            self.out.write_all(START)?;
            self.started = true;
        }
        Ok(())
    }

    /// Ends the object: with the summary's fields, or with the error that
    /// stopped the run, which is returned too.
    pub fn end(
        mut self,
        config: &Options,
        ran: Result<Ran, Error>,
        err: &mut dyn Write,
    ) -> Result<Ran, Error> {
        let flushed = self.finish_output().and_then(|()| err.flush());
        let end = match &ran {
            Ok(ran) => End {
                ran: Some(ran),
                exit_code: ran.ending.exit_code,
                error: ran.summary.save_error.as_ref().map(ToString::to_string),
            },
            Err(e) => End { ran: None, exit_code: i32::from(e.exit().code()), error: Some(e.to_string()) },
        };
        let out = self.out;
        let written =
            flushed.and_then(|()| writeln!(out, "{}", fields(config, &end))).and_then(|()| out.flush());
        // The error that stopped the run comes first; writing the object
        // may well fail the same way after it.
        ran.and_then(|ran| written.map(|()| ran).map_err(|e| Error::Run(capout_core::Error::Write(e))))
    }

    /// The end of `output`: a character cut off at the very end is one
    /// U+FFFD.
    fn finish_output(&mut self) -> io::Result<()> {
        self.start()?;
        self.out.write_all(escape(&String::from_utf8_lossy(&self.held)).as_bytes())?;
        self.held.clear();
        self.out.flush()
    }
}

impl Write for Object<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.start()?;
        self.held.extend_from_slice(bytes);
        let whole = self.held.len() - incomplete_suffix(&self.held);
        self.out.write_all(escape(&String::from_utf8_lossy(&self.held[..whole])).as_bytes())?;
        self.held.drain(..whole);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// How a run ended, for the fields after `output`.
struct End<'a> {
    /// What the run did; `None` when an error stopped it before the end
    /// of its input, and the totals are not known.
    ran: Option<&'a Ran>,
    /// The status capout exits with.
    exit_code: i32,
    /// The message of the error, when there was one.
    error: Option<String>,
}

/// The unit the cap counts in, as `{unit}` names it.
fn unit(config: &Options) -> &'static str {
    match config.cap {
        CapSpec::TailChars(_) | CapSpec::HeadChars(_) | CapSpec::HeadTailChars(..) => config.unit.name(),
        CapSpec::HeadLines { .. } | CapSpec::TailLines(_) | CapSpec::HeadTailLines(..) => "lines",
        CapSpec::MaxMatches(_) => "matches",
        CapSpec::TailTokens(_) | CapSpec::HeadTokens(_) | CapSpec::HeadTailTokens(..) => "tokens",
    }
}

/// What ends the object: the end of the `output` string, then the other
/// fields. Invalid UTF-8 is written as U+FFFD.
fn fields(config: &Options, end: &End) -> String {
    let End { ran, exit_code, error } = end;
    let summary = ran.map(|r| &r.summary);
    let notice = ran
        .and_then(Ran::notice_lines)
        .map(|lines| String::from_utf8_lossy(&lines.join(&b'\n')).into_owned());
    let limit = match config.cap.limit() {
        Limit::One(n) => json!(n),
        Limit::Pair(h, t) => json!([h, t]),
    };
    // The counts of the cut of JSON, when the input was cut as JSON; where
    // its JSON ended, when it was not JSON to its end.
    let json_cut = summary.and_then(|r| r.json);
    let cut_as_json = json_cut.filter(|j| j.ended_at.is_none());
    let count = |f: fn(&capout_core::JsonCut) -> u64| json!(cut_as_json.as_ref().map(f));
    // Sorted by name, whatever serde_json's features: its Map keeps the
    // order of insertion once another crate of the build turns on
    // `preserve_order`.
    let fields = std::collections::BTreeMap::<String, Value>::from_iter([
        ("notice".to_owned(), json!(notice)),
        ("truncated".to_owned(), json!(summary.is_some_and(|r| r.truncated))),
        ("cap".to_owned(), json!(config.cap.name())),
        ("limit".to_owned(), limit),
        ("budget".to_owned(), json!(config.budget)),
        ("total_bytes".to_owned(), json!(summary.map(|r| r.totals.bytes()))),
        ("total_chars".to_owned(), json!(summary.and_then(|r| r.totals.chars()))),
        ("total_lines".to_owned(), json!(summary.and_then(|r| r.totals.lines()))),
        ("matches".to_owned(), json!(summary.and_then(|r| r.matches))),
        ("unit".to_owned(), json!(unit(config))),
        ("omitted".to_owned(), json!(summary.and_then(|r| if r.truncated { r.omitted } else { Some(0) }))),
        ("first".to_owned(), json!(summary.and_then(Summary::page).map(|p| p.first))),
        ("last".to_owned(), json!(summary.and_then(Summary::page).map(|p| p.last))),
        ("next_offset".to_owned(), json!(summary.and_then(Summary::page).map(|p| p.next_offset))),
        ("total_tokens".to_owned(), json!(summary.and_then(|r| r.total_tokens))),
        ("tokenizer".to_owned(), json!(config.cap.is_token_cap().then(|| config.tokenizer.name()))),
        ("json_items_kept".to_owned(), count(|j| j.items_kept)),
        ("json_items".to_owned(), count(|j| j.items)),
        ("json_arrays_cut".to_owned(), count(|j| j.arrays_cut)),
        ("json_strings_cut".to_owned(), count(|j| j.strings_cut)),
        ("json_documents_kept".to_owned(), count(|j| j.documents_kept)),
        ("json_documents".to_owned(), count(|j| j.documents)),
        ("json_ended_at".to_owned(), json!(json_cut.and_then(|j| j.ended_at))),
        ("exit_code".to_owned(), json!(exit_code)),
        ("signal".to_owned(), json!(ran.and_then(|r| r.ending.signal))),
        ("timed_out".to_owned(), json!(ran.is_some_and(|r| r.ending.timed_out.is_some()))),
        (
            "saved_to".to_owned(),
            json!(summary.and_then(|r| r.saved_to.as_ref()).map(|p| p.display().to_string())),
        ),
        ("error".to_owned(), json!(error)),
    ]);
    // A map of strings to values always serializes.
    let object = serde_json::to_string(&fields).unwrap_or_else(|_| "{}".to_owned());
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
