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
  argument), restricted to the region the op's size operands select; for the raw parameter
  forms (`pto.copy_nd2nz`, `pto.load_2d`, `pto.mmad`, `pto.fixpipe_copy`, ...) the bytes their
  runtime parameters address (`_RAW_EXACT`: affine boxes of counts and strides).
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
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import MemRefType, NoneAttr
from xdsl.ir import BlockArgument, Operation, SSAValue

from mmair.dialects import pto
from mmair.dialects.value_names import value_label
from mmair.isa.ascend import params as isa_params
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


def _address_reader() -> Callable[[np.ndarray], int]:
    """`array -> address of its first byte`. `__array_interface__` builds a dict of six entries
    per call (1-4 us, once per GM access of every executed op); on CPython the address is the
    `data` field that follows the object header in numpy's array struct (`PyArrayObject`),
    which ctypes reads in a tenth of that. Used only when it agrees with `__array_interface__`
    on probe views (so another interpreter or array layout gets the portable reader)."""

    def portable(array: np.ndarray) -> int:
        return array.__array_interface__["data"][0]

    try:
        import ctypes

        read, header = ctypes.c_void_p.from_address, object.__basicsize__

        def fast(array: np.ndarray) -> int:
            return read(id(array) + header).value or 0

        base = np.arange(64, dtype=np.int32).reshape(8, 8)
        probes = (base, base[3:, 5:], base[::-2, 1::3], base.T[2:4], base[7:, 8:])
        if all(fast(p) == portable(p) for p in probes):  # mutation: skip (both readers give the same addresses)
            return fast
    except Exception:  # no ctypes, or reading the struct failed: the portable reader
        pass
    return portable


data_address = _address_reader()


def gm_root(array: Any) -> Any:
    """The array that owns the bytes of a numpy view (a GM argument or `memref.alloc`)."""
    root = array
    while root.base is not None and hasattr(root.base, "__array_interface__"):
        root = root.base
    return root


_new_access = tuple.__new__
"""`Access(*fields)` without the Python-level `__new__` of a NamedTuple (once per GM access)."""


def _root_offset(array: Any, roots: dict[int, tuple[Any, int]] | None) -> tuple[Any, int]:
    """The root array GM view `array` views and the byte offset of its first element in it.
    `roots` caches root addresses (one `__array_interface__` read per root and run)."""
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
    return root, data_address(array) - hit[1]


def gm_access(array: Any, write: bool, region: tuple[int, int] | None = None,
              roots: dict[int, tuple[Any, int]] | None = None) -> Access:
    """The bytes of GM view `array` (optionally only its logical [0:rows, 0:cols] `region` of a
    2-D view) as row segments of the root array it views. `roots` caches root addresses."""
    root, start = _root_offset(array, roots)
    item = array.itemsize
    shape, strides = array.shape, array.strides
    if array.ndim == 2:
        rows, cols = region if region is not None else shape
        inner = (cols - 1) * strides[1] + item  # one row: the first to the last element
        if rows <= 1 or strides[0] <= inner:  # contiguous (or overlapping) rows: one segment
            return _new_access(Access, ("gm", start, (rows - 1) * strides[0] + inner if rows else 0,
                                        1, 0, write, "", id(root)))
        return _new_access(Access, ("gm", start, inner, rows, strides[0], write, "", id(root)))
    if array.flags.c_contiguous:
        return Access("gm", start, array.nbytes, 1, 0, write, "", id(root))
    extent = sum((d - 1) * s for d, s in zip(shape, strides, strict=True)) + item
    return Access("gm", start, extent, 1, 0, write, "", id(root))


def gm_element_access(array: Any, index: Sequence[int], write: bool,
                      roots: dict[int, tuple[Any, int]] | None = None) -> Access:
    """The bytes of one element `array[index]` of GM view `array` (a scalar `memref.load` /
    `memref.store`), as an access of the root array it views (the same key and offsets as
    `gm_access`, so it meets the pipe ops' GM windows). `index` is in bounds (checked by the
    caller)."""
    root, start = _root_offset(array, roots)
    for i, stride in zip(index, array.strides, strict=True):
        start += i * stride
    return Access("gm", start, array.itemsize, 1, 0, write, "", id(root))


