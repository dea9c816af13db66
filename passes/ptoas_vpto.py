"""The VPTO half of ptoas-to-mmair: PTOAS's cube micro-ops (mmair.dialects.ptoas.vpto) become
mmair's raw parameter-form ops, the hardware fields PTOAS's own wrapper expansion
(lib/PTO/Transforms/VPTOExpandWrapperOps.cpp at tonibohnlein/PTOAS e32488c9) computes:

    mte_gm_l1 (bytes, start-to-start) ->  pto.copy_gm_l1 (DataCopyParams: 32-byte blocks, gaps end
        to start), one copy per iteration of its loop(...) groups
    mte_gm_l1_frac nd2nz | dn2nz      ->  pto.copy_nd2nz | pto.copy_dn2nz   (Nd2NzParams: group_count
        = nd_num, loop2 = dst_nz_n_stride, loop3 = dst_nz_c0_stride, loop4 * 32 B = the matrix
        stride; the source strides are bytes in VPTO, elements in the struct)
    mte_l1_l0a / mte_l1_l0b, load_cbuf_to_ca / _cb  ->  pto.load_2d_v2 (LoadData2DParamsV2, a5);
        the shape form's fields derived as deriveLoadCbufToCa/CbControl derives them
    mad / mad_acc / mad_bias          ->  pto.mmad (cmatrixInitVal, cmatrixSource, unitFlag 2 / 3)
    mte_l0c_gm / mte_l0c_l1 / _ub     ->  pto.fixpipe_copy (nz2nd / nz2dn / nz2nz, loop3 = nd_num)
    mte_l1_bt                         ->  pto.copy_l1_bt
    mte_l1_fb, copy_cbuf_to_fbuf      ->  pto.mte_l1_fb (one contiguous copy)

A pointer is a place in a buffer: `tile_buf_addr` points at the tile's start, `tensor_view_addr`
at a GM view's first element (the memref its make_tensor_view / partition_view became), `castptr` of a
byte address at that byte of its space (an mmair tile placed there, reaching to the next address
a castptr or alloc_tile names in that space, so buffers never overlap), `addptr` moves by elements. A GM pointer argument becomes a 1-D memref sized by the bytes
the ops read or write through it. A pointer argument in a local space (PTOAS's lit tests write
them) points at byte 0 of its space: a kernel has no other way to say where it is.

VPTO is modelled on a5, the target of PTOAS's VPTO backend. What mmair does not model is refused
at the op (ConversionError): the FIXPIPE transforms other than
f32 -> f16 / bf16 conversion and normal ReLU, packed FP4 and a store without a layout
clause. docs/ptoas.md has the table.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, UnitAttr, i64
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from mmair.dialects import pto
from mmair.dialects.pto._verify import static_value
from mmair.dialects.ptoas import vpto as V
from mmair.dialects.ptoas.types import PACKED_ELEMENTS, PtrType
from mmair.dialects.ptoas.vpto_fixpipe import QUANT_PRE_MODES
from mmair.dialects.types import element_name_or_none
from mmair.isa.ascend import params as isa_params
from mmair.isa.ascend.targets import QUANT_MODES, element_bits, get_target

FRACTAL_ROWS = 16  # M0: rows of a cube fractal
C0_BYTES = 32  # a C0 block (the NZ fractal's row)

POINTER_OPS = (V.TileBufAddrOp, V.TensorViewAddrOp, V.CastPtrOp, V.AddPtrOp)
MAX_GM_ELEMENTS = 1 << 62  # i64 offsets and strides stay representable


@dataclass(frozen=True)
class Place:
    """Where a pointer points: a tile (local spaces) or a memref (GM), and an element offset."""

    buffer: SSAValue
    offset: int | SSAValue = 0


def _fail(op: Operation, message: str) -> Exception:
    from mmair.passes.ptoas_to_mmair import ConversionError

    return ConversionError(op, message)


def _element_bytes(op: Operation, element: Attribute) -> int:
    if isinstance(element, PACKED_ELEMENTS):
        raise _fail(op, f"has packed element type {element}: the S4 loads and packed FP4 data are "
                        f"not modelled by mmair (docs/ptoas.md)")
    name = element_name_or_none(element)
    if name is None:
        raise _fail(op, f"has element type {element}, which mmair does not model")
    return element_bits(name) // 8


class VptoState:
    """One function's pointers and the tiles placed for `castptr` addresses."""

    def __init__(self, fn: func.FuncOp, target: str) -> None:
        self.fn = fn
        self.target = target
        self.places: dict[SSAValue, Place] = {}
        self.placed: dict[tuple[str, Attribute, int], SSAValue] = {}
        self.local_args: list[BlockArgument] = []
        self.starts = _buffer_starts(fn)

    def end_of(self, space: str, byte: int, capacity: int) -> int:
        """Where the buffer a pointer at `byte` of `space` ends: the next address a castptr or an
        alloc_tile names in that space, or the end of the space. Buffers so do not overlap, which
        keeps mmair's reference (it follows buffers, not bytes) in step with the executor; a
        copy running past its buffer is an error."""
        later = [s for s in self.starts.get(space, ()) if s > byte]
        return min(later, default=capacity)

    # -- values ---------------------------------------------------------------------------------

    def _insert(self, at: Operation, new: Operation) -> Operation:
        from mmair.dialects.origin import ORIGIN

        new.location = at.location
        ORIGIN[new] = at.name
        Rewriter.insert_op(new, InsertPoint.before(at))
        return new

    def index(self, at: Operation, value: SSAValue | int, divide: int = 1, what: str = "") -> SSAValue:
        """`value` (an i64, index or int) as an index, divided exactly by `divide`."""
        v = value if isinstance(value, int) else static_value(value)
        if v is not None:
            if v % divide:
                raise _fail(at, f"requires {what} to be a multiple of {divide}, got {v}")
            return self._insert(at, arith.ConstantOp(IntegerAttr(v // divide, IndexType()))).results[0]
        assert isinstance(value, SSAValue)
        if not isinstance(value.type, IndexType):
            value = self._insert(at, arith.IndexCastOp(value, IndexType())).results[0]
        if divide != 1:
            d = self._insert(at, arith.ConstantOp(IntegerAttr(divide, IndexType()))).results[0]
            value = self._insert(at, arith.DivUIOp(value, d)).results[0]
        return value

    def add(self, at: Operation, a: int | SSAValue, b: int | SSAValue) -> int | SSAValue:
        if isinstance(a, int) and isinstance(b, int):
            if not -MAX_GM_ELEMENTS < a + b < MAX_GM_ELEMENTS:
                raise _fail(at, f"moves a pointer {a + b} elements, outside +-2^62")
            return a + b
        return self._insert(at, arith.AddiOp(self.index(at, a), self.index(at, b))).results[0]

    # -- pointers -------------------------------------------------------------------------------

    def space_tile(self, at: Operation, space: str, element: Attribute, byte: int) -> SSAValue:
        """The tile at byte `byte` of `space` reaching to its end, placed once at the entry."""
        key = (space, element, byte)
        if key not in self.placed:
            size = _element_bytes(at, element)
            capacity = get_target(self.target).capacity.get(space)
            if capacity is None:
                raise _fail(at, f"uses space {space}, which target {self.target} does not have")
            if not 0 <= byte < capacity or byte % size:
                raise _fail(at, f"requires a byte address in [0, {capacity}) aligned to {size} "
                                f"bytes in {space}, got {byte}")
            from mmair.passes.ptoas_to_mmair import element_of

            tile = _space_tile_type(at, self.target, space, element_of(at, element),
                                    (self.end_of(space, byte, capacity) - byte) // size, size)
            alloc = pto.AllocOp(tile, byte)
            alloc.location = at.location
            block = self.fn.body.block
            Rewriter.insert_op(alloc, InsertPoint.at_start(block))
            self.placed[key] = alloc.results[0]
        return self.placed[key]

    def place(self, at: Operation, value: SSAValue) -> Place:
        if value in self.places:
            return self.places[value]
        t = value.type
        if isinstance(t, MemRefType):  # a GM argument, converted already
            return Place(value)
        if isinstance(value, BlockArgument) and isinstance(t, PtrType):
            if value not in self.local_args:
                self.local_args.append(value)
            place = Place(self.space_tile(at, t.space.data, t.element_type, 0))
            self.places[value] = place
            return place
        raise _fail(at, f"requires a pointer made by pto.tile_buf_addr, pto.castptr or pto.addptr "
                        f"(or a kernel argument), got {t}")

    def tile_at_start(self, at: Operation, value: SSAValue, role: str) -> SSAValue:
        """A tile starting where `value` points: the raw ops without an offset field (mad, the
        FIXPIPE destination in L1) name their operand by its start."""
        place = self.place(at, value)
        if place.offset == 0:
            return place.buffer
        owner = place.buffer.owner
        if isinstance(place.offset, int) and isinstance(owner, pto.AllocOp) and \
                owner.offset is not None and place.buffer in self.placed.values():
            t = value.type
            byte = owner.offset.value.data + place.offset * _element_bytes(at, t.element_type)
            return self.space_tile(at, t.space.data, t.element_type, byte)
        raise _fail(at, f"requires {role} at a static address (a castptr of a constant, or a "
                        f"tile_buf_addr): mmair's Mmad and Fixpipe take whole buffers")

    def gm_view(self, at: Operation, value: SSAValue) -> SSAValue:
        place = self.place(at, value)
        if place.offset == 0:
            return place.buffer
        source = place.buffer
        if source.type.get_num_dims() != 1:
            raise _fail(at, f"requires a pointer at the first element of a GM view: an addptr of "
                            f"a {source.type} view has no window (make the window a "
                            f"partition_view)")
        (size,) = source.type.get_shape()
        offset = place.offset
        if isinstance(offset, int):
            result = memref.SubviewOp.infer_result_type(source.type, [offset], [size - offset], [1])
            view = memref.SubviewOp(source, [], [], [], [offset], [size - offset], [1], result)
        else:
            raise _fail(at, "requires a static offset of a GM pointer")
        return self._insert(at, view).results[0]

    def finish(self) -> None:
        """Erase the pointer ops and the local-space pointer arguments, now unused."""
        for op in reversed(list(self.fn.walk())):
            if isinstance(op, POINTER_OPS) and not op.results[0].uses:
                op.detach()
                op.erase()
        block = self.fn.body.block
        for arg in self.local_args:
            if not arg.uses:
                block.erase_arg(arg)
        inputs = [a.type for a in block.args]
        self.fn.function_type = func.FunctionType.from_lists(
            inputs, list(self.fn.function_type.outputs.data))


def _space_tile_type(at: Operation, target: str, space: str, element: Attribute, elements: int,
                     size: int) -> pto.TileType:
    """A tile of about `elements` elements in a layout `space` allows: flat nd where it may be,
    else whole fractals (16 rows of C0 bytes) as the space's layout factorizes them."""
    from mmair.dialects.pto.types import legal_layouts

    legal = legal_layouts(space, get_target(target))
    if "nd" in legal and space != "l0a":
        return pto.TileType(space, [elements], element, "nd")
    layout = next(name for name in ("nz", "zz", "zn", "nn") if name in legal)
    cols = max(FRACTAL_ROWS, C0_BYTES // size)
    rows = elements // cols // FRACTAL_ROWS * FRACTAL_ROWS
    if rows == 0:
        raise _fail(at, f"points less than one fractal ({FRACTAL_ROWS * cols * size} bytes) "
                        f"before the end of {space}")
    return pto.TileType(space, [rows, cols], element, layout)


def _buffer_starts(fn: func.FuncOp) -> dict[str, set[int]]:
    """The byte addresses a function's castptr constants and alloc_tile addrs name, per space."""
    from mmair.dialects.ptoas import ops as P
    from mmair.passes.ptoas_to_mmair import LOC_SPACE

    starts: dict[str, set[int]] = {}
    for op in fn.walk():
        if isinstance(op, V.CastPtrOp) and isinstance(op.result.type, PtrType):
            address = static_value(op.input)
            if address is not None:
                starts.setdefault(op.result.type.space.data, set()).add(address)
        elif isinstance(op, P.AllocTileOp) and op.addr is not None:
            address = static_value(op.addr)
            space = LOC_SPACE.get(str(op.result.type.get("loc")))
            if address is not None and space is not None:
                starts.setdefault(space, set()).add(address)
    return starts


# -- GM argument sizes ------------------------------------------------------------------------


def gm_extent(arg: SSAValue) -> int:
    """The elements of a GM pointer argument the VPTO ops reach (its memref's size)."""
    element = arg.type.element_type
    end = 0
    stack: list[tuple[SSAValue, int]] = [(arg, 0)]
    while stack:
        value, offset = stack.pop()
        for use in value.uses:
            op = use.operation
            if isinstance(op, V.AddPtrOp):
                step = static_value(op.offset)
                if step is None:
                    raise _fail(op, "requires a static offset of a GM pointer argument (mmair "
                                    "sizes the argument from the ops that use it)")
                stack.append((op.result, offset + step))
                continue
            end = max(end, offset + _op_extent(op, element))
    if end >= MAX_GM_ELEMENTS:
        raise _fail(arg.owner.parent_op() if isinstance(arg, BlockArgument) else arg.owner,
                    f"has a GM pointer argument the VPTO ops reach {end} elements into (more than "
                    f"2^62)")
    if end <= 0:
        raise _fail(arg.owner.parent_op() if isinstance(arg, BlockArgument) else arg.owner,
                    "has a GM pointer argument no VPTO op reads or writes")
    return end


def _static(op: Operation, slot: str) -> int:
    value = op.value(slot)
    v = static_value(value)
    if v is None:
        raise _fail(op, f"requires a static {slot} (arith.constant): mmair sizes a GM pointer "
                        f"argument from the ops that use it")
    return v


def _op_extent(op: Operation, element: Attribute) -> int:
    size = _element_bytes(op, element)
    if isinstance(op, V.MteGmL1FracOp):
        groups, n, d = _static(op, "group_count"), _static(op, "n_value"), _static(op, "d_value")
        inner = _static(op, "src_inner_stride")
        outer = _static(op, "src_outer_stride") if op.value("src_outer_stride") else 0
        rows, width = (n, d) if op.mode.data == "nd2nz" else (d, n)
        last = (groups - 1) * outer + (rows - 1) * inner + width * size
        return -(-last // size)
    if isinstance(op, V.MteGmL1Op):
        last = (_static(op, "count") - 1) * _static(op, "src_stride") + _static(op, "len_burst")
        for i in range(1, V.MAX_BURST_LOOPS + 1):
            if op.value(f"loop{i}_count") is not None:
                last += (_static(op, f"loop{i}_count") - 1) * _static(op, f"loop{i}_src_stride")
        return -(-last // size)
    if isinstance(op, V.MteL0cGmOp):
        m, n, dst_stride = _static(op, "m"), _static(op, "n"), _static(op, "dst_stride")
        count = _static(op, "loop3_count") if op.value("loop3_count") else 1
        step = _static(op, "loop3_dst_stride") if op.value("loop3_count") else 0
        layout = op.layout.data if op.layout is not None else "nz2nd"
        if layout == "nz2nd":
            last = (m - 1) * dst_stride + n
        elif layout == "nz2dn":
            last = (n - 1) * dst_stride + m
        else:
            last = (-(-n // FRACTAL_ROWS) - 1) * dst_stride + FRACTAL_ROWS * m
        return (count - 1) * step + last
    raise _fail(op, "uses a GM pointer argument; mmair sizes GM pointers from mte_gm_l1, "
                    "mte_gm_l1_frac and mte_l0c_gm only")


# -- op conversions ---------------------------------------------------------------------------


def _check_target(state: VptoState, op: Operation) -> None:
    if state.target != "a5":
        raise _fail(op, f"is a VPTO cube op, modelled on target_arch a5 (PTOAS's VPTO backend), "
                        f"got target {state.target}")


def _tile_buf_addr(state: VptoState, op: V.TileBufAddrOp) -> None:
    tile = op.src
    if not isinstance(tile.type, pto.TileType):
        raise _fail(op, f"requires a tile made by pto.alloc_tile, got {tile.type}")
    from mmair.passes.ptoas_to_mmair import element_of

    if element_of(op, op.dst.type.element_type) != tile.type.element_type:
        raise _fail(op, f"requires a pointer of the tile's element type "
                        f"{tile.type.element_type}, got {op.dst.type.element_type}")
    if op.dst.type.space.data != tile.type.space_name:
        raise _fail(op, f"requires a pointer in the tile's space {tile.type.space_name}, got "
                        f"{op.dst.type.space.data}")
    state.places[op.dst] = Place(tile)


def _tensor_view_addr(state: VptoState, op: V.TensorViewAddrOp) -> None:
    """The first element of a GM view: the memref (argument or subview) its view became."""
    view = op.src
    if not isinstance(view.type, MemRefType):
        raise _fail(op, f"requires a view of a kernel argument (make_tensor_view or "
                        f"partition_view), got {view.type}")
    state.places[op.dst] = Place(view)


def _castptr(state: VptoState, op: V.CastPtrOp) -> None:
    result = op.result.type
    assert isinstance(result, PtrType)
    space, element = result.space.data, result.element_type
    if space == "gm":
        raise _fail(op, "casts to a GM pointer; mmair's GM tensors are the kernel's arguments")
    if isinstance(op.input.type, PtrType):
        source = state.place(op, op.input)
        owner = source.buffer.owner
        if isinstance(source.offset, int) and isinstance(owner, pto.AllocOp) and \
                owner.offset is not None:
            byte = owner.offset.value.data + source.offset * _element_bytes(op, op.input.type.element_type)
            state.places[op.result] = Place(state.space_tile(op, space, element, byte))
            return
        raise _fail(op, "requires a pointer at a static address to cast to another element type")
    address = static_value(op.input)
    if address is not None:
        state.places[op.result] = Place(state.space_tile(op, space, element, address))
        return
    size = _element_bytes(op, element)
    state.places[op.result] = Place(state.space_tile(op, space, element, 0),
                                    state.index(op, op.input, size, "the address"))


def _addptr(state: VptoState, op: V.AddPtrOp) -> None:
    base = state.place(op, op.ptr)
    step = static_value(op.offset)
    state.places[op.result] = Place(base.buffer, state.add(op, base.offset,
                                                           step if step is not None else op.offset))


def _local(state: VptoState, op: Operation, slot: str) -> tuple[SSAValue, SSAValue]:
    place = state.place(op, op.require(slot))
    return place.buffer, state.index(op, place.offset)


def _frac(state: VptoState, op: Operation) -> None:
    _check_target(state, op)
    src = op.require("src")
    size = _element_bytes(op, src.type.element_type)
    gm = state.gm_view(op, src)
    dst, dst_offset = _local(state, op, "dst")
    ix = state.index
    outer = op.value("src_outer_stride")
    fields = {
        "n_value": ix(op, op.require("n_value")),
        "d_value": ix(op, op.require("d_value")),
        "src_d_value": ix(op, op.require("src_inner_stride"), size, "src_inner_stride"),
        "dst_nz_c0_stride": ix(op, op.require("dst_loop3_stride")),
        "dst_nz_n_stride": ix(op, op.require("dst_loop2_stride")),
    }
    loop4 = static_value(op.require("dst_loop4_stride"))
    if loop4 is None:
        raise _fail(op, "requires a static dst_loop4_stride")
    fields["dst_nz_matrix_stride"] = ix(op, loop4 * C0_BYTES, size, "dst_loop4_stride * 32 B")
    stride = ix(op, outer if outer is not None else 0, size, "src_outer_stride")
    count = ix(op, op.require("group_count"))
    small = static_value(op.require("smallc0_en"))
    if small is None:
        raise _fail(op, "requires a static smallc0_en")
    if op.mode.data == "nd2nz":
        cls, names = pto.CopyNd2NzOp, ("nd_num", "src_nd_matrix_stride")
    else:
        cls, names = pto.CopyDn2NzOp, ("dn_num", "src_dn_matrix_stride")
    fields[names[0]], fields[names[1]] = count, stride
    params = [fields[name] for name in cls.FIELDS]
    state._insert(op, cls(gm, dst, dst_offset, *params, small_c0=bool(small)))
    _erase(op)


MAX_UNROLLED_LOOPS = 256
"""Most `loop(...)` iterations of one mte_gm_l1 that become separate copies."""


def _bursts(state: VptoState, op: Operation) -> None:
    """mte_gm_l1 -> pto.copy_gm_l1 (DataCopyParams in 32-byte blocks, gaps end to start), one
    per iteration of its loop(...) groups."""
    _check_target(state, op)
    src_ptr = op.require("src")
    size = _element_bytes(op, src_ptr.type.element_type)
    values = {s: static_value(op.value(s)) for s in op.SLOTS[2:] if op.value(s) is not None}
    dynamic = next((s for s, v in values.items() if v is None), None)
    if dynamic is not None:
        raise _fail(op, f"requires a static {dynamic}: mmair converts the bursts to DataCopy "
                        f"fields at conversion")
    length, count = values["len_burst"], values["count"]
    unit = C0_BYTES

    def gap(stride: int, role: str) -> int:
        if count == 1:
            return 0
        if stride < length or (stride - length) % unit:
            raise _fail(op, f"requires {role} >= len_burst with a gap of whole 32-byte blocks "
                            f"(DataCopy), got {stride} for len_burst {length}")
        return (stride - length) // unit

    if length == 0 or length % unit:
        raise _fail(op, f"requires len_burst to be a positive multiple of 32 bytes (DataCopy "
                        f"moves 32-byte blocks; the padded form is not modelled), got {length}")
    src_gap, dst_gap = gap(values["src_stride"], "src_stride"), gap(values["dst_stride"], "dst_stride")
    loops = [(values[f"loop{i}_count"], values[f"loop{i}_src_stride"], values[f"loop{i}_dst_stride"])
             for i in range(1, V.MAX_BURST_LOOPS + 1) if f"loop{i}_count" in values]
    starts = [(0, 0)]
    for n, src_step, dst_step in loops:
        starts = [(s + j * src_step, d + j * dst_step) for s, d in starts for j in range(n)]
        if len(starts) > MAX_UNROLLED_LOOPS:
            raise _fail(op, f"has more than {MAX_UNROLLED_LOOPS} loop iterations, which mmair "
                            f"unrolls into separate copies")
    gm = state.place(op, src_ptr)
    dst = state.place(op, op.require("dst"))
    for src_byte, dst_byte in starts:
        if src_byte % size or dst_byte % size:
            raise _fail(op, f"requires loop strides of whole {size}-byte elements")
        new = pto.CopyGmL1Op(
            gm.buffer, state.index(op, state.add(op, gm.offset, src_byte // size)),
            dst.buffer, state.index(op, state.add(op, dst.offset, dst_byte // size)),
            state.index(op, count), state.index(op, length // unit), state.index(op, src_gap),
            state.index(op, dst_gap))
        state._insert(op, new)
    _erase(op)


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def _load_fields(op: Operation, element_size: int) -> tuple[int | SSAValue, ...] | None:
    """The shape form's LoadData2DParamsV2 fields (VPTOExpandWrapperOps.cpp
    deriveLoadCbufToCa/CbControl): (m_start, k_start, m_step, k_step, src_stride, dst_stride)."""
    if op.SHAPE_FORM and op.value(op.SHAPE[0]) is not None:
        left = isinstance(op, V.MteL1L0aOp)
        outer_name, k_name = ("m", "k") if left else ("n", "k")
        outer, k = static_value(op.value(outer_name)), static_value(op.value(k_name))
        if outer is None or k is None:
            raise _fail(op, f"requires static {outer_name} and {k_name}: mmair derives the load "
                            f"fields from them at conversion")
        start = (op.require("start_row"), op.require("start_col"))
        if not op.transpose:
            steps = _cdiv(outer, FRACTAL_ROWS)
            return (*start, steps, _cdiv(k * element_size, C0_BYTES), steps, steps)
        c0 = max(16, C0_BYTES // element_size)
        outer_align, k_align = _cdiv(outer, c0) * c0, _cdiv(k, c0) * c0
        return (*start, _cdiv(k_align, FRACTAL_ROWS), _cdiv(outer_align * element_size, C0_BYTES),
                _cdiv(k_align, FRACTAL_ROWS), _cdiv(outer_align, FRACTAL_ROWS))
    return None


def _load(state: VptoState, op: Operation) -> None:
    _check_target(state, op)
    src_ptr = op.require("src")
    size = _element_bytes(op, src_ptr.type.element_type)
    _element_bytes(op, op.require("dst").type.element_type)
    src, src_offset = _local(state, op, "src")
    dst, dst_offset = _local(state, op, "dst")
    fields = _load_fields(op, size) or tuple(op.require(s) for s in V.FULL_CONTROL)
    from mmair.dialects.pto.raw_fields import ordered

    values = dict(zip(("m_start_position", "k_start_position", "m_step", "k_step", "src_stride",
                       "dst_stride"), (state.index(op, v) for v in fields), strict=True))
    values.update(src=src, src_offset=src_offset, dst=dst, dst_offset=dst_offset)
    new = pto.Load2DV2Op.build(
        operands=ordered(pto.Load2DV2Op, values),
        properties={"if_transpose": UnitAttr() if op.transpose else None})
    state._insert(op, new)
    _erase(op)


def _mad(state: VptoState, op: Operation) -> None:
    _check_target(state, op)
    lhs = state.tile_at_start(op, op.require("lhs"), "lhs")
    rhs = state.tile_at_start(op, op.require("rhs"), "rhs")
    dst = state.tile_at_start(op, op.require("dst"), "dst")
    bias = state.tile_at_start(op, op.require("bias"), "bias") if op.BIAS else None
    m, n, k = (state.index(op, op.require(s)) for s in ("m", "n", "k"))
    unit_flag = {None: 0, "check_only": 2, "check_and_set": 3}[
        op.unit_flag.data if op.unit_flag is not None else None]
    # n_dir orders the result's production for unit-flag schedules; dst is the same (docs).
    # sat / nosat and tf32_mode are the CTRL modes PTOAS sets around the raw Mmad (mad_modes)
    new = pto.MmadOp(lhs, rhs, dst, m, n, k, bias=bias, init_zero=not op.ACCUMULATES,
                     unit_flag=unit_flag, disable_gemv=op.disable_gemv is not None,
                     sat=None if op.sat is None else op.sat.data,
                     tf32_mode=None if op.tf32_mode is None else op.tf32_mode.data)
    state._insert(op, new)
    _erase(op)


_QUANT = {"f32_f16": "f322f16", "f32_bf16": "f322bf16", "no_convert": "none"}


def _pre_quant(state: VptoState, op: Operation) -> tuple[str, SSAValue | None]:
    """The mmair quant mode of a FIXPIPE store's pre_quant clause, and its scalar QUANT_PRE word.
    A `<mode>_scalar` is mmair's scalar `<mode>` with the word PTOAS's wrapper expansion writes
    (VPTOExpandWrapperOps.cpp materializeAccStoreScalarPayload): an integer payload as it is, a
    float one as its f32 bits (f16 / bf16 widened first) zero-extended, i.e. the scale M1 with
    shift, offset and sign 0."""
    if op.quant_mode is None:
        return "none", None
    mode = op.quant_mode.data
    if mode in _QUANT:
        return _QUANT[mode], None
    base = mode.removesuffix("_scalar")
    if mode == base or base not in QUANT_MODES:
        scalar = sorted(f"{m}_scalar" for m in QUANT_MODES if f"{m}_scalar" in QUANT_PRE_MODES)
        raise _fail(op, f"has pre_quant mode {mode}; mmair models "
                        f"[{', '.join([*_QUANT, *scalar])}]")
    payload = op.require("quant_payload")
    owner = payload.owner
    if not isinstance(owner, arith.ConstantOp):
        raise _fail(op, f"requires a constant (arith.constant) pre_quant payload for {mode}: "
                        f"mmair builds the QUANT_PRE word when it reads the kernel")
    value = owner.value
    if isinstance(value, IntegerAttr):
        bits = value.value.data & 0xFFFF_FFFF_FFFF_FFFF
    else:
        bits = int(np.array(value.value.data, dtype=np.float32).view(np.uint32))
    word = state._insert(op, arith.ConstantOp(IntegerAttr(bits, i64))).results[0]
    return base, word


def _acc_store(state: VptoState, op: Operation) -> None:
    _check_target(state, op)
    if op.layout is None:
        raise _fail(op, "has no layout clause (the target's normal writeback layout), which "
                        "mmair does not model: write nz2nd, nz2dn or nz2nz")
    dst_ptr = op.require("dst")
    atomic = None
    if op.atomic_type is not None:
        # the CTRL register's atomic type says how the GM bytes are read: mmair requires the
        # type of the elements the store writes (pto-isa's TSTORE sets exactly that one)
        gm_elem = element_name_or_none(dst_ptr.type.element_type)
        if op.atomic_type.data != gm_elem:
            raise _fail(op, f"has atomic(type = {op.atomic_type.data}) with a "
                            f"{dst_ptr.type.element_type} destination: the atomic type must be "
                            f"the destination's element type ({gm_elem})")
        atomic = op.atomic_op.data
    if op.sat is not None and str(dst_ptr.type.element_type) != "f32":
        raise _fail(op, f"has {op.sat.data} with a {dst_ptr.type.element_type} destination: "
                        f"FIXPIPE saturation is not modelled by mmair (it changes nothing for f32)")
    quant, word = _pre_quant(state, op)
    relu = False
    if op.relu_mode is not None:
        if op.relu_mode.data not in ("no_relu", "normal_relu") or op.value("clip") is not None:
            raise _fail(op, f"has pre_relu mode {op.relu_mode.data}"
                            f"{' with clip' if op.value('clip') is not None else ''}; mmair "
                            f"models no_relu and normal_relu")
        relu = op.relu_mode.data == "normal_relu"
    if op.UB:
        if op.dst_mode is not None:
            raise _fail(op, f"has dst_mode({op.dst_mode.data}): the dual-destination write to "
                            f"both vector sub-blocks' UBs is not modelled by mmair")
        if static_value(op.require("sub_blockid")) != 0:
            raise _fail(op, "requires dst_mode(%sub_blockid) with a constant 0: mmair models "
                            "the UB of vector sub-block 0 only")
    src, src_offset = _local(state, op, "src")
    if op.GM:
        dst = state.gm_view(op, dst_ptr)
    else:
        dst = state.tile_at_start(op, dst_ptr, "dst")
    ix = state.index
    looped = op.value("loop3_count") is not None
    layout = op.layout.data
    split = op.value("split")
    split_value = static_value(split) if split is not None else 0
    if split_value is None:
        raise _fail(op, "requires a static nz2nz split")
    unit_flag = {None: 0, "check_only": 2, "check_and_clear": 3}[
        op.unit_flag.data if op.unit_flag is not None else None]
    new = pto.FixpipeCopyOp(
        src, src_offset, dst, ix(op, op.require("n")), ix(op, op.require("m")),
        ix(op, op.require("src_stride")), ix(op, op.require("dst_stride")),
        ix(op, op.require("loop3_count") if looped else 1),
        ix(op, op.require("loop3_src_stride") if looped else 0),
        ix(op, op.require("loop3_dst_stride") if looped else 0),
        src_nz_c0_stride=ix(op, op.require("loop0_src_stride")) if layout == "nz2dn" else None,
        layout=layout, quant=quant, relu=relu, unit_flag=unit_flag,
        channel_split=bool(split_value), atomic=atomic, scalar=word)
    state._insert(op, new)
    _erase(op)


def _l1_bt(state: VptoState, op: Operation) -> None:
    _check_target(state, op)
    # f16 / bf16 -> f32 widen (convControl, set by PTOAS's ExpandBiasLoadPattern for f16):
    # pto.copy_l1_bt checks the pair against the target's bias load
    src, src_offset = _local(state, op, "src")
    dst, dst_offset = _local(state, op, "dst")
    ix = state.index
    new = pto.CopyL1BtOp(src, src_offset, dst, dst_offset, ix(op, op.require("count")),
                         ix(op, op.require("len_burst")), ix(op, op.require("src_gap")),
                         ix(op, op.require("dst_gap")))
    state._insert(op, new)
    _erase(op)


def _l1_fb(state: VptoState, op: Operation) -> None:
    """`mte_l1_fb` / `copy_cbuf_to_fbuf`: one contiguous copy of len_burst x count load units
    (64 B on a5: pto-isa a5 TMovToFb, `burstLen = bytes >> 6`; PTOAS's tilelang ST textract_fp
    moves a 1024-byte scaling tile with len_burst 16) from the start of an L1 buffer to the start
    of an FB one, as pto.mte_l1_fb."""
    _check_target(state, op)
    src_elem, dst_elem = (str(op.require(s).type.element_type) for s in ("src", "dst"))
    if src_elem != dst_elem:
        raise _fail(op, f"moves {src_elem} to {dst_elem}: mmair's L1 -> FB copy keeps the element "
                        f"type (its bytes are copied as they are)")
    count, length = (static_value(op.require(s)) for s in ("count", "len_burst"))
    gaps = [static_value(op.require(s)) for s in ("src_gap", "dst_gap")]
    if count is None or length is None or count > 1 and gaps != [0, 0]:
        raise _fail(op, "requires static burst fields and zero gaps between bursts: mmair models "
                        "one contiguous L1 -> FB copy")
    src, src_offset = _local(state, op, "src")
    dst, dst_offset = _local(state, op, "dst")
    if static_value(src_offset) != 0 or static_value(dst_offset) != 0:
        raise _fail(op, "requires pointers at the start of their buffers (a castptr or tile "
                        "address): mmair's mte_l1_fb copies from and to a tile's first element")
    size = _element_bytes(op, op.require("src").type.element_type)
    unit = isa_params.l1_fb_unit_bytes(get_target(state.target))
    state._insert(op, pto.MteL1FbOp(src, dst, state.index(op, count * length * unit // size)))
    _erase(op)


def _erase(op: Operation) -> None:
    op.detach()
    op.erase()


HANDLERS = {
    V.TileBufAddrOp: _tile_buf_addr, V.TensorViewAddrOp: _tensor_view_addr, V.CastPtrOp: _castptr, V.AddPtrOp: _addptr,
    V.MteGmL1Op: _bursts, V.MteGmL1FracOp: _frac, V.MteL1L0aOp: _load, V.MteL1L0bOp: _load, V.LoadCbufToCaOp: _load,
    V.LoadCbufToCbOp: _load, V.MadOp: _mad, V.MadAccOp: _mad, V.MadBiasOp: _mad,
    V.MteL0cGmOp: _acc_store, V.MteL0cL1Op: _acc_store, V.MteL0cUbOp: _acc_store,
    V.MteL1BtOp: _l1_bt, V.MteL1FbOp: _l1_fb, V.CopyCbufToFbufOp: _l1_fb,
}
"""VPTO op class -> its conversion (state, op)."""


def uses_vpto(value: SSAValue) -> bool:
    """Whether a pointer argument is used by VPTO ops (not a make_tensor_view)."""
    return any(isinstance(u.operation, tuple(HANDLERS)) for u in value.uses)
