"""`mmair-lower`: the pipeline that makes any mmair IR executable by `mmair-run`.

The executor interprets the hardware-level ops (pto tile ops, tcgen05 with materialized
descriptor words, func/scf/arith/memref) and nothing above them: every higher-level op has a
lowering here, and the executor carries no second implementation of it. In order:

1. `pto-tile-matmul`: `pto.matmul` -> tiled loops of GM->L1->L0 moves, `mad`/`mad_acc` and `fixpipe`,
   with the tiles the cost model chooses and ping-pong slots of the reloaded tiles where they win
   (`multi-buffer=2`, the default here; `multi-buffer=1` for one slot each);
2. `pto-assign-addresses`: a static byte offset for every `pto.alloc` (with reuse of dead tiles);
3. `pto-insert-sync`: the `set_flag` / `wait_flag` / `pipe_barrier` the pipes need, last among the
   pto passes so that bytes reused by address assignment are ordered too;
4. `tcgen05-lower-matmul`: `tcgen05.matmul` -> the TMA-fed, SMEM-ring tcgen05 kernel of its plan
   (docs/tcgen05-tma.md, "The tcgen05.matmul lowering");
5. `tcgen05-materialize-descriptors`: `tcgen05.make_*` descriptor ops -> the integer words.

Steps 2 and 3 run only on the functions that held a `pto.matmul`. A function written at pipe
level is left as its author wrote it: `mmair-run` applies this pipeline to any module it cannot run
as it is (say, one that also holds a `tcgen05.make_*` or a `pto.matmul` elsewhere), and it must
then report that function's missing flags, not silently add them, nor add address reuse its author
never synchronised (the executor places an alloc without an offset at a fresh address). Run
`-p pto-assign-addresses,pto-insert-sync` to treat such a function too.

    mmair-opt kernel.mlir -p mmair-lower          # or -p 'mmair-lower{target=a5 multi-buffer=2}'
    mmair-opt kernel.mlir -p 'mmair-lower{tile-m=128 tile-n=256 tile-k=64 multi-buffer=2}'
    mmair-opt kernel.mlir -p 'mmair-lower{cta-group=2}'     # tcgen05: the CTA-pair kernel
    mmair-run kernel.mlir -p mmair-lower --check-numpy
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from mmair.dialects import pto
from mmair.passes.pass_errors import resolve_target
from mmair.passes.pto_assign_addresses import assign_function
from mmair.passes.pto_insert_sync import insert_sync_functions
from mmair.passes.pto_tile_matmul import PtoTileMatmulPass


def _tcgen05_lower_matmul(cta_group: int) -> ModulePass:
    module = import_module("mmair.passes.tcgen05_lower_matmul")  # lazy: tcgen05 only
    return module.Tcgen05LowerMatmulPass(cta_group=cta_group)


def _tcgen05_materialize() -> ModulePass:
    module = import_module("mmair.passes.tcgen05_materialize_descriptors")  # lazy: tcgen05 only
    return module.Tcgen05MaterializeDescriptorsPass()


@dataclass(frozen=True)
class MmairLowerPass(ModulePass):
    """Lower any mmair IR to what mmair-run executes: pto-tile-matmul, then pto-assign-addresses
    and pto-insert-sync on the functions that held a pto.matmul, then tcgen05-lower-matmul and
    tcgen05-materialize-descriptors.

    The module docstring has the details."""

    name = "mmair-lower"

    target: str | None = None
    """Ascend target; sets the module's `pto.target` when it has none (default: the module's)."""

    multi_buffer: int = 2
    """Slots per reloaded tile in `pto-tile-matmul`: up to 2 by default (double buffering where
    the cost model estimates it faster, `passes/matmul_choice.py`; it never loses to single
    buffering); 1 keeps one slot per tile."""

    blocks: int = 1
    """Cores of the launch in `pto-tile-matmul`: > 1 splits the output tiles by block index."""

    tile_m: int = 0
    tile_n: int = 0
    tile_k: int = 0
    tile_k_l1: int = 0
    """Tile sizes of `pto-tile-matmul` (0: chosen by it), so that a tuned configuration is one
    `-p 'mmair-lower{tile-m=... tile-n=... tile-k=... multi-buffer=...}'`."""

    l0_slots: int = 0
    """`pto-tile-matmul`'s slots of L0A / L0B (0: chosen by the cost model, 1, 2)."""

    l1_slots: int = 0
    l0c_slots: int = 0
    """`pto-tile-matmul`'s slots of the L1 tiles of A and B, and of L0C (0: chosen, 1, 2)."""

    tile_m_l1: int = 0
    tile_n_l1: int = 0
    """`pto-tile-matmul`'s L1 tiles in M and N (0: tile-m / tile-n; else multiples of them)."""

    swizzle: int = 0
    """`pto-tile-matmul`'s order of a split kernel's output tiles (0: chosen, 1: row-major,
    s > 1: CATLASS-style strips of s tile rows)."""

    tiling: str = "model"
    """`pto-tile-matmul`'s choice of automatic sizes: "model" (the cost model) or "rule"."""

    cta_group: int = 1
    """`tcgen05-lower-matmul`'s kernel: 1 (one CTA) or 2 (a CTA pair, `cta_group::2`)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        lowered = frozenset(
            f.sym_name.data for f in op.walk()
            if isinstance(f, func.FuncOp) and any(isinstance(o, pto.MatmulOp) for o in f.walk())
        )
        PtoTileMatmulPass(target=self.target, tile_m=self.tile_m, tile_n=self.tile_n,
                          tile_k=self.tile_k, tile_k_l1=self.tile_k_l1,
                          multi_buffer=self.multi_buffer, blocks=self.blocks,
                          l0_slots=self.l0_slots, l1_slots=self.l1_slots,
                          l0c_slots=self.l0c_slots, tile_m_l1=self.tile_m_l1,
                          tile_n_l1=self.tile_n_l1, swizzle=self.swizzle,
                          tiling=self.tiling).apply(ctx, op)
        resolve_target(op, self.target, self.name)
        functions = [f for f in op.walk()
                     if isinstance(f, func.FuncOp) and f.sym_name.data in lowered]
        for function in functions:
            assign_function(function, pto.target_of(function))
        insert_sync_functions(op, lowered)
        if any(o.name == "tcgen05.matmul" for o in op.walk()):
            _tcgen05_lower_matmul(self.cta_group).apply(ctx, op)
        _tcgen05_materialize().apply(ctx, op)
