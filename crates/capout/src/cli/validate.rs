//! What the options ask for, checked: how caps and options combine, and
//! the [`Run`] they make.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use clap_complete::Shell;

use capout_core::{CapSpec, Keep, NoticeTarget, Options, Pattern, SaveTo, Template, Tokenizer, Unit};

use super::args::{Args, BinaryArg, NoticeArg, When};
use super::{DEFAULT_KEEP_MAX, DEFAULT_KILL_AFTER, DEFAULT_RENDER, DEFAULT_TAIL_CHARS, invalid, usage};
use crate::command::{CommandSpec, Timeout};

/// What the command line asks for.
#[derive(Debug)]
pub enum Action {
    /// Cap the input. Boxed: a run is large beside a shell's name.
    Run(Box<Run>),
    /// Print a completion script.
    Completions(Shell),
    /// Print the options in force (`--show-config`): this text.
    ShowConfig(String),
}

/// A run the command line asks for: the engine's options, and what the
/// program does around the engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    /// What the engine keeps, and how it says so.
    pub options: Options,
    /// The command to run, whose output is the input.
    pub command: Option<CommandSpec>,
    /// `--input FILE`: the file read instead of stdin.
    pub input: Option<PathBuf>,
    /// `--ledger`: the run adds its line to the ledger.
    pub ledger: bool,
}

impl Args {
    /// What the arguments ask for.
    pub fn into_action(self) -> Result<Action, clap::Error> {
        // `capout --mcp [--root DIR]` alone is served before this parse
        // (see `mcp_requested`): here either is mixed with others.
        if self.root.is_some() && !self.mcp {
            return Err(usage("--root goes with --mcp: capout --mcp [--root DIR]".into()));
        }
        if self.mcp {
            return Err(usage("--mcp takes no option but --root DIR: capout --mcp [--root DIR]".into()));
        }
        match self.completions.as_deref() {
            Some(name) => {
                name.parse().map(Action::Completions).map_err(|e: String| invalid("--completions", &e))
            }
            None => self.into_run().map(|run| Action::Run(Box::new(run))),
        }
    }

    /// The config, checking what clap cannot: how caps and options combine.
    /// Checks that each option goes with what it belongs to: its cap, a
    /// pattern, `--render`, a command or none.
    fn check_companions(&self, cap: CapSpec, runs: bool) -> Result<(), clap::Error> {
        if self.offset.is_some() && !matches!(cap, CapSpec::HeadLines { .. } | CapSpec::MaxMatches(_)) {
            return Err(usage("--offset goes with --head-lines or --max-matches alone".into()));
        }
        if self.budget_chars.is_some()
            && !matches!(cap, CapSpec::HeadLines { .. } | CapSpec::TailLines(_) | CapSpec::MaxMatches(_))
        {
            return Err(usage(
                "--budget-chars goes with --head-lines, --tail-lines or --max-matches alone".into(),
            ));
        }
        let matches = matches!(cap, CapSpec::MaxMatches(_));
        if self.pattern.is_some() && !matches {
            return Err(usage("--pattern goes with --max-matches".into()));
        }
        if self.fixed_strings && self.pattern.is_none() {
            return Err(usage("--fixed-strings goes with --pattern".into()));
        }
        if self.keep.is_some() && self.budget_chars.is_some() {
            return Err(usage("--keep does not go with --budget-chars".into()));
        }
        if self.keep.is_some() && matches {
            return Err(usage("--keep does not go with --max-matches".into()));
        }
        if self.keep_max.is_some() && self.keep.is_none() {
            return Err(usage("--keep-max goes with --keep".into()));
        }
        for (given, name) in [(self.render_width, "--render-width"), (self.render_height, "--render-height")]
        {
            if given.is_some() && !self.render {
                return Err(usage(format!("{name} goes with --render")));
            }
        }
        if self.line_numbers && !cap.is_line_cap() {
            return Err(usage(
                "--line-numbers goes with a line cap or --max-matches, not a character cap".into(),
            ));
        }
        let tokenizer = self.tokenizer.map_or(Tokenizer::Estimate, Tokenizer::from);
        if !tokenizer.available() {
            return Err(usage(format!(
                "--tokenizer {}: capout was built without exact tokenizers (cargo feature exact-tokens)",
                tokenizer.name()
            )));
        }
        if self.ignore_case && self.pattern.is_none() && self.keep.is_none() {
            return Err(usage("--ignore-case goes with --pattern or --keep".into()));
        }
        let head = matches!(cap, CapSpec::HeadLines { .. } | CapSpec::HeadChars(_) | CapSpec::MaxMatches(_));
        if self.stop_at_cap && !head {
            return Err(usage("--stop-at-cap goes with --head-lines, --head-chars or --max-matches".into()));
        }
        if self.stop_at_cap && self.keep.is_some() {
            return Err(usage(
                "--stop-at-cap does not go with --keep: the lines after the cap are not read".into(),
            ));
        }
        self.check_json(cap)?;
        if self.input.is_some() && runs {
            return Err(usage(
                "--input goes without a command: capout --input FILE, or capout -- COMMAND [ARG]...".into(),
            ));
        }
        Ok(())
    }

