"""The pipe facts of isa/ascend/pipes.py, per target, against tables written from the sources
(Ascend C HardEvent / SetFlag / PipeBarrier docs, CCE intrinsic pipe types, C-API pipe lines)."""

import pytest
from xdsl.traits import MemoryAllocEffect, MemoryReadEffect, MemoryWriteEffect

from mmair.dialects.pto import PTO
from mmair.isa.ascend import pipes
from mmair.isa.ascend.pipes import ALL_PIPES, Pipe, PipeError
from mmair.isa.ascend.targets import TARGET_NAMES, get_target

S, V, M, MTE1, MTE2, MTE3, FIX = (Pipe(p) for p in ("s", "v", "m", "mte1", "mte2", "mte3", "fix"))

# (kind, src, dst) -> pipe on the targets that have the path; None = no such path on that target.
_ALL = {t: True for t in TARGET_NAMES}
PATHS: dict[tuple[str, str, str], tuple[Pipe, dict[str, bool]]] = {
    ("mte_gm_l1", "gm", "l1"): (MTE2, {**_ALL, "910": False, "200i_a2": False}),
    ("mte_gm_ub", "gm", "ub"): (MTE2, _ALL),
    ("mte_ub_gm", "ub", "gm"): (MTE3, _ALL),
    ("mte_l1_l0a", "l1", "l0a"): (MTE1, _ALL),
    ("mte_l1_l0b", "l1", "l0b"): (MTE1, _ALL),
    ("mte_l1_bt", "l1", "bt"): (MTE1, {**_ALL, "910": False, "310p": False}),
    ("mad", "l0a", "l0c"): (M, _ALL),
    ("mad_acc", "l0a", "l0c"): (M, _ALL),
    ("mad_bias", "l0a", "l0c"): (M, {**_ALL, "910": False, "310p": False}),
    ("fixpipe", "l0c", "gm"): (FIX, {**_ALL, "910": False, "310p": False}),
    ("fixpipe", "l0c", "l1"): (FIX, {"a2": True, "a3": True, "a5": True}),
    ("fixpipe", "l0c", "ub"): (FIX, {"a5": True}),  # L0C -> UB is new on Ascend 950
    ("gather_mask", "ub", "ub"): (V, {**_ALL, "910": False}),
    # The raw parameter forms: DN2NZ and LoadData2DParamsV2 exist on Ascend 950 (a5) only,
    # LoadDataWithTranspose not on 310p / 910 (docs/pto-raw-params.md).
    ("copy_dn2nz", "gm", "l1"): (MTE2, {"a5": True}),
    ("load_2d_transpose", "l1", "l0b"): (MTE1, {**_ALL, "910": False, "310p": False}),
    ("load_2d_v2", "l1", "l0a"): (MTE1, {"a5": True}),
}


@pytest.mark.parametrize("target", TARGET_NAMES)
@pytest.mark.parametrize("path", list(PATHS), ids="-".join)
def test_pipe_of_each_op_path_per_target(path: tuple[str, str, str], target: str) -> None:
    pipe, has = PATHS[path]
    if has.get(target, False):
        assert pipes.pipe_of(*path, get_target(target)) is pipe
    else:
        with pytest.raises(PipeError, match=f"target {target} has no"):
            pipes.pipe_of(*path, get_target(target))


def test_pipe_of_unknown_kind_and_path() -> None:
    a2 = get_target("a2")
    with pytest.raises(PipeError, match="no pipe is known for op kind 'vadd'"):
        pipes.pipe_of("vadd", "ub", "ub", a2)
    with pytest.raises(PipeError, match=r"'mte_gm_ub' has no ub->gm path \(legal: gm->ub\)"):
        pipes.pipe_of("mte_gm_ub", "ub", "gm", a2)
    with pytest.raises(PipeError, match=r"no fixpipe path l0c->ub \(legal: l0c->gm, l0c->l1\)"):
        pipes.pipe_of("fixpipe", "l0c", "ub", a2)


def test_every_pto_op_with_a_memory_effect_has_a_pipe() -> None:
    """Walks the dialect: a new pto op that touches memory must get a pipe entry (or a reason)."""
    kinds = set(pipes.op_kinds())
    effects = (MemoryReadEffect, MemoryWriteEffect, MemoryAllocEffect)
    checked = 0
    for op in PTO.operations:
        kind = op.name.removeprefix("pto.")
        if any(op.has_trait(e) for e in effects):
            assert kind in kinds or kind in pipes.NO_PIPE_KINDS, f"{op.name} has no pipe entry"
            checked += 1
    assert checked >= len(kinds)
    dialect_kinds = {op.name.removeprefix("pto.") for op in PTO.operations}
    assert kinds <= dialect_kinds and set(pipes.NO_PIPE_KINDS) <= dialect_kinds  # no stale entry


def test_exhaustiveness_check_catches_a_missing_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(pipes._OP_PIPES, "gather_mask")
    with pytest.raises(AssertionError, match="pto.gather_mask has no pipe entry"):
        test_every_pto_op_with_a_memory_effect_has_a_pipe()


