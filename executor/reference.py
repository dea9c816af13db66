"""The numpy reference of `mmair-run --check-numpy`: a second, logical interpretation of the IR.

The reference is not a fixed kernel shape (c = a @ b): it is derived from the IR's semantics. The
entry function runs a second time on the same inputs with the same control flow (func, scf, arith,
memref from the executor), but every pto tile is a LOGICAL matrix in float64 (no fractal layout,
no byte memory, no address), so the run only says which GM buffers feed which `mad` and which
`fixpipe` writes which GM window:

* `mte_gm_l1`, `mte_l1_l0a/b` (start row/column, transpose), `mte_l1_bt`, `mte_gm_ub`,
  `mte_ub_gm`: copies of logical regions;
* `reinterpret`: a view of the same bits in another type (a write through either tile is
  bit-cast into the other);
* `mad`, `mad_acc`, `mad_bias`: C = A @ B (+ C, + bias row) exactly in float64 (integer L0C
  saturated to s32);
* `fixpipe`: the conversion written out in numpy from the op's quant mode and its QUANT_PRE word
  (fields decoded by `mmair.isa.ascend.quant`): ReLU, scale, shift, round half to even, offset,
  saturation; the value is then stored into the GM memref, i.e. rounded in the OUTPUT type.
* the raw Ascend C parameter forms (`copy_nd2nz`, `copy_dn2nz`, `load_2d`, `load_2d_gm`,
  `load_2d_transpose`, `load_2d_v2`, `load_2d_v2_gm`, `copy_l1_bt`, `mmad`, `fixpipe_copy`): each tile is kept rounded up to whole
  fractals, so that its physical image (`LogicalTile.physical`, the layout's index map) is
  exact, padding included; the parameters are followed with the executor's index math
  (`raw_kernels`), the arithmetic is the reference's own (float64 product, `convert`);
* hif8 tiles hold the decoded values (`isa.ascend.hif8`), written back to GM as their bytes.

tcgen05 kernels run their buffers (SMEM, TMEM, copies) on the executor's memories, but each
`tcgen05.mma` is replaced by numpy on the operands its descriptors describe: A (M x K) and B
(N x K) read through the shared-memory descriptors, D = A @ B^T (+ D) in float64 with the
instruction descriptor's negations, stored in D's type. Each form follows its PTX ISA definition
(§9.7.16.10.9 "tcgen05.mma"), written out here in numpy: block scaling multiplies every K block of
A row i by its scale factor SA[i, blk] and of B column j by SB[j, blk] (UE8M0 / UE4M3 bytes read
from TMEM); a sparse A is expanded to M x K with zeros at the positions its metadata nibbles do not
select; `.ws` reads B column j + shift for output column j and zeros the columns its zero-column
mask selects; disable_output_lane keeps the old D rows of the lanes whose bit is set;
scale_input_d multiplies the old D by 2^-N; `.ashift` shifts A's rows in TMEM down one row
first, the first row NaN (undefined). A cta_group::2 kernel runs its reference on a CTA pair
(`executor/tcgen05_cluster.py`): a dense M = 256 pair MMA computes each CTA's 128 D rows from its
own A rows and the B halves of both CTAs.

Every GM memref that the executor's run or the reference run changed is compared. The tolerance
comes from the types and the sums (`Reference.rtol/atol`, printed with the check): rtol = two units
in the last place of the output type (both results are rounded to it); atol = K * eps(f32) *
max(|A| @ |B|) for float accumulation of K products (the worst-case error of a float sum of K
terms in any order) plus the output type's smallest subnormal; 1 for quantized integer outputs
(rounding at a .5 boundary), 0 for exact integer outputs; plus, for outputs that depend on a
Fixpipe result stored in an L1/UB tile, the per-element bound `LogicalTile.error` carried from
that rounding. `random_inputs` makes the default inputs: real values
(uniform in [-2, 2], rounded to the element type) so that rounding bugs show, or small integers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import ml_dtypes
import numpy as np
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Operation

from mmair.dialects import pto
from mmair.dialects.value_names import value_label
from mmair.executor import raw_kernels
from mmair.executor.dtypes import FLOAT_ELEMENTS, element_name_of_type, numpy_dtype
from mmair.executor.errors import ExecutionError
from mmair.isa.ascend import layouts
from mmair.isa.ascend import params as isa_params
from mmair.isa.ascend.hif8 import HIF8_VALUES, decode_hif8, encode_hif8_exact
from mmair.isa.ascend.targets import C0_BYTES, c0_elements, element_bits

F32_EPS = float(np.finfo(np.float32).eps)


class ReferenceError(ExecutionError):
    """The kernel uses something the reference does not model (`.op` is the op, when known)."""

    def __init__(self, message: str, op: Operation | None = None):
        super().__init__(message, op)


# ---- random inputs -----------------------------------------------------------------------------


def random_values(element: str, dtype: np.dtype, shape: tuple[int, ...], kind: str,
                  rng: np.random.Generator) -> np.ndarray:
    """Seeded data of one argument: `kind` "real" gives float types uniform values in [-2, 2]
    (rounded to the type; hif8: codes of values drawn from its values in [-2, 2]); "int" and
    integer types small integers (s8 in [-8, 8], other signed in [-16, 16], unsigned in [0, 8))."""
    if element == "hif8":  # bytes: real values in [-2, 2] (or small integers), as their codes
        values = HIF8_VALUES if kind == "real" else np.arange(-3.0, 4.0)
        pool = values[np.isfinite(values) & (np.abs(values) <= 2.0)]
        return encode_hif8_exact(rng.choice(pool, size=shape)).reshape(shape)
    if element in FLOAT_ELEMENTS:
        if kind == "real":
            return rng.uniform(-2.0, 2.0, size=shape).astype(dtype)
        return rng.integers(-3, 4, size=shape).astype(dtype)
    if dtype.kind == "i":
        lo = -8 if dtype.itemsize == 1 else -16
        return rng.integers(lo, -lo + 1, size=shape).astype(dtype)
    return rng.integers(0, 8, size=shape).astype(dtype)


def random_inputs(entry, given: dict[str, Any], kind: str, seed: int,
                  max_gm_bytes: int | None) -> dict[str, np.ndarray]:
    """Random arrays for the entry's statically shaped memref arguments that `given` lacks (the
    runner reports the others)."""
    from mmair.executor.memref import check_gm_size, memref_dtype
    from mmair.executor.runner import InputError, argument_names

    rng = np.random.default_rng(seed)
    made: dict[str, np.ndarray] = {}
    for name, t in zip(argument_names(entry), entry.function_type.inputs.data, strict=True):
        if name in given or not isinstance(t, MemRefType):
            continue
        if any(d == DYNAMIC_INDEX for d in t.get_shape()):
            continue
        try:
            dtype = memref_dtype(t)
            element = element_name_of_type(t.element_type)
        except ValueError:
            continue
        try:
            check_gm_size(t.get_shape(), dtype, max_gm_bytes, f"argument '{name}'")
        except ExecutionError as err:
            raise InputError(err.message) from None
        made[name] = random_values(element, dtype, tuple(t.get_shape()), kind, rng)
    return made


# ---- logical tiles -----------------------------------------------------------------------------


@dataclass(eq=False)
class LogicalTile:
    """A pto tile as a logical matrix: values (float64, or the stored dtype for 64-bit integers
    such as quant words) and, per element, a bound of the sum of |products| that made it.

    `values` and `magnitude` are the logical [rows, cols] corner of `padded_values` /
    `padded_magnitude`, the matrix rounded up to whole fractals: the raw-parameter ops address
    the physical buffer, fractal padding included, and `physical` / `store_physical` map that
    buffer to and from the padded matrix with the layout's index map (`isa.ascend.layouts`)."""

    element: str
    layout: str
    padded_values: np.ndarray
    padded_magnitude: np.ndarray
    shape: tuple[int, int] = (0, 0)
    """Logical (rows, cols)."""
    space: str = "gm"
    logical_shape: tuple[int, ...] = ()
    """The tile type's shape as written (1-D for an nd vector)."""
    products: int = 0
    """Products summed into the accumulator (K, summed over mad_acc)."""
    source: str | None = None
    """Element type of the mad operands that made an accumulator's values."""
    padded_error: np.ndarray | None = None
    """Per element, a bound of |executor's value - reference's value| (`error`, the logical
    corner): 0 for data from GM; a Fixpipe into an L1/UB tile rounds to the tile's type, where
    the executor's f32 sum and the float64 one may round to neighbouring values."""
    alias: list[LogicalTile] = field(default_factory=list)
    """The tiles that are views of the same buffer (pto.reinterpret), this one included."""
    _physical_index: np.ndarray | None = None
    _padded_position: np.ndarray | None = None

    def __post_init__(self) -> None:
        if not self.alias:
            self.alias.append(self)
        if self.shape == (0, 0):
            self.shape = self.padded_values.shape
        rows, cols = self.shape
        if self.padded_error is None:
            self.padded_error = np.zeros(self.padded_magnitude.shape)
        self.values = self.padded_values[:rows, :cols]
        self.magnitude = self.padded_magnitude[:rows, :cols]
        self.error = self.padded_error[:rows, :cols]

    @classmethod
    def of_type(cls, t: pto.TileType, fill: float = 0.0) -> LogicalTile:
        """A tile of type `t` holding `fill` (zero: the reference's fresh buffer)."""
        shape = tuple(int(d) for d in t.logical_shape)
        rows, cols = shape if len(shape) == 2 else (1, int(np.prod(shape)))
        try:
            padded = layouts.padded_shape(t.layout_name, shape, t.element_name, t.space_name)
        except ValueError:  # no fractal geometry (e.g. a vector tile of a type without C0)
            padded = (rows, cols)
        return cls(t.element_name, t.layout_name, np.full(padded, fill, _tile_dtype(t.element_name)),
                   np.zeros(padded), (rows, cols), t.space_name, shape)

    @property
    def rows(self) -> int:
        return self.shape[0]

    @property
    def cols(self) -> int:
        return self.shape[1]

    @property
    def geometry_key(self) -> tuple:
        """What the physical index map depends on."""
        return (self.layout, self.logical_shape, self.element, self.space)

    def physical_index(self, role: str) -> np.ndarray:
        """[padded rows, padded cols] -> element offset in the physical buffer (a bijection)."""
        if self._physical_index is None:
            g = layouts.geometry(self.layout, self.logical_shape, self.element, self.space)
            pr, pc = g.padded_shape
            rows = np.arange(pr, dtype=np.int64)[:, None]
            cols = np.arange(pc, dtype=np.int64)[None, :]
            self._physical_index = np.asarray(g.offset(rows, cols))
        return self._physical_index

    def physical(self, role: str) -> tuple[np.ndarray, np.ndarray]:
        """(values, magnitude) as flat arrays in the order of the physical buffer."""
        index = self.physical_index(role)
        values = np.empty(index.size, self.padded_values.dtype)
        magnitude = np.empty(index.size)
        values[index] = self.padded_values
        magnitude[index] = self.padded_magnitude
        return values, magnitude

    def padded_position(self, role: str) -> np.ndarray:
        """Physical element offset -> flat index into `padded_values` (the inverse of
        `physical_index`)."""
        if self._padded_position is None:
            index = self.physical_index(role).reshape(-1)
            position = np.empty(index.size, dtype=np.int64)
            position[index] = np.arange(index.size, dtype=np.int64)
            self._padded_position = position
        return self._padded_position

    def flat_physical(self, padded: np.ndarray) -> np.ndarray:
        """`padded` (a padded array of this tile) in the order of the physical buffer."""
        index = self.physical_index("src")
        flat = np.empty(index.size, padded.dtype)
        flat[index] = padded
        return flat

    def store_physical(self, values: np.ndarray, magnitude: np.ndarray) -> None:
        index = self.physical_index("dst")
        self.padded_values[...] = values[index]
        self.padded_magnitude[...] = magnitude[index]


