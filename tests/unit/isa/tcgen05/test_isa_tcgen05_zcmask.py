"""tcgen05 zero-column mask descriptor: the four PTX examples bit for bit, round trips, R24."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mmair.isa.tcgen05.errors import DescriptorError
from mmair.isa.tcgen05.zcmask import (
    ZeroColumnMask,
    bit_string,
    decode_zcmask,
    encode_zcmask,
    zcmask_bits,
    zcmask_columns,
    zcmask_submasks,
)


def reference_submask(first: int, start: int, skip: int, use: int, width: int) -> int:
    """The PTX zero-column mask descriptor written out run by run: 1-runs of skip+1, 0-runs of use+1, drop `start` bits."""
    bits: list[int] = []  # LSB first
    value = first
    while len(bits) < start + width:
        bits += [value] * (skip + 1 if value else use + 1)
        value ^= 1
    kept = bits[start:start + width]
    return sum(bit << i for i, bit in enumerate(kept))


EX1 = ZeroColumnMask((0, 0, 0, 0), (0, 0, 0, 0), False, 4, 3, 0)
EX2 = ZeroColumnMask((0, 0, 0, 0), (0, 0, 0, 0), True, 2, 3, 0)
EX3 = ZeroColumnMask((0, 0, 0, 0), (1, 0, 0, 0), True, 2, 3, 0)
EX4 = ZeroColumnMask((0, 1, 2, 1), (1, 1, 0, 0), True, 2, 3, 2)  # sc/fs listed {3, 2, 1, 0}


@pytest.mark.parametrize(
    ("z", "word"),
    [(EX1, 0x0003040000000000), (EX2, 0x0003028000000000), (EX3, 0x0003028100000000),
     (EX4, 0x0203028301020100)],
)
def test_ptx_example_descriptors(z: ZeroColumnMask, word: int) -> None:
    assert encode_zcmask(z) == word
    assert decode_zcmask(word) == z


def test_example_1_nonzero_off_gives_zero_mask() -> None:
    assert zcmask_submasks(EX1, 128, 128) == [0]
    assert zcmask_bits(EX1, 128, 128) == 0


def test_example_2_m128() -> None:
    assert zcmask_bits(EX2, 128, 16) == 0b0011100001110000
    assert zcmask_bits(EX2, 128, 128) == 0x3870E1C3870E1C3870E1C3870E1C3870
    # PTX: "0b ... 111 0000 111 0000"
    assert bit_string(zcmask_bits(EX2, 128, 128), 128).endswith("1110000" "1110000")


def test_example_3_m64() -> None:
    assert zcmask_submasks(EX3, 64, 64) == [0x70E1C387, 0x0E1C3870]
    mask0, mask1 = (bit_string(s, 32) for s in zcmask_submasks(EX3, 64, 64))
    assert mask0.endswith("111" "0000" "111" "0000" "111")
    assert mask1.endswith("0000" "111" "0000" "111" "0000")
    assert zcmask_bits(EX3, 64, 64) == 0x0E1C3870 << 32 | 0x70E1C387


def test_example_4_m32() -> None:
    masks = [bit_string(s, 16) for s in zcmask_submasks(EX4, 32, 64)]
    assert masks == ["1100001110000111", "1110000111000011", "0000111000011100",
                     "0001110000111000"]
    # PTX's partial patterns, MSB ... LSB.
    assert masks[0].endswith("0000" "111" "0000" "111")
    assert masks[1].endswith("0000" "111" "0000" "11")
    assert masks[2].endswith("111" "0000" "111" "00")
    assert masks[3].endswith("111" "0000" "111" "000")
    full = zcmask_bits(EX4, 32, 64)
    assert [full >> (16 * i) & 0xFFFF for i in range(4)] == [int(m, 2) for m in masks]


def test_columns_view_matches_bits() -> None:
    cols = zcmask_columns(EX4, 32, 64)
    full = zcmask_bits(EX4, 32, 64)
    assert cols.shape == (64,)
    assert [bool(full >> j & 1) for j in range(64)] == cols.tolist()


@pytest.mark.parametrize(("m", "n", "rule"), [(96, 64, "R23"), (32, 36, "R7"), (64, 0, "R7"),
                                              (128, 264, "R7")])
def test_bad_geometry(m: int, n: int, rule: str) -> None:
    with pytest.raises(DescriptorError, match=rf"\[{rule}\]$") as err:
        zcmask_bits(EX2, m, n)
    assert err.value.rule == rule


@pytest.mark.parametrize("bit", [36, 37, 38, 62, 63])
def test_reserved_bits_are_r24(bit: int) -> None:
    with pytest.raises(DescriptorError, match=r"\[R24\]$") as err:
        decode_zcmask(0x0003028000000000 | 1 << bit)
    assert err.value.rule == "R24"


@pytest.mark.parametrize(
    ("z", "message"),
    [
        (ZeroColumnMask((256, 0, 0, 0)), r"start\[0\] = 256 does not fit its field; legal: 0..255"),
        (ZeroColumnMask(first=(2, 0, 0, 0)), r"first\[0\] = 2 does not fit its field; legal: 0..1"),
        (ZeroColumnMask(skip=256), "skip = 256 does not fit its field; legal: 0..255"),
        (ZeroColumnMask(shift=64), "shift = 64 does not fit its field; legal: 0..63"),
        (ZeroColumnMask(start=(0, 0, 0)), r"start = \[0, 0, 0\] is not 4 values"),  # type: ignore[arg-type]
    ],
)
def test_encode_rejects_unencodable(z: ZeroColumnMask, message: str) -> None:
    with pytest.raises(DescriptorError, match=message):
        encode_zcmask(z)


zcmasks = st.builds(
    ZeroColumnMask,
    start=st.tuples(*[st.integers(0, 255)] * 4),
    first=st.tuples(*[st.integers(0, 1)] * 4),
    nonzero=st.booleans(),
    skip=st.integers(0, 255),
    use=st.integers(0, 255),
    shift=st.integers(0, 63),
)


@settings(max_examples=300, deadline=None)
@given(zcmasks, st.sampled_from([(128, 1), (64, 2), (32, 4)]), st.sampled_from([64, 128, 256]))
def test_masks_match_the_run_by_run_reference(
    z: ZeroColumnMask, m_count: tuple[int, int], n: int
) -> None:
    m, count = m_count
    width = n // count
    expected = [
        reference_submask(z.first[i], z.start[i], z.skip, z.use, width) if z.nonzero else 0
        for i in range(count)
    ]
    assert zcmask_submasks(z, m, n) == expected
    assert zcmask_bits(z, m, n) == sum(mask << (i * width) for i, mask in enumerate(expected))


@settings(max_examples=300, deadline=None)
@given(zcmasks)
def test_round_trip_and_reserved_bits(z: ZeroColumnMask) -> None:
    word = encode_zcmask(z)
    assert word & ((0b111 << 36) | (0b11 << 62)) == 0
    assert decode_zcmask(word) == z


@settings(max_examples=500, deadline=None)
@given(st.integers(0, (1 << 64) - 1))
def test_random_words_decode_or_raise(word: int) -> None:
    try:
        z = decode_zcmask(word)
    except DescriptorError as err:
        assert err.rule == "R24"
        return
    assert encode_zcmask(z) == word


def test_encode_refuses_a_non_boolean_nonzero_flag() -> None:
    z = ZeroColumnMask((0, 0, 0, 0), (0, 0, 0, 0), 2, 2, 3, 16)  # type: ignore[arg-type]
    with pytest.raises(DescriptorError, match=r"^nonzero = 2 is not a boolean; legal: true, false$"):
        encode_zcmask(z)


def test_decode_refuses_a_non_64_bit_word() -> None:
    with pytest.raises(DescriptorError, match=r"^zcmask = 0x10000000000000000 is not a 64-bit word; "):
        decode_zcmask(1 << 64)


def test_ld_st_and_cp_tables_refuse_unknown_values() -> None:
    from mmair.isa.tcgen05 import tmem_moves

    with pytest.raises(DescriptorError, match=r"^num = 3 is not a tcgen05\.ld/st repetition count; "
                                              r"legal: x1, x2, x4, .*\[R33\]$"):
        tmem_moves.ld_st_registers("32x32b", 3)
    with pytest.raises(DescriptorError, match=r"^warp = 4 is not a warp of a warpgroup; legal: 0\.\.3 "):
        tmem_moves.check_lane_quarter("32x32b", 128, 4)
    with pytest.raises(DescriptorError, match=r"^shape = 8x8b is not a tcgen05\.cp shape; legal: "):
        tmem_moves.check_cp("8x8b", None, None)
