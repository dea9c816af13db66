"""Read a descriptor word field by field even when it is invalid, and list every rule it breaks.

`decode_idesc` / `decode_smem_desc` / `decode_zcmask` stop at the first field they cannot hold
(a reserved bit, an undefined type or swizzle code) and the `rules.check_*` functions at the first
broken rule. A user debugging a word wants all of it: `read_*` return the fields as they are in the
word (a name where the code is defined, else the raw code), and `*_report` adds every error —
the decode errors, then the rule errors (`rules.collect_errors`). Where an idesc field could not
be decoded the rules run on a stand-in value for it; errors about that field are not repeated, and
an error is kept only if every value of the field gives it word for word (so nothing derived from
the guess is reported). An undefined swizzle code reaches the rules as itself, and they skip what
depends on the swizzle.
"""

from __future__ import annotations

from dataclasses import replace

from mmair.isa.tcgen05 import rules
from mmair.isa.tcgen05.errors import DescriptorError
from mmair.isa.tcgen05.idesc import (
    AB_TYPE_CODES,
    ANY_M,
    BLOCK_SCALED_KINDS,
    D_TYPE_CODES,
    MAX_SHIFT_CODES,
    MXF4_KINDS,
    N_MAX,
    N_MIN,
    RESERVED_MASK,
    SCALE_TYPE_CODES,
    InstrDesc,
    check_kind,
    check_word,
)
from mmair.isa.tcgen05.smem import (
    _FIXED_MASK,
    FIXED_BITS,
    LBO_MODES,
    SWIZZLE_LEGAL,
    SWIZZLE_NAMES,
    SmemDesc,
)
from mmair.isa.tcgen05.smem import (
    _RESERVED_MASK as _SMEM_RESERVED,
)
from mmair.isa.tcgen05.zcmask import _RESERVED_MASK as _ZCM_RESERVED
from mmair.isa.tcgen05.zcmask import ZeroColumnMask

Report = tuple[dict[str, object], list[DescriptorError]]


def _name(table: dict[str, int], code: int) -> str | None:
    return next((name for name, c in table.items() if c == code), None)


def _code_legal(table: dict[str, int]) -> str:
    return ", ".join(f"{c} ({n})" for n, c in sorted(table.items(), key=lambda x: x[1]))


def read_idesc(word: int, kind: str) -> tuple[dict[str, object], list[DescriptorError],
                                                InstrDesc, set[str]]:
    """(fields, decode errors, a descriptor to run the rules on, the fields it stands in for)."""
    check_word(word, 32, "idesc")
    kind = check_kind(kind)
    dense = kind not in BLOCK_SCALED_KINDS
    errors: list[DescriptorError] = []
    stand_in: set[str] = set()
    fields: dict[str, object] = {"kind": kind}
    values: dict[str, object] = {}

    def code(name: str, raw: int, table: dict[str, int], rule: str) -> None:
        found = _name(table, raw)
        fields[name] = found if found is not None else raw
        if found is None:
            errors.append(DescriptorError(name, raw, _code_legal(table), rule,
                                          f"is not a valid kind::{kind} {name} code"))
            stand_in.add(name)
            found = next(iter(table))
        values[name] = found

    type_rule = "R3" if dense else "R15"
    if dense:
        code("dtype", word >> 4 & 3, D_TYPE_CODES, "R2")
    code("atype", word >> 7 & 7, AB_TYPE_CODES[kind], type_rule)
    code("btype", word >> 10 & (3 if kind in MXF4_KINDS else 7), AB_TYPE_CODES[kind], type_rule)
    m = (word >> 24 & 0x1F) << 4 if dense else (word >> 27 & 3) << 7
    n = (word >> 17 & 0x3F) << 3
    fields["m"], fields["n"] = m, n
    shape_rule = "R7" if dense else "R12"
    if m not in ANY_M[kind]:
        errors.append(DescriptorError("m", m, ", ".join(map(str, ANY_M[kind])), shape_rule,
                                      f"is not an M of any kind::{kind} MMA"))
        stand_in.add("m")
        m = 128
    if not N_MIN <= n <= N_MAX:
        errors.append(DescriptorError("n", n, f"{N_MIN}..{N_MAX} step 8", shape_rule,
                                      f"is not an N of any kind::{kind} MMA"))
        stand_in.add("n")
        n = 64
    for name, bit in (("transpose_a", 15), ("transpose_b", 16), ("negate_a", 13),
                      ("negate_b", 14), ("sparse", 2)):
        fields[name] = values[name] = bool(word >> bit & 1)
    if dense:
        fields["sparsity_selector"] = values["sparsity_selector"] = word & 3
        fields["saturate"] = values["saturate"] = bool(word >> 3 & 1)
        fields["max_shift"] = values["max_shift"] = next(
            s for s, c in MAX_SHIFT_CODES.items() if c == word >> 30 & 3)
    else:
        code("scale_type", word >> 23 & 1, SCALE_TYPE_CODES[kind], "R14")
        fields["sfa_id"] = values["sfa_id"] = word >> 29 & 3
        fields["sfb_id"] = values["sfb_id"] = word >> 4 & 3
        if kind in MXF4_KINDS:
            fields["k"] = values["k"] = 96 if word >> 31 & 1 else 64
        else:
            fields["k"] = None  # the mxf8f6f4 layout has no K field
    reserved = word & RESERVED_MASK[kind]
    if reserved:
        fields["reserved_bits"] = f"0x{reserved:08x}"
        bits = ", ".join(str(b) for b in range(32) if RESERVED_MASK[kind] >> b & 1)
        errors.insert(0, DescriptorError(
            "reserved bits", reserved, f"bits {bits} = 0", "R1" if dense else "R11",
            f"are set in a kind::{kind} descriptor", value_text=f"0x{reserved:08x}"))
    desc = InstrDesc(kind=kind, m=m, n=n, **values)  # type: ignore[arg-type]
    return fields, errors, desc, stand_in


