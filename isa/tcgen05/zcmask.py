"""The 64-bit zero-column mask descriptor of `tcgen05.mma.ws` (PTX ISA 9.2 §9.7.16.4.3, Table 45).

The optional last operand of `tcgen05.mma.ws{.sp}` makes the tensor core read zeros instead of some
columns of B and shift the B columns it reads. The N-bit mask is generated from a compact pattern:

| bits  | field |
|-------|-------|
| 0-31  | start counts sc0..sc3 (8 bits each): leading pattern bits dropped by sub-mask i |
| 32-35 | first spans fs0..fs3: value of the first run of sub-mask i |
| 36-38 | reserved |
| 39    | non-zero mask: 0 => the whole mask is 0 |
| 40-47 | skip span: a run of 1-bits (zeroed columns) is skip + 1 long |
| 48-55 | use span: a run of 0-bits (used columns) is use + 1 long |
| 56-61 | column shift: output column j reads B column j + shift |
| 62-63 | not listed; treated as reserved |

M = 128 uses one N-bit sub-mask, M = 64 two N/2-bit ones, M = 32 four N/4-bit ones, concatenated from
the LSB. The generation algorithm is the mmair decision (docs/tcgen05-rules.md, "Zero-column mask descriptor"): it reproduces PTX
examples 1-4 bit for bit, the opposite of the wording of Table 45's span descriptions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mmair.isa.tcgen05.errors import DescriptorError
from mmair.isa.tcgen05.idesc import check_word

WORD_BITS = 64
_RESERVED_MASK = (0b111 << 36) | (0b11 << 62)
#: Sub-masks per M (each covers N / count consecutive output columns).
SUBMASKS_PER_M: dict[int, int] = {128: 1, 64: 2, 32: 4}


@dataclass(frozen=True)
class ZeroColumnMask:
    """A zero-column mask descriptor; `start[i]`/`first[i]` belong to sub-mask i."""

    start: tuple[int, int, int, int] = (0, 0, 0, 0)
    first: tuple[int, int, int, int] = (0, 0, 0, 0)
    nonzero: bool = False
    skip: int = 0
    use: int = 0
    shift: int = 0

    def __post_init__(self) -> None:
        # Lists (from JSON or text) compare unequal to tuples; keep the hashable tuple form.
        object.__setattr__(self, "start", tuple(self.start))
        object.__setattr__(self, "first", tuple(self.first))

    def as_dict(self) -> dict[str, object]:
        return {
            "start": list(self.start),
            "first": [int(f) for f in self.first],
            "nonzero": self.nonzero,
            "skip": self.skip,
            "use": self.use,
            "shift": self.shift,
        }


ZCMASK_KEYS: tuple[str, ...] = ("start", "first", "nonzero", "skip", "use", "shift")


def _field(name: str, value: object, limit: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < limit:
        raise DescriptorError(name, value, f"0..{limit - 1}", None, "does not fit its field")
    return value


def _four(name: str, values: object, limit: int) -> tuple[int, ...]:
    if not isinstance(values, tuple | list) or len(values) != 4:
        raise DescriptorError(name, values, "a list of 4 integers", None, "is not 4 values")
    return tuple(_field(f"{name}[{i}]", v, limit) for i, v in enumerate(values))


def encode_zcmask(z: ZeroColumnMask) -> int:
    """`Σ sc_i << 8i | Σ fs_i << (32+i) | nzm << 39 | skip << 40 | use << 48 | shift << 56`."""
    word = 0
    for i, sc in enumerate(_four("start", z.start, 256)):
        word |= sc << (8 * i)
    for i, fs in enumerate(_four("first", z.first, 2)):
        word |= fs << (32 + i)
    if z.nonzero not in (0, 1):
        raise DescriptorError("nonzero", z.nonzero, "true, false", None, "is not a boolean")
    word |= int(z.nonzero) << 39
    word |= _field("skip", z.skip, 256) << 40
    word |= _field("use", z.use, 256) << 48
    word |= _field("shift", z.shift, 64) << 56
    return word


def decode_zcmask(word: int) -> ZeroColumnMask:
    """Read a zero-column mask word; raises `DescriptorError` for reserved bits (R24)."""
    check_word(word, WORD_BITS, "zcmask")
    reserved = word & _RESERVED_MASK
    if reserved:
        raise DescriptorError(
            "reserved bits", reserved, "bits 36-38, 62-63 = 0", "R24", "are set",
            value_text=f"0x{reserved:016x}",
        )
    return ZeroColumnMask(
        start=tuple(word >> (8 * i) & 0xFF for i in range(4)),  # type: ignore[arg-type]
        first=tuple(word >> (32 + i) & 1 for i in range(4)),  # type: ignore[arg-type]
        nonzero=bool(word >> 39 & 1),
        skip=word >> 40 & 0xFF,
        use=word >> 48 & 0xFF,
        shift=word >> 56 & 0x3F,
    )


def submask_layout(m: int, n: int) -> tuple[int, int]:
    """(number of sub-masks, width of each) for an M x N `.ws` MMA."""
    if m not in SUBMASKS_PER_M:
        raise DescriptorError("m", m, "32, 64, 128", "R23", "is not an M of tcgen05.mma.ws")
    count = SUBMASKS_PER_M[m]
    if not isinstance(n, int) or isinstance(n, bool) or not (8 <= n <= 256 and n % 8 == 0) or n % count:
        raise DescriptorError(
            "n", n, f"8..256 step 8, divisible by {count} for M = {m}", "R7",
            "cannot be split into zero-column sub-masks",
        )
    return count, n // count


def _submask_bits(z: ZeroColumnMask, index: int, width: int) -> np.ndarray:
    """Bits 0..width-1 (LSB first) of sub-mask `index` as a bool array (PTX zero-column mask layout)."""
    if not z.nonzero:
        return np.zeros(width, dtype=bool)
    first = bool(z.first[index])
    ones_run, zeros_run = z.skip + 1, z.use + 1
    first_run = ones_run if first else zeros_run
    position = (z.start[index] + np.arange(width)) % (ones_run + zeros_run)
    return np.where(position < first_run, first, not first)


def _to_int(bits_lsb_first: np.ndarray) -> int:
    width = bits_lsb_first.size
    padded = np.zeros(-(-width // 8) * 8, dtype=bool)
    padded[padded.size - width:] = bits_lsb_first[::-1]  # MSB first, zero-padded on the left
    return int.from_bytes(np.packbits(padded).tobytes(), "big")


def zcmask_columns(z: ZeroColumnMask, m: int, n: int) -> np.ndarray:
    """The full mask as N booleans: True at output column j means column j reads zeros."""
    count, width = submask_layout(m, n)
    encode_zcmask(z)  # field ranges
    return np.concatenate([_submask_bits(z, i, width) for i in range(count)])


def zcmask_submasks(z: ZeroColumnMask, m: int, n: int) -> list[int]:
    """Sub-masks mask0.. as integers (bit 0 = the first column each one covers)."""
    count, width = submask_layout(m, n)
    encode_zcmask(z)
    return [_to_int(_submask_bits(z, i, width)) for i in range(count)]


def zcmask_bits(z: ZeroColumnMask, m: int, n: int) -> int:
    """The full N-bit mask: `mask0 | mask1 << W | mask2 << 2W | mask3 << 3W`."""
    return _to_int(zcmask_columns(z, m, n))


def bit_string(value: int, width: int) -> str:
    """`value` as `width` binary digits, MSB first (the way PTX prints masks)."""
    return format(value, f"0{width}b") if width else ""