    /// Checks that `--json-items` has a head cap and none of the options
    /// that would make its output something other than JSON.
    fn check_json(&self, cap: CapSpec) -> Result<(), clap::Error> {
        if self.json_items.is_none() {
            if self.json_string_chars.is_some() {
                return Err(usage("--json-string-chars goes with --json-items".into()));
            }
            return Ok(());
        }
        let head_chars = matches!(cap, CapSpec::HeadChars(_));
        if !head_chars && !matches!(cap, CapSpec::HeadLines { .. }) {
            return Err(usage("--json-items goes with --head-chars or --head-lines".into()));
        }
        let conflicts = [
            (self.offset.is_some_and(|k| k > 0), "--offset"),
            (self.line_numbers, "--line-numbers"),
            (self.keep.is_some(), "--keep"),
            (self.stop_at_cap, "--stop-at-cap"),
            (head_chars && self.max_line_chars.is_some(), "--max-line-chars with --head-chars"),
        ];
        match conflicts.iter().find(|(given, _)| *given) {
            Some((_, name)) => {
                Err(usage(format!("{name} does not go with --json-items, whose output is JSON as a whole")))
            }
            None => Ok(()),
        }
    }

    pub(super) fn into_run(self) -> Result<Run, clap::Error> {
        let cap = self.cap()?;
        let command = self.command_spec()?;
        self.check_companions(cap, command.is_some())?;
        let tokenizer = self.tokenizer.map_or(Tokenizer::Estimate, Tokenizer::from);
        let pattern = self.pattern.map(|text| Pattern { text, fixed: self.fixed_strings });
        if let Some(Err(e)) = pattern.as_ref().map(Pattern::check) {
            return Err(invalid("--pattern", &e.to_string()));
        }
        let keep = self.keep.map(|pattern| Keep { pattern, max: self.keep_max.unwrap_or(DEFAULT_KEEP_MAX) });
        if let Some(Err(e)) = keep.as_ref().map(|k| Pattern { text: k.pattern.clone(), fixed: false }.check())
        {
            return Err(invalid("--keep", &e.to_string()));
        }
        let template = match self.notice_format.as_deref().map(Template::parse) {
            Some(Err(e)) => {
                let template = self.notice_format.as_deref().unwrap_or_default();
                return Err(invalid("--notice-format", &format!("{e} in '{template}'")));
            }
            Some(Ok(t)) => Some(t),
            None => None,
        };
        let save = match (self.save, self.save_dir) {
            (Some(file), _) => Some(SaveTo::File(file)),
            (None, Some(dir)) => Some(SaveTo::Dir(dir)),
            (None, None) => None,
        };
        let mut options = Options::new(cap);
        options.pattern = pattern;
        options.unit = if self.bytes { Unit::Bytes } else { Unit::Chars };
        options.tokenizer = tokenizer;
        options.max_line_chars = self.max_line_chars;
        options.line_numbers = self.line_numbers;
        options.budget = self.budget_chars;
        options.match_offset =
            if matches!(cap, CapSpec::MaxMatches(_)) { self.offset.unwrap_or(0) } else { 0 };
        options.strip_ansi = self.strip_ansi;
        options.collapse_cr = self.collapse_cr;
        options.render = self.render.then(|| {
            let (width, height) = DEFAULT_RENDER;
            (self.render_width.unwrap_or(width), self.render_height.unwrap_or(height))
        });
        options.keep = keep;
        options.notice = match self.notice {
            None | Some(NoticeArg::Stdout) => NoticeTarget::Stdout,
            Some(NoticeArg::Stderr) => NoticeTarget::Stderr,
            Some(NoticeArg::None) => NoticeTarget::None,
        };
        options.template = template;
        options.json = self.json;
        options.save = save;
        options.progress = match self.progress {
            None | Some(When::Auto) => std::io::stderr().is_terminal(),
            Some(When::Always) => true,
            Some(When::Never) => false,
        };
        options.ignore_case = self.ignore_case;
        options.hide_binary = matches!(self.binary, Some(BinaryArg::Hide));
        options.stop_at_cap = self.stop_at_cap;
        options.json_items = self.json_items;
        options.json_string_chars = self.json_string_chars.unwrap_or(capout_core::DEFAULT_JSON_STRING_CHARS);
        Ok(Run { options, command, input: self.input, ledger: self.ledger })
    }