def idesc_report(word: int, kind: str, *, verify: bool = True, **context: object) -> Report:
    """Every readable field of `word` under `kind`, and every error (decode + R2-R16 in `context`:
    cta_group, ws, target, None = unknown)."""
    fields, errors, desc, stand_in = read_idesc(word, kind)
    if verify:
        found = rules.collect_errors(rules.check_idesc, desc, **context)
        # An error that changes with the stand-in is about the guess, not the word (e.g. "btype
        # = bf16 differs from atype" when atype is an undefined code): keep only the errors
        # reported, word for word, whatever value each undecodable field takes.
        for name in stand_in:
            for value in _field_values(name, desc.kind):
                other = rules.collect_errors(rules.check_idesc, replace(desc, **{name: value}),
                                             **context)
                texts = {str(e) for e in other}
                found = [err for err in found if str(err) in texts]
        for err in found:
            if err.field not in stand_in and all(str(err) != str(e) for e in errors):
                errors.append(err)
    return fields, errors


def _field_values(name: str, kind: str) -> list[object]:
    """Every value the idesc field `name` can hold under `kind` (what a stand-in ranges over)."""
    if name == "dtype":
        return list(D_TYPE_CODES)
    if name in ("atype", "btype"):
        return list(AB_TYPE_CODES[kind])
    if name == "scale_type":
        return list(SCALE_TYPE_CODES[kind])
    if name == "m":
        return list(ANY_M[kind])
    return list(range(N_MIN, N_MAX + 1, 8))  # n


def smem_report(word: int, *, verify: bool = True, **context: object) -> Report:
    """Every field of a shared-memory descriptor word and every error (R17-R22 in `context`:
    kind, major, target, pattern_start)."""
    check_word(word, 64, "smem_desc")
    errors: list[DescriptorError] = []
    code = word >> 61
    swizzle = SWIZZLE_NAMES.get(code)
    fields: dict[str, object] = {
        "start": (word & 0x3FFF) << 4,
        "lbo": (word >> 16 & 0x3FFF) << 4,
        "sbo": (word >> 32 & 0x3FFF) << 4,
        "base_offset": word >> 49 & 7,
        "lbo_mode": LBO_MODES[word >> 52 & 1],
        "swizzle": swizzle if swizzle is not None else code,
    }
    if word & _FIXED_MASK != FIXED_BITS:
        fields["fixed_bits_46_48"] = f"0b{word >> 46 & 7:03b}"
        errors.append(DescriptorError("fixed bits 46-48", f"0b{word >> 46 & 7:03b}", "0b001",
                                      "R17", "do not hold the constant"))
    reserved = word & _SMEM_RESERVED
    if reserved:
        fields["reserved_bits"] = f"0x{reserved:016x}"
        errors.append(DescriptorError("reserved bits", reserved, "bits 14-15, 30-31, 53-60 = 0",
                                      "R17", "are set", value_text=f"0x{reserved:016x}"))
    if swizzle is None:
        errors.append(DescriptorError("swizzle", code, SWIZZLE_LEGAL, "R18",
                                      "is not a valid swizzle code"))
    if verify:
        keys = ("start", "lbo", "sbo", "base_offset", "lbo_mode")
        # An undefined code goes to the rules as the raw number: they skip what depends on the
        # swizzle (a stand-in mode would make them report its consequences, e.g. "lbo_mode =
        # absolute is not legal with swizzle = none"), and their own swizzle error repeats ours.
        desc = SmemDesc(**{k: fields[k] for k in keys}, swizzle=fields["swizzle"])  # type: ignore[arg-type]
        for err in rules.collect_errors(rules.check_smem_desc, desc, **context):
            if not (swizzle is None and err.field == "swizzle"):
                errors.append(err)
    return fields, errors


def zcmask_report(word: int, *, m: int | None, verify: bool = True) -> tuple[
        dict[str, object], list[DescriptorError], ZeroColumnMask]:
    """Every field of a zero-column mask word, every error (R23-R25 for M) and the mask."""
    check_word(word, 64, "zcmask")
    z = ZeroColumnMask(
        start=tuple(word >> (8 * i) & 0xFF for i in range(4)),  # type: ignore[arg-type]
        first=tuple(word >> (32 + i) & 1 for i in range(4)),  # type: ignore[arg-type]
        nonzero=bool(word >> 39 & 1),
        skip=word >> 40 & 0xFF,
        use=word >> 48 & 0xFF,
        shift=word >> 56 & 0x3F,
    )
    fields = z.as_dict()
    errors: list[DescriptorError] = []
    reserved = word & _ZCM_RESERVED
    if reserved:
        fields["reserved_bits"] = f"0x{reserved:016x}"
        errors.append(DescriptorError("reserved bits", reserved, "bits 36-38, 62-63 = 0", "R24",
                                      "are set", value_text=f"0x{reserved:016x}"))
    if verify:
        errors += rules.collect_errors(rules.check_zcmask, z, m=m)
    return fields, errors, z


__all__ = ["idesc_report", "read_idesc", "smem_report", "zcmask_report"]
