#!/usr/bin/env bash
# Fails when code of a module that link/cold.ld places cold lies in the
# release filter's hot .text, or when such a module has no function in
# the binary (see link/check-cold.py). Builds the release binary first.
#
# Usage: crates/capout/link/check-cold.sh
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# nm and readelf read the symbols and sections; never skip for want of them.
command -v nm >/dev/null && command -v readelf >/dev/null || { apt-get update && apt-get install -y binutils; }
cargo build --release --quiet --bin capout --manifest-path "$root/Cargo.toml"
target_dir=$(cargo metadata --format-version 1 --no-deps --manifest-path "$root/Cargo.toml" |
    sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
exec python3 "$root/link/check-cold.py" "$root/link/cold.ld" "$target_dir/release/capout"
