"""`mmair-run`: execute a pto or tcgen05 kernel on the simulated core.

    mmair-run FILE [--entry NAME] [--target T] [-p PIPELINE] [--input NAME=file.npy]...
              [--output NAME=file.npy]... [--check NAME=expected.npy] [--rtol R] [--atol A]
              [--check-numpy] [--stats] [--seed S] [--max-ops N] [--max-gm-bytes B]
              [--sync-check=on|off] [--timing] [--timing-only] [--timeline FILE.json|FILE.png]
              [--check-numpy] [--inputs real|int] [--raw-bits] [--stats] [--json] [-v]
              [--seed S] [--max-ops N] [--max-gm-bytes B] [--numerics default|exact] [--jobs N]
              [--version]

The file is parsed, verified, transformed by a pass pipeline, and its entry function is run
(`mmair.executor.runner.run_module`). Without `-p`, a module that holds ops only a lowering makes
executable (`pto.matmul`, `tcgen05.make_*`: ops of the mmair dialects the executor has no
implementation for) gets `mmair-lower` (`mmair-lower{blocks=N}` with `--blocks N`: the matmul's
output tiles split over the cores; `-v` says so on stderr); `-p` overrides that, `-p ''`
runs no pass. Argument names are the entry function's SSA argument names as written (`%a` -> `a`,
`%x_1` -> `x_1`; `arg<i>` for a numbered `%0`: docs/executor.md). Memref arguments without `--input` get seeded random data: real values
uniform in [-2, 2] (clipped to the type's range; integer types small integers) with `--inputs
real` (the default), small integers with `--inputs int`. Low-precision .npy files (bf16, fp8,
fp6, fp4, int4, hif8) are read and written as `tools/npyio.py` describes (`--raw-bits` accepts
unsigned-integer bit containers).

The entry function's return values are printed (`result 0: 12 : index`). `--check` compares an
output with a .npy file, `--check-numpy` every GM output the kernel writes with a numpy reference
derived from the IR (`mmair.executor.reference`). A check passes when every element satisfies
|got - ref| <= atol + rtol * |ref| (NaN matches NaN); the line printed gives the rule, the
tolerances, the max abs and rel errors. `--json` prints one JSON object instead of the text
(outputs, results, checks, stats; `"ok"`), on failure too (`"ok": false` and the diagnostics with
their locations, `tools/jsonout.py`; the diagnostic text still goes to stderr). `--output` files are written only after a successful run,
never over the kernel or an input file, nor over an existing file that is not a .npy (`--force`
allows that; `tools/outputs.py`).
Resource bounds: `--max-ops N` (default 2,000,000: about 5 s of a scalar loop on one core) ends a
run that executes more ops with an error naming `--max-ops` (a runaway loop); `--max-gm-bytes B` (default 4 GiB) rejects a random input or `memref.alloc` larger
than B bytes before allocating it. 0 disables either bound.
`--sync-check=on` runs the pipes of the AI Core concurrently and checks the kernel's
synchronization (set_flag / wait_flag / pipe_barrier): a race, a deadlock, an unbalanced or
overflowing flag is an error at the op (docs/pipes.md); it is the default. `off` runs every op
in program order and ignores the sync ops (to run a kernel without flags functionally anyway;
`-p pto-insert-sync` adds them). `--numerics exact` computes every
`tcgen05.mma` with the tensor core's fused dot product (truncated aligned terms, exact sum, one
rounding; `mmair.isa.tcgen05.numerics`) instead of float32 accumulation.
`--timing` schedules the sync checker's pipe events with the cycle costs of `isa/ascend/costs.py`
(docs/costs.md) and prints total cycles, the time at the target clock and, per pipe, busy
cycles, utilisation and the op that bounds it; `--timing-only` does the same without computing
the pipe ops (fast, no outputs); `--timeline FILE.json|FILE.png` writes the schedule as a Chrome
trace (Perfetto) or a Gantt chart. `--costs FILE.json` replaces figures of the cost model (any of
`isa/ascend/costs.py`'s; `--costs ptoisa`: pto-isa's constants; docs/costs.md, "Calibration").
`--jobs N` (default 1; 0: the machine's cores) runs independent pipe ops of a core on N threads:
with the sync checker on, an op waits only for the earlier ops whose footprints overlap its own
(at least one writing), so the outputs are bit-identical to `--jobs 1` (sequential). With
`--blocks` > 1, an explicit N > 1 runs the blocks on N worker processes (docs/multicore.md).

Exit codes: 0 success; 1 a user error (parse, verify, runtime fault, bad .npy, failed check), printed
as `file:line:col: error: ...` with the source line where the location is known; 2 bad arguments.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict
from io import StringIO

import numpy as np

from mmair.isa.tcgen05.numerics import NUMERICS_MODES
from mmair.tools.checks import Check, compare, differences
from mmair.tools.cli import (
    BadArguments,
    PipelineError,
    all_targets,
    ascend_target,
    check_output_path,
    kernel_families,
    parse_pipeline_spec,
    refuse_unreadable_values,
    stdout_closed,
    target_attribute,
    wrong_family_target,
)
from mmair.tools.diagnostics import (
    OpVerifyError,
    SourceFile,
    UserError,
    format_diagnostic,
    format_op_error,
    format_parse_error,
    format_pass_error,
    no_flags_note,
    parse_source,
    read_input_text,
    report,
    verify_module,
)
from mmair.tools.jsonout import failure, wants_json
from mmair.tools.npyio import coerce, is_low_precision, read_npy, write_npy
from mmair.tools.outputs import refuse_foreign_file, refuse_overwriting_inputs
from mmair.tools.run_timing import check_timed_kernel, check_timing_options, costs_spec
from mmair.tools.stdio import quiet_broken_pipe
from mmair.tools.version import VersionAction

PROG = "mmair-run"
AUTO_LOWERING = "mmair-lower"


def _name_file(text: str, flag: str) -> tuple[str, str]:
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise BadArguments(f"{flag} expects NAME=FILE.npy, got '{text}'")
    return name, path


def _non_negative(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got '{text}'") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


def _positive(text: str) -> int:
    """`--blocks`: 0 and -1 are refused alike (a launch has at least one block)."""
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got '{text}'") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def _jobs(n: int | None) -> int | None:
    """`--jobs`: 0 is the machine's cores; None (not given) is left to `run_module`."""
    if n == 0:
        from mmair.executor.engine.multicore_pool import default_jobs

        return default_jobs()
    return n