def scalar_gm_operands(op: Operation) -> tuple[tuple[int, bool], ...] | None:
    """(operand index, write) of the GM memrefs a scalar-unit access reads and writes:
    `memref.load` (one element), `memref.store` (one element), `memref.copy` (whole views). None
    for any other op, and when a memref has a memory space (tcgen05 SMEM / TMEM:
    `executor/tcgen05/async_checker.py` models those); GM memrefs have none."""
    if isinstance(op, memref.LoadOp):
        roles: tuple[tuple[int, bool], ...] = ((0, False),)
    elif isinstance(op, memref.StoreOp):
        roles = ((1, True),)
    elif isinstance(op, memref.CopyOp):
        roles = ((0, False), (1, True))
    else:
        return None
    for index, _ in roles:
        t = op.operands[index].type
        if not isinstance(t, MemRefType) or not isinstance(t.memory_space, NoneAttr):
            return None
    return roles


def root_value(value: SSAValue) -> SSAValue:
    """The SSA value a tile or memref is a view of (through `pto.reinterpret`, `memref.subview`)."""
    while True:
        owner = value.owner
        if isinstance(owner, pto.ReinterpretOp):
            value = owner.source
        elif isinstance(owner, memref.SubviewOp):
            value = owner.source
        else:
            return value


def _is_function_argument(value: SSAValue) -> bool:
    """An argument of a `func.func` (its entry block's), not a loop's or a branch target's."""
    if not isinstance(value, BlockArgument):
        return False
    parent = value.owner.parent_op()
    return isinstance(parent, func.FuncOp) and value.owner is parent.body.blocks.first


def gm_written_roots(module: Operation) -> set[SSAValue] | None:
    """The GM buffers the pto ops and the scalar `memref.store`s of `module` may write, as the
    SSA values they are views of (`root_value`): function arguments and `memref.alloc` /
    `memref.alloca` results. None when a GM write reaches any other value (a cast, a
    loop-carried memref): then any buffer may be written. Only these footprints are looked at:
    the caller checks that no other op writes GM (`executor.runner.read_only_gm`)."""
    written: set[SSAValue] = set()
    for op in module.walk():
        targets = [op.operands[index] for index, role in memory_operands(op) if role.write]
        if isinstance(op, memref.StoreOp):
            targets.append(op.memref)
        for value in targets:
            if not isinstance(value.type, MemRefType):
                continue
            root = root_value(value)
            owner = root.owner
            if isinstance(owner, memref.AllocOp | memref.AllocaOp):
                written.add(root)
            elif _is_function_argument(root):
                written.add(root)
            else:
                return None
    return written


def _value_name(value: SSAValue) -> str:
    return value_label(value)


def static_access(value: SSAValue, write: bool) -> Access:
    """The conservative footprint of an operand without runtime values: the whole tile or the
    whole GM buffer it views."""
    t = value.type
    if isinstance(t, pto.TileType):
        root = root_value(value)
        alloc = root.owner
        size = max(t.footprint_bytes(), root.type.footprint_bytes()
                   if isinstance(root.type, pto.TileType) else 0)
        if isinstance(alloc, pto.AllocOp) and alloc.offset is not None:
            return Access(t.space_name, alloc.offset.value.data, size, 1, 0, write,
                          _value_name(root), None)
        return Access(t.space_name, 0, size, 1, 0, write, _value_name(root), root)
    assert isinstance(t, MemRefType)
    root = root_value(value)
    rt = root.type
    nbytes = 1 << 62
    if isinstance(rt, MemRefType) and rt.has_static_shape():
        from mmair.dialects.types import memref_dtype

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
    # The raw Ascend C parameter forms address from the operand start with their parameters:
    # exact at run time (`_RAW_EXACT`), whole tiles and whole GM buffers statically.
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


