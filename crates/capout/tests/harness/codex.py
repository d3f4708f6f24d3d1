"""Codex CLI's cases: the same calls through Codex without capout and with
capout set up by `capout init codex --mcp`, each home with the user's own
rules (deny `rm`, allow `git status`) and the workspace-write sandbox.

Codex runs `codex exec` headless against the scripted model's Responses
API; its hooks are trusted for the run (--dangerously-bypass-hook-trust),
as a user trusts them once in Codex's hook review.
"""

import json
import os
import re
import subprocess
import time

H = None  # the harness module (harness.py), given to cases()
LAST = {"log": ""}  # what the last `codex exec` printed


def codex_path(tools):
    return os.path.join(tools, "node_modules", ".bin", "codex")

CONFIG = """# my own settings, kept as they are
model = "test-model"
model_provider = "mock"
sandbox_mode = "workspace-write"  # the project, and the temporary folder

[model_providers.mock]
name = "mock"
base_url = "{url}/v1"
wire_api = "responses"
"""

RULES = 'prefix_rule(pattern=["rm"], decision="forbidden")\nprefix_rule(pattern=["git", "status"], decision="allow")\n'


def env(home):
    """The home's environment, with Codex's folder in it."""
    return {**H.on_path(home.env()), "CODEX_HOME": os.path.join(home.dir, ".codex"), "OPENAI_API_KEY": "sk-test"}


def codex(home, calls, extra=()):
    """Runs `codex exec` on `calls`; what the model got back for each."""
    H.SCRIPT.reset(calls)
    p = subprocess.run([codex_path(H.TOOLS), "exec", "--skip-git-repo-check", "--dangerously-bypass-hook-trust", *extra, "go"],
                       cwd=home.proj, env=env(home), stdin=subprocess.DEVNULL, capture_output=True, text=True,
                       timeout=300)
    LAST["log"] = p.stdout + p.stderr
    results = []
    with H.SCRIPT.lock:
        last = H.SCRIPT.requests[-1]["body"] if H.SCRIPT.requests else {}
    for item in last.get("input", []):
        if isinstance(item, dict) and item.get("type", "").endswith("call_output"):
            out = item.get("output")
            if isinstance(out, list):
                out = "\n".join(x.get("text", "") for x in out)
            # The call's own id and its time differ from run to run.
            results.append(re.sub(r"(?m)^(Chunk ID|Wall time): .*\n", "", out or ""))
    if len(results) != len(calls):
        print(f"     codex exited {p.returncode}: {p.stdout[-600:]} {p.stderr[-1200:]}")
    return results


def wrapped_last():
    """Whether Codex ran the last command through `capout hook codex`."""
    return " hook codex " in LAST["log"]


def summary(result):
    """What the model received: its length, and the output's first and last line."""
    lines = output(result).strip("\n").split("\n")
    return f"{len(result)} chars, first line {lines[0]!r}, last line {lines[-1]!r}"


def shell(command, **more):
    return ("exec_command", {"cmd": command, **more})


def output(result):
    """The command's output in Codex's tool result."""
    return result.split("Output:\n", 1)[-1]


