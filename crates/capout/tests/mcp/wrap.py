"""Drives `capout --mcp-wrap` with the official MCP Python SDK's stdio
client, around a server of the same SDK (wrap_server.py, MCPServer) and
the reference servers from the npm registry (server-filesystem,
server-everything), each also without the proxy: what fits is the same
to the byte; what does not is cut with the notice, saved, and paged by
capout_page; sampling, progress and cancellation pass through.

    python wrap.py CAPOUT NPM_DIR              the tests; ends with `N passed, M failed`
    python wrap.py CAPOUT NPM_DIR --bench      overhead per small call through the SDK
"""

import asyncio
import base64
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

import anyio
import mcp_types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

HERE = Path(__file__).resolve().parent
SERVER = [sys.executable, str(HERE / "wrap_server.py")]
SAVED = re.compile(r"; full output: (/\S+/capout-\w+\.(\w+))\)")
NOTICE = "... (truncated, showing first 8000 chars; full output: {})\n"


def same(got, expected):
    assert got == expected, f"\n--- expected\n{expected!r}\n--- got\n{got!r}"


def numbered(lines, first):
    """Lines as `capout -N` numbers them, the first one numbered `first`."""
    return "".join(f"{n:6d}\t{line}\n" for n, line in enumerate(lines, first))


def head(text):
    """What profile tool keeps of `text`: its first 8000 characters, then
    the notice on a line of its own."""
    kept = text[:8000]
    return kept if kept.endswith("\n") else kept + "\n"


def is_json(text):
    try:
        json.loads(text)
    except ValueError:
        return False
    return text.lstrip()[:1] in ("{", "[")


def json_cut():
    """Whether this capout cuts JSON so that it stays JSON (--json-items),
    as profile tool then does."""
    help = subprocess.run([CAPOUT, "--help"], capture_output=True, text=True).stdout
    return "--json-items" in help


def cut_of(text, full):
    """Checks that `text` is what profile tool makes of `full`, and that
    `full` is saved whole; the document kept, when it stayed JSON."""
    path = SAVED.search(text).group(1)
    same(Path(path).read_text(), full)
    if json_cut() and is_json(full):
        # The document, still JSON, then the notice.
        document, notice = text.rstrip("\n").rsplit("\n", 1)
        assert notice.startswith("... (truncated JSON: kept ") and notice.endswith(f"; full output: {path})"), notice
        return json.loads(document)
    same(text, head(full) + NOTICE.format(path))
    return None


async def sampled(context, params):
    """The client's model: it says what it was asked, reversed."""
    asked = params.messages[0].content.text
    return types.CreateMessageResult(role="assistant", model="echo",
                                     content=types.TextContent(type="text", text=asked[::-1]))


class Both:
    """A session with the server through the proxy, and one without it."""

    def __init__(self, wrapped, plain, home):
        self.wrapped, self.plain, self.home = wrapped, plain, home

    async def call(self, tool, **arguments):
        return await self.wrapped.call_tool(tool, arguments), await self.plain.call_tool(tool, arguments)


async def sessions(capout, command, body, env=None):
    """Runs `body(Both)` with `command` served with and without the proxy."""
    home = tempfile.mkdtemp()
    environment = {"PATH": os.environ["PATH"], "HOME": home, "XDG_CONFIG_HOME": home, **(env or {})}
    wrapped = StdioServerParameters(command=capout, args=["--mcp-wrap", "--", *command], env=environment)
    plain = StdioServerParameters(command=command[0], args=command[1:], env=environment)
    async with stdio_client(wrapped) as (r1, w1), stdio_client(plain) as (r2, w2):
        async with ClientSession(r1, w1, sampling_callback=sampled) as s1, \
                ClientSession(r2, w2, sampling_callback=sampled) as s2:
            same((await s1.initialize()).model_dump(), (await s2.initialize()).model_dump())
            return await body(Both(s1, s2, Path(home)))


def dump(result):
    return result.model_dump(exclude_none=True)


# The tests on wrap_server.py: each gets both sessions.


