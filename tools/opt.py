"""`mmair-opt`: the opt-style driver of mmair (parse, verify, run pass pipelines, print).

It is xDSL's `xDSLOptMain` with the mmair dialects and passes registered, and with MLIR-style
diagnostics: a parse or verifier error prints `file:line:col: error: ...` with the source line and a
caret and exits 1; a bad pipeline or option prints one line and exits 2. No Python traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import importlib.util
import sys
import types
from collections.abc import Sequence
from io import StringIO

from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.passes import ModulePass, PassPipeline
from xdsl.printer import Printer
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError
from xdsl.xdsl_opt_main import xDSLOptMain

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

TARGET_ATTR = "pto.target"


def _split_chunks(text: str, split: bool) -> list[tuple[str, int]]:
    """The input, or its `// -----` chunks, each with the number of lines before it."""
    if not split:
        return [(text, 0)]
    chunks: list[tuple[str, int]] = []
    offset = 0
    for chunk in text.split("// -----"):
        chunks.append((chunk, offset))
        offset += chunk.count("\n")
    return chunks


class MmairOptMain(xDSLOptMain):
    version_format = "mmair-opt (xdsl {xdsl_version})"

    def register_all_dialects(self) -> None:
        from mmair.dialects import get_all_dialects

        for name, factory in get_all_dialects().items():
            self.ctx.register_dialect(name, factory)

    def register_all_passes(self) -> None:
        from mmair.passes import get_all_passes

        for name, factory in get_all_passes().items():
            self.register_pass(name, factory)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        from mmair.isa.ascend.targets import TARGET_NAMES

        arg_parser.add_argument(
            "--mmair-target",
            choices=TARGET_NAMES,
            default=None,
            help="Ascend target for modules without a `pto.target` attribute (default a2)",
        )

    def setup_pipeline(self) -> None:
        def verify_between(
            previous: ModulePass | None, module: ModuleOp, following: ModulePass | None
        ) -> None:
            if not self.args.disable_verify:
                verify_module(module)

        self.pipeline = PassPipeline.parse_spec(self.available_passes, self.args.passes, verify_between)

    def _read_input(self) -> SourceFile:
        name = self.args.input_file or "<stdin>"
        try:
            if self.args.input_file is None:
                return SourceFile("<stdin>", sys.stdin.read())
            with open(self.args.input_file, encoding="utf-8") as f:
                return SourceFile(name, f.read())
        except (OSError, UnicodeDecodeError) as err:
            raise UserError(format_diagnostic(f"cannot read input: {err}", file=name)) from None

    def _parse(self, chunk: str, source: SourceFile, line_offset: int) -> ModuleOp:
        parser = LocatingParser(self.ctx, chunk, source.name, line_offset)
        module = parser.parse_module(not self.args.no_implicit_module)
        if self.args.mmair_target and TARGET_ATTR not in module.attributes:
            module.attributes[TARGET_ATTR] = StringAttr(self.args.mmair_target)
        return module

    def parse_and_verify(self, chunk: str, source: SourceFile, line_offset: int) -> ModuleOp:
        """Parse one chunk and verify it (unless --disable-verify).

        The cyclic garbage collector is paused meanwhile: parsing allocates many long-lived objects
        and no garbage cycles, so its collections only rescan the growing IR (about 15% of the
        time for 10^4 ops). It runs again afterwards."""
        enabled = gc.isenabled()
        gc.disable()
        try:
            module = self._parse(chunk, source, line_offset)
            if not self.args.disable_verify:
                verify_module(module)
            return module
        finally:
            if enabled:
                gc.enable()

    def _print(self, module: ModuleOp) -> str:
        if self.args.target != "mlir":
            return self.output_resulting_program(module)
        out = StringIO()
        Printer(stream=out, print_generic_format=self.args.print_op_generic).print_op(module)
        out.write("\n")
        return out.getvalue()

    def process(self, source: SourceFile) -> int:
        """Run every chunk; return 1 if any user error was reported (0 under the diagnostics flags)."""
        failed = False
        outputs: list[str] = []
        diagnostics_mode = self.args.verify_diagnostics or self.args.parsing_diagnostics
        for index, (chunk, offset) in enumerate(_split_chunks(source.text, self.args.split_input_file)):
            if index > 0:
                outputs.append("// -----\n")
            try:
                module = self.parse_and_verify(chunk, source, offset)
                self.pipeline.apply(self.ctx, module)
                outputs.append(self._print(module))
            except ParseError as err:
                text = format_parse_error(err, offset)
                if self.args.parsing_diagnostics or self.args.verify_diagnostics:
                    outputs.append(text + "\n")
                    continue
                report(text)
                return 1
            except OpVerifyError as err:
                text = format_op_error(err.op, err.message, source)
                if self.args.verify_diagnostics:
                    outputs.append(text + "\n")
                    continue
                report(text)
                return 1
            except DiagnosticException as err:
                text = format_pass_error(err, source)
                if self.args.verify_diagnostics:
                    outputs.append(text + "\n")
                    continue
                report(text)
                return 1
        stream = self.prepare_output()
        try:
            stream.write("".join(outputs))
        finally:
            if stream is not sys.stdout:
                stream.close()
        return 1 if failed and not diagnostics_mode else 0


class _DeferredModule(types.ModuleType):
    """Stands in for a module until one of its attributes is used; then imports the real module,
    takes over its namespace (so later attribute reads are plain dict hits) and hands it over to
    `sys.modules`."""

    def __getattr__(self, attr: str):
        if sys.modules.get(self.__name__) is self:
            del sys.modules[self.__name__]
        real = importlib.import_module(self.__name__)
        self.__dict__.update(real.__dict__)
        return getattr(real, attr)


def _defer_numpy_import() -> None:
    """Defer numpy's import in this process until numpy is used: the isa modules import it for
    their array helpers, but parsing, verifying and printing never call them, and the import
    costs about a third of the tool's start-up. (importlib's LazyLoader does not help on Python
    3.11: the `import` statement itself reads `__spec__` and so triggers the load.)"""
    if "numpy" in sys.modules:
        return
    spec = importlib.util.find_spec("numpy")
    if spec is None:
        return
    stub = _DeferredModule("numpy")
    stub.__spec__ = spec
    sys.modules["numpy"] = stub


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:  # the console script; library callers keep their imports as they are
        _defer_numpy_import()
    captured = StringIO()
    try:
        with contextlib.redirect_stderr(captured):
            tool = MmairOptMain(args=argv)
    except SystemExit as exit_:  # argparse: keep only its one-line error, not the usage block
        lines = captured.getvalue().strip().splitlines()
        if lines:
            print(lines[-1], file=sys.stderr)
        return int(exit_.code or 0)
    except (ValueError, ArgSpecParseError) as err:
        print(f"mmair-opt: error: {pipeline_error_line(err)}", file=sys.stderr)
        return 2
    try:
        return tool.process(tool._read_input())
    except UserError as err:
        report(str(err))
        return 1
    except (ValueError, ArgSpecParseError) as err:
        print(f"mmair-opt: error: {pipeline_error_line(err)}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
