"""Gemini CLI's cases: the real harness against the scripted model, with
capout set up by `capout init gemini` in a throwaway home, each compared
with the same harness without capout."""

import json
import os
import re
import shlex
import shutil
import subprocess
import time

# Set by main from harness.py: CAPOUT, SCRIPT, TOOLS, URL, Home, check,
# describe, and the module itself (HARNESS).
CAPOUT = SCRIPT = TOOLS = URL = Home = check = describe = GEMINI = HARNESS = None
SETTINGS = ('{\n  // the user\'s own\n  "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},\n'
            '  "privacy": {"usageStatisticsEnabled": false},\n  "telemetry": {"enabled": false},\n'
            '  "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},\n'
            '  "tools": {"shell": {"inactivityTimeout": 2}}\n}\n')
# Gemini CLI reads comments in settings.json, and capout keeps them. Its
# keys are the current ones: Gemini CLI rewrites a file with older ones at
# its start.
RULES = ('[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "rm"\ndecision = "deny"\npriority = 500\n\n'
         '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = ["git status", "printf ok"]\ndecision = "allow"\npriority = 500\n')


def env(home):
    e = HARNESS.on_path(home.env())
    e.update({"GEMINI_API_KEY": "sk-test", "GOOGLE_GEMINI_BASE_URL": URL, "GEMINI_TELEMETRY_ENABLED": "false",
              "GEMINI_CLI_NO_RELAUNCH": "true"})
    return e


def gemini(home, calls, extra=("--yolo",)):
    """Runs Gemini CLI headless on `calls`; the tool results it sent back."""
    SCRIPT.reset(calls)
    p = subprocess.run([GEMINI, "-p", "go", "-o", "json", *extra], cwd=home.proj, env=env(home),
                       capture_output=True, text=True, timeout=300)
    with SCRIPT.lock:
        bodies = [r["body"] for r in SCRIPT.requests if "functionDeclarations" in json.dumps(r["body"].get("tools", []))]
    last = bodies[-1] if bodies else {}
    results = []
    for c in last.get("contents", []):
        for part in c.get("parts", []):
            if "functionResponse" in part:
                r = part["functionResponse"]["response"]
                results.append(r.get("output", r.get("error", json.dumps(r))))
    if len(results) != len(calls):
        print(f"     gemini exited {p.returncode}: {p.stdout[-600:]} {p.stderr[-600:]}")
    # The process group differs from run to run.
    return [re.sub(r"\nProcess Group PGID: \d+", "", r) for r in results]


def shell(command, **more):
    return ("run_shell_command", {"command": command, **more})


NOTE = "\n\n[System] Tool input parameters were modified by a hook before execution."


def body(result):
    """What the command printed, from Gemini CLI's `Output: ...` text."""
    m = re.fullmatch(r"(?s)<untrusted_context>\nOutput: (.*?)\n*</untrusted_context>", result.replace(NOTE, ""))
    return m.group(1) if m else result


