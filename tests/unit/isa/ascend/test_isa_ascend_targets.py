"""Target tables of mmair.isa.ascend.targets, spot-checked against docs/ascend.md (targets, type tables, quant modes, GatherMask)."""

from __future__ import annotations

import pytest

from mmair.isa.ascend.targets import (
    C0_BYTES,
    DEFAULT_TARGET,
    ELEMENT_TYPES,
    FRACTAL_BYTES,
    M0,
    MMAD_MNK_RANGE,
    QUANT_MODES,
    SPACES,
    TARGET_NAMES,
    UnknownElementTypeError,
    UnknownTargetError,
    c0_elements,
    element_bits,
    element_bytes,
    fixpipe_c0_size_bytes,
    get_quant_mode,
    get_target,
    mmad_footprint_bytes,
    transpose_block_elements,
)

K = 1024


def test_names() -> None:
    assert TARGET_NAMES == ("a2", "a3", "a5", "310p", "200i_a2", "910")
    assert DEFAULT_TARGET == "a2"
    assert SPACES == ("gm", "l1", "l0a", "l0b", "l0c", "ub", "bt", "fb")
    for name in ("f16", "bf16", "f32", "tf32", "s4", "s8", "s16", "s32", "u8", "u16", "u32",
                 "u64", "e4m3", "e5m2", "hif8"):
        assert name in ELEMENT_TYPES
    assert (C0_BYTES, M0, FRACTAL_BYTES) == (32, 16, 512)
    assert MMAD_MNK_RANGE == (1, 4095)


def test_unknown_target() -> None:
    with pytest.raises(UnknownTargetError, match=r"'a4'") as err:
        get_target("a4")
    assert "'a4'" in str(err.value)
    for name in TARGET_NAMES:
        assert name in str(err.value)
    assert isinstance(err.value, ValueError)


@pytest.mark.parametrize(
    "target,ub,l1,l0c,bt,fb",
    [
        ("a2", 192 * K, 512 * K, 128 * K, 1 * K, 2 * K),
        ("a3", 192 * K, 512 * K, 128 * K, 1 * K, 2 * K),
        ("a5", 256 * K, 512 * K, 256 * K, 4 * K, 4 * K),
        ("310p", 256 * K, 1024 * K, 256 * K, None, None),
        ("910", 256 * K, 1024 * K, 256 * K, None, None),
        ("200i_a2", 248 * K, 1024 * K, 128 * K, 1 * K, 2 * K),
    ],
)
def test_capacities(target: str, ub: int, l1: int, l0c: int, bt: int | None, fb: int | None) -> None:
    t = get_target(target)
    assert t.name == target
    assert t.capacity["ub"] == ub and t.capacity["l1"] == l1 and t.capacity["l0c"] == l0c
    assert t.capacity["l0a"] == t.capacity["l0b"] == 64 * K
    assert t.capacity["bt"] == bt and t.capacity["fb"] == fb
    assert t.capacity["gm"] is None and t.has_space("gm")
    assert t.check_space_capacity("gm", 2**40)
    assert t.check_space_capacity("l0a", 64 * K) and not t.check_space_capacity("l0a", 64 * K + 1)
    assert t.has_space("bt") == (bt is not None)
    assert set(t.capacity) == set(SPACES) == set(t.alignment)


def test_arch_ids_and_alignment() -> None:
    assert {n: get_target(n).arch for n in TARGET_NAMES} == {
        "a2": 2201, "a3": 2201, "a5": 3510, "310p": 2002, "200i_a2": 3002, "910": 1001,
    }
    al = get_target("a2").alignment
    assert dict(al) == {"gm": 1, "l1": 32, "l0a": 512, "l0b": 512, "l0c": 64, "ub": 32,
                        "bt": 64, "fb": 64}


def test_l0a_layout() -> None:
    assert {n: get_target(n).l0a_layout for n in TARGET_NAMES} == {
        "a2": "zz", "a3": "zz", "a5": "nz", "310p": "zz", "200i_a2": "zz", "910": "zz",
    }


def test_mmad_types() -> None:
    a2 = get_target("a2")
    assert ("f16", "f16", "f32") in a2.mmad_types
    assert ("s4", "s4", "s32") in a2.mmad_types
    assert ("f16", "f16", "f16") not in a2.mmad_types
    assert ("e4m3", "e4m3", "f32") not in a2.mmad_types
    a5 = get_target("a5")
    for lhs in ("e4m3", "e5m2"):
        for rhs in ("e4m3", "e5m2"):
            assert (lhs, rhs, "f32") in a5.mmad_types
    assert ("hif8", "hif8", "f32") in a5.mmad_types
    assert ("hif8", "e4m3", "f32") not in a5.mmad_types
    assert not any(t[0] == "s4" for t in a5.mmad_types)
    assert ("u8", "u8", "u32") in get_target("910").mmad_types
    assert get_target("310p").mmad_dst_types("f16", "f16") == {"f16", "f32"}
    for n in TARGET_NAMES:
        for triple in get_target(n).mmad_types:
            assert all(e in ELEMENT_TYPES for e in triple)


