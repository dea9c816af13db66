"""Whole-tile numpy kernels of the Ascend cube path and the vector GatherMask.

Each kernel implements one `pto` op on `memory.Tile`s (on-chip buffers) and numpy arrays (GM), with
the semantics of docs/design.md and the Ascend reference (§5-§9). They know nothing about xDSL, so
they are unit-testable on their own; `executor/ascend/functions.py` calls them from the interpreter.

All data movement goes through `layouts.blocked_view`, the 4-D view [r1, r0, c1, c0] of a physical
array in which padded-logical element (r, c) is `view[r // fr, r % fr, c // fc, c % fc]`. Reading a
logical region is then one slice + one copy, and writing one is at most four slice assignments (the
full fractals, the partial row block, the partial column block and the corner), whatever the layout.

Runtime checks: sizes beyond a tile's logical extent and reads past a buffer raise `ExecutionError`;
a runtime size of 0 is a no-op (docs/pto-raw-params.md §3).

Operand images (speed, not semantics): `mte_gm_l1` into an nz/zz tile records the loaded matrix
converted to the Mmad compute dtype (`Tile.image`), `mte_l1_l0` passes a view of it on to the L0
tile, and `mad` multiplies the images instead of converting the L0 bytes again; a GM window
loaded repeatedly is converted once (`_gm_image`, validated by GM write generations or by
content). PROTOCOL: every kernel that writes GM calls `_wrote_gm` after writing, and every kernel
that writes a tile's bytes calls `tile.will_write()` before writing (it drops the images of the
overlapping tiles); a new writing kernel that skips it would let a `mad` read stale values.
"""

from __future__ import annotations

import numpy as np

from mmair.executor.ascend import lazy
from mmair.executor.engine.errors import ExecutionError
from mmair.executor.engine.memory import GM_IMAGE_BYTES, MemorySpace, Tile
from mmair.isa.ascend import gather, layouts, targets
from mmair.isa.ascend import params as isa_params
from mmair.isa.ascend.quant import decode_quant_word, decode_quant_words
from mmair.isa.ascend.targets import c0_elements
from mmair.isa.dtypes import FLOAT_ELEMENTS

F16_MAX = float(np.finfo(np.float16).max)

# ------------------------------------------------------------------------------------------------
# Logical regions of blocked views
# ------------------------------------------------------------------------------------------------


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _blocks(tile: Tile) -> tuple[np.ndarray, np.ndarray]:
    """(values, blocked view of values): views of the tile memory, or for 4-bit tiles an unpacked
    copy that the caller writes back with `tile.store_values(values)`."""
    if not tile.packed:
        return tile.physical, tile.blocked()
    values = tile.values()
    return values, layouts.blocked_view(values, tile.layout)


def read_region(
    blocked: np.ndarray, row: int, col: int, rows: int, cols: int, dtype: np.dtype | None = None
) -> np.ndarray:
    """A C-contiguous copy of padded-logical [row:row+rows, col:col+cols] of a blocked view,
    converted to `dtype` in the same numpy call when given."""
    _, fr, _, fc = blocked.shape
    rb0, cb0 = row // fr, col // fc
    rb1, cb1 = _ceil_div(row + rows, fr), _ceil_div(col + cols, fc)
    sub = blocked[rb0:rb1, :, cb0:cb1, :]
    data = sub.astype(dtype if dtype is not None else sub.dtype, order="C")
    data = data.reshape((rb1 - rb0) * fr, (cb1 - cb0) * fc)
    r, c = row - rb0 * fr, col - cb0 * fc
    if r or c or data.shape != (rows, cols):  # mutation: skip (a shortcut: slicing is exact anyway)
        data = data[r : r + rows, c : c + cols]
    return data


def write_region(blocked: np.ndarray, values: np.ndarray) -> None:
    """Write `values` (2-D) to padded-logical [0:rows, 0:cols] of a blocked view (casting)."""
    _, fr, _, fc = blocked.shape
    rows, cols = values.shape
    rf, rr = divmod(rows, fr)
    cf, cr = divmod(cols, fc)
    top, left = rf * fr, cf * fc
    if rf and cf:
        blocked[:rf, :, :cf, :] = values[:top, :left].reshape(rf, fr, cf, fc)
    if rr and cf:
        blocked[rf, :rr, :cf, :] = values[top:, :left].reshape(rr, cf, fc)
    if rf and cr:
        blocked[:rf, :, cf, :cr] = values[:top, left:].reshape(rf, fr, cr)
    if rr and cr:
        blocked[rf, :rr, cf, :cr] = values[top:, left:]


