#!/usr/bin/env bash
# The tests of the native module (node --test): builds it and the capout
# binaries (the oracle the tests compare with), installs the dev
# dependencies of crates/node/package-lock.json into crates/node/node_modules from
# the npm registry (again only when the lock file changed), lays the
# `capout` package and its platform package beside them, as an install
# lays them (for the tests and the examples), and runs the tests.
set -euo pipefail
cd "$(dirname "$0")"
test=$PWD
cd ..
root=$(cd ../.. && pwd)

for tool in node npm cargo; do
    command -v "$tool" >/dev/null || { echo "crates/node/test/run.sh: $tool is not installed" >&2; exit 1; }
done
(cd "$root" && cargo build -p capout-node -p capout)

stamp=node_modules/.capout-lock
if ! cmp -s package-lock.json "$stamp"; then
    npm ci --no-audit --no-fund --silent
    cp package-lock.json "$stamp"
fi

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
# The oracle runs with a clean environment, as the CLI tests run it.
unset CAPOUT_OPTS CAPOUT_CONFIG
node --test --test-reporter=spec "$test"/*.test.mjs