async def tools_are_the_servers_and_capout_page_once(both):
    wrapped, plain = (await both.wrapped.list_tools()).tools, (await both.plain.list_tools()).tools
    same([t.model_dump() for t in wrapped[:-1]], [t.model_dump() for t in plain])
    page = wrapped[-1]
    same(page.name, "capout_page")
    same(sorted(page.input_schema["properties"]), ["limit", "offset", "path"])
    same(page.input_schema["required"], ["path"])
    assert "Page a tool result that capout cut" in page.description


async def what_fits_is_the_same_with_and_without(both):
    for tool, arguments in [("echo", {"text": "héllo \"q\" 😀"}), ("lines", {"n": 3}),
                            ("structured", {"n": 2}), ("image", {"size": 1000}),
                            ("json_document", {"n": 3}), ("lines", {"n": 0})]:
        wrapped, plain = await both.call(tool, **arguments)
        same(dump(wrapped), dump(plain))


async def a_result_of_100000_lines_is_cut_saved_and_paged(both):
    wrapped, plain = await both.call("lines", n=100_000)
    full = plain.content[0].text
    text = wrapped.content[0].text
    path = SAVED.search(text).group(1)
    cut_of(text, full)
    # Its structured twin keeps its shape, as its output schema says.
    same(wrapped.structured_content, {"result": full[:1000] + f"…[+{len(full) - 1000} chars]"})
    # Paged as read pages a file: numbered, 500 lines or 8000 characters.
    lines = full.splitlines()
    page = (await both.wrapped.call_tool("capout_page", {"path": path})).content[0].text
    shown = page.count("\n") - 1
    same(page, numbered(lines[:shown], 1) + f"... (truncated, showing lines 1-{shown} of 100000, next offset {shown})\n")
    page = (await both.wrapped.call_tool("capout_page", {"path": path, "offset": 99998})).content[0].text
    same(page, numbered(lines[99998:], 99999) + "... (showing lines 99999-100000 of 100000, end of input)\n")


async def each_result_is_a_line_of_the_ledger_and_capout_page_a_page(both):
    ledger = both.home / ".local" / "state" / "capout" / "ledger.jsonl"
    before = len(ledger.read_text().splitlines()) if ledger.exists() else 0
    wrapped, plain = await both.call("lines", n=100_000)
    path = SAVED.search(wrapped.content[0].text).group(1)
    await both.wrapped.call_tool("capout_page", {"path": path, "offset": 500})
    await both.call("echo", text="hi")
    text = ledger.read_text()
    assert "99999" not in text, "the output is never in the ledger"
    lines = [json.loads(line) for line in text.splitlines()[before:]]
    same([(e["front"], e["tool"], e["cut"]) for e in lines], [("proxy", "lines", True), ("proxy", "read", True), ("proxy", "echo", False)])
    cut, page, small = lines
    full = plain.content[0].text
    same((cut["chars_in"], cut["chars_shown"], cut["saved"]), (len(full), len(wrapped.content[0].text), path))
    same(page["page_of"], path)
    same((small["chars_in"], small["chars_shown"]), (2, 2))


async def a_json_document_of_20000_items_is_cut(both):
    wrapped, plain = await both.call("json_document", n=20_000)
    full = plain.content[0].text
    document = cut_of(wrapped.content[0].text, full)
    if document is not None:
        items = document["items"]
        same(items, json.loads(full)["items"][: len(items)])
    # Structured, it stays JSON the output schema accepts (the SDK checked
    # it): the first items, whole.
    wrapped, plain = await both.call("structured", n=20_000)
    items = wrapped.structured_content["items"]
    assert 10 < len(items) < 1000, len(items)
    same(items, plain.structured_content["items"][: len(items)])
    cut_of(wrapped.content[0].text, plain.content[0].text)


async def an_image_over_256_kib_is_one_line_naming_its_file(both):
    wrapped, plain = await both.call("image", size=300_000)
    same(len(wrapped.content), 1)
    text = wrapped.content[0].text
    # The saved file keeps the image's type.
    found = re.fullmatch(r"\(image, 300000 bytes, image/png: not shown; full output: (/\S+/capout-\w+\.png)\)", text)
    assert found, text
    same(Path(found.group(1)).read_bytes(), base64.b64decode(plain.content[0].data))
    # At the cap it passes.
    wrapped, plain = await both.call("image", size=256 << 10)
    same(dump(wrapped), dump(plain))


