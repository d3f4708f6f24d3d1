#!/usr/bin/env bash
# The module's benchmarks (figures, not tests): builds the module and the
# Rust side in the profile the package ships (release-unwind), lays the
# package as crates/node/test/run.sh does,
# and prints both sides' figures, measured side by side in one run.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(cd ../.. && pwd)
(cd "$root" && cargo build --profile release-unwind -p capout-node --lib --example node_push_bench)
platform=$(node -p 'process.platform + "-" + process.arch')
[[ -d node_modules/ai ]] || { echo "bench.sh: run crates/node/test/run.sh first (it installs the dev dependencies)" >&2; exit 1; }
rm -rf node_modules/capout
cp -r "$root/npm/capout" node_modules/capout
mkdir -p "node_modules/capout-$platform"
echo "{ \"name\": \"capout-$platform\", \"version\": \"0.0.0\" }" >"node_modules/capout-$platform/package.json"
rm -f "node_modules/capout-$platform/capout.node"
cp "$root/target/release-unwind/libcapout_node.so" "node_modules/capout-$platform/capout.node"
# The Rust side, whose runs bench.mjs alternates with its own.
RUST_BENCH=$root/target/release-unwind/examples/node_push_bench node bench/bench.mjs
