#!/usr/bin/env bash
# Writes the bash, zsh and fish completions that the wheel installs, from a
# built capout (`capout --completions SHELL`); with --check, only compares
# and fails if the committed ones differ.
#
#   packaging/completions.sh [--check] [BINARY]    (default: target/release/capout)
#
# They are committed rather than made during the build because maturin runs
# no step after cargo, and `pip install .` must work from a plain checkout.
set -euo pipefail
cd "$(dirname "$0")/.."

check=false
if [[ ${1:-} == --check ]]; then
    check=true
    shift
fi
bin=${1:-target/release/capout}
[[ -x $bin ]] || { echo "completions.sh: no capout binary at $bin (build it first)" >&2; exit 1; }

share=packaging/wheel-data/data/share
declare -A files=(
    [bash]=$share/bash-completion/completions/capout
    [zsh]=$share/zsh/site-functions/_capout
    [fish]=$share/fish/vendor_completions.d/capout.fish
)
stale=0
for shell in bash zsh fish; do
    file=${files[$shell]}
    if $check; then
        if ! diff -u "$file" <("$bin" --completions "$shell") >&2; then
            echo "completions.sh: $file is not what '$bin --completions $shell' prints" >&2
            stale=1
        fi
    else
        mkdir -p "$(dirname "$file")"
        "$bin" --completions "$shell" > "$file"
    fi
done
if ((stale)); then
    echo "completions.sh: run packaging/completions.sh to rewrite them, and commit the result" >&2
    exit 1
fi