def read_logical(tile: Tile, rows: int | None = None, cols: int | None = None) -> np.ndarray:
    """Copy of the tile's logical [0:rows, 0:cols] (default: the whole logical shape) as 2-D."""
    rows = tile.rows if rows is None else rows
    cols = tile.cols if cols is None else cols
    return read_region(_blocks(tile)[1], 0, 0, rows, cols)


def write_logical(tile: Tile, values: np.ndarray) -> None:
    """Write a 2-D array to the tile's logical [0:rows, 0:cols] (no bounds check here)."""
    tile.will_write()
    phys, blocked = _blocks(tile)
    write_region(blocked, values)
    tile.store_values(phys)


def _require(cond: bool, message: str) -> None:
    if not cond:
        raise ExecutionError(message)


def _check_size(name: str, value: int, limit: int, what: str, tile: Tile | None = None) -> None:
    """Raise unless 0 <= value <= limit; `what` (followed by `tile`'s label) says which limit
    (the message is built only on failure: these checks run for every op)."""
    if value < 0 or value > limit:
        if tile is not None:
            what = f"{what} {tile.label}"
        raise ExecutionError(f"requires {name} in [0, {limit}] ({what}), got {value}")


def _gm_2d(gm: np.ndarray) -> np.ndarray:
    if gm.ndim == 1:
        return gm[None, :]
    if gm.ndim != 2:
        raise ExecutionError(f"requires a 1-D or 2-D GM memref, got shape {gm.shape}")
    return gm


# ------------------------------------------------------------------------------------------------
# Data movement
# ------------------------------------------------------------------------------------------------


_C0: dict[tuple[str, str], int] = {}
"""`c0_elements` by (element, space), memoized (it runs for every GM -> L1 load)."""


def mte_gm_l1(gm: np.ndarray, dst: Tile, rows: int, cols: int, dn2nz: bool = False) -> None:
    """GM -> L1 with ND2NZ (or DN2NZ: GM holds the transpose). dst logical [0:rows, 0:cols] = GM
    [0:rows, 0:cols]; columns cols .. ceil(cols/c0)*c0 of the written rows become 0 (the C0 tail
    is zero-filled, docs/pto-raw-params.md); rows beyond `rows` in the last fractal keep their
    contents."""
    if rows == 0 or cols == 0:
        return
    _check_size("rows", rows, dst.rows, "rows of the destination", dst)
    _check_size("cols", cols, dst.cols, "columns of the destination", dst)
    src = _gm_2d(gm)
    if dn2nz:
        src = src.T
    if src.shape[0] < rows or src.shape[1] < cols:
        raise ExecutionError(
            f"reads GM [{rows} x {cols}]{' (dn2nz: transposed)' if dn2nz else ''} beyond the GM "
            f"memref of shape {'x'.join(map(str, gm.shape))}")
    c0 = _C0.get((dst.element, dst.space))
    if c0 is None:
        c0 = _C0[dst.element, dst.space] = c0_elements(dst.element, dst.space)
    image = None
    if dst.mem is not None and dst.layout in ("nz", "zz") and not dst.packed:
        # Cube operand staging: keep the converted logical matrix for the moves and mads that
        # follow (one conversion per load instead of one per mad), and with it the bytes.
        window = src[:rows, :cols]
        stored = window.astype(dst.store.dtype, copy=False)
        image = _gm_image(dst.mem, stored, _compute_dtype(dst.element),
                          stored.dtype == window.dtype)
        if lazy.usable(dst, image):
            shape = dst.stored_blocked().shape
            lazy.pend_region(dst, image, rows, cols, min(_ceil_div(cols, c0) * c0,
                                                         shape[2] * shape[3]))
            return
    dst.will_write()
    phys, blocked = _blocks(dst)
    fill = min(_ceil_div(cols, c0) * c0, blocked.shape[2] * blocked.shape[3])
    if fill > cols:
        data = np.zeros((rows, fill), dtype=phys.dtype)
        data[:, :cols] = src[:rows, :cols]
    else:
        data = src[:rows, :cols]
    write_region(blocked, data)
    dst.store_values(phys)
    dst.set_image(image)


