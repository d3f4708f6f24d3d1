//! Where kept output and notices go.

use std::io::{self, Write};

use crate::json;
use crate::notice::{Facts, Kind, Renderer};
use crate::utf8;

/// Where notices go (`--notice`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NoticeTarget {
    /// After the output, on stdout.
    #[default]
    Stdout,
    /// On stderr.
    Stderr,
    /// Nowhere.
    None,
}

enum Sink<'a> {
    /// Kept output goes straight out; notices where the target says.
    Stream(&'a mut dyn Write, NoticeTarget),
    /// Kept output goes out escaped into the `output` string of `--json`,
    /// with the start of a character split between two writes held back;
    /// notices are collected for the object's `notice` field. The object
    /// is started by the first write, so that a run that fails before it
    /// has written nothing that cannot be completed.
    Json { out: &'a mut dyn Write, started: bool, held: Vec<u8>, notices: Vec<Vec<u8>> },
}

/// The two streams capout writes: kept output, and notices beside it.
///
/// It remembers the last byte of kept output, so that a notice printed on
/// the same stream always starts on a line of its own.
pub struct Output<'a> {
    sink: Sink<'a>,
    err: &'a mut dyn Write,
    renderer: Renderer,
    last: Option<u8>,
    unflushed: bool,
}

impl<'a> Output<'a> {
    /// Output to `out`, notices to `target` (`err` for stderr).
    pub fn new(
        out: &'a mut dyn Write,
        err: &'a mut dyn Write,
        target: NoticeTarget,
        renderer: Renderer,
    ) -> Self {
        Output { sink: Sink::Stream(out, target), err, renderer, last: None, unflushed: false }
    }

    /// Output into a `--json` object on `out`; the notices are kept for
    /// [`Output::into_json`]. A middle line is part of the output.
    pub fn json(out: &'a mut dyn Write, err: &'a mut dyn Write, renderer: Renderer) -> Self {
        let sink = Sink::Json { out, started: false, held: Vec::new(), notices: Vec::new() };
        Output { sink, err, renderer, last: None, unflushed: false }
    }

    /// The notice of a cap, as this run words it.
    pub fn render(&self, kind: Kind, facts: &Facts) -> String {
        self.renderer.render(kind, facts)
    }

    /// Stops naming the saved file in notices: it is not the whole input.
    pub fn forget_saved(&mut self) {
        self.renderer.saved = None;
    }

    /// Writes kept output.
    pub fn data(&mut self, bytes: &[u8]) -> io::Result<()> {
        let Some(&last) = bytes.last() else { return Ok(()) };
        match &mut self.sink {
            Sink::Stream(out, _) => out.write_all(bytes)?,
            Sink::Json { out, started, held, .. } => {
                start(out, started)?;
                held.extend_from_slice(bytes);
                let whole = held.len() - utf8::incomplete_suffix(held);
                out.write_all(json::escape(&String::from_utf8_lossy(&held[..whole])).as_bytes())?;
                held.drain(..whole);
            }
        }
        self.last = Some(last);
        self.unflushed = true;
        Ok(())
    }

    /// Writes a notice line after the output.
    pub fn notice(&mut self, line: &[u8]) -> io::Result<()> {
        match &mut self.sink {
            Sink::Json { notices, .. } => {
                notices.push(line.to_vec());
                Ok(())
            }
            Sink::Stream(_, NoticeTarget::Stdout) => self.line_on_stdout(line),
            Sink::Stream(_, NoticeTarget::Stderr) => {
                self.err.write_all(line)?;
                self.err.write_all(b"\n")
            }
            Sink::Stream(_, NoticeTarget::None) => Ok(()),
        }
    }

    /// Writes the line that stands between the two parts of a head+tail
    /// pair: a notice, except that collected output keeps it in place.
    pub fn middle(&mut self, facts: &Facts) -> io::Result<()> {
        let line = self.render(Kind::Middle, facts);
        match self.sink {
            Sink::Json { .. } => self.line_on_stdout(line.as_bytes()),
            Sink::Stream(..) => self.notice(line.as_bytes()),
        }
    }

    fn line_on_stdout(&mut self, line: &[u8]) -> io::Result<()> {
        if self.last.is_some_and(|b| b != b'\n') {
            self.data(b"\n")?;
        }
        self.data(line)?;
        self.data(b"\n")
    }

    /// The stream for progress and errors.
    pub fn err(&mut self) -> &mut dyn Write {
        self.err
    }

    /// Flushes stdout if anything was written since the last flush, so
    /// that a head cap's lines show as they arrive.
    pub fn flush(&mut self) -> io::Result<()> {
        if std::mem::take(&mut self.unflushed) {
            match &mut self.sink {
                Sink::Stream(out, _) | Sink::Json { out, .. } => out.flush()?,
            }
        }
        Ok(())
    }

    /// Flushes both streams; with `--json`, the end of `output` too.
    pub fn finish(&mut self) -> io::Result<()> {
        match &mut self.sink {
            Sink::Stream(out, _) => out.flush()?,
            Sink::Json { out, started, held, .. } => {
                start(out, started)?;
                // A character cut off at the very end is one U+FFFD.
                out.write_all(json::escape(&String::from_utf8_lossy(held)).as_bytes())?;
                held.clear();
                out.flush()?;
            }
        }
        self.err.flush()
    }

    /// The notices collected for `--json`, and the stream to end the
    /// object on.
    pub fn into_json(self) -> Option<(&'a mut dyn Write, Vec<Vec<u8>>)> {
        match self.sink {
            Sink::Json { out, notices, .. } => Some((out, notices)),
            Sink::Stream(..) => None,
        }
    }
}

/// Starts the `--json` object, unless it is `started`.
fn start(out: &mut dyn Write, started: &mut bool) -> io::Result<()> {
    if !*started {
        out.write_all(json::START)?;
        *started = true;
    }
    Ok(())
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
