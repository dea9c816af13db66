"""SMEM operand layouts against the PTX ISA's canonical layouts, for every swizzle mode x major-ness
x element width, the ISA's worked examples element for element, and what the layout model
refuses (types without a layout, unknown major-ness and swizzle modes, absolute LBO mode).

The expected addresses are computed independently of `mmair.isa.tcgen05.layouts`: the CuTe layouts
of the PTX ISA table (§9.7.16.3.3 "Canonical Layouts", in elements, T = 128 / bits) are evaluated by
the small CuTe evaluator of tcgen05_testing, and the swizzle by CuTe's `Swizzle<B,M,S>` on
byte addresses. 128B swizzling with 32-byte atomicity (tf32, MN-major) uses its 8 x 4 swizzle atom:
`Swizzle<2,5,2> o ((T,8,m),(4,k)):((1,T,LBO),(8T,SBO))` (4 K-rows per atom, SBO between groups of
4 K-rows; CUTLASS `UMMA::make_umma_desc`, `SwizzleAtomKSize = 4`).
"""

from __future__ import annotations

import numpy as np
import pytest
from tcgen05_testing import cute_offsets, cute_swizzle

from mmair.isa.tcgen05 import SmemDesc, layouts
from mmair.isa.tcgen05.errors import DescriptorError

#: 16-byte units per swizzle row, and the CuTe Swizzle<B,M,S> of each mode (byte addresses).
UNITS = {"none": 1, "sw32": 2, "sw64": 4, "sw128": 8, "sw128_base32b": 8}
FUNCTOR = {"none": (0, 4, 3), "sw32": (1, 4, 3), "sw64": (2, 4, 3), "sw128": (3, 4, 3),
           "sw128_base32b": (2, 5, 2)}


def canonical(major: str, swizzle: str, t: int, m: int, k: int, lbo: int, sbo: int):
    """(shape, stride) of the PTX canonical layout in elements (LBO/SBO in elements)."""
    s = UNITS[swizzle]
    if major == "k":
        if swizzle == "none":
            return ((8, m), (t, 2 * k)), ((t, sbo), (1, lbo))
        return ((8, m), (t, s)), ((s * t, sbo), (1, t))  # one swizzle row of K
    if swizzle == "none":
        return ((t, 1, m), (8, k)), ((1, t, sbo), (t, lbo))
    if swizzle == "sw128_base32b":
        return ((t, 8, m), (4, k)), ((1, t, lbo), (8 * t, sbo))
    return ((t, s, m), (8, k)), ((1, t, lbo), (s * t, sbo))


CASES = [
    (major, swizzle, bits)
    for major in ("k", "mn")
    for swizzle in ("none", "sw32", "sw64", "sw128", "sw128_base32b")
    for bits in (4, 8, 16, 32)
    # 128B with 32-byte atomicity is the tf32 (32-bit) MN-major mode only (R22).
    if swizzle != "sw128_base32b" or (major == "mn" and bits == 32)
]


