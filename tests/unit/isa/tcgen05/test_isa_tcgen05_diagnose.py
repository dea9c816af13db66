"""The descriptor reports of isa/tcgen05/diagnose.py (what mmair-desc prints): a field that cannot be
decoded gets a stand-in value, and no rule is judged against a stand-in, while the rules of the
other fields still are. Words and messages are literals (PTX ISA descriptor tables)."""

from __future__ import annotations

from mmair.isa.tcgen05.diagnose import idesc_report, smem_report


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
