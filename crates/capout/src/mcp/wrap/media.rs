//! An image, audio or embedded resource of a tool's result, read as it
//! streams: its bytes decoded (base64, or a resource's text as it is),
//! counted, held in memory up to [`MEDIA_CAP`] and saved to a file of the
//! session's folder past it, so that one over the cap is replaced by a
//! line that names its size and the file.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

/// The most bytes an image, audio or embedded resource may have to pass
/// as it is: 256 KiB.
pub const MEDIA_CAP: u64 = 256 << 10;

/// The bytes of one block's content, as they come.
#[derive(Debug)]
pub struct Media {
    base64: Option<Base64>,
    size: u64,
    held: Vec<u8>,
    file: Option<NamedTempFile>,
    error: Option<io::Error>,
    dir: PathBuf,
    cap: u64,
}

impl Media {
    /// The content of a block, base64 (`data`, `blob`) or text, saved in
    /// `dir` if it passes `cap` bytes.
    pub fn new(base64: bool, dir: &Path, cap: u64) -> Media {
        Media {
            base64: base64.then(Base64::default),
            size: 0,
            held: Vec::new(),
            file: None,
            error: None,
            dir: dir.to_path_buf(),
            cap,
        }
    }

    /// Takes the next bytes of the string (decoded from JSON).
    pub fn push(&mut self, bytes: &[u8]) {
        match self.base64.take() {
            Some(mut decoder) => {
                let mut out = Vec::with_capacity(bytes.len() / 4 * 3 + 3);
                decoder.push(bytes, &mut out);
                self.base64 = Some(decoder);
                self.keep(&out);
            }
            None => self.keep(bytes),
        }
    }

    fn keep(&mut self, bytes: &[u8]) {
        self.size += bytes.len() as u64;
        if self.error.is_some() {
            return;
        }
        if self.file.is_none() && self.size <= self.cap {
            self.held.extend_from_slice(bytes);
            return;
        }
        let written = match &mut self.file {
            Some(file) => file.write_all(bytes),
            None => tempfile::Builder::new().prefix("capout-").rand_bytes(6).tempfile_in(&self.dir).and_then(
                |mut file| {
                    file.write_all(&self.held)?;
                    file.write_all(bytes)?;
                    self.held = Vec::new();
                    self.file = Some(file);
                    Ok(())
                },
            ),
        };
        self.error = written.err();
    }

    /// The bytes decoded so far.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Whether it is over the cap: it will not pass.
    pub fn over(&self) -> bool {
        self.size > self.cap
    }

    /// Ends it: the file it is saved to (named with `extension`) when
    /// over the cap, or why it could not be saved; `None` when it passes.
    pub fn finish(self, extension: &str) -> Option<Result<PathBuf, String>> {
        if !self.over() {
            return None;
        }
        if let Some(e) = self.error {
            return Some(Err(e.to_string()));
        }
        let file = self.file?;
        let path = file.path().with_extension(extension);
        Some(file.persist_noclobber(&path).map(|_| path).map_err(|e| e.error.to_string()))
    }
}

/// The extension of a saved block of type `mime` (`image/png`: `png`).
pub fn extension(mime: Option<&str>, text: bool) -> String {
    let subtype =
        mime.and_then(|m| m.split(['+', ';']).next()).and_then(|m| m.split_once('/')).map(|(_, s)| s);
    match subtype.map(str::trim).map(str::to_ascii_lowercase) {
        Some(s) if s == "jpeg" => "jpg".into(),
        Some(s) if s == "plain" => "txt".into(),
        Some(s) if s == "mpeg" => "mp3".into(),
        Some(s) if !s.is_empty() && s.len() <= 8 && s.bytes().all(|b| b.is_ascii_alphanumeric()) => s,
        _ if text => "txt".into(),
        _ => "bin".into(),
    }
}