def _float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got '{text}'") from None
    if not np.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {text}")
    return value


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description="Run an mmair kernel on the simulated core.")
    p.add_argument("file", help="input .mlir file ('-' for stdin)")
    p.add_argument("--entry", help="function to run (default: the only or first public function)")
    p.add_argument("--target", help="hardware target: an Ascend one (a2, a5, ...; sets pto.target) "
                                    "or a Blackwell one (sm_100a, ...; sets tcgen05.target)")
    p.add_argument("-p", "--passes", default=None,
                   help="pass pipeline to run before executing (default: mmair-lower when the "
                        "module needs it; '' for none)")
    p.add_argument("--input", action="append", default=[], metavar="NAME=FILE.npy",
                   help="argument value: a .npy file, or an integer literal for scalar arguments "
                        "(also the size of a PTOAS tensor whose shape is that argument)")
    p.add_argument("--output", action="append", default=[], metavar="NAME=FILE.npy",
                   help="write memref argument NAME after the run; never over the kernel or an "
                        "input, nor over an existing file that is not a .npy (unless --force)")
    p.add_argument("--force", action="store_true",
                   help="let --output replace an existing file that is not a .npy file")
    p.add_argument("--check", action="append", default=[], metavar="NAME=EXPECTED.npy",
                   help="compare memref argument NAME after the run with a .npy file")
    p.add_argument("--rtol", type=_float, default=None,
                   help="relative tolerance of the checks (default: from the output type)")
    p.add_argument("--atol", type=_float, default=None,
                   help="absolute tolerance of the checks (default: from the output type)")
    p.add_argument("--check-numpy", action="store_true",
                   help="compare every GM output the kernel writes with a numpy reference")
    p.add_argument("--inputs", choices=("real", "int"), default="real",
                   help="random inputs: real values (default) or small integers")
    p.add_argument("--raw-bits", action="store_true",
                   help="read unsigned-integer .npy inputs as the bit patterns of the argument's "
                        "element type (uint16 for bf16, uint8 for fp8/fp6/fp4/int4)")
    p.add_argument("--stats", action="store_true", help="print peak bytes per space and op counts")
    p.add_argument("--json", action="store_true", help="print one JSON summary instead of text")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="say on stderr which passes run and why")
    p.add_argument("--seed", type=_non_negative, default=0,
                   help="seed of the random inputs (default 0)")
    p.add_argument("--max-ops", type=_non_negative, default=None, metavar="N",
                   help="stop with an error after N executed ops (default 2000000, about 5 s of "
                        "a loop; 0: no limit)")
    p.add_argument("--max-gm-bytes", type=_non_negative, default=None, metavar="BYTES",
                   help="largest GM buffer a random input or memref.alloc may need "
                        "(default 4 GiB; 0: no limit)")
    p.add_argument("--numerics", choices=NUMERICS_MODES, default="default",
                   help="tcgen05.mma arithmetic: 'default' (float32 accumulation) or 'exact' "
                        "(the tensor core's fused dot product as published by MMA-Sim; "
                        "docs/tcgen05-numerics.md)")
    p.add_argument("--sync-check", choices=("on", "off"), default="on",
                   help="check pipe synchronization: races, deadlocks, unbalanced flags "
                        "(default on; off runs every op in program order)")
    p.add_argument("--timing", action="store_true",
                   help="estimate cycles from the isa cost table on the sync checker's events "
                        "(implies --sync-check=on): total, time at the target clock, per pipe "
                        "busy cycles, utilisation and the op that bounds it (docs/costs.md)")
    p.add_argument("--timing-only", action="store_true",
                   help="--timing without the numerics: pipe ops are scheduled and checked but "
                        "not computed (fast; no outputs, so no --check/--output)")
    p.add_argument("--timeline", metavar="FILE.json|FILE.png",
                   help="write the pipe timeline (implies --timing): a Chrome trace-event file "
                        "(.json, for Perfetto / chrome://tracing) or a Gantt chart (.png)")
    p.add_argument("--costs", metavar="FILE.json|PRESET",
                   help="cost figures for --timing: a JSON object overriding any figure of the "
                        "target's cost table (errors name the bad key), or a preset: 'ptoisa' "
                        "(pto-isa's cost model constants); docs/costs.md, 'Calibration'")
    p.add_argument("--blocks", type=_positive, default=1, metavar="N",
                   help="launch the kernel on N AI Cores (pto.block_idx 0..N-1; own on-chip "
                        "memories and pipes, shared GM; at most the target's core count; with "
                        "--sync-check=on races between cores on GM are reported)")
    p.add_argument("--jobs", type=_non_negative, default=None, metavar="N",
                   help="threads for independent ops inside a core: pipe ops whose footprints do "
                        "not overlap run side by side, results identical to --jobs 1 (default "
                        "1: sequential, the fastest on a machine with free cores; 0: the "
                        "machine's cores, faster on a busy machine); with --blocks > 1, N worker "
                        "processes run the blocks (GM in shared memory; results and diagnostics "
                        "those of the one-process run, docs/multicore.md; default: one process)")
    p.add_argument("--check-coverage", action="append", default=[], metavar="NAME",
                   help="report the bytes of GM output NAME that no core wrote (exit 1 if any), "
                        "e.g. a remainder tile a multi-core split leaves out")
    p.add_argument("--version", action=VersionAction)
    return p


