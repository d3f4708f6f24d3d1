//! The command line: clap's parser, `CAPOUT_OPTS`, the config file's
//! layers, and their validation into a [`Run`]. Nothing is read or
//! written here.
//!
//! - `args`: the options as clap parses them, and the clap command;
//! - `validate`: how caps and options combine, into a [`Run`];
//! - `layers`: the defaults under the command line and their precedence;
//! - `fast`: the command lines read without building the parser;
//! - `show_config`: `--show-config`.

use std::time::Duration;

use clap::error::ErrorKind;

mod args;
mod fast;
mod layers;
mod show_config;
mod validate;

#[cfg(test)]
pub use args::PARSERS_BUILT;
pub use args::{Args, command};
pub use fast::mcp_requested;
pub use layers::{Layer, parse, parse_from, try_parse, try_parse_with};
pub use validate::{Action, Run};

/// The cap when none is given: `--tail-chars 5000`.
pub use capout_core::DEFAULT_TAIL_CHARS;
/// Rescued lines shown at most when `--keep-max` is not given.
pub const DEFAULT_KEEP_MAX: u64 = 20;
/// How long after SIGTERM a timed-out command gets SIGKILL when
/// `--kill-after` is not given.
pub const DEFAULT_KILL_AFTER: Duration = Duration::from_secs(5);
/// The terminal of `--render` when `--render-width` and `--render-height`
/// are not given: 200 columns, 50 rows.
pub const DEFAULT_RENDER: (u16, u16) = (200, 50);

fn invalid(option: &str, why: &str) -> clap::Error {
    command().error(ErrorKind::ValueValidation, format!("invalid value for '{option}': {why}"))
}

fn usage(message: String) -> clap::Error {
    command().error(ErrorKind::ArgumentConflict, message)
}

fn usage_in(source: &str, message: &str) -> clap::Error {
    command().error(ErrorKind::ArgumentConflict, format!("in {source}: {message}"))
}

#[cfg(test)]
mod tests;
