"""executor/tcgen05/functions.py (the tcgen05 interpreter functions) behaviours the mutation harness found
unpinned (docs/mutation.md, area `executor-tcgen05`).

The checks the verifier shadows (a TMEM view of a shape TMEM cannot hold, an SMEM buffer past the
end of shared memory, ld/st cells outside tensor memory, an mbarrier outside SMEM) are reachable
only through the Python API: those tests call the interpreter functions directly on ops built
without verification. The CTA-pair paths run variants of examples/tcgen05_gemm_pair.mlir through
`mmair-run` and compare D with numpy on integer inputs (exact in f16 and f32).
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from run_variants import run_lowered, write_variant
from xdsl.context import Context
from xdsl.dialects.builtin import Float32Type, IntegerType, MemRefType

from mmair.dialects import get_all_dialects, tcgen05
from mmair.executor.engine.errors import ExecutionError
from mmair.executor.tcgen05.functions import MbarrierState, Tcgen05Functions
from mmair.executor.tcgen05.memories import SharedMemory
from mmair.executor.tcgen05.operands import write_smem_operand
from mmair.isa.tcgen05 import SmemDesc, encode_smem_desc
from mmair.isa.tcgen05.layouts import SMEM_BYTES_PER_CTA, TMEM_COLUMNS, TMEM_LANES
from mmair.tools.diagnostics import LocatingParser

ROOT = Path(__file__).resolve().parents[4]
PAIR = ROOT / "examples" / "tcgen05_gemm_pair.mlir"
PAIR_LINES = PAIR.read_text().splitlines()
RNG = np.random.default_rng(1818)
F32 = Float32Type()


def _ops(text: str) -> list:
    """The ops of `text`'s function body, parsed without verification."""
    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    module = LocatingParser(ctx, text, "api.mlir").parse_module()
    return list(module.walk())


# -- checks shadowed by the verifier (Python API) --------------------------------------------------


@pytest.mark.parametrize("memref", [
    MemRefType(F32, [2, 4, 4]),              # not 2-D
    MemRefType(F32, [TMEM_LANES + 1, 4]),    # more rows than TMEM lanes
    MemRefType(IntegerType(64), [4, 4]),     # 64-bit elements
])
def test_tmem_view_refuses_shapes_tensor_memory_cannot_hold(memref: MemRefType) -> None:
    with pytest.raises(ExecutionError, match=rf"cannot view {memref} in tensor memory \(2-D, at "
                       rf"most {TMEM_LANES} rows, 8/16/32-bit elements\)"):
        Tcgen05Functions()._tmem_view(0, 32, memref)


def test_tmem_view_refuses_more_columns_than_its_cells() -> None:
    funcs = Tcgen05Functions()
    # 4 cells hold 4 f32 or 16 i8 per lane: 16 i8 fit exactly, 8 f32 / 20 i8 do not.
    view = funcs._tmem_view(4, 4, MemRefType(IntegerType(8), [3, 16]))
    assert view.shape == (3, 16) and view.dtype == np.int8
    view[:] = 7
    assert (funcs.tmem.cells[:3, 4:8] == 0x07070707).all() and not funcs.tmem.cells[:3, 8].any()
    for memref in (MemRefType(F32, [4, 8]), MemRefType(IntegerType(8), [4, 20])):
        with pytest.raises(ExecutionError, match=rf"requires {memref} to fit in 4 TMEM columns"):
            funcs._tmem_view(0, 4, memref)


def test_smem_alloc_past_the_end_of_shared_memory() -> None:
    funcs = Tcgen05Functions()
    last = funcs.run_smem_alloc(None, tcgen05.SmemAllocOp(SMEM_BYTES_PER_CTA - 16,
                                                          MemRefType(F32, [4])), ()).values[0]
    assert last.shape == (4,) and last.dtype == np.float32
    with pytest.raises(ExecutionError, match=rf"requires the buffer inside the "
                       rf"{SMEM_BYTES_PER_CTA}-byte shared memory, got bytes "
                       rf"\[{SMEM_BYTES_PER_CTA - 8:#x}, {SMEM_BYTES_PER_CTA + 8:#x}\)"):
        funcs.run_smem_alloc(None, tcgen05.SmemAllocOp(SMEM_BYTES_PER_CTA - 8,
                                                       MemRefType(F32, [4])), ())