def _read_source(path: str) -> SourceFile:
    try:
        return SourceFile("<stdin>" if path == "-" else path, read_input_text(path))
    except (OSError, UnicodeDecodeError) as err:
        raise UserError(format_diagnostic(f"cannot read input: {err}", file=path)) from None


# ---- the steps of a run ------------------------------------------------------------------------


def _pipeline(args: argparse.Namespace):
    from mmair.passes import get_all_passes
    from mmair.tools.diagnostics import verify_module as verify

    def verify_between(_prev, module, _next) -> None:
        verify(module)

    try:
        return parse_pipeline_spec(get_all_passes(), args.passes, verify_between) if args.passes \
            else None
    except PipelineError as err:
        text = str(err)
        raise BadArguments(text if text.startswith("bad pipeline") else f"bad pipeline: {text}") \
            from None


def needs_lowering(module, target: str | None) -> list[str]:
    """Names of the mmair-dialect ops in `module` that the executor cannot run as they are (they
    have a lowering in `mmair-lower`), sorted."""
    from mmair.executor.runner import make_interpreter, module_target

    interp, _ = make_interpreter(module, module_target(module, target))
    implemented = interp._impls._impl_dict  # noqa: SLF001 - xDSL keeps the table private
    return sorted({op.name for op in module.walk()
                   if op.name.split(".")[0] in ("pto", "tcgen05") and type(op) not in implemented})


