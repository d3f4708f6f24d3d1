//! Line search and rescue: the line patterns (`--pattern`, `--keep`), the
//! search for the lines they match, and the rescue of matching lines that
//! a cap cut.

pub mod matcher;
pub mod rescue;
