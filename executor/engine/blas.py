"""BLAS threading while the executor runs."""

from __future__ import annotations

import sys
from typing import Any

_CONTROLLER: tuple[int, Any] | None = None
"""(len(sys.modules) when made, threadpoolctl's controller of the loaded BLAS libraries)."""


def one_blas_thread() -> Any:
    """A context that limits BLAS (OpenBLAS, MKL, BLIS) to one thread while the executor runs and
    restores the caller's settings after it. The executor makes thousands of small sgemm calls
    (one per mad tile); multi-threaded OpenBLAS spins its threads on such calls and collapses
    when the cores are shared with other work (a 40 us tile took 15 ms on a loaded 2-core
    machine). Scoped to the run: user code and numpy outside keep their thread counts.

    threadpoolctl finds the loaded libraries by walking the process's shared objects (~2.5 ms,
    a few percent of a short run), so the controller is kept and made again only when modules
    were imported since (a new extension module may have brought its own BLAS)."""
    global _CONTROLLER
    from threadpoolctl import ThreadpoolController

    modules = len(sys.modules)
    if _CONTROLLER is None or _CONTROLLER[0] != modules:
        _CONTROLLER = (modules, ThreadpoolController())
    return _CONTROLLER[1].limit(limits=1, user_api="blas")
