"""The GM conversion cache of `mte_gm_l1` trusts GM write generations only where every GM write is
reported (issue 13): a reported write (fixpipe, UB -> GM) invalidates the windows of its array and
only those; runs of modules with other GM writers keep validating by content."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.parser import Parser

from mmair.executor.ascend import kernels as K
from mmair.executor.engine.memory import Memory
from mmair.executor.runner import gm_writes_known, run_module
from mmair.tools.opt import MmairOptMain

ROOT = Path(__file__).resolve().parents[4]
RNG = np.random.default_rng(13)


def small_ints(shape: tuple[int, int]) -> np.ndarray:
    return RNG.integers(-3, 4, size=shape).astype(np.float16)


def tracked_memory() -> Memory:
    mem = Memory("a2")
    mem.gm.tracked = True
    return mem


def test_a_reported_gm_write_invalidates_the_cached_window() -> None:
    mem = tracked_memory()
    b1 = mem.place("l1", (32, 32), "zz", "f16", offset=0)
    c0 = mem.place("l0c", (32, 32), "nz", "f32", offset=0)
    g = small_ints((64, 32))
    window = g[16:48]
    for _ in range(3):  # the second load converts and caches, the third hits
        K.mte_gm_l1(window, b1, 32, 32)
    cached = b1.image
    K.mte_gm_l1(window, b1, 32, 32)
    assert b1.image is cached  # no write since: the same conversion, without comparing bytes
    new = small_ints((32, 32)).astype(np.float32)
    K.write_logical(c0, new)
    K.fixpipe(c0, g[20:52], 32, 32, quant="f322f16")  # overlaps the window's rows 4..31
    K.mte_gm_l1(window, b1, 32, 32)
    assert b1.image is not cached
    expected = g[16:48].astype(np.float32)
    np.testing.assert_array_equal(b1.image, expected)
    np.testing.assert_array_equal(b1.image[4:], new[:28])


def test_a_write_to_another_gm_array_keeps_the_cached_window() -> None:
    mem = tracked_memory()
    b1 = mem.place("l1", (32, 32), "zz", "f16", offset=0)
    c0 = mem.place("l0c", (32, 32), "nz", "f32", offset=0)
    g, other = small_ints((32, 32)), np.zeros((32, 32), np.float16)
    for _ in range(2):
        K.mte_gm_l1(g, b1, 32, 32)
    cached = b1.image
    K.write_logical(c0, np.ones((32, 32), np.float32))
    K.fixpipe(c0, other, 32, 32, quant="f322f16")
    K.mte_gm_l1(g, b1, 32, 32)
    assert b1.image is cached
    np.testing.assert_array_equal(b1.image, g.astype(np.float32))


def test_an_ub_to_gm_copy_is_a_reported_write() -> None:
    mem = tracked_memory()
    b1 = mem.place("l1", (32, 32), "zz", "f16", offset=0)
    ub = mem.place("ub", (32, 32), "nd", "f16", offset=0)
    g = small_ints((32, 32))
    for _ in range(2):
        K.mte_gm_l1(g, b1, 32, 32)
    new = small_ints((32, 32))
    ub.physical[...] = new
    K.copy_tile_to_gm(ub, g)
    K.mte_gm_l1(g, b1, 32, 32)
    np.testing.assert_array_equal(b1.image, new.astype(np.float32))


def _module(text: str):
    ctx: Context = MmairOptMain(args=[]).ctx
    return Parser(ctx, text).parse_module()


STORE_THEN_RELOAD = """
builtin.module attributes {pto.target = "a2"} {
  func.func @k(%g: memref<32x32xf16>, %c: memref<32x32xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c32 = arith.constant 32 : index
    %v = arith.constant 7.0 : f16
    %b_l1 = pto.alloc {offset = 0 : i64} : !pto.tile<l1, 32x32xf16, zz>
    %a_l1 = pto.alloc {offset = 4096 : i64} : !pto.tile<l1, 32x32xf16, nz>
    %a_l0a = pto.alloc {offset = 0 : i64} : !pto.tile<l0a, 32x32xf16, zz>
    %b_l0b = pto.alloc {offset = 0 : i64} : !pto.tile<l0b, 32x32xf16, zn>
    %c_l0c = pto.alloc {offset = 0 : i64} : !pto.tile<l0c, 32x32xf32, nz>
    scf.for %r = %c0 to %c3 step %c1 {
      pto.mte_gm_l1 %g, %b_l1, %c32, %c32 : memref<32x32xf16>, !pto.tile<l1, 32x32xf16, zz>
    }
    memref.store %v, %g[%c1, %c1] : memref<32x32xf16>
    pto.mte_gm_l1 %g, %b_l1, %c32, %c32 : memref<32x32xf16>, !pto.tile<l1, 32x32xf16, zz>
    pto.mte_gm_l1 %g, %a_l1, %c32, %c32 : memref<32x32xf16>, !pto.tile<l1, 32x32xf16, nz>
    pto.mte_l1_l0a %a_l1, %a_l0a, %c32, %c32 : !pto.tile<l1, 32x32xf16, nz>, !pto.tile<l0a, 32x32xf16, zz>
    pto.mte_l1_l0b %b_l1, %b_l0b, %c32, %c32 : !pto.tile<l1, 32x32xf16, zz>, !pto.tile<l0b, 32x32xf16, zn>
    pto.mad %a_l0a, %b_l0b, %c_l0c, %c32, %c32, %c32 : !pto.tile<l0a, 32x32xf16, zz>, !pto.tile<l0b, 32x32xf16, zn>, !pto.tile<l0c, 32x32xf32, nz>
    pto.fixpipe %c_l0c, %c, %c32, %c32 : !pto.tile<l0c, 32x32xf32, nz>, memref<32x32xf32>
    func.return
  }
}
"""


def test_a_module_with_an_unreported_gm_writer_validates_by_content() -> None:
    module = _module(STORE_THEN_RELOAD)
    assert not gm_writes_known(module)  # memref.store writes GM without telling the cache
    g = small_ints((32, 32))
    result = run_module(module, inputs={"g": g, "c": np.zeros((32, 32), np.float32)},
                        sync_check=False)
    stored = g.copy()
    stored[1, 1] = 7.0
    f32 = stored.astype(np.float32)
    np.testing.assert_array_equal(result.outputs["c"], f32 @ f32)


@pytest.mark.parametrize("example", ["gemm_f16_128.mlir"])
def test_lowered_kernels_of_known_ops_track_gm_writes(example: str) -> None:
    module = _module((ROOT / "examples" / example).read_text())
    assert gm_writes_known(module)