def _bit_cast(source: LogicalTile, view: LogicalTile) -> None:
    """Copy `source`'s values into `view` as the bit patterns of source's element type read as
    view's (elements of the common logical region; both types have the same width)."""
    rows, cols = min(source.rows, view.rows), min(source.cols, view.cols)
    with np.errstate(invalid="ignore", over="ignore"):
        stored = _encode(source.values[:rows, :cols], source.element)
        values = _decode(stored.view(numpy_dtype(view.element)), view.element)
    view.values[:rows, :cols] = values
    view.magnitude[:rows, :cols] = np.where(values == source.values[:rows, :cols],
                                            source.magnitude[:rows, :cols],
                                            np.nan_to_num(np.abs(values), nan=0.0, posinf=0.0))
    view.products, view.source = source.products, source.source


def _tile_dtype(element: str) -> np.dtype:
    dtype = numpy_dtype(element)
    return dtype if dtype.kind in "iu" and dtype.itemsize == 8 else np.dtype(np.float64)


def _decode(stored: np.ndarray, element: str) -> np.ndarray:
    """Stored elements (a GM array or bits) -> the reference's values: float64 (HiF8 bytes
    decoded, `isa.ascend.hif8`), or the stored integers for 64-bit integer types."""
    if element == "hif8":
        return decode_hif8(stored)
    dtype = _tile_dtype(element)
    return stored if stored.dtype == dtype else stored.astype(dtype)


def _encode(values: np.ndarray, element: str) -> np.ndarray:
    """The reference's values of `element` -> stored elements (inverse of `_decode`)."""
    if element == "hif8":
        return encode_hif8_exact(values)
    return values.astype(numpy_dtype(element))


