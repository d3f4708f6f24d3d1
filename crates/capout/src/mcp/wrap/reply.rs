//! The server's lines on their way to the client. Each passes byte for
//! byte but a tool's result that something cuts, and the first page of
//! tools/list, which gets `capout_page`.
//!
//! A line is walked as it arrives ([`Walker`]). Its raw bytes are kept in
//! a [`Spill`] while it may still change; a tool's text goes through the
//! engine as it comes (the whole of it saved to a file by the engine),
//! an image's bytes are counted and saved past the byte cap. Once a value
//! is sure to be replaced, its raw bytes are taken back out of the spill,
//! so that a gigabyte of text is never held or kept twice. At the end of
//! the line, the spill is written with the cut values in place: every
//! byte not cut, the id's included, is the server's own.
//!
//! Which request a line answers is known only from its id, which a
//! server may write last (the TypeScript SDK does). Until then the line
//! is walked as what it may be, as the requests that wait say: the cut of
//! each profile that a waiting tool call has is made side by side, and
//! the raw bytes are kept whole unless every waiting request that the
//! line may answer is a tool call that cuts. A line known to change
//! nothing (a notification, a request of the server's, the answer to any
//! other request) is streamed to the client as it comes.

use std::sync::Arc;

use capout_core::{Capper, Summary};

use crate::ledger::Count;

use super::json::{Event, Take, Walker};
use super::media::{self, Media};
use super::notice;
use super::pending::{Gone, Kind};
use super::session::{self, Session};
use super::shape::Shape;
use super::spill::{Edit, Spill};

/// The server's lines, read and given on.
pub struct Replies {
    session: Arc<Session>,
    walker: Walker,
    line: Line,
}

/// What is known of the line being read.
struct Line {
    spill: Spill,
    /// Streamed to the client as it comes: nothing in it changes.
    passing: bool,
    /// The raw bytes of the current value are not kept.
    dropping: bool,
    /// Something was taken out of the spill: the line cannot be given on
    /// as it came.
    dropped: bool,
    id: Option<Vec<u8>>,
    /// What the request of that id is, looked up when the id was read.
    kind: Option<Kind>,
    /// The line has a `method`: a request or notification of the
    /// server's.
    method: bool,
    /// The line has a `result`.
    result: bool,
    /// The cuts of each profile the line may be cut by.
    cuts: Vec<Cut>,
    /// Raw bytes may be dropped: the line is a tool's result that cuts.
    certain: bool,
    /// Where the current value starts in the spill.
    start: u64,
    /// What the bytes of the current value are for.
    current: Current,
    blocks: Vec<Block>,
    /// Where the last item of `content` ended (after `[` before any).
    content_end: u64,
    /// A text block was fed to the cuts, and the last byte it ended with.
    text_fed: bool,
    text_last: Option<u8>,
    structured: Option<Structured>,
    tools: Tools,
    /// A file was saved: the folder may be over its bound.
    saved: bool,
    /// A tool's text as the ledger counts it.
    counted: Option<Counted>,
}

/// What the decoded bytes of the current value are for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Current {
    Text,
    Media,
    /// A string in `structuredContent`.
    Shaped,
    Other,
}

/// The cut of one profile.
struct Cut {
    profile: usize,
    text: Option<TextCut>,
    structured: Option<Capped>,
}

/// A value through the engine: the capper and what it wrote.
struct Capped {
    capper: Capper,
    out: Vec<u8>,
}

impl Capped {
    /// The engine as `options` say; `None` when it cannot be made, which
    /// [`Caps::load`](super::caps::Caps::load) rules out.
    fn with(options: &capout_core::Options) -> Option<Capped> {
        // The folder gone (removed by hand): the cap still holds, with
        // nothing saved.
        let capper = Capper::with_options(options).or_else(|_| {
            let mut unsaved = options.clone();
            unsaved.save = None;
            Capper::with_options(&unsaved)
        });
        Some(Capped { capper: capper.ok()?, out: Vec::new() })
    }

    /// The engine for the `structuredContent` of a result cut by the
    /// profile `profile`: the document alone, no notice, nothing saved.
    fn structured(session: &Session, profile: usize) -> Option<Capped> {
        let mut options = session.caps.options(profile).clone();
        options.notice = capout_core::NoticeTarget::None;
        options.save = None;
        Capped::with(&options)
    }

