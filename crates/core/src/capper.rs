//! [`Capper`]: the one engine. It is fed the stream in chunks of any size,
//! split anywhere, and writes what its cap keeps as it goes.

use std::io::{self, Read, Write};

use crate::caps::{
    Cap, HeadLines, HeadTailChars, HeadTailLines, HeadTailTokens, HeadTokens, HeadUnits, LineShaper, Matches,
    Outcome, TailLines, TailTokens, TailUnits, window_bytes,
};
use crate::json::JsonCap;
use crate::notice::{self, Kind, Notice, Renderer};
use crate::output::Route;
use crate::render::Screen;
use crate::save::Saver;
use crate::search::matcher::Matcher;
use crate::search::rescue::{Head, Rescuer, Tail};
use crate::text::buf::PageBuf;
use crate::text::count::Totals;
use crate::text::utf8;
use crate::transform::{LineCap, Transforms};
use crate::{CapSpec, DEFAULT_MAX_LINE, Error, Options, Summary};

/// Caps a stream that arrives in chunks: the push side of capout.
///
/// Feed it with [`Capper::push`] as bytes arrive, in chunks of any size
/// split anywhere (a character split between two chunks is held back
/// until it is whole), and end it with [`Capper::finish`], which writes
/// what the cap held back and the notice, and returns the [`Summary`].
/// Memory is bounded by the cap, whatever the length of the stream.
///
/// ```
/// use capout_core::{CapSpec, Capper, Options};
///
/// let mut options = Options::default();
/// options.cap = CapSpec::HeadLines { limit: 2, offset: 0 };
/// let mut capper = Capper::new(options)?;
/// let mut out = Vec::new();
/// for chunk in [&b"one\ntw"[..], b"o\nthree\nfour\n"] {
///     capper.push(chunk, &mut out)?;
/// }
/// let summary = capper.finish(&mut out)?;
/// assert_eq!(
///     String::from_utf8(out).unwrap(),
///     "one\ntwo\n... (truncated, showing lines 1-2 of 4, next offset 2)\n"
/// );
/// assert!(summary.truncated);
/// assert_eq!(summary.totals.lines(), Some(4));
/// assert_eq!(summary.next_offset, Some(2));
/// # Ok::<(), capout_core::Error>(())
/// ```
pub struct Capper {
    spec: CapSpec,
    unit: crate::Unit,
    /// `--render`: before everything else, in place of the transforms.
    render: Option<Render>,
    /// `--strip-ansi`, `--collapse-cr`: before everything else.
    transforms: Transforms,
    /// The start of a character split by the end of the last chunk
    /// (without transforms).
    held: Vec<u8>,
    /// Transformed bytes not yet fed (with transforms): the start of a
    /// character held back. Page-aligned, as the read buffer is, so that
    /// text the transforms pass through is copied at full speed.
    transformed: PageBuf,
    core: Core,
    /// `--binary hide`: whether the stream is binary, once its start tells.
    sniff: Sniff,
    /// Whether reading stopped at the cap (`--stop-at-cap`).
    stopped: bool,
    /// What [`Capper::pull`] reads into: allocated at its first call.
    read_buf: PageBuf,
    /// [`Options::read_size`].
    read_size: usize,
    /// [`Options::stop_at_cap`].
    stop_at_cap: bool,
}

/// Whether the stream is binary, for `--binary hide`: the start of the
/// stream is held back until [`notice::BINARY_SNIFF`] bytes or its end
/// show it, so that the answer never depends on how reads split it.
enum Sniff {
    /// Binary input is shown as it is (the default).
    Off,
    /// The start of the stream, not yet decided.
    Holding(Vec<u8>),
    /// Text: it goes through as with `Off`.
    Text,
    /// Binary: its bytes are counted, not shown, and one line says so at
    /// the end.
    Binary(u64),
}

/// What each piece of the stream, begun and ended on a character
/// boundary, goes through.
struct Core {
    /// `--save`: the stream as the notices count it, after the transforms
    /// and before any cap, so that paging the file gives the lines the
    /// notices number.
    saver: Option<Saver>,
    cap: Box<dyn Cap>,
    /// `--max-line-chars` before a character cap, after `--keep`.
    line_cap: Option<LineCap>,
    capped: Vec<u8>,
    rescuer: Option<Rescuer>,
    totals: Totals,
    route: Route,
}

