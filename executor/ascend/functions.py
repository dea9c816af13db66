"""Interpreter functions of the `pto` dialect (Ascend cube path and vector GatherMask).

One `PtoFunctions` instance owns the simulated `Memory` of one core. Tile values are
`memory.Tile`s (numpy views of the space byte arrays), GM values numpy arrays, sizes Python ints.
The numpy work is in `executor/ascend/kernels.py`; this module decodes each op once (types, flags, operand
positions, cached in `_decoded` by op) and dispatches, so the per-op Python overhead stays small.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Operation

from mmair.dialects import pto
from mmair.dialects.types import element_name_or_none
from mmair.dialects.value_names import value_label
from mmair.executor.ascend import kernels, raw_kernels
from mmair.executor.engine.errors import ExecutionError
from mmair.executor.engine.memory import Memory, Tile
from mmair.isa.ascend import mad_modes
from mmair.isa.ascend import params as isa_params
from mmair.isa.ascend import targets as isa
from mmair.isa.ascend.targets import C0_BYTES, c0_elements, element_bits
from mmair.isa.dtypes import numpy_dtype


def _name(value) -> str:
    return value_label(value)


@register_impls
@dataclass
class PtoFunctions(InterpreterFunctions):
    memory: Memory = field(default_factory=Memory)
    _decoded: dict[Operation, Any] = field(default_factory=dict)
    _tiles: dict[Operation, tuple[Any, Tile]] = field(default_factory=dict)
    block: int = 0
    """This core's block index (`pto.block_idx`)."""
    blocks: int = 1
    """The launch size (`pto.block_num`)."""
    launch: Any = None
    """`executor.multicore.Launch` of a multi-core run (None: one core; sync_all then only orders the core's own pipes)."""

    # ---- multi-core ------------------------------------------------------------------------

    @impl(pto.BlockIdxOp)
    def run_block_idx(self, interp: Interpreter, op: pto.BlockIdxOp, args: PythonValues) -> PythonValues:
        return (self.block,)

    @impl(pto.BlockNumOp)
    def run_block_num(self, interp: Interpreter, op: pto.BlockNumOp, args: PythonValues) -> PythonValues:
        return (self.blocks,)

    @impl(pto.SyncAllOp)
    def run_sync_all(self, interp: Interpreter, op: pto.SyncAllOp, args: PythonValues) -> PythonValues:
        if self.launch is not None:
            self.launch.sync_all(self.block, op, interp)
        else:
            from mmair.executor.engine.multicore import sync_all_one_core

            sync_all_one_core(self.block, op, interp)
        return ()

    # ---- buffers ---------------------------------------------------------------------------

    @impl(pto.AllocOp)
    def run_alloc(self, interp: Interpreter, op: pto.AllocOp, args: PythonValues) -> PythonValues:
        cached = self._tiles.get(op)
        if cached is not None:
            return (cached[1],)
        t = op.buffer.type
        assert isinstance(t, pto.TileType)
        offset = op.offset.value.data if op.offset is not None else None
        tile = self.memory.place(
            t.space_name, t.logical_shape, t.layout_name, t.element_name, offset, _name(op.buffer)
        )
        self._tiles[op] = (None, tile)
        return (tile,)

    @impl(pto.ReinterpretOp)
    def run_reinterpret(
        self, interp: Interpreter, op: pto.ReinterpretOp, args: PythonValues
    ) -> PythonValues:
        (source,) = args
        cached = self._tiles.get(op)
        if cached is not None and cached[0] is source:
            return (cached[1],)
        t = op.result.type
        assert isinstance(t, pto.TileType)
        tile = self.memory.reinterpret(
            source, t.logical_shape, t.layout_name, t.element_name, _name(op.result)
        )
        self._tiles[op] = (source, tile)
        return (tile,)

    # ---- data movement ---------------------------------------------------------------------

    @impl(pto.MteGmL1Op)
    def run_mte_gm_l1(self, interp: Interpreter, op: pto.MteGmL1Op, args: PythonValues) -> PythonValues:
        gm, dst, rows, cols = args
        dn2nz = self._decoded.get(op)
        if dn2nz is None:  # xDSL's property access costs about a microsecond per load
            dn2nz = self._decoded[op] = op.dn2nz is not None
        kernels.mte_gm_l1(gm, dst, rows, cols, dn2nz)
        return ()

    def _l1_l0(self, op: pto.MteL1L0AOp | pto.MteL1L0BOp, args: PythonValues) -> PythonValues:
        decoded = self._decoded.get(op)
        if decoded is None:
            decoded = self._decoded[op] = (op.src_row is not None, op.transpose is not None)
        has_start, transpose = decoded
        if has_start:
            src, row, col, dst, rows, cols = args
        else:
            (src, dst, rows, cols), row, col = args, 0, 0
        kernels.mte_l1_l0(src, dst, rows, cols, row, col, transpose)
        return ()

    @impl(pto.MteL1L0AOp)
    def run_mte_l1_l0a(self, interp: Interpreter, op: pto.MteL1L0AOp, args: PythonValues) -> PythonValues:
        return self._l1_l0(op, args)

    @impl(pto.MteL1L0BOp)
    def run_mte_l1_l0b(self, interp: Interpreter, op: pto.MteL1L0BOp, args: PythonValues) -> PythonValues:
        return self._l1_l0(op, args)

    @impl(pto.MteL1BtOp)
    def run_mte_l1_bt(self, interp: Interpreter, op: pto.MteL1BtOp, args: PythonValues) -> PythonValues:
        src, dst, n = args
        kernels.mte_l1_bt(src, dst, n)
        return ()

    @impl(pto.MteL1FbOp)
    def run_mte_l1_fb(self, interp: Interpreter, op: pto.MteL1FbOp, args: PythonValues) -> PythonValues:
        src, dst, n = args
        kernels.mte_l1_fb(src, dst, n)
        return ()

    @impl(pto.MteGmUbOp)
    def run_mte_gm_ub(self, interp: Interpreter, op: pto.MteGmUbOp, args: PythonValues) -> PythonValues:
        gm, ub = args
        kernels.copy_gm_to_tile(gm, ub)
        return ()

    @impl(pto.MteUbGmOp)
    def run_mte_ub_gm(self, interp: Interpreter, op: pto.MteUbGmOp, args: PythonValues) -> PythonValues:
        ub, gm = args
        kernels.copy_tile_to_gm(ub, gm)
        return ()

    # ---- cube ------------------------------------------------------------------------------

    def _gemv_off(self, op: pto.MadOp | pto.MadAccOp | pto.MadBiasOp) -> bool:
        off = self._decoded.get(op)
        if off is None:  # decoded once per op (an xDSL property access per mad before)
            off = self._decoded[op] = op.disable_gemv is not None and \
                self.memory.target.gemv_disable
        return off

    @impl(pto.MadOp)
    def run_mad(self, interp: Interpreter, op: pto.MadOp, args: PythonValues) -> PythonValues:
        a, b, c, m, n, k = args
        kernels.mad(a, b, c, m, n, k, gemv_off=self._gemv_off(op))
        return ()

    @impl(pto.MadAccOp)
    def run_mad_acc(self, interp: Interpreter, op: pto.MadAccOp, args: PythonValues) -> PythonValues:
        a, b, c, m, n, k = args
        kernels.mad(a, b, c, m, n, k, accumulate=True, gemv_off=self._gemv_off(op))
        return ()

    @impl(pto.MadBiasOp)
    def run_mad_bias(self, interp: Interpreter, op: pto.MadBiasOp, args: PythonValues) -> PythonValues:
        a, b, c, bias, m, n, k = args
        kernels.mad(a, b, c, m, n, k, bias=bias, gemv_off=self._gemv_off(op))
        return ()

    @impl(pto.FixpipeOp)
    def run_fixpipe(self, interp: Interpreter, op: pto.FixpipeOp, args: PythonValues) -> PythonValues:
        decoded = self._decoded.get(op)
        if decoded is None:
            decoded = self._decoded[op] = (
                op.layout.data,
                op.quant.data,
                op.relu is not None,
                op.scalar is not None,
                op.vector is not None,
                _nz_merged_block(op),
                None if op.atomic is None else op.atomic.data,
            )
        layout, quant, relu, has_scalar, has_vector, merged, atomic = decoded
        src, dst, m, n, *extra = args
        if merged and n % merged:
            raise ExecutionError(
                f"requires n to be a multiple of {merged} for nz2nz with 8-bit output (channel "
                f"merge writes 16 x {merged} blocks), got {n}"
            )
        word = extra[0] if has_scalar else None
        vector = extra[-1] if has_vector else None
        kernels.fixpipe(src, dst, m, n, layout, quant, relu, word, vector, atomic)
        return ()

    # ---- synchronization -----------------------------------------------------------------
    # With the sync checker off every op runs at once in program order, so the sync ops have
    # nothing to do; with it on, the interpreter's seam hands them to the scheduler instead.

    @impl(pto.SetFlagOp)
    def run_set_flag(self, interp: Interpreter, op: pto.SetFlagOp, args: PythonValues) -> PythonValues:
        return ()

    @impl(pto.WaitFlagOp)
    def run_wait_flag(self, interp: Interpreter, op: pto.WaitFlagOp, args: PythonValues) -> PythonValues:
        return ()

    @impl(pto.PipeBarrierOp)
    def run_pipe_barrier(
        self, interp: Interpreter, op: pto.PipeBarrierOp, args: PythonValues
    ) -> PythonValues:
        return ()

    # ---- vector ----------------------------------------------------------------------------

    @impl(pto.GatherMaskOp)
    def run_gather_mask(
        self, interp: Interpreter, op: pto.GatherMaskOp, args: PythonValues
    ) -> PythonValues:
        decoded = self._decoded.get(op)
        if decoded is None:
            method = self.memory.target.gather_counter_method
            if method == 0:
                raise ExecutionError(f"GatherMask does not exist on target {self.memory.target.name}")
            pattern = op.pattern.value.data if op.pattern is not None else None
            decoded = self._decoded[op] = (op.src1 is not None, pattern, op.counter is not None, method)
        has_src1, pattern, counter, method = decoded
        if has_src1:
            dst, src0, src1, mask, repeat, blk, rep0, rep1 = args
        else:
            (dst, src0, mask, repeat, blk, rep0, rep1), src1 = args, None
        count = kernels.gather_mask(
            dst, src0, mask, repeat, blk, rep0, rep1, pattern=pattern, src1=src1,
            counter=counter, method=method,
        )
        return (count,)


