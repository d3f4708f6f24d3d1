//! `--json`: one object in place of text, for harnesses that parse.
//!
//! The kept output streams into the object's first field as it comes, so
//! `--json` holds no more of it in memory than plain output does; the
//! other fields follow once the input is read. Once the options are found
//! valid, the object is always completed: an error that stops the run
//! ends it with the `error` field set, so a harness that parses stdout
//! never meets half an object.

use std::io::{self, Write};

use capout_core::Options;
use capout_core::internals::incomplete_suffix;

use crate::facts::Facts;
use crate::run::{Error, Ran};

/// What the object starts with: the `output` field, up to its text.
const START: &[u8] = b"{\"output\":\"";

/// The object, written as the run goes: the kept output goes out escaped
/// into its `output` string, with the start of a character split between
/// two writes held back. The object is started by the first write, so
/// that a run that fails before it has written nothing that cannot be
/// completed.
pub struct Object<'a> {
    out: &'a mut dyn Write,
    started: bool,
    /// The start of a character that the last write split (at most three
    /// bytes, the valid beginning of a character).
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
        write_escaped(self.out, &self.held)?;
        self.held.clear();
        self.out.flush()
    }
}

impl Write for Object<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.start()?;
        let mut rest = bytes;
        // The character the last write split, completed by the first
        // bytes of this one, or found broken: a byte that cannot continue
        // it starts afresh, and what was held is one U+FFFD, as
        // `String::from_utf8_lossy` of the two writes at once would have it.
        while !self.held.is_empty() {
            let Some((&next, after)) = rest.split_first() else { return Ok(bytes.len()) };
            self.held.push(next);
            if incomplete_suffix(&self.held) == self.held.len() {
                rest = after;
                continue;
            }
            if std::str::from_utf8(&self.held).is_ok() {
                rest = after;
            } else {
                self.held.pop();
            }
            write_escaped(self.out, &self.held)?;
            self.held.clear();
        }
        let whole = rest.len() - incomplete_suffix(rest);
        write_escaped(self.out, &rest[..whole])?;
        self.held.extend_from_slice(&rest[whole..]);
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

/// `bytes` escaped for the inside of a JSON string, as `serde_json` escapes
/// a string, written to `out`; invalid UTF-8 is U+FFFD, as
/// `String::from_utf8_lossy` has it.
fn write_escaped(out: &mut dyn Write, bytes: &[u8]) -> io::Result<()> {
    for chunk in bytes.utf8_chunks() {
        write_escaped_str(out, chunk.valid())?;
        if !chunk.invalid().is_empty() {
            out.write_all("\u{fffd}".as_bytes())?;
        }
    }
    Ok(())
}

/// [`write_escaped`] of a `str`: the runs that need no escape go out as
/// they are.
fn write_escaped_str(out: &mut dyn Write, text: &str) -> io::Result<()> {
    let bytes = text.as_bytes();
    let mut start = 0;
    for (i, &byte) in bytes.iter().enumerate() {
        let escape = ESCAPE[usize::from(byte)];
        if escape == 0 {
            continue;
        }
        out.write_all(&bytes[start..i])?;
        if escape == b'u' {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.write_all(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(byte >> 4)],
                HEX[usize::from(byte & 0xf)],
            ])?;
        } else {
            out.write_all(&[b'\\', escape])?;
        }
        start = i + 1;
    }
    out.write_all(&bytes[start..])
}

/// How each byte is written inside a JSON string: 0 as it is, `u` as
/// `\u00XX`, any other as a backslash and itself; `serde_json`'s choice
/// (the short escapes where JSON has one).
static ESCAPE: [u8; 256] = {
    let mut table = [0; 256];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = b'u';
        byte += 1;
    }
    table[0x08] = b'b';
    table[0x09] = b't';
    table[0x0a] = b'n';
    table[0x0c] = b'f';
    table[0x0d] = b'r';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// `bytes` escaped by [`write_escaped`].
    fn escape(bytes: &[u8]) -> String {
        let mut out = Vec::new();
        write_escaped(&mut out, bytes).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// What `serde_json` makes of the text of `bytes`, without its quotes.
    fn serde_escape(bytes: &[u8]) -> String {
        let quoted = serde_json::to_string(&String::from_utf8_lossy(bytes)).unwrap();
        quoted[1..quoted.len() - 1].to_owned()
    }

    #[test]
    fn escapes_what_json_strings_cannot_hold() {
        assert_eq!(escape("a\"b\\c\n\t\u{1}\u{e9}".as_bytes()), "a\\\"b\\\\c\\n\\t\\u0001\u{e9}");
    }

    #[test]
    fn every_ascii_character_is_escaped_as_serde_json_escapes_it() {
        for byte in 0..0x80u8 {
            assert_eq!(escape(&[byte]), serde_escape(&[byte]), "{byte:#04x}");
        }
    }

    /// The `output` string that an object writes for `pieces`, one write
    /// each, up to its end.
    fn output_of(pieces: &[&[u8]]) -> String {
        let mut out = Vec::new();
        let mut object = Object::new(&mut out);
        for piece in pieces {
            object.write_all(piece).unwrap();
        }
        object.finish_output().unwrap();
        String::from_utf8(out[START.len()..].to_vec()).unwrap()
    }

    #[test]
    fn a_character_split_between_writes_is_written_whole() {
        assert_eq!(output_of(&[b"a\xf0", b"\x9f", b"\xa6\x80b"]), "a\u{1f980}b");
        assert_eq!(output_of(&[b"\xe2\x82", b"\xac"]), "\u{20ac}");
    }

    #[test]
    fn a_split_character_that_the_next_write_breaks_is_one_replacement_character() {
        assert_eq!(output_of(&[b"\xe2\x82", b"x"]), "\u{fffd}x");
        assert_eq!(output_of(&[b"\xe2", b"\xe2\x82\xac"]), "\u{fffd}\u{20ac}");
        assert_eq!(output_of(&[b"\xf0\x9f", b"\x80\xff"]), "\u{fffd}\u{fffd}");
        assert_eq!(output_of(&[b"\xe0", b"\x80"]), "\u{fffd}\u{fffd}");
    }

    #[test]
    fn a_split_character_at_the_end_is_one_replacement_character() {
        assert_eq!(output_of(&[b"a\xf0\x9f", b"\xa6"]), "a\u{fffd}");
    }

    proptest! {
        /// However the output is split into writes, the `output` string
        /// is `serde_json`'s escape of its text, invalid UTF-8 as U+FFFD.
        #[test]
        fn output_split_anywhere_is_serde_jsons_escape_of_its_text(
            bytes in proptest::collection::vec(
                prop_oneof![any::<u8>(), Just(0xe2), Just(0x82), Just(0xac), Just(0xf0), Just(0x9f), Just(b'"')],
                0..40,
            ),
            cuts in proptest::collection::vec(0usize..40, 0..6),
        ) {
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(bytes.len())).collect();
            cuts.sort_unstable();
            let mut pieces = Vec::new();
            let mut from = 0;
            for cut in cuts.into_iter().chain([bytes.len()]) {
                pieces.push(&bytes[from..cut]);
                from = cut;
            }
            prop_assert_eq!(output_of(&pieces), serde_escape(&bytes));
        }
    }
}
