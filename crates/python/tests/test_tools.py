"""The bounded tools in a pydantic-ai agent, driven by FunctionModel:
what the model receives is the MCP server's text."""

import os
import re
import subprocess

import pytest

from pydantic_ai import Agent
from pydantic_ai.messages import ModelRequest, ModelResponse, RetryPromptPart, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

import capout
from capout.pydantic_ai import capout_tools
from conftest import oracle


def agent_call(root, tool, args, tools=None):
    """Runs an agent whose model calls TOOL with ARGS once; returns what came back to the model."""
    seen = []

    def model(messages, info: AgentInfo):
        last = messages[-1]
        returned = [p for p in last.parts if isinstance(p, (ToolReturnPart, RetryPromptPart))]
        if not returned:
            assert {t.name for t in info.function_tools} == {"read", "grep", "bash"}
            return ModelResponse(parts=[ToolCallPart(tool_name=tool, args=args)])
        seen.extend(returned)
        return ModelResponse(parts=[TextPart("done")])

    agent = Agent(FunctionModel(model), tools=tools or capout_tools(root))
    assert agent.run_sync("go").output == "done"
    assert len(seen) == 1
    return seen[0]


def test_bash_seq_100000_gives_the_model_the_tail_and_the_saved_output(tmp_path):
    # The tools live on after the run: their saved outputs with them.
    tools = capout_tools(tmp_path)
    part = agent_call(tmp_path, "bash", {"command": "seq 100000"}, tools)
    assert isinstance(part, ToolReturnPart)
    text = part.content
    full = subprocess.run(["seq", "100000"], capture_output=True, check=True).stdout.decode()
    notice = re.fullmatch(r"(?s)(.*)\n\.\.\. \(truncated, showing last 5000 chars; full output: (\S+)\)\n", text)
    assert notice, text[-300:]
    assert notice.group(1) + "\n" == full[-5000:]
    saved = notice.group(2)
    # The saved output is outside the root, and read pages it.
    assert not saved.startswith(str(tmp_path))
    assert open(saved).read() == full
    page = agent_call(tmp_path, "read", {"path": saved, "offset": 99998}, tools)
    assert page.content == " 99999\t99999\n100000\t100000\n... (showing lines 99999-100000 of 100000, end of input)\n"


def test_read_of_3000_lines_is_the_first_page_with_its_notice(tmp_path):
    lines = "".join(f"line {i}\n" for i in range(1, 3001))
    (tmp_path / "big.txt").write_text(lines)
    part = agent_call(tmp_path, "read", {"path": "big.txt"})
    assert isinstance(part, ToolReturnPart)
    want = oracle(["-N", "--head-lines", "500", "--max-line-chars", "2000"], lines.encode())[0].decode()
    assert part.content == want
    assert part.content.startswith("     1\tline 1\n")
    assert part.content.endswith("   500\tline 500\n... (truncated, showing lines 1-500 of 3000, next offset 500)\n")
    second = agent_call(tmp_path, "read", {"path": "big.txt", "offset": 2990})
    assert second.content == "".join(f"{i:6}\tline {i}\n" for i in range(2991, 3001)) + (
        "... (showing lines 2991-3000 of 3000, end of input)\n"
    )


def test_grep_with_many_hits_shows_50_and_the_total(tmp_path):
    (tmp_path / "hits.txt").write_text("".join(f"hit {i}\n" for i in range(1, 1001)))
    part = agent_call(tmp_path, "grep", {"pattern": "hit"})
    assert isinstance(part, ToolReturnPart)
    want = "".join(f"hits.txt:{i}:hit {i}\n" for i in range(1, 51)) + "... (1000 total, showing first 50)\n"
    assert part.content == want


def test_a_path_outside_the_root_is_a_retry_with_the_servers_error(tmp_path):
    part = agent_call(tmp_path, "read", {"path": "/etc/passwd"})
    assert (part.content, part.outcome) == ("'/etc/passwd' is outside the root", "retried")
    with pytest.raises(ValueError) as raised:
        capout.Tools(tmp_path).read("/etc/passwd")
    assert str(raised.value) == part.content


def test_tools_are_the_mcp_servers(tmp_path):
    tools = capout.Tools(tmp_path)
    (tmp_path / "empty.txt").write_text("")
    assert tools.read("empty.txt") == "(no output)\n"
    assert tools.grep("nothing") == "No matches found.\n"
    assert tools.bash("exit 4") == "(no output)\n(exit status 4)\n"
    assert tools.bash("echo hi; sleep 60", timeout=1) == "hi\n... (command timed out after 1s)\n(exit status 124)\n"
    with pytest.raises(ValueError, match="is a directory"):
        tools.read(".")
    with pytest.raises(ValueError, match="limit must be at least 1"):
        tools.read("empty.txt", limit=0)


def test_a_panic_in_a_tool_call_is_an_error_of_that_call(tmp_path, monkeypatch):
    # A debug build's grep panics when CAPOUT_TEST_PANIC says so.
    tools = capout.Tools(tmp_path)
    monkeypatch.setenv("CAPOUT_TEST_PANIC", "grep")
    with pytest.raises(ValueError) as raised:
        tools.grep("x")
    assert str(raised.value) == "the tool failed: a bug in capout: CAPOUT_TEST_PANIC asked grep to panic"
    # The interpreter and the tools go on.
    assert tools.bash("echo still here") == "still here\n"


def test_each_call_is_a_line_of_the_ledger_and_a_page_read_back_counts(tmp_path, monkeypatch):
    import json

    state = tmp_path / "state"
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    root = tmp_path / "root"
    root.mkdir()
    with capout.Tools(root) as tools:
        text = tools.bash("seq 100000 | sed s/^/zq/")
        saved = re.search(r"; full output: (\S+)\)\n$", text).group(1)
        tools.read(saved, 500, 10)
    ledger = (state / "capout" / "ledger.jsonl").read_text()
    assert "zq99999" not in ledger, "the output is never in the ledger"
    bash, page = [json.loads(line) for line in ledger.splitlines()]
    assert (bash["front"], bash["tool"], bash["command"]) == ("python", "bash", "seq 100000 | sed s/^/zq/")
    assert (bash["cut"], bash["saved"], bash["exit"], bash["chars_in"]) == (True, saved, 0, 788_895)
    assert bash["chars_shown"] == len(text)
    assert (page["front"], page["tool"], page["page_of"]) == ("python", "read", saved)
    assert oct(os.stat(state / "capout" / "ledger.jsonl").st_mode & 0o777) == "0o600"