    /// The command to run, with the options that only make sense with one.
    fn command_spec(&self) -> Result<Option<CommandSpec>, clap::Error> {
        if self.command.is_empty() {
            for (given, name) in [
                (self.timeout.is_some(), "--timeout"),
                (self.kill_after.is_some(), "--kill-after"),
                (self.stdout_only, "--stdout-only"),
            ] {
                if given {
                    return Err(usage(format!(
                        "{name} goes with a command: capout [OPTIONS] -- COMMAND [ARG]..."
                    )));
                }
            }
            return Ok(None);
        }
        if self.kill_after.is_some() && self.timeout.is_none() {
            return Err(usage("--kill-after goes with --timeout".into()));
        }
        // Zero turns a timer off, as in GNU timeout.
        let nonzero = |d: Duration| (!d.is_zero()).then_some(d);
        let timeout = self.timeout.as_ref().filter(|t| !t.value.is_zero()).map(|t| Timeout {
            after: t.value,
            label: t.label.clone(),
            kill_after: self.kill_after.as_ref().map_or(Some(DEFAULT_KILL_AFTER), |k| nonzero(k.value)),
        });
        let mut words = self.command.iter().cloned();
        let program = words.next().unwrap_or_default();
        Ok(Some(CommandSpec { program, args: words.collect(), timeout, stdout_only: self.stdout_only }))
    }

    /// The cap: one of them, or one of the two head+tail pairs.
    pub(super) fn cap(&self) -> Result<CapSpec, clap::Error> {
        let others = [self.tail_chars, self.head_chars, self.head_lines, self.tail_lines, self.max_matches];
        match (self.head_tokens, self.tail_tokens) {
            (None, None) => {}
            (head, tail) if others.iter().all(Option::is_none) => {
                return Ok(match (head, tail) {
                    (Some(h), Some(t)) => CapSpec::HeadTailTokens(h, t),
                    (Some(h), None) => CapSpec::HeadTokens(h),
                    (_, t) => CapSpec::TailTokens(t.unwrap_or_default()),
                });
            }
            _ => return Err(self.conflicting_caps()),
        }
        let offset = self.offset.unwrap_or(0);
        Ok(match (self.tail_chars, self.head_chars, self.head_lines, self.tail_lines, self.max_matches) {
            (None, None, None, None, None) => CapSpec::TailChars(DEFAULT_TAIL_CHARS),
            (Some(n), None, None, None, None) => CapSpec::TailChars(n),
            (None, Some(n), None, None, None) => CapSpec::HeadChars(n),
            (None, None, Some(limit), None, None) => CapSpec::HeadLines { limit, offset },
            (None, None, None, Some(n), None) => CapSpec::TailLines(n),
            (None, None, None, None, Some(n)) => CapSpec::MaxMatches(n),
            (Some(t), Some(h), None, None, None) => CapSpec::HeadTailChars(h, t),
            (None, None, Some(h), Some(t), None) => CapSpec::HeadTailLines(h, t),
            _ => return Err(self.conflicting_caps()),
        })
    }

    /// The usage error of caps that do not go together.
    fn conflicting_caps(&self) -> clap::Error {
        let caps = [
            ("tail_chars", "--tail-chars", self.tail_chars),
            ("head_chars", "--head-chars", self.head_chars),
            ("head_lines", "--head-lines", self.head_lines),
            ("tail_lines", "--tail-lines", self.tail_lines),
            ("max_matches", "--max-matches", self.max_matches),
            ("head_tokens", "--head-tokens", self.head_tokens),
            ("tail_tokens", "--tail-tokens", self.tail_tokens),
        ];
        let mut given: Vec<(usize, String)> = caps
            .into_iter()
            .filter_map(|(id, name, value)| {
                let place = self.cap_order.iter().position(|&o| o == id).unwrap_or(usize::MAX);
                value.map(|v| (place, format!("{name} {v}")))
            })
            .collect();
        given.sort_by_key(|&(place, _)| place);
        let given: Vec<String> = given.into_iter().map(|(_, text)| text).collect();
        usage(format!("the caps {} cannot be used together", given.join(" and ")))
    }
}
