//! After-tool hooks: where a harness lets a hook replace a tool's output
//! once the tool has run (Claude Code's `PostToolUse`, Gemini CLI's
//! `AfterTool`, opencode's `tool.execute.after`), capout bounds that
//! output as its MCP proxy bounds a server's results: by the profile
//! `tool`, or the one the config file's `[tools]` table names for the
//! tool; JSON cut so that it stays JSON; the whole saved in a private
//! folder that the notice names, for the harness's own read tool to page.
//!
//! By default it bounds the tools whose output nothing else bounds: MCP
//! tools and the harness's web fetch. The harness's own tools (read,
//! grep, edit, ...) page themselves and are left alone, and so is its
//! shell tool, which capout's shell hook bounds already. The `[tools]`
//! table names more, by the harness's name of a tool or, for an MCP tool,
//! by its server's name of it (as the proxy sees it); `false` leaves a
//! tool alone.
//!
//! Each harness's wire format has a module of its own; this one holds
//! what they share: which profile, and the cut.

pub mod claude_code;
pub mod gemini;
pub mod opencode;

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use capout_core::{NoticeTarget, SaveTo};
use rustix::fs::{FileType, Mode, OFlags};

use crate::ledger::Count;
use crate::profiles::{self, ConfigFile, ToolRule};

/// The largest hook event read: a harness that hands a hook the whole of
/// a tool's output (Gemini CLI, opencode) may hand it tens of MiB; one
/// larger is left alone, as it came.
pub const MAX_EVENT: u64 = 64 << 20;

/// What a tool is, for what bounds its output by default.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A tool of an MCP server.
    Mcp,
    /// The harness's web fetch.
    WebFetch,
    /// The harness's shell tool, which capout's shell hook bounds.
    Shell,
    /// Any other tool of the harness's own.
    Own,
}

/// A tool that ran, as the hook event names it.
#[derive(Clone, Copy, Debug)]
pub struct Tool<'a> {
    /// The harness's name of it (`mcp__github__search`, `WebFetch`).
    pub name: &'a str,
    /// For an MCP tool, its server's name of it (`search`), when the
    /// event tells.
    pub own: Option<&'a str>,
    /// What it is.
    pub kind: Kind,
}

/// The profile that bounds the output of `tool`, or why it is left
/// alone: a rule of the `[tools]` table of `file` for its name (else its
/// server's name of it), else `tool` for an MCP tool or a web fetch.
pub fn profile_for(file: Option<&ConfigFile>, tool: &Tool) -> Result<String, String> {
    if tool.kind == Kind::Shell {
        return Err(format!("the shell tool '{}', which capout's shell hook bounds", tool.name));
    }
    let rule = profiles::tool_rule(file, tool.name)
        .or_else(|| tool.own.and_then(|own| profiles::tool_rule(file, own)));
    match (rule, tool.kind) {
        (Some(ToolRule::Profile(name)), _) => Ok(name.clone()),
        (Some(ToolRule::Leave), _) => {
            Err(format!("the tool '{}', which the config file's [tools] table leaves as it is", tool.name))
        }
        (None, Kind::Mcp | Kind::WebFetch) => Ok("tool".to_owned()),
        (None, _) => Err(format!(
            "the harness's own tool '{}', which pages itself (the config file's [tools] table may name it)",
            tool.name
        )),
    }
}

/// What the cut gives: the text the model is to read instead, the notice
/// at its end.
#[derive(Debug, PartialEq, Eq)]
pub struct Cut {
    /// The output as the profile bounds it, its notice last.
    pub text: String,
    /// The file that holds the whole output, when it could be saved.
    pub saved: Option<PathBuf>,
}

/// Where a tool's output is.
pub enum Input<'a> {
    /// In the event itself.
    Text(&'a [u8]),
    /// In a file the harness saved it to (a regular file, not a link).
    File(&'a Path),
}

/// The most bytes of a text cut first without saving it: one that fits
/// costs no file.
const HELD: usize = 64 * 1024;

/// A call as the ledger names it: the harness, and the tool's name there.
#[derive(Clone, Copy, Debug)]
pub struct Call<'a> {
    /// The harness (`claude-code`, `gemini`, `opencode`).
    pub harness: &'a str,
    /// The tool's name in the harness.
    pub tool: &'a str,
}

