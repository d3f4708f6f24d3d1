#!/usr/bin/env bash
# capout inside the real harnesses: each installed from the npm registry at
# the version pinned here, into target/harness (once, reused after), and
# driven headless by a scripted model on 127.0.0.1 (model.py), with capout
# set up by `capout init` in a throwaway home. Prints `N passed, M failed`.
# Fails loudly when a harness cannot be installed: it never passes for
# want of one.
#
#   bash crates/capout/tests/harness/run.sh
#   CAPOUT_HARNESS=codex bash crates/capout/tests/harness/run.sh   (one harness)
#   bash crates/capout/tests/harness/run.sh --install   (the harnesses alone)
set -euo pipefail
cd "$(dirname "$0")/../../../.."

# The versions the tests were written against. Droid's program is its
# platform package, named here: the registry holds @factory/cli 0.225.1,
# whose own 0.225.1 program is not there, and the 0.225.2 one that is.
PACKAGES=("@anthropic-ai/claude-code@2.1.332" "@openai/codex@0.171.0" "@google/gemini-cli@0.61.0"
    "opencode-ai@1.18.33" "@mariozechner/pi-coding-agent@0.73.1"
    "@github/copilot@1.0.102" "@factory/cli@0.225.1" "@factory/cli-linux-x64@0.225.2"
    "@qwen-code/qwen-code@0.24.4")
dir=target/harness

command -v npm >/dev/null || (apt-get update && apt-get install -y nodejs npm) || {
    echo "tests/harness: cannot install npm" >&2
    exit 1
}
mkdir -p "$dir"
# One install of all of them: npm's --no-save install of one package
# removes the others it did not save.
missing=0
for package in "${PACKAGES[@]}"; do
    name=${package%@*}
    have=$(node -p "require('./$dir/node_modules/$name/package.json').version" 2>/dev/null || true)
    [[ "$name@$have" == "$package" ]] || missing=1
done
if ((missing)); then
    npm install --prefix "$dir" --no-audit --no-fund --no-save --loglevel=error "${PACKAGES[@]}" || {
        echo "tests/harness: cannot install ${PACKAGES[*]} from npm" >&2
        exit 1
    }
fi
command -v pgrep >/dev/null || (apt-get update && apt-get install -y procps)
[[ "${1:-}" != --install ]] || exit 0
cargo build --quiet --bins
# The calls capout bounded in the suite go to one ledger of its own, and
# `capout stats` says at the end what bounding kept out of the models.
CAPOUT_SUITE_STATE=$(mktemp -d)
export CAPOUT_SUITE_STATE
trap 'rm -rf "$CAPOUT_SUITE_STATE"' EXIT
status=0
python3 crates/capout/tests/harness/harness.py "$PWD/target/debug/capout" "$PWD/$dir" || status=$?
echo "== capout stats over the calls of the suite"
env -u CAPOUT_LEDGER XDG_STATE_HOME="$CAPOUT_SUITE_STATE" target/debug/capout stats
exit "$status"
