"""Fails when a function of a module that link/cold.ld calls cold lies
outside the release binary's .text.cold, or when such a module has no
function in the binary at all (a renamed module, a pattern that matches
nothing), so the script can never pass for matching nothing.

Usage: python3 crates/capout/link/check-cold.py LINKER_SCRIPT BINARY

The modules are read from the patterns of the script itself: a pattern
in legacy mangling, `*11capout_core4caps6tokens*`, names the module
`capout_core::caps::tokens` (a bare name, `*gimli*`, names the crate or module
of that name, wherever it sits); its `capout_core..caps..tokens..` twin, the
form a module path takes inside the generic arguments of another
crate's function, names the same module.

A function is the module's when its own path lies in the module:
`capout_core::render::Screen::put`, its closures, and the methods of
`<capout_core::render::Screen as core::fmt::Debug>` or of
`<Vec<u8> as capout::json::Write>`. A function of another module that is
only instantiated with the module's types
(`core::ptr::drop_in_place<capout_core::render::Screen>`) is not: in legacy
mangling its symbol names the module only when the type is one of its
generic arguments' path (`drop_in_place` does, `Vec<T>::push` does not),
so the script moves some of it and cannot move the rest. Such code runs
only when the module's code does, so it costs memory only in the runs
that use the mode anyway.
"""

import re
import subprocess
import sys

# capout's own modules of the rare modes, as build.rs and the README name
# them (--render, the token estimator and the token caps, running a
# command, --json, --save, --completions): checked whether or not the
# script names them, so a mode the script forgets fails here.
# Modules the script places at the start of .text.cold for layout, not
# because they are rare: the filter runs them, so some of their functions
# stay in .text (link/cold.ld says why).
PLACED = {("raw_vec",)}

CAPOUT_COLD = [
    "capout_core::render",
    "capout_core::tokens",
    "capout_core::caps::tokens",
    "capout::command",
    "capout::json",
    "capout_core::save",
    "capout::completions",
    "capout::hook",
    "capout::init",
]


def segments_of_pattern(pattern):
    """The module path a section pattern names, as a tuple of segments."""
    if ".." in pattern:
        return tuple(s for s in pattern.split("..") if s)
    # Legacy mangling: each segment is its length and its name; a pattern
    # may start inside a segment (`std9backtrace`: the end of `3std`), and
    # one that reads no other way is one name (`addr2line`).
    try:
        return read_lengths(pattern)
    except ValueError:
        return (pattern,)


def read_lengths(pattern):
    head = re.match(r"[A-Za-z_][A-Za-z0-9_]*?(?=\d|$)", pattern)
    segments = []
    rest = pattern
    if head and head.group(0):
        segments.append(head.group(0))
        rest = pattern[head.end():]
    while rest:
        m = re.match(r"(\d+)", rest)
        if not m:
            raise ValueError(pattern)
        n = int(m.group(1))
        name = rest[m.end():m.end() + n]
        if len(name) != n:
            raise ValueError(pattern)
        segments.append(name)
        rest = rest[m.end() + n:]
    return tuple(segments)


def strip_generics(path):
    """`a::b<c::d>::e` -> `a::b::e`."""
    out, depth = [], 0
    for ch in path:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(depth - 1, 0)
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def own_paths(name):
    """The paths that say whose function `name` is: its own path, or for a
    method of an impl, the type's path and the trait's."""
    name = re.sub(r"\[[0-9a-f]+\]", "", name)  # v0's crate disambiguators
    if not name.startswith("<"):
        return [strip_generics(name)]
    depth = 0
    for i, ch in enumerate(name):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
            if depth == 0:
                header = name[1:i]
                break
    else:
        return [strip_generics(name)]
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(header):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif depth == 0 and header.startswith(" as ", i):
            parts.append(header[start:i])
            start = i + 4
    parts.append(header[start:])
    return [strip_generics(re.sub(r"^[&*]*(mut |const |dyn )?", "", p)) for p in parts]


def contains(path, module):
    segs = tuple(s for s in path.split("::") if s)
    k = len(module)
    return any(segs[i:i + k] == module for i in range(len(segs) - k + 1))


def main():
    script, binary = sys.argv[1], sys.argv[2]
    text = re.sub(r"/\*.*?\*/", "", open(script).read(), flags=re.S)
    patterns = re.findall(r"\.text\.\*([^*\s()]+)\*", text)
    modules = {}
    for p in patterns:
        modules.setdefault(segments_of_pattern(p), []).append(p)
    for m in CAPOUT_COLD:
        modules.setdefault(tuple(m.split("::")), [])

    sections = subprocess.run(["readelf", "-SW", binary], check=True, capture_output=True, text=True).stdout
    cold = re.search(r"\]\s+\.text\.cold\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", sections)
    if not cold:
        print(f"FAIL: {binary} has no .text.cold section")
        return 1
    lo = int(cold.group(1), 16)
    hi = lo + int(cold.group(2), 16)

    nm = subprocess.run(["nm", "--defined-only", "-C", binary], check=True, capture_output=True, text=True).stdout
    functions = []
    for line in nm.splitlines():
        fields = line.split(" ", 2)
        if len(fields) == 3 and fields[1] in "tTwW":
            functions.append((int(fields[0], 16), fields[2], own_paths(fields[2])))

    failed = 0
    print(f".text.cold: {lo:#x}..{hi:#x} ({(hi - lo) // 1024} KiB)")
    print("| module | functions | in .text.cold | outside |\n|---|---|---|---|")
    hot_lines = []
    for module in sorted(modules):
        name = "::".join(module)
        own = [(a, n) for a, n, paths in functions if any(contains(p, module) for p in paths)]
        outside = [(a, n) for a, n in own if not lo <= a < hi]
        print(f"| `{name}` | {len(own)} | {len(own) - len(outside)} | {len(outside)} |")
        reasons = []
        if not modules[module]:
            reasons.append(f"FAIL: `{name}`: no pattern of {script} names it")
        if not own:
            reasons.append(f"FAIL: `{name}` ({', '.join(modules[module]) or 'a mode of capout'}): no function in the binary")
        if outside and module not in PLACED:
            reasons.append(f"FAIL: `{name}`: {len(outside)} of {len(own)} functions outside .text.cold, e.g.")
            reasons += [f"    {a:#x} {n}" for a, n in outside[:5]]
        failed += bool(reasons)
        hot_lines += reasons
    print("\n".join(hot_lines))
    print(f"{len(modules) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
