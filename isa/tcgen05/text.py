"""The `key = value` attribute text of the tcgen05 descriptors, without xDSL.

The `tcgen05` dialect prints its descriptor attributes, and `mmair-desc` reads and writes them, as

    #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 256>
    #tcgen05.smem_desc<start = 1024, lbo = 16, sbo = 1024, base_offset = 0, lbo_mode = relative, swizzle = sw128>
    #tcgen05.zcmask<start = [0, 0, 0, 0], first = [0, 0, 0, 0], nonzero = true, skip = 2, use = 3, shift = 0>

The keys are those of the `mmair-desc --json` output. Keys may come in any order; omitted keys take
their defaults (false / 0, relative, none; mxf4* k = 64; a type a kind fixes, e.g. dtype of
kind::tf32). Printing follows the JSON key order: smem_desc and zcmask print every key, idesc prints
kind, the types, m and n always and the other keys only when they differ from their defaults.
"""

from __future__ import annotations

import re

from mmair.isa.tcgen05.errors import DescriptorError, format_value
from mmair.isa.tcgen05.idesc import (
    AB_TYPE_CODES,
    BLOCK_SCALED_KINDS,
    KINDS,
    LEGAL_DTYPES,
    MXF4_KINDS,
    SCALE_TYPE_CODES,
    InstrDesc,
    decode_idesc,
    idesc_keys,
)
from mmair.isa.tcgen05.smem import SMEM_KEYS, SmemDesc, decode_smem_desc
from mmair.isa.tcgen05.zcmask import ZCMASK_KEYS, ZeroColumnMask, decode_zcmask

Descriptor = InstrDesc | SmemDesc | ZeroColumnMask
Value = int | bool | str | list[int]

#: Attribute mnemonics (`#tcgen05.<mnemonic><...>`).
MNEMONICS: tuple[str, ...] = ("idesc", "smem_desc", "zcmask")

_BOOL_KEYS = frozenset({"transpose_a", "transpose_b", "negate_a", "negate_b", "sparse", "saturate",
                        "nonzero"})
_NAME_KEYS = frozenset({"kind", "dtype", "atype", "btype", "scale_type", "lbo_mode", "swizzle"})
_ZCMASK_LIST_KEYS = frozenset({"start", "first"})
_TOKEN = re.compile(r"\s*(?:(?P<int>-?(?:0[xX][0-9a-fA-F]+|\d+))|(?P<ident>[A-Za-z_][A-Za-z0-9_]*)"
                    r"|(?P<punct>[=,\[\]]))")


def _syntax(text: str, pos: int, expected: str) -> DescriptorError:
    found = text[pos:pos + 12] or "end of text"
    return DescriptorError("attribute text", found, expected, None,
                           f"is unexpected at offset {pos}", value_text=repr(found))


def _tokens(text: str) -> list[tuple[str, str, int]]:
    tokens = []
    pos = 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        match = _TOKEN.match(text, pos)
        if match is None:
            raise _syntax(text, pos + len(text[pos:]) - len(text[pos:].lstrip()),
                          "an identifier, integer, '=', ',', '[' or ']'")
        kind = match.lastgroup or ""
        tokens.append((kind, match.group(kind), match.start(kind)))
        pos = match.end()
    return tokens


