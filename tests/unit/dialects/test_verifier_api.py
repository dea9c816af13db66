"""Verifier checks reachable only through the Python API (issue 18): constructors and helpers
that IR text cannot reach, each with the message it must give."""

from __future__ import annotations

import numpy as np
import pytest

from mmair.dialects.tcgen05 import IdescAttr
from mmair.isa.ascend import gather, layouts, quant, targets
from mmair.isa.tcgen05 import layouts as tc_layouts
from mmair.isa.tcgen05.errors import DescriptorError


def test_idesc_attr_from_a_word_needs_its_kind() -> None:
    with pytest.raises(ValueError, match="an idesc word needs its kind"):
        IdescAttr(0x08400010)
    attr = IdescAttr(0x08400010, "f16")
    assert (attr.kind.data, attr.word.data) == ("f16", 0x08400010)
    assert (attr.desc.m, attr.desc.n) == (128, 256)  # the reference's f16 dense M=128 N=256 vector


# ------------------------------------------------------------------------------------------------
# isa checks behind the verifiers and the executor (Python API only)
# ------------------------------------------------------------------------------------------------


def test_gather_pattern_checks() -> None:
    with pytest.raises(ValueError, match=r"built-in GatherMask pattern must be in \[1, 7\], got 8"):
        gather.builtin_pattern_mask(8, 4)
    assert gather.builtin_pattern_mask(7, 4).tolist() == [True] * 4  # pattern 7 keeps everything
    with pytest.raises(ValueError, match="user pattern words must be unsigned integers, got dtype int32"):
        gather.user_pattern_bits(np.array([1], np.int32), 4)
    with pytest.raises(ValueError, match="user pattern holds 16 bits, 17 needed"):
        gather.user_pattern_bits(np.array([1], np.uint16), 17)
    assert gather.user_pattern_bits(np.array([1], np.uint16), 16).tolist() == [True] + [False] * 15
    with pytest.raises(ValueError, match="GatherMask counter method must be 1 or 2, got 3"):
        gather.repeat_counts(True, 3, "u16", 1, 8)
    counts = np.array([4])
    with pytest.raises(ValueError, match="give exactly one of a built-in pattern and user pattern"):
        gather.gather_mask_indices("u16", counts, 1, 8)
    with pytest.raises(ValueError, match="give exactly one of a built-in pattern and user pattern"):
        gather.gather_mask_indices("u16", counts, 1, 8, pattern=1,
                                   pattern_words=np.array([1], np.uint16))


def test_layout_geometry_checks() -> None:
    with pytest.raises(ValueError, match=r"shape extents must be positive, got \(0, 16\)"):
        layouts.physical_shape("nz", (0, 16), "f16", "l1")
    with pytest.raises(ValueError, match=r"nd physical array must be 1-D or 2-D, got shape \(2, 2, 2\)"):
        layouts.blocked_view(np.zeros((2, 2, 2)), "nd")
    with pytest.raises(ValueError, match=r"dn physical array must be 2-D, got shape \(4,\)"):
        layouts.blocked_view(np.zeros((4,)), "dn")
    with pytest.raises(ValueError, match=r"nz physical array must be 4-D, got shape \(16, 16\)"):
        layouts.blocked_view(np.zeros((16, 16)), "nz")
    with pytest.raises(ValueError, match=r"unknown layout 'zd', expected one of nd, dn, nz, zz, zn, nn"):
        layouts.blocked_view(np.zeros((1, 1, 16, 16)), "zd")
    geo = layouts.geometry("nz", (20, 28), "f16", "l1")
    with pytest.raises(ValueError, match=r"logical array of shape \(20, 27\) does not match \(20, 28\)"):
        geo.pack(np.zeros((20, 27), np.float16))


def test_space_and_width_checks() -> None:
    with pytest.raises(ValueError, match="unknown memory space 'gm2', expected one of gm, l1"):
        targets.c0_elements("f16", "gm2")
    for shift in (0, 17):
        with pytest.raises(ValueError, match=rf"quant shift must be in \[1, 16\], got {shift}"):
            quant.encode_quant_word(1.0, shift=shift)
    with pytest.raises(DescriptorError, match="element bits = 6 is not a storage width; legal: 4, 8, 16, 32"):
        tc_layouts.elements_per_unit(6)
    assert [tc_layouts.elements_per_unit(b) for b in (4, 8, 16, 32)] == [32, 16, 8, 4]


def test_idesc_flags_are_booleans() -> None:
    from dataclasses import replace

    from mmair.isa.tcgen05.idesc import InstrDesc, encode_idesc

    d = InstrDesc(kind="f16", m=128, n=256, atype="f16", btype="f16", dtype="f32")
    for value in (2, "yes"):
        with pytest.raises(DescriptorError, match=f"transpose_a = {value} is not a boolean; legal: true, false"):
            encode_idesc(replace(d, transpose_a=value))
    # bit 15 is transpose A (the reference's idesc table); True and 1 encode the same
    assert encode_idesc(replace(d, transpose_a=True)) == encode_idesc(d) | 1 << 15
    assert encode_idesc(replace(d, transpose_a=1)) == encode_idesc(d) | 1 << 15


def test_layout_and_pipe_checks() -> None:
    from mmair.isa.ascend import pipes

    with pytest.raises(ValueError, match="unknown layout 'xy', expected one of nd, dn, nz"):
        layouts.LayoutGeometry.from_fractal("xy", (16, 16), (16, 16))
    with pytest.raises(pipes.PipeError, match=r"target 310p has no fixpipe \(no FIX pipe\)"):
        pipes.pipe_of("fixpipe", "l0c", "gm", targets.get_target("310p"))
