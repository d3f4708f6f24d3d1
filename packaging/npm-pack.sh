#!/usr/bin/env bash
# Packs the npm packages into tarballs: capout-OS-CPU-VERSION.tgz, the
# binary for this host (as `node` names its platform and architecture)
# and the Node.js native module, and capout-VERSION.tgz, the launcher that
# runs the binary and the JS entry (`require('capout')`, `capout/ai-sdk`)
# that loads the module.
#
#   packaging/npm-pack.sh [BINARY OUTDIR [MODULE [SERVER]]]
#
# capout-mcp, the server of `capout --mcp`, is taken from beside BINARY
# unless SERVER names it, and so is the module (libcapout_node.so, shipped
# as capout.node) unless MODULE names it. With no arguments it builds
# capout, and the server and the module in the profile release-unwind (a
# panic in a call is an error of that call, see Cargo.toml), into cargo's
# target folder (CARGO_TARGET_DIR too), and writes the tarballs to
# target/npm. The platform package is made under
# target/packaging/npm from npm/platform; its version is Cargo.toml's, and
# the script stops if npm/capout/package.json says another.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ $# == 0 ]]; then
    # -p capout: the build the README's set-up made, reused (the whole
    # workspace would resolve other features of the dependencies).
    cargo build --release --locked -p capout --bin capout
    cargo build --profile release-unwind --locked -p capout --bin capout-mcp
    cargo build --profile release-unwind --locked -p capout-node
    target_dir=$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
    set -- "$target_dir/release/capout" target/npm "$target_dir/release-unwind/libcapout_node.so" \
        "$target_dir/release-unwind/capout-mcp"
fi
[[ $# -ge 2 && $# -le 4 ]] || { echo "usage: packaging/npm-pack.sh [BINARY OUTDIR [MODULE [SERVER]]]" >&2; exit 2; }
binary=$1
out=$2
module=${3:-$(dirname "$binary")/libcapout_node.so}
[[ -x $binary ]] || { echo "npm-pack.sh: no capout binary at $binary" >&2; exit 1; }
server=${4:-$(dirname "$binary")/capout-mcp}
[[ -x $server ]] || { echo "npm-pack.sh: no capout-mcp at $server" >&2; exit 1; }
[[ -f $module ]] || { echo "npm-pack.sh: no Node.js module at $module (cargo build --profile release-unwind -p capout-node)" >&2; exit 1; }
version=$(packaging/version.sh)
mkdir -p "$out"
out=$(cd "$out" && pwd)

# The launcher's manifest must already name this version, for itself and
# for every platform package it depends on.
node - "$version" <<'JS'
const version = process.argv[2];
const manifest = require('./npm/capout/package.json');
const wrong = [['capout', manifest.version], ...Object.entries(manifest.optionalDependencies)]
  .filter(([, v]) => v !== version);
if (wrong.length) {
  console.error(`npm-pack.sh: npm/capout/package.json has ${wrong.map(([n, v]) => `${n} ${v}`).join(', ')}; Cargo.toml has ${version}`);
  process.exit(1);
}
JS

platform=$(node -p 'process.platform + "-" + process.arch')
name=capout-$platform
stage=target/packaging/npm/$name
rm -rf "$stage"
mkdir -p "$stage/bin"
# Stripped, as the wheel's are (maturin's strip = true): the symbols only
# serve a debugger, and are most of an unstripped binary.
install -s -m 755 "$binary" "$stage/bin/capout"
install -s -m 755 "$server" "$stage/bin/capout-mcp"
install -m 755 "$module" "$stage/capout.node"
sed "s/PLATFORM/$platform/g" npm/platform/README.md > "$stage/README.md"
cp LICENSE-MIT LICENSE-APACHE "$stage/"
node - "$name" "$version" "$stage/package.json" <<'JS'
const [name, version, file] = process.argv.slice(2);
const main = require('./npm/capout/package.json');
const manifest = {
  name,
  version,
  description: `The capout binary and Node.js module for ${process.platform}-${process.arch}`,
  license: main.license,
  os: [process.platform],
  cpu: [process.arch],
  files: ['bin/capout', 'bin/capout-mcp', 'capout.node', 'LICENSE-MIT', 'LICENSE-APACHE'],
};
// A binary linked against glibc does not run on musl (Alpine).
if (process.platform === 'linux') manifest.libc = ['glibc'];
require('fs').writeFileSync(file, JSON.stringify(manifest, null, 2) + '\n');
JS

grep -q "\"$name\"" npm/capout/package.json ||
    { echo "npm-pack.sh: npm/capout/package.json does not list $name in optionalDependencies" >&2; exit 1; }
(cd "$stage" && npm pack --silent --pack-destination "$out" >/dev/null)
# The launcher carries the man page, which npm installs where man finds it
# (PREFIX/share/man/man1) with `npm install -g`: staged beside a copy of
# npm/capout, as npm packs only what lies in the package's folder.
launcher=target/packaging/npm/capout
rm -rf "$launcher"
mkdir -p "$launcher/man"
cp -R npm/capout/. "$launcher/"
cp man/capout.1 "$launcher/man/capout.1"
cp LICENSE-MIT LICENSE-APACHE "$launcher/"
(cd "$launcher" && npm pack --silent --pack-destination "$out" >/dev/null)
ls "$out/$name-$version.tgz" "$out/capout-$version.tgz"
