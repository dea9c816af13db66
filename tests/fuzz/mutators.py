"""Mutators of mmair IR text for the robustness fuzzer (`tests/fuzz/fuzz_ir.py`).

A corpus entry is one `// -----` chunk of an IR file with its comments removed. A mutant is that
text with one to three random mutations applied, then encoded as UTF-8 bytes (a final byte-level
mutation may make it invalid UTF-8). Every mutation is a pure function of the `random.Random` it is
given, so a mutant is reproducible from (seed, index).

Mutations (`MUTATORS`): bit and byte flips, token deletion / duplication / swapping (two SSA
operands, two numbers, two words), numeric extremes (0, -1, 2^31, 2^63, 2^64, huge floats),
integer constants nudged by +-1, +-16, doubled or halved,
huge or zero shape dimensions, unknown or swapped op names, unknown or renamed attributes, words
replaced by other words of the corpus (spaces, layouts, element types), line deletion / duplication
/ swapping, splicing a line of another corpus entry, truncation and deep nesting.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

# One lexical token of MLIR text (coarse: enough to delete, duplicate and swap meaningful units).
TOKEN_RE = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<string>"(?:[^"\\\n]|\\.)*")
  | (?P<ssa>%[\w.$-]+(?:\#\d+)?)
  | (?P<sym>@[\w.$-]+)
  | (?P<alias>[#!][\w.$-]+)
  | (?P<number>-?0x[0-9a-fA-F]+|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)
  | (?P<word>[A-Za-z_][\w.$]*)
  | (?P<punct>->|::|.)
    """,
    re.X | re.S,
)
OP_NAME_RE = re.compile(r"\b(?:pto|tcgen05|arith|scf|memref|func|builtin|test)\.[a-z_0-9]+\b")
SHAPE_DIM_RE = re.compile(r"(?<=[<,\s x])\d+(?=x)")
ATTR_KEY_RE = re.compile(r"\b([a-z_][a-z_0-9]*)(?= = )")

INT_EXTREMES: tuple[str, ...] = (
    "0", "-1", "1", "2", "3", "7", "15", "17", "255", "256", "65535", "65536",
    str(2**31 - 1), str(2**31), str(-(2**31)), str(2**32), str(2**32 + 16),
    str(2**62), str(2**63 - 1), str(2**63), str(-(2**63)), str(2**64), str(10**30),
    "0x7fffffff", "0xffffffff", "0xffffffffffffffff",
)
FLOAT_EXTREMES: tuple[str, ...] = ("0.5", "-0.0", "1.0e38", "1.0e309", "-3.5e+300", "1e-320")
SHAPE_EXTREMES: tuple[str, ...] = (
    "0", "1", "3", "17", "4097", "65536", str(2**20), str(2**31), str(2**32), str(2**40),
    str(2**62), str(2**63 - 1), str(2**63), str(10**25),
)
UNKNOWN_OPS: tuple[str, ...] = (
    "pto.bogus", "pto.mad_xyz", "tcgen05.frob", "arith.nope", "scf.forever", "memref.teleport",
    "unknown.op", "func.funcx",
)
UNKNOWN_ATTRS: tuple[str, ...] = (
    "{bogus = 1 : i64}", "{offset = -16 : i64}", "{offset = 4294967296 : i64}", "{pattern = 99 : i64}",
    "{transpose}", "{dn2nz}", "{relu}", "{quant = \"nope\"}", "{offset = \"x\"}",
    "{mmair.reference = \"matmul\"}", "{pto.target = \"zz\"}", "{pto.target = \"310p\"}",
    "{pto.target = \"a5\"}",
)
PUNCT_NOISE: tuple[str, ...] = ("(", ")", "<", ">", "{", "}", "[", "]", ",", ":", "=", "x", "?", "%",
                                "#", "!", "\"", "->", "^bb0:", "\\", "\x00", "\u00e9", "\ufffd")


@dataclass
class Vocabulary:
    """Words, op names and numbers seen in the corpus (for replacement and splicing)."""

    words: list[str] = field(default_factory=list)
    op_names: list[str] = field(default_factory=list)
    ssa_names: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)

    @classmethod
    def build(cls, texts: Sequence[str]) -> Vocabulary:
        words: set[str] = set()
        ops: set[str] = set()
        ssa: set[str] = set()
        lines: list[str] = []
        for text in texts:
            for m in TOKEN_RE.finditer(text):
                kind = m.lastgroup
                if kind == "word":
                    words.add(m.group())
                elif kind == "ssa":
                    ssa.add(m.group())
            ops.update(OP_NAME_RE.findall(text))
            lines.extend(line for line in text.splitlines() if line.strip())
        return cls(sorted(words), sorted(ops), sorted(ssa), lines)


def tokens(text: str) -> list[tuple[str, str]]:
    """(kind, text) tokens covering `text` exactly."""
    return [(m.lastgroup or "punct", m.group()) for m in TOKEN_RE.finditer(text)]