def test_mmad_bias() -> None:
    a2 = get_target("a2")
    assert a2.mmad_bias
    assert a2.bias_type("s8") == "s32"
    assert a2.bias_type("f16") == a2.bias_type("bf16") == a2.bias_type("f32") == "f32"
    with pytest.raises(ValueError, match="s4"):
        a2.bias_type("s4")
    assert get_target("a5").bias_type("e5m2") == "f32"
    for n in ("310p", "910"):
        t = get_target(n)
        assert not t.mmad_bias
        with pytest.raises(ValueError, match=f"bias is not supported for lhs 'f16' on target {n}"):
            t.bias_type("f16")


def test_fixpipe_tables() -> None:
    a2, a5 = get_target("a2"), get_target("a5")
    assert a2.fixpipe_destinations == {"gm", "l1"}
    assert a5.fixpipe_destinations == {"gm", "l1", "ub"}
    assert get_target("200i_a2").fixpipe_destinations == {"gm"}
    assert not get_target("310p").has_fixpipe and not get_target("910").has_fixpipe
    assert ("s32", "bf16") not in a2.fixpipe_types["gm"]
    assert ("s32", "bf16") in a5.fixpipe_types["gm"]
    assert ("f32", "f32") in a2.fixpipe_types["gm"] and ("f32", "f32") not in a2.fixpipe_types["l1"]
    assert ("f32", "e4m3") in a5.fixpipe_types["gm"]
    assert a5.nz2dn and not a2.nz2dn


def test_fixpipe_quant_rules() -> None:
    a2, a5 = get_target("a2"), get_target("a5")
    assert a2.fixpipe_quant_ok("gm", "none", "f32", "f32")
    assert a2.fixpipe_quant_ok("gm", "f322f16", "f32", "f16")
    assert not a2.fixpipe_quant_ok("gm", "f322f16", "s32", "f16")
    assert a2.fixpipe_quant_ok("gm", "deqf16", "s32", "f16")
    assert a2.fixpipe_quant_ok("l1", "vreq8", "s32", "u8")
    # F3: NoQuant is not allowed for L0C -> L1 on a2/a3.
    assert not a2.fixpipe_quant_ok("l1", "none", "s32", "s32")
    assert a5.fixpipe_quant_ok("l1", "none", "f32", "f32")
    assert not a2.fixpipe_quant_ok("ub", "none", "f32", "f32")
    assert not a2.fixpipe_quant_ok("gm", "qf322fp8_pre", "f32", "e4m3")
    assert a5.fixpipe_quant_ok("gm", "qf322fp8_pre", "f32", "e4m3")
    assert a2.fixpipe_quant_modes_for("gm", "f32", "s8") == {"qf322b8_pre", "vqf322b8_pre"}
    # Every (src, dst) pair of every target's table is reachable with some quant mode, except
    # those the F3 rule forbids.
    for n in TARGET_NAMES:
        t = get_target(n)
        assert t.quant_modes <= set(QUANT_MODES)
        for space, pairs in t.fixpipe_types.items():
            for src, dst in pairs:
                assert src in ("f32", "s32")
                assert t.fixpipe_quant_modes_for(space, src, dst), (n, space, src, dst)


def test_quant_modes() -> None:
    base = {"none", "f322f16", "f322bf16", "deqf16", "vdeqf16", "qf322b8_pre", "vqf322b8_pre",
            "req8", "vreq8"}
    assert get_target("a2").quant_modes == base
    assert get_target("a5").quant_modes > base
    assert "qf322hif8_pre_hybrid" in get_target("a5").quant_modes
    assert get_quant_mode("none").pairs == {("f32", "f32"), ("s32", "s32")}
    assert get_quant_mode("deqf16").pairs == {("s32", "f16")}
    assert get_quant_mode("qf322b8_pre").pairs == {("f32", "s8"), ("f32", "u8")}
    assert get_quant_mode("req8").pairs == {("s32", "s8"), ("s32", "u8")}
    assert get_quant_mode("deqf16").is_scalar and get_quant_mode("vdeqf16").is_vector
    assert get_quant_mode("f322f16").operand == "none"
    assert get_quant_mode("none").operand == "none"
    for name, mode in QUANT_MODES.items():
        assert mode.name == name and name == name.lower()
        assert mode.is_vector == name.startswith("v")
    with pytest.raises(ValueError, match="unknown quant mode 'F322F16'"):
        get_quant_mode("F322F16")


