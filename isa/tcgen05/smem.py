"""The 64-bit shared-memory matrix descriptor of `tcgen05.mma` (PTX ISA 9.2 §9.7.16.4.1, Table 40).

A and B operands in shared memory are described to the tensor core by a 64-bit register value:

| bits  | field |
|-------|-------|
| 0-13  | start address >> 4 |
| 16-29 | leading-dimension byte offset (LBO) >> 4, or the absolute LD address >> 4 in LBO mode 1 |
| 32-45 | stride-dimension byte offset (SBO) >> 4 |
| 46-48 | fixed 0b001 (CUTLASS "version" 1) |
| 49-51 | matrix base offset (swizzle phase, Table 41) |
| 52    | LBO mode: 0 relative offset, 1 absolute address |
| 61-63 | swizzle: 0 none, 1 128B with 32B atomicity, 2 128B, 4 64B, 6 32B (3, 5, 7 invalid) |

Bits 14-15, 30-31 and 53-60 are 0. Addresses and offsets are encoded as `(x & 0x3FFFF) >> 4`, so
`SmemDesc` keeps them in bytes (16-byte aligned, below 2^18). The rules that need context (kind,
major-ness, static address, target) are `rules.check_smem_desc` (R17-R22).
"""

from __future__ import annotations

from dataclasses import dataclass

from mmair.isa.tcgen05.errors import DescriptorError
from mmair.isa.tcgen05.idesc import check_word

#: Swizzle names <-> the 3-bit codes of bits 61-63.
SWIZZLES: dict[str, int] = {"none": 0, "sw128_base32b": 1, "sw128": 2, "sw64": 4, "sw32": 6}
SWIZZLE_NAMES: dict[int, str] = {code: name for name, code in SWIZZLES.items()}
#: Bytes after which each swizzle pattern repeats (Table 41).
SWIZZLE_REPEAT_BYTES: dict[str, int] = {"sw128_base32b": 1024, "sw128": 1024, "sw64": 512, "sw32": 256}
LBO_MODES: tuple[str, ...] = ("relative", "absolute")

ADDRESS_LIMIT = 1 << 18  # the encoding keeps address bits 4..17
FIXED_BITS = 0b001 << 46
_FIXED_MASK = 0b111 << 46
_RESERVED_MASK = (0b11 << 14) | (0b11 << 30) | (0xFF << 53)
WORD_BITS = 64

SWIZZLE_LEGAL = ", ".join(f"{code} ({name})" for name, code in SWIZZLES.items())


@dataclass(frozen=True)
class SmemDesc:
    """A shared-memory matrix descriptor; `start`, `lbo` and `sbo` are in bytes."""

    start: int
    lbo: int
    sbo: int
    base_offset: int = 0
    lbo_mode: str = "relative"
    swizzle: str = "none"

    def as_dict(self) -> dict[str, object]:
        return {
            "start": self.start,
            "lbo": self.lbo,
            "sbo": self.sbo,
            "base_offset": self.base_offset,
            "lbo_mode": self.lbo_mode,
            "swizzle": self.swizzle,
        }


SMEM_KEYS: tuple[str, ...] = ("start", "lbo", "sbo", "base_offset", "lbo_mode", "swizzle")


def check_byte_field(name: str, value: object) -> int:
    """R19: a start address / LBO / SBO in bytes is 16-byte aligned and below 2^18."""
    if (
        not isinstance(value, int)
        or isinstance(value, bool)
        or not 0 <= value < ADDRESS_LIMIT
        or value % 16
    ):
        raise DescriptorError(
            name, value, f"0..{ADDRESS_LIMIT - 16} in steps of 16 bytes", "R19",
            "is not an encodable byte value",
        )
    return value


def swizzle_code(swizzle: object) -> int:
    if swizzle not in SWIZZLES:
        raise DescriptorError(
            "swizzle", swizzle, ", ".join(SWIZZLES), "R18", "is not a swizzle mode"
        )
    return SWIZZLES[swizzle]  # type: ignore[index]


def encode_smem_desc(d: SmemDesc) -> int:
    """The 64-bit descriptor word of `d`."""
    word = check_byte_field("start", d.start) >> 4
    word |= (check_byte_field("lbo", d.lbo) >> 4) << 16
    word |= (check_byte_field("sbo", d.sbo) >> 4) << 32
    word |= FIXED_BITS
    if not isinstance(d.base_offset, int) or isinstance(d.base_offset, bool) or not (
        0 <= d.base_offset <= 7
    ):
        raise DescriptorError("base_offset", d.base_offset, "0..7", "R21", "does not fit bits 49-51")
    word |= d.base_offset << 49
    if d.lbo_mode not in LBO_MODES:
        raise DescriptorError("lbo_mode", d.lbo_mode, ", ".join(LBO_MODES), "R20", "is not an LBO mode")
    word |= LBO_MODES.index(d.lbo_mode) << 52
    word |= swizzle_code(d.swizzle) << 61
    return word


def decode_smem_desc(word: int) -> SmemDesc:
    """Read a descriptor word; raises `DescriptorError` for R17 (fixed/reserved bits) and R18."""
    check_word(word, WORD_BITS, "smem_desc")
    if word & _FIXED_MASK != FIXED_BITS:
        raise DescriptorError(
            "fixed bits 46-48", f"0b{word >> 46 & 7:03b}", "0b001", "R17", "do not hold the constant"
        )
    reserved = word & _RESERVED_MASK
    if reserved:
        raise DescriptorError(
            "reserved bits", reserved, "bits 14-15, 30-31, 53-60 = 0", "R17", "are set",
            value_text=f"0x{reserved:016x}",
        )
    code = word >> 61
    if code not in SWIZZLE_NAMES:
        raise DescriptorError(
            "swizzle", code, SWIZZLE_LEGAL, "R18", "is not a valid swizzle code"
        )
    return SmemDesc(
        start=(word & 0x3FFF) << 4,
        lbo=(word >> 16 & 0x3FFF) << 4,
        sbo=(word >> 32 & 0x3FFF) << 4,
        base_offset=word >> 49 & 7,
        lbo_mode=LBO_MODES[word >> 52 & 1],
        swizzle=SWIZZLE_NAMES[code],
    )


def expected_base_offset(start: int, swizzle: str) -> int:
    """Table 41: 0 on the swizzle repeat boundary (and without swizzle), else `(start >> 7) & 7`."""
    repeat = SWIZZLE_REPEAT_BYTES.get(swizzle)
    if repeat is None or start % repeat == 0:
        return 0
    return (start >> 7) & 7
