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
than its dimension rounded up to g is clamped to that). All sizes are
multiples of the granularity g = lcm(16, C0 of both operands, the transpose block of a hardware
transposed operand): 16 for f16/bf16/f32, 32 for 8-bit, 64 for 4-bit types. Automatic tiles
are tile-m = tile-n = min(128, M or N rounded up to g) (tile-m: but see one-row panels above)
and the largest tile-k (a multiple of g, at
most K rounded up, at most 4095) whose A and B tiles fit L0A and L0B. Given tiles are checked:
a tile that does not fit L0A, L0B, L0C or L1 is an error naming the buffer, the bytes it needs and
the capacity.

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
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from math import lcm

from xdsl.context import Context
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import (
    ArrayAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    f32,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from mmair.dialects import pto
from mmair.isa.ascend import layouts as isa_layouts
from mmair.isa.ascend import params as isa_params
from mmair.isa.ascend import pipes as isa_pipes
from mmair.isa.ascend import targets as isa
from mmair.isa.ascend.targets import Target
from mmair.passes.multi_buffer import constant_index, innermost_loop, multi_buffer

AUTO_TILE_MN = 128  # preferred tile-m and tile-n: a 128 x 128 f32 L0C tile is 64 KB
MAX_TILE = isa.MMAD_MNK_RANGE[1]  # m, n, k of one mad / move


class PassOpError(PassFailedException):
    """A pass failure caused by one operation; `op` locates it and the message names the op."""

    def __init__(self, op: Operation, message: str) -> None:
        super().__init__(f"'{op.name}' op {message}")
        self.op = op


def resolve_target(module: ModuleOp, option: str | None, pass_name: str) -> None:
    """Apply a pass's `target` option: set the module's `pto.target` when absent; a different
    existing value or an unknown name is an error."""
    if option is None:
        return
    if option not in isa.TARGET_NAMES:
        raise PassFailedException(
            f"{pass_name}: requires target in [{', '.join(isa.TARGET_NAMES)}], got {option}"
        )
    current = module.attributes.get(pto.TARGET_ATTR)
    if current is None:
        module.attributes[pto.TARGET_ATTR] = StringAttr(option)
    elif not (isinstance(current, StringAttr) and current.data == option):
        raise PassFailedException(
            f"{pass_name}: target={option} differs from the module's {pto.TARGET_ATTR} = {current}"
        )


def _round_up(x: int, g: int) -> int:
    return -(-x // g) * g


# ----------------------------------------------------------------------------------------------
# Planning (no IR): tile sizes, layouts and reuse
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Buffer:
    """One on-chip buffer of the lowered matmul: what it holds and its tile shape."""

    role: str  # "A", "B", "C", "bias" (what the message calls it)
    space: str
    shape: tuple[int, int]
    element: str
    layout: str

    def footprint(self) -> int:
        return isa_layouts.footprint_bytes(self.layout, self.shape, self.element, self.space)

    def describe(self) -> str:
        r, c = self.shape
        kind = "row" if self.role == "bias" else "tile"
        return f"{self.role} {kind} {r}x{c}x{self.element} ({self.layout})"


@dataclass(frozen=True)
class MatmulPlan:
    """How one `pto.matmul` is tiled; everything the IR emission needs."""

    target: Target
    m: int
    n: int
    k: int
    lhs: str
    rhs: str
    out: str
    acc: str
    quant: str
    transpose_a: bool
    transpose_b: bool
    bias: bool
    tm: int
    tn: int
    tk: int
    granularity: int
    a_panel: bool  # A row panel (tm x K) resident in L1 across the j loop
    b_whole: bool  # all of B resident in L1
    multi_buffer: int = 1  # slots of each tile reloaded in a loop (the `multi-buffer` option)
    single_c: bool = False  # L0C (and the bias) keep one slot: multi_buffer of them do not fit
    blocks: int = 1  # > 1: output tiles split over the cores by block index (the `blocks` option)

    @property
    def a_dn2nz(self) -> bool:
        """A^T in GM loaded with DN2NZ straight into Nz of A."""
        return self.transpose_a and self.target.dn2nz

    @property
    def a_staged_transposed(self) -> bool:
        """L1 holds A^T (Nz; Zz for b32) and the move to L0A transposes it (`transpose`)."""
        return self.transpose_a and not self.target.dn2nz

    @property
    def gemv_row(self) -> bool:
        """The last M panel has one row (M mod tile-m = 1): its mads run with m = 1, which the
        cube executes as GEMV (isa params.gemv_active)."""
        return self.m % self.tm == 1

    @property
    def disable_gemv(self) -> bool:
        """One-row panels keep the zz/nz L0A with `disable_gemv` (targets that have it, a5)."""
        return self.gemv_row and self.target.gemv_disable

    @property
    def gemv_nd(self) -> bool:
        """One-row panels take the GEMV path: A's row as an nd vector in L1 and L0A."""
        return self.gemv_row and not self.target.gemv_disable

    @property
    def trips(self) -> tuple[int, int, int]:
        return -(-self.m // self.tm), -(-self.n // self.tn), -(-self.k // self.tk)

    # -- buffers ---------------------------------------------------------------------------

    def a_l1(self) -> Buffer:
        kk = _round_up(self.k, self.granularity) if self.a_panel else self.tk
        if self.m == 1 and self.gemv_nd:
            return self.a_row_buffers()[0]
        if self.a_staged_transposed:  # A^T, in the layout the transposing load reads (b32: zz)
            return Buffer("A", "l1", (kk, self.tm), self.lhs,
                          isa_params.a_l1_layout_for_transpose(self.lhs))
        return Buffer("A", "l1", (self.tm, kk), self.lhs, "nz")

    def b_l1(self) -> Buffer:
        g = self.granularity
        kk = _round_up(self.k, g) if self.b_whole else self.tk
        nn = _round_up(self.n, g) if self.b_whole else self.tn
        if self.transpose_b:
            return Buffer("B", "l1", (nn, kk), self.rhs, "nz")
        return Buffer("B", "l1", (kk, nn), self.rhs, isa_params.b_l1_layout_for_transpose(self.rhs))

    def a_l0a(self) -> Buffer:
        if self.m == 1 and self.gemv_nd:
            return self.a_row_buffers()[1]
        return Buffer("A", "l0a", (self.tm, self.tk), self.lhs, self.target.l0a_layout)

    def a_row_buffers(self) -> tuple[Buffer, Buffer]:
        """(L1, L0A) nd buffers of the peeled one-row panel (M > 1 with M mod tile-m = 1)."""
        kk = _round_up(self.k, self.granularity) if self.a_panel else self.tk
        frac = isa.FRACTAL_BYTES * 8 // isa.element_bits(self.lhs)  # LoadData moves whole fractals
        # a resident panel is read from k-slice starts that are not fractal aligned: one more
        # fractal keeps the last whole-fractal read inside the buffer
        slack = frac if self.a_panel else 0
        return (Buffer("A", "l1", (1, _round_up(kk, frac) + slack), self.lhs, "nd"),
                Buffer("A", "l0a", (1, _round_up(self.tk, frac)), self.lhs, "nd"))

    def b_l0b(self) -> Buffer:
        return Buffer("B", "l0b", (self.tk, self.tn), self.rhs, "zn")

    def c_l0c(self) -> Buffer:
        return Buffer("C", "l0c", (self.tm, self.tn), self.acc, "nz")

    def bias_l1(self) -> Buffer:
        return Buffer("bias", "l1", (1, self.tn), self.acc, "nd")

    def bias_bt(self) -> Buffer:
        return Buffer("bias", "bt", (1, self.tn), self.acc, "nd")

    def buffers(self) -> list[Buffer]:
        found = [self.a_l1(), self.b_l1(), self.a_l0a(), self.b_l0b(), self.c_l0c()]
        if self.bias:
            found += [self.bias_l1(), self.bias_bt()]
        return found

    def reload_trips(self, buf: Buffer) -> int:
        """Trips of the innermost loop that reloads `buf` each iteration (1: loaded once).

        A tile is written in the loop nest where its load sits: A and B tiles in the k loop,
        or, with one k tile, in the j loop (B) and the i loop (A, moved once per i); the A row
        panel once per i; the whole of B once; L0C and the bias once per (i, j)."""
        mt, nt, kt = self.trips

        def innermost(*trips: int) -> int:
            return next((t for t in trips if t > 1), 1)

        if buf.role == "A":
            return mt if self.a_panel and buf.space == "l1" else innermost(kt, mt)
        if buf.role == "B":
            return 1 if self.b_whole and buf.space == "l1" else innermost(kt, nt, mt)
        return innermost(nt, mt)  # C, bias

    def slots(self, buf: Buffer) -> int:
        """Copies of `buf` that the lowering allocates: `multi_buffer` for a tile reloaded in a
        loop (ping-pong between iterations), else 1."""
        if self.multi_buffer == 1 or self.reload_trips(buf) == 1:
            return 1
        if self.single_c and buf.role in ("C", "bias"):
            return 1
        return self.multi_buffer


def granularity(target: Target, lhs: str, rhs: str, transpose_a: bool, transpose_b: bool) -> int:
    """The multiple every tile size must be: fractal rows (16), both operands' C0 (so k tiles and
    column starts fall on fractal boundaries) and the transpose block of a hardware-transposed
    operand (its padded extents must be whole blocks)."""
    g = isa.M0
    hw_a, hw_b = pto.matmul_hardware_transposes(target, transpose_a, transpose_b)
    for elem, hw in ((lhs, hw_a), (rhs, hw_b)):
        g = lcm(g, isa.c0_elements(elem, "l1"))
        if hw:
            g = lcm(g, isa.transpose_block_elements(elem))
    return g


def _overflows(plan: MatmulPlan) -> list[tuple[str, str, int, int]]:
    """(space, description, bytes needed, capacity) for every space the plan's buffers overflow."""
    cap = plan.target.capacity
    per_space: dict[str, list[Buffer]] = {space: [] for space in ("l0a", "l0b", "l0c", "bt", "l1")}
    for buf in plan.buffers():
        per_space.setdefault(buf.space, []).append(buf)
    problems = []
    for space, bufs in per_space.items():  # the L0 buffers first: they bound the tiles
        if not bufs:
            continue
        need = sum(b.footprint() * plan.slots(b) for b in bufs)
        capacity = cap[space]
        assert capacity is not None
        if need > capacity:
            if len(bufs) == 1 and plan.slots(bufs[0]) == 1:
                what = f"the {bufs[0].describe()} needs"
            else:
                what = " + ".join(
                    f"{b.describe()} {_times(plan.slots(b))}{b.footprint()} B" for b in bufs
                ) + " need"
            problems.append((space, what, need, capacity))
    return problems


def _times(slots: int) -> str:
    return f"{slots} x " if slots > 1 else ""


def plan_matmul(
    op: pto.MatmulOp, target: Target, tile_m: int = 0, tile_n: int = 0, tile_k: int = 0,
    multi_buffer: int = 1, blocks: int = 1,
) -> MatmulPlan:
    """Choose the tiles and the reuse for a verified `op` (0 = automatic tile size) with
    `multi_buffer` slots per reloaded tile, its output tiles split over `blocks` cores. Raises
    PassOpError when a given tile is not a legal multiple or does not fit its buffers."""
    m, n, k = op.problem()
    lhs, rhs, out = op.element_names()
    acc = pto.matmul_accumulator(target, lhs, rhs)
    assert acc is not None, "verified"
    quant = pto.matmul_output_types(target, acc)[out]
    ta, tb = op.is_transpose_a, op.is_transpose_b
    g = granularity(target, lhs, rhs, ta, tb)
    limit = MAX_TILE // g * g
    for name, value in (("tile-m", tile_m), ("tile-n", tile_n), ("tile-k", tile_k)):
        if value < 0 or value % g or value > limit:
            raise PassOpError(
                op,
                f"requires {name} to be 0 (automatic) or a multiple of {g} in [{g}, {limit}] for "
                f"({lhs}, {rhs}) on target {target.name}, got {value}",
            )
    # A tile never needs to be larger than its dimension rounded up to g.
    if blocks < 1 or blocks > isa_pipes.CUBE_CORES[target.name]:
        raise PassOpError(
            op,
            f"requires blocks in [1, {isa_pipes.CUBE_CORES[target.name]}] (the AI Cores of "
            f"target {target.name}), got {blocks}",
        )
    tm = min(tile_m or AUTO_TILE_MN, _round_up(m, g))
    tn = min(tile_n or AUTO_TILE_MN, _round_up(n, g))
    # Split over cores: automatic tile sizes shrink (the larger first, down to g) until every
    # core gets at least one output tile.
    while blocks > 1 and -(-m // tm) * -(-n // tn) < blocks:
        if not tile_m and tm > g and (tm >= tn or tile_n or tn <= g):
            tm = _round_up(tm // 2, g)
        elif not tile_n and tn > g:
            tn = _round_up(tn // 2, g)
        else:
            break
    if multi_buffer < 1:
        raise PassOpError(op, f"requires multi-buffer >= 1, got {multi_buffer}")
    split = blocks > 1

    def make(tk: int, a_panel: bool = False, b_whole: bool = False,
             tiles_mn: tuple[int, int] | None = None) -> MatmulPlan:
        rows, cols = tiles_mn or (tm, tn)
        plan = MatmulPlan(
            target, m, n, k, lhs, rhs, out, acc, quant, ta, tb, op.bias is not None,
            rows, cols, tk, g, a_panel and not split, b_whole, multi_buffer, blocks=blocks,
        )
        # Ping-pong L0C only where its slots (and the bias's) fit: it overlaps the fixpipe of
        # one C tile with the mads of the next, a smaller gain than the operand slots.
        if any(space in ("l0c", "bt") for space, *_ in _overflows(plan)):
            plan = replace(plan, single_c=True)
        return plan

    # The peeled GEMV row of a split kernel would run on every core: avoid a one-row panel.
    if (ta or split) and m > 1 and m % tm == 1 and not target.gemv_disable:
        # A one-row panel must run as GEMV (nd vector in L0A), but its row is a strided column
        # of A^T in GM, which no ND2NZ setting gathers into a contiguous vector: choose tile-m so
        # that no panel has one row.
        if tile_m:
            raise PassOpError(
                op,
                f"tile-m = {tile_m} leaves a one-row panel of the "
                f"{'transposed A' if ta else 'A of a kernel split over blocks'} (M = {m}), which "
                f"must run as GEMV on target {target.name} and "
                f"{'cannot be loaded as an nd vector from A^T' if ta else 'is not split'}; "
                f"choose a tile-m with M mod tile-m != 1",
            )
        # The nearest multiple of g below the preferred tile-m, else above it (when every
        # smaller one divides M - 1, e.g. M = 385 with g = 32), whose tiles fit with the
        # smallest tile-k; an automatic tile-n shrinks when the C tile of a larger tile-m needs
        # it. (A single panel of all M rows avoids the one-row panel too, but its C tile can
        # overflow L0C and its m exceed one mad.)
        candidates = [t for t in range(tm - g, 0, -g) if m % t != 1]
        candidates += [t for t in range(tm + g, min(_round_up(m, g), limit) + 1, g)
                       if m % t != 1]
        columns = range(tn, 0, -g) if not tile_n else [tn]
        found = next(((t, c) for t in candidates for c in columns
                      if not _overflows(make(g, tiles_mn=(t, c)))), None)
        if found is None:
            smallest = min(candidates, default=None)
            why = ""
            if smallest is not None:
                space, what, need, capacity = _overflows(make(g, tiles_mn=(smallest, tn)))[0]
                why = (f": with the smallest, tile-m = {smallest}, {what} {need} bytes, {space} "
                       f"capacity {capacity} bytes")
            raise PassOpError(
                op,
                f"has no tile-m that avoids a one-row panel of the "
                f"{'transposed A' if ta else 'A of a kernel split over blocks'} (M = {m}, "
                f"M mod tile-m != 1, a multiple of {g} in [{g}, {limit}]) and fits the buffers "
                f"of target {target.name} with tile-n = {tn}{why}",
            )
        tm, tn = found

    if tile_k:
        tk = min(tile_k, _round_up(k, g))
    else:
        tk = min(_round_up(k, g), limit)
        while tk > g and _overflows(make(tk)):
            tk -= g
    plan = make(tk)
    problems = _overflows(plan)
    if problems:
        space, what, need, capacity = problems[0]
        given = ", ".join(
            f"{name} = {v}"
            for name, v in (("tile-m", tm), ("tile-n", tn), ("tile-k", tk))
        )
        raise PassOpError(
            op,
            f"tiles {given} do not fit {space}: {what} {need} bytes, {space} capacity "
            f"{capacity} bytes on target {target.name}",
        )
    return _choose_reuse(plan, make)


def _choose_reuse(plan: MatmulPlan, make: Callable[..., MatmulPlan]) -> MatmulPlan:
    """The reuse (A panel, whole B) that saves the most GM loads among those that fit."""
    mt, nt, kt = plan.trips
    tiles = mt * nt * kt
    ranges = plan.target.nd2nz_ranges(plan.a_dn2nz)
    plain = plan.target.nd2nz_ranges()

    def loads_fit(candidate: MatmulPlan) -> bool:
        # The static extents of whole-panel loads must be in the ND2NZ field ranges.
        if candidate.a_panel:
            rng = ranges if candidate.a_dn2nz else plain
            if candidate.a_staged_transposed and plan.k > rng["n_value"][1]:
                return False
            if not candidate.a_staged_transposed and plan.k > rng["d_value"][1]:
                return False
        if candidate.b_whole:
            rows, cols = (plan.n, plan.k) if plan.transpose_b else (plan.k, plan.n)
            if rows > plain["n_value"][1] or cols > plain["d_value"][1]:
                return False
        return True

    best = plan
    best_saving = 0
    for a_panel, b_whole in ((True, True), (True, False), (False, True)):
        if a_panel and plan.blocks > 1:  # a split kernel has no i loop to keep a panel over
            continue
        saving = (tiles - mt if a_panel else 0) + (tiles - 1 if b_whole else 0)
        if saving <= best_saving:
            continue
        candidate = make(plan.tk, a_panel, b_whole)
        if not _overflows(candidate) and loads_fit(candidate):
            best, best_saving = candidate, saving
    return best


# ----------------------------------------------------------------------------------------------
# IR emission
# ----------------------------------------------------------------------------------------------

Index = int | SSAValue  # a static or runtime index


class _Emitter:
    """Appends ops to a block (or before an anchor op); index constants go to the root emitter's
    position, so they dominate every loop of the nest."""

    def __init__(self, block: Block, before: Operation | None, root: _Emitter | None = None):
        self.block = block
        self.before = before
        self.root = root or self
        self.constants: dict[int, SSAValue] = {} if root is None else root.constants
        self.first: Operation | None = None  # of the root: constants go before it

    def emit(self, op: Operation, name: str | None = None) -> Operation:
        if self.first is None:
            self.first = op
        if self.before is not None:
            self.block.insert_op_before(op, self.before)
        else:
            self.block.add_op(op)
        if name is not None and op.results:
            op.results[0].name_hint = name
        return op

    def value(self, v: Index) -> SSAValue:
        if isinstance(v, SSAValue):
            return v
        found = self.constants.get(v)
        if found is None:
            const = arith.ConstantOp(IntegerAttr(v, IndexType()))
            const.result.name_hint = f"c{v}"
            root = self.root
            if root.first is None:
                root.emit(const)
            else:
                root.block.insert_op_before(const, root.first)
            found = self.constants[v] = const.result
        return found

    def nested(self, block: Block) -> _Emitter:
        return _Emitter(block, None, self.root)


def _alloc(em: _Emitter, buf: Buffer, elem_types: dict[str, Attribute], name: str) -> SSAValue:
    tile = pto.TileType(buf.space, buf.shape, elem_types[buf.element], buf.layout)
    return em.emit(pto.AllocOp(tile), name).results[0]


def _window(
    em: _Emitter, source: SSAValue, offsets: Sequence[Index], sizes: Sequence[Index], name: str
) -> SSAValue:
    """`memref.subview` of GM (the source itself when the window is all of it)."""
    src_type = source.type
    assert isinstance(src_type, MemRefType)
    if all(o == 0 for o in offsets) and tuple(sizes) == tuple(src_type.get_shape()):
        return source
    ones = [1] * len(offsets)
    result_type = memref.SubviewOp.infer_result_type(src_type, offsets, sizes, ones)
    dyn_offsets = [o for o in offsets if isinstance(o, SSAValue)]
    dyn_sizes = [s for s in sizes if isinstance(s, SSAValue)]
    static_offsets = [memref.DYNAMIC_INDEX if isinstance(o, SSAValue) else o for o in offsets]
    static_sizes = [memref.DYNAMIC_INDEX if isinstance(s, SSAValue) else s for s in sizes]
    op = memref.SubviewOp(
        source, dyn_offsets, dyn_sizes, [], static_offsets, static_sizes, ones, result_type
    )
    return em.emit(op, name).results[0]


def _loop(
    em: _Emitter,
    extent: int,
    step: int,
    iv_name: str,
    size_name: str,
    body: Callable[[_Emitter, Index, Index], None],
) -> None:
    """for iv in range(0, extent, step): body(em, iv, min(step, extent - iv)). One trip is
    straight-line code with iv = 0; the size is a constant when step divides extent."""
    if extent <= step:
        body(em, 0, extent)
        return
    block = Block(arg_types=[IndexType()])
    iv = block.args[0]
    iv.name_hint = iv_name
    loop = scf.ForOp(em.value(0), em.value(extent), em.value(step), [], block)
    em.emit(loop)
    inner = em.nested(block)
    if extent % step == 0:
        size: Index = step
    else:
        rest = inner.emit(arith.SubiOp(inner.value(extent), iv), f"{iv_name}_rest").results[0]
        size = inner.emit(arith.MinSIOp(inner.value(step), rest), size_name).results[0]
    body(inner, iv, size)
    block.add_op(scf.YieldOp())


def _start(em: _Emitter, start: tuple[Index, Index]) -> tuple[SSAValue, SSAValue] | None:
    """A source start operand pair, or None for the default [0, 0]."""
    if start == (0, 0):
        return None
    return em.value(start[0]), em.value(start[1])


def lower_matmul(op: pto.MatmulOp, plan: MatmulPlan) -> list[tuple[Buffer, pto.AllocOp]]:
    """Replace `op` by the loop nest of `plan` (allocs, loads, mads and fixpipes before it), with
    one slot per buffer; returns the buffers and their allocs."""
    block = op.parent_block()
    assert block is not None
    root = _Emitter(block, op)
    elem_types: dict[str, Attribute] = {}
    for value, elem in ((op.a, plan.lhs), (op.b, plan.rhs), (op.c, plan.out)):
        t = value.type
        assert isinstance(t, MemRefType)
        elem_types[elem] = t.element_type
    if plan.bias:
        assert op.bias is not None and isinstance(op.bias.type, MemRefType)
        elem_types[plan.acc] = op.bias.type.element_type
    elif plan.acc not in elem_types:
        elem_types[plan.acc] = pto_element_type(plan.acc)
    allocs: list[tuple[Buffer, SSAValue]] = []

    def alloc(buf: Buffer, name: str) -> SSAValue:
        allocs.append((buf, _alloc(root, buf, elem_types, name)))
        return allocs[-1][1]

    a_l1 = alloc(plan.a_l1(), "a_l1")
    b_l1 = alloc(plan.b_l1(), "b_l1")
    a_l0a = alloc(plan.a_l0a(), "a_l0a")
    b_l0b = alloc(plan.b_l0b(), "b_l0b")
    c_l0c = alloc(plan.c_l0c(), "c_l0c")
    bias_l1 = bias_bt = None
    if plan.bias:
        bias_l1 = alloc(plan.bias_l1(), "bias_l1")
        bias_bt = alloc(plan.bias_bt(), "bias_bt")
    m, n, k = plan.m, plan.n, plan.k
    ta, tb = plan.transpose_a, plan.transpose_b
    a_gm = op.a
    if plan.gemv_nd and ta:  # M = 1: A^T[K, 1] is the row A[0, :] as one contiguous vector
        src_type = op.a.type
        assert isinstance(src_type, MemRefType) and m == 1
        flat = MemRefType(src_type.element_type, [k])
        assoc = ArrayAttr([ArrayAttr([IntegerAttr(0, i64), IntegerAttr(1, i64)])])
        collapse = memref.CollapseShapeOp(
            operands=[op.a], result_types=[flat], properties={"reassociation": assoc}
        )
        a_gm = root.emit(collapse, "a_row").results[0]
    gemv_path = plan.m == 1 and plan.gemv_nd  # the only panel is the GEMV row

    def load(em: _Emitter, src: SSAValue, dst: SSAValue, rows: Index, cols: Index,
             dn2nz: bool = False) -> None:
        em.emit(pto.MteGmL1Op(src, dst, em.value(rows), em.value(cols), dn2nz=dn2nz))

    if plan.b_whole:  # all of B, loaded once
        rows, cols = (n, k) if tb else (k, n)
        load(root, op.b, b_l1, rows, cols)

    # With one K tile the A tile in L0A is the same for every j: move it once per i.
    a_hoisted = plan.trips[2] == 1

    def emit_a(em: _Emitter, i: Index, ms: Index, kk: Index, ks: Index) -> None:
        """A[i:i+ms, kk:kk+ks] into L0A (from the resident panel, or through an L1 tile)."""
        a_start: tuple[SSAValue, SSAValue] | None = None
        if gemv_path:  # the GEMV row: an nd vector in L1 and L0A
            if plan.a_panel:
                a_start = _start(em, (0, kk))
            elif ta:
                load(em, _window(em, a_gm, [kk], [ks], "a_win"), a_l1, 1, ks)
            else:
                load(em, _window(em, op.a, [i, kk], [1, ks], "a_win"), a_l1, 1, ks)
            em.emit(pto.MteL1L0AOp(a_l1, a_l0a, em.value(1), em.value(ks), a_start))
            return
        if plan.a_panel:
            start = (kk, 0) if plan.a_staged_transposed else (0, kk)
            a_start = _start(em, start)
        elif ta:
            window = _window(em, op.a, [kk, i], [ks, ms], "a_win")
            if plan.a_dn2nz:
                load(em, window, a_l1, ms, ks, dn2nz=True)
            else:
                load(em, window, a_l1, ks, ms)
        else:
            window = _window(em, op.a, [i, kk], [ms, ks], "a_win")
            load(em, window, a_l1, ms, ks)
        em.emit(pto.MteL1L0AOp(a_l1, a_l0a, em.value(ms), em.value(ks), a_start,
                               transpose=plan.a_staged_transposed))

    def j_body(em: _Emitter, i: Index, ms: Index, j: Index, ns: Index) -> None:
        if plan.bias:
            assert op.bias is not None and bias_l1 is not None and bias_bt is not None
            rank = len(op.bias.type.get_shape())  # type: ignore[union-attr]
            offsets, sizes = ([j], [ns]) if rank == 1 else ([0, j], [1, ns])
            window = _window(em, op.bias, offsets, sizes, "bias_win")
            load(em, window, bias_l1, 1, ns)
            em.emit(pto.MteL1BtOp(bias_l1, bias_bt, em.value(ns)))

        def k_body(em: _Emitter, kk: Index, ks: Index) -> None:
            if not a_hoisted:
                emit_a(em, i, ms, kk, ks)
            b_start: tuple[SSAValue, SSAValue] | None = None
            if plan.b_whole:
                start = (j, kk) if tb else (kk, j)
                b_start = _start(em, start)
            elif tb:
                window = _window(em, op.b, [j, kk], [ns, ks], "b_win")
                load(em, window, b_l1, ns, ks)
            else:
                window = _window(em, op.b, [kk, j], [ks, ns], "b_win")
                load(em, window, b_l1, ks, ns)
            msv, nsv, ksv = em.value(ms), em.value(ns), em.value(ks)
            em.emit(pto.MteL1L0BOp(b_l1, b_l0b, ksv, nsv, b_start, transpose=tb))

            off = plan.disable_gemv  # a5: one-row panels read the nz L0A with GEMV off

            def first() -> Operation:
                if bias_bt is not None:
                    return pto.MadBiasOp(a_l0a, b_l0b, c_l0c, bias_bt, msv, nsv, ksv, off)
                return pto.MadOp(a_l0a, b_l0b, c_l0c, msv, nsv, ksv, off)

            if plan.trips[2] == 1:
                em.emit(first())
                return
            assert isinstance(kk, SSAValue)
            is_first = em.emit(
                arith.CmpiOp(kk, em.value(0), "eq"), "first"
            ).results[0]
            then_ops = [first(), scf.YieldOp()]
            else_ops = [pto.MadAccOp(a_l0a, b_l0b, c_l0c, msv, nsv, ksv, off), scf.YieldOp()]
            em.emit(scf.IfOp(is_first, [], Region(Block(then_ops)), Region(Block(else_ops))))

        _loop(em, k, plan.tk, "k", "ks", k_body)
        window = _window(em, op.c, [i, j], [ms, ns], "c_win")
        em.emit(pto.FixpipeOp(c_l0c, window, em.value(ms), em.value(ns), quant=plan.quant))

    def i_body(em: _Emitter, i: Index, ms: Index) -> None:
        if plan.a_panel and gemv_path:  # the GEMV row, loaded once
            window = _window(em, a_gm, [0], [k], "a_panel") if ta else \
                _window(em, op.a, [i, 0], [1, k], "a_panel")
            load(em, window, a_l1, 1, k)
        elif plan.a_panel:  # the A row panel, loaded once per i
            if ta:
                window = _window(em, op.a, [0, i], [k, ms], "a_panel")
                if plan.a_dn2nz:
                    load(em, window, a_l1, ms, k, dn2nz=True)
                else:
                    load(em, window, a_l1, k, ms)
            else:
                window = _window(em, op.a, [i, 0], [ms, k], "a_panel")
                load(em, window, a_l1, ms, k)

        if a_hoisted:
            emit_a(em, i, ms, 0, k)

        _loop(em, n, plan.tn, "j", "ns", lambda em, j, ns: j_body(em, i, ms, j, ns))

    def tile_body(em: _Emitter, t: SSAValue) -> None:
        """Output tile t (row-major over the Mt x Nt tiles) of a split kernel."""
        mt, nt, _ = plan.trips

        def start(tile: Index, size: int, dim: int, name: str, size_name: str
                  ) -> tuple[Index, Index]:
            if isinstance(tile, int):
                return 0, dim  # one tile: all of the dimension (as `_loop`)
            at = em.emit(arith.MuliOp(tile, em.value(size)), name).results[0]
            if dim % size == 0:
                return at, size
            rest = em.emit(arith.SubiOp(em.value(dim), at), f"{name}_rest").results[0]
            return at, em.emit(arith.MinSIOp(em.value(size), rest), size_name).results[0]

        ti: Index = 0 if mt == 1 else t if nt == 1 else \
            em.emit(arith.DivUIOp(t, em.value(nt)), "ti").results[0]
        tj: Index = 0 if nt == 1 else t if mt == 1 else \
            em.emit(arith.RemUIOp(t, em.value(nt)), "tj").results[0]
        i, ms = start(ti, plan.tm, m, "i", "ms")
        j, ns = start(tj, plan.tn, n, "j", "ns")
        if a_hoisted:
            emit_a(em, i, ms, 0, k)
        j_body(em, i, ms, j, ns)

    if plan.blocks > 1:
        # Block b computes output tiles b, b + block_num, ... (any launch size is covered).
        mt, nt, _ = plan.trips
        bid = root.emit(pto.BlockIdxOp(), "block").results[0]
        bnum = root.emit(pto.BlockNumOp(), "blocks").results[0]
        body = Block(arg_types=[IndexType()])
        body.args[0].name_hint = "t"
        root.emit(scf.ForOp(bid, root.value(mt * nt), bnum, [], body))
        tile_body(root.nested(body), body.args[0])
        body.add_op(scf.YieldOp())
    elif plan.gemv_nd and m > 1:
        # The last panel has one row: full panels in the loop, then the row on the GEMV path
        # with its own nd buffers (live after the loop only; not multi-buffered).
        _loop(root, m - 1, plan.tm, "i", "ms", i_body)
        row_l1, row_l0a = plan.a_row_buffers()
        a_l1 = _alloc(root, row_l1, elem_types, "a_row_l1")
        a_l0a = _alloc(root, row_l0a, elem_types, "a_row_l0a")
        gemv_path = True
        i_body(root, m - 1, 1)
    else:
        _loop(root, m, plan.tm, "i", "ms", i_body)
    op.detach()
    op.erase()
    found = []
    for buf, value in allocs:
        assert isinstance(value.owner, pto.AllocOp)
        found.append((buf, value.owner))
    return found


def multi_buffer_matmul(plan: MatmulPlan, allocs: Sequence[tuple[Buffer, pto.AllocOp]],
                        jam_l0c: bool = False) -> None:
    """Give every buffer of a lowered matmul `plan.slots(buffer)` ping-pong slots over the loop
    that reloads it (`multi_buffer`), innermost loops first: unrolling an outer loop clones the
    inner ones, whose slots are allocated outside the whole nest."""
    by_loop: dict[scf.ForOp, list[pto.AllocOp]] = {}
    for buf, alloc in allocs:
        if plan.slots(buf) == 1:
            continue
        loop = innermost_loop(alloc)
        if loop is None:  # its uses left one loop (a peeled last iteration): one slot
            continue
        if any(constant_index(v) is None for v in (loop.lb, loop.ub, loop.step)):
            continue  # the tile loop of a split kernel (block index bounds): one slot

        by_loop.setdefault(loop, []).append(alloc)

    def depth(loop: Operation) -> int:
        return 0 if loop.parent_op() is None else 1 + depth(loop.parent_op())  # type: ignore[arg-type]

    # `jam_l0c`: the loop of the L0C slots is jammed, one K loop feeds the chains of
    # `multi_buffer` output tiles, which the executor's pool can run side by side; on the
    # hardware the chains then share the operand slots, so loads overlap mads less
    # (docs/benchmarks.md).
    for loop in sorted(by_loop, key=depth, reverse=True):
        jam = jam_l0c and any(isinstance(a.buffer.type, pto.TileType) and a.buffer.type.space.data == "l0c"
                  for a in by_loop[loop])
        multi_buffer(by_loop[loop], loop, plan.multi_buffer, jam=jam)


def pto_element_type(name: str) -> Attribute:
    """The xDSL type of an accumulator element name (f32, s32)."""
    return {"f32": f32, "s32": i32}[name]


@dataclass(frozen=True)
class PtoTileMatmulPass(ModulePass):
    """Lower every `pto.matmul` to tiled cube loops (module docstring)."""

    name = "pto-tile-matmul"

    target: str | None = None
    """Ascend target; sets the module's `pto.target` when it has none (default: the module's)."""
    tile_m: int = 0
    tile_n: int = 0
    tile_k: int = 0
    multi_buffer: int = 1
    """Slots per tile reloaded in a loop: 2 ping-pongs L1, L0A/L0B (and L0C where two fit), so
    the loads of the next tile overlap the current mad (`mmair.passes.multi_buffer`)."""
    blocks: int = 1
    """Cores the kernel is written for: > 1 splits the output tiles over the cores of the launch
    by `pto.block_idx` (module docstring); at most the target's AI Cores."""
    jam_l0c: bool = False
    """With multi-buffer > 1: unroll-and-jam the loop of the L0C slots (`multi_buffer(jam=True)`),
    so that the K chains of consecutive output tiles are independent in every K step. For the
    executor's `--jobs` pool (two mads in flight); the estimated cycles can be worse, as the
    chains share the operand slots (docs/benchmarks.md)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        resolve_target(op, self.target, self.name)
        for matmul in [o for o in op.walk() if isinstance(o, pto.MatmulOp)]:
            target = pto.target_of(matmul)
            plan = plan_matmul(
                matmul, target, self.tile_m, self.tile_n, self.tile_k, self.multi_buffer,
                self.blocks,
            )
            allocs = lower_matmul(matmul, plan)
            multi_buffer_matmul(plan, allocs, self.jam_l0c)