def _transform(args: argparse.Namespace, ctx, module, pipeline, source: SourceFile) -> list[str]:
    """Verify and transform the module; returns the pass names that ran."""
    from mmair.passes import get_all_passes

    verify_module(module)
    ran: list[str] = []
    if pipeline is None and args.passes is None:
        missing = needs_lowering(module, ascend_target(args.target))
        if missing:
            # a launch on several cores splits the matmul's output tiles over them
            spec = AUTO_LOWERING + (f"{{blocks={args.blocks}}}" if args.blocks > 1 else "")
            if args.verbose:
                print(f"{PROG}: running {spec} first: the module holds "
                      f"{', '.join(missing)} (give -p to choose the passes)", file=sys.stderr)
            pipeline = parse_pipeline_spec(get_all_passes(), spec,
                                           lambda _p, m, _n: verify_module(m))
    if pipeline is not None:
        pipeline.apply(ctx, module)
        ran = [p.name for p in pipeline.passes]
        if args.verbose and args.passes:
            print(f"{PROG}: ran {args.passes}", file=sys.stderr)
    return ran


def _argument_types(entry) -> dict[str, object]:
    from xdsl.dialects.builtin import MemRefType

    from mmair.executor.runner import argument_names

    return {n: t for n, t in zip(argument_names(entry), entry.function_type.inputs.data, strict=True)
            if isinstance(t, MemRefType)}


def _element(t) -> tuple[str, np.dtype]:
    from mmair.dialects.types import element_name, memref_dtype

    return element_name(t.element_type), memref_dtype(t)


def _input_value(name: str, text: str, memrefs: dict, raw_bits: bool) -> np.ndarray | int:
    """An integer literal (for index/integer arguments) or the array in a .npy file, as the
    argument's dtype."""
    try:
        value = int(text, 0)
    except ValueError:
        pass
    else:
        if name in memrefs:
            raise UserError(format_diagnostic(
                f"--input {name}={text}: '{name}' is a {memrefs[name]} argument, give a .npy file "
                "(an integer literal is for index and integer arguments)"))
        return value
    label = f"'{text}' for '{name}'"
    array = read_npy(text, label)
    t = memrefs.get(name)
    if t is None:
        return array
    try:
        element, dtype = _element(t)
    except ValueError:
        return array
    kind = array.dtype.kind
    if array.dtype != dtype and kind in "biuf" and not is_low_precision(array.dtype) \
            and not is_low_precision(dtype) and not (raw_bits and kind == "u") and element != "hif8":
        return array  # a plain numpy mismatch: the runner names the argument type
    return coerce(array, element, dtype, label, raw_bits)


def _scalar_inputs(specs: list[tuple[str, str]]) -> dict[str, int]:
    """The integer literals of `--input NAME=V`: the values of the scalar arguments, which size a
    PTOAS kernel's tensors when its shapes are kernel arguments (passes/ptoas_shapes.py; the
    launch size, `get_block_num`, is `--blocks`)."""
    out = {}
    for name, text in specs:
        with contextlib.suppress(ValueError):
            out[name] = int(text, 0)
    return out


def _check_sized_inputs(entry, inputs: dict, memrefs: dict, source: SourceFile) -> None:
    """An .npy input of a GM tensor that kernel arguments size must have that shape: one
    diagnostic at the tensor view (passes/ptoas_shapes.py)."""
    from mmair.passes.ptoas_shapes import sized_input_error

    for name, value in inputs.items():
        if isinstance(value, np.ndarray) and name in memrefs:
            found = sized_input_error(entry, name, value.shape, tuple(memrefs[name].get_shape()))
            if found is not None:
                (file, line, col), message = found
                raise UserError(format_diagnostic(message, file=file or source.name, line=line,
                                                  col=col, source=source))


def _expected_value(name: str, path: str, memrefs: dict, raw_bits: bool) -> np.ndarray:
    label = f"'{path}' for '{name}'"
    array = read_npy(path, label)
    t = memrefs.get(name)
    if t is None:
        return array
    element, dtype = _element(t)
    return coerce(array, element, dtype, label, raw_bits, exact=False)


def _random_inputs(entry, given: dict, kind: str, seed: int, max_gm_bytes) -> dict:
    """Seeded random arrays for the memref arguments without --input (see `reference`)."""
    from mmair.executor.reference import random_inputs

    return random_inputs(entry, given, kind, seed, max_gm_bytes)


def _format_result(value: object) -> str:
    if isinstance(value, np.ndarray):
        return np.array2string(value, threshold=20)
    if isinstance(value, bool | np.bool_):
        return "true" if value else "false"
    return str(value.item() if isinstance(value, np.generic) else value)


def _json_value(value: object) -> object:
    if isinstance(value, np.ndarray):
        return {"shape": list(value.shape), "dtype": str(value.dtype)}
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    return str(value)


