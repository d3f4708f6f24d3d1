#!/usr/bin/env bash
# The packaging test, run by .ci/run: builds the wheel (manylinux2014, one
# release build of capout, through `pip wheel .` and pyproject.toml) and the
# npm tarballs (from the same binary), installs each into a fresh virtual
# environment / scratch node_modules, and runs the installed capout.
#
# It needs python3 (with venv), node and npm, and installs the rest from the
# registries into target/packaging/tools (ziglang, which links for glibc
# 2.17, and uv); maturin comes through pip's build isolation. Everything
# it makes is under target/packaging. It fails if anything is missing.
# With --install, it installs those tools and stops there. With --quick
# (as CI runs it), the wheel is built without link-time optimisation and
# at opt-level 1, and the Node.js module is the one its suite built:
# everything is checked as in a shipped build but the sizes it prints,
# which are then not the shipped ones.
set -euo pipefail
cd "$(dirname "$0")/.."
began=$SECONDS

work=target/packaging
dist=$work/dist
tools=$work/tools

for tool in python3 node npm cargo file man; do
    command -v "$tool" >/dev/null || { echo "packaging/test.sh: $tool is not installed" >&2; exit 1; }
done

echo "== tools: $tools"
[[ -x $tools/bin/python3 ]] || python3 -m venv "$tools"
"$tools/bin/pip" install --quiet --disable-pip-version-check 'ziglang==0.17.1' 'uv==0.13.9'
# zig itself on PATH: `python3 -m ziglang` does not import inside pip's
# isolated build of the tools' own pip.
mkdir -p "$tools/zig"
ln -sf "$("$tools/bin/python3" -c 'import os, ziglang; print(os.path.dirname(ziglang.__file__))')/zig" "$tools/zig/zig"

# --install: the tools alone, from the registry.
[[ "${1:-}" != --install ]] || exit 0
quick=
if [[ "${1:-}" == --quick ]]; then
    # The wheel (its extension and commands) in the profile of what runs
    # inside a host, without fat LTO's single unit and at opt-level 1;
    # the Node.js module as its suite built it.
    quick=" (--quick: not the shipped builds, nor their sizes)"
    export CARGO_PROFILE_RELEASE_UNWIND_LTO=false CARGO_PROFILE_RELEASE_UNWIND_CODEGEN_UNITS=16 \
        CARGO_PROFILE_RELEASE_UNWIND_OPT_LEVEL=1
fi

passed=0
failed=0
pass() {
    echo "ok: $1"
    passed=$((passed + 1))
}
fail() {
    echo "FAILED: $1" >&2
    failed=$((failed + 1))
}
# check NAME COMMAND...: a check that passes when COMMAND succeeds.
check() {
    local name=$1
    shift
    if "$@"; then pass "$name"; else fail "$name"; fi
}
# run_case NAME STATUS STDOUT COMMAND...: runs COMMAND with the known input
# on stdin; its stdout must be STDOUT exactly and its status STATUS.
run_case() {
    local name=$1 want_status=$2 want_out=$3 status=0
    shift 3
    "$@" <"$work/input.txt" >"$work/out" 2>"$work/err" || status=$?
    if [[ $status != "$want_status" ]]; then
        fail "$name: status $status, expected $want_status ($(head -c 300 "$work/err"))"
    elif ! cmp -s "$work/out" <(printf '%s' "$want_out"); then
        fail "$name: stdout differs; expected:"$'\n'"$want_out"$'\n'"got:"$'\n'"$(head -c 300 "$work/out")"
    else
        pass "$name"
    fi
}
same_file() { cmp -s "$1" "$2"; }
# stripped FILE: an ELF file without its symbol table.
stripped() { file -b "$1" | grep -q ', stripped'; }
# man_finds DIR PAGE: `man capout` with DIR first on PATH (and no MANPATH,
# so that man derives its search path from PATH) opens PAGE, through any
# symlink. man skips a relative PATH entry: both are made absolute.
man_finds() {
    local found
    found=$(env -u MANPATH PATH="$(realpath -m "$1"):/usr/bin:/bin" man -w capout 2>/dev/null) &&
        test "$(realpath "$found")" = "$(realpath -m "$2")"
}
# serves_mcp COMMAND...: COMMAND --mcp answers an MCP initialize request
# as capout's server.
# serves COMMAND...: COMMAND --root DIR answers an MCP initialize as capout.
serves() {
    local init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"check","version":"1"}}}'
    printf '%s\n' "$init" | timeout 20 "$@" --root "$work" 2>"$work/err" |
        grep -q '"serverInfo":{"name":"capout","version":"'"$version"'"}'
}
serves_mcp() { serves "$@" --mcp; }

