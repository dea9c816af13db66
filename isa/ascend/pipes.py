"""Ascend AI Core pipes: which pipe runs each op, legal flag pairs, event ids, barrier rules.

An AI Core's scalar unit (pipe S) walks the kernel in program order and issues every data-movement
and compute instruction into the in-order queue of one pipe: MTE2 (GM -> L1 / UB), MTE1
(L1 -> L0A / L0B / BT), M (the cube: mad), FIX (fixpipe: L0C -> GM / L1 / UB), V (vector unit,
GatherMask), MTE3 (UB -> GM). The queues run concurrently; the only cross-pipe ordering is
`set_flag(src, dst, id)` / `wait_flag(src, dst, id)` (a hardware bit per pipe pair and event id) and
`pipe_barrier(pipe)` (or `pipe_barrier(all)`).

* `set_flag(src, dst, id)` is issued to `src`'s queue and does not block it; the bit is set once
  every instruction issued to `src` before it has completed (all its reads and writes).
* `wait_flag(src, dst, id)` is issued to `dst`'s queue: it holds `dst` while the bit is 0, then
  clears it. A second `set_flag` on a bit that is still set (no wait in between) is illegal.
* Inside one pipe, instructions start in order but a dependent instruction may start before the
  previous one has finished: two instructions of one pipe that touch the same bytes need
  `pipe_barrier(pipe)` between them (every pipe but S, whose order the hardware keeps; see
  `needs_same_pipe_barrier` and, for the cube, `mad_needs_barrier`).

This module is the one home of those facts (docs/pipes.md cites the sources). Pure Python, keyed
by op kind strings so that the dialect verifiers, `pto-insert-sync`, the executor's scheduler and
race checker, and the cost model all ask the same table.
"""

from __future__ import annotations

from enum import StrEnum

from mmair.isa.ascend.targets import Target


class Pipe(StrEnum):
    """The pipes of one AI Core (Ascend C `pipe_t` without the `PIPE_` prefix, lower case)."""

    S = "s"
    V = "v"
    M = "m"
    MTE1 = "mte1"
    MTE2 = "mte2"
    MTE3 = "mte3"
    FIX = "fix"


ALL_PIPES = "all"
"""`pipe_barrier(all)` (Ascend C `PIPE_ALL`): waits for every pipe; not legal in set/wait_flag."""

PIPE_NAMES: tuple[str, ...] = tuple(p.value for p in Pipe)


class PipeError(ValueError):
    """An op, pipe pair or event id that the target does not have; the message is user-facing."""


def pipes(target: Target) -> tuple[Pipe, ...]:
    """The pipes `target` has: FIX only where there is a fixpipe (not on 910 / 310p)."""
    return tuple(p for p in Pipe if p is not Pipe.FIX or target.has_fixpipe)


# ------------------------------------------------------------------------------------------------
# The pipe of each op
# ------------------------------------------------------------------------------------------------