_LD_ST = """
func.func @f(%t: memref<32x4xf32, #tcgen05.space<tmem>>, %r: memref<32x4xf32>) {
  %x = tcgen05.ld shape("32x32b") num(4) warp(0) lane(0) column(0) %t : memref<32x4xf32, #tcgen05.space<tmem>> -> memref<32x4xf32>
  tcgen05.st shape("32x32b") num(4) warp(0) lane(0) column(0) %t, %r : memref<32x4xf32, #tcgen05.space<tmem>>, memref<32x4xf32>
  func.return
}
"""


def test_ld_st_cells_outside_tensor_memory() -> None:
    ops = _ops(_LD_ST)
    ld = next(op for op in ops if isinstance(op, tcgen05.LdOp))
    st = next(op for op in ops if isinstance(op, tcgen05.StOp))
    funcs = Tcgen05Functions()
    funcs.tmem.alloc(TMEM_COLUMNS)
    regs = np.arange(32 * 4, dtype=np.float32).reshape(32, 4)
    inside = funcs.tmem.cells[:32, TMEM_COLUMNS - 4:].view(np.float32)  # the last 4 columns
    funcs.run_st(None, st, (inside, regs))
    np.testing.assert_array_equal(funcs.run_ld(None, ld, (inside,)).values[0], regs)
    beyond = funcs.tmem.cells[:32, TMEM_COLUMNS - 2:].view(np.float32)  # 2 columns left
    message = (rf"requires the tcgen05 \.32x32b cells inside tensor memory \({TMEM_LANES} lanes x "
               rf"{TMEM_COLUMNS} columns\), got lanes \[0, 32\) columns "
               rf"\[{TMEM_COLUMNS - 2}, {TMEM_COLUMNS + 2}\)")
    with pytest.raises(ExecutionError, match=message):
        funcs.run_ld(None, ld, (beyond,))
    with pytest.raises(ExecutionError, match=message):
        funcs.run_st(None, st, (beyond, regs))


def test_mbarrier_outside_shared_memory() -> None:
    funcs = Tcgen05Functions()
    with pytest.raises(ExecutionError, match=r"^requires an mbarrier in shared memory$"):
        funcs._mbarrier(np.zeros(1, np.int64))
    inside = funcs.smem.data[64:72].view(np.int64)
    with pytest.raises(ExecutionError, match=r"uses the mbarrier at SMEM 0x40 before "
                       r"tcgen05.mbarrier_init"):
        funcs._mbarrier(inside)
    assert funcs._mbarrier(inside, initialised=False) == (64, None)


_COMMIT = """
func.func @f(%bar: memref<1xi64, #tcgen05.space<smem>>, %mask: i16) {
  tcgen05.commit cta_group(2) %bar multicast(%mask) : memref<1xi64, #tcgen05.space<smem>>
  func.return
}
"""


def test_multicast_commit_to_a_peer_whose_mbarrier_was_never_initialised() -> None:
    commit = next(op for op in _ops(_COMMIT) if isinstance(op, tcgen05.CommitOp))
    ctas = [Tcgen05Functions(rank=rank) for rank in range(2)]
    cluster = SimpleNamespace(ctas=ctas)
    for cta in ctas:
        cta.cluster = cluster
    bar = ctas[0].smem.data[0x1800:0x1808].view(np.int64)
    ctas[0].mbarriers[0x1800] = MbarrierState(count=1, pending=1)
    ctas[0].run_commit(None, commit, (bar, 1))  # CTA 0 only: its own phase completes
    assert ctas[0].mbarriers[0x1800].phase == 1 and not ctas[1].mbarriers
    with pytest.raises(ExecutionError, match=r"^multicasts to CTA 1, whose mbarrier at SMEM "
                       r"0x1800 was not initialised \(tcgen05.mbarrier_init\)$"):
        ctas[0].run_commit(None, commit, (bar, 3))


# -- the CTA pair: the MMA and the shift issued by rank 1 ------------------------------------------