    fn push(&mut self, bytes: &[u8]) {
        // Writes to a Vec do not fail; a save that fails is told in the
        // summary, and the cap holds.
        let _ = self.capper.push(bytes, &mut self.out);
    }

    fn finish(mut self) -> Option<(Summary, Vec<u8>)> {
        let summary = self.capper.finish(&mut self.out).ok()?;
        Some((summary, self.out))
    }

    /// `text` through the engine, whole.
    fn run(mut self, text: &[u8]) -> Option<(Summary, Vec<u8>)> {
        self.push(text);
        self.finish()
    }
}

/// The most bytes of a result's text held before it goes through the
/// engine as it comes.
const HELD_TEXT: usize = 64 * 1024;

/// The text of a result through the engine, with its notice, saved whole
/// when it is cut. A short text is held and capped at its end, a file to
/// save it to made only when it is cut: most results fit, and then cost
/// no file. A long one streams through the engine, saved as it comes.
struct TextCut {
    options: capout_core::Options,
    held: Vec<u8>,
    streaming: Option<Capped>,
    /// The whole text counted, for the ledger (when it is on).
    read: Option<Count>,
}

impl TextCut {
    fn new(session: &Session, profile: usize) -> TextCut {
        let read = crate::ledger::enabled().then(Count::default);
        TextCut { options: session.caps.options(profile).clone(), held: Vec::new(), streaming: None, read }
    }

    fn push(&mut self, bytes: &[u8]) {
        if let Some(read) = &mut self.read {
            read.add(bytes);
        }
        if let Some(capped) = &mut self.streaming {
            capped.push(bytes);
        } else if self.held.len() + bytes.len() <= HELD_TEXT {
            self.held.extend_from_slice(bytes);
        } else if let Some(mut capped) = Capped::with(&self.options) {
            capped.push(&std::mem::take(&mut self.held));
            capped.push(bytes);
            self.streaming = Some(capped);
        }
    }

    /// Whether it is sure to be cut.
    fn past_cap(&self) -> bool {
        self.streaming.as_ref().is_some_and(|c| c.capper.past_cap())
    }

    fn finish(self) -> Option<(Summary, Vec<u8>)> {
        if let Some(capped) = self.streaming {
            return capped.finish();
        }
        let mut unsaved = self.options.clone();
        unsaved.save = None;
        let (summary, out) = Capped::with(&unsaved)?.run(&self.held)?;
        if !summary.truncated {
            return Some((summary, out));
        }
        // Cut: again, saved, so that its notice names the file.
        Capped::with(&self.options)?.run(&self.held)
    }
}

/// A tool's text, counted for the ledger: characters and tokens of the
/// whole and of what was shown, and where the whole was saved.
struct Counted {
    read: (u64, u64),
    shown: (u64, u64),
    saved: Option<String>,
}

/// One item of `content`.
#[derive(Default)]
struct Block {
    /// Where it starts and ends in the spill, and where the item before
    /// it ended.
    start: u64,
    end: u64,
    before: u64,
    kind: Option<String>,
    mime: Option<String>,
    /// Where its `text` is in the spill.
    text: Option<(u64, u64)>,
    media: Option<Media>,
    /// An embedded resource's uri and type.
    uri: Option<String>,
    resource_mime: Option<String>,
}

/// Where `structuredContent` is, and its cut that keeps its shape.
struct Structured {
    start: u64,
    end: u64,
    shape: Shape,
    /// Its bytes are being read: they go to the cuts as they are kept.
    open: bool,
}

/// What a page of tools/list holds.
#[derive(Default)]
struct Tools {
    /// Where its closing `]` is in the spill.
    close: Option<u64>,
    items: u64,
    /// One of them is named `capout_page`.
    clash: bool,
}

impl Line {
    fn new(spill: Spill) -> Line {
        Line {
            spill,
            passing: false,
            dropping: false,
            dropped: false,
            id: None,
            kind: None,
            method: false,
            result: false,
            cuts: Vec::new(),
            certain: false,
            start: 0,
            current: Current::Other,
            blocks: Vec::new(),
            content_end: 0,
            text_fed: false,
            text_last: None,
            structured: None,
            tools: Tools::default(),
            saved: false,
            counted: None,
        }
    }

    /// Ready for the next line, the spill's memory kept.
    fn reset(&mut self) {
        let mut spill = std::mem::replace(&mut self.spill, Spill::new(std::path::PathBuf::new()));
        spill.clear();
        *self = Line::new(spill);
    }

