//! `capout stats [--since WHEN] [--harness NAME] [--json]`: what the
//! ledger says bounding saved, and what paging back cost.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ffi::OsString;
use std::io::{self, Write};
use std::process::ExitCode;

use serde::Serialize;

use crate::exit::Exit;
use crate::ledger::{self, Entry};

/// `capout stats`'s command line.
#[derive(Debug, clap::Parser)]
#[command(
    name = "capout stats",
    about = "What bounding saved: the calls capout bounded for a harness, the tokens they held and \
             showed, the commands cut most, and how often a cut output was read back",
    disable_version_flag = true,
    after_help = "The ledger is $XDG_STATE_HOME/capout/ledger.jsonl (else ~/.local/state/capout/): \
                  a line for each call bounded through a hook, the shell prefix, the MCP server, the \
                  proxy or a module, or a run given --ledger. Tokens are estimated as --tail-tokens \
                  estimates them. CAPOUT_LEDGER=0, or ledger = false in the config file, turns it off."
)]
struct Args {
    /// Only the calls since WHEN: 30m, 24h, 7d, 2w, or a day (2026-12-01)
    #[arg(long, value_name = "WHEN", value_parser = since)]
    since: Option<u64>,
    /// Only the calls of one harness (claude-code, codex, ...)
    #[arg(long, value_name = "NAME")]
    harness: Option<String>,
    /// Print one JSON object, for scripts
    #[arg(long)]
    json: bool,
}

/// `WHEN` as milliseconds since the epoch.
fn since(text: &str) -> Result<u64, String> {
    let units = [("m", 60_000), ("h", 3_600_000), ("d", 86_400_000), ("w", 604_800_000)];
    for (unit, ms) in units {
        if let Some(n) = text.strip_suffix(unit).and_then(|n| n.parse::<u64>().ok()) {
            return Ok(ledger::now_ms().saturating_sub(n.saturating_mul(ms)));
        }
    }
    day(text)
        .map(|days| days * 86_400_000)
        .ok_or_else(|| "expected a span (30m, 24h, 7d, 2w) or a day (2026-12-01)".to_owned())
}