def _pair_inputs(tmp_path: Path) -> tuple[list[str], np.ndarray]:
    """K-blocked GM inputs of the pair example (its header) and the numpy product."""
    a = RNG.integers(-4, 5, (256, 16)).astype(np.float16)
    b = RNG.integers(-4, 5, (16, 128)).astype(np.float16)
    np.save(tmp_path / "a.npy", a.reshape(2, 128, 2, 8).transpose(0, 2, 1, 3).copy())
    np.save(tmp_path / "b.npy", b.T.reshape(2, 64, 2, 8).transpose(0, 2, 1, 3).copy())
    args = ["--input", f"a={tmp_path / 'a.npy'}", "--input", f"b={tmp_path / 'b.npy'}"]
    return args, a.astype(np.float32) @ b.astype(np.float32)


def _rank1_leads(lines: list[str]) -> list[str]:
    """The pair example with CTA 1 (the odd rank) issuing the MMA and the commit."""
    leader = "%leader = arith.cmpi eq, %rank_i32, %c0_i32 : i32"
    assert sum(leader in x for x in lines) == 1
    return [x.replace(leader, "%c1_i32 = arith.constant 1 : i32\n    "
                      "%leader = arith.cmpi eq, %rank_i32, %c1_i32 : i32") for x in lines]


def test_pair_mma_issued_by_the_odd_rank(capsys, tmp_path: Path) -> None:
    # The pair of rank 1 is CTAs 0 and 1 (rank & ~1): D rows 0..127 land in CTA 0's TMEM.
    path = write_variant(tmp_path, "rank1", _rank1_leads(PAIR_LINES))
    args, expected = _pair_inputs(tmp_path)
    code, err = run_lowered(capsys, path, *args, "--output", f"d={tmp_path / 'd.npy'}")
    assert code == 0, err
    np.testing.assert_array_equal(np.load(tmp_path / "d.npy"), expected)


def test_pair_shift_issued_by_the_odd_rank_moves_both_ctas(capsys, tmp_path: Path) -> None:
    # As test_tcgen05_pair's shift test, with CTA 1 issuing the MMA, the shift and the commits:
    # lanes 0..31 of columns 0..7 move down one lane in both CTAs (lane 0 undefined: NaN).
    lines = _rank1_leads(PAIR_LINES)
    wait = next(i for i, x in enumerate(lines) if "tcgen05.mbarrier_wait %bar" in x) + 1
    shift = ["    tcgen05.cluster_sync",
             "    scf.if %leader {",
             "      tcgen05.shift cta_group(2) %acc : memref<128x128xf32, #tcgen05.space<tmem>>",
             "      %again = arith.constant 3 : i16",
             "      tcgen05.commit cta_group(2) %bar multicast(%again) : "
             "memref<1xi64, #tcgen05.space<smem>>",
             "    }",
             "    %phase1 = arith.constant true",
             "    tcgen05.mbarrier_wait %bar, %phase1 : memref<1xi64, #tcgen05.space<smem>>",
             "    %c128x = arith.constant 128 : index",
             "    %half_row = arith.muli %rank, %c128x : index",
             '    %d_half = "memref.subview"(%d, %half_row) <{static_offsets = array<i64: '
             "-9223372036854775808, 0>, static_sizes = array<i64: 128, 128>, static_strides = "
             "array<i64: 1, 1>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : "
             "(memref<256x128xf32>, index) -> memref<128x128xf32, strided<[128, 1], offset: ?>>",
             '    "memref.copy"(%acc, %d_half) : (memref<128x128xf32, #tcgen05.space<tmem>>, '
             "memref<128x128xf32, strided<[128, 1], offset: ?>>) -> ()"]
    epilogue = [x for x in lines[wait:] if "tcgen05.ld" not in x and "tcgen05.wait_ld" not in x
                and '"memref.copy"(%r' not in x]
    path = write_variant(tmp_path, "rank1_shift", lines[:wait] + shift + epilogue)
    args, expected = _pair_inputs(tmp_path)
    code, err = run_lowered(capsys, path, *args, "--output", f"d={tmp_path / 'd.npy'}")
    assert code == 0, err
    d = np.load(tmp_path / "d.npy")
    for base in (0, 128):  # each CTA's half
        assert np.isnan(d[base, :8]).all()
        np.testing.assert_array_equal(d[base + 1:base + 32, :8], expected[base:base + 31, :8])
        np.testing.assert_array_equal(d[base + 32:base + 128], expected[base + 32:base + 128])
        np.testing.assert_array_equal(d[base:base + 32, 8:], expected[base:base + 32, 8:])


