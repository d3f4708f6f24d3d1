//! [`Options`]: what a [`Capper`](crate::Capper) keeps and how it says
//! so, with the defaults of the `capout` command, and the settings it is
//! made of ([`Tokenizer`], [`Limits`]).

use crate::notice::Template;
use crate::output::NoticeTarget;
use crate::save::SaveTo;
use crate::text::count::{Need, Unit};
use crate::{CapSpec, Keep, Pattern, search, transform};

/// The default read size of [`run`](crate::run) and [`Capper::pull`](crate::Capper::pull)
/// ([`Options::read_size`]).
pub const READ_SIZE: usize = 64 * 1024;

/// `--max-line-chars` when a line cap is given without it, so that no cap
/// lets an unbounded line through.
pub const DEFAULT_MAX_LINE: u64 = 2000;

/// The cap when none is given: `--tail-chars 5000`.
pub const DEFAULT_TAIL_CHARS: u64 = 5000;

/// `--json-string-chars` when `--json-items` is given without it.
pub const DEFAULT_JSON_STRING_CHARS: u64 = 1000;

/// The internal limits on how much of one line is held in memory. The
/// output never depends on how reads split the input, also past these
/// limits; tests shrink them to cross them with small inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The longest stretch of a line `--collapse-cr` holds while it waits
    /// to see whether a `\r` erases it; a longer one is passed on whole.
    pub collapse_cr: usize,
    /// The most of one line, in bytes, that patterns (`--pattern`,
    /// `--keep`) see; a longer line is matched on its start.
    pub pattern_line: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { collapse_cr: transform::COLLAPSE_LIMIT, pattern_line: search::matcher::LINE_LIMIT }
    }
}

/// How a token cap counts tokens (`--tokenizer`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Tokenizer {
    /// The estimator of [`tokens`](crate::tokens): no vocabulary, constant memory.
    #[default]
    Estimate,
    /// `OpenAI`'s `o200k_base`, exact (cargo feature `exact-tokens`).
    O200k,
    /// `OpenAI`'s `cl100k_base`, exact (cargo feature `exact-tokens`).
    Cl100k,
}

impl Tokenizer {
    /// The name of the tokenizer in `--tokenizer` and `--json`.
    pub fn name(self) -> &'static str {
        match self {
            Tokenizer::Estimate => "estimate",
            Tokenizer::O200k => "o200k",
            Tokenizer::Cl100k => "cl100k",
        }
    }

    /// Whether this build can count with it: the exact tokenizers need
    /// the cargo feature `exact-tokens`.
    pub fn available(self) -> bool {
        self == Tokenizer::Estimate || cfg!(feature = "exact-tokens")
    }
}