def _stats_lines(result, capacities: dict[str, int | None]) -> list[str]:
    lines = [f"target: {result.target}", "peak bytes:"]
    for space, peak in sorted(result.peak_bytes.items()):
        cap = capacities.get(space)
        lines.append(f"  {space}: {peak}" + (f" / {cap}" if cap else ""))
    lines.append("op counts:")
    lines += [f"  {name}: {count}" for name, count in sorted(result.op_counts.items())]
    if result.per_core:  # multi-core: the lines above are the sum / the largest per core
        lines.append(f"per block ({len(result.per_core)} blocks; totals above, peaks the largest):")
        for core in result.per_core:
            peaks = ", ".join(f"{sp} {n}" for sp, n in sorted(core["peak_bytes"].items()))
            ops = sum(core["op_counts"].values())
            lines.append(f"  block {core['block']}: {ops} ops; peak bytes {peaks or '-'}")
    return lines


def _capacities(target: str) -> dict[str, int | None]:
    from mmair.isa.ascend.targets import TARGET_NAMES, get_target

    return dict(get_target(target).capacity) if target in TARGET_NAMES else {}


def run(args: argparse.Namespace) -> int:
    from xdsl.context import Context
    from xdsl.dialects.builtin import StringAttr
    from xdsl.utils.exceptions import DiagnosticException, ParseError

    from mmair.dialects import get_all_dialects
    from mmair.executor.engine.errors import ExecutionError
    from mmair.executor.runner import (
        DEFAULT_MAX_OPS,
        InputError,
        find_entry,
        run_module,
        timing_needs_no_data,
    )
    from mmair.executor.upstream.memref import DEFAULT_MAX_GM_BYTES

    max_ops = DEFAULT_MAX_OPS if args.max_ops is None else (args.max_ops or None)
    max_gm_bytes = DEFAULT_MAX_GM_BYTES if args.max_gm_bytes is None else (args.max_gm_bytes or None)
    if args.target is not None and args.target not in all_targets():
        raise BadArguments(f"unknown target '{args.target}', expected one of {', '.join(all_targets())}")
    ascend = ascend_target(args.target)
    inputs_spec = [_name_file(t, "--input") for t in args.input]
    refuse_unreadable_values(inputs_spec)
    outputs_spec = [_name_file(t, "--output") for t in args.output]
    checks_spec = [_name_file(t, "--check") for t in args.check]
    _refuse_repeated_names(inputs_spec, "--input")
    _refuse_repeated_names(checks_spec, "--check")
    pipeline = _pipeline(args)
    for _name, path in outputs_spec:
        check_output_path(path, "--output")
    check_timing_options(args, outputs_spec, checks_spec)
    costs = costs_spec(args)
    _refuse_overwriting_inputs(args, inputs_spec, outputs_spec, checks_spec)  # even with --force
    for name, path in outputs_spec:
        refuse_foreign_file(path, f"--output {name}", args.force)

    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    source = _read_source(args.file)
    try:
        from mmair.passes.ptoas_shapes import BLOCK_NUM

        module = parse_source(ctx, source.text, source.name, sizes=_scalar_inputs(inputs_spec)
                              | {BLOCK_NUM: args.blocks or 1})
        if args.target is not None:
            module.attributes[target_attribute(args.target)] = StringAttr(args.target)
        # --check-numpy compares a lowered tcgen05.matmul with its logical product: the reference
        # runs on the module as written (the lowering's descriptors are what is being checked)
        logical = module.clone() if args.check_numpy and any(
            op.name == "tcgen05.matmul" for op in module.walk()) else None
        passes = _transform(args, ctx, module, pipeline, source)
    except ParseError as err:
        raise UserError(format_parse_error(err)) from None
    except OpVerifyError as err:
        raise UserError(format_op_error(err.op, err.message, source)) from None
    except DiagnosticException as err:
        raise UserError(format_pass_error(err, source)) from None

    if args.timing or args.timing_only or args.timeline is not None:
        check_timed_kernel(module, source.name)
    _check_kernel_options(module, args, source.name)
    _check_nested_targets(module, source)

    try:
        entry = find_entry(module, args.entry)
        memrefs = _argument_types(entry)
        inputs = {name: _input_value(name, path, memrefs, args.raw_bits) for name, path in inputs_spec}
        _check_sized_inputs(entry, inputs, memrefs, source)
        expected = {name: _expected_value(name, path, memrefs, args.raw_bits)
                    for name, path in checks_spec}
        if not (args.timing_only and timing_needs_no_data(module)):  # else: shapes only
            inputs.update(_random_inputs(entry, inputs, args.inputs, args.seed, max_gm_bytes))
        result = run_module(module, entry.sym_name.data, inputs, ascend, args.seed,
                            max_ops, max_gm_bytes, sync_check=args.sync_check == "on",
                            numerics=args.numerics,
                            timing=args.timing or args.timeline is not None,
                            timing_only=args.timing_only, blocks=args.blocks,
                            coverage=args.check_coverage, jobs=_jobs(args.jobs),
                            costs=costs)
    except InputError as err:
        raise UserError(format_diagnostic(str(err))) from None
    except ExecutionError as err:
        if err.op is None:
            raise UserError(format_diagnostic(str(err), file=source.name)) from None
        raise UserError(format_op_error(err.op, err.message, source)
                        + no_flags_note(err, module, source.name)) from None

    uncovered = []
    for name, ranges in result.unwritten.items():
        if ranges:
            size = result.outputs[name].itemsize
            shown = ", ".join(f"[{lo}, {hi})" for lo, hi in ranges[:4])
            more = f" and {len(ranges) - 4} more" if len(ranges) > 4 else ""
            total = sum(hi - lo for lo, hi in ranges)
            uncovered.append(format_diagnostic(
                f"--check-coverage: {total} bytes ({total // size} elements) of output '{name}' "
                f"were written by no core: bytes {shown}{more}", file=source.name))
    if uncovered:
        raise UserError("\n".join(uncovered))
    checks: list[Check] = []
    for name, want in expected.items():
        if name not in result.outputs:
            raise UserError(format_diagnostic(
                f"--check: no memref argument named '{name}' (memrefs: {', '.join(result.outputs)})"))
        checks.append(compare(name, result.outputs[name], want, args.rtol, args.atol))
    if args.check_numpy:
        if logical is not None:
            checks += _numpy_checks(logical, find_entry(logical, args.entry), inputs, result,
                                    args, source)
        else:
            checks += _numpy_checks(module, entry, inputs, result, args, source)
    for name, _path in outputs_spec:
        if name not in result.outputs:
            raise UserError(format_diagnostic(
                f"--output: no memref argument named '{name}' (memrefs: {', '.join(result.outputs)})"))
    for name, path in outputs_spec:
        write_npy(path, result.outputs[name])
    if args.timeline is not None:
        try:
            if args.timeline.endswith(".png"):
                result.timeline.write_png(args.timeline)
            else:
                result.timeline.write_json(args.timeline)
        except OSError as err:
            raise UserError(format_diagnostic(
                f"--timeline: cannot write '{args.timeline}': {err.strerror}")) from None
    result.target = _shown_target(module, result)
    _print_summary(args, entry, passes, result, checks, outputs_spec)
    return 0 if all(c.ok for c in checks) else 1


