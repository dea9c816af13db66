"""Blackwell memories seen by `tcgen05.mma`: SMEM/TMEM sizes, operand storage and canonical layouts.

Shared memory (SMEM) is a byte-addressed scratchpad of 228 KB per CTA. Tensor memory (TMEM) is 128
lanes x 512 columns of 32-bit cells per CTA, addressed by a 32-bit word `lane << 16 | column`, and
allocated in whole columns (a power of two from 32 to 512) by `tcgen05.alloc`.

`tcgen05.mma` reads A (M x K) and B (K x N, stored as N x K when K-major) from SMEM through a 64-bit
matrix descriptor (`smem.SmemDesc`). The element at (mn, k) of an operand lives at a byte address
given by the PTX *canonical layouts* (PTX ISA §9.7.16.3), written in CuTe notation in
elements with `T = 128 / bits` elements per 16-byte unit:

| major | swizzle | layout (rows = M or N index, cols = K index, or the reverse for MN-major) |
|---|---|---|
| K  | none       | `((8,m),(T,2k)):((1T,SBO),(1,LBO))` |
| K  | 32/64/128B | `((8,m),(T,2k)):((S*T,SBO),(1,T))`              (S = swizzle bytes / 16) |
| MN | none       | `((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))` |
| MN | 32/64/128B | `((T,S,m),(8,k)):((1,T,LBO),(S*T,SBO))` |
| MN | 128B, 32B atomicity | `((T,8,m),(4,k)):((1,T,LBO),(8*T,SBO))` |

then `address = start + offset * bits / 8`, and the swizzle permutes 16-byte chunks by XOR on the
*byte address*: `Swizzle<B,4,3>` (bits [4, 4+B) ^= bits [7, 7+B), B = 1/2/3 for 32/64/128B), and
128B with 32B atomicity `Swizzle<2,5,2>` (bits [5,7) ^= bits [7,9)). That mode's swizzle atom is
8 x 4 (128-bit units x K-rows): 4 K-rows of 128 bytes, so SBO steps between groups of 4 K-rows
(`SWIZZLE_ATOM_K_ROWS`; the PTX ISA swizzle-atom table of tcgen05's shared-memory layouts, and
CUTLASS `UMMA::make_umma_desc`, `SwizzleAtomKSize = 4` for `SWIZZLE_128B_BASE32B` and
`Layout_MN_SW128_32B_Atom` = 1024 bits x 4 rows).
The XOR source is the pattern row `(address >> 7) - base_offset`: the matrix base offset of the
descriptor (Table 41, `(pattern_start >> 7) & 7`) says where the repeating pattern started, so a
pattern anchored on its repeat boundary (base offset 0) swizzles on absolute address bits, which is
what TMA writes and what advancing a descriptor's start along K inside a swizzle atom relies on.
**[inf]** the byte-level reading of the swizzle and the base-offset phase are the standard CuTe/TMA
reading; they are not confirmed on hardware.

Element storage in SMEM (PTX ISA §9.7.16.10.4 "Packing formats of elements in Tensor and Shared
memory"): kind::mxf4/mxf4nvf4 pack two e2m1 per byte with no padding (§9.7.16.10.4.6; low nibble =
even element). kind::f8f6f4 and kind::mxf8f6f4 lay e2m1/e2m3/e3m2 out like 8-bit elements (16 per
16-byte unit of the canonical layout, a K-row of 32 elements is 32 bytes), but inside each 16-byte
unit the 16 elements are "contiguously packed along with padding" (§9.7.16.10.4.4, Figures 202 and
203): element i of the unit at bits [w*i, w*i + w) (little-endian) of the unit, w = 4 for e2m1
followed by 8 bytes of padding, w = 6 for e2m3/e3m2 followed by 4 bytes of padding. These are the
`.b4x16_p64` / `.b6x16_p32` shared-memory formats that TMA (`cp.async.bulk.tensor`, §5.5.1.1
"Sub-byte Types", Figures 5 and 6) writes and `tcgen05.cp` decompresses (§9.7.16.9.1: "a contiguous
set of 16 elements of 4-bits each followed by 8 bytes of padding"; 6-bit: "followed by 4 bytes of
padding"); CUTLASS reads them through `CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B` / `16U6_ALIGN16B`.
**[inf]** the bit order inside the packed run (element 0 in the lowest bits) is the little-endian
reading of those figures, the same order as packed GMEM data. In TMEM (A of the `.ts` form) these
kinds use one 8-bit container per element (§9.7.16.10.4.3), modelled with the value in the low bits
**[open]**. tf32 sits in a 32-bit container.

Everything here is pure index arithmetic on numpy arrays (whole tiles, no per-element loops).
"""

