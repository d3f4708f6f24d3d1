//! GitHub Copilot CLI. Its `preToolUse` hook may give other arguments for
//! a call (`modifiedArgs`), and version 1.0.102 runs them; but it checks
//! its permission rules (`shell(rm)`, `shell(git)`) on the command so
//! given, so a rewrite that runs the command under capout would hide the
//! command's words from them, and a hook cannot see the rules given on
//! Copilot's command line to leave such a command alone. So `capout hook
//! copilot` leaves every call alone, and `capout init copilot` sets up
//! capout's MCP server (`--mcp`) for the model to use (see
//! [`crate::init::copilot`]).

use std::ffi::OsString;

use super::{Dispatch, pass};

/// `capout hook copilot`: leaves the call alone, and says why.
pub fn main(_args: &[OsString]) -> Dispatch {
    Dispatch::Done(pass(&format_args!("copilot: left alone: {}", crate::init::copilot::WHY)))
}
