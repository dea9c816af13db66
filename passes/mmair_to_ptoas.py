"""mmair-to-ptoas: write an mmair cube kernel as PTOAS's tile-level `pto` IR (the inverse of
ptoas-to-mmair; `mmair-translate --target ptoas` prints the result).

    func arg memref<RxCxT>                      ->  arg !pto.ptr<T> + make_tensor_view shape [R, C]
    memref.subview of an argument               ->  partition_view offsets, sizes
    pto.alloc [offset] : !pto.tile<space, ...>   ->  alloc_tile [addr = c] : !pto.tile_buf<loc, ...>
    pto.mte_gm_l1                                ->  tload ins(view) outs(mat)
    pto.mte_l1_l0a / pto.mte_l1_l0b [start]      ->  tmov / textract ins(mat[, row, col]) outs(left/right)
    pto.mte_l1_bt                                ->  tmov ins(mat) outs(bias)
    pto.mad / mad_acc / mad_bias (m = 1: tgemv*) ->  tmatmul / tmatmul.acc / tmatmul.bias
    pto.fixpipe l0c -> GM / l1                   ->  tstore / tmov (quant from the element types;
                                                    atomic add: {atomicType = atomic_add})
    raw parameter forms (a5)                     ->  VPTO micro-ops (passes/mmair_to_vpto.py)
    pto.set_flag / wait_flag a -> b, n           ->  set_flag / wait_flag [<PIPE_A>, <PIPE_B>, <EVENT_IDn>]
    pto.pipe_barrier x                           ->  barrier <PIPE_X>
    pto.block_idx / block_num                    ->  get_block_idx / get_block_num + arith.index_cast
    module pto.target = "a2" / "a5"              ->  pto.target_arch, pto.kernel_kind = cube

PTOAS's tile ops take their sizes from the valid regions of their tiles (docs/ptoas.md), so a tile
that some op moves or multiplies only in part (a remainder tile of a lowered matmul, sizes the
kernel computes) is written with a run-time valid region (`v_row=?, v_col=?`, the whole tile at
its alloc_tile) and a `pto.set_validshape` with the op's sizes before each op that reads them;
the other tiles keep the static whole-tile region. The raw parameter forms are written as VPTO
cube micro-ops on a5 (passes/mmair_to_vpto.py) and refused on a2, where PTOAS has no spelling of
them. The vector ops, a transposing tile-level move and a fixpipe with ReLU or a quantization the
element types do not imply have no tile-level spelling: each is refused with one diagnostic at
its op. The result reads back through ptoas-to-mmair to the same kernel (tests/unit/passes).
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import (
    ArrayAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    NoneAttr,
    StringAttr,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from mmair.dialects import pto
from mmair.dialects.ptoas import ops as P
from mmair.dialects.ptoas.dialect import PTOAS
from mmair.dialects.ptoas.types import (
    TEMPLATE_ATTRS,
    KernelKindAttr,
    PartitionTensorViewType,
    PtrType,
    TensorViewType,
    TileBufType,
)
from mmair.passes.mmair_to_vpto import HANDLERS as VPTO_HANDLERS
from mmair.passes.mmair_to_vpto import VptoWriter
from mmair.passes.pass_errors import PassOpError
from mmair.passes.ptoas_to_mmair import BOX_LAYOUT, LOC_SPACE, PIPES, TARGET_ARCH

_PTOAS_OPS = frozenset(PTOAS.operations)
SPACE_LOC = {space: loc for loc, space in LOC_SPACE.items() if loc != "ub"}
LAYOUT_BOX = {layout: box for box, layout in BOX_LAYOUT.items()}
PIPE_NAMES = {short: name for name, short in PIPES.items()}
# mmair target -> PTOAS target_arch (a3 has the a2 cube and reads back as a2).
WRITTEN_ARCH = {target: arch for arch, target in TARGET_ARCH.items() if arch == target}
# (accumulator, destination) element types -> the quant the PTOAS move implies.
IMPLIED_QUANT = {("f32", "f16"): "f322f16", ("f32", "bf16"): "f322bf16"}


def tile_buf(tile: pto.TileType, op: Operation, target: str = "a2",
             dynamic: bool = False) -> TileBufType:
    """The PTOAS tile_buf of an mmair tile (ptoas_to_mmair.tile_of reads it back); `dynamic`:
    a run-time valid region (`v_row=?, v_col=?`)."""
    loc = SPACE_LOC.get(tile.space_name)
    if loc is None:
        raise PassOpError(op, f"has a tile in {tile.space_name}, which PTOAS's tile_buf cannot "
                              f"place (PTOAS locs: {', '.join(SPACE_LOC.values())})")
    shape = tile.logical_shape
    rows, cols = (1, shape[0]) if len(shape) == 1 else shape
    if loc == "left" and tile.layout_name == "nd":
        box = ("row_major", "none_box")  # the GEMV row vector (read back as nd)
    elif loc == "left":
        # read back as the target's L0A order; PTOAS's a5 verifier wants col_major / row_major
        # (verifyMatTileOperandsA5), its a2 / a3 tests write row_major / row_major
        box = ("col_major", "row_major") if target == "a5" else ("row_major", "row_major")
    else:
        box = LAYOUT_BOX.get(tile.layout_name)
        if box is None:
            raise PassOpError(op, f"has a {tile.layout_name} tile, which no PTOAS (blayout, slayout) "
                                  "names")
    fractal = 1024 if loc == "acc" else 512
    fields: list[tuple[str, Attribute]] = [
        ("loc", StringAttr(loc)), ("dtype", tile.element_type), ("rows", IntAttr(rows)),
        ("cols", IntAttr(cols)), ("v_row", IntAttr(-1 if dynamic else rows)),
        ("v_col", IntAttr(-1 if dynamic else cols)),
        ("blayout", StringAttr(box[0])), ("slayout", StringAttr(box[1])),
        ("fractal", IntAttr(fractal)), ("pad", IntAttr(0))]
    return TileBufType(ArrayAttr([StringAttr(k) for k, _ in fields]),
                       ArrayAttr([v for _, v in fields]), IntAttr(0))


def _const(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


class _Writer:
    """Rewrites one function in place; `views` maps a GM memref value to its PTOAS view."""

    def __init__(self, fn: func.FuncOp, target: str = "a2"):
        self.fn = fn
        self.target = target
        self.views: dict[SSAValue, SSAValue] = {}
        self.tensors: dict[SSAValue, SSAValue] = {}
        self.constants: dict[tuple[int, Attribute], SSAValue] = {}
        self.rewritten: list[Operation] = []  # subviews, erased once their users are rewritten
        self.dynamic: set[SSAValue] = set()  # tiles written with a run-time valid region
        # (block, tile) -> the sizes the last set_validshape of that block gave the tile
        self.last_set: dict[tuple[object, SSAValue], tuple[SSAValue, SSAValue]] = {}
        self.vpto: VptoWriter | None = None  # the raw forms' pointers (passes/mmair_to_vpto.py)

    def regions(self, op: Operation, wanted: list[tuple[SSAValue, list[SSAValue]]]) -> None:
        """Give each tile the valid region `op` takes its sizes from (PTOAS's tile ops read them
        from the tiles): a set_validshape before `op` where the tile's region is run-time and
        this block has not set these sizes since its last nested region."""
        for tile, sizes in wanted:
            if tile not in self.dynamic:
                continue  # a whole-tile region: the sizes are the tile's (`needs_region`)
            key = (op.parent_block(), tile)
            if self.last_set.get(key) == tuple(sizes):
                continue
            self.insert(op, P.SetValidShapeOp.build(operands=[[tile], [sizes[0]], [sizes[1]]]))
            self.last_set[key] = (sizes[0], sizes[1])

    def insert(self, at: Operation, new: Operation) -> Operation:
        new.location = at.location
        Rewriter.insert_op(new, InsertPoint.before(at))
        return new

    def constant(self, at: Operation, value: int, type_: Attribute | None = None) -> SSAValue:
        """A constant defined once, at the top of the function (it dominates every use)."""
        type_ = type_ or IndexType()
        key = (value, type_)
        if key not in self.constants:
            const = arith.ConstantOp(IntegerAttr(value, type_))
            const.location = at.location
            Rewriter.insert_op(const, InsertPoint.at_start(self.fn.body.block))
            const.results[0].name_hint = f"c{value}" if type_ == IndexType() else f"c{value}_i64"
            self.constants[key] = const.results[0]
        return self.constants[key]


    def view(self, op: Operation, value: SSAValue) -> SSAValue:
        """The partition_view a GM operand is (a whole argument gets a full view)."""
        if value in self.views:
            return self.views[value]
        if value in self.tensors:  # the whole argument
            shape = value.type.get_shape()
            zero = self.constant(op, 0)
            sizes = [self.constant(op, d) for d in shape]
            part = P.PartitionViewOp.build(
                operands=[[self.tensors[value]], [zero] * len(shape), sizes],
                result_types=[PartitionTensorViewType(shape, value.type.element_type)])
            return self.insert(op, part).results[0]
        raise PassOpError(op, "reads or writes GM through a value PTOAS cannot view (a function "
                              "argument or a memref.subview of one)")


def _needs(w: _Writer, op: Operation) -> list[tuple[SSAValue, list[SSAValue]]]:
    """The valid region (rows, cols) each tile of `op` must have for PTOAS to take `op`'s sizes
    from it: a move's destination (pto-isa TLOAD / TEXTRACT / TMOV fill dst's valid region), a
    mad's left (m, k) and right (k, n) tiles (TMATMUL: m, k from the left, n from the right;
    TGEMV: k, n from the right, and PTOAS's verifier wants the left and dst tiles one valid row,
    PTO.cpp verifyGemvTileOperandsA2A3), a store's accumulator (TSTORE writes src's valid
    region)."""
    if isinstance(op, pto.MteGmL1Op):
        return [(op.dst, [op.rows, op.cols])]
    if isinstance(op, pto.MteL1L0AOp):
        return [(op.dst, [op.m, op.k])]
    if isinstance(op, pto.MteL1L0BOp):
        return [(op.dst, [op.k, op.n])]
    if isinstance(op, pto.MteL1BtOp):
        return [(op.dst, [w.constant(op, 1), op.n])]
    if isinstance(op, pto.MadOp | pto.MadAccOp | pto.MadBiasOp):
        right = (op.rhs, [op.k, op.n])
        left = (op.lhs, [op.m, op.k])
        return [left, right, (op.dst, [op.m, op.n])] if _const(op.m) == 1 else [left, right]
    if isinstance(op, pto.FixpipeOp):
        tile = op.src if isinstance(op.dst.type, MemRefType) else op.dst
        return [(tile, [op.m, op.n])]
    return []


def _whole(tile: SSAValue, sizes: list[SSAValue]) -> bool:
    t = tile.type
    if not isinstance(t, pto.TileType):
        return True
    shape = t.logical_shape
    return [_const(v) for v in sizes] == ([1, shape[0]] if len(shape) == 1 else list(shape))


def write_module(module: ModuleOp) -> None:
    """mmair-to-ptoas in place (module docstring); refusals are `PassOpError`s at the op."""
    target_attr = module.attributes.get(pto.TARGET_ATTR)
    target = target_attr.data if isinstance(target_attr, StringAttr) else "a2"
    arch = WRITTEN_ARCH.get(target)
    if arch is None:
        raise PassOpError(module, f"targets {target}: PTOAS's target_arch is one of "
                                  f"{', '.join(TARGET_ARCH)} (mmair targets a2, a5)")
    functions = [o for o in module.walk() if isinstance(o, func.FuncOp) and o.body.blocks]
    matmul = next((o for o in module.walk() if isinstance(o, pto.MatmulOp)), None)
    if matmul is not None:
        raise PassOpError(matmul, "is mmair's high-level matmul: lower it first (mmair-opt -p "
                                  "mmair-lower K.mlir | mmair-translate --target ptoas -)")
    cube = (pto.MadOp, pto.MadAccOp, pto.MadBiasOp, pto.MteGmL1Op, *pto.params.RAW_OPS)
    if not any(isinstance(o, cube) for fn in functions for o in fn.walk()):
        raise PassOpError(module, "holds no cube kernel (no pto.mte_gm_l1, pto.mad* or raw cube "
                                  "form): nothing to write as PTOAS")
    module.attributes.pop(pto.TARGET_ATTR, None)
    module.attributes["pto.target_arch"] = StringAttr(arch)
    module.attributes["pto.kernel_kind"] = KernelKindAttr("cube")
    for fn in functions:
        _write_func(fn, target)


def _write_func(fn: func.FuncOp, target: str) -> None:
    writer = _Writer(fn, target)
    block = fn.body.block
    # the tiles some op reads or writes only in part get a run-time valid region
    for op in fn.walk():
        for tile, sizes in _needs(writer, op):
            if not _whole(tile, sizes):
                writer.dynamic.add(tile)
    # The function's own top-level constants move to its start (they have no operands), where the
    # written views and addresses reuse them.
    hoisted = [o for o in block.ops if isinstance(o, arith.ConstantOp)]
    for const in reversed(hoisted):
        const.detach()
        Rewriter.insert_op(const, InsertPoint.at_start(block))
        if isinstance(const.value, IntegerAttr):
            writer.constants.setdefault((const.value.value.data, const.value.type), const.results[0])
    # the views go after the constants they take (PTOAS, like mmair, checks dominance)
    first = next(o for o in block.ops if not isinstance(o, arith.ConstantOp))
    for index, arg in enumerate(list(block.args)):
        t = arg.type
        if isinstance(t, pto.TileType):
            if arg in writer.dynamic:
                raise PassOpError(fn, f"has tile argument {index}, which an op moves or multiplies "
                                      "only in part: PTOAS's set_validshape needs a tile the "
                                      "kernel allocates")
            new = block.insert_arg(tile_buf(t, fn, target), arg.index)
            arg.replace_all_uses_with(new)
            block.erase_arg(arg)
        elif isinstance(t, MemRefType):
            shape = t.get_shape()
            if len(shape) not in (1, 2) or any(d < 0 for d in shape) or not isinstance(
                    t.layout, NoneAttr):
                raise PassOpError(fn, f"has argument {index} of type {t}: PTOAS's tensor views of "
                                      "mmair cube kernels are static row-major 1-D / 2-D memrefs")
            ptr = block.insert_arg(PtrType(t.element_type), arg.index)
            ptr.name_hint = arg.name_hint
            sizes = [writer.constant(first, d) for d in shape]
            strides = [writer.constant(first, d) for d in (*shape[1:], 1)]  # row-major
            tv = P.MakeTensorViewOp.build(operands=[[ptr], sizes, strides],
                                          result_types=[TensorViewType([-1] * len(shape),
                                                                       t.element_type)])
            writer.insert(first, tv)
            tv.results[0].name_hint = f"{arg.name_hint or 'arg'}_view"
            # The memref uses stay on the old argument until the ops that take it are rewritten.
            writer.tensors[arg] = tv.results[0]
    for op in list(fn.walk()):
        handler = _HANDLERS.get(type(op))
        if type(op) in _PTOAS_OPS:  # written above (the tensor views)
            continue
        if op.regions:  # what its blocks set reaches the ops after it: set again there
            for key in [k for k in writer.last_set if k[0] is op.parent_block()]:
                del writer.last_set[key]
        if handler is not None:
            handler(writer, op)
        elif op.dialect_name() == "pto":
            raise PassOpError(op, "has no PTOAS tile-level spelling (docs/ptoas.md, \"Writing "
                                  "PTOAS\")")
        elif op.dialect_name() == "memref":
            raise PassOpError(op, "has no PTOAS tile-level spelling (GM is read and written only "
                                  "through tload / tstore of views)")
    for op in reversed(writer.rewritten):
        _erase(op)
    for arg in list(block.args):
        if isinstance(arg.type, MemRefType):
            if arg.uses:
                user = next(iter(arg.uses)).operation
                raise PassOpError(user, "uses a GM argument in a way PTOAS cannot write")
            block.erase_arg(arg)
    for key in [k for k in fn.attributes if k.startswith("pto.")]:
        del fn.attributes[key]
    fn.attributes["pto.kernel"] = UnitAttr()
    fn.function_type = func.FunctionType.from_lists([a.type for a in block.args],
                                                    list(fn.function_type.outputs.data))


def _erase(op: Operation) -> None:
    op.detach()
    op.erase()


def _subview(w: _Writer, op: memref.SubviewOp) -> None:
    source = op.source
    if source not in w.tensors:
        raise PassOpError(op, "views a memref that is not a function argument (PTOAS partitions "
                              "tensor views of kernel arguments)")
    if op.strides or any(s != 1 for s in op.static_strides.get_values()):
        raise PassOpError(op, "has strides other than 1, which partition_view cannot say")
    dynamic = iter(op.offsets)
    offsets = []
    for static in op.static_offsets.get_values():
        offsets.append(next(dynamic) if static == memref.DYNAMIC_INDEX else w.constant(op, static))
    # a run-time size (a remainder window) is `?` in the partition type and a value in sizes
    dynamic_sizes = iter(op.sizes)
    sizes_static = [-1 if s == memref.DYNAMIC_INDEX else s for s in op.static_sizes.get_values()]
    sizes = [next(dynamic_sizes) if s < 0 else w.constant(op, s) for s in sizes_static]
    part = P.PartitionViewOp.build(
        operands=[[w.tensors[source]], offsets, sizes],
        result_types=[PartitionTensorViewType(sizes_static, source.type.element_type)])
    w.insert(op, part)
    part.results[0].name_hint = op.result.name_hint
    w.views[op.result] = part.results[0]
    w.rewritten.append(op)


def _alloc(w: _Writer, op: pto.AllocOp) -> None:
    tile = op.results[0].type
    addr = [] if op.offset is None else [w.constant(op, op.offset.value.data, i64)]
    if not isinstance(tile, pto.TileType):
        raise PassOpError(op, "allocates a non-tile buffer")
    dynamic = op.results[0] in w.dynamic
    # a run-time region starts as the whole tile; set_validshape gives each op its part
    whole = ([], [])
    if dynamic:
        shape = tile.logical_shape
        rows, cols = (1, shape[0]) if len(shape) == 1 else shape
        whole = ([w.constant(op, rows)], [w.constant(op, cols)])
    new = P.AllocTileOp.build(operands=[addr, *whole],
                              result_types=[tile_buf(tile, op, w.target, dynamic)])
    w.insert(op, new)
    if dynamic:
        w.dynamic.add(new.results[0])
    op.results[0].replace_all_uses_with(new.results[0])
    _erase(op)


def _dims(value: SSAValue) -> tuple[int, ...]:
    t = value.type
    if isinstance(t, TileBufType):
        return (t.get("rows"), t.get("cols"))  # type: ignore[return-value]
    if isinstance(t, PartitionTensorViewType):
        return t.dims
    return tuple(t.get_shape())


def _tload(w: _Writer, op: pto.MteGmL1Op) -> None:
    if op.dn2nz is not None:
        raise PassOpError(op, "loads with dn2nz, which PTOAS's tload does not say (a DN view)")
    view = w.view(op, op.src)
    w.regions(op, _needs(w, op))
    w.insert(op, P.TLoadOp.build(operands=[[view], [op.dst]]))
    _erase(op)


def _tmov_l0(w: _Writer, op: pto.MteL1L0AOp | pto.MteL1L0BOp) -> None:
    if op.transpose is not None:
        raise PassOpError(op, "transposes on the way, which PTOAS's tmov / textract do not say")
    w.regions(op, _needs(w, op))
    if op.src_row is None and _dims(op.src) == _dims(op.dst):
        w.insert(op, P.TMovOp.build(operands=[[op.src], [op.dst]]))
    else:  # PTOAS's tmov wants equal tile shapes: a part of a larger tile is a textract
        row, col = ((op.src_row, op.src_col) if op.src_row is not None
                    else (w.constant(op, 0), w.constant(op, 0)))
        w.insert(op, P.TExtractOp.build(operands=[[op.src, row, col], [op.dst]]))
    _erase(op)


def _tmov_bt(w: _Writer, op: pto.MteL1BtOp) -> None:
    w.regions(op, _needs(w, op))
    w.insert(op, P.TMovOp.build(operands=[[op.src], [op.dst]]))
    _erase(op)


def _mad(w: _Writer, op: pto.MadOp | pto.MadAccOp | pto.MadBiasOp) -> None:
    # a5's tmatmul runs mad with GEMV off (pto-isa a5 TMatmul.hpp), a tgemv with it on for a
    # one-row left tile. Written without disable_gemv, a tmatmul reads back with it: the same
    # result, as GEMV on with m = 1 and a fractal lhs is an error the executor reports.
    off = op.disable_gemv is not None
    gemv = _const(op.m) == 1 and not off
    w.regions(op, _needs(w, op))
    base = "pto.tgemv" if gemv else "pto.tmatmul"
    if isinstance(op, pto.MadBiasOp):
        cls, ins = (P.TGemvBiasOp if gemv else P.TMatmulBiasOp), [op.lhs, op.rhs, op.bias]
    elif isinstance(op, pto.MadAccOp):
        cls, ins = (P.TGemvAccOp if gemv else P.TMatmulAccOp), [op.dst, op.lhs, op.rhs]
    else:
        cls, ins = (P.TGemvOp if gemv else P.TMatmulOp), [op.lhs, op.rhs]
    assert cls.name.startswith(base)
    w.insert(op, cls.build(operands=[ins, [op.dst]]))
    _erase(op)


def _element(value: SSAValue) -> str:
    t = value.type
    element = t.get("dtype") if isinstance(t, TileBufType) else t.element_type
    return str(element)


def _fixpipe(w: _Writer, op: pto.FixpipeOp) -> None:
    if op.relu is not None or op.scalar is not None or op.vector is not None:
        raise PassOpError(op, "applies ReLU or a quantization scale, which PTOAS's tstore / tmov "
                              "without a pre-quant clause do not say")
    to_gm = isinstance(op.dst.type, MemRefType)
    dst = w.view(op, op.dst) if to_gm else op.dst
    expected_layout = "nz2nd" if to_gm else "nz2nz"
    if op.layout.data != expected_layout:
        raise PassOpError(op, f"writes {op.layout.data}: PTOAS's {'tstore' if to_gm else 'tmov'} "
                              f"of an accumulator is {expected_layout}")
    implied = IMPLIED_QUANT.get((_element(op.src), _element(dst)), "none")
    if op.quant.data != implied:
        raise PassOpError(op, f"quantizes with {op.quant.data}, but PTOAS infers {implied} from the "
                              f"element types {_element(op.src)} -> {_element(dst)}")
    atomic = None if op.atomic is None else op.atomic.data
    if atomic not in (None, "add"):
        raise PassOpError(op, f"stores in atomic mode {atomic}: PTOAS's tstore has atomicType "
                              f"atomic_none | atomic_add (max / min are VPTO only)")
    w.regions(op, _needs(w, op))
    cls = P.TStoreOp if to_gm else P.TMovOp
    attributes = {} if atomic is None else {"atomicType": _ATOMIC_TYPE("atomic_add")}
    w.insert(op, cls.build(operands=[[op.src], [dst]], attributes=attributes))
    _erase(op)


_ATOMIC_TYPE = next(a for a in TEMPLATE_ATTRS if a.name == "pto.atomic_type")


def _flag(w: _Writer, op: pto.SetFlagOp | pto.WaitFlagOp) -> None:
    if op.event_id is None:
        raise PassOpError(op, "takes its event id from a register, which PTOAS's set_flag / "
                              "wait_flag [<PIPE>, <PIPE>, <EVENT_IDn>] cannot say")
    cls = P.SetFlagOp if isinstance(op, pto.SetFlagOp) else P.WaitFlagOp
    w.insert(op, cls(PIPE_NAMES[op.src.data], PIPE_NAMES[op.dst.data],
                     f"EVENT_ID{op.event_id.value.data}"))
    _erase(op)


def _barrier(w: _Writer, op: pto.PipeBarrierOp) -> None:
    w.insert(op, P.BarrierOp(PIPE_NAMES[op.pipe.data]))
    _erase(op)


def _block(w: _Writer, op: pto.BlockIdxOp | pto.BlockNumOp) -> None:
    query = w.insert(op, P.GetBlockIdxOp() if isinstance(op, pto.BlockIdxOp) else P.GetBlockNumOp())
    cast = w.insert(op, arith.IndexCastOp(query.results[0], IndexType()))
    op.results[0].replace_all_uses_with(cast.results[0])
    _erase(op)


_HANDLERS = {
    memref.SubviewOp: _subview, pto.AllocOp: _alloc, pto.MteGmL1Op: _tload,
    pto.MteL1L0AOp: _tmov_l0, pto.MteL1L0BOp: _tmov_l0, pto.MteL1BtOp: _tmov_bt,
    pto.MadOp: _mad, pto.MadAccOp: _mad, pto.MadBiasOp: _mad, pto.FixpipeOp: _fixpipe,
    pto.SetFlagOp: _flag, pto.WaitFlagOp: _flag, pto.PipeBarrierOp: _barrier,
    pto.BlockIdxOp: _block, pto.BlockNumOp: _block, **VPTO_HANDLERS,
}


class MmairToPtoasPass(ModulePass):
    """Write the module's cube kernels as PTOAS tile-level IR, which PTOAS and mmair read
    back.

    The module docstring has the details."""

    name = "mmair-to-ptoas"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        write_module(op)


__all__ = ["MmairToPtoasPass", "tile_buf", "write_module"]
