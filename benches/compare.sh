#!/usr/bin/env bash
# Compares the release build of capout with cat, tail and wc on a large
# generated input: wall time (median of alternating runs) and peak RSS.
#
# Usage: benches/compare.sh [SIZE_MIB]
#
#   SIZE_MIB            size of the big input in MiB (default 512, or
#                       $CAPOUT_BENCH_MIB)
#   CAPOUT_BENCH_RUNS   timed runs of each command of a pair (default 5)
#   CAPOUT_BENCH_BIN    a capout executable to time instead of building
#                       one (an earlier build, to compare in one sitting)
#   CAPOUT_BENCH_REPS   runs per timing of the start-up pair (default 200)
#   CAPOUT_BENCH_CPUS   run everything on these CPUs (a taskset list such
#                       as 0), for steadier pipe timings: unpinned, the two
#                       ends of a pipe land on one CPU or on two, and on
#                       two a pipe can be several times slower
#   CAPOUT_BENCH_SPLIT  set to 1: in the pipe cases, always put the writer
#                       on CPU 0 and the reader on CPU 1, the slow placement
#                       that a larger pipe buffer helps most
#   CAPOUT_BENCH_CLOCK  `wall` (the default): wall time of the whole row,
#                       median of the runs; `cpu`: CPU time, user + system,
#                       of the measured command alone (for a pipe, the
#                       reader: `cat` writes the same bytes for both sides),
#                       best of the runs, as benches/shapes.sh times
#
# Needs bash 5 (for $EPOCHREALTIME), cargo, awk and coreutils, and taskset
# (util-linux) for CAPOUT_BENCH_CPUS. Peak RSS comes from /usr/bin/time
# (Debian package `time`) or, without it, from python3; with neither it is
# left out.
set -euo pipefail

size_mib=${1:-${CAPOUT_BENCH_MIB:-512}}
runs=${CAPOUT_BENCH_RUNS:-5}
reps=${CAPOUT_BENCH_REPS:-200}
clock=${CAPOUT_BENCH_CLOCK:-wall}

if [[ ! $size_mib =~ ^[1-9][0-9]*$ ]]; then
    echo "compare.sh: size must be a whole number of MiB, not '$size_mib'" >&2
    exit 2
fi
if [[ $clock != wall && $clock != cpu ]]; then
    echo "compare.sh: CAPOUT_BENCH_CLOCK must be wall or cpu, not '$clock'" >&2
    exit 2
fi
if [[ -z ${EPOCHREALTIME:-} ]]; then
    echo "compare.sh: needs bash 5 or later" >&2
    exit 2
fi

# Prefixes for the two ends of a pipe: none, or one CPU each. The
# commands that use them are strings for eval, out of shellcheck's sight.
# shellcheck disable=SC2034
writer=()
reader=()
if [[ ${CAPOUT_BENCH_SPLIT:-} == 1 ]]; then
    # shellcheck disable=SC2034
    writer=(taskset -c 0)
    # shellcheck disable=SC2034
    reader=(taskset -c 1)
fi

if [[ -n ${CAPOUT_BENCH_CPUS:-} ]]; then
    # Children inherit the shell's CPUs.
    taskset -p -c "$CAPOUT_BENCH_CPUS" $$ >/dev/null
fi

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [[ -n ${CAPOUT_BENCH_BIN-} ]]; then
    capout=$(realpath "$CAPOUT_BENCH_BIN")
