"""MLIR-style diagnostics shared by the mmair tools.

A user error with a place in the input is reported as one `file:line:col: error: message` line,
followed by the source line and a caret, and the tool exits 1; one about a whole file is
`file: error: message`. Errors without a source line (bad options: `mmair-run: error: ...`, exit 2)
are the tools' own. No Python traceback reaches the user.
"""

from __future__ import annotations

import errno
import re
import sys
import weakref
from dataclasses import dataclass
from typing import IO

from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.parser import Parser
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException
from xdsl.utils.lexer import Span, Token
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

from mmair.dialects.locations import op_location
from mmair.dialects.origin import rename_in
from mmair.dialects.value_names import record_written_names, value_label


class UserError(Exception):
    """An error in the user's input, already phrased for the user."""


MAX_INPUT_CHARS = 64 << 20
"""Most characters of IR a tool reads: a device such as /dev/zero or /dev/full never ends."""


def read_input_text(path: str) -> str:
    """The text of input `path` ('-' is standard input), at most `MAX_INPUT_CHARS`; OSError or
    UnicodeDecodeError otherwise (the tools print them as `cannot read input: ...`)."""
    if path == "-":
        text = sys.stdin.read(MAX_INPUT_CHARS + 1)
    else:
        with open(path, encoding="utf-8") as f:
            text = f.read(MAX_INPUT_CHARS + 1)
    if len(text) > MAX_INPUT_CHARS:
        raise OSError(errno.EFBIG, f"more than {MAX_INPUT_CHARS} characters (an endless device "
                                   "such as /dev/zero?)")
    return text


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


def op_message(op: Operation, message: str) -> str:
    """Prefix `'<op>' op` the way MLIR does, unless the message already names the op; an op
    converted from PTOAS is named as written (`'pto.tmov' (mmair pto.mte_l1_l0a)`)."""
    message = message if message.startswith("'") else f"'{op.name}' op {message}"
    return rename_in(op, message)


def format_op_error(op: Operation, message: str, source: SourceFile | None = None) -> str:
    file, line, col = op_location(op)
    if source is not None and file != source.name:
        source = None
    return format_diagnostic(op_message(op, message), file=file, line=line, col=col, source=source)


def pipeline_error_line(err: BaseException) -> str:
    """One line for a bad `-p` pipeline: xDSL's ArgSpecParseError spans several lines (location,
    the spec, a caret, the message); keep the message and the column."""
    lines = [line for line in str(err).strip().splitlines() if line.strip()]
    if len(lines) >= 4 and lines[1].startswith("pass-pipeline:"):
        column = lines[1].rsplit(":", 1)[-1]
        return f"bad pipeline '{lines[2]}': {lines[-1].strip()} (column {column})"
    return lines[0] if lines else type(err).__name__


def format_pass_error(err: Exception, source: SourceFile) -> str:
    """A pass failure: located at its operation when the exception carries one (`err.op`)."""
    message = str(err).splitlines()[0] if str(err) else type(err).__name__
    op = getattr(err, "op", None)
    if isinstance(op, Operation):
        return format_op_error(op, message, source)
    return format_diagnostic(message, file=source.name)


def _parse_message(message: str, span: Span) -> str:
    """xDSL's message, or what the parser found where it has none: at the end of the input it
    says only " in block definition" (`echo 'builtin.module {' | mmair-opt -`)."""
    message = message.strip()
    if message and not message.startswith("in "):
        return message
    content = span.input.content
    found = content[span.start:span.end] if span.end > span.start else ""
    what = f"'{found}'" if str(found).strip() else "end of input (a '{' or region not closed?)"
    return f"unexpected {what}" + (f" {message}" if message else "")


def format_parse_error(err: ParseError, line_offset: int = 0) -> str:
    span = err.span
    loc = span.get_location()
    source = SourceFile(loc.file, span.input.content if isinstance(span.input.content, str)
                        else span.input.content.decode("utf-8", "replace"))
    text = format_diagnostic(_parse_message(err.msg, span), file=loc.file,
                             line=loc.line + line_offset, col=loc.col)
    if (src := source.line(loc.line)) is not None:
        width = max(min(span.end, span.input.get_end_of_line(span.start)) - span.start, 1)
        text += f"\n{src}\n{' ' * (loc.col - 1)}{'^' * width}"
    return text