# By op kind (the pto op name without the dialect prefix) and (source space, destination space).
# Exhaustive by design: an op kind with a memory effect and no entry is an error (a wrong default
# pipe is itself a classic race source). Sources: the CCE intrinsic "pipe types" page, the Ascend C
# PipeBarrier pipe table and the "pipe type" line of each Ascend C C-API data-movement page.
_OP_PIPES: dict[str, dict[tuple[str, str], Pipe]] = {
    # ND2NZ GM -> L1. On 310p Ascend C builds it from GM -> UB (MTE2), a vector transpose and
    # UB -> L1 (MTE3) and ends with a wait of MTE2 on MTE3: seen from outside it completes on MTE2.
    "mte_gm_l1": {("gm", "l1"): Pipe.MTE2},
    "mte_gm_ub": {("gm", "ub"): Pipe.MTE2},
    "mte_ub_gm": {("ub", "gm"): Pipe.MTE3},
    "mte_l1_l0a": {("l1", "l0a"): Pipe.MTE1},
    "mte_l1_l0b": {("l1", "l0b"): Pipe.MTE1},
    "mte_l1_bt": {("l1", "bt"): Pipe.MTE1},
    # copy_cbuf_to_fbuf (pto-isa TMOV mat -> scaling): FIX (PTOAS PTOOps.td TMovOp::getPipe,
    # "Regular Scaling tiles are FBUF loads (TMOV_M2S)"; test/lit/pto/tmov_fbuf_pipe_selection)
    "mte_l1_fb": {("l1", "fb"): Pipe.FIX},
    "mad": {("l0a", "l0c"): Pipe.M},
    "mad_acc": {("l0a", "l0c"): Pipe.M},
    "mad_bias": {("l0a", "l0c"): Pipe.M},
    "fixpipe": {("l0c", "gm"): Pipe.FIX, ("l0c", "l1"): Pipe.FIX, ("l0c", "ub"): Pipe.FIX},
    "gather_mask": {("ub", "ub"): Pipe.V},
    # The raw Ascend C parameter forms (dialects/pto/params.py) run on the pipes of the
    # instructions they program: DataCopy ND2NZ MTE2, LoadData from L1 MTE1, Mmad M, Fixpipe FIX.
    "copy_nd2nz": {("gm", "l1"): Pipe.MTE2},
    "copy_dn2nz": {("gm", "l1"): Pipe.MTE2},
    "copy_gm_l1": {("gm", "l1"): Pipe.MTE2},  # DataCopy GM -> L1 (copy_gm_to_cbuf): MTE2
    "load_2d": {("l1", "l0a"): Pipe.MTE1, ("l1", "l0b"): Pipe.MTE1},
    # LoadData GM -> L1 (load_gm_to_cbuf): "指令执行占用的流水为PIPE_MTE2" (GMToL1-2D page)
    "load_2d_gm": {("gm", "l1"): Pipe.MTE2},
    "load_2d_transpose": {("l1", "l0a"): Pipe.MTE1, ("l1", "l0b"): Pipe.MTE1},
    "load_2d_v2": {("l1", "l0a"): Pipe.MTE1, ("l1", "l0b"): Pipe.MTE1},
    "load_2d_v2_gm": {("gm", "l1"): Pipe.MTE2},  # load_gm_to_cbuf_2dv2 (GMToL1-2D V2 page)
    "copy_l1_bt": {("l1", "bt"): Pipe.MTE1},  # copy_cbuf_to_bt: "流水类型 PIPE_MTE1"
    "mmad": {("l0a", "l0c"): Pipe.M},
    "fixpipe_copy": {("l0c", "gm"): Pipe.FIX, ("l0c", "l1"): Pipe.FIX, ("l0c", "ub"): Pipe.FIX},
}

NO_PIPE_KINDS: dict[str, str] = {
    "alloc": "reserves bytes at compile time; no instruction is issued",
    "reinterpret": "a view of a tile; no instruction is issued",
    "matmul": "lowered by pto-tile-matmul before it runs",
}
"""pto op kinds that never reach a pipe, with the reason (the exhaustiveness test reads it)."""


def _target_problem(kind: str, dst: str, target: Target) -> str | None:
    """Why `target` lacks the path of `kind` (to `dst`), or None when it has it."""
    if kind in ("fixpipe", "fixpipe_copy") and dst not in target.fixpipe_destinations:
        if not target.has_fixpipe:
            return f"target {target.name} has no fixpipe (no FIX pipe)"
        legal = ", ".join(f"l0c->{d}" for d in sorted(target.fixpipe_destinations))
        return f"target {target.name} has no fixpipe path l0c->{dst} (legal: {legal})"
    if kind in ("mte_gm_l1", "copy_nd2nz") and not target.nd2nz:
        return f"target {target.name} has no ND2NZ move gm->l1"
    if kind == "copy_dn2nz" and not target.dn2nz:
        return f"target {target.name} has no DN2NZ move gm->l1"
    if kind in ("mte_l1_bt", "copy_l1_bt", "mad_bias") and not target.mmad_bias:
        return f"target {target.name} has no bias table (bt)"
    if kind == "mte_l1_fb" and not target.capacity.get("fb"):
        return f"target {target.name} has no fixpipe buffer (fb)"
    if kind == "load_2d_transpose" and 8 not in target.transpose_bits:
        return f"target {target.name} has no LoadDataWithTranspose"
    if kind == "load_2d_gm" and target.arch == 3510:
        return (f"target {target.name} has no LoadData2DParams gm->l1 (Ascend 950 loads "
                f"gm->l1 with LoadData2DParamsV2)")
    if kind in ("load_2d_v2", "load_2d_v2_gm") and target.arch != 3510:
        return f"target {target.name} has no LoadData2DParamsV2 (Ascend 950 only)"
    if kind == "gather_mask" and not target.has_gather_mask:
        return f"target {target.name} has no GatherMask"
    return None