def _join(toks: Sequence[tuple[str, str]]) -> str:
    return "".join(t for _, t in toks)


def _pick_index(rng: random.Random, toks: Sequence[tuple[str, str]], kinds: set[str] | None = None) -> int | None:
    candidates = [i for i, (k, _) in enumerate(toks) if k != "ws" and (kinds is None or k in kinds)]
    return rng.choice(candidates) if candidates else None


Mutator = Callable[[random.Random, str, Vocabulary], str]


def delete_token(rng: random.Random, text: str, vocab: Vocabulary) -> str:
    toks = tokens(text)
    i = _pick_index(rng, toks)
    if i is None:
        return text
    return _join(toks[:i] + toks[i + 1:])


def duplicate_token(rng: random.Random, text: str, vocab: Vocabulary) -> str:
    toks = tokens(text)
    i = _pick_index(rng, toks)
    if i is None:
        return text
    sep = rng.choice(["", " ", ", "])
    return _join(toks[: i + 1]) + sep + _join(toks[i:])


def swap_tokens(rng: random.Random, text: str, vocab: Vocabulary) -> str:
    """Swap two tokens of the same kind: operands (%a <-> %b), numbers, words."""
    toks = tokens(text)
    kind = rng.choice(["ssa", "ssa", "number", "word", "alias"])
    idx = [i for i, (k, _) in enumerate(toks) if k == kind]
    if len(idx) < 2:
        return text
    # Prefer swapping within one line (operands of one op).
    i = rng.choice(idx)
    line_start = text.rfind("\n", 0, sum(len(t) for _, t in toks[:i])) + 1
    pos = 0
    same_line: list[int] = []
    for j, (k, t) in enumerate(toks):
        if k == kind and j != i and pos >= line_start and "\n" not in text[line_start:pos]:
            same_line.append(j)
        pos += len(t)
    j = rng.choice(same_line) if same_line and rng.random() < 0.8 else rng.choice(idx)
    toks[i], toks[j] = toks[j], toks[i]
    return _join(toks)


def numeric_extreme(rng: random.Random, text: str, vocab: Vocabulary) -> str:
    toks = tokens(text)
    i = _pick_index(rng, toks, {"number"})
    if i is None:
        return text
    pool = FLOAT_EXTREMES if "." in toks[i][1] and rng.random() < 0.7 else INT_EXTREMES
    toks[i] = ("number", rng.choice(pool))
    return _join(toks)


_CONSTANT_RE = re.compile(r"(?<=arith\.constant )-?\d+(?= : (?:index|i\d+))")


def constant_value(rng: random.Random, text: str, vocab: Vocabulary) -> str:
    """An integer `arith.constant` set to an extreme: the IR stays valid unless the constant is a
    statically checked size, so this reaches the executor's runtime checks."""
    found = list(_CONSTANT_RE.finditer(text))
    if not found:
        return numeric_extreme(rng, text, vocab)
    m = rng.choice(found)
    return text[: m.start()] + rng.choice(INT_EXTREMES[:23]) + text[m.end():]


