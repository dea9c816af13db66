"""Run a kernel: `run_module(module, entry, inputs)` executes one function of a verified module on
the simulated Ascend core and returns its GM outputs and statistics.

The entry function's memref arguments are GM buffers: each gets a C-contiguous copy of the input
array of that name (missing ones are filled with seeded random data, see `random_array`), and after
the run `RunResult.outputs` holds every memref argument by name. Index/integer arguments take Python
ints from `inputs`. Argument names are the SSA names of the source (`%a` -> `a`) when the parser kept
them, else `arg0, arg1, ...`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    IndexType,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
)
from xdsl.ir import Attribute, SSAValue

from mmair.dialects.pto.types import TileType
from mmair.dialects.types import element_name, memref_dtype
from mmair.dialects.value_names import value_name
from mmair.executor.engine.blas import one_blas_thread
from mmair.executor.engine.errors import ExecutionError
from mmair.executor.engine.gc_scope import no_full_collection
from mmair.executor.engine.interpreter import MmairInterpreter
from mmair.executor.engine.memory import Memory, ReadOnlyGm
from mmair.executor.tile_args import TileArgument, place_tile_arguments
from mmair.executor.upstream.arith import ArithFunctions
from mmair.executor.upstream.func import FuncFunctions
from mmair.executor.upstream.memref import DEFAULT_MAX_GM_BYTES, MemRefFunctions, check_gm_size
from mmair.executor.upstream.scf import ScfFunctions
from mmair.isa.ascend.targets import DEFAULT_TARGET

TARGET_ATTR = "pto.target"
DEFAULT_MAX_OPS = 2_000_000
"""Default bound on executed ops (`mmair-run --max-ops`), sized to the machine the executor runs
on: it interprets about 400,000 scalar ops a second on one core of the 2-core reference machine
(docs/robustness.md), so a runaway loop ends with an error naming --max-ops after about 5 s, not
minutes; a lowered 1024^3 f16 matmul runs about 5,000 ops, far below it."""


GM_WRITES_KNOWN = frozenset({
    "builtin.module", "func.func", "func.call", "func.return",
    "scf.for", "scf.if", "scf.while", "scf.yield", "scf.condition",
    "memref.subview", "memref.cast", "memref.dim", "memref.collapse_shape", "memref.load",
    "memref.alloc", "memref.alloca", "memref.dealloc",
    "pto.alloc", "pto.reinterpret", "pto.block_idx", "pto.block_num", "pto.sync_all",
    "pto.set_flag", "pto.wait_flag", "pto.pipe_barrier",
    "pto.mte_gm_l1", "pto.mte_l1_l0a", "pto.mte_l1_l0b", "pto.mte_l1_bt", "pto.mte_l1_fb", "pto.mte_gm_ub",
    "pto.mad", "pto.mad_acc", "pto.mad_bias", "pto.gather_mask",
    "pto.fixpipe", "pto.mte_ub_gm",  # their GM writes go through `kernels._wrote_gm`
})
"""Ops that write no GM bytes, or only through kernels that report it (`memory.GmWrites`), plus
all of `arith`. A one-core run of a module made of these lets the GM conversion cache of
`kernels.mte_gm_l1` trust write generations instead of comparing bytes (speed only)."""


def gm_writes_known(module: ModuleOp) -> bool:
    """True when every op of `module` is in `GM_WRITES_KNOWN` (or is an `arith` op)."""
    return all(op.name in GM_WRITES_KNOWN or op.name.startswith("arith.") for op in module.walk())


def read_only_gm(module: ModuleOp) -> frozenset[SSAValue]:
    """The GM arguments of `module`'s functions that no op of it can write: every op is in
    `GM_WRITES_KNOWN` (or `arith`) or is a scalar `memref.store`, but `func.call` (a callee's
    argument may be the caller's buffer), and every GM write of a pto op or a store reaches a
    function argument or an allocation (`gm_access.gm_written_roots`), not this one. Empty when
    that is not known. With no written argument sharing bytes with another (`run_module`
    copies the inputs an op may write and passes these as read-only views), no access to such
    a buffer can race: the checker does not record its reads
    (`IssueSeam.read_only`). (`memref.store` is not in `GM_WRITES_KNOWN`: it writes GM without
    telling the conversion cache, `memory.GmWrites`.)"""
    from mmair.dialects.pto.gm_access import gm_written_roots

    for op in module.walk():
        name = op.name
        if name == "func.call" or not (name in GM_WRITES_KNOWN or name == "memref.store" or
                                       name.startswith("arith.")):
            return frozenset()
    written = gm_written_roots(module)
    if written is None:
        return frozenset()
    return frozenset(arg for fn in module.walk() if isinstance(fn, func.FuncOp) and fn.body.blocks
                     for arg in fn.body.blocks.first.args
                     if isinstance(arg.type, MemRefType) and arg not in written)


def read_only_arguments(module: ModuleOp, entry: func.FuncOp, values: list[Any]) -> list[int]:
    """Positions of the entry's GM arguments that no op of `module` can write
    (`read_only_gm`): `run_module` copies every input an op may write into its own array,
    so nothing else writes them either."""
    read_only = read_only_gm(module)
    if not read_only:
        return []
    return [i for i, (arg, value) in enumerate(zip(entry.body.blocks.first.args, values,
                                                   strict=True))
            if arg in read_only and isinstance(value, np.ndarray)]


def _read_only_images(module: ModuleOp, entry: func.FuncOp, values: list[Any]) -> ReadOnlyGm:
    """The window images of the read-only GM arguments (`memory.ReadOnlyGm`)."""
    return ReadOnlyGm([values[i] for i in read_only_arguments(module, entry, values)])


_DATA_READS = frozenset({"memref.load", "memref.copy", "pto.gather_mask"})
"""Ops of `GM_WRITES_KNOWN` whose values come from data bytes: a scalar load (its value may steer
control flow or sizes), a copy (a later load may read it) and the GatherMask kept count (a pipe
op with a result, which runs its kernel even under `timing_only`)."""


def timing_needs_no_data(module: ModuleOp) -> bool:
    """True when a `timing_only` run of `module` cannot depend on the bytes of its inputs: every
    op is in `GM_WRITES_KNOWN` (or `arith`) and none of them reads data into a value
    (`_DATA_READS`). Then only the shapes of its GM arguments matter (events, footprints and
    costs follow from addresses and sizes), so the run allocates them without filling them
    (`prepare_arguments`'s `fill`)."""
    return all((op.name in GM_WRITES_KNOWN and op.name not in _DATA_READS) or
               op.name.startswith("arith.") for op in module.walk())


class InputError(Exception):
    """A problem with the inputs given for a run (missing, wrong shape or dtype, unknown name)."""


@dataclass
class RunResult:
    outputs: dict[str, np.ndarray]
    """Every memref argument of the entry function after the run, by argument name."""
    results: tuple[Any, ...]
    """The entry function's return values."""
    peak_bytes: dict[str, int] = field(default_factory=dict)
    """Highest address + 1 used in each on-chip space that was touched."""
    op_counts: dict[str, int] = field(default_factory=dict)
    """How many times each op ran, by op name."""
    target: str = DEFAULT_TARGET
    timeline: Any = None
    """`executor.timeline.Timeline` of a run with `timing` (None otherwise)."""
    unwritten: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    """`coverage` runs: per watched output, the byte ranges [lo, hi) that no op wrote."""
    per_core: list[dict[str, Any]] = field(default_factory=list)
    """Multi-core runs: per block, its op counts and peak bytes (empty for one core)."""


def find_entry(module: ModuleOp, entry: str | None = None) -> func.FuncOp:
    """The function called `entry`, or, with None, the only (or first public) function with a body."""
    funcs = [op for op in module.walk() if isinstance(op, func.FuncOp)]
    if entry is not None:
        for f in funcs:
            if f.sym_name.data == entry:
                return f
        names = ", ".join(f.sym_name.data for f in funcs) or "none"
        raise InputError(f"no function named '{entry}' in the module (functions: {names})")
    with_body = [f for f in funcs if f.body.blocks and f.body.blocks.first.first_op is not None]
    public = [f for f in with_body if f.sym_visibility is None or f.sym_visibility.data == "public"]
    if not with_body:
        raise InputError("the module has no function with a body to run")
    return (public or with_body)[0]


def argument_names(entry: func.FuncOp) -> list[str]:
    """The entry arguments' SSA names as written in the source (`%x_1` -> `x_1`; xDSL's name_hint
    would say `x`: `mmair.dialects.value_names`); `arg<i>` for an argument written with a number
    (`%0`) or none, or whose name an earlier argument has (`arg<i>_<k>` if `arg<i>` is taken)."""
    args = entry.body.blocks.first.args
    given: list[str | None] = []
    for arg in args:
        name = value_name(arg)
        given.append(name if name and not name[0].isdigit() and name not in given else None)
    taken = {name for name in given if name is not None}
    names: list[str] = []
    for i, name in enumerate(given):
        if name is None:
            name = f"arg{i}"
            k = 0
            while name in taken:
                k += 1
                name = f"arg{i}_{k}"
            taken.add(name)
        names.append(name)
    return names


def module_target(module: ModuleOp, override: str | None = None) -> str:
    if override is not None:
        return override
    attr = module.attributes.get(TARGET_ATTR)
    return attr.data if isinstance(attr, StringAttr) else DEFAULT_TARGET


def _static_shape(t: MemRefType) -> tuple[int | None, ...]:
    return tuple(None if d == DYNAMIC_INDEX else d for d in t.get_shape())


def random_array(t: MemRefType, rng: np.random.Generator, shape: tuple[int, ...] | None = None) -> np.ndarray:
    """Seeded random data for a memref: small integers (floats in [-3, 3], s8 in [-8, 8], others in
    [0, 8)), so that products and sums of a matmul are exact in every accumulator type."""
    dims = shape if shape is not None else tuple(d if d is not None else 1 for d in _static_shape(t))
    return random_values(element_name(t.element_type), memref_dtype(t), dims, rng)


def random_values(name: str, dtype: np.dtype, dims: tuple[int, ...],
                  rng: np.random.Generator) -> np.ndarray:
    """`random_array`'s values for an element type `name` stored as `dtype`."""
    if name == "ue8m0":  # block-scale factors: powers of two 2^-2 .. 2^2, never NaN
        return rng.integers(125, 130, size=dims).astype(np.uint8).view(dtype)
    if dtype.kind == "f" or name in ("bf16", "e4m3", "e5m2", "e2m3", "e3m2", "e2m1"):
        return rng.integers(-3, 4, size=dims).astype(dtype)
    if dtype.kind == "i":
        lo = -8 if dtype.itemsize == 1 else -16
        return rng.integers(lo, -lo + 1, size=dims).astype(dtype)
    return rng.integers(0, 8, size=dims).astype(dtype)


def _check_array(name: str, t: MemRefType, array: np.ndarray, share: bool = False) -> np.ndarray:
    """`array` checked against the argument type `t`: a C-ordered copy, or with `share` (an
    argument no op can write, `read_only_gm`) a read-only view of it when it already is
    C-contiguous (a copy of a 2048^2 input into fresh pages cost 5-40 ms of page faults)."""
    expected = memref_dtype(t)
    if array.dtype != expected:
        raise InputError(
            f"input '{name}' has dtype {array.dtype}, the argument is {t} (numpy {expected})"
        )
    shape = _static_shape(t)
    if array.ndim != len(shape) or any(d is not None and d != a for d, a in zip(shape, array.shape, strict=False)):
        want = "x".join("?" if d is None else str(d) for d in shape)
        raise InputError(
            f"input '{name}' has shape {'x'.join(map(str, array.shape)) or 'scalar'}, the argument "
            f"needs {want}"
        )
    if share and array.flags.c_contiguous:
        view = array.view()
        view.flags.writeable = False  # a write through it would be an error, never the caller's
        return view
    return np.array(array, dtype=expected, order="C", copy=True)


def _scalar_type(t: Attribute) -> bool:
    return isinstance(t, IndexType | IntegerType)


def prepare_arguments(
    entry: func.FuncOp, inputs: dict[str, Any], seed: int = 0,
    max_gm_bytes: int | None = DEFAULT_MAX_GM_BYTES, fill: bool = True,
    shared: frozenset[SSAValue] = frozenset(),
) -> tuple[list[str], list[Any]]:
    """Argument names and values for `entry`: copies of the given arrays, random data for missing
    memrefs (at most `max_gm_bytes` each; with `fill` False, arrays of the shape whose bytes are
    left as the allocator gives them: a timing-only run that reads none, `timing_needs_no_data`).
    Given arrays of the arguments in `shared` (block arguments that no op can write:
    `read_only_gm`) are passed as read-only views of the caller's arrays instead of copies.
    Raises InputError for unknown names, bad shapes/dtypes, missing scalars and random inputs
    beyond the size limit."""
    names = argument_names(entry)
    unknown = sorted(set(inputs) - set(names))
    if unknown:
        raise InputError(
            f"no argument named {', '.join(repr(u) for u in unknown)} in @{entry.sym_name.data} "
            f"(arguments: {', '.join(names)})"
        )
    rng = np.random.default_rng(seed)
    values: list[Any] = []
    args = entry.body.blocks.first.args if entry.body.blocks else ()
    share = {i for i, arg in enumerate(args) if arg in shared}
    for index, (name, t) in enumerate(zip(names, entry.function_type.inputs.data, strict=True)):
        given = inputs.get(name)
        if isinstance(t, MemRefType):
            try:
                memref_dtype(t)
            except ValueError as err:
                raise InputError(f"argument '{name}' has type {t}, which the executor cannot pass: "
                                 f"{err}") from None
            if given is None:
                if any(d is None for d in _static_shape(t)):
                    raise InputError(f"argument '{name}' has a dynamic shape {t}: give an input")
                try:
                    check_gm_size(t.get_shape(), memref_dtype(t), max_gm_bytes, f"argument '{name}'")
                except ExecutionError as err:
                    raise InputError(err.message) from None
                values.append(random_array(t, rng) if fill else
                              np.empty(_static_shape(t), dtype=memref_dtype(t)))
            else:
                values.append(_check_array(name, t, np.asarray(given), index in share))
        elif _scalar_type(t):
            if _launch_decided(entry, name):
                if given is not None:
                    raise InputError(f"argument '{name}' is the launch's block "
                                     f"{'index' if name.endswith('idx') else 'count'} (pypto's "
                                     f"SPMD convention): mmair-run gives each core its own; use "
                                     f"--blocks N, not --input")
                values.append(0)  # no longer read: its uses are the block queries
                continue
            if given is None:
                raise InputError(f"argument '{name}' ({t}) needs a value: give it with "
                                 f"--input {name}=VALUE")
            values.append(int(np.asarray(given)))
        elif isinstance(t, TileType):  # placed and seeded once the memory exists (tile_args)
            if given is not None:
                raise InputError(f"argument '{name}' is a tile ({t}): the executor fills it with "
                                 f"seeded random data and takes no input for it")
            values.append(TileArgument(name, t))
        else:
            raise InputError(f"argument '{name}' has type {t}, which the executor cannot pass")
    return names, values


def _launch_decided(entry: func.FuncOp, name: str) -> bool:
    """A pypto SPMD block argument that the PTOAS conversion replaced by the block query it
    stands for (`mmair.passes.ptoas_spmd`): no op reads it any more."""
    from mmair.dialects.ptoas.spmd import is_spmd_block_argument

    if not is_spmd_block_argument(name):
        return False
    index = argument_names(entry).index(name)
    return not entry.body.blocks.first.args[index].uses


def _dialect_functions() -> tuple[Any, Any, Any]:
    """The interpreter function classes of the pto and tcgen05 dialects (imported on first
    use: a run of one dialect's kernel does not need the other at start-up)."""
    from mmair.executor.ascend.functions import PtoFunctions, PtoParamsFunctions
    from mmair.executor.tcgen05.functions import Tcgen05Functions

    return PtoFunctions, PtoParamsFunctions, Tcgen05Functions


def make_interpreter(
    module: ModuleOp, target: str, max_ops: int | None = None,
    max_gm_bytes: int | None = DEFAULT_MAX_GM_BYTES,
    numerics: str = "default",
    block: int = 0,
    blocks: int = 1,
    launch: Any = None,
) -> tuple[MmairInterpreter, Memory]:
    """An interpreter with the mmair functions registered and a fresh memory for `target`."""
    PtoFunctions, PtoParamsFunctions, Tcgen05Functions = _dialect_functions()
    memory = Memory(target)
    interp = MmairInterpreter(module, max_ops=max_ops)
    for functions in (FuncFunctions(), ScfFunctions(), ArithFunctions(), MemRefFunctions(max_gm_bytes=max_gm_bytes),
                      PtoFunctions(memory=memory, block=block, blocks=blocks, launch=launch),
                      PtoParamsFunctions(),
                      Tcgen05Functions(memory=memory, numerics=numerics)):
        interp.register_implementations(functions, override=True)
    return interp, memory


def _cost_table(target_name: str, costs: Any) -> Any:
    """The calibrated cost table of a timed run (`run_module`'s `costs`)."""
    from mmair.isa.ascend.calibration import CalibrationError, calibrate
    from mmair.isa.ascend.costs import Costs

    if isinstance(costs, Costs):
        return costs
    try:
        return calibrate(target_name, costs)
    except CalibrationError as err:
        raise InputError(f"--costs: {err}") from None


def run_module(
    module: ModuleOp,
    entry: str | None = None,
    inputs: dict[str, Any] | None = None,
    target: str | None = None,
    seed: int = 0,
    max_ops: int | None = DEFAULT_MAX_OPS,
    max_gm_bytes: int | None = DEFAULT_MAX_GM_BYTES,
    sync_check: bool = False,
    numerics: str = "default",
    timing: bool = False,
    timing_only: bool = False,
    blocks: int = 1,
    coverage: tuple[str, ...] | list[str] = (),
    jobs: int | None = None,
    costs: Any = None,
) -> RunResult:
    """Execute `entry` of a verified module; see the module docstring. Runtime faults raise
    `ExecutionError` (with `.op`), input problems `InputError`. `max_ops` bounds the executed ops,
    `max_gm_bytes` the size of each generated input and `memref.alloc` (None: unbounded).

    `sync_check`: run the pipes concurrently (`executor/engine/scheduler.py`) and check the kernel's
    synchronization (`executor/engine/hb.py`): races, deadlocks, unbalanced or overflowing flags raise
    `executor.events.SyncError` (an ExecutionError). Off: every op runs at once in program order
    and set_flag / wait_flag / pipe_barrier do nothing.
    `numerics` selects the tcgen05 MMA arithmetic: "default" or "exact" (see
    `mmair.isa.tcgen05.numerics`).
    `timing` (implies `sync_check`): schedule the engine's events with the isa cycle costs;
    `RunResult.timeline` is the `executor.timeline.Timeline`. `timing_only`: the same without
    running the pipe ops' numpy kernels (outputs are not computed; synchronization and
    footprints are still checked).
    `blocks`: launch the kernel on that many AI Cores (`executor/engine/multicore.py`): each core has
    its own on-chip memories, pipes and `pto.block_idx`, GM is shared; checked against the
    target's core count. With `sync_check`, races between cores on GM are checked too.
    `coverage`: names of GM arguments whose unwritten bytes are reported in
    `RunResult.unwritten` (`executor/engine/coverage.py`).
    `jobs`: threads for independent pipe ops of a core (None or 1: sequential; measured on an
    idle machine, threads are slower, see docs/benchmarks.md).
    With `sync_check`, an op that the scheduler executes is handed to a thread pool and starts
    once every earlier op whose footprint overlaps its own (one of them writing) has finished
    (`Scheduler` in `executor/engine/scheduler.py`), so outputs are bit-identical to `jobs=1`.
    With `blocks` > 1, `jobs` > 1 runs the blocks on that many worker processes with GM in
    shared memory (`executor/engine/multicore_pool.py`; None: one process); results and diagnostics
    are those of the in-process run.
    `costs`: the cost figures of `timing` (`isa.ascend.calibration`: a preset name, a parsed
    `--costs` document or a `Costs` table; None: the target's own); a bad figure is an
    InputError naming it."""
    if blocks != 1:
        return _run_blocks(module, entry, inputs, target, seed, max_ops, max_gm_bytes,
                           sync_check, numerics, blocks, coverage, 1 if jobs is None else jobs,
                           timing, timing_only, costs)
    entry_op = find_entry(module, entry)
    # the arguments no op can write are not copied (`_check_array`); computed again below
    # for the images and the checker, as the other callers of prepare_arguments do
    names, values = prepare_arguments(entry_op, dict(inputs or {}), seed, max_gm_bytes,
                                      fill=not (timing_only and timing_needs_no_data(module)),
                                      shared=read_only_gm(module) if inputs else frozenset())
    target_name = module_target(module, target)
    from mmair.executor.tcgen05.cta_pair import run_pair, uses_cta_pair

    if uses_cta_pair(module):  # cta_group::2: two CTAs (executor/tcgen05/cta_pair.py)
        if timing or timing_only or coverage:
            raise ExecutionError("--timing and --check-coverage are not modelled for a "
                                 "cta_group::2 kernel (a CTA pair)", None)
        gm_names = {id(v): f"%{n}" for n, v in zip(names, values, strict=True)
                    if isinstance(v, np.ndarray)}
        with one_blas_thread():
            interps, results = run_pair(lambda rank: make_interpreter(
                module, target_name, max_ops, max_gm_bytes, numerics), entry_op, values,
                sync_check, gm_names)
        for interp in interps:
            interp.release()
        outputs = {n: v for n, v in zip(names, values, strict=True) if isinstance(v, np.ndarray)}
        return RunResult(outputs=outputs, results=tuple(results[0]), target=target_name,
                         op_counts=dict(interps[0].op_counts))
    interp, memory = make_interpreter(module, target_name, max_ops, max_gm_bytes, numerics)
    values = place_tile_arguments(module, memory, values, np.random.default_rng([seed, 1]))
    memory.gm.tracked = gm_writes_known(module)  # one core: this run is GM's only writer
    memory.gm.read_only = _read_only_images(module, entry_op, values)
    seam = None
    timeline = None
    timing = timing or timing_only
    if sync_check or timing:
        from mmair.executor.engine.seam import IssueSeam

        gm_names = {id(v): f"%{n}" for n, v in zip(names, values, strict=True)
                    if isinstance(v, np.ndarray)}
        scheduler = None
        if timing:
            from mmair.executor.engine.timeline import TimedScheduler, Timeline

            timeline = Timeline(memory.target.name, _cost_table(memory.target.name, costs))
            scheduler = TimedScheduler(timeline, gm_names=gm_names)
        from mmair.executor.tcgen05.async_checker import (
            Tcgen05Seam,
            holds_tcgen05,
            is_descriptor_level,
        )

        if not timing and holds_tcgen05(module):  # the CTA's async units (tcgen05_async.py)
            seam = interp.seam = Tcgen05Seam(gm_names,
                                             descriptor_level=is_descriptor_level(module))
        else:
            seam = interp.seam = IssueSeam(memory.target, gm_names, scheduler=scheduler)
            seam.read_only = read_only_gm(module)  # the written arguments are copies
        seam.timing = timeline
        seam.numerics = not timing_only
        if seam.numerics and isinstance(seam, IssueSeam):  # Ascend pipes (not tcgen05 yet)
            seam.start_threads(1 if jobs is None else jobs)
    cover = _coverage(names, values, coverage)
    if cover is not None:
        if seam is not None:
            seam.observer = cover.record
        else:
            from mmair.executor.engine.coverage import CoverageSeam

            seam = interp.seam = CoverageSeam(cover)
    with one_blas_thread(), no_full_collection():
        try:
            results = interp.call_op(entry_op, tuple(values))
            if seam is not None:
                seam.finish()
        except RecursionError:
            _report_race_first(getattr(seam, "scheduler", None))
            raise ExecutionError("recursion too deep", entry_op) from None
        except ExecutionError:
            _report_race_first(getattr(seam, "scheduler", None))
            raise
        finally:
            if getattr(seam, "threads", None) is not None:
                seam.close()
            interp.release()  # no cycles keep the run's GM views alive
    outputs = {n: v for n, v in zip(names, values, strict=True) if isinstance(v, np.ndarray)}
    return RunResult(
        outputs=outputs,
        results=tuple(results),
        peak_bytes=memory.peak_bytes(),
        op_counts=dict(interp.op_counts),
        target=target_name,
        timeline=timeline,
        unwritten={n: cover.unwritten(n) for n in coverage} if cover is not None else {},
    )


def _report_race_first(scheduler: Any) -> None:
    """When a run stops on an error (an op fault, the op limit, recursion too deep), events it
    executed may still wait in the checker's batch (`scheduler`'s; None: no checker): a race
    among them happened first and may explain the fault, so it is the error reported."""
    if scheduler is None:
        return
    from mmair.executor.engine.events import SyncError

    try:
        scheduler.flush()
    except SyncError as race:
        raise race from None


def _run_blocks(module: ModuleOp, entry: str | None, inputs: dict[str, Any] | None,
                target: str | None, seed: int, max_ops: int | None, max_gm_bytes: int | None,
                sync_check: bool, numerics: str, blocks: int,
                coverage: tuple[str, ...] | list[str] = (), jobs: int = 1,
                timing: bool = False, timing_only: bool = False, costs: Any = None) -> RunResult:
    """`run_module` on `blocks` cores sharing GM (`executor/engine/multicore.py`)."""
    from mmair.executor.engine.multicore import Launch, check_blocks

    entry_op = find_entry(module, entry)
    names, values = prepare_arguments(entry_op, dict(inputs or {}), seed, max_gm_bytes,
                                      fill=not (timing_only and timing_needs_no_data(module)))
    target_name = module_target(module, target)
    if any(isinstance(v, TileArgument) for v in values):
        raise InputError("tile arguments are passed to a one-core run only (each core would "
                         "need its own): run without --blocks")
    memories: list[Memory] = []
    interps: list[MmairInterpreter] = []
    scheduler = None
    from mmair.isa.ascend.targets import get_target

    check_blocks(blocks, get_target(target_name))
    timing = timing or timing_only
    timeline = None
    if jobs > 1 and not timing:  # the timeline needs every core's events in one engine
        pooled = _run_pool(module, entry_op, names, values, target_name, max_ops, max_gm_bytes,
                           sync_check, numerics, blocks, coverage, jobs)
        if pooled is not None:
            return pooled
    if sync_check:
        from mmair.executor.engine.scheduler import Scheduler

        gm_names = {id(v): f"%{n}" for n, v in zip(names, values, strict=True)
                    if isinstance(v, np.ndarray)}
        scheduler = Scheduler(blocks, gm_names=gm_names)
    if timing:
        from mmair.executor.engine.timeline import TimedScheduler, Timeline

        timeline = Timeline(target_name, _cost_table(target_name, costs))
        gm_names = {id(v): f"%{n}" for n, v in zip(names, values, strict=True)
                    if isinstance(v, np.ndarray)}
        scheduler = TimedScheduler(timeline, blocks, gm_names=gm_names)
    launch = Launch(blocks, scheduler)
    cover = _coverage(names, values, coverage)
    read_only = _read_only_images(module, entry_op, values)  # one for all cores
    for core in range(blocks):
        interp, memory = make_interpreter(module, target_name, max_ops, max_gm_bytes, numerics,
                                          block=core, blocks=blocks, launch=launch)
        memory.gm.read_only = read_only
        if scheduler is not None:
            from mmair.executor.engine.seam import IssueSeam

            interp.seam = IssueSeam(memory.target, core=core, scheduler=scheduler)
            interp.seam.timing = timeline
            interp.seam.numerics = not timing_only
            if cover is not None:
                interp.seam.observer = cover.record
        elif cover is not None:
            from mmair.executor.engine.coverage import CoverageSeam

            interp.seam = CoverageSeam(cover)
        interps.append(interp)
        memories.append(memory)

    def body(interp: MmairInterpreter) -> Any:
        try:
            return interp.call_op(entry_op, tuple(values))
        except RecursionError:
            raise ExecutionError("recursion too deep", entry_op) from None

    with one_blas_thread(), no_full_collection():
        try:
            results = launch.run([lambda i=i: body(i) for i in interps])
        except ExecutionError:
            _report_race_first(scheduler)
            raise
        finally:
            for interp in interps:
                interp.release()
        if scheduler is not None:
            scheduler.finish()
    counts: dict[str, int] = {}
    for interp in interps:
        for name, n in interp.op_counts.items():
            counts[name] = counts.get(name, 0) + n
    peak: dict[str, int] = {}
    for memory in memories:
        for space, n in memory.peak_bytes().items():
            peak[space] = max(peak.get(space, 0), n)
    outputs = {n: v for n, v in zip(names, values, strict=True) if isinstance(v, np.ndarray)}
    return RunResult(outputs=outputs, results=tuple(results[0]), peak_bytes=peak,
                     op_counts=counts, target=target_name, timeline=timeline,
                     unwritten={n: cover.unwritten(n) for n in coverage} if cover else {},
                     per_core=[
                         {"block": i, "op_counts": dict(interps[i].op_counts),
                          "peak_bytes": memories[i].peak_bytes()} for i in range(blocks)])


def _run_pool(module: ModuleOp, entry_op: func.FuncOp, names: list[str], values: list[Any],
              target_name: str, max_ops: int | None, max_gm_bytes: int | None, sync_check: bool,
              numerics: str, blocks: int, coverage: tuple[str, ...] | list[str],
              jobs: int) -> RunResult | None:
    """The launch on the process pool; None: re-run in process (`executor/engine/multicore_pool.py`)."""
    from mmair.executor.engine.multicore_pool import available, pool_safe, run_pool

    if not available() or not pool_safe(module):
        return None
    cover = _coverage(names, values, coverage)  # unknown names are reported before the run
    _dialect_functions()  # imported before the fork: no worker imports them again
    pooled = run_pool(module, entry_op, target_name, values, blocks, jobs, sync_check, numerics,
                      max_ops, max_gm_bytes, make_interpreter,
                      frozenset(read_only_arguments(module, entry_op, values)))
    if pooled is None:
        return None
    if cover is not None:
        cover.record(pooled.accesses(values))
    counts: dict[str, int] = {}
    peak: dict[str, int] = {}
    for core in pooled.per_core:
        for name, n in core["op_counts"].items():
            counts[name] = counts.get(name, 0) + n
        for space, n in core["peak_bytes"].items():
            peak[space] = max(peak.get(space, 0), n)
    outputs = {n: v for n, v in zip(names, values, strict=True) if isinstance(v, np.ndarray)}
    return RunResult(outputs=outputs, results=pooled.results, peak_bytes=peak, op_counts=counts,
                     target=target_name,
                     unwritten={n: cover.unwritten(n) for n in coverage} if cover else {},
                     per_core=pooled.per_core)


def _coverage(names: list[str], values: list[Any], watch: tuple[str, ...] | list[str]) -> Any:
    """A `Coverage` of the named GM arguments (None when none is watched)."""
    if not watch:
        return None
    from mmair.executor.engine.coverage import Coverage

    arrays = {n: v for n, v in zip(names, values, strict=True) if isinstance(v, np.ndarray)}
    unknown = [n for n in watch if n not in arrays]
    if unknown:
        raise InputError(f"--check-coverage: no memref argument named '{unknown[0]}' "
                         f"(memrefs: {', '.join(arrays)})")
    return Coverage({n: arrays[n] for n in watch})