@pytest.mark.parametrize(("major", "swizzle", "bits"), CASES)
def test_every_mode_matches_the_canonical_layout(major: str, swizzle: str, bits: int) -> None:
    t = 128 // bits
    m, k = 2, 3  # pattern repeats along MN and K
    s = UNITS[swizzle]
    atom_bytes = 16 * s * layouts.SWIZZLE_ATOM_K_ROWS[swizzle] if major == "mn" else 16 * s * 8
    # LBO/SBO: whole atoms apart, in different orders for K- and MN-major (bytes, 16-aligned).
    lbo, sbo = (atom_bytes, atom_bytes * 4) if major == "mn" else (128, atom_bytes * 2)
    start = 0x2000
    desc = SmemDesc(start=start, lbo=lbo, sbo=sbo, swizzle=swizzle)
    shape, stride = canonical(major, swizzle, t, m, k, lbo * 8 // bits, sbo * 8 // bits)
    expected = cute_offsets(shape, stride)  # first mode MN, second K: (MN, K) for both majors
    mn_extent, k_extent = expected.shape
    bit_offsets = expected * bits
    b, mm, ss = FUNCTOR[swizzle]
    swizzle_byte = np.vectorize(lambda x: cute_swizzle(x, b, mm, ss))
    want = (swizzle_byte(start + (bit_offsets >> 3)) << 3) | (bit_offsets & 7)
    got = layouts.operand_bit_addresses(desc, major, bits, mn_extent, k_extent)
    np.testing.assert_array_equal(got, want)


def test_base32b_atom_is_four_k_rows_deep() -> None:
    # tf32 MN-major, 128B swizzle with 32B atomicity: K-rows 0-3 are 128 B apart inside the atom;
    # K-row 4 starts SBO bytes later (not 4 * 128 B). Swizzle<2,5,2> XORs the row number (bits 7-8)
    # into bits 5-6, so element 0 of K-row r (r < 4) sits at 128 r ^ 32 r = 160 r.
    desc = SmemDesc(start=0, lbo=4096, sbo=2048, swizzle="sw128_base32b")
    addresses = layouts.operand_bit_addresses(desc, "mn", 32, 32, 8) >> 3
    assert [int(a) for a in addresses[0, :]] == [0, 160, 320, 480, 2048, 2208, 2368, 2528]
    # Element 8 (byte 32) of K-row 1 (byte 128): bits [5, 7) ^= bits [7, 9) = 1 -> byte 128 + 0.
    assert int(addresses[8, 1]) == 128 + (32 ^ 32)
    assert int(addresses[16, 1]) == 128 + (64 ^ 32)


# The PTX ISA's worked examples (§9.7.16.3.3, Figures 188-192): descriptor values and the exact
# layouts printed under each figure. (The K-major no-swizzle tf32 and MN-major 32B bf16 ones are in
# test_tcgen05_kernels.)
PTX_EXAMPLES = [
    # major, swizzle, bits, LBO bytes, SBO bytes, (MN, K), exact layout (shape, stride), functor
    ("k", "sw32", 32, 16, 256, (16, 16), (((8, 2), (4, 4)), ((8, 64), (1, 4))), (1, 4, 3)),
    ("mn", "none", 16, 256, 128, (16, 16), (((8, 1, 2), (8, 2)), ((1, 8, 64), (8, 128))),
     (0, 4, 3)),
    ("mn", "sw64", 16, 512, 1024, (64, 16), (((8, 4, 2), (8, 2)), ((1, 8, 256), (32, 512))),
     (2, 4, 3)),
]


@pytest.mark.parametrize(("major", "swizzle", "bits", "lbo", "sbo", "extent", "layout", "functor"),
                         PTX_EXAMPLES)
def test_ptx_worked_examples(major, swizzle, bits, lbo, sbo, extent, layout, functor) -> None:
    desc = SmemDesc(start=0, lbo=lbo, sbo=sbo, swizzle=swizzle)
    expected = cute_offsets(*layout)  # (MN, K)
    mn, k = extent
    got = layouts.canonical_element_offsets(major, swizzle, bits, mn, k, lbo, sbo)
    np.testing.assert_array_equal(got, expected)
    byte = np.vectorize(lambda x: cute_swizzle(x, *functor))(expected * bits // 8)
    np.testing.assert_array_equal(layouts.operand_bit_addresses(desc, major, bits, mn, k) >> 3,
                                  byte)


# What the layout model refuses: unknown types, major-ness and swizzle modes, absolute LBO mode


def test_smem_element_bits_refuses_a_type_tcgen05_has_no_layout_for():
    assert layouts.smem_element_bits("f16", "bf16") == 16
    assert layouts.smem_element_bits("mxf4", "e2m1") == 4  # packed only for the fp4 kinds
    assert layouts.smem_element_bits("f8f6f4", "e2m1") == 8
    with pytest.raises(DescriptorError, match="type = f64 is not a tcgen05 operand type; legal: "
                                              "f16, bf16, tf32, f32, s32, e4m3, e5m2, u8, s8, "):
        layouts.smem_element_bits("f16", "f64")


@pytest.mark.parametrize(("major", "swizzle", "message"), [
    ("x", "none", r"major = x is not a major-ness; legal: k, mn$"),
    ("k", "sw16", r"swizzle = sw16 is not a swizzle mode; legal: none, sw128_base32b, sw128, "
                  r"sw64, sw32 \[R18\]"),
    # R22 (docs/tcgen05-rules.md: PTX ISA descriptor tables; CUTLASS static_asserts it): the
    # 128-byte swizzle with 32-byte atoms is for MN-major operands only.
    ("k", "sw128_base32b", r"swizzle = sw128_base32b is not legal for a K-major operand; legal: "
                           r"none, sw128, sw64, sw32 \(K-major operand\) \[R22\]"),
])
def test_canonical_layout_refuses_major_and_swizzle(major, swizzle, message):
    with pytest.raises(DescriptorError, match=message):
        layouts.canonical_element_offsets(major, swizzle, 16, 8, 8, 128, 256)


def test_sw128_base32b_is_legal_for_an_mn_major_operand():
    # MN-major, 32-bit elements: T = 4 elements per 16-byte unit, S = 8 units per 128-byte row,
    # so the 32 MN elements of K-row 0 are contiguous (offsets 0..31) and K-row 1 starts one
    # swizzle row (32 elements) later.
    got = layouts.canonical_element_offsets("mn", "sw128_base32b", 32, 32, 2, 0, 1024)
    assert got[:, 0].tolist() == list(range(32))
    assert got[:, 1].tolist() == list(range(32, 64))


def test_swizzle_addresses_refuses_an_unknown_mode():
    with pytest.raises(DescriptorError, match=r"swizzle = sw16 is not a swizzle mode; legal: none, "
                                              r"sw128_base32b, sw128, sw64, sw32 \[R18\]"):
        layouts.swizzle_addresses(np.arange(4), "sw16")


def test_absolute_lbo_mode_is_not_modelled():
    desc = SmemDesc(start=0, lbo=128, sbo=256, lbo_mode="absolute")
    with pytest.raises(DescriptorError, match=r"lbo_mode = absolute is not supported by the layout "
                                              r"model; legal: relative \(absolute mode is not "
                                              r"modelled\) \[R20\]"):
        layouts.operand_bit_addresses(desc, "k", 16, 8, 8)
