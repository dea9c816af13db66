"""`tcgen05.shift` and `tcgen05.mma .ashift` (docs/executor-tcgen05.md, "Row shifts"): rows move
down one lane, the first row is undefined (marked, and reading it with tcgen05.ld is an error),
D rows computed from an undefined A row are undefined; numerics against numpy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mmair.executor.tcgen05.kernels import mma, shift
from mmair.executor.tcgen05.memories import (
    UNDEFINED_CELL,
    SharedMemory,
    Tcgen05ExecutionError,
    TensorMemory,
)
from mmair.executor.tcgen05.operands import read_d, write_smem_operand, write_tmem_operand
from mmair.isa.tcgen05 import InstrDesc, SmemDesc, encode_idesc, encode_smem_desc, layouts
from mmair.isa.tcgen05.tmem_moves import SHIFT_COLUMNS, SHIFT_LANES, shift_rows
from mmair.tools.run import main

RNG = np.random.default_rng(14)


def test_shift_rows_moves_each_row_down_one_lane() -> None:
    destination, source, first = shift_rows(32, SHIFT_LANES)
    assert first == 32
    assert destination.tolist() == list(range(33, 64))  # the 31 rows of ".31x256b"
    assert source.tolist() == list(range(32, 63))


def test_shift_moves_a_32_byte_element_per_lane_and_leaves_the_first_lane_undefined() -> None:
    tmem = TensorMemory()
    at = tmem.alloc(32)
    before = RNG.integers(0, 2**31, (128, 32), dtype=np.uint32)
    tmem.cells[:, :32] = before
    assert shift(tmem, layouts.tmem_address(32, 8)) == (32, 32, 8, SHIFT_COLUMNS)
    cells = tmem.cells[:, :32]
    np.testing.assert_array_equal(cells[33:64, 8:16], before[32:63, 8:16])  # moved down
    np.testing.assert_array_equal(cells[:32], before[:32])  # lanes above the address: kept
    np.testing.assert_array_equal(cells[64:], before[64:])  # and below its 32 lanes
    np.testing.assert_array_equal(cells[:, :8], before[:, :8])  # other columns: kept
    np.testing.assert_array_equal(cells[:, 16:], before[:, 16:])
    assert (cells[32, 8:16] == UNDEFINED_CELL).all()
    assert np.isnan(cells[32, 8:16].view(np.float32)).all()  # a memref read shows NaN
    assert np.isnan(cells[32, 8:16].view(np.float16)[0::2]).all()  # as f16 (low half) too
    with pytest.raises(Tcgen05ExecutionError, match=r"reads TMEM lane 32 column 8 with "
                       r"tcgen05.ld, whose value the PTX ISA leaves undefined"):
        tmem.check_defined(np.array([[31, 32]]), np.array([[8, 8]]), "tcgen05.ld")
    tmem.check_defined(np.array([[31, 33]]), np.array([[8, 8]]), "tcgen05.ld")
    # A second shift carries the undefined row down: lanes 32 and 33 are undefined now.
    shift(tmem, at + (32 << 16) + 8)
    assert tmem.undefined_cells(slice(32, 35), slice(8, 9)).ravel().tolist() == [True, True,
                                                                                 False]
    # Rewriting a cell (here as memref.copy would) makes it defined again.
    tmem.cells[32, 8] = 7
    assert not tmem.undefined_cells(slice(32, 33), slice(8, 9)).any()
    assert at == 0


def test_check_defined_names_the_cell_for_broadcast_index_arrays() -> None:
    """Lanes (L, 1) and columns (1, C) broadcast to the (L, C) cells read: the report names the
    first undefined cell of that grid (indexing the operands with its position would raise)."""
    tmem = TensorMemory()
    tmem.alloc(32)
    tmem.mark_undefined(5, slice(3, 4))
    with pytest.raises(Tcgen05ExecutionError, match=r"reads TMEM lane 5 column 3 with tcgen05.ld"):
        tmem.check_defined(np.arange(8)[:, None], np.arange(8)[None, :], "tcgen05.ld")
    with pytest.raises(Tcgen05ExecutionError, match=r"reads TMEM lane 5 column 3 with tcgen05.ld"):
        tmem.check_defined(np.array([[5]]), np.arange(2, 6)[None, :], "tcgen05.ld")
    tmem.check_defined(np.arange(5)[:, None], np.arange(8)[None, :], "tcgen05.ld")  # lanes 0-4


def test_shift_lane_must_be_aligned_to_32() -> None:
    tmem = TensorMemory()
    tmem.alloc(32)
    with pytest.raises(Tcgen05ExecutionError, match="requires the tcgen05.shift address lane to "
                       "be a multiple of 32, got lane 16"):
        shift(tmem, layouts.tmem_address(16, 0))


def test_shift_of_unallocated_columns_is_refused() -> None:
    tmem = TensorMemory()
    with pytest.raises(Tcgen05ExecutionError, match="requires the tcgen05.shift rows in "
                       "allocated TMEM columns, got column 0, which is not allocated"):
        shift(tmem, 0)


def _ashift_mma(tmem: TensorMemory, smem: SharedMemory, a_at: int, d: int, b_word: int,
                accumulate: bool) -> None:
    mma(smem, tmem, kind="f16", d=d, a=a_at, a_in_tmem=True, b=b_word,
        idesc=encode_idesc(InstrDesc(kind="f16", m=128, n=64, atype="f16", btype="f16",
                                     dtype="f32")),
        enable_input_d=accumulate, ashift=True)


def _setup() -> tuple[TensorMemory, SharedMemory, int, int, int, np.ndarray, np.ndarray]:
    tmem, smem = TensorMemory(), SharedMemory()
    d = tmem.alloc(64)
    a_at = tmem.alloc(32)
    a = RNG.integers(-4, 5, (128, 16)).astype(np.float64)
    b = RNG.integers(-4, 5, (16, 64)).astype(np.float64)
    write_tmem_operand(tmem, a_at, a, type_name="f16", kind="f16")
    desc = SmemDesc(start=0, lbo=64 * 16, sbo=128, base_offset=0, swizzle="none")
    write_smem_operand(smem, desc, b.T, major="k", type_name="f16", kind="f16")
    return tmem, smem, a_at, d, encode_smem_desc(desc), a, b


def test_ashift_mma_reads_a_shifted_down_one_row() -> None:
    tmem, smem, a_at, d, b_word, a, b = _setup()
    _ashift_mma(tmem, smem, a_at, d, b_word, accumulate=False)
    result = read_d(tmem, d, "f32", 128, 64)
    np.testing.assert_array_equal(result[1:], a[:-1] @ b)  # D row i = A row i - 1 x B
    assert np.isnan(result[0]).all()  # from the undefined first row of A
    assert tmem.undefined_cells(slice(0, 1), slice(0, 64)).all()
    # A in TMEM keeps the shift (8 cells = 16 f16 per row): row i + 1 holds old row i.
    a_cells = tmem.cells[:, layouts.tmem_column(a_at):layouts.tmem_column(a_at) + 8]
    np.testing.assert_array_equal(a_cells[1:].view(np.float16).astype(np.float64), a[:-1])
    assert tmem.undefined_cells(slice(0, 2), slice(32, 40)).any(axis=1).tolist() == [True, False]


def test_second_ashift_accumulates_and_widens_the_undefined_rows() -> None:
    tmem, smem, a_at, d, b_word, a, b = _setup()
    _ashift_mma(tmem, smem, a_at, d, b_word, accumulate=False)
    _ashift_mma(tmem, smem, a_at, d, b_word, accumulate=True)
    result = read_d(tmem, d, "f32", 128, 64)
    np.testing.assert_array_equal(result[2:], a[1:-1] @ b + a[:-2] @ b)
    assert np.isnan(result[:2]).all()
    assert tmem.undefined_cells(slice(0, 3), slice(0, 64)).all(axis=1).tolist() == [True, True,
                                                                                 False]


KERNEL = """builtin.module attributes {{tcgen05.target = "sm_100a"}} {{
  func.func @k(%out: memref<32x8xi32>) {{
    %t = tcgen05.alloc cta_group(1) columns(32) : memref<128x32xi32, #tcgen05.space<tmem>>
    %i0 = arith.constant 0 : index
    %i1 = arith.constant 1 : index
    %i128 = arith.constant 128 : index
    scf.for %r = %i0 to %i128 step %i1 {{
      %value = arith.index_cast %r : index to i32
      memref.store %value, %t[%r, %i0] : memref<128x32xi32, #tcgen05.space<tmem>>
    }}
    tcgen05.shift cta_group(1) %t : memref<128x32xi32, #tcgen05.space<tmem>>
{sync}    %r = tcgen05.ld shape("32x32b") num(8) warp({warp}) lane({lane}) column(0) %t : memref<128x32xi32, #tcgen05.space<tmem>> -> memref<32x8xi32>
    tcgen05.wait_ld
    "memref.copy"(%r, %out) : (memref<32x8xi32>, memref<32x8xi32>) -> ()
    tcgen05.dealloc cta_group(1) %t : memref<128x32xi32, #tcgen05.space<tmem>>
    func.return
  }}
}}
"""
SYNC = """    %bars = tcgen05.smem_alloc offset(0) : memref<1xi64, #tcgen05.space<smem>>
    tcgen05.mbarrier_init %bars count(1) : memref<1xi64, #tcgen05.space<smem>>
    tcgen05.commit cta_group(1) %bars : memref<1xi64, #tcgen05.space<smem>>
    %p = arith.constant false
    tcgen05.mbarrier_wait %bars, %p : memref<1xi64, #tcgen05.space<smem>>
