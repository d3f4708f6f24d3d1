//! `read`: a page of a file's lines, numbered.

use std::io::{self, Cursor, Read};

use capout_core::CapSpec;
use rustix::fs::FileType;

use super::{ToolError, Tools};
use crate::ledger::{self, Fed};
use crate::mcp::notice::{self, not_regular};
use crate::mcp::paths::reason;

/// How much of a file's start decides that it is binary: a NUL byte in
/// it, as ripgrep decides (it looks at its first read, of 64 KiB).
pub const BINARY_PROBE: usize = 8 * 1024;

impl Tools {
    /// `read`: lines `offset`+1 … `offset`+`limit` of a file, numbered
    /// as `capout -N --head-lines LIMIT --offset OFFSET` numbers them.
    pub fn read(&self, path: &str, offset: u64, limit: Option<u64>) -> Result<String, ToolError> {
        ledger::record(self.entry("read", path), || self.read_page(path, offset, limit))
    }

    fn read_page(&self, path: &str, offset: u64, limit: Option<u64>) -> Result<String, ToolError> {
        let limit = limit.unwrap_or_else(|| self.read_limit());
        if limit == 0 {
            return Err(ToolError::Refused(notice::LIMIT_ZERO.into()));
        }
        let opened = self.roots.open(path).map_err(ToolError::Refused)?;
        if self.is_saved(&opened.path) {
            ledger::note(|entry| entry.page_of = Some(opened.path.display().to_string()));
        }
        match opened.kind {
            FileType::RegularFile => {}
            FileType::Directory => {
                return Err(ToolError::Refused(notice::read_a_directory(path)));
            }
            kind => return Err(ToolError::Refused(not_regular(path, kind))),
        }
        // Opened non-blocking, which a regular file ignores.
        let mut file = opened.file;
        let mut start = Vec::with_capacity(BINARY_PROBE);
        (&mut file)
            .take(BINARY_PROBE as u64)
            .read_to_end(&mut start)
            .map_err(|e| ToolError::Failed(notice::path_error(path, reason(&e))))?;
        if memchr::memchr(0, &start).is_some() {
            let size = file.metadata().map_or(start.len() as u64, |m| m.len());
            return Ok(notice::binary_file(size));
        }
        let cap = match self.read.cap {
            CapSpec::HeadLines { .. } => CapSpec::HeadLines { limit, offset },
            other => other,
        };
        let mut options = self.read.clone();
        options.cap = cap;
        options.line_numbers = true;
        let mut out = Vec::new();
        let summary =
            capout_core::run(&options, Fed(Cursor::new(start).chain(file)), &mut out, &mut io::sink())
                .map_err(|e| ToolError::Failed(notice::path_error(path, e)))?;
        ledger::note(|entry| entry.cut = summary.truncated);
        Ok(String::from_utf8_lossy(&out).into_owned())
    }
}
