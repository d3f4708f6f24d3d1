"""Every tool bounded, inside the real harnesses: the model calls a
third-party MCP server's tools (third.py) whose results are 100,000
lines of text and a JSON document of 20,000 items, in a home without
capout, one with `capout init HARNESS --tools` (the after-tool hook) and
one with `capout init HARNESS --wrap-mcp` (the server under capout's
proxy). Prints what reaches the model in each."""

import json
import os
import re
import subprocess

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


def gemini_home(G, *init):
    """A Gemini CLI home whose user settings run third.py, set up by
    `capout init gemini INIT...` when INIT is given."""
    h = H.Home()
    os.makedirs(os.path.join(h.dir, ".gemini"))
    server = json.dumps({"third": {"command": "python3", "args": [THIRD], "trust": True}})
    h.settings = G.SETTINGS.replace('  "tools":', f'  "mcpServers": {server},\n  "tools":')
    with open(os.path.join(h.dir, ".gemini", "settings.json"), "w") as f:
        f.write(h.settings)
    if init:
        p = h.init("gemini", *init)
        H.check(f"gemini: init {' '.join(init)} succeeds", p.returncode == 0, p.stdout + p.stderr)
    return h


def inside(text):
    """What Gemini CLI gave the model inside <untrusted_context>."""
    m = re.fullmatch(r"(?s)<untrusted_context>\n(.*)\n</untrusted_context>", text or "")
    return m.group(1) if m else None


def next_line_of(body):
    """The model's second call in Gemini CLI: read_file (with --tools) or
    capout_page (with --wrap-mcp) on the file the first result named."""
    text = ""
    for c in body.get("contents", []):
        for part in c.get("parts", []):
            if "functionResponse" in part:
                text = part["functionResponse"]["response"].get("output", "")
    m = re.search(NOTICE, text)
    path = m.group(1) if m else ""
    if "capout-mcp-wrap-" in path:
        return ("mcp_third_capout_page", {"path": path, "offset": 902, "limit": 3})
    return ("read_file", {"file_path": path, "start_line": 903, "end_line": 905})


def gemini_cases(harness):
    global H
    H = harness
    import gemini as G
    if not G.setup(harness):
        H.check("gemini is installed", False, G.GEMINI)
        return
    print("# Gemini CLI: a third-party MCP tool")
    plain, hooked, wrapped = gemini_home(G), gemini_home(G, "--tools"), gemini_home(G, "--wrap-mcp")
    for tool, n in (("lines", 100000), ("json_document", 20000)):
        for label, h in (("without capout", plain), ("with --tools", hooked), ("with --wrap-mcp", wrapped)):
            r = G.gemini(h, [(f"mcp_third_{tool}", {"n": n})])
            print(f"     {tool} {n} {label}: {short(r[0]) if r else None}")
    r = G.gemini(plain, [("mcp_third_lines", {"n": 100000})])
    H.check("gemini: without capout, 100,000 lines of an MCP tool reach the model as its own cut",
            len(r) == 1 and r[0].startswith("Output too large. Showing first 8,000 and last 32,000 characters."),
            repr(r)[:300])
    for label, h in (("--tools", hooked), ("--wrap-mcp", wrapped)):
        r = G.gemini(h, [("mcp_third_lines", {"n": 100000}), next_line_of])
        saved = bounded(inside(r[0])) if r else None
        H.check(f"gemini {label}: 100,000 lines of an MCP tool reach the model bounded, with the notice",
                saved is not None and (h is wrapped or open(saved).read() == LINES), repr(r)[:300])
        H.check(f"gemini {label}: the model reads the next lines of the saved output",
                len(r) == 2 and re.search(r"line 903\n(   904\t)?line 904\n(   905\t)?line 905\b", r[1]) is not None
                and "line 902\n" not in r[1], repr(r[1:])[:300])
        r = G.gemini(h, [("mcp_third_json_document", {"n": 20000})])
        doc, _, notice = (inside(r[0]) if r else "" or "").rstrip("\n").rpartition("\n")
        try:
            items = json.loads(doc)["items"]
        except (ValueError, KeyError, TypeError):
            items = None
        H.check(f"gemini {label}: a 20,000-item JSON document stays JSON, with the notice",
                bool(items) and items == [{"id": i, "name": f"item {i}"} for i in range(len(items))]
                and notice.startswith("... (truncated JSON: kept "), repr(r)[-300:])
    for flag, h in (("--tools", hooked), ("--wrap-mcp", wrapped)):
        p = h.init("gemini", flag, "--uninstall")
        after = open(os.path.join(h.dir, ".gemini", "settings.json")).read()
        H.check(f"gemini: init {flag} --uninstall gives settings.json back byte for byte",
                p.returncode == 0 and after == h.settings, p.stdout + p.stderr + after)


