"""tcgen05 behaviours the mutation harness found unpinned (docs/mutation.md) outside
executor/tcgen05/kernels.py: the exact-mode fused dot product (executor/tcgen05/exact.py), the CTA
pair's cross-CTA shared-memory check (executor/tcgen05/cta_pair.py), and the isa/tcgen05 helpers that
only the executor and the checkers call (areas `executor-tcgen05` and `verifiers-tcgen05`).

Expected values are literals: hand-computed from the documented model (isa/tcgen05/numerics.py:
every term truncated to F fraction bits below the largest term exponent, one exact sum, one
rounding to D; the arithmetic is spelled out next to each case), the PTX ISA's layout and target
rules, and the exact messages."""

from __future__ import annotations

import re

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.dialects import test as test_dialect
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, StringAttr
from xdsl.parser import Parser
from xdsl.utils.exceptions import VerifyException

from mmair.dialects.tcgen05 import TCGEN05
from mmair.executor.engine.errors import ExecutionError
from mmair.executor.engine.turns import Abort
from mmair.executor.tcgen05.cta_pair import Cluster, PairSeam, uses_cta_pair
from mmair.executor.tcgen05.exact import fused_mma, term_exponents
from mmair.isa.tcgen05 import SmemDesc, layouts, numerics, rules, tmem_moves, units
from mmair.isa.tcgen05.diagnose import idesc_report, smem_report
from mmair.isa.tcgen05.errors import DescriptorError
from mmair.isa.tcgen05.text import parse_descriptor_body

TCGEN05_CONTEXT = Context()
for _dialect in (builtin.Builtin, func.Func, test_dialect.Test, TCGEN05):
    TCGEN05_CONTEXT.load_dialect(_dialect)

# ----------------------------------------------------------------------------------------------
# isa/tcgen05 helpers reached through the executor and the checkers only (Python API)


def test_smem_element_bits_refuses_a_type_tcgen05_has_no_layout_for():
    assert layouts.smem_element_bits("f16", "bf16") == 16
    assert layouts.smem_element_bits("mxf4", "e2m1") == 4  # packed only for the fp4 kinds
    assert layouts.smem_element_bits("f8f6f4", "e2m1") == 8
    with pytest.raises(DescriptorError, match="type = f64 is not a tcgen05 operand type; legal: "
                                              "f16, bf16, tf32, f32, s32, e4m3, e5m2, u8, s8, "):
        layouts.smem_element_bits("f16", "f64")


@pytest.mark.parametrize(("major", "swizzle", "message"), [
    ("x", "none", r"major = x is not a major-ness; legal: k, mn$"),
    ("k", "sw16", r"swizzle = sw16 is not a swizzle mode; legal: none, sw128_base32b, sw128, "
                  r"sw64, sw32 \[R18\]"),
    # R22 (docs/tcgen05-rules.md: PTX ISA descriptor tables; CUTLASS static_asserts it): the
    # 128-byte swizzle with 32-byte atoms is for MN-major operands only.
    ("k", "sw128_base32b", r"swizzle = sw128_base32b is not legal for a K-major operand; legal: "
                           r"none, sw128, sw64, sw32 \(K-major operand\) \[R22\]"),
])
def test_canonical_layout_refuses_major_and_swizzle(major, swizzle, message):
    with pytest.raises(DescriptorError, match=message):
        layouts.canonical_element_offsets(major, swizzle, 16, 8, 8, 128, 256)


def test_sw128_base32b_is_legal_for_an_mn_major_operand():
    # MN-major, 32-bit elements: T = 4 elements per 16-byte unit, S = 8 units per 128-byte row,
    # so the 32 MN elements of K-row 0 are contiguous (offsets 0..31) and K-row 1 starts one
    # swizzle row (32 elements) later.
    got = layouts.canonical_element_offsets("mn", "sw128_base32b", 32, 32, 2, 0, 1024)
    assert got[:, 0].tolist() == list(range(32))
    assert got[:, 1].tolist() == list(range(32, 64))


