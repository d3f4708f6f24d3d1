"""qwen-code's cases: `qwen -p` with the scripted model as its OpenAI
provider (OPENAI_BASE_URL), each compared with the same qwen-code without
capout.

qwen-code 0.24.4 runs a PreToolUse hook and drops the updatedInput it
prints: a case proves it with a hook of the test's own, and `capout init
qwen-code` says so and offers --mcp, whose tools the model calls in the
other cases (after qwen-code's tool_search, by its tool_call).
"""

import json
import os
import re
import shutil
import subprocess

H = None  # the harness module (harness.py), given to cases()
LAST = {"log": ""}

# A hook that marks that it ran and gives another command.
SWAP = """import json, os, sys
event = json.load(sys.stdin)
args = event.get("tool_input") or {}
open(os.path.join(os.environ["HOME"], "hook-ran"), "a").write(event.get("tool_name", "") + "\\n")
if args.get("command") == "echo asis":
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                             "updatedInput": {**args, "command": "echo swapped"}}}))
"""

# With the "$version" that qwen-code writes into a settings file without one.
BASE = {"security": {"auth": {"selectedType": "openai"}}, "privacy": {"usageStatisticsEnabled": False}, "$version": 4}


def qwen_path(tools):
    return os.path.join(tools, "node_modules", ".bin", "qwen")


def env(home):
    return {**H.on_path(home.env()), "OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": H.URL + "/v1",
            "OPENAI_MODEL": "m", "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1"}


def settings(home, text):
    path = os.path.join(home.dir, ".qwen", "settings.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    return path


def qwen(home, calls):
    """Runs `qwen -p` on `calls`; what the model got back for each."""
    H.SCRIPT.reset(calls)
    p = subprocess.run([qwen_path(H.TOOLS), "-p", "go", "--approval-mode", "yolo"], cwd=home.proj, env=env(home),
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
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
    if len(results) != len(calls):
        print(f"     qwen exited {p.returncode}: {LAST['log']}")
    return results


def shell(command):
    return ("run_shell_command", {"command": command})


def mcp_bash(command):
    return [("tool_search", {"query": "select:mcp__capout__bash"}),
            ("tool_call", {"name": "mcp__capout__bash", "arguments": {"command": command}})]


def init(home, *args):
    return subprocess.run([H.CAPOUT, "init", "qwen-code", *args], cwd=home.proj, env=env(home),
                          capture_output=True, text=True, timeout=60)


def cases(harness):
    global H
    H = harness
    check = H.check
    print("# qwen-code")
    if not os.access(qwen_path(H.TOOLS), os.X_OK):
        check("qwen is installed", False, qwen_path(H.TOOLS))
        return
    plain, wrapped = H.Home(), H.Home()
    before = json.dumps(BASE, indent=2) + "\n"
    settings(plain, before)
    config = settings(wrapped, before)

    p = init(wrapped)
    check("qwen-code: init without --mcp says why in one line, offers --mcp and writes nothing",
          p.returncode == 1 and p.stderr.count("\n") == 1 and "updatedInput it prints is ignored" in p.stderr
          and "`capout init qwen-code --mcp`" in p.stderr and open(config).read() == before, p.stdout + p.stderr)
    p = init(wrapped, "--mcp")
    check("qwen-code: init --mcp succeeds", p.returncode == 0 and '"capout"' in open(config).read(),
          p.stdout + p.stderr)
    again = init(wrapped, "--mcp")
    check("qwen-code: init --mcp is idempotent", again.returncode == 0 and "unchanged" in again.stdout,
          again.stdout + again.stderr)

    # Why capout does not rewrite: the hook runs, its command is dropped.
    with open(os.path.join(plain.dir, "swap.py"), "w") as f:
        f.write(SWAP)
    hooks = {"PreToolUse": [{"matcher": "run_shell_command", "hooks": [
        {"type": "command", "command": f"python3 {os.path.join(plain.dir, 'swap.py')}"}]}]}
    settings(plain, json.dumps({**BASE, "hooks": hooks}, indent=2) + "\n")
    r = qwen(plain, [shell("echo asis")])
    ran = os.path.exists(os.path.join(plain.dir, "hook-ran"))
    check("qwen-code: a PreToolUse hook runs, and the command its updatedInput gives is not run",
          ran and len(r) == 1 and "\nOutput: asis\n" in r[0] and "swapped" not in r[0], f"ran={ran} {r!r}")
    settings(plain, before)

    whole = "".join(f"{i}\n" for i in range(1, 100001))
    r0 = qwen(plain, [shell("seq 100000")])
    # capout's MCP server removes its saved outputs when it ends: the
    # model pages the file in the same session.
    page = ("read_file", lambda last: {"file_path": re.search(r"full output: (\S+)\)", last).group(1),
                                       "offset": 99998, "limit": 2})
    r1 = qwen(wrapped, mcp_bash("seq 100000") + [page])
    print(f"     seq 100000 without capout (run_shell_command): {H.describe(r0[0]) if r0 else None}")
    print(f"     seq 100000 with capout (mcp__capout__bash): {H.describe(r1[1]) if len(r1) > 1 else None}")
    print(f"     qwen-code's own result: {r0[0] if r0 else None!r}")
    m0 = re.match(r"Tool output was too large and has been truncated\.\nThe full output has been saved to: (\S+)\n",
                  r0[0] if r0 else "")
    check("qwen-code: without capout, seq 100000 gives qwen-code's own notice, head and tail, and its file",
          bool(m0) and m0.group(1).startswith(os.path.join(plain.dir, ".qwen", "tmp") + "/")
          and "\nOutput: 1\n2\n3\n" in r0[0] and r0[0].count("\n") < 2000
          and "\n99999\n100000\nError: (none)\nExit Code: 0\n" in r0[0], repr((r0[0] if r0 else "")[:400]))
    m = re.fullmatch(r"(?s)(.*)\n\.\.\. \(truncated, showing last 5000 chars; full output: (\S+)\)\n",
                     r1[1] if len(r1) > 1 else "")
    check("qwen-code + capout: capout's bash tool gives its tail and notice",
          bool(m) and m.group(1) + "\n" == whole[-5000:], repr((r1[1] if len(r1) > 1 else "")[-300:]))
    check("qwen-code + capout: qwen-code's read_file pages the saved output while the server runs",
          len(r1) == 3 and "99999\n100000" in r1[2] and "99998\n" not in r1[2], repr(r1[2:]))

    calls = [shell("cd sub && export CAPOUT_T=1"), shell("pwd; echo ${CAPOUT_T-unset}")]
    a, b = qwen(plain, calls), qwen(wrapped, calls)
    check("qwen-code: its own shell calls are as without capout",
          [x.replace(os.path.realpath(plain.proj), "P") for x in a] == [x.replace(os.path.realpath(wrapped.proj), "P") for x in b]
          and len(a) == 2, f"{a!r} {b!r}")
    print(f"     cd and export without capout: {a!r}")

    p = init(wrapped, "--mcp", "--uninstall")
    check("qwen-code: init --mcp --uninstall gives settings.json back byte for byte",
          p.returncode == 0 and open(config).read() == before, p.stdout + p.stderr)
    for h in (plain, wrapped):
        shutil.rmtree(h.dir, ignore_errors=True)
