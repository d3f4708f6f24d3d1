//! Every notice capout prints. No other module builds notice text.
//!
//! A cap's notice is a template over a few numbers ([`Facts`]); the
//! standard notices are templates too, so `--notice-format` and the
//! defaults go through the same renderer.

use std::fmt::Write as _;

use crate::JsonCut;

/// Printed instead of output when nothing was kept.
pub const NO_OUTPUT: &str = "(no output)";
/// Printed by `--max-matches` when nothing matched.
pub const NO_MATCHES: &str = "No matches found.";

/// Which notice a cap gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `--tail-chars`: the last N units were kept.
    TailUnits,
    /// `--head-chars`: the first N units were kept.
    HeadUnits,
    /// `--head-lines`: a window of lines was kept.
    HeadLines,
    /// `--head-lines` with an offset at or past the end.
    PastEnd,
    /// `--max-matches`: the first N matches were kept.
    Matches,
    /// `--tail-lines`: the last N lines were kept.
    TailLines,
    /// A head+tail pair: the line between the two parts.
    Middle,
    /// `--head-lines` with an offset: a later page that reaches the end.
    LastPage,
    /// `--max-matches` with an offset: a later page with matches after it.
    MatchesPage,
    /// `--max-matches` with an offset: a later page that reaches the last
    /// match.
    MatchesLastPage,
    /// `--max-matches` with an offset at or past the last match.
    MatchesPastEnd,
    /// `--head-lines` that stopped reading at its cap (`--stop-at-cap`).
    HeadLinesStopped,
    /// `--head-chars` that stopped reading at its cap.
    HeadUnitsStopped,
    /// `--max-matches` that stopped reading at the first match past its cap.
    MatchesStopped,
    /// `--json-items`: JSON cut so that it stays JSON.
    Json,
    /// `--json-items` on JSON Lines that also dropped documents.
    JsonDocuments,
    /// `--json-items --head-chars`: the stream began as JSON and stopped
    /// being JSON, and was capped as text.
    JsonEndedUnits,
    /// `--json-items --head-lines`: the same.
    JsonEndedLines,
}

impl Kind {
    /// Every kind of notice.
    const ALL: [Kind; 18] = [
        Kind::TailUnits,
        Kind::HeadUnits,
        Kind::HeadLines,
        Kind::PastEnd,
        Kind::Matches,
        Kind::TailLines,
        Kind::Middle,
        Kind::LastPage,
        Kind::MatchesPage,
        Kind::MatchesLastPage,
        Kind::MatchesPastEnd,
        Kind::HeadLinesStopped,
        Kind::HeadUnitsStopped,
        Kind::MatchesStopped,
        Kind::Json,
        Kind::JsonDocuments,
        Kind::JsonEndedUnits,
        Kind::JsonEndedLines,
    ];

