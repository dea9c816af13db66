"""The tiling `pto-tile-matmul` chooses: the plan the cost model estimates fastest (no IR).

`choose_plan` enumerates legal plans (`matmul_plan.plan_matmul` with explicit sizes: L0 tiles
tile-m x tile-n x tile-k, the L1 K chunk tile-k-l1, the L1 tiles in M and N (an output tile of
the first stage itself, or two L0 tiles of half its size), one or `multi-buffer` slots for
L0A/L0B, for the L1 tiles and for L0C; plan_matmul adds the resident panels), estimates each with
`estimate_cycles`, and returns the fastest. A size given by hand is kept; the others are
searched; with all three L0 tile sizes given the plan is `plan_matmul`'s of them (no chunk unless
tile-k-l1 is given too), so a tuned pipeline lowers as it was tuned. Chunks chosen here divide K
(every chunk the same static size, so the L0 tiles inside keep their slots). Today's fixed rule (`plan_matmul` with automatic sizes) is always a candidate, and with
`multi-buffer` > 1 so is every single-slot plan: a plan with slots is taken only when the model
estimates it at least `1 - SLOT_MARGIN` faster than the best plan without and it keeps every
operand that plan keeps resident in L1, so that double buffering does not lose to single
buffering (tests/unit/passes/test_multi_buffer_never_loses.py measures it on the timeline).

`estimate_cycles` is a closed form of what the timeline would schedule for the loop nest, from
the same cost table (`isa/ascend/costs.py`): per K chunk, the GM -> L1 loads (the first touch of
each L2 line at the DDR share of the cores that run, whole lines, the re-reads at the L2 rate) and the tile-k steps (MTE1 moves and mads, overlapped when L0A/L0B have two slots);
chunks overlap their loads when L1 has two slots, output tiles overlap their fixpipe when L0C
has two; every core gets `ceil(tiles / blocks)` output tiles. An L1 tile of sub_m x sub_n L0
tiles moves A sub_m times and B sub_m x sub_n times per step, and has sub_m x sub_n mads and
fixpipes. When A and B do not fit L2, a split kernel's misses follow its tile order
(`_wave_misses`: waves of `blocks` tiles, an LRU of whole panels), which is how `swizzle` is
chosen (`_choose_swizzle`; ties keep 1). It ranks plans; `mmair-run
--timing` gives the cycles.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import replace
from math import ceil

from mmair.dialects import pto
from mmair.isa.ascend import costs as isa_costs
from mmair.isa.ascend.targets import Target, element_bits
from mmair.passes.matmul_plan import MAX_TILE, MatmulPlan, plan_matmul
from mmair.passes.pass_errors import PassOpError

SLOT_MARGIN = 0.95
"""A plan with multi-buffer slots must be estimated below this share of the best single-slot
plan to be chosen (the estimate's error margin: below it, single buffering is kept)."""
_SIZES = (16, 32, 64, 128, 256)
"""L0 tile sizes tried (multiples of the granularity; the dimension itself when smaller)."""
_CHUNKS = (2, 4, 8)
"""L1 K chunks tried, in tile-k steps."""
_MAX_OUTPUT_TILE = 256 * 128
"""Largest tile-m x tile-n the search tries (a bound of the search, not a capacity: plan_matmul
checks every buffer against isa's capacities)."""
_KEEP = 3
"""Output tiles (tile-m x tile-n) kept from the first stage of the search."""


def _bytes(elem: str, count: int) -> int:
    return count * element_bits(elem) // 8


class _Reads:
    """The GM reads of one operand: `count` loads of `rows` x `width` bytes out of rows `pitch`
    bytes apart, `unique` bytes in all."""

    def __init__(self, count: int, rows: int, width: int, pitch: int, unique: int):
        self.count, self.rows, self.width, self.pitch, self.unique = \
            count, rows, width, pitch, unique

    def line_bytes(self, line: int) -> int:
        """Bytes of the L2 lines one load touches (a miss brings whole lines)."""
        if self.width >= self.pitch:  # whole rows: one contiguous run
            return -(-self.rows * self.width // line) * line
        # rows that start off a line boundary (the pitch is no multiple of it) straddle one more
        return self.rows * (-(-self.width // line) + (1 if self.pitch % line else 0)) * line

    def miss_share(self, table: isa_costs.Costs, fits: bool) -> float:
        """Share of the lines touched that miss: each distinct line once, when everything fits
        L2; every line when it does not (or there is no L2)."""
        if not table.l2_bytes or not fits:
            return 1.0
        touched = self.count * self.line_bytes(table.l2_line_bytes)
        return min(1.0, self.unique / touched) if touched else 1.0


OVERLAP_NORM = 4
"""Two pipes that overlap through slots take `(a**p + b**p) ** (1 / p)`, p = OVERLAP_NORM, rather
than max(a, b): the slot handshakes (a load waits for the slot two steps back) keep nearly equal
stages from overlapping fully; measured on the timeline, equal stages take about 1.2 x one."""


def _overlap(a: float, b: float) -> float:
    return (a ** OVERLAP_NORM + b ** OVERLAP_NORM) ** (1 / OVERLAP_NORM)


def _reads(plan: MatmulPlan, k_l1: int, loads: int) -> tuple[_Reads | None, _Reads | None]:
    """(A, B) reads of the reloaded tiles (None for a resident operand; `loads` per operand)."""
    ea, eb = element_bits(plan.lhs) / 8, element_bits(plan.rhs) / 8
    a = b = None
    mt1, nt1 = plan.l1_trips
    if not plan.a_panel:
        tm = -(-plan.m // mt1)  # the average L1 tile (remainders included)
        rows, width, pitch = (k_l1, tm * ea, plan.m * ea) if plan.transpose_a else \
            (tm, k_l1 * ea, plan.k * ea)
        a = _Reads(loads, rows, int(width), int(pitch), int(plan.m * plan.k * ea))
    if not plan.b_whole:
        tn = -(-plan.n // nt1)
        rows, width, pitch = (tn, k_l1 * eb, plan.k * eb) if plan.transpose_b else \
            (k_l1, tn * eb, plan.n * eb)
        b = _Reads(loads, rows, int(width), int(pitch), int(plan.k * plan.n * eb))
    return a, b


def tile_order(mt: int, nt: int, swizzle: int) -> list[tuple[int, int]]:
    """(row, column) of the output tiles of a split kernel in the order the cores take them
    (matmul_emit._tile_coordinates: row-major for swizzle 1, else CATLASS's strips of
    `swizzle` tile rows walked column by column, every other strip right to left)."""
    if swizzle == 1 or mt == 1:
        return [(t // nt, t % nt) for t in range(mt * nt)]
    s = min(swizzle, mt)
    order = []
    for t in range(mt * nt):
        strip, within = divmod(t, s * nt)
        rows = min(s, mt - strip * s)
        col = within // rows
        order.append((strip * s + within % rows, nt - 1 - col if strip % 2 else col))
    return order


def _wave_misses(plan: MatmulPlan, table: isa_costs.Costs, cores: int
                 ) -> tuple[float, float]:
    """Shares of the A and B panel reads of a split kernel that miss L2 when the operands do
    not fit it. The cores run their output tiles in waves of `cores` (tile_order) and sweep K
    together, so the tiles of one wave share the lines of their panels (one miss per distinct
    A row panel and B column panel); a panel a later wave reads again hits when it is still
    in an LRU of whole panels as large as L2."""
    mt, nt = plan.l1_trips
    order = tile_order(mt, nt, plan.swizzle)
    size = (_bytes(plan.lhs, -(-plan.m // mt) * plan.k),  # an A row panel (tm x K)
            _bytes(plan.rhs, -(-plan.n // nt) * plan.k))  # a B column panel (K x tn)
    lru: OrderedDict[tuple[int, int], int] = OrderedDict()
    used = 0
    misses = [0, 0]
    for w in range(0, len(order), cores):
        wave = order[w:w + cores]
        panels = [(0, r) for r in sorted({r for r, _ in wave})] + \
            [(1, c) for c in sorted({c for _, c in wave})]
        for panel in panels:
            if panel in lru:
                lru.move_to_end(panel)
                continue
            misses[panel[0]] += 1
            lru[panel] = size[panel[0]]
            used += size[panel[0]]
            while used > table.l2_bytes and len(lru) > 1:
                used -= lru.popitem(last=False)[1]
    return misses[0] / len(order), misses[1] / len(order)


def estimate_cycles(plan: MatmulPlan, table: isa_costs.Costs) -> float:
    """Estimated cycles of the lowered `plan` (module docstring): the slowest core's."""
    _, _, kt = plan.trips
    mt, nt = plan.l1_trips  # the output tiles of the loop nest (L1 tiles)
    sub_m, sub_n = plan.sub_tiles
    tiles = mt * nt
    cores = max(1, min(plan.blocks, tiles))
    per_core = ceil(tiles / cores)
    l2_rate = (table.l2_read or table.gm_read).bytes_per_cycle
    miss_rate = table.ddr_read_share(cores) if table.l2_bytes else table.gm_read.bytes_per_cycle
    fits = _bytes(plan.lhs, plan.m * plan.k) + _bytes(plan.rhs, plan.k * plan.n) <= \
        table.l2_bytes
    wave = _wave_misses(plan, table, cores) if table.l2_bytes and not fits and cores > 1 \
        else None

    def load(reads: _Reads, operand: int = -1) -> float:
        data = reads.rows * reads.width
        if not table.l2_bytes:
            return table.gm_read.latency + data / table.gm_read.bytes_per_cycle
        miss = wave[operand] if wave is not None and operand >= 0 else \
            reads.miss_share(table, fits)
        return table.gm_read.latency + (1 - miss) * data / l2_rate + \
            miss * reads.line_bytes(table.l2_line_bytes) / miss_rate

    chunked = plan.chunked
    k_l1 = plan.l1_k
    chunks = plan.chunks if chunked else kt
    steps = ceil(k_l1 / plan.tk) if chunked else 1
    a_l1 = plan.a_l1()
    loads = sum(load(r, x) for x, r in enumerate(_reads(plan, k_l1, tiles * chunks))
                if r is not None)
    # the average tile: remainder tiles move and multiply less than a whole one; an L1 tile of
    # a subtiled plan holds sub_m x sub_n L0 tiles, A moved once per row of them
    tm, tn, tk = -(-plan.m // (mt * sub_m)), -(-plan.n // (nt * sub_n)), \
        -(-plan.k // (chunks * steps))
    mte1 = sub_m * isa_costs.move_cycles(table, "mte_l1_l0a", _bytes(plan.lhs, tm * tk)) + \
        sub_m * sub_n * isa_costs.move_cycles(table, "mte_l1_l0b", _bytes(plan.rhs, tk * tn))
    mad = sub_m * sub_n * isa_costs.mad_cycles(table, tm, tn, tk, plan.lhs)
    # Each buffer with one slot chains the two pipes that share it: the next load into L1 waits
    # for the moves out of it (L1 -> L0), the next move into L0 for the mad that reads it.
    l0_double = plan.lowered_slots(plan.a_l0a()) > 1
    step = _overlap(mte1, mad) if l0_double else mte1 + mad
    compute = steps * step + (min(mte1, mad) if l0_double else 0)
    l1_slots = plan.lowered_slots(a_l1) if not plan.a_panel else plan.lowered_slots(plan.b_l1())
    # one L1 slot: the next chunk's load starts when the last move out of this one has, which
    # waits for all but the chunk's last mad; two: loads run ahead of the moves
    chunk = _overlap(loads, compute) if l1_slots > 1 else compute - mad + max(loads, mad)
    out_bits = element_bits(plan.out)
    fix = sub_m * sub_n * isa_costs.fixpipe_cycles(table, tm * tn * out_bits // 8, "gm",
                                                   plan.quant != "none")
    work = chunks * chunk
    c_slots = plan.lowered_slots(plan.c_l0c()) > 1
    if c_slots:
        tile = _overlap(work, fix)
    elif l1_slots > 1:
        # One L0C slot chains the cube to the fixpipe (the next tile's first mad waits for
        # it), but the next tile's loads and moves run ahead in their slots meanwhile: a tile
        # takes its work or its mads and fixpipe, whichever is longer (measured on the
        # timeline, docs/costs.md "One L0C slot"); the last tile's fixpipe trails
        tile = max(work, chunks * steps * mad + fix)
    else:
        # One L1 slot as well: the next tile's first load waits for the last move out of this
        # tile's L1 tiles, not for its fixpipe, so it runs under the last mad and the fixpipe
        tile = work - max(loads, mad) + max(loads, mad + fix)
    # overlapped stages wait once for the first load and for the last fixpipe
    tail = min(work, fix) if c_slots else work + fix - tile
    total = per_core * tile + (loads if l1_slots > 1 else 0) + tail
    ea, eb = element_bits(plan.lhs) // 8 or 1, element_bits(plan.rhs) // 8 or 1
    if plan.a_panel:  # loaded once per i, before its j loop
        panel = _Reads(mt, plan.l1_m, plan.k * ea, plan.k * ea, plan.m * plan.k * ea)
        total += mt * load(panel) / cores
    if plan.b_whole:
        total += load(_Reads(1, plan.k, plan.n * eb, plan.n * eb, plan.k * plan.n * eb))
    return total


def _sizes(given: int, dim: int, g: int) -> list[int]:
    if given:
        return [given]
    top = -(-dim // g) * g
    found = {s for s in _SIZES if s % g == 0 and s < top}
    if top <= max(_SIZES):
        found.add(top)
    return sorted(found) or [g]


def _splits(extent: int, given: int, given_l1: int, g: int) -> list[tuple[int, int]]:
    """(L0 tile, L1 tile or 0) pairs for an L1 tile `extent` long: the extent itself as the L0
    tile, and half of it as two L0 tiles of one L1 tile (not when the L0 tile is given)."""
    if given:
        return [(given, extent if extent > given else 0)]
    found = [(extent, 0)] if not given_l1 else []
    half = extent // 2
    if half >= g and half % g == 0:
        found.append((half, extent))
    return found or [(extent, 0)]


SWIZZLES = (1, 2, 4, 8)
"""Strip heights (tile rows) tried for the order of a split kernel's output tiles."""


def _choose_swizzle(plan: MatmulPlan, table: isa_costs.Costs, swizzle: int) -> MatmulPlan:
    """`plan` with the given swizzle, else the one the estimate ranks fastest (ties: 1, the
    row-major order of earlier releases)."""
    if swizzle or plan.blocks == 1:
        return replace(plan, swizzle=swizzle or 1)
    timed = [(estimate_cycles(replace(plan, swizzle=s), table), s) for s in SWIZZLES]
    return replace(plan, swizzle=min(timed)[1])


def choose_plan(op: pto.MatmulOp, target: Target, tile_m: int = 0, tile_n: int = 0,
                tile_k: int = 0, multi_buffer: int = 1, blocks: int = 1, tile_k_l1: int = 0,
                table: isa_costs.Costs | None = None, l0_slots: int = 0, l1_slots: int = 0,
                l0c_slots: int = 0, tile_m_l1: int = 0, tile_n_l1: int = 0,
                swizzle: int = 0) -> MatmulPlan:
    """The plan of `op` the cost model estimates fastest among the legal ones that keep every
    size given (0 = chosen here) and the slots given (`l0_slots`, `l1_slots`, `l0c_slots`:
    0 chosen, 1 one slot, 2 the multi-buffer slots), with the tile order `swizzle` of a split
    kernel (0: chosen); errors of given sizes are `plan_matmul`'s."""
    table = table if table is not None else isa_costs.costs(target.name)
    one_l0, one_l1 = l0_slots == 1, l1_slots == 1
    fixed = dict(single_l1=one_l1, c_slots=l0c_slots, tile_m_l1=tile_m_l1, tile_n_l1=tile_n_l1)
    baseline = plan_matmul(op, target, tile_m, tile_n, tile_k, multi_buffer, blocks, tile_k_l1,
                           one_l0, **fixed)
    if tile_m and tile_n and tile_k:
        # the tiles are given: today's plan of them (a chunk only if given)
        return _choose_swizzle(baseline, table, swizzle)
    m, n, k = op.problem()
    g = baseline.granularity
    candidates: list[MatmulPlan] = [baseline]
    if multi_buffer > 1:  # today's single-slot rule: double buffering must beat it too
        candidates.append(plan_matmul(op, target, tile_m, tile_n, tile_k, 1, blocks, tile_k_l1,
                                      tile_m_l1=tile_m_l1, tile_n_l1=tile_n_l1))
    l0_choices = (True,) if one_l0 else (False,) if l0_slots > 1 else (False, True)
    l1_choices = (True,) if one_l1 else (False,) if l1_slots > 1 else (False, True)
    c_choices = (l0c_slots,) if l0c_slots else (0, 1)

    def plans(tm: int, tn: int, m1: int, n1: int, tks: list[int], every: bool
              ) -> list[MatmulPlan]:
        """The legal plans of these tiles; `every`: all chunks and slot choices, else a chunk
        of 4 steps and the default slots of L1 and L0C (the first stage)."""
        found = []
        for tk in tks:
            chunks = [tile_k_l1] if tile_k_l1 else \
                [0] + [tk * c for c in _CHUNKS if tk * c < k and k % (tk * c) == 0 and
                       tk * c <= MAX_TILE and (every or c == 4)]
            for k1 in chunks:
                for slots in sorted({1, multi_buffer}):
                    many = slots > 1
                    for single_l0 in (l0_choices if many else (False,)):
                        for single_l1 in (l1_choices if many and every else l1_choices[:1]):
                            for c in (c_choices if many and every else c_choices[:1]):
                                if many and single_l0 and single_l1 and c != 1 and \
                                        not (l0_slots or l1_slots):
                                    # L0C slots alone overlap only the fixpipe: the estimate
                                    # overrates it (512 x 16 x 1000 bf16 on a5: 5 % estimated,
                                    # 4 cycles slower on the timeline), so never chosen alone
                                    continue
                                try:
                                    found.append(plan_matmul(
                                        op, target, tm, tn, tk, slots, blocks, k1, single_l0,
                                        single_l1=single_l1 and many, c_slots=c,
                                        tile_m_l1=m1, tile_n_l1=n1))
                                except PassOpError:
                                    continue
        return found

    # Two stages: the output tile (the L1 tile, tm x tn) with a middle tile-k first, then the
    # L0 tiles inside it (itself or halves), tile-k, the chunk and the slots for the best few
    # output tiles (the estimate is cheap, the plans are not).
    tks = _sizes(tile_k, k, g)
    middle = [tks[len(tks) // 2]] if not tile_k else tks
    stage: list[tuple[float, int, int]] = []
    for p in _sizes(tile_m_l1 or tile_m, m, g):
        for q in _sizes(tile_n_l1 or tile_n, n, g):
            if not (tile_m or tile_m_l1) and not (tile_n or tile_n_l1) and \
                    p * q > _MAX_OUTPUT_TILE:
                continue  # a search bound (plan_matmul checks what fits)
            (tm, m1), (tn, n1) = _splits(p, tile_m, tile_m_l1, g)[0], \
                _splits(q, tile_n, tile_n_l1, g)[0]
            tried = plans(tm, tn, m1, n1, middle, False)
            if tried:
                stage.append((min(estimate_cycles(p, table) for p in tried), p, q))
    for _, p, q in sorted(stage)[:_KEEP]:
        for tm, m1 in _splits(p, tile_m, tile_m_l1, g):
            for tn, n1 in _splits(q, tile_n, tile_n_l1, g):
                candidates += plans(tm, tn, m1, n1, tks, True)

    def key(plan: MatmulPlan) -> tuple:
        # ties by the plan itself, never by enumeration order: the single-slot choice under
        # multi-buffer = 2 is then exactly the choice under multi-buffer = 1
        return (estimate_cycles(plan, table), plan.tm, plan.tn, plan.tk, plan.k1,
                plan.multi_buffer, plan.single_l0, plan.single_l1, plan.single_c, plan.m1,
                plan.n1)

    unique = {_identity(p): p for p in candidates}
    scored = sorted(((key(p), ident), p) for ident, p in unique.items())
    (single_key, _), single = next(s for s in scored if s[1].multi_buffer == 1)
    if multi_buffer == 1:
        return _choose_swizzle(single, table, swizzle)
    # Slots must not cost the single-slot choice a resident operand (the loads it saves are
    # what double buffering most often loses), and must win by the estimate's margin.
    for (slot_key, _), slotted in scored:
        if slotted.multi_buffer == 1 or (single.a_panel and not slotted.a_panel) or \
                (single.b_whole and not slotted.b_whole):
            continue
        if slot_key[0] < SLOT_MARGIN * single_key[0]:
            return _choose_swizzle(slotted, table, swizzle)
        break
    return _choose_swizzle(single, table, swizzle)


def _identity(plan: MatmulPlan) -> tuple:
    """What makes two candidate plans the same lowering."""
    return (plan.tm, plan.tn, plan.tk, plan.k1, plan.multi_buffer, plan.single_l0, plan.a_panel,
            plan.b_whole, plan.single_c, plan.single_l1, plan.m1, plan.n1)


__all__ = ["SLOT_MARGIN", "SWIZZLES", "choose_plan", "estimate_cycles", "tile_order"]
