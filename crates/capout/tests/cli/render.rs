//! `--render`'s screen model (SPEC §12) against its oracle, tmux: every
//! fixture under tests/fixtures/render/ is replayed into a detached tmux
//! pane of the same size with unlimited history, and `capture-pane -p -J -S -`
//! (trailing blanks and trailing empty rows removed) must equal the model's
//! rows, byte for byte. Each fixture runs at three sizes, with the pane's
//! line discipline translating `\n` to `\r\n` (as the model does by
//! default) and with it passing bytes unchanged (`raw_line_feed`). The
//! binary is held to the same oracle: `capout --render --render-width W
//! --render-height H --notice none` on each fixture prints what the
//! translating pane shows.
//!
//! Deliberate differences from tmux are listed in crates/core/src/render/mod.rs; the
//! fixtures avoid them (no invalid UTF-8, no `ESC[3J`), and the unit tests
//! there pin the model's choice.
//!
//! tmux must be installed (.ci/run installs it): without it these tests
//! fail, they do not skip.

use std::fmt::Write as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use capout_core::internals::Screen;
use proptest::prelude::*;

/// Sizes every fixture is replayed at: the size the real captures were
/// recorded at, `--render`'s default, and a small one that wraps and
/// scrolls everything.
const SIZES: [(usize, usize); 3] = [(80, 24), (200, 50), (31, 7)];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LineFeed {
    /// `stty onlcr`, a terminal's default, and `Screen::new`'s.
    Cooked,
    /// `stty -opost`, and `Screen::raw_line_feed`.
    Raw,
}

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/render")
}

/// The fixtures: generated ones (`.bin`) and captures of real tools
/// (`.real`), sorted by name.
fn fixtures() -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(fixture_dir())
        .expect("the fixture directory")
        .map(|entry| entry.unwrap().path())
        .filter(|path| matches!(path.extension().and_then(|e| e.to_str()), Some("bin" | "real")))
        .collect();
    paths.sort();
    assert!(paths.len() >= 15, "fixtures missing: {paths:?}");
    paths
}

/// The model's rows for `input` fed in pieces of the given sizes, in turn
/// (one piece when `sizes` is empty).
fn model(input: &[u8], (width, height): (usize, usize), lf: LineFeed, sizes: &[usize]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut screen = Screen::new(width, height);
    if lf == LineFeed::Raw {
        screen = screen.raw_line_feed();
    }
    let mut emit = |row: &[u8]| out.extend_from_slice(row);
    if sizes.is_empty() {
        screen.feed(input, &mut emit);
    } else {
        let mut rest = input;
        for &size in sizes.iter().cycle() {
            if rest.is_empty() {
                break;
            }
            let (piece, tail) = rest.split_at(size.min(rest.len()));
            screen.feed(piece, &mut emit);
            rest = tail;
        }
    }
    screen.finish(&mut emit);
    out
}

/// What `capout --render --notice none` prints for `input` on a terminal
/// of `size`, through a pipe.
fn binary((width, height): (usize, usize), input: &[u8]) -> Vec<u8> {
    let out = crate::common::capout()
        .args(["--render", "--notice", "none", "-c", "1000000"])
        .args(["--render-width", &width.to_string(), "--render-height", &height.to_string()])
        .write_stdin(input)
        .output()
        .expect("capout runs");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert_eq!(out.status.code(), Some(0));
    out.stdout
}

/// A tmux server of our own, on a socket no other test uses.
struct Tmux {
    socket: String,
    dir: tempfile::TempDir,
    sessions: usize,
}

/// The script run in each pane: set the line discipline, write the
/// fixture, then ask tmux for the cursor position. tmux answers only once
/// it has parsed every byte before the question, so when the answer is
/// read the screen is complete; only then is the test told to capture.
const REPLAY: &str = r#"#!/bin/bash
if [ "$4" = raw ]; then stty -echo -icanon -opost; else stty -echo -icanon opost onlcr; fi
cat "$1"
printf '\033[6n'
IFS= read -r -d R _
tmux -L "$2" wait-for -S "$3"
exec sleep 3600
"#;

static NEXT_SERVER: AtomicUsize = AtomicUsize::new(0);

