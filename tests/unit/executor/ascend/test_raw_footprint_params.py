"""Exact footprints of raw parameter forms (`dialects/pto/effects.py`) with the parameters the
random footprint tests of test_raw_footprints.py leave at their defaults: Mmad's kDirectionAlign
(K padded to 16) and Fixpipe NZ2DN's srcNzC0Stride. Expected byte sets come from the index
formulas of docs/pto-raw-params.md written out here; the Mmad case also runs the kernel to show
it reads inside its footprint."""

from __future__ import annotations

import numpy as np
import pytest
from raw_testing import _args, _op

from mmair.dialects import pto
from mmair.executor.ascend import kernels as K
from mmair.executor.ascend.functions import PtoParamsFunctions
from mmair.executor.engine.memory import Memory


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
    from mmair.dialects.pto.footprint import Footprint

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
    from mmair.dialects.pto.footprint import Footprint

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