def cases():
    print("# Gemini CLI")
    plain, wrapped = Home(), Home()
    for h in (plain, wrapped):
        os.makedirs(os.path.join(h.dir, ".gemini", "policies"))
        with open(os.path.join(h.dir, ".gemini", "settings.json"), "w") as f:
            f.write(SETTINGS)
        with open(os.path.join(h.dir, ".gemini", "policies", "user.toml"), "w") as f:
            f.write(RULES)
    settings = os.path.join(wrapped.dir, ".gemini", "settings.json")
    before = open(settings).read()
    p = subprocess.run([CAPOUT, "init", "gemini", "--mcp"], cwd=wrapped.proj, env=env(wrapped), capture_output=True, text=True)
    check("gemini: init --mcp succeeds", p.returncode == 0, p.stdout + p.stderr)
    again = subprocess.run([CAPOUT, "init", "gemini", "--mcp"], cwd=wrapped.proj, env=env(wrapped), capture_output=True, text=True)
    check("gemini: init is idempotent", again.returncode == 0 and again.stdout.count("unchanged") == 3, again.stdout + again.stderr)
    dry = subprocess.run([CAPOUT, "init", "gemini", "--mcp", "--uninstall", "--dry-run"], cwd=wrapped.proj, env=env(wrapped),
                         capture_output=True, text=True)
    check("gemini: init --uninstall --dry-run prints a diff", re.search(r"(?m)^-.*capout-gemini/bash hook gemini", dry.stdout) is not None and "-[[rule]]" in dry.stdout, dry.stdout)

    full = "".join(f"{i}\n" for i in range(1, 100001))
    r0, r1 = gemini(plain, [shell("seq 100000")]), gemini(wrapped, [shell("seq 100000")])
    print(f"     seq 100000 without capout: {describe(r0[0]) if r0 else None}")
    print(f"     seq 100000 with capout:    {describe(r1[0]) if r1 else None}")
    print(f"     ... of which the output:   without {describe(body(r0[0])) if r0 else None}; with {describe(body(r1[0])) if r1 else None}")
    m = re.fullmatch(r"(?s)(.*)\n\.\.\. \(truncated, showing last 5000 chars; full output: (\S+)\)", body(r1[0]) if r1 else "")
    check("gemini: seq 100000 gives capout's tail and notice",
          bool(m) and m.group(1) + "\n" == full[-5000:].lstrip("\n"),
          repr((r1[0] if r1 else "")[-300:]))
    if m:
        check("gemini: the full output is saved in a private folder",
              open(m.group(2)).read() == full and os.stat(os.path.dirname(m.group(2))).st_mode & 0o777 == 0o700, m.group(2))
    check("gemini: the model is told that the command was rewritten", bool(r1) and r1[0].endswith(NOTE), repr((r1[0] if r1 else "")[-200:]))

    calls = [shell("cd sub && export CAPOUT_T=1"), shell("pwd; echo ${CAPOUT_T-unset}")]
    os.makedirs(os.path.join(plain.proj, "sub"), exist_ok=True)
    a, b = gemini(plain, calls), gemini(wrapped, calls)
    exp = lambda h: f"{os.path.realpath(h.proj)}\nunset"
    # The first call prints nothing: Gemini CLI says so in its words,
    # capout in its standard notice.
    check("gemini: neither cd nor export persists, as without capout",
          len(a) == len(b) == 2 and body(a[0]) == "(empty)" and body(b[0]) == "(no output)"
          and body(a[1]) == exp(plain) and body(b[1]) == exp(wrapped), f"{a!r} {b!r}")

    a, b = gemini(plain, [shell("echo out; exit 3")]), gemini(wrapped, [shell("echo out; exit 3")])
    check("gemini: exit status 3 as without capout",
          len(a) == len(b) == 1 and a[0] == b[0].replace(NOTE, "") and a[0].endswith("Exit Code: 3\n</untrusted_context>"), f"{a!r} {b!r}")

    heredoc = "cat <<'EOF' | tr a-z A-Z\nit's \"quoted\" $HOME\nEOF\necho \"a'b\" 'c\"d' | cat; (echo sub) || true"
    a, b = gemini(plain, [shell(heredoc)]), gemini(wrapped, [shell(heredoc)])
    check("gemini: a heredoc with quotes, a pipe and a subshell as without capout",
          len(a) == len(b) == 1 and body(a[0]) == body(b[0]) == "IT'S \"QUOTED\" $HOME\na'b c\"d\nsub" and b[0].endswith(NOTE), f"{a!r} {b!r}")

    inner = f"{CAPOUT} --tail-chars 6000 -- seq 100000"
    alone = subprocess.run([CAPOUT, "--tail-chars", "6000", "--", "seq", "100000"], capture_output=True, text=True).stdout
    b = gemini(wrapped, [shell(inner)])
    check("gemini: a command already under capout is not wrapped again",
          len(b) == 1 and body(b[0]) == alone.rstrip("\n") and not b[0].endswith(NOTE), f"{b!r}")

    # Permissions: the user's policy rules, no --yolo.
    for h in (plain, wrapped):
        open(os.path.join(h.proj, "victim"), "w").close()
    for h in (plain, wrapped):
        tag = "" if h is plain else " + capout"
        r = gemini(h, [shell("rm -f victim")], ())
        check(f"gemini{tag}: a deny rule for rm still stops rm -f victim",
              os.path.exists(os.path.join(h.proj, "victim")) and len(r) == 1 and "denied by policy" in r[0].lower(), f"{r!r}")
        r = gemini(h, [shell("git status")], ())
        check(f"gemini{tag}: an allow rule for git status runs it without a question",
              len(r) == 1 and "not a git repository" in r[0], f"{r!r}")
        r = gemini(h, [shell("printf ok")], ())
        check(f"gemini{tag}: an allow rule for printf ok runs it without a question",
              len(r) == 1 and body(r[0]) == "ok" and r[0].endswith(NOTE) == (h is wrapped), f"{r!r}")
        r = gemini(h, [shell("touch made-without-asking")], ())
        # Headless, Gemini CLI refuses what it would ask about.
        check(f"gemini{tag}: with no rule it still refuses, as it would ask",
              not os.path.exists(os.path.join(h.proj, "made-without-asking")) and r == ["Tool execution denied by policy."], f"{r!r}")

    # Gemini CLI's inactivity timeout (2 s here) ends the command and
    # everything it started.
    for n, h in enumerate((plain, wrapped)):
        # Durations of this case alone: pgrep sees every process of the machine.
        mark = f"sleep 3{n}.{os.getpid()}"
        with open(os.path.join(h.proj, "slow.sh"), "w") as f:
            f.write(f"{mark}1 &\n{mark}2\necho late\n")
        r = gemini(h, [shell("sh slow.sh")])
        left = ""
        for _ in range(300):
            left = subprocess.run(["pgrep", "-f", mark], capture_output=True, text=True).stdout.strip()
            if not left:
                break
            time.sleep(0.1)
        check(f"gemini{'' if h is plain else ' + capout'}: its timeout ends sleep, and nothing outlives it",
              len(r) == 1 and "exceeded the timeout" in r[0] and not left, f"{left!r} {r!r}")

    # Ctrl-C while the command runs ends it and all it started.
    for n, h in enumerate((plain, wrapped)):
        marker = os.path.join(h.proj, "interrupt-marker")
        SCRIPT.reset([shell(HARNESS.waits(h.proj, marker, f"8.5{n}"))])
        came, ended, left, log = HARNESS.interrupted([GEMINI, "-p", "go", "-o", "json", "--yolo"], h.proj, env(h),
                                                     marker, f"sleep 8.5{n}")
        check(f"gemini{'' if h is plain else ' + capout'}: an interrupt stops the command and all it started",
              bool(came) and (came == "capout") == (h is wrapped) and ended and not left,
              f"{came!r} {ended} {left!r} {log[-600:]}")

    b = gemini(wrapped, [("mcp_capout_bash", {"command": "echo mcp-ok"})])
    check("gemini: init --mcp gives the model capout's MCP bash tool", len(b) == 1 and "mcp-ok" in b[0], f"{b!r}")

    hostile_home()
    heuristics_cases()

    p = subprocess.run([CAPOUT, "init", "gemini", "--mcp", "--uninstall"], cwd=wrapped.proj, env=env(wrapped), capture_output=True, text=True)
    check("gemini: init --uninstall gives settings.json back byte for byte and removes the rest",
          p.returncode == 0 and open(settings).read() == before
          and sorted(os.listdir(os.path.join(wrapped.dir, ".gemini", "policies"))) == ["user.toml"]
          and not os.path.exists(os.path.join(wrapped.dir, ".gemini", "capout-gemini")),
          p.stdout + p.stderr)
    for h in (plain, wrapped):
        shutil.rmtree(h.dir, ignore_errors=True)
    project_cases()


