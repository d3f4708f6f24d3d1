"""Runs every Python and JavaScript block of the README and docs/ as
written, against the modules as the suites built them: the Python
module's package in target/python/pkg with its test environment (pytest,
pydantic-ai) and the Node package in crates/node/node_modules (with the
AI SDK). Each block runs in a scratch folder of its own, with a clean
environment, and must exit 0.

    python3 .ci/doc-blocks.py        after crates/python/tests/run.sh and crates/node/test/run.sh
"""

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^```(\w+)\n(.*?)^```\n", re.M | re.S)
RUN = {"python": "py", "js": "mjs"}


def blocks():
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = doc.read_text()
        for m in FENCE.finditer(text):
            if m.group(1) in RUN:
                line = text.count("\n", 0, m.start()) + 1
                yield doc.relative_to(ROOT), line, m.group(1), m.group(2)


def run(lang, code, scratch):
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(scratch),
        "XDG_CONFIG_HOME": str(scratch / ".config"),
        "XDG_STATE_HOME": str(scratch / ".state"),
        "LC_ALL": "C.UTF-8",
        # A key for the providers that want one at the model's creation;
        # no block calls a real model.
        "OPENAI_API_KEY": "unused",
    }
    if lang == "python":
        script = scratch / "block.py"
        script.write_text(code)
        env["PYTHONPATH"] = str(ROOT / "target/python/pkg")
        command = [str(ROOT / "target/python/venv/bin/python3"), str(script)]
    else:
        # Beside the package's node_modules, where `capout` and `ai` resolve.
        script = ROOT / "crates/node" / f".doc-block-{os.getpid()}.mjs"
        script.write_text(code)
        command = ["node", str(script)]
    try:
        return subprocess.run(command, cwd=scratch, env=env, capture_output=True, timeout=120)
    finally:
        if lang != "python":
            script.unlink()


def main():
    failed = 0
    found = list(blocks())
    for doc, line, lang, code in found:
        with tempfile.TemporaryDirectory() as scratch:
            result = run(lang, code, Path(scratch))
        if result.returncode == 0:
            print(f"ok   {doc}:{line} ({lang})")
        else:
            failed += 1
            print(f"FAIL {doc}:{line} ({lang}): exit {result.returncode}")
            sys.stdout.write(result.stderr.decode(errors="replace")[-3000:])
    print(f"{len(found) - failed} passed, {failed} failed")
    # No block found is a failure: the fences changed, not the docs.
    return 0 if found and not failed else 1


if __name__ == "__main__":
    sys.exit(main())