    /// Keeps `piece[*recorded..upto]`, unless the value is dropped; the
    /// bytes of `structuredContent` go to the cuts too, dropped or not.
    fn record(&mut self, piece: &[u8], recorded: &mut usize, upto: usize) {
        let bytes = &piece[*recorded..upto];
        if !self.dropping && !self.passing {
            self.spill.write(bytes);
        }
        if self.structured.as_ref().is_some_and(|s| s.open) {
            for capped in self.cuts.iter_mut().filter_map(|c| c.structured.as_mut()) {
                capped.push(bytes);
            }
        }
        *recorded = upto;
    }

    /// Whether every cut of `structuredContent` is past its cap: it is
    /// sure to be cut.
    fn structured_past_cap(&self) -> bool {
        self.cuts.iter().all(|c| c.structured.as_ref().is_some_and(|s| s.capper.past_cap()))
    }

    /// The current value will be replaced: its raw bytes go.
    fn drop_value(&mut self) {
        if self.certain && !self.dropping {
            self.spill.truncate(self.start);
            self.dropping = true;
            self.dropped = true;
        }
    }

    /// What to take of a value that starts at `first`.
    fn value(&mut self, walker: &Walker, first: u8, session: &Session) -> Take {
        self.start = self.spill.len();
        self.current = Current::Other;
        let depth = walker.depth();
        if depth == 0 {
            return if first == b'{' { Take::Enter } else { Take::Skip };
        }
        if depth == 1 {
            return match walker.key(0) {
                Some(b"id") => Take::Capture,
                Some(b"method") => {
                    self.method = true;
                    self.pass();
                    Take::Skip
                }
                Some(b"result") if !self.passing => {
                    self.result = true;
                    self.start_result(session);
                    if self.passing || first != b'{' { Take::Skip } else { Take::Enter }
                }
                _ => Take::Skip,
            };
        }
        if self.passing || walker.key(0) != Some(b"result") {
            return Take::Skip;
        }
        let content = walker.key(1) == Some(b"content");
        let string = first == b'"';
        match depth {
            2 => match walker.key(1) {
                Some(b"content") if first == b'[' => {
                    self.content_end = self.start + 1;
                    Take::Enter
                }
                Some(b"structuredContent") if !self.cuts.is_empty() && matches!(first, b'{' | b'[') => {
                    let budget = budget(session.caps.options(self.cuts[0].profile));
                    self.structured = Some(Structured {
                        start: self.start,
                        end: self.start,
                        shape: Shape::new(budget, self.start),
                        open: true,
                    });
                    for cut in &mut self.cuts {
                        cut.structured = Capped::structured(session, cut.profile);
                    }
                    Take::Enter
                }
                Some(b"tools") if first == b'[' => Take::Enter,
                _ => Take::Skip,
            },
            3 if content && first == b'{' && !self.cuts.is_empty() => {
                self.blocks.push(Block { start: self.start, before: self.content_end, ..Block::default() });
                Take::Enter
            }
            3 if walker.key(1) == Some(b"tools") && first == b'{' => {
                self.tools.items += 1;
                Take::Enter
            }
            4 if content => match walker.key(3) {
                Some(b"type" | b"mimeType") => Take::Capture,
                Some(b"text") if string => {
                    self.start_text(session);
                    Take::Decode
                }
                Some(b"data") if string => {
                    self.start_media(true, session);
                    Take::Decode
                }
                Some(b"resource") if first == b'{' => Take::Enter,
                _ => Take::Skip,
            },
            4 if walker.key(1) == Some(b"tools") && walker.key(3) == Some(b"name") => Take::Capture,
            _ if walker.key(1) == Some(b"structuredContent") => self.shaped(walker, first),
            5 if content && walker.key(3) == Some(b"resource") => match walker.key(4) {
                Some(b"text") if string => {
                    self.start_media(false, session);
                    Take::Decode
                }
                Some(b"blob") if string => {
                    self.start_media(true, session);
                    Take::Decode
                }
                Some(b"uri" | b"mimeType") => Take::Capture,
                _ => Take::Skip,
            },
            _ => Take::Skip,
        }
    }