def _refuse_repeated_names(specs: list[tuple[str, str]], flag: str) -> None:
    """Two values for one argument: which one runs would be a guess."""
    seen: dict[str, str] = {}
    for name, path in specs:
        if name in seen:
            raise BadArguments(f"{flag} {name} given twice ('{seen[name]}' and '{path}'): give "
                               "each argument one value")
        seen[name] = path


def _refuse_overwriting_inputs(args, inputs_spec, outputs_spec, checks_spec) -> None:
    """No output file is the kernel or a file the run reads (`tools/outputs.py`)."""
    reads = [("the kernel", args.file)] if args.file != "-" else []
    for name, text in inputs_spec:
        try:
            int(text, 0)  # a scalar literal, not a file
        except ValueError:
            reads.append((f"the --input of {name}", text))
    reads += [(f"the --check file of {name}", path) for name, path in checks_spec]
    writes = [(f"--output {name}", path) for name, path in outputs_spec]
    if args.timeline is not None:
        writes.append(("--timeline", args.timeline))
    refuse_overwriting_inputs(writes, reads)


def _shown_target(module, result) -> str:
    """The target to print: the executor's Ascend target, or for a tcgen05-only kernel the
    module's `tcgen05.target` (the executor's memory model is not what the user targets)."""
    if kernel_families(module) != {"tcgen05"}:
        return result.target
    from xdsl.dialects.builtin import StringAttr

    from mmair.dialects import tcgen05
    from mmair.executor.tcgen05.functions import DEFAULT_TARGET

    attr = module.attributes.get(tcgen05.TARGET_ATTR)
    return attr.data if isinstance(attr, StringAttr) else DEFAULT_TARGET


