//! `--json`: one object in place of text, for harnesses that parse.
//!
//! The kept output streams into the object's first field as it comes, so
//! `--json` holds no more of it in memory than plain output does; the
//! other fields follow once the input is read. Once the options are found
//! valid, the object is always completed: an error that stops the run
//! ends it with the `error` field set, so a harness that parses stdout
//! never meets half an object.

use std::io::{self, Write};

use serde_json::Value;

use capout_core::Options;
use capout_core::internals::incomplete_suffix;

use crate::facts::Facts;
use crate::run::{Error, Ran};

/// What the object starts with: the `output` field, up to its text.
const START: &[u8] = b"{\"output\":\"";

/// `text` escaped for the inside of a JSON string.
fn escape(text: &str) -> String {
    let quoted = Value::String(text.to_owned()).to_string();
    quoted[1..quoted.len() - 1].to_owned()
}

/// The object, written as the run goes: the kept output goes out escaped
/// into its `output` string, with the start of a character split between
/// two writes held back. The object is started by the first write, so
/// that a run that fails before it has written nothing that cannot be
/// completed.
pub struct Object<'a> {
    out: &'a mut dyn Write,
    started: bool,
    held: Vec<u8>,
}

impl<'a> Object<'a> {
    /// The object, not yet started, to be written to `out`.
    pub fn new(out: &'a mut dyn Write) -> Self {
        Object { out, started: false, held: Vec::new() }
    }

    fn start(&mut self) -> io::Result<()> {
        if !self.started {
            self.out.write_all(START)?;
            self.started = true;
        }
        Ok(())
    }

    /// Ends the object: with the facts of the run, or with the error that
    /// stopped it, which is returned too.
    pub fn end(
        mut self,
        config: &Options,
        ran: Result<Ran, Error>,
        err: &mut dyn Write,
    ) -> Result<Ran, Error> {
        let flushed = self.finish_output().and_then(|()| err.flush());
        let facts = match &ran {
            Ok(ran) => Facts::of(config, ran),
            Err(e) => Facts::of_error(config, i32::from(e.exit().code()), e.to_string()),
        };
        let written = flushed.and_then(|()| end_object(self.out, &facts));
        // The error that stopped the run comes first; writing the object
        // may well fail the same way after it.
        ran.and_then(|ran| written.map(|()| ran).map_err(|e| Error::Run(capout_core::Error::Write(e))))
    }

    /// The end of `output`: a character cut off at the very end is one
    /// U+FFFD.
    fn finish_output(&mut self) -> io::Result<()> {
        self.start()?;
        self.out.write_all(escape(&String::from_utf8_lossy(&self.held)).as_bytes())?;
        self.held.clear();
        self.out.flush()
    }
}

impl Write for Object<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.start()?;
        self.held.extend_from_slice(bytes);
        let whole = self.held.len() - incomplete_suffix(&self.held);
        self.out.write_all(escape(&String::from_utf8_lossy(&self.held[..whole])).as_bytes())?;
        self.held.drain(..whole);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// What ends the object: the end of the `output` string, then the facts,
/// their names sorted ([`Facts`] declares them so), and a newline.
fn end_object(out: &mut dyn Write, facts: &Facts) -> io::Result<()> {
    let object = serde_json::to_vec(facts).map_err(io::Error::other)?;
    // `{"budget":...}` goes on from the output string as `","budget":...}`.
    out.write_all(b"\",")?;
    out.write_all(&object[1..])?;
    out.write_all(b"\n")?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_what_json_strings_cannot_hold() {
        assert_eq!(escape("a\"b\\c\n\t\u{1}\u{e9}"), "a\\\"b\\\\c\\n\\t\\u0001\u{e9}");
    }
}
