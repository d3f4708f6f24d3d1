complete -c capout -s c -l tail-chars -d 'Keep the last N characters [default cap: 5000]' -r -f
complete -c capout -s n -l head-lines -l limit -d 'Keep N lines, after --offset K lines' -r -f
complete -c capout -l offset -d 'Skip K lines before --head-lines starts, or K matches before --max-matches starts' -r -f
complete -c capout -s m -l max-matches -d 'Keep the first N matches (lines)' -r -f
complete -c capout -l head-chars -d 'Keep the first N characters (with --tail-chars: both ends)' -r -f
complete -c capout -l tail-lines -d 'Keep the last N lines (with --head-lines: both ends)' -r -f
complete -c capout -l tail-tokens -d 'Keep the last N tokens (with --head-tokens: both ends)' -r -f
complete -c capout -l head-tokens -d 'Keep the first N tokens' -r -f
complete -c capout -l tokenizer -d 'How the token caps count: estimate (no vocabulary), o200k or cl100k (exact) [default: estimate]' -r -f -a "estimate\t''
o200k\t''
cl100k\t''"
complete -c capout -s e -l pattern -d 'With --max-matches: count only lines matching REGEX' -r -f
complete -c capout -l max-line-chars -d 'Keep W characters of each line, 0 for all [default: 2000 with --head-lines, --tail-lines and --max-matches; off with the char caps]' -r -f
complete -c capout -l budget-chars -d 'With --head-lines, --tail-lines or --max-matches: keep at most N characters in all, whole lines only' -r -f
complete -c capout -l json-items -d 'With --head-chars or --head-lines: keep JSON valid, each array and object keeping its first N items, within the cap (--head-lines then counts documents)' -r -f
complete -c capout -l json-string-chars -d 'With --json-items: keep the first M characters of each string, 0 for all [default: 1000]' -r -f
complete -c capout -l render-width -d 'With --render: the terminal\'s width in columns, 2 to 10000 [default: 200]' -r -f
complete -c capout -l render-height -d 'With --render: the terminal\'s height in rows, 1 to 1000 [default: 50]' -r -f
complete -c capout -l keep -d 'Show the cut lines that match REGEX after the notice' -r -f
complete -c capout -l keep-max -d 'With --keep: show at most K rescued lines [default: 20]' -r -f
complete -c capout -l notice -d 'Where notices go [default: stdout]' -r -f -a "stdout\t''
stderr\t''
none\t''"
complete -c capout -l notice-format -d 'Word the notice with TEMPLATE: {shown} {limit} {total} {omitted} {unit} {first} {last} {next_offset} {saved}; with --json-items {json_items_kept} {json_items} {json_arrays_cut} {json_strings_cut} {json_documents_kept} {json_documents} {json_ended_at}' -r -f
complete -c capout -l binary -d 'Show input with a NUL byte in its first 8 KiB as it is, or hide it behind one line that says its size [default: show; hide in the profiles read and bash]' -r -f -a "show\t''
hide\t''"
complete -c capout -l input -d 'Read FILE instead of stdin' -r -F
complete -c capout -l profile -d 'Apply the options of profile NAME: read, grep, bash, tool, or a [profile.NAME] of the config file' -r -f
complete -c capout -l save -d 'Also write the whole input, uncut, to FILE' -r -F
complete -c capout -l save-dir -d 'Also write the whole input to a new DIR/capout-XXXXXX.log, removed when nothing was cut' -r -f -a "(__fish_complete_directories)"
complete -c capout -l progress -d 'Show a live count of what was read on stderr while a cap holds its output back [default: auto]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c capout -l timeout -d 'With a command: stop it after DURATION (30, 30s, 1.5s, 500ms, 2m, 1h, 1d; 0 for never) and exit 124' -r -f
complete -c capout -l kill-after -d 'With --timeout: send SIGKILL this long after SIGTERM, 0 for never [default: 5s]' -r -f
complete -c capout -l completions -d 'Print a completion script for SHELL and exit' -r -f -a "bash\t''
zsh\t''
fish\t''
elvish\t''"
complete -c capout -l root -d 'With --mcp: the directory the tools work in, and that paths may not leave [default: .]' -r -f -a "(__fish_complete_directories)"
complete -c capout -s F -l fixed-strings -d 'With --pattern: match it as a literal string'
complete -c capout -s i -l ignore-case -d 'Match --pattern and --keep without regard to case'
complete -c capout -l bytes -d 'Count bytes instead of characters'
complete -c capout -s N -l line-numbers -d 'Number kept lines as `cat -n` does'
complete -c capout -l strip-ansi -d 'Remove ANSI escape sequences before counting'
complete -c capout -l collapse-cr -d 'Keep only the text after the last carriage return of each line'
complete -c capout -l render -d 'Show what a terminal would show (cursor movement, erasures, redraws applied) and cap its rows'
complete -c capout -l json -d 'Print one JSON object instead of text'
complete -c capout -l stop-at-cap -d 'Stop reading once a head cap (--head-lines, --head-chars, --max-matches) is full, as head does: the notice then has no total. Without it every cap reads to the end, to count the total that its notice gives'
complete -c capout -l ledger -d 'Add a line for this run to the ledger that `capout stats` reads (a hooked call always does, a plain run only with this)'
complete -c capout -l show-config -d 'Print the options in force, each with where it came from, and exit'
complete -c capout -l stdout-only -d 'With a command: leave its stderr on capout\'s stderr instead of joining it'
complete -c capout -l mcp -d 'Serve the tools read, grep and bash over the Model Context Protocol on stdin and stdout'
complete -c capout -l no-fixed-strings -d 'Turn --fixed-strings off'
complete -c capout -l no-ignore-case -d 'Turn --ignore-case off'
complete -c capout -l no-bytes -d 'Turn --bytes off'
complete -c capout -l no-line-numbers -d 'Turn --line-numbers off'
complete -c capout -l no-strip-ansi -d 'Turn --strip-ansi off'
complete -c capout -l no-collapse-cr -d 'Turn --collapse-cr off'
complete -c capout -l no-render -d 'Turn --render off'
complete -c capout -l no-json -d 'Turn --json off'
complete -c capout -l no-stop-at-cap -d 'Turn --stop-at-cap off'
complete -c capout -l no-ledger -d 'Turn --ledger off'
complete -c capout -l no-stdout-only -d 'Turn --stdout-only off'
complete -c capout -s h -l help -d 'Print help'
complete -c capout -s V -l version -d 'Print version'