else
    echo "building capout (cargo build --release) ..." >&2
    cargo build --release --quiet --manifest-path "$root/Cargo.toml"
    target_dir=$(cargo metadata --format-version 1 --no-deps --manifest-path "$root/Cargo.toml" |
        sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
    capout=$target_dir/release/capout
fi

load_before=$(cut -d ' ' -f 1-3 /proc/loadavg 2>/dev/null || echo unknown)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
big=$tmp/big.log
small=$tmp/small.log

# The prefix of every measured command: nothing for wall time; for CPU
# time, cpu_of, which runs the command in a subshell of its own and adds
# that subshell's `times` (its children's user and system time, to the
# millisecond) to a file.
measure=()
if [[ $clock == cpu ]]; then
    measure=(cpu_of)
fi
cpu_of() {
    (
        "$@"
        status=$?
        times >>"$tmp/cpu"
        exit "$status"
    )
}

# --- input ---------------------------------------------------------------

# Prints about `$1` bytes of log-like lines: a timestamp, a level, a worker
# and a message of 2-21 words, one line in 500 long, one in 40 with a
# multibyte character, as compilers and test runners print them. A fixed
# Park-Miller generator (exact in awk's doubles) makes every awk and every
# machine write the same bytes.
log_lines() {
    LC_ALL=C awk -v want="$1" 'BEGIN {
        seed = 42
        split("INFO INFO INFO DEBUG WARN ERROR", level, " ")
        split("request served cache miss hit retrying connection closed user id " \
              "timeout after bytes queue depth ok failed to open file", word, " ")
        split("café → «main» größe ✓ 日本語", wide, " ")
        n = 0
        while (bytes < want) {
            n++
            line = sprintf("2024-05-01T12:%02d:%02d.%03dZ %-5s [worker-%d]", \
                int(n / 60000) % 60, int(n / 1000) % 60, n % 1000, level[1 + rnd(6)], rnd(16))
            words = n % 500 == 0 ? 600 : 2 + rnd(20)
            for (i = 0; i < words; i++)
                line = line " " (n % 40 == 0 && i == 1 ? wide[1 + rnd(6)] : word[1 + rnd(20)])
            print line
            bytes += length(line) + 1
        }
    }
    function rnd(k) { seed = (seed * 16807) % 2147483647; return seed % k }'
}

echo "generating ${size_mib} MiB of input ..." >&2
# Two MiB of lines, doubled until large enough, then cut to the size.
log_lines $((2 * 1024 * 1024)) >"$tmp/seed.log"
cp "$tmp/seed.log" "$big"
while (($(stat -c %s "$big") < size_mib * 1024 * 1024)); do
    cat "$big" "$big" >"$tmp/next.log"
    mv "$tmp/next.log" "$big"
done
truncate -s "${size_mib}M" "$big"
head -c 1024 "$tmp/seed.log" >"$small"
rm "$tmp/seed.log"

# --- timing --------------------------------------------------------------

fail() {
    echo "compare.sh: failed: $1" >&2
    exit 1
}

# Seconds since the epoch, to the microsecond, without a fork.
now() { echo "$EPOCHREALTIME"; }

# Runs the shell code `$1` and prints its time in milliseconds: the wall
# time of all of it, or the CPU time of its measured commands.
time_once() {
    local start end
    if [[ $clock == cpu ]]; then
        : >"$tmp/cpu"
        eval "$1" || fail "$1"
        # `times` prints the shell's own time, then its children's.
        awk 'NR % 2 == 0 {
            for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); s += t[1] * 60 + t[2] }
        } END { printf "%.3f\n", s * 1000 }' "$tmp/cpu"
        return
    fi
    start=$(now)
    eval "$1" || fail "$1"
    end=$(now)
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f\n", (b - a) * 1000 }'
}

# Reads numbers, one a line; prints the figure (the median of wall times,
# the best of CPU times), the lowest and the highest.
summary() {
    sort -g | awk -v c="$clock" '{ v[NR] = $1 } END { print c == "cpu" ? v[1] : v[int((NR + 1) / 2)], v[1], v[NR] }'
}

rows=()

