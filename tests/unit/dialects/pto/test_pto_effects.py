"""Footprints of the pto ops (`dialects/pto/effects.py`): exhaustive over the dialect, exact at run
time (tile bytes, GM windows as row segments), conservative statically, and the operand
alignments `pto-assign-addresses` takes from them; a dn2nz load reads the transposed GM window, a
one-row access is described as a plain range."""

from __future__ import annotations

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import MemRefType

from mmair.dialects import get_all_dialects, pto
from mmair.dialects.pto import footprint
from mmair.dialects.pto.access import Access
from mmair.dialects.pto.effects import EFFECTS
from mmair.dialects.pto.footprint import Footprint
from mmair.dialects.pto.gm_access import gm_access
from mmair.executor.engine.memory import Memory
from mmair.executor.engine.seam import op_pipe
from mmair.isa.ascend import targets as isa
from mmair.isa.ascend.pipes import Pipe
from mmair.isa.ascend.targets import get_target
from mmair.tools.diagnostics import LocatingParser

# Ops whose tile / memref operands are not memory accesses: a view of a tile's bytes.
_NO_MEMORY_EFFECT = {pto.ReinterpretOp}


def _memory_operand_names(cls) -> set[str]:
    names = set()
    for name, operand in cls.get_irdl_definition().operands:
        text = str(operand.constr)
        if "TileType" in text or "MemRefType" in text:
            names.add(name)
    return names


def test_every_pto_op_with_a_memory_operand_has_a_footprint():
    for cls in pto.PTO.operations:
        memory = _memory_operand_names(cls)
        if cls in _NO_MEMORY_EFFECT or not memory:
            assert cls not in EFFECTS, cls.__name__
            continue
        assert cls in EFFECTS, f"{cls.__name__} has memory operands {memory} and no footprint"
        roles = {role.name for role in EFFECTS[cls].operands}
        assert roles == memory, cls.__name__
        assert all(role.read or role.write for role in EFFECTS[cls].operands)


def test_every_footprint_kind_has_a_pipe_fact():
    from mmair.isa.ascend.pipes import op_kinds

    kinds = {eff.kind for cls, eff in EFFECTS.items() if cls is not pto.MatmulOp}
    assert kinds <= set(op_kinds())


def test_gm_window_is_row_segments_of_the_root_array():
    c = np.zeros((256, 256), np.float32)  # rows of 1024 bytes
    window = c[128:256, 64:192]
    a = gm_access(window, True)
    assert a == Access("gm", 128 * 1024 + 64 * 4, 128 * 4, 128, 1024, True, "", id(c))
    # Only the region an op selects: [0:2, 0:3] of the window.
    assert gm_access(window, False, (2, 3))[1:5] == (128 * 1024 + 256, 12, 2, 1024)
    # Whole contiguous rows are one segment.
    assert gm_access(c[3:5], False)[1:5] == (3 * 1024, 2 * 1024, 1, 0)


def parse(text: str):
    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    return LocatingParser(ctx, text, "t.mlir").parse_module()


_KERNEL = """
builtin.module attributes {pto.target = "a2"} {
  func.func @k(%a: memref<64x64xf16>, %c: memref<32x32xf32>) {
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %a_l1 = pto.alloc {offset = 4096 : i64} : !pto.tile<l1, 32x32xf16, nz>
    %win = memref.subview %a[0, 32] [32, 32] [1, 1] : memref<64x64xf16> to memref<32x32xf16, strided<[64, 1], offset: 32>>
    pto.mte_gm_l1 %win, %a_l1, %c16, %c32 : memref<32x32xf16, strided<[64, 1], offset: 32>>, !pto.tile<l1, 32x32xf16, nz>
    func.return
  }
}
"""


def test_static_footprints_are_whole_tiles_and_whole_buffers():
    module = parse(_KERNEL)
    load = next(op for op in module.walk() if isinstance(op, pto.MteGmL1Op))
    src, dst = footprint.accesses(load)
    assert (src.space, src.start, src.width, src.write, src.buffer) == ("gm", 0, 64 * 64 * 2, False, "%a")
    func_arg = load.parent_block().parent_op().body.blocks.first.args[0]  # the subview's root
    assert isinstance(func_arg.type, MemRefType) and src.memory is func_arg
    assert (dst.space, dst.start, dst.width, dst.write, dst.memory) == ("l1", 4096, 32 * 32 * 2, True, None)
    assert op_pipe(load, get_target("a2")) is Pipe.MTE2


def test_runtime_footprint_of_a_load_is_the_rows_it_reads():
    module = parse(_KERNEL)
    load = next(op for op in module.walk() if isinstance(op, pto.MteGmL1Op))
    a = np.zeros((64, 64), np.float16)
    from mmair.executor.engine.memory import Memory

    tile = Memory("a2").place("l1", (32, 32), "nz", "f16", 4096, "%a_l1")
    src, dst = footprint.accesses(load, (a[0:32, 32:64], tile, 16, 32))
    assert src[1:5] == (64, 64, 16, 128)  # rows 0..15, columns 32..63 of a 128-byte-row array
    assert dst[:6] == ("l1", 4096, 2048, 1, 0, True)
    assert footprint.accesses(load, (a[0:32, 32:64], tile, 0, 32)) == []  # size 0: a no-op


def test_assign_addresses_alignment_comes_from_the_footprints():
    mad = pto.MadOp
    roles = {r.name: r.align for r in EFFECTS[mad].operands}
    assert roles == {"lhs": isa.MMAD_SRC_ALIGN, "rhs": isa.MMAD_SRC_ALIGN, "dst": isa.MMAD_DST_ALIGN}
    acc = {r.name: (r.read, r.write) for r in EFFECTS[pto.MadAccOp].operands}
    assert acc["dst"] == (True, True)  # mad_acc reads and writes C


_DN2NZ = """builtin.module attributes {pto.target = "a5"} {
  func.func @f(%at: memref<64x32xf16>, %rows: index, %cols: index) {
    %l1 = pto.alloc : !pto.tile<l1, 32x64xf16, nz>
    pto.mte_gm_l1 %at, %l1, %rows, %cols dn2nz : memref<64x32xf16>, !pto.tile<l1, 32x64xf16, nz>
    func.return
  }
}
"""


def test_dn2nz_load_reads_the_transposed_window():
    # DN2NZ: GM holds the transpose, so a 16 x 32 tile region reads 32 GM rows of 16 elements
    # (32 bytes every 64-byte GM row).
    load = next(op for op in parse(_DN2NZ).walk() if isinstance(op, pto.MteGmL1Op))
    at = np.zeros((64, 32), np.float16)
    tile = Memory("a5").place("l1", (32, 64), "nz", "f16", 0, "%l1")
    src, dst = Footprint(load).accesses((at, tile, 16, 32))
    assert (src.start, src.width, src.rows, src.stride, src.write) == (0, 32, 32, 64, False)
    assert (dst.space, dst.width, dst.write) == ("l1", 32 * 64 * 2, True)


def test_one_row_access_is_described_as_a_plain_range():
    assert Access("ub", 32, 8, 1, 64).describe() == "[32, 40)"
    assert Access("ub", 32, 8, 2, 64).describe() == "[32, 104) as 2 rows of 8 bytes every 64 bytes"