    /// A value inside `structuredContent` starts.
    fn shaped(&mut self, walker: &Walker, first: u8) -> Take {
        let Some(structured) = &mut self.structured else { return Take::Skip };
        let depth = walker.depth();
        let take = structured.shape.value(depth - 3, walker.index(depth - 1), first, self.start);
        if structured.shape.leaving() {
            if self.structured_past_cap() {
                self.drop_value();
            }
        } else if take == Take::Decode {
            self.current = Current::Shaped;
        }
        take
    }

    /// The line is given on as it comes, when nothing was taken out of
    /// it yet.
    fn pass(&mut self) {
        if !self.dropped {
            self.passing = true;
        }
    }

    /// `result` starts: what the line may be, and so what may be cut.
    fn start_result(&mut self, session: &Session) {
        let (profiles, certain, list) = match &self.kind {
            Some(Kind::Tool(Some(profile))) => (vec![*profile], true, false),
            Some(Kind::List { .. }) => (Vec::new(), false, true),
            Some(_) => (Vec::new(), false, false),
            None => {
                let possible = session.pending().possible();
                (possible.profiles, !possible.uncertain, possible.list)
            }
        };
        if profiles.is_empty() && !list {
            self.pass();
        }
        self.certain = certain && !profiles.is_empty();
        self.cuts =
            profiles.into_iter().map(|profile| Cut { profile, text: None, structured: None }).collect();
    }

    fn start_text(&mut self, session: &Session) {
        self.current = Current::Text;
        let start = self.start;
        if let Some(block) = self.blocks.last_mut() {
            block.text = Some((start, start));
        }
        let between = self.text_fed && self.text_last != Some(b'\n');
        for cut in &mut self.cuts {
            let text = cut.text.get_or_insert_with(|| TextCut::new(session, cut.profile));
            // Blocks of text are one text, a line apart.
            if between {
                text.push(b"\n");
            }
        }
        self.text_fed = true;
    }

    fn start_media(&mut self, base64: bool, session: &Session) {
        self.current = Current::Media;
        if let Some(block) = self.blocks.last_mut() {
            block.media = Some(Media::new(base64, &session.dir, session.media_cap));
        }
    }

    /// The next bytes of the current value, decoded or raw.
    fn bytes(&mut self, bytes: &[u8]) {
        match self.current {
            Current::Shaped => {
                let cut = self.structured.as_mut().is_some_and(|s| s.shape.bytes(bytes));
                if cut && self.structured_past_cap() {
                    self.drop_value();
                }
            }
            Current::Text => {
                for capped in self.cuts.iter_mut().filter_map(|c| c.text.as_mut()) {
                    capped.push(bytes);
                }
                self.text_last = bytes.last().copied().or(self.text_last);
                if self.cuts.iter().all(|c| c.text.as_ref().is_some_and(TextCut::past_cap)) {
                    self.drop_value();
                }
            }
            Current::Media => {
                if let Some(media) = self.blocks.last_mut().and_then(|b| b.media.as_mut()) {
                    media.push(bytes);
                    if media.over() {
                        self.drop_value();
                    }
                }
            }
            Current::Other => {}
        }
    }