def _signed(word: int, bits: int) -> int:
    """The word as MLIR prints a signless integer constant with its top bit set: negative."""
    return word - (1 << bits) if word >> (bits - 1) else word


def test_pair_mma_takes_swizzled_descriptors_given_as_negative_constants(capsys,
                                                                        tmp_path: Path) -> None:
    # sw32 puts swizzle code 6 in bits 61-63: both i64 descriptor constants are negative. Each
    # CTA's GM halves are the SMEM images write_smem_operand makes for those descriptors (the
    # kernel copies them byte for byte into SMEM).
    a_desc, b_desc = SmemDesc(0, 16, 256, swizzle="sw32"), SmemDesc(4096, 16, 256, swizzle="sw32")
    a_word, b_word = _signed(encode_smem_desc(a_desc), 64), _signed(encode_smem_desc(b_desc), 64)
    assert a_word < 0 and b_word < 0
    a = RNG.integers(-4, 5, (256, 16)).astype(np.float16)
    b = RNG.integers(-4, 5, (16, 128)).astype(np.float16)
    a_gm, b_gm = np.empty((2, 2, 128, 8), np.float16), np.empty((2, 2, 64, 8), np.float16)
    for rank in range(2):
        image = SharedMemory()
        write_smem_operand(image, a_desc, a[128 * rank:128 * rank + 128], major="k",
                           type_name="f16", kind="f16")
        write_smem_operand(image, b_desc, b.T[64 * rank:64 * rank + 64], major="k",
                           type_name="f16", kind="f16")
        a_gm[rank] = image.data[:4096].view(np.float16).reshape(2, 128, 8)
        b_gm[rank] = image.data[4096:6144].view(np.float16).reshape(2, 64, 8)
    np.save(tmp_path / "a.npy", a_gm)
    np.save(tmp_path / "b.npy", b_gm)
    lines = []
    for line in PAIR_LINES:
        if "%a_desc = tcgen05.make_smem_desc" in line:
            line = f"    %a_desc = arith.constant {a_word} : i64"
        elif "%b_desc = tcgen05.make_smem_desc" in line:
            line = f"    %b_desc = arith.constant {b_word} : i64"
        lines.append(line)
    assert sum("arith.constant -" in x for x in lines) == 2
    path = write_variant(tmp_path, "swizzled", lines)
    for check in ("on", "off"):
        code, err = run_lowered(capsys, path, "--input", f"a={tmp_path / 'a.npy'}", "--input",
                                f"b={tmp_path / 'b.npy'}", f"--sync-check={check}",
                                "--output", f"d={tmp_path / 'd.npy'}")
        assert code == 0, err
        np.testing.assert_array_equal(np.load(tmp_path / "d.npy"),
                                      a.astype(np.float32) @ b.astype(np.float32))


def test_pair_mma_scales_the_accumulator_by_scale_input_d(capsys, tmp_path: Path) -> None:
    # A second pair MMA accumulates with scale_input_d(1): D = P + P * 2^-1 for P = A x B
    # (integer inputs: every value is exact in f32).
    mma = next(i for i, x in enumerate(PAIR_LINES) if "tcgen05.mma kind(f16) cta_group(2)" in x)
    again = ("      %accumulate = arith.constant true\n"
             "      tcgen05.mma kind(f16) cta_group(2) %acc, %a_desc, %b_desc, %idesc, %accumulate "
             "scale_input_d(1) : memref<128x128xf32, #tcgen05.space<tmem>>, i64")
    path = write_variant(tmp_path, "scaled", PAIR_LINES[:mma + 1] + [again]
                         + PAIR_LINES[mma + 1:])
    args, product = _pair_inputs(tmp_path)
    code, err = run_lowered(capsys, path, *args, "--output", f"d={tmp_path / 'd.npy'}")
    assert code == 0, err
    np.testing.assert_array_equal(np.load(tmp_path / "d.npy"), product + product / 2)


