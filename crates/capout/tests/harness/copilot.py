"""GitHub Copilot CLI's cases: `copilot -p` offline (COPILOT_OFFLINE) with
the scripted model as its own provider (COPILOT_PROVIDER_BASE_URL, OpenAI
chat completions), each compared with the same Copilot without capout.

Copilot checks its permission rules on the command that a preToolUse
hook's modifiedArgs gives, so a rewrite that runs a command under capout
would hide the command's words from them: a case proves it with a hook of
the test's own, and `capout init copilot` says so and offers --mcp, whose
tools the model calls in the other cases.
"""

import json
import os
import re
import shutil
import subprocess

H = None  # the harness module (harness.py), given to cases()
LAST = {"log": ""}

# A hook that gives another command in the place of two of the model's:
# what Copilot's rules then see.
SWAP = """import json, sys
event = json.load(sys.stdin)
args = event.get("toolArgs")
args = json.loads(args) if isinstance(args, str) else args
swap = {"rm -f victim": "echo not rm", "git status": "touch swapped; echo touched"}
if event.get("toolName") == "bash" and args.get("command") in swap:
    print(json.dumps({"modifiedArgs": {**args, "command": swap[args["command"]]}}))
"""


def copilot_path(tools):
    return os.path.join(tools, "node_modules", ".bin", "copilot")


def env(home):
    return {**H.on_path(home.env()), "COPILOT_OFFLINE": "true", "COPILOT_PROVIDER_BASE_URL": H.URL + "/v1",
            "COPILOT_PROVIDER_API_KEY": "sk-test", "COPILOT_MODEL": "m", "COPILOT_AUTO_UPDATE": "false"}


def copilot(home, calls, flags=("--allow-all-tools",)):
    """Runs `copilot -p` on `calls`; what the model got back for each."""
    H.SCRIPT.reset(calls)
    p = subprocess.run([copilot_path(H.TOOLS), "-p", "go", *flags], cwd=home.proj, env=env(home),
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
        print(f"     copilot exited {p.returncode}: {LAST['log']}")
    return results


def bash(command):
    return ("bash", {"command": command, "description": "run"})


def mcp_bash(command):
    return ("capout-bash", {"command": command})


def init(home, *args):
    return subprocess.run([H.CAPOUT, "init", "copilot", *args], cwd=home.proj, env=env(home),
                          capture_output=True, text=True, timeout=60)


def cases(harness):
    global H
    H = harness
    check = H.check
    print("# GitHub Copilot CLI")
    if not os.access(copilot_path(H.TOOLS), os.X_OK):
        check("copilot is installed", False, copilot_path(H.TOOLS))
        return
    plain, wrapped = H.Home(), H.Home()
    config = os.path.join(wrapped.dir, ".copilot", "mcp-config.json")
    before = '{\n  "mcpServers": {}\n}\n'
    os.makedirs(os.path.dirname(config))
    with open(config, "w") as f:
        f.write(before)

    p = init(wrapped)
    check("copilot: init without --mcp says why in one line, offers --mcp and writes nothing",
          p.returncode == 1 and p.stderr.count("\n") == 1 and "checks its permission rules" in p.stderr
          and "`capout init copilot --mcp`" in p.stderr and open(config).read() == before, p.stdout + p.stderr)
    p = init(wrapped, "--mcp")
    check("copilot: init --mcp succeeds", p.returncode == 0 and '"capout"' in open(config).read(), p.stdout + p.stderr)
    again = init(wrapped, "--mcp")
    check("copilot: init --mcp is idempotent", again.returncode == 0 and "unchanged" in again.stdout,
          again.stdout + again.stderr)

    # Why capout does not rewrite: the rules see the hook's command.
    for h in (plain, wrapped):
        open(os.path.join(h.proj, "victim"), "w").close()
    hooks = os.path.join(plain.dir, ".copilot", "hooks")
    os.makedirs(hooks)
    with open(os.path.join(plain.dir, "swap.py"), "w") as f:
        f.write(SWAP)
    with open(os.path.join(hooks, "swap.json"), "w") as f:
        json.dump({"version": 1, "hooks": {"preToolUse": [
            {"type": "command", "bash": f"python3 {os.path.join(plain.dir, 'swap.py')}"}]}}, f)
    r = copilot(plain, [bash("rm -f victim")], ("--allow-all-tools", "--deny-tool", "shell(rm)"))
    check("copilot: a rule that denies rm does not deny the command a preToolUse hook gives in its place",
          r == ["not rm\n<shellId: 0 completed with exit code 0>"], repr(r))
    r = copilot(plain, [bash("git status")], ("--allow-tool", "shell(git)"))
    check("copilot: a rule that allows git does not allow the command a hook gives in its place (it is asked about)",
          len(r) == 1 and r[0].startswith("Permission denied because no interactive user response was available")
          and not os.path.exists(os.path.join(plain.proj, "swapped")), repr(r))
    shutil.rmtree(hooks)

    whole = "".join(f"{i}\n" for i in range(1, 100001))
    r0 = copilot(plain, [bash("seq 100000")])
    # capout's MCP server removes its saved outputs when it ends: the
    # model pages the file in the same session.
    page = ("view", lambda last: {"path": re.search(r"full output: (\S+)\)", last).group(1),
                                  "view_range": [99999, 100000]})
    r1 = copilot(wrapped, [mcp_bash("seq 100000"), page])
    print(f"     seq 100000 without capout (its bash): {H.describe(r0[0]) if r0 else None}")
    print(f"     seq 100000 with capout (capout-bash): {H.describe(r1[0]) if r1 else None}")
    m0 = re.match(r"Output too large to read at once \(575\.1 KB\)\. Saved to: (\S+)\n", r0[0] if r0 else "")
    # Copilot's file is in its TMPDIR, and gone once `copilot -p` ends.
    check("copilot: without capout, seq 100000 gives Copilot's own notice, its file and the first lines",
          bool(m0) and m0.group(1).startswith(plain.tmp + "/") and "\n1\n2\n3\n" in r0[0] and len(r0[0]) < 1000,
          repr((r0[0] if r0 else "")[:400]))
    print(f"     Copilot's own result: {r0[0] if r0 else None!r}")
    m = re.fullmatch(r"(?s)(.*)\n\.\.\. \(truncated, showing last 5000 chars; full output: (\S+)\)\n", r1[0] if r1 else "")
    check("copilot + capout: capout's bash tool gives its tail and notice",
          bool(m) and m.group(1) + "\n" == whole[-5000:], repr((r1[0] if r1 else "")[-300:]))
    check("copilot + capout: Copilot's view tool pages the saved output while the server runs",
          len(r1) == 2 and "99999" in r1[1] and "100000" in r1[1] and "99998" not in r1[1], repr(r1[1:]))

    calls = [bash("cd sub && export CAPOUT_T=1"), bash("pwd; echo ${CAPOUT_T-unset}")]
    a, b = copilot(plain, calls), copilot(wrapped, calls)
    check("copilot: its own shell calls are as without capout (neither cd nor export persists)",
          [x.replace(os.path.realpath(plain.proj), "P") for x in a] == [x.replace(os.path.realpath(wrapped.proj), "P") for x in b]
          and len(a) == 2 and a[1].startswith(os.path.realpath(plain.proj) + "\nunset\n"), f"{a!r} {b!r}")

    p = init(wrapped, "--mcp", "--uninstall")
    check("copilot: init --mcp --uninstall gives mcp-config.json back byte for byte",
          p.returncode == 0 and open(config).read() == before, p.stdout + p.stderr)
    for h in (plain, wrapped):
        shutil.rmtree(h.dir, ignore_errors=True)
