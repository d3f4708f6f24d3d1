//! capout: bound output, and say what was cut.
//!
//! capout keeps a bounded part of a stream — the first lines, the last
//! characters, the first matches — and ends it with a notice that says
//! what was cut. Memory is sized by the cap, never by the stream; a
//! character is never split.
//!
//! The library is one engine, [`Capper`], fed as bytes arrive:
//!
//! ```
//! use capout_core::{CapSpec, Capper, Options};
//!
//! let mut options = Options::default(); // as the CLI: --tail-chars 5000
//! options.cap = CapSpec::TailLines(2);
//! let mut capper = Capper::new(options)?;
//! let mut out = Vec::new();
//! capper.push(b"a\nb\n", &mut out)?;
//! capper.push(b"c\n", &mut out)?;
//! let summary = capper.finish(&mut out)?;
//! assert_eq!(out, b"b\nc\n... (truncated, showing last 2 lines)\n");
//! assert_eq!(summary.notice.unwrap().to_string(), "... (truncated, showing last 2 lines)");
//! # Ok::<(), capout_core::Error>(())
//! ```
//!
//! A page of lines (`--head-lines 2 --offset 2`), and the first matches
//! of a [`Pattern`] (`--max-matches 2 --pattern REGEX`):
//!
//! ```
//! use capout_core::{CapSpec, Capper, Options, Pattern};
//!
//! let log = b"ok 1\nerror: a\nok 2\nerror: b\nerror: c\n";
//!
//! let mut page = Capper::new(Options::new(CapSpec::HeadLines { limit: 2, offset: 2 }))?;
//! let mut out = Vec::new();
//! page.push(log, &mut out)?;
//! let summary = page.finish(&mut out)?;
//! assert_eq!(out, b"ok 2\nerror: b\n... (truncated, showing lines 3-4 of 5, next offset 4)\n");
//! assert_eq!(summary.next_offset, Some(4));
//!
//! let mut options = Options::new(CapSpec::MaxMatches(2));
//! options.pattern = Some(Pattern::regex("^error"));
//! let mut matches = Capper::new(options)?;
//! let mut out = Vec::new();
//! matches.push(log, &mut out)?;
//! let summary = matches.finish(&mut out)?;
//! assert_eq!(out, b"error: a\nerror: b\n... (3 total, showing first 2)\n");
//! assert_eq!(summary.matches, Some(3));
//! # Ok::<(), capout_core::Error>(())
//! ```
//!
//! # The parts
//!
//! - [`Capper`]: the engine. [`Capper::push`] chunks of any size, split
//!   anywhere (a character split between two is held back until it is
//!   whole), and [`Capper::finish`] to write what the cap held back and
//!   its notice, and to get the [`Summary`]. [`Capper::pull`] reads a
//!   chunk from a [`Read`](std::io::Read) itself; [`Capper::close`] ends
//!   the stream and leaves the notice lines, and their order, to the
//!   caller ([`Closed`]).
//! - [`CapWriter`]: the same behind [`std::io::Write`], for code that
//!   already writes.
//! - [`run`]: all of a [`Read`](std::io::Read) through a [`Capper`] in
//!   one call.
//! - [`CapSpec`]: the cap, one of the `capout` command's: the first or
//!   last characters (`--head-chars`, `--tail-chars`), lines
//!   (`--head-lines` with an `--offset`, `--tail-lines`) or tokens
//!   (`--head-tokens`, `--tail-tokens`), a head and a tail together, or
//!   the first lines that match a [`Pattern`] (`--max-matches`). Each
//!   says what it is: [`CapSpec::name`], [`CapSpec::limit`],
//!   [`CapSpec::is_line_cap`], [`CapSpec::tail_need`].
//! - [`Options`]: the cap and everything around it (the unit, the
//!   per-line cap, the transforms `strip_ansi`, `collapse_cr` and
//!   `render`, the lines to [`Keep`], where notices go, a
//!   [`Template`] for their wording, a file to save the whole stream
//!   to). Its defaults are the command's: `--tail-chars 5000`, in
//!   characters, notices after the output, `--max-line-chars 2000` with a
//!   line cap. It is `#[non_exhaustive]`: start from
//!   [`Options::default`] or [`Options::new`] and set fields.
//! - [`Summary`]: what was done: whether anything was cut, the
//!   [`Totals`] of the stream, what was left out, the [`Page`] a paging
//!   cap showed and the offset of the next, the [`Notice`], the file the
//!   stream was saved to.
//! - [`Error`]: a pattern that is not valid, a save file that cannot be
//!   made, a read or a write that failed.
//!
//! The output never depends on how the stream was split into chunks.
//!
//! The library installs nothing process-wide: no signal handler, no
//! terminal handling, and it writes only to the writers it is given.
//! Running a command, exit statuses, `--json` and the live `--progress`
//! line are the `capout` programs', in the `capout` package.

#![deny(missing_docs)]

mod capper;
mod caps;
mod error;
#[doc(hidden)]
pub mod internals;
mod json;
mod notice;
mod options;
mod output;
mod pattern;
mod render;
mod run;
mod save;
mod search;
mod spec;
mod summary;
mod text;
pub mod tokens;
mod transform;

/// The crate's README, whose example runs as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct Readme;

pub use capper::{CapWriter, Capper, Closed};
pub use error::Error;
pub use json::MAX_DEPTH as JSON_MAX_DEPTH;
pub use notice::{BINARY_SNIFF, Notice, Template, TemplateError, binary as binary_notice, is_binary};
pub use options::{
    DEFAULT_JSON_STRING_CHARS, DEFAULT_MAX_LINE, DEFAULT_TAIL_CHARS, Limits, Options, READ_SIZE, Tokenizer,
};
pub use output::NoticeTarget;
pub use pattern::{Keep, Pattern, PatternError};
pub use run::run;
pub use save::{SaveError, SaveTo};
pub use spec::{CapSpec, Limit, TailNeed};
pub use summary::{JsonCut, Page, Summary};
pub use text::count::{Totals, Unit};
