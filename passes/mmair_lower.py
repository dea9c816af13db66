"""`mmair-lower`: the pipeline that makes any mmair IR executable by `mmair-run`.

The executor interprets the hardware-level ops (pto tile ops, tcgen05 with materialized
descriptor words, func/scf/arith/memref) and nothing above them: every higher-level op has a
lowering here, and the executor carries no second implementation of it. In order:

1. `pto-tile-matmul`: `pto.matmul` -> tiled loops of GM->L1->L0 moves, `mad`/`mad_acc` and `fixpipe`
   (with `multi-buffer=2`, ping-pong slots of the reloaded tiles);
2. `pto-assign-addresses`: a static byte offset for every `pto.alloc` (with reuse of dead tiles);
3. `pto-insert-sync`: the `set_flag` / `wait_flag` / `pipe_barrier` the pipes need, last among the
   pto passes so that bytes reused by address assignment are ordered too;
4. `tcgen05-materialize-descriptors`: `tcgen05.make_*` descriptor ops -> the integer words.

    mmair-opt kernel.mlir -p mmair-lower          # or -p 'mmair-lower{target=a5 multi-buffer=2}'
    mmair-run kernel.mlir -p mmair-lower --check-numpy
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from mmair.passes.pto_assign_addresses import PtoAssignAddressesPass
from mmair.passes.pto_insert_sync import PtoInsertSyncPass
from mmair.passes.pto_tile_matmul import PtoTileMatmulPass


def _tcgen05_materialize() -> ModulePass:
    module = import_module("mmair.passes.tcgen05_materialize_descriptors")  # lazy: tcgen05 only
    return module.Tcgen05MaterializeDescriptorsPass()


@dataclass(frozen=True)
class MmairLowerPass(ModulePass):
    """pto-tile-matmul, pto-assign-addresses, pto-insert-sync, tcgen05-materialize-descriptors
    (module docstring)."""

    name = "mmair-lower"

    target: str | None = None
    """Ascend target; sets the module's `pto.target` when it has none (default: the module's)."""

    multi_buffer: int = 1
    """Slots per reloaded tile in `pto-tile-matmul` (2: double buffering)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PtoTileMatmulPass(target=self.target, multi_buffer=self.multi_buffer).apply(ctx, op)
        PtoAssignAddressesPass(target=self.target).apply(ctx, op)
        PtoInsertSyncPass(target=self.target).apply(ctx, op)
        _tcgen05_materialize().apply(ctx, op)
