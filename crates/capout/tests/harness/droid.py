"""Factory Droid's cases: `droid exec` with the scripted model as a custom
model of its settings (generic chat completions), each compared with the
same Droid without capout.

Droid checks its command allow and deny lists and its autonomy level on
the command that a PreToolUse hook's updatedInput gives in the place of
the model's, so a rewrite that runs a command under capout would hide the
command's words from them: a case proves it with a hook of the test's
own, and `capout init droid` says so and offers --mcp, whose tools the
model calls in the other cases (after Droid's ToolSearch, which loads an
MCP tool).
"""

import json
import os
import re
import shutil
import subprocess

H = None  # the harness module (harness.py), given to cases()
LAST = {"log": ""}

# A hook that gives another command in the place of two of the model's:
# what Droid's lists and autonomy then see.
SWAP = """import json, sys
event = json.load(sys.stdin)
args = event.get("tool_input") or {}
swap = {"rm -f victim": "echo not rm", "git status": "touch swapped; echo touched"}
if event.get("tool_name") == "Execute" and args.get("command") in swap:
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                             "updatedInput": {**args, "command": swap[args["command"]]}}}))
"""


def droid_path(tools):
    return os.path.join(tools, "node_modules", ".bin", "droid")


def settings(home, **more):
    path = os.path.join(home.dir, ".factory", "settings.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump({"customModels": [{"model": "m", "displayName": "m", "baseUrl": H.URL + "/v1", "apiKey": "sk-test",
                                     "provider": "generic-chat-completion-api", "maxOutputTokens": 1000}], **more}, f)


