"""`tcgen05.mbarrier_inval` and the re-initialisation of an mbarrier (PTX ISA mbarrier.init /
mbarrier.inval): an init of a live barrier is refused, an invalidated barrier takes only an init,
and the asynchronous checker sees the re-initialised barrier as a new one."""

from __future__ import annotations

import pytest
from sync_testing import line_of, parse

from mmair.executor.engine.errors import ExecutionError
from mmair.executor.engine.events import SyncError
from mmair.executor.runner import run_module
from mmair.tools.diagnostics import op_location

_SMEM = "memref<1xi64, #tcgen05.space<smem>>"


def _module(body: str) -> str:
    return (f'builtin.module attributes {{tcgen05.target = "sm_100a"}} {{\n'
            f"  func.func @k() {{\n"
            f"    %bar = tcgen05.smem_alloc offset(16) : {_SMEM}\n"
            f"    %p0 = arith.constant false\n"
            f"{body}"
            f"    func.return\n  }}\n}}\n")


_LIFE = (f"    tcgen05.mbarrier_init %bar count(1) : {_SMEM}\n"
         f"    tcgen05.commit cta_group(1) %bar : {_SMEM}\n"
         f"    tcgen05.mbarrier_wait %bar, %p0 : {_SMEM}\n")
_INVAL = f"    tcgen05.mbarrier_inval %bar : {_SMEM}\n"


@pytest.mark.parametrize("sync_check", [False, True])
def test_init_of_a_live_mbarrier_is_refused(sync_check: bool) -> None:
    text = _module(_LIFE + f"    tcgen05.mbarrier_init %bar count(1) : {_SMEM}\n")
    with pytest.raises(ExecutionError, match=(
            r"initialises the mbarrier at SMEM 0x10 again while it is live \(initialised and not "
            r"invalidated; phase 1, 1 of 1 arrivals pending, 0 of 0 expected transaction bytes "
            r"arrived\): PTX ISA mbarrier.init of a valid mbarrier object is undefined behaviour; "
            r"tcgen05.mbarrier_inval it first")) as info:
        run_module(parse(text), sync_check=sync_check)
    inits = [i + 1 for i, x in enumerate(text.splitlines()) if "mbarrier_init" in x]
    assert op_location(info.value.op)[1] == inits[-1]


@pytest.mark.parametrize("sync_check", [False, True])
def test_inval_then_init_starts_a_new_barrier_at_phase_0(sync_check: bool) -> None:
    # The second life's first wait is for parity 0 again: it observes the second commit's phase.
    # (Were the first life's phase kept, the wait would alias phase 0 of the first life and the
    # second commit would be reported as never waited.)
    result = run_module(parse(_module(_LIFE + _INVAL + _LIFE + _INVAL)), sync_check=sync_check)
    assert result.op_counts["tcgen05.mbarrier_inval"] == 2


@pytest.mark.parametrize("sync_check", [False, True])
def test_an_invalidated_mbarrier_takes_only_an_init(sync_check: bool) -> None:
    text = _module(_LIFE + _INVAL + f"    tcgen05.mbarrier_arrive %bar : {_SMEM}\n")
    with pytest.raises(ExecutionError, match=(
            r"uses the mbarrier at SMEM 0x10 after tcgen05.mbarrier_inval \(PTX ISA "
            r"mbarrier.inval: only mbarrier.init may follow; any other operation on an "
            r"invalidated mbarrier is undefined\)")):
        run_module(parse(text), sync_check=sync_check)
    with pytest.raises(ExecutionError, match=r"uses the mbarrier at SMEM 0x10 before "
                                             r"tcgen05.mbarrier_init"):
        run_module(parse(_module(_INVAL)), sync_check=sync_check)


def test_inval_while_a_commit_may_still_arrive_is_a_race() -> None:
    # The commit's arrival is asynchronous: until a wait observes its phase, it may land on the
    # barrier after the inval.
    text = _module(f"    tcgen05.mbarrier_init %bar count(1) : {_SMEM}\n"
                   f"    tcgen05.commit cta_group(1) %bar : {_SMEM}\n" + _INVAL)
    with pytest.raises(SyncError, match=(
            r"op race: invalidates the mbarrier at SMEM 0x10 \(%bar\) while the arrival of "
            r"'tcgen05.commit' at k.mlir:6:5 \(the tensor core's async unit\) on it may still be "
            r"in flight \(no tcgen05.mbarrier_wait observed the phase it completes\): an arrival "
            r"on an invalidated mbarrier is undefined \(PTX ISA mbarrier.inval\); wait for that "
            r"phase first$")) as info:
        run_module(parse(text), sync_check=True)
    assert info.value.kind == "race"
    assert op_location(info.value.op)[1] == line_of(text, "mbarrier_inval")
    # The thread's own arrivals are done when it issues them: nothing is in flight.
    run_module(parse(_module(f"    tcgen05.mbarrier_init %bar count(1) : {_SMEM}\n"
                             f"    tcgen05.mbarrier_arrive %bar : {_SMEM}\n" + _INVAL)),
               sync_check=True)


def test_inval_prints_as_ptx_mbarrier_inval_after_a_block_barrier() -> None:
    from mmair.passes.tcgen05_to_ptx import emit_ptx

    ptx = emit_ptx(parse(_module(_LIFE + _INVAL)))
    lines = [x.strip() for x in ptx.splitlines()]
    at = next(i for i, x in enumerate(lines) if x.startswith("mbarrier.inval"))
    init = next(x for x in lines if x.startswith("mbarrier.init"))
    address = init.split("[")[1].split("]")[0]  # the same SMEM address register
    assert lines[at] == f"mbarrier.inval.shared::cta.b64 [{address}];"
    # every thread passed its wait, then thread 0 (the leader predicate) invalidates
    assert lines[at - 2] == "bar.sync 0;" and lines[at - 1].startswith("@!%p0 bra ")