from __future__ import annotations

import numpy as np

from mmair.isa.tcgen05.errors import DescriptorError
from mmair.isa.tcgen05.idesc import MXF4_KINDS
from mmair.isa.tcgen05.smem import SWIZZLES, SmemDesc

#: Shared memory per CTA on sm_100 (bytes).
SMEM_BYTES_PER_CTA = 228 * 1024

#: Tensor memory per CTA: lanes x columns of 32-bit cells.
TMEM_LANES = 128
TMEM_COLUMNS = 512
TMEM_CELL_BITS = 32
#: Lanes a single warp can reach (a warp of a warpgroup reaches one quarter of the lanes).
TMEM_LANES_PER_WARP = 32
#: `tcgen05.alloc` column counts: powers of two from 32 to 512.
TMEM_ALLOC_COLUMNS: tuple[int, ...] = (32, 64, 128, 256, 512)

#: Bytes of one swizzle row (the width of a K-major row / MN-major K-row in the canonical layout).
SWIZZLE_ROW_BYTES: dict[str, int] = {
    "none": 16, "sw32": 32, "sw64": 64, "sw128": 128, "sw128_base32b": 128,
}
#: (B, M, S) of the CuTe `Swizzle<B,M,S>` functor of each mode, acting on byte addresses.
SWIZZLE_FUNCTORS: dict[str, tuple[int, int, int]] = {
    "none": (0, 4, 3), "sw32": (1, 4, 3), "sw64": (2, 4, 3), "sw128": (3, 4, 3),
    "sw128_base32b": (2, 5, 2),
}
MAJORS: tuple[str, ...] = ("k", "mn")
#: K-rows in one swizzle atom of an MN-major operand (8 x S units of 16 bytes, except the 8 x 4 atom
#: of 128B with 32-byte atomicity; module docstring).
SWIZZLE_ATOM_K_ROWS: dict[str, int] = {
    "none": 8, "sw32": 8, "sw64": 8, "sw128": 8, "sw128_base32b": 4,
}

#: Storage bits of the sub-byte float types when a kind reads them from 8-bit containers.
_UNPACKED_SUB_BYTE = frozenset({"e2m3", "e3m2", "e2m1"})
_STORAGE_BITS: dict[str, int] = {
    "f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "s32": 32,
    "e4m3": 8, "e5m2": 8, "u8": 8, "s8": 8, "e2m3": 8, "e3m2": 8, "e2m1": 8,
}


def tmem_address(lane: int, column: int) -> int:
    """The 32-bit TMEM address word: lane in bits 31-16, column in bits 15-0."""
    return (lane << 16) | column


def tmem_lane(address: int) -> int:
    return (address >> 16) & 0xFFFF


def tmem_column(address: int) -> int:
    return address & 0xFFFF


def smem_element_bits(kind: str, type_name: str) -> int:
    """Bits one A/B element occupies in SMEM for an MMA of `kind` (packed e2m1 only for mxf4*)."""
    if type_name == "e2m1" and kind in MXF4_KINDS:
        return 4
    if type_name not in _STORAGE_BITS:
        raise DescriptorError("type", type_name, ", ".join(_STORAGE_BITS), None,
                              "is not a tcgen05 operand type")
    return _STORAGE_BITS[type_name]