def cases(harness):
    global H
    H = harness
    CAPOUT, URL, Home, check = H.CAPOUT, H.URL, H.Home, H.check
    print("# Codex CLI")
    if not os.access(codex_path(H.TOOLS), os.X_OK):
        check("codex is installed", False, codex_path(H.TOOLS))
        return
    plain, wrapped = Home(), Home()
    for h in (plain, wrapped):
        os.makedirs(os.path.join(h.dir, ".codex", "rules"))
        with open(os.path.join(h.dir, ".codex", "config.toml"), "w") as f:
            f.write(CONFIG.format(url=URL))
        with open(os.path.join(h.dir, ".codex", "rules", "default.rules"), "w") as f:
            f.write(RULES)
    config = os.path.join(wrapped.dir, ".codex", "config.toml")
    before = open(config).read()
    p = subprocess.run([CAPOUT, "init", "codex", "--mcp"], cwd=wrapped.proj, env=env(wrapped),
                       capture_output=True, text=True, timeout=60)
    check("codex: init --mcp succeeds", p.returncode == 0, p.stdout + p.stderr)
    after = open(config).read()
    check("codex: init keeps config.toml's comments and keys", after.startswith(before) and "[mcp_servers.capout]" in after, after)
    again = subprocess.run([CAPOUT, "init", "codex", "--mcp"], cwd=wrapped.proj, env=env(wrapped),
                           capture_output=True, text=True, timeout=60)
    check("codex: init is idempotent", again.returncode == 0 and again.stdout.count("unchanged") == 2, again.stdout + again.stderr)
    dry = subprocess.run([CAPOUT, "init", "codex", "--mcp", "--uninstall", "--dry-run"], cwd=wrapped.proj,
                         env=env(wrapped), capture_output=True, text=True, timeout=60)
    check("codex: init --uninstall --dry-run prints a diff", "-[mcp_servers.capout]" in dry.stdout and "hook codex" in dry.stdout, dry.stdout)

    seq = "".join(f"{i}\n" for i in range(1, 100001))
    r0, r1 = codex(plain, [shell("seq 100000")]), codex(wrapped, [shell("seq 100000")])
    print(f"     seq 100000 without capout: {summary(r0[0]) if r0 else None}")
    print(f"     seq 100000 with capout:    {summary(r1[0]) if r1 else None}")
    m = re.fullmatch(r"(?s)(.*)\.\.\. \(truncated, showing last 5000 chars; full output: (\S+)\)\n", output(r1[0]) if r1 else "")
    check("codex: seq 100000 gives capout's tail and notice",
          bool(m) and m.group(1) == seq[-5000:] and os.path.getsize(m.group(2)) == len(seq)
          and r1[0].startswith("Process exited with code 0\n"),
          repr((r1[0] if r1 else "")[-300:]))
    if m:
        mode = os.stat(os.path.dirname(m.group(2))).st_mode & 0o777
        check("codex: the saved output's folder is private", mode == 0o700, oct(mode))
        r = codex(wrapped, [shell(f"sed -n '99999,$p' {m.group(2)}")])
        check("codex: the model pages the saved output with its shell tool", r and output(r[0]) == "99999\n100000\n", repr(r))
    r = codex(wrapped, [shell("seq 100000")], ["--sandbox", "read-only"])
    check("codex: in the read-only sandbox the tail arrives, with no file named",
          r and output(r[0]) == seq[-5000:] + "... (truncated, showing last 5000 chars)\n", repr(r and r[0][-200:]))

    calls = [shell("cd sub && export CAPOUT_T=1"), shell("pwd; echo ${CAPOUT_T-unset}")]
    a, b = codex(plain, calls), codex(wrapped, calls)
    check("codex: those commands ran under capout", wrapped_last(), LAST["log"][-600:])
    exp = lambda h: f"{os.path.realpath(h.proj)}\nunset\n"
    check("codex: neither cd nor export persists, as without capout",
          len(a) == len(b) == 2 and output(a[1]) == exp(plain) and output(b[1]) == exp(wrapped), f"{a!r} {b!r}")

    a, b = codex(plain, [shell("echo out; exit 3")]), codex(wrapped, [shell("echo out; exit 3")])
    check("codex: exit status 3 as without capout", a == b == ["Process exited with code 3\nOriginal token count: 1\nOutput:\nout\n"], f"{a!r} {b!r}")

    heredoc = "cat <<'EOF' | tr a-z A-Z\nit's \"quoted\" $HOME\nEOF\necho \"a'b\" 'c\"d'"
    a, b = codex(plain, [shell(heredoc)]), codex(wrapped, [shell(heredoc)])
    check("codex: the heredoc ran under capout", wrapped_last(), LAST["log"][-600:])
    check("codex: a heredoc with quotes as without capout",
          a == b and a and output(a[0]) == "IT'S \"QUOTED\" $HOME\na'b c\"d\n", f"{a!r} {b!r}")

    # A session on a terminal is one the model talks to: left as it is.
    tty = shell("python3 -c 'import sys; print(sys.stdin.isatty(), sys.stdout.isatty())'; exit 4", tty=True)
    a, b = codex(plain, [tty]), codex(wrapped, [tty])
    check("codex: a command on a terminal runs as without capout",
          a == b and a and a[0].startswith("Process exited with code 4\n") and output(a[0]) == "True True\r\n", f"{a!r} {b!r}")

    inner = f"{CAPOUT} --tail-chars 6000 -- seq 100000"
    alone = subprocess.run([CAPOUT, "--tail-chars", "6000", "--", "seq", "100000"], capture_output=True, text=True).stdout
    b = codex(wrapped, [shell(inner)])
    check("codex: a command already under capout is not wrapped again", b and output(b[0]) == alone, f"{b!r}")

    # Permissions: the user's rules, Codex's own refusal of rm -f, and its
    # sandbox, on the command the model wrote.
    for h in (plain, wrapped):
        name = "codex" if h is plain else "codex + capout"
        # `r''m` is `rm` to the shell, and to Codex's own refusal of rm -f.
        for cmd in ("rm -f victim", "rm victim", "r''m -f victim"):
            open(os.path.join(h.proj, "victim"), "w").close()
            r = codex(h, [shell(cmd)])
            check(f"{name}: a deny rule for rm still stops {cmd}",
                  os.path.exists(os.path.join(h.proj, "victim")) and len(r) == 1 and "rejected" in r[0], f"{r!r}")
        r = codex(h, [shell("git status")])
        check(f"{name}: a command with a word of a rule is left to Codex", not wrapped_last(), LAST["log"][-600:])
        check(f"{name}: an allow rule for git status runs it without a question",
              len(r) == 1 and r[0].startswith("Process exited with code 128\n") and "not a git repository" in r[0], f"{r!r}")
        outside = f"/usr/local/capout-test-{os.getpid()}"
        # The command says itself which program started its shell: capout
        # when the rewrite ran, whatever Codex's log shows of the call.
        r = codex(h, [shell(f"touch {outside}; basename \"$(readlink /proc/$PPID/exe)\"")])
        made = os.path.exists(outside)
        if made:
            os.remove(outside)
        check(f"{name}: with no rule a write outside the workspace is still refused",
              not made and len(r) == 1 and "Read-only file system" in r[0]
              and (output(r[0]).rstrip("\n").rsplit("\n", 1)[-1] == "capout") == (h is wrapped),
              f"{r!r} {LAST['log'][-1500:]}")
        r = codex(h, [shell("touch made-escalated", sandbox_permissions="require_escalated", justification="test")])
        check(f"{name}: with no rule an escalation still needs an approval, which exec refuses",
              not os.path.exists(os.path.join(h.proj, "made-escalated")) and len(r) == 1 and "approval policy is Never" in r[0], f"{r!r}")

    # Codex gives the command a second, then reports it running; when
    # `codex exec` ends it stops it, and with capout all of it too.
    for h in (plain, wrapped):
        with open(os.path.join(h.proj, "slow.sh"), "w") as f:
            f.write("sleep 4.25 &\nsleep 4.26\necho late\n")
        r = codex(h, [shell("sh slow.sh", yield_time_ms=1000)])
        left = ""
        for _ in range(100):
            left = subprocess.run(["pgrep", "-f", "sleep 4.2"], capture_output=True, text=True).stdout.strip()
            if not left:
                break
            time.sleep(0.1)
        check(f"{'codex' if h is plain else 'codex + capout'}: a command still running when codex ends is stopped, all of it",
              len(r) == 1 and "Process running with session ID" in r[0] and not left, f"{left!r} {r!r}")

    # Ctrl-C while the command runs: `codex exec` ends its turn and the
    # command, with capout all of what it started too.
    for n, h in enumerate((plain, wrapped)):
        marker = os.path.join(h.proj, "interrupt-marker")
        H.SCRIPT.reset([shell(H.waits(h.proj, marker, f"8.3{n}"), yield_time_ms=30000)])
        came, ended, left, log = H.interrupted(
            [codex_path(H.TOOLS), "exec", "--skip-git-repo-check", "--dangerously-bypass-hook-trust", "go"],
            h.proj, env(h), marker, f"sleep 8.3{n}")
        check(f"{'codex' if h is plain else 'codex + capout'}: an interrupt stops the command and all it started",
              bool(came) and (came == "capout") == (h is wrapped) and ended and not left,
              f"{came!r} {ended} {left!r} {log[-600:]}")

    # The user approves capout's MCP tools for the run; init does not.
    b = codex(wrapped, [("mcp__capout.bash", {"command": "echo mcp-ok"})],
              ["-c", "mcp_servers.capout.default_tools_approval_mode=\"approve\""])
    check("codex: init --mcp gives the model capout's MCP bash tool", len(b) == 1 and b[0].endswith("mcp-ok\n"), f"{b!r}")

    p = subprocess.run([CAPOUT, "init", "codex", "--mcp", "--uninstall"], cwd=wrapped.proj, env=env(wrapped),
                       capture_output=True, text=True, timeout=60)
    check("codex: init --uninstall gives config.toml back byte for byte and removes hooks.json",
          p.returncode == 0 and open(config).read() == before
          and not os.path.exists(os.path.join(wrapped.dir, ".codex", "hooks.json"))
          and not os.path.exists(config + ".capout-backup"),
          p.stdout + p.stderr)
    for h in (plain, wrapped):
        subprocess.run(["rm", "-rf", h.dir])
    project_cases()


