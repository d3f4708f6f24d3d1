#!/usr/bin/env bash
# Fails when the release filter owns more memory than its bound on any
# row of benches/memory.sh whose memory capout bounds (every cap and
# option at its ordinary size; the rows whose size the user asks for are
# left out): anonymous RSS above 1 MiB plus what the cap kept, on an input
# of 1 MiB or of SIZE_MIB, or more on SIZE_MIB than on 1 MiB. Prints each
# row's figures (with the total RSS beside them, not bounded), a FAIL
# line for each row that misses, and "N passed, M failed".
#
# Usage: benches/rss-guard.sh [SIZE_MIB]   (default 1024)
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/memory.sh" --check "${1:-1024}"
