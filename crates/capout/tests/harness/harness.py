"""Runs the real harnesses against the scripted model, with capout set up
by `capout init` in a throwaway home, and checks what each harness sends
back to the model as the tool's result. Prints `N passed, M failed`.

Usage: python3 harness.py CAPOUT HARNESS_DIR
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import model

CAPOUT, TOOLS = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
CLAUDE = os.path.join(TOOLS, "node_modules", ".bin", "claude")
RESULTS = {"passed": 0, "failed": 0}
SERVER, SCRIPT, URL = model.start()


def check(name, ok, detail=""):
    RESULTS["passed" if ok else "failed"] += 1
    print(f"{'ok  ' if ok else 'FAIL'} {name}" + ("" if ok else f"\n     {detail}"), flush=True)


class Home:
    """A throwaway home with a project folder in it."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="capout-harness-")
        self.proj = os.path.join(self.dir, "proj")
        os.makedirs(os.path.join(self.proj, "sub"))
        self.tmp = os.path.join(self.dir, "tmp")
        os.makedirs(self.tmp)

    def env(self):
        return {
            "PATH": os.environ["PATH"], "HOME": self.dir, "TMPDIR": self.tmp, "SHELL": "/bin/bash",
            "LANG": "C.UTF-8", "ANTHROPIC_BASE_URL": URL, "ANTHROPIC_API_KEY": "sk-test",
            "CLAUDE_CONFIG_DIR": os.path.join(self.dir, ".claude"), "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_ERROR_REPORTING": "1",
            # One ledger for the whole suite, outside every home: run.sh
            # prints `capout stats` over it at the end.
            **({"XDG_STATE_HOME": os.environ["CAPOUT_SUITE_STATE"]} if "CAPOUT_SUITE_STATE" in os.environ else {}),
        }

    def init(self, *args):
        return subprocess.run([CAPOUT, "init", *args], cwd=self.proj, env=self.env(),
                              capture_output=True, text=True, timeout=60)


def on_path(env):
    """`env` with capout's folder first on PATH, as a user who installed
    capout has it: what `capout init --project` writes relies on it."""
    return {**env, "PATH": os.path.dirname(CAPOUT) + ":" + env["PATH"]}


def machine_paths(proj, home, skip=()):
    """The files of `proj` (but `skip`) that name a path of this machine:
    the home, or capout's own folder; and those that are links."""
    found = []
    for root, _, files in os.walk(proj):
        for name in files:
            path = os.path.join(root, name)
            rel = os.path.relpath(path, proj)
            if rel in skip:
                continue
            if os.path.islink(path):
                found.append(f"{rel} is a link")
                continue
            text = open(path, errors="replace").read()
            for machine in (home.dir, os.path.dirname(CAPOUT)):
                if machine in text:
                    found.append(f"{rel} names {machine}")
    return found


def tree(path):
    """Every file and folder under `path`, relative, sorted."""
    out = []
    for root, dirs, files in os.walk(path):
        out += [os.path.relpath(os.path.join(root, n), path) for n in dirs + files]
    return sorted(out)


def claude(home, calls, extra=()):
    """Runs Claude Code headless on `calls`; the tool results it sent back."""
    SCRIPT.reset(calls)
    p = subprocess.run([CLAUDE, "-p", "go", "--output-format", "json", *extra], cwd=home.proj,
                       env=on_path(home.env()), capture_output=True, text=True, timeout=300)
    results = []
    with SCRIPT.lock:
        last = SCRIPT.requests[-1]["body"] if SCRIPT.requests else {}
    for m in last.get("messages", []):
        if m.get("role") == "user" and isinstance(m.get("content"), list):
            for c in m["content"]:
                if c.get("type") == "tool_result":
                    content = c.get("content")
                    if isinstance(content, list):
                        content = "".join(x.get("text", "") for x in content)
                    results.append(content)
    if len(results) != len(calls):
        print(f"     claude exited {p.returncode}: {p.stdout[-600:]} {p.stderr[-600:]}")
    return results


