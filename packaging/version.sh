#!/usr/bin/env bash
# Prints capout's version, as Cargo.toml gives it: the one version that the
# wheel, the npm packages and the man page must carry.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo metadata --no-deps --format-version 1 --offline |
    python3 -c 'import json, sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "capout"))'
