"""`mmair-run`: execute a pto kernel on the simulated Ascend core.

    mmair-run FILE [--entry NAME] [--target T] [-p PIPELINE] [--input NAME=file.npy]...
              [--output NAME=file.npy]... [--check NAME=expected.npy] [--rtol R] [--atol A]
              [--check-numpy] [--stats] [--seed S] [--max-ops N] [--max-gm-bytes B]
              [--numerics default|exact]

The file is parsed, verified, optionally transformed by a pass pipeline (`-p`, the mmair-opt pass
syntax), and its entry function is run (`mmair.executor.runner.run_module`). Argument names are the
entry function's SSA argument names (`%a` -> `a`, else `arg0, arg1, ...`); memref arguments without
`--input` get seeded random small integers. `--output` files are written only after a successful run
(to a temporary file, then renamed). `--check` compares an output with a .npy file; `--check-numpy`
compares a matmul kernel (`mmair.reference = "matmul"` on the entry function, or three memrefs
a[M,K], b[K,N], c[M,N]) with numpy. Both print the max absolute and relative error.
Resource bounds: `--max-ops N` (default 10^8) ends a run that executes more ops with an error (a
runaway loop); `--max-gm-bytes B` (default 4 GiB) rejects a random input or `memref.alloc` larger
than B bytes before allocating it. 0 disables either bound. `--numerics exact` computes every
`tcgen05.mma` with the tensor core's fused dot product (truncated aligned terms, exact sum, one
rounding; `mmair.isa.tcgen05.numerics`) instead of float32 accumulation.

Exit codes: 0 success; 1 a user error (parse, verify, runtime fault, bad .npy, failed check), printed
as `file:line:col: error: ...` with the source line where the location is known; 2 bad arguments.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
from collections.abc import Sequence
from io import StringIO

import numpy as np

from mmair.isa.tcgen05.numerics import NUMERICS_MODES
from mmair.tools.diagnostics import (
    LocatingParser,
    OpVerifyError,
    SourceFile,
    UserError,
    format_diagnostic,
    format_op_error,
    format_parse_error,
    format_pass_error,
    pipeline_error_line,
    report,
    verify_module,
)

PROG = "mmair-run"

# Default tolerances of --check / --check-numpy by output dtype (about one unit in the last place
# of the output type, after an f32 accumulation).
_DEFAULT_TOL: dict[str, float] = {"float16": 2e-3, "bfloat16": 1.6e-2, "float32": 1e-5, "float64": 1e-12}


class BadArguments(Exception):
    """A command-line problem (exit 2)."""


def _name_file(text: str, flag: str) -> tuple[str, str]:
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise BadArguments(f"{flag} expects NAME=FILE.npy, got '{text}'")
    return name, path


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description="Run an mmair kernel on the simulated core.")
    p.add_argument("file", help="input .mlir file ('-' for stdin)")
    p.add_argument("--entry", help="function to run (default: the only or first public function)")
    p.add_argument("--target", help="Ascend target (overrides the module's pto.target)")
    p.add_argument("-p", "--passes", default="", help="pass pipeline to run before executing")
    p.add_argument("--input", action="append", default=[], metavar="NAME=FILE.npy",
                   help="argument value: a .npy file, or an integer literal for scalar arguments")
    p.add_argument("--output", action="append", default=[], metavar="NAME=FILE.npy")
    p.add_argument("--check", action="append", default=[], metavar="NAME=EXPECTED.npy")
    p.add_argument("--rtol", type=float, default=None, help="relative tolerance of the checks")
    p.add_argument("--atol", type=float, default=None, help="absolute tolerance of the checks")
    p.add_argument("--check-numpy", action="store_true",
                   help="compare a matmul kernel (c = a @ b) with numpy")
    p.add_argument("--stats", action="store_true", help="print peak bytes per space and op counts")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default 0)")
    p.add_argument("--max-ops", type=int, default=None, metavar="N",
                   help="stop with an error after N executed ops (default 100000000; 0: no limit)")
    p.add_argument("--max-gm-bytes", type=int, default=None, metavar="BYTES",
                   help="largest GM buffer a random input or memref.alloc may need "
                        "(default 4 GiB; 0: no limit)")
    p.add_argument("--numerics", choices=NUMERICS_MODES, default="default",
                   help="tcgen05.mma arithmetic: 'default' (float32 accumulation) or 'exact' "
                        "(the tensor core's fused dot product as published by MMA-Sim; "
                        "docs/tcgen05-numerics.md)")
    return p


def _read_source(path: str) -> SourceFile:
    try:
        if path == "-":
            return SourceFile("<stdin>", sys.stdin.read())
        with open(path, encoding="utf-8") as f:
            return SourceFile(path, f.read())
    except (OSError, UnicodeDecodeError) as err:
        raise UserError(format_diagnostic(f"cannot read input: {err}", file=path)) from None


def _load_npy(name: str, path: str) -> np.ndarray:
    try:
        with open(path, "rb") as f:
            if f.read(6) != b"\x93NUMPY":
                raise UserError(format_diagnostic(f"'{path}' for '{name}' is not a .npy file"))
        array = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err).splitlines()[0]
        raise UserError(format_diagnostic(f"cannot read '{path}' for '{name}': {reason}")) from None
    if not isinstance(array, np.ndarray):
        raise UserError(format_diagnostic(f"'{path}' for '{name}' is not a single .npy array"))
    return array


def _input_value(name: str, text: str) -> np.ndarray | int:
    """An integer literal (for index/integer arguments) or the array in a .npy file."""
    try:
        return int(text, 0)
    except ValueError:
        return _load_npy(name, text)


def _save_npy(path: str, array: np.ndarray) -> None:
    """Write atomically: a temporary file in the same folder, then rename."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".mmair-run-", suffix=".npy", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            np.save(f, array, allow_pickle=False)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _tolerances(dtype: np.dtype, rtol: float | None, atol: float | None) -> tuple[float, float]:
    default = _DEFAULT_TOL.get(np.dtype(dtype).name, 0.0)
    return (default if rtol is None else rtol), (default if atol is None else atol)


