"""capout.run against `capout -- COMMAND`."""

import os
import signal
import subprocess
import sys
import time

import pytest

import capout
from conftest import oracle, words


@pytest.mark.parametrize(
    "options",
    [{}, {"tail_chars": 100}, {"head_lines": 5}, {"max_matches": 3, "pattern": "7"}, {"tail_lines": 2, "keep": "^5000$"}],
)
def test_run_is_the_cli_byte_for_byte(options):
    args = ["sh", "-c", "seq 10000; echo to stderr >&2; seq 3"]
    want, _, status = oracle(words(options) + ["--", *args], check=False)
    got = capout.run(args, **options)
    assert got.output == want
    assert got.summary.exit_code == status == 0


def test_run_summary_is_what_json_says():
    import json

    args = ["seq", "100000"]
    want = json.loads(oracle(["--json", "--", *args])[0])
    summary = capout.run(args).summary
    for fact in ["truncated", "cap", "unit", "total_bytes", "exit_code", "signal", "timed_out", "notice", "saved_to"]:
        assert getattr(summary, fact) == want[fact], fact


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"head_chars": 50},
        {"tail_lines": 2},
        {"head_lines": 5, "offset": 3},
        {"head_lines": 10, "budget_chars": 12},
        {"max_matches": 3, "pattern": "7"},
        {"tail_tokens": 20},
        {"head_lines": 2, "tail_lines": 2},
        {"head_chars": 100, "json_items": 3},
    ],
)
def test_run_summary_has_every_fact_of_json_as_the_cli_counts_it(options):
    # Command mode counts only what its output needs; the summary, as
    # --json, counts every total whatever the cap.
    import json

    args = ["sh", "-c", "seq 10000; exit 3"]
    want = json.loads(oracle(["--json", *words(options), "--", *args], check=False)[0])
    summary = capout.run(args, **options).summary
    del want["output"]
    limit = want.pop("limit")
    assert summary.limit == (tuple(limit) if isinstance(limit, list) else (limit, None))
    got = {fact: getattr(summary, fact) for fact in want}
    assert got == want
    assert (summary.exit_code, summary.total_lines) == (3, 10000)


def test_exit_status_stands():
    got = capout.run(["sh", "-c", "echo out; echo err >&2; exit 3"])
    assert got.output == b"out\nerr\n"
    assert (got.summary.exit_code, got.summary.signal, got.summary.timed_out) == (3, None, False)


def test_timeout_stops_the_command():
    started = time.monotonic()
    got = capout.run(["sh", "-c", "echo started; exec sleep 60"], timeout=0.5)
    assert time.monotonic() - started < 30
    assert got.output == b"started\n... (command timed out after 0.5s)\n"
    assert (got.summary.exit_code, got.summary.timed_out) == (124, True)
    assert got.output == oracle(["--timeout", "0.5", "--", "sh", "-c", "echo started; exec sleep 60"], check=False)[0]


def test_timeout_as_text_and_kill_after():
    # The command ignores SIGTERM: SIGKILL after --kill-after ends it.
    got = capout.run(["sh", "-c", "trap '' TERM; echo up; sleep 60"], timeout="300ms", kill_after="200ms")
    assert got.output == b"up\n... (command timed out after 300ms)\n"
    assert got.summary.exit_code == 124


def test_a_signal_death_is_told():
    got = capout.run(["sh", "-c", "echo before; kill -TERM $$"])
    assert got.output == b"before\n"
    assert (got.summary.exit_code, got.summary.signal) == (143, 15)


def test_a_command_not_found_raises_file_not_found():
    _, err, status = oracle(["--", "capout-no-such-command"], check=False)
    assert status == 127
    with pytest.raises(FileNotFoundError) as raised:
        capout.run(["capout-no-such-command"])
    assert "capout: " + str(raised.value) + "\n" == err.decode()


def test_a_file_not_executable_raises_permission_error(tmp_path):
    script = tmp_path / "script"
    script.write_text("echo hi\n")
    with pytest.raises(PermissionError):
        capout.run([str(script)])


def test_no_command_is_a_value_error():
    with pytest.raises(ValueError, match="no command to run"):
        capout.run([])


def test_a_bad_timeout_is_the_clis_message():
    _, err, _ = oracle(["--timeout", "soon", "--", "true"], check=False)
    with pytest.raises(ValueError) as raised:
        capout.run(["true"], timeout="soon")
    assert err.decode().startswith("error: " + str(raised.value))


def test_the_command_reads_end_of_file_on_stdin():
    assert capout.run(["cat"]).output == b"(no output)\n"


def test_the_command_runs_in_a_process_group_of_its_own():
    got = capout.run([sys.executable, "-c", "import os; print(os.getpgrp() == os.getpid())"])
    assert got.output == b"True\n"


def test_sigint_after_run_raises_keyboard_interrupt():
    # The interpreter's own handler stays in charge once the command has
    # ended; before, SIGINT then killed the interpreter (status 130).
    code = (
        "import capout, os, signal, time\n"
        "capout.run(['true'])\n"
        "try:\n"
        "    os.kill(os.getpid(), signal.SIGINT)\n"
        "    deadline = time.monotonic() + 30\n"
        "    while time.monotonic() < deadline: time.sleep(0.01)\n"
        "    print('no interrupt')\n"
        "except KeyboardInterrupt:\n"
        "    print('KeyboardInterrupt')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, b"KeyboardInterrupt\n")


def test_run_releases_the_interpreter(tmp_path):
    import threading

    # The command, once started, waits for a file that another Python
    # thread makes when it sees the command's own file: the thread can
    # only while run has released the lock. Held, the command times out.
    ready, flag = tmp_path / "ready", tmp_path / "flag"

    def answer():
        deadline = time.monotonic() + 60
        while not ready.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        flag.touch()

    thread = threading.Thread(target=answer)
    thread.start()
    script = f"touch {ready}; while [ ! -e {flag} ]; do sleep 0.01; done; echo seen"
    got = capout.run(["sh", "-c", script], timeout=30)
    thread.join()
    assert (got.output, got.summary.timed_out) == (b"seen\n", False)
