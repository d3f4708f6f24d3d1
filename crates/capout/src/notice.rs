//! The notices that only the programs give: how a run's input ended (a
//! `--timeout`, an interrupting signal) and the live line of
//! `--progress`. The engine's own notices are `capout_core`'s; the MCP
//! server's texts are its `mcp::notice`.

/// The notice after the output of a command stopped by `--timeout`.
pub fn timed_out(duration: &str) -> String {
    format!("... (command timed out after {duration})")
}

/// The notice after the output of a filter stopped by a signal; `name`
/// as `SIGTERM`.
pub fn interrupted(name: &str) -> String {
    format!("... (interrupted by {name})")
}

/// The notice after the output so far of a command that still runs when
/// its harness's own timeout is near (`capout hook claude-code`);
/// `saved` is the file its full output goes to, named when the cap cut
/// it.
pub fn still_running(duration: &str, saved: Option<&str>) -> String {
    match saved {
        Some(path) => {
            format!("... (still running after {duration}: the output so far; full output: {path})")
        }
        None => format!("... (still running after {duration}: the output so far)"),
    }
}

/// The live line of `--progress`.
pub fn progress(mib: f64, lines: u64, mib_per_second: f64) -> String {
    format!("capout: {mib:.1} MiB, {lines} lines read ({mib_per_second:.1} MiB/s)")
}
