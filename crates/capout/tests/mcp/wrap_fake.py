"""A raw MCP server for `capout --mcp-wrap`'s tests, one JSON-RPC message a
line, doing what the SDK's servers do not on purpose: ids echoed as they
came, answers with their id last (as the TypeScript SDK writes them),
tools/list in pages, a tool named capout_page, a text of a gigabyte
written in pieces, an exit before it answers initialize, a death in the
middle of a call, a child left running, input's end or SIGTERM ignored.

    python wrap_fake.py [--id-last] [--pages N] [--clash] [--exit-before-init CODE]
                        [--ignore-eof] [--ignore-term]
"""

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time

RAW_ID = re.compile(rb'"id"\s*:\s*(-?[0-9][0-9.eE+-]*|"(?:[^"\\]|\\.)*")')

parser = argparse.ArgumentParser()
parser.add_argument("--id-last", action="store_true")
parser.add_argument("--pages", type=int, default=1)
parser.add_argument("--clash", action="store_true")
parser.add_argument("--exit-before-init", type=int)
parser.add_argument("--ignore-eof", action="store_true")
parser.add_argument("--ignore-term", action="store_true")
options = parser.parse_args()

if options.ignore_term:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
out = sys.stdout.buffer


def answer(raw_id, result):
    """Writes the answer to the request of id `raw_id` (its bytes)."""
    body = json.dumps(result, separators=(",", ":")).encode()
    if options.id_last:
        out.write(b'{"result":' + body + b',"jsonrpc":"2.0","id":' + raw_id + b"}\n")
    else:
        out.write(b'{"jsonrpc":"2.0","id":' + raw_id + b',"result":' + body + b"}\n")
    out.flush()


def huge(raw_id, size):
    """A text of about `size` bytes of JSON, `line N` a line (N from 1 on
    in each MiB), written in pieces: never held whole here either."""
    start = b'{"content":[{"type":"text","text":"'
    end = b'"}],"isError":false}'
    head = b'{"jsonrpc":"2.0","id":' + raw_id + b',"result":' if not options.id_last else b'{"result":'
    tail = b"}\n" if not options.id_last else b',"jsonrpc":"2.0","id":' + raw_id + b"}\n"
    out.write(head + start)
    written = 0
    while written < size:
        piece = BLOCK[: size - written]
        # Whole lines only: an escape is never cut in two.
        if len(piece) < len(BLOCK):
            piece = piece[: piece.rfind(b"\\n") + 2]
            if len(piece) < 2:
                break
        out.write(piece)
        written += len(piece)
    out.write(end + tail)
    out.flush()


# A MiB of lines, written again and again by `huge`.
BLOCK = b"".join(b"line %d\\n" % n for n in range(1, 90_000))[: 1 << 20]
BLOCK = BLOCK[: BLOCK.rfind(b"\\n") + 2]


def tools_page(cursor):
    page = int(cursor[1:]) if cursor else 1
    tools = [{"name": f"t{page}_{n}", "inputSchema": {"type": "object"}} for n in range(1, 4)]
    if options.clash and page == 1:
        tools.append({"name": "capout_page", "inputSchema": {"type": "object"}})
    result = {"tools": tools}
    if page < options.pages:
        result["nextCursor"] = f"p{page + 1}"
    return result


def call(raw_id, name, arguments):
    if name == "echo":
        answer(raw_id, {"content": [{"type": "text", "text": arguments.get("text", "")}]})
    elif name == "huge":
        huge(raw_id, arguments["size"])
    elif name == "die":
        sys.stderr.write("fake: dying\n")
        sys.stderr.flush()
        os._exit(arguments["code"])
    elif name == "slow":
        pass  # Never answered.
    elif name == "die_in_a_line":
        # A notification cut short by the server's end.
        out.write(b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"half')
        out.flush()
        os._exit(6)
    elif name == "spawn":
        # A child in a session of its own, which a group kill misses.
        child = subprocess.Popen(["sleep", "1000"], start_new_session=True)
        answer(raw_id, {"content": [{"type": "text", "text": f"{os.getpid()} {child.pid}"}]})
    else:
        answer(raw_id, {"content": [{"type": "text", "text": f"unknown tool {name}"}], "isError": True})


for line in sys.stdin.buffer:
    if options.exit_before_init is not None:
        sys.stderr.write("fake: starting\nfake: cannot open the database\n")
        sys.stderr.flush()
        sys.exit(options.exit_before_init)
    message = json.loads(line)
    found = RAW_ID.search(line)
    if "method" not in message or found is None:
        continue
    raw_id = found.group(1)
    method = message["method"]
    params = message.get("params") or {}
    if method == "initialize":
        answer(raw_id, {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}, "resources": {}},
                        "serverInfo": {"name": "fake", "version": "1"}})
    elif method == "tools/list":
        answer(raw_id, tools_page(params.get("cursor")))
    elif method == "tools/call":
        call(raw_id, params["name"], params.get("arguments") or {})
    elif method == "resources/read":
        answer(raw_id, {"contents": [{"uri": params["uri"], "text": "x" * 100_000}]})
    else:
        answer(raw_id, {})

if options.ignore_eof:
    while True:
        time.sleep(1000)
