#!/usr/bin/env bash
# The tests of the native module (node --test): builds it and the capout
# binaries (the oracle the tests compare with), installs the dev
# dependencies of crates/node/package-lock.json into crates/node/node_modules from
# the npm registry (again only when the lock file changed), lays the
# `capout` package and its platform package beside them, as an install
# lays them (for the tests and the examples), and runs the tests. With
# --install, it installs what it takes from the registry and stops there.
set -euo pipefail
# The AI SDK of the second run, ai 6 (the first has package-lock.json's
# ai 7), and the zod both take.
AI6=6.0.333
ZOD=4.6.7
cd "$(dirname "$0")"
test=$PWD
cd ..
root=$(cd ../.. && pwd)

for tool in node npm cargo; do
    command -v "$tool" >/dev/null || { echo "crates/node/test/run.sh: $tool is not installed" >&2; exit 1; }
done

stamp=node_modules/.capout-lock
if ! cmp -s package-lock.json "$stamp"; then
    npm ci --no-audit --no-fund --silent
    cp package-lock.json "$stamp"
fi
# capout/ai-sdk is also tested with the AI SDK that Node.js 20 gets, ai 6
# (ai 7 needs Node.js 22): the same tests, in a tree of their own under
# target/ where `ai` resolves to version 6.
ai6=$root/target/node-ai6
if [[ $(cat "$ai6/.capout-ai" 2>/dev/null) != "$AI6" ]]; then
    rm -rf "$ai6"
    mkdir -p "$ai6"
    echo '{ "private": true }' >"$ai6/package.json"
    (cd "$ai6" && npm install --no-audit --no-fund --silent "ai@$AI6" "zod@$ZOD") || {
        echo "crates/node/test/run.sh: cannot install ai@$AI6 from npm" >&2
        exit 1
    }
    echo "$AI6" >"$ai6/.capout-ai"
fi
[[ "${1:-}" != --install ]] || exit 0

(cd "$root" && cargo build -p capout-node -p capout)

# The package from its source, and the platform package with the module
# built just now, as capout's index.js finds them.
platform=$(node -p 'process.platform + "-" + process.arch')
rm -rf node_modules/capout
cp -r "$root/npm/capout" node_modules/capout
mkdir -p "node_modules/capout-$platform"
echo "{ \"name\": \"capout-$platform\", \"version\": \"0.0.0\" }" >"node_modules/capout-$platform/package.json"
# A hard link (a copy across file systems): a symlink would be loaded by
# its target's name, which does not end in .node.
module=node_modules/capout-$platform/capout.node
rm -f "$module"
ln "$root/target/debug/libcapout_node.so" "$module" 2>/dev/null || cp "$root/target/debug/libcapout_node.so" "$module"

export CAPOUT_BIN=$root/target/debug/capout
export CAPOUT_MCP_BIN=$root/target/debug/capout-mcp
# The oracle runs with a clean environment, as the CLI tests run it; the
# module's ledger goes to a scratch state folder, not the user's.
unset CAPOUT_OPTS CAPOUT_CONFIG CAPOUT_LEDGER
XDG_STATE_HOME=$(mktemp -d)
export XDG_STATE_HOME
trap 'rm -rf "$XDG_STATE_HOME"' EXIT
status=0
node --test --test-reporter=spec "$test"/*.test.mjs || status=1

# capout/ai-sdk with ai 6, in its tree (above).
rm -rf "$ai6/node_modules/capout" "$ai6/node_modules/capout-$platform" "$ai6/test"
cp -r node_modules/capout "$ai6/node_modules/capout"
cp -r "node_modules/capout-$platform" "$ai6/node_modules/capout-$platform"
mkdir "$ai6/test"
cp "$test/ai-sdk.test.mjs" "$test/common.mjs" "$ai6/test/"
echo "== capout/ai-sdk with ai@$AI6"
(cd "$ai6" && node --test --test-reporter=spec test/ai-sdk.test.mjs) || status=1
exit $status