impl Tmux {
    /// A server of our own, or `None` when tmux is not installed and CI
    /// does not require it (`common::oracle_or_skip`).
    fn new_or_skip(test: &str) -> Option<Self> {
        crate::common::oracle_or_skip("tmux", "-V", test, "the comparison with tmux").then(Tmux::new)
    }

    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("tmux.conf"), "set -g history-limit 1000000\nset -g status off\n")
            .unwrap();
        let script = dir.path().join("replay");
        std::fs::write(&script, REPLAY).unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let n = NEXT_SERVER.fetch_add(1, Ordering::Relaxed);
        Tmux { socket: format!("capout-render-{}-{n}", std::process::id()), dir, sessions: 0 }
    }

    fn command(&self) -> Command {
        let mut command = Command::new("tmux");
        command.arg("-L").arg(&self.socket).arg("-f").arg(self.dir.path().join("tmux.conf"));
        command.env_remove("TMUX").stdin(Stdio::null());
        command
    }

    fn run(&self, args: &[&str]) -> Output {
        let output = self.command().args(args).output().unwrap_or_else(|e| {
            panic!("tmux could not be run ({e}); these tests need it: apt-get install -y tmux")
        });
        assert!(output.status.success(), "tmux {args:?}: {}", String::from_utf8_lossy(&output.stderr));
        output
    }

    /// Starts a pane that replays `fixture`; `capture` waits for it.
    fn start(&mut self, fixture: &Path, (width, height): (usize, usize), lf: LineFeed) -> String {
        self.sessions += 1;
        let name = format!("s{}", self.sessions);
        let mode = if lf == LineFeed::Raw { "raw" } else { "cooked" };
        let script = self.dir.path().join("replay");
        let command = format!("{} {} {} {name} {mode}", script.display(), fixture.display(), self.socket);
        let (w, h) = (width.to_string(), height.to_string());
        self.run(&["new-session", "-d", "-x", &w, "-y", &h, "-s", &name, &command]);
        name
    }

    /// What the pane shows, history included, once it has drawn the whole
    /// fixture: rows with trailing blanks removed, no trailing empty rows.
    fn capture(&self, name: &str) -> Vec<u8> {
        let waiter = self.command().args(["wait-for", name]).spawn().expect("tmux wait-for");
        wait_at_most(waiter, Duration::from_secs(120), name);
        let output = self.run(&["capture-pane", "-p", "-J", "-S", "-", "-t", name]);
        let mut rows: Vec<&[u8]> = output.stdout.split(|&b| b == b'\n').collect();
        while rows.last().is_some_and(|row| row.iter().all(|&b| b == b' ')) {
            rows.pop();
        }
        let mut shown = Vec::new();
        for row in rows {
            shown.extend_from_slice(row.trim_ascii_end());
            shown.push(b'\n');
        }
        shown
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.command().arg("kill-server").stderr(Stdio::null()).status();
    }
}