def project_cases():
    """`capout init gemini --project` with capout on PATH: the project's
    settings name `capout` alone, the link and the policy are the user's,
    and Gemini CLI runs the project's shell calls through capout."""
    team = Home()
    os.makedirs(os.path.join(team.dir, ".gemini"))
    user = os.path.join(team.dir, ".gemini", "settings.json")
    with open(user, "w") as f:
        f.write(SETTINGS)
    p = subprocess.run([CAPOUT, "init", "gemini", "--project", "--mcp"], cwd=team.proj, env=env(team), capture_output=True, text=True)
    check("gemini: init --project --mcp succeeds and names no path of this machine in the project",
          p.returncode == 0 and not HARNESS.machine_paths(team.proj, team) and open(user).read() == SETTINGS,
          p.stdout + p.stderr + repr(HARNESS.machine_paths(team.proj, team)))
    r = gemini(team, [shell("seq 100000")])
    check("gemini --project: seq 100000 gives capout's tail and notice",
          bool(r) and "... (truncated, showing last 5000 chars; full output: " in body(r[0]), repr((r[0] if r else "")[-300:]))
    b = gemini(team, [("mcp_capout_bash", {"command": "echo mcp-ok"})])
    check("gemini --project: the project's settings start capout's server from PATH", len(b) == 1 and "mcp-ok" in b[0], f"{b!r}")
    p = subprocess.run([CAPOUT, "init", "gemini", "--project", "--mcp", "--uninstall"], cwd=team.proj, env=env(team),
                       capture_output=True, text=True)
    check("gemini: init --project --uninstall takes out the project's hook, the link and the policy",
          p.returncode == 0 and not os.path.exists(os.path.join(team.proj, ".gemini", "settings.json"))
          and not os.path.exists(os.path.join(team.dir, ".gemini", "capout-gemini"))
          and not os.path.exists(os.path.join(team.dir, ".gemini", "policies", "capout.toml")),
          p.stdout + p.stderr)
    shutil.rmtree(team.dir, ignore_errors=True)


