#!/usr/bin/env bash
# A build does not depend on where the source tree lies: a clone built
# into a target folder, then moved, builds again into the same folder (a
# build script that named a file of the tree by its absolute path would
# fail to link here). Uses the target folder given, so that the
# dependencies are already built.
#
# Usage: .ci/moved-tree.sh TARGET_DIR
set -euo pipefail
target=$(realpath "${1:?usage: .ci/moved-tree.sh TARGET_DIR}")
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone --quiet --no-hardlinks "$root" "$work/first"
# The working tree as it is, committed or not.
(cd "$root" && git ls-files -z --cached --others --exclude-standard) |
    (cd "$root" && xargs -0 cp --parents -t "$work/first" 2>/dev/null) || true
CARGO_TARGET_DIR=$target cargo build --quiet --bins --manifest-path "$work/first/Cargo.toml"
mv "$work/first" "$work/moved"
touch "$work/moved/crates/capout/src/bin/capout.rs" "$work/moved/crates/capout/src/lib.rs"
CARGO_TARGET_DIR=$target cargo build --quiet --bins --manifest-path "$work/moved/Cargo.toml"
"$target/debug/capout" --version >/dev/null
echo "a moved tree builds"
