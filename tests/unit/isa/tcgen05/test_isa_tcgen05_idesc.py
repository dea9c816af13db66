"""tcgen05 instruction descriptor: PTX-table test vectors, round trips, reserved bits, random words."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tcgen05_vectors import IDESC_VECTORS

from mmair.isa.tcgen05.errors import DescriptorError
from mmair.isa.tcgen05.idesc import (
    BLOCK_SCALED_KINDS,
    KINDS,
    RESERVED_MASK,
    InstrDesc,
    decode_idesc,
    encode_idesc,
    kinds_for_idesc,
)
from mmair.isa.tcgen05.rules import check_idesc
from mmair.isa.tcgen05.shapes import transposed_8bit_b_n, valid_m, valid_n
from mmair.isa.tcgen05.types import EIGHT_BIT_TYPES

VECTORS = IDESC_VECTORS


@pytest.mark.parametrize(("desc", "word"), VECTORS)
def test_reference_vectors_encode_and_decode(desc: InstrDesc, word: int) -> None:
    assert encode_idesc(desc) == word
    assert decode_idesc(word, desc.kind) == desc


def test_k96_vector_is_encodable_but_fails_r16() -> None:
    desc, word = VECTORS[-1]
    with pytest.raises(DescriptorError, match=r"\[R16\]$") as err:
        check_idesc(decode_idesc(word, "mxf4"), cta_group=None, ws=None, target=None)
    assert err.value.rule == "R16"
    assert kinds_for_idesc(word) == []


def test_kinds_for_idesc_lists_every_kind_that_reads_the_word() -> None:
    # 0x08400010: codes 0/0 are f16 x f16 under kind::f16 and e4m3 x e4m3 under kind::f8f6f4.
    assert kinds_for_idesc(0x08400010) == ["f16", "f8f6f4"]
    assert kinds_for_idesc(0x084000A8) == ["i8"]
    # 0x10200480: e2m1 with ue4m3 scales under kind::mxf4nvf4; e5m2 x e5m2 with an f16 D under
    # kind::f8f6f4 is not legal (the seed tables give f8f6f4 an f32 D only, R2).
    assert kinds_for_idesc(0x10200480) == ["mxf4nvf4"]


def test_mxf4_missing_k_means_64() -> None:
    assert InstrDesc("mxf4", 128, 64, "e2m1", "e2m1", scale_type="ue8m0").k == 64
    assert InstrDesc("f16", 128, 64, "f16", "f16", "f32").k is None


def test_as_dict_keys() -> None:
    dense = VECTORS[0][0].as_dict()
    assert list(dense) == ["kind", "dtype", "atype", "btype", "m", "n", "transpose_a",
                           "transpose_b", "negate_a", "negate_b", "sparse", "sparsity_selector",
                           "saturate", "max_shift"]
    block = VECTORS[10][0].as_dict()
    assert list(block) == ["kind", "atype", "btype", "m", "n", "transpose_a", "transpose_b",
                           "negate_a", "negate_b", "sparse", "scale_type", "sfa_id", "sfb_id", "k"]


@pytest.mark.parametrize(
    ("word", "kind", "field", "rule"),
    [
        (0x08400010 | 1 << 6, "f16", "reserved bits", "R1"),
        (0x08400010 | 1 << 23, "f16", "reserved bits", "R1"),
        (0x08400010 | 1 << 29, "f16", "reserved bits", "R1"),  # Triton's kSize bit (§12c)
        (0x10A00000 | 1 << 31, "mxf8f6f4", "reserved bits", "R11"),  # §12c
        (0x10200480 | 1 << 3, "mxf4nvf4", "reserved bits", "R11"),  # Triton "4xFp4" (§12c)
        (0x10200480 | 1 << 12, "mxf4", "reserved bits", "R11"),
        (0x08400010 | 3 << 4, "f16", "dtype", "R2"),  # dtype code 3
        (0x08400010 | 2 << 7, "f16", "atype", "R3"),  # tf32 code under kind::f16
        (0x08200910 & ~(7 << 7), "tf32", "atype", "R3"),
        (0x08100410 & ~(7 << 10) | 2 << 10, "f8f6f4", "btype", "R3"),  # code 2 is not an f8f6f4 type
        (0x10200480 | 2 << 10, "mxf4", "btype", "R15"),
        (0x10200480 & ~(1 << 23), "mxf4", "scale_type", "R14"),  # UE4M3 only under mxf4nvf4
        (0x10A00000 & ~(1 << 23), "mxf8f6f4", "scale_type", "R14"),
        (0x08400010 & ~(0x3F << 17), "f16", "n", "R7"),  # N = 0
        (0x08400010 | 0x3F << 17, "f16", "n", "R7"),  # N = 504
        (0x08400010 & ~(0x1F << 24) | 3 << 24, "f16", "m", "R7"),  # M = 48
        (0x10A00000 | 3 << 27, "mxf8f6f4", "m", "R12"),  # M = 384
        (0x10A00000 & ~(3 << 27), "mxf8f6f4", "m", "R12"),  # M = 0
    ],
)
def test_decode_rejects(word: int, kind: str, field: str, rule: str) -> None:
    with pytest.raises(DescriptorError, match=rf"^{field} = .*\[{rule}\]$") as err:
        decode_idesc(word, kind)
    assert (err.value.field, err.value.rule) == (field, rule)
    assert "\n" not in str(err.value) and "legal:" in str(err.value)


@pytest.mark.parametrize("word", [-1, 1 << 32, "0x10"])
def test_decode_rejects_non_words(word: object) -> None:
    with pytest.raises(DescriptorError, match="is not a 32-bit word; legal: 0x0..0xffffffff"):
        decode_idesc(word, "f16")  # type: ignore[arg-type]


def test_decode_rejects_unknown_kind() -> None:
    with pytest.raises(DescriptorError, match=r"^kind = ") as err:
        decode_idesc(0x08400010, "f64")
    assert err.value.field == "kind"


@pytest.mark.parametrize(
    ("desc", "field"),
    [
        (InstrDesc("f16", 128, 100, "f16", "f16", "f32"), "n"),
        (InstrDesc("f16", 128, 64, "e4m3", "f16", "f32"), "atype"),
        (InstrDesc("f16", 128, 64, "f16", "f16", "f64"), "dtype"),
        (InstrDesc("f16", 128, 64, "f16", "f16", "f32", max_shift=4), "max_shift"),
        (InstrDesc("f16", 128, 64, "f16", "f16", "f32", sparsity_selector=4), "sparsity_selector"),
        (InstrDesc("f16", 128, 64, "f16", "f16", "f32", scale_type="ue8m0"), "scale_type"),
        (InstrDesc("mxf8f6f4", 128, 64, "e4m3", "e4m3", "f32", scale_type="ue8m0"), "dtype"),
        (InstrDesc("mxf8f6f4", 128, 64, "e4m3", "e4m3", scale_type="ue8m0", k=64), "k"),
        (InstrDesc("mxf8f6f4", 128, 64, "e4m3", "e4m3", scale_type="ue8m0", max_shift=8),
         "max_shift"),
        (InstrDesc("mxf4", 128, 64, "e2m1", "e2m1", scale_type="ue8m0", k=128), "k"),
        (InstrDesc("mxf4", 128, 64, "e2m1", "e2m1", scale_type="ue8m0", sfa_id=4), "sfa_id"),
        (InstrDesc("mxf4", 64, 64, "e2m1", "e2m1", scale_type="ue8m0"), "m"),
    ],
)
def test_encode_rejects_unencodable_fields(desc: InstrDesc, field: str) -> None:
    with pytest.raises(DescriptorError, match=rf"^{field} = ") as err:
        encode_idesc(desc)
    assert err.value.field == field


# ---------------------------------------------------------------------------------------------
# Property tests over valid descriptors of every kind


@st.composite
def valid_idescs(draw: st.DrawFn) -> tuple[InstrDesc, dict[str, object]]:
    """A descriptor together with an MMA context in which it is legal (PTX tcgen05.mma: kinds, shapes, block scaling)."""
    kind = draw(st.sampled_from(KINDS))
    block = kind in BLOCK_SCALED_KINDS
    ws = False if block else draw(st.booleans())
    cta_group = 1 if ws else draw(st.sampled_from([1, 2]))
    sparse = draw(st.booleans())
    m = draw(st.sampled_from(valid_m(kind, cta_group, ws, sparse)))
    fields: dict[str, object] = dict(kind=kind, m=m, sparse=sparse)
    ctx: dict[str, object] = dict(cta_group=cta_group, ws=ws, target="sm_100a")
    f8 = ["e4m3", "e5m2", "e2m3", "e3m2", "e2m1"]
    if kind == "tf32":
        fields.update(atype="tf32", btype="tf32", dtype="f32")
    elif kind == "f16":
        t = draw(st.sampled_from(["f16", "bf16"]))
        fields.update(atype=t, btype=t, dtype=draw(st.sampled_from(["f32", "f16"])) if t == "f16" else "f32")
    elif kind in ("f8f6f4", "mxf8f6f4"):
        fields.update(atype=draw(st.sampled_from(f8)), btype=draw(st.sampled_from(f8)))
        if kind == "f8f6f4":
            fields["dtype"] = "f32"
    elif kind == "i8":
        fields.update(atype=draw(st.sampled_from(["u8", "s8"])),
                      btype=draw(st.sampled_from(["u8", "s8"])), dtype="s32",
                      saturate=draw(st.booleans()))
    else:
        fields.update(atype="e2m1", btype="e2m1")
    if kind not in ("mxf4", "mxf4nvf4"):
        fields.update(transpose_a=draw(st.booleans()), transpose_b=draw(st.booleans()))
    if kind != "i8":
        fields.update(negate_a=draw(st.booleans()), negate_b=draw(st.booleans()))
    ns = valid_n(kind, cta_group, ws, sparse)
    if fields.get("transpose_b") and fields["btype"] in EIGHT_BIT_TYPES:
        ns = tuple(n for n in ns if n in transposed_8bit_b_n(cta_group))
    fields["n"] = draw(st.sampled_from(ns))
    if not block:
        if sparse and kind in ("tf32", "f16"):
            fields["sparsity_selector"] = draw(st.integers(0, 3))
        if ws:
            fields["max_shift"] = draw(st.sampled_from([0, 8, 16, 32]))
    elif kind == "mxf8f6f4":
        fields.update(scale_type="ue8m0", sfa_id=draw(st.integers(0, 3)),
                      sfb_id=draw(st.integers(0, 3)))
    else:
        k96 = not sparse and cta_group == 2 and m == 256 and draw(st.booleans())
        fields["k"] = 96 if k96 else 64
        if k96:
            ctx["target"] = "sm_103a"
        scale = "ue8m0" if kind == "mxf4" else draw(st.sampled_from(["ue8m0", "ue4m3"]))
        fields["scale_type"] = scale
        ids = [0] if scale == "ue4m3" and not k96 else [0, 2]
        fields.update(sfa_id=draw(st.sampled_from(ids)), sfb_id=draw(st.sampled_from(ids)))
        if kind == "mxf4nvf4":
            ctx["scale_vec"] = "4X" if scale == "ue4m3" else draw(st.sampled_from(["2X", "block32"]))
    return InstrDesc(**fields), ctx  # type: ignore[arg-type]


@settings(max_examples=400, deadline=None)
@given(valid_idescs())
def test_valid_descriptors_round_trip(case: tuple[InstrDesc, dict[str, object]]) -> None:
    desc, ctx = case
    check_idesc(desc, **ctx)  # type: ignore[arg-type]
    word = encode_idesc(desc)
    assert 0 <= word < 1 << 32
    assert word & RESERVED_MASK[desc.kind] == 0
    assert decode_idesc(word, desc.kind) == desc
    assert desc.kind in kinds_for_idesc(word)


@settings(max_examples=500, deadline=None)
@given(st.integers(0, (1 << 32) - 1), st.sampled_from(KINDS))
def test_random_words_decode_or_raise_and_decoding_is_lossless(word: int, kind: str) -> None:
    try:
        desc = decode_idesc(word, kind)
    except DescriptorError as err:
        assert "legal:" in str(err)
        return
    # Every non-reserved bit belongs to a field, so re-encoding gives the word back.
    assert encode_idesc(desc) == word
    try:
        check_idesc(desc, cta_group=None, ws=None, target=None)
    except DescriptorError as err:
        assert err.rule is not None
