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
    /// What the cut of JSON did, when [`Options::json_items`](crate::Options::json_items)
    /// was in force.
    pub json: Option<JsonCut>,
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

/// What the cut of JSON did ([`Options::json_items`](crate::Options::json_items)):
/// the counts of its notice, `... (truncated JSON: kept K of T items in A
/// arrays, S strings cut)`.
///
/// The counts speak of the arrays and objects written that lost items:
/// `arrays_cut` of them, which had `items` items (members of an object)
/// and kept `items_kept`; items inside an item that was dropped are not
/// counted. `strings_cut` counts the strings cut to their first
/// characters (and the values nested too deep, written as a cut string).
/// Documents are those of the stream: one for a JSON text, one a line for
/// JSON Lines.
///
/// When the stream was not JSON to its end, `ended_at` says where the
/// JSON ended (the offset of the first byte that cannot continue it, or
/// the stream's length when it ended inside a document), the stream was
/// capped as text, and the counts are 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct JsonCut {
    /// Items kept by the arrays and objects that lost items.
    pub items_kept: u64,
    /// Items those arrays and objects had.
    pub items: u64,
    /// Arrays and objects written that lost items.
    pub arrays_cut: u64,
    /// Strings cut, values nested too deep among them.
    pub strings_cut: u64,
    /// Documents kept.
    pub documents_kept: u64,
    /// Documents of the stream.
    pub documents: u64,
    /// Where the JSON ended, when the stream was not JSON to its end.
    pub ended_at: Option<u64>,
}
