"""The `#tcgen05.<descriptor><key = value, ...>` text: parsing, printing, round trips, errors."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mmair.isa.tcgen05.errors import DescriptorError
from mmair.isa.tcgen05.idesc import (
    AB_TYPE_CODES,
    ANY_M,
    BLOCK_SCALED_KINDS,
    D_TYPE_CODES,
    KINDS,
    MXF4_KINDS,
    SCALE_TYPE_CODES,
    InstrDesc,
    encode_idesc,
)
from mmair.isa.tcgen05.smem import SWIZZLES, SmemDesc
from mmair.isa.tcgen05.text import (
    format_descriptor,
    format_descriptor_body,
    parse_descriptor_body,
    parse_descriptor_text,
)
from mmair.isa.tcgen05.zcmask import ZeroColumnMask

IDESC = "#tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 256>"
SMEM = ("#tcgen05.smem_desc<start = 1024, lbo = 16, sbo = 1024, base_offset = 0, "
        "lbo_mode = relative, swizzle = sw128>")
ZCM = ("#tcgen05.zcmask<start = [0, 0, 0, 0], first = [0, 0, 0, 0], nonzero = true, skip = 2, "
       "use = 3, shift = 0>")


def test_design_doc_examples_parse_and_print_identically() -> None:
    assert parse_descriptor_text(IDESC) == InstrDesc("f16", 128, 256, "f16", "f16", "f32")
    assert parse_descriptor_text(SMEM) == SmemDesc(1024, 16, 1024, 0, "relative", "sw128")
    assert parse_descriptor_text(ZCM) == ZeroColumnMask(nonzero=True, skip=2, use=3)
    for text in (IDESC, SMEM, ZCM):
        assert format_descriptor(parse_descriptor_text(text)) == text


def test_defaults_and_key_order() -> None:
    d = parse_descriptor_text("#tcgen05.idesc<n = 64, m = 128, kind = tf32, transpose_a = true>")
    assert d == InstrDesc("tf32", 128, 64, "tf32", "tf32", "f32", transpose_a=True)
    assert format_descriptor_body(d) == (
        "kind = tf32, dtype = f32, atype = tf32, btype = tf32, m = 128, n = 64, transpose_a = true"
    )
    mx = parse_descriptor_text("#tcgen05.idesc<kind = mxf4, m = 256, n = 64, k = 96>")
    assert mx == InstrDesc("mxf4", 256, 64, "e2m1", "e2m1", scale_type="ue8m0", k=96)
    assert format_descriptor(mx).endswith("scale_type = ue8m0, k = 96>")
    assert parse_descriptor_body("smem_desc", "start = 0x400, lbo = 16, sbo = 1024") == SmemDesc(
        1024, 16, 1024
    )


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("#tcgen05.idesc<kind = f16, m = 128, n = 64>", "atype"),  # f16 has two A types
        ("#tcgen05.idesc<kind = mxf4nvf4, m = 128, n = 64>", "scale_type"),
        ("#tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128>", "n"),
        ("#tcgen05.idesc<kind = f64, m = 128, n = 64>", "kind"),
        ("#tcgen05.idesc<m = 128, n = 64>", "kind"),
        ("#tcgen05.idesc<kind = tf32, m = 128, n = 64, scale_type = ue8m0>", "key"),
        ("#tcgen05.idesc<kind = tf32, m = 128, n = 64, sparse = 1>", "sparse"),
        ("#tcgen05.idesc<kind = tf32, m = true, n = 64>", "m"),
        ("#tcgen05.idesc<kind = tf32, m = 128, m = 128, n = 64>", "m"),
        ("#tcgen05.idesc<kind = tf32 m = 128>", "attribute text"),
        ("#tcgen05.idesc<kind = tf32, m = 128,>", "attribute text"),
        ("#tcgen05.idesc<kind = tf32, m = @>", "attribute text"),
        ("#tcgen05.smem_desc<lbo = 16, sbo = 1024>", "start"),
        ("#tcgen05.smem_desc<start = [0], lbo = 16, sbo = 1024>", "start"),
        ("#tcgen05.zcmask<start = [0, 0, 0]>", "start"),
        ("#tcgen05.zcmask<first = 1>", "first"),
        ("#tcgen05.foo<a = 1>", "attribute"),
        ("tcgen05.idesc<kind = f16>", "attribute text"),
    ],
)
def test_bad_text(text: str, field: str) -> None:
    with pytest.raises(DescriptorError, match=rf"^{field} = ") as err:
        parse_descriptor_text(text)
    assert err.value.field == field
    assert "\n" not in str(err.value)


@st.composite
def encodable_idescs(draw: st.DrawFn) -> InstrDesc:
    kind = draw(st.sampled_from(KINDS))
    types = list(AB_TYPE_CODES[kind])
    fields: dict[str, object] = dict(
        kind=kind, m=draw(st.sampled_from(ANY_M[kind])), n=draw(st.integers(1, 32)) * 8,
        atype=draw(st.sampled_from(types)), btype=draw(st.sampled_from(types)),
        transpose_a=draw(st.booleans()), transpose_b=draw(st.booleans()),
        negate_a=draw(st.booleans()), negate_b=draw(st.booleans()), sparse=draw(st.booleans()),
    )
    if kind in BLOCK_SCALED_KINDS:
        fields.update(scale_type=draw(st.sampled_from(list(SCALE_TYPE_CODES[kind]))),
                      sfa_id=draw(st.integers(0, 3)), sfb_id=draw(st.integers(0, 3)))
        if kind in MXF4_KINDS:
            fields["k"] = draw(st.sampled_from([64, 96]))
    else:
        fields.update(dtype=draw(st.sampled_from(list(D_TYPE_CODES))),
                      sparsity_selector=draw(st.integers(0, 3)), saturate=draw(st.booleans()),
                      max_shift=draw(st.sampled_from([0, 8, 16, 32])))
    return InstrDesc(**fields)  # type: ignore[arg-type]


descriptors = st.one_of(
    encodable_idescs(),
    st.builds(SmemDesc, start=st.integers(0, 16383).map(lambda v: v * 16),
              lbo=st.integers(0, 16383).map(lambda v: v * 16),
              sbo=st.integers(0, 16383).map(lambda v: v * 16), base_offset=st.integers(0, 7),
              lbo_mode=st.sampled_from(["relative", "absolute"]),
              swizzle=st.sampled_from(list(SWIZZLES))),
    st.builds(ZeroColumnMask, start=st.tuples(*[st.integers(0, 255)] * 4),
              first=st.tuples(*[st.integers(0, 1)] * 4), nonzero=st.booleans(),
              skip=st.integers(0, 255), use=st.integers(0, 255), shift=st.integers(0, 63)),
)


@settings(max_examples=400, deadline=None)
@given(descriptors)
def test_text_round_trip(d: InstrDesc | SmemDesc | ZeroColumnMask) -> None:
    if isinstance(d, InstrDesc):
        encode_idesc(d)  # the strategy only builds encodable descriptors
    text = format_descriptor(d)
    assert "\n" not in text
    assert parse_descriptor_text(text) == d


def test_parse_descriptor_body_refuses_an_unknown_mnemonic() -> None:
    from mmair.isa.tcgen05.text import parse_descriptor_body

    with pytest.raises(DescriptorError, match=r"^attribute = #tcgen05\.foo is not a tcgen05 "
                                              r"descriptor attribute; legal: #tcgen05\.idesc, "):
        parse_descriptor_body("foo", "word = 0")


def test_descriptor_text_ending_where_a_value_is_due_is_a_syntax_error():
    with pytest.raises(DescriptorError, match=re.escape(
            "attribute text = 'end of text' is unexpected at offset 7; legal: an ident")):
        parse_descriptor_body("smem_desc", "start =")