    fn default_template(self) -> &'static str {
        match self {
            Kind::TailUnits => "... (truncated, showing last {shown} {unit}{full_output})",
            Kind::HeadUnits => "... (truncated, showing first {shown} {unit}{full_output})",
            Kind::HeadLines => {
                "... (truncated, showing lines {first}-{last} of {total}, next offset {next_offset}{full_output})"
            }
            Kind::PastEnd => {
                "... (offset {next_offset} is past the end, input has {total} lines{full_output})"
            }
            Kind::Matches => "... ({total} total, showing first {shown}{full_output})",
            Kind::TailLines => "... (truncated, showing last {shown} lines{full_output})",
            Kind::Middle => "... (truncated, omitted {omitted} {unit}{full_output}) ...",
            Kind::LastPage => "... (showing lines {first}-{last} of {total}, end of input{full_output})",
            Kind::MatchesPage => {
                "... ({total} total, showing {first}-{last}, next offset {next_offset}{full_output})"
            }
            Kind::MatchesLastPage => "... ({total} total, showing {first}-{last}, end of input{full_output})",
            Kind::MatchesPastEnd => "... (offset {next_offset} is past the end, {total} total{full_output})",
            Kind::HeadLinesStopped => {
                "... (truncated, showing lines {first}-{last}; the rest was not read{full_output})"
            }
            Kind::HeadUnitsStopped => {
                "... (truncated, showing first {shown} {unit}; the rest was not read{full_output})"
            }
            Kind::MatchesStopped => "... (showing first {shown} matches; the rest was not read{full_output})",
            Kind::Json => {
                "... (truncated JSON: kept {json_items_kept} of {json_items} items in {json_arrays_cut} arrays, \
                 {json_strings_cut} strings cut{full_output})"
            }
            Kind::JsonDocuments => {
                "... (truncated JSON: kept {json_items_kept} of {json_items} items in {json_arrays_cut} arrays, \
                 {json_strings_cut} strings cut; kept {json_documents_kept} of {json_documents} documents\
                 {full_output})"
            }
            Kind::JsonEndedUnits => {
                "... (truncated, showing first {shown} {unit}; JSON ended at byte {json_ended_at}{full_output})"
            }
            Kind::JsonEndedLines => {
                "... (truncated, showing lines {first}-{last} of {total}, next offset {next_offset}; \
                 JSON ended at byte {json_ended_at}{full_output})"
            }
        }
    }
}

/// The numbers a notice can speak of; the placeholders of `--notice-format`.
///
/// Totals of characters and lines are counted only when a notice or
/// `--json` reads them (see [`Template::needs_totals`]); where they were
/// not, `total` and the numbers made from it are not rendered.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    /// Units kept.
    pub shown: u64,
    /// The cap.
    pub limit: u64,
    /// Units in the whole input.
    pub total: u64,
    /// Units cut.
    pub omitted: u64,
    /// `chars`, `bytes`, `lines` or `matches`.
    pub unit: &'static str,
    /// The first unit kept (for a head+tail pair: the first one cut), 1-based.
    pub first: u64,
    /// The last unit kept (for a head+tail pair: the last one cut).
    pub last: u64,
    /// The `--offset` that shows what comes next.
    pub next_offset: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    Shown,
    Limit,
    Total,
    Omitted,
    Unit,
    First,
    Last,
    NextOffset,
    Saved,
    /// The counts of the cut of JSON ([`JsonCut`]).
    JsonItemsKept,
    JsonItems,
    JsonArraysCut,
    JsonStringsCut,
    JsonDocumentsKept,
    JsonDocuments,
    JsonEndedAt,
    /// `; full output: PATH` when the input was saved; only in the defaults.
    FullOutput,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Part {
    Text(String),
    Field(Field),
}

/// A parsed `--notice-format` template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Template {
    parts: Vec<Part>,
}

impl Template {
    /// Parses a template: text with `{placeholder}`s; `{{` and `}}` stand
    /// for literal braces. The error names what is wrong.
    pub fn parse(text: &str) -> Result<Template, TemplateError> {
        Template::parse_inner(text, false)
            .map_err(|reason| TemplateError { template: text.to_owned(), reason })
    }

    fn parse_inner(text: &str, internal: bool) -> Result<Template, String> {
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut rest = text;
        while let Some(i) = rest.find(['{', '}']) {
            literal.push_str(&rest[..i]);
            let brace = &rest[i..];
            if brace.starts_with("{{") || brace.starts_with("}}") {
                literal.push_str(&brace[..1]);
                rest = &brace[2..];
                continue;
            }
            let Some(close) = brace.find('}').filter(|_| brace.starts_with('{')) else {
                return Err(format!("unmatched '{}' in the template", &brace[..1]));
            };
            let name = &brace[1..close];
            let field = match name {
                "shown" => Field::Shown,
                "limit" => Field::Limit,
                "total" => Field::Total,
                "omitted" => Field::Omitted,
                "unit" => Field::Unit,
                "first" => Field::First,
                "last" => Field::Last,
                "next_offset" => Field::NextOffset,
                "saved" => Field::Saved,
                "json_items_kept" => Field::JsonItemsKept,
                "json_items" => Field::JsonItems,
                "json_arrays_cut" => Field::JsonArraysCut,
                "json_strings_cut" => Field::JsonStringsCut,
                "json_documents_kept" => Field::JsonDocumentsKept,
                "json_documents" => Field::JsonDocuments,
                "json_ended_at" => Field::JsonEndedAt,
                "full_output" if internal => Field::FullOutput,
                _ => return Err(format!("unknown placeholder '{{{name}}}'")),
            };
            parts.push(Part::Text(std::mem::take(&mut literal)));
            parts.push(Part::Field(field));
            rest = &brace[close + 1..];
        }
        literal.push_str(rest);
        parts.push(Part::Text(literal));
        parts.retain(|p| *p != Part::Text(String::new()));
        Ok(Template { parts })
    }

