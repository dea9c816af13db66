"""pto-tile-matmul, pto-assign-addresses and the mmair-lower pipeline.

Differential tests: `pto.matmul` of random shapes (M, N, K in [1, 300]) and every Mmad type
combination of a2 and a5 is built as IR text, lowered with `mmair-lower` and executed; the result
must equal numpy within this tolerance (|A|, |B| elementwise absolute values, all in f64):

* integer inputs (s8, s4 -> s32): exact;
* float inputs: |C - ref| <= u_out * |ref| + 2 * (K + 2) * 2^-24 * (|A| @ |B|) + tiny_out, where
  ref = A @ B (+ bias) in f64 from the same (already rounded) inputs, u_out the unit roundoff of the
  output type (2^-11 f16, 2^-8 bf16, 0 f32) for Fixpipe's final rounding, the second term bounds
  the f32 accumulation (products and K sums in f32, in any order), and tiny_out half the smallest
  subnormal step of the output (f16 2^-25; f32/bf16 negligible).

Property test: for random programs of tiles, loops, writes and reads, the addresses from
pto-assign-addresses never let a tile's bytes be overwritten while that tile's data is still to be
read (checked by simulating the program on byte arrays, independently of the pass's liveness).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from pto_testing import (
    COMBOS,
    check_matmul,
    lower,
    matmul_text,
    parse,
)
from xdsl.context import Context
from xdsl.dialects import func, scf, test
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp, StringAttr, f16
from xdsl.ir import Block, Region
from xdsl.utils.exceptions import PassFailedException

from mmair.dialects import pto
from mmair.executor.engine.errors import ExecutionError
from mmair.executor.runner import run_module
from mmair.isa.ascend import layouts as isa_layouts
from mmair.isa.ascend import targets as isa
from mmair.passes.matmul_plan import plan_matmul
from mmair.passes.pass_errors import PassOpError
from mmair.passes.pto_assign_addresses import PtoAssignAddressesPass
from mmair.tools.diagnostics import verify_module


def test_combos_cover_the_mmad_tables():
    pairs = {(t, lhs, rhs) for t, lhs, rhs, _ in COMBOS}
    assert ("a2", "s4", "s4") in pairs and ("a5", "e5m2", "e4m3") in pairs
    assert {out for t, lhs, _, out in COMBOS if lhs == "f16"} == {"f16", "bf16", "f32"}
    assert {out for _, lhs, _, out in COMBOS if lhs == "s8"} == {"s32"}


@settings(max_examples=30, deadline=None)
@given(
    m=st.integers(1, 300),
    n=st.integers(1, 300),
    k=st.integers(1, 300),
    combo=st.sampled_from(COMBOS),
    ta=st.booleans(),
    tb=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_lowered_matmul_equals_numpy(m, n, k, combo, ta, tb, seed):
    target, lhs, rhs, out = combo
    if lhs == "s4":  # a2 cannot transpose 4-bit fractals: A as is, B given transposed
        ta, tb = False, True
    check_matmul(m, n, k, lhs, rhs, out, target, ta, tb, seed=seed)


def _bias_cases() -> list[tuple]:
    """Seeded random shapes for every bias combination (s4 has no bias form), both bias ranks."""
    rng = np.random.default_rng(5)
    cases = []
    for i, combo in enumerate(c for c in COMBOS if c[1] != "s4"):
        m, n, k = (int(x) for x in rng.integers(1, 301, size=3))
        cases.append((m, n, k, combo, 1 + i % 2))
    return cases


@pytest.mark.parametrize("m, n, k, combo, bias_rank", _bias_cases())
def test_lowered_matmul_with_bias_equals_numpy(m, n, k, combo, bias_rank):
    target, lhs, rhs, out = combo
    check_matmul(m, n, k, lhs, rhs, out, target, False, False, bias=True, bias_rank=bias_rank,
                 seed=m + n + k)


@pytest.mark.parametrize(
    "tiles", ["tile-m=16 tile-n=16 tile-k=16", "tile-m=32 tile-n=64 tile-k=48", "tile-k=64"]
)
def test_given_tiles_with_remainders_in_every_loop(tiles):
    result = check_matmul(100, 90, 130, "f16", "f16", "f32", "a2", False, True,
                          pipeline=f"pto-tile-matmul{{{tiles}}},pto-assign-addresses")
    sizes = dict(item.split("=") for item in tiles.split())
    tm, tn, tk = (int(sizes.get(f"tile-{d}", 0)) for d in "mnk")
    trips = [-(-100 // tm) if tm else 1, -(-90 // tn) if tn else 1, -(-130 // tk)]
    assert result.op_counts["pto.mad"] == trips[0] * trips[1]
    assert result.op_counts["pto.mad_acc"] == trips[0] * trips[1] * (trips[2] - 1)


def test_reuse_loads_operands_once():
    # Tiles 128 x 128 x 256 given (the automatic ones are the cost model's, passes/matmul_choice.py).
    fixed = "pto-tile-matmul{tile-m=128 tile-n=128 tile-k=256},pto-assign-addresses,pto-insert-sync"
    # 256 x 256 x 512 f16: two 128-row A panels (128 KB each) and all of B (256 KB) fit L1 together.
    result = check_matmul(256, 256, 512, "f16", "f16", "f32", "a2", False, False, pipeline=fixed)
    assert result.op_counts["pto.mte_gm_l1"] == 2 + 1
    assert result.op_counts["pto.mte_l1_l0a"] == result.op_counts["pto.mte_l1_l0b"] == 2 * 2 * 2
    # K = 2100: the A panel (128 x 2112 f16 = 528 KB) does not fit L1; B (2112 x 32 f16) does.
    result = check_matmul(130, 20, 2100, "f16", "f16", "f16", "a2", False, False, pipeline=fixed)
    tiles = 2 * 1 * 9  # tile-k = 256 (L0A: 128 x 256 f16 = 64 KB)
    assert result.op_counts["pto.mte_gm_l1"] == 1 + tiles
    # With N = 300 neither fits (B is 2112 x 304 f16 = 1.2 MB): every tile is loaded.
    result = check_matmul(130, 300, 2100, "f16", "f16", "f16", "a2", False, False, pipeline=fixed)
    assert result.op_counts["pto.mte_gm_l1"] == 2 * (2 * 3 * 9)


# M = q * d + 1 with d a multiple of every granularity's tile-m candidates up to 128 (128 for
# g = 64, 384 for g = 32, 13440 for g = 16): a transposed A (or a split kernel) then has no
# tile-m <= 128 without a one-row panel, so the automatic tile-m is larger than 128 (the region
# where it once overflowed L0C).
ONE_ROW_M = st.builds(lambda q, d: q * d + 1, st.integers(1, 12), st.sampled_from([128, 384, 13440]))


@settings(max_examples=60, deadline=None)
@given(
    m=st.one_of(st.integers(1, 5000), ONE_ROW_M),
    n=st.integers(1, 5000),
    k=st.integers(1, 5000),
    combo=st.sampled_from(COMBOS),
    ta=st.booleans(),
    tb=st.booleans(),
)
@example(m=385, n=65, k=1, combo=("a2", "s8", "s8", "s32"), ta=True, tb=False)
def test_automatic_tiles_fit_every_buffer(m, n, k, combo, ta, tb):
    target_name, lhs, rhs, out = combo
    if lhs == "s4":
        ta, tb = False, True
    _, module = parse(matmul_text(m, n, k, lhs, rhs, out, target_name, ta, tb))
    op = next(o for o in module.walk() if isinstance(o, pto.MatmulOp))
    target = isa.get_target(target_name)
    plan = plan_matmul(op, target)
    g = plan.granularity
    assert plan.tm % g == plan.tn % g == plan.tk % g == 0
    assert plan.tn <= max(128, g) and plan.tk <= 4095
    one_row_rule = ta and m > 1 and not target.gemv_disable
    if one_row_rule:
        assert m % plan.tm != 1
    # tile-m exceeds 128 only when every smaller multiple of g leaves a one-row panel.
    assert plan.tm <= max(128, g) or (
        one_row_rule and all(m % t == 1 for t in range(g, 129, g))), plan.tm
    used: dict[str, int] = {}
    for buf in plan.buffers():
        used[buf.space] = used.get(buf.space, 0) + isa_layouts.footprint_bytes(
            buf.layout, buf.shape, buf.element, buf.space)
    for space, nbytes in used.items():
        assert nbytes <= target.capacity[space], (space, nbytes)
    # tile-k is the largest that fits: one more granule overflows L0A or L0B (or exceeds K).
    if plan.tk + g <= -(-k // g) * g and plan.tk + g <= 4095:
        more_a = isa_layouts.footprint_bytes(target.l0a_layout, (plan.tm, plan.tk + g), lhs, "l0a")
        more_b = isa_layouts.footprint_bytes("zn", (plan.tk + g, plan.tn), rhs, "l0b")
        assert more_a > target.capacity["l0a"] or more_b > target.capacity["l0b"]


def test_given_tile_that_does_not_fit_is_an_error():
    _, module = parse(matmul_text(300, 300, 2000, "f32", "f32", "f32"))
    op = next(o for o in module.walk() if isinstance(o, pto.MatmulOp))
    with pytest.raises(PassOpError, match=r"do not fit l0b: the B tile 1024x128xf32 \(zn\) needs "
                                          r"524288 bytes, l0b capacity 65536 bytes on target a2"):
        plan_matmul(op, isa.get_target("a2"), tile_n=128, tile_k=1024, tile_m=16)


def test_the_executor_has_no_matmul_implementation():
    _, module = parse(matmul_text(16, 16, 16, "f16", "f16", "f32"))
    with pytest.raises(ExecutionError, match="no implementation for op 'pto.matmul'"):
        run_module(module)


def test_mmair_lower_target_option_sets_the_module_target():
    text = matmul_text(20, 20, 20, "f16", "f16", "f32").replace(' attributes {pto.target = "a2"}', "")
    module = lower(text, "mmair-lower{target=a5}")
    assert module.attributes["pto.target"] == StringAttr("a5")
    layouts = {op.buffer.type.layout_name for op in module.walk()
               if isinstance(op, pto.AllocOp) and op.buffer.type.space_name == "l0a"}
    assert layouts == {"nz"}
    with pytest.raises(PassFailedException, match="differs from the module's pto.target"):
        lower(matmul_text(20, 20, 20, "f16", "f16", "f32"), "mmair-lower{target=a5}")


# ------------------------------------------------------------------------------------------------
# pto-assign-addresses: random programs, checked by simulation
# ------------------------------------------------------------------------------------------------

SPACES = ("ub", "l1")  # 1-D f16 nd tiles in two spaces (mostly ub)


@st.composite
def programs(draw, depth: int = 0, visible: tuple[int, ...] = (), counter=None):
    """A block of statements: ("alloc", id, space, elements), ("write", id), ("read", id),
    ("loop", trips, block). Uses only name tiles allocated earlier in an enclosing block."""
    counter = counter if counter is not None else [0]
    stmts: list[tuple] = []
    names = list(visible)
    for _ in range(draw(st.integers(2, 10) if depth == 0 else st.integers(1, 5))):
        kinds = ["alloc", "alloc", "use", "use", "use", "use", "loop"] if depth == 0 else \
            ["alloc", "use", "use", "use", "use", "loop"]
        kind = draw(st.sampled_from(kinds))
        if kind == "loop" and depth >= 2:
            kind = "use"
        if kind == "alloc" or (kind == "use" and not names):
            ident = counter[0]
            counter[0] += 1
            space = draw(st.sampled_from(SPACES[:1] * 3 + SPACES[1:]))
            stmts.append(("alloc", ident, space, draw(st.sampled_from([16, 256, 1024, 8192]))))
            names.append(ident)
        elif kind == "use":
            stmts.append((draw(st.sampled_from(["write", "read"])), draw(st.sampled_from(names))))
        else:
            inner = draw(programs(depth + 1, tuple(names), counter))
            stmts.append(("loop", draw(st.integers(2, 3)), inner))
    return stmts


def build(stmts: list[tuple]) -> tuple[ModuleOp, dict[int, pto.AllocOp]]:
    """The program as IR: tiles are pto.allocs, uses are test.ops with a `kind`, loops scf.for."""
    allocs: dict[int, pto.AllocOp] = {}
    values = {}
    bounds = {v: test.TestOp(result_types=[IndexType()]) for v in range(4)}  # loop bounds
    body = Block(list(bounds.values()))

    def index(v: int):
        return bounds[v].results[0]

    def emit(stmts, block: Block) -> None:
        for s in stmts:
            if s[0] == "alloc":
                _, ident, space, elements = s
                op = pto.AllocOp(pto.TileType(space, [elements], f16, "nd"))
                op.buffer.name_hint = f"t{ident}"
                block.add_op(op)
                allocs[ident], values[ident] = op, op.buffer
            elif s[0] in ("write", "read"):
                block.add_op(test.TestOp([values[s[1]]], attributes={"kind": StringAttr(s[0]),
                                                                     "tile": IntegerAttr(s[1], 64)}))
            else:
                inner = Block(arg_types=[IndexType()])
                emit(s[2], inner)
                inner.add_op(scf.YieldOp())
                block.add_op(scf.ForOp(index(0), index(s[1]), index(1), [], inner))

    emit(stmts, body)
    body.add_op(func.ReturnOp())
    function = func.FuncOp("f", ((), ()), Region(body))
    module = ModuleOp([function])
    module.attributes["pto.target"] = StringAttr("a2")
    return module, allocs


def simulate(stmts: list[tuple], allocs: dict[int, pto.AllocOp]) -> None:
    """Run the program on byte arrays: a write stamps a fresh token over the tile's bytes; a read
    asserts the bytes still hold the tile's last token. An alloc that runs again (in a loop) makes
    the tile's contents undefined."""
    memory = {space: np.zeros(isa.get_target("a2").capacity[space], np.int64) for space in SPACES}
    last: dict[int, int | None] = {}
    tokens = iter(range(1, 10**9))

    def span(ident):
        op = allocs[ident]
        t = op.buffer.type
        return t.space_name, op.offset.value.data, t.footprint_bytes()

    def run(stmts):
        for s in stmts:
            if s[0] == "alloc":
                last[s[1]] = None
            elif s[0] == "write":
                space, off, size = span(s[1])
                token = next(tokens)
                memory[space][off : off + size] = token
                last[s[1]] = token
            elif s[0] == "read":
                if last.get(s[1]) is not None:
                    space, off, size = span(s[1])
                    assert (memory[space][off : off + size] == last[s[1]]).all(), (
                        f"tile t{s[1]} was overwritten while live"
                    )
            else:
                for _ in range(s[1]):
                    run(s[2])

    run(stmts)


