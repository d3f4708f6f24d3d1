//! [`Error`]: why a pass stopped short.

use std::io;

use crate::{PatternError, SaveError};

/// Why a run stopped short.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Reading the input failed.
    #[error("error reading input: {0}")]
    Read(#[source] io::Error),
    /// Writing the output failed.
    #[error("error writing output: {0}")]
    Write(#[source] io::Error),
    /// The file to save the input to could not be created.
    #[error(transparent)]
    Save(SaveError),
    /// A pattern is not a valid regex.
    #[error("invalid value for '{}': {source}", source.option)]
    Pattern {
        /// What is wrong, and where.
        #[from]
        source: PatternError,
    },
}

impl Error {
    /// The error as an [`io::Error`], for a [`Write`] that caps.
    pub(crate) fn into_io(self) -> io::Error {
        match self {
            Error::Read(e) | Error::Write(e) => e,
            e => io::Error::other(e),
        }
    }
}
