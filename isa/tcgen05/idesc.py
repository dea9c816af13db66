"""The 32-bit `tcgen05.mma` instruction descriptor (PTX ISA 9.2 §9.7.16.4.2, Tables 42-44).

The instruction descriptor is a register operand that tells the Blackwell tensor core the MMA kind's
operand types, the M and N of the tile, transposes/negates, sparsity and (for the block-scaled kinds)
the scale-factor type and the TMEM sub-word of the scale factors. Its layout depends on the kind:

* dense kinds `tf32 f16 f8f6f4 i8` (Table 42): sparsity selector 0-1, sparse 2, saturate 3, dtype 4-5,
  atype 7-9, btype 10-12, negate 13/14, transpose 15/16, N>>3 17-22, M>>4 24-28, max shift 30-31;
  bits 6, 23, 29 reserved.
* `mxf8f6f4` (Table 43): sparse 2, SFB_ID 4-5, atype 7-9, btype 10-12, negate 13/14, transpose 15/16,
  N>>3 17-22, scale type 23, M>>7 27-28, SFA_ID 29-30; bits 0-1, 3, 6, 24-26, 31 reserved.
* `mxf4`, `mxf4nvf4` (Table 44): as mxf8f6f4, but btype has two bits (10-11, bit 12 reserved) and
  bit 31 selects the dense K: 0 = K 64 (sparse K 128), 1 = K 96.

`InstrDesc` holds the fields by meaning (type names, M, N in elements, max shift in columns).
Decision for mxf4/mxf4nvf4: `k` is the value chosen by bit 31, **64 or 96** (64 also for a sparse
descriptor, whose MMA K is then 128: see `shapes.mma_k`); `k` is None for every other kind.
`encode_idesc` raises `DescriptorError` only for values the layout cannot hold; whether a
representable descriptor is *legal* is decided by `rules.check_idesc` (R1-R16).
"""

from __future__ import annotations

from dataclasses import dataclass

from mmair.isa.tcgen05.errors import DescriptorError

KINDS: tuple[str, ...] = ("tf32", "f16", "f8f6f4", "i8", "mxf8f6f4", "mxf4", "mxf4nvf4")
DENSE_KINDS: tuple[str, ...] = ("tf32", "f16", "f8f6f4", "i8")
BLOCK_SCALED_KINDS: tuple[str, ...] = ("mxf8f6f4", "mxf4", "mxf4nvf4")
MXF4_KINDS: tuple[str, ...] = ("mxf4", "mxf4nvf4")

_F8F6F4_CODES: dict[str, int] = {"e4m3": 0, "e5m2": 1, "e2m3": 3, "e3m2": 4, "e2m1": 5}

#: A/B type codes of each layout (atype bits 7-9, btype bits 10-12; mxf4* btype bits 10-11).
AB_TYPE_CODES: dict[str, dict[str, int]] = {
    "tf32": {"tf32": 2},
    "f16": {"f16": 0, "bf16": 1},
    "f8f6f4": dict(_F8F6F4_CODES),
    "i8": {"u8": 0, "s8": 1},
    "mxf8f6f4": dict(_F8F6F4_CODES),
    "mxf4": {"e2m1": 1},
    "mxf4nvf4": {"e2m1": 1},
}

#: D type codes of Table 42 (the same numbering in every dense column; legality per kind is R2).
D_TYPE_CODES: dict[str, int] = {"f16": 0, "f32": 1, "s32": 2}

#: D types each dense kind allows (R2). Decided by the seed tables (PTX ISA 9.2 Table 42's dtype
#: column, Tables 43-44 for the block-scaled kinds): tf32 -> .f32; f16 -> .f16 or .f32 (.f16 only
#: with f16 A/B, R3); f8f6f4 -> .f32 only; i8 -> .s32. A newer PTX revision (its Table 45) also
#: allows .f16 for f8f6f4; it is not accepted by default (a later target option could relax it).
#: The block-scaled kinds have no dtype field and accumulate in .f32.
LEGAL_DTYPES: dict[str, tuple[str, ...]] = {
    "tf32": ("f32",), "f16": ("f16", "f32"), "f8f6f4": ("f32",), "i8": ("s32",),
}

#: Scale-factor type codes (bit 23) of the block-scaled layouts.
SCALE_TYPE_CODES: dict[str, dict[str, int]] = {
    "mxf8f6f4": {"ue8m0": 1},
    "mxf4": {"ue8m0": 1},
    "mxf4nvf4": {"ue4m3": 0, "ue8m0": 1},
}

