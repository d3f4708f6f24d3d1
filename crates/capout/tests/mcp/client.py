"""Drives `capout --mcp` with the official MCP Python SDK's stdio client.

    python client.py CAPOUT            the tests; ends with `N passed, M failed`
    python client.py CAPOUT --bench    per-call latency and the server's memory

Every test asserts the exact text the model would see.
"""

import asyncio
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import get_default_environment, stdio_client
from mcp.shared.exceptions import MCPError

SAVED = re.compile(r"; full output: (/\S+capout-\w+\.log)\)\n")


def numbered(lines, first):
    """Lines as `capout -N` numbers them, the first one numbered `first`."""
    return "".join(f"{n:6d}\t{line}\n" for n, line in enumerate(lines, first))


class Client:
    def __init__(self, session):
        self.session = session

    async def call(self, tool, **arguments):
        """The text of a call, and whether it is a tool error."""
        result = await self.session.call_tool(tool, arguments)
        assert len(result.content) == 1, result.content
        return result.content[0].text, bool(result.is_error)

    async def ok(self, tool, **arguments):
        text, error = await self.call(tool, **arguments)
        assert not error, f"{tool} {arguments}: tool error {text!r}"
        return text

    async def error(self, tool, **arguments):
        text, error = await self.call(tool, **arguments)
        assert error, f"{tool} {arguments}: not an error: {text!r}"
        return text


def same(got, expected):
    assert got == expected, f"\n--- expected\n{expected!r}\n--- got\n{got!r}"


# The tests: each gets a client whose server's root is `root`.


async def lists_the_three_tools(c, root):
    tools = (await c.session.list_tools()).tools
    same(sorted(t.name for t in tools), ["bash", "grep", "read"])
    schemas = {t.name: t.input_schema for t in tools}
    same(sorted(schemas["read"]["properties"]), ["limit", "offset", "path"])
    same(schemas["read"]["required"], ["path"])
    same(
        sorted(schemas["grep"]["properties"]),
        ["case_insensitive", "context", "context_after", "context_before", "glob", "limit", "multiline",
         "offset", "output_mode", "path", "pattern", "type"],
    )
    same(schemas["grep"]["required"], ["pattern"])
    same(sorted(schemas["bash"]["properties"]), ["command", "timeout"])
    same(schemas["bash"]["required"], ["command"])
    # Each schema states what the tool accepts.
    for tool, field in [("read", "limit"), ("grep", "limit"), ("bash", "timeout")]:
        same(schemas[tool]["properties"][field].get("minimum"), 1)
    for tool in ["read", "grep"]:
        same(schemas[tool]["properties"]["offset"].get("minimum"), 0)
    descriptions = {t.name: t.description for t in tools}
    assert "next offset" in descriptions["read"]
    assert "Shown: the first 500 lines," in descriptions["read"], descriptions["read"]
    assert "at most 8000 chars in all" in descriptions["read"], descriptions["read"]
    assert "Shown: the first 50 lines" in descriptions["grep"], descriptions["grep"]
    assert "Shown: the last 5000 chars of the output, ANSI escape sequences removed" in descriptions["bash"]
    assert "(exit status N)" in descriptions["bash"]
    assert "killed by SIGNAME" in descriptions["bash"]
    assert "working directory persists" in descriptions["bash"]


async def read_pages_a_file_to_its_end(c, root):
    lines = [f"line {n}" for n in range(1, 2401)]
    (root / "big.txt").write_text("".join(line + "\n" for line in lines))
    # Each page holds 500 lines or 8000 characters, whichever ends first;
    # its notice says where it stopped, so that paging gives every line.
    offset, ends = 0, []
    while True:
        text = await c.ok("read", path="big.txt", offset=offset)
        end, chars = offset, 0
        while end < 2400 and end - offset < 500 and chars + len(numbered([lines[end]], end + 1)) <= 8000:
            chars += len(numbered([lines[end]], end + 1))
            end += 1
        body = numbered(lines[offset:end], offset + 1)
        ends.append(end)
        if end < 2400:
            same(text, body + f"... (truncated, showing lines {offset + 1}-{end} of 2400, next offset {end})\n")
            offset = end
        else:
            same(text, body + f"... (showing lines {offset + 1}-2400 of 2400, end of input)\n")
            break
    same(ends, [500, 999, 1469, 1939, 2400])
    same(await c.ok("read", path="big.txt", offset=2400), "... (offset 2400 is past the end, input has 2400 lines)\n")
    same(
        await c.ok("read", path="big.txt", offset=10, limit=2),
        numbered(lines[10:12], 11) + "... (truncated, showing lines 11-12 of 2400, next offset 12)\n",
    )