#: Kinds that store e2m1/e2m3/e3m2 in SMEM as 16 packed elements + padding per 16-byte unit.
PADDED_SUB_BYTE_KINDS = frozenset({"f8f6f4", "mxf8f6f4"})
#: Bits of data per element of the sub-byte types (the rest of a 16-byte unit is padding).
SUB_BYTE_WIDTHS: dict[str, int] = {"e2m1": 4, "e2m3": 6, "e3m2": 6}


def smem_value_bits(kind: str, type_name: str) -> int:
    """Bits of data one A/B element occupies in SMEM: the sub-byte width for e2m1/e2m3/e3m2 (packed
    for mxf4*, packed with padding per 16-byte unit for f8f6f4/mxf8f6f4), else the layout width."""
    if type_name in SUB_BYTE_WIDTHS and (kind in PADDED_SUB_BYTE_KINDS or kind in MXF4_KINDS):
        return SUB_BYTE_WIDTHS[type_name]
    return smem_element_bits(kind, type_name)


def padded_sub_byte_bit_addresses(bit_addresses: np.ndarray, width: int) -> np.ndarray:
    """Bit addresses of `width`-bit elements packed with padding, from the bit addresses of their
    8-bit slots in the canonical layout: slot i of a 16-byte unit holds bits [w*i, w*i + w)."""
    byte = bit_addresses >> 3
    return ((byte & ~15) << 3) + (byte & 15) * width


def container_value_bits(type_name: str) -> int:
    """Meaningful low bits of an 8-bit container holding a sub-byte type (8 for the others)."""
    return {"e2m3": 6, "e3m2": 6, "e2m1": 4}.get(type_name, 8)


def elements_per_unit(bits: int) -> int:
    """T = 128 / bits: elements in one 16-byte unit."""
    if bits not in (4, 8, 16, 32):
        raise DescriptorError("element bits", bits, "4, 8, 16, 32", None, "is not a storage width")
    return 128 // bits


def _check_major_swizzle(major: str, swizzle: str) -> None:
    if major not in MAJORS:
        raise DescriptorError("major", major, "k, mn", None, "is not a major-ness")
    if swizzle not in SWIZZLES:
        raise DescriptorError("swizzle", swizzle, ", ".join(SWIZZLES), "R18", "is not a swizzle mode")
    if swizzle == "sw128_base32b" and major == "k":
        raise DescriptorError("swizzle", swizzle, "none, sw128, sw64, sw32 (K-major operand)",
                              "R22", "is not legal for a K-major operand")