_WS_ZCMASK = """
func.func @k(%a_img: memref<4096xui8>, %b_img: memref<2048xui8>, %zcm: i64) {
  %en = arith.constant false
  %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 64>
  %a_desc = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 0, lbo = 16, sbo = 256, swizzle = sw32>
  %b_desc = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 8192, lbo = 16, sbo = 256, swizzle = sw32>
  %a = tcgen05.smem_alloc offset(0) : memref<4096xui8, #tcgen05.space<smem>>
  %b = tcgen05.smem_alloc offset(8192) : memref<2048xui8, #tcgen05.space<smem>>
  "memref.copy"(%a_img, %a) : (memref<4096xui8>, memref<4096xui8, #tcgen05.space<smem>>) -> ()
  "memref.copy"(%b_img, %b) : (memref<2048xui8>, memref<2048xui8, #tcgen05.space<smem>>) -> ()
  %d = tcgen05.alloc cta_group(1) columns(64) : memref<128x64xf32, #tcgen05.space<tmem>>
  tcgen05.mma kind(f16) cta_group(1) ws %d, %a_desc, %b_desc, %idesc, %en zero_column_mask(%zcm) : memref<128x64xf32, #tcgen05.space<tmem>>, i64
  func.return
}
"""


def test_zero_column_mask_with_its_top_bit_set_is_refused_by_its_reserved_bits() -> None:
    # Bit 63 of a zero-column mask is reserved (R24); a run-time i64 holds that word as a
    # negative value. The interpreter reads it as the unsigned word, so the refusal names the
    # reserved bits (not "not a 64-bit word").
    from tcgen05_testing import run_kernel

    images = (np.zeros(4096, np.uint8), np.zeros(2048, np.uint8))
    with pytest.raises(ExecutionError, match=r"requires a valid zero-column mask, got "
                       r"0x8000000000000000: reserved bits = 0x8000000000000000 are set; legal: bits 36-38, 62-63 = 0 \[R24\]"):
        run_kernel(_WS_ZCMASK, *images, _signed(1 << 63, 64))


def test_pair_idesc_with_its_top_bit_set_is_refused_by_its_reserved_bits(capsys,
                                                                        tmp_path: Path) -> None:
    # Bit 31 of a kind::f16 instruction descriptor (max shift code 2 in bits 30-31, .ws only)
    # set at run time: the i32 value is negative; the interpreter reads the unsigned word, so the
    # refusal is the max-shift rule R10, not "not a 32-bit word".
    idesc = next(i for i, x in enumerate(PAIR_LINES) if "%idesc = tcgen05.make_idesc" in x)
    lines = list(PAIR_LINES)
    lines[idesc:idesc + 1] = [lines[idesc].replace("%idesc =", "%idesc_word ="),
                              "    %top_bit = arith.constant -2147483648 : i32",
                              "    %idesc = arith.ori %idesc_word, %top_bit : i32"]
    path = write_variant(tmp_path, "idesc_bit31", lines)
    code, err = run_lowered(capsys, path)
    assert code == 1
    mma = next(i + 1 for i, x in enumerate(lines) if "tcgen05.mma kind(f16)" in x)
    assert err.startswith(
        f"{path}:{mma}:7: error: 'tcgen05.mma' op requires a legal tcgen05.mma form: max_shift = "
        "16 is not legal without .ws; legal: 0 (max shift is for tcgen05.mma.ws) [R10] (in CTA 0 "
        "of the CTA pair)\n")


def test_pair_mma_with_a_in_tensor_memory_is_refused_as_not_modelled(capsys,
                                                                     tmp_path: Path) -> None:
    # The interpreter passes A's TMEM address (not a descriptor word) to the pair kernel, which
    # refuses A in TMEM for cta_group::2 with one diagnostic at the op.
    lines = []
    for line in PAIR_LINES:
        if "tcgen05.mma kind(f16) cta_group(2)" in line:
            lines.append("      %a_tmem = tcgen05.alloc cta_group(2) columns(32) : "
                         "memref<128x16xf16, #tcgen05.space<tmem>>")
            line = line.replace("%acc, %a_desc,", "%acc, %a_tmem,").replace(
                ", i64", ", memref<128x16xf16, #tcgen05.space<tmem>>")
        lines.append(line)
    path = write_variant(tmp_path, "a_in_tmem", lines)
    code, err = run_lowered(capsys, path)
    assert code == 1
    mma = next(i + 1 for i, x in enumerate(lines) if "tcgen05.mma kind(f16)" in x)
    assert err.startswith(f"{path}:{mma}:7: error: 'tcgen05.mma' op uses cta_group::2 with A in "
                          "tensor memory, which the executor does not model (in CTA 0 of the CTA "
                          "pair)\n")