async def read_cuts_long_lines_and_keeps_binary_files_out(c, root):
    (root / "long.txt").write_text("x" * 2500 + "\nshort\n")
    same(
        await c.ok("read", path="long.txt"),
        "     1\t" + "x" * 2000 + " ... (line truncated to 2000 chars)\n     2\tshort\n",
    )
    (root / "empty.txt").write_text("")
    same(await c.ok("read", path="empty.txt"), "(no output)\n")
    (root / "blob.bin").write_bytes(b"\x7fELF\x00\x01" + bytes(100))
    same(await c.ok("read", path="blob.bin"), "(binary file, 106 bytes: not shown)\n")


async def read_refuses_folders_and_missing_files(c, root):
    (root / "sub").mkdir()
    same(await c.error("read", path="sub"), "'sub' is a directory: read takes a file (grep searches a directory)")
    same(await c.error("read", path="nosuch.txt"), "'nosuch.txt': no such file or directory")
    same(await c.error("read", path="big.txt", limit=0), "limit must be at least 1")


async def grep_caps_at_50_with_the_total(c, root):
    (root / "src").mkdir()
    (root / "src" / "a.txt").write_text("".join(f"needle {n}\nhay\n" for n in range(1, 81)))
    (root / "src" / "b.txt").write_text("".join(f"needle b{n}\n" for n in range(1, 41)))
    expected = "".join(f"src/a.txt:{2 * n - 1}:needle {n}\n" for n in range(1, 51))
    same(await c.ok("grep", pattern="needle", path="src"), expected + "... (120 total, showing first 50)\n")
    same(
        await c.ok("grep", pattern="NEEDLE B3\\d", path="src", case_insensitive=True),
        "".join(f"src/b.txt:{n}:needle b{n}\n" for n in range(30, 40)),
    )
    same(await c.ok("grep", pattern="needle b4", glob="b.*"), "src/b.txt:4:needle b4\nsrc/b.txt:40:needle b40\n")


async def grep_finds_nothing(c, root):
    same(await c.ok("grep", pattern="no such text anywhere"), "No matches found.\n")
    assert (await c.error("grep", pattern="(")).startswith("invalid pattern: ")


async def grep_skips_what_gitignore_ignores_and_binary_files(c, root):
    repo = root / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".gitignore").write_text("ignored.txt\n")
    (repo / "ignored.txt").write_text("marker\n")
    (repo / "kept.txt").write_text("marker\n")
    (repo / "blob.bin").write_bytes(b"marker\n\x00marker\n")
    same(await c.ok("grep", pattern="marker", path="repo"), "repo/kept.txt:1:marker\n")


async def bash_fails_after_a_long_output(c, root):
    text = await c.ok("bash", command="seq 1 3000; echo failed >&2; exit 3")
    whole = "".join(f"{n}\n" for n in range(1, 3001)) + "failed\n"
    saved = SAVED.search(text)
    assert saved, text
    path = saved.group(1)
    same(
        text,
        whole[-5000:] + f"... (truncated, showing last 5000 chars; full output: {path})\n(exit status 3)\n",
    )
    # The whole output is there to page with read.
    same(Path(path).read_text(), whole)
    same(
        await c.ok("read", path=path, limit=3),
        numbered(["1", "2", "3"], 1) + "... (truncated, showing lines 1-3 of 3001, next offset 3)\n",
    )
    same(
        await c.ok("read", path=path, offset=2999),
        numbered(["3000", "failed"], 3000) + "... (showing lines 3000-3001 of 3001, end of input)\n",
    )
    same(await c.ok("bash", command="echo fine"), "fine\n")
    same(await c.ok("bash", command="true"), "(no output)\n")
    same(await c.ok("bash", command="pwd"), f"{root}\n")


async def bash_times_out(c, root):
    same(
        await c.ok("bash", command="echo started; sleep 30", timeout=1),
        "started\n... (command timed out after 1s)\n(exit status 124)\n",
    )


async def paths_may_not_leave_the_root(c, root):
    outside = root.parent / "outside.txt"
    same(await c.error("read", path="../outside.txt"), "'../outside.txt' is outside the root")
    same(await c.error("read", path=str(outside)), f"'{outside}' is outside the root")
    same(await c.error("read", path="link"), "'link' is outside the root (through a symlink)")
    same(await c.error("grep", pattern="secret", path=".."), "'..' is outside the root")
    same(await c.error("grep", pattern="secret", path="linkdir"), "'linkdir' is outside the root (through a symlink)")


