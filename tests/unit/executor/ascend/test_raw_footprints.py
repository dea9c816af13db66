"""Exact runtime footprints of the raw parameter forms (`raw_footprints.RAW_EXACT`) against the bytes
the kernels (`executor/ascend/raw_kernels.py`) really touch, at random parameters.

Written bytes are found by running a kernel twice on destinations filled with 0x00 and 0xFF
(a byte is written iff both runs leave the same value); read bytes by changing every source byte
outside the read footprint and checking that the results do not change. The footprint must cover
every written byte, and must be exactly the written bytes where the instruction writes whole
runs (LoadData, ND2NZ, Fixpipe ND / DN): a wider footprint is a false race (issue 10: the
load_2d loop of pto-expand-params was reported as a WAW race on L0A)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mmair.dialects.pto import access, effects, raw_footprints
from mmair.dialects.pto.footprint import Footprint
from mmair.executor.ascend import raw_kernels as rk
from tests.unit.dialects.pto.test_pto_effects import parse

BASE = 4096  # the tiles' byte offset in their space: footprints are absolute addresses


def _op(target: str, args: str, body: str):
    text = (f'builtin.module attributes {{pto.target = "{target}"}} {{\n'
            f"  func.func @k({args}) {{\n    {body}\n    func.return\n  }}\n}}")
    module = parse(text)
    return next(op for op in module.walk() if type(op) in effects.EFFECTS)


def _index_args(names: list[str]) -> str:
    return ", ".join(f"%{n}: index" for n in names)


def _values(op, named: dict) -> list:
    out = [None] * len(op.operands)
    for name, value in named.items():
        index = effects.operand_index(op, name)
        if index is not None:
            out[index] = value
    return out


def _tile(space: str, nbytes: int, element: str, dtype) -> SimpleNamespace:
    return SimpleNamespace(space=space, offset=BASE, nbytes=nbytes, name=f"%{space}",
                           element=element, physical=np.zeros(nbytes // np.dtype(dtype).itemsize,
                                                              dtype))


def _mask(accesses, space: str, write: bool, size: int, base: int = BASE,
          memory=None) -> np.ndarray:
    """The bytes [base, base + size) of `space` the accesses of one direction cover."""
    mask = np.zeros(size, bool)
    for a in accesses:
        if a.space != space or a.write != write or (memory is not None and a.memory != memory):
            continue
        for r in range(a.rows):
            lo = a.start + r * a.stride - base
            mask[max(lo, 0):max(lo + a.width, 0)] = True
    return mask


def _written(run, size: int) -> tuple[np.ndarray, np.ndarray]:
    """(written-byte mask, result) of `run(dst_bytes)` on a destination of `size` bytes."""
    lo, hi = np.zeros(size, np.uint8), np.full(size, 0xFF, np.uint8)
    run(lo)
    run(hi)
    return lo == hi, lo


def _reads_covered(run, src: np.ndarray, read: np.ndarray, dst_size: int) -> bool:
    """Changing the source bytes outside `read` leaves the result unchanged."""
    _, before = _written(lambda d: run(src, d), dst_size)
    other = src.copy()
    rng = np.random.default_rng(0)
    noise = rng.integers(0, 256, src.size, dtype=np.uint8)
    other[~read] = noise[~read] ^ 0x55
    _, after = _written(lambda d: run(other, d), dst_size)
    return bool((before == after).all())


def _random_f16_bytes(size: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.standard_normal(size // 2).astype(np.float16).view(np.uint8)


@settings(max_examples=40, deadline=None)
@given(start=st.integers(0, 6), repeat=st.integers(1, 8), src_stride=st.integers(0, 4),
       gap=st.integers(0, 3), soff=st.integers(0, 3), doff=st.integers(0, 3),
       target=st.sampled_from(["a2", "a5"]))
def test_load_2d_footprint_is_exactly_its_fractals(start, repeat, src_stride, gap, soff, doff,
                                                   target):
    names = ["si", "rt", "ss", "dg", "so", "do"]
    op = _op(target, "%a: !pto.tile<l1, 128x128xf16, nz>, %b: !pto.tile<l0a, 128x128xf16, zz>, "
             + _index_args(names),
             "pto.load_2d %a[%so], %b[%do] start_index %si repeat_times %rt src_stride %ss "
             "dst_gap %dg : !pto.tile<l1, 128x128xf16, nz>, !pto.tile<l0a, 128x128xf16, zz>")
    size = 128 * 128 * 2
    src, dst = _tile("l1", size, "f16", np.float16), _tile("l0a", size, "f16", np.float16)
    if target == "a5":
        gap = 0  # dstGap has no effect on a5 (the executor refuses a non-zero one)
    values = _values(op, {"src": src, "dst": dst, "start_index": start, "repeat_times": repeat,
                          "src_stride": src_stride, "dst_gap": gap, "src_offset": soff * 256,
                          "dst_offset": doff * 256})
    got = Footprint(op).accesses(values)
    p = rk.Load2D(start, repeat, src_stride, gap)
    src_bytes = _random_f16_bytes(size, start)

    def run(s: np.ndarray, d: np.ndarray) -> None:
        rk.load2d(s[soff * 512:], d[doff * 512:], p, 16)

    written, _ = _written(lambda d: run(src_bytes, d), size)
    assert (_mask(got, "l0a", True, size) == written).all()
    read = _mask(got, "l1", False, size)
    assert _reads_covered(run, src_bytes, read, size)
    expect = np.zeros(size, bool)  # the fractals the formula names, nothing else
    for i in range(repeat):
        lo = soff * 512 + (start + src_stride * i) * 512
        expect[lo:lo + 512] = True
    assert (read == expect).all()


@settings(max_examples=30, deadline=None)
@given(m0=st.integers(0, 2), k0=st.integers(0, 2), m_step=st.integers(1, 4),
       k_step=st.integers(1, 4), extra=st.integers(0, 3), dst_extra=st.integers(0, 3),
       transpose=st.booleans())
def test_load_2d_v2_footprint_is_exactly_its_window(m0, k0, m_step, k_step, extra, dst_extra,
                                                     transpose):
    names = ["ms", "ks", "mst", "kst", "ss", "ds", "z"]
    flag = " if_transpose" if transpose else ""
    op = _op("a5", "%a: !pto.tile<l1, 128x128xf16, nz>, %b: !pto.tile<l0a, 128x128xf16, nz>, "
             + _index_args(names),
             f"pto.load_2d_v2 %a[%z], %b[%z] m_start_position %ms k_start_position %ks m_step "
             f"%mst k_step %kst src_stride %ss dst_stride %ds{flag} : "
             "!pto.tile<l1, 128x128xf16, nz>, !pto.tile<l0a, 128x128xf16, nz>")
    size = 128 * 128 * 2
    src_stride = m0 + m_step + extra
    dst_rows = k_step if transpose else m_step
    dst_stride = dst_rows + dst_extra
    src, dst = _tile("l1", size, "f16", np.float16), _tile("l0a", size, "f16", np.float16)
    values = _values(op, {"src": src, "dst": dst, "m_start_position": m0, "k_start_position": k0,
                          "m_step": m_step, "k_step": k_step, "src_stride": src_stride,
                          "dst_stride": dst_stride, "src_offset": 0, "dst_offset": 0})
    got = Footprint(op).accesses(values)
    p = rk.Load2DV2(m0, k0, m_step, k_step, src_stride, dst_stride)
    src_bytes = _random_f16_bytes(size, m_step)

    def run(s: np.ndarray, d: np.ndarray) -> None:
        rk.load2d_v2(s, d, p, 16, transpose)

    written, _ = _written(lambda d: run(src_bytes, d), size)
    assert (_mask(got, "l0a", True, size) == written).all()
    assert _reads_covered(run, src_bytes, _mask(got, "l1", False, size), size)


@settings(max_examples=30, deadline=None)
@given(elem=st.sampled_from(["f16", "s8", "f32"]), start=st.integers(0, 3),
       repeat=st.integers(1, 5), src_stride=st.integers(0, 3), gap=st.integers(0, 3),
       frac_gap=st.integers(0, 2))
def test_load_2d_transpose_footprint_is_exactly_its_fractals(elem, start, repeat, src_stride, gap,
                                                             frac_gap):
    names = ["fg", "si", "rt", "ss", "dg", "z"]
    mlir = {"f16": "f16", "s8": "i8", "f32": "f32"}[elem]
    tile_a = f"!pto.tile<l1, 128x128x{mlir}, zz>"
    tile_b = f"!pto.tile<l0b, 128x128x{mlir}, zn>"
    op = _op("a2", f"%a: {tile_a}, %b: {tile_b}, " + _index_args(names),
             f"pto.load_2d_transpose %a[%z], %b[%z] start_index %si repeat_times %rt src_stride "
             f"%ss dst_gap %dg dst_frac_gap %fg : {tile_a}, {tile_b}")
    dtype = {"f16": np.float16, "s8": np.int8, "f32": np.float32}[elem]
    size = 128 * 128 * np.dtype(dtype).itemsize
    src, dst = _tile("l1", size, elem, dtype), _tile("l0b", size, elem, dtype)
    values = _values(op, {"src": src, "dst": dst, "start_index": start, "repeat_times": repeat,
                          "src_stride": src_stride, "dst_gap": gap, "dst_frac_gap": frac_gap,
                          "src_offset": 0, "dst_offset": 0})
    got = Footprint(op).accesses(values)
    p = rk.Load2DTranspose(start, repeat, src_stride, gap, frac_gap)
    src_bytes = np.random.default_rng(repeat).integers(0, 256, size, dtype=np.uint8)

    def run(s: np.ndarray, d: np.ndarray) -> None:
        rk.load2d_transpose(s, d, p, elem)

    written, _ = _written(lambda d: run(src_bytes, d), size)
    assert (_mask(got, "l0b", True, size) == written).all()
    assert _reads_covered(run, src_bytes, _mask(got, "l1", False, size), size)


@settings(max_examples=40, deadline=None)
@given(nd=st.integers(1, 3), n=st.integers(1, 20), d=st.integers(1, 40), dn=st.booleans(),
       n_stride=st.integers(1, 2), c0_extra=st.integers(0, 8), mat_extra=st.integers(0, 64),
       src_extra=st.integers(0, 5), gm_off=st.integers(0, 7), small=st.booleans())
def test_nd2nz_footprint_is_exactly_its_rows(nd, n, d, dn, n_stride, c0_extra, mat_extra,
                                             src_extra, gm_off, small):
    small = small and not dn and d <= 4
    names = ["nd", "msd", "nv", "dv", "sdv", "c0s", "ns", "mat", "z"]
    kind, count, mstride = ("copy_dn2nz", "dn_num", "src_dn_matrix_stride") if dn else \
        ("copy_nd2nz", "nd_num", "src_nd_matrix_stride")
    tile = "!pto.tile<l1, 256x256xf16, nz>"
    flag = " small_c0" if small else ""
    op = _op("a5", f"%g: memref<65536xf16>, %t: {tile}, " + _index_args(names),
             f"pto.{kind} %g, %t[%z] {count} %nd n_value %nv d_value %dv {mstride} %msd "
             f"src_d_value %sdv dst_nz_c0_stride %c0s dst_nz_n_stride %ns dst_nz_matrix_stride "
             f"%mat{flag} : memref<65536xf16>, {tile}")
    c0 = 16
    c0_stride = n * n_stride + c0_extra
    mat = (-(-d // c0)) * c0_stride * c0 + mat_extra
    src_d = (n if dn else d) + src_extra
    src_mat = (d if dn else n) * src_d + src_extra
    root = np.random.default_rng(n).standard_normal(65536).astype(np.float16)
    gm = root[gm_off:]
    size = 256 * 256 * 2
    dst = _tile("l1", size, "f16", np.float16)
    values = _values(op, {"src": gm, "dst": dst, count: nd, "n_value": n, "d_value": d,
                          mstride: src_mat, "src_d_value": src_d, "dst_nz_c0_stride": c0_stride,
                          "dst_nz_n_stride": n_stride, "dst_nz_matrix_stride": mat,
                          "dst_offset": 0})
    got = Footprint(op).accesses(values)
    p = rk.Nd2Nz(nd, n, d, src_mat, src_d, c0_stride, n_stride, mat)

    def run(s: np.ndarray, out: np.ndarray) -> None:
        rk.nd2nz(s.view(np.float16)[gm_off:], out.view(np.float16), p, c0, dn=dn, small_c0=small)

    root_bytes = root.view(np.uint8)
    written, _ = _written(lambda out: run(root_bytes, out), size)
    assert (_mask(got, "l1", True, size) == written).all()
    read = _mask(got, "gm", False, root_bytes.size, base=0, memory=id(root))
    assert _reads_covered(run, root_bytes, read, size)


@settings(max_examples=30, deadline=None)
@given(m=st.integers(1, 40), n=st.integers(1, 40), k=st.integers(1, 70),
       target=st.sampled_from(["a2", "a5"]), accumulate=st.booleans(), gemv_off=st.booleans())
def test_mmad_footprint_covers_its_fractal_grids(m, n, k, target, accumulate, gemv_off):
    from mmair.isa.ascend import params as isa_params
    from mmair.isa.ascend.targets import get_target

    t = get_target(target)
    gemv_off = gemv_off and target == "a5"
    layout = t.l0a_layout
    props = []
    if accumulate:
        props.append("cmatrix_init_val = false")
    if gemv_off:
        props.append("disable_gemv")
    attrs = f" {{{', '.join(props)}}}" if props else ""
    ta, tb, tc = (f"!pto.tile<l0a, 64x96xf16, {layout}>", "!pto.tile<l0b, 96x64xf16, zn>",
                  "!pto.tile<l0c, 64x64xf32, nz>")
    op = _op(target, f"%a: {ta}, %b: {tb}, %c: {tc}, " + _index_args(["m", "n", "k"]),
             f"pto.mmad %a, %b, %c, %m, %n, %k{attrs} : {ta}, {tb}, {tc}")
    a = _tile("l0a", 64 * 96 * 2, "f16", np.float16)
    b = _tile("l0b", 96 * 64 * 2, "f16", np.float16)
    c = _tile("l0c", 64 * 64 * 4, "f32", np.float32)
    got = Footprint(op).accesses(_values(op, {"lhs": a, "rhs": b, "dst": c, "m": m, "n": n,
                                              "k": k}))
    gemv = isa_params.gemv_active(t, m, gemv_off)
    a_idx, b_idx, c_idx = rk.mmad_indices(m, n, k, "f16", "f16", layout, gemv, False)
    for tile, idx, write in ((a, a_idx, False), (b, b_idx, False), (c, c_idx, True)):
        touched = np.zeros(tile.nbytes, bool)
        item = tile.physical.itemsize
        for lane in range(item):
            touched[idx.reshape(-1) * item + lane] = True
        mask = _mask(got, tile.space, write, tile.nbytes)
        assert not (touched & ~mask).any(), tile.space
        assert mask.sum() == (idx.max() + 1) * item  # the prefix up to the last element
    assert bool(_mask(got, "l0c", False, c.nbytes).any()) == accumulate


@settings(max_examples=40, deadline=None)
@given(layout=st.sampled_from(["nz2nd", "nz2dn", "nz2nz"]), m=st.integers(1, 40),
       n=st.integers(1, 40), nd=st.integers(1, 3), extra=st.integers(0, 9),
       gm_off=st.integers(0, 5))
def test_fixpipe_copy_footprint_covers_its_rows(layout, m, n, nd, extra, gm_off):
    target = "a5" if layout == "nz2dn" else "a2"
    if layout == "nz2nz":
        n = -(-n // 16) * 16
        nd = 1
    names = ["z", "ns", "ms", "ss", "ds", "nd", "snd", "dnd"]
    src_t = "!pto.tile<l0c, 128x128xf32, nz>"
    op = _op(target, f"%c: {src_t}, %g: memref<65536xf32>, " + _index_args(names),
             f"pto.fixpipe_copy %c[%z], %g n_size %ns m_size %ms src_stride %ss dst_stride %ds "
             f"nd_num %nd src_nd_stride %snd dst_nd_stride %dnd {{layout = \"{layout}\"}} : "
             f"{src_t}, memref<65536xf32>")
    m16 = -(-m // 16) * 16
    src_stride = m16 + extra
    src_nd = (-(-n // 16)) * src_stride
    if layout == "nz2nd":
        dst_stride = n + extra
        dst_nd = m * dst_stride + extra
    elif layout == "nz2dn":
        dst_stride = m + extra
        dst_nd = n * dst_stride + extra
    else:
        dst_stride = m * 2 + extra  # units of 32 B = 8 f32 elements on a2
        dst_nd = 0
    src = _tile("l0c", 128 * 128 * 4, "f32", np.float32)
    src.physical[:] = np.random.default_rng(m).standard_normal(src.physical.size)
    root = np.zeros(65536, np.float32)
    gm = root[gm_off:]
    values = _values(op, {"src": src, "dst": gm, "n_size": n, "m_size": m, "src_stride": src_stride,
                          "dst_stride": dst_stride, "nd_num": nd, "src_nd_stride": src_nd,
                          "dst_nd_stride": dst_nd, "src_offset": 0})
    got = Footprint(op).accesses(values)
    p = rk.FixpipeRaw(n, m, src_stride, dst_stride, nd, src_nd, dst_nd)
    unit = 8 if target == "a2" else 1

    def run(s: np.ndarray, out: np.ndarray) -> None:
        rk.fixpipe(s.view(np.float32), out.view(np.float32)[gm_off:], p, layout, "none", False,
                   None, None, unit)

    size = root.nbytes
    written, _ = _written(lambda out: run(src.physical.view(np.uint8), out), size)
    mask = _mask(got, "gm", True, size, base=0, memory=id(root))
    assert not (written & ~mask).any()
    if layout != "nz2nz":
        assert (mask == written).all()
    read = _mask(got, "l0c", False, src.nbytes)
    assert _reads_covered(run, src.physical.view(np.uint8), read, size)


@settings(max_examples=30, deadline=None)
@given(count=st.integers(1, 6), length=st.integers(1, 3), src_gap=st.integers(0, 3),
       dst_gap=st.integers(0, 2), soff=st.integers(0, 3), target=st.sampled_from(["a2", "a5"]))
def test_copy_l1_bt_footprint_is_exactly_its_bursts(count, length, src_gap, dst_gap, soff, target):
    from mmair.isa.ascend import params as isa_params
    from mmair.isa.ascend.targets import get_target

    names = ["bc", "bl", "sg", "dg", "so", "z"]
    src_t, dst_t = "!pto.tile<l1, 4096xf32, nd>", "!pto.tile<bt, 1024xf32, nd>"
    op = _op(target, f"%a: {src_t}, %b: {dst_t}, " + _index_args(names),
             f"pto.copy_l1_bt %a[%so], %b[%z] block_count %bc block_len %bl src_gap %sg "
             f"dst_gap %dg : {src_t}, {dst_t}")
    src, dst = _tile("l1", 4096 * 4, "f32", np.float32), _tile("bt", 1024 * 4, "f32", np.float32)
    values = _values(op, {"src": src, "dst": dst, "block_count": count, "block_len": length,
                          "src_gap": src_gap, "dst_gap": dst_gap, "src_offset": soff * 8,
                          "dst_offset": 0})
    got = Footprint(op).accesses(values)
    p = rk.CopyL1Bt(count, length, src_gap, dst_gap)
    unit = isa_params.l1_bt_unit_bytes(get_target(target))
    src_bytes = np.random.default_rng(count).integers(0, 256, src.nbytes, dtype=np.uint8)

    def run(s: np.ndarray, d: np.ndarray) -> None:
        rk.copy_l1_bt(s[soff * 32:], d, p, unit)

    written, _ = _written(lambda d: run(src_bytes, d), dst.nbytes)
    assert (_mask(got, "bt", True, dst.nbytes) == written).all()
    read = _mask(got, "l1", False, src.nbytes)
    assert _reads_covered(run, src_bytes, read, dst.nbytes)
    assert read.sum() == count * length * unit


def test_a_box_leaving_its_buffer_is_the_whole_buffer():
    """A parameter set that runs past the tile (the kernel then fails) keeps the conservative
    footprint instead of naming bytes of another tile."""
    got = raw_footprints._box("l0a", BASE, 512, ((8, 1024),), True, "%t", None, (BASE, BASE + 4096))
    assert got == [access.Access("l0a", BASE, 4096, 1, 0, True, "%t", None)]
    many = raw_footprints._box("l1", 0, 32, ((3, 64), (100, 1000)), False, "%t", None, (0, 1 << 20))
    assert len(many) == 1 and many[0].start == 0 and many[0].end == 99 * 1000 + 2 * 64 + 32



def test_a_box_of_nibbles_with_strides_of_a_fraction_of_a_byte_is_the_rest_of_the_buffer():
    """A box of 4-bit units whose strides are not whole bytes (3 nibbles) has rows that share
    bytes in no regular pattern: the footprint is conservative, every byte of the tile from the
    box's first one to the tile's end; whole-byte strides (4 nibbles) stay exact rows."""
    tile = SimpleNamespace(space="l1", offset=BASE, nbytes=256, name="%s4", element="s4")
    got = raw_footprints._tile_box(tile, 10, 4, ((5, 3),), True, 4)
    assert got == [access.Access("l1", BASE + 5, 251, 1, 0, True, "%s4", None)]
    rows = raw_footprints._tile_box(tile, 10, 4, ((5, 4),), True, 4)
    assert _mask(rows, "l1", True, 256).nonzero()[0].tolist() == list(range(5, 15))


def test_coverage_of_a_raw_fixpipe_is_the_rows_it_writes():
    """`--check-coverage` takes the same footprints: a raw Fixpipe told to write only 100 of a
    C tile's rows leaves the rest of C unwritten, which coverage reports (with whole-view
    footprints of the raw forms it counted every byte of the window as written)."""
    from pto_testing import matmul_text
    from pto_testing import parse as parse_ctx
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import IndexType, IntegerAttr
    from xdsl.passes import PassPipeline

    from mmair.dialects import pto
    from mmair.executor.runner import run_module
    from mmair.passes import get_all_passes

    ctx, module = parse_ctx(matmul_text(128, 32, 32, "f16", "f16", "f32", "a2"))
    PassPipeline.parse_spec(get_all_passes(), "mmair-lower,pto-expand-params").apply(ctx, module)
    (fixpipe,) = [op for op in module.walk() if isinstance(op, pto.FixpipeCopyOp)]
    rows = arith.ConstantOp(IntegerAttr(100, IndexType()))
    fixpipe.parent_block().insert_op_before(rows, fixpipe)
    fixpipe.operands[effects.operand_index(fixpipe, "m_size")] = rows.result
    inputs = {"a": np.ones((128, 32), np.float16), "b": np.ones((32, 32), np.float16)}
    result = run_module(module, inputs=inputs, sync_check=True, coverage=("c",))
    assert result.unwritten["c"] == [(100 * 32 * 4, 128 * 32 * 4)]  # rows 100..127 of C (f32)


def test_a_raw_mmad_with_a_bias_reads_the_n_bias_entries():
    """Mmad with `cmatrix_source` (C initialised from the bias table) reads bias[0:n] in BT, one
    f32 per output column (docs/ascend.md, Mmad: the bias table row broadcast over M): a write of
    those BT bytes by another pipe is a race with it."""
    ta, tb, tc = ("!pto.tile<l0a, 16x32xf16, zz>", "!pto.tile<l0b, 32x48xf16, zn>",
                  "!pto.tile<l0c, 16x48xf32, nz>")
    tbt = "!pto.tile<bt, 1x48xf32, nd>"
    op = _op("a2", f"%a: {ta}, %b: {tb}, %c: {tc}, %bt: {tbt}, " + _index_args(["m", "n", "k"]),
             f"pto.mmad %a, %b, %c bias %bt : {tbt}, %m, %n, %k {{cmatrix_source}} : "
             f"{ta}, {tb}, {tc}")
    bias = _tile("bt", 48 * 4, "f32", np.float32)
    values = _values(op, {"lhs": _tile("l0a", 16 * 32 * 2, "f16", np.float16),
                          "rhs": _tile("l0b", 32 * 48 * 2, "f16", np.float16),
                          "dst": _tile("l0c", 16 * 48 * 4, "f32", np.float32), "bias": bias,
                          "m": 16, "n": 40, "k": 32})
    got = Footprint(op).accesses(values)
    read = _mask(got, "bt", False, bias.nbytes)
    assert read.tolist() == [True] * 40 * 4 + [False] * 8 * 4
    assert not _mask(got, "bt", True, bias.nbytes).any()


def test_a_raw_fixpipe_with_a_quant_vector_reads_the_vector_tile():
    """Fixpipe with a vector quant mode reads its QUANT_PRE words (one u64 per output channel)
    from the vector operand's tile (docs/ascend.md, Fixpipe): the footprint holds a read of that
    tile, so an MTE2 reload of the words unordered with the Fixpipe is a race."""
    names = ["z", "ns", "ms", "ss", "ds", "nd", "snd", "dnd"]
    src_t, vec_t = "!pto.tile<l0c, 16x16xf32, nz>", "!pto.tile<l1, 1x16xui64, nd>"
    op = _op("a2", f"%c: {src_t}, %g: memref<256xi8>, %v: {vec_t}, " + _index_args(names),
             f"pto.fixpipe_copy %c[%z], %g n_size %ns m_size %ms src_stride %ss dst_stride %ds "
             f"nd_num %nd src_nd_stride %snd dst_nd_stride %dnd vector %v : {vec_t} "
             f"{{quant = \"vqf322b8_pre\"}} : {src_t}, memref<256xi8>")
    vec = _tile("l1", 16 * 8, "u64", np.uint64)
    values = _values(op, {"src": _tile("l0c", 16 * 16 * 4, "f32", np.float32),
                          "dst": np.zeros(256, np.int8), "vector": vec, "n_size": 16,
                          "m_size": 16, "src_stride": 16, "dst_stride": 16, "nd_num": 1,
                          "src_nd_stride": 0, "dst_nd_stride": 0, "src_offset": 0})
    got = Footprint(op).accesses(values)
    assert _mask(got, "l1", False, vec.nbytes).all()
    assert not _mask(got, "l1", True, vec.nbytes).any()
