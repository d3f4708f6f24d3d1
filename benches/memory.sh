#!/usr/bin/env bash
# Peak RSS of capout for every cap and option, on a streamed input of
# SIZE_MIB (default 2048) MiB: log lines with colour codes, progress-bar
# carriage returns and multibyte text, and one line with no newline at all.
# A second table gives --keep on inputs of many tiny lines, where what it
# holds for a tail must not grow with the number of lines.
#
# Usage: benches/memory.sh [SIZE_MIB]
#        benches/memory.sh --check LIMIT_KIB [SIZE_MIB]
#
# With --check, only the rows whose memory capout bounds whatever the
# input (every cap and option at its ordinary size) run, and the script
# fails when one peaks above LIMIT_KIB. The rows marked "not bounded"
# below keep what the user asked for (a 1000 x 200 screen, whole lines,
# a million characters), so their peak is set by the request, not by
# capout; they are measured, never checked. benches/rss-guard.sh is
# the check CI runs.
#
# CAPOUT_BENCH_BIN names a capout executable to measure instead of
# building one (an earlier build, to compare in one sitting).
#
# Needs /usr/bin/time (Debian package `time`). The input is generated on
# the fly, so it takes no disk space.
set -euo pipefail

limit_kib=
if [[ ${1:-} == --check ]]; then
    limit_kib=${2:?--check needs a limit in KiB}
    shift 2
fi
size_mib=${1:-2048}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [[ -n ${CAPOUT_BENCH_BIN:-} ]]; then
    capout=$CAPOUT_BENCH_BIN
else
    cargo build --release --quiet --bin capout --manifest-path "$root/Cargo.toml"
    target_dir=$(cargo metadata --format-version 1 --no-deps --manifest-path "$root/Cargo.toml" |
        sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
    capout=$target_dir/release/capout
fi

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

# Prints the peak RSS of one run; with --check, also records it against
# the limit in $results (a file: each cell runs in a subshell) and names
# the row that went over. A run that gives no figure (capout failed, or
# time did not report) counts as over.
cell() { # input-function args...
    local kib
    kib=$(rss "$@" || true)
    printf '%s' "${kib:-?}"
    [[ -n $limit_kib ]] || return 0
    local input=$1
    shift
    if [[ $kib =~ ^[0-9]+$ ]] && ((kib <= limit_kib)); then
        echo pass >>"$results"
    else
        # shellcheck disable=SC2016 # the backquotes are Markdown
        printf 'FAIL: `%s` on %s: %s KiB peak RSS, above %s KiB\n' "$*" "$input" "${kib:-no figure}" "$limit_kib" >>"$results"
    fi
}
results=$(mktemp)
trap 'rm -f "$results"' EXIT

# Reads rows of options; a row marked "# not bounded" is skipped by --check.
table() { # first-input second-input
    local row options
    while IFS= read -r row; do
        options=${row%%#*}
        options=${options%"${options##*[! ]}"}
        if [[ -n $limit_kib && $row == *'# not bounded'* ]]; then
            continue
        fi
        # shellcheck disable=SC2086,SC2016 # the options are words; the backquotes are Markdown
        printf '| `%s` | %s | %s |\n' "$options" "$(cell "$1" $options)" "$(cell "$2" $options)"
    done
}

printf '| options | lines: peak RSS KiB | one %s MiB line: peak RSS KiB |\n|---|---|---|\n' "$size_mib"
table lines one_line <<'OPTIONS'
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
--tail-lines 500 --render --render-width 1000 --render-height 200   # not bounded: the cells of the screen asked for
--tail-lines 500 --keep INFO --keep-max 20
-c 5000 --json
--tail-tokens 5000
--head-tokens 5000
--tail-tokens 5000 --json
--head-tokens 2000 --tail-tokens 3000
-n 500 --notice-format {total}
-c 5000 --save /dev/null
-c 5000 --progress always
--tail-lines 500 --max-line-chars 0   # not bounded: whole lines, as asked
OPTIONS

printf '\n| --keep options | empty lines: peak RSS KiB | lines `ab x`: peak RSS KiB |\n|---|---|---|\n'
table empty_lines short_lines <<'OPTIONS'
-c 5000 --keep ^
-c 5000 --keep ^ --keep-max 1000
--tail-lines 500 --keep x
--head-chars 2500 -c 2500 --keep ^
-c 5000 --max-line-chars 3 --keep x
-c 1000000 --keep ^   # not bounded: the million characters asked for
-c 1000000   # not bounded: the million characters asked for
OPTIONS

if [[ -n $limit_kib ]]; then
    passed=$(grep -c '^pass$' "$results" || true)
    failed=$(grep -c '^FAIL' "$results" || true)
    echo
    grep '^FAIL' "$results" || true
    echo "$passed passed, $failed failed"
    ((failed == 0 && passed > 0))
fi
