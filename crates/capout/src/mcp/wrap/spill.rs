//! The raw bytes of the reply line being read, kept until it is known
//! what to send in its place: in memory up to [`SPILL_MEMORY`], in an
//! unnamed file of the session's folder past it, so that a line of any
//! length is held in bounded memory and given back byte for byte. What
//! is cut from it is never kept: a value known to be replaced is taken
//! back out ([`Spill::truncate`]) as soon as that is known.

use std::fs::File;
use std::io::{self, Write};
use std::os::unix::fs::FileExt;
use std::path::PathBuf;

/// The most bytes held in memory; the rest go to a file.
pub const SPILL_MEMORY: usize = 1 << 20;

/// A piece of the line given back in another's place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// The bytes of the spill replaced (empty for an insertion).
    pub start: u64,
    pub end: u64,
    /// What goes in their place.
    pub with: Vec<u8>,
}

/// The kept bytes of one line.
#[derive(Debug)]
pub struct Spill {
    memory: Vec<u8>,
    file: Option<File>,
    len: u64,
    /// Where the file is made.
    dir: PathBuf,
    /// The bound on memory (tests lower it).
    limit: usize,
    /// A write to the file failed: the line cannot be given back whole.
    pub failed: Option<io::Error>,
}

impl Spill {
    /// A spill whose file, if one is needed, is made in `dir`.
    pub fn new(dir: PathBuf) -> Spill {
        Spill::with_limit(dir, SPILL_MEMORY)
    }

    /// A spill that holds at most `limit` bytes in memory.
    pub fn with_limit(dir: PathBuf, limit: usize) -> Spill {
        Spill { memory: Vec::new(), file: None, len: 0, dir, limit, failed: None }
    }

    /// The bytes kept.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Keeps `bytes` after the others.
    pub fn write(&mut self, bytes: &[u8]) {
        if bytes.is_empty() || self.failed.is_some() {
            return;
        }
        if self.file.is_none() && self.memory.len() + bytes.len() <= self.limit {
            self.memory.extend_from_slice(bytes);
            self.len += bytes.len() as u64;
            return;
        }
        if let Err(e) = self.write_file(bytes) {
            self.failed = Some(e);
        }
    }

    fn write_file(&mut self, bytes: &[u8]) -> io::Result<()> {
        if self.file.is_none() {
            // Unnamed (O_TMPFILE where the system has it): gone with the
            // process, however it ends, and never seen in the folder.
            let file = tempfile::tempfile_in(&self.dir)?;
            file.write_all_at(&self.memory, 0)?;
            self.memory = Vec::new();
            self.file = Some(file);
        }
        if let Some(file) = &self.file {
            file.write_all_at(bytes, self.len)?;
        }
        self.len += bytes.len() as u64;
        Ok(())
    }

    /// Takes back the bytes from `to` on.
    pub fn truncate(&mut self, to: u64) {
        if to >= self.len {
            return;
        }
        self.len = to;
        match &self.file {
            Some(file) => {
                if let Err(e) = file.set_len(to) {
                    self.failed = Some(e);
                }
            }
            None => self.memory.truncate(to as usize),
        }
    }

    /// Writes the bytes `start..end` to `out`.
    pub fn copy(&self, start: u64, end: u64, out: &mut dyn Write) -> io::Result<()> {
        match &self.file {
            None => out.write_all(&self.memory[start as usize..end as usize]),
            Some(file) => {
                let mut buf = vec![0; 64 * 1024];
                let mut at = start;
                while at < end {
                    let n = ((end - at) as usize).min(buf.len());
                    file.read_exact_at(&mut buf[..n], at)?;
                    out.write_all(&buf[..n])?;
                    at += n as u64;
                }
                Ok(())
            }
        }
    }

    /// Writes the bytes kept with `edits` made (sorted, apart), then
    /// `tail`.
    pub fn emit(&self, edits: &[Edit], tail: &[u8], out: &mut dyn Write) -> io::Result<()> {
        let mut at = 0;
        for edit in edits {
            self.copy(at, edit.start, out)?;
            out.write_all(&edit.with)?;
            at = edit.end;
        }
        self.copy(at, self.len, out)?;
        out.write_all(tail)
    }

    /// Empties it for the next line: the file goes, the memory stays
    /// (at most [`SPILL_MEMORY`]).
    pub fn clear(&mut self) {
        self.memory.clear();
        self.file = None;
        self.len = 0;
        self.failed = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn emitted(spill: &Spill, edits: &[Edit]) -> Vec<u8> {
        let mut out = Vec::new();
        spill.emit(edits, b"\n", &mut out).unwrap();
        out
    }

    #[test]
    fn a_spill_gives_back_what_it_kept_in_memory_and_past_it() {
        let dir = tempfile::tempdir().unwrap();
        for limit in [0, 3, 5, 100] {
            let mut spill = Spill::with_limit(dir.path().into(), limit);
            for piece in [&b"ab"[..], b"cde", b"", b"fghij"] {
                spill.write(piece);
            }
            assert_eq!(spill.len(), 10);
            assert_eq!(emitted(&spill, &[]), b"abcdefghij\n");
            let edits = [
                Edit { start: 0, end: 1, with: b"A".to_vec() },
                Edit { start: 4, end: 4, with: b"+".to_vec() },
                Edit { start: 5, end: 9, with: Vec::new() },
            ];
            assert_eq!(emitted(&spill, &edits), b"Abcd+ej\n");
            spill.truncate(4);
            spill.write(b"XY");
            assert_eq!(emitted(&spill, &[]), b"abcdXY\n", "limit {limit}");
            spill.clear();
            spill.write(b"z");
            assert_eq!(emitted(&spill, &[]), b"z\n");
        }
        // The unnamed files leave nothing in the folder.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
