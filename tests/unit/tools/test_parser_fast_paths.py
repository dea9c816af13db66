"""mmair-opt's fast paths change speed, never behaviour: the simple-token lexer yields exactly the
tokens (and errors) of xDSL's lexer, and the pto parse memo yields exactly the IR of the stock path."""

import random
import sys
from io import StringIO
from pathlib import Path

import pytest
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Input
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

import mmair.dialects.pto as pto
from mmair.tools.diagnostics import _STRING_LITERAL, SourceFile, _SimpleTokenLexer
from mmair.tools.opt import MmairOptMain

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "benchmarks"))
from kernels import arith_kernel, pto_kernel  # noqa: E402


class _StockLexer(MLIRLexer):
    """xDSL's lexer with the same linear-time string regex LocatingParser installs."""

    _unescaped_characters_regex = _STRING_LITERAL


class _FastLexer(_SimpleTokenLexer):
    """The lexer LocatingParser uses (it installs the same string regex)."""

    _unescaped_characters_regex = _STRING_LITERAL


def _tokens(lexer_class: type[MLIRLexer], text: str) -> list[tuple]:
    lexer = lexer_class(Input(text, "f"))
    out: list[tuple] = []
    while True:
        try:
            token = lexer.lex()
        except ParseError as err:
            out.append(("error", str(err)))
            lexer.pos = max(lexer.pos, err.span.start) + 1
            if lexer.pos > len(text):
                return out
            continue
        out.append((token.kind, token.span.start, token.span.end))
        if token.kind == MLIRTokenKind.EOF:
            return out


def _corpus() -> list[str]:
    files = sorted(REPO.glob("tests/filecheck/**/*.mlir")) + sorted(REPO.glob("examples/*.mlir"))
    texts = [f.read_text(encoding="utf-8", errors="replace") for f in files]
    return texts + [pto_kernel(100), arith_kernel(100), "%12abc é %x-y a.b$c // c\n %", "%",
                    "x//y\n:", "%-a %$ %.", "+*?|}]"]


@pytest.mark.parametrize("text", _corpus(), ids=lambda t: str(len(t)))
def test_simple_lexer_matches_xdsl_on_real_files(text: str) -> None:
    assert _tokens(_FastLexer, text) == _tokens(_StockLexer, text)


def test_simple_lexer_matches_xdsl_on_random_text() -> None:
    rng = random.Random(1)
    alphabet = list("aZ_09%$.-,:()[]<>=}{+*?|/ \n\t#!^@é\x0b") + [
        '"s"', "//", "->", "...", "{-#", "#-}", "0x1f", "1.5e3"]
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        assert _tokens(_FastLexer, text) == _tokens(_StockLexer, text), text


class _NeverHit(dict):
    def get(self, key, default=None):  # noqa: ARG002
        return None


def _dump(text: str, generic: bool) -> str:
    tool = MmairOptMain(args=["-"])
    module = tool.parse_and_verify(text, SourceFile("<x>", text), 0)
    out = StringIO()
    Printer(stream=out, print_generic_format=generic, print_debuginfo=True).print_op(module)
    return out.getvalue()


def test_parse_memo_gives_the_same_ir_as_the_stock_path(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = [pto_kernel(200)] + [p.read_text() for p in sorted(REPO.glob("examples/*.mlir"))]
    fast = [_dump(t, generic) for t in texts for generic in (False, True)]
    monkeypatch.setattr(pto._fastparse, "_FORMAT_MEMO", _NeverHit())
    stock = [_dump(t, generic) for t in texts for generic in (False, True)]
    assert fast == stock
    assert any("pto.fixpipe" in text for text in fast)
