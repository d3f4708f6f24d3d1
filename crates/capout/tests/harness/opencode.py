"""opencode's cases: `opencode run` against the scripted model through
its built-in @ai-sdk/openai-compatible provider (nothing downloaded), with
capout set up by `capout init opencode`, each case compared with the same
opencode without capout."""

import json
import os
import re
import shutil
import subprocess
import time


def run_cases(h):
    """h: the harness module (Home, check, describe, SCRIPT, URL, CAPOUT, TOOLS)."""
    opencode = os.path.join(h.TOOLS, "node_modules", ".bin", "opencode")
    if not os.access(opencode, os.X_OK):
        h.check("opencode is installed", False, opencode)
        return
    print("# opencode")

    def env(home):
        e = h.on_path(home.env())
        e.update({
            "XDG_CONFIG_HOME": os.path.join(home.dir, ".config"),
            "XDG_DATA_HOME": os.path.join(home.dir, ".local", "share"),
            "XDG_CACHE_HOME": os.path.join(home.dir, ".cache"),
            "XDG_STATE_HOME": os.path.join(home.dir, ".local", "state"),
            "OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_MODELS_FETCH": "1",
            "OPENCODE_DISABLE_LSP_DOWNLOAD": "1", "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
            "OPENCODE_DISABLE_SHARE": "1", "OPENCODE_DISABLE_CLAUDE_CODE": "1",
        })
        return e

    def init(home, *args):
        return subprocess.run([h.CAPOUT, "init", "opencode", *args], cwd=home.proj, env=env(home),
                              capture_output=True, text=True, timeout=60)

    last = {}

    def run(home, calls):
        """Runs opencode on `calls`; the tool results it sent back."""
        h.SCRIPT.reset(calls)
        p = last["run"] = subprocess.run([opencode, "run", "go", "--format", "json"], cwd=home.proj, env=env(home),
                           capture_output=True, text=True, timeout=300)
        with h.SCRIPT.lock:
            asked = [r["body"] for r in h.SCRIPT.requests if r["body"].get("tools")]
        results = []
        for m in (asked[-1] if asked else {}).get("messages", []):
            if m.get("role") == "tool":
                c = m.get("content")
                if isinstance(c, list):
                    c = "".join(x.get("text", "") for x in c)
                results.append(c)
        if len(results) != len(calls) and "auto-rejecting" not in p.stdout + p.stderr:
            print(f"     opencode exited {p.returncode}: {p.stdout[-600:]} {p.stderr[-600:]}")
        return results

    def bash(command, **more):
        return ("bash", {"command": command, "description": "run", **more})

    rules = {"bash": {"*": "allow", "rm *": "deny", "git status": "allow", "touch *": "ask"}}
    config = ("{\n    \"$schema\": \"https://opencode.ai/config.json\",\n    \"model\": \"local/m\",\n    \"small_model\": \"local/m\",\n    \"autoupdate\": false,\n"
              "    \"share\": \"disabled\",\n    \"permission\": " + json.dumps(rules) + ",\n    \"provider\": "
              + json.dumps({"local": {"npm": "@ai-sdk/openai-compatible", "name": "local",
                                      "options": {"baseURL": h.URL + "/v1", "apiKey": "sk-test"},
                                      "models": {"m": {"name": "m", "tool_call": True}}}}) + "\n}\n")
    plain, wrapped = h.Home(), h.Home()
    for home in (plain, wrapped):
        os.makedirs(os.path.join(home.dir, ".config", "opencode"))
        with open(os.path.join(home.dir, ".config", "opencode", "opencode.json"), "w") as f:
            f.write(config)
    cfg = os.path.join(wrapped.dir, ".config", "opencode")
    p = init(wrapped, "--mcp")
    h.check("opencode: init --mcp succeeds", p.returncode == 0 and os.path.exists(os.path.join(cfg, "plugin", "capout.js")),
            p.stdout + p.stderr)
    again = init(wrapped, "--mcp")
    h.check("opencode: init is idempotent", again.returncode == 0 and again.stdout.count("unchanged") == 2,
            again.stdout + again.stderr)
    dry = init(wrapped, "--mcp", "--uninstall", "--dry-run")
    h.check("opencode: init --uninstall --dry-run prints a diff and writes nothing",
            "-// capout: written by `capout init opencode`" in dry.stdout and re.search(r'(?m)^- +"capout": \{', dry.stdout)
            and os.path.exists(os.path.join(cfg, "plugin", "capout.js")), dry.stdout + dry.stderr)

    whole = "".join(f"{i}\n" for i in range(1, 100001))
    def describe(text):
        lines = text.rstrip("\n").split("\n")
        return f"{len(text)} chars, lines {lines[0]!r} {lines[1] if len(lines) > 1 else ''!r} ... {lines[-1]!r}"

    for _ in range(4):
        r0 = run(plain, [bash("seq 100000")])
        print(f"     seq 100000 without capout: {describe(r0[0]) if r0 else None}")
    runs = [run(wrapped, [bash("seq 100000")]) for _ in range(4)]
    for r in runs:
        print(f"     seq 100000 with capout:    {describe(r[0]) if r else None}")
    tail = whole[-5000:]
    fine = 0
    for r in runs:
        m = re.fullmatch(r"(?s)(.*)\n\.\.\. \(truncated, showing last 5000 chars; full output: (\S+)\)\n?", r[0] if r else "")
        if m and m.group(1) + "\n" == tail and os.path.getsize(m.group(2)) == len(whole):
            fine += 1
    h.check("opencode: seq 100000 gives capout's whole tail and notice, 4 runs of 4", fine == 4,
            f"{fine} of 4 whole; {[repr(r[0][-200:]) if r else None for r in runs]}")

    calls = [bash("cd sub && export CAPOUT_T=1"), bash("pwd; echo ${CAPOUT_T-unset}")]
    a, b = run(plain, calls), run(wrapped, calls)
    h.check("opencode: neither cd nor export persists, as without capout",
            len(a) == 2 and a[1] == f"{os.path.realpath(plain.proj)}\nunset\n"
            and len(b) == 2 and b[1] == f"{os.path.realpath(wrapped.proj)}\nunset\n", f"{a!r} {b!r}")

    a, b = run(plain, [bash("echo out; exit 3")]), run(wrapped, [bash("echo out; exit 3")])
    h.check("opencode: exit status 3 reaches the model as without capout (not at all)", a == b == ["out\n"], f"{a!r} {b!r}")

    heredoc = "cat <<'EOF' | tr a-z A-Z\nit's \"quoted\" $HOME\nEOF\necho \"a'b\" 'c\"d'; echo $0 $#"
    a, b = run(plain, [bash(heredoc)]), run(wrapped, [bash(heredoc)])
    h.check("opencode: a heredoc with quotes as without capout", len(a) == 1 and a == b and a[0].startswith("IT'S \"QUOTED\" $HOME\na'b c\"d\n"),
            f"{a!r} {b!r}")

    inner = f"{h.CAPOUT} --tail-chars 6000 -- seq 100000"
    alone = subprocess.run([h.CAPOUT, "--tail-chars", "6000", "--", "seq", "100000"], capture_output=True, text=True).stdout
    b = run(wrapped, [bash(inner)])
    h.check("opencode: a command already under capout is not wrapped again", b == [alone], f"{b!r}"[-300:])

    for home in (plain, wrapped):
        open(os.path.join(home.proj, "victim"), "w").close()
    tag = lambda home: "" if home is plain else " + capout"
    for home in (plain, wrapped):
        r = run(home, [bash("rm -f victim")])
        h.check(f"opencode{tag(home)}: a deny rule for rm still stops rm -f victim",
                os.path.exists(os.path.join(home.proj, "victim")) and len(r) == 1 and "prevents you from using" in r[0], f"{r!r}")
    for home in (plain, wrapped):
        r = run(home, [bash("git status")])
        h.check(f"opencode{tag(home)}: an allow rule for git status runs it without a question",
                len(r) == 1 and "not a git repository" in r[0], f"{r!r}")
    for home in (plain, wrapped):
        r = run(home, [bash("touch made-without-asking")])
        h.check(f"opencode{tag(home)}: a rule that asks still asks (opencode run rejects the question)",
                not os.path.exists(os.path.join(home.proj, "made-without-asking")) and not r
                and "permission requested: bash (touch made-without-asking); auto-rejecting" in last["run"].stderr,
                f"{r!r} {last['run'].stderr[-300:]!r}")

    for home in (plain, wrapped):
        with open(os.path.join(home.proj, "slow.sh"), "w") as f:
            f.write("sleep 7.25 &\nsleep 7.26\necho late\n")
        r = run(home, [bash("sh slow.sh", timeout=2000)])
        left = ""
        for _ in range(100):
            left = subprocess.run(["pgrep", "-f", "sleep 7.2"], capture_output=True, text=True).stdout.strip()
            if not left:
                break
            time.sleep(0.1)
        h.check(f"opencode{tag(home)}: its timeout ends sleep and everything it started",
                len(r) == 1 and "terminated command after exceeding timeout 2000 ms" in r[0] and "late" not in r[0] and not left,
                f"{left!r} {r!r}")

    # Ctrl-C while the command runs: `opencode run` ends, and the command
    # and all it started with it.
    for n, home in enumerate((plain, wrapped)):
        marker = os.path.join(home.proj, "interrupt-marker")
        h.SCRIPT.reset([bash(h.waits(home.proj, marker, f"8.7{n}"))])
        came, ended, left, log = h.interrupted([opencode, "run", "go", "--format", "json"], home.proj, env(home),
                                               marker, f"sleep 8.7{n}")
        h.check(f"opencode{tag(home)}: an interrupt stops the command and all it started",
                bool(came) and (came == "capout") == (home is wrapped) and ended and not left,
                f"{came!r} {ended} {left!r} {log[-600:]}")

    b = run(wrapped, [("capout_bash", {"command": "echo mcp-ok"})])
    h.check("opencode: init --mcp gives the model capout's MCP bash tool", b == ["mcp-ok\n"] or b == ["mcp-ok"], f"{b!r}")

    p = init(wrapped, "--mcp", "--uninstall")
    after = open(os.path.join(cfg, "opencode.json")).read()
    h.check("opencode: init --uninstall gives opencode.json back byte for byte and removes the plugin",
            p.returncode == 0 and after == config == open(os.path.join(plain.dir, ".config", "opencode", "opencode.json")).read() and not os.path.exists(os.path.join(cfg, "plugin", "capout.js"))
            and not os.path.exists(os.path.join(cfg, "opencode.json.capout-backup")), p.stdout + p.stderr + after)
    for home in (plain, wrapped):
        shutil.rmtree(home.dir, ignore_errors=True)

    # `capout init opencode --project --mcp` with capout on PATH: the
    # project's plugin and opencode.json name `capout` alone.
    team = h.Home()
    os.makedirs(os.path.join(team.dir, ".config", "opencode"))
    with open(os.path.join(team.dir, ".config", "opencode", "opencode.json"), "w") as f:
        f.write(config)
    p = subprocess.run([h.CAPOUT, "init", "opencode", "--project", "--mcp"], cwd=team.proj, env=env(team),
                       capture_output=True, text=True, timeout=60)
    h.check("opencode: init --project --mcp succeeds and names no path of this machine in the project",
            p.returncode == 0 and not h.machine_paths(team.proj, team), p.stdout + p.stderr + repr(h.machine_paths(team.proj, team)))
    r = run(team, [bash("seq 100000")])
    h.check("opencode --project: seq 100000 gives capout's tail and notice",
            bool(r) and "... (truncated, showing last 5000 chars; full output: " in r[0], repr((r[0] if r else "")[-300:]))
    b = run(team, [("capout_bash", {"command": "echo mcp-ok"})])
    h.check("opencode --project: the project's opencode.json starts capout's server from PATH", b in (["mcp-ok\n"], ["mcp-ok"]), f"{b!r}")
    p = subprocess.run([h.CAPOUT, "init", "opencode", "--project", "--mcp", "--uninstall"], cwd=team.proj, env=env(team),
                       capture_output=True, text=True, timeout=60)
    # opencode itself writes into the project (its .opencode packages, the
    # $schema of opencode.json): only capout's own parts must be gone.
    shared = os.path.join(team.proj, "opencode.json")
    left = open(shared).read() if os.path.exists(shared) else ""
    h.check("opencode: init --project --uninstall takes capout's plugin and server out of the project",
            p.returncode == 0 and [f for f in h.tree(team.proj) if not f.startswith((".opencode", "opencode.json"))] == ["sub"]
            and not os.path.exists(os.path.join(team.proj, ".opencode", "plugin", "capout.js")) and "capout" not in left,
            p.stdout + p.stderr + left)
    shutil.rmtree(team.dir, ignore_errors=True)
