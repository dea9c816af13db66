"""The executor runs with one BLAS thread per instruction (issue 13): the limit holds inside the
run (seen from a mad kernel) and the caller's BLAS settings are untouched outside it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits

from mmair.executor.ascend import kernels
from mmair.executor.runner import run_module
from mmair.tools.run import main as run_main

ROOT = Path(__file__).resolve().parents[4]


def _blas_threads() -> list[int]:
    return [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]


def _lowered_matmul():
    from xdsl.context import Context

    from mmair.dialects import get_all_dialects
    from mmair.tools.diagnostics import LocatingParser

    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    text = (ROOT / "examples" / "gemm_f16_128.mlir").read_text()
    return LocatingParser(ctx, text, "gemm_f16_128.mlir").parse_module()


def test_one_blas_thread_inside_the_run_caller_settings_kept(monkeypatch):
    seen: list[list[int]] = []
    real_mad = kernels.mad

    def spy(*args, **kwargs):
        seen.append(_blas_threads())
        return real_mad(*args, **kwargs)

    monkeypatch.setattr(kernels, "mad", spy)
    if not _blas_threads():  # numpy without a BLAS threadpoolctl knows: nothing to limit
        return
    with threadpool_limits(limits=2, user_api="blas"):
        before = _blas_threads()
        assert before and all(n == 2 for n in before)
        run_module(_lowered_matmul())
        assert _blas_threads() == before
        # numpy itself still multiplies with the caller's setting after the run
        a = np.ones((64, 64), np.float32)
        assert (a @ a == 64).all()
    assert seen, "the kernel ran no mad"
    assert all(threads == [1] * len(before) for threads in seen)


def test_cli_run_keeps_blas_settings(tmp_path, capsys):
    with threadpool_limits(limits=2, user_api="blas"):
        before = _blas_threads()
        assert run_main([str(ROOT / "examples" / "gemm_f16_128.mlir"), "--check-numpy"]) == 0
        assert _blas_threads() == before
    capsys.readouterr()


def test_the_blas_controller_is_kept_until_a_module_is_imported(monkeypatch):
    import sys
    import types

    from mmair.executor.engine import blas

    with blas.one_blas_thread():
        assert _blas_threads() and set(_blas_threads()) == {1}
    kept = blas._CONTROLLER
    with blas.one_blas_thread():
        pass
    assert blas._CONTROLLER is kept  # no second walk of the loaded libraries
    monkeypatch.setitem(sys.modules, "mmair_test_new_module", types.ModuleType("m"))
    with blas.one_blas_thread():
        assert set(_blas_threads()) == {1}
    assert blas._CONTROLLER is not kept  # an import may have loaded another BLAS