    /// Whether the template speaks of the totals of the input, which only
    /// a read of all of it can tell.
    pub fn needs_totals(&self) -> bool {
        self.parts.iter().any(|p| {
            matches!(
                p,
                Part::Field(Field::Total | Field::Omitted | Field::First | Field::Last | Field::NextOffset)
            )
        })
    }

    /// Fills in the placeholders; `saved` is where the whole input was
    /// saved, `json` what the cut of JSON did (its placeholders are empty
    /// without it).
    pub(crate) fn render(&self, facts: &Facts, saved: Option<&str>, json: Option<&JsonCut>) -> String {
        let mut out = String::new();
        let count =
            |f: fn(&JsonCut) -> Option<u64>| json.and_then(f).map(|n| n.to_string()).unwrap_or_default();
        for part in &self.parts {
            // Writing to a String cannot fail.
            let _ = match part {
                Part::Text(text) => write!(out, "{text}"),
                Part::Field(Field::Shown) => write!(out, "{}", facts.shown),
                Part::Field(Field::Limit) => write!(out, "{}", facts.limit),
                Part::Field(Field::Total) => write!(out, "{}", facts.total),
                Part::Field(Field::Omitted) => write!(out, "{}", facts.omitted),
                Part::Field(Field::Unit) => write!(out, "{}", facts.unit),
                Part::Field(Field::First) => write!(out, "{}", facts.first),
                Part::Field(Field::Last) => write!(out, "{}", facts.last),
                Part::Field(Field::NextOffset) => write!(out, "{}", facts.next_offset),
                Part::Field(Field::Saved) => write!(out, "{}", saved.unwrap_or("")),
                Part::Field(Field::JsonItemsKept) => write!(out, "{}", count(|j| Some(j.items_kept))),
                Part::Field(Field::JsonItems) => write!(out, "{}", count(|j| Some(j.items))),
                Part::Field(Field::JsonArraysCut) => write!(out, "{}", count(|j| Some(j.arrays_cut))),
                Part::Field(Field::JsonStringsCut) => write!(out, "{}", count(|j| Some(j.strings_cut))),
                Part::Field(Field::JsonDocumentsKept) => write!(out, "{}", count(|j| Some(j.documents_kept))),
                Part::Field(Field::JsonDocuments) => write!(out, "{}", count(|j| Some(j.documents))),
                Part::Field(Field::JsonEndedAt) => write!(out, "{}", count(|j| j.ended_at)),
                Part::Field(Field::FullOutput) => match saved {
                    Some(path) => write!(out, "; full output: {path}"),
                    None => Ok(()),
                },
            };
        }
        out
    }
}

/// Why a `--notice-format` template is not valid.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct TemplateError {
    /// The template.
    pub template: String,
    /// What is wrong with it, and where: the unmatched brace or the
    /// unknown placeholder.
    pub reason: String,
}

/// Renders the notices of caps: with the `--notice-format` template when
/// one was given, and the path the whole input was saved to, if any.
#[derive(Clone, Debug, Default)]
pub(crate) struct Renderer {
    /// The `--notice-format` template.
    template: Option<Template>,
    /// Where the whole input is saved (`--save`, `--save-dir`).
    pub(crate) saved: Option<String>,
    /// What the cut of JSON did, for its placeholders.
    pub(crate) json: Option<JsonCut>,
}