async def the_servers_request_for_sampling_reaches_the_client(both):
    wrapped, plain = await both.call("sample", prompt="abc")
    same(wrapped.content[0].text, "sampled: cba")
    same(dump(wrapped), dump(plain))


async def progress_notifications_pass(both):
    seen = {"wrapped": [], "plain": []}
    for name, session in [("wrapped", both.wrapped), ("plain", both.plain)]:
        async def progress(value, total, message, name=name):
            seen[name].append((value, total, message))
        await session.call_tool("progress", {"steps": 5}, progress_callback=progress)
    same(seen["wrapped"], seen["plain"])
    same(len(seen["wrapped"]), 5)


async def a_cancelled_call_is_cancelled_in_the_server(both):
    marks = Path(os.environ["WRAP_MARKS"])
    started = anyio.Event()

    async def progress(value, total, message):
        started.set()

    async with anyio.create_task_group() as group:
        async def call():
            await both.wrapped.call_tool("wait", {"seconds": 60}, progress_callback=progress)
        group.start_soon(call)
        await started.wait()
        group.cancel_scope.cancel()
    deadline = time.monotonic() + 20
    while "cancelled" not in (marks.read_text() if marks.exists() else ""):
        assert time.monotonic() < deadline, "the server never saw the cancellation"
        await asyncio.sleep(0.02)
    # The session goes on.
    same((await both.wrapped.call_tool("echo", {"text": "after"})).content[0].text, "after")


async def a_server_that_dies_mid_call_fails_it_with_its_status(both):
    try:
        await both.wrapped.call_tool("crash", {"code": 3})
    except MCPError as e:
        message = str(e)
    else:
        raise AssertionError("the call did not fail")
    assert message.startswith("capout --mcp-wrap: the server "), message
    assert "wrap_server.py exited with status 3; the last lines of its stderr:\n" in message, message
    assert message.endswith("\nwrapped: crashing with 3"), message
    try:
        await both.wrapped.call_tool("echo", {"text": "x"})
    except MCPError as e:
        assert "exited with status 3" in str(e), str(e)
    else:
        raise AssertionError("a call after the death did not fail")


TESTS = [
    tools_are_the_servers_and_capout_page_once,
    what_fits_is_the_same_with_and_without,
    a_result_of_100000_lines_is_cut_saved_and_paged,
    each_result_is_a_line_of_the_ledger_and_capout_page_a_page,
    a_json_document_of_20000_items_is_cut,
    an_image_over_256_kib_is_one_line_naming_its_file,
    the_servers_request_for_sampling_reaches_the_client,
    progress_notifications_pass,
    a_cancelled_call_is_cancelled_in_the_server,
    # Last: it ends the server.
    a_server_that_dies_mid_call_fails_it_with_its_status,
]


# The reference servers of the npm registry.


def tree(base):
    """A tree of 40 folders of 50 files each, and a file of 200,000 lines."""
    for d in range(1, 41):
        folder = base / "tree" / f"d{d}"
        folder.mkdir(parents=True)
        for f in range(1, 51):
            (folder / f"file_{f}.txt").write_text("")
    (base / "big.txt").write_text("".join(f"{n}\n" for n in range(1, 200_001)))
    (base / "small.txt").write_text("a small file\n")