def compare(label: str, got: np.ndarray, expected: np.ndarray, rtol: float | None,
            atol: float | None) -> tuple[bool, str]:
    """(ok, one report line) for `got` against `expected`."""
    if got.shape != expected.shape:
        return False, (f"check {label}: shape {'x'.join(map(str, got.shape))} differs from the "
                       f"expected {'x'.join(map(str, expected.shape))}: FAILED")
    r, a = _tolerances(got.dtype, rtol, atol)
    x = got.astype(np.float64)
    y = expected.astype(np.float64)
    diff = np.abs(x - y)
    both_nan = np.isnan(x) & np.isnan(y)
    diff = np.where(both_nan, 0.0, diff)
    max_abs = float(np.nanmax(diff)) if diff.size else 0.0
    nonzero = np.abs(y) > 0
    max_rel = float(np.max(diff[nonzero] / np.abs(y[nonzero]))) if np.any(nonzero) else 0.0
    bad = ~(diff <= a + r * np.abs(y)) & ~both_nan
    ok = not bool(np.any(bad))
    line = (f"check {label}: max abs error {max_abs:.6g}, max rel error {max_rel:.6g} "
            f"(rtol {r:g}, atol {a:g}): {'ok' if ok else f'FAILED ({int(bad.sum())} of {bad.size} elements)'}")
    return ok, line


def _print_stats(result, capacities: dict[str, int | None]) -> None:
    print(f"target: {result.target}")
    print("peak bytes:")
    for space, peak in sorted(result.peak_bytes.items()):
        cap = capacities.get(space)
        print(f"  {space}: {peak}" + (f" / {cap}" if cap else ""))
    print("op counts:")
    for name, count in sorted(result.op_counts.items()):
        print(f"  {name}: {count}")


