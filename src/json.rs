//! `--json`: one object in place of text, for harnesses that parse.

use serde_json::{Value, json};

use crate::{CapSpec, Config, Report};

/// The object `--json` prints: kept output, notices and totals. Invalid
/// UTF-8 is written as U+FFFD.
pub fn render(config: &Config, report: &Report, output: &[u8], notices: &[Vec<u8>]) -> String {
    let notice = (!notices.is_empty()).then(|| String::from_utf8_lossy(&notices.join(&b'\n')).into_owned());
    let limit = match config.cap {
        CapSpec::TailChars(n)
        | CapSpec::HeadChars(n)
        | CapSpec::HeadLines { limit: n, .. }
        | CapSpec::TailLines(n)
        | CapSpec::MaxMatches(n) => json!(n),
        CapSpec::HeadTailLines(h, t) | CapSpec::HeadTailChars(h, t) => json!([h, t]),
    };
    let object: Value = json!({
        "output": String::from_utf8_lossy(output),
        "notice": notice,
        "truncated": report.truncated,
        "cap": config.cap.name(),
        "limit": limit,
        "total_bytes": report.totals.bytes,
        "total_chars": report.totals.chars,
        "total_lines": report.totals.lines(),
        "matches": report.matches,
        "exit_code": report.ending.exit_code,
        "signal": report.ending.signal,
        "timed_out": report.ending.timed_out.is_some(),
        "saved_to": report.saved_to.as_ref().map(|p| p.display().to_string()),
    });
    object.to_string()
}