# ------------------------------------------------------------------------------------------------
# Raw Ascend C parameter forms (dialects/pto/params.py): flat views and `raw_kernels`
# ------------------------------------------------------------------------------------------------


def gm_linear(array: np.ndarray) -> np.ndarray:
    """1-D element view of GM from `array`'s first element to the end of the buffer it views:
    the instruction addresses GM linearly from the operand start (a window's row pitch is the
    parent's, given by the parameters, not by the window)."""
    root = array
    while root.base is not None and isinstance(root.base, np.ndarray):
        root = root.base
    if not root.flags.c_contiguous:
        raise ExecutionError("requires a contiguous GM buffer under the raw-form operand")
    start = array.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    flat = root.reshape(-1).view(np.uint8)[start:]
    usable = flat.size // array.itemsize * array.itemsize
    return flat[:usable].view(array.dtype)


def tile_flat(tile: Tile, offset: int, role: str) -> np.ndarray:
    """1-D element view of `tile` from element `offset` to the tile's end; a 4-bit tile's
    elements unpacked (a copy to read: the raw forms write 4-bit tiles as bytes, `tile_bytes`)."""
    flat = tile.values().reshape(-1) if tile.packed else tile.physical.reshape(-1)
    if offset < 0 or offset >= flat.size:
        raise ExecutionError(f"requires {role} offset in [0, {flat.size}), got {offset}")
    return flat[offset:]