/// The days since the epoch of `YYYY-MM-DD` (UTC).
fn day(text: &str) -> Option<u64> {
    let mut parts = text.splitn(3, '-').map(str::parse::<i64>);
    let (y, m, d) = (parts.next()?.ok()?, parts.next()?.ok()?, parts.next()?.ok()?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || y < 1970 {
        return None;
    }
    // Howard Hinnant's days_from_civil.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    u64::try_from(era * 146_097 + doe - 719_468).ok()
}

/// The `YYYY-MM-DD` of a day since the epoch (UTC).
fn date(days: u64) -> String {
    // Howard Hinnant's civil_from_days.
    let z = i64::try_from(days).unwrap_or(0) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// What the ledger says, over the calls chosen.
#[derive(Debug, Default, PartialEq, Eq, Serialize)]
pub struct Report {
    /// Calls bounded (pages not counted).
    pub calls: u64,
    /// Of them, how many were cut.
    pub cut: u64,
    /// Estimated tokens of the whole outputs, and of what was shown.
    pub tokens_in: u64,
    pub tokens_shown: u64,
    /// `tokens_in` less `tokens_shown`: what bounding kept out.
    pub tokens_kept_out: u64,
    /// Reads of a saved output back through capout, and their tokens:
    /// the tax the agent pays in paging.
    pub pages: u64,
    pub page_tokens: u64,
    /// Cut calls whose saved output was read back at least once.
    pub cut_read_back: u64,
    /// The commands cut most, by tokens kept out, most first.
    pub top: Vec<Top>,
    /// Each day's calls and tokens kept out, oldest first.
    pub days: Vec<Day>,
}

/// A command among those cut most.
#[derive(Debug, PartialEq, Eq, Serialize)]
pub struct Top {
    pub command: String,
    pub calls: u64,
    pub tokens_kept_out: u64,
}

/// A day of the ledger.
#[derive(Debug, PartialEq, Eq, Serialize)]
pub struct Day {
    pub date: String,
    pub calls: u64,
    pub tokens_kept_out: u64,
}

/// The report over `entries` since `since` (ms), of `harness` alone when
/// it is given.
pub fn report(entries: &[Entry], since: Option<u64>, harness: Option<&str>) -> Report {
    let chosen: Vec<&Entry> = entries
        .iter()
        .filter(|e| since.is_none_or(|t| e.t >= t))
        .filter(|e| harness.is_none_or(|h| e.harness.as_deref() == Some(h)))
        .collect();
    let mut r = Report::default();
    let mut top: HashMap<&str, (u64, u64)> = HashMap::new();
    let mut days: BTreeMap<u64, (u64, u64)> = BTreeMap::new();
    let paged: HashSet<&str> = chosen.iter().filter_map(|e| e.page_of.as_deref()).collect();
    for e in &chosen {
        if e.page_of.is_some() {
            r.pages += 1;
            r.page_tokens += e.tokens_shown;
            continue;
        }
        let kept_out = e.tokens_in.saturating_sub(e.tokens_shown);
        r.calls += 1;
        r.tokens_in += e.tokens_in;
        r.tokens_shown += e.tokens_shown;
        r.tokens_kept_out += kept_out;
        let day = days.entry(e.t / 86_400_000).or_default();
        day.0 += 1;
        day.1 += kept_out;
        if e.cut {
            r.cut += 1;
            let t = top.entry(e.command.as_str()).or_default();
            t.0 += 1;
            t.1 += kept_out;
            if e.saved.as_deref().is_some_and(|s| paged.contains(s)) {
                r.cut_read_back += 1;
            }
        }
    }
    let mut top: Vec<Top> = top
        .into_iter()
        .map(|(command, (calls, tokens_kept_out))| Top {
            command: command.to_owned(),
            calls,
            tokens_kept_out,
        })
        .collect();
    top.sort_by(|a, b| b.tokens_kept_out.cmp(&a.tokens_kept_out).then_with(|| a.command.cmp(&b.command)));
    top.truncate(10);
    r.top = top;
    r.days = days
        .into_iter()
        .map(|(day, (calls, tokens_kept_out))| Day { date: date(day), calls, tokens_kept_out })
        .collect();
    r
}

/// The report as a person reads it in a terminal.
pub fn render(r: &Report, out: &mut dyn Write) -> io::Result<()> {
    if r.calls == 0 && r.pages == 0 {
        return writeln!(out, "No calls in the ledger yet.");
    }
    let percent = |part: u64, whole: u64| (part * 100).checked_div(whole).unwrap_or(0);
    writeln!(out, "calls bounded     {:>12}", r.calls)?;
    writeln!(out, "  cut             {:>12}  ({}%)", r.cut, percent(r.cut, r.calls))?;
    writeln!(out, "tokens in         {:>12}", r.tokens_in)?;
    writeln!(out, "tokens shown      {:>12}", r.tokens_shown)?;
    writeln!(
        out,
        "tokens kept out   {:>12}  ({}%)",
        r.tokens_kept_out,
        percent(r.tokens_kept_out, r.tokens_in)
    )?;
    writeln!(
        out,
        "read back         {:>12}  pages, {} tokens; {} of {} cut outputs read back",
        r.pages, r.page_tokens, r.cut_read_back, r.cut
    )?;
    if !r.top.is_empty() {
        writeln!(out, "\ncut most (tokens kept out, calls, command):")?;
        for t in &r.top {
            let command: String = t.command.chars().take(60).collect();
            writeln!(out, "  {:>10}  {:>5}  {command}", t.tokens_kept_out, t.calls)?;
        }
    }
    if !r.days.is_empty() {
        writeln!(out, "\ntokens kept out, by day:")?;
        let most = r.days.iter().map(|d| d.tokens_kept_out).max().unwrap_or(0).max(1);
        for d in &r.days {
            let width = usize::try_from(d.tokens_kept_out * 40 / most).unwrap_or(40);
            let bar = "#".repeat(width.max(usize::from(d.tokens_kept_out > 0)));
            writeln!(out, "  {}  {bar:<40}  {} in {} calls", d.date, d.tokens_kept_out, d.calls)?;
        }
    }
    Ok(())
}

/// `capout stats ...`, its arguments after `stats`.
pub fn main(args: &[OsString]) -> ExitCode {
    use clap::Parser as _;
    let words = std::iter::once(OsString::from("capout stats")).chain(args.iter().cloned());
    let args = match Args::try_parse_from(words) {
        Ok(args) => args,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { Exit::Usage.into() } else { ExitCode::SUCCESS };
        }
    };
    let entries = ledger::read(&ledger::files());
    let report = report(&entries, args.since, args.harness.as_deref());
    let mut out = io::stdout().lock();
    let written = if args.json {
        serde_json::to_writer(&mut out, &report).map_err(io::Error::other).and_then(|()| writeln!(out))
    } else if report.calls == 0 && report.pages == 0 && !entries.is_empty() {
        // The ledger has calls, none of them chosen.
        writeln!(out, "No calls in the ledger match --since or --harness ({} in all).", entries.len())
    } else {
        render(&report, &mut out)
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(io::stderr(), "capout: stats: {e}");
            Exit::Failure.into()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(t: u64, command: &str, tokens_in: u64, tokens_shown: u64, saved: Option<&str>) -> Entry {
        Entry {
            t,
            harness: Some("codex".into()),
            tokens_in,
            tokens_shown,
            cut: tokens_in > tokens_shown,
            saved: saved.map(Into::into),
            ..Entry::new("hook", "bash").command(command)
        }
    }

    #[test]
    fn days_are_counted_from_the_epoch_both_ways() {
        assert_eq!(day("1970-01-01"), Some(0));
        assert_eq!(day("2026-12-03"), Some(20_790));
        assert_eq!(date(20_790), "2026-12-03");
        assert_eq!(date(day("2024-02-29").unwrap()), "2024-02-29");
        assert_eq!(day("2026-13-01"), None);
        assert!(since("2w").is_ok() && since("30m").is_ok() && since("soon").is_err());
    }

    #[test]
    fn the_report_counts_what_was_kept_out_and_what_paging_cost() {
        let d = 86_400_000;
        let entries = vec![
            call(20_790 * d, "seq 100000", 200_000, 1300, Some("/s/a.log")),
            call(20_790 * d + 5, "ls", 40, 40, None),
            call(20_791 * d, "seq 100000", 200_000, 1300, Some("/s/b.log")),
            call(20_791 * d, "cargo build", 9000, 1500, Some("/s/c.log")),
            Entry {
                t: 20_791 * d,
                page_of: Some("/s/a.log".into()),
                tokens_shown: 2000,
                ..Entry::new("hook", "read")
            },
            Entry {
                t: 20_791 * d,
                page_of: Some("/s/a.log".into()),
                tokens_shown: 1000,
                ..Entry::new("hook", "read")
            },
        ];
        let r = report(&entries, None, None);
        assert_eq!((r.calls, r.cut, r.tokens_in, r.tokens_shown), (4, 3, 409_040, 4140));
        assert_eq!(r.tokens_kept_out, 409_040 - 4140);
        assert_eq!((r.pages, r.page_tokens, r.cut_read_back), (2, 3000, 1));
        assert_eq!(r.top[0], Top { command: "seq 100000".into(), calls: 2, tokens_kept_out: 397_400 });
        assert_eq!(r.top[1].command, "cargo build");
        assert_eq!(
            r.days.iter().map(|d| (d.date.as_str(), d.calls)).collect::<Vec<_>>(),
            [("2026-12-03", 2), ("2026-12-04", 2)]
        );
        assert_eq!(report(&entries, Some(20_791 * d), None).calls, 2);
        assert_eq!(report(&entries, None, Some("gemini")).calls, 0);
        let mut text = Vec::new();
        render(&r, &mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert!(text.contains("tokens kept out         404900  (98%)"), "{text}");
        assert!(
            text.contains("2026-12-04  ########################################  206200 in 2 calls"),
            "{text}"
        );
        assert!(
            text.contains("2026-12-03  ######################################    198700 in 2 calls"),
            "{text}"
        );
    }
}
