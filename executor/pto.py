"""Interpreter functions of the `pto` dialect (Ascend cube path and vector GatherMask).

One `PtoFunctions` instance owns the simulated `Memory` of one core. Tile values are
`memory.Tile`s (numpy views of the space byte arrays), GM values numpy arrays, sizes Python ints.
The numpy work is in `executor/kernels.py`; this module decodes each op once (types, flags, operand
positions, cached in `_decoded` by op) and dispatches, so the per-op Python overhead stays small.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Operation

from mmair.dialects import pto
from mmair.executor import kernels
from mmair.executor.errors import ExecutionError
from mmair.executor.memory import Memory, Tile


def _name(value) -> str:
    hint = value.name_hint
    return f"%{hint}" if hint else ""


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
    """`executor.multicore.Launch` of a multi-core run (None: one core, sync_all is a no-op)."""

    # ---- multi-core ------------------------------------------------------------------------

    @impl(pto.BlockIdxOp)
    def run_block_idx(self, interp: Interpreter, op: pto.BlockIdxOp, args: PythonValues) -> PythonValues:
        return (self.block,)

    @impl(pto.BlockNumOp)
    def run_block_num(self, interp: Interpreter, op: pto.BlockNumOp, args: PythonValues) -> PythonValues:
        return (self.blocks,)

    # Sync checker off: every op runs at once in program order, so flags order nothing more
    # (with the checker on, the issue seam handles these ops before these implementations).
    @impl(pto.SetFlagOp)
    def run_set_flag(self, interp: Interpreter, op: Any, args: PythonValues) -> PythonValues:
        return ()

    @impl(pto.WaitFlagOp)
    def run_wait_flag(self, interp: Interpreter, op: Any, args: PythonValues) -> PythonValues:
        return ()

    @impl(pto.PipeBarrierOp)
    def run_pipe_barrier(self, interp: Interpreter, op: Any, args: PythonValues) -> PythonValues:
        return ()

    @impl(pto.SyncAllOp)
    def run_sync_all(self, interp: Interpreter, op: pto.SyncAllOp, args: PythonValues) -> PythonValues:
        if self.launch is not None:
            self.launch.sync_all(self.block, op, interp)
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
        kernels.mte_gm_l1(gm, dst, rows, cols, op.dn2nz is not None)
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
        return op.disable_gemv is not None and self.memory.target.gemv_disable

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
            )
        layout, quant, relu, has_scalar, has_vector = decoded
        src, dst, m, n, *extra = args
        word = extra[0] if has_scalar else None
        vector = extra[-1] if has_vector else None
        kernels.fixpipe(src, dst, m, n, layout, quant, relu, word, vector)
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
