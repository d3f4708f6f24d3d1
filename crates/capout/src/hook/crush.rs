//! Crush. Its source has a `PreToolUse` hook whose `updated_input` is
//! merged into the tool's input, which could rewrite a call of its `bash`
//! tool; but no Crush could be run to prove that inside the real program:
//! the npm package `@charmland/crush` downloads the program from GitHub
//! when it is installed, and capout's tests of a harness run the real
//! program from the npm registry, offline. Until one is proven, `capout
//! hook crush` leaves every call alone, and `capout init crush` sets up
//! capout's MCP server (`--mcp`) for the model to use.

use std::ffi::OsString;

use super::{Dispatch, pass};

/// `capout hook crush`: leaves the call alone, and says why.
pub fn main(_args: &[OsString]) -> Dispatch {
    Dispatch::Done(pass(&format_args!("crush: left alone: {}", crate::init::crush::WHY)))
}
