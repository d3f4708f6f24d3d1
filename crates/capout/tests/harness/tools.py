"""Every tool bounded, inside real Claude Code: the model calls a
third-party MCP server's tools (third.py) whose results are 100,000
lines of text and a JSON document of 20,000 items, in a home without
capout, one with `capout init claude-code --tools` (the PostToolUse hook)
and one with `capout init claude-code --wrap-mcp` (the server under
capout's proxy). Prints what reaches the model in each."""

import json
import os
import re

H = None  # the harness module (harness.py), given to claude_cases()
THIRD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "third.py")
LINES = "".join(f"line {i}\n" for i in range(1, 100001))
NOTICE = r"\n\.\.\. \(truncated, showing first 8000 chars; full output: (\S+)\)\n"


def home(*init):
    """A home whose user settings run third.py, set up by `capout init
    claude-code INIT...` when INIT is given."""
    h = H.Home()
    os.makedirs(os.path.join(h.dir, ".claude"))
    with open(os.path.join(h.dir, ".claude", ".claude.json"), "w") as f:
        json.dump({"mcpServers": {"third": {"type": "stdio", "command": "python3", "args": [THIRD]}}}, f, indent=2)
    if init:
        p = h.init("claude-code", *init)
        H.check(f"claude-code: init {' '.join(init)} succeeds", p.returncode == 0, p.stdout + p.stderr)
    return h


def short(text):
    """What reached the model, in a line: its size, start and end."""
    return f"{len(text)} chars: {text[:60]!r} ... {text[-110:]!r}"


def call(h, tool, n, more=(), allow=()):
    name = f"mcp__third__{tool}"
    allowed = ",".join([name, *allow])
    r = H.claude(h, [(name, {"n": n}), *more], ["--allowedTools", allowed])
    return r


def bounded(text):
    """The saved file when `text` is the first 8000 characters of LINES
    with capout's notice, else None."""
    m = re.fullmatch(r"(?s)(.*)" + NOTICE, text or "")
    if not m or m.group(1) != LINES[:8000].rstrip("\n"):
        return None
    return m.group(2)


def next_page(body):
    """The model's second call: capout_page on the file the first result
    named, from the line after the first page."""
    text = ""
    for m in body.get("messages", []):
        if m.get("role") == "user" and isinstance(m.get("content"), list):
            for c in m["content"]:
                if c.get("type") == "tool_result":
                    content = c.get("content")
                    text = "".join(x.get("text", "") for x in content) if isinstance(content, list) else content
    m = re.search(NOTICE, text or "")
    return ("mcp__third__capout_page", {"path": m.group(1) if m else "", "offset": 902, "limit": 3})


def claude_cases(harness):
    global H
    H = harness
    print("# Claude Code: a third-party MCP tool")
    plain, hooked, wrapped = home(), home("--tools"), home("--wrap-mcp")
    for tool, n in (("lines", 100000), ("json_document", 20000)):
        for label, h in (("without capout", plain), ("with --tools", hooked), ("with --wrap-mcp", wrapped)):
            r = call(h, tool, n)
            print(f"     {tool} {n} {label}: {short(r[0]) if r else None}")

    r = call(plain, "lines", 100000)
    H.check("claude-code: without capout, 100,000 lines of an MCP tool reach the model as an error",
            len(r) == 1 and r[0].startswith("Error: result (1,088,895 characters across 100,000 lines) exceeds maximum allowed tokens"),
            repr(r)[:300])
    for label, h in (("--tools", hooked), ("--wrap-mcp", wrapped)):
        r = call(h, "lines", 100000)
        saved = bounded(r[0]) if len(r) == 1 else None
        # The proxy's folder goes when its session ends: its file is
        # paged by capout_page below.
        H.check(f"claude-code {label}: 100,000 lines of an MCP tool reach the model bounded, with the notice",
                saved is not None and (h is wrapped or open(saved).read() == LINES), repr(r)[-300:])
        # Under Claude Code's own limit the hook gets the output itself,
        # and its replacement must keep the tool's shape.
        r = call(h, "lines", 2000)
        H.check(f"claude-code {label}: 2000 lines of an MCP tool reach the model bounded",
                len(r) == 1 and re.fullmatch(r"(?s)(.*)" + NOTICE, r[0]) is not None and r[0].startswith(LINES[:7990]),
                repr(r)[-300:])
        r = call(h, "json_document", 20000)
        doc, _, notice = (r[0] if r else "").rstrip("\n").rpartition("\n")
        try:
            items = json.loads(doc)["items"]
        except (ValueError, KeyError, TypeError):
            items = None
        H.check(f"claude-code {label}: a 20,000-item JSON document stays JSON, with the notice",
                items == [{"id": i, "name": f"item {i}"} for i in range(len(items or []))] and 0 < len(items)
                and notice.startswith("... (truncated JSON: kept "), repr(r)[-300:])

    # The proxy's capout_page gives the next page of a result it saved.
    r = call(wrapped, "lines", 100000, more=[next_page], allow=["mcp__third__capout_page"])
    H.check("claude-code --wrap-mcp: capout_page returns the next page of the saved result",
            len(r) == 2 and r[1].startswith("   903\tline 903\n   904\tline 904\n   905\tline 905\n"), repr(r[1:])[:300])

    p = hooked.init("claude-code", "--tools", "--uninstall")
    H.check("claude-code: init --tools --uninstall succeeds", p.returncode == 0, p.stdout + p.stderr)
    before = json.dumps({"mcpServers": {"third": {"type": "stdio", "command": "python3", "args": [THIRD]}}}, indent=2)
    config = os.path.join(wrapped.dir, ".claude", ".claude.json")
    p = wrapped.init("claude-code", "--wrap-mcp", "--uninstall")
    servers = json.load(open(config)).get("mcpServers")
    H.check("claude-code: init --wrap-mcp --uninstall gives the server back as it was",
            p.returncode == 0 and servers == json.loads(before)["mcpServers"], p.stdout + p.stderr + repr(servers))
