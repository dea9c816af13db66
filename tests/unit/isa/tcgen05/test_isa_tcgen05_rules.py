"""tcgen05 validity rules R1-R32 of R1-R33 (docs/tcgen05-rules.md): one passing and at least one
failing case each; R33 (tcgen05.ld/st) is in test_isa_tcgen05_shapes.py."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from mmair.isa.tcgen05 import rules
from mmair.isa.tcgen05.errors import DescriptorError
from mmair.isa.tcgen05.idesc import InstrDesc, decode_idesc
from mmair.isa.tcgen05.rules import (
    check_ashift,
    check_block_scale,
    check_cta_groups,
    check_disable_output_lane,
    check_idesc,
    check_kind_target,
    check_mma,
    check_scale_input_d,
    check_smem_desc,
    check_ws,
    check_zcmask,
    mma_shape,
    validate_idesc_word,
)
from mmair.isa.tcgen05.smem import SmemDesc, decode_smem_desc
from mmair.isa.tcgen05.zcmask import ZeroColumnMask, decode_zcmask

F16 = InstrDesc("f16", 128, 256, "f16", "f16", "f32")
I8 = InstrDesc("i8", 128, 256, "s8", "u8", "s32")
F8 = InstrDesc("f8f6f4", 128, 64, "e4m3", "e5m2", "f32")
TF32 = InstrDesc("tf32", 128, 128, "tf32", "tf32", "f32")
WS = InstrDesc("f16", 32, 64, "f16", "f16", "f32", max_shift=32)
MXF8 = InstrDesc("mxf8f6f4", 128, 256, "e2m1", "e4m3", scale_type="ue8m0", sfa_id=1, sfb_id=2)
MXF4 = InstrDesc("mxf4", 128, 64, "e2m1", "e2m1", scale_type="ue8m0", sfa_id=2, sfb_id=2)
NVF4 = InstrDesc("mxf4nvf4", 256, 128, "e2m1", "e2m1", scale_type="ue4m3")
K96 = InstrDesc("mxf4", 256, 64, "e2m1", "e2m1", scale_type="ue8m0", k=96)
SMEM = SmemDesc(0x400, 16, 1024, 0, "relative", "sw128")
ZCM = ZeroColumnMask((0, 0, 0, 0), (0, 0, 0, 0), True, 2, 3, 16)

Check = Callable[[], object]

PASSING: dict[str, list[Check]] = {
    "R1": [lambda: decode_idesc(0x08400010, "f16")],
    "R2": [lambda: check_idesc(replace(F16, dtype="f16")), lambda: check_idesc(F8)],
    "R3": [lambda: check_idesc(replace(F16, atype="bf16", btype="bf16")),
           lambda: check_idesc(replace(F8, atype="e2m1", btype="e3m2"))],
    "R4": [lambda: check_idesc(replace(I8, saturate=True))],
    "R5": [lambda: check_idesc(I8)],
    "R6": [lambda: check_idesc(replace(F16, sparse=True, sparsity_selector=2))],
    "R7": [lambda: check_idesc(replace(F16, m=64, n=8)),
           lambda: check_idesc(replace(I8, n=24)),  # PTX, not CUTLASS (§5)
           lambda: check_idesc(replace(F16, m=256), cta_group=2)],
    "R8": [lambda: check_idesc(replace(F8, transpose_b=True, n=64)),
           lambda: check_idesc(replace(F8, btype="e2m1", transpose_b=True, n=72))],
    "R9": [lambda: check_idesc(replace(F16, transpose_b=True), a_in_tmem=True)],
    "R10": [lambda: check_idesc(WS, ws=True)],
    "R11": [lambda: decode_idesc(0x28C002A0, "mxf8f6f4")],
    "R12": [lambda: check_idesc(replace(MXF8, m=256), cta_group=2)],
    "R13": [lambda: check_idesc(MXF4),
            lambda: check_idesc(replace(K96, scale_type="ue8m0", sfa_id=2), cta_group=2,
                                target="sm_103a")],
    "R14": [lambda: check_idesc(NVF4, cta_group=2, scale_vec="4X"),
            lambda: check_idesc(replace(NVF4, scale_type="ue8m0"), cta_group=2, scale_vec="2X")],
    "R15": [lambda: check_idesc(replace(MXF4, negate_a=True))],
    "R16": [lambda: check_idesc(K96, cta_group=2, target="sm_103a")],
    "R17": [lambda: decode_smem_desc(0x4000404000010040)],
    "R18": [lambda: check_smem_desc(replace(SMEM, swizzle="sw64"))],
    "R19": [lambda: check_smem_desc(SmemDesc(0x3FFF0, 0x3FFF0, 0x3FFF0, 7, "relative", "sw128"))],
    "R20": [lambda: check_smem_desc(replace(SMEM, lbo_mode="absolute"), major="k",
                                    target="sm_103a")],
    # R21 needs the buffer start (where the swizzle pattern starts); unknown -> not judged.
    "R21": [lambda: check_smem_desc(replace(SMEM, start=0x480, base_offset=1), pattern_start=0x480),
            lambda: check_smem_desc(replace(SMEM, start=0x480, base_offset=0), pattern_start=0x400),
            lambda: check_smem_desc(replace(SMEM, start=0x480, base_offset=3))],
    "R22": [lambda: check_smem_desc(replace(SMEM, swizzle="sw128_base32b"), kind="tf32", major="mn"),
            lambda: check_smem_desc(SMEM, kind="f16", major="mn")],
    "R23": [lambda: check_zcmask(ZCM, m=64, ws=True)],
    "R24": [lambda: decode_zcmask(0x0203028301020100)],
    "R25": [lambda: check_zcmask(ZCM, m=32), lambda: check_zcmask(replace(ZCM, shift=32), m=128)],
    "R26": [lambda: check_disable_output_lane(4, cta_group=1),
            lambda: check_disable_output_lane(8, cta_group=2)],
    "R27": [lambda: check_scale_input_d(15, kind="f16"), lambda: check_scale_input_d(0, kind="tf32")],
    "R28": [lambda: check_ashift(True, a_in_tmem=True, m=128, collector_a="a::lastuse")],
    "R29": [lambda: check_ws(ws=True, cta_group=1, kind="f16", collector="b3::fill"),
            lambda: check_ws(ws=False, cta_group=2, kind="mxf4", collector="a::use")],
    "R30": [lambda: check_block_scale("mxf4", None), lambda: check_block_scale("mxf4nvf4", "block16"),
            lambda: check_block_scale("mxf8f6f4", "1X")],
    "R31": [lambda: check_cta_groups([2, 2, 2])],
    "R32": [lambda: check_kind_target("i8", "sm_100a"), lambda: check_kind_target("f16", "sm_100f")],
}

FAILING: dict[str, list[Check]] = {
    "R1": [lambda: decode_idesc(0x08400010 | 1 << 6, "f16")],
    "R2": [lambda: check_idesc(replace(F8, dtype="s32")),
           lambda: check_idesc(replace(I8, dtype="f32"))],
    "R3": [lambda: check_idesc(replace(F16, btype="bf16")),
           lambda: check_idesc(replace(F16, atype="bf16", btype="bf16", dtype="f16"))],
    "R4": [lambda: check_idesc(replace(F16, saturate=True))],
    "R5": [lambda: check_idesc(replace(I8, negate_a=True))],  # §11 negative example
    "R6": [lambda: check_idesc(replace(F16, sparsity_selector=1)),
           lambda: check_idesc(replace(F8, sparse=True, sparsity_selector=1))],
    "R7": [lambda: check_idesc(replace(F16, m=256)),
           lambda: check_idesc(replace(I8, n=40)),
           lambda: check_idesc(replace(WS, n=72), ws=True),
           lambda: check_idesc(replace(F16, n=8), cta_group=2)],
    "R8": [lambda: check_idesc(replace(F8, transpose_b=True, n=72)),
           lambda: check_idesc(replace(F8, m=256, transpose_b=True, n=48), cta_group=2)],
    "R9": [lambda: check_idesc(replace(F16, transpose_a=True), a_in_tmem=True)],
    "R10": [lambda: check_idesc(replace(F16, max_shift=8))],
    "R11": [lambda: decode_idesc(0x28C002A0 | 1 << 31, "mxf8f6f4"),
            lambda: check_idesc(replace(MXF8, saturate=True))],
    "R12": [lambda: check_idesc(replace(MXF8, m=256)),
            lambda: check_idesc(replace(MXF4, sparse=True), cta_group=2)],
    "R13": [lambda: check_idesc(replace(MXF4, sfa_id=1)),
            lambda: check_idesc(replace(NVF4, sfb_id=2), cta_group=2)],
    "R14": [lambda: check_idesc(NVF4, cta_group=2, scale_vec="2X")],
    "R15": [lambda: check_idesc(replace(MXF4, transpose_a=True))],  # §11 negative example
    "R16": [lambda: check_idesc(K96, cta_group=2, target="sm_100a"),
            lambda: check_idesc(replace(K96, m=128), cta_group=None, target=None)],
    "R17": [lambda: decode_smem_desc(0x4000404000010040 | 1 << 53)],  # §11 negative example
    "R18": [lambda: decode_smem_desc(0x6000404000010040),  # §11 negative example (swizzle 3)
            lambda: check_smem_desc(replace(SMEM, swizzle="sw16"))],
    "R19": [lambda: check_smem_desc(replace(SMEM, sbo=1032))],
    "R20": [lambda: check_smem_desc(decode_smem_desc(0x201640400002003F)),  # §11 negatives
            lambda: check_smem_desc(decode_smem_desc(0xC01E7FFF3FFF3FFF)),
            lambda: check_smem_desc(replace(SMEM, lbo_mode="absolute"), major="mn"),
            lambda: check_smem_desc(replace(SMEM, lbo_mode="absolute"), target="sm_100a")],
    "R21": [lambda: check_smem_desc(replace(SMEM, start=0x480), pattern_start=0x480),
            lambda: check_smem_desc(replace(SMEM, start=0x4C0, base_offset=0), pattern_start=0x480),
            lambda: check_smem_desc(replace(SMEM, swizzle="none", base_offset=2), pattern_start=0)],
    "R22": [lambda: check_smem_desc(replace(SMEM, swizzle="sw128_base32b"), major="k"),  # §12d
            lambda: check_smem_desc(replace(SMEM, swizzle="sw128_base32b"), kind="f16"),
            lambda: check_smem_desc(SMEM, kind="tf32", major="mn")],
    "R23": [lambda: check_zcmask(ZCM, m=64, ws=False),
            lambda: check_zcmask(ZCM, m=64, cta_group=2),
            lambda: check_zcmask(ZCM, m=256)],
    "R24": [lambda: decode_zcmask(0x0203028301020100 | 1 << 62)],
    "R25": [lambda: check_zcmask(replace(ZCM, shift=17), m=32),  # §11 negative example
            lambda: check_zcmask(replace(ZCM, shift=33), m=128)],
    "R26": [lambda: check_disable_output_lane(8, cta_group=1),
            lambda: check_disable_output_lane(4, cta_group=1, ws=True)],
    "R27": [lambda: check_scale_input_d(16, kind="f16"),
            lambda: check_scale_input_d(1, kind="f8f6f4"),
            lambda: check_scale_input_d(3, kind="i8")],  # ptxas accepts it, PTX does not
    "R28": [lambda: check_ashift(True, a_in_tmem=False, m=128),
            lambda: check_ashift(True, a_in_tmem=True, m=64),
            lambda: check_ashift(True, a_in_tmem=True, m=128, collector_a="a::fill")],
    "R29": [lambda: check_ws(ws=True, cta_group=2, kind="f16"),
            lambda: check_ws(ws=True, cta_group=1, kind="mxf4"),
            lambda: check_ws(ws=True, cta_group=1, kind="f16", collector="a::fill"),
            lambda: check_ws(ws=False, cta_group=1, kind="f16", collector="b0::use"),
            lambda: check_ws(ws=True, cta_group=1, kind="f16", scale_input_d=1),
            lambda: check_idesc(WS, ws=True, cta_group=2),
            lambda: check_idesc(MXF8, ws=True)],
    "R30": [lambda: check_block_scale("mxf4nvf4", None),
            lambda: check_block_scale("mxf4", "block16"),
            lambda: check_block_scale("mxf8f6f4", "2X"),
            lambda: check_block_scale("f16", "1X"),
            lambda: check_block_scale("mxf4", None, block_scale=False)],
    "R31": [lambda: check_cta_groups([1, 2, 1])],
    "R32": [lambda: check_kind_target("i8", "sm_100f"),
            lambda: check_idesc(I8, target="sm_103f")],
}


@pytest.mark.parametrize(
    "check", [pytest.param(c, id=f"{rule}-{i}") for rule, cs in PASSING.items() for i, c in enumerate(cs)]
)
def test_rule_passes(check: Check) -> None:
    check()


@pytest.mark.parametrize(
    ("rule", "check"),
    [pytest.param(rule, c, id=f"{rule}-{i}") for rule, cs in FAILING.items() for i, c in enumerate(cs)],
)
def test_rule_fails_with_its_id(rule: str, check: Check) -> None:
    with pytest.raises(DescriptorError, match=rf"\[{rule}\]$") as err:
        check()
    assert err.value.rule == rule, str(err.value)
    text = str(err.value)
    assert "\n" not in text and "legal:" in text and text.endswith(f"[{rule}]")


def test_every_rule_up_to_r32_has_cases() -> None:
    rules = {f"R{i}" for i in range(1, 33)}
    assert set(PASSING) == rules and set(FAILING) == rules


def test_unknown_context_accepts_some_context() -> None:
    check_idesc(WS, cta_group=None, ws=None, target=None)  # .ws, cta_group::1
    check_idesc(replace(F16, m=256), cta_group=None, ws=None, target=None)  # cta_group::2
    with pytest.raises(DescriptorError, match=r"\[R7\]$") as err:
        check_idesc(replace(F16, m=32))  # M = 32 needs .ws
    assert err.value.rule == "R7"


def test_error_message_names_field_value_and_legal_set() -> None:
    with pytest.raises(DescriptorError, match=r"^n = 40 is not a valid N; legal: 8, 16, 24, 32, 48\.\.256 step 16") as err:
        check_idesc(replace(I8, n=40))
    assert str(err.value) == (
        "n = 40 is not a valid N; legal: 8, 16, 24, 32, 48..256 step 16 "
        "(kind::i8 cta_group::1) [R7]"
    )
    assert (err.value.field, err.value.value, err.value.rule) == ("n", 40, "R7")


def test_validate_idesc_word_and_mma_shape() -> None:
    d = validate_idesc_word(0x08200496, "f16")
    assert mma_shape(d) == (128, 128, 32)  # sparse f16 doubles K
    assert mma_shape(K96) == (256, 64, 96)
    with pytest.raises(DescriptorError, match=r"max_shift = 32 is not legal without .ws.*\[R10\]"):
        validate_idesc_word(0xC2100010, "f16")  # max shift without .ws
    assert validate_idesc_word(0xC2100010, "f16", ws=True) == WS


def test_check_mma_combines_instruction_rules() -> None:
    check_mma(WS, ws=True, collector="b0::lastuse", zcmask=ZCM)
    check_mma(replace(F16, m=256), cta_group=2, disable_output_lane=8, scale_input_d=3)
    check_mma(NVF4, cta_group=2, scale_vec="block16")
    with pytest.raises(DescriptorError, match=r"\[R30\]$") as err:
        check_mma(NVF4, cta_group=2)  # mxf4nvf4 needs an explicit vector size
    assert err.value.rule == "R30"
    with pytest.raises(DescriptorError, match=r"\[R23\]$") as err:
        check_mma(F16, zcmask=ZCM)
    assert err.value.rule == "R23"


def test_unknown_target_is_rejected() -> None:
    with pytest.raises(DescriptorError, match=r"^target = ") as err:
        check_idesc(F16, target="sm_90a")
    assert err.value.field == "target"


# Each entry point checks its own inputs before (or besides) the rules it delegates, so a bad
# value is reported as itself even when another field is also wrong.
@pytest.mark.parametrize(("check", "pattern"), [
    # check_idesc: the target first, before the descriptor's own fields (i8: n = 40 is not an N)
    (lambda: check_idesc(replace(I8, n=40), target="sm_90a"), r"^target = sm_90a "),
    # block-scaled fields: the scale vector size of the kind (mxf8f6f4 is 1X)
    (lambda: check_idesc(MXF8, scale_vec="2X"), r"\[R30\]$"),
    # check_smem_desc: kind and target before the swizzle (sw16 is not a mode)
    (lambda: check_smem_desc(replace(SMEM, swizzle="sw16"), kind="f32"), r"^kind = f32 "),
    (lambda: check_smem_desc(replace(SMEM, swizzle="sw16"), target="sm_90a"), r"^target = sm_90a "),
    # check_ws delegates the output-lane mask (R26: 4 bits with .ws)
    (lambda: check_ws(ws=True, cta_group=1, kind="f16", disable_output_lane=16), r"\[R26\]$"),
    (lambda: check_block_scale("f32", "1X"), r"^kind = f32 "),
    (lambda: check_kind_target("f16", "sm_90a"), r"^target = sm_90a "),
    # check_mma delegates the descriptor (R7), .ashift (R28) and the zero-column mask (R25)
    (lambda: check_mma(replace(I8, n=40)), r"\[R7\]$"),
    (lambda: check_mma(replace(F16, m=64), a_in_tmem=True, ashift=True),
     r"^ashift = true is not legal with M = 64; .*\[R28\]$"),
    (lambda: check_mma(WS, ws=True, zcmask=replace(ZCM, shift=17)), r"\[R25\]$"),
])
def test_entry_points_check_what_they_delegate(check: Check, pattern: str) -> None:
    with pytest.raises(DescriptorError, match=pattern):
        check()


def test_shift_target_must_first_be_a_tcgen05_target():
    # sm_90a is arch-specific but has no tcgen05: the target check comes first.
    with pytest.raises(DescriptorError, match="target = sm_90a does not support tcgen05; legal: "
                                              "sm_100a, sm_100f, "):
        rules.check_shift_target("sm_90a")
    with pytest.raises(DescriptorError, match=r"target = sm_100f does not support tcgen05.shift; "
                                              r"legal: an arch-specific target"):
        rules.check_shift_target("sm_100f")
    rules.check_shift_target("sm_103a")
    rules.check_shift_target("sm_101a")  # the alias of sm_110a