async def bad_calls_never_end_the_session(c, root):
    try:
        await c.session.call_tool("nosuch", {})
        raise AssertionError("an unknown tool was called")
    except MCPError as e:
        same(e.code, -32602)
    text = await c.error("read", path="big.txt", offset="x")
    assert text.startswith("failed to deserialize parameters"), text
    text = await c.error("read")
    assert "path" in text, text
    same(await c.ok("bash", command="echo still here"), "still here\n")


async def grep_modes_context_and_paging(c, root):
    g = root / "g"
    g.mkdir()
    (g / "a.txt").write_text("one\nfoo 1\ntwo\nthree\nfour\nfoo 2\nfive\n")
    (g / "b.rs").write_text("fn main() {\n    foo();\n}\n")
    (g / "c.txt").write_text("nothing here\n")
    same(
        await c.ok("grep", pattern="foo", path="g"),
        "g/a.txt:2:foo 1\ng/a.txt:6:foo 2\ng/b.rs:2:    foo();\n",
    )
    same(await c.ok("grep", pattern="foo", path="g", output_mode="files_with_matches"), "g/a.txt\ng/b.rs\n")
    same(await c.ok("grep", pattern="foo", path="g", output_mode="count"), "g/a.txt:2\ng/b.rs:1\n")
    same(await c.ok("grep", pattern="foo", path="g", type="rust"), "g/b.rs:2:    foo();\n")
    same(await c.error("grep", pattern="foo", path="g", type="nosuchtype"), "invalid type: unrecognized file type: nosuchtype")
    # Context as rg -n -C1 --sort path prints it: `-` after context lines'
    # numbers, `--` between groups and between files.
    same(
        await c.ok("grep", pattern="foo", path="g", context=1),
        "g/a.txt-1-one\ng/a.txt:2:foo 1\ng/a.txt-3-two\n--\ng/a.txt-5-four\ng/a.txt:6:foo 2\ng/a.txt-7-five\n"
        "--\ng/b.rs-1-fn main() {\ng/b.rs:2:    foo();\ng/b.rs-3-}\n",
    )
    same(
        await c.ok("grep", pattern="foo 2", path="g/a.txt", context_before=2),
        "g/a.txt-4-three\ng/a.txt-5-four\ng/a.txt:6:foo 2\n",
    )
    same(
        await c.ok("grep", pattern="foo 1", path="g/a.txt", context_after=1, context=3),
        "g/a.txt-1-one\ng/a.txt:2:foo 1\ng/a.txt-3-two\n",
    )
    same(
        await c.ok("grep", pattern="two\nthree", path="g", multiline=True),
        "g/a.txt:3:two\ng/a.txt:4:three\n",
    )
    # As rg without -U: a newline in the pattern needs multiline.
    assert (await c.error("grep", pattern="two\nthree", path="g")).startswith("invalid pattern: "), "newline"
    same(await c.ok("grep", pattern="^FOO", path="g", case_insensitive=True), "g/a.txt:2:foo 1\ng/a.txt:6:foo 2\n")
    # Paging: the notice says where the next page starts, and where the
    # last one ends.
    (g / "many.txt").write_text("".join(f"hit {n}\n" for n in range(1, 8)))
    same(
        await c.ok("grep", pattern="hit", path="g/many.txt", limit=3),
        "g/many.txt:1:hit 1\ng/many.txt:2:hit 2\ng/many.txt:3:hit 3\n... (7 total, showing first 3)\n",
    )
    same(
        await c.ok("grep", pattern="hit", path="g/many.txt", limit=3, offset=3),
        "g/many.txt:4:hit 4\ng/many.txt:5:hit 5\ng/many.txt:6:hit 6\n... (7 total, showing 4-6, next offset 6)\n",
    )
    same(
        await c.ok("grep", pattern="hit", path="g/many.txt", limit=3, offset=6),
        "g/many.txt:7:hit 7\n... (7 total, showing 7-7, end of input)\n",
    )
    same(
        await c.ok("grep", pattern="hit", path="g/many.txt", offset=7),
        "... (offset 7 is past the end, 7 total)\n",
    )
    same(await c.error("grep", pattern="hit", path="g", limit=0), "limit must be at least 1")


