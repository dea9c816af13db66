"""The execution units of one CTA that the tcgen05 concurrency model orders (pure data).

PTX ISA, "Tensor Core 5th Generation Family Instructions", memory consistency model of tcgen05
(§9.7.16.6; https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-memory-consistency-model):

* `thread`: the issuing thread, in program order. It issues every tcgen05 instruction; the data
  it wrote to shared memory before issuing an MMA or cp is what the async op reads (mmair does not
  model the async proxy: `fence.proxy.async` is taken as given).
* `tc`: the tensor core's asynchronous unit. `tcgen05.mma`, `tcgen05.cp` and `tcgen05.shift` of
  one thread execute in issue order with respect to each other (the "pipelined" pairs of the ISA)
  but asynchronously to the thread: their SMEM reads and TMEM reads/writes may happen at any time
  until `tcgen05.commit` makes an mbarrier track their completion and the thread observes the
  completed phase (`mbarrier.try_wait.parity`).
* `tma`: the Tensor Memory Accelerator. `cp.async.bulk.tensor` writes its box to SMEM
  asynchronously; the thread (and the MMAs it issues) may use the bytes only after observing the
  mbarrier phase that the copy's complete-tx finished (PTX ISA §9.7.9.25.5.2: the copy is a weak
  memory operation, its complete-tx has release semantics). One lane in issue order: two copies
  are ordered with each other (an approximation: copies to the same bytes are not checked).
* `ld` / `st`: the warp's TMEM load and store paths. `tcgen05.ld` / `tcgen05.st` are
  asynchronous: registers loaded by `ld` are defined, and TMEM written by `st` is visible, only
  after `tcgen05.wait::ld` / `tcgen05.wait::st`.

Every unit is in order with itself. The thread's earlier accesses happen before an op it issues
(program order); nothing orders a unit's accesses before a later thread access except the
waits above.
"""

from __future__ import annotations

from enum import StrEnum


class Unit(StrEnum):
    """A lane of the concurrency engine for a tcgen05 kernel (module docstring). The values do
    not collide with the Ascend pipe names (`isa.ascend.pipes.Pipe`): both are lane names."""

    THREAD = "thread"
    TC = "tc"
    TMA = "tma"
    LD = "ld"
    ST = "st"


UNITS: tuple[Unit, ...] = tuple(Unit)

LABELS: dict[Unit, str] = {
    Unit.THREAD: "the issuing thread",
    Unit.TC: "the tensor core's async unit",
    Unit.TMA: "the tensor memory accelerator",
    Unit.LD: "the TMEM load path",
    Unit.ST: "the TMEM store path",
}

_ORDERED_BY: dict[Unit, str] = {
    Unit.TC: "no tcgen05.commit after it whose mbarrier phase the thread waited "
             "(tcgen05.mbarrier_wait) orders them",
    Unit.TMA: "no tcgen05.mbarrier_wait on the mbarrier phase its complete-tx finished orders "
              "them",
    Unit.LD: "no tcgen05.wait_ld after it orders them",
    Unit.ST: "no tcgen05.wait_st after it orders them",
    Unit.THREAD: "the async op does not wait for the thread's later accesses",
}


def why_unordered(first: Unit, second: Unit) -> str:
    """Why an access by unit `first` is not ordered before a later one by unit `second`."""
    if first is Unit.THREAD and second is not Unit.THREAD:
        return (f"the access of {LABELS[second]} was issued before the thread's access, and "
                "nothing orders an async op after later thread accesses")
    return _ORDERED_BY[first]


TMEM_ROW_BYTES = 2048
"""Bytes of one TMEM lane in the engine's byte addressing (512 columns x 4 bytes): a TMEM cell
(lane, column) is byte `lane * 2048 + column * 4` of space "tmem"."""


def tmem_rectangle(start: int, width: int, rows: int) -> tuple[int, int, int, int]:
    """(first lane, end lane, first column, end column) of a TMEM access of the engine: `rows`
    lanes of `width` bytes from byte `start` (one lane = `TMEM_ROW_BYTES`)."""
    lane, column = divmod(start, TMEM_ROW_BYTES)
    return lane, lane + max(rows, 1), column // 4, (column + width + 3) // 4


def tmem_overlap_text(a: tuple[int, int, int], b: tuple[int, int, int]) -> str:
    """`TMEM lanes [0, 128) x columns [0, 64)`: the cells both (start, width, rows) accesses
    touch."""
    a0, a1, ac0, ac1 = tmem_rectangle(*a)
    b0, b1, bc0, bc1 = tmem_rectangle(*b)
    return (f"TMEM lanes [{max(a0, b0)}, {min(a1, b1)}) x columns [{max(ac0, bc0)}, "
            f"{min(ac1, bc1)})")
