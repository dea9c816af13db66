"""mmair-desc: outputs, JSON key sets, exit codes 0/1/2, one-line errors and never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mmair.tools.desc import main

DENSE_KEYS = ["kind", "dtype", "atype", "btype", "m", "n", "transpose_a", "transpose_b",
              "negate_a", "negate_b", "sparse", "sparsity_selector", "saturate", "max_shift"]
BLOCK_KEYS = ["kind", "atype", "btype", "m", "n", "transpose_a", "transpose_b", "negate_a",
              "negate_b", "sparse", "scale_type", "sfa_id", "sfb_id", "k"]
SMEM_KEYS = ["start", "lbo", "sbo", "base_offset", "lbo_mode", "swizzle"]
ZCMASK_KEYS = ["m", "start", "first", "nonzero", "skip", "use", "shift", "submasks", "mask"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return rc, out.out, out.err


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("#tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 256>",
         "0x08400010"),
        ("#tcgen05.idesc<kind = i8, atype = s8, btype = u8, m = 128, n = 256, saturate = true>",
         "0x084000a8"),
        ("#tcgen05.idesc<kind = mxf8f6f4, atype = e2m1, btype = e4m3, m = 128, n = 256, "
         "scale_type = ue8m0, sfa_id = 1, sfb_id = 2>", "0x28c002a0"),
        ("#tcgen05.smem_desc<start = 1024, lbo = 16, sbo = 1024, base_offset = 0, "
         "lbo_mode = relative, swizzle = sw128>", "0x4000404000010040"),
        ("#tcgen05.zcmask<start = [0, 1, 2, 1], first = [1, 1, 0, 0], nonzero = true, skip = 2, "
         "use = 3, shift = 2>", "0x0203028301020100"),
    ],
)
def test_encode(capsys: pytest.CaptureFixture[str], text: str, word: str) -> None:
    assert run(capsys, "encode", text) == (0, word + "\n", "")


def test_encode_r16_vector_needs_no_verify(capsys: pytest.CaptureFixture[str]) -> None:
    text = ("#tcgen05.idesc<kind = mxf4, m = 128, n = 64, sfa_id = 2, sfb_id = 2, k = 96>")
    rc, out, err = run(capsys, "encode", text)
    assert rc == 1 and out == "" and err.startswith("error: k = 96") and err.count("\n") == 1
    assert run(capsys, "encode", text, "--no-verify") == (0, "0xc89004a0\n", "")


def test_decode_idesc_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "decode", "idesc", "0x08400010", "--kind", "f16")
    assert rc == 0
    assert out == ("#tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, "
                   "m = 128, n = 256>\n")
    rc, out, _ = run(capsys, "decode", "idesc", "0x08400010", "--kind", "f16", "--json")
    obj = json.loads(out)
    assert rc == 0 and list(obj) == [*DENSE_KEYS, "errors"]
    assert obj == {"kind": "f16", "dtype": "f32", "atype": "f16", "btype": "f16", "m": 128,
                   "n": 256, "transpose_a": False, "transpose_b": False, "negate_a": False,
                   "negate_b": False, "sparse": False, "sparsity_selector": 0, "saturate": False,
                   "max_shift": 0, "errors": []}


@pytest.mark.parametrize(("word", "kind"), [("0x28c002a0", "mxf8f6f4"), ("0x10200480", "mxf4nvf4")])
def test_decode_block_scaled_json_keys(capsys: pytest.CaptureFixture[str], word: str, kind: str) -> None:
    rc, out, _ = run(capsys, "decode", "idesc", word, "--kind", kind, "--json")
    obj = json.loads(out)
    assert rc == 0 and list(obj) == [*BLOCK_KEYS, "errors"]
    assert obj["k"] == (None if kind == "mxf8f6f4" else 64)


def test_decode_idesc_without_kind_lists_every_valid_kind(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "decode", "idesc", "0x08400010")
    assert rc == 0
    lines = out.splitlines()
    assert [line.split(",")[0] for line in lines] == ["#tcgen05.idesc<kind = f16",
                                                      "#tcgen05.idesc<kind = f8f6f4"]
    rc, out, _ = run(capsys, "decode", "idesc", "0x08400010", "--json")
    objs = json.loads(out)  # one JSON array, each entry labelled with its kind
    assert rc == 0 and [o["kind"] for o in objs] == ["f16", "f8f6f4"]
    assert all(o["errors"] == [] for o in objs)


def test_decode_idesc_context_flags(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "decode", "idesc", "0xc2100010", "--kind", "f16", "--ws")[0] == 0
    rc, _, err = run(capsys, "decode", "idesc", "0xc2100010", "--kind", "f16", "--cta-group", "2",
                     "--ws")
    assert rc == 1 and "[R29]" in err
    rc, _, err = run(capsys, "decode", "idesc", "0x084000a8", "--kind", "i8", "--target", "sm_100f")
    assert rc == 1 and "[R32]" in err


@pytest.mark.parametrize(
    ("argv", "start"),
    [
        (["decode", "idesc", "0x1ffffffff", "--kind", "f16"], "error: idesc = 0x1ffffffff is wider"),
        (["decode", "smem", "0x10000000000000000"], "error: smem_desc = 0x10000000000000000 is wider"),
        (["encode", "#tcgen05.idesc<kind = i8, atype = s8, btype = u8, m = 128, n = 256, "
                    "negate_a = true>"], "error: negate_a = true"),
        (["encode", "#tcgen05.idesc<kind = f16, m = 128, n = 64>"], "error: atype"),
        (["encode", "#tcgen05.smem_desc<start = 8, lbo = 16, sbo = 1024>"], "error: start = 8"),
        (["encode", "#tcgen05.zcmask<shift = 40>"], "error: shift = 40"),
        (["encode", "hello"], "error: attribute text"),
    ],
)
def test_invalid_input_is_one_error_line_exit_1(
    capsys: pytest.CaptureFixture[str], argv: list[str], start: str
) -> None:
    rc, out, err = run(capsys, *argv)
    assert rc == 1 and out == ""
    assert err.startswith(start) and err.count("\n") == 1 and "legal:" in err


@pytest.mark.parametrize(
    ("argv", "line", "fields"),
    [
        (["decode", "idesc", "0xffffffff"], "error: idesc 0xffffffff is not valid under any kind",
         None),
        (["decode", "idesc", "0xc89004a0"], "error: kind::mxf4: k = 96 is not legal", None),
        (["decode", "idesc", "0x08400050", "--kind", "f16"], "error: reserved bits = 0x00000040",
         "reserved_bits = 0x00000040"),
        (["decode", "idesc", "0x084000a8", "--kind", "f16"], "error: dtype = s32",
         "dtype = s32"),  # an i8 word
        (["decode", "smem", "0x6000404000010040"], "error: swizzle = 3 is not a valid swizzle code",
         "swizzle = 3"),
        (["decode", "smem", "0x4020404000010040"], "error: reserved bits", "reserved_bits ="),
        (["decode", "smem", "0x201640400002003f"], "error: lbo_mode = absolute", "lbo_mode ="),
        (["decode", "smem", "0x4000404000010040", "--kind", "tf32", "--major", "mn"],
         "error: swizzle = sw128", "swizzle = sw128"),
        (["decode", "zcmask", "0x1103028301020100", "--m", "32", "--n", "64"], "error: shift = 17",
         "shift = 17"),
        (["decode", "zcmask", "0x4003028000000000", "--m", "128", "--n", "64"], "error: reserved",
         "reserved_bits"),
        (["decode", "zcmask", "0x0003028000000000", "--m", "96", "--n", "64"], "error: m = 96",
         "skip = 2"),
    ],
)
def test_invalid_word_prints_fields_then_every_error(
    capsys: pytest.CaptureFixture[str], argv: list[str], line: str, fields: str | None
) -> None:
    rc, out, err = run(capsys, *argv)
    assert rc == 1
    assert line in err and all(e.startswith("error: ") for e in err.splitlines())
    if fields is not None:
        assert fields in out
    rc, out, _ = run(capsys, *argv, "--json")
    obj = json.loads(out)
    assert rc == 1
    if isinstance(obj, dict):
        assert obj["errors"] and all(f"error: {e}" in err for e in obj["errors"])
    else:
        assert obj == []  # no kind accepts the word


def test_every_violated_rule_is_listed(capsys: pytest.CaptureFixture[str]) -> None:
    # i8 word with negate A and B, saturate on: each rule once; the fields are still printed.
    word = 0x084000a8 | 1 << 13 | 1 << 14
    rc, out, err = run(capsys, "decode", "idesc", hex(word), "--kind", "i8", "--json")
    obj = json.loads(out)
    assert rc == 1 and obj["negate_a"] is True and obj["negate_b"] is True
    assert [e.split(" is ")[0] for e in obj["errors"]] == ["negate_a = true", "negate_b = true"]
    rc, out, err = run(capsys, "decode", "idesc", "0xffffffff", "--kind", "f16")
    rules = [e.rsplit("[", 1)[1].rstrip("]") for e in err.splitlines()]
    assert rules == ["R1", "R2", "R3", "R3", "R7", "R7", "R4"]
    assert "m = 496" in out and "max_shift = 32" in out


def test_words_in_hex_decimal_and_signed_decimal(capsys: pytest.CaptureFixture[str]) -> None:
    hexa = run(capsys, "decode", "idesc", "0x08400010", "--kind", "f16")
    assert run(capsys, "decode", "idesc", str(0x08400010), "--kind", "f16") == hexa
    # mmair-opt prints an i32 constant signed: 0xc2100010 is -1039138800
    ws = run(capsys, "decode", "idesc", "0xc2100010", "--kind", "f16", "--ws")
    assert run(capsys, "decode", "idesc", str(0xc2100010 - (1 << 32)), "--kind", "f16",
               "--ws") == ws and ws[0] == 0
    rc, _, err = run(capsys, "decode", "idesc", "08400010")
    assert rc == 2 and "ambiguous" in err


def test_r21_needs_the_buffer_start(capsys: pytest.CaptureFixture[str]) -> None:
    word = "0x4000404000010048"  # start 0x480, sw128, base offset 0
    assert run(capsys, "decode", "smem", word)[0] == 0  # CUTLASS-style: not judged
    assert run(capsys, "decode", "smem", word, "--buffer-start", "0x400")[0] == 0
    rc, _, err = run(capsys, "decode", "smem", word, "--buffer-start", "0x480")
    assert rc == 1 and "base_offset = 0" in err and "[R21]" in err


def test_encode_takes_the_word_form(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "encode", "#tcgen05.idesc<kind = f16, word = 0x08400010>") == (
        0, "0x08400010\n", "")
    assert run(capsys, "encode", "#tcgen05.smem_desc<word = 0x4000404000010040>") == (
        0, "0x4000404000010040\n", "")
    rc, _, err = run(capsys, "encode", "#tcgen05.idesc<kind = i8, word = 0x084020a8>")
    assert rc == 1 and "[R5]" in err


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["decode"],
        ["decode", "idesc"],
        ["decode", "idesc", "0xzz"],
        ["decode", "idesc", "12g"],
        ["decode", "idesc", "0x10", "--kind", "f64"],
        ["decode", "zcmask", "0x0"],  # --m/--n missing
        ["decode", "zcmask", "0x0", "--m", "x", "--n", "64"],
        ["decode", "smem", "0x0", "--major", "row"],
        ["frobnicate"],
        ["encode"],
    ],
)
def test_bad_arguments_exit_2_with_one_line(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    rc, out, err = run(capsys, *argv)
    assert rc == 2 and out == ""
    assert err.startswith("mmair-desc: error: ") and err.count("\n") == 1


def test_decode_smem_json(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "decode", "smem", "0xc000402000100100", "--json")
    obj = json.loads(out)
    assert rc == 0 and list(obj) == [*SMEM_KEYS, "errors"]
    assert obj == {"start": 0x1000, "lbo": 256, "sbo": 512, "base_offset": 0,
                   "lbo_mode": "relative", "swizzle": "sw32", "errors": []}


def test_decode_zcmask_json_example_4(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "decode", "zcmask", "0x0203028301020100", "--m", "32", "--n", "64",
                     "--json")
    obj = json.loads(out)
    assert rc == 0 and list(obj) == [*ZCMASK_KEYS, "errors"] and obj["errors"] == []
    assert obj["submasks"] == ["1100001110000111", "1110000111000011", "0000111000011100",
                               "0001110000111000"]
    assert obj["mask"] == "".join(reversed(obj["submasks"]))
    assert (obj["m"], obj["start"], obj["first"], obj["nonzero"], obj["shift"]) == (
        32, [0, 1, 2, 1], [1, 1, 0, 0], True, 2)


def test_decode_zcmask_text(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "decode", "zcmask", "0x0003028100000000", "--m", "64", "--n", "64")
    assert rc == 0
    assert out.splitlines()[1:] == [f"mask0 = 0b{0x70E1C387:032b}", f"mask1 = 0b{0x0E1C3870:032b}",
                                    f"mask = 0b{0x0E1C3870:032b}{0x70E1C387:032b}"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(["idesc", "smem", "zcmask"]), st.integers(0, (1 << 64) - 1))
def test_random_words_never_crash(
    capsys: pytest.CaptureFixture[str], what: str, word: int
) -> None:
    extra = ["--m", "64", "--n", "128"] if what == "zcmask" else []
    word_bits = 32 if what == "idesc" else 64
    rc, out, err = run(capsys, "decode", what, hex(word >> (64 - word_bits)), *extra)
    assert (rc, err == "") in ((0, True), (1, False))
    if rc == 1:  # the fields (when readable), then every error, one line each
        assert err and all(line.startswith("error: ") for line in err.splitlines())


def test_module_entry_point_runs_in_a_subprocess() -> None:
    ok = subprocess.run([sys.executable, "-m", "mmair.tools.desc", "decode", "idesc", "0x08200910",
                         "--kind", "tf32"], capture_output=True, text=True, check=False)
    assert ok.returncode == 0
    assert ok.stdout.startswith("#tcgen05.idesc<kind = tf32, dtype = f32, atype = tf32")
    bad = subprocess.run([sys.executable, "-m", "mmair.tools.desc", "decode", "smem", "0xe000404000010040"],
                         capture_output=True, text=True, check=False)
    assert bad.returncode == 1 and "Traceback" not in bad.stderr
    assert bad.stderr.strip().endswith("[R18]")


def test_smem_report_flags_the_fixed_bits_and_refuses_non_words():
    # The report behind `mmair-desc decode smem`, called directly: bit 46 of the fixed 0b001
    # (bits 46-48, PTX matrix-descriptor version) cleared in the reference word.
    from mmair.isa.tcgen05 import DescriptorError
    from mmair.isa.tcgen05.diagnose import smem_report

    fields, errors = smem_report(0x4000404000010040 & ~(1 << 46), verify=False)
    assert fields["fixed_bits_46_48"] == "0b000"
    assert [(e.field, e.rule, str(e)) for e in errors] == [
        ("fixed bits 46-48", "R17",
         "fixed bits 46-48 = 0b000 do not hold the constant; legal: 0b001 [R17]")]
    assert "fixed_bits_46_48" not in smem_report(0x4000404000010040, verify=False)[0]
    with pytest.raises(DescriptorError, match=r"^smem_desc = 0x10000000000000000 is not a 64-bit "
                                              r"word; legal: 0x0\.\.0xffffffffffffffff$"):
        smem_report(1 << 64)


def test_idesc_and_zcmask_reports_refuse_words_of_the_wrong_width():
    from mmair.isa.tcgen05 import DescriptorError
    from mmair.isa.tcgen05.diagnose import read_idesc, zcmask_report

    with pytest.raises(DescriptorError, match=r"^idesc = 0x100000000 is not a 32-bit word; "):
        read_idesc(1 << 32, "f16")
    with pytest.raises(DescriptorError, match=r"^zcmask = 0x10000000000000000 is not a 64-bit "
                                              r"word; "):
        zcmask_report(1 << 64, m=128)