version=$(packaging/version.sh)
arch=$(uname -m)
platform=$(node -p 'process.platform + "-" + process.arch')
mkdir -p "$work"
printf 'line one\nline two\nline three\n' >"$work/input.txt"
tail10=$'ine three\n... (truncated, showing last 10 chars)\n'
# The exact tokenizers ship in every package: o200k_base counts " three\n"
# as the last 2 tokens of the input.
tok2=$' three\n... (truncated, showing last 2 tokens)\n'

echo "== versions: Cargo.toml says $version"
grep -Eq '^dynamic = \["version"\]' pyproject.toml && ! grep -Eq '^version *=' pyproject.toml &&
    pass "pyproject.toml takes its version from Cargo.toml" ||
    fail "pyproject.toml must have dynamic = [\"version\"] and no version of its own"
npm_versions=$(node -e '
    const m = require("./npm/capout/package.json");
    for (const [n, v] of [["capout", m.version], ...Object.entries(m.optionalDependencies)]) console.log(n, v);')
while read -r name v; do
    [[ $v == "$version" ]] && pass "npm/capout/package.json: $name $v" ||
        fail "npm/capout/package.json: $name is $v, Cargo.toml is $version"
done <<<"$npm_versions"
grep -q "^\.TH CAPOUT 1 \"[^\"]*\" \"capout $version\"" man/capout.1 &&
    pass "man/capout.1 names capout $version" || fail "man/capout.1 does not name capout $version in .TH"

echo "== cargo install --path crates/capout (the default features)"
start=$SECONDS
rm -rf "$work/cargo"
# The release build of target/, which the Node.js module's build below
# shares.
cargo install --quiet --locked --path crates/capout --root "$work/cargo" --target-dir target
echo "built in $((SECONDS - start)) s"
check "cargo install: capout runs" test "$("$work/cargo/bin/capout" --version)" = "capout $version"
run_case "cargo install: capout --tail-tokens 2 --tokenizer o200k" 0 "$tok2" \
    "$work/cargo/bin/capout" --tail-tokens 2 --tokenizer o200k
run_case "cargo install: capout --tail-tokens 2 --tokenizer cl100k" 0 "$tok2" \
    "$work/cargo/bin/capout" --tail-tokens 2 --tokenizer cl100k

echo "== the wheel: pip wheel . (maturin, zig, manylinux2014)"
rm -rf "$dist"
mkdir -p "$dist"
start=$SECONDS
PATH=$PWD/$tools/zig:$PATH MATURIN_PEP517_ARGS="--zig --compatibility manylinux2014" \
    "$tools/bin/pip" wheel --quiet --disable-pip-version-check --no-deps --wheel-dir "$dist" .
echo "built in $((SECONDS - start)) s"
# abi3: one wheel for every CPython from 3.8 on.
wheel=$dist/capout-$version-cp38-abi3-manylinux2014_$arch.manylinux_2_17_$arch.whl
check "the wheel is $(basename "$wheel")" test -f "$wheel"
# The binary inside the wheel is the one the npm package ships too.
rm -rf "$work/wheel"
python3 - "$wheel" "$version" "$work/wheel" <<'PY'
import sys, zipfile
wheel, version, to = sys.argv[1:]
zipfile.ZipFile(wheel).extractall(to)
PY
data=$work/wheel/capout-$version.data
binary=$data/scripts/capout
chmod +x "$binary"
check "the wheel's binary runs" test "$("$binary" --version)" = "capout $version"
chmod +x "$data/scripts/capout-mcp"
check "the wheel's capout is stripped" stripped "$binary"
check "the wheel's capout-mcp is stripped" stripped "$data/scripts/capout-mcp"
check "the wheel carries capout-mcp, which capout --mcp runs" serves_mcp "$binary"
glibc_217() {
    python3 - "$1" <<'PY'
import re, sys
found = {tuple(map(int, v)) for v in re.findall(rb"GLIBC_(\d+)\.(\d+)", open(sys.argv[1], "rb").read())}
print("GLIBC versions named:", ", ".join("%d.%d" % v for v in sorted(found)))
sys.exit(0 if found and max(found) <= (2, 17) else 1)
PY
}
check "the wheel's binary needs no glibc newer than 2.17" glibc_217 "$binary"
check "the wheel's extension needs no glibc newer than 2.17" glibc_217 "$work/wheel/capout/_capout.abi3.so"
for f in __init__.py __init__.pyi py.typed pydantic_ai.py; do
    check "the wheel carries capout/$f" test -f "$work/wheel/capout/$f"
done
check "the wheel carries the man page at share/man/man1/capout.1" \
    same_file "$data/data/share/man/man1/capout.1" man/capout.1
for f in bash-completion/completions/capout zsh/site-functions/_capout fish/vendor_completions.d/capout.fish; do
    check "the wheel carries share/$f" same_file "$data/data/share/$f" "packaging/wheel-data/data/share/$f"
done
check "the committed completions are what this capout prints" packaging/completions.sh --check "$binary"
for f in LICENSE-MIT LICENSE-APACHE; do
    check "the wheel carries $f" same_file "$work/wheel/capout-$version.dist-info/licenses/$f" "$f"
done

echo "== pip install into a fresh venv"
venv=$work/venv
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check --no-index "$wheel"
check "pip put capout on the venv's PATH" test "$(PATH=$venv/bin:/usr/bin:/bin capout --version)" = "capout $version"
run_case "pip: capout -c 10" 0 "$tail10" "$venv/bin/capout" -c 10
run_case "pip: capout --tail-tokens 2 --tokenizer o200k" 0 "$tok2" "$venv/bin/capout" --tail-tokens 2 --tokenizer o200k
check "pip: capout --mcp" serves_mcp "$venv/bin/capout"
run_case "pip: capout -- sh -c 'exit 3'" 3 "" "$venv/bin/capout" --notice none -- sh -c 'exit 3'
check "pip installed the man page into the venv's share/man/man1" same_file "$venv/share/man/man1/capout.1" man/capout.1
check "pip: man capout opens the venv's page" man_finds "$venv/bin" "$venv/share/man/man1/capout.1"
check "pip installed the bash completion" test -s "$venv/share/bash-completion/completions/capout"
# import capout: the extension, in the same venv as the commands.
imports() {
    "$venv/bin/python" - "$work/input.txt" "$tail10" <<'PY'
import sys
import capout
data, want = open(sys.argv[1], "rb").read(), sys.argv[2].encode()
got = capout.cap(data, tail_chars=10)
capper = capout.Capper(tail_chars=10)
pushed = capper.push(data[:5]) + capper.push(data[5:]) + capper.finish()[0]
ran = capout.run(["sh", "-c", "exit 3"], notice="none")
print("import capout:", capout.__file__)
sys.exit(0 if (got.output, pushed, got.summary.truncated, ran.summary.exit_code) == (want, want, True, 3) else 1)
PY
}
check "pip: import capout (cap, Capper, run)" imports
imports_o200k() {
    "$venv/bin/python" - "$work/input.txt" "$tok2" <<'PY'
import sys
import capout
data, want = open(sys.argv[1], "rb").read(), sys.argv[2].encode()
got = capout.cap(data, tail_tokens=2, tokenizer="o200k")
print("capout.cap(tokenizer='o200k'):", got.output, got.summary.tokenizer)
sys.exit(0 if (got.output, got.summary.tokenizer) == (want, "o200k") else 1)
PY
}
check "pip: import capout: cap(tail_tokens=2, tokenizer='o200k')" imports_o200k

echo "== uv tool install"
uvdir=$work/uv
rm -rf "$uvdir"
UV_TOOL_DIR=$uvdir/tools UV_TOOL_BIN_DIR=$uvdir/bin "$tools/bin/uv" tool install --quiet --offline "$wheel"
run_case "uv: capout -c 10" 0 "$tail10" "$uvdir/bin/capout" -c 10
check "uv installed the man page" same_file "$uvdir/tools/capout/share/man/man1/capout.1" man/capout.1
# uv links only the binaries into its bin folder, so man does not find the
# page beside them: capout --man prints it (capout --man | man -l -).
check "uv: capout --man prints the man page" same_file <("$uvdir/bin/capout" --man) man/capout.1
if man_finds "$uvdir/bin" "$uvdir/share/man/man1/capout.1"; then
    fail "uv: man capout finds a page: the README says it does not"
else
    pass "uv: man capout finds no page beside uv's bin folder, as the README says"
fi

start=$SECONDS
if [[ -n $quick ]]; then
    # The build the Node.js suite made (crates/node/test/run.sh), reused.
    echo "== the Node.js module: cargo build -p capout-node -p capout (--quick: as its suite builds it)"
    cargo build --locked -p capout-node -p capout
    module=target/debug/libcapout_node.so
else
    echo "== the Node.js module: cargo build --profile release-unwind -p capout-node"
    cargo build --profile release-unwind --locked -p capout-node
    module=target/release-unwind/libcapout_node.so
fi
echo "built in $((SECONDS - start)) s"

echo "== npm pack, npm install into a scratch directory, offline"
packaging/npm-pack.sh "$binary" "$dist" "$module"
scratch=$work/npm-scratch
rm -rf "$scratch"
mkdir -p "$scratch"
cp "$dist"/capout-*.tgz "$scratch"
echo '{ "private": true }' >"$scratch/package.json"
(cd "$scratch" && npm install --offline --silent --no-audit --no-fund "./capout-$platform-"*.tgz ./capout-*.tgz)
launcher=$scratch/node_modules/.bin/capout
for f in LICENSE-MIT LICENSE-APACHE; do
    check "npm: the platform package carries $f" same_file "$scratch/node_modules/capout-$platform/$f" "$f"
    check "npm: the launcher carries $f" same_file "$scratch/node_modules/capout/$f" "$f"
done
check "npm: the platform package's capout is stripped" stripped "$scratch/node_modules/capout-$platform/bin/capout"
check "npm: the platform package's capout-mcp is stripped" stripped "$scratch/node_modules/capout-$platform/bin/capout-mcp"
# npm install -g puts the launcher's man page where man finds it.
global=$work/npm-global
rm -rf "$global"
npm install -g --prefix "$global" --offline --silent --no-audit --no-fund "$scratch/capout-$platform-"*.tgz "$scratch"/capout-[0-9]*.tgz
check "npm -g: capout runs" test "$("$global/bin/capout" --version)" = "capout $version"
check "npm -g: capout-mcp is on PATH beside it and serves MCP" serves "$global/bin/capout-mcp"
check "npm -g: man capout opens the installed page" man_finds "$global/bin" "$global/share/man/man1/capout.1"
check "npm -g: the page is man/capout.1" same_file "$global/share/man/man1/capout.1" man/capout.1
check "npx capout --version" test "$(cd "$scratch" && npx --offline capout --version)" = "capout $version"
# A Node.js 20 user's order: `npm install ai` first gives ai 6, which
# capout's peer range takes (ai 7 needs Node.js 22), then capout's tarballs.
ai_scratch=$work/npm-ai
rm -rf "$ai_scratch"
mkdir -p "$ai_scratch"
echo '{ "private": true }' >"$ai_scratch/package.json"
ai_tools() {
    local tarballs
    tarballs=$(cd "$dist" && pwd)
    (cd "$ai_scratch" &&
        npm install --loglevel=error --no-audit --no-fund ai@6.0.333 zod@4.6.7 &&
        npm install --loglevel=error --no-audit --no-fund "$tarballs/capout-$platform-$version.tgz" "$tarballs/capout-$version.tgz" &&
        node -e "const t = require('capout/ai-sdk'); for (const f of ['readTool', 'grepTool', 'bashTool']) if (typeof t[f]().execute !== 'function') process.exit(1)")
}
check "npm: ai@6 then capout installs, and capout/ai-sdk gives its tools" ai_tools
run_case "npm launcher: capout -c 10" 0 "$tail10" "$launcher" -c 10
run_case "npm launcher: capout --tail-tokens 2 --tokenizer o200k" 0 "$tok2" "$launcher" --tail-tokens 2 --tokenizer o200k
check "npm launcher: capout --mcp" serves_mcp "$launcher"
check "npm launcher: capout-mcp serves MCP" serves "$scratch/node_modules/.bin/capout-mcp"
run_case "npx: capout -c 10" 0 "$tail10" sh -c "cd $scratch && exec npx --offline capout -c 10"
run_case "npm launcher: capout -- sh -c 'exit 3'" 3 "" "$launcher" --notice none -- sh -c 'exit 3'
run_case "npx: capout -- sh -c 'exit 3'" 3 "" sh -c "cd $scratch && exec npx --offline capout --notice none -- sh -c 'exit 3'"
run_case "npm launcher: a command killed by SIGTERM gives 143" 143 "" \
    "$launcher" --notice none -- sh -c 'kill -TERM $$'
# The launcher dies of the signal that killed capout, and passes on one sent
# to it. Each waits (up to 60 s) for capout to have started, not for a time.
signal_case() {
    python3 - "$launcher" "$@" <<'PY'
import os, signal, subprocess, sys, time
launcher, target, name = sys.argv[1:]
sig = getattr(signal, name)
p = subprocess.Popen([launcher, "-c", "10"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
deadline = time.monotonic() + 60
children = ""
while not children and time.monotonic() < deadline:
    with open(f"/proc/{p.pid}/task/{p.pid}/children") as f:
        children = f.read().split()
    time.sleep(0.01)
if not children:
    sys.exit(f"capout did not start under the launcher: {children}")
capout = int(children[0])
os.kill(p.pid if target == "launcher" else capout, sig)
try:
    status = p.wait(timeout=60)
except subprocess.TimeoutExpired:
    p.kill()
    sys.exit("the launcher did not end")
# capout must be gone before its stdin is closed: killed, not ended by EOF.
gone = not os.path.exists(f"/proc/{capout}")
p.stdin.close()
print(f"launcher ended with {status}, capout gone: {gone}")
sys.exit(0 if status == -sig and gone else 1)
PY
}
check "npm launcher sent SIGTERM: capout gets it, the launcher dies of it" signal_case launcher SIGTERM
check "npm launcher sent SIGINT: capout gets it, the launcher dies of it" signal_case launcher SIGINT
check "capout killed by SIGKILL: the launcher dies of SIGKILL" signal_case capout SIGKILL

echo "== the JS entry: require, import, capout/ai-sdk, types"
in_scratch() { (cd "$scratch" && "$@"); }
check "require('capout') from CommonJS: cap() is capout -c 10" \
    test "$(in_scratch node -e 'process.stdout.write(require("capout").cap(require("fs").readFileSync(0), { tailChars: 10 }))' <"$work/input.txt")" = "${tail10%$'\n'}"
check "require('capout'): cap() with tokenizer 'o200k'" \
    test "$(in_scratch node -e 'process.stdout.write(require("capout").cap(require("fs").readFileSync(0), { tailTokens: 2, tokenizer: "o200k" }))' <"$work/input.txt")" = "${tok2%$'\n'}"
esm_capper='import { Capper } from "capout";
const c = new Capper({ headLines: 1 });
process.stdout.write(Buffer.concat([c.push("line one\nline two\n"), c.finish().output]));'
check "import { Capper } from 'capout' in an ES module" \
    test "$(in_scratch node --input-type=module -e "$esm_capper")" = "$(printf 'line one\nline two\n' | "$launcher" -n 1)"
# The AI SDK, zod and TypeScript at the versions the tests pin, from the
# registry (or npm's cache).
dev_deps=$(node -p 'Object.entries(require("./crates/node/package.json").devDependencies).map(([n, v]) => n + "@" + v).join(" ")')
# shellcheck disable=SC2086
(cd "$scratch" && npm install --prefer-offline --silent --no-audit --no-fund $dev_deps)
ai_esm='import { bashTool } from "capout/ai-sdk";
process.stdout.write(await bashTool({ root: "." }).execute({ command: "seq 3 | tail -c 2" }, { toolCallId: "1", messages: [] }));'
check "import { bashTool } from 'capout/ai-sdk': the server's bash" test "$(in_scratch node --input-type=module -e "$ai_esm")" = "3"
printf 'one\ntwo\n' >"$scratch/two.txt"
ai_cjs='require("capout/ai-sdk").readTool({ root: "." }).execute({ path: "two.txt", limit: 1 }, { toolCallId: "1", messages: [] }).then((t) => process.stdout.write(t))'
check "require('capout/ai-sdk') from CommonJS: the server's read" \
    test "$(in_scratch node -e "$ai_cjs")" = "$(printf '     1\tone\n... (truncated, showing lines 1-1 of 2, next offset 1)')"
# The consumers of crates/node/test/types, against the installed package.
cp crates/node/test/types/{tsconfig.json,consumer.mts,consumer.cts,wrong.mts} "$scratch"
tsc=$PWD/crates/node/node_modules/.bin/tsc
# in_scratch runs it from $scratch: an absolute path.
[[ -x $tsc ]] || tsc=$PWD/$scratch/node_modules/.bin/tsc
check "the types resolve for ESM and CommonJS consumers (tsc --noEmit)" in_scratch "$tsc" -p tsconfig.json
wrong=$(in_scratch "$tsc" --ignoreConfig --noEmit --module nodenext --strict --skipLibCheck --types node wrong.mts) || true
check "tsc rejects a wrong use of cap() and Capper: the types are the package's" \
    test "$(grep -c 'error TS2322' <<<"$wrong")" = 2
err=$(node -e 'require("./npm/capout")' 2>&1 | grep -o 'Error: capout: .*') || true
check "require('capout') without its platform package says so" \
    test "$err" = "Error: capout: no native module for $platform: the package capout-$platform is not installed (install it beside capout)"
err=$(node npm/capout/bin/capout.js --version 2>&1 >/dev/null) && status=0 || status=$?
check "the launcher without its platform package says so, status 1" \
    test "$status:$err" = "1:capout: no binary for $platform: the package capout-$platform is not installed (install it beside capout, or install capout with cargo)"
err=$(node npm/capout/bin/capout-mcp.js --version 2>&1 >/dev/null) && status=0 || status=$?
check "the capout-mcp launcher without its platform package says so, status 1" \
    test "$status:$err" = "1:capout-mcp: no binary for $platform: the package capout-$platform is not installed (install it beside capout, or install capout with cargo)"

echo "== sizes (the install guide quotes them)$quick"
printf '%9d bytes  %s (cargo install, unstripped)\n' "$(stat -c %s "$work/cargo/bin/capout")" capout
for f in "$wheel" "$dist"/capout-*.tgz; do
    printf '%9d bytes  %s\n' "$(stat -c %s "$f")" "$(basename "$f")"
done
for f in "$data/scripts/capout" "$data/scripts/capout-mcp"; do
    printf '%9d bytes  %s (in the wheel, unpacked)\n' "$(stat -c %s "$f")" "$(basename "$f")"
done

echo "packaging test: $((SECONDS - began)) s"
echo "$passed passed, $failed failed"
((failed == 0))