    /// The current value ended, at the spill's end.
    fn end(&mut self, walker: &Walker, session: &Session) {
        let end = self.spill.len();
        self.dropping = false;
        let depth = walker.depth();
        let captured = || walker.captured().map(|c| serde_json::from_slice::<String>(c).ok());
        if depth == 1 && walker.key(0) == Some(b"id") {
            self.id = walker.captured().map(<[u8]>::to_vec);
            self.kind = self.id.as_ref().and_then(|id| session.pending().get(id));
            // The answer to a request whose answer nothing changes.
            if !self.result && !matches!(self.kind, Some(Kind::Tool(Some(_)) | Kind::List { .. })) {
                self.pass();
            }
            return;
        }
        if self.passing || depth < 2 || walker.key(0) != Some(b"result") {
            return;
        }
        let content = walker.key(1) == Some(b"content");
        match depth {
            2 => match walker.key(1) {
                Some(b"structuredContent") => {
                    if let Some(structured) = &mut self.structured {
                        structured.end = end;
                        structured.open = false;
                    }
                }
                Some(b"tools") => self.tools.close = end.checked_sub(1),
                _ => {}
            },
            _ if walker.key(1) == Some(b"structuredContent") => {
                if let Some(structured) = &mut self.structured {
                    structured.shape.end(depth - 3, walker.index(depth - 1).is_some(), end);
                }
            }
            3 if content => {
                if let Some(block) = self.blocks.last_mut() {
                    block.end = end;
                }
                self.content_end = end;
            }
            4 if content => {
                let Some(block) = self.blocks.last_mut() else { return };
                match walker.key(3) {
                    Some(b"type") => block.kind = captured().flatten(),
                    Some(b"mimeType") => block.mime = captured().flatten(),
                    Some(b"text") => {
                        if let Some((start, _)) = block.text {
                            block.text = Some((start, end));
                        }
                    }
                    Some(b"data") => {
                        if let Some(media) = &mut block.media {
                            media.end();
                        }
                    }
                    _ => {}
                }
            }
            4 if walker.key(1) == Some(b"tools")
                && walker.key(3) == Some(b"name")
                && captured().flatten().as_deref() == Some(notice::PAGE_TOOL) =>
            {
                self.tools.clash = true;
            }
            5 if content => {
                let Some(block) = self.blocks.last_mut() else { return };
                match walker.key(4) {
                    Some(b"uri") => block.uri = captured().flatten(),
                    Some(b"mimeType") => block.resource_mime = captured().flatten(),
                    Some(b"text" | b"blob") => {
                        if let Some(media) = &mut block.media {
                            media.end();
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }

    /// The edits of a tool's result cut by the profile `profile`.
    fn tool_edits(&mut self, profile: usize) -> Vec<Edit> {
        let mut edits = Vec::new();
        let Some(at) = self.cuts.iter().position(|c| c.profile == profile) else { return edits };
        let cut = self.cuts.swap_remove(at);
        let is_text = |block: &Block| block.kind.as_deref().is_none_or(|k| k == "text");
        let mut text = cut.text;
        let read = text.as_mut().and_then(|t| t.read.take());
        let finished = text.and_then(TextCut::finish);
        if let Some(read) = read {
            let cut = finished.as_ref().filter(|(summary, _)| summary.truncated);
            let shown = cut.map(|(_, out)| {
                let mut shown = Count::default();
                shown.add(out);
                shown.totals()
            });
            let saved =
                cut.and_then(|(summary, _)| summary.saved_to.as_ref()).map(|p| p.display().to_string());
            self.counted =
                Some(Counted { read: read.totals(), shown: shown.unwrap_or(read.totals()), saved });
        }
        if let Some((summary, out)) = finished
            && summary.truncated
        {
            self.saved |= summary.saved_to.is_some();
            let text = serde_json::to_vec(&String::from_utf8_lossy(&out)).unwrap_or_default();
            let mut first = Some(text);
            for block in self.blocks.iter().filter(|b| is_text(b)) {
                let Some((start, end)) = block.text else { continue };
                match first.take() {
                    Some(with) => edits.push(Edit { start, end, with }),
                    // The other blocks of text are in the first one now.
                    None => edits.push(Edit { start: block.before, end: block.end, with: Vec::new() }),
                }
            }
        }
        for block in &mut self.blocks {
            if block.kind.as_deref() == Some("text") {
                continue;
            }
            let Some(media) = block.media.take() else { continue };
            let size = media.size();
            let resource = block.kind.as_deref() == Some("resource");
            let mime = if resource { block.resource_mime.as_deref() } else { block.mime.as_deref() };
            let extension = media::extension(mime, resource);
            let Some(saved) = media.finish(&extension) else { continue };
            self.saved |= saved.is_ok();
            let what = match (block.kind.as_deref(), block.uri.as_deref()) {
                (Some("resource"), Some(uri)) => format!("resource {uri}"),
                (Some(kind), _) => kind.to_owned(),
                (None, _) => "content".to_owned(),
            };
            let line = notice::media_line(&what, size, mime, saved.as_deref().map_err(String::as_str));
            let with = serde_json::json!({ "type": "text", "text": line }).to_string().into_bytes();
            edits.push(Edit { start: block.start, end: block.end, with });
        }
        if let (Some(structured), Some((summary, out))) =
            (&self.structured, cut.structured.and_then(Capped::finish))
            && summary.truncated
        {
            let document = out.trim_ascii();
            let object = document.first() == Some(&b'{')
                && serde_json::from_slice::<serde::de::IgnoredAny>(document).is_ok();
            if object {
                edits.push(Edit { start: structured.start, end: structured.end, with: document.to_vec() });
            } else {
                // The profile's cut is no JSON: the one that keeps the
                // shape, so that it still meets the tool's output schema.
                edits.extend(structured.shape.edits.iter().cloned());
            }
        }
        edits.sort_by_key(|e| e.start);
        edits
    }
}

/// The bytes that the cut of `structuredContent` keeping its shape keeps
/// about, under `options`: its characters when it caps characters, else
/// the budget of profile `read`, 8000.
fn budget(options: &capout_core::Options) -> u64 {
    match options.cap {
        capout_core::CapSpec::HeadChars(n) | capout_core::CapSpec::TailChars(n) => n,
        capout_core::CapSpec::HeadTailChars(head, tail) => head + tail,
        _ => options.budget.unwrap_or(8000),
    }
}

impl Replies {
    /// The lines of the server of `session`.
    pub fn new(session: Arc<Session>) -> Replies {
        let line = Line::new(Spill::new(session.dir.clone()));
        Replies { session, walker: Walker::new(), line }
    }

    /// The server's output ended. A line streamed in part is ended, so
    /// that the client reads the lines after it (the proxy's own) whole;
    /// a line kept in part is dropped: its request gets the server's end.
    pub fn finish(&mut self) -> std::io::Result<()> {
        if self.line.passing {
            self.session.out.part(b"\n", true)?;
        }
        self.line.reset();
        Ok(())
    }

    /// Reads the next bytes of the server's output.
    pub fn feed(&mut self, mut input: &[u8]) -> std::io::Result<()> {
        while !input.is_empty() {
            let newline = memchr::memchr(b'\n', input);
            let (part, rest) = match newline {
                Some(at) => (&input[..at], &input[at + 1..]),
                None => (input, &[][..]),
            };
            self.walk(part)?;
            if newline.is_some() {
                self.end_line()?;
            }
            input = rest;
        }
        Ok(())
    }

    /// Walks the next part of the line.
    fn walk(&mut self, part: &[u8]) -> std::io::Result<()> {
        if self.line.passing {
            self.session.out.part(part, false)?;
            self.walk_passing(part, 0);
            return Ok(());
        }
        let mut at = 0;
        let mut recorded = 0;
        let Replies { session, walker, line } = self;
        while !line.passing {
            match walker.step(part, &mut at) {
                Event::More | Event::Error => {
                    line.record(part, &mut recorded, part.len());
                    return Ok(());
                }
                Event::Value { at: start, first } => {
                    line.record(part, &mut recorded, start);
                    let take = line.value(walker, first, session);
                    walker.take(take);
                }
                Event::Key { .. } => {}
                Event::Bytes(bytes) => line.bytes(bytes),
                Event::End { at: end } => {
                    line.record(part, &mut recorded, end);
                    line.end(walker, session);
                }
            }
        }
        // Found to change nothing: what was kept goes now, the rest as it
        // comes.
        line.spill.emit(&[], &part[recorded..], &mut Parts(&session.out))?;
        line.spill.clear();
        self.walk_passing(part, at);
        Ok(())
    }

    /// Walks the rest of a part whose line streams, from `at`: only what
    /// tells an answer from a request is read.
    fn walk_passing(&mut self, part: &[u8], mut at: usize) {
        let Replies { session, walker, line } = self;
        loop {
            match walker.step(part, &mut at) {
                Event::More | Event::Error => break,
                Event::Value { first, .. } => {
                    let take = line.value(walker, first, session);
                    walker.take(take);
                }
                Event::End { .. } => line.end(walker, session),
                Event::Key { .. } | Event::Bytes(_) => {}
            }
        }
    }

    /// The line has ended: it goes to the client, cut where it is cut.
    fn end_line(&mut self) -> std::io::Result<()> {
        let session = Arc::clone(&self.session);
        let line = &mut self.line;
        let answer = !line.method;
        let taken = |id: &Option<Vec<u8>>| {
            let kind = id.as_ref().filter(|_| answer).and_then(|id| session.pending().remove(id));
            if kind == Some(Kind::Init) {
                session.pending().initialized = true;
            }
            kind
        };
        if line.passing {
            session.out.part(b"\n", true)?;
            taken(&line.id);
            if let Some(id) = &line.id {
                session.answered(id);
            }
        } else {
            let complete = self.walker.complete();
            let kind = taken(&line.id);
            let id = line.id.clone().unwrap_or_else(|| b"null".to_vec());
            let failed = line.spill.failed.take();
            let mut edits = Vec::new();
            let mut replaced = None;
            match &kind {
                // Not JSON, or not kept whole: what came is given on when
                // it can be, else the request gets an error.
                _ if failed.is_some() || (!complete && line.dropped) => {
                    let message = match failed {
                        Some(e) => notice::reply_lost(&session.command, e),
                        None => notice::reply_not_json(&session.command),
                    };
                    replaced = Some(session::error_with(&id, -32603, &message, None));
                }
                _ if !complete => {}
                Some(Kind::Tool(Some(profile))) => {
                    edits = line.tool_edits(*profile);
                    if let (Some(counted), Some((tool, started))) =
                        (line.counted.take(), session.answered(&id))
                    {
                        let ((chars_in, tokens_in), (chars_shown, tokens_shown)) =
                            (counted.read, counted.shown);
                        let entry = crate::ledger::Entry {
                            chars_in,
                            tokens_in,
                            chars_shown,
                            tokens_shown,
                            cut: counted.saved.is_some() || chars_shown != chars_in,
                            saved: counted.saved,
                            ..crate::ledger::Entry::new("proxy", &tool).command(&tool)
                        };
                        crate::ledger::append(&entry.took(started.elapsed()));
                    }
                }
                Some(Kind::List { first }) => {
                    if line.tools.clash {
                        let why = Gone { message: notice::clash(&session.command), stderr: None };
                        replaced = Some(session::error_line(&id, &why));
                    } else if let (true, Some(close)) = (*first, line.tools.close) {
                        let mut with = if line.tools.items > 0 { b",".to_vec() } else { Vec::new() };
                        with.extend_from_slice(&session.page_tool);
                        edits.push(Edit { start: close, end: close, with });
                    }
                }
                // Cut on the guess of what it answered, which was sure.
                _ if line.dropped => {
                    let profile = line.cuts.first().map_or(0, |c| c.profile);
                    edits = line.tool_edits(profile);
                }
                _ => {}
            }
            // A call answered but not counted (an error, no text).
            session.answered(&id);
            match replaced {
                Some(reply) => session.out.line(|w| w.write_all(&reply))?,
                None => session.out.line(|w| line.spill.emit(&edits, b"\n", w))?,
            }
            if line.tools.clash && matches!(kind, Some(Kind::List { .. })) {
                session.fail(&Gone { message: notice::clash(&session.command), stderr: None });
            }
            if line.saved {
                session.saved.evict();
            }
        }
        line.reset();
        self.walker.reset();
        Ok(())
    }
}

/// The pieces of a line streamed to the client, as a writer.
struct Parts<'a>(&'a super::out::Out);

impl std::io::Write for Parts<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.part(buf, false)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::wrap::caps::Caps;
    use crate::mcp::wrap::out::{Out, Shared};
    use crate::mcp::wrap::pending::Kind;

    #[test]
    fn a_text_past_its_cap_is_not_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().canonicalize().unwrap();
        let caps = Caps::load(None, "tool", &path).unwrap();
        let pager =
            crate::mcp::tools::Tools::new(crate::mcp::paths::Roots::new(&path, path.clone(), path.clone()))
                .unwrap();
        let out = Shared::default();
        let session =
            Arc::new(Session::new(caps, path, 1 << 30, pager, Out::new(Box::new(out.clone())), "s".into()));
        for id_first in [true, false] {
            session.pending().insert(b"1", Kind::Tool(Some(0)));
            let mut replies = Replies::new(Arc::clone(&session));
            let start = if id_first {
                r#"{"id":1,"result":{"content":[{"type":"text","text":""#
            } else {
                r#"{"result":{"content":[{"type":"text","text":""#
            };
            replies.feed(start.as_bytes()).unwrap();
            let piece = "line of text\\n".repeat(5000);
            let mut most = 0;
            for _ in 0..400 {
                replies.feed(piece.as_bytes()).unwrap();
                most = most.max(replies.line.spill.len());
            }
            // 28 MB of text: what is kept is the line's start, and the
            // raw bytes of the text held before it streams.
            assert!(most < 2 * HELD_TEXT as u64, "{most} bytes kept");
            let end = if id_first { "\"}]}}\n" } else { "\"}]},\"id\":1}\n" };
            replies.feed(end.as_bytes()).unwrap();
            let got = String::from_utf8(out.take()).unwrap();
            assert!(got.contains("(truncated, showing first 8000 chars; full output: "), "{}", &got[..200]);
            assert!(got.len() < 10_000);
        }
    }
}