def hostile_home():
    """A GEMINI_CLI_HOME whose path would run `uname` if a rewrite held it
    as it is, set up as `capout init gemini` once did for such a home: the
    hook leaves the call alone, and `uname` (one that leaves a mark) never
    runs."""
    h = Home()
    gemini_home = os.path.join(h.dir, "g;uname;")
    dot = os.path.join(gemini_home, ".gemini")
    link = os.path.join(dot, "capout-gemini", "bash")
    os.makedirs(os.path.dirname(link))
    os.makedirs(os.path.join(dot, "policies"))
    os.symlink(CAPOUT, link)
    # SETTINGS holds a comment, which Gemini CLI reads and json does not.
    settings = json.loads(re.sub(r"(?m)^\s*//.*\n", "", SETTINGS))
    settings["hooks"] = {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [
        {"name": "capout", "type": "command", "command": f"{shlex.quote(CAPOUT)} hook gemini", "timeout": 10000}]}]}
    with open(os.path.join(dot, "settings.json"), "w") as f:
        json.dump(settings, f)
    with open(os.path.join(dot, "policies", "capout.toml"), "w") as f:
        f.write('[[rule]]\ntoolName = "run_shell_command"\n'
                f'commandPrefix = ["bash -c {link} -c", "{link} -c"]\ndecision = "allow"\npriority = 999\n')
    bin_dir = os.path.join(h.dir, "bin")
    mark = os.path.join(h.dir, "uname-ran")
    os.makedirs(bin_dir)
    with open(os.path.join(bin_dir, "uname"), "w") as f:
        f.write(f"#!/bin/sh\ntouch '{mark}'\necho Linux\n")
    os.chmod(os.path.join(bin_dir, "uname"), 0o755)
    old_env = h.env
    h.env = lambda: {**old_env(), "GEMINI_CLI_HOME": gemini_home, "PATH": bin_dir + ":" + os.environ["PATH"]}
    r = gemini(h, [shell("echo hello")])
    print(f"     echo hello with GEMINI_CLI_HOME=.../g;uname;: {r!r}")
    check("gemini: a GEMINI_CLI_HOME of .../g;uname; never runs uname, and the call runs as without capout",
          not os.path.exists(mark) and len(r) == 1 and body(r[0]) == "hello" and not r[0].endswith(NOTE), f"{r!r}")
    shutil.rmtree(h.dir, ignore_errors=True)


def heuristics_cases():
    """Under a rule that allows every shell command, Gemini CLI still asks
    about `rm -f` by heuristics of the command as written, which read
    `r${x}m` as `rm` (x unset, as bash does): it asks with capout too."""
    allow_all = '[[rule]]\ntoolName = "run_shell_command"\ndecision = "allow"\npriority = 100\n'
    for wrapped in (False, True):
        h = Home()
        os.makedirs(os.path.join(h.dir, ".gemini", "policies"))
        with open(os.path.join(h.dir, ".gemini", "settings.json"), "w") as f:
            f.write(SETTINGS)
        with open(os.path.join(h.dir, ".gemini", "policies", "user.toml"), "w") as f:
            f.write(allow_all)
        if wrapped:
            subprocess.run([CAPOUT, "init", "gemini"], cwd=h.proj, env=env(h), capture_output=True, check=True)
        open(os.path.join(h.proj, "victim"), "w").close()
        r = gemini(h, [shell("r${x}m -f victim")], ())
        check(f"gemini{' + capout' if wrapped else ''}: r${{x}}m -f victim is asked about under a rule that allows all",
              os.path.exists(os.path.join(h.proj, "victim")) and len(r) == 1 and "requires user confirmation" in r[0],
              f"{r!r}")
        shutil.rmtree(h.dir, ignore_errors=True)


def setup(harness):
    """Takes what the cases use from harness.py; whether Gemini CLI is
    installed."""
    global CAPOUT, SCRIPT, TOOLS, URL, Home, check, describe, GEMINI, HARNESS
    HARNESS = harness
    CAPOUT, SCRIPT, TOOLS, URL = harness.CAPOUT, harness.SCRIPT, harness.TOOLS, harness.URL
    Home, check, describe = harness.Home, harness.check, harness.describe
    GEMINI = os.path.join(TOOLS, "node_modules", ".bin", "gemini")
    return os.access(GEMINI, os.X_OK)


def main(harness):
    if not setup(harness):
        check("gemini is installed", False, GEMINI)
    else:
        cases()