async def grep_in_parallel_gives_the_first_page_in_path_order(c, root):
    # Many files, one slow to match first in path order: the page is
    # still the first matches in path order, and the total exact.
    tree = root / "tree"
    for d in range(20):
        sub = tree / f"d{d:02}"
        sub.mkdir(parents=True)
        for f in range(25):
            (sub / f"f{f:02}.txt").write_text("".join(f"x {d} {f} {n}\n" for n in range(d + f + 1)))
    total = sum(d + f + 1 for d in range(20) for f in range(25))
    expected = []
    for d in range(20):
        for f in range(25):
            for n in range(d + f + 1):
                expected.append(f"tree/d{d:02}/f{f:02}.txt:{n + 1}:x {d} {f} {n}\n")
    same(await c.ok("grep", pattern="x", path="tree", limit=50), "".join(expected[:50]) + f"... ({total} total, showing first 50)\n")
    same(
        await c.ok("grep", pattern="x", path="tree", limit=40, offset=1000),
        "".join(expected[1000:1040]) + f"... ({total} total, showing 1001-1040, next offset 1040)\n",
    )
    counts = "".join(f"tree/d{d:02}/f{f:02}.txt:{d + f + 1}\n" for d in range(20) for f in range(25))
    same(await c.ok("grep", pattern="x", path="tree", output_mode="count", limit=500), counts)


async def bash_keeps_its_working_directory(c, root):
    (root / "wd" / "inner").mkdir(parents=True)
    same(await c.ok("bash", command="cd wd && export CAPOUT_TEST_VAR=set"), "(no output)\n")
    same(await c.ok("bash", command="pwd; echo \"[$CAPOUT_TEST_VAR]\""), f"{root}/wd\n[]\n")
    # An exit status does not lose the cd before it.
    same(await c.ok("bash", command="cd inner; exit 4"), "(no output)\n(exit status 4)\n")
    same(await c.ok("bash", command="pwd"), f"{root}/wd/inner\n")
    # A folder removed under it: the next call starts at the root again.
    same(await c.ok("bash", command="cd .. && rmdir inner && cd /tmp && cd - >/dev/null && mkdir gone && cd gone && rmdir ../gone"), "(no output)\n")
    same(await c.ok("bash", command="pwd"), f"{root}\n")
    same(await c.ok("bash", command="cd /"), "(no output)\n")
    same(await c.ok("bash", command="pwd"), "/\n")
    same(await c.ok("bash", command=f"cd '{root}'"), "(no output)\n")
    same(await c.ok("bash", command="pwd"), f"{root}\n")


async def bash_output_a_model_can_read(c, root):
    same(await c.ok("bash", command="printf '\\033[1;31merror\\033[0m\\n'"), "error\n")
    same(await c.ok("bash", command="printf '10%%\\r50%%\\rdone\\n'"), "done\n")
    text = await c.ok("bash", command="head -c 3000 /dev/zero")
    saved = SAVED.search(text)
    assert saved, text
    same(text, f"(binary output, 3000 bytes: not shown; full output: {saved.group(1)})\n")
    same(Path(saved.group(1)).read_bytes(), bytes(3000))
    same(await c.ok("bash", command="kill -9 $$"), "(no output)\n(exit status 137, killed by SIGKILL)\n")
    # The shell reports a command killed by a signal as 128 + N.
    same(await c.ok("bash", command="sh -c 'kill -TERM $$'"), "Terminated\n(exit status 143, killed by SIGTERM)\n")
    same(await c.ok("bash", command="exit 3"), "(no output)\n(exit status 3)\n")


async def bash_binary_is_a_nul_in_the_first_8_kib_as_in_the_cli(c, root):
    # Latin-1 text is text: each byte that is not UTF-8 is one U+FFFD.
    same(await c.ok("bash", command="printf 'caf\\351\\n'"), "caf\ufffd\n")
    # Binary from its first bytes, however long and text-like its end.
    text = await c.ok("bash", command="printf '\\177ELF\\0'; seq 100000")
    saved = SAVED.search(text)
    assert saved, text
    whole = b"\x7fELF\x00" + "".join(f"{i}\n" for i in range(1, 100001)).encode()
    same(text, f"(binary output, {len(whole)} bytes: not shown; full output: {saved.group(1)})\n")
    same(Path(saved.group(1)).read_bytes(), whole)
    # A NUL past the first 8 KiB: text, its end shown as the CLI shows it.
    text = await c.ok("bash", command="head -c 9000 /dev/zero | tr '\\0' a; printf '\\0b\\n'")
    assert "aaa\x00b\n... (truncated, showing last 5000 chars; full output: " in text, text[-200:]