def _check_kernel_options(module, args, file: str) -> None:
    """Options that model one hardware family, on a kernel of the other: one error line instead
    of a silently ignored option."""
    families = kernel_families(module)
    wrong = wrong_family_target(module, args.target)
    if wrong is not None:
        raise UserError(format_diagnostic(wrong, file=file))
    if args.numerics != "default" and "tcgen05" not in families:
        raise UserError(format_diagnostic(
            f"--numerics={args.numerics} selects the tcgen05.mma arithmetic; this kernel has no "
            "tcgen05 op", file=file))
    if args.blocks is not None and args.blocks > 1 and families == {"tcgen05"}:
        raise UserError(format_diagnostic(
            f"--blocks {args.blocks} launches Ascend AI Cores; this is a tcgen05 kernel, which "
            "runs on one CTA", file=file))


def _check_nested_targets(module, source: SourceFile) -> None:
    """The verifier and the passes take an op's target from the nearest enclosing module, the
    executor's memories and pipes from the outermost one: a nested module whose `pto.target` or
    `tcgen05.target` differs would run its ops on another target than they were verified for
    (silently with --sync-check=off). A file with ops beside its `builtin.module` is parsed as an
    implicit outer module holding both, so a stray line is enough (found by the IR fuzzer)."""
    from xdsl.dialects.builtin import ModuleOp

    for op in module.walk():
        if not isinstance(op, ModuleOp) or op is module:
            continue
        for name in ("pto.target", "tcgen05.target"):
            inner, outer = op.attributes.get(name), module.attributes.get(name)
            if inner is not None and inner != outer:
                around = f"with {name} = {outer}" if outer is not None else "without one"
                raise UserError(format_op_error(op, (
                    f"sets {name} = {inner} inside a module {around}; mmair-run runs the "
                    "outermost module's target: put the attribute there (a file with ops beside "
                    "its builtin.module is parsed as an implicit module holding both)"), source))


def _numpy_checks(module, entry, inputs, result, args, source: SourceFile) -> list[Check]:
    """--check-numpy: each GM output against the reference interpretation of the IR."""
    from mmair.executor.engine.errors import ExecutionError
    from mmair.executor.reference import ReferenceError, reference_outputs

    try:
        refs, ref_results = reference_outputs(module, entry, inputs, result,
                                              ascend_target(args.target), blocks=args.blocks)
    except ReferenceError as err:
        if err.op is not None:
            raise UserError(format_op_error(err.op, f"--check-numpy: {err.message}", source)) \
                from None
        raise UserError(format_diagnostic(f"--check-numpy: {err.message}", file=source.name)) \
            from None
    except ExecutionError as err:
        where = format_op_error(err.op, f"--check-numpy reference: {err.message}", source) \
            if err.op is not None else format_diagnostic(f"--check-numpy: {err}")
        raise UserError(where) from None
    checks = []
    bad: dict[str, np.ndarray] = {}
    for ref in refs:
        rtol = ref.rtol if args.rtol is None else args.rtol
        atol = ref.atol if args.atol is None else args.atol
        got = result.outputs[ref.name]
        checks.append(compare(f"{ref.name} = {ref.description}", got, ref.values, rtol, atol))
        if not checks[-1].ok and got.shape == ref.values.shape:
            bad[ref.name] = differences(got, ref.values, checks[-1].rtol, checks[-1].atol)[1]
    if bad:
        _report_unwritten_reads(module, entry, inputs, result, args, source, bad)
        _report_overlapping_tiles(module, source, bad)
    for i, (got, want) in enumerate(zip(result.results, ref_results, strict=False)):
        if isinstance(got, int | np.integer | float | np.floating) and not isinstance(got, bool):
            checks.append(compare(f"result {i} = numpy reference of the IR", np.asarray(got),
                                  np.asarray(want), 0.0, 0.0))
    return checks


def _report_unwritten_reads(module, entry, inputs, result, args, source: SourceFile,
                            bad: dict[str, np.ndarray]) -> None:
    """A failed --check-numpy whose differences all come from on-chip bytes the kernel read
    before any op wrote them ends in one error that says so, not in a numeric mismatch: the
    executor reads the buffer's earlier data there (as the hardware does), the reference zeros,
    so the comparison says nothing about the kernel's arithmetic."""
    from mmair.executor.reference import unwritten_reads

    with np.errstate(all="ignore"):
        tiles = unwritten_reads(module, entry, inputs, result, ascend_target(args.target), bad,
                                blocks=args.blocks)
    if tiles is None:
        return
    count = sum(int(mask.sum()) for mask in bad.values())
    where = f"bytes of {', '.join(tiles)}" if tiles else "on-chip bytes"
    raise UserError(format_diagnostic(
        f"--check-numpy: the {count} elements of {', '.join(bad)} that differ from the reference "
        f"all depend on {where} that no op wrote before the kernel read them: the executor reads "
        "what the buffer held before (an earlier tile's data at the same address, as the "
        "hardware would), the reference zeros, so the comparison cannot judge the kernel; write "
        "those bytes first (check the sizes, strides and gaps of the copies into them)",
        file=source.name))


