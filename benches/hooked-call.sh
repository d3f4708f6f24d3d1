#!/usr/bin/env bash
# What one hooked shell call costs: wall time of a short command run as a
# harness runs it under capout (Claude Code's Bash tool through the shell
# prefix `capout-claude-code`, with the output saved in a private folder),
# against the same command in a bare `bash -c`.
#
# Usage: benches/hooked-call.sh [CAPOUT...]
#
# With no CAPOUT, the release build is measured; several executables are
# measured in one sitting, to compare builds. The commands take turns:
# ROUNDS (default 15) rounds of RUNS (default 100) runs of each with
# `hyperfine -N`, and the median of each command's round medians is
# printed, so that a change in the machine's load falls on all of them.
#
#   CAPOUT_BENCH_ROUNDS, CAPOUT_BENCH_RUNS   as above
#
# Needs hyperfine (Debian package) and python3.
set -euo pipefail

rounds=${CAPOUT_BENCH_ROUNDS:-15}
runs=${CAPOUT_BENCH_RUNS:-100}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
command -v hyperfine >/dev/null || { apt-get update && apt-get install -y hyperfine; }
if (($# == 0)); then
    cargo build --release --quiet --bin capout --manifest-path "$root/Cargo.toml"
    target_dir=$(cargo metadata --format-version 1 --no-deps --manifest-path "$root/Cargo.toml" |
        sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
    set -- "$target_dir/release/capout"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The script Claude Code's Bash tool hands its shell prefix, in its shape:
# the shell's state restored, the command, the working directory recorded.
script="source $work/snapshot 2>/dev/null || true && eval 'echo hi' < /dev/null && pwd -P >| $work/cwd"
: >"$work/snapshot"
names=("bash -c")
commands=("bash -c \"$script\"")
i=0
for exe in "$@"; do
    i=$((i + 1))
    mkdir -p "$work/$i"
    ln -s "$(realpath "$exe")" "$work/$i/capout-claude-code"
    names+=("$exe")
    commands+=("$work/$i/capout-claude-code \"$script\"")
done

for ((round = 0; round < rounds; round++)); do
    for i in "${!commands[@]}"; do
        hyperfine -N --style none --warmup 5 --runs "$runs" --export-json "$work/r$round-$i.json" \
            "${commands[$i]}" >/dev/null
    done
done

python3 - "$work" "$rounds" "${names[@]}" <<'PY'
import json, statistics, sys
work, rounds, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
bare = None
for i, name in enumerate(names):
    medians = [json.load(open(f"{work}/r{r}-{i}.json"))["results"][0]["median"] for r in range(rounds)]
    ms = statistics.median(medians) * 1000
    bare = ms if bare is None else bare
    extra = "" if i == 0 else f"  (+{ms - bare:.2f} ms over bash -c)"
    print(f"{ms:6.2f} ms  {name}{extra}")
PY
