"""Exact run-time footprints of the raw Ascend C parameter forms (`pto.copy_nd2nz`, `pto.load_2d`,
`pto.mmad`, `pto.fixpipe_copy`, ...): the bytes their parameters address.
"""


from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np
from xdsl.ir import Operation

from mmair.dialects import pto
from mmair.dialects.pto.access import Access, tile_access
from mmair.dialects.pto.effects import operand_index
from mmair.dialects.pto.gm_access import data_address, gm_root
from mmair.isa.ascend import params as isa_params
from mmair.isa.ascend import targets as isa

MAX_BOX_ACCESSES = 64
"""Accesses one operand's box is split into at most; more becomes its hull (conservative)."""


_Loops = Sequence[tuple[int, int]]


def _box(space: str, base: int, width: int, loops: _Loops, write: bool, name: str,
         memory: Hashable, buffer: tuple[int, int]) -> list[Access]:
    """The bytes `base + sum(i_j * stride_j) + [0, width)` for `i_j < count_j` (comment above)
    of the operand whose buffer is the byte range `buffer`."""
    if width <= 0 or any(count <= 0 for count, _ in loops):
        return []
    live = sorted(((c, s) for c, s in loops if c > 1 and s != 0), key=lambda cs: cs[1])
    outer: list[tuple[int, int]] = []
    for count, stride in live:
        if not outer and stride <= width:  # contiguous (or overlapping) repeats: a longer run
            width += (count - 1) * stride
        else:
            outer.append((count, stride))
    end = base + width + sum((c - 1) * s for c, s in outer)
    if base < buffer[0] or end > buffer[1] or any(s < 0 for _, s in outer):
        # the kernel rejects it; until it does, the conservative footprint
        return [Access(space, buffer[0], buffer[1] - buffer[0], 1, 0, write, name, memory)]
    if not outer:
        return [Access(space, base, width, 1, 0, write, name, memory)]
    rows, stride = outer[0]
    starts = [base]
    for count, step in outer[1:]:
        if len(starts) * count > MAX_BOX_ACCESSES:
            return [Access(space, base, end - base, 1, 0, write, name, memory)]
        starts = [x + i * step for x in starts for i in range(count)]
    return [Access(space, x, width, rows, stride, write, name, memory) for x in starts]


def _bytes(tile: Any) -> tuple[int, int]:
    return tile.offset, tile.offset + tile.nbytes


def _offset_bytes(tile: Any, offset: int) -> int:
    """Bytes from `tile`'s start to its element `offset` (4-bit elements: two a byte)."""
    return offset * isa.element_bits(tile.element) // 8


