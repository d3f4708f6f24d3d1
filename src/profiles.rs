//! Profiles: named sets of options (SPEC §10).
//!
//! Only the built-in profiles of the three standard tools are here, each
//! as the options it stands for, parsed as a command line is, so that a
//! profile means exactly what those options mean. The config file's
//! `[profile.NAME]` tables and `--profile NAME` build on [`args`] and
//! [`config`]: a table redefines a profile's options, and the result is
//! parsed the same way.

use capout::Config;

use crate::cli::{self, Action};

/// The built-in profiles: `read`, `grep` and `bash`, the caps of the
/// three standard tools.
pub const BUILT_IN: [(&str, &[&str]); 3] = [
    ("read", &["--head-lines", "500"]),
    ("grep", &["--max-matches", "50"]),
    ("bash", &["--tail-chars", "5000"]),
];

/// The options of the profile `name`, or `None` when there is no such
/// profile.
pub fn args(name: &str) -> Option<&'static [&'static str]> {
    BUILT_IN.iter().find(|(n, _)| *n == name).map(|(_, args)| *args)
}

/// The config of the profile `name`: its options alone, over the
/// built-in defaults.
pub fn config(name: &str) -> Result<Config, String> {
    let args = args(name).ok_or_else(|| format!("no such profile: {name}"))?;
    match cli::try_parse(std::iter::once("capout").chain(args.iter().copied()), None) {
        Ok(Action::Run(config)) => Ok(*config),
        Ok(_) => Err(format!("profile {name}: not a set of options")),
        Err(e) => Err(format!("profile {name}: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use capout::CapSpec;

    #[test]
    fn the_built_in_profiles_are_the_standard_caps() {
        assert_eq!(config("read").unwrap().cap, CapSpec::HeadLines { limit: 500, offset: 0 });
        assert_eq!(config("grep").unwrap().cap, CapSpec::MaxMatches(50));
        assert_eq!(config("bash").unwrap().cap, CapSpec::TailChars(5000));
        assert_eq!(config("read").unwrap().max_line, Some(2000));
        assert!(config("nosuch").is_err());
    }
}
