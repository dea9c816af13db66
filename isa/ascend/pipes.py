"""Ascend AI Core pipes: which pipe runs each op, legal flag pairs, event ids, barrier rules.

An AI Core's scalar unit (pipe S) walks the kernel in program order and issues every data-movement
and compute instruction into the in-order queue of one pipe: MTE2 (GM -> L1 / UB), MTE1
(L1 -> L0A / L0B / BT), M (the cube: mad), FIX (fixpipe: L0C -> GM / L1 / UB), V (vector unit,
GatherMask), MTE3 (UB -> GM). The queues run concurrently; the only cross-pipe ordering is
`set_flag(src, dst, id)` / `wait_flag(src, dst, id)` (a hardware bit per pipe pair and event id) and
`pipe_barrier(pipe)` (or `pipe_barrier(all)`).

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


# The pipe of a data-movement / compute op, by op kind and (source space, destination space).
# Op kinds are the pto op names without the dialect prefix. Exhaustive by design: an op kind with a
# memory effect and no entry is an error (a wrong default pipe is itself a classic race source).
_OP_PIPES: dict[str, dict[tuple[str, str], Pipe]] = {
    "mte_gm_l1": {("gm", "l1"): Pipe.MTE2},
    "mte_gm_ub": {("gm", "ub"): Pipe.MTE2},
    "mte_ub_gm": {("ub", "gm"): Pipe.MTE3},
    "mte_l1_l0a": {("l1", "l0a"): Pipe.MTE1},
    "mte_l1_l0b": {("l1", "l0b"): Pipe.MTE1},
    "mte_l1_bt": {("l1", "bt"): Pipe.MTE1},
    "mad": {("l0a", "l0c"): Pipe.M},
    "mad_acc": {("l0a", "l0c"): Pipe.M},
    "mad_bias": {("l0a", "l0c"): Pipe.M},
    "fixpipe": {("l0c", "gm"): Pipe.FIX, ("l0c", "l1"): Pipe.FIX, ("l0c", "ub"): Pipe.FIX},
    "gather_mask": {("ub", "ub"): Pipe.V},
}


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
    if pipe is Pipe.FIX and dst not in target.fixpipe_destinations:
        raise PipeError(f"target {target.name} has no fixpipe path l0c->{dst}")
    return pipe


def op_kinds() -> tuple[str, ...]:
    """Every op kind with a pipe entry."""
    return tuple(_OP_PIPES)


# Legal set_flag/wait_flag pairs (Ascend C HardEvent, source_target).
_FLAG_PAIRS: frozenset[tuple[Pipe, Pipe]] = frozenset(
    (Pipe(src.lower()), Pipe(dst.lower()))
    for src, dst in (
        pair.split("_")
        for pair in (
            "MTE2_MTE1 MTE1_MTE2 MTE1_M M_MTE1 MTE2_V V_MTE2 MTE3_V V_MTE3 M_V V_M V_V MTE3_MTE1 "
            "MTE1_MTE3 MTE1_V MTE2_M M_MTE2 V_MTE1 M_FIX FIX_M MTE3_MTE2 MTE2_MTE3 S_V V_S S_MTE2 "
            "MTE2_S S_MTE3 MTE3_S MTE2_FIX FIX_MTE2 FIX_S M_S FIX_MTE3"
        ).split()
    )
)


def flag_pairs(target: Target) -> frozenset[tuple[Pipe, Pipe]]:
    """The (src, dst) pipe pairs `set_flag`/`wait_flag` accept on `target`."""
    if target.has_fixpipe:
        return _FLAG_PAIRS
    return frozenset(p for p in _FLAG_PAIRS if Pipe.FIX not in p)


def event_ids(target: Target) -> int:
    """Number of event ids per (src, dst) pair: ids 0 .. event_ids(target) - 1."""
    return 4 if target.name == "910" else 8


# Pipes whose queue may start an instruction before the previous one of the same pipe has
# finished: dependent instructions on them need `pipe_barrier(pipe)` in between.
_BARRIER_PIPES: frozenset[Pipe] = frozenset({Pipe.V})


def needs_same_pipe_barrier(pipe: Pipe) -> bool:
    """True if two dependent instructions on `pipe` must be separated by `pipe_barrier(pipe)`."""
    return pipe in _BARRIER_PIPES