# ------------------------------------------------------------------------------------------------
# Exact runtime footprints of the raw parameter forms
# ------------------------------------------------------------------------------------------------
# A raw-form instruction addresses its operands linearly from their start with counts and strides
# (`executor/ascend/raw_kernels.py` implements the index formulas). Its footprint is, per operand, an
# affine box: a contiguous run of `width` bytes repeated by nested loops (count, byte stride).
# `_box` turns a box into `Access`es: loops whose stride does not exceed the run merge into it,
# the innermost remaining loop becomes the access's rows, outer loops are enumerated (up to
# `MAX_BOX_ACCESSES`, beyond that the box's hull). A box that leaves its buffer (the kernel then
# fails) is the whole buffer from the operand start, as the static footprint.

MAX_BOX_ACCESSES = 64
"""Accesses one operand's box is split into at most; more becomes its hull (conservative)."""

_Loops = Sequence[tuple[int, int]]


def _box(space: str, base: int, width: int, loops: _Loops, write: bool, name: str,
         memory: Hashable, buffer: tuple[int, int]) -> list[Access]:
    """The bytes `base + sum(i_j * stride_j) + [0, width)` for `i_j < count_j` (comment above)
    of the operand whose buffer is the byte range `buffer`."""
    if width <= 0 or any(count <= 0 for count, _ in loops):
        return []
    live = sorted(((c, s) for c, s in loops if c > 1 and s != 0), key=lambda cs: cs[1])
    outer: list[tuple[int, int]] = []
    for count, stride in live:
        if not outer and stride <= width:  # contiguous (or overlapping) repeats: a longer run
            width += (count - 1) * stride
        else:
            outer.append((count, stride))
    end = base + width + sum((c - 1) * s for c, s in outer)
    if base < buffer[0] or end > buffer[1] or any(s < 0 for _, s in outer):
        # the kernel rejects it; until it does, the conservative footprint
        return [Access(space, buffer[0], buffer[1] - buffer[0], 1, 0, write, name, memory)]
    if not outer:
        return [Access(space, base, width, 1, 0, write, name, memory)]
    rows, stride = outer[0]
    starts = [base]
    for count, step in outer[1:]:
        if len(starts) * count > MAX_BOX_ACCESSES:
            return [Access(space, base, end - base, 1, 0, write, name, memory)]
        starts = [x + i * step for x in starts for i in range(count)]
    return [Access(space, x, width, rows, stride, write, name, memory) for x in starts]


def _bytes(tile: Any) -> tuple[int, int]:
    return tile.offset, tile.offset + tile.nbytes


def _offset_bytes(tile: Any, offset: int) -> int:
    """Bytes from `tile`'s start to its element `offset` (4-bit elements: two a byte)."""
    return offset * isa.element_bits(tile.element) // 8