def codex_next_page(body):
    """The model's second call in Codex: capout_page on the file the first
    result named."""
    text = ""
    for item in body.get("input", []):
        if isinstance(item, dict) and item.get("type", "").endswith("call_output"):
            out = item.get("output")
            text = "\n".join(x.get("text", "") for x in out) if isinstance(out, list) else out or ""
    m = re.search(NOTICE, text)
    return ("mcp__third.capout_page", {"path": m.group(1) if m else "", "offset": 902, "limit": 3})


def codex_text(result):
    """An MCP tool's text in Codex's tool result, after its `Output:` line."""
    return result.removeprefix("Output:\n")


def codex_cases(harness):
    global H
    H = harness
    import codex as C
    C.H = harness
    if not os.access(C.codex_path(H.TOOLS), os.X_OK):
        H.check("codex is installed", False, C.codex_path(H.TOOLS))
        return
    print("# Codex CLI: a third-party MCP tool")
    server = f'\n[mcp_servers.third]\ncommand = "python3"\nargs = ["{THIRD}"]\ndefault_tools_approval_mode = "approve"\n'
    plain, wrapped = H.Home(), H.Home()
    for h in (plain, wrapped):
        os.makedirs(os.path.join(h.dir, ".codex"))
        h.config = C.CONFIG.format(url=H.URL) + server
        with open(os.path.join(h.dir, ".codex", "config.toml"), "w") as f:
            f.write(h.config)
    p = wrapped.init("codex", "--tools")
    H.check("codex: init --tools is refused and names --wrap-mcp", p.returncode == 1 and "--wrap-mcp" in p.stderr,
            p.stdout + p.stderr)
    p = subprocess_init(wrapped, C, "--wrap-mcp")
    H.check("codex: init --wrap-mcp succeeds", p.returncode == 0, p.stdout + p.stderr)
    for tool, n in (("lines", 100000), ("json_document", 20000)):
        for label, h in (("without capout", plain), ("with --wrap-mcp", wrapped)):
            r = C.codex(h, [(f"mcp__third.{tool}", {"n": n})])
            print(f"     {tool} {n} {label}: {short(r[0]) if r else None}")
    r = C.codex(plain, [("mcp__third.lines", {"n": 100000})])
    H.check("codex: without capout, 100,000 lines of an MCP tool reach the model as Codex's own head and tail",
            len(r) == 1 and codex_text(r[0]).startswith("line 1\n") and r[0].endswith("line 100000\n")
            and len(r[0]) < 20000 and "capout" not in r[0], repr(r)[:300])
    r = C.codex(wrapped, [("mcp__third.lines", {"n": 100000}), codex_next_page])
    H.check("codex --wrap-mcp: 100,000 lines of an MCP tool reach the model bounded, with the notice",
            len(r) >= 1 and bounded(codex_text(r[0])) is not None, repr(r)[:300])
    H.check("codex --wrap-mcp: capout_page returns the next page of the saved result",
            len(r) == 2 and "   903\tline 903\n   904\tline 904\n   905\tline 905\n" in r[1], repr(r[1:])[:300])
    r = C.codex(wrapped, [("mcp__third.json_document", {"n": 20000})])
    doc, _, notice = codex_text(r[0] if r else "").rstrip("\n").rpartition("\n")
    try:
        items = json.loads(doc)["items"]
    except (ValueError, KeyError, TypeError):
        items = None
    H.check("codex --wrap-mcp: a 20,000-item JSON document stays JSON, with the notice",
            bool(items) and items == [{"id": i, "name": f"item {i}"} for i in range(len(items))]
            and notice.startswith("... (truncated JSON: kept "), repr(r)[-300:])
    p = subprocess_init(wrapped, C, "--wrap-mcp", "--uninstall")
    after = open(os.path.join(wrapped.dir, ".codex", "config.toml")).read()
    H.check("codex: init --wrap-mcp --uninstall gives config.toml back byte for byte",
            p.returncode == 0 and after == wrapped.config, p.stdout + p.stderr + after)


def subprocess_init(h, C, *args):
    """`capout init codex ARGS` in the home `h`, with Codex's folder."""
    return subprocess.run([H.CAPOUT, "init", "codex", *args], cwd=h.proj, env=C.env(h), capture_output=True,
                          text=True, timeout=60)


