#!/usr/bin/env bash
# Fails when the release filter peaks above 4096 KiB of RSS on any row of
# benches/memory.sh whose memory capout bounds (every cap and option at
# its ordinary size; the rows whose size the user asks for are left out).
# Prints each row's peak, a FAIL line for each row over, and
# "N passed, M failed".
#
# Usage: benches/rss-guard.sh [SIZE_MIB]
#
# 256 MiB a run by default: the ring buffers and line buffers of every cap
# fill in the first few MiB, and the one-line input holds a 256 MiB line,
# a thousand times the 256 KiB that patterns see of a line, so every run
# spends almost all its input in its steady state; peak RSS does not grow
# past that (benches/compare.sh: the same at an eighth of its input as at
# all of it). The 46 runs take about a minute of CPU, where memory.sh's
# 2 GiB would take eight.
set -euo pipefail

# /usr/bin/time reports the peak RSS; a shell's `time` builtin does not.
[[ -x /usr/bin/time ]] || { apt-get update && apt-get install -y time; }
exec "$(dirname "${BASH_SOURCE[0]}")/memory.sh" --check 4096 "${1:-256}"