impl Renderer {
    pub(crate) fn new(template: Option<Template>, saved: Option<&std::path::Path>) -> Self {
        Renderer { template, saved: saved.map(|p| p.display().to_string()), json: None }
    }

    /// The notice of a cap.
    pub(crate) fn render(&self, kind: Kind, facts: &Facts) -> String {
        cap_notice(kind, facts, self.template.as_ref(), self.saved.as_deref(), self.json.as_ref())
    }
}

/// The standard templates, parsed once.
static DEFAULTS: std::sync::LazyLock<Vec<(Kind, Template)>> = std::sync::LazyLock::new(|| {
    Kind::ALL
        .into_iter()
        .filter_map(|kind| Some((kind, Template::parse_inner(kind.default_template(), true).ok()?)))
        .collect()
});

/// The notice of a cap that cut something: the `--notice-format` template
/// when one was given, the standard text otherwise.
fn cap_notice(
    kind: Kind,
    facts: &Facts,
    custom: Option<&Template>,
    saved: Option<&str>,
    json: Option<&JsonCut>,
) -> String {
    let standard = || DEFAULTS.iter().find(|(k, _)| *k == kind).map(|(_, t)| t);
    custom.or_else(standard).map(|t| t.render(facts, saved, json)).unwrap_or_default()
}

/// The notice lines of a run, as they are written after the output: the
/// cap's notice, then the lines that `keep` rescued. It renders with
/// `Display`, one line after another.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    pub(crate) cap: Option<String>,
    pub(crate) rescued: Vec<Vec<u8>>,
}

impl Notice {
    pub(crate) fn new(cap: Option<String>, rescued: Vec<Vec<u8>>) -> Self {
        Notice { cap, rescued }
    }

    /// The cap's own notice line, such as
    /// `... (truncated, showing last 5000 chars)`.
    pub fn cap(&self) -> Option<&str> {
        self.cap.as_deref()
    }

    /// The lines that `keep` rescued, after the cap's notice: a header,
    /// then each line; a rescued line is the input's bytes, which need not
    /// be UTF-8.
    pub fn rescued(&self) -> impl Iterator<Item = &[u8]> + '_ {
        self.rescued.iter().map(Vec::as_slice)
    }

    /// Every line, without line endings; a rescued line is the input's
    /// bytes, which need not be UTF-8.
    pub fn lines(&self) -> impl Iterator<Item = &[u8]> + '_ {
        self.cap.iter().map(String::as_bytes).chain(self.rescued.iter().map(Vec::as_slice))
    }
}

impl std::fmt::Display for Notice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, line) in self.lines().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{}", String::from_utf8_lossy(line))?;
        }
        Ok(())
    }
}

/// The marker written in place of the end of a line longer than
/// `--max-line-chars`, before the line's ending.
pub fn line_truncated(width: u64, unit: &str) -> String {
    format!(" ... (line truncated to {width} {unit})")
}

/// What the cut of JSON writes in place of the characters it cut: at the
/// end of a string, inside its quotes, and as the string that stands for
/// a value nested too deep.
pub fn json_cut(chars: u64) -> String {
    format!("\u{2026}[+{chars} chars]")
}

/// The one line that `--binary hide` writes in place of a binary stream
/// (see [`is_binary`]), wherever capout runs: the CLI, its hooks, the MCP
/// `bash` tool and the modules' `bash`. It says how many bytes the stream
/// had and, when it was saved (`--save`, `--save-dir`, the MCP server's
/// folder), the file that holds them.
pub fn binary(bytes: impl std::fmt::Display, saved: Option<&str>) -> String {
    match saved {
        Some(path) => format!("(binary output, {bytes} bytes: not shown; full output: {path})"),
        None => format!("(binary output, {bytes} bytes: not shown)"),
    }
}