/// With `--max-line-chars` before a character cap, a piece goes through
/// the line cap in slices of at most this many bytes: a cut line grows by
/// its marker (`ab x` cut to 3 characters takes seven times its bytes), so
/// what the line cap writes at once is bounded by a slice, not by a read.
const LINE_CAP_SLICE: usize = 16 * 1024;

impl Core {
    fn piece(
        &mut self,
        mut piece: &[u8],
        last: bool,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> io::Result<()> {
        if self.line_cap.is_some() {
            while piece.len() > LINE_CAP_SLICE {
                // A slice ends on a character boundary, as a piece does.
                let end = LINE_CAP_SLICE - utf8::incomplete_suffix(&piece[..LINE_CAP_SLICE]);
                self.slice(&piece[..end], false, out, err)?;
                piece = &piece[end..];
            }
        }
        self.slice(piece, last, out, err)
    }

    fn slice(
        &mut self,
        piece: &[u8],
        last: bool,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> io::Result<()> {
        if let Some(saver) = &mut self.saver {
            saver.write(piece);
        }
        let capped: &[u8] = match &mut self.line_cap {
            Some(line_cap) => {
                self.capped.clear();
                line_cap.apply(piece, &mut self.capped);
                if last {
                    line_cap.finish(&mut self.capped);
                }
                &self.capped
            }
            None => piece,
        };
        self.totals.add(capped);
        if let Some(rescuer) = &mut self.rescuer {
            rescuer.feed(piece, capped, &self.totals);
        }
        let mut output = self.route.to(out, err);
        self.cap.feed(capped, &self.totals, &mut output)?;
        output.flush()
    }
}

/// `--render`: the stream through a terminal [`Screen`]; its finished
/// rows go on to the [`Core`] in batches, so memory is the window and one
/// batch, whatever rows a chunk of input makes.
struct Render {
    /// `None` once finished.
    screen: Option<Screen>,
    /// Finished rows not yet fed: whole rows, each ending in `\n`.
    rows: Vec<u8>,
}

impl Render {
    /// Rows are fed on once this many bytes of them wait.
    const BATCH: usize = 64 * 1024;

    fn new((width, height): (u16, u16)) -> Self {
        Render { screen: Some(Screen::new(width.into(), height.into())), rows: Vec::new() }
    }

    fn feed(
        &mut self,
        chunk: &[u8],
        core: &mut Core,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> io::Result<()> {
        let Some(screen) = &mut self.screen else { return Ok(()) };
        batched(&mut self.rows, core, out, err, |mut emit| screen.feed(chunk, &mut emit))?;
        // What this chunk finished goes out now: a head cap shows it as
        // it comes.
        self.flush(core, out, err)
    }

    /// Feeds on the rows still on the screen at the end of the stream.
    fn finish(&mut self, core: &mut Core, out: &mut dyn Write, err: &mut dyn Write) -> io::Result<()> {
        if let Some(screen) = self.screen.take() {
            batched(&mut self.rows, core, out, err, |mut emit| screen.finish(&mut emit))?;
        }
        self.flush(core, out, err)
    }

    fn flush(&mut self, core: &mut Core, out: &mut dyn Write, err: &mut dyn Write) -> io::Result<()> {
        if self.rows.is_empty() {
            return Ok(());
        }
        let fed = core.piece(&self.rows, false, out, err);
        self.rows.clear();
        fed
    }
}

/// Gathers the rows that `rows_of` hands out into `rows`, and feeds them
/// on to `core` whenever a batch is full.
fn batched(
    rows: &mut Vec<u8>,
    core: &mut Core,
    out: &mut dyn Write,
    err: &mut dyn Write,
    rows_of: impl FnOnce(&mut dyn FnMut(&[u8])),
) -> io::Result<()> {
    let mut fed = Ok(());
    rows_of(&mut |row: &[u8]| {
        rows.extend_from_slice(row);
        if rows.len() >= Render::BATCH && fed.is_ok() {
            fed = core.piece(rows, false, out, err);
            rows.clear();
        }
    });
    fed
}

impl Capper {
    /// A capper as `options` say. A pattern that is not valid is an
    /// error, and so is a file to save the stream to that cannot be
    /// made.
    pub fn new(options: Options) -> Result<Capper, Error> {
        // The totals of lines and characters, not the tokens of a token
        // cap: those are `new_counting_all`'s.
        let options = Options { json: false, count_totals: true, ..options };
        let all = options.reads_totals();
        Capper::with_need(&options, all)
    }

    /// [`Capper::new`], counting every total of the stream (bytes,
    /// characters, lines, and the tokens of a head or tail token cap)
    /// whatever the cap needs, as `--json` does: for a harness that
    /// reports every fact of the [`Summary`], `omitted` among them.
    pub fn new_counting_all(options: Options) -> Result<Capper, Error> {
        Capper::with_need(&Options { json: false, count_totals: true, ..options }, true)
    }

    /// A capper exactly as `options` say, [`Options::json`] and
    /// [`Options::count_totals`] included: only the totals that something
    /// reads are counted, and with `json` no notice is written (the
    /// caller writes them from the [`Summary`]). What [`run`](crate::run)
    /// and the `capout` command use; errors as with [`Capper::new`].
    pub fn with_options(options: &Options) -> Result<Capper, Error> {
        Capper::with_need(options, options.reads_totals() || options.count_totals)
    }

    /// [`Capper::with_options`]; `all` counts every total.
    fn with_need(config: &Options, all: bool) -> Result<Capper, Error> {
        // An invalid pattern is a usage error: no file is made.
        let matcher = config
            .pattern
            .as_ref()
            .map(|p| p.compile_with_case("--pattern", config.ignore_case))
            .transpose()
            .map_err(Error::from)?;
        let keep =
            config.keep.as_ref().map(|k| k.compile(config.ignore_case)).transpose().map_err(Error::from)?;
        let saver = config.save.as_ref().map(Saver::create).transpose().map_err(Error::Save)?;
        let renderer = Renderer::new(config.template.clone(), saver.as_ref().map(Saver::path));
        // With --json, the notices are fields of the object, and the middle
        // line of a head+tail pair stays in the output.
        let target = if config.json { crate::NoticeTarget::None } else { config.notice };
        let route = Route::new(target, config.json, renderer);
        let core = Core {
            saver,
            cap: with_json(config, build_cap(config, matcher, all)),
            line_cap: char_line_cap(config).map(|w| LineCap::new(w, config.unit)),
            capped: Vec::new(),
            rescuer: keep.and_then(|matcher| build_rescuer(config, matcher)),
            totals: Totals::new(if all { crate::text::count::Need::ALL } else { config.need() }),
            route,
        };
        Ok(Capper {
            spec: config.cap,
            unit: config.unit,
            render: config.render.map(Render::new),
            transforms: Transforms::new(config.strip_ansi, config.collapse_cr, config.limits.collapse_cr),
            held: Vec::new(),
            // Grown as parts come (see `feed`), to a part and a character
            // held back: a short output, as most commands print, never
            // zeroes (and faults in) the pages of a whole part.
            transformed: PageBuf::default(),
            core,
            sniff: if config.hide_binary { Sniff::Holding(Vec::new()) } else { Sniff::Off },
            stopped: false,
            read_buf: PageBuf::default(),
            read_size: config.read_size.max(1),
            stop_at_cap: config.stop_at_cap,
        })
    }

    /// Whether the cap has kept all it will keep and was fed input past
    /// it: a head cap (`--head-lines`, `--head-chars`, `--max-matches`)
    /// that nothing more can change but the totals. The caller may then
    /// [`Capper::stop`] instead of reading on.
    pub fn past_cap(&self) -> bool {
        self.core.cap.past_cap()
    }

    /// Says that the caller stopped reading at the cap, when
    /// [`Capper::past_cap`] said so: the notice then says that the rest
    /// was not read, with no total.
    pub fn stop(&mut self) {
        self.stopped = self.past_cap();
    }

    /// Whether [`Capper::stop`] stopped the stream at the cap.
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// Takes the next chunk of the stream, and writes to `out` what the
    /// cap lets through of it now (a head cap writes as it goes; a tail
    /// cap holds back until [`Capper::finish`]). `out` is flushed when
    /// something was written to it. Notices that [`Options::notice`]
    /// sends to [`NoticeTarget::Stderr`](crate::NoticeTarget::Stderr) are
    /// written nowhere (they are in the [`Summary`]): the library touches
    /// no stream of the process. [`Capper::push_with`] writes them to a
    /// writer of the caller's.
    pub fn push(&mut self, chunk: &[u8], out: &mut impl Write) -> Result<(), Error> {
        self.push_with(chunk, out, &mut io::sink())
    }

    /// Totals of the stream so far. Only the totals that something reads
    /// are counted: the others read as `None`.
    pub fn totals(&self) -> &Totals {
        &self.core.totals
    }

    /// Ends the stream: writes what the cap held back to `out`, then the
    /// notice where [`Options::notice`] says, and says what was done.
    /// Notices for [`NoticeTarget::Stderr`](crate::NoticeTarget::Stderr)
    /// are left to [`Capper::finish_with`], as with [`Capper::push`].
    pub fn finish(self, out: &mut impl Write) -> Result<Summary, Error> {
        self.finish_with(out, &mut io::sink())
    }

    /// [`Capper::finish`], with the notices that go to
    /// [`NoticeTarget::Stderr`](crate::NoticeTarget::Stderr) written to
    /// `err`.
    pub fn finish_with(self, out: &mut dyn Write, err: &mut dyn Write) -> Result<Summary, Error> {
        let mut closed = self.close(out, err)?;
        if let Some(notice) = closed.summary.notice.take() {
            for line in notice.lines() {
                closed.notify(line, out, err)?;
            }
            closed.summary.notice = Some(notice);
        }
        closed.finish(out, err)
    }

    /// Reads once from `input` (at most [`Options::read_size`] bytes,
    /// into a page-aligned buffer of the capper's, retried when a signal
    /// interrupts it) and pushes what it read, as [`Capper::push_with`]
    /// does. Says whether to read on: `false` at the end of the input, and
    /// with [`Options::stop_at_cap`] once the cap has all it keeps
    /// ([`Capper::past_cap`]; the capper is then [`Capper::stop`]ped).
    ///
    /// A read error is [`Error::Read`], with the reader's own
    /// [`io::Error`] in it: a reader may hand its caller an error of its
    /// own through it (`io::Error::other(..)`, found again with
    /// `io::Error::downcast`). Between two calls the caller may look at
    /// [`Capper::totals`], as the `capout` command's live count does.
    pub fn pull(
        &mut self,
        input: &mut impl Read,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> Result<bool, Error> {
        // Page-aligned: a read into a buffer that starts part way into a
        // page costs the kernel more, and the transforms copy from it
        // into buffers aligned alike.
        let mut buf = std::mem::take(&mut self.read_buf);
        if buf.len() == 0 {
            buf = PageBuf::zeroed(self.read_size);
        }
        let pulled = self.pull_into(&mut buf, input, out, err);
        self.read_buf = buf;
        pulled
    }

    fn pull_into(
        &mut self,
        buf: &mut PageBuf,
        input: &mut impl Read,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> Result<bool, Error> {
        let n = loop {
            match input.read(buf.as_mut_slice()) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                read => break read.map_err(Error::Read)?,
            }
        };
        if n == 0 {
            return Ok(false);
        }
        self.push_with(&buf.as_slice()[..n], out, err)?;
        if self.stop_at_cap && self.past_cap() {
            self.stop();
            return Ok(false);
        }
        Ok(true)
    }

    /// [`Capper::push`], with the notices that go to
    /// [`NoticeTarget::Stderr`](crate::NoticeTarget::Stderr) written to
    /// `err`.
    pub fn push_with(&mut self, chunk: &[u8], out: &mut dyn Write, err: &mut dyn Write) -> Result<(), Error> {
        if chunk.is_empty() {
            return Ok(());
        }
        match &mut self.sniff {
            Sniff::Off | Sniff::Text => self.feed(chunk, out, err).map_err(Error::Write),
            Sniff::Binary(bytes) => {
                *bytes += chunk.len() as u64;
                self.save_raw(chunk);
                Ok(())
            }
            Sniff::Holding(start) => {
                start.extend_from_slice(chunk);
                if start.len() >= notice::BINARY_SNIFF { self.decide(out, err) } else { Ok(()) }
            }
        }
    }

    /// Decides whether the start held back is binary ([`notice::is_binary`]).
    /// Text goes on as it came; binary is only counted (and saved, as it
    /// came).
    fn decide(&mut self, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), Error> {
        if !matches!(self.sniff, Sniff::Holding(_)) {
            return Ok(());
        }
        let Sniff::Holding(start) = std::mem::replace(&mut self.sniff, Sniff::Text) else { return Ok(()) };
        if notice::is_binary(&start) {
            self.sniff = Sniff::Binary(start.len() as u64);
            self.save_raw(&start);
            return Ok(());
        }
        self.feed(&start, out, err).map_err(Error::Write)
    }

    /// Saves bytes of a binary stream that the caps never see.
    fn save_raw(&mut self, bytes: &[u8]) {
        if let Some(saver) = &mut self.core.saver {
            saver.write(bytes);
        }
    }

    fn feed(&mut self, mut chunk: &[u8], out: &mut dyn Write, err: &mut dyn Write) -> io::Result<()> {
        if let Some(render) = &mut self.render {
            return render.feed(chunk, &mut self.core, out, err);
        }
        if self.transforms.any() {
            // A large read goes through in parts, so that the buffers the
            // transforms write into stay small whatever the read size.
            for part in chunk.chunks(crate::transform::PART) {
                let mut transformed = std::mem::take(&mut self.transformed);
                // A character held back, and the part.
                transformed.reserve_exact(part.len() + 4);
                self.transforms.apply(part, &mut transformed);
                let end = transformed.len() - utf8::incomplete_suffix(transformed.as_slice());
                let fed = self.core.piece(&transformed.as_slice()[..end], false, out, err);
                transformed.drain_front(end);
                self.transformed = transformed;
                fed?;
            }
            return Ok(());
        }
        if !self.held.is_empty() {
            // Complete the character held back with the start of this
            // chunk: it is a piece of its own.
            let have = self.held.len();
            let mut joined = [0; 7];
            let extra = chunk.len().min(3);
            joined[..have].copy_from_slice(&self.held);
            joined[have..have + extra].copy_from_slice(&chunk[..extra]);
            let len = utf8::char_len(&joined[..have + extra]);
            if len == have + extra && utf8::incomplete_suffix(&joined[..len]) == len {
                self.held.extend_from_slice(chunk);
                return Ok(());
            }
            self.held.clear();
            self.core.piece(&joined[..len], false, out, err)?;
            chunk = &chunk[len - have..];
        }
        let held = utf8::incomplete_suffix(chunk);
        let (piece, rest) = chunk.split_at(chunk.len() - held);
        self.held.extend_from_slice(rest);
        self.core.piece(piece, false, out, err)
    }

    /// Ends the stream and writes what the cap held back to `out`, but no
    /// notice: the [`Closed`] capper holds the [`Summary`], and writes
    /// the notice lines the caller gives it where [`Options::notice`]
    /// sends them, in the caller's order. That is how the `capout`
    /// command puts the notice of a timeout or of an interrupting signal
    /// between the cap's notice and the lines `--keep` rescued.
    /// [`Capper::finish_with`] is this with the summary's own notice.
    pub fn close(mut self, out: &mut dyn Write, err: &mut dyn Write) -> Result<Closed, Error> {
        let summary = self.end(out, err)?;
        Ok(Closed { capper: self, summary })
    }

    /// The end of the stream, for [`Capper::close`].
    fn end(&mut self, out: &mut dyn Write, err: &mut dyn Write) -> Result<Summary, Error> {
        self.decide(out, err)?;
        // A binary stream is saved whole, its `--save-dir` file kept as a
        // cut output's is, and the line that stands for it names the file.
        let mut binary_saved = None;
        let binary = matches!(self.sniff, Sniff::Binary(_));
        if let Sniff::Binary(bytes) = self.sniff {
            self.sniff = Sniff::Text;
            let saver = self.core.saver.take();
            let path = saver.as_ref().filter(|s| !s.failed()).map(|s| s.path().display().to_string());
            // The line stands for the stream: the caps see it, the save
            // file does not.
            let line = notice::binary(bytes, path.as_deref()) + "\n";
            self.feed(line.as_bytes(), out, err).map_err(Error::Write)?;
            binary_saved = saver.map(|saver| saver.finish(true));
        }
        let mut last = std::mem::take(&mut self.transformed);
        if let Some(render) = &mut self.render {
            render.finish(&mut self.core, out, err).map_err(Error::Write)?;
        } else if self.transforms.any() {
            self.transforms.finish(&mut last);
        } else {
            last.append(&mut self.held);
        }
        self.core.piece(last.as_slice(), true, out, err).map_err(Error::Write)?;
        let core = &mut self.core;
        if core.saver.as_ref().is_some_and(Saver::failed) {
            core.route.forget_saved();
        }
        let outcome = core.cap.finish(&core.totals, &mut core.route.to(out, err)).map_err(Error::Write)?;
        let cut = matches!(outcome, Outcome::Cut(..) | Outcome::Middle(_));
        // A binary stream was not shown, whatever the cap did with the
        // line that stands for it.
        let truncated = cut || binary;
        let shown = core.cap.shown(&core.totals);
        // The saved file is put in place (or given up) now that the stream
        // has ended, before a notice names it.
        let saved = binary_saved.or_else(|| core.saver.take().map(|s| s.finish(cut)));
        let (saved_to, save_error) = match saved {
            None => (None, None),
            Some(Ok(path)) => (path, None),
            Some(Err(e)) => {
                core.route.forget_saved();
                (None, Some(e))
            }
        };
        // An offset past the end shows no page and cuts nothing.
        // Stopped at the cap: the total is unknown, and the notice says so.
        let outcome = match outcome {
            Outcome::Cut(kind, facts) if self.stopped => Outcome::Cut(stopped(kind), facts),
            outcome => outcome,
        };
        let next = matches!(
            outcome,
            Outcome::Cut(
                Kind::HeadLines
                    | Kind::HeadLinesStopped
                    | Kind::Matches
                    | Kind::MatchesStopped
                    | Kind::MatchesPage
                    | Kind::JsonEndedLines,
                _
            )
        );
        let json = core.cap.json();
        core.route.set_json(json);
        let (line, facts) = match outcome {
            Outcome::Whole => (None, None),
            Outcome::Middle(facts) => (None, Some(facts)),
            Outcome::Nothing(line) => (Some(line.to_owned()), None),
            Outcome::Cut(kind @ (Kind::PastEnd | Kind::MatchesPastEnd), facts) => {
                (Some(core.route.render(kind, &facts)), None)
            }
            Outcome::Cut(kind, facts) | Outcome::Page(kind, facts) => {
                (Some(core.route.render(kind, &facts)), Some(facts))
            }
        };
        // A character cap's numbers speak of a total that may not have
        // been counted: then they are not told.
        let counted = match self.spec {
            CapSpec::TailChars(_) | CapSpec::HeadChars(_) | CapSpec::HeadTailChars(..) => {
                core.totals.of(self.unit).is_some()
            }
            _ => true,
        };
        let facts = facts.filter(|_| counted);
        let omitted = facts.as_ref().map(|f| f.omitted).filter(|_| !self.stopped);
        let rescued = match core.rescuer.take().filter(|_| cut) {
            Some(rescuer) => rescuer.finish(&core.totals, &core.cap.cut(&core.totals)),
            None => Vec::new(),
        };
        let notice = (line.is_some() || !rescued.is_empty()).then(|| Notice::new(line, rescued));
        Ok(Summary {
            truncated,
            cap: self.spec,
            totals: core.totals,
            matches: core.cap.matches(&core.totals),
            omitted,
            // A paging cap tells the page it showed, whole or not.
            first: shown.map(|s| s.0).or(facts.as_ref().map(|f| f.first)),
            last: shown.map(|s| s.1).or(facts.as_ref().map(|f| f.last)),
            next_offset: facts.as_ref().filter(|_| next).map(|f| f.next_offset),
            paged: shown.is_some(),
            total_tokens: core.cap.tokens(),
            notice,
            saved_to,
            save_error,
            json,
        })
    }
}

/// A [`Capper`] whose stream has ended ([`Capper::close`]): what the cap
/// held back is written, its [`Summary`] known, its notices not yet
/// written.
pub struct Closed {
    capper: Capper,
    summary: Summary,
}

impl Closed {
    /// What the capper did; its `notice` is the cap's own, for the caller
    /// to write with [`Closed::notify`].
    pub fn summary(&self) -> &Summary {
        &self.summary
    }

    /// Writes one notice line, without its line ending, where
    /// [`Options::notice`] sends notices: after the output on `out`, on
    /// `err`, or nowhere (with [`Options::json`] too).
    pub fn notify(&mut self, line: &[u8], out: &mut dyn Write, err: &mut dyn Write) -> Result<(), Error> {
        self.capper.core.route.to(out, err).notice(line).map_err(Error::Write)
    }

    /// Flushes `out` and `err`, and gives the summary.
    pub fn finish(self, out: &mut dyn Write, err: &mut dyn Write) -> Result<Summary, Error> {
        let Closed { mut capper, summary } = self;
        capper.core.route.to(out, err).finish().map_err(Error::Write)?;
        Ok(summary)
    }
}

/// A [`Write`] that caps what is written through it: a [`Capper`] in
/// front of a writer, for code that already writes.
///
/// ```
/// use std::io::Write;
/// use capout_core::{CapSpec, CapWriter, Options};
///
/// let mut options = Options::default();
/// options.cap = CapSpec::TailChars(5);
/// let mut writer = CapWriter::new(Vec::new(), options)?;
/// write!(writer, "hello, world")?;
/// let (out, summary) = writer.finish()?;
/// assert_eq!(out, b"world\n... (truncated, showing last 5 chars)\n");
/// assert_eq!(summary.omitted, Some(7)); // as `--json` reports it
/// assert_eq!(summary.totals.bytes(), 12);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct CapWriter<W: Write> {
    capper: Capper,
    inner: W,
}

impl<W: Write> CapWriter<W> {
    /// Caps what is written to `inner` as `options` say.
    pub fn new(inner: W, options: Options) -> Result<Self, Error> {
        Ok(CapWriter { capper: Capper::new(options)?, inner })
    }

    /// Ends the stream ([`Capper::finish`]) and gives the writer back.
    pub fn finish(mut self) -> Result<(W, Summary), Error> {
        let summary = self.capper.finish(&mut self.inner)?;
        Ok((self.inner, summary))
    }
}

impl<W: Write> Write for CapWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.capper.push(buf, &mut self.inner).map_err(Error::into_io)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// The cap of `config`; `all`: a token cap counts the tokens it cuts.
fn build_cap(config: &Options, matcher: Option<Matcher>, all: bool) -> Box<dyn Cap> {
    let shaper = || LineShaper::new(config.max_line(), config.unit, config.line_numbers);
    match config.cap {
        CapSpec::TailChars(n) => Box::new(TailUnits::new(n, config.unit)),
        CapSpec::HeadChars(n) => Box::new(HeadUnits::new(n, config.unit)),
        CapSpec::HeadLines { limit, offset } => {
            Box::new(HeadLines::new(limit, offset, shaper()).with_budget(config.budget))
        }
        CapSpec::TailLines(n) => Box::new(TailLines::new(n, shaper()).with_budget(config.budget)),
        CapSpec::MaxMatches(n) => Box::new(
            Matches::new(n, matcher, config.limits.pattern_line, shaper())
                .paged(config.match_offset, config.budget),
        ),
        CapSpec::HeadTailLines(h, t) => Box::new(HeadTailLines::new(
            HeadLines::new(h, 0, shaper()),
            TailLines::from_line(t, h.saturating_add(1), shaper()),
        )),
        CapSpec::HeadTailChars(h, t) => Box::new(HeadTailChars::new(h, t, config.unit)),
        CapSpec::TailTokens(n) => Box::new(TailTokens::new(n, config.tokenizer, all)),
        CapSpec::HeadTokens(n) => Box::new(HeadTokens::new(n, config.tokenizer, all)),
        CapSpec::HeadTailTokens(h, t) => Box::new(HeadTailTokens::new(h, t, config.tokenizer)),
    }
}

/// The notice of a head cap that stopped reading at its cap, in place of
/// its notice `kind`.
fn stopped(kind: Kind) -> Kind {
    match kind {
        Kind::HeadLines => Kind::HeadLinesStopped,
        Kind::HeadUnits => Kind::HeadUnitsStopped,
        Kind::Matches => Kind::MatchesStopped,
        kind => kind,
    }
}

/// `cap` with the cut of JSON in front of it, when `config` asks for it.
fn with_json(config: &Options, cap: Box<dyn Cap>) -> Box<dyn Cap> {
    match config.json_cut() {
        Some(settings) => {
            let lines = matches!(config.cap, CapSpec::HeadLines { .. });
            let limit = match config.cap.limit() {
                crate::Limit::One(n) | crate::Limit::Pair(n, _) => n,
            };
            Box::new(JsonCap::new(cap, settings, limit, lines))
        }
        None => cap,
    }
}

/// The width of `--max-line-chars` given with a character cap, which
/// applies before the cap counts (not before the cut of JSON, which
/// would no longer see JSON).
fn char_line_cap(config: &Options) -> Option<u64> {
    config.max_line().filter(|_| !config.cap.is_line_cap() && config.json_cut().is_none())
}

fn build_rescuer(config: &Options, matcher: Matcher) -> Option<Rescuer> {
    let keep = config.keep.as_ref()?;
    let tail_bytes = |n| config.unit.max_bytes(n).saturating_add(4);
    let token_head =
        |n| if config.tokenizer == crate::Tokenizer::Estimate { Head::Tokens(n) } else { Head::None };
    let (head, tail) = match config.cap {
        CapSpec::TailChars(n) => (Head::None, Tail::Bytes(tail_bytes(n))),
        CapSpec::HeadChars(n) => (Head::Units(n), Tail::None),
        CapSpec::HeadLines { limit, offset } => (Head::Lines(offset.saturating_add(limit)), Tail::None),
        CapSpec::TailLines(n) => (Head::None, Tail::Lines(n)),
        CapSpec::MaxMatches(_) => return None,
        CapSpec::HeadTailLines(h, t) => (Head::Lines(h), Tail::Lines(t)),
        CapSpec::HeadTailChars(h, t) => (Head::Units(h), Tail::Bytes(tail_bytes(t))),
        // The rescuer finds where a head of estimated tokens ends as the
        // cap does; an exact head is known only once it is cut, and the
        // cut part then decides which held lines are shown.
        CapSpec::TailTokens(n) => (Head::None, Tail::Bytes(window_bytes(n))),
        CapSpec::HeadTokens(n) => (token_head(n), Tail::None),
        CapSpec::HeadTailTokens(h, t) => (token_head(h), Tail::Bytes(window_bytes(t))),
    };
    let width = config.max_line().unwrap_or(DEFAULT_MAX_LINE);
    let rescuer = Rescuer::new(matcher, keep.pattern.clone(), keep.max, width, config.unit, head, tail);
    Some(rescuer.with_line_limit(config.limits.pattern_line))
}

#[cfg(test)]
mod tests {
    use super::{Capper, LINE_CAP_SLICE};
    use crate::{CapSpec, Options};

    /// A tail cap needs no totals of characters or lines, but its summary
    /// reports them: `new` counts them (and `omitted`, which follows from
    /// them), as `--json` does; `new_counting_all` also counts the tokens
    /// a token cap cut.
    #[test]
    fn new_counting_all_counts_what_the_cap_does_not_need() {
        let run = |options: Options, all: bool| {
            let mut capper =
                if all { Capper::new_counting_all(options) } else { Capper::new(options) }.expect("valid");
            let mut out = Vec::new();
            capper.push("a\u{e9}c\ndef\n".as_bytes(), &mut out).expect("push");
            capper.finish(&mut out).expect("finish")
        };
        let tail = Options::new(CapSpec::TailChars(3));
        let plain = run(tail.clone(), false);
        assert_eq!((plain.totals.chars(), plain.totals.lines(), plain.omitted), (Some(8), Some(2), Some(5)));
        let all = run(tail, true);
        assert_eq!((all.totals.bytes(), all.totals.chars(), all.totals.lines()), (9, Some(8), Some(2)));
        assert_eq!(all.omitted, Some(5));
        let tokens = run(Options::new(CapSpec::TailTokens(1)), true);
        assert!(tokens.truncated);
        assert!(tokens.total_tokens.is_some_and(|t| t > 1), "{:?}", tokens.total_tokens);
        assert!(tokens.omitted.is_some_and(|o| o > 0), "{:?}", tokens.omitted);
    }

    /// What `--max-line-chars` writes at once before a character cap is
    /// bounded by a slice, not by the piece pushed: a read of short lines
    /// that each grow to a marker several times their length.
    #[test]
    fn the_line_cap_writes_a_slice_at_a_time() {
        let options =
            Options { cap: CapSpec::TailChars(5000), max_line_chars: Some(3), ..Options::default() };
        let mut capper = Capper::new(options).expect("valid options");
        let mut out = Vec::new();
        capper.push(&b"ab x\n".repeat(100_000), &mut out).expect("pushed");
        // A cut line grows at most twelvefold (`ab` cut to 1), and a
        // vector at most doubles: the 500 KB pushed would take 3.6 MB.
        let held = capper.core.capped.capacity();
        assert!(held <= LINE_CAP_SLICE * 24, "{held} bytes held for a slice of {LINE_CAP_SLICE}");
        let summary = capper.finish(&mut out).expect("finished");
        assert!(summary.truncated);
        assert!(
            out.ends_with(b"ab  ... (line truncated to 3 chars)\n... (truncated, showing last 5000 chars)\n")
        );
    }
}
