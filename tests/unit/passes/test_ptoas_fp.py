"""PTOAS's FP forms and L1 -> FB moves (passes/ptoas_fp.py, docs/ptoas.md "The fixpipe buffer (FB)
and the FP forms"): quant words loaded GM -> L1 -> FB (`tmov` mat -> scaling, pto.mte_l1_fb on
FIX) and read by the vector-quant fixpipe of `tstore ... fp`, held against numpy computed the way
pto-isa's CPU simulator quantizes (include/pto/cpu/common.hpp `quantize_element`, VQF322B8_PRE:
scale = bits 13..31 of the channel's word as (1, 8, 10), nearbyint(acc * scale + offset),
clamped to s8 by the sign bit)."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from mmair.dialects import pto
from mmair.dialects.ptoas import ptoas_context
from mmair.executor.runner import run_module
from mmair.isa.ascend import params as isa_params
from mmair.isa.ascend.quant import encode_quant_word
from mmair.isa.ascend.targets import get_target
from mmair.passes.pto_insert_sync import PtoInsertSyncPass
from mmair.passes.ptoas_to_mmair import ConversionError, convert_module
from mmair.tools.diagnostics import verify_module

KERNEL = "tests/filecheck/ptoas/fp_forms.pto"


def _converted(text: str) -> ModuleOp:
    module = Parser(ptoas_context(), text).parse_module()
    module.verify()
    convert_module(module)
    verify_module(module)
    return module


def _text() -> str:
    with open(KERNEL) as f:
        return f.read()


def _pto_isa_vqf322b8(acc: np.ndarray, words: np.ndarray) -> np.ndarray:
    """pto-isa's CPU `quantize_element` for VQF322B8_PRE, per column j with word j."""
    w = words.astype(np.uint64)
    m1 = ((w >> np.uint64(13)) & np.uint64(0x7FFFF)).astype(np.int64)
    sign = np.where((m1 >> 18) & 1, -1.0, 1.0)
    exponent, mantissa = (m1 >> 10) & 0xFF, m1 & 0x3FF
    scale = np.where((exponent == 0) & (mantissa == 0), 0.0,
                     sign * (1 + mantissa / 1024) * 2.0 ** (exponent - 127)).astype(np.float32)
    offset = ((w >> np.uint64(37)) & np.uint64(0x1FF)).astype(np.int64)
    offset = np.where(offset >= 256, offset - 512, offset)  # 9-bit two's complement
    y = (acc.astype(np.float32) * scale[None, :]).astype(np.float32)
    return np.clip(np.rint(y + offset[None, :]), -128, 127).astype(np.int8)


def test_tstore_fp_scales_each_output_channel_by_its_fb_quant_word() -> None:
    rng = np.random.default_rng(7)
    # small integers: the f32 accumulator is exact, so the comparison is bit for bit; even
    # offsets, because pto-isa adds the offset before rounding and mmair after (the same for an
    # even offset under round-half-to-even)
    a = rng.integers(-3, 4, (32, 32)).astype(np.float16)
    b = rng.integers(-3, 4, (32, 32)).astype(np.float16)
    scales = rng.uniform(0.02, 0.4, 32)
    words = np.array([[encode_quant_word(float(s), offset=2 * int(o))
                       for s, o in zip(scales, rng.integers(-4, 5, 32), strict=True)]],
                     dtype=np.uint64)
    module = _converted(_text())
    PtoInsertSyncPass().apply(None, module)  # type: ignore[arg-type]
    out = run_module(module, inputs={"a_gm": a, "b_gm": b, "q_gm": words},
                     sync_check=True).outputs["c_gm"]
    acc = a.astype(np.float64) @ b.astype(np.float64)
    expected = _pto_isa_vqf322b8(acc, words[0])
    assert np.unique(expected).size > 20  # the scales and offsets reach the result
    np.testing.assert_array_equal(out, expected)


def test_fp_forms_become_vector_quant_fixpipes_reading_the_fb_tile() -> None:
    module = _converted(_text())
    moves = [op for op in module.walk() if isinstance(op, pto.MteL1FbOp)]
    stores = [op for op in module.walk() if isinstance(op, pto.FixpipeOp)]
    assert len(moves) == 1 and moves[0].dst.type.space_name == "fb"
    assert [op.quant.data for op in stores] == ["vqf322b8_pre"] * 3
    assert all(op.vector is moves[0].dst for op in stores)
    assert [op.layout.data for op in stores] == ["nz2nd", "nz2nz", "nz2nz"]


def test_a_scaling_tile_read_past_its_end_is_refused_at_the_op() -> None:
    small = _text().replace("scaling, 1x32xui64", "scaling, 1x16xui64")
    with pytest.raises(ConversionError, match="16 quant words \\(128 bytes\\) for 32 output "
                                              "channels"):
        _converted(small)


@pytest.mark.parametrize(("target", "src", "dst", "gm", "mode"), [
    ("a2", "f32", "s8", True, "vqf322b8_pre"), ("a2", "s32", "f16", False, "vdeqf16"),
    ("a2", "s32", "s8", True, "vreq8"), ("a2", "f32", "f16", True, None),
    ("a5", "f32", "f16", False, "vqf322f16_pre"), ("a5", "f32", "hif8", True, "vqf322hif8_pre"),
    ("a5", "s32", "bf16", True, "vqs322bf16_pre"), ("a5", "f32", "f32", True, "vqf322f32_pre"),
    ("a5", "f32", "f32", False, None),
])
def test_vector_quant_mode_is_pto_isas_choice(target, src, dst, gm, mode) -> None:
    assert isa_params.vector_quant_mode(get_target(target), src, dst, gm) == mode
