//! The facts of a run: what `--json` gives beside the output (SPEC §7),
//! and what the Python module's `Summary` and the Node module's summary
//! hold. One type, serialised with serde, so that a fact is added in one
//! place and every face has it.

use capout_core::{CapSpec, Limit, Options, Summary};
use serde::{Serialize, Serializer};

use crate::run::Ran;

/// What a run did and how it ended, each fact under the name `--json`
/// gives it.
///
/// The fields are declared in the order of their names: `--json` has
/// always written its fields after `output` sorted by name, and serde
/// writes a struct's fields in the order they are declared (a test holds
/// the order to the names).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Facts {
    /// The character (or byte) budget of a line cap, `--budget-chars`.
    pub budget: Option<u64>,
    /// The cap, by its option's name (`tail-chars`, `head-lines`, ...).
    pub cap: &'static str,
    /// The message of the error that stopped the run, or of a save that
    /// failed part way (the output stands).
    pub error: Option<String>,
    /// The status capout exits with.
    pub exit_code: i32,
    /// The first line (match) a paging cap showed.
    pub first: Option<u64>,
    /// Arrays and objects that the cut of JSON cut (`--json-items`).
    pub json_arrays_cut: Option<u64>,
    /// Documents of the stream that the cut of JSON read.
    pub json_documents: Option<u64>,
    /// Documents the cut of JSON kept.
    pub json_documents_kept: Option<u64>,
    /// Where the JSON ended, when `--json-items` met input that was not
    /// JSON to its end.
    pub json_ended_at: Option<u64>,
    /// Items those arrays and objects had.
    pub json_items: Option<u64>,
    /// Items they kept.
    pub json_items_kept: Option<u64>,
    /// Strings the cut of JSON cut short.
    pub json_strings_cut: Option<u64>,
    /// The last line (match) a paging cap showed.
    pub last: Option<u64>,
    /// The cap's limit: N, or `[H, T]` for a head+tail pair.
    #[serde(serialize_with = "limit")]
    pub limit: Limit,
    /// Matching lines, with `--max-matches`.
    pub matches: Option<u64>,
    /// The `--offset` of the next page, while more follows.
    pub next_offset: Option<u64>,
    /// Every notice line of the run, joined by `\n`.
    pub notice: Option<String>,
    /// Units cut.
    pub omitted: Option<u64>,
    /// Where the whole stream was saved and left.
    pub saved_to: Option<String>,
    /// The signal that killed the command.
    pub signal: Option<i32>,
    /// Whether `--timeout` stopped the command.
    pub timed_out: bool,
    /// The tokenizer of a token cap.
    pub tokenizer: Option<&'static str>,
    /// Bytes of the whole stream.
    pub total_bytes: Option<u64>,
    /// Characters of the whole stream.
    pub total_chars: Option<u64>,
    /// Lines of the whole stream.
    pub total_lines: Option<u64>,
    /// Tokens of the whole stream, with a token cap.
    pub total_tokens: Option<u64>,
    /// Whether anything was cut.
    pub truncated: bool,
    /// What the cap counts: `chars`, `bytes`, `lines`, `matches` or
    /// `tokens`.
    pub unit: &'static str,
}

impl Facts {
    /// The facts of a run that read its input to its end: those of its
    /// filter, with the notice lines its command's ending adds and how
    /// it ended.
    pub fn of(options: &Options, ran: &Ran) -> Facts {
        Facts {
            exit_code: ran.ending.exit_code,
            notice: ran.notice_lines().map(|lines| String::from_utf8_lossy(&lines.join(&b'\n')).into_owned()),
            signal: ran.ending.signal,
            timed_out: ran.ending.timed_out.is_some(),
            ..Facts::of_summary(options, &ran.summary)
        }
    }

