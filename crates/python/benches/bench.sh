#!/usr/bin/env bash
# The module's benchmarks: the extension and the Rust example built alike
# (the wheel's profile, release-unwind, without LTO, so that both build
# in a minute), then
# benches/bench.py in the test venv (crates/python/tests/run.sh makes it).
set -euo pipefail
cd "$(dirname "$0")/../../.."
flags=(--profile release-unwind --config profile.release-unwind.lto=false --config profile.release-unwind.codegen-units=16)
cargo build --quiet "${flags[@]}" -p capout-python --lib --example python_push_bench
pkg=target/python/bench-pkg
rm -rf "$pkg"
mkdir -p "$pkg"
cp -r crates/python/python/capout "$pkg/capout"
cp target/release-unwind/lib_capout.so "$pkg/capout/_capout.abi3.so"
target/release-unwind/examples/python_push_bench
PYTHONPATH=$pkg target/python/venv/bin/python3 crates/python/benches/bench.py
