"""Tests written to kill mutation survivors (issue 18) in isa/ascend/hif8.py, executor/engine/memory.py
and executor/engine/multicore.py: HiF8 encoding at the table's edges, 1-D tile rows, 4-bit write-back of
wide integer arrays, the `gm` space refusal, a core whose pipe is stuck at its `pto.sync_all`, and
a waiting core that must not run past the barrier once the launch has failed."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
from multicore_testing import KERNEL, inputs, parse

from mmair.executor.engine.errors import ExecutionError
from mmair.executor.engine.events import SyncError
from mmair.executor.engine.memory import Memory
from mmair.executor.engine.multicore import Launch
from mmair.executor.runner import run_module
from mmair.isa.ascend.hif8 import encode_hif8_exact

# --- isa/ascend/hif8.py ---------------------------------------------------------------------------


def test_hif8_encoder_edges_of_the_table():
    # Literal codes from the HiF8 definition (module docstring of isa/ascend/hif8.py):
    # 0x01 = 2^-22 (denormal M = 1), 0x07 = 2^-16 (M = 7), 0x08 = 1.0 (dot 0001), 0x6E = 2^15,
    # 0x6F / 0xEF = +-inf, sign bit 0x80 for negative values.
    values = np.array([2.0**-22, -(2.0**-22), 2.0**-16, 1.0, -1.0, 2.0**15, -(2.0**15),
                       math.inf, -math.inf])
    want = [0x01, 0x81, 0x07, 0x08, 0x88, 0x6E, 0xEE, 0x6F, 0xEF]
    assert encode_hif8_exact(values).tolist() == want


def test_hif8_negative_zero_is_code_zero_not_nan():
    # 0x80 is NaN in HiF8 (there is no -0): -0.0 encodes as 0x00
    assert encode_hif8_exact(np.array([-0.0, 0.0, math.nan])).tolist() == [0x00, 0x00, 0x80]


def test_hif8_values_past_the_largest_finite_are_refused():
    # 2^16 sorts between 2^15 (0x6E) and +inf (0x6F): not a HiF8 value, one clear message
    with pytest.raises(ValueError, match=r"^65536\.0 is not a HiF8 value$"):
        encode_hif8_exact(np.array([1.0, 2.0**16]))
    with pytest.raises(ValueError, match=r"^-1e\+300 is not a HiF8 value$"):
        encode_hif8_exact(np.array([-1e300]))


def test_hif8_encoder_judges_values_in_float64():
    # 1 + 2^-30 rounds to 1.0 in float32: a float64 value that is not HiF8 must not pass
    with pytest.raises(ValueError, match=r"^1\.0000000009313226 is not a HiF8 value$"):
        encode_hif8_exact(np.array([1.0 + 2.0**-30]))


# --- executor/engine/memory.py -------------------------------------------------------------------------


def test_one_dimensional_tile_is_one_row():
    mem = Memory("a2")
    vector = mem.place("ub", (48,), "nd", "f16")
    assert (vector.rows, vector.cols) == (1, 48)
    matrix = mem.place("ub", (3, 16), "nd", "f16")
    assert (matrix.rows, matrix.cols) == (3, 16)


def test_s4_tile_stores_any_integer_array_as_nibbles():
    mem = Memory("a2")
    tile = mem.place("ub", (64,), "nd", "s4")
    wide = np.tile(np.array([-8, -1, 0, 7], dtype=np.int64), 16)
    tile.store_values(wide)
    # element 2i in the low nibble of byte i: (-8, -1) -> 0xF8, (0, 7) -> 0x70
    assert tile.physical.reshape(-1)[:4].tolist() == [0xF8, 0x70, 0xF8, 0x70]
    assert tile.values().astype(np.int64).reshape(-1).tolist() == wide.tolist()


def test_gm_is_not_an_on_chip_space():
    with pytest.raises(ExecutionError, match=r"^gm is not an on-chip space: GM data are memref arguments"):
        Memory("a2").space("gm")


# --- executor/engine/multicore.py ----------------------------------------------------------------------

STUCK = KERNEL.format(window="arith.addi %o, %o : index", sync="""%z = arith.constant 0 : index
    %first = arith.cmpi eq, %i, %z : index
    scf.if %first {
      pto.wait_flag mte2 -> mte3, 3
    }
    pto.sync_all""")
"""Block 0's MTE3 pipe waits for a flag no one sets, then the core reaches `pto.sync_all`."""

STUCK_MESSAGE = ("deadlock: the scalar unit waits at 'pto.sync_all' at k.mlir:20:5 (pipe s) for every "
                 "pipe to finish; pipe mte3 waits at 'pto.wait_flag' at k.mlir:18:7 (pipe mte3) for "
                 "flag mte2 -> mte3 event 3: no set_flag that could release them is issued or can run")


@pytest.mark.parametrize("blocks", [1, 2])
def test_pipe_stuck_at_sync_all_is_a_deadlock_of_that_core(blocks):
    # SyncAll waits for every pipe of its core (PIPE_ALL): the deadlock is reported at block 0's
    # sync_all, naming block 0's scalar unit (no ", core N"), not at kernel end or at block 1
    with pytest.raises(SyncError, match=r"deadlock: the scalar unit waits at 'pto\.sync_all'") as info:
        run_module(parse(STUCK), inputs=inputs(), blocks=blocks, sync_check=True)
    assert info.value.message == STUCK_MESSAGE
    assert [(e.core, str(e.pipe)) for e in info.value.events] == [(0, "s"), (0, "mte3")]


def test_waiting_core_does_not_run_past_sync_all_after_a_deadlock():
    # Block 0 waits at its sync_all, block 1 ends without one: the launch reports the deadlock and
    # block 0's thread stops at the barrier (Abort) instead of running the code after it.
    launch = Launch(2)
    interp = SimpleNamespace(iteration=())
    ran_after_barrier: list[int] = []

    def block0() -> None:
        launch.sync_all(0, None, interp)
        ran_after_barrier.append(0)

    with pytest.raises(SyncError, match=r"^deadlock: block 0 waits at 'pto\.sync_all' \(their sync_all "
                                        r"number 1\), but block 1 ended without reaching it"):
        launch.run([block0, lambda: None])
    assert ran_after_barrier == []
