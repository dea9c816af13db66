"""A lean xDSL interpreter for mmair kernels.

xDSL's `Interpreter` keeps SSA values in a `ScopedDict` (one scope push per region entry), calls
listeners around every op and wraps every failing op in a diagnostic that prints the whole module.
For kernels that run thousands of loop iterations that overhead dominates, so `MmairInterpreter`
keeps the xDSL registration API (`InterpreterFunctions`, `@impl`, `register_implementations`) but
runs regions with its own loop:

* SSA values live in one plain dict per function frame (SSA dominance makes scoping unnecessary;
  a `func.call` gets a fresh frame, so recursion works);
* operations are counted inline (`op_counts`, by op name) instead of by a listener;
* any exception from an op implementation becomes an `ExecutionError` that carries the innermost
  faulting op, so the tool can print its source location;
* every op goes through one seam (`_step`): with the sync checker on (`seam`), pipe ops are
  issued to the pipe scheduler (`executor/seam.py`) instead of running at once;
* `max_ops` bounds the number of executed ops (runaway loops end with an `ExecutionError`).
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from xdsl.interpreter import Interpreter, PythonValues, ReturnedValues, Successor
from xdsl.ir import Operation, Region, SSAValue

from mmair.executor.errors import ExecutionError, op_fault


def _unimplemented(op: Operation) -> ExecutionError:
    """Ops with a lowering (pto.matmul, tcgen05.make_*) are run after `mmair-lower`, not here."""
    return ExecutionError(
        f"no implementation for op '{op.name}' in the executor; ops with a lowering run after "
        "it (e.g. mmair-run -p mmair-lower)",
        op,
    )


@dataclass
class MmairInterpreter(Interpreter):
    op_counts: Counter[str] = field(default_factory=Counter)
    """How many times each op (by name) was executed."""
    max_ops: int | None = None
    """Bound on the number of executed ops (None: unbounded); exceeding it is an ExecutionError,
    so a runaway loop (`scf.for` to 2^62, a `scf.while` that never stops) ends with a diagnostic."""
    seam: Any = None
    """`executor.seam.IssueSeam` when the sync checker is on: pipe ops go to the scheduler;
    None runs every op at once (no concurrency model, today's speed)."""
    iteration: tuple[tuple[Any, int], ...] = ()
    """((scf.for op, induction value), ...) of the loops being run, outermost first: the
    sync checker's events carry it (messages name the iterations)."""
    _ops_left: int = -1
    _env: dict[SSAValue, Any] = field(default_factory=dict)

    # --- value environment (also used by upstream implementations, if any are registered) ---
    def get_values(self, values) -> tuple[Any, ...]:
        env = self._env
        return tuple([env[v] for v in values])

    def set_values(self, pairs) -> None:
        env = self._env
        for ssa_value, value in pairs:
            env[ssa_value] = value

    def push_frame(self) -> dict[SSAValue, Any]:
        """Start a new function frame; returns the caller's frame for `pop_frame`."""
        saved = self._env
        self._env = {}
        return saved

    def pop_frame(self, saved: dict[SSAValue, Any]) -> None:
        self._env = saved

    def push_scope(self, name: str | None = None) -> None:  # regions share the frame
        pass

    def pop_scope(self) -> None:
        pass

    def __post_init__(self) -> None:
        self._ops_left = self.max_ops if self.max_ops is not None else sys.maxsize

    def _over_budget(self, op: Operation) -> ExecutionError:
        return ExecutionError(
            f"execution exceeded {self.max_ops} operations (raise the limit with --max-ops)", op
        )

    def run_op(self, op, inputs: PythonValues = ()) -> PythonValues:
        if not isinstance(op, Operation):
            op = self.get_op_for_symbol(op)
        return self._step(op, tuple(inputs))[0]

    def _step(self, op: Operation, args: tuple[Any, ...]) -> tuple[PythonValues, Any]:
        """Run one op: count it, enforce the budget, issue it through the seam (or call its
        implementation), and turn any failure into an `ExecutionError` at the op. Both region
        loops (`run_op`, `run_ssacfg_region`) go through here; it is the executor's one seam."""
        self.op_counts[op.name] += 1
        self._ops_left -= 1
        if self._ops_left < 0:
            raise self._over_budget(op)
        try:
            seam = self.seam
            if seam is not None:
                if seam.produced:
                    args = seam.scalar_reads(self, op, args)
                handler = seam.handlers.get(type(op))
                if handler is not None:
                    return handler(self, op, args)
                if getattr(seam, "threads", None) is not None:  # kernels on threads:
                    seam.scalar_op(op)  # an op touching memory waits for them
            entry = self._impls._impl_dict.get(type(op))  # pyright: ignore[reportPrivateUsage]
            if entry is None:
                raise _unimplemented(op)
            ft, fn = entry
            return fn(ft, self, op, args)
        except RecursionError:  # deep func.call nesting: reported once, by the runner
            raise
        except Exception as err:  # numpy or Python failure inside an implementation
            raise op_fault(op, err) from None

    def run_ssacfg_region(self, region: Region, args: PythonValues, name: str = "unknown") -> PythonValues:
        block = region.blocks.first
        env = self._env
        step = self._step
        while block is not None:
            for arg, value in zip(block._args, args, strict=True):  # pyright: ignore[reportPrivateUsage]
                env[arg] = value
            op = block.first_op
            block = None
            while op is not None:
                values, terminator = step(op, tuple([env[v] for v in op._operands]))  # pyright: ignore[reportPrivateUsage]
                if values:
                    for res, value in zip(op.results, values, strict=True):
                        env[res] = value
                if terminator is not None:
                    if isinstance(terminator, ReturnedValues):
                        return terminator.values
                    assert isinstance(terminator, Successor)
                    block, args = terminator
                    break
                op = op.next_op
        return ()
