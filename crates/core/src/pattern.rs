//! [`Pattern`] (`--pattern`) and [`Keep`] (`--keep`): the line patterns
//! a caller gives, checked and compiled once.

use crate::search::matcher::Matcher;

/// A line pattern as given on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    /// The pattern.
    pub text: String,
    /// Whether it is a literal string rather than a regex.
    pub fixed: bool,
}

impl Pattern {
    /// A pattern to match as a regex (Rust `regex` syntax).
    pub fn regex(text: impl Into<String>) -> Self {
        Pattern { text: text.into(), fixed: false }
    }

    /// Checks that the pattern is valid; the error says why it is not.
    pub fn check(&self) -> Result<(), PatternError> {
        self.compile("--pattern").map(drop)
    }

    /// The compiled pattern.
    #[doc(hidden)]
    pub fn matcher(&self) -> Result<Matcher, PatternError> {
        self.compile("--pattern")
    }

    fn compile(&self, option: &'static str) -> Result<Matcher, PatternError> {
        self.compile_with_case(option, false)
    }

    pub(crate) fn compile_with_case(
        &self,
        option: &'static str,
        ignore_case: bool,
    ) -> Result<Matcher, PatternError> {
        Matcher::with_case(&self.text, self.fixed, ignore_case).map_err(|source| PatternError {
            option,
            pattern: self.text.clone(),
            source: Box::new(source),
        })
    }
}

impl Keep {
    pub(crate) fn compile(&self, ignore_case: bool) -> Result<Matcher, PatternError> {
        Pattern::regex(self.pattern.clone()).compile_with_case("--keep", ignore_case)
    }
}

/// A pattern that is not a valid regex.
#[derive(Debug, thiserror::Error)]
#[error("{source}")]
pub struct PatternError {
    /// The option that gave it: `--pattern` or `--keep`.
    pub option: &'static str,
    /// The pattern.
    pub pattern: String,
    /// What is wrong with it, and where.
    #[source]
    source: Box<regex::Error>,
}

/// `--keep REGEX --keep-max K`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Keep {
    /// The pattern of the lines to rescue.
    pub pattern: String,
    /// How many rescued lines to show at most.
    pub max: u64,
}
