"""How a tool ends when it is cut short: its standard output going away (`mmair-opt ... | head -1`
ends quietly, like a Unix tool) or Ctrl-C (one line `interrupted` on stderr, exit 130 as a shell
reports SIGINT, no traceback). `quiet_broken_pipe` wraps every tool's `main`; `startup_interrupt`
covers the imports before it (a console script imports the whole tool first; `mmair.tools`
calls it on import).

Kept free of xDSL and numpy imports so that the light tools (mmair-desc, mmair-tune) can use it
without paying for them at start-up.
"""

from __future__ import annotations

import functools
import os
import signal
import sys
from collections.abc import Callable, Sequence


def stdout_closed() -> int:
    """Exit status when the reader of stdout went away (`mmair-run ... | head`): like a Unix
    tool, stop quietly; stdout is pointed at /dev/null so the interpreter's final flush is silent."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 1


INTERRUPTED = 130
"""Exit status after Ctrl-C: 128 + SIGINT, what a shell reports for a process SIGINT ended."""


def interrupted() -> int:
    """Say `interrupted` on stderr (one line) and return the exit status 130."""
    try:
        sys.stderr.write("interrupted\n")
        sys.stderr.flush()
    except (OSError, ValueError):  # stderr gone too
        pass
    return INTERRUPTED


def _interrupted_at_startup(_signum: int, _frame: object) -> None:
    os.write(2, b"interrupted\n")
    os._exit(INTERRUPTED)  # nothing is open yet: no file to clean up, no worker to stop


TOOLS = ("mmair-opt", "mmair-run", "mmair-desc", "mmair-show", "mmair-translate", "mmair-tune")
"""The console scripts (pyproject.toml's [project.scripts])."""


def startup_interrupt() -> None:
    """When this process is one of the console scripts (`sys.argv[0]` names it), end a Ctrl-C that
    arrives while the tool is still importing xDSL and numpy with the same one line and exit 130
    (the `try` in `quiet_broken_pipe` is not running yet); `python -m mmair.tools.X` too.
    `quiet_broken_pipe` puts Python's own handler back before `main` runs. An ignored SIGINT (`nohup`, a background job) stays ignored,
    and a library import of the tool module is left alone."""
    name = sys.argv[0] if sys.argv else ""
    # `python -m mmair.tools.run`: while Python imports the module's parent packages, argv[0] is
    # "-m" (it becomes the module's path only when the module itself runs).
    if os.path.basename(name) not in TOOLS and name != "-m":
        return
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        return
    signal.signal(signal.SIGINT, _interrupted_at_startup)


def quiet_broken_pipe(main: Callable[..., int]) -> Callable[..., int]:
    """Wrap a tool's `main(argv)` so that a reader closing stdout ends the tool quietly
    (`stdout_closed`, exit 1) instead of a BrokenPipeError traceback, and Ctrl-C ends it with one
    line `interrupted` and exit 130 (`interrupted`; an output being written is not left half
    written: `cli.write_output` removes its temporary file, worker processes are stopped by the
    code that started them). stdout is flushed inside the wrapper: the last buffered write would
    otherwise fail at interpreter exit, outside any handler."""

    @functools.wraps(main)
    def wrapper(argv: Sequence[str] | None = None) -> int:
        if signal.getsignal(signal.SIGINT) is _interrupted_at_startup:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            code = main(argv)
            sys.stdout.flush()
        except BrokenPipeError:
            return stdout_closed()
        except KeyboardInterrupt:
            return interrupted()
        return code

    return wrapper
