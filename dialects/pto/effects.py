"""Memory footprints of the pto ops: which bytes of which memory each op reads and writes.

An AI Core's pipes run concurrently, so every consumer that reasons about ordering needs to know
exactly what an op touches: the executor's race checker, `pto-insert-sync` (the same checker run
over a static event stream), `pto-assign-addresses` (operand roles and the stricter per-operand
alignments) and the executor's operand-image invalidation. This module is the one definition.

An `Access` is a set of bytes of one memory: `rows` segments of `width` bytes, `stride` bytes
apart, starting at byte `start`. On-chip tiles are one segment (the tile's bytes in its space,
`[offset, offset + nbytes)`); a GM window is the exact set of its rows, so two column windows of
one matrix (a strided subview [128 x 128] at column 0 and another at column 128) do not overlap,
while their bounding boxes would.

* With runtime values (`values`: the executor's operand values, `Tile`s and numpy arrays) the
  bytes are exact: the tile's offset and size, the GM window's rows inside its root array (the GM
  argument), restricted to the region the op's size operands select.
* Without values (`values=None`, static passes) a footprint is conservative: the whole tile
  (at the `pto.alloc` offset when it has one, else its own memory keyed by the alloc), the whole
  GM buffer the memref is a view of (keyed by the root SSA value, through `memref.subview`).

Which memory an access is in: `space` ("l1", "l0a", ..., "gm") and `memory` (None: the space's
address range of one core; a GM buffer key: `id` of the root array at run time, the root
`SSAValue` statically; a `pto.alloc` whose offset is not assigned yet). Two accesses can overlap
only when both are equal.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import BlockArgument, Operation, SSAValue

from mmair.dialects import pto
from mmair.isa.ascend import targets as isa


class Access(NamedTuple):
    """`rows` segments of `width` bytes, `stride` apart, from byte `start` of a memory."""

    space: str
    start: int
    width: int
    rows: int = 1
    stride: int = 0
    write: bool = False
    buffer: str = ""
    """Name for messages (`%a_l1`); GM accesses at run time leave it to the caller (the
    executor knows the argument names)."""
    memory: Hashable = None
    """Identity of the memory inside `space` (module docstring)."""

    @property
    def end(self) -> int:
        """One past the last byte (the end of the last segment)."""
        return self.start + (self.rows - 1) * self.stride + self.width if self.rows > 1 \
            else self.start + self.width

    def describe(self) -> str:
        if self.rows > 1 and self.stride > self.width:
            return (f"[{self.start}, {self.end}) as {self.rows} rows of {self.width} bytes "
                    f"every {self.stride} bytes")
        return f"[{self.start}, {self.end})"


def _segments(a: Access) -> tuple[int, int, int, int]:
    """(start, width, rows, stride) with touching or overlapping rows merged into one segment."""
    if a.rows <= 1 or a.stride <= a.width:
        return a.start, a.end - a.start, 1, 0
    return a.start, a.width, a.rows, a.stride


def _first_hit(x: int, w: int, b0: int, bw: int, br: int, bs: int) -> tuple[int, int] | None:
    """First overlap of the segment [x, x + w) with the strided set (b0, bw, br, bs)."""
    # Segments j with b0 + j*bs + bw > x, i.e. j > (x - b0 - bw) / bs.
    j = max(0, (x - b0 - bw) // bs + 1)
    if j >= br:
        return None
    lo = b0 + j * bs
    if lo >= x + w:
        return None
    return max(x, lo), min(x + w, lo + bw)


def overlap(a: Access, b: Access) -> tuple[int, int] | None:
    """The first byte range [lo, hi) both accesses touch (lowest address), or None. The caller
    has checked that they are in the same memory."""
    a0, aw, ar, as_ = _segments(a)
    b0, bw, br, bs = _segments(b)
    if a0 >= b0 + (br - 1) * bs + bw or b0 >= a0 + (ar - 1) * as_ + aw:
        return None  # disjoint hulls
    if ar == 1 and br == 1:
        return max(a0, b0), min(a0 + aw, b0 + bw)
    if ar == 1:
        return _first_hit(a0, aw, b0, bw, br, bs)
    if br == 1:
        return _first_hit(b0, bw, a0, aw, ar, as_)
    if as_ == bs:
        # Rows i of a and j of b meet iff -aw < (a0 - b0) + (i - j) * s < bw: solve for k = i - j.
        # The lowest common byte is at the k closest to 0 (smallest rows i = max(0, k), j = i - k).
        s, d = as_, a0 - b0
        k_lo = max(-(br - 1), (-aw - d) // s + 1)
        k_hi = min(ar - 1, -((d - bw) // s) - 1)
        if k_lo > k_hi:
            return None
        k = min(max(0, k_lo), k_hi)
        lo_a, lo_b = a0 + max(0, k) * s, b0 + max(0, -k) * s
        return max(lo_a, lo_b), min(lo_a + aw, lo_b + bw)
    # Different strides (rare: two views of one buffer with different row pitches): row by row
    # over the access with fewer rows.
    if ar > br:
        a0, aw, ar, as_, b0, bw, br, bs = b0, bw, br, bs, a0, aw, ar, as_
    for i in range(ar):
        hit = _first_hit(a0 + i * as_, aw, b0, bw, br, bs)
        if hit is not None:
            return hit
    return None


# ------------------------------------------------------------------------------------------------
# Runtime (exact) and static (conservative) accesses of one operand
# ------------------------------------------------------------------------------------------------


def tile_access(tile: Any, write: bool) -> Access:
    """The bytes of an executor `Tile` (exact: its offset and size in its space)."""
    return Access(tile.space, tile.offset, tile.nbytes, 1, 0, write, tile.name, None)


def gm_root(array: Any) -> Any:
    """The array that owns the bytes of a numpy view (a GM argument or `memref.alloc`)."""
    root = array
    while root.base is not None and hasattr(root.base, "__array_interface__"):
        root = root.base
    return root


def gm_access(array: Any, write: bool, region: tuple[int, int] | None = None,
              roots: dict[int, tuple[Any, int]] | None = None) -> Access:
    """The bytes of GM view `array` (optionally only its logical [0:rows, 0:cols] `region` of a
    2-D view) as row segments of the root array it views. `roots` caches root addresses."""
    root = array.base
    if root is None:
        root = array
    elif root.base is not None:
        root = gm_root(array)
    hit = roots.get(id(root)) if roots is not None else None  # mutation: skip (a cache)
    if hit is None or hit[0] is not root:
        hit = (root, root.__array_interface__["data"][0])
        if roots is not None:
            roots[id(root)] = hit
    start = array.__array_interface__["data"][0] - hit[1]
    item = array.itemsize
    shape, strides = array.shape, array.strides
    if array.ndim == 2:
        rows, cols = region if region is not None else shape
        inner = (cols - 1) * strides[1] + item  # one row: the first to the last element
        if rows <= 1 or strides[0] <= inner:  # contiguous (or overlapping) rows: one segment
            return Access("gm", start, (rows - 1) * strides[0] + inner if rows else 0, 1, 0,
                          write, "", id(root))
        return Access("gm", start, inner, rows, strides[0], write, "", id(root))
    if array.flags.c_contiguous:
        return Access("gm", start, array.nbytes, 1, 0, write, "", id(root))
    extent = sum((d - 1) * s for d, s in zip(shape, strides, strict=True)) + item
    return Access("gm", start, extent, 1, 0, write, "", id(root))


def _root_value(value: SSAValue) -> SSAValue:
    """The SSA value a tile or memref is a view of (through `pto.reinterpret`, `memref.subview`)."""
    while True:
        owner = value.owner
        if isinstance(owner, pto.ReinterpretOp):
            value = owner.source
        elif isinstance(owner, memref.SubviewOp):
            value = owner.source
        else:
            return value


def _value_name(value: SSAValue) -> str:
    return f"%{value.name_hint}" if value.name_hint else ""


def static_access(value: SSAValue, write: bool) -> Access:
    """The conservative footprint of an operand without runtime values: the whole tile or the
    whole GM buffer it views."""
    t = value.type
    if isinstance(t, pto.TileType):
        root = _root_value(value)
        alloc = root.owner
        size = max(t.footprint_bytes(), root.type.footprint_bytes()
                   if isinstance(root.type, pto.TileType) else 0)
        if isinstance(alloc, pto.AllocOp) and alloc.offset is not None:
            return Access(t.space_name, alloc.offset.value.data, size, 1, 0, write,
                          _value_name(root), None)
        return Access(t.space_name, 0, size, 1, 0, write, _value_name(root), root)
    assert isinstance(t, MemRefType)
    root = _root_value(value)
    rt = root.type
    nbytes = 1 << 62
    if isinstance(rt, MemRefType) and rt.has_static_shape():
        from mmair.executor.memref import memref_dtype

        count = 1
        for d in rt.get_shape():
            count *= d
        nbytes = count * memref_dtype(rt).itemsize
    name = _value_name(root) or (f"%arg{root.index}" if isinstance(root, BlockArgument) else "")
    return Access("gm", 0, nbytes, 1, 0, write, name, root)


# ------------------------------------------------------------------------------------------------
# The footprint table: one entry per pto op with a memory effect
# ------------------------------------------------------------------------------------------------


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
    # The raw Ascend C parameter forms address from the operand start: whole tiles (static and
    # runtime, conservative), whole GM views.
    pto.CopyNd2NzOp: OpEffects(
        "copy_nd2nz", (_r("src"), _w("dst", isa.ND2NZ_DST_ALIGN)), ("nd_num", "n_value", "d_value")
    ),
    pto.CopyDn2NzOp: OpEffects(
        "copy_dn2nz", (_r("src"), _w("dst", isa.ND2NZ_DST_ALIGN)), ("dn_num", "n_value", "d_value")
    ),
    pto.Load2DOp: OpEffects(
        "load_2d", (_r("src", isa.LOAD2D_SRC_ALIGN), _w("dst", isa.LOAD2D_DST_ALIGN)),
        ("repeat_times",),
    ),
    pto.Load2DTransposeOp: OpEffects(
        "load_2d_transpose", (_r("src", isa.LOAD2D_SRC_ALIGN), _w("dst", isa.LOAD2D_DST_ALIGN)),
        ("repeat_times",),
    ),
    pto.Load2DV2Op: OpEffects(
        "load_2d_v2", (_r("src", isa.LOAD2D_SRC_ALIGN), _w("dst", isa.LOAD2D_DST_ALIGN)),
        ("m_step", "k_step"),
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


def _operand_index(op: Operation, name: str) -> int | None:
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
        index = _operand_index(op, role.name)
        if index is not None:
            found.append((index, role))
    return found


def operand_alignment(op: Operation, index: int) -> int:
    """The op-level address alignment operand `index` of `op` requires (1: only the space's)."""
    for i, role in memory_operands(op):
        if i == index:
            return role.align
    return 1


class Footprint:
    """The footprint of one op instance, decoded once: `accesses(values)` is the per-execution
    part (the executor caches a Footprint per op)."""

    __slots__ = ("op", "kind", "_plan", "_sizes", "_tiles", "_roots")

    def __init__(self, op: Operation):
        eff = EFFECTS[type(op)]
        self.op = op
        self.kind = eff.kind
        plan = []
        for index, role in memory_operands(op):
            region = eff.region(op, role.name) if eff.region is not None else None
            if region is not None:
                rows_i, cols_i = _operand_index(op, region[0]), _operand_index(op, region[1])
                region = (rows_i, cols_i, region[2])
            for flag in (False, True):  # a read-write operand is two accesses
                if (role.write if flag else role.read):
                    plan.append((index, flag, region))
        self._plan = tuple(plan)
        sizes = (_operand_index(op, n) for n in eff.sizes)
        self._sizes = tuple(i for i in sizes if i is not None)
        self._tiles: dict[int, tuple[Any, Access, Access]] = {}  # by id(tile), checked
        self._roots: dict[int, tuple[Any, int]] = {}  # GM root array addresses, by id

    def accesses(self, values: Sequence[Any] | None = None) -> list[Access]:
        """Exact accesses for runtime operand `values`, conservative ones for None."""
        op = self.op
        if values is None:
            operands = op.operands
            return [static_access(operands[i], write) for i, write, _ in self._plan]
        for i in self._sizes:
            if values[i] == 0:
                return []  # a runtime size of 0 is a no-op
        out = []
        tiles = self._tiles
        for i, write, region in self._plan:
            v = values[i]
            if type(v) is not np.ndarray:  # an executor Tile: its Access is cached
                hit = tiles.get(id(v))
                if hit is None or hit[0] is not v:
                    hit = tiles[id(v)] = (v, Access(v.space, v.offset, v.nbytes, 1, 0, False,
                                                    v.name, None),
                                          Access(v.space, v.offset, v.nbytes, 1, 0, True,
                                                 v.name, None))
                out.append(hit[2] if write else hit[1])
            elif region is not None:
                r, c = values[region[0]], values[region[1]]
                out.append(gm_access(v, write, (c, r) if region[2] else (r, c), self._roots))
            else:
                out.append(gm_access(v, write, None, self._roots))
        return out


def accesses(op: Operation, values: Sequence[Any] | None = None) -> list[Access]:
    """The reads and writes of `op`, per memory (module docstring): exact for the executor's
    runtime operand `values`, conservative (whole tiles, whole GM buffers) for None. Ops
    without a memory effect return []."""
    if type(op) not in EFFECTS:
        return []
    return Footprint(op).accesses(values)
