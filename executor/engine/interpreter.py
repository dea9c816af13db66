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
  issued to the pipe scheduler (`executor/engine/seam.py`) instead of running at once;
* each block is decoded once into a plan (`_BlockPlan`: per op its operands, results, name,
  seam handler and implementation), so the region loop does no per-op look-ups; `_step` is the
  same logic for single ops (`run_op`). With the checker off, `set_flag` / `wait_flag` /
  `pipe_barrier` do nothing and are only counted;
* `max_ops` bounds the number of executed ops (runaway loops end with an `ExecutionError`).
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

from xdsl.dialects import func
from xdsl.interpreter import Interpreter, PythonValues, ReturnedValues, Successor
from xdsl.ir import Block, Operation, Region

from mmair.dialects.pto import PipeBarrierOp, SetFlagOp, WaitFlagOp
from mmair.executor.engine.errors import ExecutionError, op_fault

BUDGET_WEIGHTS: dict[str, int] = {
    # An op of these kinds counts as this many ops of the `max_ops` budget: it moves or
    # multiplies whole tiles (measured here: a tcgen05 TMA + MMA ring runs ~400 us per MMA and
    # TMA copy and ~50 us per other tcgen05 op, against ~2.5 us for a scalar op), so a runaway
    # loop of them would run for a minute before the default limit; weighted, it stops in
    # seconds like a scalar loop.
    "tcgen05.mma": 128, "tcgen05.tma_load": 128, "tcgen05.ld": 32, "tcgen05.st": 32,
    "tcgen05.cp": 32,
}
TCGEN05_WEIGHT = 8
"""Every other tcgen05 op (barriers, fences, allocation)."""


def budget_weight(name: str) -> int:
    """How many ops of the `max_ops` budget an op named `name` takes."""
    weight = BUDGET_WEIGHTS.get(name)
    if weight is None:
        weight = TCGEN05_WEIGHT if name.startswith("tcgen05.") else 1
    return weight


_SYNC_OPS = (SetFlagOp, WaitFlagOp, PipeBarrierOp)
"""Ops that do nothing without the sync checker (they order pipes; the checker-off run is
sequential): a plan without a seam only counts them."""