/// A base64 decoder fed in pieces: blanks are passed over, and decoding
/// stops at the first `=` or byte that is not base64.
#[derive(Debug, Default)]
struct Base64 {
    /// Bits not yet whole bytes, and how many.
    bits: u32,
    count: u8,
    ended: bool,
}

impl Base64 {
    fn push(&mut self, input: &[u8], out: &mut Vec<u8>) {
        for &b in input {
            if self.ended {
                return;
            }
            let value = match b {
                b'A'..=b'Z' => b - b'A',
                b'a'..=b'z' => b - b'a' + 26,
                b'0'..=b'9' => b - b'0' + 52,
                b'+' | b'-' => 62,
                b'/' | b'_' => 63,
                b' ' | b'\t' | b'\r' | b'\n' => continue,
                _ => {
                    self.ended = true;
                    break;
                }
            };
            self.bits = (self.bits << 6) | u32::from(value);
            self.count += 1;
            if self.count == 4 {
                out.extend_from_slice(&self.bits.to_be_bytes()[1..]);
                self.bits = 0;
                self.count = 0;
            }
        }
        // At `=` the last group is as whole as it gets.
        if self.ended {
            self.tail(out);
        }
    }

    /// The bytes of an unfinished last group.
    fn tail(&mut self, out: &mut Vec<u8>) {
        let (bits, count) = (self.bits, self.count);
        self.count = 0;
        match count {
            2 => out.push((bits >> 4) as u8),
            3 => out.extend_from_slice(&((bits >> 2) as u16).to_be_bytes()),
            _ => {}
        }
    }
}

impl Media {
    /// The string has ended: the last bytes of an unpadded base64 text.
    pub fn end(&mut self) {
        if let Some(mut decoder) = self.base64.take() {
            let mut out = Vec::new();
            if !decoder.ended {
                decoder.tail(&mut out);
            }
            self.keep(&out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoded(text: &str, piece: usize) -> Vec<u8> {
        let mut decoder = Base64::default();
        let mut out = Vec::new();
        for chunk in text.as_bytes().chunks(piece) {
            decoder.push(chunk, &mut out);
        }
        if !decoder.ended {
            decoder.tail(&mut out);
        }
        out
    }

    #[test]
    fn base64_is_decoded_in_pieces_of_every_size() {
        for (text, bytes) in [
            ("", &b""[..]),
            ("Zg==", b"f"),
            ("Zm8=", b"fo"),
            ("Zm9v", b"foo"),
            ("Zm9vYg", b"foob"),
            ("Zm9v\nYmFy", b"foobar"),
            ("/+/+", &[0xff, 0xef, 0xfe]),
        ] {
            for piece in 1..=text.len().max(1) {
                assert_eq!(decoded(text, piece), bytes, "{text} in pieces of {piece}");
            }
        }
    }

    #[test]
    fn a_block_over_the_cap_is_saved_and_one_within_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let mut small = Media::new(false, dir.path(), 4);
        small.push(b"abcd");
        small.end();
        assert!(small.finish("txt").is_none());
        let mut large = Media::new(true, dir.path(), 4);
        for piece in ["Zm9v", "YmFy", "YQ=="] {
            large.push(piece.as_bytes());
        }
        large.end();
        assert_eq!(large.size(), 7);
        let path = large.finish("png").unwrap().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"foobara");
        assert_eq!(path.extension().unwrap(), "png");
        assert!(path.file_name().unwrap().to_str().unwrap().starts_with("capout-"));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_type_gives_the_extension() {
        assert_eq!(extension(Some("image/png"), false), "png");
        assert_eq!(extension(Some("image/jpeg"), false), "jpg");
        assert_eq!(extension(Some("image/svg+xml"), false), "svg");
        assert_eq!(extension(Some("text/plain; charset=utf-8"), true), "txt");
        assert_eq!(extension(Some("../../x"), false), "bin");
        assert_eq!(extension(None, true), "txt");
        assert_eq!(extension(None, false), "bin");
    }
}
