//! What is read without building clap's parser, whose cost is more than
//! the rest of a run on a small input: `capout --mcp [--root DIR]`,
//! `capout --mcp-wrap ...`, and
//! the command lines that harness hooks and short runs give.

use std::ffi::OsString;
use std::path::PathBuf;

use super::args::{Args, BinaryArg};

/// The options of `args` (the first is the program's name) without
/// building the parser, when they are none or one cap and its number, as
/// in `capout -c 5000`, or a built-in profile that `file` leaves as it is
/// with `--save-dir DIR`, either or both, and then maybe `-- COMMAND
/// [ARG]...`, as Claude Code's shell prefix runs every command: the
/// parser costs more than the rest of a run on a small input. Anything
/// else, a number clap would refuse included, is left to the parser
/// (`None`), which gives the same options for these.
pub(super) fn simple(args: &[OsString], file: Option<&crate::profiles::ConfigFile>) -> Option<Args> {
    let mut parsed = Args::default();
    let mut words = &args[1..];
    // Everything after the first `--` is the command's own: no word
    // before it may be one that takes `--` for its value, as the forms
    // below ensure.
    if let Some(at) = words.iter().position(|w| w == "--") {
        let command = &words[at + 1..];
        if command.is_empty() {
            return None;
        }
        parsed.command = command.to_vec();
        words = &words[..at];
    }
    match words {
        [] => {}
        [option, number] if option != "--profile" && option != "--save-dir" => {
            set_cap(&mut parsed, option.to_str()?, number.to_str()?)?;
        }
        _ => {
            let (profile, save_dir) = match words {
                [p, name] if p == "--profile" => (Some(name), None),
                [s, dir] if s == "--save-dir" => (None, Some(dir)),
                [p, name, s, dir] | [s, dir, p, name] if p == "--profile" && s == "--save-dir" => {
                    (Some(name), Some(dir))
                }
                _ => return None,
            };
            if let Some(dir) = save_dir {
                // clap refuses an empty path, and takes a word that starts
                // with `-` for an option.
                if dir.is_empty() || dir.as_encoded_bytes()[0] == b'-' {
                    return None;
                }
                parsed.save_dir = Some(PathBuf::from(dir));
            }
            if let Some(name) = profile {
                let name = name.to_str()?;
                let mut profile = crate::profiles::built_in(file, name)?.iter();
                while let Some(&word) = profile.next() {
                    match word {
                        "--strip-ansi" => parsed.strip_ansi = true,
                        "--collapse-cr" => parsed.collapse_cr = true,
                        "--binary" => {
                            parsed.binary = Some(match *profile.next()? {
                                "hide" => BinaryArg::Hide,
                                "show" => BinaryArg::Show,
                                _ => return None,
                            });
                        }
                        "--budget-chars" => parsed.budget_chars = Some(number(profile.next()?)?),
                        "--json-items" => parsed.json_items = Some(number(profile.next()?)?),
                        cap => set_cap(&mut parsed, cap, profile.next()?)?,
                    }
                }
                parsed.profile = Some(name.to_owned());
            }
        }
    }
    Some(parsed)
}

/// Sets the cap `option` to the number `text` in `parsed`, a cap not set before,
/// when both are as the parser takes them without a question.
fn set_cap(parsed: &mut Args, option: &str, text: &str) -> Option<()> {
    if !parsed.cap_order.is_empty() {
        return None;
    }
    let (field, id) = match option {
        "-c" | "--tail-chars" => (&mut parsed.tail_chars, "tail_chars"),
        "-n" | "--head-lines" => (&mut parsed.head_lines, "head_lines"),
        "--head-chars" => (&mut parsed.head_chars, "head_chars"),
        "--tail-lines" => (&mut parsed.tail_lines, "tail_lines"),
        "--tail-tokens" => (&mut parsed.tail_tokens, "tail_tokens"),
        "--head-tokens" => (&mut parsed.head_tokens, "head_tokens"),
        "--max-matches" => (&mut parsed.max_matches, "max_matches"),
        _ => return None,
    };
    *field = Some(number(text)?);
    parsed.cap_order.push(id);
    Some(())
}

/// A cap's number in plain digits, from 1 up, as `cap_value` takes it.
fn number(text: &str) -> Option<u64> {
    text.bytes().all(|b| b.is_ascii_digit()).then(|| text.parse::<u64>().ok()).flatten().filter(|&n| n >= 1)
}

/// The root of `capout --mcp` (`.` unless given), when the command line
/// is that and nothing else: `--mcp`, with `--root DIR` (or `--root=DIR`) before or after it.
/// Any other word leaves it to the ordinary parse, which says what is
/// wrong and documents both options in `--help`.
pub fn mcp_requested(args: impl IntoIterator<Item = OsString>) -> Option<PathBuf> {
    let mut words = args.into_iter().skip(1);
    let (mut mcp, mut root) = (false, None);
    while let Some(word) = words.next() {
        match word.to_str() {
            Some("--mcp") if !mcp => mcp = true,
            Some("--root") if root.is_none() => root = Some(PathBuf::from(words.next()?)),
            Some(w) if root.is_none() && w.starts_with("--root=") => root = Some(PathBuf::from(&w[7..])),
            _ => return None,
        }
    }
    mcp.then(|| root.unwrap_or_else(|| PathBuf::from(".")))
}

/// The words after `--mcp-wrap`, when the command line starts with it:
/// `capout --mcp-wrap [OPTIONS] -- COMMAND [ARG]...` is the MCP proxy,
/// whose own parser (in `capout-mcp --wrap`) reads them.
pub fn wrap_requested(args: impl IntoIterator<Item = OsString>) -> Option<Vec<OsString>> {
    let mut words = args.into_iter().skip(1);
    words.next().filter(|word| word == "--mcp-wrap").map(|_| words.collect())
}
