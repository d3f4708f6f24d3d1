"""No process that a bash call of the tools started outlives the call, its
tools' close(), or the interpreter: each case checks /proc for the ids the
command wrote. Cases that end an interpreter run one of their own."""

import os
import subprocess
import sys
import textwrap
import threading
import time

import capout

# A bound on every wait for a condition: generous, never relied on.
WAIT = 30.0


def alive(pid):
    """Whether process PID is still there (and not a zombie)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def left(pids):
    """Waits (bounded, polling) until none of PIDS is alive; those that are."""
    deadline = time.monotonic() + WAIT
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.02)
    return [p for p in pids if alive(p)]


def until(path):
    """Waits (bounded) for the file a command makes once it runs."""
    deadline = time.monotonic() + WAIT
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.02)


def pids_in(path):
    return [int(line) for line in path.read_text().split()]


# A long call: the shell and a child of it in the background (its group),
# each writing its id, then a wait for good.
def long(name):
    return f"sleep 1000 & echo $! >> {name}; echo $$ >> {name}; touch {name}.started; wait"


def interpreter(script, root):
    """SCRIPT in an interpreter of its own, with ROOT; its status and output."""
    prelude = f"import capout, pathlib, sys, threading, time\nroot = pathlib.Path({str(root)!r})\n"
    return subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(script)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_setsid_or_nohup_job_of_bash_ends_with_the_call(tmp_path):
    tools = capout.Tools(tmp_path)
    for job in ["setsid sleep 1000", "nohup sleep 1000", "setsid sh -c 'sleep 1000 & wait'"]:
        text = tools.bash(f"{job} >/dev/null 2>&1 & echo $!")
        assert left([int(text)]) == [], job


def test_a_daemon_threads_bash_ends_at_the_interpreters_exit(tmp_path):
    r = interpreter(
        f"""
        tools = capout.Tools(root)
        print(tools.saved_dir, flush=True)
        threading.Thread(target=tools.bash, args=({long("a")!r},), daemon=True).start()
        while not (root / "a.started").exists():
            time.sleep(0.02)
        sys.exit(3)
        """,
        tmp_path,
    )
    assert (r.returncode, r.stderr) == (3, "")
    assert left(pids_in(tmp_path / "a")) == []
    assert not os.path.exists(r.stdout.strip()), "the saved outputs' folder is left"


def test_a_job_that_dropped_its_mark_ends_at_exit_by_its_group(tmp_path):
    command = "env -u CAPOUT_MCP_CALL sleep 1000 & echo $! >> a; echo $$ >> a; touch a.started; wait"
    r = interpreter(
        f"""
        tools = capout.Tools(root)
        threading.Thread(target=tools.bash, args=({command!r},), daemon=True).start()
        while not (root / "a.started").exists():
            time.sleep(0.02)
        """,
        tmp_path,
    )
    assert (r.returncode, r.stderr) == (0, "")
    assert left(pids_in(tmp_path / "a")) == []


def test_a_job_left_by_an_ended_call_ends_at_exit(tmp_path):
    # The call ends at once; its job ignores the SIGTERM it gets after it,
    # and the interpreter exits within the grace before its SIGKILL.
    command = r"""sh -c "trap '' TERM HUP; echo \$\$ > a; exec sleep 1000" >/dev/null 2>&1 & while [ ! -s a ]; do sleep 0.01; done"""
    r = interpreter(
        f"""
        tools = capout.Tools(root)
        tools.bash({command!r})
        """,
        tmp_path,
    )
    assert (r.returncode, r.stderr) == (0, "")
    assert left(pids_in(tmp_path / "a")) == []


def test_close_ends_the_running_calls_and_the_tools_still_work(tmp_path):
    tools = capout.Tools(tmp_path)
    first = tools.saved_dir
    assert first.is_dir()
    got = []
    call = threading.Thread(target=lambda: got.append(tools.bash(long("a"))))
    call.start()
    until(tmp_path / "a.started")
    tools.close()
    call.join(WAIT)
    assert got == ["(no output)\n(exit status 143, killed by SIGTERM)\n"]
    assert left(pids_in(tmp_path / "a")) == []
    assert not first.exists()
    # Still working, with a folder of its own again.
    text = tools.bash("seq 100000")
    assert tools.saved_dir != first and tools.saved_dir.is_dir()
    assert f"full output: {tools.saved_dir}/" in text
    tools.close()
    assert not tools.saved_dir.exists()


def test_tools_as_a_context_manager_are_closed_at_its_end(tmp_path):
    with capout.Tools(tmp_path) as tools:
        assert tools.bash("echo hi") == "hi\n"
        saved = tools.saved_dir
        assert saved.is_dir()
    assert not saved.exists()