def interrupted(argv, cwd, env, marker, pattern):
    """Runs a harness whose model runs a command that writes `marker` and
    then waits; once the marker is there, interrupts the harness as Ctrl-C
    does (SIGINT to its process group). What is left: "capout" when capout
    is between the harness and the command's shell, else the programs
    there (False when the marker never came), whether the harness ended,
    and what still runs of `pattern`."""
    p = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, start_new_session=True)
    came = ended = False
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and p.poll() is None and not came:
        came = os.path.exists(marker)
        time.sleep(0.05)
    if came:
        os.killpg(p.pid, signal.SIGINT)
    try:
        p.wait(timeout=30)
        ended = True
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
    log = p.stdout.read().decode(errors="replace")
    if came:
        # The programs between the harness and the command's shell.
        names = []
        with open(marker) as f:
            for line in f.read().splitlines():
                pid, _, name = line.partition(" ")
                if int(pid) == p.pid:
                    break
                names.append(name)
        came = "capout" if "capout" in names else " ".join(names) or "none"
    left = ""
    for _ in range(100):
        left = subprocess.run(["pgrep", "-af", pattern], capture_output=True, text=True).stdout.strip()
        if not left:
            break
        time.sleep(0.1)
    # Nothing of one case may run into the next.
    for line in left.splitlines():
        try:
            os.kill(int(line.split()[0]), signal.SIGKILL)
        except (ProcessLookupError, ValueError):
            pass
    return came, ended, left, log


def waits(proj, marker, n):
    """A command that starts a job, writes its shell's ancestors (`PID
    FILE` each, from its parent up) into `marker`, and waits: `sleep N1`
    in the background, `sleep N2` in front. A script in `proj`, so that
    no harness hook sees the `&`."""
    with open(os.path.join(proj, "wait.sh"), "w") as f:
        f.write(f"sleep {n}1 &\n"
                "p=$PPID; while [ \"$p\" -gt 1 ]; do echo \"$p $(basename \"$(readlink /proc/$p/exe)\")\"; "
                "p=$(awk '{sub(/.*\\) /, \"\"); print $2}' /proc/$p/stat); "
                f"done > {marker}.new && mv {marker}.new {marker}\n"
                f"sleep {n}2\necho late\n")
    return "sh wait.sh"


def bash(command, **more):
    return ("Bash", {"command": command, "description": "run", **more})


def describe(text):
    lines = text.split("\n")
    return f"{len(text)} chars, first line {lines[0]!r}, last line {lines[-1]!r}"


