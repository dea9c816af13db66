"""Behaviours the mutation harness found unpinned (docs/mutation.md, areas `executor-pto` and
`checkers`), third pass.

executor-pto: the raw forms' runtime faults that need runtime sizes (LoadData dstGap on a5, the
Mmad m/n/k range, Fixpipe's srcNzC0Stride, the channel-merge check of an nz2nz Fixpipe into an L1
tile), the f16 -> f32 conversion table, the QUANT_PRE decoders' reserved bits and field types.
Expected values are literals or numpy slices of independently made inputs (the Nz fractal formula
of docs/layouts.md, written out here), never the kernels' own index functions.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mmair.dialects import pto
from mmair.executor.ascend import kernels as K
from mmair.executor.ascend.functions import PtoFunctions, PtoParamsFunctions
from mmair.executor.engine.errors import ExecutionError
from mmair.executor.engine.memory import Memory
from mmair.isa.ascend.quant import (
    QuantWord,
    decode_quant_word,
    decode_quant_words,
    encode_quant_word,
)
from tests.unit.dialects.pto.test_pto_effects import parse
from tests.unit.run_variants import run_lowered, write_variant

# ------------------------------------------------------------------------------------------------
# executor-pto: raw forms with runtime sizes
# ------------------------------------------------------------------------------------------------


def _op(target: str, args: str, body: str, kind: type):
    """The one `kind` op of a verified kernel whose operands are all function arguments, so that
    its sizes are runtime values the verifier cannot see."""
    module = parse(f'builtin.module attributes {{pto.target = "{target}"}} {{\n'
                   f"  func.func @k({args}) {{\n    {body}\n    func.return\n  }}\n}}")
    module.verify()
    return next(op for op in module.walk() if isinstance(op, kind))


def _args(op, **named) -> tuple:
    """The interpreter's operand values of `op` in its operand order, from their names (an
    absent optional operand has no value)."""
    return tuple(named[name] for name, _ in type(op).get_irdl_definition().operands
                 if name in named)


def _nz(x: np.ndarray) -> np.ndarray:
    """The Nz image of an f32 matrix X[R, C] (16 x 16 fractals, column blocks outermost):
    element (r, c) at ((c // 16) * R/16 + r // 16) * 256 + (r % 16) * 16 + c % 16."""
    r, c = x.shape
    return x.reshape(r // 16, 16, c // 16, 16).transpose(2, 0, 1, 3).reshape(-1)


LOAD_2D = ("pto.load_2d %a[%z], %b[%z] start_index %z repeat_times %one src_stride %one "
           "dst_gap %g : !pto.tile<l1, 32x32xf16, nz>, !pto.tile<l0a, 32x32xf16, {l0a}>")


@pytest.mark.parametrize(("target", "l0a"), [("a2", "zz"), ("a5", "nz")])
def test_load_2d_refuses_a_runtime_dst_gap_where_it_has_no_effect(target, l0a):
    op = _op(target, f"%a: !pto.tile<l1, 32x32xf16, nz>, %b: !pto.tile<l0a, 32x32xf16, {l0a}>, "
             "%z: index, %one: index, %g: index", LOAD_2D.format(l0a=l0a), pto.Load2DOp)
    mem = Memory(target)
    src, dst = mem.place("l1", (32, 32), "nz", "f16"), mem.place("l0a", (32, 32), l0a, "f16")
    src.physical.reshape(-1)[...] = np.arange(1024, dtype=np.float16)
    run = PtoParamsFunctions().run_load_2d

    def gap(dst_gap: int) -> tuple:
        return _args(op, src=src, src_offset=0, dst=dst, dst_offset=0, start_index=0,
                     repeat_times=1, src_stride=1, dst_gap=dst_gap)

    if target == "a5":  # LoadData2DParams dstGap is ignored on Ascend 950: a wrong kernel
        with pytest.raises(ExecutionError, match=r"^dst_gap has no effect on target a5, got 1$"):
            run(None, op, gap(1))
    else:  # a2: one fractal (512 bytes) copied to the start of L0A, the gap only spaces repeats
        run(None, op, gap(1))
        assert np.array_equal(dst.physical.reshape(-1)[:256], np.arange(256, dtype=np.float16))
        assert not dst.physical.reshape(-1)[256:].any()
    run(None, op, gap(0))  # dst_gap 0 is legal everywhere
    assert np.array_equal(dst.physical.reshape(-1)[:256], np.arange(256, dtype=np.float16))


LOAD_2D_GM = ("pto.load_2d_gm %gm[%so], %l1[%z] start_index %z repeat_times %one src_stride %one "
              "dst_gap %g : memref<1024xf16>, !pto.tile<l1, 32x32xf16, nz>")


@pytest.mark.parametrize("target", ["910", "a2"])
def test_load_2d_gm_checks_its_runtime_dst_gap_and_src_offset(target):
    # GM -> L1 LoadData has no dstGap on the 910 (`load_gm_to_cbuf` takes none); the source
    # offset addresses GM elements [0, 1024) of the buffer. Run without the sync checker, whose
    # footprints would report first: these are the executor's own checks.
    op = _op(target, "%gm: memref<1024xf16>, %l1: !pto.tile<l1, 32x32xf16, nz>, %so: index, "
             "%z: index, %one: index, %g: index", LOAD_2D_GM, pto.Load2DGmOp)
    mem = Memory(target)
    dst = mem.place("l1", (32, 32), "nz", "f16")
    gm = np.arange(1024, dtype=np.float16)
    run = PtoParamsFunctions().run_load_2d_gm

    def call(src_offset: int, dst_gap: int) -> None:
        run(None, op, _args(op, src=gm, src_offset=src_offset, dst=dst, dst_offset=0,
                            start_index=0, repeat_times=1, src_stride=1, dst_gap=dst_gap))

    if target == "910":
        with pytest.raises(ExecutionError, match=r"^requires dst_gap 0 on target 910, got 1$"):
            call(0, 1)
    else:
        call(0, 1)  # a2 has the gap: it only spaces repeats, one fractal lands at the start
        assert np.array_equal(dst.physical.reshape(-1)[:256], gm[:256])
    for bad in (-1, 1024):
        with pytest.raises(ExecutionError, match=rf"^requires src offset in \[0, 1024\), got {bad}$"):
            call(bad, 0)
    call(768, 0)  # the last whole fractal of the buffer
    assert np.array_equal(dst.physical.reshape(-1)[:256], gm[768:])


def test_4bit_tile_bytes_refuse_offsets_past_the_tile_or_inside_a_byte():
    from mmair.executor.ascend.functions import tile_bytes

    tile = Memory("a2").place("l1", (16, 64), "nz", "s4")  # 1024 elements in 512 bytes
    assert tile_bytes(tile, 1022, "dst").size == 1  # the last byte
    for bad in (-2, 1024, 3):
        with pytest.raises(ExecutionError, match=rf"^requires dst offset in \[0, 1024\) on a byte "
                                                 rf"boundary \(an even element of a 4-bit tile\), "
                                                 rf"got {bad}$"):
            tile_bytes(tile, bad, "dst")


MMAD = ("pto.mmad %a, %b, %c, %m, %n, %k : !pto.tile<l0a, 16x16xf16, zz>, "
        "!pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>")


@pytest.mark.parametrize(("m", "n", "k", "message"), [
    (4096, 16, 16, r"^requires m in \[0, 4095\], got 4096$"),
    (16, -1, 16, r"^requires n in \[0, 4095\], got -1$"),
    (16, 16, 4096, r"^requires k in \[0, 4095\], got 4096$"),
])
def test_mmad_refuses_runtime_sizes_outside_mmad_params(m, n, k, message):
    # MmadParams m, n, k are 12-bit fields: [0, 4095] (docs/pto-raw-params.md).
    op = _op("a2", "%a: !pto.tile<l0a, 16x16xf16, zz>, %b: !pto.tile<l0b, 16x16xf16, zn>, "
             "%c: !pto.tile<l0c, 16x16xf32, nz>, %m: index, %n: index, %k: index", MMAD,
             pto.MmadOp)
    mem = Memory("a2")
    a = mem.place("l0a", (16, 16), "zz", "f16")
    b = mem.place("l0b", (16, 16), "zn", "f16")
    c = mem.place("l0c", (16, 16), "nz", "f32")
    a.physical[...] = 1
    b.physical[...] = 2
    with pytest.raises(ExecutionError, match=message):
        PtoParamsFunctions().run_mmad(None, op, (a, b, c, m, n, k))
    PtoParamsFunctions().run_mmad(None, op, (a, b, c, 16, 16, 16))  # the legal sizes: 16 * 1 * 2
    assert np.array_equal(c.physical.reshape(-1), np.full(256, 32, np.float32))


FIXPIPE_NZ2DN = (
    "pto.fixpipe_copy %c[%o], %gm n_size %n m_size %m src_stride %ss dst_stride %ds nd_num %nd "
    "src_nd_stride %snd dst_nd_stride %dnd src_nz_c0_stride %c0s {layout = \"nz2dn\"} : "
    "!pto.tile<l0c, 32x32xf32, nz>, memref<16x16xf32>")


@pytest.mark.parametrize("c0_stride", [1, 2])
def test_fixpipe_copy_nz2dn_reads_rows_src_nz_c0_stride_apart(c0_stride):
    # NZ2DN (a5): output row m of the DN matrix reads L0C at m * 16 * srcNzC0Stride elements, so
    # a stride of 2 takes every other row of the Nz source; the 16 channels are written as the
    # DN matrix's columns (dst[c * dstStride + m] = C[m * stride, c]).
    names = ("o", "n", "m", "ss", "ds", "nd", "snd", "dnd", "c0s")
    op = _op("a5", "%c: !pto.tile<l0c, 32x32xf32, nz>, %gm: memref<16x16xf32>, "
             + ", ".join(f"%{n}: index" for n in names), FIXPIPE_NZ2DN, pto.FixpipeCopyOp)
    mem = Memory("a5")
    c = mem.place("l0c", (32, 32), "nz", "f32")
    logical = np.arange(32 * 32, dtype=np.float32).reshape(32, 32)
    c.physical.reshape(-1)[...] = _nz(logical)
    out = np.zeros((16, 16), np.float32)
    PtoParamsFunctions().run_fixpipe_copy(None, op, (c, 0, out, 16, 16, 32, 16, 1, 0, 0, c0_stride))
    assert np.array_equal(out, logical[0:16 * c0_stride:c0_stride, 0:16].T)


FIXPIPE_NZ2NZ_S8 = ("pto.fixpipe %c, %l1, %m, %n scalar %w {{layout = \"nz2nz\", quant = \"req8\"}} "
                    ": !pto.tile<l0c, 16x64xi32, nz>, !pto.tile<l1, 16x64x{elem}, nz>")


def test_nz2nz_fixpipe_into_an_l1_tile_merges_8_bit_channels_into_32_wide_blocks():
    # 8-bit output is channel-merged into 16 x 32 Z blocks: a runtime n of 48 leaves a 16-wide
    # last block the 32-wide fractals of the L1 tile do not hold (the verifier's rule for a
    # constant n, here at run time); n = 64 fills two blocks.
    op = _op("a2", "%c: !pto.tile<l0c, 16x64xi32, nz>, %l1: !pto.tile<l1, 16x64xi8, nz>, "
             "%m: index, %n: index, %w: i64", FIXPIPE_NZ2NZ_S8.format(elem="i8"), pto.FixpipeOp)
    mem = Memory("a2")
    c = mem.place("l0c", (16, 64), "nz", "s32")
    logical = (np.arange(16 * 64) % 100 - 50).astype(np.int32).reshape(16, 64)
    c.physical.reshape(-1)[...] = _nz(logical)
    dst = mem.place("l1", (16, 64), "nz", "s8")
    word = encode_quant_word(1.0, signed_output=True)
    with pytest.raises(ExecutionError, match=r"^requires n to be a multiple of 32 for nz2nz with "
                                             r"8-bit output \(channel merge writes 16 x 32 "
                                             r"blocks\), got 48$"):
        PtoFunctions().run_fixpipe(None, op, (c, dst, 16, 48, word))
    PtoFunctions().run_fixpipe(None, op, (c, dst, 16, 64, word))
    # two 16 x 32 Z blocks: block j holds channels 32j..32j+31 of rows 0..15, row-major
    blocks = logical.reshape(16, 2, 32).transpose(1, 0, 2).reshape(-1)
    assert np.array_equal(dst.physical.reshape(-1), blocks.astype(np.int8))


def test_f16_to_f32_table_holds_every_half_precision_value(monkeypatch):
    # The table is built once per process: rebuild it here so that its construction is tested.
    monkeypatch.setattr(K, "_F16_TABLE", None)
    halves = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    got = K._convert(halves, np.dtype(np.float32))
    assert got.dtype == np.float32 and got.shape == (1 << 16,)
    np.testing.assert_array_equal(got, halves.astype(np.float32))  # NaN == NaN here
    assert got[0x3C00] == 1.0 and got[0x7BFF] == 65504.0 and got[0x0001] == 2.0**-24


# ------------------------------------------------------------------------------------------------
# executor-pto: QUANT_PRE words
# ------------------------------------------------------------------------------------------------


def test_quant_word_decoders_ignore_the_reserved_bits_above_the_sign():
    # bits 47-63 are reserved: a word with all of them set decodes like the word without them
    for signed in (False, True):
        word = encode_quant_word(0.5, shift=3, offset=-7, signed_output=signed)
        junk = word | (((1 << 64) - 1) & ~((1 << 47) - 1))
        one = decode_quant_word(junk)
        assert (one.scale, one.shift, one.offset, one.signed_output) == (0.5, 3, -7, signed)
        many = decode_quant_words(np.array([junk, word], np.uint64))
        assert many.signed_output.tolist() == [signed, signed]
        assert many.offset.tolist() == [-7, -7] and many.shift.tolist() == [3, 3]


def test_quant_vector_fields_have_their_documented_types():
    words = np.array([encode_quant_word(2.0, shift=16, offset=-256),
                      encode_quant_word(1.5, shift=1, offset=255, signed_output=False)], np.uint64)
    q = decode_quant_words(words)
    assert q.offset.dtype == np.int64 and q.offset.tolist() == [-256, 255]
    assert q.shift.dtype == np.int64 and q.shift.tolist() == [16, 1]
    assert q.scale.dtype == np.float32 and q.scale.tolist() == [2.0, 1.5]


@pytest.mark.parametrize(("scale", "valid"), [
    (1.0, True), (0.0, True), (float(np.finfo(np.float32).tiny), True),
    (1e-40, False),  # an f32 denormal
    (float("inf"), False), (float("nan"), False),
])
def test_quant_scale_validity_refuses_denormals_and_non_finite_scales(scale, valid):
    word = QuantWord(scale=scale, shift=1, mcb=False, offset=0, signed_output=True)
    assert word.scale_is_valid is valid


# ------------------------------------------------------------------------------------------------
# checkers: exact footprints of raw forms with the parameters the random footprint tests leave at
# their defaults (kDirectionAlign, srcNzC0Stride)
# ------------------------------------------------------------------------------------------------


def _byte_mask(accesses, space: str, write: bool, size: int, base: int) -> np.ndarray:
    mask = np.zeros(size, bool)
    for a in accesses:
        if a.space == space and a.write == write:
            for r in range(a.rows):
                lo = a.start + r * a.stride - base
                mask[lo:lo + a.width] = True
    return mask


def _element_mask(indices: np.ndarray, item: int, size: int) -> np.ndarray:
    mask = np.zeros(size, bool)
    for lane in range(item):
        mask[indices.reshape(-1) * item + lane] = True
    return mask


@pytest.mark.parametrize(("m", "k"), [(32, 8), (20, 24), (17, 1)])
def test_mmad_footprint_pads_k_to_16_with_k_direction_align(m, k):
    # a2 L0A is Zz: row block r // 16 of A starts after K1 fractals of K0 = 8 f32 columns, with
    # K1 = ceil(k / 16) * 2 under kDirectionAlign (K padded to 16, not 8). A's last element
    # (m - 1, k - 1) is at element ((m-1)//16 * K1 + (k-1)//8) * 128 + (m-1)%16 * 8 + (k-1)%8.
    from mmair.dialects.pto.effects import Footprint

    ta, tb, tc = ("!pto.tile<l0a, 64x64xf32, zz>", "!pto.tile<l0b, 64x16xf32, zn>",
                  "!pto.tile<l0c, 64x16xf32, nz>")
    op = _op("a2", f"%a: {ta}, %b: {tb}, %c: {tc}, %m: index, %n: index, %k: index",
             f"pto.mmad %a, %b, %c, %m, %n, %k {{k_direction_align}} : {ta}, {tb}, {tc}",
             pto.MmadOp)
    mem = Memory("a2")
    a = mem.place("l0a", (64, 64), "zz", "f32", 0, "%a")
    b = mem.place("l0b", (64, 16), "zn", "f32", 0, "%b")
    c = mem.place("l0c", (64, 16), "nz", "f32", 0, "%c")
    got = Footprint(op).accesses(_args(op, lhs=a, rhs=b, dst=c, m=m, n=16, k=k))
    k1 = -(-k // 16) * 2
    last = (((m - 1) // 16) * k1 + (k - 1) // 8) * 128 + ((m - 1) % 16) * 8 + (k - 1) % 8
    read = _byte_mask(got, "l0a", False, a.nbytes, a.offset)
    assert read.sum() == (last + 1) * 4 and read[: (last + 1) * 4].all()
    # and the kernel reads inside it: A's elements where the raw mmad takes them (a value
    # planted at A's last element moves C[m - 1, :], a value past the footprint moves nothing)
    a.physical.reshape(-1)[...] = 0
    b.physical.reshape(-1)[...] = 1
    flat = a.physical.reshape(-1)
    flat[last] = 3
    if last + 1 < flat.size:
        flat[last + 1:] = 1000
    PtoParamsFunctions().run_mmad(None, op, (a, b, c, m, 16, k))
    out = K.read_logical(c)
    assert out[m - 1].tolist() == [3.0] * 16 and not out[: m - 1].any()


@pytest.mark.parametrize("c0_stride", [2, 3])
def test_fixpipe_copy_nz2dn_footprint_reads_rows_src_nz_c0_stride_apart(c0_stride):
    # NZ2DN reads L0C element blk * 16 * srcStride + m * 16 * srcNzC0Stride + lane for output
    # row m and channel blk * 16 + lane (docs/pto-raw-params.md): with 32 channels and 5 rows,
    # two column blocks of 5 runs of 16 f32, the runs 16 * c0_stride elements apart.
    from mmair.dialects.pto.effects import Footprint

    names = ("o", "n", "m", "ss", "ds", "nd", "snd", "dnd", "c0s")
    src_t = "!pto.tile<l0c, 64x64xf32, nz>"
    op = _op("a5", f"%c: {src_t}, %gm: memref<4096xf32>, "
             + ", ".join(f"%{n}: index" for n in names),
             "pto.fixpipe_copy %c[%o], %gm n_size %n m_size %m src_stride %ss dst_stride %ds "
             "nd_num %nd src_nd_stride %snd dst_nd_stride %dnd src_nz_c0_stride %c0s "
             f"{{layout = \"nz2dn\"}} : {src_t}, memref<4096xf32>", pto.FixpipeCopyOp)
    mem = Memory("a5")
    c = mem.place("l0c", (64, 64), "nz", "f32", 0, "%c")
    gm = np.zeros(4096, np.float32)
    m, n, src_stride = 5, 32, 64
    got = Footprint(op).accesses(_args(op, src=c, src_offset=0, dst=gm, n_size=n, m_size=m,
                                       src_stride=src_stride, dst_stride=m, nd_num=1,
                                       src_nd_stride=0, dst_nd_stride=0,
                                       src_nz_c0_stride=c0_stride))
    col = np.arange(n)[None, :]
    row = np.arange(m)[:, None]
    indices = (col // 16) * 16 * src_stride + row * 16 * c0_stride + col % 16
    expect = _element_mask(indices, 4, c.nbytes)
    assert (_byte_mask(got, "l0c", False, c.nbytes, c.offset) == expect).all()


# ------------------------------------------------------------------------------------------------
# checkers: the tcgen05 async checker's thread reads of one TMEM element
# ------------------------------------------------------------------------------------------------

KLOOP = Path(__file__).resolve().parents[4] / "examples" / "tcgen05_gemm_kloop.mlir"


def test_thread_load_of_one_tmem_element_is_that_cell_of_its_memref(capsys, tmp_path):
    # `memref.load %acc[3, 5]` reads lane 3, column 5 of the accumulator (one f32 cell, named by
    # the memref it loads from): before the final mbarrier wait it races the last MMA's write of
    # D on exactly that cell; after the wait it is ordered.
    lines = KLOOP.read_text().splitlines()
    wait = next(i for i, x in enumerate(lines) if "mbarrier_wait %bar1, %last" in x)
    load = ["    %i3 = arith.constant 3 : index", "    %i5 = arith.constant 5 : index",
            "    %v = memref.load %acc[%i3, %i5] : memref<128x128xf32, #tcgen05.space<tmem>>"]
    path = write_variant(tmp_path, "early_load", lines[:wait] + load + lines[wait:])
    code, err = run_lowered(capsys, path)
    assert code == 1
    assert err.startswith(
        f"{path}:{wait + 3}:5: error: 'memref.load' op race on TMEM lanes [3, 4) x columns "
        f"[5, 6) (%acc): 'memref.load' at {path}:{wait + 3}:5 (the issuing thread) reads them, "
        f"'tcgen05.mma' at "), err
    assert "(the tensor core's async unit, iteration %k = 3) writes them" in err
    path = write_variant(tmp_path, "late_load", lines[:wait + 1] + load + lines[wait + 1:])
    assert run_lowered(capsys, path) == (0, "")


# ------------------------------------------------------------------------------------------------
# checkers: a kernel fault on a worker thread (--jobs) is reported at the earliest failing op
# ------------------------------------------------------------------------------------------------

MAD_FAULTS = """builtin.module attributes {pto.target = "a2"} {
  func.func @k(%n: index) {
    %c16 = arith.constant 16 : index
    %a = pto.alloc : !pto.tile<l0a, 16x16xf16, zz>
    %b = pto.alloc : !pto.tile<l0b, 16x32xf16, zn>
    %c = pto.alloc : !pto.tile<l0c, 16x16xf32, nz>
    %d = pto.alloc : !pto.tile<l0c, 16x16xf32, nz>
    pto.mad %a, %b, %c, %c16, %n, %c16 : !pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x32xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
    pto.mad %a, %b, %d, %c16, %n, %c16 : !pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x32xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
    func.return
  }
}
"""


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_kernel_fault_on_a_thread_is_reported_at_the_first_failing_op(capsys, tmp_path, jobs):
    # n = 32 exceeds both 16-column destinations: the mads' numpy kernels fault (the footprints,
    # whole tiles, do not), on the worker threads with --jobs 2. Both fail; the run reports the
    # first one in program order (line 8), exactly as the sequential run does.
    from mmair.tools.run import main as run_main

    path = tmp_path / "faults.mlir"
    path.write_text(MAD_FAULTS)
    code = run_main([str(path), "--input", "n=32", "--jobs", jobs, "--sync-check=on", "-p", ""])
    err = capsys.readouterr().err
    assert code == 1
    lines = [line for line in err.splitlines() if "error:" in line]
    assert lines == [f"{path}:8:5: error: 'pto.mad' op requires n in [0, 16] (columns of the dst "
                     f"tile %c), got 32"], err


WAR = """builtin.module attributes {pto.target = "a2"} {
  func.func @k(%a: memref<16x16xf16>) {
    %c16 = arith.constant 16 : index
    %t = pto.alloc {offset = 0 : i64} : !pto.tile<l1, 16x16xf16, nz>
    %l0a = pto.alloc {offset = 0 : i64} : !pto.tile<l0a, 16x16xf16, zz>
    pto.mte_gm_l1 %a, %t, %c16, %c16 : memref<16x16xf16>, !pto.tile<l1, 16x16xf16, nz>
    pto.set_flag mte2 -> mte1, 0
    pto.wait_flag mte2 -> mte1, 0
    pto.mte_l1_l0a %t, %l0a, %c16, %c16 : !pto.tile<l1, 16x16xf16, nz>, !pto.tile<l0a, 16x16xf16, zz>
    pto.pipe_barrier mte2
    pto.mte_gm_l1 %a, %t, %c16, %c16 : memref<16x16xf16>, !pto.tile<l1, 16x16xf16, nz>
    func.return
  }
}
"""


def test_write_after_an_unordered_read_is_a_race():
    # The second load (ordered after the first by the barrier) overwrites %t while MTE1 may
    # still read it (no set_flag mte1 -> mte2):
    # a write is checked against the reads not ordered before it, not only the writes.
    from mmair.executor.engine.events import SyncError
    from mmair.executor.runner import run_module

    module = parse(WAR)
    module.verify()
    with pytest.raises(SyncError, match=r"race on l1 bytes \[0, 512\) \(%t\): .*mte_gm_l1.* "
                                        r"writes them, .*mte_l1_l0a.* reads them"):
        run_module(module, inputs={"a": np.ones((16, 16), np.float16)}, sync_check=True)