# A type written as `name<...>` or `!dialect.name<...>` whose text holds no string, alias or nested
# region-like bracket: the only kind `LocatingParser` caches by its source text.
_CACHEABLE_TYPE = re.compile(r"!?[A-Za-z_][\w.]*<[^<>\"'{}()\[\]#@]*(?:<[^<>\"'{}()\[\]#@]*>[^<>\"'{}()\[\]#@]*)*>")


# xDSL's string-literal regex nests `+` inside `*` (`"(?:[^"\\...]+|\\...)*"`): on a string that is
# never closed it backtracks exponentially (a stray `"` in a 200-character line hangs the parser).
# The same language with one character per repetition matches in linear time.
_STRING_LITERAL = re.compile(r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"')


# The tokens that make up most of an op's text, each with a spelling that a regular expression
# matches exactly as `MLIRLexer` would (whitespace without comments, then a bare identifier, a
# `%` value name or a one-character punctuation that starts no longer token). Anything else (a
# comment, `{`, `-`, `/`, numbers, strings, non-ASCII, errors) goes to the stock lexer.
_SIMPLE_TOKEN = re.compile(
    r"[ \t\n\r\f\v]*(?:([A-Za-z_][A-Za-z0-9_$.]*)|(%(?:[0-9]+|[A-Za-z$._-][A-Za-z0-9$._-]*))"
    r"|([:,()\[\]<>=}+*?|]))"
)
_PUNCTUATION_KINDS = {
    ":": MLIRTokenKind.COLON,
    ",": MLIRTokenKind.COMMA,
    "(": MLIRTokenKind.L_PAREN,
    ")": MLIRTokenKind.R_PAREN,
    "}": MLIRTokenKind.R_BRACE,
    "[": MLIRTokenKind.L_SQUARE,
    "]": MLIRTokenKind.R_SQUARE,
    "<": MLIRTokenKind.LESS,
    ">": MLIRTokenKind.GREATER,
    "=": MLIRTokenKind.EQUAL,
    "+": MLIRTokenKind.PLUS,
    "*": MLIRTokenKind.STAR,
    "?": MLIRTokenKind.QUESTION,
    "|": MLIRTokenKind.VERTICAL_BAR,
}


class _SimpleTokenLexer(MLIRLexer):
    """`MLIRLexer` with one regular-expression match for the common tokens (same tokens, same
    spans): the stock lexer tries each token kind in turn in Python, and a generated kernel is
    mostly value names, commas and op names."""

    def lex(self) -> Token[MLIRTokenKind, str]:
        match = _SIMPLE_TOKEN.match(self.input.content, self.pos)
        if match is None:
            return super().lex()
        self.pos = end = match.end()
        if match.lastindex == 1:
            kind = MLIRTokenKind.BARE_IDENT
        elif match.lastindex == 2:
            kind = MLIRTokenKind.PERCENT_IDENT
        else:
            kind = _PUNCTUATION_KINDS[match.group(3)]
        return Token(kind, Span(match.start(match.lastindex), end, self.input))


class LocatingParser(Parser):
    """An xDSL parser that records each operation's source position as a `FileLineColLoc`.

    Two costs of the stock parser are avoided, because generated kernels repeat the same few types
    thousands of times: a parametrized type (`!pto.tile<l1, 128x128xf16, nz>`, `memref<128x128xf16>`)
    is parsed once per distinct source text and then reused (attributes are immutable values, so
    sharing one instance is exact), and line numbers are counted incrementally instead of from the
    start of the file for every operation. It also records the name each value is written with
    (`mmair.dialects.value_names`: xDSL's name_hint drops a `_<digits>` suffix)."""

    def __init__(self, ctx, input: str | bytes, name: str = "<unknown>", line_offset: int = 0):
        super().__init__(ctx, input, name)
        self._file_attr = StringAttr(name)
        self._line_offset = line_offset
        self._type_cache: dict[str, Attribute] = {}
        self._line_pos = 0  # position and 1-based line number of the last located operation
        self._line_number = 1
        self._columns: dict[int, IntAttr] = {}
        self.lexer.__class__ = _SimpleTokenLexer
        self.lexer._unescaped_characters_regex = _STRING_LITERAL  # see _STRING_LITERAL
        self._resume_from(0)  # re-lex the first token with it

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        if allow_implicit_module and self._current_token.kind == MLIRTokenKind.EOF:
            return ModuleOp([])  # an empty file (or only comments) is an empty module, as in mlir-opt
        try:
            return super().parse_module(allow_implicit_module)
        except RecursionError:
            # Deeply nested types, attributes or regions: a parse error, not a crash.
            self.raise_error("nesting too deep to parse", self._current_token.span)

    def parse_optional_type(self):
        content = self.lexer.input.content
        if not isinstance(content, str):
            return super().parse_optional_type()
        start = self._current_token.span.start
        match = _CACHEABLE_TYPE.match(content, start)
        if match is None:
            return super().parse_optional_type()
        key = match.group()
        cached = self._type_cache.get(key)
        if cached is not None:
            self._resume_from(match.end())
            return cached
        result = super().parse_optional_type()
        # Cache only when the stock parser consumed exactly the matched text.
        if result is not None:
            end, next_start = match.end(), self._current_token.span.start
            if next_start >= end and (next_start == end or content[end:next_start].isspace()):
                self._type_cache[key] = result
        return result

    def _register_ssa_definition(self, name: str, values, span: Span) -> None:
        # Keep the name as written (`%x_1`; xDSL's name_hint drops the `_1`) for diagnostics and
        # mmair-run's argument names: `mmair.dialects.value_names`.
        super()._register_ssa_definition(name, values, span)
        record_written_names(name, values)

    def _line_col(self, pos: int) -> tuple[int, int]:
        """1-based line and column of `pos`, counting newlines only since the last lookup."""
        content = self.lexer.input.content
        newline = "\n" if isinstance(content, str) else b"\n"
        if pos >= self._line_pos:
            self._line_number += content.count(newline, self._line_pos, pos)
        else:
            self._line_number = content.count(newline, 0, pos) + 1
        self._line_pos = pos
        line_start = content.rfind(newline, 0, pos) + 1
        return self._line_number, pos - line_start + 1

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
            line, col = self._line_col(start.start)
            op.location = self._location(line + self._line_offset, col)
        return op

    def _location(self, line: int, col: int) -> FileLineColLoc:
        """`FileLineColLoc(file, line, col)` built without re-verifying its parameters (a
        StringAttr and two IntAttrs made right here): the checks cost more than the parse of a
        small op's operands."""
        loc = FileLineColLoc.__new__(FileLineColLoc)
        names = _LOC_FIELDS
        object.__setattr__(loc, names[0], self._file_attr)
        object.__setattr__(loc, names[1], _int_attr(line))
        object.__setattr__(loc, names[2], self._columns.get(col) or self._column(col))
        return loc

    def _column(self, col: int) -> IntAttr:
        attr = self._columns[col] = _int_attr(col)
        return attr


_LOC_FIELDS = tuple(name for name, _ in FileLineColLoc.get_irdl_definition().parameters)


def _int_attr(value: int) -> IntAttr:
    attr = IntAttr.__new__(IntAttr)
    object.__setattr__(attr, "data", value)
    return attr


class OpVerifyError(Exception):
    """A verifier failure together with the operation that failed."""

    def __init__(self, op: Operation, message: str):
        super().__init__(message)
        self.op = op
        self.message = message


# An op class opts in to memoized verification with the class attribute `MEMO_VERIFY = True`: its
# verification (xDSL's generic checks and its `verify_`) is then a function of the op's own types,
# properties and attributes, the defining ops of its operands as far as they are constants or
# `pto.alloc`s (static sizes, static offsets), which operands are the same value, its parent op and
# the module's `pto.target`. A class whose rules look further (uses, other ops: the sync ops pair
# flags) leaves it unset and is verified every time.
def _memoizable(op: Operation) -> bool:
    return getattr(type(op), "MEMO_VERIFY", False) is True


def _verify_key(op: Operation, target: Attribute | None) -> tuple | None:
    """What the verification of `op` depends on, or None when it is not memoizable."""
    if not _memoizable(op) or op.regions or op.successors:
        return None
    seen: dict[SSAValue, int] = {}
    operands = []
    for value in op.operands:
        owner = value.owner
        name = getattr(owner, "name", None)
        if name == "arith.constant":
            origin = ("constant", owner.properties.get("value"))
        elif name == "pto.alloc":
            origin = ("alloc", owner.properties.get("offset"))
        else:
            origin = type(owner)
        operands.append((value.type, origin, seen.setdefault(value, len(seen))))
    parent = op.parent_op()
    return (
        type(op), tuple(operands), tuple(r.type for r in op.results),
        tuple(op.properties.items()), tuple(op.attributes.items()), type(parent), target,
    )


def _module_target(op: Operation) -> Attribute | None:
    current = op.parent_op()
    while current is not None:
        if isinstance(current, ModuleOp) and "pto.target" in current.attributes:
            return current.attributes["pto.target"]
        current = current.parent_op()
    return None


def verify_module(module: ModuleOp) -> None:
    """Verify every operation in source order; raise `OpVerifyError` naming the first that fails.

    Generated kernels repeat the same op with the same operand types and sizes thousands of times,
    so the verification of an op whose class sets `MEMO_VERIFY` is memoized by everything it
    depends on (`_verify_key`): an op equal to one already verified in this module is not verified
    again."""
    # First: an operand that is not dominated by its definition (or that the parser left as an
    # unresolved forward reference) would make the op verifiers themselves fail.
    check_dominance(module)
    verified: set[tuple] = set()
    targets: dict[Block, Attribute | None] = {}
    for op in module.walk():
        key = None
        if _memoizable(op):
            block = op.parent_block()
            if block is not None:
                if block not in targets:
                    targets[block] = _module_target(op)
                key = _verify_key(op, targets[block])
            if key is not None and key in verified:
                continue
        try:
            op.verify(verify_nested_ops=False)
        except VerifyException as err:
            raise OpVerifyError(op, str(err)) from None
        except Exception as err:  # noqa: BLE001 - see below
            # A few xDSL verifiers raise a bare Exception (memref.load/store: "expected an index
            # for each dimension", scf.while: "Block arguments with wrong type"): a verifier
            # message all the same. Anything else is a bug and keeps its traceback.
            if type(err) is not Exception:
                raise
            raise OpVerifyError(op, str(err)) from None
        if key is not None:
            verified.add(key)


def check_dominance(module: ModuleOp) -> None:
    """Raise `OpVerifyError` at the first use of a value that its definition does not dominate.

    xDSL's verifier does not check SSA dominance (MLIR's does), and the executor would then read a
    value that was never computed. The body of a `builtin.module` is a graph region (any order);
    every other region is an SSACFG region: a value is visible after its definition in its block,
    in the blocks that block dominates, and in regions nested below, but not below an op that is
    isolated from above (`func.func`)."""
    from xdsl.irdl.dominance import DominanceInfo
    from xdsl.traits import IsolatedFromAbove

    def walk_block(block: Block, visible: set[SSAValue], graph: bool) -> None:
        added: list[SSAValue] = list(block.args)
        visible.update(block.args)
        if graph:
            for op in block.ops:
                added.extend(op.results)
                visible.update(op.results)
        for op in block.ops:
            for index, operand in enumerate(op.operands):
                if operand not in visible:
                    name = f" ({label})" if (label := value_label(operand)) else ""
                    raise OpVerifyError(op, f"operand #{index}{name} does not dominate this use")
            if op.regions:
                inner = set() if op.has_trait(IsolatedFromAbove) else visible
                for region in op.regions:
                    walk_region(region, inner, isinstance(op, ModuleOp))
            if not graph:
                added.extend(op.results)
                visible.update(op.results)
        visible.difference_update(added)

    def walk_region(region, visible: set[SSAValue], graph: bool) -> None:
        blocks = list(region.blocks)
        if len(blocks) <= 1 or graph:
            for block in blocks:
                walk_block(block, visible, graph)
            return
        dominance = DominanceInfo(region)
        for block in blocks:
            inherited = {
                value
                for other in blocks
                if dominance.strictly_dominates(other, block)
                for value in (*other.args, *(r for op in other.ops for r in op.results))
            }
            walk_block(block, visible | inherited, graph)

    walk_region(module.body, set(), True)


def report(text: str, stream: IO[str] | None = None) -> None:
    print(text, file=stream if stream is not None else sys.stderr)


def parse_source(ctx, text: str, name: str, line_offset: int = 0,
                 allow_implicit_module: bool = True, *, keep_ptoas: bool = False,
                 sizes: dict[str, int] | None = None) -> ModuleOp:
    """The one parse path of the tools: mmair text in `ctx`; PTOAS text (any file name:
    `mmair.dialects.ptoas.detect`) in PTOAS's own context, converted to mmair's ops by
    ptoas-to-mmair unless `keep_ptoas` (then a converted copy is checked by `check_ptoas`); `sizes`
    gives the scalar arguments' values a run supplies, for tensor shapes given by kernel arguments.
    A PTOAS op mmair does not model is refused by name at its location (`UserError`)."""
    from mmair.dialects.ptoas.detect import is_ptoas, refusal_message, refused_op

    if not is_ptoas(text):
        return LocatingParser(ctx, text, name, line_offset).parse_module(allow_implicit_module)
    refused = refused_op(text)
    if refused is not None:
        op_name, kind, line, col = refused
        raise UserError(format_diagnostic(
            refusal_message(op_name, kind), file=name, line=line + line_offset, col=col,
            source=SourceFile(name, "\n" * line_offset + text)))
    from mmair.dialects.ptoas import ptoas_context

    module = LocatingParser(ptoas_context(), text, name, line_offset).parse_module(
        allow_implicit_module)
    _PTOAS_MODULES.add(module)  # read back by mmair-opt's printer
    if keep_ptoas:
        return module
    return convert_ptoas(module, sizes)


_PTOAS_MODULES: weakref.WeakSet[ModuleOp] = weakref.WeakSet()


def is_ptoas_module(module: ModuleOp) -> bool:
    """Whether `module` is PTOAS IR as read (not yet converted)."""
    return module in _PTOAS_MODULES


def convert_ptoas(module: ModuleOp, sizes: dict[str, int] | None = None) -> ModuleOp:
    """ptoas-to-mmair in place, after PTOAS's own verifiers; a construct it cannot express is an
    `OpVerifyError` at the PTOAS op."""
    from mmair.passes.ptoas_to_mmair import ConversionError, convert_module

    _PTOAS_MODULES.discard(module)
    verify_module(module)  # PTOAS's own rules first, on its ops, as ptoas reports them
    try:
        convert_module(module, sizes)
    except ConversionError as err:
        raise OpVerifyError(err.op, str(err)) from None
    return module


def check_ptoas(module: ModuleOp) -> None:
    """Verify a PTOAS module as mmair runs it: a converted copy through `verify_module`."""
    copy = module.clone()
    convert_ptoas(copy)
    verify_module(copy)


def no_flags_note(err: Exception, module: Operation, file: str) -> str:
    """A race or hang in a kernel that has no synchronization at all is what PTOAS's input looks
    like before its insert-sync pass (pypto's samples are such input): say how to add it."""
    from mmair.dialects import pto

    if getattr(err, "kind", None) not in ("race", "deadlock"):
        return ""
    sync = (pto.SetFlagOp, pto.WaitFlagOp, pto.PipeBarrierOp)
    if any(isinstance(op, sync) for op in module.walk()):
        return ""
    return "\n" + format_diagnostic(
        "the kernel has no set_flag, wait_flag or pipe_barrier: PTOAS inserts them when it "
        "compiles with --enable-insert-sync; -p pto-insert-sync inserts them here",
        file=file, severity="note")
