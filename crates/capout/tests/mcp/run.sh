#!/usr/bin/env bash
# capout --mcp driven by a client nobody here wrote: the official MCP
# Python SDK's stdio client, installed into a virtual environment under
# target/ (made once, reused after). Fails loudly when it cannot be
# installed: the test never passes for want of its client.
#
#   bash crates/capout/tests/mcp/run.sh          the tests: `N passed, M failed`,
#                                                twice (the SDK client's, then raw stdin's)
#   bash crates/capout/tests/mcp/run.sh --bench  latency per call, the server's memory
set -euo pipefail
cd "$(dirname "$0")/../../../.."

# The client the tests were written against.
MCP_SDK="mcp==2.3.0"
venv=target/mcp-venv

if ! "$venv/bin/python" -c 'import mcp' 2>/dev/null; then
    python3 -m venv "$venv" || {
        echo "tests/mcp: cannot make a virtual environment (apt-get install python3-venv)" >&2
        exit 1
    }
    "$venv/bin/pip" install --quiet "$MCP_SDK" || {
        echo "tests/mcp: cannot install $MCP_SDK from PyPI" >&2
        exit 1
    }
fi

# ripgrep itself, the oracle of grep's results: from the system's
# packages when it is missing (Debian's), else the run fails.
if ! command -v rg >/dev/null; then
    { apt-get install -y -qq ripgrep || { apt-get update -qq && apt-get install -y -qq ripgrep; }; } >/dev/null || {
        echo "tests/mcp: ripgrep is missing and cannot be installed (apt-get install ripgrep)" >&2
        exit 1
    }
fi

if [[ "${1:-}" == --bench ]]; then
    # The server as it ships: in the profile release-unwind (Cargo.toml).
    cargo build --profile release-unwind --quiet -p capout
    exec "$venv/bin/python" crates/capout/tests/mcp/client.py target/release-unwind/capout --bench
fi
cargo build --quiet
# Both suites run, whatever the first says; either failing fails the run.
status=0
"$venv/bin/python" crates/capout/tests/mcp/client.py target/debug/capout || status=1
# What no SDK client sends: raw bytes, signals, the end of stdin mid-call.
"$venv/bin/python" crates/capout/tests/mcp/raw.py target/debug/capout || status=1
exit $status