def opencode_cases(harness):
    global H
    H = harness
    opencode = os.path.join(H.TOOLS, "node_modules", ".bin", "opencode")
    if not os.access(opencode, os.X_OK):
        H.check("opencode is installed", False, opencode)
        return
    print("# opencode: a third-party MCP tool")

    def env(home):
        e = H.on_path(home.env())
        for name, path in (("XDG_CONFIG_HOME", ".config"), ("XDG_DATA_HOME", ".local/share"),
                           ("XDG_CACHE_HOME", ".cache"), ("XDG_STATE_HOME", ".local/state")):
            e[name] = os.path.join(home.dir, path)
        for name in ("AUTOUPDATE", "MODELS_FETCH", "LSP_DOWNLOAD", "DEFAULT_PLUGINS", "SHARE", "CLAUDE_CODE"):
            e[f"OPENCODE_DISABLE_{name}"] = "1"
        return e

    def run(home, calls):
        """Runs opencode on `calls`; the tool results it sent back."""
        H.SCRIPT.reset(calls)
        p = subprocess.run([opencode, "run", "go", "--format", "json"], cwd=home.proj, env=env(home),
                           capture_output=True, text=True, timeout=300)
        with H.SCRIPT.lock:
            asked = [r["body"] for r in H.SCRIPT.requests if r["body"].get("tools")]
        results = []
        for m in (asked[-1] if asked else {}).get("messages", []):
            if m.get("role") == "tool":
                c = m.get("content")
                results.append("".join(x.get("text", "") for x in c) if isinstance(c, list) else c)
        if len(results) != len(calls):
            print(f"     opencode exited {p.returncode}: {p.stdout[-600:]} {p.stderr[-600:]}")
        return results

    def init(home, *args):
        return subprocess.run([H.CAPOUT, "init", "opencode", *args], cwd=home.proj, env=env(home),
                              capture_output=True, text=True, timeout=60)

    def next_page(body):
        text = ""
        for m in body.get("messages", []):
            if m.get("role") == "tool":
                c = m.get("content")
                text = "".join(x.get("text", "") for x in c) if isinstance(c, list) else c or ""
        m = re.search(NOTICE, text)
        path = m.group(1) if m else ""
        if "capout-mcp-wrap-" in path:
            return ("third_capout_page", {"path": path, "offset": 902, "limit": 3})
        return ("read", {"filePath": path, "offset": 903, "limit": 3})

    config = json.dumps({
        "$schema": "https://opencode.ai/config.json", "model": "local/m", "small_model": "local/m",
        "autoupdate": False, "share": "disabled", "permission": {"bash": "allow", "read": "allow",
                                                                  "external_directory": "allow"},
        "provider": {"local": {"npm": "@ai-sdk/openai-compatible", "name": "local",
                               "options": {"baseURL": H.URL + "/v1", "apiKey": "sk-test"},
                               "models": {"m": {"name": "m", "tool_call": True}}}},
        "mcp": {"third": {"type": "local", "command": ["python3", THIRD], "enabled": True}},
    }, indent=2) + "\n"
    plain, hooked, wrapped = H.Home(), H.Home(), H.Home()
    for home in (plain, hooked, wrapped):
        os.makedirs(os.path.join(home.dir, ".config", "opencode"))
        with open(os.path.join(home.dir, ".config", "opencode", "opencode.json"), "w") as f:
            f.write(config)
    for flag, home in (("--tools", hooked), ("--wrap-mcp", wrapped)):
        p = init(home, flag)
        H.check(f"opencode: init {flag} succeeds", p.returncode == 0, p.stdout + p.stderr)
    for tool, n in (("lines", 100000), ("json_document", 20000)):
        for label, home in (("without capout", plain), ("with --tools", hooked), ("with --wrap-mcp", wrapped)):
            r = run(home, [(f"third_{tool}", {"n": n})])
            print(f"     {tool} {n} {label}: {short(r[0]) if r else None}")
    r = run(plain, [("third_lines", {"n": 100000})])
    H.check("opencode: without capout, 100,000 lines of an MCP tool reach the model as its own cut",
            len(r) == 1 and r[0].startswith("line 1\n") and "showing first 8000 chars" not in r[0], repr(r)[:300])
    for label, home in (("--tools", hooked), ("--wrap-mcp", wrapped)):
        r = run(home, [("third_lines", {"n": 100000}), next_page])
        saved = bounded(r[0]) if r else None
        H.check(f"opencode {label}: 100,000 lines of an MCP tool reach the model bounded, with the notice",
                saved is not None and (home is wrapped or open(saved).read() == LINES), repr(r)[:300])
        H.check(f"opencode {label}: the model reads the next lines of the saved output",
                len(r) == 2 and re.search(r"903[:\t] ?line 903\n\s*904[:\t] ?line 904\n\s*905[:\t] ?line 905\b", r[1]) is not None,
                repr(r[1:])[:300])
        r = run(home, [("third_json_document", {"n": 20000})])
        doc, _, notice = (r[0] if r else "").rstrip("\n").rpartition("\n")
        try:
            items = json.loads(doc)["items"]
        except (ValueError, KeyError, TypeError):
            items = None
        H.check(f"opencode {label}: a 20,000-item JSON document stays JSON, with the notice",
                bool(items) and items == [{"id": i, "name": f"item {i}"} for i in range(len(items))]
                and notice.startswith("... (truncated JSON: kept "), repr(r)[-300:])
    for flag, home in (("--tools", hooked), ("--wrap-mcp", wrapped)):
        p = init(home, flag, "--uninstall")
        after = open(os.path.join(home.dir, ".config", "opencode", "opencode.json")).read()
        H.check(f"opencode: init {flag} --uninstall gives opencode.json back byte for byte",
                p.returncode == 0 and after == config, p.stdout + p.stderr + after)