#: Dense bits 30-31: maximum B-reuse shift of `.ws` (in columns) <-> code.
MAX_SHIFT_CODES: dict[int, int] = {0: 0, 8: 1, 16: 2, 32: 3}

#: Every M some `tcgen05.mma` form accepts (§5); decode rejects anything else.
ANY_M: dict[str, tuple[int, ...]] = {
    **{kind: (32, 64, 128, 256) for kind in DENSE_KINDS},
    **{kind: (128, 256) for kind in BLOCK_SCALED_KINDS},
}
N_MIN, N_MAX = 8, 256

_DENSE_RESERVED = (1 << 6) | (1 << 23) | (1 << 29)
_MXF8_RESERVED = 0b11 | (1 << 3) | (1 << 6) | (0b111 << 24) | (1 << 31)
_MXF4_RESERVED = 0b11 | (1 << 3) | (1 << 6) | (1 << 12) | (0b111 << 24)

#: Reserved bits (must be 0) of each kind's layout: R1 (dense) and R11 (block-scaled).
RESERVED_MASK: dict[str, int] = {
    **{kind: _DENSE_RESERVED for kind in DENSE_KINDS},
    "mxf8f6f4": _MXF8_RESERVED,
    "mxf4": _MXF4_RESERVED,
    "mxf4nvf4": _MXF4_RESERVED,
}

WORD_BITS = 32


def _code_legal(table: dict[str, int]) -> str:
    return ", ".join(f"{code} ({name})" for name, code in sorted(table.items(), key=lambda x: x[1]))


def _bits_legal(mask: int) -> str:
    return "bits " + ", ".join(str(b) for b in range(WORD_BITS) if mask >> b & 1) + " = 0"


def check_kind(kind: object) -> str:
    if kind not in KINDS:
        raise DescriptorError("kind", kind, ", ".join(KINDS), None, "is not a tcgen05.mma kind")
    return kind  # type: ignore[return-value]


def _type_rule(kind: str) -> str:
    return "R3" if kind in DENSE_KINDS else "R15"


def _shape_rule(kind: str) -> str:
    return "R7" if kind in DENSE_KINDS else "R12"


@dataclass(frozen=True)
class InstrDesc:
    """The fields of a tcgen05 instruction descriptor, by meaning.

    `dtype` is None for the block-scaled kinds (D is always f32 there); `scale_type`, `sfa_id`,
    `sfb_id` only exist for block-scaled kinds (None/0 otherwise); `sparsity_selector`, `saturate`
    and `max_shift` only for dense kinds. `k` is 64 or 96 for mxf4/mxf4nvf4 (bit 31) and None
    otherwise; a missing `k` of an mxf4* descriptor means 64.
    """

    kind: str
    m: int
    n: int
    atype: str
    btype: str
    dtype: str | None = None
    transpose_a: bool = False
    transpose_b: bool = False
    negate_a: bool = False
    negate_b: bool = False
    sparse: bool = False
    sparsity_selector: int = 0
    saturate: bool = False
    max_shift: int = 0
    scale_type: str | None = None
    sfa_id: int = 0
    sfb_id: int = 0
    k: int | None = None

    def __post_init__(self) -> None:
        if self.kind in MXF4_KINDS and self.k is None:
            object.__setattr__(self, "k", 64)

    @property
    def block_scaled(self) -> bool:
        return self.kind in BLOCK_SCALED_KINDS

    def as_dict(self) -> dict[str, object]:
        """The `mmair-desc --json` object (and the attribute keys), in printing order."""
        common = {
            "kind": self.kind,
            "atype": self.atype,
            "btype": self.btype,
            "m": self.m,
            "n": self.n,
            "transpose_a": self.transpose_a,
            "transpose_b": self.transpose_b,
            "negate_a": self.negate_a,
            "negate_b": self.negate_b,
            "sparse": self.sparse,
        }
        if self.block_scaled:
            return {
                **common,
                "scale_type": self.scale_type,
                "sfa_id": self.sfa_id,
                "sfb_id": self.sfb_id,
                "k": self.k,
            }
        return {
            "kind": self.kind,
            "dtype": self.dtype,
            **{key: value for key, value in common.items() if key != "kind"},
            "sparsity_selector": self.sparsity_selector,
            "saturate": self.saturate,
            "max_shift": self.max_shift,
        }


IDESC_DENSE_KEYS: tuple[str, ...] = (
    "kind", "dtype", "atype", "btype", "m", "n", "transpose_a", "transpose_b", "negate_a",
    "negate_b", "sparse", "sparsity_selector", "saturate", "max_shift",
)
IDESC_BLOCK_SCALED_KEYS: tuple[str, ...] = (
    "kind", "atype", "btype", "m", "n", "transpose_a", "transpose_b", "negate_a", "negate_b",
    "sparse", "scale_type", "sfa_id", "sfb_id", "k",
)


