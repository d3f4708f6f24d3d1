//! Reading only the end of a seekable file, as GNU `tail` does, when the
//! cap needs nothing before the part it keeps.

use std::fs::File;
use std::io::{self, Seek, SeekFrom};
use std::os::unix::fs::{FileExt, MetadataExt};

use memchr::memrchr_iter;

use capout_core::tokens::{Estimator, SCALE};
use capout_core::{Options, TailNeed, Tokenizer};

/// How much is read at a time while looking backwards for lines.
const BLOCK: u64 = 64 * 1024;

/// Whether the output depends only on the end of the input: a tail cap,
/// and nothing that needs the whole input (totals, saving, transforms
/// whose state runs from the start, line numbers, a line cap before a
/// character cap, which must see where the line starts).
pub fn needs_only_the_end(options: &Options) -> bool {
    options.cap.tail_need(options.unit).is_some()
        && options.keep.is_none()
        && options.save.is_none()
        && !options.strip_ansi
        && !options.collapse_cr
        && options.render.is_none()
        && !options.line_numbers
        && (options.max_line().is_none() || options.cap.is_line_cap())
        && !options.reads_totals()
}

/// When `file` is a regular file and the options allow it, moves the
/// file's offset forward to the start of the part the cap can keep, with
/// a unit or a `\n` more so the cap still sees that something was cut.
/// The output is the same; the time no longer grows with the file.
///
/// A file no larger than its block size is read as a pipe, as GNU `tail`
/// does: files of `/proc` and `/sys` report a size of 0 or one page
/// whatever they hold, and reading a small file whole costs nothing.
pub fn skip_to_tail(file: &mut File, options: &Options) -> io::Result<()> {
    let metadata = file.metadata()?;
    if !needs_only_the_end(options) || !metadata.is_file() || metadata.len() <= metadata.blksize() {
        return Ok(());
    }
    let start = file.stream_position()?;
    let end = metadata.len();
    let Some(need) = options.cap.tail_need(options.unit) else { return Ok(()) };
    let target = match need {
        TailNeed::Bytes(bytes) => end.saturating_sub(bytes),
        // The part of the ring a token cap cuts in (`tokens::tail_cut`),
        // and a byte more so the cut shows.
        TailNeed::Tokens { limit, near, ring } => {
            if options.tokenizer == Tokenizer::Estimate
                && near < end - start
                && more_tokens_than(file, end - near, end, limit)?
            {
                end - near - 1
            } else {
                end.saturating_sub(ring.saturating_add(1))
            }
        }
        // From the `\n` before the last `n` lines: an empty line more than
        // the cap keeps.
        TailNeed::Lines(n) => last_lines_start(file, start, end, n)?.saturating_sub(1),
    };
    if target > start {
        file.seek(SeekFrom::Start(target))?;
    }
    Ok(())
}

/// Whether the estimate of `file[from..end]` is more than `budget` tokens,
/// read a block at a time from `from` until it is: an estimate never
/// shrinks as text is added at its end.
fn more_tokens_than(file: &File, from: u64, end: u64, budget: u64) -> io::Result<bool> {
    const LOOK: u64 = 4096;
    let limit = budget.saturating_mul(SCALE);
    let mut buf = vec![0; LOOK.min(end - from) as usize];
    let mut estimator = Estimator::default();
    let mut pos = from;
    while pos < end {
        let block = &mut buf[..LOOK.min(end - pos) as usize];
        file.read_exact_at(block, pos)?;
        estimator.feed(block);
        pos += block.len() as u64;
        if estimator.total_scaled() > limit {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The offset where the last `lines` lines of `file[start..end]` begin,
/// read backwards a block at a time (`start` when there are fewer).
fn last_lines_start(file: &File, start: u64, end: u64, lines: u64) -> io::Result<u64> {
    let mut buf = vec![0; BLOCK as usize];
    let mut pos = end;
    // A last line without `\n` is a line; with one, that `\n` ends it.
    let mut newlines_wanted = lines;
    let mut first = true;
    while pos > start {
        let from = pos.saturating_sub(BLOCK).max(start);
        let block = &mut buf[..(pos - from) as usize];
        file.read_exact_at(block, from)?;
        if first && block.last() == Some(&b'\n') {
            newlines_wanted = newlines_wanted.saturating_add(1);
        }
        first = false;
        for i in memrchr_iter(b'\n', block) {
            newlines_wanted -= 1;
            if newlines_wanted == 0 {
                return Ok(from + i as u64 + 1);
            }
        }
        pos = from;
    }
    Ok(start)
}