/// `input` bounded by the profile `profile` (of `file`, else built in),
/// the whole saved in `dir` when it is cut; `None` when it fits and is
/// left as it is. Without a folder (`dir` says why) the output is still
/// bounded, and its notice names no file. With a `call`, the ledger gets
/// its line (when it is on).
pub fn cut(
    profile: &str,
    file: Option<&ConfigFile>,
    input: &Input,
    dir: Result<&Path, &str>,
    call: Option<Call>,
) -> Result<Option<Cut>, String> {
    let started = std::time::Instant::now();
    let call = call.filter(|_| crate::ledger::enabled());
    let mut read = Count::default();
    let got = bound(profile, file, input, dir, call.is_some().then_some(&mut read))?;
    if let Some(call) = call {
        let (chars_in, tokens_in) = read.totals();
        let (chars_shown, tokens_shown) = match &got {
            Some(cut) => {
                let mut shown = Count::default();
                shown.add(cut.text.as_bytes());
                shown.totals()
            }
            None => (chars_in, tokens_in),
        };
        let entry = crate::ledger::Entry {
            harness: Some(call.harness.to_owned()),
            chars_in,
            tokens_in,
            chars_shown,
            tokens_shown,
            cut: got.is_some(),
            saved: got.as_ref().and_then(|c| c.saved.as_ref()).map(|p| p.display().to_string()),
            ..crate::ledger::Entry::new("hook", call.tool).command(call.tool)
        };
        crate::ledger::append(&entry.took(started.elapsed()));
    }
    Ok(got)
}

/// A reader that counts what it reads, when it has a count.
struct Counted<'a, R> {
    inner: R,
    count: Option<&'a mut Count>,
}

impl<R: Read> Read for Counted<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Some(count) = self.count.as_deref_mut() {
            count.add(&buf[..n]);
        }
        Ok(n)
    }
}

/// [`cut`] without the ledger: `read`, when given, counts the input.
fn bound(
    profile: &str,
    file: Option<&ConfigFile>,
    input: &Input,
    dir: Result<&Path, &str>,
    mut read: Option<&mut Count>,
) -> Result<Option<Cut>, String> {
    if let (Input::Text(text), Some(read)) = (input, read.as_deref_mut()) {
        read.add(text);
    }
    let mut options = profiles::config_with(file, profile)?;
    // The model reads the notice with the output; no live count, no JSON
    // object around it.
    options.notice = NoticeTarget::Stdout;
    options.json = false;
    options.progress = false;
    options.save = None;
    if let Input::Text(text) = input
        && text.len() <= HELD
    {
        let (out, summary) = run(&options, *text)?;
        if !summary.truncated {
            return Ok(None);
        }
        if dir.is_err() {
            return Ok(Some(Cut { text: out, saved: None }));
        }
    }
    match &dir {
        Ok(dir) => options.save = Some(SaveTo::Dir(dir.to_path_buf())),
        Err(why) => {
            let _ = super::pass(&format_args!("the full output is not saved: {why}"));
        }
    }
    let (out, summary) = match input {
        Input::Text(text) => run(&options, *text)?,
        Input::File(path) => {
            let file = open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            run(&options, Counted { inner: file, count: read })?
        }
    };
    if let Some(e) = &summary.save_error {
        let _ = super::pass(e);
    }
    Ok(summary.truncated.then_some(Cut { text: out, saved: summary.saved_to }))
}

fn run(options: &capout_core::Options, input: impl Read) -> Result<(String, capout_core::Summary), String> {
    let mut out = Vec::new();
    let summary = capout_core::run(options, input, &mut out, &mut io::sink()).map_err(|e| e.to_string())?;
    Ok((String::from_utf8_lossy(&out).into_owned(), summary))
}

/// Opens the regular file at `path` for reading, without following a
/// link there and without waiting (a FIFO swapped in is refused).
fn open(path: &Path) -> io::Result<File> {
    let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC | OFlags::NOFOLLOW;
    let fd = rustix::fs::open(path, flags, Mode::empty())?;
    if FileType::from_raw_mode(rustix::fs::fstat(&fd)?.st_mode) != FileType::RegularFile {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "it is not a regular file"));
    }
    Ok(File::from(fd))
}

