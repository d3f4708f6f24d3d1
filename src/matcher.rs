//! Line patterns (`--pattern`, `--keep`) and the whole lines they are
//! matched against.

use memchr::memmem::Finder;
use regex::bytes::{Regex, RegexBuilder};

use crate::caps::LineSplitter;
use crate::utf8;

/// The most of one line held to match it. A longer line is matched on its
/// first part, so memory stays bounded on a line of any length.
pub const LINE_LIMIT: usize = 256 * 1024;

/// The capacity of a regex's lazy DFA cache.
const DFA_CACHE: usize = 256 * 1024;

/// A pattern lines are matched against, on bytes.
#[derive(Clone, Debug)]
pub enum Matcher {
    /// A regular expression (Rust `regex` syntax).
    Regex(Regex),
    /// A literal string (`--fixed-strings`).
    Literal(Box<Finder<'static>>),
}

impl Matcher {
    /// A matcher for `pattern`, a literal when `fixed` is set. The error
    /// says why the pattern is not valid.
    pub fn new(pattern: &str, fixed: bool) -> Result<Matcher, regex::Error> {
        Matcher::with_case(pattern, fixed, false)
    }

    /// As [`Matcher::new`]; with `ignore_case` (`--ignore-case`), letters
    /// match without regard to case (Unicode simple case folding), a
    /// literal as well as a regex.
    pub fn with_case(pattern: &str, fixed: bool, ignore_case: bool) -> Result<Matcher, regex::Error> {
        if fixed && !ignore_case {
            return Ok(Matcher::Literal(Box::new(Finder::new(pattern.as_bytes()).into_owned())));
        }
        let escaped;
        let pattern = if fixed {
            escaped = regex::escape(pattern);
            &escaped
        } else {
            pattern
        };
        RegexBuilder::new(pattern)
            .case_insensitive(ignore_case)
            // The lazy DFA's cache is the regex's largest allocation; a
            // smaller one keeps any pattern inside the memory bound, and
            // lines of a few hundred bytes rarely need more.
            .dfa_size_limit(DFA_CACHE)
            .build()
            .map(Matcher::Regex)
    }

    /// Whether `line` (without its ending) holds a match.
    pub fn is_match(&self, line: &[u8]) -> bool {
        match self {
            Matcher::Regex(regex) => regex.is_match(line),
            Matcher::Literal(finder) => finder.find(line).is_some(),
        }
    }
}

/// `line` without its ending, `\n` or `\r\n`.
pub fn content(line: &[u8]) -> &[u8] {
    match line.strip_suffix(b"\n") {
        Some(body) => body.strip_suffix(b"\r").unwrap_or(body),
        None => line,
    }
}

/// A line, or the first part of one, as [`LineAssembler`] hands it out.
#[derive(Debug)]
pub enum Event<'a> {
    /// A line: all of it when `whole`, else its first [`LINE_LIMIT`]
    /// bytes (more follows as [`Event::Rest`]).
    Line {
        /// Its line number, from 1.
        number: u64,
        /// Its bytes, with its ending when whole.
        bytes: &'a [u8],
        /// Whether `bytes` is the whole line.
        whole: bool,
    },
    /// More of a line too long to hold.
    Rest {
        /// The bytes.
        bytes: &'a [u8],
        /// Whether the line is over.
        ends: bool,
    },
}

/// Gathers the stream into whole lines, without copying those that lie
/// within one piece. A line whose content (without its ending) is longer
/// than the limit is handed out as its first `limit` bytes, backed off to
/// a character boundary, then the rest; where it is cut depends on the
/// line alone, never on how the stream was split.
#[derive(Debug)]
pub struct LineAssembler {
    limit: usize,
    splitter: LineSplitter,
    held: Vec<u8>,
    /// The current line went past the limit: its rest streams through.
    overflow: bool,
}

impl Default for LineAssembler {
    fn default() -> Self {
        LineAssembler::new(LINE_LIMIT)
    }
}

impl LineAssembler {
    /// An assembler that hands out at most `limit` bytes of a line whole.
    pub fn new(limit: usize) -> Self {
        LineAssembler { limit, splitter: LineSplitter::default(), held: Vec::new(), overflow: false }
    }

    /// Hands `f` the lines of `piece`, which begins and ends on character
    /// boundaries. Stops at the first error `f` returns.
    pub fn feed<E>(&mut self, piece: &[u8], mut f: impl FnMut(Event) -> Result<(), E>) -> Result<(), E> {
        let LineAssembler { limit, splitter, held, overflow } = self;
        let mut result = Ok(());
        splitter.split(piece, |number, part| {
            result = assemble(held, overflow, *limit, number, part, &mut f);
            result.is_ok()
        });
        result
    }