def run(args: argparse.Namespace) -> int:
    from xdsl.context import Context
    from xdsl.dialects.builtin import ModuleOp, StringAttr
    from xdsl.passes import PassPipeline
    from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError

    from mmair.dialects import get_all_dialects
    from mmair.executor.errors import ExecutionError
    from mmair.executor.memref import DEFAULT_MAX_GM_BYTES
    from mmair.executor.runner import (
        DEFAULT_MAX_OPS,
        TARGET_ATTR,
        InputError,
        find_entry,
        matmul_reference,
        run_module,
    )
    from mmair.isa.ascend.targets import TARGET_NAMES, get_target
    from mmair.passes import get_all_passes

    for flag, value in (("--max-ops", args.max_ops), ("--max-gm-bytes", args.max_gm_bytes)):
        if value is not None and value < 0:
            raise BadArguments(f"{flag} must be >= 0, got {value}")
    max_ops = DEFAULT_MAX_OPS if args.max_ops is None else (args.max_ops or None)
    max_gm_bytes = DEFAULT_MAX_GM_BYTES if args.max_gm_bytes is None else (args.max_gm_bytes or None)
    if args.target is not None and args.target not in TARGET_NAMES:
        raise BadArguments(f"unknown target '{args.target}', expected one of {', '.join(TARGET_NAMES)}")
    inputs_spec = [_name_file(t, "--input") for t in args.input]
    outputs_spec = [_name_file(t, "--output") for t in args.output]
    checks_spec = [_name_file(t, "--check") for t in args.check]

    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    try:
        pipeline = None
        if args.passes:
            def verify_between(_prev, module: ModuleOp, _next) -> None:
                verify_module(module)

            pipeline = PassPipeline.parse_spec(get_all_passes(), args.passes, verify_between)
    except (ValueError, ArgSpecParseError) as err:
        line = pipeline_error_line(err)
        raise BadArguments(line if line.startswith("bad pipeline") else f"bad pipeline: {line}") from None

    source = _read_source(args.file)
    try:
        module = LocatingParser(ctx, source.text, source.name).parse_module()
        if args.target is not None:
            module.attributes[TARGET_ATTR] = StringAttr(args.target)
        verify_module(module)
        if pipeline is not None:
            pipeline.apply(ctx, module)
    except ParseError as err:
        raise UserError(format_parse_error(err)) from None
    except OpVerifyError as err:
        raise UserError(format_op_error(err.op, err.message, source)) from None
    except DiagnosticException as err:
        raise UserError(format_pass_error(err, source)) from None

    inputs = {name: _input_value(name, path) for name, path in inputs_spec}
    expected = {name: _load_npy(name, path) for name, path in checks_spec}
    try:
        entry = find_entry(module, args.entry)
        result = run_module(module, entry.sym_name.data, inputs, args.target, args.seed,
                            max_ops, max_gm_bytes, args.numerics)
    except InputError as err:
        raise UserError(format_diagnostic(str(err))) from None
    except ExecutionError as err:
        if err.op is None:
            raise UserError(format_diagnostic(str(err), file=source.name)) from None
        raise UserError(format_op_error(err.op, err.message, source)) from None

    failed = False
    lines: list[str] = []
    for name, want in expected.items():
        if name not in result.outputs:
            raise UserError(format_diagnostic(
                f"--check: no memref argument named '{name}' (memrefs: {', '.join(result.outputs)})"))
        ok, line = compare(name, result.outputs[name], want, args.rtol, args.atol)
        failed |= not ok
        lines.append(line)
    if args.check_numpy:
        ref = matmul_reference(entry, result.outputs)
        if ref is None:
            raise UserError(format_diagnostic(
                f"--check-numpy: @{entry.sym_name.data} is not a matmul kernel (expected "
                "mmair.reference = \"matmul\" or memref arguments a[M,K], b[K,N], c[M,N])"))
        out_name, want = ref
        ok, line = compare(f"{out_name} = numpy matmul", result.outputs[out_name], want,
                           args.rtol, args.atol)
        failed |= not ok
        lines.append(line)
    for name, _path in outputs_spec:
        if name not in result.outputs:
            raise UserError(format_diagnostic(
                f"--output: no memref argument named '{name}' (memrefs: {', '.join(result.outputs)})"))
    for name, path in outputs_spec:
        try:
            _save_npy(path, result.outputs[name])
        except OSError as err:
            raise UserError(format_diagnostic(f"cannot write '{path}': {err.strerror or err}")) from None
    for line in lines:
        print(line)
    if args.stats:
        _print_stats(result, dict(get_target(result.target).capacity))
    return 1 if failed else 0


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
        return int(exit_.code or 2)
    try:
        return run(args)
    except BadArguments as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return 2
    except UserError as err:
        report(str(err))
        return 1


if __name__ == "__main__":
    sys.exit(main())