def constant_nudge(rng: random.Random, text: str, vocab: Vocabulary) -> str:
    """An integer `arith.constant` moved a little (+-1, +-16, doubled, halved, 0): a raw form's
    start index, repeat, stride or gap just past a buffer or a field's range, which a static
    verifier or the executor's runtime bounds must catch (extremes rarely get that far)."""
    found = list(_CONSTANT_RE.finditer(text))
    if not found:
        return text
    m = rng.choice(found)
    value = int(m.group())
    new = rng.choice([value + 1, value - 1, value + 16, value - 16, 2 * value, value // 2, 0])
    return text[: m.start()] + str(new) + text[m.end():]


def huge_shape(rng: random.Random, text: str, vocab: Vocabulary) -> str:
    dims = list(SHAPE_DIM_RE.finditer(text))
    if not dims:
        return numeric_extreme(rng, text, vocab)
    # Often change every occurrence of the same shape (so that the types still agree).
    m = rng.choice(dims)
    new = rng.choice(SHAPE_EXTREMES)
    if rng.random() < 0.5:
        return SHAPE_DIM_RE.sub(lambda d: new if d.group() == m.group() else d.group(), text)
    return text[: m.start()] + new + text[m.end():]


def replace_op_name(rng: random.Random, text: str, vocab: Vocabulary) -> str:
    names = list(OP_NAME_RE.finditer(text))
    if not names:
        return text
    m = rng.choice(names)
    pool = UNKNOWN_OPS if rng.random() < 0.4 or not vocab.op_names else vocab.op_names
    return text[: m.start()] + rng.choice(pool) + text[m.end():]


def unknown_attribute(rng: random.Random, text: str, vocab: Vocabulary) -> str:
    keys = list(ATTR_KEY_RE.finditer(text))
    if keys and rng.random() < 0.4:
        m = rng.choice(keys)
        new = rng.choice([m.group() + "x", "bogus", "offset", "pattern", "quant", "kind", "m", "n"])
        return text[: m.start()] + new + text[m.end():]
    # Insert an attribute dictionary right after an op name (custom syntax: usually an error;
    # before the type colon: a new attribute).
    names = list(OP_NAME_RE.finditer(text))
    if rng.random() < 0.5:
        colons = [m.start() for m in re.finditer(r" : ", text)]
        if colons:
            at = rng.choice(colons)
            return text[:at] + " " + rng.choice(UNKNOWN_ATTRS) + text[at:]
    if not names:
        return text
    m = rng.choice(names)
    return text[: m.end()] + " " + rng.choice(UNKNOWN_ATTRS) + text[m.end():]


def replace_word(rng: random.Random, text: str, vocab: Vocabulary) -> str:
    """A keyword, space, layout or element type replaced by another word of the corpus."""
    toks = tokens(text)
    i = _pick_index(rng, toks, {"word", "ssa", "alias"})
    if i is None or not vocab.words:
        return text
    kind = toks[i][0]
    if kind == "ssa" and vocab.ssa_names:
        toks[i] = ("ssa", rng.choice(vocab.ssa_names + ["%undefined", "%0", "%arg9"]))
    else:
        toks[i] = ("word", rng.choice(vocab.words))
    return _join(toks)


def insert_noise(rng: random.Random, text: str, vocab: Vocabulary) -> str:
    at = rng.randrange(len(text) + 1)
    return text[:at] + rng.choice(PUNCT_NOISE) + text[at:]


def _lines(text: str) -> list[str]:
    return text.split("\n")


def delete_line(rng: random.Random, text: str, vocab: Vocabulary) -> str:
    lines = _lines(text)
    del lines[rng.randrange(len(lines))]
    return "\n".join(lines)


def duplicate_line(rng: random.Random, text: str, vocab: Vocabulary) -> str:
    lines = _lines(text)
    i = rng.randrange(len(lines))
    lines.insert(i, lines[i])
    return "\n".join(lines)


def swap_lines(rng: random.Random, text: str, vocab: Vocabulary) -> str:
    lines = _lines(text)
    if len(lines) < 2:
        return text
    i, j = rng.sample(range(len(lines)), 2)
    lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def splice_line(rng: random.Random, text: str, vocab: Vocabulary) -> str:
    if not vocab.lines:
        return text
    lines = _lines(text)
    lines.insert(rng.randrange(len(lines) + 1), rng.choice(vocab.lines))
    return "\n".join(lines)


def truncate(rng: random.Random, text: str, vocab: Vocabulary) -> str:
    return text[: rng.randrange(len(text) + 1)]


def deep_nesting(rng: random.Random, text: str, vocab: Vocabulary) -> str:
    """Deeply nested types/attributes/regions: recursion limits of the parser and printer."""
    depth = rng.choice([50, 300, 2000])
    at = rng.randrange(len(text) + 1)
    opener, closer = rng.choice([("memref<", ">"), ("[", "]"), ("(", ")"), ("{", "}"),
                                 ("scf.execute_region {", "}"), ("!pto.tile<", ">")])
    return text[:at] + opener * depth + closer * depth + text[at:]


MUTATORS: tuple[tuple[Mutator, int], ...] = (
    (delete_token, 10),
    (duplicate_token, 6),
    (swap_tokens, 10),
    (numeric_extreme, 12),
    (constant_value, 10),
    (constant_nudge, 10),
    (huge_shape, 12),
    (replace_op_name, 8),
    (unknown_attribute, 6),
    (replace_word, 12),
    (insert_noise, 3),
    (delete_line, 5),
    (duplicate_line, 4),
    (swap_lines, 3),
    (splice_line, 4),
    (truncate, 2),
    (deep_nesting, 1),
)
_FUNCS = [m for m, _ in MUTATORS]
_WEIGHTS = [w for _, w in MUTATORS]


def flip_bits(rng: random.Random, data: bytes) -> bytes:
    """Flip one bit or replace one byte (the result may be invalid UTF-8)."""
    if not data:
        return data
    buf = bytearray(data)
    i = rng.randrange(len(buf))
    if rng.random() < 0.5:
        buf[i] ^= 1 << rng.randrange(8)
    else:
        buf[i] = rng.randrange(256)
    return bytes(buf)


def mutate(rng: random.Random, text: str, vocab: Vocabulary) -> tuple[bytes, list[str]]:
    """One mutant of `text`: its bytes and the names of the mutations applied."""
    applied: list[str] = []
    for _ in range(rng.choice([1, 1, 1, 2, 2, 3])):
        fn = rng.choices(_FUNCS, _WEIGHTS)[0]
        text = fn(rng, text, vocab)
        applied.append(fn.__name__)
    data = text.encode("utf-8", "surrogatepass")
    if rng.random() < 0.06:
        data = flip_bits(rng, data)
        applied.append("flip_bits")
    return data, applied