def claude_cases():
    print("# Claude Code")
    plain, wrapped = Home(), Home()
    for h in (plain, wrapped):
        os.makedirs(os.path.join(h.dir, ".claude"))
        with open(os.path.join(h.dir, ".claude", "settings.json"), "w") as f:
            f.write('{\n    "theme": "dark",\n    "permissions": {"deny": ["Bash(rm *)"], "allow": ["Bash(git status)"]}\n}\n')
    before = open(os.path.join(wrapped.dir, ".claude", "settings.json")).read()
    p = wrapped.init("claude-code", "--mcp")
    check("claude-code: init --mcp succeeds", p.returncode == 0, p.stderr)
    again = wrapped.init("claude-code", "--mcp")
    check("claude-code: init is idempotent", again.returncode == 0 and "unchanged" in again.stdout, again.stdout + again.stderr)
    dry = wrapped.init("claude-code", "--uninstall", "--dry-run")
    check("claude-code: init --uninstall --dry-run prints a diff", dry.stdout.count("\n-") >= 1 and "CLAUDE_CODE_SHELL_PREFIX" in dry.stdout, dry.stdout)
    allow = ["--allowedTools", "Bash"]

    r0 = claude(plain, [bash("seq 100000")], allow)
    r1 = claude(wrapped, [bash("seq 100000")], allow)
    print(f"     seq 100000 without capout: {describe(r0[0]) if r0 else None}")
    print(f"     seq 100000 with capout:    {describe(r1[0]) if r1 else None}")
    m = re.fullmatch(r"(?s)(.*)\n\.\.\. \(truncated, showing last 5000 chars; full output: (\S+)\)", r1[0] if r1 else "")
    tail = "".join(f"{i}\n" for i in range(1, 100001))[-5000:]
    check("claude-code: seq 100000 gives capout's tail and notice",
          bool(m) and m.group(1) + "\n" == tail.lstrip("\n") and os.path.getsize(m.group(2)) == len("".join(f"{i}\n" for i in range(1, 100001))),
          repr((r1[0] if r1 else "")[-300:]))
    if m:
        mode = os.stat(os.path.dirname(m.group(2))).st_mode & 0o777
        check("claude-code: the saved output's folder is private", mode == 0o700, oct(mode))
        r = claude(wrapped, [("Read", {"file_path": m.group(2), "offset": 99999, "limit": 2})], allow)
        print(f"     the model's Read of the saved output: {r!r}")

    calls = [bash("cd sub && export CAPOUT_T=1"), bash("pwd; echo ${CAPOUT_T-unset}")]
    a, b = claude(plain, calls, allow), claude(wrapped, calls, allow)
    # The first call prints nothing: Claude Code says so in its words,
    # capout in its standard notice.
    exp = lambda h, empty: [empty, f"{os.path.realpath(h.proj)}/sub\nunset"]
    check("claude-code: cd persists and export does not, as without capout",
          a == exp(plain, "(Bash completed with no output)") and b == exp(wrapped, "(no output)"), f"{a!r} {b!r}")

    a, b = claude(plain, [bash("echo out; exit 3")], allow), claude(wrapped, [bash("echo out; exit 3")], allow)
    check("claude-code: exit status 3 as without capout", a == b == ["Exit code 3\nout"], f"{a!r} {b!r}")

    heredoc = "cat <<'EOF' | tr a-z A-Z\nit's \"quoted\" $HOME\nEOF\necho \"a'b\" 'c\"d'"
    a, b = claude(plain, [bash(heredoc)], allow), claude(wrapped, [bash(heredoc)], allow)
    check("claude-code: a heredoc with quotes as without capout", a == b == ["IT'S \"QUOTED\" $HOME\na'b c\"d"], f"{a!r} {b!r}")

    # More than profile bash's 5000 characters: wrapped twice, it would be
    # cut again, with a second notice.
    inner = f"{CAPOUT} --tail-chars 6000 -- seq 100000"
    alone = subprocess.run([CAPOUT, "--tail-chars", "6000", "--", "seq", "100000"], capture_output=True, text=True).stdout
    b = claude(wrapped, [bash(inner)], allow)
    check("claude-code: a command already under capout is not wrapped again",
          b == [alone.rstrip("\n")], f"{b!r} {alone!r}")

    # Permissions: the user's rules in settings.json, no --allowedTools.
    for h in (plain, wrapped):
        open(os.path.join(h.proj, "victim"), "w").close()
    for h in (plain, wrapped):
        r = claude(h, [bash("rm -f victim")])
        check(f"claude-code{'' if h is plain else ' + capout'}: a deny rule for rm still stops rm -f victim",
              os.path.exists(os.path.join(h.proj, "victim")) and len(r) == 1 and "denied" in r[0].lower(), f"{r!r}")
    for h in (plain, wrapped):
        r = claude(h, [bash("git status")])
        check(f"claude-code{'' if h is plain else ' + capout'}: an allow rule for git status runs it without a question",
              len(r) == 1 and "not a git repository" in r[0], f"{r!r}")
    for h in (plain, wrapped):
        r = claude(h, [bash("touch made-without-asking")])
        check(f"claude-code{'' if h is plain else ' + capout'}: with no rule it still asks",
              not os.path.exists(os.path.join(h.proj, "made-without-asking")) and len(r) == 1 and "approval" in r[0], f"{r!r}")

    # Claude Code's timeout moves the command to the background, where it
    # runs to its end: the same with capout, and nothing is left after.
    moved = "Command did not complete within its 2s timeout and was moved to the background"
    for h in (plain, wrapped):
        with open(os.path.join(h.proj, "slow.sh"), "w") as f:
            f.write("sleep 4.25 &\nsleep 4.26\necho late\n")
        r = claude(h, [bash("sh slow.sh", timeout=2000)], allow)
        left = ""
        for _ in range(100):
            left = subprocess.run(["pgrep", "-f", "sleep 4.2"], capture_output=True, text=True).stdout.strip()
            if not left:
                break
            time.sleep(0.1)
        check(f"claude-code{'' if h is plain else ' + capout'}: its timeout moves sleep to the background, and nothing outlives it",
              len(r) == 1 and r[0].startswith(moved) and not left, f"{left!r} {r!r}")

    timeout_shows_the_output_so_far(plain, wrapped, allow)

    for n, h in enumerate((plain, wrapped)):
        marker = os.path.join(h.proj, "interrupt-marker")
        SCRIPT.reset([bash(waits(h.proj, marker, f"8.1{n}"))])
        came, ended, left, log = interrupted([CLAUDE, "-p", "go", "--output-format", "json", *allow], h.proj, h.env(),
                                             marker, f"sleep 8.1{n}")
        check(f"claude-code{'' if h is plain else ' + capout'}: an interrupt stops the command and all it started",
              bool(came) and (came == "capout") == (h is wrapped) and ended and not left,
              f"{came!r} {ended} {left!r} {log[-600:]}")

    b = claude(wrapped, [("mcp__capout__bash", {"command": "echo mcp-ok"})], ["--allowedTools", "mcp__capout__bash"])
    check("claude-code: init --mcp gives the model capout's MCP bash tool", b == ["mcp-ok\n"] or b == ["mcp-ok"], f"{b!r}")

    p = wrapped.init("claude-code", "--mcp", "--uninstall")
    after = open(os.path.join(wrapped.dir, ".claude", "settings.json")).read()
    check("claude-code: init --uninstall gives settings.json back byte for byte",
          p.returncode == 0 and after == before and not os.path.exists(os.path.join(wrapped.dir, ".claude", ".claude.json.capout-backup")),
          p.stdout + p.stderr + after)
    for h in (plain, wrapped):
        shutil.rmtree(h.dir, ignore_errors=True)
    claude_project_cases()


