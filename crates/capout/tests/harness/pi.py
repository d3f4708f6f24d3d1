"""Pi's cases: `pi -p` against the scripted model (a provider of its own
in models.json, OpenAI chat completions), with capout set up by `capout
init pi` (its bash tool's shellPath is capout's link), each case compared
with the same Pi without capout.

Pi has no permission rules of its own: its extensions' `tool_call`
handlers are its rules. The user's extension here blocks `rm` and asks
about `touch` (a question that print mode, with no one to answer it,
refuses), as a permission-gate extension does.
"""

import json
import os
import re
import shutil
import subprocess
import time

H = None  # the harness module (harness.py), given to cases()
LAST = {"log": ""}

GATE = """import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

// The user's own rules: rm is denied, touch is asked about.
export default function (pi: ExtensionAPI) {
  pi.on("tool_call", async (event, ctx) => {
    if (event.toolName !== "bash") return;
    const command = String(event.input.command ?? "");
    if (/(^|[;&|\\s])rm\\s/.test(command)) return { block: true, reason: "rm is denied by the user's rules" };
    if (/(^|[;&|\\s])touch\\s/.test(command)) {
      const ok = ctx.hasUI && (await ctx.ui.confirm("Run?", command));
      if (!ok) return { block: true, reason: "touch needs the user's approval" };
    }
  });
}
"""

SETTINGS = '{\n  "defaultThinkingLevel": "off",\n  "quietStartup": true\n}\n'


def pi_path(tools):
    return os.path.join(tools, "node_modules", ".bin", "pi")


def env(home):
    return {**H.on_path(home.env()), "PI_OFFLINE": "1", "PI_SKIP_VERSION_CHECK": "1", "PI_TELEMETRY": "0"}


def setup(home):
    agent = os.path.join(home.dir, ".pi", "agent")
    os.makedirs(os.path.join(agent, "extensions"))
    with open(os.path.join(agent, "models.json"), "w") as f:
        json.dump({"providers": {"local": {
            "baseUrl": H.URL + "/v1", "api": "openai-completions", "apiKey": "sk-test",
            "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
            "models": [{"id": "m"}]}}}, f)
    with open(os.path.join(agent, "settings.json"), "w") as f:
        f.write(SETTINGS)
    with open(os.path.join(agent, "extensions", "gate.ts"), "w") as f:
        f.write(GATE)
    return agent


def pi(home, calls):
    """Runs `pi -p` on `calls`; what the model got back for each."""
    H.SCRIPT.reset(calls)
    p = subprocess.run([pi_path(H.TOOLS), "-p", "go", "--provider", "local", "--model", "m", "--mode", "json"],
                       cwd=home.proj, env=env(home), stdin=subprocess.DEVNULL, capture_output=True, text=True,
                       timeout=300)
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
        print(f"     pi exited {p.returncode}: {LAST['log']}")
    return results


def bash(command, **more):
    return ("bash", {"command": command, **more})


def init(home, *args):
    return subprocess.run([H.CAPOUT, "init", "pi", *args], cwd=home.proj, env=env(home), capture_output=True,
                          text=True, timeout=60)