async def descriptions_follow_the_config_file(capout):
    with tempfile.TemporaryDirectory() as base:
        base = Path(base).resolve()
        config = base / "config.toml"
        config.write_text(
            "[profile.read]\nhead-lines = 40\nbudget-chars = 3000\n"
            "[profile.grep]\nmax-matches = 7\n"
            "[profile.bash]\ntail-chars = 900\nstrip-ansi = false\ncollapse-cr = false\n"
        )
        root = base / "root"
        root.mkdir()
        (root / "f.txt").write_text("".join(f"m {n}\n" for n in range(10)))
        env = {"PATH": os.environ["PATH"], "CAPOUT_CONFIG": str(config), "HOME": str(base)}
        params = StdioServerParameters(command=capout, args=["--mcp", "--root", str(root)], env=env)
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as s:
                await s.initialize()
                d = {t.name: t.description for t in (await s.list_tools()).tools}
                assert "Shown: the first 40 lines," in d["read"] and "at most 3000 chars" in d["read"], d["read"]
                assert "Shown: the first 7 lines" in d["grep"], d["grep"]
                assert "Shown: the last 900 chars of the output;" in d["bash"], d["bash"]
                for text in d.values():
                    for n in ["500 ", "8000", " 50 ", "5000 "]:
                        assert n not in text, (n, text)
                c = Client(s)
                same(
                    await c.ok("grep", pattern="m", path="f.txt"),
                    "".join(f"f.txt:{n + 1}:m {n}\n" for n in range(7)) + "... (10 total, showing first 7)\n",
                )
                same(await c.ok("bash", command="printf 'a\\033[1mb\\n'"), "a\x1b[1mb\n")


async def grep_keeps_the_profiles_notice_format_and_line_numbers(capout):
    with tempfile.TemporaryDirectory() as base:
        base = Path(base).resolve()
        config = base / "config.toml"
        config.write_text(
            "[profile.grep]\nmax-matches = 3\nline-numbers = true\n"
            "notice-format = \"[{shown} of {total} {unit}]\"\n"
        )
        root = base / "root"
        root.mkdir()
        (root / "f.txt").write_text("".join(f"m {n}\n" for n in range(10)))
        env = {"PATH": os.environ["PATH"], "CAPOUT_CONFIG": str(config), "HOME": str(base)}
        params = StdioServerParameters(command=capout, args=["--mcp", "--root", str(root)], env=env)
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as s:
                await s.initialize()
                c = Client(s)
                same(
                    await c.ok("grep", pattern="m", path="f.txt"),
                    "".join(f"{n + 1:6}\tf.txt:{n + 1}:m {n}\n" for n in range(3)) + "[3 of 10 matches]\n",
                )


def processes(arguments):
    """The live processes whose command line is `arguments`, by pid."""
    wanted = "\0".join(arguments).encode() + b"\0"
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if (entry / "cmdline").read_bytes() == wanted:
                found.append(int(entry.name))
        except OSError:
            pass
    return found


async def gone(arguments, within=10.0):
    """Waits, at most `within` seconds, until no process runs `arguments`."""
    deadline = time.monotonic() + within
    while processes(arguments):
        if time.monotonic() > deadline:
            raise AssertionError(f"still running after {within} s: {arguments}")
        await asyncio.sleep(0.05)


async def bash_cancelled_ends_its_command(c, root):
    try:
        await c.session.call_tool("bash", {"command": "sleep 313.5"}, read_timeout_seconds=1.0)
        raise AssertionError("the call was not timed out")
    except MCPError:
        pass
    await gone(["sleep", "313.5"])
    same(await c.ok("bash", command="echo still here"), "still here\n")


async def bash_background_jobs_end_with_the_call(c, root):
    same(await c.ok("bash", command="sleep 301.5 & echo started"), "started\n")
    await gone(["sleep", "301.5"])
    same(await c.ok("bash", command="setsid sleep 302.5 >/dev/null 2>&1 & echo started"), "started\n")
    await gone(["sleep", "302.5"])
    same(await c.ok("bash", command="nohup sleep 303.5 >/dev/null 2>&1 & echo started"), "started\n")
    await gone(["sleep", "303.5"])


