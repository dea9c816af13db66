"""Fixpipe QUANT_PRE word of mmair.isa.ascend.quant (docs/ascend.md "Quant modes"): encoding, the
decoders ignoring the reserved bits, the vector fields' types, scale validity."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mmair.isa.ascend.quant import (
    QuantWord,
    decode_quant_word,
    decode_quant_words,
    encode_quant_word,
    round_scale_to_hw,
)


def test_round_scale_to_hw() -> None:
    one_ulp = np.nextafter(np.float32(1.0), np.float32(2.0))  # 1 + 2^-23
    assert round_scale_to_hw(one_ulp) == np.float32(1.0)
    # 1 + 2^-10 is the smallest step the (1,8,10) format keeps.
    assert round_scale_to_hw(np.float32(1.0 + 2.0**-10)) == np.float32(1.0 + 2.0**-10)
    assert round_scale_to_hw(np.float32(1.0 + 2.0**-11)) == np.float32(1.0)
    assert round_scale_to_hw(np.float32(-3.0 - 2.0**-12)) == np.float32(-3.0)  # toward zero
    x = np.random.default_rng(1).standard_normal(1000).astype(np.float32)
    y = round_scale_to_hw(x)
    assert y.dtype == np.float32
    assert np.all((y.view(np.uint32) & np.uint32(0x1FFF)) == 0)
    assert np.all(np.abs(y) <= np.abs(x)) and np.all(np.abs(x - y) <= np.abs(x) * 2.0**-10)


def test_field_positions() -> None:
    # Built bit by bit from the §8.3 table.
    scale_bits = int(np.float32(0.5).view(np.uint32))
    word = scale_bits | (0b0000 << 32)
    assert decode_quant_word(word).shift == 1
    word = scale_bits | (0b1111 << 32)
    assert decode_quant_word(word).shift == 16
    word = scale_bits | (0b0011 << 32) | (1 << 36) | (0x1FF << 37) | (1 << 46)
    q = decode_quant_word(word)
    assert q.scale == 0.5 and q.shift == 4 and q.mcb and q.offset == -1 and q.signed_output
    q = decode_quant_word(scale_bits | (0x0FF << 37))
    assert q.offset == 255 and not q.mcb and not q.signed_output
    assert decode_quant_word(scale_bits | (0x100 << 37)).offset == -256
    # Reserved bits 47-63 are ignored.
    assert decode_quant_word(word | (0x1FFFF << 47)) == decode_quant_word(word)


def test_decode_rounds_scale() -> None:
    x = np.float32(1.0 + 2.0**-20)
    q = decode_quant_word(encode_quant_word(float(x)))
    assert q.scale == 1.0
    assert q.raw_scale_bits == int(x.view(np.uint32))
    assert q.scale_is_valid
    assert not decode_quant_word(encode_quant_word(float("inf"))).scale_is_valid
    assert not decode_quant_word(encode_quant_word(1e-40)).scale_is_valid


@given(
    scale=st.floats(width=32, allow_nan=False, allow_infinity=False),
    shift=st.integers(1, 16),
    mcb=st.booleans(),
    offset=st.integers(-256, 255),
    signed_output=st.booleans(),
)
def test_encode_decode_round_trip(
    scale: float, shift: int, mcb: bool, offset: int, signed_output: bool
) -> None:
    word = encode_quant_word(scale, shift, mcb, offset, signed_output)
    assert 0 <= word < 2**47
    q = decode_quant_word(word)
    assert q.scale == float(round_scale_to_hw(np.float32(scale)))
    assert (q.shift, q.mcb, q.offset, q.signed_output) == (shift, mcb, offset, signed_output)
    assert q.raw_scale_bits == int(np.float32(scale).view(np.uint32))
    v = decode_quant_words(np.array([word, word], dtype=np.uint64))
    assert np.all(v.scale == np.float32(q.scale))
    assert np.all(v.shift == shift) and np.all(v.mcb == mcb)
    assert np.all(v.offset == offset) and np.all(v.signed_output == signed_output)


def test_encode_rejects_out_of_range() -> None:
    with pytest.raises(ValueError, match=r"shift must be in \[1, 16\], got 0"):
        encode_quant_word(1.0, shift=0)
    with pytest.raises(ValueError, match=r"offset must be in \[-256, 255\], got 256"):
        encode_quant_word(1.0, offset=256)


def test_quant_word_decoders_ignore_the_reserved_bits_above_the_sign():
    # bits 47-63 are reserved: a word with all of them set decodes like the word without them
    for signed in (False, True):
        word = encode_quant_word(0.5, shift=3, offset=-7, signed_output=signed)
        junk = word | (((1 << 64) - 1) & ~((1 << 47) - 1))
        one = decode_quant_word(junk)
        assert (one.scale, one.shift, one.offset, one.signed_output) == (0.5, 3, -7, signed)
        many = decode_quant_words(np.array([junk, word], np.uint64))
        assert many.signed_output.tolist() == [signed, signed]
        assert many.offset.tolist() == [-7, -7] and many.shift.tolist() == [3, 3]


def test_quant_vector_fields_have_their_documented_types():
    words = np.array([encode_quant_word(2.0, shift=16, offset=-256),
                      encode_quant_word(1.5, shift=1, offset=255, signed_output=False)], np.uint64)
    q = decode_quant_words(words)
    assert q.offset.dtype == np.int64 and q.offset.tolist() == [-256, 255]
    assert q.shift.dtype == np.int64 and q.shift.tolist() == [16, 1]
    assert q.scale.dtype == np.float32 and q.scale.tolist() == [2.0, 1.5]


@pytest.mark.parametrize(("scale", "valid"), [
    (1.0, True), (0.0, True), (float(np.finfo(np.float32).tiny), True),
    (1e-40, False),  # an f32 denormal
    (float("inf"), False), (float("nan"), False),
])
def test_quant_scale_validity_refuses_denormals_and_non_finite_scales(scale, valid):
    word = QuantWord(scale=scale, shift=1, mcb=False, offset=0, signed_output=True)
    assert word.scale_is_valid is valid