def claude_project_cases():
    """`capout init claude-code --project --mcp` with capout on PATH: the
    files a team commits name no path of this machine, and Claude Code
    runs the project's shell calls and MCP server through capout."""
    team = Home()
    os.makedirs(os.path.join(team.dir, ".claude"))
    user = os.path.join(team.dir, ".claude", "settings.json")
    with open(user, "w") as f:
        f.write('{"theme": "dark"}\n')
    p = subprocess.run([CAPOUT, "init", "claude-code", "--project", "--mcp"], cwd=team.proj, env=on_path(team.env()),
                       capture_output=True, text=True, timeout=60)
    local = (os.path.join(".claude", "settings.local.json"), os.path.join(".claude", "capout-claude-code"))
    check("claude-code: init --project --mcp succeeds and names no path of this machine in the shared files",
          p.returncode == 0 and not machine_paths(team.proj, team, skip=local)
          and os.path.exists(os.path.join(team.proj, ".mcp.json")), p.stdout + p.stderr + repr(machine_paths(team.proj, team, skip=local)))
    allow = ["--allowedTools", "Bash"]
    r = claude(team, [bash("seq 100000")], allow)
    check("claude-code --project: seq 100000 gives capout's tail and notice",
          bool(r) and r[0].endswith(")") and "... (truncated, showing last 5000 chars; full output: " in r[0], repr((r[0] if r else "")[-300:]))
    b = claude(team, [("mcp__capout__bash", {"command": "echo mcp-ok"})], ["--allowedTools", "mcp__capout__bash"])
    check("claude-code --project: the project's .mcp.json starts capout's server from PATH", b in (["mcp-ok\n"], ["mcp-ok"]), f"{b!r}")
    p = subprocess.run([CAPOUT, "init", "claude-code", "--project", "--mcp", "--uninstall"], cwd=team.proj,
                       env=on_path(team.env()), capture_output=True, text=True, timeout=60)
    check("claude-code: init --project --uninstall gives the project back as it was and leaves the user's settings",
          p.returncode == 0 and tree(team.proj) == ["sub"] and open(user).read() == '{"theme": "dark"}\n',
          p.stdout + p.stderr + repr(tree(team.proj)))
    shutil.rmtree(team.dir, ignore_errors=True)


