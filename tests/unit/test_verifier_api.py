"""Verifier checks reachable only through the Python API (issue 18): constructors and helpers
that IR text cannot reach, each with the message it must give."""

from __future__ import annotations

import pytest

from mmair.dialects.tcgen05 import IdescAttr


def test_idesc_attr_from_a_word_needs_its_kind() -> None:
    with pytest.raises(ValueError, match="an idesc word needs its kind"):
        IdescAttr(0x08400010)
    attr = IdescAttr(0x08400010, "f16")
    assert (attr.kind.data, attr.word.data) == ("f16", 0x08400010)
    assert (attr.desc.m, attr.desc.n) == (128, 256)  # the reference's f16 dense M=128 N=256 vector