def parse_descriptor_body(mnemonic: str, body: str) -> Descriptor:
    """Parse the text between `<` and `>` of a `#tcgen05.<mnemonic>` attribute."""
    if mnemonic not in MNEMONICS:
        raise DescriptorError("attribute", f"#tcgen05.{mnemonic}",
                              ", ".join(f"#tcgen05.{m}" for m in MNEMONICS), None,
                              "is not a tcgen05 descriptor attribute")
    tokens = _tokens(body)
    items: dict[str, Value] = {}
    i = 0

    def expect(kind: str, value: str | None = None) -> tuple[str, str, int]:
        nonlocal i
        if i >= len(tokens) or tokens[i][0] != kind or (value is not None and tokens[i][1] != value):
            pos = tokens[i][2] if i < len(tokens) else len(body)
            raise _syntax(body, pos, repr(value) if value else f"an {kind}")
        i += 1
        return tokens[i - 1]

    def scalar() -> int | str:
        nonlocal i
        if i < len(tokens) and tokens[i][0] == "int":
            i += 1
            return int(tokens[i - 1][1], 0)
        return expect("ident")[1]

    while i < len(tokens):
        key = expect("ident")[1]
        expect("punct", "=")
        value: Value
        if i < len(tokens) and tokens[i][1] == "[":
            i += 1
            elements: list[int | str] = []
            while i < len(tokens) and tokens[i][1] != "]":
                if elements:
                    expect("punct", ",")
                elements.append(scalar())
            expect("punct", "]")
            value = elements  # type: ignore[assignment]
        else:
            value = scalar()
        if key in items:
            raise DescriptorError(key, value, "each key once", None, "is given twice")
        items[key] = value
        if i < len(tokens):
            expect("punct", ",")
            if i >= len(tokens):
                raise _syntax(body, len(body), "a key after ','")
    if "word" in items:
        return descriptor_from_word(mnemonic, items)
    return descriptor_from_items(mnemonic, items)


def descriptor_from_word(mnemonic: str, items: dict[str, object]) -> Descriptor:
    """`word = 0x...` (with `kind` for an idesc): decode a packed descriptor instead of fields."""
    legal = ("word", "kind") if mnemonic == "idesc" else ("word",)
    for key in items:
        if key not in legal:
            raise DescriptorError("key", key, ", ".join(legal), None,
                                  "cannot be combined with 'word'")
    word = items["word"]
    if not isinstance(word, int) or isinstance(word, bool):
        raise DescriptorError("word", word, "an integer", None, "is not an integer")
    if mnemonic == "idesc":
        kind = items.get("kind")
        if not isinstance(kind, str):
            raise DescriptorError("kind", kind, ", ".join(KINDS), None,
                                  "must be given with 'word'", value_text="(missing)")
        return decode_idesc(word, kind)
    if mnemonic == "smem_desc":
        return decode_smem_desc(word)
    return decode_zcmask(word)


def parse_descriptor_text(text: str) -> Descriptor:
    """Parse `#tcgen05.idesc<...>`, `#tcgen05.smem_desc<...>` or `#tcgen05.zcmask<...>`."""
    match = re.fullmatch(r"\s*#tcgen05\.(\w+)\s*<(.*)>\s*", text, re.DOTALL)
    if match is None:
        raise DescriptorError("attribute text", text.strip()[:40],
                              "#tcgen05.idesc<...>, #tcgen05.smem_desc<...>, #tcgen05.zcmask<...>",
                              None, "is not a tcgen05 descriptor attribute",
                              value_text=repr(text.strip()[:40]))
    return parse_descriptor_body(match.group(1), match.group(2))


def _bool(key: str, value: object) -> bool:
    if isinstance(value, bool):
        return value
    if value in ("true", "false"):
        return value == "true"
    raise DescriptorError(key, value, "true, false", None, "is not a boolean")


def _int(key: str, value: object) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise DescriptorError(key, value, "an integer", None, "is not an integer")


def _name(key: str, value: object) -> str:
    if isinstance(value, str) and value not in ("true", "false"):
        return value
    raise DescriptorError(key, value, "a name", None, "is not a name")


def _convert(mnemonic: str, key: str, value: object) -> object:
    if key in _BOOL_KEYS:
        return _bool(key, value)
    if key in _NAME_KEYS:
        return _name(key, value)
    if mnemonic == "zcmask" and key in _ZCMASK_LIST_KEYS:
        if not isinstance(value, list | tuple) or len(value) != 4:
            raise DescriptorError(key, value, "a list of 4 integers", None, "is not 4 values")
        return tuple(_int(f"{key}[{n}]", v) for n, v in enumerate(value))
    if key == "k" and value in (None, "none"):
        return None
    return _int(key, value)


