//! Where kept output and notices go.

use std::io::{self, Write};

use crate::notice::{Facts, Kind, Renderer};

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

/// The two streams capout writes: kept output, and notices beside it.
///
/// It remembers the last byte of kept output, so that a notice printed on
/// the same stream always starts on a line of its own.
pub struct Output<'a> {
    out: &'a mut dyn Write,
    err: &'a mut dyn Write,
    target: NoticeTarget,
    renderer: Renderer,
    /// Collect notices instead of printing them (for `--json`).
    collect: Option<Vec<Vec<u8>>>,
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
        Output { out, err, target, renderer, collect: None, last: None, unflushed: false }
    }

    /// Output to `out`, notices kept in memory for [`Output::into_notices`]
    /// instead of being printed; a middle line is part of the output.
    pub fn collecting(out: &'a mut dyn Write, err: &'a mut dyn Write, renderer: Renderer) -> Self {
        Output { collect: Some(Vec::new()), ..Output::new(out, err, NoticeTarget::Stdout, renderer) }
    }

    /// The notice of a cap, as this run words it.
    pub fn render(&self, kind: Kind, facts: &Facts) -> String {
        self.renderer.render(kind, facts)
    }

    /// Writes kept output.
    pub fn data(&mut self, bytes: &[u8]) -> io::Result<()> {
        if let Some(&last) = bytes.last() {
            self.out.write_all(bytes)?;
            self.last = Some(last);
            self.unflushed = true;
        }
        Ok(())
    }

    /// Whether any kept output was written.
    pub fn wrote_data(&self) -> bool {
        self.last.is_some()
    }

    /// Writes a notice line after the output.
    pub fn notice(&mut self, line: &[u8]) -> io::Result<()> {
        if let Some(lines) = &mut self.collect {
            lines.push(line.to_vec());
            return Ok(());
        }
        match self.target {
            NoticeTarget::Stdout => self.line_on_stdout(line),
            NoticeTarget::Stderr => {
                self.err.write_all(line)?;
                self.err.write_all(b"\n")
            }
            NoticeTarget::None => Ok(()),
        }
    }

    /// Writes the line that stands between the two parts of a head+tail
    /// pair: a notice, except that collected output keeps it in place.
    pub fn middle(&mut self, facts: &Facts) -> io::Result<()> {
        let line = self.render(Kind::Middle, facts);
        if self.collect.is_some() {
            return self.line_on_stdout(line.as_bytes());
        }
        self.notice(line.as_bytes())
    }

    fn line_on_stdout(&mut self, line: &[u8]) -> io::Result<()> {
        if self.last.is_some_and(|b| b != b'\n') {
            self.data(b"\n")?;
        }
        self.data(line)?;
        self.data(b"\n")
    }

    /// Flushes stdout if anything was written since the last flush, so
    /// that a head cap's lines show as they arrive.
    pub fn flush(&mut self) -> io::Result<()> {
        if self.unflushed {
            self.unflushed = false;
            self.out.flush()?;
        }
        Ok(())
    }

    /// Flushes both streams.
    pub fn finish(&mut self) -> io::Result<()> {
        self.out.flush()?;
        self.err.flush()
    }

    /// The notices collected, for `--json`.
    pub fn into_notices(self) -> Vec<Vec<u8>> {
        self.collect.unwrap_or_default()
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
