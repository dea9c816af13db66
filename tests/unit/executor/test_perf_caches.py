"""The caches behind the benchmarks (issue 6) never change a result.

Executor: operand images of L1/L0 tiles (`Tile.image`) and the GM conversion cache of
`kernels.mte_gm_l1`. mmair-opt: the type-text cache and incremental locations of `LocatingParser`,
the memoized verification of `verify_module`, the deferred numpy import of the console script.
Every expected value is computed independently (numpy on the data that is in GM at the time).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.utils.exceptions import ParseError

from mmair.executor.ascend import kernels as K
from mmair.executor.engine.memory import Memory
from mmair.tools.diagnostics import OpVerifyError, SourceFile
from mmair.tools.opt import MmairOptMain

ROOT = Path(__file__).resolve().parents[3]
RNG = np.random.default_rng(6)


def normal(shape: tuple[int, int]) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float16)


def gemm_tiles(mem: Memory, m: int, n: int, k: int):
    a1 = mem.place("l1", (m, k), "nz", "f16", offset=0)
    b1 = mem.place("l1", (k, n), "zz", "f16", offset=65536)
    a0 = mem.place("l0a", (m, k), "zz", "f16")
    b0 = mem.place("l0b", (k, n), "zn", "f16")
    c0 = mem.place("l0c", (m, n), "nz", "f32")
    return a1, b1, a0, b0, c0


def mad_via_moves(a1, b1, a0, b0, c0, m: int, n: int, k: int) -> np.ndarray:
    K.mte_l1_l0(a1, a0, m, k)
    K.mte_l1_l0(b1, b0, k, n)
    K.mad(a0, b0, c0, m, n, k)
    return K.read_logical(c0, m, n)


def reference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a.astype(np.float32) @ b.astype(np.float32)


# ------------------------------------------------------------------------------------------------
# Executor: operand images
# ------------------------------------------------------------------------------------------------


def test_loads_record_images_that_the_moves_carry_to_l0() -> None:
    mem = Memory("a2")
    a1, b1, a0, b0, c0 = gemm_tiles(mem, 64, 48, 32)
    a, b = normal((64, 32)), normal((32, 48))
    K.mte_gm_l1(a, a1, 64, 32)
    K.mte_gm_l1(b, b1, 32, 48)
    assert a1.image is not None and a1.image.dtype == np.float32
    got = mad_via_moves(a1, b1, a0, b0, c0, 64, 48, 32)
    assert a0.image is not None and b0.image is not None
    np.testing.assert_array_equal(a0.image, a.astype(np.float32))
    np.testing.assert_array_equal(got, reference(a, b))


def test_a_write_through_an_aliasing_tile_drops_the_image() -> None:
    mem = Memory("a2")
    a1, b1, a0, b0, c0 = gemm_tiles(mem, 32, 32, 32)
    a, b, a_new = normal((32, 32)), normal((32, 32)), normal((32, 32))
    K.mte_gm_l1(a, a1, 32, 32)
    K.mte_gm_l1(b, b1, 32, 32)
    mad_via_moves(a1, b1, a0, b0, c0, 32, 32, 32)
    # Overwrite L0A's bytes through another tile at the same address (a reinterpret-like alias).
    alias = mem.place("l0a", (32, 32), "zz", "f16", offset=a0.offset)
    K.write_logical(alias, a_new)
    assert a0.image is None
    K.mad(a0, b0, c0, 32, 32, 32)
    np.testing.assert_array_equal(K.read_logical(c0, 32, 32), reference(a_new, b))


def test_a_direct_move_between_element_types_does_not_reuse_the_image() -> None:
    mem = Memory("a2")
    src = mem.place("l1", (32, 32), "nz", "f16", offset=0)
    dst = mem.place("l0a", (32, 32), "zz", "bf16")
    K.mte_gm_l1(normal((32, 32)), src, 32, 32)
    assert src.image is not None
    K.mte_l1_l0(src, dst, 32, 32)
    assert dst.image is None  # the bytes mean bf16 values now


def test_gm_cache_sees_writes_to_gm() -> None:
    mem = Memory("a2")
    a1, b1, a0, b0, c0 = gemm_tiles(mem, 32, 32, 64)
    a, b = normal((32, 64)), normal((64, 32))
    for _ in range(3):  # the second load caches the converted window, the third reuses it
        K.mte_gm_l1(a, a1, 32, 64)
        K.mte_gm_l1(b, b1, 64, 32)
    np.testing.assert_array_equal(mad_via_moves(a1, b1, a0, b0, c0, 32, 32, 64), reference(a, b))
    b[5, 7] = np.float16(1000.0)  # a GM write no op announced
    K.mte_gm_l1(b, b1, 64, 32)
    np.testing.assert_array_equal(mad_via_moves(a1, b1, a0, b0, c0, 32, 32, 64), reference(a, b))


def test_partial_loads_and_larger_mads_fall_back_to_the_bytes() -> None:
    mem = Memory("a2")
    a1, b1, a0, b0, c0 = gemm_tiles(mem, 32, 32, 32)
    a_full, b = normal((32, 32)), normal((32, 32))
    K.mte_gm_l1(a_full, a1, 32, 32)
    K.mte_gm_l1(b, b1, 32, 32)
    a_top = normal((16, 32))
    K.mte_gm_l1(a_top, a1, 16, 32)  # rows 16..31 keep a_full's values
    assert a1.image is not None and a1.image.shape == (16, 32)
    got = mad_via_moves(a1, b1, a0, b0, c0, 32, 32, 32)
    expected_a = np.concatenate([a_top, a_full[16:]])
    np.testing.assert_array_equal(got, reference(expected_a, b))


def test_free_standing_tiles_keep_no_images() -> None:
    mem = Memory("a2")
    t = mem.place("l1", (32, 32), "nz", "f16")
    free = K.Tile(t.space, t.offset, t.shape, t.layout, t.element, t.physical, t.nbytes)
    K.mte_gm_l1(normal((32, 32)), free, 32, 32)
    assert free.image is None


# ------------------------------------------------------------------------------------------------
# mmair-opt: parser caches and memoized verification
# ------------------------------------------------------------------------------------------------

TILE = "!pto.tile<l1, 32x32xf16, nz>"


def kernel(sizes: list[int]) -> str:
    lines = ['builtin.module attributes {pto.target = "a2"} {',
             "  func.func @k(%g: memref<32x32xf16>) {",
             f"    %t = pto.alloc : {TILE}"]
    for i, size in enumerate(sizes):
        lines.append(f"    %s{i} = arith.constant {size} : index")
        lines.append(f"    pto.mte_gm_l1 %g, %t, %s{i}, %s{i} : memref<32x32xf16>, {TILE}")
    lines += ["    func.return", "  }", "}"]
    return "\n".join(lines) + "\n"


def parse_and_verify(text: str):
    tool = MmairOptMain(args=["-"])
    return tool.parse_and_verify(text, SourceFile("k.mlir", text), 0)


def test_repeated_types_are_one_instance_with_exact_locations() -> None:
    module = parse_and_verify(kernel([32, 16, 32]))
    moves = [op for op in module.walk() if op.name == "pto.mte_gm_l1"]
    assert moves[0].operands[1].type is moves[2].operands[1].type
    assert [op.location.line.data for op in moves] == [5, 7, 9]
    assert all(op.location.column.data == 5 for op in moves)


def test_memoized_verification_still_checks_each_distinct_op() -> None:
    with pytest.raises(OpVerifyError, match=r"requires dst tile of at least 33x33 \(rows x cols\), got 32x32") as info:
        parse_and_verify(kernel([32, 32, 33]))  # the third move differs only in its size
    assert info.value.op.location.line.data == 9
    assert "33" in info.value.message


def test_memoized_verification_keys_on_the_target() -> None:
    good = kernel([32])
    assert parse_and_verify(good) is not None
    with pytest.raises(OpVerifyError, match=r'requires pto.target in \[.*\], got "no_such_target"'):
        parse_and_verify(good.replace('"a2"', '"no_such_target"'))


def _count_verifications(monkeypatch: pytest.MonkeyPatch, memo: bool) -> int:
    from mmair.dialects.pto import MteGmL1Op

    calls = []
    stock = MteGmL1Op.verify_
    monkeypatch.setattr(MteGmL1Op, "verify_", lambda op: (calls.append(op), stock(op)))
    monkeypatch.setattr(MteGmL1Op, "MEMO_VERIFY", memo)
    parse_and_verify(kernel([32, 32, 32]))  # three equal moves
    return len(calls)


def test_memoized_verification_is_opt_in_per_op_class(monkeypatch: pytest.MonkeyPatch) -> None:
    # An op class that sets MEMO_VERIFY is verified once per distinct op; one that does not (its
    # rules look at other ops, like the flag pairing of the sync ops) every time.
    assert _count_verifications(monkeypatch, True) == 1
    assert _count_verifications(monkeypatch, False) == 3


def test_a_parse_error_after_cached_types_is_located() -> None:
    bad = "!pto.tile<l1, 32x32xf16, bogus>"
    text = kernel([32, 32]).replace(f"%s1 : memref<32x32xf16>, {TILE}", f"%s1 : memref<32x32xf16>, {bad}")
    with pytest.raises(ParseError, match=r"requires layout in \[dn, nd, nn, nz, zn, zz\], got bogus") as info:
        parse_and_verify(text)
    location = info.value.span.get_location()
    assert (location.line, "bogus" in info.value.msg) == (7, True)


def test_the_console_script_parses_pto_without_importing_numpy() -> None:
    code = ("import sys; from mmair.tools.opt import main; sys.argv = ['mmair-opt', "
            f"{str(ROOT / 'examples' / 'gemm_f16_128.mlir')!r}, '-o', '/dev/null']; rc = main(); "
            "print(rc, 'numpy._core' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0", "False"]


# ------------------------------------------------------------------------------------------------
# Benchmark kernels
# ------------------------------------------------------------------------------------------------


def test_benchmark_kernels_hold_the_requested_op_count() -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from kernels import arith_kernel, pto_kernel
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    for ops in (9, 100, 257):
        assert sum(1 for _ in parse_and_verify(pto_kernel(ops)).walk()) == ops
        assert sum(1 for _ in parse_and_verify(arith_kernel(ops)).walk()) == ops
