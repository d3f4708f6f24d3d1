//! The agent harnesses that `capout hook` and `capout init` know.

use std::fmt;

/// A harness: its name on the command line is clap's value for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Harness {
    /// Claude Code: the shell prefix, and a hook that records timeouts.
    ClaudeCode,
    /// Codex CLI: a `PreToolUse` hook.
    Codex,
    /// Gemini CLI: a `BeforeTool` hook and a policy rule.
    Gemini,
    /// opencode: a plugin.
    Opencode,
    /// qwen-code: no way to rewrite a shell call; the MCP server.
    QwenCode,
    /// Pi: capout as the shell of its bash tool (`shellPath`).
    Pi,
    /// GitHub Copilot CLI: a `preToolUse` hook.
    Copilot,
    /// Factory Droid: a `PreToolUse` hook.
    Droid,
    /// Crush: the MCP server (no Crush could be run to prove a hook).
    Crush,
}

impl Harness {
    /// Every harness, in the order help lists them.
    pub const ALL: [Harness; 9] = [
        Harness::ClaudeCode,
        Harness::Codex,
        Harness::Gemini,
        Harness::Opencode,
        Harness::QwenCode,
        Harness::Pi,
        Harness::Copilot,
        Harness::Droid,
        Harness::Crush,
    ];

    /// The name on the command line: `claude-code`, `codex`, ...
    pub fn name(self) -> &'static str {
        match self {
            Harness::ClaudeCode => "claude-code",
            Harness::Codex => "codex",
            Harness::Gemini => "gemini",
            Harness::Opencode => "opencode",
            Harness::QwenCode => "qwen-code",
            Harness::Pi => "pi",
            Harness::Copilot => "copilot",
            Harness::Droid => "droid",
            Harness::Crush => "crush",
        }
    }

    /// The harness named `name`, if capout knows it.
    pub fn of(name: &str) -> Option<Harness> {
        Harness::ALL.into_iter().find(|h| h.name() == name)
    }

    /// The names of all, joined by `sep`, for messages.
    pub fn names(sep: &str) -> String {
        Harness::ALL.map(Harness::name).join(sep)
    }
}

impl fmt::Display for Harness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;

    #[test]
    fn each_harness_is_named_as_clap_names_it() {
        for h in Harness::ALL {
            assert_eq!(h.to_possible_value().unwrap().get_name(), h.name());
            assert_eq!(Harness::of(h.name()), Some(h));
        }
        assert_eq!(Harness::of("vim"), None);
    }
}