def _report_overlapping_tiles(module, source: SourceFile, bad: dict[str, np.ndarray]) -> None:
    """A failed --check-numpy of a kernel whose tiles share bytes says so: the reference keeps
    each tile apart, the executor's memory (as the hardware's) does not."""
    from mmair.executor.reference import overlapping_tiles

    overlap = overlapping_tiles(module)
    if overlap is None:
        return
    read, writer, space, lo, hi = overlap
    raise UserError(format_diagnostic(
        f"--check-numpy: {', '.join(bad)} differ from the reference, and the kernel reads tile "
        f"{read} after writing tile {writer}, which shares its {space} bytes [{lo}, {hi}): the "
        "reference keeps each tile's data apart (it follows tiles, not bytes), so the comparison "
        "cannot judge the kernel; the executor's result is what the bytes hold (place the tiles "
        "apart, or check against --check NAME=expected.npy)", file=source.name))


def _print_summary(args, entry, passes, result, checks, outputs_spec) -> None:
    if args.json:
        summary = {
            "file": args.file,
            "entry": entry.sym_name.data,
            "target": result.target,
            "passes": passes,
            "results": [_json_value(v) for v in result.results],
            "outputs": {name: {"shape": list(v.shape), "dtype": str(v.dtype)}
                        for name, v in result.outputs.items()},
            "written": {name: path for name, path in outputs_spec},
            "checks": [asdict(c) for c in checks],
            "ok": all(c.ok for c in checks),
            "diagnostics": [],
            "per_block": result.per_core,
            "stats": {"peak_bytes": dict(result.peak_bytes), "op_counts": dict(result.op_counts),
                      "capacity": {k: v for k, v in _capacities(result.target).items()
                                   if k in result.peak_bytes}},
        }
        if result.timeline is not None:
            from mmair.isa.ascend.calibration import table_figures

            timed = result.timeline.summary()
            summary["timing"] = {**asdict(timed), **timed.report(),
                                 "costs": table_figures(result.timeline.costs)}
        print(json.dumps(summary, indent=2, default=str))
        return
    types = entry.function_type.outputs.data
    for i, value in enumerate(result.results):
        suffix = f" : {types[i]}" if i < len(types) else ""
        print(f"result {i}: {_format_result(value)}{suffix}")
    for check in checks:
        print(check.line())
    for name in dict.fromkeys(args.check_coverage):  # a failed one ended the run with an error
        size = result.outputs[name].nbytes
        print(f"coverage {name}: all {size} bytes written")
    if args.stats:
        print("\n".join(_stats_lines(result, _capacities(result.target))))
    if result.timeline is not None:
        print(result.timeline.summary().format())
    if not (result.results or checks or args.stats or result.timeline is not None or outputs_spec
            or args.check_coverage):
        # A silent success leaves a new user guessing whether anything ran: say what to ask for.
        ops = sum(result.op_counts.values())
        print(f"ran @{entry.sym_name.data} on {result.target} ({ops} ops); nothing saved: "
              f"--output NAME=FILE.npy writes a GM memref ({', '.join(result.outputs)}), "
              "--check-numpy compares them with numpy")


@quiet_broken_pipe
def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    captured = StringIO()
    try:
        with contextlib.redirect_stderr(captured):
            args = parser.parse_args(argv)
    except SystemExit as exit_:  # argparse: keep its one-line error, not the usage block
        text = captured.getvalue().strip().splitlines()
        if exit_.code == 0:
            sys.stdout.write(captured.getvalue())
            return 0
        if text:
            print(text[-1], file=sys.stderr)
            if wants_json(argv):
                print(failure(text[-1], int(exit_.code or 2)))
        return int(exit_.code or 2)
    try:
        return run(args)
    except BadArguments as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        if args.json:
            print(failure(f"{PROG}: error: {err}", 2, file=args.file))
        return 2
    except UserError as err:
        report(str(err))
        if args.json:
            print(failure(str(err), 1, file=args.file))
        return 1
    except BrokenPipeError:
        return stdout_closed()


if __name__ == "__main__":
    sys.exit(main())