def pipe_of(kind: str, src: str, dst: str, target: Target) -> Pipe:
    """The pipe that executes op `kind` moving data from space `src` to space `dst` on `target`.

    PipeError when the target has no such path (e.g. L0C -> UB where fixpipe cannot write UB).
    """
    paths = _OP_PIPES.get(kind)
    if paths is None:
        raise PipeError(f"no pipe is known for op kind '{kind}'")
    pipe = paths.get((src, dst))
    if pipe is None:
        legal = ", ".join(f"{s}->{d}" for s, d in paths)
        raise PipeError(f"'{kind}' has no {src}->{dst} path (legal: {legal})")
    problem = _target_problem(kind, dst, target)
    if problem is not None:
        raise PipeError(f"'{kind}' {src}->{dst}: {problem}")
    return pipe


def op_kinds() -> tuple[str, ...]:
    """Every op kind with a pipe entry."""
    return tuple(_OP_PIPES)


def op_paths(kind: str) -> tuple[tuple[str, str], ...]:
    """The (src, dst) space pairs of op `kind` on some target (`pipe_of` says which target)."""
    return tuple(_OP_PIPES[kind])


# ------------------------------------------------------------------------------------------------
# set_flag / wait_flag
# ------------------------------------------------------------------------------------------------

# Ascend C `HardEvent` (source_destination): the 32 of the SetFlag/WaitFlag docs, the same for every
# target, plus MTE1_FIX, FIX_MTE1 and FIX_FIX of the open-source Ascend C header (kernel_event.h,
# also in its cube-core list HardEventAic). The pairs with FIX exist only where the target has a FIX
# pipe (the 910 / 310p-era docs mark them "not supported"; Ascend C has no PIPE_FIX on 1001 / 2002).
HARD_EVENTS: tuple[str, ...] = tuple(
    "MTE2_MTE1 MTE1_MTE2 MTE1_M M_MTE1 MTE2_V V_MTE2 MTE3_V V_MTE3 M_V V_M V_V MTE3_MTE1 "
    "MTE1_MTE3 MTE1_V MTE2_M M_MTE2 V_MTE1 M_FIX FIX_M MTE3_MTE2 MTE2_MTE3 S_V V_S S_MTE2 "
    "MTE2_S S_MTE3 MTE3_S MTE2_FIX FIX_MTE2 FIX_S M_S FIX_MTE3 MTE1_FIX FIX_MTE1 FIX_FIX".split()
)

_FLAG_PAIRS: frozenset[tuple[Pipe, Pipe]] = frozenset(
    (Pipe(src.lower()), Pipe(dst.lower())) for src, dst in (e.split("_") for e in HARD_EVENTS)
)


def flag_pairs(target: Target) -> frozenset[tuple[Pipe, Pipe]]:
    """The (src, dst) pipe pairs `set_flag`/`wait_flag` accept on `target`."""
    have = set(pipes(target))
    return frozenset(p for p in _FLAG_PAIRS if p[0] in have and p[1] in have)


_EVENT_IDS: dict[str, int] = {"910": 4}
"""Targets with fewer than the usual 8 event ids (0-3 on Atlas training series, 910)."""


def event_ids(target: Target) -> int:
    """Number of event ids per (src, dst) pair: ids 0 .. event_ids(target) - 1."""
    return _EVENT_IDS.get(target.name, 8)


def check_flag(src: str, dst: str, event: int | None, target: Target) -> tuple[Pipe, Pipe]:
    """The pipes of a `set_flag`/`wait_flag(src, dst, event)` on `target` (event None = runtime).

    PipeError naming the field, the value and the legal set: an unknown pipe name, `all`, a pair
    outside `flag_pairs(target)`, an event id outside [0, event_ids(target))."""
    checked = []
    names = ", ".join(p.value for p in pipes(target))
    for field, name in (("source pipe", src), ("destination pipe", dst)):
        if name == ALL_PIPES:
            raise PipeError(f"{field} 'all' is only legal in pipe_barrier (legal: {names})")
        if name not in PIPE_NAMES:
            raise PipeError(f"{field} '{name}' is not a pipe (legal: {names})")
        if Pipe(name) not in pipes(target):
            raise PipeError(f"{field} '{name}' is not a pipe of target {target.name} (legal: {names})")
        checked.append(Pipe(name))
    pair = (checked[0], checked[1])
    legal = flag_pairs(target)
    if pair not in legal:
        shown = ", ".join(f"{a}->{b}" for a, b in sorted(legal))
        raise PipeError(
            f"pipe pair {pair[0]}->{pair[1]} is not a flag pair on target {target.name} "
            f"(legal: {shown})"
        )
    count = event_ids(target)
    if event is not None and not 0 <= event < count:
        raise PipeError(
            f"event id {event} is out of range for target {target.name} (legal: 0..{count - 1})"
        )
    return pair