# How a plan runs an op (`_BlockPlan`).
_CALL = 0  # its implementation, which returns (values, terminator) (xDSL's `OpImplResult`)
_CALL_VALUES = 1  # the function under xDSL's `@impl` wrapper, which returns the values only
_HANDLER = 2  # the seam's handler (a pipe or sync op with the checker on)
_COUNT = 3  # nothing to run (a sync op without the checker)
_MISSING = 4  # no implementation: an error when it runs
_STEP = 5  # the seam's step without operands (`op_step`: a set_flag / wait_flag with a static id)
_PIPE_STEP = 6  # the seam's step of a result-less pipe op, called with the operands (`pipe_step`)


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
    _env: dict[int, Any] = field(default_factory=dict)
    """Values by `id` of their SSA value: xDSL's `SSAValue.__hash__` is a Python method, and
    hashing through it took about a third of the region loop."""
    _plans: dict[int, tuple] = field(default_factory=dict)
    """Decoded blocks by id (`_plan`), valid for `_plans_seam`."""
    _plans_seam: Any = None

    # --- value environment (also used by upstream implementations, if any are registered) ---
    def get_values(self, values) -> tuple[Any, ...]:
        env = self._env
        return tuple([env[id(v)] for v in values])

    def set_values(self, pairs) -> None:
        env = self._env
        for ssa_value, value in pairs:
            env[id(ssa_value)] = value

    def push_frame(self) -> dict[int, Any]:
        """Start a new function frame; returns the caller's frame for `pop_frame`."""
        saved = self._env
        self._env = {}
        return saved

    def pop_frame(self, saved: dict[int, Any]) -> None:
        self._env = saved

    def push_scope(self, name: str | None = None) -> None:  # regions share the frame
        pass

    def pop_scope(self) -> None:
        pass

    def release(self) -> None:
        """Drop the run's state once it is over: the block plans hold the seam's handlers and
        steps (closures over this interpreter) and the seam's handlers are its bound methods,
        reference cycles that would keep the run's GM views, tiles and events alive until the
        next garbage collection (`run_module` calls this when the kernel ends)."""
        self._plans.clear()
        self._plans_seam = None
        self._env = {}
        seam, self.seam = self.seam, None
        if seam is not None:
            seam.handlers = {}

    def __post_init__(self) -> None:
        self._ops_left = self.max_ops if self.max_ops is not None else sys.maxsize

    def _over_budget(self, op: Operation) -> ExecutionError:
        return ExecutionError(
            f"execution exceeded {self.max_ops} operations (raise the limit with --max-ops)", op
        )

    def run_op(self, op, inputs: PythonValues = ()) -> PythonValues:
        """xDSL's `Interpreter.run_op` (one op) through `_step`, as in a run: counted, budgeted
        and issued through the seam (the inherited one would call the implementation
        directly, unchecked)."""
        if not isinstance(op, Operation):
            op = self.get_op_for_symbol(op)
        return self._step(op, tuple(inputs))[0]

    def _step(self, op: Operation, args: tuple[Any, ...]) -> tuple[PythonValues, Any]:
        """Run one op: count it, enforce the budget, issue it through the seam (or call its
        implementation), and turn any failure into an `ExecutionError` at the op. Both region
        loops (`run_op`, `run_ssacfg_region`) go through here; it is the executor's one seam."""
        self.op_counts[op.name] += 1
        self._ops_left -= budget_weight(op.name)
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

    def _plan(self, block: Block) -> tuple:
        """(block, ids of its arguments, ((how, op, operand ids, result ids, name, fn, ft), ...))
        of `block`, for the current seam: everything `_step` looks up per op, resolved once."""
        seam = self.seam
        if seam is not self._plans_seam:  # plans hold the seam's handlers
            self._plans.clear()
            self._plans_seam = seam
        impls = self._impls._impl_dict  # pyright: ignore[reportPrivateUsage]
        handlers = seam.handlers if seam is not None else {}
        entries = []
        for op in block.ops:
            handler = handlers.get(type(op))
            entry = impls.get(type(op))
            ft = fn = None
            step = None
            pipe_step = None
            if handler is not None:
                op_step = getattr(seam, "op_step", None)
                step = op_step(self, op) if op_step is not None else None
                if step is None and hasattr(seam, "pipe_step"):
                    pipe_step = seam.pipe_step(self, op)
            if step is not None:
                how, fn = _STEP, step
            elif pipe_step is not None:
                how, fn = _PIPE_STEP, pipe_step
            elif handler is not None:
                how, fn = _HANDLER, handler
            elif (seam is None or getattr(seam, "sync_ops_idle", False)) \
                    and isinstance(op, _SYNC_OPS):
                how = _COUNT
            elif entry is None:
                how = _MISSING
            else:
                ft, fn = entry
                how, unwrapped = _CALL, _values_function(fn)
                if unwrapped is not None:
                    how, fn = _CALL_VALUES, unwrapped
            entries.append([how, op, _operand_getter(tuple(map(id, op.operands))),
                            tuple(map(id, op.results)), op.name, fn, ft, 0])
        # The op budget is taken per segment: the ops up to and including the next one that
        # runs other ops (regions, calls). No other op runs between a segment's first op and
        # its last one's start, so taking them at once stops a run at the op it would reach
        # op by op (and a segment that does not fit is taken op by op).
        start = 0
        weight = 0
        for i, entry in enumerate(entries):
            op = entry[1]
            weight += budget_weight(entry[4])
            if op.regions or isinstance(op, func.CallOp) or i == len(entries) - 1:
                entries[start][7] = weight
                start, weight = i + 1, 0
        plan = self._plans[id(block)] = (block, tuple(map(id, block.args)),
                                         tuple(map(tuple, entries)),
                                         tuple(Counter(e[4] for e in entries).items()))
        return plan

    def _uncount(self, entries: tuple, failed: Operation | None) -> None:
        """A block counted in bulk stopped at `failed` (None: before its first op): the ops
        after it did not run."""
        counts = self.op_counts
        after = failed is None
        for entry in entries:
            if after:
                name = entry[4]
                counts[name] -= 1
                if not counts[name]:
                    del counts[name]
            elif entry[1] is failed:
                after = True

    def run_ssacfg_region(self, region: Region, args: PythonValues, name: str = "unknown") -> PythonValues:
        block = region.blocks.first
        env = self._env
        counts = self.op_counts
        seam = self.seam
        # kernels on threads (`IssueSeam.start_threads`, before the run): ops touching memory
        # wait for them
        threaded = seam is not None and getattr(seam, "threads", None) is not None
        plans = self._plans
        while block is not None:
            plan = plans.get(id(block))
            if plan is None or plan[0] is not block or seam is not self._plans_seam:
                plan = self._plan(block)
            _, block_args, entries, block_counts = plan
            for arg, value in zip(block_args, args, strict=True):
                env[arg] = value
            block = None
            # The block's ops are counted at once (a failure uncounts the ops after the
            # faulting one), the budget per segment (`_plan`).
            for op_name, n in block_counts:
                counts[op_name] += n
            op = None
            slow = False  # a segment did not fit the budget: op by op for the rest
            try:
                for how, op, operands, results, _op_name, fn, ft, segment in entries:
                    if segment and not slow:
                        if self._ops_left >= segment:
                            self._ops_left -= segment
                        else:
                            slow = True
                    if slow:
                        self._ops_left -= budget_weight(_op_name)
                        if self._ops_left < 0:
                            raise self._over_budget(op)
                    if how == _COUNT:
                        continue
                    if how == _STEP:  # no operands to read, no values to bind
                        try:
                            fn()
                        except RecursionError:
                            raise
                        except Exception as err:
                            raise op_fault(op, err) from None
                        continue
                    args = operands(env)
                    if how == _PIPE_STEP:  # no values to bind
                        try:
                            if seam.produced:
                                args = seam.scalar_reads(self, op, args)
                            fn(args)
                        except RecursionError:
                            raise
                        except Exception as err:
                            raise op_fault(op, err) from None
                        continue
                    try:
                        if seam is not None:
                            if seam.produced:
                                args = seam.scalar_reads(self, op, args)
                            if threaded and how != _HANDLER and seam.threads is not None:
                                seam.scalar_op(op)  # an op touching memory waits for the kernels
                        if how == _CALL_VALUES:
                            values = fn(ft, self, op, args)
                            terminator = None
                        elif how == _MISSING:
                            raise _unimplemented(op)
                        elif how == _HANDLER:
                            values, terminator = fn(self, op, args)
                        else:
                            values, terminator = fn(ft, self, op, args)
                    except RecursionError:  # deep func.call nesting: reported once, by the runner
                        raise
                    except Exception as err:  # numpy or Python failure inside an implementation
                        raise op_fault(op, err) from None
                    if values:
                        for res, value in zip(results, values, strict=True):
                            env[res] = value
                    if terminator is not None:
                        if isinstance(terminator, ReturnedValues):
                            return terminator.values
                        assert isinstance(terminator, Successor)
                        block, args = terminator
                        break
            except BaseException:
                self._uncount(entries, op)
                raise
        return ()


def _no_operands(env: dict) -> tuple:
    return ()


def _operand_getter(keys: tuple[int, ...]) -> Any:
    """env -> the op's operand values as a tuple, in C for two or more operands
    (`operator.itemgetter`; a list comprehension per op cost ~0.4 us)."""
    if not keys:
        return _no_operands
    if len(keys) == 1:
        (key,) = keys
        return lambda env: (env[key],)
    return itemgetter(*keys)


def _values_function(fn: Any) -> Any:
    """The function under xDSL's `@impl` wrapper (`impl(ft, interp, op, args)` returns
    `OpImplResult(func(...), None)`), called directly to save a frame and a tuple per op; None
    for any other implementation (terminators, upstream registrations of another shape)."""
    if getattr(fn, "__qualname__", "") != "impl.<locals>.annot.<locals>.impl":
        return None
    closure = fn.__closure__ or ()
    if fn.__code__.co_freevars != ("func",) or len(closure) != 1:
        return None
    return closure[0].cell_contents