def canonical_element_offsets(
    major: str, swizzle: str, bits: int, mn: int, k: int, lbo: int, sbo: int
) -> np.ndarray:
    """Element offsets (before swizzling) of an operand's (mn, k) elements, shape (mn, k), int64.

    `lbo` and `sbo` are the descriptor's byte offsets; they must be whole elements. This is the
    PTX canonical layout table of the module docstring, evaluated for every element.
    """
    _check_major_swizzle(major, swizzle)
    t = elements_per_unit(bits)
    lbo_e, sbo_e = (lbo * 8) // bits, (sbo * 8) // bits
    s = SWIZZLE_ROW_BYTES[swizzle] // 16  # 16-byte units per swizzle row (1 without swizzle)
    i = np.arange(mn, dtype=np.int64)[:, None]
    j = np.arange(k, dtype=np.int64)[None, :]
    if major == "k":
        # rows (8, m): stride S*T inside a core block of 8 rows, SBO between blocks;
        # K (T, units): contiguous inside a unit, then LBO (no swizzle) or the next 16 bytes.
        row = (i % 8) * (s * t) + (i // 8) * sbo_e
        unit_stride = lbo_e if swizzle == "none" else t
        col = (j % t) + (j // t) * unit_stride
    elif swizzle == "none":
        # MN (T, 1, m): contiguous T, SBO between units; K (8, k): 16 bytes per K-row, LBO per 8.
        row = (i % t) + (i // t) * sbo_e
        col = (j % 8) * t + (j // 8) * lbo_e
    else:
        # MN (T, S, m): S units contiguous in a swizzle row, LBO between row groups;
        # K (8, k) or (4, k): one swizzle row per K-row, SBO between swizzle atoms along K.
        depth = SWIZZLE_ATOM_K_ROWS[swizzle]
        row = (i % t) + ((i // t) % s) * t + (i // (t * s)) * lbo_e
        col = (j % depth) * (s * t) + (j // depth) * sbo_e
    return row + col


def swizzle_addresses(addresses: np.ndarray, swizzle: str, base_offset: int = 0) -> np.ndarray:
    """Apply the byte-address swizzle of `swizzle` (module docstring) to an int array of addresses."""
    if swizzle not in SWIZZLE_FUNCTORS:
        raise DescriptorError("swizzle", swizzle, ", ".join(SWIZZLES), "R18", "is not a swizzle mode")
    b, m, s = SWIZZLE_FUNCTORS[swizzle]
    if b == 0:
        return addresses
    phase = ((addresses >> (m + s)) - base_offset) & ((1 << b) - 1)
    return addresses ^ (phase << m)


def operand_bit_addresses(desc: SmemDesc, major: str, bits: int, mn: int, k: int) -> np.ndarray:
    """Absolute SMEM *bit* addresses (byte * 8 + bit in byte) of an operand's (mn, k) elements.

    The whole descriptor mapping: canonical layout, start address, swizzle with base offset.
    LBO absolute mode (sm_103a K = 96) is not modelled and raises `DescriptorError`.
    """
    if desc.lbo_mode != "relative":
        raise DescriptorError("lbo_mode", desc.lbo_mode, "relative (absolute mode is not modelled)",
                              "R20", "is not supported by the layout model")
    offsets = canonical_element_offsets(major, desc.swizzle, bits, mn, k, desc.lbo, desc.sbo)
    bit_offsets = offsets * bits
    byte_addresses = swizzle_addresses(desc.start + (bit_offsets >> 3), desc.swizzle,
                                       desc.base_offset)
    return (byte_addresses << 3) | (bit_offsets & 7)


# ----------------------------------------------------------------------------------------------
# Sparse A metadata (PTX §9.7.16.10.8 "sparse matrices")

#: (dense K elements per metadata nibble, of which stored) for each kind's sparsity granularity.
#: tf32 is 1:2 (a nibble covers two K positions), the 2:4 kinds four, the 4:8 mxf4 kinds eight.
SPARSE_GROUPS: dict[str, tuple[int, int]] = {
    "tf32": (2, 1), "f16": (4, 2), "f8f6f4": (4, 2), "i8": (4, 2), "mxf8f6f4": (4, 2),
    "mxf4": (8, 4), "mxf4nvf4": (8, 4),
}
#: Meaningful metadata nibbles -> positions (in 16-bit halves for tf32, elements for 2:4) of the
#: two stored values inside their group of four: low 2 bits = first stored value, high 2 bits =
#: second. Other nibbles are undefined behaviour.
SPARSE_2OF4_NIBBLES: dict[int, tuple[int, int]] = {
    0b0100: (0, 1), 0b1000: (0, 2), 0b1100: (0, 3), 0b1001: (1, 2), 0b1101: (1, 3),
    0b0110: (2, 1), 0b1110: (2, 3),
}
#: tf32 1:2: a 32-bit element is two 16-bit halves, so the nibble names the pair of halves it fills:
#: 0b0100 (halves 0, 1) = the first of the two K positions, 0b1110 (halves 2, 3) = the second.
SPARSE_TF32_NIBBLES: dict[int, int] = {0b0100: 0, 0b1110: 1}


def sparse_dense_positions(kind: str, nibbles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For metadata nibbles (rows, groups): dense K offsets inside each group of the stored values.

    Returns (positions, valid): positions has shape (rows, groups, stored per group); `valid` is
    False where a nibble is undefined for `kind`. For tf32 a group is 2 dense K positions holding
    1 value; the 2:4 kinds 4 positions holding 2; mxf4* 8 positions holding 2 pairs (a 2:4
    nibble over pairs of elements).
    """
    if kind == "tf32":
        table = np.full(16, -1, dtype=np.int64)
        for nibble, position in SPARSE_TF32_NIBBLES.items():
            table[nibble] = position
        positions = table[nibbles][..., None]
        return positions, positions[..., 0] >= 0
    table2 = np.full((16, 2), -1, dtype=np.int64)
    for nibble, pair in SPARSE_2OF4_NIBBLES.items():
        table2[nibble] = pair
    slots = table2[nibbles]  # (rows, groups, 2)
    valid = slots[..., 0] >= 0
    if kind in MXF4_KINDS:  # each slot is a pair of e2m1 elements
        slots = np.concatenate([slots[..., :1] * 2, slots[..., :1] * 2 + 1,
                                slots[..., 1:] * 2, slots[..., 1:] * 2 + 1], axis=-1)
    return slots, valid


def sparse_metadata_nibbles(kind: str, k: int) -> int:
    """Metadata nibbles per A row for a sparse MMA of dense K `k`."""
    return k // SPARSE_GROUPS[kind][0]


# ----------------------------------------------------------------------------------------------
# Block-scale factors in TMEM (PTX ISA §9.7.16.10.7 "Block scaling") [inf: CUTLASS Sm100BlkScaledConfig + tcgen05.cp
# .32x128b.warpx4, not stated by PTX]
#
# Scale factors are bytes. The scale of operand row r (A row m, or B column n) sits in TMEM lane
# `r % 32` of a 32-lane quadrant, column `column + r // 32`, and the scales of the MMA's K chunks
# are consecutive bytes starting at byte SF_ID of that cell. PTX requires the data to be duplicated
# in all four 32-lane quadrants; A row m is read from its own lane m, B column n from lane n % 32.

#: K elements covered by one scale factor for each `.scale_vec`.
SCALE_BLOCK_K: dict[str, int] = {"1X": 32, "2X": 32, "4X": 16}


def scale_factor_cells(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(lane offset in its quadrant, column offset) of the scale factors of operand rows `rows`."""
    return rows % TMEM_LANES_PER_WARP, rows // TMEM_LANES_PER_WARP


__all__ = [
    "MAJORS",
    "SCALE_BLOCK_K",
    "SPARSE_2OF4_NIBBLES",
    "SPARSE_GROUPS",
    "SPARSE_TF32_NIBBLES",
    "SMEM_BYTES_PER_CTA",
    "SWIZZLE_ATOM_K_ROWS",
    "SWIZZLE_FUNCTORS",
    "SWIZZLE_ROW_BYTES",
    "TMEM_ALLOC_COLUMNS",
    "TMEM_CELL_BITS",
    "TMEM_COLUMNS",
    "TMEM_LANES",
    "TMEM_LANES_PER_WARP",
    "PADDED_SUB_BYTE_KINDS",
    "SUB_BYTE_WIDTHS",
    "canonical_element_offsets",
    "container_value_bits",
    "elements_per_unit",
    "operand_bit_addresses",
    "scale_factor_cells",
    "sparse_dense_positions",
    "sparse_metadata_nibbles",
    "padded_sub_byte_bit_addresses",
    "smem_element_bits",
    "smem_value_bits",
    "swizzle_addresses",
    "tmem_address",
    "tmem_column",
    "tmem_lane",
]