def _gm_image(mem: MemorySpace, window: np.ndarray, ctype: np.dtype, in_gm: bool = False) -> np.ndarray:
    """`window` (GM elements as stored in the tile) converted to `ctype`, reusing the conversion
    of an earlier load of the same GM window while its contents are unchanged.

    A GEMM reloads each B tile once per row of C tiles; converting it once per load dominated the
    loads. A window is cached from its second load on (single loads, like A row panels, cost no
    copy and no memory). Validation: when the run tracks GM writes (`memory.GmWrites.tracked`)
    and `window` is a view of GM (`in_gm`), a hit needs the generation of the GM array to be the
    one recorded at conversion (no write since); otherwise a hit compares the window with the
    copy kept at conversion time (one pass over the raw bytes, several times cheaper than the
    conversion), so a write to GM by any op is seen. Windows of GM arguments that no op can
    write skip all of this: `memory.ReadOnlyGm` converts each once per run for every core."""
    gm = mem.gm
    if in_gm and gm.read_only is not None:  # an array no op writes: converted once, shared
        image = gm.read_only.window_image(window, ctype, _convert)
        if image is not None:
            return image
    interface = window.__array_interface__
    key = (interface["data"][0], window.shape, interface["strides"], window.dtype.str, ctype.str)
    owner = generation = None
    if in_gm and gm.tracked:
        owner = gm.owner(window)
        generation = gm.generation.get(id(owner), 0)  # read before the window is
    with mem.lock:
        cached = mem.gm_images.get(key, _NOT_SEEN)
        if cached is _NOT_SEEN:
            mem.gm_images[key] = _SEEN_ONCE
    if cached is _NOT_SEEN and owner is None:  # tracked: cached at once (no copy to keep)
        return _convert(window, ctype)
    if cached is not _SEEN_ONCE and cached is not _NOT_SEEN:
        raw, image, seen = cached
        if owner is not None and seen is not None:
            if seen[0] is owner and seen[1] == generation:
                return image
        elif raw is not None and _same_elements(raw, window):
            return image
    image = _convert(window, ctype)
    # Tracked: the owner (kept alive, so its id names it) and its generation; else a copy.
    # Cache bookkeeping, equivalent mutants: a copy compared element by element instead of the
    # owner's generation finds the same image; the size only bounds the cache.
    raw, seen = ((None, (owner, generation)) if owner is not None  # mutation: skip (same image)
                 else (np.array(window, order="C"), None))
    size = image.nbytes + (raw.nbytes if raw is not None else 0)  # mutation: skip (cache budget)
    with mem.lock:
        if mem.gm_image_bytes + size > GM_IMAGE_BYTES:
            mem.gm_images.clear()
            mem.gm_image_bytes = 0
        mem.gm_images[key] = (raw, image, seen)
        mem.gm_image_bytes += size
    return image


_NOT_SEEN: tuple = ()
_SEEN_ONCE: tuple = (None,)


def _same_elements(raw: np.ndarray, window: np.ndarray) -> bool:
    """Bitwise equality of a C-contiguous copy and a (strided) window of the same shape."""
    if window.ndim == 2 and window.strides[1] == window.itemsize \
            and (window.shape[1] * window.itemsize) % 8 == 0 and window.strides[0] % 8 == 0 \
            and window.__array_interface__["data"][0] % 8 == 0:
        return np.array_equal(raw.view(np.uint64), window.view(np.uint64))
    return np.array_equal(raw.view(np.uint8), np.ascontiguousarray(window).view(np.uint8))