def test_swizzle_addresses_refuses_an_unknown_mode():
    with pytest.raises(DescriptorError, match=r"swizzle = sw16 is not a swizzle mode; legal: none, "
                                              r"sw128_base32b, sw128, sw64, sw32 \[R18\]"):
        layouts.swizzle_addresses(np.arange(4), "sw16")


def test_absolute_lbo_mode_is_not_modelled():
    desc = SmemDesc(start=0, lbo=128, sbo=256, lbo_mode="absolute")
    with pytest.raises(DescriptorError, match=r"lbo_mode = absolute is not supported by the layout "
                                              r"model; legal: relative \(absolute mode is not "
                                              r"modelled\) \[R20\]"):
        layouts.operand_bit_addresses(desc, "k", 16, 8, 8)


def test_kind_i8_has_no_fraction_bits():
    assert numerics.fraction_bits("mxf4") == 35 and numerics.fraction_bits("f16") == 25
    with pytest.raises(ValueError, match="kind::i8 has no fused floating-point sum"):
        numerics.fraction_bits("i8")


def test_why_a_thread_access_is_not_ordered_before_a_later_async_access():
    # A thread access followed by an async unit's: the async op was issued first, nothing orders
    # it after the thread's later access (the report's reason; hb.py). Thread after thread, and an
    # async unit first, take the per-unit reasons.
    assert units.why_unordered(units.Unit.THREAD, units.Unit.TC) == (
        "the access of the tensor core's async unit was issued before the thread's access, and "
        "nothing orders an async op after later thread accesses")
    assert units.why_unordered(units.Unit.THREAD, units.Unit.LD).startswith(
        "the access of the TMEM load path was issued")
    assert units.why_unordered(units.Unit.THREAD, units.Unit.THREAD) == (
        "the async op does not wait for the thread's later accesses")
    assert units.why_unordered(units.Unit.TC, units.Unit.THREAD) == (
        "no tcgen05.commit after it whose mbarrier phase the thread waited "
        "(tcgen05.mbarrier_wait) orders them")


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


ZERO_D_KERNEL = """func.func @k(%en: i1, %desc: i64) {{
  %d = "test.op"() : () -> memref<{shape}xf32, #tcgen05.space<tmem>>
  %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 128>
  tcgen05.mma kind(f16) cta_group(1) %d, %desc, %desc, %idesc, %en : memref<{shape}xf32, #tcgen05.space<tmem>>, i64
  func.return
}}"""

ZERO_LD_KERNEL = """func.func @k(%t: memref<0x128xf32, #tcgen05.space<tmem>>) {
  %r = tcgen05.ld shape("32x32b") num(8) warp(0) lane(0) column(0) %t : memref<0x128xf32, #tcgen05.space<tmem>> -> memref<32x8xf32>
  func.return
}"""


def verify_text(text: str) -> None:
    Parser(TCGEN05_CONTEXT, text).parse_module().verify()


@pytest.mark.parametrize("shape", ["0x128", "128x0"])
def test_a_zero_extent_d_is_too_small_for_the_tile(shape):
    # A static extent of 0 is a size (too small), not a dynamic one (xDSL: -1).
    with pytest.raises(VerifyException, match=re.escape(
            f"requires d to hold the 128x128 tile of the idesc, got memref<{shape}xf32, "
            "#tcgen05.space<tmem>>")):
        verify_text(ZERO_D_KERNEL.format(shape=shape))


def test_a_zero_lane_tmem_operand_is_too_small_for_the_access():
    with pytest.raises(VerifyException, match=re.escape(
            "requires lanes 0..31 and columns 0..7 inside the TMEM operand 0x128")):
        verify_text(ZERO_LD_KERNEL)


def test_descriptor_text_ending_where_a_value_is_due_is_a_syntax_error():
    with pytest.raises(DescriptorError, match=re.escape(
            "attribute text = 'end of text' is unexpected at offset 7; legal: an ident")):
        parse_descriptor_body("smem_desc", "start =")


def test_ld_st_may_use_all_128_registers_of_a_thread():
    # R33: at most 128 32-bit registers per thread; .16x256b holds 4 per repetition, .32x32b 1.
    assert tmem_moves.ld_st_registers("16x256b", 32) == 128
    assert tmem_moves.ld_st_registers("32x32b", 128) == 128


