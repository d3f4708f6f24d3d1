//! Runs the binary as a user would, but with none of the user's own
//! environment: every test that starts capout goes through here.

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

/// How long one run of the binary may take before the test fails: far
/// above what any test needs on a loaded machine, so only a hang hits it.
pub const TIME_LIMIT: Duration = Duration::from_secs(120);

/// The capout binary, with a clean environment and [`TIME_LIMIT`]. See
/// [`clean_env`].
pub fn capout() -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::from_std(capout_std());
    cmd.timeout(TIME_LIMIT);
    cmd
}

/// The capout binary as a `std::process::Command`, with a clean
/// environment, for the tests that spawn it and wait on it themselves
/// (their own bounded waits are the time limit).
pub fn capout_std() -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_capout"));
    clean_env(&mut cmd);
    cmd
}

/// Takes away what the user's own environment would change about a run:
/// `CAPOUT_OPTS` and `CAPOUT_CONFIG` are removed, and `HOME` and
/// `XDG_CONFIG_HOME` point at an empty folder, so no config file is
/// found. The ledger is off (`CAPOUT_LEDGER=0`, no `XDG_STATE_HOME`), so
/// that no test writes into the user's state or the empty home; the
/// ledger's own tests turn it on in a folder of their own. Also for a
/// shell or terminal that runs capout itself. A test that sets one of
/// them afterwards overrides it.
pub fn clean_env(cmd: &mut std::process::Command) -> &mut std::process::Command {
    let home = empty_home();
    cmd.env_remove("CAPOUT_OPTS")
        .env_remove("CAPOUT_CONFIG")
        .env_remove("XDG_STATE_HOME")
        .env("CAPOUT_LEDGER", "0")
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home)
}

/// An empty folder under Cargo's temporary folder for the tests, made
/// once per test binary and checked to be empty.
pub fn empty_home() -> &'static PathBuf {
    static HOME: OnceLock<PathBuf> = OnceLock::new();
    HOME.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("empty-home");
        std::fs::create_dir_all(&dir).expect("the empty home is made");
        let entries = std::fs::read_dir(&dir).expect("the empty home is read").count();
        assert_eq!(entries, 0, "{} must stay empty", dir.display());
        dir
    })
}

/// Fails at once, saying why, when the tests themselves were started with
/// SIGHUP, SIGINT or SIGQUIT ignored (under `nohup`, or as a background
/// job of a shell without job control): capout and the commands it runs
/// inherit an ignored signal, as every program does, so a test of what
/// such a signal does could only fail, and later, with a puzzling message.
pub fn signals_at_their_default() {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status is read");
    let ignored = status
        .lines()
        .find_map(|line| line.strip_prefix("SigIgn:"))
        .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
        .expect("/proc/self/status has SigIgn");
    let named: Vec<&str> = [(1, "SIGHUP"), (2, "SIGINT"), (3, "SIGQUIT")]
        .into_iter()
        .filter(|&(signal, _)| ignored & (1 << (signal - 1)) != 0)
        .map(|(_, name)| name)
        .collect();
    assert!(
        named.is_empty(),
        "these tests were started with {} ignored, which capout and its commands inherit: \
         run them in the foreground, not under nohup or as a background job of a shell \
         without job control",
        named.join(", ")
    );
}

/// Whether the oracle `tool` (tmux, jq) runs here, asked for its version
/// by the flag `version` (`-V`, `--version`). When it does not,
/// and `CAPOUT_REQUIRE_ORACLES` is not set, `test` says so in one line and
/// the caller leaves out the comparison with it; CI sets the variable, so
/// that there a missing oracle fails instead. The line goes straight to
/// stderr: libtest hides what `eprintln!` prints in a test that passes.
pub fn oracle_or_skip(tool: &str, version: &str, test: &str, what: &str) -> bool {
    let found = std::process::Command::new(tool)
        .arg(version)
        .stdin(std::process::Stdio::null())
        .output()
        .is_ok_and(|out| out.status.success());
    if found || std::env::var_os("CAPOUT_REQUIRE_ORACLES").is_some() {
        return true;
    }
    let line =
        format!("{test}: {what} skipped: {tool} is not installed (apt-get install {tool}; CI requires it)\n");
    let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
    false
}