def droid(home, calls, flags=("--auto", "high")):
    """Runs `droid exec` on `calls`; what the model got back for each, and
    Droid's status."""
    H.SCRIPT.reset(calls)
    p = subprocess.run([droid_path(H.TOOLS), "exec", *flags, "-m", "custom:m", "go"], cwd=home.proj,
                       env=H.on_path(home.env()), stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
    LAST["log"] = p.stdout[-2000:] + p.stderr[-2000:]
    with H.SCRIPT.lock:
        asked = [r["body"] for r in H.SCRIPT.requests if r["body"].get("tools")]
    results = []
    for m in (asked[-1] if asked else {}).get("messages", []):
        if m.get("role") == "tool":
            c = m.get("content")
            if isinstance(c, list):
                c = "".join(x.get("text", "") for x in c)
            results.append(c)
    return results, p.returncode


def execute(command):
    # Droid's Execute tool refuses a call without the model's own risk level.
    return ("Execute", {"command": command, "riskLevelReason": "It reads and prints.", "riskLevel": "low"})


def mcp_bash(command):
    return [("ToolSearch", {"query": "select:capout___bash"}), ("capout___bash", {"command": command})]


def init(home, *args):
    return subprocess.run([H.CAPOUT, "init", "droid", *args], cwd=home.proj, env=H.on_path(home.env()),
                          capture_output=True, text=True, timeout=60)


def cases(harness):
    global H
    H = harness
    check = H.check
    print("# Factory Droid")
    if not os.access(droid_path(H.TOOLS), os.X_OK):
        check("droid is installed", False, droid_path(H.TOOLS))
        return
    plain, wrapped = H.Home(), H.Home()
    for h in (plain, wrapped):
        settings(h)
    config = os.path.join(wrapped.dir, ".factory", "mcp.json")
    before = '{\n  "mcpServers": {}\n}\n'
    with open(config, "w") as f:
        f.write(before)

    p = init(wrapped)
    check("droid: init without --mcp says why in one line, offers --mcp and writes nothing",
          p.returncode == 1 and p.stderr.count("\n") == 1 and "allow and deny lists" in p.stderr
          and "`capout init droid --mcp`" in p.stderr and open(config).read() == before, p.stdout + p.stderr)
    p = init(wrapped, "--mcp")
    check("droid: init --mcp succeeds", p.returncode == 0 and '"capout"' in open(config).read(), p.stdout + p.stderr)
    again = init(wrapped, "--mcp")
    check("droid: init --mcp is idempotent", again.returncode == 0 and "unchanged" in again.stdout,
          again.stdout + again.stderr)

    # Why capout does not rewrite: the lists see the hook's command.
    open(os.path.join(plain.proj, "victim"), "w").close()
    with open(os.path.join(plain.dir, "swap.py"), "w") as f:
        f.write(SWAP)
    hooks = {"PreToolUse": [{"matcher": "Execute", "hooks": [
        {"type": "command", "command": f"python3 {os.path.join(plain.dir, 'swap.py')}"}]}]}
    settings(plain, commandDenylist=["rm"])
    r, _ = droid(plain, [execute("rm -f victim")])
    check("droid: without a hook, its deny list stops rm -f victim", r == [] and "insufficient permission" in LAST["log"]
          and os.path.exists(os.path.join(plain.proj, "victim")), LAST["log"])
    settings(plain, commandDenylist=["rm"], hooks=hooks)
    r, _ = droid(plain, [execute("rm -f victim")])
    check("droid: a deny list with rm does not deny the command a PreToolUse hook gives in its place",
          r == ["not rm\n\n\n[Process exited with code 0]"], repr(r) + LAST["log"])
    settings(plain, commandAllowlist=["git status"], hooks=hooks)
    r, _ = droid(plain, [execute("git status")], ())
    check("droid: an allow list with git status does not allow the command a hook gives in its place",
          r == [] and "insufficient permission" in LAST["log"]
          and not os.path.exists(os.path.join(plain.proj, "swapped")), repr(r) + LAST["log"])
    settings(plain)

    whole = "".join(f"{i}\n" for i in range(1, 100001))
    r0, _ = droid(plain, [execute("seq 100000")])
    # capout's MCP server removes its saved outputs when it ends: the
    # model pages the file in the same session.
    page = ("Read", lambda last: {"file_path": re.search(r"full output: (\S+)\)", last).group(1),
                                  "offset": 99999, "limit": 2})
    r1, _ = droid(wrapped, mcp_bash("seq 100000") + [page])
    print(f"     seq 100000 without capout (Execute): {H.describe(r0[0]) if r0 else None}")
    print(f"     seq 100000 with capout (capout___bash): {H.describe(r1[1]) if len(r1) > 1 else None}")
    print(f"     Droid's own result: {r0[0] if r0 else None!r}")
    m0 = re.fullmatch(r"(?s)(1\n.*)\n\[\.\.\. (\d+) lines skipped \.\.\.\]\n(.*)\n\nFull command output saved to: (\S+) "
                      r"\(575KB\)\n\n\[Process exited with code 0\]", r0[0] if r0 else "")
    check("droid: without capout, seq 100000 gives Droid's own head, tail and file",
          bool(m0) and whole.startswith(m0.group(1)) and whole.endswith(m0.group(3) + "\n")
          and open(m0.group(4)).read() == whole, repr((r0[0] if r0 else "")[-400:]))
    m = re.fullmatch(r"(?s)(.*)\n\.\.\. \(truncated, showing last 5000 chars; full output: (\S+)\)\n",
                     r1[1] if len(r1) > 1 else "")
    check("droid + capout: capout's bash tool gives its tail and notice",
          bool(m) and m.group(1) + "\n" == whole[-5000:], repr((r1[1] if len(r1) > 1 else "")[-300:]))
    check("droid + capout: Droid's Read tool pages the saved output while the server runs",
          len(r1) == 3 and r1[2].startswith("99999\n100000\n"), repr(r1[2:]))

    calls = [execute("cd sub && export CAPOUT_T=1"), execute("pwd; echo ${CAPOUT_T-unset}")]
    a, _ = droid(plain, calls)
    b, _ = droid(wrapped, calls)
    check("droid: its own shell calls are as without capout (neither cd nor export persists)",
          [x.replace(os.path.realpath(plain.proj), "P") for x in a] == [x.replace(os.path.realpath(wrapped.proj), "P") for x in b]
          and len(a) == 2 and a[1].startswith(os.path.realpath(plain.proj) + "\nunset\n"), f"{a!r} {b!r}")

    p = init(wrapped, "--mcp", "--uninstall")
    check("droid: init --mcp --uninstall gives mcp.json back byte for byte",
          p.returncode == 0 and open(config).read() == before, p.stdout + p.stderr)
    for h in (plain, wrapped):
        shutil.rmtree(h.dir, ignore_errors=True)
