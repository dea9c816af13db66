"""BLAS threading while the executor runs."""

from __future__ import annotations

from typing import Any


def one_blas_thread() -> Any:
    """A context that limits BLAS (OpenBLAS, MKL, BLIS) to one thread while the executor runs and
    restores the caller's settings after it. The executor makes thousands of small sgemm calls
    (one per mad tile); multi-threaded OpenBLAS spins its threads on such calls and collapses
    when the cores are shared with other work (a 40 us tile took 15 ms on a loaded 2-core
    machine). Scoped to the run: user code and numpy outside keep their thread counts."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")
