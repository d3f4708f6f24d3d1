"""Drives `capout --mcp-wrap` with raw bytes, over the raw server of
wrap_fake.py: every byte compared with and without the proxy, ids as
they came, tools/list in pages, a clash of names, a server not found,
one that exits before it answers initialize or dies in the middle of a
call, the end of the input and signals (no process outlives the proxy),
and a text of a gigabyte in bounded memory.

    python wrap_raw.py CAPOUT              the tests; ends with `N passed, M failed`
    python wrap_raw.py CAPOUT --bench      overhead per small call, peak RSS on 1 GiB
"""

import json
import os
import queue
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
FAKE = [sys.executable, str(HERE / "wrap_fake.py")]
# A bound on every wait: generous, never relied on to be tight.
WAIT = 20.0
SAVED = re.compile(r"; full output: (/\S+/capout-\w+\.log)\)")


def same(got, expected):
    assert got == expected, f"\n--- expected\n{expected!r}\n--- got\n{got!r}"


def until(condition, what, within=WAIT):
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {within} s: {what}")
        time.sleep(0.02)


def alive(pid):
    """Whether `pid` runs (a zombie does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


class Peer:
    """A server (the proxy over the fake, or the fake alone), its stdin
    written byte for byte, its stdout read by line, its stderr kept."""

    def __init__(self, command):
        home = tempfile.mkdtemp()
        env = {"PATH": os.environ["PATH"], "HOME": home, "XDG_CONFIG_HOME": home}
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env)
        self.lines = queue.Queue()
        self.stderr = b""
        threading.Thread(target=self._read, daemon=True).start()
        self.stderr_reader = threading.Thread(target=self._read_stderr, daemon=True)
        self.stderr_reader.start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _read_stderr(self):
        for line in self.proc.stderr:
            self.stderr += line

    def send(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def line(self, within=WAIT):
        try:
            return self.lines.get(timeout=within)
        except queue.Empty:
            raise AssertionError(f"no reply within {WAIT} s") from None

    def request(self, id, method, params=None, within=WAIT):
        message = f'{{"jsonrpc":"2.0","id":{id},"method":"{method}"'
        if params is not None:
            message += ',"params":' + json.dumps(params)
        self.send(message.encode() + b"}\n")
        return self.line(within)

    def initialize(self):
        reply = json.loads(self.request(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                                          "clientInfo": {"name": "raw", "version": "1"}}))
        assert "result" in reply, reply
        self.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')

    def call(self, id, name, within=WAIT, **arguments):
        return json.loads(self.request(id, "tools/call", {"name": name, "arguments": arguments}, within))

    def wait_exit(self):
        try:
            status = self.proc.wait(timeout=WAIT)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"still running {WAIT} s later") from None
        # All of stderr is read.
        self.stderr_reader.join(WAIT)
        return status

    def close(self):
        if not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=WAIT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def wrapped(capout, *flags):
    return Peer([capout, "--mcp-wrap", "--", *FAKE, *flags])


def direct(*flags):
    return Peer([*FAKE, *flags])


def text_of(reply):
    return reply["result"]["content"][0]["text"]


def rss_peak(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


# The tests: each gets the path of capout.

SCRIPT = [
    b'{"jsonrpc":"2.0","id":12345678901234567890123456789,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}\n',
    b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n',
    b'{"jsonrpc":"2.0","id":"a\\u0062","method":"tools/list","params":{"cursor":"p2"}}\n',
    b'{"method":"tools/call","params":{"name":"echo","arguments":{"text":"h\\u00e9llo \\"q\\" \\ud83d\\ude00"}},"jsonrpc":"2.0","id":-0.5e1}\n',
    b'{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"file:///x"}}\n',
    b'{"jsonrpc":"2.0","id":0,"method":"ping"}\n',
    b'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"huge","arguments":{"size":4000}}}\n',
]


def every_byte_passes_where_nothing_is_cut(capout):
    for flags in [[], ["--id-last"]]:
        outputs = []
        for peer in [direct("--pages", "3", *flags), wrapped(capout, "--pages", "3", *flags)]:
            for line in SCRIPT:
                peer.send(line)
            outputs.append(b"".join(peer.line() for _ in range(len(SCRIPT) - 1)))
            peer.close()
        same(outputs[1], outputs[0])
        # The ids came back as they were sent.
        assert b'"id":12345678901234567890123456789' in outputs[1]
        assert b'"id":"a\\u0062"' in outputs[1] and b'"id":-0.5e1' in outputs[1]


def the_first_page_of_tools_gets_capout_page_and_no_other(capout):
    for flags in [[], ["--id-last"]]:
        plain, proxy = direct("--pages", "3", *flags), wrapped(capout, "--pages", "3", *flags)
        names = []
        for peer in [plain, proxy]:
            peer.initialize()
        cursor, first = None, True
        while True:
            params = {"cursor": cursor} if cursor else None
            before, after = plain.request(7, "tools/list", params), proxy.request(7, "tools/list", params)
            page = json.loads(after)["result"]
            names += [t["name"] for t in page["tools"]]
            if first:
                # The one change: capout_page after the server's tools.
                tool = json.dumps(page["tools"][-1], separators=(",", ":")).encode()
                same(after, before.replace(b"}]", b"}," + tool + b"]", 1))
            else:
                same(after, before)
            first = False
            cursor = page.get("nextCursor")
            if cursor is None:
                break
        same(names.count("capout_page"), 1)
        same(len(names), 10)
        plain.close()
        proxy.close()


def a_server_tool_named_capout_page_is_an_error_at_start_naming_both(capout):
    peer = wrapped(capout, "--clash")
    peer.initialize()
    reply = json.loads(peer.request(2, "tools/list"))
    message = reply["error"]["message"]
    assert message.startswith("capout --mcp-wrap: the server ") and "wrap_fake.py --clash has a tool named capout_page, the name of capout's own tool" in message, message
    same(reply["error"]["code"], -32000)
    # The server is ended, and every request after gets the error.
    same(json.loads(peer.request(3, "ping"))["error"]["message"], message)
    peer.proc.stdin.close()
    same(peer.wait_exit(), 1)
    assert b"capout: --mcp-wrap: the server " in peer.stderr and b"has a tool named capout_page" in peer.stderr


def a_command_not_found_is_an_error_naming_it(capout):
    peer = Peer([capout, "--mcp-wrap", "--", "capout-no-such-server", "--flag"])
    reply = json.loads(peer.request(1, "initialize", {}))
    same(reply, {"jsonrpc": "2.0", "id": 1, "error": {"code": -32000, "message":
         "capout --mcp-wrap: cannot run the server capout-no-such-server --flag: command not found"}})
    peer.proc.stdin.close()
    same(peer.wait_exit(), 1)
    same(peer.stderr, b"capout: --mcp-wrap: cannot run the server capout-no-such-server --flag: command not found\n")


def a_profile_that_does_not_load_is_a_usage_error(capout):
    peer = Peer([capout, "--mcp-wrap", "--profile", "nosuch", "--", *FAKE])
    same(peer.wait_exit(), 2)
    assert peer.stderr.startswith(b"capout: --mcp-wrap: no such profile: nosuch (the profiles are read, grep, bash, tool"), peer.stderr
    peer = Peer([capout, "--mcp-wrap", "--nosuch"])
    same(peer.wait_exit(), 2)
    same(peer.stderr, b"capout: --mcp-wrap: unknown option --nosuch\nusage: capout --mcp-wrap [--profile NAME] -- COMMAND [ARG]...\n")


def a_server_that_exits_before_initialize_is_an_error_with_its_stderr(capout):
    peer = wrapped(capout, "--exit-before-init", "4")
    reply = json.loads(peer.request(1, "initialize", {}))
    command = " ".join(FAKE) + " --exit-before-init 4"
    lines = "fake: starting\nfake: cannot open the database"
    same(reply["error"], {"code": -32000, "message": f"capout --mcp-wrap: the server {command} exited with status 4 "
                          f"before it answered initialize; the last lines of its stderr:\n{lines}",
                          "data": {"stderr": lines}})
    peer.proc.stdin.close()
    same(peer.wait_exit(), 1)
    # Its stderr passes to the proxy's, with the proxy's line after it.
    same(peer.stderr, f"{lines}\ncapout: --mcp-wrap: the server {command} exited with status 4 before it answered "
         "initialize\n".encode())


def a_request_sent_before_the_input_ends_is_still_answered(capout):
    # The client writes and closes at once, as `echo ... | capout --mcp-wrap` does.
    peer = wrapped(capout, "--exit-before-init", "4")
    peer.send(b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\n')
    peer.proc.stdin.close()
    message = json.loads(peer.line())["error"]["message"]
    assert "exited with status 4 before it answered initialize" in message, message
    same(peer.line(), None)
    # A request left unanswered fails the session.
    same(peer.wait_exit(), 1)


def a_server_that_dies_fails_every_pending_call_with_its_status(capout):
    for flags in [[], ["--id-last"]]:
        peer = wrapped(capout, *flags)
        peer.initialize()
        peer.send(b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"slow"}}\n')
        peer.send(b'{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"die","arguments":{"code":5}}}\n')
        replies = sorted((json.loads(peer.line()) for _ in range(2)), key=lambda r: r["id"])
        same([r["id"] for r in replies], [5, 6])
        for reply in replies:
            message = reply["error"]["message"]
            assert message.endswith("exited with status 5; the last lines of its stderr:\nfake: dying"), message
        same(json.loads(peer.request(7, "ping"))["error"], replies[0]["error"])
        peer.close()


def a_server_that_dies_in_the_middle_of_a_line_still_fails_its_calls(capout):
    peer = wrapped(capout)
    peer.initialize()
    peer.send(b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"die_in_a_line"}}\n')
    # The half line, ended, then the answer to the call.
    same(peer.line(), b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"half\n')
    message = json.loads(peer.line())["error"]["message"]
    assert message.endswith("wrap_fake.py exited with status 6"), message
    peer.close()


def the_end_of_input_ends_the_server_and_what_it_started(capout):
    for flags in [["--ignore-eof"], ["--ignore-eof", "--ignore-term"]]:
        peer = wrapped(capout, *flags)
        peer.initialize()
        server, child = map(int, text_of(peer.call(2, "spawn")).split())
        assert alive(server) and alive(child)
        peer.proc.stdin.close()
        same(peer.wait_exit(), 0)
        assert not alive(server), f"{flags}: the server outlived the proxy"
        assert not alive(child), f"{flags}: the server's child outlived the proxy"


def a_signal_ends_the_proxy_the_server_and_the_saved_folder(capout):
    peer = wrapped(capout, "--ignore-eof")
    peer.initialize()
    server, child = map(int, text_of(peer.call(2, "spawn")).split())
    folder = Path(SAVED.search(text_of(peer.call(3, "huge", size=100_000))).group(1)).parent
    assert folder.is_dir() and oct(folder.stat().st_mode & 0o777) == "0o700"
    peer.proc.send_signal(signal.SIGTERM)
    same(peer.wait_exit(), -signal.SIGTERM)
    assert not alive(server) and not alive(child)
    assert not folder.exists()


def a_cut_result_is_saved_and_capout_page_pages_it(capout):
    peer = wrapped(capout)
    peer.initialize()
    text = text_of(peer.call(2, "huge", size=200_000))
    path = SAVED.search(text).group(1)
    assert text.startswith("line 1\nline 2\n") and text.endswith(f"; full output: {path})\n"), text[-300:]
    saved = Path(path).read_text()
    assert saved.startswith("line 1\n") and saved.endswith("\n")
    total = saved.count("\n")
    page = peer.call(3, "capout_page", path=path, offset=2, limit=3)
    same(page["result"], {"content": [{"type": "text", "text": "     3\tline 3\n     4\tline 4\n     5\tline 5\n"
                          f"... (truncated, showing lines 3-5 of {total}, next offset 5)\n"}], "isError": False})
    for other in ["/etc/passwd", path + "/../../etc/passwd", "capout-x.log", str(Path(path).parent)]:
        refused = peer.call(4, "capout_page", path=other)["result"]
        assert refused["isError"] and "is not a result saved in this session" in refused["content"][0]["text"], refused
    gone = str(Path(path).parent / "capout-gone.log")
    refused = peer.call(5, "capout_page", path=gone)["result"]
    same(refused, {"content": [{"type": "text", "text": f"'{gone}': this saved output was removed (the server keeps "
                   "at most 1 GiB of saved outputs, oldest removed first)"}], "isError": True})
    peer.close()
    assert not Path(path).exists()


def a_text_of_a_gigabyte_passes_under_64_mib(capout):
    # A debug build reads some 30 MB a second: its id last, a smaller
    # one, as the memory held is that of the pieces, not of the line.
    for flags, size in [([], 1 << 30), (["--id-last"], 64 << 20)]:
        peer = wrapped(capout, *flags)
        peer.initialize()
        reply = peer.call(2, "huge", within=300, size=size)
        text = text_of(reply)
        assert len(text) < 8200, len(text)
        path = Path(SAVED.search(text).group(1))
        assert path.stat().st_size > size * 9 // 10, path.stat().st_size
        peak = rss_peak(peer.proc.pid)
        assert peak < 64 << 10, f"{flags}: peak RSS {peak} KiB"
        print(f"     {size >> 20} MiB result {flags}: peak RSS {peak} KiB")
        peer.close()


TESTS = [
    every_byte_passes_where_nothing_is_cut,
    the_first_page_of_tools_gets_capout_page_and_no_other,
    a_server_tool_named_capout_page_is_an_error_at_start_naming_both,
    a_command_not_found_is_an_error_naming_it,
    a_profile_that_does_not_load_is_a_usage_error,
    a_server_that_exits_before_initialize_is_an_error_with_its_stderr,
    a_request_sent_before_the_input_ends_is_still_answered,
    a_server_that_dies_fails_every_pending_call_with_its_status,
    a_server_that_dies_in_the_middle_of_a_line_still_fails_its_calls,
    the_end_of_input_ends_the_server_and_what_it_started,
    a_signal_ends_the_proxy_the_server_and_the_saved_folder,
    a_cut_result_is_saved_and_capout_page_pages_it,
    a_text_of_a_gigabyte_passes_under_64_mib,
]


def bench(capout):
    """The median of 1000 small calls with and without the proxy, and the
    proxy's peak RSS on a result of 1 GiB."""
    medians = {}
    for name, peer in [("direct", direct()), ("wrapped", wrapped(capout))]:
        peer.initialize()
        line = b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}\n'
        for _ in range(100):
            peer.send(line)
            peer.line()
        times = []
        for _ in range(1000):
            start = time.perf_counter()
            peer.send(line)
            peer.line()
            times.append(time.perf_counter() - start)
        medians[name] = statistics.median(times) * 1000
        print(f"{name}: median {medians[name]:.3f} ms over 1000 small calls (raw client)")
        peer.close()
    print(f"added by the proxy: {medians['wrapped'] - medians['direct']:.3f} ms")
    for flags in [[], ["--id-last"]]:
        peer = wrapped(capout, *flags)
        peer.initialize()
        start = time.perf_counter()
        peer.call(2, "huge", within=600, size=1 << 30)
        took = time.perf_counter() - start
        print(f"1 GiB result {flags or ['--id-first']}: peak RSS {rss_peak(peer.proc.pid)} KiB, {took:.1f} s")
        peer.close()


def main():
    capout = os.path.abspath(sys.argv[1])
    if sys.argv[2:] == ["--bench"]:
        bench(capout)
        return 0
    passed = failed = 0
    for test in TESTS:
        try:
            test(capout)
            passed += 1
            print(f"ok   {test.__name__}")
        except Exception:
            failed += 1
            print(f"FAIL {test.__name__}")
            traceback.print_exc()
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
