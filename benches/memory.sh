#!/usr/bin/env bash
# The memory of capout for every cap and option, on streamed inputs of
# 1 MiB and of SIZE_MIB (default 1024) MiB: log lines with colour codes,
# progress-bar carriage returns and multibyte text, and one line with no
# newline at all. A second table gives --keep on inputs of many tiny
# lines, where what it holds for a tail must not grow with the number of
# lines.
#
# Each cell is `ANON / TOTAL` in KiB (benches/rss.py): ANON is the memory
# capout owns (anonymous RSS: heap, stacks), the figure that is bounded;
# TOTAL is the peak resident set with the mapped code and libraries,
# which moves with the page cache and where the loader puts the program,
# and is reported, not bounded.
#
# Usage: benches/memory.sh [SIZE_MIB]
#        benches/memory.sh --check [SIZE_MIB]
#
# With --check, only the rows whose memory capout bounds whatever the
# input (every cap and option at its ordinary size) run, and the script
# fails when a row's ANON on either input is above 1 MiB plus what the
# run wrote (what the cap kept), or when ANON on the large input is more
# than SLACK_KIB (64) above ANON on 1 MiB: memory must not grow with the
# input. The rows marked "not bounded" keep what the user asked for (a
# 1000 x 200 screen, whole lines, a million characters); they are
# measured, never checked. benches/rss-guard.sh is the check CI runs.
#
# CAPOUT_BENCH_BIN names a capout executable to measure instead of
# building one (an earlier build, to compare in one sitting).
#
# Needs python3 and /usr/bin/time (Debian package `time`). The input is
# generated on the fly, so it takes no disk space.
set -euo pipefail

check=
if [[ ${1:-} == --check ]]; then
    check=1
    shift
fi
size_mib=${1:-1024}
slack_kib=64
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[[ -x /usr/bin/time ]] || { apt-get update && apt-get install -y time; }
if [[ -n ${CAPOUT_BENCH_BIN:-} ]]; then
    capout=$CAPOUT_BENCH_BIN
else
    cargo build --release --quiet --bin capout --manifest-path "$root/Cargo.toml"
    target_dir=$(cargo metadata --format-version 1 --no-deps --manifest-path "$root/Cargo.toml" |
        sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
    capout=$target_dir/release/capout
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The cells run side by side, CAPOUT_BENCH_JOBS at a time (default: one
# per CPU): each is its own process with its own input, so what one owns
# is not moved by another; the tables are printed in order once all are in.
jobs=${CAPOUT_BENCH_JOBS:-$(nproc)}
cells=0

# Writes to FILE `ANON / TOTAL | ANON / TOTAL` of one run on 1 MiB and on
# SIZE_MIB, and on a second line, with --check, whether the row keeps its
# bound (pass, or FAIL and why).
cell() { # file shape args...
    local file=$1 shape=$2 small large
    shift 2
    small=$(python3 "$root/benches/rss.py" "$capout" "$shape" $((1 << 20)) -- "$@") || small="? ? 0"
    large=$(python3 "$root/benches/rss.py" "$capout" "$shape" $((size_mib << 20)) -- "$@") || large="? ? 0"
    read -r anon1 total1 _ <<<"$small"
    read -r anon total out <<<"$large"
    printf '%s / %s | %s / %s\n' "$anon1" "$total1" "$anon" "$total" >"$file"
    [[ -n $check ]] || return 0
    local bound=$((1024 + out / 1024)) why=
    if ! [[ $anon =~ ^[0-9]+$ && $anon1 =~ ^[0-9]+$ ]]; then
        why="no figure"
    elif ((anon > bound || anon1 > bound)); then
        why="$anon1 KiB on 1 MiB, $anon KiB on $size_mib MiB: above $bound KiB (1 MiB + $out bytes kept)"
    elif ((anon > anon1 + slack_kib)); then
        why="$anon1 KiB on 1 MiB, $anon KiB on $size_mib MiB: grows with the input"
    fi
    if [[ -z $why ]]; then
        echo pass >>"$file"
    else
        # shellcheck disable=SC2016 # the backquotes are Markdown
        printf 'FAIL: `%s` on %s: %s\n' "$*" "$shape" "$why" >>"$file"
    fi
}

# Starts a cell in the background once fewer than $jobs run; its figures
# go to $work/N, N counting the cells in the order the tables show them.
start_cell() { # shape args...
    while (($(jobs -rp | wc -l) >= jobs)); do
        wait -n || true
    done
    cells=$((cells + 1))
    cell "$work/$cells" "$@" &
}

# Reads rows of options; a row marked "# not bounded" is skipped by --check.
# Starts the row's two cells and adds the row to $work/NAME.
table() { # name first-shape second-shape
    local name=$1 row options
    shift
    while IFS= read -r row; do
        options=${row%%#*}
        options=${options%"${options##*[! ]}"}
        if [[ -n $check && $row == *'# not bounded'* ]]; then
            continue
        fi
        # shellcheck disable=SC2086 # the options are words
        start_cell "$1" $options
        # shellcheck disable=SC2086
        start_cell "$2" $options
        printf '%s\t%s\t%s\n' "$((cells - 1))" "$cells" "$options" >>"$work/$name"
    done
}

# Prints the rows of table NAME, once every cell has its figures.
show() { # name
    wait
    local first second options
    while IFS=$'\t' read -r first second options; do
        # shellcheck disable=SC2016 # the backquotes are Markdown
        printf '| `%s` | %s | %s |\n' "$options" "$(head -n 1 "$work/$first")" "$(head -n 1 "$work/$second")"
    done <"$work/$1"
}

header() { # first-shape second-shape
    printf '| options | %s, 1 MiB | %s, %s MiB | %s, 1 MiB | %s, %s MiB |\n|---|---|---|---|---|\n' \
        "$1" "$1" "$size_mib" "$2" "$2" "$size_mib"
}

table first lines one_line <<'OPTIONS'
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

table second empty_lines short_lines <<'OPTIONS'
-c 5000 --keep ^
-c 5000 --keep ^ --keep-max 1000
--tail-lines 500 --keep x
--head-chars 2500 -c 2500 --keep ^
-c 5000 --max-line-chars 3 --keep x
-c 1000000 --keep ^   # not bounded: the million characters asked for
-c 1000000   # not bounded: the million characters asked for
OPTIONS

echo "KiB, anonymous RSS / peak total RSS"
echo
header lines one_line
show first
echo
header empty_lines short_lines
show second

if [[ -n $check ]]; then
    verdicts=$(for n in $(seq 1 "$cells"); do sed -n 2p "$work/$n"; done)
    passed=$(grep -c '^pass$' <<<"$verdicts" || true)
    failed=$(grep -c '^FAIL' <<<"$verdicts" || true)
    echo
    grep '^FAIL' <<<"$verdicts" || true
    echo "$passed passed, $failed failed"
    ((failed == 0 && passed > 0))
fi
