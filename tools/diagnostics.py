"""MLIR-style diagnostics shared by the mmair tools.

Every user error is reported as one `file:line:col: error: message` line, followed by the source line
and a caret when the location is known, and the tool exits 1. No Python traceback reaches the user.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import IO

from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException


class UserError(Exception):
    """An error in the user's input, already phrased for the user."""


@dataclass
class SourceFile:
    """The text of an input file, kept to quote source lines in diagnostics."""

    name: str
    text: str

    def line(self, number: int) -> str | None:
        lines = self.text.splitlines()
        return lines[number - 1] if 1 <= number <= len(lines) else None


def format_diagnostic(
    message: str,
    *,
    file: str | None = None,
    line: int | None = None,
    col: int | None = None,
    source: SourceFile | None = None,
    severity: str = "error",
) -> str:
    """`file:line:col: error: message`, then the source line and a caret when they are known."""
    where = ""
    if file is not None:
        where = file
        if line is not None:
            where += f":{line}"
            if col is not None:
                where += f":{col}"
        where += ": "
    text = f"{where}{severity}: {message}"
    if source is not None and line is not None and (src := source.line(line)) is not None:
        text += f"\n{src}\n{' ' * max((col or 1) - 1, 0)}^"
    return text


def op_location(op: Operation) -> tuple[str | None, int | None, int | None]:
    """The file, line and column recorded for `op` (or its closest located ancestor)."""
    current: Operation | None = op
    while current is not None:
        loc = current.location
        if isinstance(loc, FileLineColLoc):
            return loc.filename.data, loc.line.data, loc.column.data
        current = current.parent_op()
    return None, None, None


def op_message(op: Operation, message: str) -> str:
    """Prefix `'<op>' op` the way MLIR does, unless the message already names the op."""
    return message if message.startswith("'") else f"'{op.name}' op {message}"


def format_op_error(op: Operation, message: str, source: SourceFile | None = None) -> str:
    file, line, col = op_location(op)
    if source is not None and file != source.name:
        source = None
    return format_diagnostic(op_message(op, message), file=file, line=line, col=col, source=source)


def format_parse_error(err: ParseError, line_offset: int = 0) -> str:
    span = err.span
    loc = span.get_location()
    source = SourceFile(loc.file, span.input.content if isinstance(span.input.content, str)
                        else span.input.content.decode("utf-8", "replace"))
    text = format_diagnostic(err.msg, file=loc.file, line=loc.line + line_offset, col=loc.col)
    if (src := source.line(loc.line)) is not None:
        width = max(min(span.end, span.input.get_end_of_line(span.start)) - span.start, 1)
        text += f"\n{src}\n{' ' * (loc.col - 1)}{'^' * width}"
    return text


class LocatingParser(Parser):
    """An xDSL parser that records each operation's source position as a `FileLineColLoc`."""

    def __init__(self, ctx, input: str | bytes, name: str = "<unknown>", line_offset: int = 0):
        super().__init__(ctx, input, name)
        self._file_attr = StringAttr(name)
        self._line_offset = line_offset

    def parse_operation(self) -> Operation:
        start = self._current_token.span
        try:
            op = super().parse_operation()
        except (DiagnosticException, ValueError, OverflowError) as err:
            # Attribute and type verifiers run while parsing; report them like parse errors,
            # at the operation that holds the bad attribute.
            if isinstance(err, ParseError):
                raise
            self.raise_error(str(err).splitlines()[0] if str(err) else type(err).__name__, start)
        if not isinstance(op.location, FileLineColLoc):
            loc = start.get_location()
            op.location = FileLineColLoc.new(
                (self._file_attr, IntAttr(loc.line + self._line_offset), IntAttr(loc.col))
            )
        return op


class OpVerifyError(Exception):
    """A verifier failure together with the operation that failed."""

    def __init__(self, op: Operation, message: str):
        super().__init__(message)
        self.op = op
        self.message = message


def verify_module(module: ModuleOp) -> None:
    """Verify every operation in source order; raise `OpVerifyError` naming the first that fails."""
    for op in module.walk():
        try:
            op.verify(verify_nested_ops=False)
        except VerifyException as err:
            raise OpVerifyError(op, str(err)) from None


def report(text: str, stream: IO[str] | None = None) -> None:
    print(text, file=stream if stream is not None else sys.stderr)
