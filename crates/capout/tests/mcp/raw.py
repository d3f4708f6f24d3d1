"""Drives `capout --mcp` with raw bytes on its stdin: what no SDK client
sends (lines that are not JSON, 16 MiB requests), signals, and the end of
its input while a call still runs.

    python raw.py CAPOUT       the tests; ends with `N passed, M failed`
"""

import json
import os
import queue
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

# A bound on every wait: generous, never relied on to be tight.
WAIT = 10.0


def same(got, expected):
    assert got == expected, f"\n--- expected\n{expected!r}\n--- got\n{got!r}"


def processes(arguments):
    """The live processes whose command line is `arguments`."""
    wanted = "\0".join(arguments).encode() + b"\0"
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "cmdline").read_bytes() == wanted:
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


def until(condition, what, within=WAIT):
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {within} s: {what}")
        time.sleep(0.02)


class Server:
    """A server, its stdin written byte for byte, its stdout read by line."""

    def __init__(self, capout, root, env=None):
        home = tempfile.mkdtemp()
        clean = {"PATH": os.environ["PATH"], "HOME": home, "XDG_CONFIG_HOME": home}
        clean.update(env or {})
        self.proc = subprocess.Popen(
            [capout, "--mcp", "--root", str(root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=clean,
        )
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.next_id = 100

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def line(self):
        try:
            return self.lines.get(timeout=WAIT)
        except queue.Empty:
            raise AssertionError(f"no reply within {WAIT} s") from None

    def request(self, method, params=None, wait=True):
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(json.dumps(message).encode() + b"\n")
        if not wait:
            return None
        reply = json.loads(self.line())
        same(reply["id"], self.next_id)
        return reply

    def initialize(self):
        reply = self.request(
            "initialize",
            {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
        )
        assert "result" in reply, reply
        self.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')

    def bash(self, command):
        reply = self.request("tools/call", {"name": "bash", "arguments": {"command": command}})
        return reply["result"]["content"][0]["text"]

    def saved_path(self):
        text = self.bash("seq 1 3000")
        marker = "; full output: "
        assert marker in text, text
        return Path(text.split(marker)[1].split(")")[0])

    def wait_exit(self):
        try:
            return self.proc.wait(timeout=WAIT)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"the server still runs {WAIT} s later") from None

    def close(self):
        """Ends the server as a client does, so that it removes its folder;
        kills it only when it does not end."""
        if not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=WAIT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def error(code, message, id=None):
    """An error reply; `id` as a value, or as bytes written as they are."""
    if isinstance(id, bytes):
        id = id.decode()
    else:
        id = "null" if id is None else json.dumps(id)
    return f'{{"jsonrpc":"2.0","id":{id},"error":{{"code":{code},"message":"{message}"}}}}\n'.encode()


def rss_peak(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


# The tests: each gets the server's path and a root folder.


def a_line_that_is_not_json_gets_a_parse_error(capout, root):
    s = Server(capout, root)
    try:
        s.send(b"not json\n")
        same(s.line(), error(-32700, "Parse error: the line is not JSON"))
        s.send(b'{"jsonrpc":"2.0","id":3,"method":\n')
        same(s.line(), error(-32700, "Parse error: the line is not JSON"))
        s.send(b"[]\n")
        same(s.line(), error(-32600, "Invalid Request: not a JSON-RPC 2.0 message"))
        s.send(b'{"jsonrpc":"2.0","id":"x","nomethod":1}\n')
        same(s.line(), error(-32600, "Invalid Request: not a JSON-RPC 2.0 message", "x"))
        s.initialize()
        same(s.bash("echo still here"), "still here\n")
    finally:
        s.close()


def a_request_of_16_mib_gets_an_error_and_the_session_goes_on(capout, root):
    s = Server(capout, root)
    try:
        s.initialize()
        before = rss_peak(s.proc.pid)
        big = b"x" * (16 << 20)
        s.send(b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"bash","arguments":{"command":"' + big + b'"}}}\n')
        same(s.line(), error(-32600, "Invalid Request: the line is longer than 4194304 bytes", 7))
        # The id only past the bound: no id to answer with.
        s.send(b'{"jsonrpc":"2.0","method":"ping","params":{"x":"' + big + b'"},"id":8}\n')
        same(s.line(), error(-32700, "Parse error: the line is longer than 4194304 bytes, and no id was found in them"))
        # Never more than the bound (and rmcp's copy of a line) held.
        grown = rss_peak(s.proc.pid) - before
        assert grown < 12 * 1024, f"the peak grew by {grown} KiB"
        same(s.bash("echo still here"), "still here\n")
    finally:
        s.close()


def the_saved_folder_is_private(capout, root):
    s = Server(capout, root)
    try:
        s.initialize()
        folder = s.saved_path().parent
        same(oct(stat.S_IMODE(folder.stat().st_mode)), oct(0o700))
    finally:
        s.close()


def the_saved_folder_is_removed_on_each_signal(capout, root):
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        s = Server(capout, root)
        try:
            s.initialize()
            folder = s.saved_path().parent
            assert folder.is_dir(), folder
            s.proc.send_signal(sig)
            same(s.wait_exit(), -sig)
            assert not folder.exists(), f"{folder} is left after {sig.name}"
        finally:
            s.close()


def saved_outputs_past_the_bound_are_removed_oldest_first(capout, root):
    # Each `seq 1 3000` is 13893 bytes: two fit in 30000, three do not.
    s = Server(capout, root, {"CAPOUT_MCP_SAVED_MAX": "30000"})
    try:
        s.initialize()
        first, second = s.saved_path(), s.saved_path()
        assert first.exists() and second.exists()
        third = s.saved_path()
        assert not first.exists(), f"{first} was kept"
        assert second.exists() and third.exists()
        same(third.read_text(), "".join(f"{n}\n" for n in range(1, 3001)))
    finally:
        s.close()


def the_server_ends_at_the_end_of_its_input_though_a_call_is_stuck(capout, root):
    s = Server(capout, root)
    try:
        s.initialize()
        # The command ignores what it is told and outlives its timeout;
        # a job of it left its session.
        command = "setsid sleep 304.5 >/dev/null 2>&1 & trap '' HUP INT TERM; sleep 311.5"
        s.request("tools/call", {"name": "bash", "arguments": {"command": command, "timeout": 600}}, wait=False)
        until(lambda: processes(["sleep", "311.5"]) and processes(["sleep", "304.5"]), "the call started")
        s.proc.stdin.close()
        s.wait_exit()
        until(lambda: not processes(["sleep", "311.5"]), "the stuck command ended")
        until(lambda: not processes(["sleep", "304.5"]), "the job that left the session ended")
    finally:
        s.close()


def alive(pid):
    """Whether process PID is there and not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def a_job_without_the_mark_in_a_group_a_marked_process_leads_ends_with_the_call(capout, root):
    s = Server(capout, root)
    pid_file = root / "job.pid"
    try:
        s.initialize()
        # A session of its own, whose leader keeps the call's mark and
        # whose job drops it; the call ends once the job runs.
        job = r"env -u CAPOUT_MCP_CALL sh -c 'echo \$\$ > job.pid; exec sleep 1000.75'"
        command = f'setsid sh -c "{job} & wait" >/dev/null 2>&1 & while [ ! -s job.pid ]; do sleep 0.01; done'
        same(s.bash(command), "(no output)\n")
        pid = int(pid_file.read_text())
        until(lambda: not alive(pid), "the job ended")
    finally:
        pid_file.unlink(missing_ok=True)
        s.close()


def a_panic_in_a_tool_call_is_an_error_of_that_call(capout, root):
    # A debug build's grep panics when CAPOUT_TEST_PANIC says so.
    s = Server(capout, root, {"CAPOUT_TEST_PANIC": "grep"})
    try:
        s.initialize()
        reply = s.request("tools/call", {"name": "grep", "arguments": {"pattern": "x"}})
        same(
            reply.get("result"),
            {"content": [{"type": "text", "text": "the tool failed: a bug in capout: CAPOUT_TEST_PANIC asked grep to panic"}], "isError": True},
        )
        same(s.bash("echo still here"), "still here\n")
    finally:
        s.close()


# Ids that a 64-bit integer or a double cannot hold, or would write back
# otherwise (`1.0` as `1`, `"\u0041"` as `"A"`).
ODD_IDS = [b"123456789012345678901234567890", b"18446744073709551616", b"-9223372036854775809", b"1e400", b"1.0", rb'"\u0041"']


def a_request_id_is_echoed_byte_for_byte(capout, root):
    s = Server(capout, root)
    try:
        s.initialize()
        for id in ODD_IDS:
            s.send(b'{"jsonrpc":"2.0","id":' + id + b',"method":"ping"}\n')
            same(s.line(), b'{"jsonrpc":"2.0","id":' + id + b',"result":{}}\n')
        s.send(b'{"jsonrpc":"2.0","id":' + ODD_IDS[0] + b',"method":"tools/call","params":{"name":"bash","arguments":{"command":"echo hi"}}}\n')
        same(s.line(), b'{"jsonrpc":"2.0","id":' + ODD_IDS[0] + b',"result":{"content":[{"type":"text","text":"hi\\n"}],"isError":false}}\n')
    finally:
        s.close()


def an_error_reply_echoes_the_id_byte_for_byte(capout, root):
    s = Server(capout, root)
    try:
        s.initialize()
        # rmcp's error, the transport's, and the transport's for a line too long.
        s.send(b'{"jsonrpc":"2.0","id":1e400,"method":"no/such/method"}\n')
        line = s.line()
        assert line.startswith(b'{"jsonrpc":"2.0","id":1e400,"error":{'), line
        s.send(b'{"jsonrpc":"2.0","id":18446744073709551616,"nomethod":1}\n')
        same(s.line(), error(-32600, "Invalid Request: not a JSON-RPC 2.0 message", b"18446744073709551616"))
        big = b"x" * (5 << 20)
        s.send(b'{"jsonrpc":"2.0","id":-9223372036854775809,"method":"ping","params":{"x":"' + big + b'"}}\n')
        same(s.line(), error(-32600, "Invalid Request: the line is longer than 4194304 bytes", b"-9223372036854775809"))
    finally:
        s.close()


def a_cancellation_names_a_request_by_its_id_as_it_came(capout, root):
    s = Server(capout, root)
    try:
        s.initialize()
        id = b"123456789012345678901234567890"
        command = "touch cancel.started; exec sleep 1000.25"
        s.send(b'{"jsonrpc":"2.0","id":' + id + b',"method":"tools/call","params":{"name":"bash","arguments":{"command":"' + command.encode() + b'"}}}\n')
        until(lambda: (root / "cancel.started").exists() and processes(["sleep", "1000.25"]), "the call started")
        s.send(b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":' + id + b'}}\n')
        until(lambda: not processes(["sleep", "1000.25"]), "the cancelled call ended")
        # No reply to the cancelled call: the next line is the ping's.
        s.send(b'{"jsonrpc":"2.0","id":5,"method":"ping"}\n')
        same(s.line(), b'{"jsonrpc":"2.0","id":5,"result":{}}\n')
    finally:
        (root / "cancel.started").unlink(missing_ok=True)
        s.close()


TESTS = [
    a_line_that_is_not_json_gets_a_parse_error,
    a_request_of_16_mib_gets_an_error_and_the_session_goes_on,
    the_saved_folder_is_private,
    the_saved_folder_is_removed_on_each_signal,
    saved_outputs_past_the_bound_are_removed_oldest_first,
    the_server_ends_at_the_end_of_its_input_though_a_call_is_stuck,
    a_request_id_is_echoed_byte_for_byte,
    an_error_reply_echoes_the_id_byte_for_byte,
    a_cancellation_names_a_request_by_its_id_as_it_came,
    a_job_without_the_mark_in_a_group_a_marked_process_leads_ends_with_the_call,
    a_panic_in_a_tool_call_is_an_error_of_that_call,
]


def main():
    capout = os.path.abspath(sys.argv[1])
    passed = failed = 0
    with tempfile.TemporaryDirectory() as base:
        root = Path(base).resolve()
        for test in TESTS:
            try:
                test(capout, root)
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
