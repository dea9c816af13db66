"""Raw parameter forms of packed 4-bit (s4, e2m1) operands: the nibble order, ND2NZ as the b8
copy on bytes, LoadData / LoadDataWithTranspose on 512-byte fractals (b4 squares of 64 x 64),
Mmad on unpacked fractals, their exact footprints, the --check-numpy reference, and s4 kernels
expanded end to end by pto-expand-params (docs/pto-raw-params.md, "4-bit operands")."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pto_testing import matmul_text, parse, random_operand

from mmair.dialects import pto
from mmair.dialects.pto.footprint import Footprint
from mmair.executor.ascend import raw_kernels as rk
from mmair.executor.engine.errors import ExecutionError
from mmair.executor.engine.memory import Memory
from mmair.executor.reference import reference_outputs
from mmair.executor.runner import run_module
from mmair.isa.ascend import layouts
from tests.unit.executor.ascend.test_raw_footprints import (
    _mask,
    _op,
    _reads_covered,
    _tile,
    _values,
    _written,
)
from tests.unit.passes.test_pto_expand_params import TILE_LEVEL, lowered, run


def test_nibble_order_is_the_ascend_c_int4b_packing():
    """LoadDataWithTranspose.md, int4b_t: 6 (0110) and 7 (0111) packed into one uint8 put 7 in
    the high nibble and 6 in the low one: 01110110 = 118. Element 2i is the low nibble of byte i,
    for the memory model and for the raw kernels (one definition, `layouts.pack_nibbles`)."""
    assert layouts.pack_nibbles(np.array([6, 7])).tolist() == [118]
    assert rk.pack_codes(np.array([[6, 7]], np.uint8)).tolist() == [[118]]
    assert rk.unpack_codes(np.array([118], np.uint8)).tolist() == [6, 7]
    tile = Memory("a2").place("l1", (16, 64), "nz", "s4", 0)
    values = np.zeros(tile.physical_shape, np.int8)
    values.reshape(-1)[:2] = [6, 7]
    tile.store_values(values.astype(ml_dtypes.int4))
    assert tile.physical[0] == 118


def test_e2m1_tile_values_are_decoded_codes():
    """An e2m1 tile keeps codes; `values()` decodes them (it used to cast the codes as integers,
    so a read-modify-write of the tile corrupted the untouched elements)."""
    tile = Memory("a5").place("l1", (16, 64), "nz", "e2m1", 0)
    want = np.resize(np.array([1.5, -2.0, 0.5, 6.0], ml_dtypes.float4_e2m1fn), 16 * 64)
    tile.store_values(want.reshape(tile.physical_shape))
    np.testing.assert_array_equal(tile.values().reshape(-1).astype(np.float32),
                                  want.astype(np.float32))
    tile.store_values(tile.values())
    np.testing.assert_array_equal(tile.values().reshape(-1).astype(np.float32),
                                  want.astype(np.float32))


S4_COPY = """builtin.module attributes {{pto.target = "a2"}} {{
  func.func @k(%g: memref<{rows}x{cols}xi4>) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %rows = arith.constant {rows} : index
    %cols = arith.constant {cols} : index
    %dv = arith.constant {dv} : index
    %sdv = arith.constant {sdv} : index
    %c0s = arith.constant {c0s} : index
    %t = pto.alloc {{offset = 0 : i64}} : !pto.tile<l1, {rows}x{cols}xi4, nz>
    %u = pto.alloc {{offset = 65536 : i64}} : !pto.tile<l1, {rows}x{cols}xi4, nz>
    pto.copy_nd2nz %g, %t[%c0] nd_num %c1 n_value %rows d_value %dv src_nd_matrix_stride %c0 src_d_value %sdv dst_nz_c0_stride %c0s dst_nz_n_stride %c1 dst_nz_matrix_stride %c0 : memref<{rows}x{cols}xi4>, !pto.tile<l1, {rows}x{cols}xi4, nz>
    pto.mte_gm_l1 %g, %u, %rows, %cols : memref<{rows}x{cols}xi4>, !pto.tile<l1, {rows}x{cols}xi4, nz>
    func.return
  }}
}}"""


@pytest.mark.parametrize("rows, cols", [(16, 64), (20, 100), (33, 130)])
def test_s4_nd2nz_is_the_b8_copy_in_bytes(rows, cols):
    """An int4b_t Nd2NzParams reaches the b8 instruction unchanged (Ascend C
    DataCopyGM2L1ND2NZImpl), so dValue and srcDValue count bytes: {1, rows, cols/2, 0, cols/2,
    ceil(rows/16)*16, 1, 0} stages the same Nz bytes as the tile-level mte_gm_l1 (zero C0 tail),
    and the footprint is the bytes it writes."""
    from mmair.executor.ascend import kernels
    from mmair.executor.ascend.functions import _run_copy_nz

    r1 = -(-rows // 16) * 16
    _ctx, module = parse(S4_COPY.format(rows=rows, cols=cols, dv=cols // 2, sdv=cols // 2,
                                        c0s=r1))
    (copy,) = [op for op in module.walk() if isinstance(op, pto.CopyNd2NzOp)]
    g = random_operand(np.random.default_rng(cols), "s4", (rows, cols))
    mem = Memory("a2")
    tile = mem.place("l1", (rows, cols), "nz", "s4", 0, "%t")
    tile_level = mem.place("l1", (rows, cols), "nz", "s4", 65536, "%u")
    tile.physical[...] = tile_level.physical[...] = 0xA5  # stale bytes: the tails are written
    values = {"src": g, "dst": tile, "dst_offset": 0, "nd_num": 1, "n_value": rows,
              "d_value": cols // 2, "src_nd_matrix_stride": 0, "src_d_value": cols // 2,
              "dst_nz_c0_stride": r1, "dst_nz_n_stride": 1, "dst_nz_matrix_stride": 0}
    names = [name for name, _ in type(copy).get_irdl_definition().operands]
    _run_copy_nz(copy, [values[name] for name in names])
    kernels.mte_gm_l1(g, tile_level, rows, cols)
    assert tile.physical.tobytes() == tile_level.physical.tobytes()
    assert run_module(module, inputs={"g": g}, sync_check=True) is not None
    written = _mask(Footprint(copy).accesses(_values(copy, values)), "l1", True, 65536, base=0)
    expect = np.zeros(65536, bool)
    for row in range(rows):  # each row: ceil(cols/64) C0 blocks of 32 bytes, r1 rows apart
        for block in range(-(-cols // 64)):
            lo = (block * r1 + row) * 32
            expect[lo:lo + 32] = True
    assert (written == expect).all()


def test_s4_nd2nz_rejects_a_gm_start_inside_a_byte_and_checks_byte_fields():
    """The instruction addresses GM in bytes: a 4-bit operand starting at an odd element is an
    execution error, not a silent shift; the byte fields keep their struct ranges."""
    from mmair.executor.ascend.functions import gm_nibble_bytes
    from mmair.isa.ascend import params as isa_params

    g = np.zeros(130, ml_dtypes.int4)
    assert gm_nibble_bytes(g[2:]).size == 64
    with pytest.raises(ExecutionError, match="start on a byte boundary"):
        gm_nibble_bytes(g[1:])
    with pytest.raises(ExecutionError, match=r"requires d_value \(dValue\) in \[0, 65535\], got 70000"):
        rk.nd2nz(rk.PackedNibbles(np.zeros(64, np.uint8)), np.zeros(64, np.uint8),
                 rk.Nd2Nz(1, 1, 70000, 0, 1, 1, 1, 0), 32, dict(isa_params.ND2NZ_FIELDS))


@settings(max_examples=30, deadline=None)
@given(nd=st.integers(1, 3), n=st.integers(1, 20), d=st.integers(1, 40),
       c0_extra=st.integers(0, 4), mat_extra=st.integers(0, 32), src_extra=st.integers(0, 5),
       gm_off=st.integers(0, 3), dn=st.booleans(), small=st.booleans())
def test_s4_nd2nz_bytes_equal_the_element_form(nd, n, d, c0_extra, mat_extra, src_extra, gm_off,
                                               dn, small):
    """The 4-bit copy on bytes (`PackedNibbles`, c0 32 bytes) writes the nibbles the same ND2NZ
    on elements would with the byte fields doubled and c0 = 64 (moving byte b moves elements 2b
    and 2b + 1), zero tails included; the --check-numpy reference (byte tags) agrees with the
    executor for ND2NZ, DN2NZ and SmallC0 alike (dav_3510 runs all three as b8 copies)."""
    from mmair.executor.ascend.reference import ReferencePtoFunctions

    small = small and d <= 4
    c0_stride = n + c0_extra
    mat = -(-d // 32) * c0_stride * 32 + mat_extra
    src_d = (n if dn else d) + src_extra
    p = rk.Nd2Nz(nd, n, d, (d if dn else n) * src_d + src_extra, src_d, c0_stride, 1, mat)
    codes = np.random.default_rng(d).integers(0, 16, 8192).astype(np.uint8)
    start = 2 * gm_off
    out = np.full(16384, 0xA5, np.uint8)
    rk.nd2nz(rk.PackedNibbles(codes[start:]), out, p, 32, dn=dn, small_c0=small)
    if not (dn or small):
        elements = rk.unpack_codes(np.full(16384, 0xA5, np.uint8))
        doubled = rk.Nd2Nz(nd, n, 2 * d, 2 * p.src_nd_matrix_stride, 2 * src_d, c0_stride, 1,
                           2 * mat)
        rk.nd2nz(codes[start:], elements, doubled, 64)
        assert (rk.unpack_codes(out) == elements).all()
    values = rk.unpack_codes(np.full(16384, 0xA5, np.uint8)).astype(np.float64)
    written = np.zeros(values.size)
    ReferencePtoFunctions._copy_nz_4bit(codes[start:].astype(np.float64), values, written, p, 0,
                                        {"fields": None, "dn": dn, "small_c0": small})
    assert (values == rk.unpack_codes(out)).all()
    lo, hi = np.zeros(16384, np.uint8), np.full(16384, 0xFF, np.uint8)
    for fill in (lo, hi):
        rk.nd2nz(rk.PackedNibbles(codes[start:]), fill, p, 32, dn=dn, small_c0=small)
    assert ((written != 0) == np.repeat(lo == hi, 2)).all()  # the bytes the copy writes


@pytest.mark.parametrize("repeat, src_stride, dst_gap, frac_gap", [
    (3, 1, 3, 0),  # consecutive squares, their four fractals back to back
    (2, 2, 0, 2),  # every other square, fractals of an iteration two apart
    (2, 0, 3, 0),  # srcStride 0 re-reads one square
])
def test_b4_load_with_transpose_turns_64x64_squares(repeat, src_stride, dst_gap, frac_gap):
    """LoadDataWithTranspose, int4b_t: four consecutive 16 x 64 fractals form a 64 x 64 square,
    which is transposed and split into four 16 x 64 fractals; fractal q of iteration i goes to
    (dstGap + 1)*i + q*(dstFracGap + 1) fractals."""
    rng = np.random.default_rng(repeat)
    codes = rng.integers(0, 16, (6, 64, 64)).astype(np.uint8)  # six squares
    src = rk.pack_codes(codes.reshape(6, -1)).reshape(-1)
    dst = np.zeros(64 * 512, np.uint8)
    rk.load2d_transpose(src, dst, rk.Load2DTranspose(0, repeat, src_stride, dst_gap, frac_gap), "s4")
    fractals = rk.unpack_codes(dst.reshape(-1, 512)).reshape(-1, 16, 64)
    for i in range(repeat):
        t = codes[src_stride * i].T
        for q in range(4):
            slot = (dst_gap + 1) * i + q * (frac_gap + 1)
            np.testing.assert_array_equal(fractals[slot], t[16 * q:16 * (q + 1)])


@settings(max_examples=20, deadline=None)
@given(start=st.integers(0, 2), repeat=st.integers(1, 4), src_stride=st.integers(0, 2),
       gap=st.integers(3, 5), frac_gap=st.integers(0, 1))
def test_b4_load_with_transpose_footprint_is_exactly_its_fractals(start, repeat, src_stride, gap,
                                                                  frac_gap):
    names = ["fg", "si", "rt", "ss", "dg", "z"]
    tile_a, tile_b = "!pto.tile<l1, 512x128xi4, nz>", "!pto.tile<l0b, 512x128xi4, zn>"
    op = _op("a2", f"%a: {tile_a}, %b: {tile_b}, " + ", ".join(f"%{n}: index" for n in names),
             f"pto.load_2d_transpose %a[%z], %b[%z] start_index %si repeat_times %rt src_stride "
             f"%ss dst_gap %dg dst_frac_gap %fg : {tile_a}, {tile_b}")
    size = 512 * 128 // 2
    src, dst = _tile("l1", size, "s4", np.uint8), _tile("l0b", size, "s4", np.uint8)
    values = _values(op, {"src": src, "dst": dst, "start_index": start, "repeat_times": repeat,
                          "src_stride": src_stride, "dst_gap": gap, "dst_frac_gap": frac_gap,
                          "src_offset": 0, "dst_offset": 0})
    got = Footprint(op).accesses(values)
    p = rk.Load2DTranspose(start, repeat, src_stride, gap, frac_gap)
    src_bytes = np.random.default_rng(repeat).integers(0, 256, size, dtype=np.uint8)

    def kernel(s: np.ndarray, d: np.ndarray) -> None:
        rk.load2d_transpose(s, d, p, "s4")

    written, _ = _written(lambda d: kernel(src_bytes, d), size)
    assert (_mask(got, "l0b", True, size) == written).all()
    assert _reads_covered(kernel, src_bytes, _mask(got, "l1", False, size), size)


@pytest.mark.parametrize("target, dst, ok", [("a2", "l0b", True), ("a3", "l0b", True),
                                             ("a2", "l0a", False), ("a5", "l0b", False)])
def test_b4_load_with_transpose_targets(target, dst, ok):
    """b4 squares exist on A2/A3 (and 200I/500 A2) into L0B only ("b4数据类型仅在目的操作数为L0B
    Buffer的时候支持"); Ascend 950's type list has no int4b_t."""
    from mmair.tools.diagnostics import OpVerifyError, verify_module

    layout = "zn" if dst == "l0b" else "zz"
    tile_a, tile_b = "!pto.tile<l1, 64x64xi4, nz>", f"!pto.tile<{dst}, 64x64xi4, {layout}>"
    text = f"""builtin.module attributes {{pto.target = "{target}"}} {{
  func.func @k(%a: {tile_a}, %b: {tile_b}) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    pto.load_2d_transpose %a[%c0], %b[%c0] start_index %c0 repeat_times %c1 src_stride %c1 dst_gap %c3 dst_frac_gap %c0 : {tile_a}, {tile_b}
    func.return
  }}
}}"""
    if ok:
        verify_module(parse(text)[1])
        return
    with pytest.raises(OpVerifyError, match=rf"requires element widths in \[16, 32, 8\] for a "
                                            rf"{dst} destination on target {target}, got s4"):
        parse(text)


@settings(max_examples=20, deadline=None)
@given(m=st.integers(1, 40), n=st.integers(1, 40), k=st.integers(1, 200),
       accumulate=st.booleans())
def test_s4_mmad_reads_unpacked_fractals_and_covers_them(m, n, k, accumulate):
    """Mmad on s4 Zz / Zn fractals (K0 = 64) computes A x B from the unpacked nibbles, and its
    footprint covers the bytes holding the elements it reads (two a byte)."""
    attrs = " {cmatrix_init_val = false}" if accumulate else ""
    ta, tb, tc = ("!pto.tile<l0a, 48x256xi4, zz>", "!pto.tile<l0b, 256x48xi4, zn>",
                  "!pto.tile<l0c, 48x48xi32, nz>")
    op = _op("a2", f"%a: {ta}, %b: {tb}, %c: {tc}, %m: index, %n: index, %k: index",
             f"pto.mmad %a, %b, %c, %m, %n, %k{attrs} : {ta}, {tb}, {tc}")
    mem = Memory("a2")
    a = mem.place("l0a", (48, 256), "zz", "s4", 0, "%a")
    b = mem.place("l0b", (256, 48), "zn", "s4", 0, "%b")
    c = mem.place("l0c", (48, 48), "nz", "s32", 0, "%c")
    rng = np.random.default_rng(m * k + n)
    a.physical[...] = rng.integers(0, 256, a.physical.size, dtype=np.uint8)
    b.physical[...] = rng.integers(0, 256, b.physical.size, dtype=np.uint8)
    gemv = m == 1
    a_idx, b_idx, c_idx = rk.mmad_indices(m, n, k, "s4", "s4", "zz", gemv, False)
    av, bv = a.values().reshape(-1), b.values().reshape(-1)
    out = np.zeros(c.physical.size, np.int32)
    rk.mmad(av, bv, out, m, n, k, lhs="s4", rhs="s4", l0a_layout="zz", gemv=gemv, init_zero=True,
            compute_dtype=np.dtype(np.float64))
    np.testing.assert_array_equal(out[c_idx], av[a_idx].astype(np.int64) @ bv[b_idx])
    got = Footprint(op).accesses(_values(op, {"lhs": a, "rhs": b, "dst": c, "m": m, "n": n,
                                              "k": k}))
    for tile, idx in ((a, a_idx), (b, b_idx)):
        touched = np.zeros(tile.nbytes, bool)
        touched[idx.reshape(-1) // 2] = True
        mask = _mask(got, tile.space, False, tile.nbytes, base=0)
        assert not (touched & ~mask).any()
        assert mask.sum() == idx.max() // 2 + 1  # the prefix up to the last byte read


S4_CASES = [
    (70, 70, 130, ""),  # one tile each way; odd m and n
    (33, 48, 128, "tile-n=64"),  # dynamic panels
    (64, 96, 256, "tile-m=64 tile-n=64 tile-k=128"),  # B^T whole in L1: [j, kk] starts
    (40, 80, 100, "multi-buffer=2 tile-n=64 tile-k=64"),  # unrolled ping-pong loops
    (1, 80, 100, ""),  # the GEMV row
]


@pytest.mark.parametrize("target", ["a2", "a3"])
@pytest.mark.parametrize("transpose_b", [True, False])
@pytest.mark.parametrize("m, n, k, tiles", S4_CASES)
def test_s4_kernels_expand_end_to_end(target, transpose_b, m, n, k, tiles):
    """s4 matmuls (A as is: no target transposes a 4-bit fractal on the way to L0A) expand
    completely: copy_nd2nz with byte fields, load_2d fractals (B given transposed) or the
    SplitBTransposeForS4S8 loop of LoadDataWithTranspose b4 squares (B as is, staged Nz), mmad on
    s4, fixpipe_copy; with the sync checker on, C is the same bytes as tile level, equals the
    integer product, and passes --check-numpy."""
    text = matmul_text(m, n, k, "s4", "s4", "s32", target, False, transpose_b)
    rng = np.random.default_rng(m * n + k)
    a = random_operand(rng, "s4", (m, k))
    b = random_operand(rng, "s4", (n, k) if transpose_b else (k, n))
    inputs = {"a": a, "b": b}
    base = run(lowered(text, tiles, False), inputs).outputs["c"]
    module = lowered(text, tiles, True)
    result = run(module, inputs)
    assert result.outputs["c"].tobytes() == base.tobytes()
    np.testing.assert_array_equal(base, a.astype(np.int64) @ (b.T if transpose_b else b)
                                  .astype(np.int64))
    assert not {op.name for op in module.walk() if isinstance(op, TILE_LEVEL + (pto.MteGmL1Op,))}
    copies = [op for op in module.walk() if isinstance(op, pto.CopyNd2NzOp)]
    pitches = {k // 2} if transpose_b else {k // 2, n // 2}  # GM row pitches in bytes
    assert {pto.static_value(op.src_d_value) for op in copies} == pitches
    squares = [op for op in module.walk() if isinstance(op, pto.Load2DTransposeOp)]
    assert bool(squares) is not transpose_b
    assert all(pto.static_value(op.dst_gap) == 3 for op in squares)  # four fractals a square
    entry = next(op for op in module.walk() if op.name == "func.func")
    (ref,) = reference_outputs(module, entry, inputs, result, None)[0]
    np.testing.assert_array_equal(ref.values, base)


def test_s4_odd_k_keeps_the_gm_copy_tile_level():
    """With an odd K a GM row is not whole bytes: the hardware cannot address it, so the GM ->
    L1 copy stays tile-level (mte_gm_l1) while the L0 side expands; same result."""
    text = matmul_text(40, 40, 131, "s4", "s4", "s32", "a2", False, True)
    rng = np.random.default_rng(1)
    inputs = {"a": random_operand(rng, "s4", (40, 131)), "b": random_operand(rng, "s4", (40, 131))}
    base = run(lowered(text, "", False), inputs).outputs["c"]
    module = lowered(text, "", True)
    assert run(module, inputs).outputs["c"].tobytes() == base.tobytes()
    kinds = {type(op) for op in module.walk()}
    assert pto.MteGmL1Op in kinds and pto.CopyNd2NzOp not in kinds and pto.MmadOp in kinds


@pytest.mark.parametrize("m_step, k_step, dst_stride", [(4, 1, 4), (4, 3, 12), (8, 2, 9)])
def test_b4_load_2d_v2_transposes_the_window(m_step, k_step, dst_stride):
    """LoadData2DParamsV2 with ifTranspose on b4 (a5; mStep a multiple of 4): the window of
    mStep x kStep Nz fractals of 16 x 64, an [mStep*16, kStep*64] matrix R, is written as the Nz
    of R^T with K-direction stride dstStride (the whole-window reading of the b8/b16/b32 forms),
    and the footprint is exactly the fractals written."""
    rows, cols = m_step * 16, k_step * 64
    r = np.random.default_rng(m_step + k_step).integers(0, 16, (rows, cols)).astype(np.uint8)
    nz = r.reshape(m_step, 16, k_step, 64).transpose(2, 0, 1, 3)  # fractal (k1, m1) at k1*M1 + m1
    src = rk.pack_codes(np.ascontiguousarray(nz).reshape(-1, 1024)).reshape(-1)
    size = 64 * 512
    p = rk.Load2DV2(0, 0, m_step, k_step, m_step, dst_stride)
    dst = np.zeros(size, np.uint8)
    rk.load2d_v2(src, dst, p, 4, transpose=True)
    fractals = rk.unpack_codes(dst.reshape(-1, 512)).reshape(-1, 16, 64)
    t = r.T  # [k_step*64, m_step*16]
    for r1 in range(cols // 16):
        for c1 in range(rows // 64):
            np.testing.assert_array_equal(fractals[c1 * dst_stride + r1],
                                          t[16 * r1:16 * (r1 + 1), 64 * c1:64 * (c1 + 1)])
    names = ["m0", "k0", "ms", "ks", "ss", "ds", "z"]
    tile_a, tile_b = "!pto.tile<l1, 512x128xi4, nz>", "!pto.tile<l0b, 512x128xi4, zn>"
    op = _op("a5", f"%a: {tile_a}, %b: {tile_b}, " + ", ".join(f"%{n}: index" for n in names),
             f"pto.load_2d_v2 %a[%z], %b[%z] m_start_position %m0 k_start_position %k0 m_step %ms "
             f"k_step %ks src_stride %ss dst_stride %ds if_transpose : {tile_a}, {tile_b}")
    s_tile, d_tile = _tile("l1", size, "s4", np.uint8), _tile("l0b", size, "s4", np.uint8)
    values = _values(op, {"src": s_tile, "dst": d_tile, "m_start_position": 0,
                          "k_start_position": 0, "m_step": m_step, "k_step": k_step,
                          "src_stride": m_step, "dst_stride": dst_stride, "src_offset": 0,
                          "dst_offset": 0})
    padded = np.zeros(size, np.uint8)
    padded[:src.size] = src
    written, _ = _written(lambda d: rk.load2d_v2(padded, d, p, 4, transpose=True), size)
    assert (_mask(Footprint(op).accesses(values), "l0b", True, size) == written).all()


MOVES_A5 = """builtin.module attributes {{pto.target = "a5"}} {{
  func.func @k(%a: memref<{m}x{k}x{t}>, %bt: memref<{n}x{k}x{t}>) {{
    %cm = arith.constant {m} : index
    %cn = arith.constant {n} : index
    %ck = arith.constant {k} : index
    %a1 = pto.alloc {{offset = 0 : i64}} : !pto.tile<l1, {m}x{k}x{t}, nz>
    %b1 = pto.alloc {{offset = 65536 : i64}} : !pto.tile<l1, {n}x{k}x{t}, nz>
    %a0 = pto.alloc {{offset = 0 : i64}} : !pto.tile<l0a, {m}x{k}x{t}, nz>
    %b0 = pto.alloc {{offset = 0 : i64}} : !pto.tile<l0b, {k}x{n}x{t}, zn>
    pto.mte_gm_l1 %a, %a1, %cm, %ck : memref<{m}x{k}x{t}>, !pto.tile<l1, {m}x{k}x{t}, nz>
    pto.mte_gm_l1 %bt, %b1, %cn, %ck : memref<{n}x{k}x{t}>, !pto.tile<l1, {n}x{k}x{t}, nz>
    pto.mte_l1_l0a %a1, %a0, %cm, %ck : !pto.tile<l1, {m}x{k}x{t}, nz>, !pto.tile<l0a, {m}x{k}x{t}, nz>
    pto.mte_l1_l0b %b1, %b0, %ck, %cn transpose : !pto.tile<l1, {n}x{k}x{t}, nz>, !pto.tile<l0b, {k}x{n}x{t}, zn>
    func.return
  }}
}}"""


@pytest.mark.parametrize("element", ["e2m1"])
def test_a5_4bit_moves_expand_to_the_same_bytes(element):
    """a5 accepts e2m1 in ND2NZ and LoadData (no Mmad takes it there, so a kernel only moves
    data): GM -> L1 -> L0A / L0B expanded to copy_nd2nz (byte fields) and load_2d leaves L1, L0A
    and L0B with the same bytes as the tile-level moves. (s4 has no ND2NZ on a5:
    `test_a5_has_no_s4_nd2nz`.)"""
    from xdsl.passes import PassPipeline

    from mmair.executor.runner import make_interpreter
    from mmair.passes import get_all_passes

    m, n, k = 40, 24, 192
    mlir = {"e2m1": "f4E2M1FN", "s4": "i4"}[element]
    rng = np.random.default_rng(3)
    dtype = ml_dtypes.float4_e2m1fn if element == "e2m1" else ml_dtypes.int4
    a = rng.integers(0, 16, (m, k)).astype(np.uint8).view(dtype) if element == "e2m1" else \
        random_operand(rng, "s4", (m, k))
    bt = rng.integers(0, 16, (n, k)).astype(np.uint8).view(dtype) if element == "e2m1" else \
        random_operand(rng, "s4", (n, k))
    images = []
    for expand in (False, True):
        ctx, module = parse(MOVES_A5.format(m=m, n=n, k=k, t=mlir))
        if expand:
            PassPipeline.parse_spec(get_all_passes(), "pto-expand-params").apply(ctx, module)
            kinds = {type(op) for op in module.walk()}
            assert pto.CopyNd2NzOp in kinds and pto.Load2DOp in kinds
            assert not kinds & {pto.MteGmL1Op, pto.MteL1L0AOp, pto.MteL1L0BOp}
        interp, memory = make_interpreter(module, "a5")
        interp.call_op("k", (a, bt))
        images.append({s: memory.space(s).data.copy() for s in ("l1", "l0a", "l0b")})
    for space in ("l1", "l0a", "l0b"):
        assert images[0][space].tobytes() == images[1][space].tobytes(), space
    assert images[0]["l0a"].any() and images[0]["l0b"].any()


def _nz_codes(x: np.ndarray) -> np.ndarray:
    """The 512-byte Nz fractals (16 x 64 nibbles, fractal (r1, c1) at c1*R1 + r1) of `x`."""
    r1, c1 = x.shape[0] // 16, x.shape[1] // 64
    return x.reshape(r1, 16, c1, 64).transpose(2, 0, 1, 3).reshape(-1, 1024)


@pytest.mark.parametrize("dst_gap, frac_gap, dst_step, layout", [(7, 0, 1, "nz"), (0, 2, 3, "zz")])
def test_b4_load_with_transpose_doc_examples(dst_gap, frac_gap, dst_step, layout):
    """The two int4b_t examples of LoadDataWithTranspose.md (分形转置): 12288 bytes (six 64 x 64
    squares), an outer loop of 2 with source offset 3 squares, repeatTime 3, srcStride 1, and
    (a) dstGap 7, dstFracGap 0, destination offset 1 square; (b) dstGap 0, dstFracGap 2,
    destination offset 3 squares. With the source the Nz of X [192, 128] (square (rb, cb) at
    3*cb + rb), (a) writes the Nz of X^T and (b) its Zz."""
    x = np.random.default_rng(dst_gap).integers(0, 16, (192, 128)).astype(np.uint8)
    src = rk.pack_codes(_nz_codes(x)).reshape(-1)
    dst = np.zeros(12288, np.uint8)
    p = rk.Load2DTranspose(0, 3, 1, dst_gap, frac_gap)
    for outer in range(2):
        rk.load2d_transpose(src[outer * 3 * 2048:], dst[outer * dst_step * 2048:], p, "s4")
    got = rk.unpack_codes(dst.reshape(-1, 512))
    t = x.T  # [128, 192]
    if layout == "nz":
        want = _nz_codes(t)
    else:  # zz: fractal (r1, c1) at r1*C1 + c1
        want = t.reshape(8, 16, 3, 64).transpose(0, 2, 1, 3).reshape(-1, 1024)
    np.testing.assert_array_equal(got, want)


DN_A5 = """builtin.module attributes {pto.target = "a5"} {
  func.func @k(%g: memref<32x64xf4E2M1FN>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %t = pto.alloc : !pto.tile<l1, 64x64xf4E2M1FN, nz>
    %u = pto.alloc : !pto.tile<l1, 64x64xf4E2M1FN, nz>
    pto.copy_dn2nz %g, %t[%c0] dn_num %c1 n_value %n d_value %c16 src_dn_matrix_stride %c0 src_d_value %c32 dst_nz_c0_stride %c32 dst_nz_n_stride %c1 dst_nz_matrix_stride %c0 : memref<32x64xf4E2M1FN>, !pto.tile<l1, 64x64xf4E2M1FN, nz>
    pto.copy_nd2nz %g, %u[%c0] nd_num %c1 n_value %c16 d_value %c3 src_nd_matrix_stride %c0 src_d_value %c32 dst_nz_c0_stride %c1 dst_nz_n_stride %c1 dst_nz_matrix_stride %c0 small_c0 : memref<32x64xf4E2M1FN>, !pto.tile<l1, 64x64xf4E2M1FN, nz>
    func.return
  }
}"""


def test_4bit_dn2nz_and_small_c0_run_as_b8_copies():
    """a5 copies fp4x2 data with DN2NZ and SmallC0 as b8 copies (dav_3510
    DataCopyGM2L1DN2NZImpl / ND2NZImpl); the race checker sees their byte footprints, and an odd
    DN2NZ nValue (the inner axis) is an execution error, as the implementation asserts."""
    _ctx, module = parse(DN_A5)
    g = np.random.default_rng(2).integers(0, 16, (32, 64)).astype(np.uint8).view(
        ml_dtypes.float4_e2m1fn)
    run_module(module, inputs={"g": g, "n": 32}, sync_check=True)
    with pytest.raises(ExecutionError, match=r"copy_dn2nz of 4-bit elements requires n_value "
                                             r"\(nValue\) to be a multiple of 2, got 31"):
        run_module(module, inputs={"g": g, "n": 31}, sync_check=True)


@settings(max_examples=30, deadline=None)
@given(nd=st.integers(1, 3), n=st.integers(1, 12), d=st.integers(1, 40), dn=st.booleans(),
       c0_extra=st.integers(0, 4), mat_extra=st.integers(0, 32), src_extra=st.integers(0, 5),
       gm_off=st.integers(0, 3), small=st.booleans())
def test_4bit_nz_copy_footprint_is_exactly_its_bytes(nd, n, d, dn, c0_extra, mat_extra, src_extra,
                                                     gm_off, small):
    """The exact footprint of a 4-bit copy_nd2nz / copy_dn2nz (byte fields): the L1 bytes it
    writes, nothing more, and GM reads covering every numpy element (two per field byte) the
    copy reads."""
    from mmair.executor.ascend.functions import gm_nibble_bytes

    small = small and d <= 4
    n = 2 * n if dn else n  # a 4-bit DN2NZ takes an even nValue
    kind, count, mstride = ("copy_dn2nz", "dn_num", "src_dn_matrix_stride") if dn else \
        ("copy_nd2nz", "nd_num", "src_nd_matrix_stride")
    names = ["nd", "msd", "nv", "dv", "sdv", "c0s", "ns", "mat", "z"]
    tile = "!pto.tile<l1, 256x256xf4E2M1FN, nz>"
    flag = " small_c0" if small else ""
    op = _op("a5", f"%g: memref<16384xf4E2M1FN>, %t: {tile}, "
             + ", ".join(f"%{x}: index" for x in names),
             f"pto.{kind} %g, %t[%z] {count} %nd n_value %nv d_value %dv {mstride} %msd "
             f"src_d_value %sdv dst_nz_c0_stride %c0s dst_nz_n_stride %ns dst_nz_matrix_stride "
             f"%mat{flag} : memref<16384xf4E2M1FN>, {tile}")
    c0_stride = n + c0_extra
    mat = -(-d // 32) * c0_stride * 32 + mat_extra
    src_d = (n if dn else d) + src_extra
    src_mat = (d if dn else n) * src_d + src_extra
    root = np.random.default_rng(n).integers(0, 16, 16384).astype(np.uint8).view(
        ml_dtypes.float4_e2m1fn).copy()  # owns its buffer: the GM footprint's memory
    gm = root[2 * gm_off:]
    size = 256 * 256 // 2
    dst = _tile("l1", size, "e2m1", np.uint8)
    values = _values(op, {"src": gm, "dst": dst, count: nd, "n_value": n, "d_value": d,
                          mstride: src_mat, "src_d_value": src_d, "dst_nz_c0_stride": c0_stride,
                          "dst_nz_n_stride": 1, "dst_nz_matrix_stride": mat, "dst_offset": 0})
    got = Footprint(op).accesses(values)
    p = rk.Nd2Nz(nd, n, d, src_mat, src_d, c0_stride, 1, mat)

    def kernel(s: np.ndarray, out: np.ndarray) -> None:
        rk.nd2nz(gm_nibble_bytes(s.view(ml_dtypes.float4_e2m1fn)[2 * gm_off:]), out, p, 32,
                 dn=dn, small_c0=small)

    root_bytes = root.view(np.uint8)
    written, _ = _written(lambda out: kernel(root_bytes, out), size)
    assert (_mask(got, "l1", True, size) == written).all()
    read = _mask(got, "gm", False, root_bytes.size, base=0, memory=id(root))
    assert _reads_covered(kernel, root_bytes, read, size)


ODD_GM = """builtin.module attributes {pto.target = "a2"} {
  func.func @k(%g: memref<16x130xi4>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c65 = arith.constant 65 : index
    %t = pto.alloc : !pto.tile<l1, 16x128xi4, nz>
    %w = memref.subview %g[0, 1] [16, 128] [1, 1] : memref<16x130xi4> to memref<16x128xi4, strided<[130, 1], offset: 1>>
    pto.copy_nd2nz %w, %t[%c0] nd_num %c1 n_value %c16 d_value %c32 src_nd_matrix_stride %c0 src_d_value %c65 dst_nz_c0_stride %c16 dst_nz_n_stride %c1 dst_nz_matrix_stride %c0 : memref<16x128xi4, strided<[130, 1], offset: 1>>, !pto.tile<l1, 16x128xi4, nz>
    func.return
  }
}
"""


def test_odd_4bit_gm_start_is_one_diagnostic(tmp_path, capsys):
    """mmair-run on a raw copy from a 4-bit GM window that starts inside a byte: one
    file:line:col error with the source line, exit 1, no traceback."""
    from mmair.tools.run import main

    path = tmp_path / "odd.mlir"
    path.write_text(ODD_GM)
    assert main([str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:10:5: error: 'pto.copy_nd2nz' op requires a 4-bit GM operand "
                          f"to start on a byte boundary (an even element), got element 1\n")
    assert "Traceback" not in err and "pto.copy_nd2nz %w" in err


def test_a5_has_no_s4_nd2nz():
    """The Ascend 950 ND2NZ and DN2NZ pages list fp4x2_e2m1_t and no int4b_t for GM -> A1/B1, so on
    a5 an s4 copy_nd2nz, an s4 mte_gm_l1 (what pto-expand-params would lower to copy_nd2nz) and an
    s4 pto.matmul (what pto-tile-matmul would tile into mte_gm_l1) are verifier errors: no pass
    can emit an s4 ND2NZ there. a2 keeps it (its page lists int4b_t)."""
    from mmair.isa.ascend.targets import get_target
    from mmair.tools.diagnostics import OpVerifyError

    assert "s4" not in get_target("a5").nd2nz_types and "e2m1" in get_target("a5").nd2nz_types
    assert "s4" in get_target("a2").nd2nz_types
    legal = r"requires element type in \[bf16, e2m1, e4m3, e5m2, f16, f32, hif8, s16, s32, s8, u16, u32, u8\] on target a5, got s4"
    with pytest.raises(OpVerifyError, match=r"'pto.mte_gm_l1' op " + legal):
        parse(MOVES_A5.format(m=40, n=24, k=192, t="i4"))
    with pytest.raises(OpVerifyError, match=r"'pto.matmul' op requires \(a, b\) element types in "
                                            r"\[.*\] on target a5, got \(s4, s4\)"):
        parse(matmul_text(32, 32, 64, "s4", "s4", "s32", target="a5"))
