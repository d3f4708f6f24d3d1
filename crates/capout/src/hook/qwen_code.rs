//! qwen-code. Version 0.24.4 gives capout no way to bound a call of its
//! shell tool, `run_shell_command`, as the model wrote it:
//!
//! - its `PreToolUse` hook may allow, deny or ask about a call, and the
//!   `hookSpecificOutput.updatedInput` it prints is not taken: the command
//!   runs as the model wrote it (later versions describe the rewrite; none
//!   is published yet);
//! - a `PermissionRequest` hook's `updatedInput` is taken only together
//!   with an answer that grants the call, and that hook runs only for a
//!   call qwen-code would have asked about: a rewrite there would allow
//!   what the user's rules ask about;
//! - it runs `bash -c COMMAND` with `bash` found on PATH, and takes
//!   `BASH_ENV` (and `BASH_FUNC_*`) out of its settings' `env` and of its
//!   own environment, so no file can hand the command to capout.
//!
//! So `capout hook qwen-code` leaves every call alone, and `capout init
//! qwen-code` sets up capout's MCP server (`--mcp`) for the model to use.

use std::ffi::OsString;

use super::{Dispatch, pass};

/// `capout hook qwen-code`: leaves the call alone, and says why.
pub fn main(_args: &[OsString]) -> Dispatch {
    Dispatch::Done(pass(&format_args!("qwen-code: left alone: {}", crate::init::qwen_code::WHY)))
}
