"""The bounded tools of ``capout --mcp`` for pydantic-ai agents.

``read``, ``grep`` and ``bash`` are the MCP server's own code, reached
through the extension: the same texts, notices, caps and root rules.
A tool error (a path outside the root, a missing file, a bad pattern)
reaches the model as a retry prompt with the server's error text.

    from pydantic_ai import Agent
    from capout.pydantic_ai import capout_tools

    agent = Agent("openai:gpt-4.1", tools=capout_tools("."))
"""

from typing import List, Optional, Union
import os

from pydantic_ai import ModelRetry, Tool

from capout._capout import Tools

__all__ = ["capout_tools"]

# How often a model may retry a tool whose call was an error.
RETRIES = 3


def capout_tools(root: Union[str, "os.PathLike[str]"] = ".") -> List[Tool]:
    """The tools ``read``, ``grep`` and ``bash`` over ``root``, which paths may not leave."""
    tools = Tools(root)

    def read(path: str, offset: int = 0, limit: Optional[int] = None) -> str:
        """Read a text file: its lines, each numbered as `cat -n` numbers them.

        At most `limit` lines (default 500) are shown, starting after `offset`. When more
        follow, the last line is a notice `... (truncated, showing lines A-B of T, next
        offset B)`: call read again with offset B to see the next lines. A line longer than
        2000 characters is cut.

        Args:
            path: The file to read: relative to the root, or a path that a bash notice named.
            offset: Lines to skip before the first one shown.
            limit: The most lines to show (default 500).
        """
        try:
            return tools.read(path, offset, limit)
        except ValueError as e:
            raise ModelRetry(str(e)) from None

    def grep(
        pattern: str,
        path: str = ".",
        glob: Optional[str] = None,
        case_insensitive: bool = False,
    ) -> str:
        """Search file contents with a regular expression, as ripgrep does.

        Each matching line is `path:line:text`. At most 50 matching lines are shown; when
        there are more, the last line says `... (T total, showing first 50)`: narrow the
        pattern, the path or the glob to see the rest.

        Args:
            pattern: The regular expression (Rust regex syntax, as ripgrep's).
            path: The file or folder to search, relative to the root.
            glob: Search only files whose names match this glob, such as "*.py".
            case_insensitive: Match without regard to case.
        """
        try:
            return tools.grep(pattern, path, glob, case_insensitive)
        except ValueError as e:
            raise ModelRetry(str(e)) from None

    def bash(command: str, timeout: int = 120) -> str:
        """Run a shell command (`sh -c COMMAND`) in the root, stdout and stderr joined, no stdin.

        Only the last 5000 characters of its output are shown; when more was written, a
        notice names the file that holds the whole output, which read pages and grep
        searches. A non-zero exit status ends the text with `(exit status N)`.

        Args:
            command: The command, run as `sh -c COMMAND` in the root.
            timeout: Seconds before the command is stopped (SIGTERM, then SIGKILL 5 s later).
        """
        try:
            return tools.bash(command, timeout)
        except ValueError as e:
            raise ModelRetry(str(e)) from None

    return [Tool(f, max_retries=RETRIES) for f in (read, grep, bash)]