def test_idesc_report_leaves_out_rule_errors_of_stand_in_fields():
    # kind::i8 with dtype code 3 (no such code): the decoder reports the code and lets the rules
    # see a stand-in dtype (f16), whose own R2 error ("f16 is not a kind::i8 accumulator type")
    # says nothing about the word and is left out. M = 128 (bits 24-28 = 8), N = 64 (17-22 = 8).
    word = (3 << 4) | (8 << 24) | (8 << 17)
    _, errors = idesc_report(word, "i8")
    assert [str(e) for e in errors] == [
        "dtype = 3 is not a valid kind::i8 dtype code; legal: 0 (f16), 1 (f32), 2 (s32) [R2]"]


def test_idesc_report_judges_no_rule_against_a_stand_in_for_an_undecodable_field():
    # kind::f16 with atype code 2 (no such code) and btype bf16: "btype = bf16 differs from
    # atype" would be judged against the stand-in atype f16, not the word; only the code is
    # reported. dtype f16 (bits 4-5 = 0) with that atype: R3's "dtype f16 needs atype f16" is
    # likewise about the guess. M = 128, N = 64.
    word = (2 << 7) | (1 << 10) | (8 << 24) | (8 << 17)
    for dtype_code in (0, 1):
        _, errors = idesc_report(word | dtype_code << 4, "f16")
        assert [str(e) for e in errors] == [
            "atype = 2 is not a valid kind::f16 atype code; legal: 0 (f16), 1 (bf16) [R3]"]
    # A rule that does not depend on the undecodable field stays: negate_a on kind::i8 (R5)
    # with btype code 7 (no such i8 code).
    word = (2 << 4) | (7 << 10) | (1 << 13) | (8 << 24) | (8 << 17)
    _, errors = idesc_report(word, "i8")
    assert [e.rule for e in errors] == ["R3", "R5"] and errors[1].field == "negate_a"


def test_smem_report_keeps_the_other_rules_of_a_word_with_an_invalid_swizzle_code():
    # Swizzle code 3 (invalid) and LBO absolute mode (bit 52) on an MN-major operand: the decode
    # error for the code, and R20's MN-major rule, which does not depend on the swizzle.
    word = 0x6010404000010040
    _, errors = smem_report(word, major="mn")
    texts = [str(e) for e in errors]
    assert texts[0] == ("swizzle = 3 is not a valid swizzle code; legal: 0 (none), "
                        "1 (sw128_base32b), 2 (sw128), 4 (sw64), 6 (sw32) [R18]")
    assert ("lbo_mode = absolute is not legal for an MN-major operand; legal: relative "
            "(absolute needs a K-major operand) [R20]") in texts
    assert [e.field for e in errors].count("swizzle") == 1


def test_smem_report_judges_no_rule_against_a_stand_in_for_an_invalid_swizzle_code():
    # Swizzle code 5 (invalid), LBO absolute mode, base offset 1 (bits 49-51), buffer start 0:
    # R20 needs sw128 and R21's expected base offset depends on the swizzle, so with the swizzle
    # unknown neither is judged; R20's base-offset rule does not depend on it and stays.
    word = 0xA012404000010040
    _, errors = smem_report(word, pattern_start=0)
    assert [str(e) for e in errors] == [
        "swizzle = 5 is not a valid swizzle code; legal: 0 (none), 1 (sw128_base32b), 2 (sw128), "
        "4 (sw64), 6 (sw32) [R18]",
        "lbo_mode = absolute is not legal with base_offset = 1; legal: relative (absolute needs "
        "base_offset = 0) [R20]",
    ]
    # MN-major tf32 (R22 wants sw128_base32b): not judged against an unknown swizzle either.
    _, errors = smem_report(0xA000404000010040, major="mn", kind="tf32")
    assert [e.rule for e in errors] == ["R18"]


# ----------------------------------------------------------------------------------------------
# Exact mode (executor/tcgen05/exact.py): fused_mma on decoded values, as the executor calls it

