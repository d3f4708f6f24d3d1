//! The `capout` and `capout-mcp` programs, run as a user runs them.

mod adversarial;
mod after_tool;
mod cli;
mod command;
mod common;
mod completions;
mod faults;
mod gnu;
mod harness;
mod hooks;
mod hooks_codex;
mod init;
mod init_tools;
mod json;
mod json_items;
mod keep;
mod ledger;
mod limits;
mod matches;
mod mcp_cli;
mod newuser;
mod opencode_hook;
mod profiles;
mod render;
mod render_cli;
mod seek;
mod signals;
mod token_caps;
#[cfg(all(target_os = "linux", feature = "exact-tokens"))]
mod vocab_pages;
