//! What is written where: the one owner of that decision.
//!
//! Kept output goes to `out`. A notice goes where [`NoticeTarget`] says:
//! after the output on `out`, on `err`, or nowhere (a caller that collects
//! them, as `--json` does, reads them from the summary). The line between
//! the two parts of a head+tail pair is a notice too, except where notices
//! share the output's stream: there it stays in place.

use std::io::{self, Write};

use crate::notice::{Facts, Kind, Renderer};

/// Where notices go (`--notice`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NoticeTarget {
    /// After the output, on the output's stream.
    #[default]
    Stdout,
    /// On the stream for diagnostics (standard error).
    Stderr,
    /// Nowhere: they are only in the [`Summary`](crate::Summary).
    None,
}

/// The routing of one stream of output, kept between writes.
#[derive(Debug)]
pub(crate) struct Route {
    target: NoticeTarget,
    /// The head+tail middle line goes in the output, in place.
    middle_in_output: bool,
    renderer: Renderer,
    /// The last byte of kept output, so that a notice written after it
    /// always starts on a line of its own.
    last: Option<u8>,
    unflushed: bool,
}

impl Route {
    /// Notices to `target`; `middle_in_output` keeps the head+tail middle
    /// line in the output whatever the target.
    pub(crate) fn new(target: NoticeTarget, middle_in_output: bool, renderer: Renderer) -> Self {
        let middle_in_output = middle_in_output || target == NoticeTarget::Stdout;
        Route { target, middle_in_output, renderer, last: None, unflushed: false }
    }

    /// The notice of a cap, as this run words it.
    pub(crate) fn render(&self, kind: Kind, facts: &Facts) -> String {
        self.renderer.render(kind, facts)
    }

    /// What the cut of JSON did, for the placeholders of its notice.
    pub(crate) fn set_json(&mut self, json: Option<crate::JsonCut>) {
        self.renderer.json = json;
    }

    /// Stops naming the saved file in notices: it is not the whole input.
    pub(crate) fn forget_saved(&mut self) {
        self.renderer.saved = None;
    }

    /// The route bound to the two streams for one write.
    pub(crate) fn to<'a>(&'a mut self, out: &'a mut dyn Write, err: &'a mut dyn Write) -> Output<'a> {
        Output { route: self, out, err }
    }
}

/// The two streams capout writes, for the length of one call: kept
/// output, and notices beside it.
pub struct Output<'a> {
    route: &'a mut Route,
    out: &'a mut dyn Write,
    err: &'a mut dyn Write,
}

impl Output<'_> {
    /// Writes kept output.
    pub fn data(&mut self, bytes: &[u8]) -> io::Result<()> {
        let Some(&last) = bytes.last() else { return Ok(()) };
        self.out.write_all(bytes)?;
        self.route.last = Some(last);
        self.route.unflushed = true;
        Ok(())
    }

    /// Writes a notice line after the output.
    pub fn notice(&mut self, line: &[u8]) -> io::Result<()> {
        match self.route.target {
            NoticeTarget::Stdout => self.line_in_output(line),
            NoticeTarget::Stderr => {
                self.err.write_all(line)?;
                self.err.write_all(b"\n")
            }
            NoticeTarget::None => Ok(()),
        }
    }

    /// Writes the line that stands between the two parts of a head+tail
    /// pair.
    pub fn middle(&mut self, facts: &Facts) -> io::Result<()> {
        let line = self.route.render(Kind::Middle, facts);
        if self.route.middle_in_output {
            self.line_in_output(line.as_bytes())
        } else {
            self.notice(line.as_bytes())
        }
    }

    fn line_in_output(&mut self, line: &[u8]) -> io::Result<()> {
        if self.route.last.is_some_and(|b| b != b'\n') {
            self.data(b"\n")?;
        }
        self.data(line)?;
        self.data(b"\n")
    }

    /// Flushes the output if anything was written since the last flush,
    /// so that a head cap's lines show as they arrive.
    pub fn flush(&mut self) -> io::Result<()> {
        if std::mem::take(&mut self.route.unflushed) {
            self.out.flush()?;
        }
        Ok(())
    }

    /// Flushes both streams.
    pub fn finish(&mut self) -> io::Result<()> {
        self.out.flush()?;
        self.err.flush()
    }
}

impl Write for Output<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.data(buf)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Output::flush(self)
    }
}
