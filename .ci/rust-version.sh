#!/usr/bin/env bash
# What CI can check of the workspace's rust-version with the one, newer,
# toolchain it has: clippy reads rust-version and its lint
# incompatible_msrv (an error under -D warnings) refuses a use of the
# standard library stabilised after it; this refuses a package of the
# lock file (for any target) that declares a newer rust-version than ours.
# A build with that toolchain itself is still what would prove it.
set -euo pipefail
cd "$(dirname "$0")/.."
metadata=$(cargo metadata --format-version 1 --locked)
ours=$(jq -r '.packages[] | select(.name == "capout-core") | .rust_version' <<<"$metadata")
newer=$(jq -r --arg ours "$ours" '.packages[] | select(.rust_version != null) | "\(.rust_version) \(.name) \(.version)"' <<<"$metadata" |
    while read -r version name v; do
        # 1.88 is 1.88.0: the newer of the two, by sort -V, is ours.
        [[ $(printf '%s.0.0\n%s.0.0\n' "$ours" "$version" | cut -d. -f1-3 | sort -V | tail -1) == "$(cut -d. -f1-3 <<<"$ours.0.0")" ]] ||
            echo "$name $v needs Rust $version"
    done)
if [[ -n $newer ]]; then
    printf 'rust-version is %s, but:\n%s\n' "$ours" "$newer" >&2
    exit 1
fi
echo "$(jq '.packages | length' <<<"$metadata") packages, none needs a Rust newer than $ours"
