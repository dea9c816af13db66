"""GatherMask facts of mmair.isa.ascend.gather (the worked vectors of the Ascend C GatherMask page)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mmair.isa.ascend.gather import (
    builtin_pattern_mask,
    elements_per_block,
    elements_per_repeat,
    gather_mask_indices,
    max_kept,
    repeat_counts,
    src0_byte_offsets,
    src0_footprint_bytes,
    user_pattern_bits,
)


def test_elements_per_repeat() -> None:
    assert elements_per_repeat("f16") == 128
    assert elements_per_repeat("u32") == 64
    assert elements_per_repeat("s8") == 256
    assert elements_per_block("u16") == 16
    with pytest.raises(ValueError, match="GatherMask does not take 4-bit element type 's4'"):
        elements_per_repeat("s4")


@pytest.mark.parametrize(
    "pattern,keep",
    [
        (1, lambda e: e % 2 == 0),
        (2, lambda e: e % 2 == 1),
        (3, lambda e: e % 4 == 0),
        (4, lambda e: e % 4 == 1),
        (5, lambda e: e % 4 == 2),
        (6, lambda e: e % 4 == 3),
        (7, lambda e: e >= 0),
    ],
)
def test_builtin_patterns(pattern: int, keep: Callable[[np.ndarray], np.ndarray]) -> None:
    e = np.arange(128)
    np.testing.assert_array_equal(builtin_pattern_mask(pattern, 128), keep(e))


def test_builtin_pattern_range() -> None:
    for bad in (0, 8):
        with pytest.raises(ValueError, match=rf"\[1, 7\], got {bad}"):
            builtin_pattern_mask(bad, 16)


def test_user_pattern_bits() -> None:
    words = np.array([0x7E7C00A5], dtype=np.uint32)
    bits = user_pattern_bits(words, 32)
    expect = [0, 2, 5, 7, 18, 19, 20, 21, 22, 25, 26, 27, 28, 29, 30]
    np.testing.assert_array_equal(np.flatnonzero(bits), expect)
    # u16 words: word 1 supplies bits 16..31.
    np.testing.assert_array_equal(
        np.flatnonzero(user_pattern_bits(np.array([0x0001, 0x8000], dtype=np.uint16), 32)), [0, 31]
    )
    with pytest.raises(ValueError, match="33 needed"):
        user_pattern_bits(words, 33)


def test_src0_footprint_reference_example() -> None:
    # ASC check test: u16, blk 4, rpt 7, repeat 3, mask 100 -> 1224 B; 612 elements pass, 608 fail.
    fp = src0_footprint_bytes("u16", repeat_times=3, count_per_repeat=100, block_stride=4,
                              repeat_stride=7)
    assert fp == (3 - 1) * 7 * 32 + 6 * 4 * 32 + 4 * 2 == 1224
    assert 612 * 2 >= fp > 608 * 2


@given(
    elem=st.sampled_from(["u8", "f16", "f32"]),
    repeat_times=st.integers(1, 6),
    count=st.integers(1, 300),
    block_stride=st.integers(0, 5),
    repeat_stride=st.integers(0, 12),
)
def test_footprint_matches_brute_force(
    elem: str, repeat_times: int, count: int, block_stride: int, repeat_stride: int
) -> None:
    size = {"u8": 1, "f16": 2, "f32": 4}[elem]
    r, e = np.meshgrid(np.arange(repeat_times), np.arange(count), indexing="ij")
    offsets = src0_byte_offsets(elem, r, e, block_stride, repeat_stride)
    expect = int(offsets.max()) + size
    assert src0_footprint_bytes(elem, repeat_times, count, block_stride, repeat_stride) == expect


def test_repeat_counts() -> None:
    np.testing.assert_array_equal(repeat_counts(False, 1, "u16", 3, 0), [128, 128, 128])
    np.testing.assert_array_equal(repeat_counts(True, 1, "u32", 2, 70), [70, 70])
    np.testing.assert_array_equal(repeat_counts(True, 2, "u32", 2, 70), [64, 6])
    np.testing.assert_array_equal(repeat_counts(True, 2, "u32", 9, 128), [64, 64])
    assert max_kept(repeat_counts(True, 1, "u32", 2, 70)) == 140
    with pytest.raises(ValueError, match="1 or 2"):
        repeat_counts(True, 3, "u32", 1, 1)


def test_vector_1_u16_pattern2() -> None:
    src0 = np.arange(1, 129, dtype=np.uint16)
    counts = repeat_counts(False, 1, "u16", 1, 0)
    idx = gather_mask_indices("u16", counts, block_stride=1, repeat_stride=0, pattern=2)
    np.testing.assert_array_equal(src0[idx], np.arange(2, 129, 2))
    assert idx.size == 64


def test_vector_2_u32_pattern2_four_repeats() -> None:
    src0 = np.arange(1, 257, dtype=np.uint32)
    counts = repeat_counts(False, 1, "u32", 4, 0)
    idx = gather_mask_indices("u32", counts, block_stride=1, repeat_stride=8, pattern=2)
    np.testing.assert_array_equal(src0[idx], np.arange(2, 257, 2))
    assert idx.size == 128


def _vector_3_expected_repeat0() -> list[int]:
    base = [0, 2, 5, 7, *range(18, 23), *range(25, 31)]
    return [e for e in base + [b + 32 for b in base] + [b + 64 for b in base] if e < 70]


def test_vector_3_counter_method_1() -> None:
    words = np.full(8, 0x7E7C00A5, dtype=np.uint32)
    counts = repeat_counts(True, 1, "u32", 2, 70)
    idx = gather_mask_indices("u32", counts, block_stride=1, repeat_stride=4,
                              pattern_words=words, src1_repeat_stride=0)
    rep0 = _vector_3_expected_repeat0()
    np.testing.assert_array_equal(idx, rep0 + [e + 32 for e in rep0])
    assert idx.size == 66


def test_vector_3_counter_method_2() -> None:
    words = np.full(8, 0x7E7C00A5, dtype=np.uint32)
    counts = repeat_counts(True, 2, "u32", 2, 70)
    idx = gather_mask_indices("u32", counts, block_stride=1, repeat_stride=4,
                              pattern_words=words, src1_repeat_stride=0)
    rep0 = [e for e in _vector_3_expected_repeat0() if e < 64]
    assert len(rep0) == 30
    np.testing.assert_array_equal(idx, rep0 + [32, 34, 37])
    assert idx.size == 33


def test_vector_4_f32_pattern3() -> None:
    src0 = np.arange(64, dtype=np.float32)
    idx = gather_mask_indices("f32", repeat_counts(False, 1, "f32", 1, 0), 1, 8, pattern=3)
    np.testing.assert_array_equal(src0[idx], np.arange(0, 64, 4))


def test_user_pattern_repeat_stride_and_coverage() -> None:
    # src1RepeatStride = 1 block: repeat r reads the pattern bits at byte 32*r.
    words = np.zeros(16, dtype=np.uint16)
    words[0] = 0x0001  # repeat 0 keeps element 0; 16 words = 32 bytes = one block
    words2 = np.concatenate([words, np.array([0x0002] + [0] * 15, dtype=np.uint16)])
    counts = repeat_counts(False, 1, "f16", 2, 0)
    idx = gather_mask_indices("f16", counts, 1, 8, pattern_words=words2, src1_repeat_stride=1)
    np.testing.assert_array_equal(idx, [0, 128 + 1])
    with pytest.raises(ValueError, match="does not cover"):
        gather_mask_indices("f16", counts, 1, 8, pattern_words=words, src1_repeat_stride=1)
    with pytest.raises(ValueError, match="exactly one"):
        gather_mask_indices("f16", counts, 1, 8)
