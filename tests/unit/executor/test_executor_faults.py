"""Every runtime error class of the executor through `mmair-run`: one located `error:` line, exit 1,
no traceback, and no `--output` file written (or overwritten) by a failed run.

Classes: capacity (bump allocation, explicit footprint), alignment, bounds (GM index, subview
window, tile extent), TMEM use after dealloc and double dealloc, dynamic sizes out of range
(negative, beyond a tile, beyond a GatherMask field, zero/negative loop step), bad .npy inputs
(shape, dtype, not .npy, pickled object array, missing file), resource bounds (--max-ops,
--max-gm-bytes, recursion).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from mmair.tools.run import main


def run(capsys, tmp_path, source: str, *argv: str) -> tuple[int, str, str]:
    path = tmp_path / "k.mlir"
    path.write_text(source)
    code = main([str(path), *argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def expect_error(capsys, tmp_path, source: str, *argv: str, message: str,
                 line: int | None = None) -> str:
    """Run; require exit 1 and exactly one `error:` line matching `message` (a regex), located at
    `line` of the kernel when given."""
    code, out, err = run(capsys, tmp_path, source, *argv)
    assert code == 1, (out, err)
    errors = [text for text in err.splitlines() if "error:" in text]
    assert len(errors) == 1, err
    assert re.search(message, errors[0]), errors[0]
    if line is not None:
        assert re.match(rf".*k\.mlir:{line}:\d+: error: ", errors[0]), errors[0]
    return errors[0]


# ---- capacity and alignment ------------------------------------------------------------------

CAPACITY = """func.func @cap() {
  %a = pto.alloc : !pto.tile<l0a, 128x128xf16, zz>
  %b = pto.alloc : !pto.tile<l0a, 128x128xf16, zz>
  %c = pto.alloc : !pto.tile<l0a, 128x128xf16, zz>
  func.return
}
"""


def test_capacity_bump_allocation(capsys, tmp_path):
    # Two 32 KB tiles fill the 64 KB L0A of a2; the third does not fit.
    expect_error(capsys, tmp_path, CAPACITY, line=4,
                 message=r"buffer %c of 32768 bytes does not fit in l0a: 65536 bytes already "
                         r"allocated, capacity 65536 bytes")


def test_capacity_explicit_offset(capsys, tmp_path):
    source = """func.func @over() {
  %a = pto.alloc {offset = 524160 : i64} : !pto.tile<l1, 16x16xf16, nz>
  func.return
}
"""
    # 16x16 f16 = 512 bytes from 524160 ends at 524672 > 512 KB of L1.
    expect_error(capsys, tmp_path, source, line=2, message=r"524288.*524672")


def test_alignment(capsys, tmp_path):
    source = """func.func @align() {
  %a = pto.alloc {offset = 100 : i64} : !pto.tile<l1, 16x16xf16, nz>
  func.return
}
"""
    expect_error(capsys, tmp_path, source, line=2, message=r"aligned to 32 bytes, got 100")


# ---- bounds ------------------------------------------------------------------------------------

LOAD = """func.func @load(%x: memref<4x4xf32>, %i: index) -> f32 {
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%i, %c0] : memref<4x4xf32>
  func.return %v : f32
}
"""


@pytest.mark.parametrize("index", ["4", "-1", str(2**63)])
def test_bounds_gm_index(capsys, tmp_path, index):
    expect_error(capsys, tmp_path, LOAD, "--input", f"i={index}", line=3,
                 message=rf"index \[{index}, 0\] out of bounds for memref of shape 4x4")


SUBVIEW = """func.func @sub(%x: memref<64x64xf16>, %o: index, %rows: index) {
  %c16 = arith.constant 16 : index
  %t = pto.alloc : !pto.tile<l1, 16x16xf16, nz>
  %w = memref.subview %x[%o, 0] [16, 16] [1, 1] : memref<64x64xf16> to memref<16x16xf16, strided<[64, 1], offset: ?>>
  pto.mte_gm_l1 %w, %t, %rows, %c16 : memref<16x16xf16, strided<[64, 1], offset: ?>>, !pto.tile<l1, 16x16xf16, nz>
  func.return
}
"""


def test_bounds_subview_window(capsys, tmp_path):
    # Rows 49..64 of a 64-row memref: one row past the end.
    expect_error(capsys, tmp_path, SUBVIEW, "--input", "o=49", "--input", "rows=16", line=4,
                 message=r"subview dim 0: offset 49, size 16, stride 1 out of bounds for memref "
                         r"of shape 64x64")


@pytest.mark.parametrize("rows", ["17", "-1", str(2**62)])
def test_dynamic_size_out_of_tile(capsys, tmp_path, rows):
    expect_error(capsys, tmp_path, SUBVIEW, "--input", "o=0", "--input", f"rows={rows}", line=5,
                 message=rf"requires rows in \[0, 16\] \(rows of the destination tile %t\), got {rows}")


def test_dynamic_size_zero_is_a_no_op(capsys, tmp_path):
    code, _, err = run(capsys, tmp_path, SUBVIEW, "--input", "o=0", "--input", "rows=0")
    assert code == 0, err


GATHER = """builtin.module attributes {pto.target = "a2"} {
  func.func @gather(%repeat: index, %blk: index, %mask: index) -> index {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %src = pto.alloc : !pto.tile<ub, 256xui32, nd>
    %dst = pto.alloc : !pto.tile<ub, 256xui32, nd>
    %n = pto.gather_mask %dst, %src, %mask, %repeat, %blk, %c8, %c0 {pattern = 7 : i64, counter} : !pto.tile<ub, 256xui32, nd>, !pto.tile<ub, 256xui32, nd>
    func.return %n : index
  }
}
"""


@pytest.mark.parametrize(("repeat", "blk", "mask", "message"), [
    (256, 1, 8, r"requires repeat_times in \[0, 255\] \(GatherMaskParams field\), got 256"),
    (-1, 1, 8, r"requires repeat_times in \[0, 255\] \(GatherMaskParams field\), got -1"),
    (1, 256, 8, r"requires src0_block_stride in \[0, 255\] \(GatherMaskParams field\), got 256"),
    (1, 1, 2**32, r"requires mask in \[0, 4294967295\] \(counter-mode element count\), got 4294967296"),
    # A legal 2^31 counter mask over 48 repeats: 103079215104 elements, rejected before numpy
    # would allocate index arrays for them.
    (48, 1, 2**31, r"processes 103079215104 elements in one instruction, more than the "
                   r"simulator's limit of 4194304"),
    # Within the limit but beyond the 256-element src0.
    (2, 1, 200, r"reads src0 element \d+ .* beyond the 256-element src0 tile %src"),
])
def test_dynamic_gather_mask_fields(capsys, tmp_path, repeat, blk, mask, message):
    expect_error(capsys, tmp_path, GATHER, "--input", f"repeat={repeat}", "--input", f"blk={blk}",
                 "--input", f"mask={mask}", line=7, message=message)


LOOP = """func.func @loop(%n: index, %step: index) {
  %c0 = arith.constant 0 : index
  scf.for %i = %c0 to %n step %step {
    %x = arith.addi %i, %i : index
  }
  func.return
}
"""


@pytest.mark.parametrize("step", ["0", "-3"])
def test_loop_step(capsys, tmp_path, step):
    expect_error(capsys, tmp_path, LOOP, "--input", "n=10", "--input", f"step={step}", line=3,
                 message=rf"requires a positive step, got {step}")


# ---- TMEM use after dealloc ------------------------------------------------------------------

TMEM = """func.func @uad(%en: i1) {
  %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 256>
  %a_desc = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 1024, lbo = 16, sbo = 1024, base_offset = 0, lbo_mode = relative, swizzle = sw128>
  %b_desc = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 17408, lbo = 16, sbo = 1024, swizzle = sw128>
  %d = tcgen05.alloc cta_group(1) columns(256) : memref<128x256xf32, #tcgen05.space<tmem>>
  tcgen05.dealloc cta_group(1) %d : memref<128x256xf32, #tcgen05.space<tmem>>
  LAST
  func.return
}
"""


def test_tmem_use_after_dealloc(capsys, tmp_path):
    source = TMEM.replace("LAST", "tcgen05.mma kind(f16) cta_group(1) %d, %a_desc, %b_desc, %idesc, "
                                  "%en : memref<128x256xf32, #tcgen05.space<tmem>>, i64")
    expect_error(capsys, tmp_path, source, "-p", "mmair-lower", "--input", "en=1", line=7,
                 message=r"'tcgen05.mma' op requires D in allocated TMEM columns, got column 0, "
                         r"which was deallocated")


def test_tmem_double_dealloc(capsys, tmp_path):
    source = TMEM.replace("LAST", "tcgen05.dealloc cta_group(1) %d : memref<128x256xf32, "
                                  "#tcgen05.space<tmem>>")
    expect_error(capsys, tmp_path, source, "-p", "mmair-lower", "--input", "en=1", line=7,
                 message=r"'tcgen05.dealloc' op requires the address of a live TMEM allocation")


# ---- bad .npy inputs -------------------------------------------------------------------------


def test_npy_wrong_shape(capsys, tmp_path):
    np.save(tmp_path / "x.npy", np.zeros((4, 5), np.float32))
    expect_error(capsys, tmp_path, LOAD, "--input", f"x={tmp_path / 'x.npy'}", "--input", "i=0",
                 message=r"input 'x' has shape 4x5, the argument needs 4x4")


def test_npy_wrong_dtype(capsys, tmp_path):
    np.save(tmp_path / "x.npy", np.zeros((4, 4), np.float64))
    expect_error(capsys, tmp_path, LOAD, "--input", f"x={tmp_path / 'x.npy'}", "--input", "i=0",
                 message=r"input 'x' has dtype float64, the argument is memref<4x4xf32> "
                         r"\(numpy float32\)")


def test_npy_scalar_for_a_memref(capsys, tmp_path):
    np.save(tmp_path / "x.npy", np.float32(1.0))
    expect_error(capsys, tmp_path, LOAD, "--input", f"x={tmp_path / 'x.npy'}", "--input", "i=0",
                 message=r"input 'x' has shape scalar, the argument needs 4x4")


def test_npy_not_a_npy_file(capsys, tmp_path):
    (tmp_path / "x.npy").write_text("1 2 3\n")
    expect_error(capsys, tmp_path, LOAD, "--input", f"x={tmp_path / 'x.npy'}", "--input", "i=0",
                 message=r"'.*x\.npy' for 'x' is not a \.npy file")


def test_npy_truncated(capsys, tmp_path):
    np.save(tmp_path / "x.npy", np.zeros((4, 4), np.float32))
    data = (tmp_path / "x.npy").read_bytes()
    (tmp_path / "x.npy").write_bytes(data[: len(data) - 10])
    expect_error(capsys, tmp_path, LOAD, "--input", f"x={tmp_path / 'x.npy'}", "--input", "i=0",
                 message=r"cannot read '.*x\.npy' for 'x'")


def test_npy_header_declaring_terabytes_is_truncated_not_a_memory_error(capsys, tmp_path):
    np.save(tmp_path / "x.npy", np.zeros((4, 4), np.float32))
    data = (tmp_path / "x.npy").read_bytes().replace(b"'shape': (4, 4)", b"'shape': (99999999999, 4)")
    (tmp_path / "x.npy").write_bytes(data)
    expect_error(capsys, tmp_path, LOAD, "--input", f"x={tmp_path / 'x.npy'}", "--input", "i=0",
                 message=r"cannot read '.*x\.npy' for 'x': truncated \(\d+ of 1599999999984 data "
                         r"bytes\)")


def test_npy_pickled_object_array(capsys, tmp_path):
    np.save(tmp_path / "x.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    expect_error(capsys, tmp_path, LOAD, "--input", f"x={tmp_path / 'x.npy'}", "--input", "i=0",
                 message=r"'.*x\.npy' for 'x' holds Python objects \(a pickled array\)")


def test_npy_missing(capsys, tmp_path):
    expect_error(capsys, tmp_path, LOAD, "--input", f"x={tmp_path / 'none.npy'}", "--input", "i=0",
                 message=r"cannot read '.*none\.npy' for 'x'")


# ---- no half-written output ------------------------------------------------------------------

WRITE_THEN_FAULT = """func.func @k(%x: memref<4x4xf32>, %y: memref<4x4xf32>, %i: index) {
  %c0 = arith.constant 0 : index
  %v = arith.constant 7.0 : f32
  memref.store %v, %y[%c0, %c0] : memref<4x4xf32>
  memref.store %v, %x[%i, %c0] : memref<4x4xf32>
  func.return
}
"""


def test_failed_run_writes_no_output(capsys, tmp_path):
    out = tmp_path / "y.npy"
    expect_error(capsys, tmp_path, WRITE_THEN_FAULT, "--input", "i=9", "--output", f"y={out}",
                 line=5, message=r"index \[9, 0\] out of bounds")
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".mmair-run-")] == []


def test_failed_run_keeps_existing_output(capsys, tmp_path):
    out = tmp_path / "y.npy"
    previous = np.arange(16, dtype=np.float32).reshape(4, 4)
    np.save(out, previous)
    expect_error(capsys, tmp_path, WRITE_THEN_FAULT, "--input", "i=9", "--output", f"y={out}",
                 message=r"out of bounds")
    np.testing.assert_array_equal(np.load(out), previous)


def test_successful_run_writes_output(capsys, tmp_path):
    out = tmp_path / "y.npy"
    code, _, err = run(capsys, tmp_path, WRITE_THEN_FAULT, "--input", "i=1", "--output", f"y={out}")
    assert code == 0, err
    assert np.load(out)[0, 0] == 7.0


# ---- resource bounds -------------------------------------------------------------------------


def test_max_ops_ends_a_runaway_loop(capsys, tmp_path):
    # 2^62 iterations: ended after the budget of 1000 ops (loop body: addi + yield).
    expect_error(capsys, tmp_path, LOOP, "--input", f"n={2**62}", "--input", "step=1",
                 "--max-ops", "1000", message=r"execution exceeded 1000 operations")


def test_max_ops_allows_a_run_within_the_budget(capsys, tmp_path):
    # constant + for + 10 x (addi + yield) + return = 23 ops.
    code, _, err = run(capsys, tmp_path, LOOP, "--input", "n=10", "--input", "step=1",
                       "--max-ops", "23")
    assert code == 0, err
    expect_error(capsys, tmp_path, LOOP, "--input", "n=10", "--input", "step=1", "--max-ops", "22",
                 line=6, message=r"'func.return' op execution exceeded 22 operations")


def test_max_gm_bytes_rejects_huge_random_input(capsys, tmp_path):
    source = """func.func @huge(%x: memref<1048576x1048576xf32>) {
  func.return
}
"""
    # 2^40 f32 = 4 TiB: rejected before numpy would try to allocate it.
    expect_error(capsys, tmp_path, source,
                 message=r"argument 'x' of shape 1048576x1048576 \(4398046511104 bytes\) exceeds "
                         r"the GM buffer limit of 4294967296 bytes")


def test_max_gm_bytes_rejects_huge_alloc(capsys, tmp_path):
    source = """func.func @alloc(%n: index) {
  %m = memref.alloc(%n) : memref<?x1024xf32>
  func.return
}
"""
    expect_error(capsys, tmp_path, source, "--input", "n=1024", "--max-gm-bytes", "1048576", line=2,
                 message=r"GM buffer of shape 1024x1024 \(4194304 bytes\) exceeds the GM buffer "
                         r"limit of 1048576 bytes")
    code, _, err = run(capsys, tmp_path, source, "--input", "n=256", "--max-gm-bytes", "1048576")
    assert code == 0, err


def test_negative_limits_are_bad_arguments(capsys, tmp_path):
    code, _, err = run(capsys, tmp_path, LOOP, "--max-ops", "-1")
    assert code == 2
    assert "mmair-run: error: argument --max-ops: must be >= 0, got -1" in err


def test_unbounded_recursion(capsys, tmp_path):
    source = """func.func @f(%n: index) -> index {
  %r = func.call @f(%n) : (index) -> index
  func.return %r : index
}
"""
    expect_error(capsys, tmp_path, source, "--input", "n=1", "--max-ops", "0",
                 message=r"recursion too deep")
