#!/usr/bin/env bash
# Times the token caps against the character caps of the same reach (a
# token is about four characters) on the calibration corpora, each
# repeated to a large input: CPU time (user + sys) of capout alone, best of
# alternating runs, through a pipe and from a file; peak RSS; and the cost
# of one call on 1 KiB.
#
# Usage: benches/tokens.sh [SIZE_MIB]
#
#   SIZE_MIB              size of each input in MiB (default 512)
#   CAPOUT_BENCH_CORPORA  corpora of crates/core/tests/fixtures/tokens to time (default
#                         "logs rust prose cjk")
#   CAPOUT_BENCH_RUNS     timed runs of each command (default 3)
#   CAPOUT_BENCH_CALLS    calls on 1 KiB per timing (default 200)
#   CAPOUT_BENCH_EXACT    set to 0 to leave out the exact tokenizer's rows
#   CAPOUT_BENCH_BIN      a capout to time instead of building one (an
#                         earlier build, to compare in one sitting, as the
#                         other benches take it; CAPOUT_BIN is the old name)
#
# capout is the release build that is shipped, exact tokenizers included.
# CPU time comes from bash's `times` (a subshell
# that runs capout alone, so `cat` is not counted), peak RSS from
# /usr/bin/time (Debian package `time`; left out without it). The ratio is
# capout's token cap over the character cap of the same row.
set -euo pipefail

size_mib=${1:-512}
corpora=${CAPOUT_BENCH_CORPORA:-logs rust prose cjk}
runs=${CAPOUT_BENCH_RUNS:-3}
calls=${CAPOUT_BENCH_CALLS:-200}

if [[ ! $size_mib =~ ^[1-9][0-9]*$ ]]; then
    echo "tokens.sh: size must be a whole number of MiB, not '$size_mib'" >&2
    exit 2
fi

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
target_dir=$(cargo metadata --format-version 1 --no-deps --manifest-path "$root/Cargo.toml" |
    sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')

bin=${CAPOUT_BENCH_BIN:-${CAPOUT_BIN:-}}
if [[ -n $bin ]]; then
    capout=$(realpath "$bin")
    exact=$capout
else
    echo "building capout (--release) ..." >&2
    cargo build --release --quiet --manifest-path "$root/Cargo.toml"
    capout=$tmp/capout
    cp "$target_dir/release/capout" "$capout"
    exact=$capout
fi
if [[ ${CAPOUT_BENCH_EXACT:-1} == 0 ]]; then
    exact=
fi
# Whether `$exact` knows the exact tokenizers.
if [[ -n $exact ]] && ! printf 'x' | "$exact" --tail-tokens 1 --tokenizer o200k >/dev/null 2>&1; then
    exact=
fi

# Prints the CPU milliseconds (user + sys) of the children of the shell
# that runs it: the second line of bash's `times`, written to a file first
# (in a pipe `times` would run in a subshell of its own, without them).
children_ms() {
    times >"$tmp/times.$BASHPID"
    awk 'NR == 2 {
        t = 0
        for (i = 1; i <= 2; i++) { split($i, p, /[ms]/); t += p[1] * 60 + p[2] }
        printf "%.1f\n", t * 1000
    }' "$tmp/times.$BASHPID"
}

# CPU ms of one run of capout `$2...` reading file `$1` through a pipe
# (`pipe`) or as its stdin (`file`), as given by the mode before it.
cpu_once() {
    local mode=$1 file=$2
    shift 2
    if [[ $mode == pipe ]]; then
        cat "$file" | ("$@" >/dev/null && children_ms)
    else
        ("$@" <"$file" >/dev/null && children_ms)
    fi
}

# Peak RSS (KiB) of capout `$3...` reading `$2` the way `$1` says.
peak_rss() {
    local mode=$1 file=$2
    shift 2
    [[ -x /usr/bin/time ]] || { echo n/a; return; }
    if [[ $mode == pipe ]]; then
        cat "$file" | /usr/bin/time -f %M -o "$tmp/rss" "$@" >/dev/null
    else
        /usr/bin/time -f %M -o "$tmp/rss" "$@" <"$file" >/dev/null
    fi
    tail -n 1 "$tmp/rss"
}

# The lowest of some numbers, one a line.
lowest() { sort -g | head -n 1; }

rows=()

