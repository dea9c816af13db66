"""The plan of a tiled `pto.matmul` (no IR): tile sizes, granularity, buffers, reuse and slots.

`plan_matmul` turns a matmul, its target and the pass options into a `MatmulPlan`: the tile sizes
(given or automatic, multiples of the granularity g), the on-chip buffers with their layouts, which
operand panels stay resident in L1 (`_choose_reuse`: the choice that saves the most GM loads among
those that fit), the slots per buffer and the per-core split; a tile that does not fit its buffer is
an error naming the buffer, the bytes and the capacity. The rules are those of the
`pto-tile-matmul` docstring (passes/pto_tile_matmul.py); every capacity, alignment and fractal
fact comes from `isa/ascend`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache
from math import lcm

from mmair.dialects import pto
from mmair.isa.ascend import layouts as isa_layouts
from mmair.isa.ascend import params as isa_params
from mmair.isa.ascend import pipes as isa_pipes
from mmair.isa.ascend import targets as isa
from mmair.isa.ascend.targets import Target
from mmair.passes.pass_errors import PassOpError

AUTO_TILE_MN = 128  # preferred tile-m and tile-n: a 128 x 128 f32 L0C tile is 64 KB


MAX_TILE = isa.MMAD_MNK_RANGE[1]  # m, n, k of one mad / move


def _round_up(x: int, g: int) -> int:
    return -(-x // g) * g


@lru_cache(maxsize=4096)
def _footprint(layout: str, shape: tuple[int, int], element: str, space: str) -> int:
    """`isa_layouts.footprint_bytes`, cached: the tiling search asks for the same tiles often."""
    return isa_layouts.footprint_bytes(layout, shape, element, space)


@dataclass(frozen=True)
class Buffer:
    """One on-chip buffer of the lowered matmul: what it holds and its tile shape."""

    role: str  # "A", "B", "C", "bias" (what the message calls it)
    space: str
    shape: tuple[int, int]
    element: str
    layout: str

    def footprint(self) -> int:
        return _footprint(self.layout, self.shape, self.element, self.space)

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
    single_c: bool = False  # L0C (and the bias) keep one slot: multi_buffer of them do not fit,
    # l0c-slots=1, or a split kernel (its tile loop has block-index bounds: no ping-pong)
    blocks: int = 1  # > 1: output tiles split over the cores by block index (the `blocks` option)
    k1: int = 0  # K of the L1 tiles (a multiple of tk, > tk): chunks of K moved to L0 in tk steps
    single_l0: bool = False  # L0A and L0B keep one slot (their multi_buffer slots do not fit)
    single_l1: bool = False  # the A and B tiles of L1 keep one slot (the `l1-slots=1` option)
    m1: int = 0  # M of the L1 tiles (a multiple of tm, > tm): L1 holds m1 / tm L0 tiles in M
    n1: int = 0  # N of the L1 tiles (a multiple of tn, > tn)
    swizzle: int = 1  # split kernels: output tiles in strips of this many tile rows (1: row-major)

    @property
    def chunked(self) -> bool:
        """The L1 tiles hold K chunks of k1 > tk (loaded once per chunk, moved to L0 tk at a
        time); not for the GEMV row path, nor when both operands are resident anyway."""
        return self.k1 > self.tk

    @property
    def l1_k(self) -> int:
        """K of a reloaded L1 tile: the chunk, else the L0 tile's tk."""
        return self.k1 if self.chunked else self.tk

    @property
    def chunks(self) -> int:
        """Trips of the K chunk loop (1 without chunks: the k loop is the tk loop)."""
        return -(-self.k // self.k1) if self.chunked else 1

    @property
    def l1_m(self) -> int:
        """M of an L1 tile (and of the output tile one L1 tile computes): m1, else tm."""
        return self.m1 or self.tm

    @property
    def l1_n(self) -> int:
        return self.n1 or self.tn

    @property
    def subtiled(self) -> bool:
        """An L1 tile holds several L0 tiles in M or N (m1 > tm or n1 > tn): loaded from GM
        once, moved to L0A / L0B tile by tile, each output sub-tile in its own L0C tile."""
        return self.l1_m > self.tm or self.l1_n > self.tn

    @property
    def sub_tiles(self) -> tuple[int, int]:
        """L0 tiles of one L1 tile in M and N (1, 1 unless subtiled)."""
        return self.l1_m // self.tm, self.l1_n // self.tn

    @property
    def l1_trips(self) -> tuple[int, int]:
        """Trips over the L1 tiles in M and N (the output tiles of the i / j loops)."""
        return -(-self.m // self.l1_m), -(-self.n // self.l1_n)

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
        kk = _round_up(self.k, self.granularity) if self.a_panel else self.l1_k
        if self.m == 1 and self.gemv_nd:
            return self.a_row_buffers()[0]
        if self.a_staged_transposed:  # A^T, in the layout the transposing load reads (b32: zz)
            return Buffer("A", "l1", (kk, self.l1_m), self.lhs,
                          isa_params.a_l1_layout_for_transpose(self.lhs))
        return Buffer("A", "l1", (self.l1_m, kk), self.lhs, "nz")

    def b_l1(self) -> Buffer:
        g = self.granularity
        kk = _round_up(self.k, g) if self.b_whole else self.l1_k
        nn = _round_up(self.n, g) if self.b_whole else self.l1_n
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

    def copies(self, buf: Buffer) -> int:
        """Tiles of `buf` one L1 tile needs at a time: an L0C tile per output sub-tile and a
        bias row per sub-tile column (1 unless subtiled)."""
        sm, sn = self.sub_tiles
        if buf.role == "C":
            return sm * sn
        if buf.role == "bias":
            return sn
        return 1

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

        if self.subtiled:  # L1 tiles in the K loop (chunks or tk), L0 tiles in tk steps inside
            mt1, nt1 = self.l1_trips
            chunks = self.chunks if self.chunked else kt
            inner = -(-self.k1 // self.tk) if self.chunked else 1
            if buf.role == "A" and buf.space == "l1":
                return mt1 if self.a_panel else innermost(chunks, nt1, mt1)
            if buf.role == "B" and buf.space == "l1":
                return 1 if self.b_whole else innermost(chunks, nt1, mt1)
            if buf.role in ("A", "B"):
                return innermost(inner, chunks, nt1, mt1)
            return innermost(nt1, mt1)
        if self.chunked:  # L1 tiles in the chunk loop, L0 tiles in the tk loop inside it
            inner = -(-self.k1 // self.tk)
            if buf.role == "A" and self.a_panel and buf.space == "l1":
                return mt
            if buf.role == "B" and self.b_whole and buf.space == "l1":
                return 1
            if buf.role in ("A", "B"):
                l1 = innermost(self.chunks, nt, mt)
                return l1 if buf.space == "l1" else innermost(inner, self.chunks, nt, mt)
            return innermost(nt, mt)
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
        if self.single_l0 and buf.space in ("l0a", "l0b"):
            return 1
        if self.single_l1 and buf.space == "l1" and buf.role in ("A", "B"):
            return 1
        return self.multi_buffer

    def lowered_slots(self, buf: Buffer) -> int:
        """Slots the lowered kernel really ping-pongs `buf` between: `slots(buf)`, except that a
        split kernel's buffer reloaded by its tile loop keeps one (that loop has block-index
        bounds, which `multi_buffer_matmul` cannot unroll: the L1 tiles when K is one chunk or
        one tile-k, the L0 tiles when it is one tile-k). `slots` still counts the second slot
        for the capacity check, so the same plans stay legal and lower to the same IR."""
        slots = self.slots(buf)
        if slots == 1 or self.blocks == 1 or buf.role not in ("A", "B"):
            return slots
        k_trips = self.chunks if self.chunked else self.trips[2]  # the K loop of the L1 tiles
        if buf.space == "l1":
            return 1 if k_trips == 1 else slots
        if self.subtiled or self.chunked:  # moves alternate slots / the tk loop of a chunk
            return slots
        return 1 if k_trips == 1 else slots


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
        need = sum(b.footprint() * plan.slots(b) * plan.copies(b) for b in bufs)
        capacity = cap[space]
        assert capacity is not None
        if need > capacity:
            if len(bufs) == 1 and plan.slots(bufs[0]) * plan.copies(bufs[0]) == 1:
                what = f"the {bufs[0].describe()} needs"
            else:
                what = " + ".join(
                    f"{b.describe()} {_times(plan.slots(b) * plan.copies(b))}{b.footprint()} B"
                    for b in bufs
                ) + " need"
            problems.append((space, what, need, capacity))
    return problems


def _times(slots: int) -> str:
    return f"{slots} x " if slots > 1 else ""


def plan_matmul(
    op: pto.MatmulOp, target: Target, tile_m: int = 0, tile_n: int = 0, tile_k: int = 0,
    multi_buffer: int = 1, blocks: int = 1, tile_k_l1: int = 0, single_l0: bool = False,
    single_l1: bool = False, c_slots: int = 0, tile_m_l1: int = 0, tile_n_l1: int = 0,
    swizzle: int = 1,
) -> MatmulPlan:
    """Choose the tiles and the reuse for a verified `op` (0 = automatic tile size) with
    `multi_buffer` slots per reloaded tile, its output tiles split over `blocks` cores. Raises
    PassOpError when a given tile is not a legal multiple or does not fit its buffers.

    `single_l0` / `single_l1`: one slot for L0A and L0B / for the A and B tiles of L1;
    `c_slots`: slots of L0C (0: `multi_buffer` where they fit, else one; 1; 2: an error where
    they do not fit); `tile_m_l1` / `tile_n_l1`: M / N of the L1 tiles (0: the L0 tile's, else
    a multiple of it); `swizzle`: the order of a split kernel's output tiles (`MatmulPlan`)."""
    m, n, k = op.problem()
    lhs, rhs, out = op.element_names()
    acc = pto.matmul_accumulator(target, lhs, rhs)
    assert acc is not None, "verified"
    quant = pto.matmul_output_types(target, acc)[out]
    ta, tb = op.is_transpose_a, op.is_transpose_b
    g = granularity(target, lhs, rhs, ta, tb)
    limit = MAX_TILE // g * g
    for name, value in (("tile-m", tile_m), ("tile-n", tile_n), ("tile-k", tile_k),
                        ("tile-k-l1", tile_k_l1), ("tile-m-l1", tile_m_l1),
                        ("tile-n-l1", tile_n_l1)):
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
    if c_slots not in (0, 1, 2):
        raise PassOpError(op, f"requires l0c-slots in 0 (chosen), 1, 2, got {c_slots}")
    if c_slots == 2 and blocks > 1:
        # L0C is reloaded by the tile loop of a split kernel, whose bounds are the block index:
        # multi_buffer_matmul cannot unroll it, so its L0C keeps one slot
        raise PassOpError(
            op,
            f"requires l0c-slots in 0 (chosen), 1 with blocks = {blocks} (a split kernel's L0C "
            f"keeps one slot: its tile loop has block-index bounds), got {c_slots}",
        )
    if swizzle < 1:
        raise PassOpError(op, f"requires swizzle >= 1 (tile rows per strip), got {swizzle}")
    split = blocks > 1
    m1 = n1 = 0  # the L1 tiles in M and N, once tm and tn are known

    k1 = 0  # the L1 K chunk, once tk is known

    def make(tk: int, a_panel: bool = False, b_whole: bool = False,
             tiles_mn: tuple[int, int] | None = None) -> MatmulPlan:
        rows, cols = tiles_mn or (tm, tn)
        plan = MatmulPlan(
            target, m, n, k, lhs, rhs, out, acc, quant, ta, tb, op.bias is not None,
            rows, cols, tk, g, a_panel and not split, b_whole, multi_buffer, blocks=blocks,
            k1=k1 if k1 > tk and m % rows != 1 else 0, single_l0=single_l0,
            single_l1=single_l1, single_c=c_slots == 1 or split, m1=m1 if m1 > rows else 0,
            n1=n1 if n1 > cols else 0, swizzle=swizzle,
        )
        # Ping-pong L0C only where its slots (and the bias's) fit: it overlaps the fixpipe of
        # one C tile with the mads of the next, a smaller gain than the operand slots.
        if not c_slots and any(space in ("l0c", "bt") for space, *_ in _overflows(plan)):
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

    # (against the given L0 tile: one clamped to its dimension makes a single L1 tile)
    for name, value, tile in (("tile-m-l1", tile_m_l1, tile_m or tm),
                              ("tile-n-l1", tile_n_l1, tile_n or tn)):
        if value and value % tile:
            raise PassOpError(
                op,
                f"requires {name} to be a multiple of {name[:6]} = {tile} (an L1 tile holds "
                f"whole L0 tiles), got {value}",
            )
    if tile_m_l1 > tm and m % tm == 1 and not target.gemv_disable:
        raise PassOpError(
            op,
            f"tile-m-l1 = {tile_m_l1} with a one-row panel (M = {m}, M mod tile-m = 1) is not "
            f"supported on target {target.name}: the row runs on the GEMV path, whose L0A is an "
            f"nd vector of its own; choose tile-m-l1 = 0 or a tile-m with M mod tile-m != 1",
        )
    # An L1 tile never needs more than its dimension (whole L0 tiles).
    m1 = min(tile_m_l1, _round_up(m, tm))
    n1 = min(tile_n_l1, _round_up(n, tn))
    if tile_k_l1:  # chunks of K in L1: a multiple of tile-k (automatic: the largest that divides)
        k1 = tile_k_l1
        if tile_k and k1 > tile_k and k1 % tile_k:
            raise PassOpError(
                op,
                f"requires tile-k-l1 to be a multiple of tile-k = {tile_k} (the L1 chunk is moved "
                f"to L0 in tile-k steps), got {tile_k_l1}",
            )
    if tile_k:
        tk = min(tile_k, _round_up(k, g))
    else:
        tk = min(_round_up(k, g), limit, k1 or limit)
        while tk > g and (_overflows(make(tk)) or (k1 > tk and k1 % tk)):
            tk -= g
    k1 = min(k1, _round_up(k, tk))  # a chunk never needs more than K (whole tk steps)
    plan = make(tk)
    problems = _overflows(plan)
    if problems:
        space, what, need, capacity = problems[0]
        given = ", ".join(
            f"{name} = {v}"
            for name, v in (("tile-m", tm), ("tile-n", tn), ("tile-k", tk),
                            ("tile-m-l1", plan.m1), ("tile-n-l1", plan.n1)) if v
        ) + (", l0c-slots = 2" if c_slots == 2 and space in ("l0c", "bt") else "")
        raise PassOpError(
            op,
            f"tiles {given} do not fit {space}: {what} {need} bytes, {space} capacity "
            f"{capacity} bytes on target {target.name}",
        )
    return _choose_reuse(plan, make)


def _choose_reuse(plan: MatmulPlan, make: Callable[..., MatmulPlan]) -> MatmulPlan:
    """The reuse (A panel, whole B) that saves the most GM loads among those that fit."""
    kt = plan.trips[2]
    mt, nt = plan.l1_trips  # the loads are of L1 tiles
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