"""
STORE = """    %regs = memref.alloc() : memref<32x8xi32>
    tcgen05.st shape("32x32b") num(8) warp(0) lane(0) column(0) %t, %regs : memref<128x32xi32, #tcgen05.space<tmem>>, memref<32x8xi32>
    tcgen05.wait_st
"""


def _kernel(tmp_path: Path, name: str, warp: int, sync: str) -> Path:
    path = tmp_path / f"{name}.mlir"
    path.write_text(KERNEL.format(warp=warp, lane=32 * warp, sync=sync))
    return path


def test_ld_of_the_undefined_first_lane_is_an_error(capsys, tmp_path: Path) -> None:
    path = _kernel(tmp_path, "first", 0, SYNC)
    assert main([str(path), "-p", "mmair-lower"]) == 1
    err = capsys.readouterr().err
    ld = next(i for i, x in enumerate(path.read_text().splitlines()) if "tcgen05.ld" in x)
    assert err.startswith(
        f"{path}:{ld + 1}:5: error: 'tcgen05.ld' op reads TMEM lane 0 column 0 with tcgen05.ld, "
        "whose value the PTX ISA leaves undefined")
    assert "Traceback" not in err


def test_lanes_outside_the_shifted_32_keep_their_values(capsys, tmp_path: Path) -> None:
    path = _kernel(tmp_path, "second", 1, SYNC)
    assert main([str(path), "-p", "mmair-lower", "--output", f"out={tmp_path / 'o.npy'}"]) == 0
    out = np.load(tmp_path / "o.npy")
    np.testing.assert_array_equal(out[:, 0], np.arange(32, 64))  # lanes 32..63: not moved
    np.testing.assert_array_equal(out[:, 1:], np.zeros((32, 7)))


def test_st_under_an_uncommitted_shift_is_a_race(capsys, tmp_path: Path) -> None:
    path = _kernel(tmp_path, "race", 1, STORE)
    assert main([str(path), "-p", "mmair-lower"]) == 1
    err = capsys.readouterr().err
    assert "error: 'tcgen05.st' op race on TMEM lanes [0, 32) x columns [0, 8) (%t): " \
           "'tcgen05.st' at" in err
    assert "'tcgen05.shift' at" in err and "(the tensor core's async unit) writes them" in err


ASHIFT_KERNEL = """builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @conv(%a: memref<128x16xf16>, %b: memref<2x64x8xf16>, %d: memref<128x64xf32>) {
    %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 64>
    %b_desc = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 0, lbo = 1024, sbo = 128, base_offset = 0, lbo_mode = relative, swizzle = none>
    %b_smem = tcgen05.smem_alloc offset(0) : memref<2x64x8xf16, #tcgen05.space<smem>>
    "memref.copy"(%b, %b_smem) : (memref<2x64x8xf16>, memref<2x64x8xf16, #tcgen05.space<smem>>) -> ()
    %acc = tcgen05.alloc cta_group(1) columns(64) : memref<128x64xf32, #tcgen05.space<tmem>>
    %a_tmem = tcgen05.alloc cta_group(1) columns(32) : memref<128x16xf16, #tcgen05.space<tmem>>
    "memref.copy"(%a, %a_tmem) : (memref<128x16xf16>, memref<128x16xf16, #tcgen05.space<tmem>>) -> ()
    %first = arith.constant false
    %then = arith.constant true
    tcgen05.mma kind(f16) cta_group(1) ashift %acc, %a_tmem, %b_desc, %idesc, %first : memref<128x64xf32, #tcgen05.space<tmem>>, memref<128x16xf16, #tcgen05.space<tmem>>
    tcgen05.mma kind(f16) cta_group(1) ashift %acc, %a_tmem, %b_desc, %idesc, %then : memref<128x64xf32, #tcgen05.space<tmem>>, memref<128x16xf16, #tcgen05.space<tmem>>
    "memref.copy"(%acc, %d) : (memref<128x64xf32, #tcgen05.space<tmem>>, memref<128x64xf32>) -> ()
    tcgen05.dealloc cta_group(1) %a_tmem : memref<128x16xf16, #tcgen05.space<tmem>>
    tcgen05.dealloc cta_group(1) %acc : memref<128x64xf32, #tcgen05.space<tmem>>
    func.return
  }
}
"""


def test_ashift_kernel_matches_numpy_and_the_reference(capsys, tmp_path: Path) -> None:
    a = RNG.integers(-4, 5, (128, 16)).astype(np.float16)
    b = RNG.integers(-4, 5, (16, 64)).astype(np.float16)
    path = tmp_path / "conv.mlir"
    path.write_text(ASHIFT_KERNEL)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b.T.reshape(64, 2, 8).transpose(1, 0, 2).copy())
    code = main([str(path), "-p", "mmair-lower", "--check-numpy", "--input",
                 f"a={tmp_path / 'a.npy'}", "--input", f"b={tmp_path / 'b.npy'}", "--output",
                 f"d={tmp_path / 'd.npy'}"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert captured.out.startswith("check d = numpy tcgen05.mma reference: max abs error 0")
    assert captured.out.rstrip().endswith(": ok")
    d = np.load(tmp_path / "d.npy")
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    # Two .ashift MMAs: D row i = A row i - 1 x B + A row i - 2 x B; rows 0 and 1 undefined.
    np.testing.assert_array_equal(d[2:], a32[1:-1] @ b32 + a32[:-2] @ b32)
    assert np.isnan(d[:2]).all()


def test_ashift_with_a_in_shared_memory_is_refused_by_the_verifier(capsys, tmp_path: Path) -> None:
    path = tmp_path / "bad.mlir"
    path.write_text(ASHIFT_KERNEL.replace("ashift %acc, %a_tmem", "ashift %acc, %b_desc", 1)
                    .replace("%idesc, %first : memref<128x64xf32, #tcgen05.space<tmem>>, "
                             "memref<128x16xf16, #tcgen05.space<tmem>>",
                             "%idesc, %first : memref<128x64xf32, #tcgen05.space<tmem>>, i64"))
    assert main([str(path), "-p", "mmair-lower"]) == 1
    err = capsys.readouterr().err
    assert "ashift" in err and "Traceback" not in err