# Times `$4...` (a token cap) against the command in the array named by
# `$3` (a character cap) on `$2` read the way `$1` says; adds a row.
compare() {
    local mode=$1 file=$2 base_name=$3 label=$4
    shift 4
    local -n base=$base_name
    local -a ta=() tb=()
    local i a b rss
    for ((i = 0; i < runs; i++)); do
        ta+=("$(cpu_once "$mode" "$file" "$@")")
        tb+=("$(cpu_once "$mode" "$file" "${base[@]}")")
    done
    a=$(printf '%s\n' "${ta[@]}" | lowest)
    b=$(printf '%s\n' "${tb[@]}" | lowest)
    rss=$(peak_rss "$mode" "$file" "$@")
    rows+=("$(awk -v c="$corpus" -v m="$mode" -v l="$label" -v a="$a" -v b="$b" -v r="$rss" \
        -v bl="${base[*]:1}" 'BEGIN {
        f = "| %-6s | %-4s | %-38s | %9.1f | %-28s | %9.1f | %6.2f | %8s |"
        printf f, c, m, l, a, bl, b, (b > 0 ? a / b : 0), r
    }')")
    echo "  done: $corpus $mode $label" >&2
}

for corpus in $corpora; do
    src=$root/crates/core/tests/fixtures/tokens/$corpus.txt
    [[ -f $src ]] || { echo "tokens.sh: no corpus $src" >&2; exit 2; }
    echo "generating ${size_mib} MiB of $corpus ..." >&2
    big=$tmp/$corpus.txt
    cp "$src" "$big"
    while (($(stat -c %s "$big") < size_mib * 1024 * 1024)); do
        cat "$big" "$big" >"$tmp/next"
        mv "$tmp/next" "$big"
    done
    truncate -s "${size_mib}M" "$big"
    # The character caps of the same reach.
    # shellcheck disable=SC2034
    chars=("$capout" --tail-chars 20000)
    # shellcheck disable=SC2034
    chars_json=("$capout" --tail-chars 20000 --json)
    for mode in pipe file; do
        compare $mode "$big" chars '--tail-tokens 5000' "$capout" --tail-tokens 5000
        compare $mode "$big" chars_json '--tail-tokens 5000 --json' "$capout" --tail-tokens 5000 --json
        compare $mode "$big" chars '--head-tokens 2000 --tail-tokens 3000' \
            "$capout" --head-tokens 2000 --tail-tokens 3000
        if [[ -n $exact ]]; then
            compare $mode "$big" chars '--tail-tokens 5000 --tokenizer o200k' \
                "$exact" --tail-tokens 5000 --tokenizer o200k
        fi
    done
    rm "$big"
done

# --- one call on 1 KiB --------------------------------------------------

small=$tmp/small.txt
head -c 1024 "$root/crates/core/tests/fixtures/tokens/logs.txt" >"$small"

# Milliseconds of CPU a call of `$@` on 1 KiB costs, from `$calls` calls.
per_call() {
    (
        for ((i = 0; i < calls; i++)); do "$@" <"$small" >/dev/null; done
        children_ms
    ) | awk -v n="$calls" '{ printf "%.3f\n", $1 / n }'
}

call_rows=()
call_case() {
    local label=$1
    shift
    local -a t=()
    local i
    for ((i = 0; i < runs; i++)); do t+=("$(per_call "$@")"); done
    call_rows+=("$(printf '| %-38s | %8s | %8s |' "$label" "$(printf '%s\n' "${t[@]}" | lowest)" \
        "$(peak_rss file "$small" "$@")")")
}
call_case '--tail-chars 20000' "$capout" --tail-chars 20000
call_case '--tail-tokens 5000' "$capout" --tail-tokens 5000
call_case '--tail-tokens 5000 --json' "$capout" --tail-tokens 5000 --json
if [[ -n $exact ]]; then
    call_case '--tail-tokens 5000 --tokenizer o200k' "$exact" --tail-tokens 5000 --tokenizer o200k
    call_case '--tail-tokens 5000 --tokenizer cl100k' "$exact" --tail-tokens 5000 --tokenizer cl100k
fi

# --- report ---------------------------------------------------------------

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
echo
echo "capout $("$capout" --version | awk '{ print $2 }'), inputs of ${size_mib} MiB," \
    "$(nproc --all) CPUs (${cpu:-unknown CPU}), CPU time of capout, best of $runs runs"
echo "load average: $(cut -d ' ' -f 1-3 /proc/loadavg 2>/dev/null || echo unknown)"
echo
echo "| corpus | in   | token cap                              |    CPU ms | character cap                |    CPU ms |  ratio | RSS KiB  |"
echo "|--------|------|----------------------------------------|-----------|------------------------------|-----------|--------|----------|"
printf '%s\n' "${rows[@]}"
echo
echo "| one call on 1 KiB                      |  CPU ms  | RSS KiB  |"
echo "|----------------------------------------|----------|----------|"
printf '%s\n' "${call_rows[@]}"
