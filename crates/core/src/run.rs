//! [`run`]: all of a [`Read`] through a [`Capper`].

use std::io::{Read, Write};

use crate::{Capper, Error, Options, Summary};

/// Caps all of `input`: reads it to its end (or to the cap, with
/// [`Options::stop_at_cap`]) in reads of [`Options::read_size`] bytes,
/// writes what the cap keeps to `out` as it goes, then the notices where
/// [`Options::notice`] sends them, on `out` or `err`, and flushes both.
///
/// It is [`Capper::with_options`], [`Capper::pull`] until the input ends,
/// and [`Capper::finish_with`]: what an embedder that filters a [`Read`]
/// needs in one call. The `capout` command's run adds, around the same
/// steps, what only a program has: `--json`'s envelope, the live line of
/// `--progress`, and how a command or a signal ended the input.
pub fn run(
    options: &Options,
    mut input: impl Read,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Summary, Error> {
    let mut capper = Capper::with_options(options)?;
    while capper.pull(&mut input, out, err)? {}
    capper.finish_with(out, err)
}