def f32_bits(values: np.ndarray) -> list[int]:
    return np.asarray(values, np.float32).view(np.uint32).ravel().tolist()


def one_row(a_row: list[float], b_row: list[float], k: int) -> tuple[np.ndarray, np.ndarray]:
    """A (1, K) and B (1, K) float32 operands: the given leading values, zeros after."""
    a, b = np.zeros((1, k), np.float32), np.zeros((1, k), np.float32)
    a[0, :len(a_row)], b[0, :len(b_row)] = a_row, b_row
    return a, b


def test_term_exponents_clamp_subnormals_to_the_formats_minimum():
    # floor(log2|x|), at least 1 - bias (f16: -14; e2m3: 0), and -126 for zero (MMA-Sim).
    f16 = np.array([2.0**-24, 2.0**-15, 0.0, 1.5, -3.0, 65504.0], np.float32)
    assert term_exponents(f16, "f16").tolist() == [-14, -14, -126, 0, 1, 15]
    e2m3 = np.array([0.125, 0.875, 1.0, -7.5], np.float32)
    assert term_exponents(e2m3, "e2m3").tolist() == [0, 0, 0, 2]


def test_a_subnormal_factor_raises_the_largest_exponent():
    # f16: 2^-24 (subnormal, exponent -14) * 2^15 = 2^-9 has term exponent -14 + 15 = 1, so the
    # quantum is 2^(1 - 25) = 2^-24 and 2^-10 * 2^-20 = 2^-30 truncates: D = 2^-9. (With the
    # subnormal's own exponent -24, emax = -9, the quantum 2^-34 keeps 2^-30: D = 2^-9 + 2^-30.)
    a, b = one_row([2.0**-24, 2.0**-10], [2.0**15, 2.0**-20], 16)
    got = fused_mma("f16", a, b, None, atype="f16", btype="f16", d_type="f32")
    assert got.tolist() == [[2.0**-9]]


def test_negative_f32_subnormal_result_rounds_toward_zero():
    # tf32: -1.5 * 2^-100 * 2^-49 = -1.5 * 2^-149 is kept by the quantum 2^-151 (emax = -126, the
    # zero C); toward zero it is -2^-149 (bits 0x80000001); to nearest-even -2^-148 (0x80000002).
    a, b = one_row([-1.5 * 2.0**-100], [2.0**-49], 8)
    got = fused_mma("tf32", a, b, None, atype="tf32", btype="tf32", d_type="f32")
    assert f32_bits(got) == [0x80000001]
    # A normal negative sum: -(1 + 2^-23 + 2^-24) truncates toward zero to -(1 + 2^-23).
    a, b = one_row([-1.0, -(2.0**-23), -(2.0**-24)], [1.0, 1.0, 1.0], 8)
    got = fused_mma("tf32", a, b, None, atype="tf32", btype="tf32", d_type="f32")
    assert got.tolist() == [[-(1.0 + 2.0**-23)]]


def test_scale_input_d_shifts_a_tiny_c_exactly():
    # tf32: 2^-65 * 2^-65 = 2^-130 plus C * 2^-15 with C = -3 * 2^-140 (an f32 subnormal, term
    # exponent -126 - 15 = -141): C * 2^-15 = -3 * 2^-155, below f32's range but exact in the
    # fused sum (quantum 2^(-130 - 25) = 2^-155). 2^-130 - 3 * 2^-155 truncated toward zero to f32
    # (subnormal quantum 2^-149) is 2^-130 - 2^-149: bits 0x00080000 - 1.
    a, b = one_row([2.0**-65], [2.0**-65], 8)
    c = np.array([[-3 * 2.0**-140]], np.float32)
    got = fused_mma("tf32", a, b, c, atype="tf32", btype="tf32", d_type="f32", c_shift=15)
    assert f32_bits(got) == [0x0007FFFF]