/// A pane that never finishes is a failure, not a hang: the limit is far
/// above the fraction of a second a replay takes.
fn wait_at_most(mut child: Child, limit: Duration, what: &str) {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "tmux wait-for {what}: {status}");
            return;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("tmux did not finish replaying {what} within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The rows that differ, for a readable failure.
fn difference(expected: &[u8], got: &[u8]) -> String {
    let expected: Vec<&[u8]> = expected.split(|&b| b == b'\n').collect();
    let got: Vec<&[u8]> = got.split(|&b| b == b'\n').collect();
    let mut report = String::new();
    for i in 0..expected.len().max(got.len()) {
        let (e, g) = (expected.get(i).copied(), got.get(i).copied());
        if e != g {
            let show = |row: Option<&[u8]>| {
                row.map_or("(none)".into(), |r| format!("{:?}", String::from_utf8_lossy(r)))
            };
            let _ = write!(report, "  row {i}:\n    tmux:  {}\n    model: {}\n", show(e), show(g));
            if report.len() > 2000 {
                break;
            }
        }
    }
    report
}

#[test]
fn every_fixture_renders_as_tmux_shows_it() {
    let Some(mut tmux) = Tmux::new_or_skip("every_fixture_renders_as_tmux_shows_it") else { return };
    let mut runs = Vec::new();
    for fixture in fixtures() {
        for size in SIZES {
            for lf in [LineFeed::Cooked, LineFeed::Raw] {
                let name = tmux.start(&fixture, size, lf);
                runs.push((fixture.clone(), size, lf, name));
            }
        }
    }
    let mut failures = String::new();
    for (fixture, size, lf, name) in &runs {
        let shown = tmux.capture(name);
        let input = std::fs::read(fixture).unwrap();
        let rendered = model(&input, *size, *lf, &[]);
        let file = fixture.file_name().unwrap().to_string_lossy();
        if shown != rendered {
            let _ = write!(
                failures,
                "{file} at {}x{} ({lf:?}):\n{}",
                size.0,
                size.1,
                difference(&shown, &rendered)
            );
        }
        if *lf == LineFeed::Cooked {
            let printed = binary(*size, &input);
            if shown != printed {
                let _ = write!(
                    failures,
                    "capout --render on {file} at {}x{}:\n{}",
                    size.0,
                    size.1,
                    difference(&shown, &printed).replace("model:", "capout:")
                );
            }
        }
    }
    assert!(failures.is_empty(), "the model or capout --render differs from tmux:\n{failures}");
}

/// The fixtures fed in pieces of 1 to 7 bytes, cutting escape sequences
/// and characters everywhere, give the rows of one whole feed.
#[test]
fn fixtures_render_the_same_in_pieces_of_1_to_7_bytes() {
    let patterns: [&[usize]; 9] =
        [&[1], &[2], &[3], &[4], &[5], &[6], &[7], &[1, 2, 3, 4, 5, 6, 7], &[7, 3, 1, 6, 2, 5, 4]];
    for fixture in fixtures() {
        let input = std::fs::read(&fixture).unwrap();
        for size in [(80, 24), (31, 7)] {
            let whole = model(&input, size, LineFeed::Cooked, &[]);
            for sizes in patterns {
                assert!(
                    model(&input, size, LineFeed::Cooked, sizes) == whole,
                    "{} at {size:?} fed in pieces of {sizes:?}",
                    fixture.display()
                );
            }
        }
    }
}

/// Pieces of terminal output: text, wide characters, controls, escape
/// sequences whole and cut short, and invalid UTF-8.
fn fragment() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => "[a-z ]{1,12}".prop_map(String::into_bytes),
        1 => prop::sample::select(vec!["日本", "😀", "e\u{301}", "\u{200d}", "⠙", "\u{fe0f}", "\u{10fffd}"]).prop_map(|s| s.as_bytes().to_vec()),
        2 => prop::sample::select(vec!["\r", "\n", "\r\n", "\x08", "\t", "\x0b", "\x07", "\x00", "\x7f", "\x18"]).prop_map(|s| s.as_bytes().to_vec()),
        3 => (0u16..30, prop::sample::select(b"@ABCDEFGHJKLMPSTXZ`bdfghlmrsu".to_vec()))
            .prop_map(|(n, f)| format!("\x1b[{n}{}", f as char).into_bytes()),
        1 => (0u16..30, 0u16..30).prop_map(|(a, b)| format!("\x1b[{a};{b}r").into_bytes()),
        1 => prop::sample::select(vec!["\x1b7", "\x1b8", "\x1bM", "\x1bD", "\x1bE", "\x1bc", "\x1b#8", "\x1bH", "\x1bk", "\x1b\\",
            "\x1b[?1049h", "\x1b[?1049l", "\x1b[?47h", "\x1b[?47l", "\x1b[?7l", "\x1b[?7h", "\x1b[?6h", "\x1b[?6l", "\x1b[4h", "\x1b[4l",
            "\x1b]0;title\x07", "\x1b]2;t", "\x1bP1$q", "\x1b[1:2A", "\x1b[", "\x1b"])
            .prop_map(|s| s.as_bytes().to_vec()),
        1 => prop::collection::vec(0x80u8..=0xff, 1..4),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any input, cut anywhere into pieces of 1 to 7 bytes, gives the rows
    /// of one whole feed, in either line-feed mode; no row ends in a blank
    /// and the output never ends in an empty row.
    #[test]
    fn random_input_renders_the_same_in_any_pieces(
        fragments in prop::collection::vec(fragment(), 0..120),
        sizes in prop::collection::vec(1usize..=7, 1..16),
        width in 2usize..40,
        height in 1usize..10,
        raw in any::<bool>(),
    ) {
        let input = fragments.concat();
        let lf = if raw { LineFeed::Raw } else { LineFeed::Cooked };
        let whole = model(&input, (width, height), lf, &[]);
        prop_assert_eq!(&model(&input, (width, height), lf, &sizes), &whole);
        for row in whole.split(|&b| b == b'\n') {
            prop_assert!(!row.ends_with(b" "));
        }
        prop_assert!(!whole.ends_with(b"\n\n"));
    }
}