async def read_never_follows_a_symlink_swapped_in(c, root):
    # A thread swaps the folder d for a symlink to a folder outside the
    # root and back while read asks for d/f a fixed number of times: no
    # call may return a byte of the outside file.
    outside = root.parent / "swapped"
    outside.mkdir()
    (outside / "f").write_text("OUTSIDE\n")
    d, parked = root / "swap" / "d", root / "swap" / "d.dir"
    d.mkdir(parents=True)
    (d / "f").write_text("inside\n")
    stop = threading.Event()

    def swap():
        while not stop.is_set():
            os.rename(d, parked)
            os.symlink(outside, d)
            os.unlink(d)
            os.rename(parked, d)

    swapper = threading.Thread(target=swap)
    swapper.start()
    leaked, inside = [], 0
    try:
        for _ in range(2000):
            text, error = await c.call("read", path="swap/d/f")
            if "OUTSIDE" in text:
                leaked.append(text)
            elif not error:
                same(text, "     1\tinside\n")
                inside += 1
    finally:
        stop.set()
        swapper.join()
    same(leaked, [])
    assert swapper.is_alive() is False


async def read_and_grep_refuse_a_fifo_and_a_socket(c, root):
    kinds = root / "kinds"
    kinds.mkdir()
    os.mkfifo(kinds / "p")
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(kinds / "s"))
    (kinds / "t.txt").write_text("hit\n")
    try:
        # A server that blocks on the FIFO never answers: bounded wait.
        async def within(call):
            return await asyncio.wait_for(call, timeout=20)

        same(await within(c.error("read", path="kinds/p")), "'kinds/p': a FIFO (named pipe), not a regular file")
        same(await within(c.error("grep", pattern="x", path="kinds/p")), "'kinds/p': a FIFO (named pipe), not a regular file")
        same(await within(c.error("read", path="kinds/s")), "'kinds/s': a socket, not a regular file")
        # Walked into, they are passed over, as ripgrep passes them over.
        same(await within(c.ok("grep", pattern="hit|x", path="kinds")), "kinds/t.txt:1:hit\n")
    finally:
        listener.close()


async def grep_of_a_300_mib_line_stays_under_32_mib(c, root):
    pid = int((await c.ok("bash", command="echo $PPID")).strip())
    status = Path(f"/proc/{pid}/status")
    assert "capout-mcp" in Path(f"/proc/{pid}/comm").read_text(), Path(f"/proc/{pid}/comm").read_text()
    huge = root / "huge"
    huge.mkdir()
    try:
        with open(huge / "line.txt", "wb") as f:
            chunk = b"x" * (1 << 20)
            for _ in range(300):
                f.write(chunk)
            f.write(b" needle\n")
        # The peak so far is the other tests': count this call's alone.
        Path(f"/proc/{pid}/clear_refs").write_text("5")
        prefix = "huge/line.txt:1:"
        same(
            await c.ok("grep", pattern="^x", path="huge"),
            prefix + "x" * (2000 - len(prefix)) + " ... (line truncated to 2000 chars)\n",
        )
        # Found at its end, the line never held whole.
        same(
            await c.ok("grep", pattern="needle$", path="huge/line.txt"),
            prefix + "x" * (2000 - len(prefix)) + " ... (line truncated to 2000 chars)\n",
        )
        peak = int(re.search(r"VmHWM:\s+(\d+) kB", status.read_text()).group(1))
        assert peak < 32 * 1024, f"peak RSS {peak} KiB"
    finally:
        shutil.rmtree(huge)


def cut(line, width=2000):
    """A line as the line cap cuts it."""
    if len(line) <= width:
        return line
    return f"{line[:width]} ... (line truncated to {width} chars)"


def rg(root, *arguments):
    """What `rg -n -H --sort path` prints, each line cut as grep's are; rg is the oracle."""
    ran = subprocess.run(["rg", "-n", "-H", "--sort", "path", *arguments], cwd=root, capture_output=True, text=True)
    assert ran.returncode in (0, 1), ran.stderr
    lines = [cut(line) for line in ran.stdout.splitlines()]
    return "".join(f"{line}\n" for line in lines) or "No matches found.\n"


