"""A tool's standard output going away: `mmair-opt ... | head -1` must end quietly, like a Unix tool.

Kept free of xDSL and numpy imports so that the light tools (mmair-desc, mmair-tune) can use it
without paying for them at start-up.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Sequence


def stdout_closed() -> int:
    """Exit status when the reader of stdout went away (`mmair-run ... | head`): like a Unix
    tool, stop quietly; stdout is pointed at /dev/null so the interpreter's final flush is silent."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 1


def quiet_broken_pipe(main: Callable[..., int]) -> Callable[..., int]:
    """Wrap a tool's `main(argv)` so that a reader closing stdout ends the tool quietly
    (`stdout_closed`, exit 1) instead of a BrokenPipeError traceback. stdout is flushed inside the
    wrapper: the last buffered write would otherwise fail at interpreter exit, outside any handler."""

    @functools.wraps(main)
    def wrapper(argv: Sequence[str] | None = None) -> int:
        try:
            code = main(argv)
            sys.stdout.flush()
        except BrokenPipeError:
            return stdout_closed()
        return code

    return wrapper
