"""tcgen05 shared-memory matrix descriptor: test vectors from PTX Table 40, round trips, R17-R19 in decode."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mmair.isa.tcgen05.errors import DescriptorError
from mmair.isa.tcgen05.smem import (
    SWIZZLES,
    SmemDesc,
    decode_smem_desc,
    encode_smem_desc,
    expected_base_offset,
)

# Test vectors computed from PTX Table 40; every row matches CUTLASS's SmemDescriptor.
VECTORS = [
    (SmemDesc(0x400, 16, 1024, 0, "relative", "sw128"), 0x4000404000010040),
    (SmemDesc(0, 256, 128, 0, "relative", "none"), 0x0000400800100000),  # PTX K-major tf32
    (SmemDesc(0x1000, 256, 512, 0, "relative", "sw32"), 0xC000402000100100),  # PTX MN-major SW32
    (SmemDesc(0x2000, 512, 1024, 0, "relative", "sw64"), 0x8000404000200200),  # PTX MN-major SW64
    (SmemDesc(0x3F0, 32, 1024, 3, "absolute", "sw128_base32b"), 0x201640400002003F),  # fails R20
    (SmemDesc(0x3FFF0, 0x3FFF0, 0x3FFF0, 7, "absolute", "sw32"), 0xC01E7FFF3FFF3FFF),  # fails R20
]


@pytest.mark.parametrize(("desc", "word"), VECTORS)
def test_reference_vectors(desc: SmemDesc, word: int) -> None:
    assert encode_smem_desc(desc) == word
    assert decode_smem_desc(word) == desc


def test_swizzle_codes() -> None:
    assert SWIZZLES == {"none": 0, "sw128_base32b": 1, "sw128": 2, "sw64": 4, "sw32": 6}


@pytest.mark.parametrize("code", [3, 5, 7])
def test_invalid_swizzle_codes_are_r18(code: int) -> None:
    word = (0x4000404000010040 & ~(7 << 61)) | code << 61
    with pytest.raises(DescriptorError, match=rf"^swizzle = {code} is not a valid swizzle code; .*\[R18\]$") as err:
        decode_smem_desc(word)
    assert err.value.rule == "R18"
    assert str(err.value) == (
        f"swizzle = {code} is not a valid swizzle code; legal: 0 (none), 1 (sw128_base32b), "
        "2 (sw128), 4 (sw64), 6 (sw32) [R18]"
    )


@pytest.mark.parametrize(
    "word",
    [
        0x4000404000010040 | 1 << 53,  # Triton's lutBKSegmentOffset (§12c)
        0x4000404000010040 | 1 << 60,
        0x4000404000010040 | 1 << 14,
        0x4000404000010040 | 1 << 31,
        0x4000404000010040 & ~(1 << 46),  # version bit missing
        0x4000404000010040 | 1 << 47,
    ],
)
def test_fixed_and_reserved_bits_are_r17(word: int) -> None:
    with pytest.raises(DescriptorError, match=r"\[R17\]$") as err:
        decode_smem_desc(word)
    assert err.value.rule == "R17"


@pytest.mark.parametrize(
    ("desc", "field"),
    [
        (SmemDesc(0x408, 16, 1024), "start"),  # not 16-byte aligned
        (SmemDesc(0x40000, 16, 1024), "start"),  # 2^18
        (SmemDesc(0, -16, 1024), "lbo"),
        (SmemDesc(0, 16, 1025), "sbo"),
        (SmemDesc(0, 16, 1024, base_offset=8), "base_offset"),
        (SmemDesc(0, 16, 1024, lbo_mode="abs"), "lbo_mode"),
        (SmemDesc(0, 16, 1024, swizzle="sw16"), "swizzle"),
    ],
)
def test_encode_rejects_unencodable(desc: SmemDesc, field: str) -> None:
    with pytest.raises(DescriptorError, match=rf"^{field} = ") as err:
        encode_smem_desc(desc)
    assert err.value.field == field


def test_expected_base_offset_table_41() -> None:
    assert expected_base_offset(0x400, "sw128") == 0  # on the 1024-byte boundary
    assert expected_base_offset(0x480, "sw128") == 1
    assert expected_base_offset(0x420, "sw128") == 0  # K-step inside the first 128-byte row
    assert expected_base_offset(0x300, "sw64") == 6
    assert expected_base_offset(0x100, "sw32") == 0
    assert expected_base_offset(0x180, "none") == 0


smem_descs = st.builds(
    SmemDesc,
    start=st.integers(0, (1 << 14) - 1).map(lambda v: v << 4),
    lbo=st.integers(0, (1 << 14) - 1).map(lambda v: v << 4),
    sbo=st.integers(0, (1 << 14) - 1).map(lambda v: v << 4),
    base_offset=st.integers(0, 7),
    lbo_mode=st.sampled_from(["relative", "absolute"]),
    swizzle=st.sampled_from(list(SWIZZLES)),
)


@settings(max_examples=300, deadline=None)
@given(smem_descs)
def test_round_trip_and_reserved_bits(desc: SmemDesc) -> None:
    word = encode_smem_desc(desc)
    assert word >> 46 & 7 == 1
    assert word & ((3 << 14) | (3 << 30) | (0xFF << 53)) == 0
    assert decode_smem_desc(word) == desc


@settings(max_examples=500, deadline=None)
@given(st.integers(0, (1 << 64) - 1))
def test_random_words_decode_or_raise(word: int) -> None:
    try:
        desc = decode_smem_desc(word)
    except DescriptorError as err:
        assert err.rule in ("R17", "R18")
        return
    assert encode_smem_desc(desc) == word


@settings(max_examples=200, deadline=None)
@given(st.integers(0, (1 << 64) - 1))
def test_random_words_with_fixed_bits_set(word: int) -> None:
    word = (word & ~(0b111 << 46) & ~(0xFF << 53) & ~(3 << 14) & ~(3 << 30)) | 1 << 46
    try:
        desc = decode_smem_desc(word)
    except DescriptorError as err:
        assert err.rule == "R18"
        return
    assert encode_smem_desc(desc) == word


@pytest.mark.parametrize("word", [1 << 64, -1])
def test_decode_refuses_a_non_64_bit_word(word: int) -> None:
    with pytest.raises(DescriptorError, match=r"^smem_desc = .* is not a 64-bit word; legal: "
                                              r"0x0\.\.0xffffffffffffffff$"):
        decode_smem_desc(word)
