#!/usr/bin/env bash
# The Python module's tests: builds the extension (debug) and the capout
# binary that the tests take as their oracle, lays the package out under
# target/python/pkg, and runs pytest in a virtual environment under
# target/python/venv, made (and brought to the pinned versions) on the
# first run. Prints pytest's summary; fails when no test ran. With
# --install, it makes the virtual environment and stops there.
set -euo pipefail
cd "$(dirname "$0")/../../.."

work=target/python
venv=$work/venv
pkg=$work/pkg
# pytest, and pydantic-ai for its FunctionModel (the tools' tests); the
# OpenAI Agents SDK for the docs' example of it (.ci/doc-blocks.py).
requirements=('pytest==9.2.0' 'pydantic-ai-slim==2.68.0' 'openai-agents==0.24.0')

[[ -x $venv/bin/python3 ]] || python3 -m venv "$venv"
stamp=$venv/.capout-requirements
if [[ ! -f $stamp || $(cat "$stamp") != "${requirements[*]}" ]]; then
    "$venv/bin/pip" install --quiet --disable-pip-version-check "${requirements[@]}"
    printf '%s' "${requirements[*]}" >"$stamp"
fi
[[ "${1:-}" != --install ]] || exit 0

cargo build --quiet -p capout-python -p capout --bins --lib

rm -rf "$pkg"
mkdir -p "$pkg"
cp -r crates/python/python/capout "$pkg/capout"
cp target/debug/lib_capout.so "$pkg/capout/_capout.abi3.so"

# A clean environment: no CAPOUT_OPTS, no config file for the oracle.
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
status=0
CAPOUT_BIN=$PWD/target/debug/capout PYTHONPATH=$PWD/$pkg \
    env -u CAPOUT_OPTS -u CAPOUT_CONFIG HOME="$home" XDG_CONFIG_HOME="$home/.config" \
    "$venv/bin/python3" -m pytest -q -p no:cacheprovider crates/python/tests "$@" || status=$?
# 5: pytest collected no test, which is a failure here.
exit "$status"