# Times the shell codes `$2` (capout) and `$3` (the baseline) `$runs`
# times each, alternating, after one untimed run of each, and adds a row
# for case `$1` with goal `$4` (the most the ratio of the medians may be)
# and the range of each side's times. A wide range in the pipe cases is
# the scheduler at work: the two ends of a pipe on one CPU or on two.
compare() {
    local label=$1 ours=$2 theirs=$3 goal=$4 i a b
    local -a ta=() tb=()
    eval "$ours" || fail "$ours"
    eval "$theirs" || fail "$theirs"
    for ((i = 0; i < runs; i++)); do
        ta+=("$(time_once "$ours")")
        tb+=("$(time_once "$theirs")")
    done
    a=$(printf '%s\n' "${ta[@]}" | summary)
    b=$(printf '%s\n' "${tb[@]}" | summary)
    rows+=("$(awk -v l="$label" -v a="$a" -v b="$b" -v g="$goal" 'BEGIN {
        split(a, x, " "); split(b, y, " ")
        r = sprintf("%.2f", x[1] / y[1]) + 0
        printf "| %-40s | %9.1f | %9.1f | %5.2f | <= %-3s | %-3s | %13s | %13s |", l, x[1], y[1], r, g, \
            r <= g ? "yes" : "no", sprintf("%.0f-%.0f", x[2], x[3]), sprintf("%.0f-%.0f", y[2], y[3])
    }')")
    echo "  done: $label" >&2
}

# The start-up pair: each runs its command `$reps` times per timing.
startup_capout() {
    local i
    for ((i = 0; i < reps; i++)); do "$capout" <"$small" >/dev/null; done
}
startup_tail() {
    local i
    for ((i = 0; i < reps; i++)); do tail -c 5000 <"$small" >/dev/null; done
}

if [[ $clock == cpu ]]; then
    echo "timing, CPU time, best of $runs alternating runs ..." >&2
else
    echo "timing, median of $runs alternating runs ..." >&2
fi
# The commands are shell code that compare evaluates, hence single quotes.
# shellcheck disable=SC2016
{
    compare 'capout -c 5000 < file  vs  cat < file' \
        '"${measure[@]}" "$capout" -c 5000 <"$big" >/dev/null' '"${measure[@]}" cat <"$big" >/dev/null' 1.2
    compare 'capout -n 500 < file   vs  wc -l < file' \
        '"${measure[@]}" "$capout" -n 500 <"$big" >/dev/null' '"${measure[@]}" wc -l <"$big" >/dev/null' 1.0
    compare 'pipe: capout -c 5000   vs  tail -c 5000' \
        '"${writer[@]}" cat "$big" | "${measure[@]}" "${reader[@]}" "$capout" -c 5000 >/dev/null' \
        '"${writer[@]}" cat "$big" | "${measure[@]}" "${reader[@]}" tail -c 5000 >/dev/null' 0.5
    compare 'pipe: capout -n 500    vs  wc -l' \
        '"${writer[@]}" cat "$big" | "${measure[@]}" "${reader[@]}" "$capout" -n 500 >/dev/null' \
        '"${writer[@]}" cat "$big" | "${measure[@]}" "${reader[@]}" wc -l >/dev/null' 0.5
    compare 'pipe: capout -m 50     vs  wc -l' \
        '"${writer[@]}" cat "$big" | "${measure[@]}" "${reader[@]}" "$capout" -m 50 >/dev/null' \
        '"${writer[@]}" cat "$big" | "${measure[@]}" "${reader[@]}" wc -l >/dev/null' 0.5
    compare "1 KiB x ${reps}: capout    vs  tail -c 5000" \
        '"${measure[@]}" startup_capout' '"${measure[@]}" startup_tail' 1.5
    # The token caps against the character caps of the same reach
    # (a token is about four characters).
    compare 'file: --tail-tokens 5000 vs -c 20000' \
        '"${measure[@]}" "$capout" --tail-tokens 5000 <"$big" >/dev/null' '"${measure[@]}" "$capout" -c 20000 <"$big" >/dev/null' 1.5
    compare 'pipe: --tail-tokens 5000 vs -c 20000' \
        '"${writer[@]}" cat "$big" | "${measure[@]}" "${reader[@]}" "$capout" --tail-tokens 5000 >/dev/null' \
        '"${writer[@]}" cat "$big" | "${measure[@]}" "${reader[@]}" "$capout" -c 20000 >/dev/null' 1.5
    compare 'json: --tail-tokens 5000 vs -c 20000' \
        '"${writer[@]}" cat "$big" | "${measure[@]}" "${reader[@]}" "$capout" --tail-tokens 5000 --json >/dev/null' \
        '"${writer[@]}" cat "$big" | "${measure[@]}" "${reader[@]}" "$capout" -c 20000 --json >/dev/null' 1.5
}