def _tile_box(tile: Any, offset: int, width: int, loops: _Loops, write: bool,
              unit_bits: int = 0) -> list[Access]:
    """A box of `tile` from element `offset`, `width` and strides in units of `unit_bits` (default
    the tile's elements). A box of 4-bit units covers the bytes holding its nibbles; strides of
    a fraction of a byte (no raw form has them) give the conservative whole buffer."""
    bits = isa.element_bits(tile.element)
    unit_bits = unit_bits or bits
    start = tile.offset + offset * bits // 8
    buffer = (tile.offset, tile.offset + tile.nbytes)
    if unit_bits % 8:
        if any(s * unit_bits % 8 for _, s in loops):
            return [Access(tile.space, start, buffer[1] - start, 1, 0, write, tile.name, None)]
        end = tile.offset + -(-(offset * bits + width * unit_bits) // 8)
        return _box(tile.space, start, end - start, [(c, s * unit_bits // 8) for c, s in loops],
                    write, tile.name, None, buffer)
    item = unit_bits // 8
    return _box(tile.space, start, width * item, [(c, s * item) for c, s in loops], write,
                tile.name, None, buffer)


def _gm_box(array: Any, width: int, loops: _Loops, write: bool,
            roots: dict[int, tuple[Any, int]], offset_bytes: int = 0) -> list[Access]:
    """A box of GM addressed linearly from `array`'s first element (`executor.pto.gm_linear`)
    plus `offset_bytes`, `width` and strides in elements."""
    root = gm_root(array)
    hit = roots.get(id(root))
    if hit is None or hit[0] is not root:
        hit = roots[id(root)] = (root, root.__array_interface__["data"][0])
    start = data_address(array) - hit[1] + offset_bytes
    item = array.itemsize
    return _box("gm", start, width * item, [(c, s * item) for c, s in loops], write, "",
                id(root), (0, root.nbytes))


def _any_box(value: Any, offset: int, width: int, loops: _Loops, write: bool,
             roots: dict[int, tuple[Any, int]]) -> list[Access]:
    if type(value) is np.ndarray:
        return _gm_box(value, width, loops, write, roots)
    return _tile_box(value, offset, width, loops, write)


def _indices(op: Operation, *names: str) -> tuple[int | None, ...]:
    return tuple(operand_index(op, name) for name in names)


_Exact = Callable[[Sequence[Any], dict[int, tuple[Any, int]]], list[Access]]


def _exact_nz_copy(op: Operation) -> _Exact:
    """DataCopy GM -> L1, Nd2NzParams / Dn2NzParams (`raw_kernels.nd2nz`)."""
    assert isinstance(op, pto.CopyNd2NzOp | pto.CopyDn2NzOp)
    dn, small = op.DN, op.small_c0 is not None
    src, dst, dst_off, *fields = _indices(op, "src", "dst", "dst_offset", *op.FIELDS)
    elem_bits = op.dst.type.element_bits  # pyright: ignore
    # 4-bit: the b8 copy (raw_kernels.nd2nz): fields and C0 in bytes, a byte two GM elements
    unit_bits = max(elem_bits, 8)
    per_unit = unit_bits // elem_bits
    c0 = isa.C0_BYTES * 8 // unit_bits

    def exact(values: Sequence[Any], roots: dict[int, tuple[Any, int]]) -> list[Access]:
        nd, n, d, src_mat, src_d, c0_stride, n_stride, mat = (values[i] for i in fields)
        g = per_unit
        if dn:  # src[i*mat + d*srcDValue + n]
            out = _gm_box(values[src], n * g, ((d, src_d * g), (nd, src_mat * g)), False, roots)
        else:  # src[i*mat + n*srcDValue + d]
            out = _gm_box(values[src], d * g, ((n, src_d * g), (nd, src_mat * g)), False, roots)
        tile, offset = values[dst], values[dst_off]
        if small:  # each matrix: n rows of 4 elements, zero-filled to whole 32-byte blocks
            tail = -(-n * isa_params.SMALL_C0_ELEMENTS // c0) * c0
            return out + _tile_box(tile, offset, tail, ((nd, mat),), True, unit_bits)
        # dst[i*mat + (d//c0)*c0Stride*c0 + n*nStride*c0 + d%c0], d < ceil(dValue / c0) * c0
        return out + _tile_box(tile, offset, c0, ((n, n_stride * c0), (-(-d // c0), c0_stride * c0),
                                                  (nd, mat)), True, unit_bits)

    return exact


def _exact_load_2d(op: Operation) -> _Exact:
    """LoadData 2D (`raw_kernels.load2d`): repeatTimes fractals of 512 B."""
    assert isinstance(op, pto.Load2DOp)
    gap_counts = isa_params.load2d_dst_gap_effective(pto.target_of(op))
    src, soff, dst, doff, start, repeat, stride, gap = _indices(
        op, "src", "src_offset", "dst", "dst_offset", "start_index", "repeat_times", "src_stride",
        "dst_gap")
    frac = isa.FRACTAL_BYTES

    def exact(values: Sequence[Any], roots: dict[int, tuple[Any, int]]) -> list[Access]:
        s, d, r = values[src], values[dst], values[repeat]
        step = (values[gap] + 1 if gap_counts else 1) * frac
        return _box(s.space, s.offset + _offset_bytes(s, values[soff]) + values[start] * frac, frac,
                    ((r, values[stride] * frac),), False, s.name, None, _bytes(s)) + \
            _box(d.space, d.offset + _offset_bytes(d, values[doff]), frac, ((r, step),), True,
                 d.name, None, _bytes(d))

    return exact


def _exact_load_2d_gm(op: Operation) -> _Exact:
    """LoadData 2D GM -> L1 (`raw_kernels.load2d` with addrMode): repeatTimes fractals of 512 B;
    with addrMode 1 the source fractals run down from startIndex, the same set as the run up
    from startIndex - srcStride*(repeatTimes - 1)."""
    assert isinstance(op, pto.Load2DGmOp)
    dec = op.decrements
    src, soff, dst, doff, start, repeat, stride, gap = _indices(
        op, "src", "src_offset", "dst", "dst_offset", "start_index", "repeat_times", "src_stride",
        "dst_gap")
    frac = isa.FRACTAL_BYTES

    def exact(values: Sequence[Any], roots: dict[int, tuple[Any, int]]) -> list[Access]:
        s, d, r, step = values[src], values[dst], values[repeat], values[stride]
        first = values[start] - step * (r - 1) if dec else values[start]
        return _gm_box(s, frac // s.itemsize, ((r, step * frac // s.itemsize),), False, roots,
                       values[soff] * s.itemsize + first * frac) + \
            _box(d.space, d.offset + values[doff] * d.physical.itemsize, frac,
                 ((r, (values[gap] + 1) * frac),), True, d.name, None, _bytes(d))

    return exact


def _exact_load_2d_transpose(op: Operation) -> _Exact:
    """LoadDataWithTranspose (`raw_kernels.load2d_transpose`): square blocks of 1, 2 or 4 fractals,
    each destination fractal of an iteration dstFracGap apart."""
    assert isinstance(op, pto.Load2DTransposeOp)
    src, soff, dst, doff, start, repeat, stride, gap, frac_gap = _indices(
        op, "src", "src_offset", "dst", "dst_offset", "start_index", "repeat_times", "src_stride",
        "dst_gap", "dst_frac_gap")
    frac = isa.FRACTAL_BYTES

    def exact(values: Sequence[Any], roots: dict[int, tuple[Any, int]]) -> list[Access]:
        s, d, r = values[src], values[dst], values[repeat]
        nfrac = isa_params.transpose_square(s.element)[0]
        square = nfrac * frac
        base = d.offset + _offset_bytes(d, values[doff])
        out = _box(s.space, s.offset + _offset_bytes(s, values[soff]) + values[start] * square,
                   square, ((r, values[stride] * square),), False, s.name, None, _bytes(s))
        for j in range(nfrac):
            out += _box(d.space, base + j * (values[frac_gap] + 1) * frac, frac,
                        ((r, (values[gap] + 1) * frac),), True, d.name, None, _bytes(d))
        return out

    return exact


def _exact_load_2d_v2(op: Operation) -> _Exact:
    """LoadData with LoadData2DParamsV2 (`raw_kernels.load2d_v2`): an mStep x kStep window of
    fractals, written kStep columns of mStep fractals (transposed: the transposed grid)."""
    assert isinstance(op, pto.Load2DV2Op)
    transpose = op.if_transpose is not None
    src, soff, dst, doff, m0, k0, m_step, k_step, sstride, dstride = _indices(
        op, "src", "src_offset", "dst", "dst_offset", "m_start_position", "k_start_position",
        "m_step", "k_step", "src_stride", "dst_stride")
    frac = isa.FRACTAL_BYTES

    def exact(values: Sequence[Any], roots: dict[int, tuple[Any, int]]) -> list[Access]:
        s, d, ms, ks = values[src], values[dst], values[m_step], values[k_step]
        rows, cols = ms, ks
        bits = isa.element_bits(s.element)
        if transpose:
            c0 = isa.C0_BYTES * 8 // bits
            rows, cols = ks * c0 // isa.M0, ms * isa.M0 // c0
        first = (values[k0] * values[sstride] + values[m0]) * frac
        return _box(s.space, s.offset + _offset_bytes(s, values[soff]) + first, frac,
                    ((ms, frac), (ks, values[sstride] * frac)), False, s.name, None,
                    _bytes(s)) + \
            _box(d.space, d.offset + _offset_bytes(d, values[doff]), frac,
                 ((rows, frac), (cols, values[dstride] * frac)), True, d.name, None, _bytes(d))

    return exact


def _exact_load_2d_v2_gm(op: Operation) -> _Exact:
    """LoadData2DParamsV2 GM -> L1 (`raw_kernels.load2d_v2`, no transpose): the mStep x kStep
    window of GM fractals (kStep columns srcStride apart) to kStep columns dstStride apart."""
    assert isinstance(op, pto.Load2DV2GmOp)
    src, soff, dst, doff, m0, k0, m_step, k_step, sstride, dstride = _indices(
        op, "src", "src_offset", "dst", "dst_offset", "m_start_position", "k_start_position",
        "m_step", "k_step", "src_stride", "dst_stride")
    frac = isa.FRACTAL_BYTES

    def exact(values: Sequence[Any], roots: dict[int, tuple[Any, int]]) -> list[Access]:
        s, d, ms, ks = values[src], values[dst], values[m_step], values[k_step]
        item = s.itemsize
        per = frac * 8 // isa.element_bits(d.element)  # GM elements a fractal (4-bit: 1024)
        first = (values[k0] * values[sstride] + values[m0]) * per
        return _gm_box(s, per, ((ms, per), (ks, values[sstride] * per)),
                       False, roots, (values[soff] + first) * item) + \
            _box(d.space, d.offset + _offset_bytes(d, values[doff]), frac,
                 ((ms, frac), (ks, values[dstride] * frac)), True, d.name, None, _bytes(d))

    return exact


def _exact_copy_gm_l1(op: Operation) -> _Exact:
    """DataCopy GM -> L1 (`raw_kernels.copy_gm_l1`): blockCount bursts of blockLen 32-byte
    blocks, the gaps end to start in 32 B."""
    assert isinstance(op, pto.CopyGmL1Op)
    unit = isa_params.GM_L1_UNIT_BYTES
    src, soff, dst, doff, count_i, len_i, sgap, dgap = _indices(
        op, "src", "src_offset", "dst", "dst_offset", "block_count", "block_len", "src_gap",
        "dst_gap")

    def exact(values: Sequence[Any], roots: dict[int, tuple[Any, int]]) -> list[Access]:
        s, d, count = values[src], values[dst], values[count_i]
        burst = values[len_i] * unit
        step = (burst + values[sgap] * unit) // s.itemsize  # bursts are whole 32 B blocks
        return _gm_box(s, burst // s.itemsize, ((count, step),), False, roots,
                       values[soff] * s.itemsize) + \
            _box(d.space, d.offset + _offset_bytes(d, values[doff]), burst,
                 ((count, burst + values[dgap] * unit),), True, d.name, None, _bytes(d))

    return exact


def _exact_copy_l1_bt(op: Operation) -> _Exact:
    """DataCopy L1 -> BiasTable (`raw_kernels.copy_l1_bt`): blockCount bursts of blockLen units,
    the gaps end to start (srcGap in 32 B, dstGap in units)."""
    assert isinstance(op, pto.CopyL1BtOp)
    unit = isa_params.l1_bt_unit_bytes(pto.target_of(op))
    src, soff, dst, doff, count_i, len_i, sgap, dgap = _indices(
        op, "src", "src_offset", "dst", "dst_offset", "block_count", "block_len", "src_gap",
        "dst_gap")

    def exact(values: Sequence[Any], roots: dict[int, tuple[Any, int]]) -> list[Access]:
        s, d, count = values[src], values[dst], values[count_i]
        burst = values[len_i] * unit
        src_step = burst + values[sgap] * isa_params.L1_BT_SRC_GAP_BYTES
        # a widening load (convControl) writes its burst's elements in the wider dst type
        dst_burst = burst // isa.element_bits(s.element) * isa.element_bits(d.element)
        return _box(s.space, s.offset + _offset_bytes(s, values[soff]), burst,
                    ((count, src_step),), False, s.name, None, _bytes(s)) + \
            _box(d.space, d.offset + _offset_bytes(d, values[doff]), dst_burst,
                 ((count, dst_burst + values[dgap] * unit),), True, d.name, None, _bytes(d))

    return exact


def _exact_mmad(op: Operation) -> _Exact:
    """Mmad (`raw_kernels.mmad_indices`): each operand's fractal grid is a prefix of its buffer;
    the footprint is that prefix up to the last element the sizes reach. L0C is read only when
    the op accumulates."""
    assert isinstance(op, pto.MmadOp)
    target = pto.target_of(op)
    disable_gemv = op.disable_gemv is not None
    align16 = op.k_direction_align is not None
    accumulate = not op.init_zero
    lhs, rhs, dst, bias, m_i, n_i, k_i = _indices(op, "lhs", "rhs", "dst", "bias", "m", "n", "k")
    m0 = isa.M0

    def exact(values: Sequence[Any], roots: dict[int, tuple[Any, int]]) -> list[Access]:
        a, b, c = values[lhs], values[rhs], values[dst]
        m, n, k = values[m_i], values[n_i], values[k_i]
        k0a = isa.C0_BYTES * 8 // isa.element_bits(a.element)
        k0b = isa.C0_BYTES * 8 // isa.element_bits(b.element)
        m1 = -(-m // m0)
        n1 = -(-n // m0)
        r, kk, nn = m - 1, k - 1, n - 1  # the largest index of each grid is at its last element
        if isa_params.gemv_active(target, m, disable_gemv):
            a_last = kk
        elif target.l0a_layout == "zz":
            kpad = -(-k // 16) * 16 if align16 else -(-k // k0a) * k0a
            a_last = ((r // m0) * (kpad // k0a) + kk // k0a) * m0 * k0a + (r % m0) * k0a + kk % k0a
        else:
            a_last = ((kk // k0a) * m1 + r // m0) * m0 * k0a + (r % m0) * k0a + kk % k0a
        b_last = ((kk // k0b) * n1 + nn // m0) * m0 * k0b + (nn % m0) * k0b + kk % k0b
        c_last = ((nn // m0) * m1 + r // m0) * m0 * m0 + (r % m0) * m0 + nn % m0
        out = _tile_box(a, 0, a_last + 1, (), False) + _tile_box(b, 0, b_last + 1, (), False)
        if bias is not None:
            out += _tile_box(values[bias], 0, n, (), False)
        if accumulate:
            out += _tile_box(c, 0, c_last + 1, (), False)
        return out + _tile_box(c, 0, c_last + 1, (), True)

    return exact


def _exact_fixpipe_copy(op: Operation) -> _Exact:
    """Fixpipe with its raw parameters (`raw_kernels.fixpipe_indices`): L0C fractal columns of
    16 channels to ND rows, NZ blocks or DN columns. The partial last 16-channel block and the
    unmerged tail of a b8 NZ output count as whole (conservative by those lanes)."""
    assert isinstance(op, pto.FixpipeCopyOp)
    target = pto.target_of(op)
    layout = op.layout.data
    split = op.channel_split is not None
    (src, soff, dst, n_i, m_i, ss_i, ds_i, nd_i, snd_i, dnd_i, c0s_i, vec) = _indices(
        op, "src", "src_offset", "dst", "n_size", "m_size", "src_stride", "dst_stride", "nd_num",
        "src_nd_stride", "dst_nd_stride", "src_nz_c0_stride", "vector")

    def exact(values: Sequence[Any], roots: dict[int, tuple[Any, int]]) -> list[Access]:
        s, d = values[src], values[dst]
        n, m, ss, ds = values[n_i], values[m_i], values[ss_i], values[ds_i]
        nd, snd, dnd = values[nd_i], values[snd_i], values[dnd_i]
        lanes = min(n, 16)
        blocks = -(-n // 16)
        if layout == "nz2dn":
            c0s = values[c0s_i] if c0s_i is not None else 1
            out = _tile_box(s, values[soff], lanes, ((m, 16 * c0s), (blocks, 16 * ss),
                                                     (nd, 16 * snd)), False)
            out += _any_box(d, 0, m, ((n, ds), (nd, dnd)), True, roots)
        elif layout == "nz2nd":
            out = _tile_box(s, values[soff], lanes, ((m, 16), (blocks, 16 * ss), (nd, 16 * snd)),
                            False)
            out += _any_box(d, 0, n, ((m, ds), (nd, dnd)), True, roots)
        else:  # nz2nz: one matrix; destination blocks of W channels, dstStride apart
            out = _tile_box(s, values[soff], lanes, ((m, 16), (blocks, 16 * ss)), False)
            item = d.itemsize if type(d) is np.ndarray else d.physical.itemsize
            unit = 32 / item if target.fixpipe_params != "arch3510" else 1
            width = isa_params.fixpipe_nz_block_cols(item * 8, split)
            step = ds * unit
            if step != int(step):  # the kernel rejects it: the whole destination
                step = 0
                width = 1 << 62
            out += _any_box(d, 0, m * width, ((-(-n // width), int(step)),), True, roots)
        if vec is not None:
            out.append(tile_access(values[vec], False))
        return out

    return exact


RAW_EXACT: dict[type[Operation], Callable[[Operation], _Exact]] = {
    pto.CopyNd2NzOp: _exact_nz_copy,
    pto.CopyDn2NzOp: _exact_nz_copy,
    pto.Load2DOp: _exact_load_2d,
    pto.Load2DGmOp: _exact_load_2d_gm,
    pto.Load2DTransposeOp: _exact_load_2d_transpose,
    pto.Load2DV2Op: _exact_load_2d_v2,
    pto.Load2DV2GmOp: _exact_load_2d_v2_gm,
    pto.CopyGmL1Op: _exact_copy_gm_l1,
    pto.CopyL1BtOp: _exact_copy_l1_bt,
    pto.MmadOp: _exact_mmad,
    pto.FixpipeCopyOp: _exact_fixpipe_copy,
}
"""The raw parameter forms: op class -> (op -> exact runtime footprint of operand values)."""
