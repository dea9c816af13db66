"""Interpreter functions for `memref` on GM data held as numpy arrays.

GM is the device's global memory; its buffers are the kernel's memref arguments (numpy arrays) and
`memref.alloc` temporaries. `memref.subview` returns a numpy VIEW (static or dynamic offsets, sizes
and strides), so writes through a window reach the argument. `memref.load` / `memref.store` index the
arrays directly (Python ints / floats as values). Out-of-bounds windows and indices raise
`ExecutionError` (numpy would clip slices and wrap negative indices silently).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import prod
from typing import Any

import numpy as np
from xdsl.dialects import memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Operation

from mmair.dialects.types import memref_dtype
from mmair.executor.engine.errors import ExecutionError

DEFAULT_MAX_GM_BYTES = 4 << 30
"""Largest GM buffer (an entry argument the runner fills, or a `memref.alloc`) the executor creates:
GM is host memory here, so an absurd shape must be an error before numpy tries to allocate it
(`mmair-run --max-gm-bytes`)."""


def check_gm_size(shape: list[int] | tuple[int, ...], dtype: np.dtype, limit: int | None, what: str) -> None:
    """Raise ExecutionError when a GM buffer of `shape` x `dtype` would exceed `limit` bytes."""
    if limit is None:
        return
    nbytes = prod(shape) * dtype.itemsize
    if nbytes > limit:
        raise ExecutionError(
            f"{what} of shape {'x'.join(map(str, shape))} ({nbytes} bytes) exceeds the GM buffer "
            f"limit of {limit} bytes (raise it with --max-gm-bytes)"
        )


def _check_index(array: np.ndarray, index: tuple[int, ...]) -> None:
    shape = array.shape
    if len(index) != len(shape) or any(i < 0 or i >= d for i, d in zip(index, shape, strict=False)):
        raise ExecutionError(
            f"index [{', '.join(map(str, index))}] out of bounds for memref of shape "
            f"{'x'.join(map(str, shape))}"
        )


def _drop_dims(sizes: list[int], result_shape: tuple[int, ...]) -> list[int] | None:
    """Source dims kept by a rank-reducing subview (greedy MLIR rule), or None if no match."""
    keep: list[int] = []
    j = 0
    for i, s in enumerate(sizes):
        if j < len(result_shape) and result_shape[j] in (DYNAMIC_INDEX, s):
            keep.append(i)
            j += 1
        elif s != 1:
            return None
    return keep if j == len(result_shape) else None


def _decode_subview(op: memref.SubviewOp) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """((offset, size, stride, and for each the position of its dynamic operand or -1) per
    dim, result shape) of a subview, decoded once (the run then does no list building)."""
    position = 0
    decoded = []
    for values in (op.static_offsets.get_values(), op.static_sizes.get_values(),
                   op.static_strides.get_values()):
        entries = []
        for v in values:
            if v == DYNAMIC_INDEX:
                entries.append((0, position))
                position += 1
            else:
                entries.append((v, -1))
        decoded.append(entries)
    offsets, sizes, strides = decoded
    result_type = op.result.type
    assert isinstance(result_type, MemRefType)
    shape = tuple(result_type.get_shape())
    if not len(offsets) == len(sizes) == len(strides):  # reported by the run (rank check)
        return (), shape
    return tuple((o, s, st, od, sd, std) for (o, od), (s, sd), (st, std)
                 in zip(offsets, sizes, strides, strict=True)), shape


@register_impls
@dataclass
class MemRefFunctions(InterpreterFunctions):
    max_gm_bytes: int | None = DEFAULT_MAX_GM_BYTES
    """Size limit of one `memref.alloc` / `memref.alloca` (None: unlimited)."""
    _decoded: dict[Operation, Any] = field(default_factory=dict)

    @impl(memref.SubviewOp)
    def run_subview(self, interp: Interpreter, op: memref.SubviewOp, args: PythonValues) -> PythonValues:
        decoded = self._decoded.get(op)
        if decoded is None:
            decoded = self._decoded[op] = _decode_subview(op)
        dims, result_shape = decoded
        source, *dynamic = args
        # xDSL's verifier does not check that offsets, sizes and strides match the source rank.
        if len(dims) != source.ndim:
            counts = tuple(len(v) for v in (op.static_offsets.get_values(),
                                             op.static_sizes.get_values(),
                                             op.static_strides.get_values()))
            raise ExecutionError(
                f"requires {source.ndim} offsets, sizes and strides for a rank-{source.ndim} "
                f"source, got {counts[0]}, {counts[1]} and {counts[2]}"
            )
        slices = []
        sizes = []
        shape = source.shape
        for dim, (o, s, st, od, sd, std) in enumerate(dims):
            if od >= 0:  # a dynamic offset, size or stride: its position among the operands
                o = dynamic[od]
            if sd >= 0:
                s = dynamic[sd]
            if std >= 0:
                st = dynamic[std]
            if o < 0 or s < 0 or st <= 0 or (s > 0 and o + (s - 1) * st >= shape[dim]):
                raise ExecutionError(
                    f"subview dim {dim}: offset {o}, size {s}, stride {st} out of bounds for "
                    f"memref of shape {'x'.join(map(str, source.shape))}"
                )
            slices.append(slice(o, o + (s - 1) * st + 1 if s else o, st))
            sizes.append(s)
        view = source[tuple(slices)]
        if len(result_shape) != view.ndim:
            keep = _drop_dims(sizes, result_shape)
            if keep is None:
                raise ExecutionError(f"cannot reduce subview sizes {sizes} to shape {result_shape}")
            view = view.reshape([sizes[i] for i in keep])
        return (view,)

    @impl(memref.LoadOp)
    def run_load(self, interp: Interpreter, op: memref.LoadOp, args: PythonValues) -> PythonValues:
        array, *index = args
        index = tuple(index)
        _check_index(array, index)
        return (array[index].item(),)

    @impl(memref.StoreOp)
    def run_store(self, interp: Interpreter, op: memref.StoreOp, args: PythonValues) -> PythonValues:
        value, array, *index = args
        index = tuple(index)
        _check_index(array, index)
        array[index] = value
        return ()

    def _new(self, op: Operation, args: PythonValues) -> PythonValues:
        t = op.results[0].type
        assert isinstance(t, MemRefType)
        dynamic = iter(args)
        shape = [next(dynamic) if d == DYNAMIC_INDEX else d for d in t.get_shape()]
        if any(d < 0 for d in shape):
            raise ExecutionError(f"requires non-negative sizes, got {shape}")
        dtype = memref_dtype(t)
        check_gm_size(shape, dtype, self.max_gm_bytes, "GM buffer")
        return (np.zeros(shape, dtype=dtype),)

    @impl(memref.AllocOp)
    def run_alloc(self, interp: Interpreter, op: memref.AllocOp, args: PythonValues) -> PythonValues:
        return self._new(op, args)

    @impl(memref.AllocaOp)
    def run_alloca(self, interp: Interpreter, op: memref.AllocaOp, args: PythonValues) -> PythonValues:
        return self._new(op, args)

    @impl(memref.DeallocOp)
    def run_dealloc(self, interp: Interpreter, op: memref.DeallocOp, args: PythonValues) -> PythonValues:
        return ()

    @impl(memref.DimOp)
    def run_dim(self, interp: Interpreter, op: memref.DimOp, args: PythonValues) -> PythonValues:
        array, index = args
        if not 0 <= index < array.ndim:
            raise ExecutionError(f"dim {index} out of range for a rank-{array.ndim} memref")
        return (array.shape[index],)

    @impl(memref.CollapseShapeOp)
    def run_collapse_shape(
        self, interp: Interpreter, op: memref.CollapseShapeOp, args: PythonValues
    ) -> PythonValues:
        (src,) = args
        shape = tuple(op.result.type.get_shape())  # type: ignore[union-attr]
        try:  # a view of the same GM bytes (writes through it reach the source)
            return (src.reshape(shape, copy=False),)
        except (ValueError, TypeError):
            raise ExecutionError(
                f"collapses a non-contiguous memref of shape {'x'.join(map(str, src.shape))} "
                f"into {'x'.join(map(str, shape))}"
            ) from None

    @impl(memref.CastOp)
    def run_cast(self, interp: Interpreter, op: memref.CastOp, args: PythonValues) -> PythonValues:
        return (args[0],)

    @impl(memref.CopyOp)
    def run_copy(self, interp: Interpreter, op: memref.CopyOp, args: PythonValues) -> PythonValues:
        src, dst = args
        if src.shape != dst.shape:
            raise ExecutionError(f"copies shape {src.shape} into shape {dst.shape}")
        dst[...] = src
        return ()
