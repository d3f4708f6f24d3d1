//! Internals that the benches, the fuzz target and the tests reach; not
//! part of the API, and free to change.

pub use crate::render::Screen;
pub use crate::search::matcher::{LINE_LIMIT, Matcher};
pub use crate::text::utf8::{incomplete_suffix, is_continuation};
pub use crate::transform::COLLAPSE_LIMIT;

/// Every total of `input`, counted in pieces of [`READ_SIZE`](crate::READ_SIZE)
/// that end on a character boundary, as the engine counts them: the
/// floor under the whole pass, for the benches.
pub fn count_totals(input: &[u8]) -> crate::Totals {
    let mut totals = crate::Totals::new(crate::text::count::Need::ALL);
    let mut rest = input;
    while !rest.is_empty() {
        let mut end = rest.len().min(crate::READ_SIZE);
        while end < rest.len() && is_continuation(rest[end]) {
            end -= 1;
        }
        let (piece, tail) = rest.split_at(end);
        totals.add(piece);
        rest = tail;
    }
    totals
}
