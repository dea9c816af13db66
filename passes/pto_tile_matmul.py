"""`pto-tile-matmul`: lower `pto.matmul` on GM operands to tiled loops of the cube pipeline.

The Ascend cube multiplies tiles held in small on-chip buffers, so a GEMM of any size is a loop nest
over tiles (docs/ascend.md and docs/design.md, the PTO NZ fractal flow):

    GM A --mte_gm_l1--> L1 (Nz of A) --mte_l1_l0a--> L0A (Zz; Nz on a5) --+
    GM B --mte_gm_l1--> L1 (Zz of B; Nz for b8/b4) --mte_l1_l0b--> L0B (Zn) -+--mad/mad_acc--> L0C (Nz)
    L0C --fixpipe nz2nd (+ f322f16 / f322bf16)--> GM C

    for i in M tiles:                  ms = min(tile-m, M - i)
      for j in N tiles:                ns = min(tile-n, N - j)
        [bias: GM -> L1 (nd) -> BT]
        for k in K tiles:              ks = min(tile-k, K - k)
          GM -> L1 tiles (windows = memref.subview with dynamic sizes), L1 -> L0A / L0B
          k == 0 ? mad (mad_bias) : mad_acc          K accumulates in L0C
        fixpipe L0C -> C[i:i+ms, j:j+ns]

Remainder tiles run with dynamic sizes smaller than the static tile (`arith.minsi`); a size is a
constant when the tile divides the dimension (or there is one tile), and a loop with one trip
becomes straight-line code. Padding lanes of partial fractals are ignored by `mad`.

Transposed operands (the GM memref holds A^T[K, M] or B^T[N, K]): A^T is loaded with DN2NZ into Nz
of A where the target has DN2NZ (a5), else staged as Nz of A^T and moved with `transpose`; B^T is
staged as Nz of B^T, which `mte_l1_l0b ... transpose` moves without a fractal transpose
(`pto.matmul_hardware_transposes`).

One-row panels (M mod tile-m = 1, M = 1 included) follow the GEMV rule of Mmad (with m = 1 the
cube reads L0A as an nd vector, `isa/ascend/params.gemv_active`): where the target has
`disable_gemv` (a5) the mads carry it and keep the nz L0A; elsewhere the last row is peeled off the
i loop and runs on the GEMV path (A's row as an nd vector in L1 and L0A, own buffers). A transposed
A of M > 1 rows cannot give a contiguous row (a strided GM column), so its automatic tile-m avoids
a one-row panel and a given one is an error; a transposed A of one row is contiguous in GM. The
avoiding tile-m is the nearest multiple of g below the automatic one whose tiles fit, else the
nearest above it (M = 385, g = 32: 32, 64, 96 and 128 all divide M - 1, tile-m = 160), with an
automatic tile-n shrunk where that C tile needs it; if none fits, an error names the smallest.

Tiles: the options `tile-m`, `tile-n`, `tile-k` fix a tile size (0 = automatic; a size larger
than its dimension rounded up to g is clamped to that), `tile-k-l1` the K of the L1 tiles: a
multiple of tile-k, so that L1 holds a K chunk that is loaded once and moved to L0A / L0B tile-k
at a time (the k loop becomes a chunk loop with a tile-k loop inside; CATLASS's L1 / L0 tiles).
All sizes are multiples of the granularity g = lcm(16, C0 of both operands, the transpose block
of a hardware transposed operand): 16 for f16/bf16/f32, 32 for 8-bit, 64 for 4-bit types.
Automatic sizes (`tiling=model`, the default) are the cost model's: `passes/matmul_choice.py`
estimates every legal plan (L1 and L0 tiles, chunk, slots of L1, L0A/L0B and L0C, the reuse
below, the tile order of a split kernel) from `isa/ascend/costs.py` and takes the fastest; with all of tile-m, tile-n and tile-k given the plan
is exactly theirs (no chunk unless tile-k-l1 is given). `tiling=rule` keeps the fixed rule:
tile-m = tile-n = min(128, M or N rounded up to g) (tile-m: but see one-row panels above) and the
largest tile-k (a multiple of g, at most K rounded up, at most 4095) whose A and B tiles fit L0A
and L0B. Given tiles are checked:
a tile that does not fit L0A, L0B, L0C or L1 is an error naming the buffer, the bytes it needs and
the capacity.

L1 tiles in M and N: `tile-m-l1` / `tile-n-l1` (multiples of tile-m / tile-n; 0 = the L0 tile)
make the output tile of the i / j loops an L1 tile of m1 x n1 that holds (m1 / tile-m) x
(n1 / tile-n) L0 tiles: per K range (a chunk, else tile-k) the L1 tiles of A (m1 rows) and B (n1
columns) are loaded from GM once and moved to L0A / L0B one L0 tile at a time (the `[row, col]`
source start of the moves), A once per row of L0 tiles and B for each L0 tile, as CATLASS's
block MMAD moves its L1 tile in L0TileShape parts. `mad` writes C[0:m, 0:n] of its L0C tile, so
each output sub-tile accumulates in an L0C tile of its own (m1 x n1 of L0C in all, as CATLASS's
L0C tile of L1TileShape::M x N) and has its own fixpipe; a bias row per sub-tile column is loaded
into its own BT tile. With two L0 slots the moves alternate between them move by move. In the last
L1 tile of a dimension that does not divide, the sub-tiles past its end are clamped to its last
one and computed again (same bits, same place): guarding them with `scf.if` would leave their
pipe ops out of the per-iteration sync chains. A one-row panel (M mod tile-m = 1) takes no L1
tile in M on targets without `disable_gemv` (an error when given).

Slots per buffer (with multi-buffer = 2): `l0-slots`, `l1-slots`, `l0c-slots` fix the slots of
L0A / L0B, of the reloaded A and B tiles of L1, and of L0C and the bias rows: 0 the cost model's
choice, 1 one slot, 2 two (`l0c-slots=2` is an error where two do not fit; 0 under `tiling=rule`
and with all tiles given keeps the rule of earlier releases, two where they fit).

Work split (blocks > 1): block b computes output tiles b, b + block_num, ...; `swizzle` orders
them: 1 row-major (earlier releases), s > 1 CATLASS's GemmIdentityBlockSwizzle<s, 0> (strips of s
tile rows walked column by column, every other strip right to left), so that the tiles the cores
run at the same time share A rows and B columns in L2; 0 (the default) lets the cost model
choose, which keeps 1 unless the operands exceed L2 (`matmul_choice._wave_misses`).

Operand reuse (L1 is 8x L0A, so whole operand panels often fit): with Mt x Nt x Kt tiles, plain
tiling loads Mt*Nt*Kt A tiles and as many B tiles from GM. The pass keeps, where L1 has room,
* the A row panel (tile-m x K) resident for the whole j loop: loaded once per i, its k-slices moved
  to L0A with the `[row, col]` source start of `mte_l1_l0a` (saves Mt*Nt*Kt - Mt loads), and/or
* all of B (K x N) resident for the whole nest: loaded once, moved with a `[k, j]` start (saves
  Mt*Nt*Kt - 1 loads).
Among the choices whose L1 buffers (plus the bias row) fit, it takes the one that saves the most
loads (both, else the larger saving, ties to the A panel). With a single K tile the L0A tile is the
same for every j, so A moves to L0A once per i, outside the j loop. Buffers are `pto.alloc`s without offsets,
inserted where the matmul was; `pto-assign-addresses` places them.

The pass has three parts: the plan (`passes/matmul_plan.py`: tiles, buffers, reuse, slots; no IR),
the IR the plan becomes (`passes/matmul_emit.py`) and the slots of reloaded buffers
(`passes/multi_buffer.py`). Its failures are `passes/pass_errors.PassOpError`s at the matmul.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from mmair.dialects import pto
from mmair.passes.matmul_choice import choose_plan
from mmair.passes.matmul_emit import lower_matmul, multi_buffer_matmul
from mmair.passes.matmul_plan import plan_matmul
from mmair.passes.pass_errors import resolve_target

TILINGS = ("model", "rule")
"""Values of the `tiling` option."""


@dataclass(frozen=True)
class PtoTileMatmulPass(ModulePass):
    """Lower every `pto.matmul` to tiled loops of GM -> L1 -> L0A/L0B moves, mads and fixpipes,
    with tiles that fit the target's buffers.

    The module docstring has the details."""

    name = "pto-tile-matmul"

    target: str | None = None
    """Ascend target; sets the module's `pto.target` when it has none (default: the module's)."""
    tile_m: int = 0
    tile_n: int = 0
    tile_k: int = 0
    tile_k_l1: int = 0
    """K of the L1 tiles (0: tile-k): a multiple of tile-k; L1 holds K chunks of this size, each
    loaded once and moved to L0A / L0B tile-k at a time."""
    multi_buffer: int = 1
    """Slots per tile reloaded in a loop: 2 ping-pongs L1, L0A/L0B (and L0C where two fit), so
    the loads of the next tile overlap the current mad (`mmair.passes.multi_buffer`)."""
    blocks: int = 1
    """Cores the kernel is written for: > 1 splits the output tiles over the cores of the launch
    by `pto.block_idx` (module docstring); at most the target's AI Cores."""
    l0_slots: int = 0
    """Slots of L0A / L0B with multi-buffer > 1: 0 chosen by the cost model, 1 one slot (L1 and
    L0C still ping-pong), 2 the multi-buffer slots."""
    l1_slots: int = 0
    """Slots of the reloaded A and B tiles of L1 with multi-buffer > 1: 0 chosen by the cost
    model, 1 one slot, 2 the multi-buffer slots."""
    l0c_slots: int = 0
    """Slots of L0C (and the bias rows) with multi-buffer > 1: 0 chosen by the cost model
    (`tiling=rule`: two where they fit), 1 one slot, 2 two (an error where they do not fit)."""
    tile_m_l1: int = 0
    tile_n_l1: int = 0
    """M / N of the L1 tiles (0: tile-m / tile-n): a multiple of tile-m / tile-n, so that L1
    holds several L0 tiles, loaded from GM once and moved to L0A / L0B tile by tile, each
    output sub-tile accumulating in an L0C tile of its own (module docstring, "L1 tiles")."""
    swizzle: int = 0
    """Order of a split kernel's output tiles (blocks > 1): 1 row-major, s > 1 strips of s tile
    rows walked column by column (CATLASS's GemmIdentityBlockSwizzle), 0 chosen by the cost
    model for L2 locality (1 where the estimates tie)."""
    tiling: str = "model"
    """How automatic sizes are chosen: "model" (the cost model's fastest plan,
    `passes/matmul_choice.py`) or "rule" (the fixed rule of the module docstring, "Tiles")."""
    jam_l0c: bool = False
    """With multi-buffer > 1: unroll-and-jam the loop of the L0C slots (`multi_buffer(jam=True)`),
    so that the K chains of consecutive output tiles are independent in every K step. For the
    executor's `--jobs` pool (two mads in flight); the estimated cycles can be worse, as the
    chains share the operand slots (docs/benchmarks.md)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        resolve_target(op, self.target, self.name)
        if self.tiling not in TILINGS:
            raise PassFailedException(
                f"{self.name}: tiling must be one of {', '.join(TILINGS)}, got '{self.tiling}'")
        for option, value in (("l0-slots", self.l0_slots), ("l1-slots", self.l1_slots),
                              ("l0c-slots", self.l0c_slots)):
            if value not in (0, 1, 2):
                raise PassFailedException(
                    f"{self.name}: {option} must be 0 (chosen), 1 or 2, got {value}")
        if self.swizzle < 0:
            raise PassFailedException(
                f"{self.name}: swizzle must be 0 (chosen) or a number of tile rows >= 1, got "
                f"{self.swizzle}")
        for matmul in [o for o in op.walk() if isinstance(o, pto.MatmulOp)]:
            target = pto.target_of(matmul)
            if self.tiling == "model":
                plan = choose_plan(matmul, target, self.tile_m, self.tile_n, self.tile_k,
                                   self.multi_buffer, self.blocks, self.tile_k_l1,
                                   l0_slots=self.l0_slots, l1_slots=self.l1_slots,
                                   l0c_slots=self.l0c_slots, tile_m_l1=self.tile_m_l1,
                                   tile_n_l1=self.tile_n_l1, swizzle=self.swizzle)
            else:
                plan = plan_matmul(matmul, target, self.tile_m, self.tile_n, self.tile_k,
                                   self.multi_buffer, self.blocks, self.tile_k_l1,
                                   self.l0_slots == 1, single_l1=self.l1_slots == 1,
                                   c_slots=self.l0c_slots, tile_m_l1=self.tile_m_l1,
                                   tile_n_l1=self.tile_n_l1, swizzle=self.swizzle or 1)
            allocs = lower_matmul(matmul, plan)
            multi_buffer_matmul(plan, allocs, self.jam_l0c)

