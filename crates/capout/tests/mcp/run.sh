#!/usr/bin/env bash
# capout --mcp driven by a client nobody here wrote: the official MCP
# Python SDK's stdio client, installed into a virtual environment under
# target/ (made once, reused after). Fails loudly when it cannot be
# installed: the test never passes for want of its client.
#
#   bash crates/capout/tests/mcp/run.sh          the tests: `N passed, M failed`,
#                                                for each suite (the SDK client's and
#                                                raw stdin's, of --mcp, then of --mcp-wrap)
#   bash crates/capout/tests/mcp/run.sh --bench  latency per call, the server's memory;
#                                                the proxy's overhead and peak memory
#   bash crates/capout/tests/mcp/run.sh --install  what the tests need from the
#                                                registries, and nothing else
#
# --mcp-wrap is also tested around the reference servers of the npm
# registry, installed into target/mcp-npm at the versions pinned here (once,
# reused after); the run fails when they cannot be installed.
set -euo pipefail
cd "$(dirname "$0")/../../../.."

# The client the tests were written against.
MCP_SDK="mcp==2.3.0"
venv=target/mcp-venv
# The reference servers the proxy is tested around.
REFERENCE=("@modelcontextprotocol/server-filesystem@2026.8.31" "@modelcontextprotocol/server-everything@2026.8.31")
npm_dir=target/mcp-npm

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

command -v npm >/dev/null || {
    echo "tests/mcp: npm is needed to install ${REFERENCE[*]}" >&2
    exit 1
}
missing=0
for package in "${REFERENCE[@]}"; do
    name=${package%@*}
    have=$(node -p "require('./$npm_dir/node_modules/$name/package.json').version" 2>/dev/null || true)
    [[ "$name@$have" == "$package" ]] || missing=1
done
if ((missing)); then
    mkdir -p "$npm_dir"
    npm install --prefix "$npm_dir" --no-audit --no-fund --no-save --loglevel=error "${REFERENCE[@]}" || {
        echo "tests/mcp: cannot install ${REFERENCE[*]} from npm" >&2
        exit 1
    }
fi
[[ "${1:-}" != --install ]] || exit 0

if [[ "${1:-}" == --bench ]]; then
    # The server as it ships: in the profile release-unwind (Cargo.toml).
    cargo build --profile release-unwind --quiet -p capout
    "$venv/bin/python" crates/capout/tests/mcp/client.py target/release-unwind/capout --bench
    "$venv/bin/python" crates/capout/tests/mcp/wrap_raw.py target/release-unwind/capout --bench
    exec "$venv/bin/python" crates/capout/tests/mcp/wrap.py target/release-unwind/capout "$npm_dir" --bench
fi
cargo build --quiet
# Every suite runs, whatever the others say; any failing fails the run.
status=0
"$venv/bin/python" crates/capout/tests/mcp/client.py target/debug/capout || status=1
# What no SDK client sends: raw bytes, signals, the end of stdin mid-call.
"$venv/bin/python" crates/capout/tests/mcp/raw.py target/debug/capout || status=1
# The proxy: around a server of the SDK and the reference servers, then
# raw bytes around a raw server.
"$venv/bin/python" crates/capout/tests/mcp/wrap.py target/debug/capout "$npm_dir" || status=1
"$venv/bin/python" crates/capout/tests/mcp/wrap_raw.py target/debug/capout || status=1
exit $status
