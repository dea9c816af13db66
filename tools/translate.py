"""`mmair-translate --target ptx|ptoas FILE [-o OUT]`: a kernel in another compiler's language.

`--target ptx`: a tcgen05 kernel as a PTX module (`mmair.passes.tcgen05_to_ptx`; its docstring says
how the sequential IR maps onto a 128-thread CTA; a `tcgen05.matmul` is written as its
`tcgen05-lower-matmul` kernel, `--cta-group 2` its CTA-pair kernel). `--target ptoas`: an Ascend cube kernel
(hand-written tile ops, or a lowered `pto.matmul`) as PTOAS's tile-level `.pto` text
(`mmair.passes.mmair_to_ptoas`), which PTOAS and mmair read back. The input is parsed and verified
like `mmair-opt` does; a module without a top-level `func.func` is an error (there is no kernel to
write). Errors are one `file:line:col: error: ...` diagnostic and exit 1; bad options exit 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import DiagnosticException, ParseError

from mmair.tools.diagnostics import (
    SourceFile,
    format_diagnostic,
    format_op_error,
    format_parse_error,
    parse_source,
    read_input_text,
)
from mmair.tools.stdio import quiet_broken_pipe
from mmair.tools.version import VersionAction


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # type: ignore[override]
        print(f"mmair-translate: error: {message}", file=sys.stderr)
        raise SystemExit(2)


@quiet_broken_pipe
def main(argv: Sequence[str] | None = None) -> int:
    parser = _Parser(prog="mmair-translate",
                     description="Write a kernel in another compiler's language: a tcgen05 kernel "
                                 "as PTX, or an Ascend cube kernel as PTOAS tile-level IR.")
    parser.add_argument("--version", action=VersionAction)
    parser.add_argument("input", help="input .mlir file ('-' for stdin)")
    parser.add_argument("--target", choices=("ptx", "ptoas"), required=True,
                        help="ptx: a tcgen05 kernel as PTX; ptoas: an Ascend cube kernel as "
                             "PTOAS tile-level IR")
    parser.add_argument("--cta-group", type=int, choices=(1, 2), default=1,
                        help="ptx: lower each tcgen05.matmul to the one-CTA kernel (1, the "
                             "default) or to the CTA-pair kernel (2, cta_group::2)")
    parser.add_argument("-o", "--output", default=None,
                        help="output .ptx / .pto file (default: stdout); never the input file")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    from mmair.dialects import get_all_dialects
    from mmair.passes.pass_errors import PassOpError
    from mmair.passes.tcgen05_to_ptx import PtxEmitError, emit_ptx
    from mmair.tools.cli import check_output_path, write_output
    from mmair.tools.diagnostics import UserError
    from mmair.tools.outputs import refuse_overwriting_inputs

    try:
        if args.output not in (None, "-"):
            check_output_path(args.output)
            refuse_overwriting_inputs([("-o", args.output)], [("the input", args.input)])
    except UserError as err:
        print(err, file=sys.stderr)
        return 1
    try:
        source = SourceFile("<stdin>" if args.input == "-" else args.input,
                            read_input_text(args.input))
    except (OSError, UnicodeDecodeError) as err:
        print(format_diagnostic(f"cannot read input: {err}", file=args.input), file=sys.stderr)
        return 1
    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    try:
        module = parse_source(ctx, source.text, source.name)
        module.verify()
        if not any(isinstance(op, func.FuncOp) for op in module.ops):
            print(format_diagnostic(
                "no kernel to translate: the module holds no func.func (each top-level "
                "func.func becomes one kernel)", file=source.name), file=sys.stderr)
            return 1
        if args.target == "ptx" and any(op.name == "tcgen05.matmul" for op in module.walk()):
            # as mmair-run does: the matmul is written through its lowering
            from mmair.passes.tcgen05_lower_matmul import Tcgen05LowerMatmulPass

            Tcgen05LowerMatmulPass(cta_group=args.cta_group).apply(ctx, module)
        text = emit_ptx(module) if args.target == "ptx" else _ptoas_text(module)
    except ParseError as err:
        print(format_parse_error(err), file=sys.stderr)
        return 1
    except (PtxEmitError, PassOpError) as err:
        if isinstance(err.op, ModuleOp):
            print(format_diagnostic(str(err).split(" op ", 1)[1], file=source.name),
                  file=sys.stderr)
        else:
            print(format_op_error(err.op, str(err).split(" op ", 1)[1], source), file=sys.stderr)
        return 1
    except DiagnosticException as err:
        print(f"{source.name}: error: {err}".splitlines()[0], file=sys.stderr)
        return 1
    if args.output not in (None, "-"):
        try:
            write_output(args.output, lambda f: f.write(text.encode("utf-8")))
        except UserError as err:
            print(err, file=sys.stderr)
            return 1
    else:
        sys.stdout.write(text)
    return 0


def _ptoas_text(module: ModuleOp) -> str:
    """The module written as PTOAS tile-level IR (mmair-to-ptoas), as text."""
    import io

    from xdsl.printer import Printer

    from mmair.passes.mmair_to_ptoas import write_module

    write_module(module)
    out = io.StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue() + "\n"


if __name__ == "__main__":
    sys.exit(main())
