//! `--completions bash`, written here rather than by `clap_complete`: its
//! bash script offers capout's options after the command word and file
//! names after a number, as it knows neither where a command starts nor
//! what a value hint means. The script is made from the clap command, so
//! that it knows every option. The other shells' scripts are clap's.

use std::ffi::OsString;
use std::fmt::Write;

use clap::{Arg, ValueHint};

/// The manual page, capout(1), as roff: `capout --man | man -l -` reads it
/// after any way of installing capout, also those that leave the page
/// where `man` does not look (`cargo install`, `uv tool install`). Only
/// `capout-mcp` holds it (`capout --man` runs `capout-mcp --man`): in the
/// filter, its 35 KB would lie among the read-only data that every run
/// maps.
pub const MANUAL: &str = include_str!("../../../man/capout.1");

/// Whether the command line is `capout --man` and nothing else.
pub fn manual_requested(args: impl IntoIterator<Item = OsString>) -> bool {
    let mut words = args.into_iter().skip(1);
    words.next().is_some_and(|word| word == "--man") && words.next().is_none()
}

/// Whether the command line is `capout --list-profiles` and nothing else:
/// the bash script asks capout for the names of the profiles each time it
/// completes `--profile`, so that those of the config file are offered.
/// Not an option of the parser: it is no option of a run.
pub fn profiles_requested(args: impl IntoIterator<Item = OsString>) -> bool {
    let mut words = args.into_iter().skip(1);
    words.next().is_some_and(|word| word == "--list-profiles") && words.next().is_none()
}

/// Writes the names of the profiles, one a line: the built-in ones, then
/// those of the config file. A config file with an error gives only the
/// built-in ones: a completion has nowhere to show the error, and the run
/// that follows names it.
pub fn list_profiles(out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let file = crate::profiles::ConfigFile::load().ok().flatten();
    let mut text = String::new();
    for name in crate::profiles::names(file.as_ref()) {
        text.push_str(name);
        text.push('\n');
    }
    out.write_all(text.as_bytes())
}

/// The bash completion script for `cmd`.
pub fn bash(cmd: &clap::Command) -> String {
    let mut longs = Vec::new();
    let mut shorts = Vec::new();
    let mut value_shorts = String::new();
    let mut values = String::new();
    for arg in cmd.get_arguments().filter(|arg| !arg.is_positional()) {
        let names = names(arg);
        longs.extend(arg.get_long().map(|long| format!("--{long}")));
        longs.extend(arg.get_visible_aliases().into_iter().flatten().map(|alias| format!("--{alias}")));
        shorts.extend(arg.get_short().map(|short| format!("-{short}")));
        if !arg.get_action().takes_values() {
            continue;
        }
        if let Some(short) = arg.get_short() {
            value_shorts.push(short);
        }
        let possible: Vec<String> =
            arg.get_possible_values().iter().map(|v| v.get_name().to_owned()).collect();
        let reply = if arg.get_id() == "profile" {
            // Asked at completion time: the config file may change. The
            // built-in names stand in when no capout is on PATH.
            let built_in: Vec<&str> = crate::profiles::BUILT_IN.iter().map(|(name, _)| *name).collect();
            format!(
                "local names; names=$(command capout --list-profiles </dev/null 2>/dev/null) || names='{}'; \
                 COMPREPLY=($(compgen -W \"$names\" -- \"$cur\"))",
                built_in.join(" ")
            )
        } else if possible.is_empty() {
            match arg.get_value_hint() {
                ValueHint::DirPath => "_capout_files -d".to_owned(),
                ValueHint::FilePath | ValueHint::AnyPath | ValueHint::Unknown => {
                    "_capout_files -f".to_owned()
                }
                _ => "COMPREPLY=()".to_owned(),
            }
        } else {
            format!("COMPREPLY=($(compgen -W '{}' -- \"$cur\"))", possible.join(" "))
        };
        let _ = writeln!(values, "        {}) {reply}; return ;;", names.join("|"));
    }
    let options = [shorts, longs].concat().join(" ");
    SCRIPT
        .replace("@VALUE_LONGS@", &value_longs(cmd).join(" "))
        .replace("@VALUE_SHORTS@", &value_shorts)
        .replace("@VALUES@", &values)
        .replace("@OPTIONS@", &options)
}

/// The script, with the option lists left as `@NAME@`.
const SCRIPT: &str = r#"# bash completion for capout
#
# Before the command: capout's options, and the values they take (files
# after --save, nothing after a number). At the command word: command
# names (after -- too). After it: the command's own arguments, as
# bash-completion completes them for that command, else file names.

_capout_files() {
    compopt -o filenames 2>/dev/null
    mapfile -t COMPREPLY < <(compgen "$1" -- "$cur")
}

_capout() {
    local cur=${COMP_WORDS[COMP_CWORD]} i=1 word j
    COMPREPLY=()
    # The command starts at the first word that is neither an option nor
    # an option's value, or after --.
    local dashes=0
    while ((i < COMP_CWORD)); do
        word=${COMP_WORDS[i]}
        case $word in
        --) dashes=1; ((i++)); break ;;
        --*=*) ;;
        --*)
            case " @VALUE_LONGS@ " in
            *" $word "*) ((i++)) ;;
            esac
            ;;
        -?*)
            # A cluster of short options: one that takes a value takes
            # the rest of the word, or the next word when it is the last.
            for ((j = 1; j < ${#word}; j++)); do
                if [[ "@VALUE_SHORTS@" == *"${word:j:1}"* ]]; then
                    ((j == ${#word} - 1)) && ((i++))
                    break
                fi
            done
            ;;
        *) break ;;
        esac
        ((i++))
    done
    if ((i < COMP_CWORD)); then
        # The command's own arguments.
        if declare -F _command_offset >/dev/null; then
            _command_offset "$i"
        else
            _capout_files -f
        fi
        return
    fi
    if ((i == COMP_CWORD)) && ((dashes)); then
        mapfile -t COMPREPLY < <(compgen -c -- "$cur")
        return
    fi
    if ((COMP_CWORD > 1)); then
        case ${COMP_WORDS[COMP_CWORD - 1]} in
@VALUES@        esac
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W '@OPTIONS@' -- "$cur"))
    else
        mapfile -t COMPREPLY < <(compgen -c -- "$cur")
    fi
}

complete -F _capout capout
"#;

/// The names an option is given by: `--long`, its aliases, `-s`.
fn names(arg: &Arg) -> Vec<String> {
    let mut names: Vec<String> = arg.get_long().map(|long| format!("--{long}")).into_iter().collect();
    names.extend(arg.get_visible_aliases().into_iter().flatten().map(|alias| format!("--{alias}")));
    names.extend(arg.get_short().map(|short| format!("-{short}")));
    names
}

/// The long names of the options that take a value.
fn value_longs(cmd: &clap::Command) -> Vec<String> {
    cmd.get_arguments()
        .filter(|arg| !arg.is_positional() && arg.get_action().takes_values())
        .flat_map(|arg| names(arg).into_iter().filter(|name| name.starts_with("--")))
        .collect()
}