def _stored(values: np.ndarray, element: str) -> np.ndarray:
    """`values` as a tile of `element` holds them: rounded to the type (a Fixpipe into an L1 or
    UB tile stores the converted values in the tile's type, like a store into GM)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return _decode(_encode(values, element), element)


def _stored_error(y: np.ndarray, acc: LogicalTile, magnitude: np.ndarray, error: np.ndarray,
                  quant: str, element: str) -> np.ndarray:
    """Per element, how far the executor's stored Fixpipe result can be from the reference's
    `_stored(y)`: y is exact up to the f32 sum (K * eps(f32) * magnitude) and the accumulator's
    own `error`; where y +- that bound rounds to different values of `element`, their distance
    (0 elsewhere). Scaled (quantizing) conversions: one unit of an integer type, two ulps of a
    float one."""
    acc_eps = F32_EPS if (acc.source or acc.element) in FLOAT_ELEMENTS or acc.source == "hif8" \
        else 0.0
    if quant in ("none", "f322f16", "f322bf16") and element in FLOAT_ELEMENTS:
        delta = acc.products * acc_eps * magnitude + error
        return np.abs(_stored(y + delta, element) - _stored(y - delta, element))
    if element not in FLOAT_ELEMENTS:
        return np.where((error > 0) | (acc_eps * magnitude > 0) | (quant != "none"), 1.0, 0.0)
    return 2 * float(ml_dtypes.finfo(numpy_dtype(element)).eps) * np.abs(y) + error


def _product_error(a: np.ndarray, a_error: np.ndarray, b: np.ndarray,
                   b_error: np.ndarray) -> np.ndarray | float:
    """Bound of the difference of A @ B between two runs whose operands differ by at most the
    errors: |dA| |B| + |A| |dB| + |dA| |dB| (0 without errors, the usual case, at no cost)."""
    if not (a_error.any() or b_error.any()):
        return 0.0
    a_abs, b_abs = np.abs(a.astype(np.float64)), np.abs(b.astype(np.float64))
    return a_error @ b_abs + a_abs @ b_error + a_error @ b_error


def _decoded(gm: np.ndarray, element: str) -> np.ndarray:
    """GM elements read into a tile of `element` (HiF8 GM holds bytes)."""
    return decode_hif8(gm) if element == "hif8" else gm


def _gm_2d(gm: np.ndarray) -> np.ndarray:
    if gm.ndim == 1:
        return gm[None, :]
    if gm.ndim != 2:
        raise ExecutionError(f"reference: requires a 1-D or 2-D GM memref, got shape {gm.shape}")
    return gm


def _fit(what: str, need: tuple[int, int], have: tuple[int, int]) -> None:
    if need[0] > have[0] or need[1] > have[1] or min(need) < 0:
        raise ExecutionError(f"reference: {what} [{need[0]} x {need[1]}] is beyond "
                             f"[{have[0]} x {have[1]}]")


def _base(array: np.ndarray) -> int:
    while isinstance(array.base, np.ndarray):
        array = array.base
    return id(array)


def _raw_offset(offset: int, size: int, role: str) -> int:
    if not 0 <= offset < size:
        raise ExecutionError(f"reference: requires {role} offset in [0, {size}), got {offset}")
    return int(offset)


def _raw_bounds(index: np.ndarray, size: int, role: str) -> None:
    if index.size and (int(index.max()) >= size or int(index.min()) < 0):
        raise ExecutionError(f"reference: {role} element {int(index.max())} is beyond the "
                             f"{size}-element {role} buffer")


def _element_map(kernel, bits: int, src_count: int, src_offset: int, dst_count: int,
                 dst_offset: int) -> np.ndarray:
    """For each element of a destination buffer of `dst_count` elements, the index of the source
    element that `kernel(src_bytes, dst_bytes)` (a byte kernel of `raw_kernels` that moves whole
    `bits`-wide elements, from the operand offsets) copies there, or -1 where it writes nothing.

    The kernel runs on tags: every source element holds its index + 1, written in base
    2^bits digits, one run per digit (an element holds one digit), so the map comes from the
    executor's own index math whatever the buffer size."""
    dtype = np.dtype(f"u{max(bits, 8) // 8}")
    base = 1 << bits
    tags = np.arange(1, src_count + 1, dtype=np.int64)
    source = np.zeros(dst_count, dtype=np.int64)
    scale = 1
    if bits == 4 and (src_offset % 2 or dst_offset % 2):
        raise ExecutionError("reference: requires 4-bit operand offsets on a byte boundary (even "
                             f"elements), got {src_offset} and {dst_offset}")
    while scale <= src_count:
        src = ((tags // scale) % base).astype(dtype)
        if bits == 4:  # nibble digits, packed two a byte as the tiles hold them
            packed = raw_kernels.pack_codes(np.append(src, np.zeros(src.size % 2, dtype)))
            out = np.zeros(-(-dst_count // 2), np.uint8)
            kernel(packed[src_offset // 2:], out[dst_offset // 2:])
            dst = raw_kernels.unpack_codes(out)[:dst_count]
        else:
            dst = np.zeros(dst_count, dtype)
            kernel(src[src_offset:].view(np.uint8), dst[dst_offset:].view(np.uint8))
        source += dst.astype(np.int64) * scale
        scale *= base
    return source - 1


def _bits_as(values: np.ndarray, source: str, target: str) -> np.ndarray:
    """Values of `source` elements seen as `target` elements of the same width (a load between
    tiles of two types moves bits)."""
    if source == target:
        return values
    with np.errstate(invalid="ignore", over="ignore"):
        stored = _encode(values, source)
        return _decode(stored.view(numpy_dtype(target)), target)


@dataclass
class Tolerance:
    rtol: float = 0.0
    atol: float = 0.0

    def widen(self, rtol: float, atol: float) -> None:
        self.rtol = max(self.rtol, rtol)
        self.atol = max(self.atol, atol)


def _output_tolerance(dtype: np.dtype, element_in: str, values: np.ndarray, magnitude: np.ndarray,
                      products: int, quantized: bool, input_error: float = 0.0) -> tuple[float, float]:
    """(rtol, atol) for a block of reference `values` stored as `dtype` (module docstring).

    Float outputs: the executor's result differs from the float64 one by the accumulation error,
    at most K * eps(f32) * sum|a*b| (`magnitude`), and then both are rounded to the output type,
    which can differ by one unit in the last place: rtol = 2 eps(out), atol = the accumulation
    bound plus the smallest subnormal (for results that round to zero). Integer outputs are exact,
    or within 1 after a scaled (quantizing) conversion, which may round a .5 the other way.
    `input_error` adds the accumulator's own bound (operands that went through a Fixpipe into a
    tile, `LogicalTile.error`)."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        return 0.0, 1.0 if quantized else 0.0
    info = ml_dtypes.finfo(dtype)
    acc_eps = F32_EPS if element_in in FLOAT_ELEMENTS or element_in == "hif8" else 0.0
    bound = float(np.max(magnitude)) if magnitude.size else 0.0
    return 2 * float(info.eps), products * acc_eps * bound + input_error \
        + float(info.smallest_subnormal)


@register_impls
@dataclass
class ReferencePtoFunctions(InterpreterFunctions):
    """Logical, float64 implementations of the pto ops (module docstring)."""

    target: str = "a2"
    tolerances: dict[int, Tolerance] = field(default_factory=dict)
    """Per GM base array (by id): the tolerance of the values the kernel wrote there."""
    _tiles: dict[Operation, LogicalTile] = field(default_factory=dict)
    _maps: dict[tuple, tuple[np.ndarray, ...]] = field(default_factory=dict)
    """Raw ops: (op, runtime parameters) -> the element positions it reads and writes, in the
    tiles' padded matrices (loops repeat the same few parameter sets)."""
    block: int = 0
    blocks: int = 1
    launch: Any = None
    """Multi-core: this core's block index, the launch size and the `multicore.Launch` hand-off
    (the reference cores take the executor's deterministic turns, so GM exchanged across a
    `pto.sync_all` is seen as on the hardware)."""
    fresh: dict[Operation | None, float] = field(default_factory=dict)
    """What a `pto.alloc` tile holds before any op writes it, per alloc op (key None: every
    other one): 0 by default. `unwritten_reads` fills tiles with 1 to find outputs that depend
    on bytes no op wrote."""

    @impl(pto.BlockIdxOp)
    def run_block_idx(self, interp: Interpreter, op: pto.BlockIdxOp,
                      args: PythonValues) -> PythonValues:
        return (self.block,)

    @impl(pto.BlockNumOp)
    def run_block_num(self, interp: Interpreter, op: pto.BlockNumOp,
                      args: PythonValues) -> PythonValues:
        return (self.blocks,)

    @impl(pto.SyncAllOp)
    def run_sync_all(self, interp: Interpreter, op: pto.SyncAllOp,
                     args: PythonValues) -> PythonValues:
        if self.launch is not None:  # one core: program order already orders everything
            self.launch.sync_all(self.block, op, interp)
        return ()

    @impl(pto.AllocOp)
    def run_alloc(self, interp: Interpreter, op: pto.AllocOp, args: PythonValues) -> PythonValues:
        tile = self._tiles.get(op)
        if tile is None:
            t = op.buffer.type
            assert isinstance(t, pto.TileType)
            fill = self.fresh.get(op, self.fresh.get(None, 0.0))
            tile = self._tiles[op] = LogicalTile.of_type(t, fill)
        return (tile,)

    # The reference runs in program order: the pipe synchronization has nothing to order.
    @impl(pto.SetFlagOp)
    def run_set_flag(self, interp: Interpreter, op: pto.SetFlagOp,
                     args: PythonValues) -> PythonValues:
        return ()

    @impl(pto.WaitFlagOp)
    def run_wait_flag(self, interp: Interpreter, op: pto.WaitFlagOp,
                      args: PythonValues) -> PythonValues:
        return ()

    @impl(pto.PipeBarrierOp)
    def run_pipe_barrier(self, interp: Interpreter, op: pto.PipeBarrierOp,
                         args: PythonValues) -> PythonValues:
        return ()

    @impl(pto.ReinterpretOp)
    def run_reinterpret(self, interp: Interpreter, op: pto.ReinterpretOp,
                        args: PythonValues) -> PythonValues:
        """The same bytes seen as another type of the same width, layout and physical shape
        (Ascend C `LocalTensor::ReinterpretCast`): logical element (i, j) of the view is the
        bit pattern of element (i, j) of the source. The two tiles stay one buffer: every write
        through either is copied, bit-cast, into the other (`_written`)."""
        (source,) = args
        view = self._tiles.get(op)
        if view is None or view.alias is not source.alias:
            t = op.result.type
            assert isinstance(t, pto.TileType)
            view = self._tiles[op] = LogicalTile.of_type(t)
            view.alias = source.alias
            source.alias.append(view)
        _bit_cast(source, view)
        return (view,)

    def _written(self, tile: LogicalTile) -> None:
        """`tile` was written: refresh the views of its buffer (pto.reinterpret)."""
        for other in tile.alias:
            if other is not tile:
                _bit_cast(tile, other)

    @impl(pto.MteGmL1Op)
    def run_mte_gm_l1(self, interp: Interpreter, op: pto.MteGmL1Op, args: PythonValues) -> PythonValues:
        gm, dst, rows, cols = args
        if rows and cols:
            src = _gm_2d(gm)
            src = src.T if op.dn2nz is not None else src
            _fit("mte_gm_l1 source", (rows, cols), src.shape)
            _fit("mte_gm_l1 destination", (rows, cols), dst.values.shape)
            dst.values[:rows, :cols] = _decode(src[:rows, :cols], dst.element)
            dst.magnitude[:rows, :cols] = np.abs(dst.values[:rows, :cols].astype(np.float64))
            dst.error[:rows, :cols] = 0.0
            self._written(dst)
        return ()

    def _l1_l0(self, op, args: PythonValues) -> PythonValues:
        if op.src_row is not None:
            src, row, col, dst, rows, cols = args
        else:
            (src, dst, rows, cols), row, col = args, 0, 0
        if rows and cols:
            transpose = op.transpose is not None
            need = (cols, rows) if transpose else (rows, cols)
            _fit(f"{op.name} source window", (row + need[0], col + need[1]), src.values.shape)
            _fit(f"{op.name} destination", (rows, cols), dst.values.shape)
            for mine, theirs in ((dst.values, src.values), (dst.magnitude, src.magnitude),
                                 (dst.error, src.error)):
                region = theirs[row:row + need[0], col:col + need[1]]
                mine[:rows, :cols] = region.T if transpose else region
            self._written(dst)
        return ()

    @impl(pto.MteL1L0AOp)
    def run_mte_l1_l0a(self, interp: Interpreter, op, args: PythonValues) -> PythonValues:
        return self._l1_l0(op, args)

    @impl(pto.MteL1L0BOp)
    def run_mte_l1_l0b(self, interp: Interpreter, op, args: PythonValues) -> PythonValues:
        return self._l1_l0(op, args)

    @impl(pto.MteL1BtOp)
    def run_mte_l1_bt(self, interp: Interpreter, op, args: PythonValues) -> PythonValues:
        src, dst, n = args
        dst.values[0, :n] = src.values[0, :n]
        dst.magnitude[0, :n] = src.magnitude[0, :n]
        self._written(dst)
        return ()

    @impl(pto.MteGmUbOp)
    def run_mte_gm_ub(self, interp: Interpreter, op, args: PythonValues) -> PythonValues:
        gm, ub = args
        flat = ub.values.reshape(-1)
        _fit("mte_gm_ub", (1, gm.size), (1, flat.size))
        flat[:gm.size] = _decode(gm.reshape(-1), ub.element)
        ub.magnitude.reshape(-1)[:gm.size] = np.abs(flat[:gm.size].astype(np.float64))
        self._written(ub)
        return ()

    @impl(pto.MteUbGmOp)
    def run_mte_ub_gm(self, interp: Interpreter, op, args: PythonValues) -> PythonValues:
        ub, gm = args
        flat = ub.values.reshape(-1)
        _fit("mte_ub_gm", (1, gm.size), (1, flat.size))
        gm[...] = _encode(flat[:gm.size], ub.element).reshape(gm.shape)
        self.tolerances.setdefault(_base(gm), Tolerance())
        return ()

    def _mad(self, args: PythonValues, accumulate: bool, bias: LogicalTile | None) -> None:
        a, b, c = args[:3]
        m, n, k = args[-3:]
        if not (m and n and k):
            return
        _fit("mad lhs", (m, k), a.values.shape)
        _fit("mad rhs", (k, n), b.values.shape)
        _fit("mad dst", (m, n), c.values.shape)
        product = a.values[:m, :k] @ b.values[:k, :n]
        magnitude = a.magnitude[:m, :k] @ b.magnitude[:k, :n]
        error = _product_error(a.values[:m, :k], a.error[:m, :k], b.values[:k, :n],
                               b.error[:k, :n])
        if accumulate:
            product += c.values[:m, :n]
            magnitude += c.magnitude[:m, :n]
            c.products += k
            error = error + c.error[:m, :n]
        else:
            c.products = k
        c.error[:m, :n] = error
        if bias is not None:
            product += bias.values[0, :n]
            magnitude += np.abs(bias.values[0, :n])
        if c.element not in FLOAT_ELEMENTS:
            info = np.iinfo(np.int32)
            product = np.clip(product, info.min, info.max)
        c.values[:m, :n] = product
        c.magnitude[:m, :n] = magnitude
        c.source = a.element
        self._written(c)

    @impl(pto.MadOp)
    def run_mad(self, interp: Interpreter, op, args: PythonValues) -> PythonValues:
        self._mad(args, False, None)
        return ()

    @impl(pto.MadAccOp)
    def run_mad_acc(self, interp: Interpreter, op, args: PythonValues) -> PythonValues:
        self._mad(args, True, None)
        return ()

    @impl(pto.MadBiasOp)
    def run_mad_bias(self, interp: Interpreter, op, args: PythonValues) -> PythonValues:
        a, b, c, bias, m, n, k = args
        self._mad((a, b, c, m, n, k), False, bias)
        return ()

    @impl(pto.FixpipeOp)
    def run_fixpipe(self, interp: Interpreter, op: pto.FixpipeOp, args: PythonValues) -> PythonValues:
        src, dst, m, n, *extra = args
        if not (m and n):
            return ()
        _fit("fixpipe source", (m, n), src.values.shape)
        quant = op.quant.data
        word = extra[0] if op.scalar is not None else None
        words = None
        if op.vector is not None:
            flat = extra[-1].values.reshape(-1)
            if flat.size < n:
                raise ExecutionError(f"reference: quant vector of {flat.size} words, need {n}")
            words = flat[:n]
        out_dtype = dst.values.dtype if isinstance(dst, LogicalTile) else dst.dtype
        if isinstance(dst, LogicalTile):
            out_dtype = numpy_dtype(dst.element)
        y = convert(src.values[:m, :n].astype(np.float64), quant, out_dtype, op.relu is not None,
                    word, words)
        magnitude = src.magnitude[:m, :n]
        layout = op.layout.data
        if isinstance(dst, LogicalTile):
            error = src.error[:m, :n]
            if layout == "nz2dn" and dst.layout != "dn":
                y, magnitude, error = y.T, magnitude.T, error.T
            _fit("fixpipe destination", y.shape, dst.values.shape)
            error = _stored_error(y, src, magnitude, error, quant, dst.element)
            dst.values[:y.shape[0], :y.shape[1]] = _stored(y, dst.element)
            dst.magnitude[:y.shape[0], :y.shape[1]] = magnitude
            dst.error[:y.shape[0], :y.shape[1]] = error
            self._written(dst)
            return ()
        rtol, atol = _output_tolerance(out_dtype, src.source or src.element, y, magnitude,
                                       max(src.products, 1), quant != "none",
                                       float(src.error[:m, :n].max(initial=0.0)))
        self.tolerances.setdefault(_base(dst), Tolerance()).widen(rtol, atol)
        if layout == "nz2nz":
            if dst.ndim != 4:
                raise ExecutionError(f"reference: nz2nz to GM requires a 4-D memref, got {dst.shape}")
            n1, m1, r0, c0 = dst.shape
            _fit("fixpipe nz2nz destination", (m, n), (m1 * r0, n1 * c0))
            padded = np.zeros((m1 * r0, n1 * c0), dtype=np.float64)
            padded[:m, :n] = y
            block = padded.reshape(m1, r0, n1, c0).transpose(2, 0, 1, 3)
            keep = np.zeros_like(padded, dtype=bool)
            keep[:m, :n] = True
            mask = keep.reshape(m1, r0, n1, c0).transpose(2, 0, 1, 3)
            dst[mask] = block[mask].astype(dst.dtype)
            return ()
        out = _gm_2d(dst)
        if layout == "nz2dn":
            y = y.T
        _fit("fixpipe GM window", y.shape, out.shape)
        out[:y.shape[0], :y.shape[1]] = y.astype(out.dtype)
        return ()

    # ---- raw Ascend C parameter forms (pto-expand-params output) ---------------------------
    # Each runs the executor's index math (`raw_kernels`, from the struct fields of
    # `isa.ascend.params`) on the tiles' physical float64 images: which logical elements of which
    # source land where follows from the parameters, without a second derivation.

    @impl(pto.CopyNd2NzOp)
    def run_copy_nd2nz(self, interp: Interpreter, op, args: PythonValues) -> PythonValues:
        return self._copy_nz(op, args)

    @impl(pto.CopyDn2NzOp)
    def run_copy_dn2nz(self, interp: Interpreter, op, args: PythonValues) -> PythonValues:
        return self._copy_nz(op, args)

    def _copy_nz(self, op, args: PythonValues) -> PythonValues:
        """DataCopy GM -> L1 (Nd2NzParams / Dn2NzParams): `raw_kernels.nd2nz` on float64."""
        from mmair.executor.pto import gm_linear

        v = pto.operand_map(op, args)
        dst: LogicalTile = v["dst"]
        p = raw_kernels.Nd2Nz(*(v[name] for name in op.FIELDS))
        kwargs = dict(fields=op.fields(pto.target_of(op)), dn=op.DN,
                      small_c0=op.small_c0 is not None)
        c0 = c0_elements(dst.element, "l1")
        values, magnitude = dst.physical("dst")
        offset = _raw_offset(v["dst_offset"], values.size, "dst")
        src = _decoded(gm_linear(v["src"]), dst.element)
        written = np.zeros(values.size - offset)
        if element_bits(dst.element) < 8:
            self._copy_nz_4bit(src, values[offset:], written, p, offset, kwargs)
        else:
            raw_kernels.nd2nz(src, values[offset:], p, c0, **kwargs)
            raw_kernels.nd2nz(np.broadcast_to(np.float64(1), src.shape), written, p, c0, **kwargs)
        tail = magnitude[offset:]
        tail[written != 0] = np.abs(values[offset:][written != 0].astype(np.float64))
        dst.store_physical(values, magnitude)
        self._written(dst)
        return ()

    @staticmethod
    def _copy_nz_4bit(src: np.ndarray, values: np.ndarray, written: np.ndarray, p, offset: int,
                      kwargs: dict) -> None:
        """A 4-bit copy is the b8 copy on bytes (`raw_kernels` module docstring): run it on byte
        tags (source byte b + 1; 0 where it zero-fills) and move both nibbles of each byte."""
        if offset % 2:
            raise ExecutionError(f"reference: requires a 4-bit dst offset on a byte boundary (an "
                                 f"even element), got {offset}")
        tags = np.arange(1, src.size // 2 + 1, dtype=np.int64)
        moved = np.full(-(-values.size // 2), -1, np.int64)
        raw_kernels.nd2nz(tags, moved, p, C0_BYTES, **kwargs)
        nibbles = np.repeat(moved, 2)[: values.size]  # dst nibble 2j + h <- src byte moved[j] - 1
        half = np.tile(np.arange(2), moved.size)[: values.size]
        copied, zeroed = nibbles > 0, nibbles == 0
        values[copied] = src[2 * (nibbles[copied] - 1) + half[copied]]
        values[zeroed] = 0
        written[copied | zeroed] = 1

    def _load(self, op, key: tuple, src: LogicalTile, src_offset: int, dst: LogicalTile,
              dst_offset: int, kernel) -> PythonValues:
        """An L1 -> L0A/L0B load: `kernel(src_bytes, dst_bytes)` is the executor's byte kernel;
        `_element_map` turns it into "dst element e comes from src element s" on whole elements,
        kept per (op, parameters) as positions in the two padded matrices."""
        cache_key = (op, key, src_offset, dst_offset, src.geometry_key, dst.geometry_key)
        positions = self._maps.get(cache_key)
        if positions is None:
            src_count = src.physical_index("src").size
            dst_count = dst.physical_index("dst").size
            source = _element_map(kernel, element_bits(src.element), src_count,
                                  _raw_offset(src_offset, src_count, "src"), dst_count,
                                  _raw_offset(dst_offset, dst_count, "dst"))
            written = np.nonzero(source >= 0)[0]
            positions = self._maps[cache_key] = (dst.padded_position("dst")[written],
                                                 src.padded_position("src")[source[written]])
        dst_pos, src_pos = positions
        dst.padded_values.reshape(-1)[dst_pos] = _bits_as(src.padded_values.reshape(-1)[src_pos],
                                                          src.element, dst.element)
        dst.padded_magnitude.reshape(-1)[dst_pos] = src.padded_magnitude.reshape(-1)[src_pos]
        dst.padded_error.reshape(-1)[dst_pos] = src.padded_error.reshape(-1)[src_pos]
        self._written(dst)
        return ()

    @impl(pto.Load2DOp)
    def run_load_2d(self, interp: Interpreter, op, args: PythonValues) -> PythonValues:
        v = pto.operand_map(op, args)
        p = raw_kernels.Load2D(*(v[name] for name in isa_params.LOAD2D_FIELDS))
        bits = element_bits(v["src"].element)
        gap = isa_params.load2d_dst_gap_effective(pto.target_of(op))
        transpose = op.if_transpose is not None
        return self._load(op, p, v["src"], v["src_offset"], v["dst"], v["dst_offset"],
                          lambda s, d: raw_kernels.load2d(s, d, p, bits, transpose, gap))

    @impl(pto.Load2DGmOp)
    def run_load_2d_gm(self, interp: Interpreter, op, args: PythonValues) -> PythonValues:
        """LoadData GM -> L1 (addrMode inc / dec): the executor's byte kernel as an element map."""
        v = pto.operand_map(op, args)
        p = raw_kernels.Load2D(*(v[name] for name in isa_params.LOAD2D_GM_FIELDS))
        bits = element_bits(v["dst"].element)
        mode = 1 if op.decrements else 0
        return self._gm_load(v, lambda s, d: raw_kernels.load2d(s, d, p, bits, addr_mode=mode))

    @impl(pto.Load2DV2GmOp)
    def run_load_2d_v2_gm(self, interp: Interpreter, op, args: PythonValues) -> PythonValues:
        """LoadData2DParamsV2 GM -> L1 (a5): the executor's byte kernel as an element map."""
        v = pto.operand_map(op, args)
        p = raw_kernels.Load2DV2(*(v[name] for name in isa_params.LOAD2D_V2_GM_FIELDS))
        bits = element_bits(v["dst"].element)
        return self._gm_load(v, lambda s, d: raw_kernels.load2d_v2(s, d, p, bits))

    def _gm_load(self, v: dict, kernel) -> PythonValues:
        """A LoadData from GM to an L1 tile: `kernel(src_bytes, dst_bytes)` is the executor's
        byte kernel, run as an element map from the GM operand to the tile's physical image."""
        from mmair.executor.pto import gm_linear

        dst: LogicalTile = v["dst"]
        src = _decoded(gm_linear(v["src"]), dst.element)
        values, magnitude = dst.physical("dst")
        source = _element_map(kernel, element_bits(dst.element), src.size,
                              _raw_offset(v["src_offset"], src.size, "src"), values.size,
                              _raw_offset(v["dst_offset"], values.size, "dst"))
        written = np.nonzero(source >= 0)[0]
        values[written] = src[source[written]]
        magnitude[written] = np.abs(values[written].astype(np.float64))
        dst.store_physical(values, magnitude)
        self._written(dst)
        return ()

    @impl(pto.Load2DTransposeOp)
    def run_load_2d_transpose(self, interp: Interpreter, op, args: PythonValues) -> PythonValues:
        v = pto.operand_map(op, args)
        p = raw_kernels.Load2DTranspose(*(v[name] for name in isa_params.LOAD2D_TRANSPOSE_FIELDS))
        element = v["src"].element
        return self._load(op, p, v["src"], v["src_offset"], v["dst"], v["dst_offset"],
                          lambda s, d: raw_kernels.load2d_transpose(s, d, p, element))

    @impl(pto.Load2DV2Op)
    def run_load_2d_v2(self, interp: Interpreter, op, args: PythonValues) -> PythonValues:
        v = pto.operand_map(op, args)
        p = raw_kernels.Load2DV2(*(v[name] for name in isa_params.LOAD2D_V2_FIELDS))
        bits = element_bits(v["src"].element)
        transpose = op.if_transpose is not None
        return self._load(op, p, v["src"], v["src_offset"], v["dst"], v["dst_offset"],
                          lambda s, d: raw_kernels.load2d_v2(s, d, p, bits, transpose))

    @impl(pto.CopyL1BtOp)
    def run_copy_l1_bt(self, interp: Interpreter, op, args: PythonValues) -> PythonValues:
        v = pto.operand_map(op, args)
        p = raw_kernels.CopyL1Bt(*(v[name] for name in isa_params.L1_BT_FIELDS))
        unit = isa_params.l1_bt_unit_bytes(pto.target_of(op))
        return self._load(op, p, v["src"], v["src_offset"], v["dst"], v["dst_offset"],
                          lambda s, d: raw_kernels.copy_l1_bt(s, d, p, unit))

    @impl(pto.MmadOp)
    def run_mmad(self, interp: Interpreter, op, args: PythonValues) -> PythonValues:
        """Mmad with MmadParams: the elements of L0A / L0B / L0C it reads and writes are
        `raw_kernels.mmad_indices` (fractal grids of m, n, k; GEMV); C = A @ B (+ C | + bias) in
        float64 on them."""
        if op.bias is not None:
            a, b, c, bias, m, n, k = args
        else:
            (a, b, c, m, n, k), bias = args, None
        if not (m and n and k):
            return ()
        key = (op, m, n, k, a.geometry_key, b.geometry_key, c.geometry_key)
        positions = self._maps.get(key)
        if positions is None:
            target = pto.target_of(op)
            gemv = isa_params.gemv_active(target, m, op.disable_gemv is not None)
            indices = raw_kernels.mmad_indices(m, n, k, a.element, b.element, target.l0a_layout,
                                               gemv, op.k_direction_align is not None)
            positions = []
            for idx, tile, role in zip(indices, (a, b, c), ("lhs (L0A)", "rhs (L0B)", "dst (L0C)"),
                                       strict=True):
                position = tile.padded_position(role)
                _raw_bounds(idx, position.size, role)
                positions.append(position[idx])
            positions = self._maps[key] = tuple(positions)
        a_pos, b_pos, c_pos = positions
        values = [t.padded_values.reshape(-1) for t in (a, b, c)]
        magnitudes = [t.padded_magnitude.reshape(-1) for t in (a, b, c)]
        product = values[0][a_pos].astype(np.float64) @ values[1][b_pos].astype(np.float64)
        magnitude = magnitudes[0][a_pos] @ magnitudes[1][b_pos]
        errors = [t.padded_error.reshape(-1) for t in (a, b, c)]
        error = _product_error(values[0][a_pos], errors[0][a_pos], values[1][b_pos],
                               errors[1][b_pos])
        if not op.init_zero:
            product += values[2][c_pos]
            magnitude += magnitudes[2][c_pos]
            c.products += k
            error = error + errors[2][c_pos]
        else:
            c.products = k
        errors[2][c_pos] = error
        if bias is not None:
            bias_values = bias.physical("bias")[0]
            _raw_bounds(np.arange(n), bias_values.size, "bias (BT)")
            product += bias_values[None, :n]
            magnitude += np.abs(bias_values[None, :n])
        if c.element not in FLOAT_ELEMENTS:
            info = np.iinfo(np.int32)
            product = np.clip(product, info.min, info.max)
        values[2][c_pos] = product
        magnitudes[2][c_pos] = magnitude
        c.source = a.element
        self._written(c)
        return ()

    @impl(pto.FixpipeCopyOp)
    def run_fixpipe_copy(self, interp: Interpreter, op, args: PythonValues) -> PythonValues:
        """Fixpipe with FixpipeParams: `raw_kernels.fixpipe_indices` says which L0C element goes
        to which destination element; the conversion is `convert` (module docstring)."""
        from mmair.executor.pto import gm_linear
        from mmair.isa.ascend.params import fixpipe_nz_block_cols

        src, src_offset, dst, n_size, m_size, sstride, dstride, nd, snd, dnd, *extra = args
        layout = op.layout.data
        c0_stride = extra.pop(0) if op.src_nz_c0_stride is not None else 1
        word = extra.pop(0) if op.scalar is not None else None
        vector = extra.pop(0) if op.vector is not None else None
        if not (n_size and m_size and nd):
            return ()
        target = pto.target_of(op)
        p = raw_kernels.FixpipeRaw(n_size, m_size, sstride, dstride, nd, snd, dnd, c0_stride)
        to_tile = isinstance(dst, LogicalTile)
        out_dtype = numpy_dtype(dst.element) if to_tile else dst.dtype
        unit = (32 / out_dtype.itemsize) if target.fixpipe_params != "arch3510" else 1
        block = 16
        if layout == "nz2nz":
            block = fixpipe_nz_block_cols(out_dtype.itemsize * 8, op.channel_split is not None)
        s_idx, d_idx = raw_kernels.fixpipe_indices(p, layout, unit, block)
        values, magnitude = src.physical("src")
        offset = _raw_offset(src_offset, values.size, "src")
        error = src.flat_physical(src.padded_error)[offset:]
        values, magnitude = values[offset:], magnitude[offset:]
        _raw_bounds(s_idx, values.size, "src (L0C)")
        words = None
        if vector is not None:
            words = vector.values.reshape(-1)
            if words.size < n_size:
                raise ExecutionError(f"reference: quant vector of {words.size} words, need {n_size}")
            words = words[:n_size]
        y = convert(values[s_idx].astype(np.float64), op.quant.data, out_dtype, op.relu is not None,
                    word, words)
        if to_tile:
            dvalues, dmagnitude = dst.physical("dst")
            _raw_bounds(d_idx, dvalues.size, "dst")
            derror = dst.flat_physical(dst.padded_error)
            derror[d_idx] = _stored_error(y, src, magnitude[s_idx], error[s_idx], op.quant.data,
                                          dst.element)
            dvalues[d_idx] = _stored(y, dst.element)
            dmagnitude[d_idx] = magnitude[s_idx]
            dst.store_physical(dvalues, dmagnitude)
            dst.padded_error[...] = derror[dst.physical_index("dst")]
            self._written(dst)
            return ()
        out = gm_linear(dst)
        _raw_bounds(d_idx, out.size, "dst")
        rtol, atol = _output_tolerance(out_dtype, src.source or src.element, y, magnitude[s_idx],
                                       max(src.products, 1), op.quant.data != "none",
                                       float(error[s_idx].max(initial=0.0)))
        self.tolerances.setdefault(_base(dst), Tolerance()).widen(rtol, atol)
        with np.errstate(over="ignore", invalid="ignore"):
            out[d_idx] = y.astype(out.dtype)
        return ()

    @impl(pto.GatherMaskOp)
    def run_gather_mask(self, interp: Interpreter, op: pto.GatherMaskOp,
                        args: PythonValues) -> PythonValues:
        """Keep the src0 elements whose pattern bit is 1, packed from dst[0]; return the count
        (the definition in docs/ascend.md, "GatherMask", written out in numpy)."""
        from mmair.isa.ascend import gather
        from mmair.isa.ascend.targets import get_target

        if op.src1 is not None:
            dst, src0, src1, mask, repeat, blk, rep0, rep1 = args
        else:
            (dst, src0, mask, repeat, blk, rep0, rep1), src1 = args, None
        method = get_target(self.target).gather_counter_method
        counter = op.counter is not None
        if (counter and mask == 0) or (repeat == 0 and not (counter and method == 2)):
            return (0,)
        epb = gather.elements_per_block(src0.element)
        counts = gather.repeat_counts(counter, method, src0.element, repeat, mask)
        r = np.repeat(np.arange(counts.size), counts)  # repeat of each processed element
        e = np.arange(r.size) - np.repeat(np.cumsum(counts) - counts, counts)  # index inside it
        src_index = r * rep0 * epb + (e // epb) * blk * epb + e % epb
        if src1 is None:
            motif = gather.BUILTIN_PATTERN_MOTIFS[op.pattern.value.data]
            keep = (motif >> (e % 4)) & 1
        else:
            words = src1.values.reshape(-1).astype(np.int64)
            bits_per_word = 8 * numpy_dtype(src1.element).itemsize
            bit = r * rep1 * 256 + e  # repeat r starts at byte r * rep1 * 32 of the pattern
            if bit.size and int(bit.max()) >= words.size * bits_per_word:
                raise ExecutionError("reference: pattern bits beyond the src1 tile")
            keep = (words[bit // bits_per_word] >> (bit % bits_per_word)) & 1
        flat = src0.values.reshape(-1)
        chosen = src_index[keep.astype(bool)]
        if chosen.size and int(chosen.max()) >= flat.size:
            raise ExecutionError("reference: GatherMask reads beyond src0")
        out = dst.values.reshape(-1)
        if chosen.size > out.size:
            raise ExecutionError("reference: GatherMask keeps more elements than dst holds")
        out[:chosen.size] = flat[chosen]
        self._written(dst)
        return (int(chosen.size),)


def convert(acc: np.ndarray, mode: str, dtype: np.dtype, relu: bool, word: int | None,
            words: np.ndarray | None) -> np.ndarray:
    """The fixpipe conversion in float64 numpy, from the mode's definition (module docstring);
    the result is still float64 but holds values of `dtype`."""
    from mmair.isa.ascend.quant import decode_quant_word

    dtype = np.dtype(dtype)
    base = mode[1:] if mode.startswith("v") else mode
    if base in ("none", "f322f16", "f322bf16"):
        y = np.maximum(acc, 0.0) if relu else acc
        if dtype.kind in "iu":
            info = np.iinfo(dtype)
            return np.clip(np.rint(y), info.min, info.max)
        return y
    if mode.startswith("v"):
        if words is None:
            raise ReferenceError(f"quant {mode} without a vector operand")
        fields = [decode_quant_word(int(w)) for w in np.asarray(words).astype(np.uint64)]
    else:
        if word is None:
            raise ReferenceError(f"quant {mode} without a scalar operand")
        fields = [decode_quant_word(int(word))] * acc.shape[1]
    scale = np.array([f.scale for f in fields])[None, :]
    shift = np.array([f.shift for f in fields])[None, :]
    mcb = np.array([f.mcb for f in fields])[None, :]
    offset = np.array([f.offset for f in fields])[None, :]
    if base in ("deqf16", "req8"):
        x = np.where(mcb, np.floor(acc / 2.0 ** shift), acc)
    elif base == "qf322b8_pre":
        x = acc
    else:
        raise ReferenceError(f"quant mode {mode} has no numpy reference")
    y = x * scale
    if relu:
        y = np.where(x < 0, 0.0, y)
    if base == "deqf16":
        limit = float(np.finfo(np.float16).max)
        return np.clip(y, -limit, limit)
    if dtype.kind not in "iu":
        raise ReferenceError(f"quant {mode} into {dtype}: expected an s8 or u8 destination")
    info = np.iinfo(dtype)
    return np.clip(np.clip(np.rint(y), -256, 255) + offset, info.min, info.max)


# ---- tcgen05 ------------------------------------------------------------------------------------


def _tmem_bytes(cells: np.ndarray) -> np.ndarray:
    """TMEM cells (lanes x columns of 32 bits) as (lanes, columns, 4) bytes, byte b = bits
    [8b, 8b + 8) of a cell."""
    return cells.view("<u4").view(np.uint8).reshape(cells.shape[0], cells.shape[1], 4)


def _scale_values(codes: np.ndarray, scale_type: str) -> np.ndarray:
    """Scale-factor bytes -> float64 (PTX ISA §9.7.16.10.7 "Block scaling"): UE8M0 is 2^(e-127)
    with 0xFF NaN (the OCP MX E8M0 scale); UE4M3 is E4M3 without the sign bit (bit 7 ignored)."""
    if scale_type == "ue8m0":
        return codes.astype(np.uint8).view(ml_dtypes.float8_e8m0fnu).astype(np.float64)
    return (codes.astype(np.uint8) & 0x7F).view(ml_dtypes.float8_e4m3fn).astype(np.float64)


def _reference_tcgen05_functions():
    """`Tcgen05Functions` with a numpy `tcgen05.mma` (module docstring); imported lazily so that
    pto-only runs do not load the tcgen05 executor."""
    from mmair.dialects import tcgen05
    from mmair.executor import tcgen05_kernels as tk
    from mmair.executor.tcgen05 import Tcgen05Functions
    from mmair.isa.tcgen05 import decode_idesc, layouts, rules
    from mmair.isa.tcgen05.idesc import BLOCK_SCALED_KINDS
    from mmair.isa.tcgen05.zcmask import decode_zcmask, zcmask_columns

    @register_impls
    @dataclass
    class ReferenceTcgen05Functions(Tcgen05Functions):
        tolerance: Tolerance = field(default_factory=Tolerance)

        def _lanes(self, view: np.ndarray, what: str, lanes: int, columns: int) -> np.ndarray:
            """The TMEM cells [lane, lane + lanes) x [column, column + columns) at `view`."""
            address = self.tmem_address(view, what)
            lane, column = layouts.tmem_lane(address), layouts.tmem_column(address)
            cells = self.tmem.cells
            if lane + lanes > cells.shape[0] or column + columns > cells.shape[1]:
                raise ExecutionError(f"reference: {what} [{lanes} lanes x {columns} columns] at "
                                     f"lane {lane} column {column} is beyond TMEM")
            return cells[lane:lane + lanes, column:column + columns]

        def _densify(self, kind: str, stored: np.ndarray, view: np.ndarray, k: int) -> np.ndarray:
            """Sparse A (PTX ISA §9.7.16.10.6 "Sparse matrices"): row i's metadata is a run of
            nibbles from lane i (nibble g at bits [4g, 4g+4) of the row's bytes); nibble g says
            at which dense K positions of group g the stored values of that group sit."""
            m = stored.shape[0]
            group, kept = layouts.SPARSE_GROUPS[kind]
            count = layouts.sparse_metadata_nibbles(kind, k)
            raw = _tmem_bytes(self._lanes(view, "the sparse metadata", m, -(-count // 8)))
            raw = raw.reshape(m, -1)
            nibbles = np.empty((m, 2 * raw.shape[1]), np.uint8)
            nibbles[:, 0::2], nibbles[:, 1::2] = raw & 0xF, raw >> 4
            positions, valid = layouts.sparse_dense_positions(kind, nibbles[:, :count])
            if not valid.all():
                row, g = (int(x[0]) for x in np.nonzero(~valid))
                raise ReferenceError(f"reference: undefined sparse metadata nibble "
                                     f"0b{int(nibbles[row, g]):04b} at row {row} group {g}")
            dense = np.zeros((m, k))
            column = (np.arange(count)[None, :, None] * group + positions).reshape(m, -1)
            np.put_along_axis(dense, column, stored[:, :column.shape[1]], axis=1)
            return dense

        def _scales(self, view: np.ndarray, what: str, rows: int, own_lane: bool, chunks: int,
                    sf_id: int, scale_type: str) -> np.ndarray:
            """(rows, chunks) scale factors: operand row r at TMEM lane r (A, `own_lane`) or
            r % 32 (B), column + r // 32, bytes sf_id .. sf_id + chunks - 1 of that cell
            (`isa.tcgen05.layouts`, "Block-scale factors in TMEM")."""
            if sf_id + chunks > 4:
                raise ReferenceError(f"reference: {what} needs bytes {sf_id}..{sf_id + chunks - 1}"
                                     " of a 32-bit cell")
            row = np.arange(rows)
            lane_in_quadrant, column = layouts.scale_factor_cells(row)
            lane = row if own_lane else lane_in_quadrant
            cells = _tmem_bytes(self._lanes(view, what, layouts.TMEM_LANES,
                                            int(column.max()) + 1))
            codes = cells[lane[:, None], column[:, None], sf_id + np.arange(chunks)[None, :]]
            return _scale_values(codes, scale_type)

        @impl(tcgen05.MmaOp)
        def run_mma(self, interp: Interpreter, op, args: PythonValues) -> PythonValues:
            """D = (A x SA) (B x SB)^T (+ D * 2^-scale_input_d) in float64, from the PTX ISA
            definition of each form, on operands read through the descriptors (module docstring)."""
            values = dict(zip(op.operands, args, strict=True))
            kind = op.kind.data
            if op.cta_group.value.data == 2:
                return self._run_mma_pair(op, values)
            unsupported = [what for what, present in (
                (".ashift of kind::i8 (an integer D row cannot be marked undefined)",
                 op.ashift is not None and kind == "i8"),)
                if present]
            if unsupported:
                raise ReferenceError(f"tcgen05.mma with {', '.join(unsupported)} has no numpy "
                                     "reference")
            try:
                desc = decode_idesc(int(values[op.idesc]) & 0xFFFFFFFF, kind)
                m, n, k = rules.mma_shape(desc)
                zcm = None if op.zero_column_mask is None else \
                    decode_zcmask(int(values[op.zero_column_mask]) & (2**64 - 1))
                masked = None if zcm is None else zcmask_columns(zcm, m, n)
            except Exception as err:  # noqa: BLE001 - the executor run reported the same word
                raise ExecutionError(f"reference: {err}") from None
            if desc.sparsity_selector:
                raise ReferenceError("tcgen05.mma with a sparsity selector has no numpy reference")
            sparse = op.sparse is not None
            k_stored = k // 2 if sparse else k
            shift = zcm.shift if zcm is not None else 0
            if op.a_in_tmem:
                if op.ashift is not None:
                    # .ashift: "shifts the rows of the A matrix down by one row, except for the
                    # last row" (PTX ISA "tcgen05.mma"); the first row receives nothing defined
                    # (NaN here, so the D row computed from it is NaN), and A stays shifted.
                    view = values[op.a]
                    view[1:m] = view[:m - 1].copy()
                    view[0] = np.nan
                raw = values[op.a].view(f"u{values[op.a].dtype.itemsize}")
                a = tk.decode_elements(raw[:m, :k_stored], desc.atype)
            else:
                a = tk.read_smem_operand(self.smem, int(values[op.a]) & (2**64 - 1),
                                         major="mn" if desc.transpose_a else "k",
                                         type_name=desc.atype, kind=kind, mn=m, k=k_stored,
                                         what="operand A")
            # .ws: output column j reads B column j + shift; the zero-column mask zeroes columns.
            b = tk.read_smem_operand(self.smem, int(values[op.b]) & (2**64 - 1),
                                     major="mn" if desc.transpose_b else "k",
                                     type_name=desc.btype, kind=kind, mn=n + shift, k=k,
                                     what="operand B")
            a = np.asarray(a, dtype=np.float64) * (-1.0 if desc.negate_a else 1.0)
            b = np.asarray(b, dtype=np.float64)[shift:shift + n] * (-1.0 if desc.negate_b else 1.0)
            if masked is not None:
                b[masked] = 0.0
            if sparse:
                a = self._densify(kind, a, values[op.sparse_metadata], k)
            if kind in BLOCK_SCALED_KINDS:
                vec = op.scale_vec.data if op.scale_vec is not None else None
                vec = {"block16": "4X", "block32": "1X" if kind == "mxf8f6f4" else "2X",
                       None: "1X" if kind == "mxf8f6f4" else "2X"}.get(vec, vec)
                block = layouts.SCALE_BLOCK_K[vec]
                sa = self._scales(values[op.scale_a], "scale_A", m, True, k // block, desc.sfa_id,
                                  desc.scale_type)
                sb = self._scales(values[op.scale_b], "scale_B", n + shift, False, k // block,
                                  desc.sfb_id, desc.scale_type)[shift:shift + n]
                a = a * np.repeat(sa, block, axis=1)
                b = b * np.repeat(sb, block, axis=1)
            d_addr = self.tmem_address(values[op.d], "d")
            dtype = desc.dtype or ("s32" if kind == "i8" else "f32")
            with np.errstate(invalid="ignore", over="ignore"):
                result = a @ b.T
                magnitude = np.abs(a) @ np.abs(b).T
            old = tk.read_d(self.tmem, d_addr, dtype, m, n).astype(np.float64)
            if bool(values[op.enable_input_d]):
                scaled = old * 2.0 ** -(op.scale_input_d.value.data if op.scale_input_d else 0)
                result = result + scaled
                magnitude = magnitude + np.abs(scaled)
            # disable_output_lane: bit i of the words (word 0 first, LSB first) set = TMEM lane i
            # keeps its old D row (PTX ISA §9.7.16.10.9 "tcgen05.mma", disable-output-lane).
            keep = np.zeros(m, dtype=bool)
            if op.disable_output_lane:
                words = [int(values[w]) & 0xFFFFFFFF for w in op.disable_output_lane]
                lane = layouts.tmem_lane(d_addr)
                bits = np.unpackbits(np.array(words, "<u4").view(np.uint8), bitorder="little")
                keep = bits[lane:lane + m].astype(bool)
            result[keep] = old[keep]
            if kind == "i8":
                info = np.iinfo(np.int32)
                result = np.clip(result, info.min, info.max) if desc.saturate else \
                    ((result.astype(np.int64) + 2**31) % 2**32 - 2**31)
                tk.write_d(self.tmem, d_addr, "s32", result.astype(np.int32))
                return ()
            out = np.float16 if dtype == "f16" else np.float32
            self.tolerance.widen(*_output_tolerance(np.dtype(out), "f32", result, magnitude, k,
                                                    False))
            with np.errstate(over="ignore"):
                tk.write_d(self.tmem, d_addr, dtype, result)
            return ()

        def _run_mma_pair(self, op, values: dict) -> PythonValues:
            """cta_group::2, M = 256 on the CTA pair (docs/tcgen05-async.md "CTA pairs"): CTA c
            holds D rows [128 c, +128) = A rows from its own SMEM x B, whose columns
            [N/2 c, N/2 (c + 1)) are in CTA c's SMEM; float64, negations, + D 2^-scale_input_d,
            disable_output_lane over the pair's 256 lanes."""
            kind = op.kind.data
            desc = decode_idesc(int(values[op.idesc]) & 0xFFFFFFFF, kind)
            m, n, k = rules.mma_shape(desc)
            if self.cluster is None or m != 256 or kind in BLOCK_SCALED_KINDS or \
                    op.sparse is not None or op.a_in_tmem:
                raise ReferenceError("tcgen05.mma cta_group::2 has a numpy reference only for a "
                                     "dense M = 256 MMA with A in shared memory on a CTA pair")
            first = self.rank & ~1
            pair = self.cluster.ctas[first:first + 2]
            a_word = int(values[op.a]) & (2**64 - 1)
            b_word = int(values[op.b]) & (2**64 - 1)

            def operand(smem, word, major, type_name, rows, what):
                return np.asarray(tk.read_smem_operand(
                    smem, word, major="mn" if major else "k", type_name=type_name, kind=kind,
                    mn=rows, k=k, what=what), dtype=np.float64)

            b = np.concatenate([operand(cta.smem, b_word, desc.transpose_b, desc.btype, n // 2,
                                        "operand B") for cta in pair])
            b = b * (-1.0 if desc.negate_b else 1.0)
            d_addr = self.tmem_address(values[op.d], "d")
            dtype = desc.dtype or ("s32" if kind == "i8" else "f32")
            lanes = np.zeros(256, dtype=bool)
            if op.disable_output_lane:
                words = [int(values[w]) & 0xFFFFFFFF for w in op.disable_output_lane]
                lanes = np.unpackbits(np.array(words, "<u4").view(np.uint8),
                                      bitorder="little").astype(bool)
            for c, cta in enumerate(pair):
                a = operand(cta.smem, a_word, desc.transpose_a, desc.atype, 128, "operand A")
                a = a * (-1.0 if desc.negate_a else 1.0)
                with np.errstate(invalid="ignore", over="ignore"):
                    result = a @ b.T
                    magnitude = np.abs(a) @ np.abs(b).T
                old = tk.read_d(cta.tmem, d_addr, dtype, 128, n).astype(np.float64)
                if bool(values[op.enable_input_d]):
                    scaled = old * 2.0 ** -(op.scale_input_d.value.data if op.scale_input_d
                                            else 0)
                    result = result + scaled
                    magnitude = magnitude + np.abs(scaled)
                lane = layouts.tmem_lane(d_addr)
                keep = lanes[128 * c + lane:128 * c + lane + 128]
                result[keep] = old[keep]
                if kind == "i8":
                    info = np.iinfo(np.int32)
                    result = np.clip(result, info.min, info.max) if desc.saturate else \
                        ((result.astype(np.int64) + 2**31) % 2**32 - 2**31)
                    tk.write_d(cta.tmem, d_addr, "s32", result.astype(np.int32))
                    continue
                out = np.float16 if dtype == "f16" else np.float32
                self.tolerance.widen(*_output_tolerance(np.dtype(out), "f32", result, magnitude,
                                                        k, False))
                with np.errstate(over="ignore"):
                    tk.write_d(cta.tmem, d_addr, dtype, result)
            return ()

    return ReferenceTcgen05Functions


# ---- the reference run ---------------------------------------------------------------------------


@dataclass
class Reference:
    """The reference of one GM output."""

    name: str
    values: np.ndarray
    rtol: float
    atol: float
    description: str


def reference_outputs(module, entry, inputs: dict[str, Any], result, target: str | None,
                      max_ops: int | None = None, blocks: int = 1,
                      fresh: dict[Operation | None, float] | None = None,
                      ) -> tuple[list[Reference], tuple[Any, ...]]:
    """References of the GM memrefs that the run (`result`, from `run_module` on `inputs`) or the
    reference run changed, and the reference run's return values (block 0's on `blocks` cores:
    every core runs the reference on the shared GM arrays, in the executor's turns). `fresh`:
    `ReferencePtoFunctions.fresh`."""
    from mmair.executor.arith import ArithFunctions
    from mmair.executor.func import FuncFunctions
    from mmair.executor.interpreter import MmairInterpreter
    from mmair.executor.memory import Memory
    from mmair.executor.memref import MemRefFunctions
    from mmair.executor.runner import module_target, prepare_arguments
    from mmair.executor.scf import ScfFunctions

    names, values = prepare_arguments(entry, dict(inputs), 0, None)
    before = {n: v.copy() for n, v in zip(names, values, strict=True) if isinstance(v, np.ndarray)}
    cube = ReferencePtoFunctions(target=module_target(module, target), fresh=dict(fresh or {}))
    uses_tcgen05 = any(op.name.startswith("tcgen05.") for op in module.walk())
    interp = MmairInterpreter(module, max_ops=max_ops)
    functions: list[InterpreterFunctions] = [FuncFunctions(), ScfFunctions(), ArithFunctions(),
                                             MemRefFunctions(max_gm_bytes=None), cube]
    tc = None
    if uses_tcgen05:
        tc = _reference_tcgen05_functions()(memory=Memory(module_target(module, target)))
        functions.append(tc)
    for f in functions:
        interp.register_implementations(f, override=True)
    from mmair.executor.tcgen05_cluster import run_pair, uses_cta_pair

    try:
        if blocks > 1:
            results = _run_reference_blocks(module, entry, values, cube, blocks, max_ops)
        elif uses_tcgen05 and uses_cta_pair(module):  # a CTA pair: one reference per CTA
            peers = [tc]

            def make(rank: int) -> tuple[Any, None]:
                if rank == 0:
                    return interp, None
                peer = MmairInterpreter(module, max_ops=max_ops)
                peers.append(_reference_tcgen05_functions()(
                    memory=Memory(module_target(module, target))))
                for f in (FuncFunctions(), ScfFunctions(), ArithFunctions(),
                          MemRefFunctions(max_gm_bytes=None), cube, peers[-1]):
                    peer.register_implementations(f, override=True)
                return peer, None

            _, pair_results = run_pair(make, entry, values)
            results = tuple(pair_results[0])
            for peer_tc in peers[1:]:
                tc.tolerance.widen(peer_tc.tolerance.rtol, peer_tc.tolerance.atol)
        else:
            results = tuple(interp.call_op(entry, tuple(values)))
    except ExecutionError as err:
        implemented = interp._impls._impl_dict  # pyright: ignore[reportPrivateUsage]
        if err.op is not None and type(err.op) not in implemented:
            raise ReferenceError("no numpy reference for this op, so --check-numpy cannot check "
                                 "this kernel (the executor itself runs the op)", err.op) from None
        raise
    refs: list[Reference] = []
    arrays = dict(zip(names, values, strict=True))
    for name, start in before.items():
        got, ref = result.outputs[name], arrays[name]
        if np.array_equal(start.view(np.uint8), ref.view(np.uint8)) \
                and np.array_equal(start.view(np.uint8), got.view(np.uint8)):
            continue
        tol = cube.tolerances.get(_base(ref))
        if tol is None:
            tol = tc.tolerance if tc is not None else Tolerance()
        what = "numpy tcgen05.mma reference" if uses_tcgen05 else "numpy reference of the IR"
        refs.append(Reference(name, ref, tol.rtol, tol.atol, what))
    if not refs and not results:
        raise ReferenceError(f"@{entry.sym_name.data} writes no GM memref, nothing to compare")
    return refs, results


UNWRITTEN_TILES_NAMED = 16
"""`unwritten_reads` names the tiles among the first this many `pto.alloc` ops (one reference run
each; the diagnosis runs only after a failed comparison)."""


def unwritten_reads(module, entry, inputs: dict[str, Any], result, target: str | None,
                    bad: dict[str, np.ndarray], max_ops: int | None = None,
                    blocks: int = 1) -> list[str] | None:
    """Why an output differs from its reference, when the kernel read on-chip bytes that no op
    wrote: the executor's buffers are byte memories that keep an earlier tile's data at the same
    address (as the hardware does), the reference's tiles start as zeros. `bad` holds, per GM
    output name, the elements that failed the comparison. If every one of them changes when the
    reference's fresh tiles hold 1 instead of 0, returns the names of the tiles (their
    `pto.alloc` results) whose fresh content reaches them (possibly none found among the first
    `UNWRITTEN_TILES_NAMED`); otherwise None: the difference is not explained that way."""

    def changed(fresh: dict[Operation | None, float]) -> dict[str, np.ndarray] | None:
        try:
            refs, _ = reference_outputs(module, entry, inputs, result, target, max_ops, blocks,
                                        fresh)
        except ExecutionError:
            return None
        by_name = {ref.name: ref.values for ref in refs}
        out = {}
        for name, mask in bad.items():
            if name not in by_name or by_name[name].shape != mask.shape:
                return None
            zero = np.asarray(zeros[name], np.float64)
            one = np.asarray(by_name[name], np.float64)
            out[name] = ~((zero == one) | (np.isnan(zero) & np.isnan(one)))
        return out

    if any(op.name.startswith("tcgen05.") for op in module.walk()):
        return None  # its buffers are the executor's memories: nothing starts as zeros
    try:
        zeros = {ref.name: ref.values for ref in reference_outputs(
            module, entry, inputs, result, target, max_ops, blocks)[0]}
    except ExecutionError:
        return None
    every = changed({None: 1.0})
    if every is None or not all(np.all(every[n] | ~mask) for n, mask in bad.items()):
        return None
    names = []
    allocs = [op for op in module.walk() if isinstance(op, pto.AllocOp)]
    for op in allocs[:UNWRITTEN_TILES_NAMED]:
        one = changed({op: 1.0})
        if one is not None and any(np.any(one[n] & mask) for n, mask in bad.items()):
            names.append(value_label(op.buffer, str(op.buffer)))
    return names


def _run_reference_blocks(module, entry, values: list[Any], cube: ReferencePtoFunctions,
                          blocks: int, max_ops: int | None) -> tuple[Any, ...]:
    """The reference on `blocks` cores sharing the GM `values`: each core has its own logical
    tiles (its own `ReferencePtoFunctions`); their GM tolerances are merged into `cube`'s.
    Returns block 0's results."""
    from mmair.executor.arith import ArithFunctions
    from mmair.executor.func import FuncFunctions
    from mmair.executor.interpreter import MmairInterpreter
    from mmair.executor.memref import MemRefFunctions
    from mmair.executor.multicore import Launch
    from mmair.executor.scf import ScfFunctions

    if any(op.name.startswith("tcgen05.") for op in module.walk()):
        raise ReferenceError("--check-numpy of a multi-core launch covers pto kernels only")
    launch = Launch(blocks)
    cores = []
    for block in range(blocks):
        core = ReferencePtoFunctions(target=cube.target, block=block, blocks=blocks, launch=launch,
                                     fresh=cube.fresh)
        interp = MmairInterpreter(module, max_ops=max_ops)
        for f in (FuncFunctions(), ScfFunctions(), ArithFunctions(),
                  MemRefFunctions(max_gm_bytes=None), core):
            interp.register_implementations(f, override=True)
        cores.append((core, interp))
    results = launch.run([lambda i=i: tuple(i.call_op(entry, tuple(values)))
                          for _, i in cores])
    for core, _ in cores:
        for base, tol in core.tolerances.items():
            cube.tolerances.setdefault(base, Tolerance()).widen(tol.rtol, tol.atol)
    return results[0]
