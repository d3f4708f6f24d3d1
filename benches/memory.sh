#!/usr/bin/env bash
# Peak RSS of capout for every cap and option, on a streamed input of
# SIZE_MIB (default 2048) MiB: log lines with colour codes, progress-bar
# carriage returns and multibyte text, and one line with no newline at all.
# A second table gives --keep on inputs of many tiny lines, where what it
# holds for a tail must not grow with the number of lines.
#
# Usage: benches/memory.sh [SIZE_MIB]
#
# Needs /usr/bin/time (Debian package `time`). The input is generated on
# the fly, so it takes no disk space.
set -euo pipefail

size_mib=${1:-2048}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cargo build --release --quiet --manifest-path "$root/Cargo.toml"
target_dir=$(cargo metadata --format-version 1 --no-deps --manifest-path "$root/Cargo.toml" |
    sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
capout=$target_dir/release/capout

lines() {
    yes $'2026-11-30T12:00:00Z \e[32mINFO\e[0m worker-3 request served: caf\u00e9 \u2713 10%\r50%\r100%' |
        head -c "$((size_mib * 1024 * 1024))"
}
empty_lines() {
    head -c "$((size_mib * 1024 * 1024))" /dev/zero | tr '\0' '\n'
}
short_lines() {
    yes 'ab x' | head -c "$((size_mib * 1024 * 1024))"
}
one_line() {
    head -c "$((size_mib * 1024 * 1024))" /dev/zero | tr '\0' 'x'
}

rss() { # input-function args...
    local input=$1
    shift
    # The live line of --progress ends in a carriage return, not a newline.
    "$input" | /usr/bin/time -f %M "$capout" "$@" 2>&1 >/dev/null | tr '\r' '\n' | tail -n 1 | grep -o '[0-9]*$'
}

printf '| options | lines: peak RSS KiB | one %s MiB line: peak RSS KiB |\n|---|---|---|\n' "$size_mib"
while IFS= read -r options; do
    # shellcheck disable=SC2086,SC2016 # the options are words; the backquotes are Markdown
    printf '| `%s` | %s | %s |\n' "$options" "$(rss lines $options)" "$(rss one_line $options)"
done <<'OPTIONS'
-c 5000
-n 500
-m 50
--head-chars 5000
--tail-lines 500
-n 250 --tail-lines 250
--head-chars 2500 -c 2500
-c 5000 --bytes
-n 500 -N --offset 1000
-m 50 -e w[aeiou]rker
-m 50 -F -e worker
-c 5000 --strip-ansi --collapse-cr
-c 5000 --render
--tail-lines 500 --render --render-width 1000 --render-height 200
--tail-lines 500 --keep INFO --keep-max 20
-c 5000 --json
-n 500 --notice-format {total}
-c 5000 --save /dev/null
-c 5000 --progress always
--tail-lines 500 --max-line-chars 0
OPTIONS

printf '\n| --keep options | empty lines: peak RSS KiB | lines `ab x`: peak RSS KiB |\n|---|---|---|\n'
while IFS= read -r options; do
    # shellcheck disable=SC2086,SC2016 # the options are words; the backquotes are Markdown
    printf '| `%s` | %s | %s |\n' "$options" "$(rss empty_lines $options)" "$(rss short_lines $options)"
done <<'OPTIONS'
-c 5000 --keep ^
-c 5000 --keep ^ --keep-max 1000
--tail-lines 500 --keep x
--head-chars 2500 -c 2500 --keep ^
-c 5000 --max-line-chars 3 --keep x
-c 1000000 --keep ^
-c 1000000
OPTIONS
