"""The tcgen05 interpreter functions (executor/tcgen05/functions.py): runtime descriptor, lane and
mask words are bit patterns whatever their sign; what the interpreter cannot run is one error;
the checks the verifier shadows (a TMEM view of a shape TMEM cannot hold, an SMEM buffer past
the end of shared memory, ld/st cells outside tensor memory, an mbarrier outside SMEM, a
multicast commit to an uninitialised peer mbarrier) are reached through the Python API on ops
built without verification."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import Float32Type, IntegerType, MemRefType

from mmair.dialects import get_all_dialects, tcgen05
from mmair.executor.engine.errors import ExecutionError
from mmair.executor.tcgen05.functions import MbarrierState, Tcgen05Functions
from mmair.executor.tcgen05.memories import SharedMemory
from mmair.executor.tcgen05.operands import write_smem_operand
from mmair.isa.tcgen05 import InstrDesc, SmemDesc, encode_idesc, encode_smem_desc
from mmair.isa.tcgen05.layouts import SMEM_BYTES_PER_CTA, TMEM_COLUMNS, TMEM_LANES
from mmair.tools.diagnostics import LocatingParser

RNG = np.random.default_rng(1818)


def ints(shape: tuple[int, ...], low: int = -4, high: int = 4) -> np.ndarray:
    return RNG.integers(low, high + 1, shape).astype(np.float64)


SIGNED_KERNEL = """
func.func @k(%a_img: memref<4096xui8>, %b_img: memref<2048xui8>, %c: memref<128x64xf32>) {{
  %en = arith.constant true
  %idesc = arith.constant {idesc} : i32
  %a_desc = arith.constant {a_desc} : i64
  %b_desc = arith.constant {b_desc} : i64
  %all = arith.constant -1 : i32
  %none = arith.constant 0 : i32
  %a = tcgen05.smem_alloc offset(0) : memref<4096xui8, #tcgen05.space<smem>>
  %b = tcgen05.smem_alloc offset(8192) : memref<2048xui8, #tcgen05.space<smem>>
  "memref.copy"(%a_img, %a) : (memref<4096xui8>, memref<4096xui8, #tcgen05.space<smem>>) -> ()
  "memref.copy"(%b_img, %b) : (memref<2048xui8>, memref<2048xui8, #tcgen05.space<smem>>) -> ()
  %d = tcgen05.alloc cta_group(1) columns(64) : memref<128x64xf32, #tcgen05.space<tmem>>
  "memref.copy"(%c, %d) : (memref<128x64xf32>, memref<128x64xf32, #tcgen05.space<tmem>>) -> ()
  tcgen05.mma kind(f16) cta_group(1) {ws}%d, %a_desc, %b_desc, %idesc, %en{lanes} : memref<128x64xf32, #tcgen05.space<tmem>>, i64
  "memref.copy"(%d, %c) : (memref<128x64xf32, #tcgen05.space<tmem>>, memref<128x64xf32>) -> ()
  tcgen05.dealloc cta_group(1) %d : memref<128x64xf32, #tcgen05.space<tmem>>
  func.return
}}
"""


def _signed(word: int, bits: int) -> int:
    """The word as MLIR prints a signless integer constant with its top bit set: negative."""
    return word - (1 << bits) if word >> (bits - 1) else word


@pytest.mark.parametrize("ws", [False, True])
def test_interpreter_takes_descriptor_and_lane_words_given_as_negative_constants(ws):
    from tcgen05_testing import run_kernel

    # sw32 puts swizzle code 6 in bits 61-63 of the descriptor: bit 63 is set, so the i64
    # constants are negative; the lane-mask word -1 disables lanes 32..63. With .ws, max_shift
    # 32 (code 3 in bits 30-31) makes the i32 instruction descriptor negative.
    a, b = ints((128, 16)), ints((16, 64))
    scratch = SharedMemory()
    a_desc = SmemDesc(0, 16, 256, swizzle="sw32")
    b_desc = SmemDesc(0x2000, 16, 256, swizzle="sw32")
    write_smem_operand(scratch, a_desc, a, major="k", type_name="f16", kind="f16")
    write_smem_operand(scratch, b_desc, b.T, major="k", type_name="f16", kind="f16")
    idesc = _signed(encode_idesc(InstrDesc(kind="f16", m=128, n=64, atype="f16", btype="f16",
                                           dtype="f32", max_shift=32 if ws else 0)), 32)
    a_word, b_word = _signed(encode_smem_desc(a_desc), 64), _signed(encode_smem_desc(b_desc), 64)
    assert a_word < 0 and b_word < 0 and (idesc < 0) == ws
    lanes = "" if ws else " disable_output_lane(%none, %all, %none, %none)"
    source = SIGNED_KERNEL.format(idesc=idesc, a_desc=a_word, b_desc=b_word,
                                  ws="ws " if ws else "", lanes=lanes)
    old = ints((128, 64))
    c = old.astype(np.float32)
    run_kernel(source, scratch.data[:4096].copy(), scratch.data[0x2000:0x2800].copy(), c)
    expected = old + a @ b
    if not ws:
        expected[32:64] = old[32:64]
    assert np.array_equal(c, expected)


def _kernel(body: str, *params: str) -> str:
    return "func.func @k(" + ", ".join(params) + ") {\n" + body + "\n  func.return\n}\n"


BAR = "memref<1xi64, #tcgen05.space<smem>>"


@pytest.mark.parametrize(("body", "message"), [
    # (in another function: the verifier sees only the alloc's own block)
    ("  tcgen05.relinquish_alloc_permit cta_group(1)\n"
     "  func.call @alloc() : () -> ()\n  func.return\n}\nfunc.func @alloc() {\n"
     "  %d = tcgen05.alloc cta_group(1) columns(32) : memref<128x32xf32, #tcgen05.space<tmem>>",
     r"requires no tcgen05.alloc after tcgen05.relinquish_alloc_permit$"),
    (f"  %bar = tcgen05.smem_alloc offset(64) : {BAR}\n"
     f"  tcgen05.mbarrier_arrive %bar : {BAR}",
     r"uses the mbarrier at SMEM 0x40 before tcgen05.mbarrier_init$"),
    # an arrival that expects 16 transaction bytes leaves the phase open until they arrive
    (f"  %bar = tcgen05.smem_alloc offset(64) : {BAR}\n"
     "  %p = arith.constant false\n"
     f"  tcgen05.mbarrier_init %bar count(1) : {BAR}\n"
     f"  tcgen05.mbarrier_arrive %bar expect_tx(16) : {BAR}\n"
     f"  tcgen05.mbarrier_wait %bar, %p : {BAR}",
     r"waits on phase parity 0 of the mbarrier at SMEM 0x40, which can never complete "
     r"\(deadlock: 0 of 1 arrivals pending, 0 of 16 expected transaction bytes arrived, nothing left "
     r"to arrive\)$"),
    # an arrival without expect_tx completes phase 0 (the first wait returns): parity 1 is open
    (f"  %bar = tcgen05.smem_alloc offset(64) : {BAR}\n"
     "  %p0 = arith.constant false\n  %p1 = arith.constant true\n"
     f"  tcgen05.mbarrier_init %bar count(1) : {BAR}\n"
     f"  tcgen05.mbarrier_arrive %bar : {BAR}\n"
     f"  tcgen05.mbarrier_wait %bar, %p0 : {BAR}\n"
     f"  tcgen05.mbarrier_wait %bar, %p1 : {BAR}",
     r"waits on phase parity 1 of the mbarrier at SMEM 0x40, which can never complete "
     r"\(deadlock: 1 of 1 arrivals pending, 0 of 0 expected transaction bytes arrived, nothing left "
     r"to arrive\)$"),
    ("  %b = tcgen05.smem_alloc offset(0) : memref<64xf4E2M1FN, #tcgen05.space<smem>>",
     r"cannot view f4E2M1FN elements in shared memory \(sub-byte types: use an i8/ui8 "
     r"container buffer\)$"),
])
def test_interpreter_refuses_what_it_cannot_run(body, message):
    from tcgen05_testing import run_kernel

    from mmair.executor.engine.errors import ExecutionError

    with pytest.raises(ExecutionError, match=message):
        run_kernel(_kernel(body))


def test_interpreter_tmem_address_of_a_view():
    from mmair.executor.engine.errors import ExecutionError
    from mmair.executor.tcgen05.functions import Tcgen05Functions

    f = Tcgen05Functions()
    assert f.tmem_address(f.tmem.cells[3, 5:], "d") == (3 << 16) | 5
    with pytest.raises(ExecutionError, match=r"^requires d to be a tensor-memory buffer$"):
        f.tmem_address(np.zeros((128, 4), np.uint32), "d")
    with pytest.raises(ExecutionError, match=r"^requires d to start on a 32-bit TMEM cell, got "
                                             r"byte 2 of a cell$"):
        f.tmem_address(f.tmem.cells.view(np.uint16).reshape(-1)[1:], "d")


def test_interpreter_cp_takes_a_negative_descriptor_constant():
    from tcgen05_testing import run_kernel

    # 128 rows x 32 bytes, K-major sw32 (bit 63 set: a negative i64); row r lands in lane r
    rows = RNG.integers(0, 256, (128, 32)).astype(np.uint8)
    desc = SmemDesc(0, 16, 256, swizzle="sw32")
    scratch = SharedMemory()
    write_smem_operand(scratch, desc, rows, major="k", type_name="u8", kind="i8")
    tmem = "memref<128x8xi32, #tcgen05.space<tmem>>"
    body = (f"  %img = tcgen05.smem_alloc offset(0) : memref<4096xui8, #tcgen05.space<smem>>\n"
            f'  "memref.copy"(%in, %img) : (memref<4096xui8>, '
            f"memref<4096xui8, #tcgen05.space<smem>>) -> ()\n"
            f"  %t = tcgen05.alloc cta_group(1) columns(32) : {tmem}\n"
            f"  %desc = arith.constant {_signed(encode_smem_desc(desc), 64)} : i64\n"
            f'  tcgen05.cp cta_group(1) shape("128x256b") %t, %desc : {tmem}\n'
            f'  "memref.copy"(%t, %out) : ({tmem}, memref<128x8xi32>) -> ()')
    out = np.zeros((128, 8), np.int32)
    run_kernel(_kernel(body, "%in: memref<4096xui8>", "%out: memref<128x8xi32>"),
               scratch.data[:4096].copy(), out)
    assert np.array_equal(out.view(np.uint8), rows)  # each row's bytes little-endian in 8 cells


# Checks the verifier shadows, on ops parsed without verification


F32 = Float32Type()


def _ops(text: str) -> list:
    """The ops of `text`'s function body, parsed without verification."""
    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    module = LocatingParser(ctx, text, "api.mlir").parse_module()
    return list(module.walk())


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