/// What a [`Capper`](crate::Capper) keeps, and how it says so. The defaults are those of
/// the `capout` command: `--tail-chars 5000`, characters, notices after
/// the output; `--max-line-chars 2000` with a line cap.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {
    /// The cap.
    pub cap: CapSpec,
    /// `--pattern`, for [`CapSpec::MaxMatches`].
    pub pattern: Option<Pattern>,
    /// Characters or bytes.
    pub unit: Unit,
    /// Units kept of each line: `None` for the default (2000 with a line
    /// cap, all with a character cap), `Some(0)` for all.
    pub max_line_chars: Option<u64>,
    /// Number the kept lines (with a line cap).
    pub line_numbers: bool,
    /// The units that all a line cap keeps may take, whole lines only
    /// (`--budget-chars`).
    pub budget: Option<u64>,
    /// Matches skipped before the page of [`CapSpec::MaxMatches`]
    /// (`--offset`).
    pub match_offset: u64,
    /// Remove ANSI escape sequences first.
    pub strip_ansi: bool,
    /// Keep only what follows the last `\r` of each line.
    pub collapse_cr: bool,
    /// Show the stream as a terminal of `(columns, rows)` would, and cap
    /// its rows (`--render`): a row that scrolls off the top goes on to
    /// the cap, then, at the end, the screen's rows up to the last that
    /// holds text. It does what [`Options::strip_ansi`] and
    /// [`Options::collapse_cr`] do, and more. The screen is allocated
    /// whole: about 24 bytes a cell, twice while a full-screen program
    /// has the alternate screen. A width below 2 counts as 2 and a height
    /// below 1 as 1.
    pub render: Option<(u16, u16)>,
    /// Rescue cut lines that match.
    pub keep: Option<Keep>,
    /// `--ignore-case`: `pattern` and `keep` match without regard to case.
    pub ignore_case: bool,
    /// Where notices go.
    pub notice: NoticeTarget,
    /// The wording of the cap's notice (`--notice-format`).
    pub template: Option<Template>,
    /// Where to save the whole stream.
    pub save: Option<SaveTo>,
    /// How a token cap counts tokens.
    pub tokenizer: Tokenizer,
    /// Replace a binary stream (a NUL byte in its first 8 KiB) by one
    /// line, `(binary output, N bytes: not shown)`, which ends with
    /// `; full output: PATH)` when the stream is saved: the save file then
    /// always holds the stream, `--save-dir`'s too. The start of the
    /// stream is held back until 8 KiB or its end decide.
    pub hide_binary: bool,
    /// `--json`: the caller writes the notices, from the [`Summary`](crate::Summary), as
    /// the `capout` command writes them into its JSON object. A capper
    /// made with [`Capper::with_options`](crate::Capper::with_options) then writes no notice, keeps the
    /// line between the two parts of a head+tail pair in the output, and
    /// counts every total; [`Capper::new`](crate::Capper::new) ignores it.
    pub json: bool,
    /// `--progress`: the caller shows a live count from
    /// [`Capper::totals`](crate::Capper::totals) between reads, so the lines are counted.
    pub progress: bool,
    /// The bytes [`run`](crate::run) and [`Capper::pull`](crate::Capper::pull) ask of each read.
    pub read_size: usize,
    /// How much of one line is held in memory.
    pub limits: Limits,
    /// `--stop-at-cap` of [`run`](crate::run) and [`Capper::pull`](crate::Capper::pull): a head cap stops
    /// reading once it has all it keeps and has seen input past it; the
    /// notice then has no total.
    pub stop_at_cap: bool,
    /// Count every total (lines, characters, and the tokens of a token
    /// cap) whether or not a notice reads it, so that the [`Summary`](crate::Summary) of
    /// [`run`](crate::run) tells all it can, as `--json` does. [`Capper::new`](crate::Capper::new) counts
    /// the lines and characters whatever this says;
    /// [`Capper::new_counting_all`](crate::Capper::new_counting_all) counts every total.
    pub count_totals: bool,
    /// `--json-items N`: a stream that begins as JSON (its first byte
    /// other than whitespace is `[` or `{`), a JSON text or JSON Lines, is
    /// cut so that it stays JSON: every array keeps its first N items,
    /// every object its first N members, every string its first
    /// [`Options::json_string_chars`] characters, and the head cap's
    /// budget decides how many more items go, last first (the rules:
    /// [`JsonCut`](crate::JsonCut) and the `capout` manual). The output is
    /// written once the stream has ended; a stream that is not JSON to its
    /// end is capped as text, as without this option.
    ///
    /// With [`CapSpec::HeadChars`] the budget is its limit; with
    /// [`CapSpec::HeadLines`] (without an offset) the limit counts
    /// documents, and the budget is [`Options::budget`], else the limit
    /// times [`Options::max_line`]. With any other cap, line numbers or
    /// [`Options::keep`], it does nothing.
    pub json_items: Option<u64>,
    /// `--json-string-chars M`: the characters kept of each string by the
    /// cut of [`Options::json_items`]; 0 for all.
    pub json_string_chars: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            cap: CapSpec::TailChars(DEFAULT_TAIL_CHARS),
            pattern: None,
            unit: Unit::Chars,
            max_line_chars: None,
            line_numbers: false,
            budget: None,
            match_offset: 0,
            strip_ansi: false,
            collapse_cr: false,
            render: None,
            keep: None,
            ignore_case: false,
            notice: NoticeTarget::Stdout,
            template: None,
            save: None,
            tokenizer: Tokenizer::Estimate,
            hide_binary: false,
            json: false,
            progress: false,
            read_size: READ_SIZE,
            limits: Limits::default(),
            stop_at_cap: false,
            count_totals: false,
            json_items: None,
            json_string_chars: DEFAULT_JSON_STRING_CHARS,
        }
    }
}

impl Options {
    /// The defaults with `cap`.
    pub fn new(cap: CapSpec) -> Self {
        Options { cap, ..Options::default() }
    }
}

impl Options {
    /// The units kept of each line in force: [`Options::max_line_chars`]
    /// with its default, [`DEFAULT_MAX_LINE`] for a line cap; `None` for
    /// all.
    pub fn max_line(&self) -> Option<u64> {
        match self.max_line_chars {
            Some(0) => None,
            Some(w) => Some(w),
            None => self.cap.is_line_cap().then_some(DEFAULT_MAX_LINE),
        }
    }

    /// The settings of the cut of JSON, when [`Options::json_items`] is in
    /// force with a cap it goes with.
    pub(crate) fn json_cut(&self) -> Option<crate::json::Settings> {
        let items = self.json_items?;
        if self.line_numbers || self.keep.is_some() {
            return None;
        }
        let (budget, documents) = match self.cap {
            CapSpec::HeadChars(n) => (n, u64::MAX),
            CapSpec::HeadLines { limit, offset: 0 } => {
                let budget = self.budget.or_else(|| self.max_line().map(|w| w.saturating_mul(limit)));
                (budget.unwrap_or(u64::MAX), limit)
            }
            _ => return None,
        };
        Some(crate::json::Settings {
            items,
            string_chars: self.json_string_chars,
            budget,
            unit: self.unit,
            documents,
        })
    }

    /// Whether something reads the totals of the whole input: `--json`,
    /// or a template that speaks of them.
    pub fn reads_totals(&self) -> bool {
        self.json || self.template.as_ref().is_some_and(Template::needs_totals)
    }

    /// The totals that something will read: the notices of the caps,
    /// `--json`, a template, the live count, the rescued lines. Decided
    /// here only; a total not counted reads as `None`.
    pub(crate) fn need(&self) -> Need {
        if self.reads_totals() || self.count_totals {
            return Need::ALL;
        }
        let lines = !matches!(self.cap, CapSpec::MaxMatches(_)) && self.cap.is_line_cap();
        let head_units = matches!(self.cap, CapSpec::HeadChars(_) | CapSpec::HeadTailChars(..));
        let chars = self.unit == Unit::Chars
            && (matches!(self.cap, CapSpec::HeadTailChars(..)) || (head_units && self.keep.is_some()));
        Need { lines: lines || self.progress, chars }
    }
}
