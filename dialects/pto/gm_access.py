"""Which bytes of GM an op touches: GM windows in their root arrays (run time) and root SSA values
(statically).

A GM memref at run time is a numpy view of a kernel argument (the root array); its `Access` is the
exact set of its rows inside the root, restricted to the region an op's sizes select. Statically a
GM access is the whole buffer the memref is a view of, keyed by the root `SSAValue` (through
`memref.subview` and the other view ops). `gm_written_roots` tells the race checker which GM
buffers no op can write (their reads need no record).
"""


from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import MemRefType, NoneAttr
from xdsl.ir import BlockArgument, Operation, SSAValue

from mmair.dialects import pto
from mmair.dialects.pto.access import Access
from mmair.dialects.pto.effects import memory_operands
from mmair.dialects.value_names import value_label


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


class WindowError(ValueError):
    """A GM window outside its view (an operand the op refuses when it runs)."""


_new_access = tuple.__new__
"""`Access(*fields)` without the Python-level `__new__` of a NamedTuple (once per GM access):
every field is given, the defaults too."""


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
        if region is not None and not (0 <= rows <= shape[0] and 0 <= cols <= shape[1]):
            # The op itself refuses such a window when it runs; a footprint taken before it runs
            # (timing-only: the op never runs) must not describe bytes outside the view.
            raise WindowError(f"requires a window of [0, {shape[0]}] rows and [0, {shape[1]}] "
                             f"columns of its {shape[0]}x{shape[1]} GM view, got {rows}x{cols}")
        inner = (cols - 1) * strides[1] + item  # one row: the first to the last element
        if rows <= 1 or strides[0] <= inner:  # contiguous (or overlapping) rows: one segment
            return _new_access(Access, ("gm", start, (rows - 1) * strides[0] + inner if rows else 0,
                                        1, 0, write, "", id(root), ""))
        return _new_access(Access, ("gm", start, inner, rows, strides[0], write, "", id(root), ""))
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
