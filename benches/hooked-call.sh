#!/usr/bin/env bash
# What one hooked shell call costs: wall time of a short command run as a
# harness runs it under capout, against the same command in a bare
# `bash -c`: Claude Code's Bash tool through the shell prefix
# `capout-claude-code` (its script, with the shell's state restored), and
# Pi's bash tool through its shell `capout-pi/bash` (`-c COMMAND`), each
# with the output saved in a private folder.
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
# Each row: its name, its command, and the row it is compared with.
names=("bash -c SCRIPT (Claude Code's shape)" "bash -c 'echo hi' (Pi's shape)")
commands=("bash -c \"$script\"" "bash -c 'echo hi'")
bases=(0 1)
i=0
for exe in "$@"; do
    i=$((i + 1))
    mkdir -p "$work/$i/capout-pi"
    ln -s "$(realpath "$exe")" "$work/$i/capout-claude-code"
    ln -s "$(realpath "$exe")" "$work/$i/capout-pi/bash"
    names+=("$exe as capout-claude-code SCRIPT" "$exe as capout-pi/bash -c 'echo hi'")
    commands+=("$work/$i/capout-claude-code \"$script\"" "$work/$i/capout-pi/bash -c 'echo hi'")
    bases+=(0 1)
done

for ((round = 0; round < rounds; round++)); do
    for i in "${!commands[@]}"; do
        hyperfine -N --style none --warmup 5 --runs "$runs" --export-json "$work/r$round-$i.json" \
            "${commands[$i]}" >/dev/null
    done
done

python3 - "$work" "$rounds" "${bases[*]}" "${names[@]}" <<'PY'
import json, statistics, sys
work, rounds, bases, names = sys.argv[1], int(sys.argv[2]), [int(b) for b in sys.argv[3].split()], sys.argv[4:]
ms = []
for i, name in enumerate(names):
    medians = [json.load(open(f"{work}/r{r}-{i}.json"))["results"][0]["median"] for r in range(rounds)]
    ms.append(statistics.median(medians) * 1000)
    extra = "" if bases[i] == i else f"  (+{ms[i] - ms[bases[i]]:.2f} ms over bash -c)"
    print(f"{ms[i]:6.2f} ms  {name}{extra}")
PY
