#!/usr/bin/env bash
# Times the MCP server's `grep` tool against `rg -c` on two large trees:
# a generated one of 100,000 files, and a real one (/usr by default), and
# prints the ratio of wall times and whether both found the same total.
#
# Usage: benches/mcp-grep.sh [PATTERN]
#
#   PATTERN               what both search for (default "the")
#   CAPOUT_BENCH_REAL     the real tree (default /usr)
#   CAPOUT_BENCH_DIR      where the generated tree is kept between runs
#                         (default <target>/bench-grep); reused when whole
#   CAPOUT_BENCH_RUNS     timed runs of each side (default 3); the figure
#                         is the best, the sides alternate
#   CAPOUT_BENCH_BIN      a capout executable to time instead of building
#                         the release one
#
# `grep` is timed through the server as a harness calls it, by the
# official MCP Python SDK's client (the virtual environment of
# crates/capout/tests/mcp/run.sh), from the request to the reply; the
# server's start is not counted. ripgrep is `rg -c PATTERN TREE` (its
# count per file, summed), which walks and searches in parallel as `grep`
# does. Goal: grep's wall time at most 1.3x rg's.
#
# Needs bash, cargo, python3 with venv, and ripgrep (Debian: apt-get
# install ripgrep).
set -euo pipefail
cd "$(dirname "$0")/.."

pattern="${1:-the}"
real="${CAPOUT_BENCH_REAL:-/usr}"
runs="${CAPOUT_BENCH_RUNS:-3}"
target="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
dir="${CAPOUT_BENCH_DIR:-$target/bench-grep}"
venv="$target/mcp-venv"

command -v rg >/dev/null || { echo "benches/mcp-grep.sh: needs ripgrep (apt-get install ripgrep)" >&2; exit 1; }
if ! "$venv/bin/python" -c 'import mcp' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet "mcp==2.3.0"
fi
if [[ -n "${CAPOUT_BENCH_BIN:-}" ]]; then
    bin="$CAPOUT_BENCH_BIN"
else
    cargo build --release --quiet -p capout
    bin="$target/release/capout"
fi

# 100,000 files of 20 lines each in 1,000 folders: source-like text, a
# match of "the" in about a third of the lines.
tree="$dir/tree"
if [[ ! -f "$dir/done" ]]; then
    rm -rf "$dir"
    mkdir -p "$tree"
    python3 - "$tree" <<'PY'
import os, sys, random
root = sys.argv[1]
rng = random.Random(7)
words = ["alpha", "the", "beta", "gamma", "delta", "theta", "other", "fn", "let", "value", "return", "then"]
for d in range(1000):
    sub = os.path.join(root, f"d{d:04}")
    os.mkdir(sub)
    for f in range(100):
        lines = (" ".join(rng.choice(words) for _ in range(8)) for _ in range(20))
        with open(os.path.join(sub, f"f{f:03}.txt"), "w") as out:
            out.write("\n".join(lines) + "\n")
PY
    touch "$dir/done"
fi

# One grep call through the server: its wall time and the total its
# notice gives.
mcp_grep() {
    "$venv/bin/python" - "$bin" "$1" "$pattern" <<'PY'
import asyncio, re, sys, time
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

async def main():
    capout, root, pattern = sys.argv[1:4]
    params = StdioServerParameters(command=capout, args=["--mcp", "--root", root])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            start = time.perf_counter()
            result = await s.call_tool("grep", {"pattern": pattern, "path": "."})
            took = time.perf_counter() - start
            text = result.content[0].text
            m = re.search(r"\((\d+) total, showing", text)
            total = m.group(1) if m else str(text.count("\n"))
            print(f"{took:.3f} {total}")

asyncio.run(main())
PY
}

# `rg -c` over the tree: its wall time and the sum of its counts.
rg_count() {
    local start end total
    start=$(date +%s.%N)
    total=$(cd "$1" && rg -c -- "$pattern" . 2>/dev/null | awk -F: '{ n += $NF } END { print n + 0 }')
    end=$(date +%s.%N)
    printf '%.3f %s\n' "$(echo "$end - $start" | bc -l)" "$total"
}

row() {
    local name="$1" root="$2" best_mcp="" best_rg="" mcp_total rg_total t n
    # A first pass of each warms the page cache.
    mcp_grep "$root" >/dev/null
    rg_count "$root" >/dev/null
    for ((i = 0; i < runs; i++)); do
        read -r t n < <(mcp_grep "$root")
        mcp_total=$n
        if [[ -z "$best_mcp" ]] || (( $(echo "$t < $best_mcp" | bc -l) )); then best_mcp=$t; fi
        read -r t n < <(rg_count "$root")
        rg_total=$n
        if [[ -z "$best_rg" ]] || (( $(echo "$t < $best_rg" | bc -l) )); then best_rg=$t; fi
    done
    local ratio
    ratio=$(echo "scale=2; $best_mcp / $best_rg" | bc -l)
    local verdict=ok
    (( $(echo "$ratio > 1.3" | bc -l) )) && verdict=SLOW
    [[ "$mcp_total" == "$rg_total" ]] || verdict="$verdict, TOTALS DIFFER"
    printf '%-22s grep %7ss  rg -c %7ss  ratio %5s  totals %s / %s  %s\n' \
        "$name" "$best_mcp" "$best_rg" "$ratio" "$mcp_total" "$rg_total" "$verdict"
}

echo "pattern: $pattern; best of $runs; $(nproc) cores"
row "generated (100k files)" "$tree"
row "$real" "$real"