async def grep_finds_matches_anywhere_in_long_lines_as_rg_does(c, root):
    long = root / "long"
    long.mkdir()
    x = "x" * 1000
    (long / "a.txt").write_text(f"short needle\n{'x' * 150_000}needle{'x' * 50_000}\nlast\n")
    (long / "b.txt").write_text(f"{'x' * (1_000_000 - 6)}needle\nend needle\n")
    (long / "c.txt").write_text(f"é start {x * 300} end é\n{x * 100}\n" + "y" * 70_000 + "\n")
    try:
        for pattern in ["needle", "needle$", "^x+needle", r"\bneedle\b", "^needle", "start.*end",
                        r"\bend\b", "(?i)NEEDLE", "^y+$", "é"]:
            same(await c.ok("grep", pattern=pattern, path="long"), rg(root, "-e", pattern, "long"))
        for mode, flag in [("count", "-c"), ("files_with_matches", "-l")]:
            got = await c.ok("grep", pattern="needle", path="long", output_mode=mode)
            same(got, rg(root, flag, "needle", "long"))
        same(await c.ok("grep", pattern="needle", path="long", context=1), rg(root, "-C1", "needle", "long"))
    finally:
        shutil.rmtree(long)


async def absolute_paths_through_a_root_given_as_a_symlink(c, root):
    link = root.parent / "rootlink"
    link.symlink_to(root)
    (root / "through.txt").write_text("through\n")

    async def body(c):
        same(await c.ok("read", path=str(link / "through.txt")), "     1\tthrough\n")
        same(await c.ok("read", path=str(root / "through.txt")), "     1\tthrough\n")
        same(await c.ok("read", path="through.txt"), "     1\tthrough\n")
        same(await c.ok("grep", pattern="through", path=str(link / "through.txt")), "through.txt:1:through\n")
        same(await c.error("read", path=str(link / "link")), f"'{link / 'link'}' is outside the root (through a symlink)")
        same(await c.error("read", path=str(link.parent / "outside.txt")), f"'{link.parent / 'outside.txt'}' is outside the root")

    await session(os.path.abspath(sys.argv[1]), link, body)


async def read_of_a_removed_saved_output_says_so(c, root):
    saved = SAVED.search(await c.ok("bash", command="seq 1 3000"))
    assert saved, "no saved output"
    gone = str(Path(saved.group(1)).with_name("capout-removed.log"))
    same(
        await c.error("read", path=gone),
        f"'{gone}': this saved output was removed (the server keeps at most 1 GiB of saved outputs, oldest removed first)",
    )


TESTS = [
    lists_the_three_tools,
    read_pages_a_file_to_its_end,
    read_cuts_long_lines_and_keeps_binary_files_out,
    read_refuses_folders_and_missing_files,
    grep_caps_at_50_with_the_total,
    grep_finds_nothing,
    grep_skips_what_gitignore_ignores_and_binary_files,
    bash_fails_after_a_long_output,
    bash_times_out,
    paths_may_not_leave_the_root,
    bad_calls_never_end_the_session,
    bash_cancelled_ends_its_command,
    bash_background_jobs_end_with_the_call,
    read_never_follows_a_symlink_swapped_in,
    read_and_grep_refuse_a_fifo_and_a_socket,
    grep_of_a_300_mib_line_stays_under_32_mib,
    grep_finds_matches_anywhere_in_long_lines_as_rg_does,
    absolute_paths_through_a_root_given_as_a_symlink,
    read_of_a_removed_saved_output_says_so,
    grep_modes_context_and_paging,
    grep_in_parallel_gives_the_first_page_in_path_order,
    bash_keeps_its_working_directory,
    bash_output_a_model_can_read,
    bash_binary_is_a_nul_in_the_first_8_kib_as_in_the_cli,
]


async def each_call_is_a_line_of_the_ledger_and_a_page_read_back_counts(capout):
    with tempfile.TemporaryDirectory() as base:
        base = Path(base).resolve()
        root = base / "root"
        root.mkdir()
        state = base / "state"
        env = {"PATH": os.environ["PATH"], "HOME": str(base), "XDG_STATE_HOME": str(state)}
        params = StdioServerParameters(command=capout, args=["--mcp", "--root", str(root)], env=env)
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as s:
                await s.initialize()
                c = Client(s)
                text = await c.ok("bash", command="seq 100000 | sed s/^/zq/")
                saved = SAVED.search(text).group(1)
                await c.ok("read", path=saved, offset=500, limit=10)
                await c.ok("grep", pattern="zq5", path=saved)
        ledger = (state / "capout" / "ledger.jsonl").read_text()
        assert "zq99999" not in ledger, "the output is never in the ledger"
        lines = [json.loads(line) for line in ledger.splitlines()]
        same([(e["front"], e["tool"]) for e in lines], [("mcp", "bash"), ("mcp", "read"), ("mcp", "grep")])
        bash, page, grep = lines
        same((bash["command"], bash["cut"], bash["saved"], bash["exit"]), ("seq 100000 | sed s/^/zq/", True, saved, 0))
        same((bash["chars_in"], bash["chars_shown"]), (788_895, len(text)))
        assert bash["tokens_in"] > 50 * bash["tokens_shown"], bash
        same((page["page_of"], page["cut"], page["command"]), (saved, True, saved))
        same((grep["cut"], grep["command"], grep["page_of"]), (True, f"zq5 {saved}", saved))
        same(oct(os.stat(state / "capout" / "ledger.jsonl").st_mode & 0o777), "0o600")
        stats = subprocess.run([capout, "stats", "--json"], env=env, capture_output=True, check=True)
        report = json.loads(stats.stdout)
        same((report["calls"], report["cut"], report["pages"], report["cut_read_back"]), (1, 1, 2, 1))


