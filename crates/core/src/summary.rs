//! [`Summary`]: what a [`Capper`](crate::Capper) did, and the
//! [`Page`] a paging cap showed.

use std::path::PathBuf;

use crate::{CapSpec, Notice, SaveError, Totals};

/// What a [`Capper`](crate::Capper) did, once it has finished: the facts of capout's
/// `--json` object.
#[derive(Debug)]
#[non_exhaustive]
pub struct Summary {
    /// Whether anything was cut.
    pub truncated: bool,
    /// The cap, and with it its limit ([`CapSpec::limit`]).
    pub cap: CapSpec,
    /// Totals of the whole stream.
    pub totals: Totals,
    /// Matching lines, for `--max-matches`.
    pub matches: Option<u64>,
    /// Units cut, when something was.
    pub omitted: Option<u64>,
    /// The first unit kept (for a head+tail pair: the first one cut),
    /// 1-based, when something was cut.
    pub first: Option<u64>,
    /// The last unit kept (for a head+tail pair: the last one cut), when
    /// something was cut.
    pub last: Option<u64>,
    /// The `--offset` that shows what comes next, for `--head-lines` and
    /// `--max-matches` when something is left after the page.
    pub next_offset: Option<u64>,
    /// Whether `first` and `last` are those of a page that a paging cap
    /// (`--head-lines`, `--max-matches`) showed.
    pub paged: bool,
    /// Tokens of the whole stream, for a token cap when they were
    /// counted.
    pub total_tokens: Option<u64>,
    /// What the notice says, when there is one.
    pub notice: Option<Notice>,
    /// The file the whole stream was saved to and left behind.
    pub saved_to: Option<PathBuf>,
    /// Saving the stream failed part way; the output was still written.
    pub save_error: Option<SaveError>,
}

impl Summary {
    /// The first and last lines (matches) shown and the offset of the
    /// next page, when a paging cap (`--head-lines`, `--max-matches`)
    /// cut.
    pub fn page(&self) -> Option<Page> {
        match (self.first, self.last) {
            (Some(first), Some(last)) if self.paged => {
                Some(Page { first, last, next_offset: self.next_offset })
            }
            _ => None,
        }
    }
}

/// The page a paging cap (`--head-lines`, `--max-matches`) showed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Page {
    /// The first line (match) shown, 1-based.
    pub first: u64,
    /// The last line (match) shown.
    pub last: u64,
    /// The `--offset` of the next page; `None` when the page reaches the
    /// end.
    pub next_offset: Option<u64>,
}
