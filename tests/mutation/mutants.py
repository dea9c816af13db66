"""AST mutation operators for mmair's mutation harness (docs/mutation.md).

A mutant is one small edit of one source file: a check switched off or one numeric behaviour
changed. Each operator walks the module's AST and yields `Mutant`s; a mutant is a byte-span
replacement in the original text, so every other line of the file (and every line number in a
traceback) stays as it was.

Operators (names are what the harness's `--ops` and the area table use):

  guard     `if C: raise ...` / `if C: return "problem"` / `if C: errors.append(...)` (a list
            named like errors/faults/conflicts/races) / `if C: self._fault(...)`:
            C -> False (the check never fires)
  require   `_require(C, ...)` / `require(C, ...)`: C -> True
  call      a statement that only calls `check*` / `_check*` / `verify*` / `validate*`: removed
  cmp       `<` <-> `<=`, `>` <-> `>=` (boundary shifted), `==` <-> `!=`, `in` <-> `not in`
  gcmp      cmp, only inside the condition of a check (guard / require)
  boolop    `and` <-> `or`
  gbool     boolop, only inside the condition of a check
  ifexp     `A if C else B` -> `B` (the condition ignored)
  round     np.rint -> half-up floor(x + 0.5); floor <-> ceil; trunc -> floor; round -> floor
  dtype     np.float16 -> np.float32, np.float32 <-> np.float64, np.int64/np.int32 -> np.float32,
            ml_dtypes.bfloat16 -> np.float16
  mask      `A & B` -> `A` (masking dropped)
  clamp     np.maximum/np.minimum/np.clip(A, ...) -> A; np.where(C, A, B) -> B
  transpose `A.T` / `A.transpose(...)` / `np.transpose(A)` / `A.swapaxes(...)` -> A
  swap      `(A, B)` -> `(B, A)` and `f(..., A, B, ...)` -> `f(..., B, A, ...)` for a pair of
            names that differ only by row/col, r/c, m/n, h/w (swapped offsets or extents)
  arith     `+` <-> `-`
  offby1    `X + 1` / `X - 1` / `1 + X` -> `X` (an off-by-one in index or bound arithmetic)

Semantic operators (the kinds of bug a checker's bookkeeping has, not a check switched off):

  stmt      a statement that updates state removed: a call of a container's mutating method
            (`pop`, `append`, `add`, `insert`, `update`, `clear`, ...), an assignment to a
            subscript (`records[key] = ...`, `clock[:] = ...`), an augmented assignment, a `del`
            (a record not kept, not replaced, not pruned; a set never reserved)
  key       one part of a key dropped: an element of a tuple used as a key (a subscript, the
            first argument of `get`/`pop`/`setdefault`/`add`, the left of `in`, a value assigned
            to a name with `key` in it) or a summand of a `+` in a function or assignment named
            for a key (`flag_key`: the core dropped from a flag's bit)
  elem      an element dropped from a list literal (an operand left out of a footprint)
  semantic  the named mutants of `semantic.py`: edits no generic operator makes (a read that
            replaces a write's record, a read-read conflict, pruning by the fastest lane)

A line carrying `# mutation: skip (<reason>)` is not mutated; the reason is part of the audit.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass

SKIP_MARK = "mutation: skip"

ALL_OPS = (
    "guard", "require", "call", "cmp", "gcmp", "boolop", "gbool", "ifexp", "round", "dtype", "mask", "clamp",
    "transpose", "swap", "arith", "offby1", "stmt", "key", "elem", "semantic",
)

_CHECK_PREFIXES = ("check", "_check", "verify", "_verify", "validate", "_validate")
_REQUIRE_NAMES = ("_require", "require")
_CMP_SWAP: dict[type, type] = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In,
}
_CMP_TEXT = {
    ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
    ast.In: "in", ast.NotIn: "not in",
}
_ROUND = {"rint": "half-up", "around": "floor", "round": "floor", "floor": "ceil", "ceil": "floor",
          "trunc": "floor"}
_DTYPE = {"float16": "float32", "float32": "float64", "float64": "float32", "int64": "float32",
          "int32": "float32",
          "bfloat16": "float16"}
_MUTATORS = ("pop", "popitem", "append", "appendleft", "add", "insert", "update", "clear",
             "discard", "remove", "extend", "setdefault")
_KEY_CALLS = ("get", "pop", "setdefault", "add", "discard")
_CLAMP = ("maximum", "minimum", "clip", "fmax", "fmin")
_NUMPY = ("np", "numpy", "ml_dtypes")


@dataclass(frozen=True)
class Mutant:
    path: str  # repository-relative
    line: int
    op: str
    description: str
    start: int  # byte offsets into the file
    end: int
    replacement: bytes

    @property
    def key(self) -> str:
        return f"{self.path}:{self.line}:{self.op}:{self.start}"

    def apply(self, source: bytes) -> bytes:
        return source[: self.start] + self.replacement + source[self.end :]


class _Source:
    def __init__(self, text: bytes) -> None:
        self.text = text
        self.lines = text.splitlines(keepends=True)
        self.line_start = [0]
        for line in self.lines:
            self.line_start.append(self.line_start[-1] + len(line))

    def offset(self, line: int, col: int) -> int:
        return self.line_start[line - 1] + col  # ast col offsets are UTF-8 byte offsets

    def span(self, node: ast.AST) -> tuple[int, int]:
        return (self.offset(node.lineno, node.col_offset),
                self.offset(node.end_lineno, node.end_col_offset))

    def seg(self, node: ast.AST) -> bytes:
        a, b = self.span(node)
        return self.text[a:b]

    def skipped(self, node: ast.AST) -> bool:
        return SKIP_MARK.encode() in self.lines[node.lineno - 1]


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return _dotted(node.value) + "." + node.attr
    return ""


def _is_problem_body(body: list[ast.stmt]) -> bool:
    """A branch that reports a problem: raises, returns a message, or appends to a list."""
    for stmt in body:
        if isinstance(stmt, ast.Raise):
            return True
        if isinstance(stmt, ast.Return) and (
                isinstance(stmt.value, ast.JoinedStr)
                or isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)
                and stmt.value.value):  # a message, not an empty spelling
            return True
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            dotted = _dotted(stmt.value.func)
            receiver, _, name = dotted.rpartition(".")
            if name in ("report", "error", "emit_error", "_fault", "fault") \
                    or name.endswith("_error"):
                return True
            # appending to a list of problems (not to any list: text building appends too)
            if name in ("append", "add", "extend") and _PROBLEM_LIST.search(receiver.lower()):
                return True
    return False


_PROBLEM_LIST = re.compile(r"err|problem|fault|conflict|race|diag|violation|issue|warn|finding")
_PAIRS = (("row", "col"), ("height", "width"))
_LETTER_PAIRS = ({"r", "c"}, {"m", "n"}, {"h", "w"})


def _paired(a: ast.AST, b: ast.AST) -> bool:
    """Two names for the two dimensions of one thing (row/col, pr/pc, m/n, ...)."""
    if not (isinstance(a, ast.Name) and isinstance(b, ast.Name)) or a.id == b.id:
        return False
    x, y = a.id, b.id
    for p, q in _PAIRS:
        if x.replace(p, q) == y or y.replace(p, q) == x:
            return True
    for pair in _LETTER_PAIRS:
        if x[:-1] == y[:-1] and {x[-1], y[-1]} == pair:
            return True
        if x[1:] == y[1:] and {x[0], y[0]} == pair:
            return True
    return False


def _literal(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) or (
        isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant))


class _Collector(ast.NodeVisitor):
    def __init__(self, path: str, src: _Source, ops: tuple[str, ...],
                 functions: tuple[str, ...] = ()) -> None:
        self.path, self.src, self.ops = path, src, ops
        self.functions = functions  # only these functions (and what they contain); () = all
        self.out: list[Mutant] = []
        self.in_function = 0
        self.in_guard = 0
        self.names: list[str] = []  # the enclosing functions
        self.in_key = 0  # inside a function or an assigned value named for a key

    # -- helpers ----------------------------------------------------------------------------

    def add(self, op: str, node: ast.AST, replacement: bytes, what: str,
            span_node: ast.AST | None = None) -> None:
        if op not in self.ops or not self.in_function or self.src.skipped(node):
            return
        if self.functions and not any(n in self.functions for n in self.names):
            return
        target = span_node if span_node is not None else node
        start, end = self.src.span(target)
        self.out.append(Mutant(self.path, node.lineno, op, what, start, end, replacement))

    def swap(self, node: ast.AST, first: ast.AST, second: ast.AST) -> None:
        a, b = self.src.span(first)
        c, d = self.src.span(second)
        text = self.src.text
        self.add("swap", node, text[c:d] + text[b:c] + text[a:b],
                 f"swapped: {self.short(first, 25)} <-> {self.short(second, 25)}",
                 span_node=_SpanNode(first, second))

    def short(self, node: ast.AST, limit: int = 60) -> str:
        text = " ".join(self.src.seg(node).decode().split())
        return text if len(text) <= limit else text[: limit - 3] + "..."

    # -- scopes -----------------------------------------------------------------------------

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        if node.name in ("__repr__", "__str__") or self.src.skipped(node):
            return
        body = node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]  # docstring
        self.in_function += 1
        self.names.append(node.name)
        key = "key" in node.name.lower()
        self.in_key += key
        for stmt in body:
            self.visit(stmt)
        self.in_key -= key
        self.names.pop()
        self.in_function -= 1

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_Raise(self, node: ast.Raise) -> None:
        pass  # the message of an error is not a behaviour under test here

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        pass

    def visit_Assert(self, node: ast.Assert) -> None:
        pass

    # -- statements -------------------------------------------------------------------------

    def visit_If(self, node: ast.If) -> None:
        if _is_problem_body(node.body):
            self.add("guard", node, b"False", f"check disabled: if {self.short(node.test)}",
                     span_node=node.test)
            self.in_guard += 1
            self.visit(node.test)
            self.in_guard -= 1
        else:
            self.visit(node.test)
        for stmt in node.body + node.orelse:
            self.visit(stmt)

    def visit_Expr(self, node: ast.Expr) -> None:
        call = node.value
        if isinstance(call, ast.Call):
            name = _dotted(call.func).rsplit(".", 1)[-1]
            if name.startswith(_CHECK_PREFIXES):
                self.add("call", node, b"pass", f"check call removed: {self.short(call)}")
            if isinstance(call.func, ast.Attribute) and call.func.attr in _MUTATORS:
                self.add("stmt", node, b"pass", f"update removed: {self.short(call)}")
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        if any(isinstance(t, ast.Subscript) for t in node.targets):
            self.add("stmt", node, b"pass", f"update removed: {self.short(node)}")
        key = any(isinstance(t, ast.Name) and "key" in t.id.lower() for t in node.targets)
        self.in_key += key
        if key and isinstance(node.value, ast.Tuple):
            self.drop_elements("key", node.value)
        self.generic_visit(node)
        self.in_key -= key

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:  # the annotation is not code
            self.visit(node.value)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.add("stmt", node, b"pass", f"update removed: {self.short(node)}")
        self.generic_visit(node)

    def visit_Delete(self, node: ast.Delete) -> None:
        self.add("stmt", node, b"pass", f"update removed: {self.short(node)}")
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if isinstance(node.slice, ast.Tuple):
            self.drop_elements("key", node.slice)
        self.generic_visit(node)

    def visit_List(self, node: ast.List) -> None:
        if isinstance(node.ctx, ast.Load):
            self.drop_elements("elem", node)
        self.generic_visit(node)

    def drop_elements(self, op: str, node: ast.Tuple | ast.List) -> None:
        """One mutant per element of `node`, without it."""
        elts = node.elts
        if any(isinstance(e, ast.Starred) for e in elts) or (op == "key" and len(elts) < 2):
            return
        a, b = self.src.span(node)
        parts = [self.src.seg(e) for e in elts]
        if any(b"\n" in p for p in parts):
            return
        for i in range(len(elts)):
            rest = parts[:i] + parts[i + 1:]
            if isinstance(node, ast.List):
                body = b"[" + b", ".join(rest) + b"]"
            else:
                body = b"(" + b", ".join(rest) + (b",)" if len(rest) == 1 else b")")
            what = ("key part dropped" if op == "key" else "element dropped") + \
                f": {self.short(elts[i], 30)} from {self.short(node, 40)}"
            self.add(op, node, body, what)

    # -- expressions ------------------------------------------------------------------------

    def visit_Call(self, node: ast.Call) -> None:
        func = _dotted(node.func)
        head, _, name = func.rpartition(".")
        if func in _REQUIRE_NAMES and node.args:
            self.add("require", node, b"True", f"check disabled: {func}({self.short(node.args[0])}, ...)",
                     span_node=node.args[0])
            self.in_guard += 1
            self.visit(node.args[0])
            self.in_guard -= 1
            for arg in node.args[1:]:
                self.visit(arg)
            return
        if head in _NUMPY and name in _ROUND and node.args:
            arg = self.src.seg(node.args[0])
            if _ROUND[name] == "half-up":
                repl = b"np.floor((" + arg + b") + 0.5)"
                what = f"rounding: np.{name} -> floor(x + 0.5) (ties up)"
            else:
                repl = b"np." + _ROUND[name].encode() + b"(" + arg + b")"
                what = f"rounding: np.{name} -> np.{_ROUND[name]}"
            self.add("round", node, repl, what)
        if head in _NUMPY and name in _CLAMP and node.args:
            self.add("clamp", node, b"(" + self.src.seg(node.args[0]) + b")",
                     f"np.{name}({self.short(node.args[0], 30)}, ...) -> its first argument")
        if head in _NUMPY and name == "where" and len(node.args) == 3:
            self.add("clamp", node, b"(" + self.src.seg(node.args[2]) + b")",
                     f"np.where({self.short(node.args[0], 30)}, A, B) -> B")
        if head in _NUMPY and name in ("transpose", "swapaxes") and node.args:
            self.add("transpose", node, b"(" + self.src.seg(node.args[0]) + b")",
                     f"np.{name}(A) -> A")
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("transpose", "swapaxes") \
                and head not in _NUMPY:
            self.add("transpose", node, b"(" + self.src.seg(node.func.value) + b")",
                     f"{self.short(node, 40)} -> no transpose")
        for first, second in zip(node.args, node.args[1:], strict=False):
            if _paired(first, second):
                self.swap(node, first, second)
        if isinstance(node.func, ast.Attribute) and node.func.attr in _KEY_CALLS and node.args \
                and isinstance(node.args[0], ast.Tuple):
            self.drop_elements("key", node.args[0])
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        base = _dotted(node.value)
        if base in _NUMPY and node.attr in _DTYPE:
            self.add("dtype", node, f"np.{_DTYPE[node.attr]}".encode(),
                     f"cast type: {base}.{node.attr} -> np.{_DTYPE[node.attr]}")
        if node.attr == "T" and isinstance(node.ctx, ast.Load):
            self.add("transpose", node, b"(" + self.src.seg(node.value) + b")",
                     f"{self.short(node, 40)} -> no transpose")
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        if len(node.ops) == 1 and isinstance(node.ops[0], ast.In | ast.NotIn) \
                and isinstance(node.left, ast.Tuple):
            self.drop_elements("key", node.left)
        if len(node.ops) == 1 and type(node.ops[0]) in _CMP_SWAP:
            old = type(node.ops[0])
            new = _CMP_SWAP[old]
            start, end = self.src.span(node)
            left_end, right_start = self.src.span(node.left)[1], self.src.span(node.comparators[0])[0]
            gap = self.src.text[left_end:right_start]
            # The gap keeps the parentheses around the operands (`(a is None) != (b)`): only
            # the operator changes, so a parenthesized operand never turns into a chain.
            new_gap = gap.replace(_CMP_TEXT[old].encode(), _CMP_TEXT[new].encode(), 1)
            if b"\n" not in gap and new_gap != gap:
                text = self.src.text
                repl = text[start:left_end] + new_gap + text[right_start:end]
                what = f"comparison: {self.short(node, 50)}  ({_CMP_TEXT[old]} -> {_CMP_TEXT[new]})"
                self.add("gcmp" if self.in_guard and "gcmp" in self.ops else "cmp", node, repl, what)
        self.generic_visit(node)

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        new = " or " if isinstance(node.op, ast.And) else " and "
        parts = [self.src.seg(v) for v in node.values]
        if all(b"\n" not in p for p in parts):
            repl = new.encode().join(b"(" + p + b")" for p in parts)
            self.add("gbool" if self.in_guard and "gbool" in self.ops else "boolop", node, repl,
                     f"{self.short(node, 50)}  (-> {new.strip()})")
        self.generic_visit(node)

    def visit_IfExp(self, node: ast.IfExp) -> None:
        self.add("ifexp", node, b"(" + self.src.seg(node.orelse) + b")",
                 f"condition ignored: {self.short(node, 50)} -> else branch")
        self.generic_visit(node)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        if isinstance(node.op, ast.BitAnd):
            self.add("mask", node, b"(" + self.src.seg(node.left) + b")",
                     f"mask dropped: {self.short(node, 50)}")
        if isinstance(node.op, ast.Add | ast.Sub):
            a, b = self.src.span(node.left)[1], self.src.span(node.right)[0]
            gap = self.src.text[a:b]
            sym, new = (b"+", b"-") if isinstance(node.op, ast.Add) else (b"-", b"+")
            if gap.count(sym) == 1 and b"#" not in gap:
                self.add("arith", node, self.src.seg(node.left) + gap.replace(sym, new)
                         + self.src.seg(node.right),
                         f"{self.short(node, 50)}  ({sym.decode()} -> {new.decode()})")
            one = [side for side, other in ((node.right, node.left), (node.left, node.right))
                   if isinstance(side, ast.Constant) and side.value == 1
                   and not isinstance(other, ast.Constant)]
            if one and (one[0] is node.right or isinstance(node.op, ast.Add)):
                kept = node.left if one[0] is node.right else node.right
                self.add("offby1", node, b"(" + self.src.seg(kept) + b")",
                         f"off by one: {self.short(node, 50)} -> {self.short(kept, 30)}")
        if self.in_key and isinstance(node.op, ast.Add):
            for kept, dropped in ((node.left, node.right), (node.right, node.left)):
                self.add("key", node, b"(" + self.src.seg(kept) + b")",
                         f"key term dropped: {self.short(dropped, 30)} from {self.short(node, 40)}")
        self.generic_visit(node)

    def visit_Tuple(self, node: ast.Tuple) -> None:
        if isinstance(node.ctx, ast.Load):
            for first, second in zip(node.elts, node.elts[1:], strict=False):
                if _paired(first, second):
                    self.swap(node, first, second)
        self.generic_visit(node)


class _SpanNode(ast.AST):
    """A span from the start of one node to the end of another (for swaps)."""

    def __init__(self, first: ast.AST, last: ast.AST) -> None:
        super().__init__()
        self.lineno, self.col_offset = first.lineno, first.col_offset
        self.end_lineno, self.end_col_offset = last.end_lineno, last.end_col_offset


def mutants_of(path: str, text: bytes, ops: tuple[str, ...] = ALL_OPS,
               functions: tuple[str, ...] = ()) -> Iterator[Mutant]:
    """Every mutant of one file for the operators `ops` (inside `functions` only, when given),
    in source order; with `semantic`, the named mutants of the file too."""
    tree = ast.parse(text)
    collector = _Collector(path, _Source(text), ops, functions)
    collector.visit(tree)
    if "semantic" in ops:
        from semantic import named_mutants
        collector.out.extend(named_mutants(path, text))
    seen: set[tuple[int, int, bytes]] = set()
    for m in sorted(collector.out, key=lambda m: (m.start, m.op)):
        if (m.start, m.end, m.replacement) in seen:
            continue
        seen.add((m.start, m.end, m.replacement))
        mutated = m.apply(text)
        if mutated == text:
            continue
        try:
            compile(mutated, path, "exec")
        except SyntaxError:
            continue
        yield m
