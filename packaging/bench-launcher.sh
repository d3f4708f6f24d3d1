#!/usr/bin/env bash
# What the npm launcher adds to each call: the median wall time of
# `capout -c 10 < 1 KiB file` run directly, through node_modules/.bin/capout
# (node and the launcher) and through `npx capout`, over 100 calls of each,
# taken in turn, beside `node -e 0`, the start-up of node alone. Uses what packaging/test.sh installed under
# target/packaging.
#
#   packaging/bench-launcher.sh [CALLS]
set -euo pipefail
cd "$(dirname "$0")/.."

work=target/packaging
scratch=$work/npm-scratch
version=$(packaging/version.sh)
binary=$work/wheel/capout-$version.data/scripts/capout
[[ -x $binary && -x $scratch/node_modules/.bin/capout ]] ||
    { echo "bench-launcher.sh: run packaging/test.sh first" >&2; exit 1; }
head -c 1024 /dev/urandom | base64 -w 64 | head -c 1024 >"$work/1k.txt"

python3 - "${1:-100}" "$work/1k.txt" "$binary" "$scratch" <<'PY'
import os, statistics, subprocess, sys, time
calls, input_file, binary, scratch = sys.argv[1:]
ways = {
    "node -e 0": (["node", "-e", "0"], None),
    "direct": ([os.path.abspath(binary), "-c", "10"], None),
    "launcher": ([os.path.abspath(f"{scratch}/node_modules/.bin/capout"), "-c", "10"], None),
    "npx": (["npx", "--offline", "capout", "-c", "10"], scratch),
}
times = {name: [] for name in ways}
with open(input_file, "rb") as f:
    for _ in range(int(calls)):
        for name, (cmd, cwd) in ways.items():
            f.seek(0)
            start = time.perf_counter()
            subprocess.run(cmd, stdin=f, stdout=subprocess.DEVNULL, cwd=cwd, check=True)
            times[name].append((time.perf_counter() - start) * 1000)
direct = statistics.median(times["direct"])
for name, t in times.items():
    m = statistics.median(t)
    extra = "" if name in ("direct", "node -e 0") else f"  (+{m - direct:.1f} ms)"
    print(f"{name:9} median {m:7.1f} ms over {len(t)} calls{extra}")
PY
