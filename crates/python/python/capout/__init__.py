"""capout: bound output, and say what was cut.

The options are those of the ``capout`` command, in snake case
(``tail_chars=5000``, ``head_lines=500``, ``strip_ansi=True``), with its
defaults: with no cap, the last 5000 characters are kept; a line cap
keeps 2000 characters of each line. A bad option raises ``ValueError``
with the message ``capout`` prints for it.

    >>> import capout
    >>> capout.cap("one\\ntwo\\nthree\\n", head_lines=2).output
    b'one\\ntwo\\n... (truncated, showing lines 1-2 of 3, next offset 2)\\n'
"""

from capout._capout import Capper, Result, Summary, Tools, __version__, cap, run

__all__ = ["Capper", "Result", "Summary", "Tools", "__version__", "cap", "run"]
