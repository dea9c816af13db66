"""Fixpipe faults the mutation harness found unpinned (docs/mutation.md, area `executor-pto`):
each wrong-size operand is one runtime error with its own message, and a legal write of the same
shapes lands where the layout says. Expected values are literals (sizes, element counts)."""

from __future__ import annotations

import numpy as np
import pytest

from mmair.executor import kernels as K
from mmair.executor.errors import ExecutionError
from mmair.executor.memory import Memory


def _acc(mem: Memory, m: int, n: int) -> tuple[np.ndarray, object]:
    """An L0C tile holding c = 0, 1, 2, ... (m x n) in f32, written through the kernels' own
    logical writer (its layout is pinned by test_executor_edges)."""
    c = np.arange(m * n, dtype=np.float32).reshape(m, n)
    tile = mem.place("l0c", (m, n), "nz", "f32")
    K.write_logical(tile, c)
    return c, tile


def test_quant_vector_shorter_than_n_is_refused():
    mem = Memory("a2")
    c, C = _acc(mem, 16, 32)
    vec = mem.place("fb", (1, 16), "nd", "u64")
    vec.physical[...] = np.float32(0.5).view(np.uint32)  # scale 0.5, shift 0
    out = np.zeros((16, 32), np.float16)
    with pytest.raises(ExecutionError, match=r"requires a quant vector of at least 32 words, got 16"):
        K.fixpipe(C, out, 16, 32, quant="vdeqf16", vector=vec)
    K.fixpipe(C, out, 16, 16, quant="vdeqf16", vector=vec)  # 16 columns: 16 words suffice
    assert np.array_equal(out[:, :16], (c[:, :16] * 0.5).astype(np.float16))
    assert not out[:, 16:].any()


def test_fixpipe_into_a_tile_checks_the_written_shape():
    mem = Memory("a2")
    c, C = _acc(mem, 16, 32)
    short = mem.place("ub", (8, 32), "nd", "f32")
    with pytest.raises(ExecutionError, match=r"requires rows in \[0, 8\] \(rows of the destination"
                                             r" .*\), got 16"):
        K.fixpipe(C, short, 16, 32)
    narrow = mem.place("ub", (16, 16), "nd", "f32")
    with pytest.raises(ExecutionError, match=r"requires cols in \[0, 16\] \(columns of the "
                                             r"destination .*\), got 32"):
        K.fixpipe(C, narrow, 16, 32)
    # nz2dn writes C^T (32 x 16): a 16 x 32 tile is too short for it, a 32 x 16 one fits.
    with pytest.raises(ExecutionError, match=r"requires rows in \[0, 16\] \(rows of the destination"
                                             r" .*\), got 32"):
        K.fixpipe(C, mem.place("ub", (16, 32), "nd", "f32"), 16, 32, layout="nz2dn")
    fits = mem.place("ub", (32, 16), "nd", "f32")
    K.fixpipe(C, fits, 16, 32, layout="nz2dn")
    assert np.array_equal(K.read_logical(fits), c.T)


def test_fixpipe_into_gm_checks_rank_and_extent():
    mem = Memory("a2")
    c, C = _acc(mem, 16, 32)
    with pytest.raises(ExecutionError, match=r"nz2nz to GM requires a 4-D memref, got shape \(16, 32\)"):
        K.fixpipe(C, np.zeros((16, 32), np.float32), 16, 32, layout="nz2nz")
    # (N1, M1, 16, c0) = (1, 1, 16, 16): room for 16 x 16, not 16 x 32.
    with pytest.raises(ExecutionError, match=r"writes \[16 x 32\] beyond the nz GM memref of 16x16 elements"):
        K.fixpipe(C, np.zeros((1, 1, 16, 16), np.float32), 16, 32, layout="nz2nz")
    with pytest.raises(ExecutionError, match=r"writes \[16 x 32\] beyond the GM memref of shape 16x16"):
        K.fixpipe(C, np.zeros((16, 16), np.float32), 16, 32)
    with pytest.raises(ExecutionError, match=r"writes \[32 x 16\] beyond the GM memref of shape 16x32"):
        K.fixpipe(C, np.zeros((16, 32), np.float32), 16, 32, layout="nz2dn")
    out = np.zeros((32, 16), np.float32)
    K.fixpipe(C, out, 16, 32, layout="nz2dn")
    assert np.array_equal(out, c.T)
