"""What the tests share: the capout binary as the oracle."""

import os
import subprocess

import pytest

CAPOUT = os.environ.get("CAPOUT_BIN", "")


def words(options):
    """The command-line words of keyword options, as a person would type them."""
    out = []
    for key, value in options.items():
        option = "--" + key.replace("_", "-")
        if value is True:
            out.append(option)
        elif value is False:
            out.append("--no-" + option[2:])
        elif value is not None:
            out += [option, str(value)]
    return out


def oracle(args, data=b"", check=True):
    """capout ARGS with DATA on stdin: (stdout, stderr, status)."""
    if not os.access(CAPOUT, os.X_OK):
        pytest.fail(f"CAPOUT_BIN is not an executable capout: {CAPOUT!r}")
    done = subprocess.run([CAPOUT, *args], input=data, capture_output=True, timeout=120)
    if check and done.returncode != 0:
        raise AssertionError(f"capout {args} exited {done.returncode}: {done.stderr!r}")
    return done.stdout, done.stderr, done.returncode