def test_scale_input_d_leaves_a_zero_cs_exponent_at_minus_126():
    # tf32: 2^-65 * 2^-65 = 2^-130 and -2^-76 * 2^-77 = -2^-153, C = 0 with scale-input-d 15. The
    # zero C keeps exponent -126 (a zero has no exponent to shift), so emax = -126, the quantum is
    # 2^-151 and -2^-153 truncates to 0: D = 2^-130 (bits 0x00080000). (Shifted to -141, emax would
    # be -130 and -2^-153 would be kept: 2^-130 - 2^-149 toward zero.)
    a, b = one_row([2.0**-65, -(2.0**-76)], [2.0**-65, 2.0**-77], 8)
    got = fused_mma("tf32", a, b, np.zeros((1, 1), np.float32), atype="tf32", btype="tf32",
                    d_type="f32", c_shift=15)
    assert f32_bits(got) == [0x00080000]


def test_fp4_kinds_keep_an_infinite_c():
    # mxf4: zero products, C = +inf / -inf / 1 / 0: D = C (mmair's decision where MMA-Sim raises,
    # isa/tcgen05/numerics.py [inf]).
    a, b = np.zeros((2, 64), np.float32), np.zeros((2, 64), np.float32)
    ones_a, ones_b = np.ones((2, 2), np.float32), np.ones((2, 2), np.float32)
    c = np.array([[np.inf, 1.0], [-np.inf, 0.0]], np.float32)
    got = fused_mma("mxf4", a, b, c, atype="e2m1", btype="e2m1", d_type="f32", scale_a=ones_a,
                    scale_b=ones_b, scale_type="ue8m0", block=32)
    assert got.tolist() == [[np.inf, 1.0], [-np.inf, 0.0]]


def test_fp4_kinds_align_group_terms_to_c_when_c_is_largest():
    # mxf4 (block 32, UE8M0 scales 2^-10 everywhere): group 0 sums 1 * -1 = -1, its term is
    # -1 * 2^-20 with alignment exponent -10 - 10 = -20; C = 2^30 has exponent 30 and is the
    # largest, so the quantum is 2^(30 - 35) = 2^-5 and the group term truncates to 0: D = 2^30.
    # (Aligned without C, at emax = -20, it would be kept: 2^30 - 2^-20 toward zero = 2^30 - 64.)
    a, b = one_row([1.0], [-1.0], 64)
    scales = np.full((1, 2), 2.0**-10, np.float32)
    got = fused_mma("mxf4", a, b, np.array([[2.0**30]], np.float32), atype="e2m1", btype="e2m1",
                    d_type="f32", scale_a=scales, scale_b=scales, scale_type="ue8m0", block=32)
    assert got.tolist() == [[2.0**30]]


def test_narrow_products_with_a_tiny_c_scale_by_a_finite_power_of_two():
    # f16 x f16, all products zero (term exponents -252) and C = 2^-103: emax = -103, so the
    # scale 2^(25 + 103) = 2^128 is beyond float32; the float32 path clips it (zeros times any
    # finite power of two are zero) and D = C exactly.
    a, b = np.zeros((2, 16), np.float32), np.zeros((3, 16), np.float32)
    c = np.full((2, 3), 2.0**-103, np.float32)
    got = fused_mma("f16", a, b, c, atype="f16", btype="f16", d_type="f32")
    assert got.tolist() == [[2.0**-103] * 3] * 2


def test_extreme_scale_on_b_does_not_overflow():
    # mxf8f6f4: A = 1 with scale 2^-127, B = e4m3 448 with scale 2^127 (the mirror of
    # test_tcgen05_exact's A-side case): the scaled B operand 448 * 2^127 overflows float32, the
    # exact product is 448.
    a, b = one_row([1.0], [448.0], 32)
    got = fused_mma("mxf8f6f4", a, b, None, atype="e4m3", btype="e4m3", d_type="f32",
                    scale_a=np.array([[2.0**-127]], np.float32),
                    scale_b=np.array([[2.0**127]], np.float32), scale_type="ue8m0", block=32)
    assert got.tolist() == [[448.0]]