def cases(harness):
    global H
    H = harness
    check = H.check
    print("# Pi")
    if not os.access(pi_path(H.TOOLS), os.X_OK):
        check("pi is installed", False, pi_path(H.TOOLS))
        return
    plain, wrapped = H.Home(), H.Home()
    setup(plain)
    agent = setup(wrapped)
    settings = os.path.join(agent, "settings.json")
    p = init(wrapped)
    check("pi: init succeeds", p.returncode == 0 and os.path.islink(os.path.join(agent, "capout-pi", "bash")),
          p.stdout + p.stderr)
    again = init(wrapped)
    check("pi: init is idempotent", again.returncode == 0 and again.stdout.count("unchanged") == 2,
          again.stdout + again.stderr)
    dry = init(wrapped, "--uninstall", "--dry-run")
    check("pi: init --uninstall --dry-run prints a diff and writes nothing",
          re.search(r'(?m)^-\s+"shellPath": ".*/capout-pi/bash"', dry.stdout) is not None
          and os.path.islink(os.path.join(agent, "capout-pi", "bash")), dry.stdout + dry.stderr)
    for flag in ("--mcp", "--project"):
        p = init(wrapped, flag)
        check(f"pi: init {flag} is refused, saying why", p.returncode == 1 and p.stderr.startswith("capout: init: ")
              and ("no MCP client" if flag == "--mcp" else "program of this machine") in p.stderr, p.stdout + p.stderr)

    whole = "".join(f"{i}\n" for i in range(1, 100001))
    r0, r1 = pi(plain, [bash("seq 100000")]), pi(wrapped, [bash("seq 100000")])
    print(f"     seq 100000 without capout: {H.describe(r0[0]) if r0 else None}")
    print(f"     seq 100000 with capout:    {H.describe(r1[0]) if r1 else None}")
    # Pi keeps the last 2000 lines (or 50 KB), and counts the empty line
    # after the last newline as one more.
    m0 = re.fullmatch(r"(?s)(.*)\n\n\[Showing lines 98002-100001 of 100001\. Full output: (\S+)\]",
                      r0[0] if r0 else "")
    check("pi: without capout, seq 100000 gives Pi's own last 2000 lines and its file",
          bool(m0) and m0.group(1) == whole[-len(m0.group(1)):] and m0.group(1).count("\n") == 1999
          and open(m0.group(2)).read() == whole, repr((r0[0] if r0 else "")[-200:]))
    m = re.fullmatch(r"(?s)(.*)\n\.\.\. \(truncated, showing last 5000 chars; full output: (\S+)\)\n?", r1[0] if r1 else "")
    check("pi: seq 100000 gives capout's tail and notice",
          bool(m) and m.group(1) + "\n" == whole[-5000:] and open(m.group(2)).read() == whole,
          repr((r1[0] if r1 else "")[-300:]))
    if m:
        check("pi: the saved output's folder is private", os.stat(os.path.dirname(m.group(2))).st_mode & 0o777 == 0o700,
              m.group(2))
        r = pi(wrapped, [("read", {"path": m.group(2), "offset": 99999, "limit": 2})])
        check("pi: the model's read tool pages the saved output", bool(r) and r[0].startswith("99999\n100000"), repr(r))

    calls = [bash("cd sub && export CAPOUT_T=1"), bash("pwd; echo ${CAPOUT_T-unset}")]
    a, b = pi(plain, calls), pi(wrapped, calls)
    # The first call prints nothing: Pi says so in its words, capout in
    # its standard notice.
    check("pi: neither cd nor export persists, as without capout",
          a == ["(no output)", f"{os.path.realpath(plain.proj)}\nunset\n"]
          and b == ["(no output)\n", f"{os.path.realpath(wrapped.proj)}\nunset\n"], f"{a!r} {b!r}")

    a, b = pi(plain, [bash("echo out; exit 3")]), pi(wrapped, [bash("echo out; exit 3")])
    check("pi: exit status 3 as without capout", a == b == ["out\n\n\nCommand exited with code 3"], f"{a!r} {b!r}")

    heredoc = "cat <<'EOF' | tr a-z A-Z\nit's \"quoted\" $HOME\nEOF\necho \"a'b\" 'c\"d' | cat; (echo sub) || true; echo $0"
    a, b = pi(plain, [bash(heredoc)]), pi(wrapped, [bash(heredoc)])
    check("pi: a heredoc with quotes, a pipe, a subshell and $0 as without capout",
          a == b and a and a[0] == "IT'S \"QUOTED\" $HOME\na'b c\"d\nsub\n/bin/bash\n", f"{a!r} {b!r}")

    inner = f"{H.CAPOUT} --tail-chars 6000 -- seq 100000"
    alone = subprocess.run([H.CAPOUT, "--tail-chars", "6000", "--", "seq", "100000"], capture_output=True, text=True).stdout
    b = pi(wrapped, [bash(inner)])
    check("pi: a command already under capout is not wrapped again", b == [alone], repr(b)[-300:])

    # Permissions: the user's extension sees the model's own command.
    for h in (plain, wrapped):
        tag = "" if h is plain else " + capout"
        open(os.path.join(h.proj, "victim"), "w").close()
        r = pi(h, [bash("rm -f victim")])
        check(f"pi{tag}: the user's extension that denies rm still stops rm -f victim",
              os.path.exists(os.path.join(h.proj, "victim")) and r == ["rm is denied by the user's rules"], f"{r!r}")
        r = pi(h, [bash("touch made-without-asking")])
        check(f"pi{tag}: the user's extension that asks about touch still asks (print mode refuses)",
              not os.path.exists(os.path.join(h.proj, "made-without-asking")) and r == ["touch needs the user's approval"],
              f"{r!r}")
        r = pi(h, [bash("git status")])
        check(f"pi{tag}: a command no rule is about runs", len(r) == 1 and "not a git repository" in r[0], f"{r!r}")

    # Pi's timeout: SIGKILL to the command's process group, capout in it.
    seen = {}
    for n, h in enumerate((plain, wrapped)):
        mark = f"sleep 6{n}.{os.getpid()}"
        with open(os.path.join(h.proj, "slow.sh"), "w") as f:
            f.write(f"echo start\n{mark}1 &\n{mark}2\necho late\n")
        r = pi(h, [bash("sh slow.sh", timeout=2)])
        seen[h is wrapped] = r
        left = ""
        for _ in range(100):
            left = subprocess.run(["pgrep", "-f", mark], capture_output=True, text=True).stdout.strip()
            if not left:
                break
            time.sleep(0.1)
        check(f"pi{'' if h is plain else ' + capout'}: its timeout ends the command and all it started",
              len(r) == 1 and r[0].endswith("Command timed out after 2 seconds") and "late" not in r[0] and not left,
              f"{left!r} {r!r}")
    print(f"     timeout without capout: {seen.get(False)!r}")
    print(f"     timeout with capout:    {seen.get(True)!r}")

    for n, h in enumerate((plain, wrapped)):
        marker = os.path.join(h.proj, "interrupt-marker")
        H.SCRIPT.reset([bash(H.waits(h.proj, marker, f"8.9{n}"))])
        came, ended, left, log = H.interrupted(
            [pi_path(H.TOOLS), "-p", "go", "--provider", "local", "--model", "m", "--mode", "json"], h.proj, env(h),
            marker, f"sleep 8.9{n}")
        seen[n] = (came, ended, left)
        check(f"pi{'' if h is plain else ' + capout'}: an interrupt ends pi, with capout between it and the shell",
              bool(came) and (came == "capout") == (h is wrapped) and ended, f"{came!r} {ended} {left!r} {log[-600:]}")
    check("pi + capout: after an interrupt what still runs is what runs without capout",
          bool(seen[0][2]) == bool(seen[1][2]), f"without: {seen[0][2]!r}; with: {seen[1][2]!r}")
    print(f"     after an interrupt, still running without capout: {seen[0][2]!r}; with: {seen[1][2]!r}")

    p = init(wrapped, "--uninstall")
    check("pi: init --uninstall gives settings.json back byte for byte and removes the link",
          p.returncode == 0 and open(settings).read() == SETTINGS and not os.path.exists(os.path.join(agent, "capout-pi")),
          p.stdout + p.stderr)
    for h in (plain, wrapped):
        shutil.rmtree(h.dir, ignore_errors=True)