    /// The facts of a stream that the engine capped to its end (the
    /// modules' `Capper`): no command, so no exit status but 0.
    pub fn of_summary(options: &Options, summary: &Summary) -> Facts {
        let page = summary.page();
        // The counts of the cut of JSON when the input was cut as JSON;
        // where its JSON ended when it was not JSON to its end.
        let json = summary.json;
        let cut = json.filter(|j| j.ended_at.is_none());
        Facts {
            error: summary.save_error.as_ref().map(ToString::to_string),
            first: page.map(|p| p.first),
            json_arrays_cut: cut.map(|j| j.arrays_cut),
            json_documents: cut.map(|j| j.documents),
            json_documents_kept: cut.map(|j| j.documents_kept),
            json_ended_at: json.and_then(|j| j.ended_at),
            json_items: cut.map(|j| j.items),
            json_items_kept: cut.map(|j| j.items_kept),
            json_strings_cut: cut.map(|j| j.strings_cut),
            last: page.map(|p| p.last),
            matches: summary.matches,
            next_offset: page.and_then(|p| p.next_offset),
            notice: summary.notice.as_ref().map(ToString::to_string).filter(|n| !n.is_empty()),
            omitted: if summary.truncated { summary.omitted } else { Some(0) },
            saved_to: summary.saved_to.as_ref().map(|p| p.display().to_string()),
            total_bytes: Some(summary.totals.bytes()),
            total_chars: summary.totals.chars(),
            total_lines: summary.totals.lines(),
            total_tokens: summary.total_tokens,
            truncated: summary.truncated,
            ..Facts::of_options(options)
        }
    }

    /// The facts of a run that an error stopped before the end of its
    /// input: what the options say, how capout exits and why; what the
    /// input held is not known.
    pub fn of_error(options: &Options, exit_code: i32, error: String) -> Facts {
        Facts { exit_code, error: Some(error), ..Facts::of_options(options) }
    }

    /// What the options alone say; nothing counted.
    fn of_options(options: &Options) -> Facts {
        Facts {
            budget: options.budget,
            cap: options.cap.name(),
            error: None,
            exit_code: 0,
            first: None,
            json_arrays_cut: None,
            json_documents: None,
            json_documents_kept: None,
            json_ended_at: None,
            json_items: None,
            json_items_kept: None,
            json_strings_cut: None,
            last: None,
            limit: options.cap.limit(),
            matches: None,
            next_offset: None,
            notice: None,
            omitted: None,
            saved_to: None,
            signal: None,
            timed_out: false,
            tokenizer: options.cap.is_token_cap().then(|| options.tokenizer.name()),
            total_bytes: None,
            total_chars: None,
            total_lines: None,
            total_tokens: None,
            truncated: false,
            unit: unit(options),
        }
    }

    /// The names of the facts, in their order.
    pub fn names() -> Vec<String> {
        let facts = Facts::of_options(&Options::new(CapSpec::TailChars(1)));
        match serde_json::to_value(facts) {
            Ok(serde_json::Value::Object(fields)) => fields.into_iter().map(|(name, _)| name).collect(),
            // A struct of plain values always serialises as a map.
            _ => Vec::new(),
        }
    }
}

/// The unit the cap counts in, as `{unit}` names it.
fn unit(options: &Options) -> &'static str {
    match options.cap {
        CapSpec::TailChars(_) | CapSpec::HeadChars(_) | CapSpec::HeadTailChars(..) => options.unit.name(),
        CapSpec::HeadLines { .. } | CapSpec::TailLines(_) | CapSpec::HeadTailLines(..) => "lines",
        CapSpec::MaxMatches(_) => "matches",
        CapSpec::TailTokens(_) | CapSpec::HeadTokens(_) | CapSpec::HeadTailTokens(..) => "tokens",
    }
}

/// A limit as `--json` writes it: N, or `[H, T]` for a pair.
fn limit<S: Serializer>(limit: &Limit, serializer: S) -> Result<S::Ok, S::Error> {
    match *limit {
        Limit::One(n) => serializer.serialize_u64(n),
        Limit::Pair(head, tail) => [head, tail].serialize(serializer),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--json` writes its fields sorted by name, and serde in the order
    /// of the struct's fields: the names as the serialised text has them
    /// (not through a map, which may sort them).
    #[test]
    fn the_facts_are_declared_in_the_order_of_their_names() {
        let text = serde_json::to_string(&Facts::of_options(&Options::new(CapSpec::TailChars(1)))).unwrap();
        let names: Vec<&str> =
            text[1..text.len() - 1].split(',').map(|field| field.split(':').next().unwrap()).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(names, sorted);
        assert_eq!(names.len(), Facts::names().len());
    }

    #[test]
    fn a_pair_limit_is_written_as_a_pair() {
        let facts = Facts::of_options(&Options::new(CapSpec::HeadTailLines(2, 3)));
        assert_eq!(serde_json::to_value(facts).unwrap()["limit"], serde_json::json!([2, 3]));
    }
}