def test_special_values_follow_ieee_sums_of_the_products():
    # Every sign of inf times a positive, negative and zero factor, on either side, and a +inf and
    # a -inf product together: D is NaN, +inf or -inf exactly as the float64 (IEEE) sum of the
    # products says (isa/tcgen05/numerics.py "Special values"), NaN as the canonical f32 NaN.
    specials = [np.inf, -np.inf, 2.0, -2.0, 0.0]
    a = np.zeros((len(specials) + 1, 16), np.float32)
    b = np.zeros((len(specials) + 1, 16), np.float32)
    for i, value in enumerate(specials):
        a[i, 0] = b[i, 0] = value
    a[-1, :2], b[-1, :2] = [np.inf, np.inf], [1.0, -1.0]  # +inf + -inf in one dot product
    with np.errstate(invalid="ignore"):
        ieee = a.astype(np.float64) @ b.T.astype(np.float64)
    got = fused_mma("f16", a, b, None, atype="f16", btype="f16", d_type="f32")
    special = ~np.isfinite(ieee)
    # NaN: +-inf * 0 either way (4 cells), and all of row 5: its second inf meets a zero in
    # columns 0-4, and +inf - inf in column 5. The other 14 cells with an inf factor are +-inf.
    assert np.isnan(ieee).sum() == 10 and np.isinf(ieee).sum() == 14
    assert (got.view(np.uint32)[np.isnan(ieee)] == 0x7FFFFFFF).all()
    np.testing.assert_array_equal(got[np.isinf(ieee)], ieee[np.isinf(ieee)])
    np.testing.assert_array_equal(got[~special], ieee[~special])


def test_a_nan_scale_of_mxf8f6f4_makes_its_row_the_canonical_nan():
    # mxf8f6f4 (block 32): row 1's scale is NaN (UE8M0 0xFF), inputs are finite: D's row 1 is
    # the canonical NaN, the other rows are the plain products 1 * 1.
    a, b = np.ones((3, 32), np.float32), np.ones((2, 32), np.float32)
    scale_a, scale_b = np.ones((3, 1), np.float32), np.ones((2, 1), np.float32)
    scale_a[1, 0] = np.nan
    got = fused_mma("mxf8f6f4", a, b, None, atype="e4m3", btype="e4m3", d_type="f32",
                    scale_a=scale_a, scale_b=scale_b, scale_type="ue8m0", block=32)
    assert (got.view(np.uint32)[1] == 0x7FFFFFFF).all()
    assert got[[0, 2]].tolist() == [[32.0, 32.0], [32.0, 32.0]]


# ----------------------------------------------------------------------------------------------
# The CTA pair (executor/tcgen05/cta_pair.py): the barrier-interval race check and the hand-off


def located_op(line: int) -> test_dialect.TestOp:
    op = test_dialect.TestOp()
    op.location = FileLineColLoc(StringAttr("k.mlir"), IntAttr(line), IntAttr(5))
    return op


RACE_TAIL = ("in the same interval between tcgen05.cluster_sync barriers (a cta_group::2 MMA "
             "reads the peer CTA's shared memory: a cluster barrier must order the peer's writes "
             "before it)")


def test_a_peer_write_after_a_pair_mma_read_in_the_same_interval_is_a_race():
    # CTA 0's pair MMA reads CTA 1's SMEM bytes [4096, 6144) before either CTA passed a barrier.
    cluster, mma = Cluster(), located_op(9)
    cluster.peer_read(0, 1, 4096, 6144, mma)
    # Writes that do not overlap those bytes (the ends are exclusive), or CTA 0's writes to its own
    # SMEM, are no race; neither is CTA 1's write once it passed the next cluster barrier.
    cluster.smem_write(1, 6144, 8192, located_op(3))
    cluster.smem_write(1, 0, 4096, located_op(3))
    cluster.smem_write(0, 4096, 6144, located_op(3))
    cluster.passed[1] = 1
    cluster.smem_write(1, 4096, 6144, located_op(3))
    cluster.passed[1] = 0
    with pytest.raises(ExecutionError, match=re.escape(
            "race on smem bytes [6000, 6144) of CTA 1 of the CTA pair: 'test.op' writes them, "
            f"'test.op' at k.mlir:9:5 reads them, {RACE_TAIL}")):
        cluster.smem_write(1, 6000, 6200, located_op(4))


