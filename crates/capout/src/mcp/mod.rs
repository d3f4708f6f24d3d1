//! The MCP server of `capout-mcp`, which `capout --mcp [--root DIR]` runs: the three
//! bounded tools, `read`, `grep` and `bash`, served over the Model Context
//! Protocol on stdin and stdout, with the official Rust SDK.
//!
//! An executable of its own, so that the SDK, its async runtime and
//! ripgrep's crates stay out of the `capout` filter: linked into it, they
//! made every filter run map a third more of its binary, and its peak
//! memory passed the 4 MiB it must stay under. Each call runs on a
//! blocking thread, so a long `bash` holds up no other call; a failing call is a tool error, and the
//! session goes on.
//!
//! - `server`: the wiring: the SDK's handler, the tool registry and each
//!   tool's arguments; `transport`: the lines on stdin and stdout.
//! - `lifecycle`: the server's start, the end of its input, its signals
//!   and its shutdown; the calls that run, what they leave running and the
//!   outputs they save.
//! - [`tools`]: `read`, `grep` and `bash` as plain functions, over
//!   [`paths`], which opens every path beneath the root.
//! - `notice`: every text shown to the model that the engine's notices
//!   are not.

mod lifecycle;
mod notice;
pub mod paths;
mod server;
pub use lifecycle::{hosted, leftovers, saved};
pub mod tools;
mod transport;

pub use lifecycle::main;
pub use notice::describe;