def mte_l1_l0(
    src: Tile,
    dst: Tile,
    rows: int,
    cols: int,
    row: int = 0,
    col: int = 0,
    transpose: bool = False,
) -> None:
    """L1 -> L0A (rows, cols = m, k) or L1 -> L0B (k, n): move whole fractals.

    dst padded-logical [0:R, 0:C] (R, C = rows, cols rounded up to the dst fractal) = src logical
    [row + i, col + j], or with `transpose` src [row + j, col + i] (the source holds the operand's
    transpose). The padding lanes travel with the data; the source region is clipped to the
    source's padded extent."""
    if rows == 0 or cols == 0:
        return
    _check_size("rows", rows, dst.rows, "rows of the destination", dst)
    _check_size("cols", cols, dst.cols, "columns of the destination", dst)
    if row < 0 or col < 0:
        raise ExecutionError(f"requires a non-negative source start, got [{row}, {col}]")
    need_r, need_c = (cols, rows) if transpose else (rows, cols)
    if row + need_r > src.rows or col + need_c > src.cols:
        raise ExecutionError(
            f"reads source [{row}:{row + need_r}, {col}:{col + need_c}] beyond the "
            f"{src.rows}x{src.cols} source {src.label}")
    image = src.image
    region = None
    if image is not None and src.element == dst.element and row + need_r <= image.shape[0] \
            and col + need_c <= image.shape[1]:
        region = image[row : row + need_r, col : col + need_c]
        if transpose:
            region = region.T
        _, fr, _, fc = dst.stored_blocked().shape
        # whole destination fractals: the padded region is the image's, no padding lanes
        if rows % fr == 0 and cols % fc == 0 and lazy.usable(dst, region):
            lazy.pend_region(dst, region, rows, cols)
            return
    dst.will_write()
    dst.set_image(region)
    dphys, dblocked = _blocks(dst)
    _, fr, _, fc = dblocked.shape
    pr, pc = _ceil_div(rows, fr) * fr, _ceil_div(cols, fc) * fc
    sr, sc = (pc, pr) if transpose else (pr, pc)
    _, sblocked = _blocks(src)
    src_rows = sblocked.shape[0] * sblocked.shape[1]
    src_cols = sblocked.shape[2] * sblocked.shape[3]
    sr, sc = min(sr, src_rows - row), min(sc, src_cols - col)
    _, sfr, _, sfc = sblocked.shape
    # Fast path: whole source fractals map onto whole destination fractals -> one strided copy.
    # mutation: skip (swapping pr/pc here is equivalent: sr <= pr and sc <= pc, so the swapped pair
    # can only match when pr == pc)
    if (sr, sc) == ((pc, pr) if transpose else (pr, pc)) and row % sfr == 0 and col % sfc == 0:  # mutation: skip (see above)
        rb, cb = row // sfr, col // sfc
        if not transpose and (sfr, sfc) == (fr, fc):
            dblocked[: pr // fr, :, : pc // fc, :] = sblocked[rb : rb + pr // fr, :, cb : cb + pc // fc, :]
            dst.store_values(dphys)
            return
        if transpose and (sfr, sfc) == (fc, fr):
            region = sblocked[rb : rb + pc // fc, :, cb : cb + pr // fr, :]
            dblocked[: pr // fr, :, : pc // fc, :] = region.transpose(2, 3, 0, 1)
            dst.store_values(dphys)
            return
    data = read_region(sblocked, row, col, sr, sc)
    write_region(dblocked, data.T if transpose else data)
    dst.store_values(dphys)


def mte_l1_bt(src: Tile, dst: Tile, n: int) -> None:
    """L1 -> BT: dst[0, 0:n] = src[0, 0:n], the bias row `mad_bias` reads (same element type)."""
    if n == 0:
        return
    _check_size("n", n, src.cols, "columns of the source", src)
    _check_size("n", n, dst.cols, "columns of the destination", dst)
    dst.physical.reshape(-1)[:n] = src.physical.reshape(-1)[:n]


def mte_l1_fb(src: Tile, dst: Tile, n: int) -> None:
    """L1 -> FB: the first n elements of src to the first n of dst, as bytes (copy_cbuf_to_fbuf
    copies bursts of bytes; the element type is the same on both sides)."""
    if n == 0:
        return
    _check_size("n", n, src.physical.size, "elements of the source", src)
    _check_size("n", n, dst.physical.size, "elements of the destination", dst)
    dst.will_write()
    dst.physical.reshape(-1)[:n] = src.physical.reshape(-1)[:n]


def copy_gm_to_tile(gm: np.ndarray, dst: Tile) -> None:
    """GM -> UB: the memref's elements, row-major, to the start of the (nd) UB tile."""
    flat = dst.physical.reshape(-1)
    _require(
        gm.size <= flat.size,
        f"copies {gm.size} GM elements into the {flat.size}-element {dst.label}",
    )
    dst.will_write()
    flat[: gm.size] = gm.reshape(-1)


def copy_tile_to_gm(src: Tile, gm: np.ndarray) -> None:
    """UB -> GM: the first elements of the (nd) UB tile fill the memref, row-major."""
    flat = src.physical.reshape(-1)
    _require(
        gm.size <= flat.size,
        f"fills {gm.size} GM elements from the {flat.size}-element {src.label}",
    )
    gm[...] = flat[: gm.size].reshape(gm.shape)
    _wrote_gm(src, gm)


def _wrote_gm(tile: Tile, gm: np.ndarray) -> None:
    """Tell the GM conversion cache that `gm` was written (`memory.GmWrites`)."""
    if tile.mem is not None:
        tile.mem.gm.wrote(gm)


# ------------------------------------------------------------------------------------------------
# Mmad
# ------------------------------------------------------------------------------------------------


_F16_TABLE: np.ndarray | None = None


def _f16_table() -> np.ndarray:
    """f32 value of every f16 bit pattern: `np.take` through it converts f16 -> f32 faster than
    numpy's astype (which has no vectorized half-precision path)."""
    global _F16_TABLE
    if _F16_TABLE is None:
        _F16_TABLE = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16).astype(np.float32)
    return _F16_TABLE


def _convert(values: np.ndarray, ctype: np.dtype) -> np.ndarray:
    """`values` converted to the compute dtype `ctype` (a new array)."""
    if values.dtype == np.float16 and ctype == np.float32:  # mutation: skip (a fast path: astype gives the same values)
        return np.take(_f16_table(), values.view(np.uint16))
    return values.astype(ctype)


def _operand(tile: Tile, rows: int, cols: int, ctype: np.dtype) -> np.ndarray:
    """Logical [0:rows, 0:cols] of an L0 operand tile as a `ctype` array: a view of the tile's
    operand image when it covers the region, else a C-contiguous conversion of the bytes."""
    if tile.element == "hif8":  # bytes in a uint8 container: decoded, never an image
        from mmair.isa.ascend.hif8 import decode_hif8

        codes = read_region(_blocks(tile)[1], 0, 0, rows, cols, np.dtype(np.uint8))
        return decode_hif8(codes).astype(ctype)
    image = tile.image
    if image is not None and image.dtype == ctype and rows <= image.shape[0] \
            and cols <= image.shape[1]:
        return image[:rows, :cols]
    values, blocked = _blocks(tile)
    if values.dtype == np.float16 and ctype == np.float32 and 2 * rows * cols >= values.size:  # mutation: skip (a fast path)
        converted = np.take(_f16_table(), values.view(np.uint16))
        return read_region(layouts.blocked_view(converted, tile.layout), 0, 0, rows, cols)
    return read_region(blocked, 0, 0, rows, cols, ctype)


def _compute_dtype(element: str) -> np.dtype:
    """f32 for the float families (BLAS sgemm); f64 for integers, exact for s8/s4/u8 sums of
    up to 4095 products, then rounded back to integers."""
    found = _COMPUTE_DTYPES.get(element)
    if found is None:
        found = _COMPUTE_DTYPES[element] = np.dtype(np.float32) \
            if element in FLOAT_ELEMENTS or element == "hif8" else np.dtype(np.float64)
    return found


_COMPUTE_DTYPES: dict[str, np.dtype] = {}


_ORDERS: dict[tuple[int, ...], tuple[int, ...]] = {}


def _memory_order(strides: tuple[int, ...]) -> tuple[int, ...]:
    """The axes of a view by decreasing stride (memoized per stride tuple)."""
    order = _ORDERS.get(strides)
    if order is None:
        order = _ORDERS[strides] = tuple(sorted(range(len(strides)), key=lambda d: -strides[d]))
    return order


def mad(
    a: Tile,
    b: Tile,
    c: Tile,
    m: int,
    n: int,
    k: int,
    accumulate: bool = False,
    bias: Tile | None = None,
    gemv_off: bool = False,
) -> None:
    """C[0:m, 0:n] = A[0:m, 0:k] @ B[0:k, 0:n] (+ C with `accumulate`, + bias[0, 0:n] with `bias`).

    Float inputs accumulate in f32, integers in s32 with saturation (docs/ascend.md, "Mmad type table"); only the
    valid m x n region of C is written. GEMV (m = 1, L0A `nd`) needs nothing special: the L0A
    tile's declared layout already says the vector is contiguous; m = 1 on a zz/nz lhs is an
    error unless `gemv_off` (the GEMV rule)."""
    if m == 0 or n == 0 or k == 0:
        return
    # The GEMV rule (isa params.gemv_active) for a runtime m: with m = 1 the hardware reads L0A
    # as an nd vector, so a zz/nz lhs would be misread; `gemv_off` = disable_gemv on a5.
    if m == 1 and a.layout != "nd" and not gemv_off:
        raise ExecutionError(
            f"m = 1 with a {a.layout} lhs {a.label}: the GEMV rule ({isa_params.GEMV_RULE}) needs "
            f"an nd lhs{'' if gemv_off else ' (or disable_gemv where the target has it)'}")
    _check_size("m", m, a.rows, "rows of the lhs", a)
    _check_size("k", k, a.cols, "columns of the lhs", a)
    _check_size("k", k, b.rows, "rows of the rhs", b)
    _check_size("n", n, b.cols, "columns of the rhs", b)
    _check_size("m", m, c.rows, "rows of the dst", c)
    _check_size("n", n, c.cols, "columns of the dst", c)
    ctype = _compute_dtype(a.element)
    lhs = _operand(a, m, k, ctype)
    rhs = _operand(b, k, n, ctype)
    prod = lhs @ rhs
    if bias is None and c.store.dtype == prod.dtype and lazy.usable(c, prod):
        _mad_lazy(c, prod, m, n, accumulate)
        return
    c.will_write()
    cphys, cblocked = _blocks(c)
    integer = cphys.dtype.kind in "iu"
    if integer:
        prod = np.rint(prod).astype(np.int64)  # mutation: skip (f64 sums of integer products are exact integers below 2^53: rint only converts)
    elif accumulate and bias is None and cphys.dtype == prod.dtype and not c.packed:
        _, fr, _, fc = cblocked.shape
        if m % fr == 0 and n % fc == 0:  # whole fractals: add in place through the blocked view
            target = cblocked[: m // fr, :, : n // fc, :]
            # in the destination's memory order: contiguous writes, strided reads of `prod`
            # (numpy's own order for this view took ~2x as long)
            order = _memory_order(target.strides)
            target = target.transpose(order)
            np.add(target, prod.reshape(m // fr, fr, n // fc, fc).transpose(order), out=target)
            return
    if accumulate:
        prod += read_region(cblocked, 0, 0, m, n, prod.dtype)
    if bias is not None:
        _check_size("n", n, bias.cols, "columns of the bias", bias)
        prod += read_region(_blocks(bias)[1], 0, 0, 1, n, prod.dtype)
    if integer and (accumulate or bias is not None):
        info = np.iinfo(cphys.dtype)
        np.clip(prod, info.min, info.max, out=prod)
    write_region(cblocked, prod)
    c.store_values(cphys)


def _mad_lazy(c: Tile, prod: np.ndarray, m: int, n: int, accumulate: bool) -> None:
    """A float mad into an L0C kept as its f32 logical matrix (`lazy`): the same sums in the
    same operand order as the byte path of `mad` (C + product on whole fractals, product + C
    otherwise: the order decides which NaN payload survives)."""
    if accumulate:
        acc = lazy.accumulator(c, m, n)
        fr, fc = c.stored_blocked().shape[1::2]
        whole = m % fr == 0 and n % fc == 0
        if acc is not None and whole:
            np.add(acc, prod, out=acc)
            return
        image = c.image
        if image is not None and image.dtype == prod.dtype and m <= image.shape[0] \
                and n <= image.shape[1]:
            current = image[:m, :n]
        else:
            current = read_region(c.blocked(), 0, 0, m, n, prod.dtype)
        prod = np.add(current, prod) if whole else np.add(prod, current, out=prod)
    lazy.pend_region(c, prod, m, n, acc=True)


# ------------------------------------------------------------------------------------------------
# Fixpipe
# ------------------------------------------------------------------------------------------------


def _saturate(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    info = np.iinfo(dtype)
    return np.clip(values, info.min, info.max).astype(dtype)


def _check_sign(signed: np.ndarray | bool, dst_dtype: np.dtype, mode: str) -> None:
    want = dst_dtype == np.dtype(np.int8)
    if np.any(np.asarray(signed) != want):
        raise ExecutionError(
            f"quant {mode}: the QUANT_PRE word sign bit (bit 46) selects "
            f"{'u8' if want else 's8'} output, but the destination is {'s8' if want else 'u8'}"
        )


def quantize(
    acc: np.ndarray,
    mode: str,
    dst_dtype: np.dtype,
    relu: bool = False,
    word: int | None = None,
    words: np.ndarray | None = None,
) -> np.ndarray:
    """Fixpipe conversion of an L0C block `acc` (f32 or s32, [m, n]) to `dst_dtype` (docs/ascend.md, "Quant modes").

    Scaled modes take the QUANT_PRE `word` (scalar modes) or one word per column in `words` (the
    `v*` modes). With ReLU the negative-side scale M2 is 0, otherwise M2 = M1. The datapath is
    modelled in f32: `float(x) * M1` rounded to f32, then converted (f16: saturate to +-65504;
    b8: round half to even, saturate to [-256, 255], add the offset, saturate to s8/u8)."""
    dst_dtype = np.dtype(dst_dtype)
    vector_mode = mode.startswith("v")
    base = mode[1:] if vector_mode else mode
    if base in ("none", "f322f16", "f322bf16"):
        y = np.maximum(acc, 0) if relu else acc
        if base == "none" and dst_dtype.kind in "iu":
            return _saturate(y, dst_dtype)
        return y.astype(dst_dtype)
    if base not in ("deqf16", "qf322b8_pre", "req8", "qf322f16_pre"):
        raise ExecutionError(f"quant mode {mode} is not supported by the executor")
    if vector_mode:
        if words is None:
            raise ExecutionError(f"quant {mode} requires a vector operand")
        q = decode_quant_words(words)
        scale, shift, mcb = q.scale[None, :], q.shift[None, :], q.mcb[None, :]
        offset, signed = q.offset[None, :], q.signed_output
    else:
        if word is None:
            raise ExecutionError(f"quant {mode} requires a scalar operand")
        w = decode_quant_word(word)
        scale, shift, mcb = w.scale, np.int64(w.shift), w.mcb  # the scale is cast to f32 where used
        offset, signed = w.offset, w.signed_output
    if base in ("deqf16", "req8"):
        x = acc.astype(np.int64)
        if np.any(mcb):
            x = np.where(mcb, x >> shift, x)
        x = x.astype(np.float32)
    else:
        x = acc.astype(np.float32, copy=False)
    y = x * np.asarray(scale, dtype=np.float32)
    if relu:
        y = np.where(x < 0, np.float32(0), y)  # mutation: skip (0 is exact in any float type; y is converted at the end)
    if base in ("deqf16", "qf322f16_pre"):  # f16 out saturates (PTOAS qf322f16_pre golden)
        return np.clip(y, -F16_MAX, F16_MAX).astype(dst_dtype)
    if dst_dtype not in (np.dtype(np.int8), np.dtype(np.uint8)):
        raise ExecutionError(f"quant {mode} requires an s8 or u8 destination, got {dst_dtype}")
    _check_sign(signed, dst_dtype, mode)
    q8 = np.clip(np.rint(y), -256, 255).astype(np.int64) + offset  # mutation: skip (integers in [-256, 255] are exact in f32)
    return _saturate(q8, dst_dtype)


def fixpipe(
    src: Tile,
    dst: np.ndarray | Tile,
    m: int,
    n: int,
    layout: str = "nz2nd",
    quant: str = "none",
    relu: bool = False,
    word: int | None = None,
    vector: Tile | None = None,
    atomic: str | None = None,
) -> None:
    """L0C -> GM / L1 / UB. Reads C[0:m, 0:n], converts it (`quantize`) and writes it:
    `nz2nd` dst[0:m, 0:n] (GM 2-D memref or nd tile); `nz2dn` dst[0:n, 0:m] = C^T (a GM memref
    or an nd tile; a `dn` tile takes C in its own layout); `nz2nz` into an nz tile or a 4-D GM
    memref (N1, M1, 16, c0). With `atomic` (GM only) the converted values are combined with the
    GM values they update (`atomic_combine`)."""
    if m == 0 or n == 0:
        return
    _check_size("m", m, src.rows, "rows of the source", src)
    _check_size("n", n, src.cols, "columns of the source", src)
    image = src.image  # an L0C kept lazily (`_mad_lazy`): its values in its own dtype
    if image is not None and image.dtype == src.store.dtype and m <= image.shape[0] \
            and n <= image.shape[1]:
        acc = image[:m, :n]
    else:
        acc = read_region(_blocks(src)[1], 0, 0, m, n)
    words = None
    if vector is not None:
        flat = vector.values().reshape(-1)
        _require(flat.size >= n, f"requires a quant vector of at least {n} words, got {flat.size}")
        words = flat[:n].view(np.uint64) if flat.dtype.itemsize == 8 else flat[:n]  # mutation: skip (quant vectors are u64)
    y = quantize(acc, quant, dst.dtype, relu, word, words)
    if isinstance(dst, Tile):
        if layout == "nz2dn" and dst.layout != "dn":
            y = y.T
        _check_size("rows", y.shape[0], dst.rows, "rows of the destination", dst)
        _check_size("cols", y.shape[1], dst.cols, "columns of the destination", dst)
        write_logical(dst, y)  # drops the images of the written bytes
        return
    if layout == "nz2nz":
        _require(dst.ndim == 4, f"nz2nz to GM requires a 4-D memref, got shape {dst.shape}")
        blocked = layouts.blocked_view(dst, "nz")
        pr, pc = blocked.shape[0] * blocked.shape[1], blocked.shape[2] * blocked.shape[3]
        _require(m <= pr and n <= pc, f"writes [{m} x {n}] beyond the nz GM memref of {pr}x{pc} elements")
        if atomic is not None:
            y = atomic_combine(read_region(blocked, 0, 0, m, n), y, atomic)
        write_region(blocked, y)
        _wrote_gm(src, dst)
        return
    out = _gm_2d(dst)
    if layout == "nz2dn":
        y = y.T
    if y.shape[0] > out.shape[0] or y.shape[1] > out.shape[1]:
        raise ExecutionError(
            f"writes [{y.shape[0]} x {y.shape[1]}] beyond the GM memref of shape "
            f"{'x'.join(map(str, dst.shape))}")
    if atomic is None:
        out[: y.shape[0], : y.shape[1]] = y
    else:
        window = out[: y.shape[0], : y.shape[1]]
        window[...] = atomic_combine(window, y, atomic)
    _wrote_gm(src, dst)


_ATOMIC_UFUNCS = {"add": np.add, "max": np.maximum, "min": np.minimum}


def atomic_combine(old: np.ndarray, y: np.ndarray, mode: str) -> np.ndarray:
    """What a GM store in atomic `mode` (`isa.GM_ATOMIC_OPS`) leaves in GM: the converted values
    `y` combined with the `old` GM values in the GM element type (each sum rounded to it; an
    integer sum wraps, as pto-isa's CPU simulator's `dst[i] += value` does)."""
    return _ATOMIC_UFUNCS[mode](old, y.astype(old.dtype, copy=False))


def atomic_store(dst: np.ndarray, index: np.ndarray, y: np.ndarray, mode: str | None) -> None:
    """`dst[index] = y`, or in atomic `mode` each value combined with its element of `dst`
    (`atomic_combine`), in order when an index repeats."""
    if mode is None:
        dst[index] = y
    else:
        _ATOMIC_UFUNCS[mode].at(dst, index, y.astype(dst.dtype, copy=False))


# ------------------------------------------------------------------------------------------------
# GatherMask
# ------------------------------------------------------------------------------------------------


GATHER_MAX_ELEMENTS = 1 << 22
"""Simulator limit of the elements one GatherMask processes (repeats x elements per repeat): 32 times
the largest UB, far above any kernel that does not re-read its data with zero strides."""


def gather_mask(
    dst: Tile,
    src0: Tile,
    mask: int,
    repeat_times: int,
    block_stride: int,
    repeat_stride: int,
    src1_repeat_stride: int = 0,
    pattern: int | None = None,
    src1: Tile | None = None,
    counter: bool = False,
    method: int = 1,
) -> int:
    """Vector GatherMask (docs/ascend.md, "GatherMask"): keep the src0 elements whose pattern bit is 1, write them
    packed from dst[0]; returns the kept count (rsvdCnt). Built-in `pattern` 1..7 or user pattern
    words in `src1`; counter mode with method 1 (mask elements per repeat) or 2 (310p: mask
    elements in total)."""
    # Dynamic operands must fit their GatherMaskParams fields (0 is a no-op for the sizes); the
    # verifier checks only constants.
    for name, value, (_, hi) in (
        ("repeat_times", repeat_times, targets.GATHER_REPEAT_TIMES_RANGE),
        ("src0_block_stride", block_stride, targets.GATHER_BLOCK_STRIDE_RANGE),
        ("src0_repeat_stride", repeat_stride, targets.GATHER_SRC0_REPEAT_STRIDE_RANGE),
        ("src1_repeat_stride", src1_repeat_stride, targets.GATHER_SRC1_REPEAT_STRIDE_RANGE),
    ):
        if not (counter and method == 2 and name == "repeat_times"):
            _check_size(name, value, hi, "GatherMaskParams field")
    if counter:
        _check_size("mask", mask, targets.GATHER_COUNTER_MASK_RANGE[1], "counter-mode element count")
    if (counter and mask == 0) or (repeat_times == 0 and not (counter and method == 2)):
        return 0  # a runtime size of 0 is a no-op
    # The index arrays hold one entry per processed element: refuse sizes (a 2^32 counter mask,
    # strides of 0 re-reading the same block) that would exhaust host memory.
    per_repeat = gather.elements_per_repeat(src0.element)
    processed = (mask if method == 2 else repeat_times * mask) if counter else repeat_times * per_repeat
    _require(
        processed <= GATHER_MAX_ELEMENTS,
        f"processes {processed} elements in one instruction, more than the simulator's limit of "
        f"{GATHER_MAX_ELEMENTS}",
    )
    counts = gather.repeat_counts(counter, method, src0.element, repeat_times, mask)
    try:
        if src1 is not None:
            words = src1.physical.reshape(-1)
            if words.dtype.kind != "u":
                words = words.view(np.dtype(f"u{words.dtype.itemsize}"))
            idx = gather.gather_mask_indices(
                src0.element, counts, block_stride, repeat_stride,
                pattern_words=words, src1_repeat_stride=src1_repeat_stride,
            )
        else:
            idx = gather.gather_mask_indices(
                src0.element, counts, block_stride, repeat_stride, pattern=pattern
            )
    except ValueError as err:
        raise ExecutionError(str(err)) from None
    src_flat = src0.physical.reshape(-1)
    if idx.size:
        last = int(idx.max())
        _require(
            last < src_flat.size,
            f"reads src0 element {last} (byte {last * src_flat.dtype.itemsize}) beyond the "
            f"{src_flat.size}-element src0 {src0.label}",
        )
    kept = src_flat[idx]
    dst_flat = dst.physical.reshape(-1)
    _require(
        kept.size <= dst_flat.size,
        f"keeps {kept.size} elements, more than the {dst_flat.size}-element dst {dst.label}",
    )
    dst.will_write()
    dst_flat[: kept.size] = kept
    return int(kept.size)