/// How much of the start of the input decides that it is binary: a NUL
/// byte in the first 8 KiB, as git and ripgrep decide it.
pub const BINARY_SNIFF: usize = 8 * 1024;

/// Whether a stream that starts with `start` is binary: a NUL byte in its
/// first [`BINARY_SNIFF`] bytes, the rule of git and ripgrep. Invalid
/// UTF-8 alone (Latin-1 text, a stray byte) is text, shown with U+FFFD
/// where the output must be UTF-8.
pub fn is_binary(start: &[u8]) -> bool {
    memchr::memchr(0, &start[..start.len().min(BINARY_SNIFF)]).is_some()
}

/// The line above the rescued lines of `--keep`.
pub fn rescued_header(pattern: &str, matched: u64, shown: u64) -> String {
    if matched > shown {
        format!("... (cut lines matching {pattern}: {matched}, showing first {shown})")
    } else {
        format!("... (cut lines matching {pattern}: {matched})")
    }
}

/// One rescued line, `LINE:text`; `text` is added by the caller.
pub fn rescued_prefix(line: u64) -> String {
    format!("{line}:")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts() -> Facts {
        Facts {
            shown: 500,
            limit: 500,
            total: 1234,
            omitted: 734,
            unit: "lines",
            first: 1001,
            last: 1500,
            next_offset: 1500,
        }
    }

    #[test]
    fn standard_notices_to_the_letter() {
        let mut f = facts();
        assert_eq!(
            cap_notice(Kind::HeadLines, &f, None, None, None),
            "... (truncated, showing lines 1001-1500 of 1234, next offset 1500)"
        );
        f.unit = "chars";
        f.shown = 5000;
        assert_eq!(
            cap_notice(Kind::TailUnits, &f, None, None, None),
            "... (truncated, showing last 5000 chars)"
        );
        f.shown = 50;
        assert_eq!(cap_notice(Kind::Matches, &f, None, None, None), "... (1234 total, showing first 50)");
        f.unit = "lines";
        assert_eq!(cap_notice(Kind::Middle, &f, None, None, None), "... (truncated, omitted 734 lines) ...");
        assert_eq!(
            cap_notice(Kind::Middle, &f, None, Some("/tmp/x.log"), None),
            "... (truncated, omitted 734 lines; full output: /tmp/x.log) ..."
        );
        assert_eq!(
            cap_notice(Kind::LastPage, &f, None, None, None),
            "... (showing lines 1001-1500 of 1234, end of input)"
        );
        assert_eq!(
            cap_notice(Kind::MatchesPage, &f, None, None, None),
            "... (1234 total, showing 1001-1500, next offset 1500)"
        );
        assert_eq!(
            cap_notice(Kind::MatchesLastPage, &f, None, None, None),
            "... (1234 total, showing 1001-1500, end of input)"
        );
        assert_eq!(
            cap_notice(Kind::MatchesPastEnd, &f, None, None, None),
            "... (offset 1500 is past the end, 1234 total)"
        );
    }

    #[test]
    fn every_standard_template_parses() {
        for kind in Kind::ALL {
            assert!(DEFAULTS.iter().any(|(k, _)| *k == kind), "{kind:?}");
        }
    }

    #[test]
    fn templates_fill_every_placeholder() {
        let t = Template::parse(
            "{shown}|{limit}|{total}|{omitted}|{unit}|{first}|{last}|{next_offset}|{saved}|{{x}}",
        )
        .unwrap();
        assert_eq!(t.render(&facts(), None, None), "500|500|1234|734|lines|1001|1500|1500||{x}");
    }

    #[test]
    fn templates_reject_unknown_placeholders() {
        assert_eq!(Template::parse("{nope}").unwrap_err().to_string(), "unknown placeholder '{nope}'");
        assert_eq!(
            Template::parse("{full_output}").unwrap_err().to_string(),
            "unknown placeholder '{full_output}'"
        );
        assert!(Template::parse("a { b").is_err());
        assert!(Template::parse("a } b").is_err());
    }
}