def layout(base):
    """A root, with a secret beside it that a symlink in it points at."""
    root = base / "root"
    root.mkdir()
    (base / "outside.txt").write_text("secret\n")
    (base / "secretdir").mkdir()
    (base / "secretdir" / "s.txt").write_text("secret\n")
    (root / "link").symlink_to(base / "outside.txt")
    (root / "linkdir").symlink_to(base / "secretdir")
    return root


async def session(capout, root, body):
    # The SDK's own environment for a server, with the ledger off: no
    # test writes into the user's state.
    env = {**get_default_environment(), "CAPOUT_LEDGER": "0"}
    params = StdioServerParameters(command=capout, args=["--mcp", "--root", str(root)], env=env)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            return await body(Client(s))


async def tests(capout):
    passed = failed = 0
    with tempfile.TemporaryDirectory() as base:
        root = layout(Path(base).resolve())

        async def run_all(c):
            nonlocal passed, failed
            # One session for all: a failing call must not end it.
            for test in TESTS:
                try:
                    await test(c, root)
                    passed += 1
                    print(f"ok   {test.__name__}")
                except Exception:
                    failed += 1
                    print(f"FAIL {test.__name__}")
                    traceback.print_exc()

        await session(capout, root, run_all)
    # Servers of their own, over config files that retune the profiles.
    for test in [
        descriptions_follow_the_config_file,
        grep_keeps_the_profiles_notice_format_and_line_numbers,
        each_call_is_a_line_of_the_ledger_and_a_page_read_back_counts,
    ]:
        try:
            await test(capout)
            passed += 1
            print(f"ok   {test.__name__}")
        except Exception:
            failed += 1
            print(f"FAIL {test.__name__}")
            traceback.print_exc()
    print(f"{passed} passed, {failed} failed")
    return failed == 0


async def bench(capout):
    with tempfile.TemporaryDirectory() as base:
        root = layout(Path(base).resolve())
        (root / "small.txt").write_text("".join(f"line {n}\n" for n in range(1, 101)))

        async def measure(c):
            pid = int((await c.ok("bash", command="echo $PPID")).strip())
            calls = {
                "read": ("read", {"path": "small.txt"}),
                "grep": ("grep", {"pattern": "line 7", "path": "small.txt"}),
                "bash": ("bash", {"command": "echo hi"}),
            }
            for name, (tool, args) in calls.items():
                times = []
                for _ in range(100):
                    start = time.perf_counter()
                    await c.ok(tool, **args)
                    times.append(time.perf_counter() - start)
                print(f"{name}: median {statistics.median(times) * 1000:.2f} ms over 100 calls")

            def rss():
                status = Path(f"/proc/{pid}/status").read_text()
                return {k: v.split()[0] for k, v in (l.split(":", 1) for l in status.splitlines()) if k in ("VmRSS", "VmHWM")}

            print(f"after 300 calls: {rss()} (KiB)")
            for n in range(1000):
                tool, args = list(calls.values())[n % 3]
                await c.ok(tool, **args)
            print(f"after 1300 calls: {rss()} (KiB)")
            for n in range(1000):
                tool, args = list(calls.values())[n % 3]
                await c.ok(tool, **args)
            print(f"after 2300 calls: {rss()} (KiB)")

        await session(capout, root, measure)


def main():
    capout = os.path.abspath(sys.argv[1])
    if sys.argv[2:] == ["--bench"]:
        asyncio.run(bench(capout))
        return 0
    return 0 if asyncio.run(tests(capout)) else 1


if __name__ == "__main__":
    sys.exit(main())