# --- memory --------------------------------------------------------------

# Prints the peak RSS in KiB of capout with the arguments given, reading
# the file named by the first argument through a pipe, as most input comes.
# shellcheck disable=SC2002
peak_rss() {
    local file=$1
    shift
    if [[ -x /usr/bin/time ]]; then
        cat "$file" | /usr/bin/time -f %M -o "$tmp/rss" "$capout" "$@" >/dev/null
        cat "$tmp/rss"
    elif command -v python3 >/dev/null; then
        cat "$file" | python3 -c '
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$capout" "$@"
    else
        echo n/a
    fi
}

# An eighth of the big input: the buffers of every cap are full long before
# its end, so whatever grows from here to the big input grows with it.
mid=$tmp/mid.log
head -c $((size_mib * 1024 * 128)) "$big" >"$mid"
mem_rows=()
for cap in '-c 5000' '-n 500' '-m 50' '--head-chars 5000' '--tail-tokens 5000' '--head-tokens 5000'; do
    # The cap's words are meant to split.
    # shellcheck disable=SC2086
    small_kib=$(peak_rss "$small" $cap)
    # shellcheck disable=SC2086
    mid_kib=$(peak_rss "$mid" $cap)
    # shellcheck disable=SC2086
    big_kib=$(peak_rss "$big" $cap)
    # Flat: the read buffer and the cap's own buffer (a ring of up to
    # N × 32 bytes for a token cap) fill up early, and code a small input
    # does not run is mapped, so a big input takes some hundred KiB more
    # than 1 KiB does; from an eighth of it to all of it, no more than
    # the noise of a run (under 256 KiB), or something grew with it.
    mem_rows+=("$(awk -v c="$cap" -v s="$small_kib" -v m="$mid_kib" -v b="$big_kib" 'BEGIN {
        ok = s != "n/a" && b != "n/a" && s < 4096 && m < 4096 && b < 4096 && b - m < 256
        printf "| capout %-18s | %9s | %9s | %9s | < 4096, flat | %-3s |", c, s, m, b, ok ? "yes" : "no"
    }')")
done

# --- report --------------------------------------------------------------

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
echo
echo "capout $("$capout" --version | awk '{ print $2 }'), input ${size_mib} MiB of log lines," \
    "$(nproc --all) CPUs (${cpu:-unknown CPU}), $([[ $clock == cpu ]] && echo "CPU time, best" || echo "wall time, median") of $runs runs"
echo "pinned to CPUs: ${CAPOUT_BENCH_CPUS:-no}; pipe ends split over CPUs 0 and 1: ${CAPOUT_BENCH_SPLIT:-no}"
echo "load average before: $load_before, after: $(cut -d ' ' -f 1-3 /proc/loadavg 2>/dev/null || echo unknown)"
echo
echo "| case ('pipe:' reads 'cat file |')        | capout ms | other ms  | ratio | goal   | met | capout range  | other range   |"
echo "|------------------------------------------|-----------|-----------|-------|--------|-----|---------------|---------------|"
printf '%s\n' "${rows[@]}"
echo
echo "| peak RSS (KiB)            | 1 KiB in  | 1/8 in    | big in    | goal         | met |"
echo "|---------------------------|-----------|-----------|-----------|--------------|-----|"
printf '%s\n' "${mem_rows[@]}"