async def filesystem(capout, npm):
    with tempfile.TemporaryDirectory() as base:
        base = Path(base).resolve()
        tree(base)
        command = [str(npm / "node_modules/.bin/mcp-server-filesystem"), str(base)]

        async def body(both):
            tools = (await both.wrapped.list_tools()).tools
            same([t.name for t in tools][-1], "capout_page")
            same([t.model_dump() for t in tools[:-1]], [t.model_dump() for t in (await both.plain.list_tools()).tools])
            for tool, arguments in [("read_text_file", {"path": str(base / "small.txt")}),
                                    ("list_directory", {"path": str(base)}),
                                    ("get_file_info", {"path": str(base / "small.txt")})]:
                wrapped, plain = await both.call(tool, **arguments)
                same(dump(wrapped), dump(plain))
            for tool, arguments in [("directory_tree", {"path": str(base / "tree")}),
                                    ("read_text_file", {"path": str(base / "big.txt")})]:
                wrapped, plain = await both.call(tool, **arguments)
                full = plain.content[0].text
                assert len(full) > 100_000, len(full)
                text = wrapped.content[0].text
                path = SAVED.search(text).group(1)
                cut_of(text, full)
                content = plain.structured_content["content"]
                same(wrapped.structured_content, {"content": content[:1000] + f"…[+{len(content) - 1000} chars]"})
                # And paged on.
                page = (await both.wrapped.call_tool("capout_page", {"path": path, "offset": 10, "limit": 2}))
                lines = full.splitlines()
                same(page.content[0].text, numbered(lines[10:12], 11) +
                     f"... (truncated, showing lines 11-12 of {len(lines)}, next offset 12)\n")

        await sessions(capout, command, body)


async def everything(capout, npm):
    command = [str(npm / "node_modules/.bin/mcp-server-everything"), "stdio"]

    async def body(both):
        tools = (await both.wrapped.list_tools()).tools
        same([t.model_dump() for t in tools[:-1]], [t.model_dump() for t in (await both.plain.list_tools()).tools])
        same((await both.wrapped.list_resources()).model_dump(), (await both.plain.list_resources()).model_dump())
        same((await both.wrapped.list_prompts()).model_dump(), (await both.plain.list_prompts()).model_dump())
        for tool, arguments in [("echo", {"message": "hi"}), ("get-sum", {"a": 2, "b": 3}),
                                ("get-tiny-image", {}), ("get-annotated-message", {"messageType": "error"}),
                                ("get-structured-content", {"location": "New York"}),
                                ("get-resource-links", {"count": 3}), ("get-resource-reference", {})]:
            wrapped, plain = await both.call(tool, **arguments)
            same(dump(wrapped), dump(plain))
        seen = []

        async def progress(value, total, message):
            seen.append(value)
        result = await both.wrapped.call_tool("trigger-long-running-operation", {"duration": 1, "steps": 3},
                                              progress_callback=progress)
        same(seen, [1, 2, 3])
        assert "Long running operation completed" in result.content[0].text, result

    await sessions(capout, command, body)


async def tests(capout, npm):
    passed = failed = 0

    def report(name, error):
        nonlocal passed, failed
        if error is None:
            passed += 1
            print(f"ok   {name}")
        else:
            failed += 1
            print(f"FAIL {name}")
            traceback.print_exception(error)

    with tempfile.TemporaryDirectory() as marks:
        os.environ["WRAP_MARKS"] = str(Path(marks) / "marks")

        async def run_all(both):
            for test in TESTS:
                try:
                    await test(both)
                    report(test.__name__, None)
                except Exception as e:
                    report(test.__name__, e)

        await sessions(capout, SERVER, run_all, env={"WRAP_MARKS": os.environ["WRAP_MARKS"]})
    for test in [filesystem, everything]:
        try:
            await test(capout, npm)
            report(f"reference_server_{test.__name__}", None)
        except Exception as e:
            report(f"reference_server_{test.__name__}", e)
    print(f"{passed} passed, {failed} failed")
    return failed == 0


async def bench(capout):
    async def measure(both):
        for name, session in [("wrapped", both.wrapped), ("plain", both.plain)]:
            for _ in range(100):
                await session.call_tool("echo", {"text": "hi"})
            times = []
            for _ in range(1000):
                start = time.perf_counter()
                await session.call_tool("echo", {"text": "hi"})
                times.append(time.perf_counter() - start)
            print(f"{name}: median {statistics.median(times) * 1000:.3f} ms over 1000 small calls (SDK client)")

    await sessions(capout, SERVER, measure)


CAPOUT = None


def main():
    global CAPOUT
    capout, npm = os.path.abspath(sys.argv[1]), Path(sys.argv[2]).resolve()
    CAPOUT = capout
    if sys.argv[3:] == ["--bench"]:
        asyncio.run(bench(capout))
        return 0
    return 0 if asyncio.run(tests(capout, npm)) else 1


if __name__ == "__main__":
    sys.exit(main())