    /// Hands `f` the end of a last line that has no `\n`.
    pub fn finish<E>(&mut self, mut f: impl FnMut(Event) -> Result<(), E>) -> Result<(), E> {
        if std::mem::take(&mut self.overflow) {
            return f(Event::Rest { bytes: &[], ends: true });
        }
        if self.held.is_empty() {
            return Ok(());
        }
        let number = self.splitter.line();
        // Without a `\n`, a `\r` held at the end is content.
        let result = if self.held.len() > self.limit {
            let cut = cut_at(&self.held, &[], self.limit);
            f(Event::Line { number, bytes: &self.held[..cut], whole: false })
                .and_then(|()| f(Event::Rest { bytes: &self.held[cut..], ends: true }))
        } else {
            f(Event::Line { number, bytes: &self.held, whole: true })
        };
        self.held.clear();
        result
    }
}

/// Where a line too long to hold is cut: the last character boundary at
/// or before `limit` of the line `held` followed by `part`.
fn cut_at(held: &[u8], part: &[u8], limit: usize) -> usize {
    // The boundary is decided by the bytes around it alone.
    let from = limit.saturating_sub(3);
    let mut window = [0; 8];
    let mut len = 0;
    for (slot, &b) in window.iter_mut().zip(held.iter().chain(part).skip(from)) {
        *slot = b;
        len += 1;
    }
    from + utf8::floor_boundary(&window[..len], limit - from)
}

fn assemble<E>(
    held: &mut Vec<u8>,
    overflow: &mut bool,
    limit: usize,
    number: u64,
    part: &[u8],
    f: &mut impl FnMut(Event) -> Result<(), E>,
) -> Result<(), E> {
    let ends = part.last() == Some(&b'\n');
    if *overflow {
        *overflow = !ends;
        return f(Event::Rest { bytes: part, ends });
    }
    if held.is_empty() && ends && content(part).len() <= limit {
        return f(Event::Line { number, bytes: part, whole: true });
    }
    let len = held.len() + part.len();
    let byte_at = |i: usize| if i < held.len() { held[i] } else { part[i - held.len()] };
    // The line's content so far; a last `\r` may start its ending.
    let ending = if ends {
        1 + usize::from(len >= 2 && byte_at(len - 2) == b'\r')
    } else {
        usize::from(byte_at(len - 1) == b'\r')
    };
    let body = len - ending;
    if body <= limit {
        if held.capacity() < limit + 2 {
            // Once, to the limit: growing by doubling would copy and could
            // leave twice the limit behind.
            held.reserve_exact(limit + 2 - held.len());
        }
        held.extend_from_slice(part);
        if !ends {
            return Ok(());
        }
        let result = f(Event::Line { number, bytes: held, whole: true });
        held.clear();
        return result;
    }
    // Past the limit: hand out the line's first `limit` bytes, cut on a
    // character boundary, and let the rest of the line stream through.
    let cut = cut_at(held, part, limit);
    let result = if cut >= held.len() {
        let take = cut - held.len();
        held.extend_from_slice(&part[..take]);
        f(Event::Line { number, bytes: held, whole: false })
            .and_then(|()| f(Event::Rest { bytes: &part[take..], ends }))
    } else {
        // Only a `\r` held past the limit, which turned out to be content.
        f(Event::Line { number, bytes: &held[..cut], whole: false })
            .and_then(|()| f(Event::Rest { bytes: &held[cut..], ends: false }))
            .and_then(|()| f(Event::Rest { bytes: part, ends }))
    };
    held.clear();
    *overflow = !ends;
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_line_endings() {
        assert_eq!(content(b"a\r\n"), b"a");
        assert_eq!(content(b"a\n"), b"a");
        assert_eq!(content(b"a\r"), b"a\r");
        assert_eq!(content(b"a"), b"a");
    }

    #[test]
    fn assembles_lines_across_pieces() {
        let mut lines = Vec::new();
        let mut assembler = LineAssembler::default();
        for piece in [&b"ab"[..], b"c\nd", b"\n", b"e"] {
            assembler
                .feed(piece, |e| {
                    if let Event::Line { number, bytes, whole } = e {
                        lines.push((number, bytes.to_vec(), whole));
                    }
                    Ok::<(), ()>(())
                })
                .unwrap();
        }
        assembler
            .finish(|e| {
                if let Event::Line { number, bytes, whole } = e {
                    lines.push((number, bytes.to_vec(), whole));
                }
                Ok::<(), ()>(())
            })
            .unwrap();
        assert_eq!(
            lines,
            [(1, b"abc\n".to_vec(), true), (2, b"d\n".to_vec(), true), (3, b"e".to_vec(), true)]
        );
    }
}
