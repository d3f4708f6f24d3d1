"""The memory one run of capout owns, and its whole footprint.

Runs CAPOUT with ARGS, writes SIZE bytes of a generated SHAPE into its
stdin through a pipe, and prints one line:

    ANON_KIB TOTAL_KIB OUTPUT_BYTES

ANON_KIB is the largest anonymous RSS (`RssAnon` of /proc/PID/status:
heap, stacks and private mappings, the memory capout itself owns) seen
while the run goes on: it is read after every MiB written, and once more
when capout has read all of its input but not yet its end, when every
buffer the cap fills is full. TOTAL_KIB is the peak resident set, mapped
code and libraries included (GNU time's figure for the finished run), reported,
not bounded. OUTPUT_BYTES is what the run wrote to stdout.

Usage: python3 rss.py CAPOUT SHAPE SIZE_BYTES -- ARG...
SHAPE: lines (log lines with colour codes, `\\r` progress frames and
multibyte text), one_line (no newline at all), empty_lines, short_lines,
json (one array of pretty-printed objects, as `kubectl get -o json` or
`gh api` print them: whole objects, closed at the end, so that the
stream is JSON to its end).
"""

import fcntl
import os
import subprocess
import sys
import tempfile
import termios
import threading
import time

BLOCK = 1 << 20

# The json shape: its first bytes, the object it repeats, and its end.
JSON_HEAD = b"[\n"
JSON_UNIT = ('  {\n    "kind": "Pod",\n    "metadata": {\n      "name": "web-7d4b9c8f6-x2x4k",\n'
             '      "labels": {"app": "web", "tier": "backend"}\n    },\n    "ports": [80, 443],\n'
             '    "ready": true,\n    "ratio": 0.25,\n    "note": "caf\u00e9 \u2713 10%"\n  },\n').encode()
JSON_TAIL = b'  {"end": true}\n]\n'


def block(shape):
    """About a MiB of SHAPE, cut where the shape repeats."""
    if shape == "json":
        return JSON_UNIT * (BLOCK // len(JSON_UNIT))
    if shape == "lines":
        unit = "2026-11-30T12:00:00Z \x1b[32mINFO\x1b[0m worker-3 request served: caf\u00e9 \u2713 10%\r50%\r100%\n"
    elif shape == "one_line":
        unit = "x"
    elif shape == "empty_lines":
        unit = "\n"
    elif shape == "short_lines":
        unit = "ab x\n"
    else:
        sys.exit(f"rss.py: unknown shape '{shape}'")
    unit = unit.encode()
    return unit * (BLOCK // len(unit))


def anon_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def child_of(parent, program):
    """The process id of `program` once `parent` has started it."""
    program = os.path.realpath(program)
    while True:
        try:
            with open(f"/proc/{parent}/task/{parent}/children") as children:
                for pid in children.read().split():
                    if os.path.realpath(f"/proc/{pid}/exe") == program:
                        return int(pid)
        except OSError:
            pass
        time.sleep(0.0005)


def unread(fd):
    """Bytes written into the pipe that its reader has not taken yet."""
    buf = bytearray(4)
    fcntl.ioctl(fd, termios.FIONREAD, buf)
    return int.from_bytes(buf, sys.byteorder)


def main():
    capout, shape, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if sys.argv[4] != "--":
        sys.exit(__doc__)
    args = sys.argv[5:]
    data = block(shape)
    # GNU time, a small program, starts capout and reports its peak: a
    # child of Python's would carry Python's own peak from before its exec.
    report = tempfile.NamedTemporaryFile(mode="r", prefix="capout-rss-")
    p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", report.name, capout, *args],
                         stdin=subprocess.PIPE, bufsize=0, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    pid = child_of(p.pid, capout)
    written = [0]

    def count():
        while chunk := p.stdout.read(1 << 16):
            written[0] += len(chunk)

    reader = threading.Thread(target=count)
    reader.start()
    peak = 0
    fd = p.stdin.fileno()
    tail = b""
    if shape == "json":
        # Whole objects only, between the array's brackets.
        os.write(fd, JSON_HEAD)
        tail = JSON_TAIL
        size = (size - len(JSON_HEAD) - len(tail)) // len(JSON_UNIT) * len(JSON_UNIT)
    left = size
    try:
        while left > 0:
            piece = memoryview(data)[:min(left, len(data))]
            left -= len(piece)
            while piece:
                piece = piece[os.write(fd, piece):]
            peak = max(peak, anon_kib(pid))
        os.write(fd, tail)
        # Every byte read but the end not yet seen: the cap holds all it
        # will hold. A run that stops reading (a closed cap) ends instead.
        while unread(fd) and p.poll() is None:
            time.sleep(0.001)
        peak = max(peak, anon_kib(pid))
        p.stdin.close()
    except BrokenPipeError:
        pass
    status = p.wait()
    reader.join()
    if status != 0:
        sys.exit(f"rss.py: {capout} {' '.join(args)} exited {status}")
    total = report.read().split()
    print(peak, total[-1] if total else "?", written[0])


if __name__ == "__main__":
    main()
