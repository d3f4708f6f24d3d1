//! The caps of the tools' results: the profile `tool` (or the one
//! `--profile` names) for every tool, but those the config file's
//! `[tools]` table names another profile for, or leaves alone.
//!
//! Every profile a rule names is loaded at the start, so that a bad one
//! is an error then, not in the middle of a session.

use std::path::Path;

use capout_core::{NoticeTarget, Options, SaveTo};

use crate::profiles::{self, ConfigFile, ToolRule};

/// The profiles that bound results, loaded.
#[derive(Debug)]
pub struct Caps {
    /// Each profile's name and options; the first is the default.
    profiles: Vec<(String, Options)>,
    file: Option<ConfigFile>,
}

impl Caps {
    /// The profile `default` and those of `file`'s `[tools]` rules, each
    /// saving what it cuts in `saved`.
    pub fn load(file: Option<ConfigFile>, default: &str, saved: &Path) -> Result<Caps, String> {
        let load = |name: &str| {
            let mut options = profiles::config_with(file.as_ref(), name)?;
            // The result is the model's: the notice with it, no live
            // count, no JSON object; the whole saved for paging.
            options.notice = NoticeTarget::Stdout;
            options.json = false;
            options.progress = false;
            // What the engine refuses (a pattern), it refuses now.
            capout_core::Capper::with_options(&options).map_err(|e| format!("profile {name}: {e}"))?;
            options.save = Some(SaveTo::Dir(saved.to_path_buf()));
            Ok::<_, String>((name.to_owned(), options))
        };
        let mut profiles = vec![load(default)?];
        for (_, rule) in file.iter().flat_map(ConfigFile::tool_rules) {
            if let ToolRule::Profile(name) = rule
                && !profiles.iter().any(|(n, _)| n == name)
            {
                profiles.push(load(name)?);
            }
        }
        Ok(Caps { profiles, file })
    }

    /// The profile that bounds the results of the tool `name`, by its
    /// index; `None` when they are left as they are.
    pub fn for_tool(&self, name: &str) -> Option<usize> {
        match profiles::tool_rule(self.file.as_ref(), name) {
            None => Some(0),
            Some(ToolRule::Leave) => None,
            Some(ToolRule::Profile(profile)) => self.profiles.iter().position(|(n, _)| n == profile),
        }
    }

    /// The options of the profile of index `profile`.
    pub fn options(&self, profile: usize) -> &Options {
        &self.profiles[profile].1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use capout_core::CapSpec;

    #[test]
    fn each_tool_gets_the_profile_its_rule_names() {
        let file = ConfigFile::parse(
            Path::new("c.toml"),
            "[tools]\n\"read_*\" = \"read\"\n\"secret\" = false\n\"q\" = \"quick\"\n[profile.quick]\nhead-lines = 3\n",
        )
        .unwrap();
        let caps = Caps::load(Some(file), "tool", Path::new("/saved")).unwrap();
        let cap = |name| caps.for_tool(name).map(|p| caps.options(p).cap);
        assert_eq!(cap("other"), Some(CapSpec::HeadChars(8000)));
        assert_eq!(cap("read_text_file"), Some(CapSpec::HeadLines { limit: 500, offset: 0 }));
        assert_eq!(cap("q"), Some(CapSpec::HeadLines { limit: 3, offset: 0 }));
        assert_eq!(cap("secret"), None);
        let options = caps.options(0);
        assert_eq!(options.save, Some(SaveTo::Dir("/saved".into())));
        assert_eq!(options.notice, NoticeTarget::Stdout);
    }

    #[test]
    fn a_profile_that_does_not_load_is_an_error_at_the_start() {
        let file =
            ConfigFile::parse(Path::new("c.toml"), "[tools]\nx = \"bad\"\n[profile.bad]\ntail-chars = 0\n")
                .unwrap();
        let e = Caps::load(Some(file), "tool", Path::new("/saved")).unwrap_err();
        assert!(e.starts_with("in config file c.toml [profile.bad] tail-chars: invalid value '0'"), "{e}");
        let e = Caps::load(None, "nosuch", Path::new("/saved")).unwrap_err();
        assert!(e.starts_with("no such profile: nosuch"), "{e}");
    }
}