# ------------------------------------------------------------------------------------------------
# Order inside one pipe
# ------------------------------------------------------------------------------------------------

# The scalar pipe keeps its own order in hardware (and `pipe_barrier(s)` is a hardware error).
# Every other pipe may start an instruction before a dependent earlier one of the same pipe has
# finished: Ascend C requires PipeBarrier between dependent instructions of one pipe (vector
# instructions, overlapping MTE2 / MTE3 copies, ...), and AscendNPU-IR's sync injection inserts
# `pipe_barrier(pipe)` for every same-pipe dependency except scalar ones.
_BARRIER_PIPES: frozenset[Pipe] = frozenset(Pipe) - {Pipe.S}


def needs_same_pipe_barrier(pipe: Pipe) -> bool:
    """True if two dependent instructions on `pipe` must be separated by `pipe_barrier(pipe)`.

    For the cube (M) this is the answer without sizes; `mad_needs_barrier(m, n)` refines it."""
    return pipe in _BARRIER_PIPES


MAD_BARRIER_FRACTALS = 10
"""A mad writing fewer than this many 16 x 16 output fractals needs `pipe_barrier(m)` before a
dependent M instruction (Ascend C tile libraries: PipeBarrier<PIPE_M> when (m/16)*(n/16) < 10)."""


def mad_needs_barrier(m: int, n: int) -> bool:
    """True if a mad of m x n outputs needs `pipe_barrier(m)` before the next mad that reads or
    writes its L0C bytes; larger mads finish writing before a following mad reaches them."""
    return (m // 16) * (n // 16) < MAD_BARRIER_FRACTALS


def barrier_pipes(target: Target) -> tuple[str, ...]:
    """The operands `pipe_barrier` accepts on `target`: its pipes but S, and `all`."""
    return tuple(p.value for p in pipes(target) if p is not Pipe.S) + (ALL_PIPES,)


def check_barrier(pipe: str, target: Target) -> Pipe | str:
    """The pipe of `pipe_barrier(pipe)` (`ALL_PIPES` for `all`); PipeError when illegal."""
    legal = barrier_pipes(target)
    if pipe not in legal:
        why = (
            " (the scalar pipe keeps its order in hardware; a barrier on it is a hardware error)"
            if pipe == Pipe.S.value
            else ""
        )
        raise PipeError(
            f"pipe '{pipe}' is not legal in pipe_barrier on target {target.name}{why} "
            f"(legal: {', '.join(legal)})"
        )
    return ALL_PIPES if pipe == ALL_PIPES else Pipe(pipe)


# --- cores ----------------------------------------------------------------------------------------

CUBE_CORES: dict[str, int] = {
    # CANN platform_config/<soc>.ini [SoCInfo] ai_core_cnt / cube_core_cnt: Ascend910B1/B2 = 24
    # (a2), Ascend910_93 = 24 (a3), as printed in the CANN docs and Ascend tutorials
    # (https://www.hiascend.com/document, "platform_config ... ai_core_cnt=24").
    "a2": 24,
    "a3": 24,
    # ASSUMPTION: Ascend 910 (first generation): 32 Da Vinci AI Cores (Huawei's product
    # announcement); 310P and 200I A2: 8 and 4 AI Cores; 950 (a5): 32. No platform_config
    # figure checked.
    "910": 32,
    "310p": 8,
    "200i_a2": 4,
    "a5": 32,
}
"""AI Cores (cube cores) per chip: the largest launch size (`--blocks`, block_num) of a kernel.
Launching more logical blocks than cores runs them in rounds, and a kernel with the all-core
barrier (SyncAll) then hangs (Ascend C SyncAll constraint), so mmair rejects it."""


def core_count(target: Target) -> int:
    """The number of AI Cores of `target` (`CUBE_CORES`)."""
    return CUBE_CORES[target.name]


def check_blocks(blocks: int, target: Target) -> None:
    """Raise PipeError unless 1 <= blocks <= the target's core count."""
    cores = core_count(target)
    if not 1 <= blocks <= cores:
        raise PipeError(f"launch size {blocks} blocks is not in 1..{cores}: target {target.name} "
                        f"has {cores} AI Cores")