/// Reads a hook event from `input`, of at most [`MAX_EVENT`] bytes.
pub fn read_event(input: impl Read) -> Result<String, String> {
    let mut bytes = Vec::new();
    input.take(MAX_EVENT + 1).read_to_end(&mut bytes).map_err(|e| format!("cannot read the event: {e}"))?;
    if bytes.len() as u64 > MAX_EVENT {
        return Err(format!("the event is larger than {} MiB: the output is left as it is", MAX_EVENT >> 20));
    }
    String::from_utf8(bytes).map_err(|_| "the event is not valid UTF-8".to_owned())
}

/// Prints `answer` for the harness, on a line of its own: one that
/// cannot be written leaves the output as it was.
pub fn print(answer: &str) -> std::process::ExitCode {
    use std::io::Write;
    let mut out = io::stdout().lock();
    match writeln!(out, "{answer}").and_then(|()| out.flush()) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => super::pass(&format_args!("cannot write the answer: {e}")),
    }
}

/// Whether `path` names a file inside `dir` itself: absolute, with no
/// `..` or `.` in it, and `dir` its folder.
pub fn directly_in(path: &Path, dir: &Path) -> bool {
    use std::path::Component;
    path.is_absolute()
        && path.components().all(|c| matches!(c, Component::RootDir | Component::Normal(_)))
        && path.parent() == Some(dir)
}

/// The text of the blocks of `blocks` whose type is `text`, joined as
/// the model would read them (each on lines of its own); `None` when
/// there is none.
pub fn texts(blocks: &[serde_json::Value]) -> Option<String> {
    let mut text = String::new();
    let mut any = false;
    for block in blocks {
        if block.get("type").and_then(serde_json::Value::as_str) == Some("text")
            && let Some(t) = block.get("text").and_then(serde_json::Value::as_str)
        {
            if any && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(t);
            any = true;
        }
    }
    any.then_some(text)
}