# The Ascend C HardEvent list, written out as pairs (source, destination).
HARD_EVENT_PAIRS = {
    (MTE2, MTE1), (MTE1, MTE2), (MTE1, M), (M, MTE1), (MTE2, V), (V, MTE2), (MTE3, V), (V, MTE3),
    (M, V), (V, M), (V, V), (MTE3, MTE1), (MTE1, MTE3), (MTE1, V), (MTE2, M), (M, MTE2),
    (V, MTE1), (M, FIX), (FIX, M), (MTE3, MTE2), (MTE2, MTE3), (S, V), (V, S), (S, MTE2),
    (MTE2, S), (S, MTE3), (MTE3, S), (MTE2, FIX), (FIX, MTE2), (FIX, S), (M, S), (FIX, MTE3),
    (MTE1, FIX), (FIX, MTE1), (FIX, FIX),  # Ascend C kernel_event.h, beyond the doc's 32
}
FIX_PAIRS = {p for p in HARD_EVENT_PAIRS if FIX in p}


@pytest.mark.parametrize("target", TARGET_NAMES)
def test_flag_pairs_per_target(target: str) -> None:
    has_fix = target in ("a2", "a3", "a5", "200i_a2")
    expected = HARD_EVENT_PAIRS if has_fix else HARD_EVENT_PAIRS - FIX_PAIRS
    assert pipes.flag_pairs(get_target(target)) == expected
    assert len(expected) == (35 if has_fix else 26)  # nine pairs name FIX
    assert (FIX in pipes.pipes(get_target(target))) == has_fix


@pytest.mark.parametrize(("target", "count"), [("a2", 8), ("a3", 8), ("a5", 8), ("310p", 8),
                                               ("200i_a2", 8), ("910", 4)])
def test_event_ids_per_target(target: str, count: int) -> None:
    t = get_target(target)
    assert pipes.event_ids(t) == count
    assert pipes.check_flag("mte2", "mte1", count - 1, t) == (MTE2, MTE1)
    with pytest.raises(PipeError, match=rf"event id {count} is out of range .* \(legal: 0\.\.{count - 1}\)"):
        pipes.check_flag("mte2", "mte1", count, t)
    with pytest.raises(PipeError, match="event id -1 is out of range"):
        pipes.check_flag("mte2", "mte1", -1, t)


def test_check_flag_messages() -> None:
    a2, p310 = get_target("a2"), get_target("310p")
    assert pipes.check_flag("m", "fix", None, a2) == (M, FIX)
    with pytest.raises(PipeError, match=r"source pipe 'all' is only legal in pipe_barrier \(legal: s, v, m, mte1, mte2, mte3, fix\)"):
        pipes.check_flag(ALL_PIPES, "v", 0, a2)
    with pytest.raises(PipeError, match=r"destination pipe 'mte4' is not a pipe \(legal: s, v, m, mte1, mte2, mte3, fix\)"):
        pipes.check_flag("v", "mte4", 0, a2)
    with pytest.raises(PipeError, match=r"pipe pair s->m is not a flag pair on target a2 \(legal: .*m->fix"):
        pipes.check_flag("s", "m", 0, a2)
    with pytest.raises(PipeError, match=r"destination pipe 'fix' is not a pipe of target 310p \(legal: s, v, m, mte1, mte2, mte3\)"):
        pipes.check_flag("m", "fix", 0, p310)


def test_same_pipe_barrier_rules() -> None:
    # Every pipe but the scalar one needs a barrier between dependent instructions.
    assert {p for p in Pipe if pipes.needs_same_pipe_barrier(p)} == {V, M, MTE1, MTE2, MTE3, FIX}
    # The cube: the tile libraries' threshold of 10 output fractals of 16 x 16.
    assert pipes.mad_needs_barrier(16, 16)  # 1 fractal
    assert pipes.mad_needs_barrier(48, 48)  # 9
    assert not pipes.mad_needs_barrier(32, 80)  # 10
    assert not pipes.mad_needs_barrier(128, 128)  # 64
    assert pipes.mad_needs_barrier(1, 256)  # a GEMV row: m // 16 = 0


@pytest.mark.parametrize("target", TARGET_NAMES)
def test_pipe_barrier_operands(target: str) -> None:
    t = get_target(target)
    has_fix = target in ("a2", "a3", "a5", "200i_a2")
    expected = ["v", "m", "mte1", "mte2", "mte3"] + (["fix"] if has_fix else []) + ["all"]
    assert list(pipes.barrier_pipes(t)) == expected
    assert pipes.check_barrier("all", t) == ALL_PIPES
    assert pipes.check_barrier("v", t) is V
    with pytest.raises(PipeError, match="scalar pipe keeps its order in hardware"):
        pipes.check_barrier("s", t)
    if not has_fix:
        with pytest.raises(PipeError, match=f"pipe 'fix' is not legal in pipe_barrier on target {target}"):
            pipes.check_barrier("fix", t)


def test_launch_size_is_between_one_block_and_the_core_count():
    a2 = get_target("a2")
    assert pipes.core_count(a2) == 24  # Atlas A2: 24 AI Cores (docs/multicore.md)
    pipes.check_blocks(1, a2)
    pipes.check_blocks(24, a2)
    for blocks in (0, 25):
        with pytest.raises(PipeError, match=rf"^launch size {blocks} blocks is not in 1\.\.24: "
                                            r"target a2 has 24 AI Cores$"):
            pipes.check_blocks(blocks, a2)