def idesc_keys(kind: str) -> tuple[str, ...]:
    """The attribute / JSON keys of a descriptor of `kind`, in printing order."""
    return IDESC_BLOCK_SCALED_KEYS if kind in BLOCK_SCALED_KINDS else IDESC_DENSE_KEYS


def _check_mn(kind: str, m: object, n: object) -> None:
    """M and N must be one of the sizes some MMA form accepts (their fields cannot hold more)."""
    legal_m = ANY_M[kind]
    if not isinstance(m, int) or isinstance(m, bool) or m not in legal_m:
        raise DescriptorError(
            "m", m, ", ".join(map(str, legal_m)), _shape_rule(kind),
            f"is not an M of any kind::{kind} MMA",
        )
    if not isinstance(n, int) or isinstance(n, bool) or not (N_MIN <= n <= N_MAX and n % 8 == 0):
        raise DescriptorError(
            "n", n, f"{N_MIN}..{N_MAX} step 8", _shape_rule(kind),
            f"is not an N of any kind::{kind} MMA",
        )


def _flag(name: str, value: object) -> int:
    if not isinstance(value, bool | int) or value not in (0, 1):
        raise DescriptorError(name, value, "true, false", None, "is not a boolean")
    return int(value)


def _small(name: str, value: object, legal: range, rule: str | None) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value not in legal:
        raise DescriptorError(
            name, value, f"{legal.start}..{legal.stop - 1}", rule, "does not fit its field"
        )
    return value


def _absent(kind: str, name: str, value: object, rule: str) -> None:
    """A field that kind's layout does not have must keep its neutral value (None or 0/false)."""
    no_value = name in ("dtype", "scale_type", "k")
    if (value is not None) if no_value else (value != 0):
        raise DescriptorError(
            name, value, f"{'none' if no_value else 0} (the kind::{kind} layout has no {name})",
            rule, f"is not encodable for kind::{kind}",
        )


def _type_code(kind: str, name: str, value: object) -> int:
    table = AB_TYPE_CODES[kind]
    if value not in table:
        raise DescriptorError(
            name, value, ", ".join(table), _type_rule(kind), f"is not a kind::{kind} operand type"
        )
    return table[value]  # type: ignore[index]


def encode_idesc(d: InstrDesc) -> int:
    """The 32-bit instruction descriptor word of `d` (PTX ISA "Instruction descriptor" tables; docs/tcgen05-rules.md)."""
    kind = check_kind(d.kind)
    _check_mn(kind, d.m, d.n)
    word = _flag("sparse", d.sparse) << 2
    word |= _type_code(kind, "atype", d.atype) << 7
    word |= _type_code(kind, "btype", d.btype) << 10
    word |= _flag("negate_a", d.negate_a) << 13
    word |= _flag("negate_b", d.negate_b) << 14
    word |= _flag("transpose_a", d.transpose_a) << 15
    word |= _flag("transpose_b", d.transpose_b) << 16
    word |= (d.n >> 3) << 17
    if kind in DENSE_KINDS:
        for name in ("scale_type", "sfa_id", "sfb_id", "k"):
            _absent(kind, name, getattr(d, name), "R11" if name != "k" else "R16")
        if d.dtype not in D_TYPE_CODES:
            raise DescriptorError(
                "dtype", d.dtype, ", ".join(LEGAL_DTYPES[kind]), "R2",
                f"is not a kind::{kind} accumulator type",
            )
        if d.max_shift not in MAX_SHIFT_CODES:
            raise DescriptorError(
                "max_shift", d.max_shift, "0, 8, 16, 32", "R10", "is not an encodable max shift"
            )
        word |= _small("sparsity_selector", d.sparsity_selector, range(4), "R6")
        word |= _flag("saturate", d.saturate) << 3
        word |= D_TYPE_CODES[d.dtype] << 4
        word |= (d.m >> 4) << 24
        word |= MAX_SHIFT_CODES[d.max_shift] << 30
        return word
    _absent(kind, "dtype", d.dtype, "R11")
    _absent(kind, "sparsity_selector", d.sparsity_selector, "R11")
    _absent(kind, "saturate", d.saturate, "R11")
    _absent(kind, "max_shift", d.max_shift, "R11")
    scale_table = SCALE_TYPE_CODES[kind]
    if d.scale_type not in scale_table:
        raise DescriptorError(
            "scale_type", d.scale_type, ", ".join(scale_table), "R14",
            f"is not a kind::{kind} scale type",
        )
    word |= _small("sfb_id", d.sfb_id, range(4), "R13") << 4
    word |= scale_table[d.scale_type] << 23
    word |= (d.m >> 7) << 27
    word |= _small("sfa_id", d.sfa_id, range(4), "R13") << 29
    if kind in MXF4_KINDS:
        if d.k not in (64, 96):
            raise DescriptorError("k", d.k, "64, 96", "R16", "is not a selectable mxf4 K")
        word |= int(d.k == 96) << 31
    else:
        _absent(kind, "k", d.k, "R16")
    return word


