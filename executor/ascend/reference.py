"""The Ascend half of the numpy reference (`mmair.executor.reference`): every pto tile as a
LOGICAL matrix in float64 (no fractal layout, no byte memory, no address), and the pto ops as
numpy on those matrices.

* `mte_gm_l1`, `mte_l1_l0a/b` (start row/column, transpose), `mte_l1_bt`, `mte_gm_ub`,
  `mte_ub_gm`: copies of logical regions;
* `reinterpret`: a view of the same bits in another type (a write through either tile is
  bit-cast into the other);
* `mad`, `mad_acc`, `mad_bias`: C = A @ B (+ C, + bias row) exactly in float64 (integer L0C
  saturated to s32; the raw `mmad`'s tf32_mode / sat modes as `isa.ascend.mad_modes` says);
* `fixpipe`: the conversion written out in numpy from the op's quant mode and its QUANT_PRE word
  (fields decoded by `mmair.isa.ascend.quant`): ReLU, scale, shift, round half to even, offset,
  saturation; the value is then stored into the GM memref, i.e. rounded in the OUTPUT type.
* the raw Ascend C parameter forms (`copy_nd2nz`, `copy_dn2nz`, `load_2d`, `load_2d_gm`,
  `load_2d_transpose`, `load_2d_v2`, `load_2d_v2_gm`, `copy_l1_bt`, `mmad`, `fixpipe_copy`):
  each tile is kept rounded up to whole fractals, so that its physical image
  (`LogicalTile.physical`, the layout's index map) is exact, padding included; the parameters
  are followed with the executor's index math (`raw_kernels`), the arithmetic is the
  reference's own (float64 product, `convert`);
* hif8 tiles hold the decoded values (`isa.ascend.hif8`), written back to GM as their bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import ml_dtypes
import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Operation

from mmair.dialects import pto
from mmair.executor.ascend import raw_kernels
from mmair.executor.ascend.logical_tile import (
    LogicalTile,
    bit_cast,
    bits_as,
    decode_values,
    decoded_gm,
    encode_values,
    stored_values,
)
from mmair.executor.engine.errors import ExecutionError
from mmair.executor.engine.tolerance import F32_EPS, ReferenceError, Tolerance, output_tolerance
from mmair.isa.ascend import mad_modes
from mmair.isa.ascend import params as isa_params
from mmair.isa.ascend.targets import C0_BYTES, c0_elements, element_bits
from mmair.isa.dtypes import FLOAT_ELEMENTS, numpy_dtype

# ---- logical tiles -----------------------------------------------------------------------------


def _stored_error(y: np.ndarray, acc: LogicalTile, magnitude: np.ndarray, error: np.ndarray,
                  quant: str, element: str) -> np.ndarray:
    """Per element, how far the executor's stored Fixpipe result can be from the reference's
    `stored_values(y)`: y is exact up to the f32 sum (K * eps(f32) * magnitude) and the accumulator's
    own `error`; where y +- that bound rounds to different values of `element`, their distance
    (0 elsewhere). Scaled (quantizing) conversions: one unit of an integer type, two ulps of a
    float one."""
    acc_eps = F32_EPS if (acc.source or acc.element) in FLOAT_ELEMENTS or acc.source == "hif8" \
        else 0.0
    if quant in ("none", "f322f16", "f322bf16") and element in FLOAT_ELEMENTS:
        delta = acc.products * acc_eps * magnitude + error
        return np.abs(stored_values(y + delta, element) - stored_values(y - delta, element))
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


def _gm_2d(gm: np.ndarray) -> np.ndarray:
    if gm.ndim == 1:
        return gm[None, :]
    if gm.ndim != 2:
        raise ExecutionError(f"reference: requires a 1-D or 2-D GM memref, got shape {gm.shape}")
    return gm


def _atomic(old: np.ndarray, stored: np.ndarray, mode: Any) -> np.ndarray:
    """What a GM store leaves in GM: the `stored` values, or in atomic `mode` (a StringAttr)
    each combined with the `old` GM value, in float64 (int64 for integers, which wrap) and
    rounded once to the GM element type."""
    if mode is None:
        return stored
    wide = np.int64 if np.issubdtype(old.dtype, np.integer) else np.float64
    a, b = old.astype(wide), stored.astype(wide)
    out = {"add": np.add, "max": np.maximum, "min": np.minimum}[mode.data](a, b)
    return out.astype(old.dtype)


def _fit(what: str, need: tuple[int, int], have: tuple[int, int]) -> None:
    if need[0] > have[0] or need[1] > have[1] or min(need) < 0:
        raise ExecutionError(f"reference: {what} [{need[0]} x {need[1]}] is beyond "
                             f"[{have[0]} x {have[1]}]")


def array_base(array: np.ndarray) -> int:
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
                 dst_offset: int, dst_bits: int | None = None) -> np.ndarray:
    """For each element of a destination buffer of `dst_count` elements, the index of the source
    element that `kernel(src_bytes, dst_bytes)` (a byte kernel of `raw_kernels` that moves whole
    `bits`-wide elements, from the operand offsets) copies there, or -1 where it writes nothing.
    `dst_bits`: the destination's wider elements, for a kernel that widens (it must widen the
    unsigned tags as integers).

    The kernel runs on tags: every source element holds its index + 1, written in base
    2^bits digits, one run per digit (an element holds one digit), so the map comes from the
    executor's own index math whatever the buffer size."""
    dtype = np.dtype(f"u{max(bits, 8) // 8}")
    dst_dtype = dtype if dst_bits is None else np.dtype(f"u{dst_bits // 8}")
    base = 1 << min(bits, 32)  # a 64-bit element holds a 32-bit digit (int64 tags stay exact)
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
            dst = np.zeros(dst_count, dst_dtype)
            kernel(src[src_offset:].view(np.uint8), dst[dst_offset:].view(np.uint8))
        source += dst.astype(np.int64) * scale
        scale *= base
    return source - 1


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
        bit_cast(source, view)
        return (view,)

    def _written(self, tile: LogicalTile) -> None:
        """`tile` was written: refresh the views of its buffer (pto.reinterpret)."""
        for other in tile.alias:
            if other is not tile:
                bit_cast(tile, other)

    @impl(pto.MteGmL1Op)
    def run_mte_gm_l1(self, interp: Interpreter, op: pto.MteGmL1Op, args: PythonValues) -> PythonValues:
        gm, dst, rows, cols = args
        if rows and cols:
            src = _gm_2d(gm)
            src = src.T if op.dn2nz is not None else src
            _fit("mte_gm_l1 source", (rows, cols), src.shape)
            _fit("mte_gm_l1 destination", (rows, cols), dst.values.shape)
            dst.values[:rows, :cols] = decode_values(src[:rows, :cols], dst.element)
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

    @impl(pto.MteL1FbOp)
    def run_mte_l1_fb(self, interp: Interpreter, op, args: PythonValues) -> PythonValues:
        src, dst, n = args  # nd rows of one element type (the verifier): the values move as they are
        src_flat, dst_flat = src.padded_values.reshape(-1), dst.padded_values.reshape(-1)
        dst_flat[:n] = src_flat[:n]
        dst.padded_magnitude.reshape(-1)[:n] = src.padded_magnitude.reshape(-1)[:n]
        self._written(dst)
        return ()

    @impl(pto.MteGmUbOp)
    def run_mte_gm_ub(self, interp: Interpreter, op, args: PythonValues) -> PythonValues:
        gm, ub = args
        flat = ub.values.reshape(-1)
        _fit("mte_gm_ub", (1, gm.size), (1, flat.size))
        flat[:gm.size] = decode_values(gm.reshape(-1), ub.element)
        ub.magnitude.reshape(-1)[:gm.size] = np.abs(flat[:gm.size].astype(np.float64))
        self._written(ub)
        return ()

    @impl(pto.MteUbGmOp)
    def run_mte_ub_gm(self, interp: Interpreter, op, args: PythonValues) -> PythonValues:
        ub, gm = args
        flat = ub.values.reshape(-1)
        _fit("mte_ub_gm", (1, gm.size), (1, flat.size))
        gm[...] = encode_values(flat[:gm.size], ub.element).reshape(gm.shape)
        self.tolerances.setdefault(array_base(gm), Tolerance())
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
            dst.values[:y.shape[0], :y.shape[1]] = stored_values(y, dst.element)
            dst.magnitude[:y.shape[0], :y.shape[1]] = magnitude
            dst.error[:y.shape[0], :y.shape[1]] = error
            self._written(dst)
            return ()
        rtol, atol = output_tolerance(out_dtype, src.source or src.element, y, magnitude,
                                       max(src.products, 1), quant != "none",
                                       float(src.error[:m, :n].max(initial=0.0)))
        self.tolerances.setdefault(array_base(dst), Tolerance()).widen(rtol, atol)
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
            dst[mask] = _atomic(dst[mask], block[mask].astype(dst.dtype), op.atomic)
            return ()
        out = _gm_2d(dst)
        if layout == "nz2dn":
            y = y.T
        _fit("fixpipe GM window", y.shape, out.shape)
        window = out[:y.shape[0], :y.shape[1]]
        window[...] = _atomic(window, y.astype(out.dtype), op.atomic)
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
        from mmair.executor.ascend.functions import gm_linear

        v = pto.operand_map(op, args)
        dst: LogicalTile = v["dst"]
        p = raw_kernels.Nd2Nz(*(v[name] for name in op.FIELDS))
        kwargs = dict(fields=op.fields(pto.target_of(op)), dn=op.DN,
                      small_c0=op.small_c0 is not None)
        c0 = c0_elements(dst.element, "l1")
        values, magnitude = dst.physical("dst")
        offset = _raw_offset(v["dst_offset"], values.size, "dst")
        src = decoded_gm(gm_linear(v["src"]), dst.element)
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
              dst_offset: int, kernel, widen: bool = False) -> PythonValues:
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
                                  _raw_offset(dst_offset, dst_count, "dst"),
                                  element_bits(dst.element) if widen else None)
            written = np.nonzero(source >= 0)[0]
            positions = self._maps[cache_key] = (dst.padded_position("dst")[written],
                                                 src.padded_position("src")[source[written]])
        dst_pos, src_pos = positions
        moved = src.padded_values.reshape(-1)[src_pos]
        # a widening load converts values (exact: f16 / bf16 -> f32); others move bits
        dst.padded_values.reshape(-1)[dst_pos] = moved if widen else bits_as(
            moved, src.element, dst.element)
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

    @impl(pto.CopyGmL1Op)
    def run_copy_gm_l1(self, interp: Interpreter, op, args: PythonValues) -> PythonValues:
        """DataCopy GM -> L1: the executor's byte kernel as an element map."""
        v = pto.operand_map(op, args)
        p = raw_kernels.CopyGmL1(*(v[name] for name in isa_params.GM_L1_FIELDS))
        return self._gm_load(v, lambda s, d: raw_kernels.copy_gm_l1(s, d, p))

    def _gm_load(self, v: dict, kernel) -> PythonValues:
        """A LoadData from GM to an L1 tile: `kernel(src_bytes, dst_bytes)` is the executor's
        byte kernel, run as an element map from the GM operand to the tile's physical image."""
        from mmair.executor.ascend.functions import gm_linear

        dst: LogicalTile = v["dst"]
        src = decoded_gm(gm_linear(v["src"]), dst.element)
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
        widening = op.widening()
        # the tags widen as unsigned integers of the two widths, as the values do
        tags = None if widening is None else tuple(
            np.dtype(f"u{element_bits(e) // 8}") for e in widening)
        return self._load(op, p, v["src"], v["src_offset"], v["dst"], v["dst_offset"],
                          lambda s, d: raw_kernels.copy_l1_bt(s, d, p, unit, widen=tags),
                          widen=widening is not None)

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
        sat_max = mad_modes.sat_maxima(op.sat and op.sat.data, a.element, b.element)
        lhs, rhs = mad_modes.mmad_inputs(values[0][a_pos], values[1][b_pos],
                                         op.tf32_mode and op.tf32_mode.data, sat_max)
        product = lhs.astype(np.float64) @ rhs.astype(np.float64)
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
        elif sat_max is not None:
            product = mad_modes.saturate_result(product)
        values[2][c_pos] = product
        magnitudes[2][c_pos] = magnitude
        c.source = a.element
        self._written(c)
        return ()

    @impl(pto.FixpipeCopyOp)
    def run_fixpipe_copy(self, interp: Interpreter, op, args: PythonValues) -> PythonValues:
        """Fixpipe with FixpipeParams: `raw_kernels.fixpipe_indices` says which L0C element goes
        to which destination element; the conversion is `convert` (module docstring)."""
        from mmair.executor.ascend.functions import gm_linear
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
            dvalues[d_idx] = stored_values(y, dst.element)
            dmagnitude[d_idx] = magnitude[s_idx]
            dst.store_physical(dvalues, dmagnitude)
            dst.padded_error[...] = derror[dst.physical_index("dst")]
            self._written(dst)
            return ()
        out = gm_linear(dst)
        _raw_bounds(d_idx, out.size, "dst")
        rtol, atol = output_tolerance(out_dtype, src.source or src.element, y, magnitude[s_idx],
                                       max(src.products, 1), op.quant.data != "none",
                                       float(error[s_idx].max(initial=0.0)))
        self.tolerances.setdefault(array_base(dst), Tolerance()).widen(rtol, atol)
        with np.errstate(over="ignore", invalid="ignore"):
            stored = y.astype(out.dtype)
        if op.atomic is None:
            out[d_idx] = stored
        else:  # in order when an index repeats
            {"add": np.add, "max": np.maximum, "min": np.minimum}[op.atomic.data].at(
                out, d_idx, stored)
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
    elif base in ("qf322b8_pre", "qf322f16_pre"):
        x = acc
    else:
        raise ReferenceError(f"quant mode {mode} has no numpy reference")
    y = x * scale
    if relu:
        y = np.where(x < 0, 0.0, y)
    if base in ("deqf16", "qf322f16_pre"):
        limit = float(np.finfo(np.float16).max)
        return np.clip(y, -limit, limit)
    if dtype.kind not in "iu":
        raise ReferenceError(f"quant {mode} into {dtype}: expected an s8 or u8 destination")
    info = np.iinfo(dtype)
    return np.clip(np.clip(np.rint(y), -256, 255) + offset, info.min, info.max)