def test_data_movement_features() -> None:
    a2, a5, p310 = get_target("a2"), get_target("a5"), get_target("310p")
    assert a2.nd2nz and not a2.dn2nz and a5.dn2nz and a5.small_c0
    assert not get_target("200i_a2").nd2nz and not get_target("910").nd2nz
    assert "s4" in a2.nd2nz_types and "bf16" in a2.nd2nz_types
    assert p310.nd2nz_types == {"s16", "u16", "s32", "u32", "f16", "f32"}
    assert "e4m3" in a5.nd2nz_types and "e4m3" not in a2.nd2nz_types
    assert "s4" in a2.load2d_types and "s4" not in get_target("200i_a2").load2d_types
    assert get_target("910").load2d_types == {"s8", "u8", "s16", "u16", "f16"}
    # LoadData2D transposes b16; LoadDataWithTranspose adds b8/b32 on a2/a3/200i_a2.
    assert a2.transpose_bits == {8, 16, 32} and a5.transpose_bits == {4, 8, 16, 32}
    assert get_target("310p").transpose_bits == get_target("910").transpose_bits == {16}
    assert a5.gemv_disable and not a2.gemv_disable
    assert a2.nd2nz_ranges()["n_value"] == (1, 16384)
    assert a5.nd2nz_ranges()["d_value"][1] == 2**32 - 1
    assert a5.nd2nz_ranges(dn=True)["d_value"][1] == 2**21 - 1


def test_gather_mask_tables() -> None:
    a2, a5 = get_target("a2"), get_target("a5")
    assert a2.gather_mask_types["bf16"] == "u16" and a2.gather_mask_types["f32"] == "u32"
    assert "s8" not in a2.gather_mask_types and a5.gather_mask_types["u8"] == "u8"
    assert "bf16" not in get_target("310p").gather_mask_types
    assert "bf16" not in get_target("200i_a2").gather_mask_types
    assert not get_target("910").has_gather_mask
    assert a2.gather_mask_patterns == (1, 2, 3, 4, 5, 6, 7)
    assert get_target("310p").gather_mask_patterns == (1, 2, 3, 4, 5, 6)
    assert {n: get_target(n).gather_counter_method for n in TARGET_NAMES} == {
        "a2": 1, "a3": 1, "a5": 1, "310p": 2, "200i_a2": 1, "910": 0,
    }


def test_element_sizes() -> None:
    assert element_bits("s4") == 4 and element_bytes("s4") == 0.5
    assert element_bytes("f16") == 2 and isinstance(element_bytes("f16"), int)
    assert element_bytes("u64") == 8 and element_bits("tf32") == 32
    with pytest.raises(UnknownElementTypeError, match="'i32'"):
        element_bits("i32")
    # K0 = 32 bytes / sizeof(T); 16 in L0C.
    assert [c0_elements(e, "l1") for e in ("f32", "f16", "s8", "s4")] == [8, 16, 32, 64]
    assert c0_elements("f32", "l0c") == c0_elements("s32", "l0c") == 16
    with pytest.raises(ValueError, match="'e2m3' \\(6 bits\\) does not tile a 32-byte C0 block"):
        c0_elements("e2m3", "l1")
    assert fixpipe_c0_size_bytes("f32") == 64


def test_mmad_footprints() -> None:
    # §10: M=30, K=70, N=40 (f16 -> f32): L0A 10 fractals (5 KB), L0B 15 (7.5 KB), L0C 6 KB.
    assert mmad_footprint_bytes(30, 40, 70, "f16", "f16", "f32") == (5 * K, 15 * K // 2, 6 * K)
    # s4: K0 = 64, a 16 x 64 fractal is still 512 B.
    assert mmad_footprint_bytes(16, 16, 64, "s4", "s4", "s32") == (512, 512, 1024)
    # f16 accumulation: an L0C fractal of 256 f16 is 512 B.
    assert mmad_footprint_bytes(16, 16, 16, "f16", "f16", "f16")[2] == 512


def test_transpose_blocks() -> None:
    assert [transpose_block_elements(e) for e in ("s8", "f16", "f32", "s4")] == [32, 16, 16, 64]
    assert get_target("a2").fixpipe_none_to_l1 is False
    assert get_target("a5").fixpipe_none_to_l1 is True


def test_struct_field_ranges_have_one_home():
    """The ND2NZ / DN2NZ, LoadData and Fixpipe ranges live in isa/ascend/targets.py; the
    Ascend C field tables of isa/ascend/params.py take them from there (same objects), so the
    verifiers of the tile-level and the raw forms cannot disagree."""
    from mmair.isa.ascend import params, targets

    for name in TARGET_NAMES:
        t = get_target(name)
        for field in params.nd2nz_fields(t).values():
            assert field.range is t.nd2nz_ranges()[field.name]
    for field in params.DN2NZ_FIELDS.values():
        key = {"dn_num": "nd_num", "src_dn_matrix_stride": "src_nd_matrix_stride"}.get(
            field.name, field.name)
        assert field.range is get_target("a5").nd2nz_ranges(dn=True)[key]
    assert params.LOAD2D_FIELDS["repeat_times"].range is targets.LOAD2D_REPEAT_RANGE
    assert params.LOAD2D_GM_FIELDS["src_stride"].range is targets.LOAD2D_STRIDE_RANGE
    assert params.LOAD2D_V2_FIELDS["m_step"].range is targets.LOAD2D_V2_STEP_RANGE
    assert params.FIXPIPE_V220_FIELDS["n_size"].range is targets.FIXPIPE_N_SIZE_RANGE
    assert params.FIXPIPE_ND_M_MAX == targets.FIXPIPE_M_SIZE_RANGE["nz2nd"][1]