def timeout_shows_the_output_so_far(plain, wrapped, allow):
    """Claude Code's own timeout (3 s here) shows the model what the command
    wrote so far, with capout as without it: Claude Code reads the output
    when the timeout expires, and capout (told the timeout by its hook)
    writes what its cap keeps just before, then lets the command go on.
    Claude Code moves it to the background (its default) or ends it (with
    background tasks off); either way the model sees the output so far."""
    moved = "Command did not complete within its 3s timeout and was moved to the background"
    so_far = "... (still running after 2.5s: the output so far)"
    off = {"CLAUDE_CODE_DISABLE_BACKGROUND_TASKS": "1"}
    cases = [
        ("moved to the background", {}, "echo start; echo more; sleep 8.71; echo late",
         lambda r: r.startswith("start\nmore\n" + moved),
         lambda r: r.startswith(f"start\nmore\n{so_far}\n{moved}")),
        ("ended", off, "echo start; echo more; sleep 8.72; echo late",
         lambda r: r == "Exit code 143\nCommand timed out after 3s\nstart\nmore",
         lambda r: r == f"Exit code 143\nCommand timed out after 3s\nstart\nmore\n{so_far}"),
    ]
    for name, env, command, plain_ok, wrapped_ok in cases:
        seen = {}
        for h, ok in ((plain, plain_ok), (wrapped, wrapped_ok)):
            home_env = h.env
            h.env = lambda home_env=home_env: {**home_env(), **env}
            try:
                r = claude(h, [bash(command, timeout=3000)], allow)
            finally:
                h.env = home_env
            seen[h is wrapped] = r[0] if r else None
            left = ""
            for _ in range(100):
                left = subprocess.run(["pgrep", "-f", command.split("; ")[2]], capture_output=True, text=True).stdout.strip()
                if not left:
                    break
                time.sleep(0.1)
            check(f"claude-code{' + capout' if h is wrapped else ''}: its timeout ({name}) shows the output so far, and nothing outlives it",
                  len(r) == 1 and ok(r[0]) and not left, f"{left!r} {r!r}")
        print(f"     timeout, {name}, without capout: {seen.get(False)!r}")
        print(f"     timeout, {name}, with capout:    {seen.get(True)!r}")
    # A long output: the tail that the cap keeps so far, and where the
    # whole of it goes.
    h = wrapped
    home_env = h.env
    h.env = lambda: {**home_env(), **off}
    try:
        r = claude(h, [bash("seq 100000; sleep 8.73", timeout=3000)], allow)
    finally:
        h.env = home_env
    tail = "".join(f"{i}\n" for i in range(1, 100001))[-5000:]
    m = re.fullmatch(r"(?s)Exit code 143\nCommand timed out after 3s\n(.*)\n\.\.\. \(truncated, showing last 5000 chars\)\n"
                     r"\.\.\. \(still running after 2\.5s: the output so far; full output: (\S+)\)", r[0] if r else "")
    saved = m and open(m.group(2)).read()
    check("claude-code + capout: its timeout on a long output shows the tail so far and names the full output",
          bool(m) and (m.group(1) + "\n").lstrip("\n") == tail.lstrip("\n") and saved == "".join(f"{i}\n" for i in range(1, 100001)),
          repr((r[0] if r else "")[-400:]))


def main():
    # CAPOUT_HARNESS=NAME runs one harness's cases alone; all by default.
    only = os.environ.get("CAPOUT_HARNESS", "")
    # How long each group of cases took, printed at the end.
    took = []
    began = time.monotonic()

    def lap(group):
        nonlocal began
        now = time.monotonic()
        took.append((group, now - began))
        began = now

    # (claude-code-tools, gemini-tools, codex-tools, opencode-tools: the
    # cases of a third-party MCP tool alone.)
    if only in ("", "claude-code"):
        if not os.access(CLAUDE, os.X_OK):
            check("claude-code is installed", False, CLAUDE)
        else:
            claude_cases()
            lap("claude-code")
    if only in ("", "claude-code", "claude-code-tools") and os.access(CLAUDE, os.X_OK):
        import tools
        tools.claude_cases(sys.modules[__name__])
        lap("claude-code-tools")
    if only in ("", "gemini"):
        import gemini
        gemini.main(sys.modules[__name__])
        lap("gemini")
    if only in ("", "gemini", "gemini-tools"):
        import tools
        tools.gemini_cases(sys.modules[__name__])
        lap("gemini-tools")
    if only in ("", "codex"):
        import codex
        codex.cases(sys.modules[__name__])
        lap("codex")
    if only in ("", "codex", "codex-tools"):
        import tools
        tools.codex_cases(sys.modules[__name__])
        lap("codex-tools")
    if only in ("", "opencode"):
        import opencode
        opencode.run_cases(sys.modules[__name__])
        lap("opencode")
    if only in ("", "opencode", "opencode-tools"):
        import tools
        tools.opencode_cases(sys.modules[__name__])
        lap("opencode-tools")
    if only in ("", "pi"):
        import pi
        pi.cases(sys.modules[__name__])
        lap("pi")
    if only in ("", "copilot"):
        import copilot
        copilot.cases(sys.modules[__name__])
        lap("copilot")
    if only in ("", "droid"):
        import droid
        droid.cases(sys.modules[__name__])
        lap("droid")
    if only in ("", "qwen-code"):
        import qwen_code
        qwen_code.cases(sys.modules[__name__])
        lap("qwen-code")
    for group, seconds in took:
        print(f"{seconds:6.0f} s  {group}")
    print(f"{RESULTS['passed']} passed, {RESULTS['failed']} failed")
    sys.exit(1 if RESULTS["failed"] else 0)


if __name__ == "__main__":
    main()
