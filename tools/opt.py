"""`mmair-opt`: the opt-style driver of mmair (parse, verify, run pass pipelines, print).

    mmair-opt [FILE | -] [-p PIPELINE] [-o OUT] [--target T] [--split-input-file]
              [--verify-diagnostics] [--print-op-generic] [--version] [--help]

It is xDSL's `xDSLOptMain` with the mmair dialects and passes registered, mmair's own command line
(`--help` lists every pass with its options and defaults, generated from the pass classes; see
`tools/cli.py`), and MLIR-style diagnostics: a parse or verifier error prints
`file:line:col: error: ...` with the source line and a caret and exits 1; a bad pipeline or option
prints one line and exits 2. No Python traceback.

`--target` is the Ascend target for modules without a `pto.target` attribute (the spelling every
mmair tool uses); xDSL's output-format option is `--output-format` here. `--verify-diagnostics`:
see `tools/expected.py`.
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
from xdsl.passes import ModulePass
from xdsl.printer import Printer
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from mmair.tools.cli import (
    PipelineError,
    all_targets,
    check_output_path,
    parse_pipeline_spec,
    passes_help,
    target_attribute,
    write_output,
    wrong_family_target,
)
from mmair.tools.diagnostics import (
    OpVerifyError,
    SourceFile,
    UserError,
    check_ptoas,
    format_diagnostic,
    format_op_error,
    format_parse_error,
    format_pass_error,
    is_ptoas_module,
    parse_source,
    pipeline_error_line,
    read_input_text,
    report,
    verify_module,
)
from mmair.tools.stdio import quiet_broken_pipe
from mmair.tools.version import VersionAction


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


def _hardware_target(text: str) -> str:
    """A `--target` value, checked when given (the tcgen05 target list costs start-up time)."""
    if text not in all_targets():
        raise argparse.ArgumentTypeError(
            f"invalid choice: '{text}' (choose from {', '.join(all_targets())})")
    return text


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
        """mmair-opt's own options (xDSL's `-t/--target` output format becomes `--output-format`,
        so that `--target` means the hardware target as in mmair-run and mmair-desc)."""
        from mmair.isa.ascend.targets import TARGET_NAMES

        arg_parser.prog = "mmair-opt"
        arg_parser.description = ("Parse, verify and transform mmair IR (pto and tcgen05 dialects) "
                                  "and print it.")
        arg_parser.formatter_class = argparse.RawDescriptionHelpFormatter
        plain_help = arg_parser.format_help

        def format_help() -> str:  # the pass list imports every pass: only for --help
            arg_parser.epilog = passes_help()
            target.help = f"{target.help} (one of {', '.join(all_targets())})"
            return plain_help()

        arg_parser.format_help = format_help  # type: ignore[method-assign]
        add = arg_parser.add_argument
        add("input_file", nargs="?", help="input .mlir file ('-' or none: standard input)")
        add("-o", "--output-file", help="output file (default: standard output)")
        add("-p", "--passes", default="", help="pass pipeline, e.g. 'mmair-lower,cse' (see below)")
        target = add("--target", dest="mmair_target", type=_hardware_target, default=None,
                     metavar="TARGET",
                     help="hardware target for modules that name none: an Ascend target (sets "
                          "`pto.target`, default a2) or a Blackwell one (sets `tcgen05.target`)")
        add("--mmair-target", dest="mmair_target", choices=TARGET_NAMES, help=argparse.SUPPRESS)
        # xDSL's other backends (llvm, riscv-asm, wat, ...) print only their own dialects: on pto or
        # tcgen05 IR they raised a traceback or printed nothing. PTX is mmair-translate's.
        add("--output-format", dest="target", default="mlir", choices=["mlir"],
            help="output format: mlir (the only one for pto/tcgen05 IR; PTX: mmair-translate)")
        add("--split-input-file", action="store_true",
            help="process each `// -----` chunk of the input separately")
        add("--verify-diagnostics", action="store_true",
            help="check `// expected-error {{...}}` annotations as mlir-opt does; in files without "
                 "annotations, print each chunk's diagnostic to the output and exit 0")
        add("--parsing-diagnostics", action="store_true",
            help="print parse errors to the output and exit 0")
        add("--disable-verify", action="store_true", help="skip the verifiers")
        add("--allow-unregistered-dialect", action="store_true",
            help="accept ops of unregistered dialects")
        add("--no-implicit-module", action="store_true",
            help="do not wrap the input in a builtin.module")
        add("--print-op-generic", action="store_true", help="print ops in the generic format")
        add("--print-no-properties", action="store_true", help=argparse.SUPPRESS)
        add("--print-debuginfo", action="store_true", help=argparse.SUPPRESS)
        add("--syntax-highlight", action="store_true", help=argparse.SUPPRESS)
        add("--version", action=VersionAction)

    def setup_pipeline(self) -> None:
        def verify_between(
            previous: ModulePass | None, module: ModuleOp, following: ModulePass | None
        ) -> None:
            if not self.args.disable_verify:
                verify_module(module)

        self.pipeline = parse_pipeline_spec(self.available_passes, self.args.passes, verify_between)

    def _read_input(self) -> SourceFile:
        name = self.args.input_file if self.args.input_file not in (None, "-") else "<stdin>"
        try:
            if name == "<stdin>":
                return SourceFile("<stdin>", read_input_text("-"))
            return SourceFile(name, read_input_text(self.args.input_file))
        except (OSError, UnicodeDecodeError) as err:
            raise UserError(format_diagnostic(f"cannot read input: {err}", file=name)) from None

    def _parse(self, chunk: str, source: SourceFile, line_offset: int) -> ModuleOp:
        # PTOAS input with no pipeline is printed back as PTOAS; with one it runs as mmair ops.
        module = parse_source(self.ctx, chunk, source.name, line_offset,
                              not self.args.no_implicit_module, keep_ptoas=not self.args.passes)
        target = self.args.mmair_target
        wrong = wrong_family_target(module, target)
        if wrong is not None:
            raise UserError(format_diagnostic(wrong, file=source.name))
        if target and target_attribute(target) not in module.attributes:
            module.attributes[target_attribute(target)] = StringAttr(target)
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
                if is_ptoas_module(module):
                    check_ptoas(module)
                else:
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

    def _chunk_diagnostic(self, chunk: str, source: SourceFile, offset: int
                          ) -> tuple[str | None, str | None, bool]:
        """(printed IR, None, _) for a chunk that passes, (None, diagnostic text, is a parse
        error) for one that fails."""
        try:
            module = self.parse_and_verify(chunk, source, offset)
            self.pipeline.apply(self.ctx, module)
            return self._print(module), None, False
        except ParseError as err:
            return None, format_parse_error(err, offset), True
        except OpVerifyError as err:
            return None, format_op_error(err.op, err.message, source), False
        except DiagnosticException as err:
            return None, format_pass_error(err, source), False
        except UserError as err:  # a PTOAS op mmair refuses by name (tools/diagnostics.py)
            return None, str(err), False

    def process(self, source: SourceFile) -> int:
        """Run every chunk; return 1 if a user error was reported (see `tools/expected.py` for
        --verify-diagnostics)."""
        if self.args.output_file is not None:
            check_output_path(self.args.output_file)
            if self.args.input_file not in (None, "-"):
                from mmair.tools.outputs import refuse_overwriting_inputs

                refuse_overwriting_inputs([("-o", self.args.output_file)],
                                          [("the input", self.args.input_file)])
        # imported only when asked for: every module a start-up imports is compiled from source
        # when no bytecode cache is written (PYTHONDONTWRITEBYTECODE, docs/benchmarks.md)
        expected: types.ModuleType | None = None
        if self.args.verify_diagnostics:
            from mmair.tools import expected
        annotated = expected is not None and expected.has_annotations(source.text)
        outputs: list[str] = []
        problems: list[str] = []
        for index, (chunk, offset) in enumerate(_split_chunks(source.text, self.args.split_input_file)):
            if index > 0:
                outputs.append("// -----\n")
            printed, diagnostic, is_parse = self._chunk_diagnostic(chunk, source, offset)
            if annotated:
                assert expected is not None
                problems += expected.check(source.name, expected.expectations(chunk, offset),
                                           [diagnostic] if diagnostic else [])
                outputs.append(printed or "")
                continue
            if printed is not None:
                outputs.append(printed)
                continue
            assert diagnostic is not None
            if self.args.verify_diagnostics or (self.args.parsing_diagnostics and is_parse):
                outputs.append(diagnostic + "\n")
                continue
            report(diagnostic)
            return 1
        self._write("".join(outputs))
        for line in problems:
            report(line)
        return 1 if problems else 0

    def _write(self, text: str) -> None:
        path = self.args.output_file
        if path is None or path == "-":
            sys.stdout.write(text)
            return
        write_output(path, lambda f: f.write(text.encode("utf-8")))


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


@quiet_broken_pipe
def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:  # the console script; library callers keep their imports as they are
        _defer_numpy_import()
    captured = StringIO()
    try:
        with contextlib.redirect_stderr(captured):
            tool = MmairOptMain(args=argv)
    except PipelineError as err:
        print(f"mmair-opt: error: {err}", file=sys.stderr)
        return 2
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