def _only_choice(key: str, kind: str, choices: tuple[str, ...] | list[str]) -> str:
    if len(choices) == 1:
        return choices[0]
    raise DescriptorError(key, None, ", ".join(choices), None,
                          f"must be given for kind::{kind}", value_text="(missing)")


def descriptor_from_items(mnemonic: str, items: dict[str, object]) -> Descriptor:
    """Build a descriptor from `key -> value` (values as text tokens or Python values).

    Checks the key set and value kinds, not the rules (use `rules.check_*` for those).
    """
    if mnemonic == "idesc":
        kind = items.get("kind")
        if kind not in KINDS:
            raise DescriptorError("kind", kind, ", ".join(KINDS), None,
                                  "is not a tcgen05.mma kind" if kind is not None else "is missing",
                                  value_text=None if kind is not None else "(missing)")
        keys: tuple[str, ...] = idesc_keys(kind)  # type: ignore[arg-type]
    elif mnemonic == "smem_desc":
        keys = SMEM_KEYS
    elif mnemonic == "zcmask":
        keys = ZCMASK_KEYS
    else:
        raise DescriptorError("attribute", f"#tcgen05.{mnemonic}",
                              ", ".join(f"#tcgen05.{m}" for m in MNEMONICS), None,
                              "is not a tcgen05 descriptor attribute")
    for key in items:
        if key not in keys:
            where = f"kind::{items['kind']}" if mnemonic == "idesc" else f"#tcgen05.{mnemonic}"
            raise DescriptorError("key", key, ", ".join(keys), None, f"is not a key of {where}")
    fields = {key: _convert(mnemonic, key, value) for key, value in items.items()}
    if mnemonic == "smem_desc":
        for key in ("start", "lbo", "sbo"):
            if key not in fields:
                raise DescriptorError(key, None, "a byte value", None, "is missing",
                                      value_text="(missing)")
        return SmemDesc(**fields)  # type: ignore[arg-type]
    if mnemonic == "zcmask":
        return ZeroColumnMask(**fields)  # type: ignore[arg-type]
    kind = fields["kind"]
    for key in ("m", "n"):
        if key not in fields:
            raise DescriptorError(key, None, "an integer", None, "is missing", value_text="(missing)")
    types = sorted(AB_TYPE_CODES[kind], key=AB_TYPE_CODES[kind].get)  # type: ignore[index]
    defaults: dict[str, list[str]] = {"atype": types, "btype": types}
    if kind in BLOCK_SCALED_KINDS:
        defaults["scale_type"] = list(SCALE_TYPE_CODES[kind])  # type: ignore[index]
    else:
        defaults["dtype"] = list(LEGAL_DTYPES[kind])  # type: ignore[index]
    for key, choices in defaults.items():
        if key not in fields:
            fields[key] = _only_choice(key, kind, choices)  # type: ignore[arg-type]
    return InstrDesc(**fields)  # type: ignore[arg-type]


def descriptor_mnemonic(d: Descriptor) -> str:
    if isinstance(d, InstrDesc):
        return "idesc"
    if isinstance(d, SmemDesc):
        return "smem_desc"
    return "zcmask"


def descriptor_items(d: Descriptor) -> list[tuple[str, object]]:
    """The (key, value) pairs the attribute text prints, in order."""
    if not isinstance(d, InstrDesc):
        return list(d.as_dict().items())
    always = {"kind", "dtype", "atype", "btype", "m", "n", "scale_type"}
    items = []
    for key, value in d.as_dict().items():
        if key in always:
            items.append((key, value))
        elif key == "k":
            if d.kind in MXF4_KINDS and value != 64:
                items.append((key, value))
        elif value:
            items.append((key, value))
    return items


def format_descriptor_body(d: Descriptor) -> str:
    """`kind = f16, dtype = f32, ...` (the text between `<` and `>`)."""
    return ", ".join(f"{key} = {format_value(value)}" for key, value in descriptor_items(d))


def format_descriptor(d: Descriptor) -> str:
    """The full attribute text, e.g. `#tcgen05.idesc<kind = f16, ...>`."""
    return f"#tcgen05.{descriptor_mnemonic(d)}<{format_descriptor_body(d)}>"