def project_cases():
    """`capout init codex --project --mcp` with capout on PATH, in a project
    the user trusts: the project's files name `capout` alone, and Codex runs
    its shell calls and the MCP server through it."""
    CAPOUT, check = H.CAPOUT, H.check
    team = H.Home()
    os.makedirs(os.path.join(team.dir, ".codex"))
    config = os.path.join(team.dir, ".codex", "config.toml")
    with open(config, "w") as f:
        f.write(CONFIG.format(url=H.URL) + f'\n[projects."{os.path.realpath(team.proj)}"]\ntrust_level = "trusted"\n')
    before = open(config).read()
    p = subprocess.run([CAPOUT, "init", "codex", "--project", "--mcp"], cwd=team.proj, env=env(team),
                       capture_output=True, text=True, timeout=60)
    check("codex: init --project --mcp succeeds and names no path of this machine in the project",
          p.returncode == 0 and not H.machine_paths(team.proj, team) and open(config).read() == before
          and "open /hooks in Codex" in p.stdout, p.stdout + p.stderr + repr(H.machine_paths(team.proj, team)))
    seq = "".join(f"{i}\n" for i in range(1, 100001))
    r = codex(team, [shell("seq 100000")])
    check("codex --project: seq 100000 gives capout's tail and notice",
          bool(r) and output(r[0]).startswith(seq[-5000:] + "... (truncated, showing last 5000 chars; full output: "),
          repr((r[0] if r else "")[-300:]))
    b = codex(team, [("mcp__capout.bash", {"command": "echo mcp-ok"})],
              ["-c", "mcp_servers.capout.default_tools_approval_mode=\"approve\""])
    check("codex --project: the project's config.toml starts capout's server from PATH", len(b) == 1 and b[0].endswith("mcp-ok\n"), f"{b!r}")
    p = subprocess.run([CAPOUT, "init", "codex", "--project", "--mcp", "--uninstall"], cwd=team.proj, env=env(team),
                       capture_output=True, text=True, timeout=60)
    check("codex: init --project --uninstall gives the project back as it was",
          p.returncode == 0 and H.tree(team.proj) == ["sub"] and open(config).read() == before, p.stdout + p.stderr + repr(H.tree(team.proj)))
    subprocess.run(["rm", "-rf", team.dir])
