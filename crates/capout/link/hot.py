"""Writes the hot block of cold.ld from callgrind profiles (see hot.sh).

Usage: hot.py BINARY COLD_LD PROFILE...
"""
import re
import subprocess
import sys

BEGIN = "/* hot: written by link/hot.sh */"
END = "/* end of hot */"
WHY = """/* The functions that the filter's bounded runs execute, before the rest
   of .text: the code that every run executes first, then code that the
   same runs share, together. The rare code's rules above come first in
   this script, so a function of a rare module stays with the rare code. */"""


WARM_BEGIN = "        /* warm: written by link/hot.sh */"
WARM_END = "        /* end of warm */"
WARM_WHY = """        /* The rare modes' functions that the profiled runs of those modes
           execute (the token caps, --json), first among the rare code, in
           the same order as the hot block. */"""


def text_ranges(binary, cold=False):
    """Where .text and the hot block the script wrote before lie: a function
    in either is one the block may name; one in .text.cold stays there,
    where the warm block orders it."""
    sections = subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True, check=True).stdout
    ranges = []
    names = r"\.text\.cold" if cold else r"\.text(?:\.hot)?"
    for m in re.finditer(r"\]\s+" + names + r"\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", sections):
        start = int(m.group(1), 16)
        ranges.append((start, start + int(m.group(2), 16)))
    return ranges


def pattern(name):
    """The name without what changes from build to build: the hash of a
    legacy name, the crate disambiguators of a v0 name, and the number
    that LLVM appends to a copy it makes of a function (`.1496`), which
    a later build numbers differently or leaves out."""
    name = re.sub(r"\.[0-9]+$", "", name)
    name = re.sub(r"17h[0-9a-f]{16}E$", "17h*E", name)
    return re.sub(r"Cs[0-9A-Za-z]+_", "Cs*_", name)


def with_avx512(p):
    """The pattern, and after a function compiled for AVX2 by pulp (`V3`),
    its AVX-512 twin (`V4`): valgrind runs no AVX-512, so the profile sees
    the AVX2 code even where a machine runs the other."""
    twin = p.replace("4pulp3x862v32V3", "4pulp3x862v42V4")
    return [p, twin] if twin != p else [p]


def rule(p):
    """The input sections of one function, numbered copies included."""
    return f"        *(.text.{p} .text.{p}.* .text.unlikely.{p} .text.unlikely.{p}.*)"


def main():
    binary, script, profiles = sys.argv[1], sys.argv[2], sys.argv[3:]
    ranges = text_ranges(binary)
    cold = text_ranges(binary, cold=True)
    symbols, cold_symbols = set(), set()
    for line in subprocess.run(["nm", binary], capture_output=True, text=True, check=True).stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tT":
            at = int(parts[0], 16)
            if any(lo <= at < hi for lo, hi in ranges):
                symbols.add(parts[2])
            elif any(lo <= at < hi for lo, hi in cold):
                cold_symbols.add(parts[2])
    runs = {}
    for number, path in enumerate(profiles):
        with open(path, errors="replace") as f:
            for line in f:
                m = re.match(r"c?fn=\(\d+\) (.+)", line)
                if m and m.group(1).strip() in symbols | cold_symbols:
                    runs.setdefault(m.group(1).strip(), set()).add(number)
    # Code that more runs execute first; among the same count, code that
    # the same runs execute together.
    order = sorted(runs, key=lambda n: (-len(runs[n]), sorted(runs[n]), n))
    warm = list(dict.fromkeys(twin for n in order if n in cold_symbols for twin in with_avx512(pattern(n))))
    patterns = list(
        dict.fromkeys(twin for n in order if n not in cold_symbols for twin in with_avx512(pattern(n)))
    )
    lines = "\n".join(rule(p) for p in patterns)
    block = (
        f"{BEGIN}\n{WHY}\nSECTIONS\n{{\n    .text.hot : {{\n{lines}\n    }}\n}}\nINSERT BEFORE .text;\n{END}\n"
    )
    text = open(script).read()
    if WARM_BEGIN in text:
        warm_lines = "\n".join(rule(p) for p in warm)
        text = (
            text[: text.index(WARM_BEGIN)]
            + f"{WARM_BEGIN}\n{WARM_WHY}\n{warm_lines}\n"
            + text[text.index(WARM_END) :]
        )
    if BEGIN in text:
        text = text[: text.index(BEGIN)] + block + text[text.index(END) + len(END) + 1 :]
    else:
        text += "\n" + block
    with open(script, "w") as f:
        f.write(text)
    print(f"{len(patterns)} functions in the hot block, {len(warm)} in the warm one")


if __name__ == "__main__":
    main()
