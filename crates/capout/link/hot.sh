#!/usr/bin/env bash
# Writes the hot block of link/cold.ld: the functions that the filter's
# bounded runs execute (every row of benches/memory.sh that capout bounds,
# on 2 MiB of each of its inputs, two rows of benches/shapes.sh and the
# token caps on source, prose and CJK text), as callgrind sees them in the
# release build, ordered so that the code that every run executes comes
# first and code shared by the same runs lies together. The kernel maps
# code 64 KiB around each page a run touches: placed together, the code a
# run needs fills fewer of those windows than when it lies among code it
# skips. The functions of the rare modes among them (the token caps,
# --json) stay in .text.cold, first there and in the same order: the warm
# block.
#
# Usage: crates/capout/link/hot.sh   (needs valgrind and python3)
#
# A name here that the code no longer has only leaves its function where
# the linker puts it by default; benches/rss-guard.sh is what fails when
# the layout stops keeping the bound. Run this after changes that move
# much of the filter's code, and commit the new cold.ld.
set -euo pipefail
link=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$link/../../.." && pwd)
command -v valgrind >/dev/null || { apt-get update && apt-get install -y valgrind; }
cargo build --release --quiet --bin capout --manifest-path "$root/Cargo.toml"
target_dir=$(cargo metadata --format-version 1 --no-deps --manifest-path "$root/Cargo.toml" |
    sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
capout=$target_dir/release/capout
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
size=$((2 * 1024 * 1024))
lines() {
    yes $'2026-11-30T12:00:00Z \e[32mINFO\e[0m worker-3 request served: caf\u00e9 \u2713 10%\r50%\r100%' | head -c "$size"
}
empty_lines() { head -c "$size" /dev/zero | tr '\0' '\n'; }
short_lines() { yes 'ab x' | head -c "$size"; }
one_line() { head -c "$size" /dev/zero | tr '\0' 'x'; }
long_lines() { yes "$(printf 'alpha beta gamma delta epsilon %.0s' {1..3303})" | head -c "$size"; }
runs=0
profile() { # input-function args...
    local input=$1
    shift
    runs=$((runs + 1))
    # The generators end on a closed pipe (yes | head): not a failure.
    { "$input" || true; } | valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/run.$runs" \
        "$capout" "$@" >/dev/null 2>&1
}
# The bounded rows of benches/memory.sh, with the two inputs of their table.
rows() { # first-line-of-table
    sed -n "/^table $1 <<'OPTIONS'\$/,/^OPTIONS\$/p" "$root/benches/memory.sh" |
        sed '1d;$d' | grep -v '# not bounded'
}
for pair in "lines one_line" "empty_lines short_lines"; do
    read -r first second <<<"$pair"
    while IFS= read -r options; do
        # shellcheck disable=SC2086 # the options are words
        profile "$first" $options
        # shellcheck disable=SC2086
        profile "$second" $options
    done < <(rows "$first $second")
done
# Two rows of benches/shapes.sh that peak higher than those above: a
# pattern with an alternation, and --tail-lines 500 on 100 KiB lines.
profile lines -m 50 -e 'conn?ection (reset|refused) by pe+r'
profile long_lines --tail-lines 500
# The token caps on the kinds of text whose pieces the generated lines
# above do not have (source code, prose, CJK), as benches/tokens.sh runs them.
corpus() { head -c "$size" "$root/crates/capout/tests/fixtures/tokens/$1.txt"; }
for kind in rust prose cjk; do
    eval "${kind}_text() { corpus $kind; }"
    profile "${kind}_text" --tail-tokens 5000 --json
    profile "${kind}_text" --head-tokens 2000 --tail-tokens 3000
done
python3 "$link/hot.py" "$capout" "$link/cold.ld" "$work"/run.*
echo "hot block of $link/cold.ld written from $runs runs"
