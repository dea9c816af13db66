"""VPTO FIXPIPE stores with a scalar pre-quant mode (`<mode>_scalar`): mmair's scalar quant with
the QUANT_PRE word PTOAS's wrapper expansion writes, run and held against numpy."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.parser import Parser

from mmair.dialects import pto
from mmair.dialects.ptoas import ptoas_context
from mmair.executor.runner import run_module
from mmair.passes.ptoas_to_mmair import ConversionError, convert_module
from mmair.tools.diagnostics import verify_module

KERNEL = "tests/filecheck/ptoas/vpto/pre_quant_scalar.pto"


def _module(text: str):
    module = Parser(ptoas_context(), text).parse_module()
    module.verify()
    convert_module(module)
    verify_module(module)
    return module


def _kernel() -> str:
    with open(KERNEL) as f:
        return f.read()


def _word(op: pto.FixpipeCopyOp) -> int:
    return op.scalar.owner.value.value.data


def test_a_float_payload_becomes_its_f32_bits_as_the_quant_word() -> None:
    stores = [op for op in _module(_kernel()).walk() if isinstance(op, pto.FixpipeCopyOp)]
    assert [op.quant.data for op in stores] == ["qf322f16_pre", "qf322b8_pre"]
    # 0.375 (f32) and 4.0 (f16, widened): the scale M1 in bits 0-31, nothing above
    assert [_word(op) for op in stores] == [0x3EC00000, 0x40800000]


def test_scalar_pre_quant_scales_and_converts_like_numpy() -> None:
    rng = np.random.default_rng(17)
    a = rng.uniform(-4, 4, (16, 16)).astype(np.float16)
    b = rng.uniform(-4, 4, (16, 32)).astype(np.float16)
    b[:, :4] = 1000  # row 0, columns 0-3 pass the f16 range after scaling: f16 saturates
    a[0, :] = 40
    out = run_module(_module(_kernel()), inputs={"a": a.ravel(), "b": b.ravel()},
                     sync_check=True).outputs
    acc = a.astype(np.float32) @ b.astype(np.float32)
    f16 = np.clip(acc * np.float32(0.375), -65504, 65504).astype(np.float16)
    np.testing.assert_allclose(out["c16"].reshape(16, 32).astype(np.float32),
                               f16.astype(np.float32), rtol=2e-3, atol=1e-3)
    assert np.all(np.isfinite(out["c16"])) and np.any(np.abs(out["c16"]) == 65504)
    u8 = np.clip(np.clip(np.rint(acc * np.float32(4.0)), -256, 255), 0, 255).astype(np.uint8)
    np.testing.assert_array_equal(out["c8"].reshape(16, 32), u8)


def test_a_run_time_payload_is_refused_at_the_op() -> None:
    text = _kernel().replace("pre_quant(%scale16,", "pre_quant(%q,").replace(
        "%c8: !pto.ptr<ui8, gm>)", "%c8: !pto.ptr<ui8, gm>, %q: f32)")
    with pytest.raises(ConversionError, match="requires a constant .arith.constant. pre_quant "
                                              "payload for qf322f16_pre_scalar"):
        _module(text)


TILE_KERNEL = "tests/filecheck/ptoas/pre_quant_scalar.pto"


def _tile_module():
    from mmair.passes.pto_insert_sync import PtoInsertSyncPass

    with open(TILE_KERNEL) as f:
        module = _module(f.read())
    PtoInsertSyncPass().apply(None, module)  # type: ignore[arg-type]
    return module


def test_tile_pre_quant_scalar_forms_become_scalar_quant_fixpipes() -> None:
    fixpipes = [op for op in _tile_module().walk() if isinstance(op, pto.FixpipeOp)]
    assert [op.quant.data for op in fixpipes] == ["qf322f16_pre"] + ["qf322b8_pre"] * 3
    assert all(op.scalar is not None for op in fixpipes)


def test_tile_pre_quant_scalar_tstore_scales_by_the_word() -> None:
    rng = np.random.default_rng(23)
    a = rng.uniform(-2, 2, (32, 32)).astype(np.float16)
    b = rng.uniform(-2, 2, (32, 32)).astype(np.float16)
    out = run_module(_tile_module(), inputs={"a_gm": a, "b_gm": b},
                     sync_check=True).outputs
    acc = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(out["h_gm"].reshape(32, 32).astype(np.float32),
                               (acc * np.float32(0.5)).astype(np.float16).astype(np.float32),
                               rtol=2e-3, atol=1e-3)
    s8 = np.clip(np.clip(np.rint(acc * np.float32(0.25)), -256, 255), -128, 127).astype(np.int8)
    np.testing.assert_array_equal(out["c_gm"].reshape(32, 32), s8)


@pytest.mark.parametrize(("target", "src", "dst", "gm", "mode"), [
    ("a2", "f32", "s8", True, "qf322b8_pre"), ("a2", "s32", "f16", False, "deqf16"),
    ("a2", "f32", "f16", True, None), ("a5", "f32", "f16", False, "qf322f16_pre"),
    ("a5", "f32", "hif8", False, "qf322hif8_pre"), ("a5", "f32", "e4m3", False, None),
    ("a5", "f32", "e4m3", True, "qf322fp8_pre"), ("a5", "f32", "f32", True, "qf322f32_pre"),
    ("a5", "f32", "f32", False, None), ("a5", "s32", "bf16", True, "qs322bf16_pre"),
])
def test_scalar_quant_mode_is_pto_isas_choice(target, src, dst, gm, mode) -> None:
    from mmair.isa.ascend import params as isa_params
    from mmair.isa.ascend.targets import get_target

    assert isa_params.scalar_quant_mode(get_target(target), src, dst, gm) == mode
