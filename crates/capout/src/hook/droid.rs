//! Factory Droid. Its `PreToolUse` hook may give another command for a
//! call of its `Execute` tool (`hookSpecificOutput.updatedInput`), and
//! version 0.225.2 runs it; but it checks its command allow and deny lists
//! and its autonomy level on the command so given, so a rewrite that runs
//! the command under capout would hide the command's words from them. So
//! `capout hook droid` leaves every call alone, and `capout init droid`
//! sets up capout's MCP server (`--mcp`) for the model to use (see
//! [`crate::init::droid`]).

use std::ffi::OsString;

use super::{Dispatch, pass};

/// `capout hook droid`: leaves the call alone, and says why.
pub fn main(_args: &[OsString]) -> Dispatch {
    Dispatch::Done(pass(&format_args!("droid: left alone: {}", crate::init::droid::WHY)))
}