def test_a_pair_mma_reading_bytes_the_peer_wrote_in_the_same_interval_is_a_race():
    # CTA 1's thread wrote its SMEM bytes [4096, 6144); then CTA 0's pair MMA reads CTA 1's SMEM.
    cluster = Cluster()
    cluster.smem_write(1, 4096, 6144, located_op(3))
    cluster.peer_read(0, 1, 6144, 8192, located_op(9))  # adjacent: no overlap
    cluster.peer_read(0, 1, 0, 4096, located_op(9))
    cluster.peer_read(1, 0, 4096, 6144, located_op(9))  # CTA 0's SMEM, which nobody wrote
    with pytest.raises(ExecutionError, match=re.escape(
            "race on smem bytes [4096, 4097) of CTA 1 of the CTA pair: 'test.op' reads them, "
            f"'test.op' at k.mlir:3:5 writes them, {RACE_TAIL}")):
        cluster.peer_read(0, 1, 2048, 4097, located_op(9))


def test_a_cta_waiting_when_no_cta_can_run_aborts_with_a_deadlock_report():
    # CTA 1 ended; CTA 0 waits for a phase that never completes: the hand-off finds no runnable
    # CTA, records the deadlock, and CTA 0's thread must not go on past its wait.
    cluster, wait = Cluster(), located_op(7)
    cluster.done[1] = True
    with pytest.raises(Abort, match="^$"):
        cluster.wait_until(0, lambda: False, "waits on phase parity 0 of the mbarrier", wait)
    assert cluster.aborted and cluster.turn == -1
    assert str(cluster.error) == ("'test.op' op deadlock: CTA 0 of the CTA pair waits on phase "
                                  "parity 0 of the mbarrier, which can never happen (CTA 1 ended)")
    assert 0 in cluster.waiting


PAIR_KERNEL = """func.func @k() {{
  tcgen05.relinquish_alloc_permit cta_group({group})
  func.return
}}"""


@pytest.mark.parametrize(("group", "pair"), [(2, True), (1, False)])
def test_a_cta_group_2_op_makes_the_kernel_a_cta_pair(group, pair):
    module = Parser(TCGEN05_CONTEXT, PAIR_KERNEL.format(group=group)).parse_module()
    assert uses_cta_pair(module) is pair


class _Cta:
    """The part of a CTA's `Tcgen05Functions` PairSeam reads: its shared memory's bytes."""

    def __init__(self, size: int) -> None:
        self.smem = type("Smem", (), {"data": np.zeros(size, np.uint8)})()


def test_pair_seam_records_the_byte_span_of_a_thread_write_into_its_smem():
    cluster = Cluster()
    cluster.ctas = [_Cta(8192), _Cta(8192)]
    seam = PairSeam(cluster, 1)
    smem = cluster.ctas[1].smem.data
    copy, store = located_op(3), located_op(4)
    # A strided (4, 8) float32 view at byte 4096 with rows 64 bytes apart: the copy's bytes run
    # from the first element to the end of the last, 4096 + 3 * 64 + 7 * 4 + 4 = 4320.
    view = smem[4096:4096 + 256].view(np.float32).reshape(4, 16)[:, :8]
    seam._record(view, copy)
    # One stored element (2, 5) of that view: byte 4096 + 2 * 64 + 5 * 4 = 4244, four bytes.
    seam._record(view, store, (2, 5))
    # Not recorded: an empty view, memory outside the CTA's SMEM (a GM array), a non-array value.
    seam._record(view[:0], copy)
    seam._record(np.zeros((4, 8), np.float32), copy)
    seam._record(None, copy)
    assert [(r, lo, end, interval) for r, lo, end, interval, _ in cluster.smem_writes] == [
        (1, 4096, 4320, 0), (1, 4244, 4248, 0)]


def test_the_hand_off_passes_the_turn_to_the_other_cta():
    # CTA 0 waits; CTA 1 is runnable and takes the turn (no deadlock, nothing aborted).
    cluster = Cluster()
    with cluster.cond:
        cluster.waiting[0] = (lambda: False, "waits", None)
        cluster._hand_off(0)
    assert cluster.turn == 1 and not cluster.aborted and cluster.error is None
