"""Memory footprints of the pto ops: which bytes of which memory each op reads and writes.

An AI Core's pipes run concurrently, so every consumer that reasons about ordering needs to know
exactly what an op touches: the executor's race checker, `pto-insert-sync` (the same checker run
over a static event stream), `pto-assign-addresses` (operand roles and the stricter per-operand
alignments) and the executor's operand-image invalidation. This module is the one definition.

This module is the op table: for each op class its memory operands (read / write, the op-level
alignment), the size operands whose value 0 makes it a no-op and the GM region its sizes select.
The byte sets themselves live next to it, one concept per module:

* `access`: `Access` (rows of bytes of one memory) and `overlap`;
* `gm_access`: GM windows in their root arrays (run time) or root SSA values (statically);
* `raw_footprints`: the exact bytes the raw parameter forms (`pto.copy_nd2nz`, `pto.load_2d`,
  `pto.mmad`, `pto.fixpipe_copy`, ...) address (`RAW_EXACT`: affine boxes of counts and strides);
* `footprint`: `Footprint`, one op execution's exact accesses with run-time values or the
  conservative ones statically (whole tiles, whole GM buffers).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.ir import Operation, SSAValue

from mmair.dialects import pto
from mmair.isa.ascend import targets as isa


@dataclass(frozen=True)
class Operand:
    """One memory operand of an op: its operand definition name, whether the op reads and / or
    writes it, and the op-level address alignment it requires (stricter than the space
    granularity; 1 when none)."""

    name: str
    read: bool
    write: bool
    align: int = 1


@dataclass(frozen=True)
class OpEffects:
    """The memory behaviour of one op class.

    `sizes`: operand names whose runtime value 0 makes the op a no-op (no access at all).
    `region`: for GM operands whose exact window depends on size operands, a function
    (op, operand name) -> (rows name, cols name, transposed) or None (the whole view)."""

    kind: str
    operands: tuple[Operand, ...]
    sizes: tuple[str, ...] = ()
    region: Callable[[Operation, str], tuple[str, str, bool] | None] | None = None


def _r(name: str, align: int = 1) -> Operand:
    return Operand(name, True, False, align)


def _w(name: str, align: int = 1) -> Operand:
    return Operand(name, False, True, align)


def _gm_l1_region(op: Operation, name: str) -> tuple[str, str, bool] | None:
    assert isinstance(op, pto.MteGmL1Op)
    return ("rows", "cols", op.dn2nz is not None) if name == "src" else None


def _fixpipe_region(op: Operation, name: str) -> tuple[str, str, bool] | None:
    assert isinstance(op, pto.FixpipeOp)
    if name != "dst" or op.layout.data == "nz2nz":
        return None
    return "m", "n", op.layout.data == "nz2dn"


_MAD = (_r("lhs", isa.MMAD_SRC_ALIGN), _r("rhs", isa.MMAD_SRC_ALIGN))


EFFECTS: dict[type[Operation], OpEffects] = {
    pto.MteGmL1Op: OpEffects(
        "mte_gm_l1", (_r("src"), _w("dst", isa.ND2NZ_DST_ALIGN)), ("rows", "cols"), _gm_l1_region
    ),
    pto.MteL1L0AOp: OpEffects(
        "mte_l1_l0a", (_r("src", isa.LOAD2D_SRC_ALIGN), _w("dst", isa.LOAD2D_DST_ALIGN)), ("m", "k")
    ),
    pto.MteL1L0BOp: OpEffects(
        "mte_l1_l0b", (_r("src", isa.LOAD2D_SRC_ALIGN), _w("dst", isa.LOAD2D_DST_ALIGN)), ("k", "n")
    ),
    pto.MteL1BtOp: OpEffects("mte_l1_bt", (_r("src"), _w("dst")), ("n",)),
    pto.MteL1FbOp: OpEffects("mte_l1_fb", (_r("src"), _w("dst")), ("n",)),
    pto.MadOp: OpEffects("mad", (*_MAD, _w("dst", isa.MMAD_DST_ALIGN)), ("m", "n", "k")),
    pto.MadAccOp: OpEffects(
        "mad_acc", (*_MAD, Operand("dst", True, True, isa.MMAD_DST_ALIGN)), ("m", "n", "k")
    ),
    pto.MadBiasOp: OpEffects(
        "mad_bias", (*_MAD, _r("bias", isa.MMAD_BIAS_ALIGN), _w("dst", isa.MMAD_DST_ALIGN)),
        ("m", "n", "k"),
    ),
    pto.FixpipeOp: OpEffects(
        "fixpipe", (_r("src", isa.FIXPIPE_SRC_ALIGN), _r("vector"), _w("dst")), ("m", "n"),
        _fixpipe_region,
    ),
    pto.MteGmUbOp: OpEffects("mte_gm_ub", (_r("src"), _w("dst"))),
    pto.MteUbGmOp: OpEffects("mte_ub_gm", (_r("src"), _w("dst"))),
    pto.GatherMaskOp: OpEffects(
        "gather_mask",
        (_r("src0", isa.GATHER_ALIGN), _r("src1", isa.GATHER_ALIGN), _w("dst", isa.GATHER_ALIGN)),
    ),
    # The raw Ascend C parameter forms address from the operand start with their parameters:
    # exact at run time (`RAW_EXACT`), whole tiles and whole GM buffers statically.
    pto.CopyNd2NzOp: OpEffects(
        "copy_nd2nz", (_r("src"), _w("dst", isa.ND2NZ_DST_ALIGN)), ("nd_num", "n_value", "d_value")
    ),
    pto.CopyDn2NzOp: OpEffects(
        "copy_dn2nz", (_r("src"), _w("dst", isa.ND2NZ_DST_ALIGN)), ("dn_num", "n_value", "d_value")
    ),
    pto.CopyGmL1Op: OpEffects(
        "copy_gm_l1", (_r("src"), _w("dst", isa.ND2NZ_DST_ALIGN)), ("block_count", "block_len")
    ),
    pto.Load2DOp: OpEffects(
        "load_2d", (_r("src", isa.LOAD2D_SRC_ALIGN), _w("dst", isa.LOAD2D_DST_ALIGN)),
        ("repeat_times",),
    ),
    pto.Load2DGmOp: OpEffects(
        "load_2d_gm", (_r("src"), _w("dst", isa.LOAD2D_GM_DST_ALIGN)), ("repeat_times",),
    ),
    pto.Load2DTransposeOp: OpEffects(
        "load_2d_transpose", (_r("src", isa.LOAD2D_SRC_ALIGN), _w("dst", isa.LOAD2D_DST_ALIGN)),
        ("repeat_times",),
    ),
    pto.Load2DV2Op: OpEffects(
        "load_2d_v2", (_r("src", isa.LOAD2D_SRC_ALIGN), _w("dst", isa.LOAD2D_DST_ALIGN)),
        ("m_step", "k_step"),
    ),
    pto.Load2DV2GmOp: OpEffects(
        "load_2d_v2_gm", (_r("src"), _w("dst", isa.LOAD2D_GM_DST_ALIGN)), ("m_step", "k_step"),
    ),
    pto.CopyL1BtOp: OpEffects(
        "copy_l1_bt", (_r("src", isa.L1_BT_SRC_ALIGN), _w("dst", isa.MMAD_BIAS_ALIGN)),
        ("block_count", "block_len"),
    ),
    pto.MmadOp: OpEffects(
        "mmad", (*_MAD, _r("bias", isa.MMAD_BIAS_ALIGN),
                 Operand("dst", True, True, isa.MMAD_DST_ALIGN)), ("m", "n", "k"),
    ),
    pto.FixpipeCopyOp: OpEffects(
        "fixpipe_copy", (_r("src", isa.FIXPIPE_SRC_ALIGN), _r("vector"), _w("dst")),
        ("n_size", "m_size", "nd_num"),
    ),
    # Lowered by pto-tile-matmul before it runs; listed so that static users see its effect.
    pto.MatmulOp: OpEffects("matmul", (_r("a"), _r("b"), _r("bias"), _w("c"))),
}
"""Every pto op class with a memory effect. Ops without one (alloc, reinterpret, and the sync
ops, whose effect is ordering, not memory) are absent; a test walks the dialect to keep this
exhaustive."""


def effects_of(op: Operation) -> OpEffects | None:
    return EFFECTS.get(type(op))


def operand_index(op: Operation, name: str) -> int | None:
    value = getattr(op, name, None)
    if not isinstance(value, SSAValue):
        return None
    for i, operand in enumerate(op.operands):
        if operand is value:
            return i
    return None


def memory_operands(op: Operation) -> list[tuple[int, Operand]]:
    """(operand index, role) of each memory operand `op` has (absent optional ones skipped)."""
    eff = EFFECTS.get(type(op))
    if eff is None:
        return []
    found = []
    for role in eff.operands:
        index = operand_index(op, role.name)
        if index is not None:
            found.append((index, role))
    return found


def operand_alignment(op: Operation, index: int) -> int:
    """The op-level address alignment operand `index` of `op` requires (1: only the space's)."""
    for i, role in memory_operands(op):
        if i == index:
            return role.align
    return 1
