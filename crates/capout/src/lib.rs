//! What the `capout` filter and the `capout-mcp` server share: the command
//! line and its layers (profiles, the config file, `CAPOUT_OPTS`), a whole
//! run over one input with `--json` and `--progress`, running and
//! supervising a command, exit statuses, the seek fast path, the MCP
//! server, and the harness hooks (`capout hook`, `capout init`).
//!
//! This is the programs' library, not the engine: a harness that embeds
//! capout depends on `capout-core`, which has none of this.

pub mod app;
pub mod cli;
pub mod command;
pub mod completions;
pub mod exit;
pub mod facts;
pub mod harness;
pub mod hook;
pub mod init;
pub mod json;
pub mod ledger;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod notice;
pub mod pipe;
pub mod profiles;
pub mod progress;
pub mod run;
pub mod safe_read;
pub mod seek;
pub mod signals;
pub mod stats;