# Loop-carried cases random programs rarely hit: a tile allocated before a loop keeps its data
# across iterations while another tile lives inside the body.
CARRIED = [
    [("alloc", 0, "ub", 1024), ("alloc", 1, "ub", 1024),
     ("loop", 2, [("write", 1), ("read", 1), ("read", 0), ("write", 0)])],
    [("alloc", 0, "ub", 1024), ("write", 0),
     ("loop", 2, [("alloc", 1, "ub", 1024), ("write", 1), ("read", 1), ("read", 0)])],
    [("alloc", 0, "ub", 1024),
     ("loop", 2, [("write", 0), ("alloc", 1, "ub", 1024), ("write", 1), ("read", 1), ("read", 0)])],
]


@settings(max_examples=60, deadline=None)
@given(programs())
@example(CARRIED[0])
@example(CARRIED[1])
@example(CARRIED[2])
def test_assign_addresses_never_overlaps_live_tiles(stmts):
    module, allocs = build(stmts)
    try:
        PtoAssignAddressesPass().apply(Context(), module)
    except PassOpError as err:  # more live bytes than the space holds
        assert "capacity is" in str(err) and "live at the peak" in str(err)
        return
    verify_module(module)  # offsets aligned and inside the capacity
    simulate(stmts, allocs)


def test_assign_addresses_reuses_dead_space():
    stmts = [("alloc", 0, "ub", 8192), ("write", 0), ("read", 0),
             ("alloc", 1, "ub", 8192), ("write", 1), ("read", 1)]
    module, allocs = build(stmts)
    PtoAssignAddressesPass().apply(Context(), module)
    assert allocs[0].offset.value.data == allocs[1].offset.value.data == 0
    stmts = [("alloc", 0, "ub", 8192), ("write", 0), ("alloc", 1, "ub", 8192),
             ("loop", 2, [("read", 0), ("write", 1), ("read", 1)])]
    module, allocs = build(stmts)
    PtoAssignAddressesPass().apply(Context(), module)
    assert {allocs[0].offset.value.data, allocs[1].offset.value.data} == {0, 16384}