/// `blocks` with their text blocks replaced by one that holds `text`,
/// where the first was; every other block stays where it was.
pub fn with_text(blocks: &[serde_json::Value], text: &str) -> Vec<serde_json::Value> {
    let mut out = Vec::with_capacity(blocks.len());
    let mut placed = false;
    for block in blocks {
        let is_text = block.get("type").and_then(serde_json::Value::as_str) == Some("text")
            && block.get("text").is_some_and(serde_json::Value::is_string);
        if !is_text {
            out.push(block.clone());
        } else if !placed {
            let mut block = block.clone();
            block["text"] = text.into();
            out.push(block);
            placed = true;
        }
    }
    out
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// `line 1` to `line N`, each on a line of its own.
    pub fn lines(n: usize) -> String {
        use std::fmt::Write as _;
        (1..=n).fold(String::new(), |mut s, i| {
            let _ = writeln!(s, "line {i}");
            s
        })
    }
    use serde_json::json;

    fn file(text: &str) -> ConfigFile {
        ConfigFile::parse(Path::new("c.toml"), text).unwrap()
    }

    fn tool<'a>(name: &'a str, own: Option<&'static str>, kind: Kind) -> Tool<'a> {
        Tool { name, own, kind }
    }

    #[test]
    fn mcp_tools_and_web_fetches_are_bounded_by_profile_tool_and_the_harnesss_own_tools_are_left() {
        assert_eq!(profile_for(None, &tool("mcp__gh__search", Some("search"), Kind::Mcp)), Ok("tool".into()));
        assert_eq!(profile_for(None, &tool("WebFetch", None, Kind::WebFetch)), Ok("tool".into()));
        assert_eq!(
            profile_for(None, &tool("Read", None, Kind::Own)),
            Err("the harness's own tool 'Read', which pages itself (the config file's [tools] table may name it)"
                .into())
        );
        assert_eq!(
            profile_for(None, &tool("Bash", None, Kind::Shell)),
            Err("the shell tool 'Bash', which capout's shell hook bounds".into())
        );
    }

    #[test]
    fn the_tools_table_names_a_tool_by_the_harnesss_name_or_the_servers() {
        let rules = file(
            "[tools]\n\"Grep\" = \"grep\"\n\"search\" = \"read\"\n\"mcp__gh__secret\" = false\n\"*\" = \"bash\"\n",
        );
        assert_eq!(profile_for(Some(&rules), &tool("Grep", None, Kind::Own)), Ok("grep".into()));
        assert_eq!(
            profile_for(Some(&rules), &tool("mcp__gh__search", Some("search"), Kind::Mcp)),
            Ok("bash".into())
        );
        let exact = file("[tools]\n\"search\" = \"read\"\n");
        assert_eq!(
            profile_for(Some(&exact), &tool("mcp__gh__search", Some("search"), Kind::Mcp)),
            Ok("read".into())
        );
        assert!(profile_for(Some(&rules), &tool("mcp__gh__secret", Some("secret"), Kind::Mcp)).is_err());
        assert!(profile_for(Some(&rules), &tool("Bash", None, Kind::Shell)).is_err());
    }

    #[test]
    fn an_output_that_fits_is_left_and_one_that_does_not_is_cut_and_saved() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(cut("tool", None, &Input::Text(b"short\n"), Ok(dir.path()), None), Ok(None));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        let long = lines(100_000);
        let cut = cut("tool", None, &Input::Text(long.as_bytes()), Ok(dir.path()), None).unwrap().unwrap();
        let saved = cut.saved.unwrap();
        assert_eq!(std::fs::read_to_string(&saved).unwrap(), long);
        assert_eq!(
            cut.text,
            format!(
                "{}\n... (truncated, showing first 8000 chars; full output: {})\n",
                long[..8000].trim_end_matches('\n'),
                saved.display()
            )
        );
    }

    #[test]
    fn without_a_folder_the_cut_names_no_file() {
        let long = "x".repeat(100_000);
        for text in [long.as_bytes(), &long.as_bytes()[..9000]] {
            let cut = cut("tool", None, &Input::Text(text), Err("no folder"), None).unwrap().unwrap();
            assert_eq!(cut.text, format!("{}\n... (truncated, showing first 8000 chars)\n", &long[..8000]));
            assert_eq!(cut.saved, None);
        }
    }

    #[test]
    fn a_json_document_stays_json() {
        let items: Vec<String> = (0..20_000).map(|i| format!("{{\"id\": {i}}}")).collect();
        let doc = format!("{{\"items\": [{}]}}", items.join(", "));
        let dir = tempfile::tempdir().unwrap();
        let cut = cut("tool", None, &Input::Text(doc.as_bytes()), Ok(dir.path()), None).unwrap().unwrap();
        let (document, notice) = cut.text.trim_end().rsplit_once('\n').unwrap();
        let value: serde_json::Value = serde_json::from_str(document).unwrap();
        assert_eq!(value["items"].as_array().unwrap().len(), 50);
        assert!(notice.starts_with("... (truncated JSON: kept "), "{notice}");
    }

    #[test]
    fn a_saved_file_is_read_but_a_link_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.txt");
        std::fs::write(&out, "y".repeat(20_000)).unwrap();
        let saved = tempfile::tempdir().unwrap();
        let cut = cut("tool", None, &Input::File(&out), Ok(saved.path()), None).unwrap().unwrap();
        assert!(cut.text.starts_with(&"y".repeat(8000)));
        let link = dir.path().join("link.txt");
        std::os::unix::fs::symlink(&out, &link).unwrap();
        assert!(
            super::cut("tool", None, &Input::File(&link), Ok(saved.path()), None)
                .unwrap_err()
                .starts_with("cannot read ")
        );
    }

    #[test]
    fn a_path_directly_in_a_folder_has_no_dots() {
        let dir = Path::new("/a/b");
        assert!(directly_in(Path::new("/a/b/c.txt"), dir));
        assert!(!directly_in(Path::new("/a/b/../b/c.txt"), dir));
        assert!(!directly_in(Path::new("/a/b/d/c.txt"), dir));
        assert!(!directly_in(Path::new("b/c.txt"), Path::new("b")));
    }

    #[test]
    fn text_blocks_become_one_where_the_first_was() {
        let blocks = [
            json!({"type": "image", "data": "AA", "mimeType": "image/png"}),
            json!({"type": "text", "text": "a"}),
            json!({"type": "text", "text": "b\n"}),
            json!({"type": "text", "text": "c"}),
        ];
        assert_eq!(texts(&blocks).as_deref(), Some("a\nb\nc"));
        assert_eq!(texts(&blocks[..1]), None);
        assert_eq!(
            with_text(&blocks, "cut"),
            [
                json!({"type": "image", "data": "AA", "mimeType": "image/png"}),
                json!({"type": "text", "text": "cut"})
            ]
        );
    }
}