def tile_bytes(tile: Tile, offset: int, role: str) -> np.ndarray:
    """Byte view of `tile` from element `offset` (4-bit tiles: two elements a byte, so an even
    offset) to the tile's end."""
    if not tile.packed:
        return tile_flat(tile, offset, role).view(np.uint8)
    count = tile.physical.size * 2
    if offset < 0 or offset >= count or offset % 2:
        raise ExecutionError(f"requires {role} offset in [0, {count}) on a byte boundary (an even "
                             f"element of a 4-bit tile), got {offset}")
    return tile.physical.reshape(-1)[offset // 2:]


def gm_nibble_bytes(array: np.ndarray) -> raw_kernels.PackedNibbles:
    """The packed bytes of a 4-bit GM operand (numpy holds one element per byte) from its start,
    which must be an even element: the instruction addresses GM in bytes."""
    flat = gm_linear(array)
    root = array
    while root.base is not None and isinstance(root.base, np.ndarray):
        root = root.base
    start = array.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    if start % 2:
        raise ExecutionError(f"requires a 4-bit GM operand to start on a byte boundary (an even "
                             f"element), got element {start}")
    return raw_kernels.PackedNibbles(flat.view(np.uint8) & 0x0F)  # mutation: skip (layouts.pack_nibbles masks every code to its low nibble)


def gm_window(array: np.ndarray, offset: int, role: str) -> np.ndarray:
    """1-D element view of GM from element `offset` of `array` to the end of its buffer."""
    flat = gm_linear(array)
    if offset < 0 or offset >= flat.size:
        raise ExecutionError(f"requires {role} offset in [0, {flat.size}), got {offset}")
    return flat[offset:]


def gm_bytes(array: np.ndarray, offset: int, role: str) -> np.ndarray:
    """1-D byte view of GM from element `offset` of `array` to the end of its buffer."""
    return gm_window(array, offset, role).view(np.uint8)


@register_impls
@dataclass
class PtoParamsFunctions(InterpreterFunctions):
    """The raw-form ops; the tiles come from the `PtoFunctions` of the same interpreter."""

    @impl(pto.CopyNd2NzOp)
    def run_copy_nd2nz(self, interp: Interpreter, op: pto.CopyNd2NzOp, args: PythonValues) -> PythonValues:
        return _run_copy_nz(op, args)

    @impl(pto.CopyDn2NzOp)
    def run_copy_dn2nz(self, interp: Interpreter, op: pto.CopyDn2NzOp, args: PythonValues) -> PythonValues:
        return _run_copy_nz(op, args)

    @impl(pto.Load2DOp)
    def run_load_2d(self, interp: Interpreter, op: pto.Load2DOp, args: PythonValues) -> PythonValues:
        v = pto.operand_map(op, args)
        src, soff, dst, doff = v["src"], v["src_offset"], v["dst"], v["dst_offset"]
        target = _target_of(op)
        p = raw_kernels.Load2D(*(v[name] for name in isa_params.LOAD2D_FIELDS))
        if p.dst_gap and not isa_params.load2d_dst_gap_effective(target):
            raise ExecutionError(f"dst_gap has no effect on target {target.name}, got {p.dst_gap}")
        dst.will_write()
        raw_kernels.load2d(tile_bytes(src, soff, "src"), tile_bytes(dst, doff, "dst"), p,
                           element_bits(src.element), op.if_transpose is not None)
        return ()

    @impl(pto.Load2DGmOp)
    def run_load_2d_gm(self, interp: Interpreter, op: pto.Load2DGmOp, args: PythonValues) -> PythonValues:
        v = pto.operand_map(op, args)
        src, soff, dst, doff = v["src"], v["src_offset"], v["dst"], v["dst_offset"]
        target = _target_of(op)
        p = raw_kernels.Load2D(*(v[name] for name in isa_params.LOAD2D_GM_FIELDS))
        if p.dst_gap and not isa_params.load2d_gm_dst_gap_supported(target):
            raise ExecutionError(f"requires dst_gap 0 on target {target.name}, got {p.dst_gap}")
        dst.will_write()
        raw_kernels.load2d(gm_bytes(src, soff, "src"), tile_bytes(dst, doff, "dst"), p,
                           element_bits(dst.element), addr_mode=1 if op.decrements else 0)
        return ()

    @impl(pto.Load2DTransposeOp)
    def run_load_2d_transpose(
        self, interp: Interpreter, op: pto.Load2DTransposeOp, args: PythonValues
    ) -> PythonValues:
        v = pto.operand_map(op, args)
        src, dst = v["src"], v["dst"]
        dst.will_write()
        p = raw_kernels.Load2DTranspose(*(v[name] for name in isa_params.LOAD2D_TRANSPOSE_FIELDS))
        raw_kernels.load2d_transpose(tile_bytes(src, v["src_offset"], "src"),
                                     tile_bytes(dst, v["dst_offset"], "dst"), p, src.element)
        return ()

    @impl(pto.Load2DV2Op)
    def run_load_2d_v2(self, interp: Interpreter, op: pto.Load2DV2Op, args: PythonValues) -> PythonValues:
        v = pto.operand_map(op, args)
        src, dst = v["src"], v["dst"]
        dst.will_write()
        p = raw_kernels.Load2DV2(*(v[name] for name in isa_params.LOAD2D_V2_FIELDS))
        raw_kernels.load2d_v2(tile_bytes(src, v["src_offset"], "src"),
                              tile_bytes(dst, v["dst_offset"], "dst"), p,
                              element_bits(src.element), op.if_transpose is not None)
        return ()

    @impl(pto.Load2DV2GmOp)
    def run_load_2d_v2_gm(self, interp: Interpreter, op: pto.Load2DV2GmOp,
                          args: PythonValues) -> PythonValues:
        v = pto.operand_map(op, args)
        dst = v["dst"]
        dst.will_write()
        p = raw_kernels.Load2DV2(*(v[name] for name in isa_params.LOAD2D_V2_GM_FIELDS))
        src = (gm_nibble_bytes(gm_window(v["src"], v["src_offset"], "src")) if dst.packed
               else gm_bytes(v["src"], v["src_offset"], "src"))
        raw_kernels.load2d_v2(src, tile_bytes(dst, v["dst_offset"], "dst"), p,
                              element_bits(dst.element))
        return ()

    @impl(pto.CopyGmL1Op)
    def run_copy_gm_l1(self, interp: Interpreter, op: pto.CopyGmL1Op, args: PythonValues) -> PythonValues:
        v = pto.operand_map(op, args)
        dst = v["dst"]
        dst.will_write()
        p = raw_kernels.CopyGmL1(*(v[name] for name in isa_params.GM_L1_FIELDS))
        raw_kernels.copy_gm_l1(gm_bytes(v["src"], v["src_offset"], "src"),
                               tile_bytes(dst, v["dst_offset"], "dst"), p)
        return ()

    @impl(pto.CopyL1BtOp)
    def run_copy_l1_bt(self, interp: Interpreter, op: pto.CopyL1BtOp, args: PythonValues) -> PythonValues:
        v = pto.operand_map(op, args)
        src, dst = v["src"], v["dst"]
        dst.will_write()
        p = raw_kernels.CopyL1Bt(*(v[name] for name in isa_params.L1_BT_FIELDS))
        widening = op.widening()
        raw_kernels.copy_l1_bt(tile_bytes(src, v["src_offset"], "src"),
                               tile_bytes(dst, v["dst_offset"], "dst"), p,
                               isa_params.l1_bt_unit_bytes(_target_of(op)),
                               widen=None if widening is None else
                               (numpy_dtype(widening[0]), numpy_dtype(widening[1])))
        return ()

    @impl(pto.MmadOp)
    def run_mmad(self, interp: Interpreter, op: pto.MmadOp, args: PythonValues) -> PythonValues:
        if op.bias is not None:
            a, b, c, bias, m, n, k = args
        else:
            (a, b, c, m, n, k), bias = args, None
        target = _target_of(op)
        for name, v in (("m", m), ("n", n), ("k", k)):
            if not 0 <= v <= isa.MMAD_MNK_RANGE[1]:
                raise ExecutionError(f"requires {name} in [0, {isa.MMAD_MNK_RANGE[1]}], got {v}")
        gemv = isa_params.gemv_active(target, m, op.disable_gemv is not None)
        c.will_write()
        raw_kernels.mmad(
            _decoded(tile_flat(a, 0, "lhs"), a.element), _decoded(tile_flat(b, 0, "rhs"), b.element),
            tile_flat(c, 0, "dst"), m, n, k,
            lhs=a.element, rhs=b.element, l0a_layout=target.l0a_layout, gemv=gemv,
            init_zero=op.init_zero,  # the bias form: C = A x B + bias, L0C not read
            bias=None if bias is None else tile_flat(bias, 0, "bias"),
            k_align16=op.k_direction_align is not None,
            compute_dtype=kernels._compute_dtype(a.element),
            tf32_mode=None if op.tf32_mode is None else op.tf32_mode.data,
            sat_max=mad_modes.sat_maxima(op.sat and op.sat.data, a.element, b.element),
        )
        return ()

    @impl(pto.FixpipeCopyOp)
    def run_fixpipe_copy(
        self, interp: Interpreter, op: pto.FixpipeCopyOp, args: PythonValues
    ) -> PythonValues:
        src, soff, dst, n_size, m_size, sstride, dstride, nd, snd, dnd, *extra = args
        layout = op.layout.data
        c0_stride = extra.pop(0) if op.src_nz_c0_stride is not None else 1
        word = extra.pop(0) if op.scalar is not None else None
        vector = extra.pop(0) if op.vector is not None else None
        target = _target_of(op)
        p = raw_kernels.FixpipeRaw(n_size, m_size, sstride, dstride, nd, snd, dnd, c0_stride)
        if isinstance(dst, Tile):
            dst.will_write()
            out = tile_flat(dst, 0, "dst")
        else:
            out = gm_linear(dst)
        unit = (32 / out.itemsize) if target.fixpipe_params != "arch3510" else 1
        words = None
        if vector is not None:
            flat = vector.values().reshape(-1)
            words = flat.view(np.uint64) if flat.dtype.itemsize == 8 else flat  # mutation: skip (quant vectors are u64)
        raw_kernels.fixpipe(tile_flat(src, soff, "src"), out, p, layout, op.quant.data,
                            op.relu is not None, word, words, unit, op.channel_split is not None,
                            None if op.atomic is None else op.atomic.data)
        return ()


def _run_copy_nz(op: pto.CopyNd2NzOp | pto.CopyDn2NzOp, args: PythonValues) -> PythonValues:
    """DataCopy GM -> L1 with Nd2NzParams / Dn2NzParams (`raw_kernels.nd2nz`)."""
    v = pto.operand_map(op, args)
    dst = v["dst"]
    p = raw_kernels.Nd2Nz(*(v[name] for name in op.FIELDS))
    small_c0 = op.small_c0 is not None
    if dst.packed:  # the b8 instruction on bytes (raw_kernels module docstring)
        if op.DN and p.n_value % isa_params.DN2NZ_B4_N_MULTIPLE:
            raise ExecutionError(f"copy_dn2nz of 4-bit elements requires n_value (nValue) to be "
                                 f"a multiple of {isa_params.DN2NZ_B4_N_MULTIPLE}, got {p.n_value}")
        src, out, c0 = gm_nibble_bytes(v["src"]), tile_bytes(dst, v["dst_offset"], "dst"), C0_BYTES
    else:
        src, out = gm_linear(v["src"]), tile_flat(dst, v["dst_offset"], "dst")
        c0 = c0_elements(dst.element, "l1")
    dst.will_write()
    raw_kernels.nd2nz(src, out, p, c0, op.fields(_target_of(op)), dn=op.DN, small_c0=small_c0)
    return ()


def _decoded(flat: np.ndarray, element: str) -> np.ndarray:
    """HiF8 operands sit in uint8 containers: the Mmad reads their values (`isa.ascend.hif8`)."""
    if element != "hif8":
        return flat
    from mmair.isa.ascend.hif8 import decode_hif8

    return decode_hif8(flat).astype(np.float32)  # mutation: skip (raw mmad casts operands to its f32 compute type; HiF8 values are exact in both)


def _nz_merged_block(op: pto.FixpipeOp) -> int:
    """The merged Z-block width of an nz2nz Fixpipe whose output is merged (b8: 32), else 0."""
    if op.layout.data != "nz2nz":
        return 0
    dst_t = op.dst.type
    # tiles and memrefs both carry element_type (None: no isa name)
    elem = element_name_or_none(dst_t.element_type)  # type: ignore[union-attr]
    if elem is None:
        return 0
    merged = isa_params.fixpipe_nz_block_cols(element_bits(elem), False)
    return merged if merged > isa.FIXPIPE_N_SIZE_MULTIPLE else 0


def _target_of(op):
    return pto.target_of(op)