def _tile_box(tile: Any, offset: int, width: int, loops: _Loops, write: bool,
              unit_bits: int = 0) -> list[Access]:
    """A box of `tile` from element `offset`, `width` and strides in units of `unit_bits` (default
    the tile's elements). A box of 4-bit units covers the bytes holding its nibbles; strides of
    a fraction of a byte (no raw form has them) give the conservative whole buffer."""
    bits = isa.element_bits(tile.element)
    unit_bits = unit_bits or bits
    start = tile.offset + offset * bits // 8
    buffer = (tile.offset, tile.offset + tile.nbytes)
    if unit_bits % 8:
        if any(s * unit_bits % 8 for _, s in loops):
            return [Access(tile.space, start, buffer[1] - start, 1, 0, write, tile.name, None)]
        end = tile.offset + -(-(offset * bits + width * unit_bits) // 8)
        return _box(tile.space, start, end - start, [(c, s * unit_bits // 8) for c, s in loops],
                    write, tile.name, None, buffer)
    item = unit_bits // 8
    return _box(tile.space, start, width * item, [(c, s * item) for c, s in loops], write,
                tile.name, None, buffer)


def _gm_box(array: Any, width: int, loops: _Loops, write: bool,
            roots: dict[int, tuple[Any, int]], offset_bytes: int = 0) -> list[Access]:
    """A box of GM addressed linearly from `array`'s first element (`executor.pto.gm_linear`)
    plus `offset_bytes`, `width` and strides in elements."""
    root = gm_root(array)
    hit = roots.get(id(root))
    if hit is None or hit[0] is not root:
        hit = roots[id(root)] = (root, root.__array_interface__["data"][0])
    start = data_address(array) - hit[1] + offset_bytes
    item = array.itemsize
    return _box("gm", start, width * item, [(c, s * item) for c, s in loops], write, "",
                id(root), (0, root.nbytes))


def _any_box(value: Any, offset: int, width: int, loops: _Loops, write: bool,
             roots: dict[int, tuple[Any, int]]) -> list[Access]:
    if type(value) is np.ndarray:
        return _gm_box(value, width, loops, write, roots)
    return _tile_box(value, offset, width, loops, write)


def _indices(op: Operation, *names: str) -> tuple[int | None, ...]:
    return tuple(_operand_index(op, name) for name in names)


_Exact = Callable[[Sequence[Any], dict[int, tuple[Any, int]]], list[Access]]


def _exact_nz_copy(op: Operation) -> _Exact:
    """DataCopy GM -> L1, Nd2NzParams / Dn2NzParams (`raw_kernels.nd2nz`)."""
    assert isinstance(op, pto.CopyNd2NzOp | pto.CopyDn2NzOp)
    dn, small = op.DN, op.small_c0 is not None
    src, dst, dst_off, *fields = _indices(op, "src", "dst", "dst_offset", *op.FIELDS)
    elem_bits = op.dst.type.element_bits  # pyright: ignore
    # 4-bit: the b8 copy (raw_kernels.nd2nz): fields and C0 in bytes, a byte two GM elements
    unit_bits = max(elem_bits, 8)
    per_unit = unit_bits // elem_bits
    c0 = isa.C0_BYTES * 8 // unit_bits

    def exact(values: Sequence[Any], roots: dict[int, tuple[Any, int]]) -> list[Access]:
        nd, n, d, src_mat, src_d, c0_stride, n_stride, mat = (values[i] for i in fields)
        g = per_unit
        if dn:  # src[i*mat + d*srcDValue + n]
            out = _gm_box(values[src], n * g, ((d, src_d * g), (nd, src_mat * g)), False, roots)
        else:  # src[i*mat + n*srcDValue + d]
            out = _gm_box(values[src], d * g, ((n, src_d * g), (nd, src_mat * g)), False, roots)
        tile, offset = values[dst], values[dst_off]
        if small:  # each matrix: n rows of 4 elements, zero-filled to whole 32-byte blocks
            tail = -(-n * isa_params.SMALL_C0_ELEMENTS // c0) * c0
            return out + _tile_box(tile, offset, tail, ((nd, mat),), True, unit_bits)
        # dst[i*mat + (d//c0)*c0Stride*c0 + n*nStride*c0 + d%c0], d < ceil(dValue / c0) * c0
        return out + _tile_box(tile, offset, c0, ((n, n_stride * c0), (-(-d // c0), c0_stride * c0),
                                                  (nd, mat)), True, unit_bits)

    return exact


def _exact_load_2d(op: Operation) -> _Exact:
    """LoadData 2D (`raw_kernels.load2d`): repeatTimes fractals of 512 B."""
    assert isinstance(op, pto.Load2DOp)
    gap_counts = isa_params.load2d_dst_gap_effective(pto.target_of(op))
    src, soff, dst, doff, start, repeat, stride, gap = _indices(
        op, "src", "src_offset", "dst", "dst_offset", "start_index", "repeat_times", "src_stride",
        "dst_gap")
    frac = isa.FRACTAL_BYTES

    def exact(values: Sequence[Any], roots: dict[int, tuple[Any, int]]) -> list[Access]:
        s, d, r = values[src], values[dst], values[repeat]
        step = (values[gap] + 1 if gap_counts else 1) * frac
        return _box(s.space, s.offset + _offset_bytes(s, values[soff]) + values[start] * frac, frac,
                    ((r, values[stride] * frac),), False, s.name, None, _bytes(s)) + \
            _box(d.space, d.offset + _offset_bytes(d, values[doff]), frac, ((r, step),), True,
                 d.name, None, _bytes(d))

    return exact


def _exact_load_2d_gm(op: Operation) -> _Exact:
    """LoadData 2D GM -> L1 (`raw_kernels.load2d` with addrMode): repeatTimes fractals of 512 B;
    with addrMode 1 the source fractals run down from startIndex, the same set as the run up
    from startIndex - srcStride*(repeatTimes - 1)."""
    assert isinstance(op, pto.Load2DGmOp)
    dec = op.decrements
    src, soff, dst, doff, start, repeat, stride, gap = _indices(
        op, "src", "src_offset", "dst", "dst_offset", "start_index", "repeat_times", "src_stride",
        "dst_gap")
    frac = isa.FRACTAL_BYTES

    def exact(values: Sequence[Any], roots: dict[int, tuple[Any, int]]) -> list[Access]:
        s, d, r, step = values[src], values[dst], values[repeat], values[stride]
        first = values[start] - step * (r - 1) if dec else values[start]
        return _gm_box(s, frac // s.itemsize, ((r, step * frac // s.itemsize),), False, roots,
                       values[soff] * s.itemsize + first * frac) + \
            _box(d.space, d.offset + values[doff] * d.physical.itemsize, frac,
                 ((r, (values[gap] + 1) * frac),), True, d.name, None, _bytes(d))

    return exact


def _exact_load_2d_transpose(op: Operation) -> _Exact:
    """LoadDataWithTranspose (`raw_kernels.load2d_transpose`): square blocks of 1, 2 or 4 fractals,
    each destination fractal of an iteration dstFracGap apart."""
    assert isinstance(op, pto.Load2DTransposeOp)
    src, soff, dst, doff, start, repeat, stride, gap, frac_gap = _indices(
        op, "src", "src_offset", "dst", "dst_offset", "start_index", "repeat_times", "src_stride",
        "dst_gap", "dst_frac_gap")
    frac = isa.FRACTAL_BYTES

    def exact(values: Sequence[Any], roots: dict[int, tuple[Any, int]]) -> list[Access]:
        s, d, r = values[src], values[dst], values[repeat]
        nfrac = isa_params.transpose_square(s.element)[0]
        square = nfrac * frac
        base = d.offset + _offset_bytes(d, values[doff])
        out = _box(s.space, s.offset + _offset_bytes(s, values[soff]) + values[start] * square,
                   square, ((r, values[stride] * square),), False, s.name, None, _bytes(s))
        for j in range(nfrac):
            out += _box(d.space, base + j * (values[frac_gap] + 1) * frac, frac,
                        ((r, (values[gap] + 1) * frac),), True, d.name, None, _bytes(d))
        return out

    return exact


def _exact_load_2d_v2(op: Operation) -> _Exact:
    """LoadData with LoadData2DParamsV2 (`raw_kernels.load2d_v2`): an mStep x kStep window of
    fractals, written kStep columns of mStep fractals (transposed: the transposed grid)."""
    assert isinstance(op, pto.Load2DV2Op)
    transpose = op.if_transpose is not None
    src, soff, dst, doff, m0, k0, m_step, k_step, sstride, dstride = _indices(
        op, "src", "src_offset", "dst", "dst_offset", "m_start_position", "k_start_position",
        "m_step", "k_step", "src_stride", "dst_stride")
    frac = isa.FRACTAL_BYTES

    def exact(values: Sequence[Any], roots: dict[int, tuple[Any, int]]) -> list[Access]:
        s, d, ms, ks = values[src], values[dst], values[m_step], values[k_step]
        rows, cols = ms, ks
        bits = isa.element_bits(s.element)
        if transpose:
            c0 = isa.C0_BYTES * 8 // bits
            rows, cols = ks * c0 // isa.M0, ms * isa.M0 // c0
        first = (values[k0] * values[sstride] + values[m0]) * frac
        return _box(s.space, s.offset + _offset_bytes(s, values[soff]) + first, frac,
                    ((ms, frac), (ks, values[sstride] * frac)), False, s.name, None,
                    _bytes(s)) + \
            _box(d.space, d.offset + _offset_bytes(d, values[doff]), frac,
                 ((rows, frac), (cols, values[dstride] * frac)), True, d.name, None, _bytes(d))

    return exact


def _exact_load_2d_v2_gm(op: Operation) -> _Exact:
    """LoadData2DParamsV2 GM -> L1 (`raw_kernels.load2d_v2`, no transpose): the mStep x kStep
    window of GM fractals (kStep columns srcStride apart) to kStep columns dstStride apart."""
    assert isinstance(op, pto.Load2DV2GmOp)
    src, soff, dst, doff, m0, k0, m_step, k_step, sstride, dstride = _indices(
        op, "src", "src_offset", "dst", "dst_offset", "m_start_position", "k_start_position",
        "m_step", "k_step", "src_stride", "dst_stride")
    frac = isa.FRACTAL_BYTES

    def exact(values: Sequence[Any], roots: dict[int, tuple[Any, int]]) -> list[Access]:
        s, d, ms, ks = values[src], values[dst], values[m_step], values[k_step]
        item = s.itemsize
        per = frac * 8 // isa.element_bits(d.element)  # GM elements a fractal (4-bit: 1024)
        first = (values[k0] * values[sstride] + values[m0]) * per
        return _gm_box(s, per, ((ms, per), (ks, values[sstride] * per)),
                       False, roots, (values[soff] + first) * item) + \
            _box(d.space, d.offset + _offset_bytes(d, values[doff]), frac,
                 ((ms, frac), (ks, values[dstride] * frac)), True, d.name, None, _bytes(d))

    return exact


def _exact_copy_l1_bt(op: Operation) -> _Exact:
    """DataCopy L1 -> BiasTable (`raw_kernels.copy_l1_bt`): blockCount bursts of blockLen units,
    the gaps end to start (srcGap in 32 B, dstGap in units)."""
    assert isinstance(op, pto.CopyL1BtOp)
    unit = isa_params.l1_bt_unit_bytes(pto.target_of(op))
    src, soff, dst, doff, count_i, len_i, sgap, dgap = _indices(
        op, "src", "src_offset", "dst", "dst_offset", "block_count", "block_len", "src_gap",
        "dst_gap")

    def exact(values: Sequence[Any], roots: dict[int, tuple[Any, int]]) -> list[Access]:
        s, d, count = values[src], values[dst], values[count_i]
        burst = values[len_i] * unit
        src_step = burst + values[sgap] * isa_params.L1_BT_SRC_GAP_BYTES
        return _box(s.space, s.offset + _offset_bytes(s, values[soff]), burst,
                    ((count, src_step),), False, s.name, None, _bytes(s)) + \
            _box(d.space, d.offset + _offset_bytes(d, values[doff]), burst,
                 ((count, burst + values[dgap] * unit),), True, d.name, None, _bytes(d))

    return exact


def _exact_mmad(op: Operation) -> _Exact:
    """Mmad (`raw_kernels.mmad_indices`): each operand's fractal grid is a prefix of its buffer;
    the footprint is that prefix up to the last element the sizes reach. L0C is read only when
    the op accumulates."""
    assert isinstance(op, pto.MmadOp)
    target = pto.target_of(op)
    disable_gemv = op.disable_gemv is not None
    align16 = op.k_direction_align is not None
    accumulate = not op.init_zero
    lhs, rhs, dst, bias, m_i, n_i, k_i = _indices(op, "lhs", "rhs", "dst", "bias", "m", "n", "k")
    m0 = isa.M0

    def exact(values: Sequence[Any], roots: dict[int, tuple[Any, int]]) -> list[Access]:
        a, b, c = values[lhs], values[rhs], values[dst]
        m, n, k = values[m_i], values[n_i], values[k_i]
        k0a = isa.C0_BYTES * 8 // isa.element_bits(a.element)
        k0b = isa.C0_BYTES * 8 // isa.element_bits(b.element)
        m1 = -(-m // m0)
        n1 = -(-n // m0)
        r, kk, nn = m - 1, k - 1, n - 1  # the largest index of each grid is at its last element
        if isa_params.gemv_active(target, m, disable_gemv):
            a_last = kk
        elif target.l0a_layout == "zz":
            kpad = -(-k // 16) * 16 if align16 else -(-k // k0a) * k0a
            a_last = ((r // m0) * (kpad // k0a) + kk // k0a) * m0 * k0a + (r % m0) * k0a + kk % k0a
        else:
            a_last = ((kk // k0a) * m1 + r // m0) * m0 * k0a + (r % m0) * k0a + kk % k0a
        b_last = ((kk // k0b) * n1 + nn // m0) * m0 * k0b + (nn % m0) * k0b + kk % k0b
        c_last = ((nn // m0) * m1 + r // m0) * m0 * m0 + (r % m0) * m0 + nn % m0
        out = _tile_box(a, 0, a_last + 1, (), False) + _tile_box(b, 0, b_last + 1, (), False)
        if bias is not None:
            out += _tile_box(values[bias], 0, n, (), False)
        if accumulate:
            out += _tile_box(c, 0, c_last + 1, (), False)
        return out + _tile_box(c, 0, c_last + 1, (), True)

    return exact


def _exact_fixpipe_copy(op: Operation) -> _Exact:
    """Fixpipe with its raw parameters (`raw_kernels.fixpipe_indices`): L0C fractal columns of
    16 channels to ND rows, NZ blocks or DN columns. The partial last 16-channel block and the
    unmerged tail of a b8 NZ output count as whole (conservative by those lanes)."""
    assert isinstance(op, pto.FixpipeCopyOp)
    target = pto.target_of(op)
    layout = op.layout.data
    split = op.channel_split is not None
    (src, soff, dst, n_i, m_i, ss_i, ds_i, nd_i, snd_i, dnd_i, c0s_i, vec) = _indices(
        op, "src", "src_offset", "dst", "n_size", "m_size", "src_stride", "dst_stride", "nd_num",
        "src_nd_stride", "dst_nd_stride", "src_nz_c0_stride", "vector")

    def exact(values: Sequence[Any], roots: dict[int, tuple[Any, int]]) -> list[Access]:
        s, d = values[src], values[dst]
        n, m, ss, ds = values[n_i], values[m_i], values[ss_i], values[ds_i]
        nd, snd, dnd = values[nd_i], values[snd_i], values[dnd_i]
        lanes = min(n, 16)
        blocks = -(-n // 16)
        if layout == "nz2dn":
            c0s = values[c0s_i] if c0s_i is not None else 1
            out = _tile_box(s, values[soff], lanes, ((m, 16 * c0s), (blocks, 16 * ss),
                                                     (nd, 16 * snd)), False)
            out += _any_box(d, 0, m, ((n, ds), (nd, dnd)), True, roots)
        elif layout == "nz2nd":
            out = _tile_box(s, values[soff], lanes, ((m, 16), (blocks, 16 * ss), (nd, 16 * snd)),
                            False)
            out += _any_box(d, 0, n, ((m, ds), (nd, dnd)), True, roots)
        else:  # nz2nz: one matrix; destination blocks of W channels, dstStride apart
            out = _tile_box(s, values[soff], lanes, ((m, 16), (blocks, 16 * ss)), False)
            item = d.itemsize if type(d) is np.ndarray else d.physical.itemsize
            unit = 32 / item if target.fixpipe_params != "arch3510" else 1
            width = isa_params.fixpipe_nz_block_cols(item * 8, split)
            step = ds * unit
            if step != int(step):  # the kernel rejects it: the whole destination
                step = 0
                width = 1 << 62
            out += _any_box(d, 0, m * width, ((-(-n // width), int(step)),), True, roots)
        if vec is not None:
            out.append(tile_access(values[vec], False))
        return out

    return exact


_RAW_EXACT: dict[type[Operation], Callable[[Operation], _Exact]] = {
    pto.CopyNd2NzOp: _exact_nz_copy,
    pto.CopyDn2NzOp: _exact_nz_copy,
    pto.Load2DOp: _exact_load_2d,
    pto.Load2DGmOp: _exact_load_2d_gm,
    pto.Load2DTransposeOp: _exact_load_2d_transpose,
    pto.Load2DV2Op: _exact_load_2d_v2,
    pto.Load2DV2GmOp: _exact_load_2d_v2_gm,
    pto.CopyL1BtOp: _exact_copy_l1_bt,
    pto.MmadOp: _exact_mmad,
    pto.FixpipeCopyOp: _exact_fixpipe_copy,
}
"""The raw parameter forms: op class -> (op -> exact runtime footprint of operand values)."""


class Footprint:
    """The footprint of one op instance, decoded once: `accesses(values)` is the per-execution
    part (the executor caches a Footprint per op)."""

    __slots__ = ("op", "kind", "_plan", "_sizes", "_tiles", "_roots", "_exact", "_operands",
                 "_last")

    def __init__(self, op: Operation, unread: frozenset[int] = frozenset()):
        """`unread`: indices of read-only operands whose reads are left out (the race checker's
        footprint of a GM buffer that nothing writes, `gm_written_roots`; not for the raw
        forms, whose exact footprint is one function of all operands)."""
        eff = EFFECTS[type(op)]
        self.op = op
        self.kind = eff.kind
        plan = []
        for index, role in memory_operands(op):
            if index in unread and not role.write:
                continue
            region = eff.region(op, role.name) if eff.region is not None else None
            if region is not None:
                rows_i, cols_i = _operand_index(op, region[0]), _operand_index(op, region[1])
                region = (rows_i, cols_i, region[2])
            for flag in (False, True):  # a read-write operand is two accesses
                if (role.write if flag else role.read):
                    plan.append((index, flag, region))
        self._plan = tuple(plan)
        exact = _RAW_EXACT.get(type(op))
        self._exact = exact(op) if exact is not None else None
        sizes = (_operand_index(op, n) for n in eff.sizes)
        self._sizes = tuple(i for i in sizes if i is not None)
        self._tiles: dict[int, tuple[Any, Access, Access]] = {}  # by id(tile), checked
        self._roots: dict[int, tuple[Any, int]] = {}  # GM root array addresses, by id
        self._operands = tuple(dict.fromkeys(i for i, _, _ in plan))
        self._last: tuple[Sequence[Any], list[Access]] | None = None
        """(values, accesses) of the last call whose memory operands were all tiles: the same
        tiles give the same list again (callers only read it)."""

    def accesses(self, values: Sequence[Any] | None = None) -> list[Access]:
        """Exact accesses for runtime operand `values`, conservative ones for None."""
        op = self.op
        if values is None:
            operands = op.operands
            return [static_access(operands[i], write) for i, write, _ in self._plan]
        for i in self._sizes:
            if values[i] == 0:
                return []  # a runtime size of 0 is a no-op
        if self._exact is not None:
            return self._exact(values, self._roots)
        last = self._last
        if last is not None:
            seen = last[0]
            for i in self._operands:
                if values[i] is not seen[i]:
                    break
            else:
                return last[1]  # the same tiles (a tile's Access ignores the sizes)
        out = []
        tiles = self._tiles
        on_chip = True
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
                on_chip = False
                r, c = values[region[0]], values[region[1]]
                out.append(gm_access(v, write, (c, r) if region[2] else (r, c), self._roots))
            else:
                on_chip = False
                out.append(gm_access(v, write, None, self._roots))
        if on_chip:
            self._last = (values, out)
        return out


def accesses(op: Operation, values: Sequence[Any] | None = None) -> list[Access]:
    """The reads and writes of `op`, per memory (module docstring): exact for the executor's
    runtime operand `values`, conservative (whole tiles, whole GM buffers) for None. Ops
    without a memory effect return []."""
    if type(op) not in EFFECTS:
        return []
    return Footprint(op).accesses(values)