def check_word(word: object, bits: int, name: str) -> int:
    """`word` must be an unsigned integer of at most `bits` bits."""
    if not isinstance(word, int) or isinstance(word, bool) or not 0 <= word < (1 << bits):
        shown = hex(word) if isinstance(word, int) and not isinstance(word, bool) else None
        raise DescriptorError(
            name, word, f"0x0..0x{(1 << bits) - 1:x}", None, f"is not a {bits}-bit word",
            value_text=shown,
        )
    return word


def _decode_code(kind: str, name: str, code: int, table: dict[str, int], rule: str) -> str:
    for type_name, type_code in table.items():
        if type_code == code:
            return type_name
    raise DescriptorError(
        name, code, _code_legal(table), rule, f"is not a valid kind::{kind} {name} code"
    )


def decode_idesc(word: int, kind: str) -> InstrDesc:
    """Read the instruction descriptor `word` under the layout of `kind`.

    Raises `DescriptorError` for reserved bits that are set (R1/R11), type codes the layout does not
    define (R2/R3/R14/R15) and M/N fields no MMA form accepts (R7/R12). The remaining rules are
    `rules.check_idesc`.
    """
    check_word(word, WORD_BITS, "idesc")
    kind = check_kind(kind)
    reserved = word & RESERVED_MASK[kind]
    if reserved:
        raise DescriptorError(
            "reserved bits", reserved, _bits_legal(RESERVED_MASK[kind]),
            "R1" if kind in DENSE_KINDS else "R11", f"are set in a kind::{kind} descriptor",
            value_text=f"0x{reserved:08x}",
        )
    types = AB_TYPE_CODES[kind]
    atype = _decode_code(kind, "atype", word >> 7 & 7, types, _type_rule(kind))
    btype_bits = 3 if kind not in MXF4_KINDS else 2
    btype = _decode_code(
        kind, "btype", word >> 10 & ((1 << btype_bits) - 1), types, _type_rule(kind)
    )
    n = (word >> 17 & 0x3F) << 3
    common = dict(
        kind=kind,
        n=n,
        atype=atype,
        btype=btype,
        negate_a=bool(word >> 13 & 1),
        negate_b=bool(word >> 14 & 1),
        transpose_a=bool(word >> 15 & 1),
        transpose_b=bool(word >> 16 & 1),
        sparse=bool(word >> 2 & 1),
    )
    if kind in DENSE_KINDS:
        m = (word >> 24 & 0x1F) << 4
        _check_mn(kind, m, n)
        dtype = _decode_code(kind, "dtype", word >> 4 & 3, D_TYPE_CODES, "R2")
        shift_code = word >> 30 & 3
        return InstrDesc(
            m=m,
            dtype=dtype,
            sparsity_selector=word & 3,
            saturate=bool(word >> 3 & 1),
            max_shift=next(s for s, c in MAX_SHIFT_CODES.items() if c == shift_code),
            **common,  # type: ignore[arg-type]
        )
    m = (word >> 27 & 3) << 7
    _check_mn(kind, m, n)
    scale_type = _decode_code(kind, "scale_type", word >> 23 & 1, SCALE_TYPE_CODES[kind], "R14")
    return InstrDesc(
        m=m,
        scale_type=scale_type,
        sfa_id=word >> 29 & 3,
        sfb_id=word >> 4 & 3,
        k=(96 if word >> 31 & 1 else 64) if kind in MXF4_KINDS else None,
        **common,  # type: ignore[arg-type]
    )


def kinds_for_idesc(word: int) -> list[str]:
    """The kinds under which `word` decodes and passes every context-free rule (R1-R16)."""
    from mmair.isa.tcgen05.rules import check_idesc

    kinds = []
    for kind in KINDS:
        try:
            check_idesc(decode_idesc(word, kind), cta_group=None, ws=None, target=None)
        except DescriptorError:
            continue
        kinds.append(kind)
    return kinds
