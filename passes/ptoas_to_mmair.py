"""ptoas-to-mmair: rewrite PTOAS's tile-level cube ops (mmair.dialects.ptoas) into mmair's pto ops,
so that mmair's verifiers, sync checker, executor and timing model apply to a PTOAS kernel with
no second set of rules (docs/ptoas.md has the table and the sources).

    func arg !pto.ptr<T> + make_tensor_view shape [R, C]   ->  arg memref<RxCxT>
    partition_view offsets, sizes                         ->  memref.subview
    alloc_tile !pto.tile_buf<loc, dtype, rows, cols, ...> ->  pto.alloc !pto.tile<space, RxCxT, layout>
                                                              (addr = constant -> offset)
    tload   GM view -> mat                                ->  pto.mte_gm_l1
    tmov / textract  mat -> left / right                  ->  pto.mte_l1_l0a / pto.mte_l1_l0b [start]
    tmov    acc -> mat                                    ->  pto.fixpipe (nz2nz)
    tmov    mat -> bias                                   ->  pto.mte_l1_bt
    tmatmul / tmatmul.acc / tmatmul.bias (and tgemv*)     ->  pto.mad / pto.mad_acc / pto.mad_bias
    tstore  acc -> GM view                                ->  pto.fixpipe
    set_flag / wait_flag [<PIPE_A>, <PIPE_B>, <EVENT_IDn>]->  pto.set_flag / pto.wait_flag a -> b, n
    set_flag_dyn / wait_flag_dyn [<PIPE_A>, <PIPE_B>, %e] ->  pto.set_flag / pto.wait_flag a -> b, %e
    syncall (hard, or soft on a gm workspace)             ->  pto.sync_all (aic_only, mix)
    barrier <PIPE_X>                                      ->  pto.pipe_barrier x
    get_block_idx / get_block_num (i64)                   ->  pto.block_idx / block_num + index_cast
    pto.section.cube { body }                             ->  body (mmair runs the cube part)
    module pto.target_arch = "a5" / "a3" / "a2"           ->  pto.target = "a5" / "a2" / "a2"
    element types !pto.hif8 / !pto.f8E8M0                 ->  !pto.hif8 / f8E8M0FNU (packed pairs refused)

Each new op keeps the PTOAS op's location and is recorded in `ORIGIN`, so a diagnostic names the
PTOAS op at its file:line:col. Tiles without an address then get one from pto-assign-addresses.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import (
    ArrayAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StridedLayoutAttr,
    StringAttr,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from mmair.dialects import pto, ptoas
from mmair.dialects.origin import ORIGIN
from mmair.dialects.ptoas import ops as P
from mmair.dialects.ptoas import sync as S
from mmair.dialects.ptoas.fp_rules import module_arch
from mmair.dialects.ptoas.types import (
    PartitionTensorViewType,
    PtrType,
    TileBufType,
    as_pointer,
)
from mmair.isa.ascend import params as isa_params
from mmair.isa.ascend.targets import get_target
from mmair.passes import ptoas_fp
from mmair.passes.ptoas_shapes import BLOCK_NUM, argument_names, record_sized, view_shape
from mmair.passes.ptoas_spmd import bind_spmd_block_arguments
from mmair.passes.ptoas_tiles import (  # noqa: F401 (re-exported: the names of this pass)
    BOX_LAYOUT,
    LOC_SPACE,
    PIPES,
    TARGET_ARCH,
    ConversionError,
    element_of,
    tile_of,
)
from mmair.passes.ptoas_valid import Region, valid_regions
from mmair.passes.ptoas_vpto import HANDLERS as VPTO_HANDLERS
from mmair.passes.ptoas_vpto import VptoState, gm_extent, uses_vpto

_FOLDS = {arith.MuliOp: lambda a, b: a * b, arith.AddiOp: lambda a, b: a + b,
          arith.SubiOp: lambda a, b: a - b}


def _const(value: SSAValue) -> int | None:
    """The integer `value` is, where it is an arith.constant or an index_cast / muli / addi /
    subi of them (pypto computes a view's outer strides so), else None."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    if isinstance(owner, arith.IndexCastOp):
        return _const(owner.input)
    fold = _FOLDS.get(type(owner))
    if fold is not None:
        lhs, rhs = _const(owner.lhs), _const(owner.rhs)
        return None if lhs is None or rhs is None else fold(lhs, rhs)
    return None


def _reassociation(shape: tuple[int, ...], target: tuple[int, ...]) -> list[list[int]] | None:
    """The groups of consecutive `shape` dims whose products are `target`'s dims (a
    memref.collapse_shape), or None."""
    groups: list[list[int]] = []
    axis = 0
    for dim in target:
        group, size = [axis], shape[axis] if axis < len(shape) else 0
        axis += 1
        while size < dim and axis < len(shape):
            group.append(axis)
            size *= shape[axis]
            axis += 1
        if size != dim:
            return None
        groups.append(group)
    if not groups or any(shape[a] != 1 for a in range(axis, len(shape))):
        return None
    groups[-1].extend(range(axis, len(shape)))
    return groups


@dataclass
class _Converter:
    rewriter: Rewriter
    target: str = "a2"
    zn_users: set[Operation] = field(default_factory=set)
    """PTOAS ops that read or write a ZN `mat` tile_buf, which mmair holds as the Nz of its
    transpose: their moves transpose."""
    placed: dict[tuple[int, Attribute], SSAValue] = field(default_factory=dict)
    """(address, type) -> the tile an alloc_tile with that address made."""
    regions: dict[tuple[Operation, int], Region] = field(default_factory=dict)
    """(PTOAS op, operand index) -> the valid region of that tile operand there (ptoas_valid)."""

    def valid(self, op: Operation, index: int, transposed: bool = False) -> tuple[SSAValue, SSAValue]:
        """The valid region (rows, cols) of `op`'s tile operand `index` as index values: the
        sizes PTOAS's tile ops take (docs/ptoas.md); `transposed` for a ZN mat tile, which mmair
        holds as the Nz tile of its transpose."""
        region = self.regions.get((op, index))
        if region is None:
            raise ConversionError(op, f"requires a tile_buf as operand {index}")
        if isinstance(region, str):
            raise ConversionError(op, f"requires the valid region of operand {index} where it runs: "
                                      f"the tile {region}")
        sizes = []
        for size in region:
            folded = size if isinstance(size, int) else _const(size)
            sizes.append(self.index(op, folded) if folded is not None else size)
        return (sizes[1], sizes[0]) if transposed else (sizes[0], sizes[1])

    def static_region(self, op: Operation, index: int) -> tuple[int | None, int | None]:
        """The valid region of `op`'s tile operand `index` where its sizes are constants (None
        for a run-time or unknown size): what a verifier of static shapes sees."""
        region = self.regions.get((op, index))
        if region is None or isinstance(region, str):
            return None, None
        rows, cols = (size if isinstance(size, int) else _const(size) for size in region)
        return rows, cols

    def index(self, at: Operation, value: int) -> SSAValue:
        const = arith.ConstantOp(IntegerAttr(value, IndexType()))
        const.location = at.location
        Rewriter.insert_op(const, _before(at))
        return const.result

    def emit(self, at: Operation, new: Operation) -> Operation:
        new.location = at.location
        ORIGIN[new] = at.name
        Rewriter.insert_op(new, _before(at))
        return new


def _before(op: Operation):
    from xdsl.rewriter import InsertPoint

    return InsertPoint.before(op)


def _space(value: SSAValue) -> str | None:
    return value.type.space_name if isinstance(value.type, pto.TileType) else None


def _dims(value: SSAValue) -> tuple[int, ...]:
    t = value.type
    if isinstance(t, pto.TileType):
        return t.logical_shape
    if isinstance(t, MemRefType):
        return tuple(t.get_shape())
    raise ConversionError(value.owner if isinstance(value.owner, Operation) else None,
                          f"requires a tile or a tensor view operand, got {t}")


class PtoasToMmairPass(ModulePass):
    """Rewrite PTOAS's tile-level cube ops into mmair's pto ops, so that mmair's verifiers,
    checkers and executor apply to a PTOAS kernel.

    The module docstring has the details."""

    name = "ptoas-to-mmair"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        convert_module(op)


def convert_module(module: ModuleOp, sizes: Mapping[str, int] | None = None) -> None:
    """Convert in place; `sizes` gives the scalar arguments' values where a run supplies them
    (tensor shapes given by kernel arguments; None: those axes stay dynamic)."""
    arch = module_arch(module.attributes)  # target_arch, or an a5 device-spec (Ascend950...)
    module.attributes.pop("pto.target_arch", None)
    if arch is not None:
        target = TARGET_ARCH.get(arch)
        if target is None:
            raise ConversionError(module, f"requires pto.target_arch in [{', '.join(TARGET_ARCH)}], "
                                          f"got {arch}")
        module.attributes.setdefault(pto.TARGET_ATTR, StringAttr(target))
    for key in [k for k in module.attributes if k.startswith("pto.") and k != pto.TARGET_ATTR]:
        del module.attributes[key]  # kernel_kind, device-spec: PTOAS driver settings
    target_attr = module.attributes.get(pto.TARGET_ATTR)
    target = target_attr.data if isinstance(target_attr, StringAttr) else "a2"
    for fn in [o for o in module.walk() if isinstance(o, func.FuncOp)]:
        _convert_func(fn, target, sizes)
    from mmair.passes.pto_assign_addresses import PtoAssignAddressesPass

    PtoAssignAddressesPass().apply(Context(), module)


def _convert_func(fn: func.FuncOp, target: str, sizes: Mapping[str, int] | None) -> None:
    for key in [k for k in fn.attributes if k.startswith("pto.")]:
        del fn.attributes[key]
    # pto.section.cube: inline its body where it stands.
    for section in [o for o in fn.walk() if isinstance(o, P.SectionCubeOp)]:
        block = section.body.block
        for inner in list(block.ops):
            inner.detach()
            Rewriter.insert_op(inner, _before(section))
        section.detach()
        section.erase()
    bind_spmd_block_arguments(fn)  # pypto's block index / count arguments (ptoas_spmd.py)
    # the regions first: tile_buf arguments keep their PTOAS types until _convert_pointers
    regions = valid_regions(fn.body.block) if fn.body.blocks else {}
    _convert_pointers(fn, target, sizes)
    conv = _Converter(Rewriter(), target, regions=regions)
    vpto = VptoState(fn, target)
    for op in list(fn.walk()):
        handler = _HANDLERS.get(type(op))
        if handler is not None:
            handler(conv, op)
        elif type(op) in VPTO_HANDLERS:
            VPTO_HANDLERS[type(op)](vpto, op)
    vpto.finish()
    for op in reversed(list(fn.walk())):
        if isinstance(op, (P.PartitionViewOp, P.MakeTensorViewOp)) and not op.result.uses:
            op.detach()
            op.erase()
    leftover = next((o for o in fn.walk() if o.dialect_name() == "pto"
                     and type(o) in ptoas.PTOAS.operations), None)
    if leftover is not None:
        raise ConversionError(leftover, "is a PTOAS op mmair does not convert here")


def _convert_pointers(fn: func.FuncOp, target: str, sizes: Mapping[str, int] | None) -> None:
    """A GM `!pto.ptr<T>` argument becomes `memref<RxCxT>`, R x C from its make_tensor_view (or
    a 1-D memref sized by the VPTO ops that use it); a tile_buf argument becomes the mmair tile.
    A size given by a scalar argument takes its value in `sizes` (by argument name), or stays
    dynamic when `sizes` is None (passes/ptoas_shapes.py)."""
    if not fn.body.blocks:
        return
    block = fn.body.block
    names = argument_names(block)
    bound = None if sizes is None else {a: sizes[n] for a, n in names.items() if n in sizes}
    if bound is not None and BLOCK_NUM in sizes:  # type: ignore[operator]
        bound[BLOCK_NUM] = sizes[BLOCK_NUM]  # type: ignore[index]
    for index, arg in enumerate(list(block.args)):
        if isinstance(arg.type, PartitionTensorViewType):
            # a caller's GM window (tmov_acc_mat_pipe_selection.pto): inferred a dense array
            if min(arg.type.dims, default=0) <= 0:
                raise ConversionError(fn, f"requires a static shape for the "
                                          f"{arg.type} argument {index} (mmair reads it as a "
                                          f"dense GM array of that shape)")
            new_arg = block.insert_arg(MemRefType(element_of(fn, arg.type.element_type),
                                                  arg.type.dims), index)
            arg.replace_all_uses_with(new_arg)
            block.erase_arg(arg)
            continue
        if isinstance(arg.type, TileBufType):
            new_arg = block.insert_arg(tile_of(fn, arg.type, target), index)
            arg.replace_all_uses_with(new_arg)
            block.erase_arg(arg)
            continue
        pointer = as_pointer(arg.type)
        if pointer is not None and pointer is not arg.type:  # memref<?xT, #pto.address_space<S>>
            new_arg = block.insert_arg(pointer, index)
            arg.replace_all_uses_with(new_arg)
            block.erase_arg(arg)
            arg = new_arg
        if not isinstance(arg.type, PtrType):
            continue
        views = [u.operation for u in arg.uses if isinstance(u.operation, P.MakeTensorViewOp)]
        if not views and uses_vpto(arg):
            if arg.type.space.data == "gm":  # a VPTO kernel's GM tensor, sized by its uses
                new_arg = block.insert_arg(
                    MemRefType(element_of(fn, arg.type.element_type), [gm_extent(arg)]), index)
                arg.replace_all_uses_with(new_arg)
                block.erase_arg(arg)
            continue  # a local-space pointer: ptoas_vpto places it
        if arg.type.space.data != "gm":
            raise ConversionError(fn, f"requires !pto.ptr arguments in gm, got {arg.type.space.data}"
                                      f" for argument {index}")
        if arg.uses and all(isinstance(u.operation, S.SyncAllOp) for u in arg.uses):
            # a soft syncall's workspace: the 16 i32 words PTOAS requires, as a GM tensor
            workspace = MemRefType(element_of(fn, arg.type.element_type),
                                   [S.SOFT_SYNCALL_WORKSPACE_I32])
            new_arg = block.insert_arg(workspace, index)
            arg.replace_all_uses_with(new_arg)
            block.erase_arg(arg)
            continue
        if not views:
            raise ConversionError(fn, f"requires a pto.make_tensor_view of argument {index} "
                                      "(it gives the tensor's shape)")
        shapes = [view_shape(view, block, bound, names) for view in views]
        # One memref per pointer: the view of the highest rank; a view of another shape must be
        # a collapse of it (pypto views an expert weight [E, N, K] also as [E*N, K]).
        widest = max(shapes, key=len)
        groups = {}
        for view, shape in zip(views, shapes, strict=True):
            if shape != widest and memref.DYNAMIC_INDEX in shape + widest:
                raise ConversionError(view, f"requires one shape per pointer where a size is a "
                                            f"kernel argument without a value (mmair-run --input "
                                            f"gives it), got {_shown(shape)} and {_shown(widest)}")
            if shape != widest:
                groups[view] = _reassociation(widest, shape)
                if groups[view] is None:
                    raise ConversionError(view, f"requires one shape per pointer, or a view that "
                                                f"collapses its dims, got {shape} and {widest}")
        if bound is not None:
            record_sized(fn, names[arg], views[shapes.index(widest)], block, bound, names)
        new_type = MemRefType(element_of(views[0], arg.type.element_type), widest)
        new_arg = block.insert_arg(new_type, index)
        arg.replace_all_uses_with(new_arg)
        block.erase_arg(arg)
        for view in views:
            value = new_arg
            if view in groups:
                collapse = memref.CollapseShapeOp(
                    operands=[new_arg],
                    properties={"reassociation": ArrayAttr(
                        [ArrayAttr([IntegerAttr(a, i64) for a in g]) for g in groups[view]])},
                    result_types=[MemRefType(new_type.element_type, shapes[views.index(view)])])
                collapse.location = view.location
                Rewriter.insert_op(collapse, _before(view))
                value = collapse.results[0]
            view.result.replace_all_uses_with(value)
            view.detach()
            view.erase()
    inputs = [a.type for a in block.args]
    fn.function_type = func.FunctionType.from_lists(inputs, list(fn.function_type.outputs.data))


def _shown(shape: tuple[int, ...]) -> str:
    return "[" + ", ".join("?" if d == memref.DYNAMIC_INDEX else str(d) for d in shape) + "]"


def _alloc(conv: _Converter, op: P.AllocTileOp) -> None:
    tile = tile_of(op, op.result.type, conv.target)
    zn_mat = tile.space_name == "l1" and tile.layout_name == "zn"
    if zn_mat:
        # A ZN mat tile [R, C] (outer fractals row-major, each column-major) holds the bytes of
        # the Nz of its transpose [C, R]: pypto aliases the two at one address for a B^T operand.
        rows, cols = tile.logical_shape
        tile = pto.TileType("l1", [cols, rows], tile.element_type, "nz")
    offset = None
    if op.addr is not None:
        offset = _const(op.addr)
        if offset is None:
            raise ConversionError(op, "requires addr to be an arith.constant")
    rows, cols = op.result.type.get("rows"), op.result.type.get("cols")
    for name, size, whole in (("v_row", op.result.type.valid_shape[0], rows),
                              ("v_col", op.result.type.valid_shape[1], cols)):
        if isinstance(whole, int) and not -1 <= size <= whole:
            raise ConversionError(op, f"requires {name} in [0, {whole}] (inside the tile), got "
                                      f"{size}")
    if zn_mat:
        conv.zn_users.update(use.operation for use in op.result.uses)
    if zn_mat and (offset, tile) in conv.placed and _dominates(conv.placed[(offset, tile)], op):
        # the Nz tile at that address is the same buffer: one tile, so mmair's reference (which
        # follows tiles, not bytes) sees the data the Nz tile was given
        same = conv.placed[(offset, tile)]
        op.result.replace_all_uses_with(same)
        op.detach()
        op.erase()
        return
    new = conv.emit(op, pto.AllocOp(tile, offset))
    if offset is not None:
        conv.placed.setdefault((offset, tile), new.results[0])
    op.result.replace_all_uses_with(new.results[0])
    op.detach()
    op.erase()


def _dominates(value: SSAValue, op: Operation) -> bool:
    """Whether `value`'s defining op comes before `op` in a block that holds `op` (or one of its
    ancestors): straight-line dominance, enough for allocations."""
    owner = value.owner
    block = owner.parent_block() if isinstance(owner, Operation) else None
    here: Operation | None = op
    while here is not None and here.parent_block() is not block:
        here = here.parent_op()
    return here is not None and block is not None and block.get_operation_index(owner) < \
        block.get_operation_index(here)


def _view(conv: _Converter, op: P.PartitionViewOp) -> None:
    source = op.source[0]
    if not isinstance(source.type, MemRefType):
        raise ConversionError(op, "requires a view of a function argument (!pto.ptr)")
    offsets: list[int | SSAValue] = [(_const(o) if _const(o) is not None else o) for o in op.offsets]
    # a run-time size (a tail window) stays a value: the tile ops' valid regions say how much
    # of the window they move
    sizes: list[int | SSAValue] = [(_const(s) if _const(s) is not None else s) for s in op.sizes]
    shape = source.type.get_shape()
    if not len(offsets) == len(sizes) == len(shape):
        raise ConversionError(op, f"requires one offset and one size per axis of the rank-"
                                  f"{len(shape)} tensor, got {len(offsets)} and {len(sizes)}")
    for axis, (offset, size, dim) in enumerate(zip(offsets, sizes, shape, strict=True)):
        for name, value, low in (("offset", offset, 0), ("size", size, 1)):
            if isinstance(value, int) and not low <= value < 1 << 63:  # an i64 subview field
                raise ConversionError(op, f"requires the window inside the tensor: axis {axis} "
                                          f"has {name} {value}, legal [{low}, 2^63)")
        if isinstance(size, SSAValue) or dim == memref.DYNAMIC_INDEX:
            continue  # checked when it runs
        if not 0 < size <= dim:
            raise ConversionError(op, f"requires the window inside the tensor: axis {axis} has "
                                      f"size {size}, legal [1, {dim}]")
        if isinstance(offset, int) and not 0 <= offset <= dim - size:
            raise ConversionError(op, f"requires the window inside the tensor: axis {axis} has "
                                      f"offset {offset}, legal [0, {dim - size}] for size {size}")
    ones = [1] * len(offsets)
    result_type = memref.SubviewOp.infer_result_type(source.type, offsets, sizes, ones)
    drop = 0
    while len(sizes) - drop > 2 and isinstance(sizes[drop], int) and sizes[drop] == 1:
        drop += 1  # a [1, 1, M, N] window of a 4-D tensor is the M x N matrix the tile ops move
    if drop:
        layout = result_type.layout
        result_type = MemRefType(result_type.element_type, result_type.get_shape()[drop:],
                                 StridedLayoutAttr(layout.strides.data[drop:], layout.offset))
    dyn = [o for o in offsets if isinstance(o, SSAValue)]
    static = [memref.DYNAMIC_INDEX if isinstance(o, SSAValue) else o for o in offsets]
    dyn_sizes = [s for s in sizes if isinstance(s, SSAValue)]
    static_sizes = [memref.DYNAMIC_INDEX if isinstance(s, SSAValue) else s for s in sizes]
    new = conv.emit(op, memref.SubviewOp(source, dyn, dyn_sizes, [], static, static_sizes, ones,
                                         result_type))
    op.result.replace_all_uses_with(new.results[0])
    op.detach()
    op.erase()


def _replace(op: Operation) -> None:
    op.detach()
    op.erase()


# The template options PTOAS's tile ops carry (PTOAttrs.td), per attribute key: the values mmair
# honours (value -> what it means for the converted op), the rest are refused. accPhase / stPhase
# pick the pto-isa template variant (TMATMUL<AccPhase::Final>, TSTORE<STPhase>): the same values
# are computed, so mmair reads and drops them (an inference from PTOToEmitC.cpp, which only
# forwards them as template arguments).
_OPTIONS: dict[str, dict[str, str | None]] = {
    "accPhase": {"unspecified": None, "partial": None, "final": None},
    "stPhase": {"unspecified": None, "partial": None, "final": None},
    "atomicType": {"atomic_none": None, "atomic_add": "atomic"},
    "reluPreMode": {"no_relu": None, "normal_relu": "relu"},
}


def _options(op: Operation, keys: tuple[str, ...]) -> set[str]:
    """What `op`'s template options ask of the converted op (`_OPTIONS`); an option mmair does not
    model is refused rather than dropped."""
    asked = set()
    for key, attr in op.attributes.items():
        value = getattr(getattr(attr, "value", None), "data", None)
        legal = _OPTIONS.get(key) if key in keys else None
        if legal is None or value not in legal:
            shown = f"{key} = {value}" if value is not None else key
            raise ConversionError(op, f"has {shown}, which mmair does not model"
                                      + (f" (it models {key} in [{', '.join(legal)}])"
                                         if legal else ""))
        if legal[value] is not None:
            asked.add(legal[value])
    return asked


def _one_in_one_out(op: Operation) -> tuple[SSAValue, SSAValue]:
    if len(op.ins) != 1 or len(op.outs) != 1:
        raise ConversionError(op, f"requires ins(%src) outs(%dst), got {len(op.ins)} ins and "
                                  f"{len(op.outs)} outs")
    return op.ins[0], op.outs[0]


def _tload(conv: _Converter, op: Operation) -> None:
    _options(op, ())
    src, dst = _one_in_one_out(op)
    if _space(dst) != "l1":
        raise ConversionError(op, f"requires outs in loc=mat (mmair models the cube tload), got "
                                  f"{_space(dst)}")
    # PTOAS's tload fills the destination's valid region (docs/isa/tile-op/04-dma-data-movement.md)
    zn = op in conv.zn_users
    rows, cols = conv.valid(op, 1, transposed=zn)
    if ptoas_fp.is_param_row(dst):  # a row of quant words for FB: a plain DataCopy
        conv.emit(op, ptoas_fp.param_row_load(conv, op, src, dst, cols))
        _replace(op)
        return
    if zn:  # into a ZN tile: the Nz of the transpose, GM read as DN
        conv.emit(op, pto.MteGmL1Op(src, dst, rows, cols, dn2nz=True))
        _replace(op)
        return
    conv.emit(op, pto.MteGmL1Op(src, dst, rows, cols))
    _replace(op)


def _tmov(conv: _Converter, op: Operation) -> None:
    relu = "relu" in _options(op, ("reluPreMode",))
    ins, fp = list(op.plain_ins), op.fp
    if len(op.outs) != 1 or not ins:
        raise ConversionError(op, f"requires ins(%src, ...) outs(%dst), got {len(op.ins)} ins and "
                                  f"{len(op.outs)} outs")
    src, dst = ins[0], op.outs[0]
    if relu and (_space(src), _space(dst)) != ("l0c", "l1"):
        raise ConversionError(op, "has reluPreMode on a move that is not acc -> mat")
    start = None
    if len(ins) == 4 and isinstance(op, P.TExtractOp):  # ins(%src, %row, %col, %pre_quant)
        if _space(src) != "l0c":
            raise ConversionError(op, "expects preQuantScalar form to use loc=acc src")
        conv.emit(op, ptoas_fp.pre_quant_move(conv, op, src, dst, relu, ins[1:3], ins[3]))
        return _replace(op)
    if len(ins) == 2 and isinstance(op, P.TMovOp) and _space(src) == "l0c":  # ins(%src, %q)
        conv.emit(op, ptoas_fp.pre_quant_move(conv, op, src, dst, relu, (), ins[1]))
        return _replace(op)
    if len(ins) not in (1, 3) or (len(ins) == 3) != isinstance(op, P.TExtractOp):
        raise ConversionError(op, f"requires ins(%src) (tmov) or ins(%src, %row, %col) (textract), "
                                  f"got {len(ins)} values")
    if len(ins) == 3:  # textract ins(%src, %row, %col)
        start = (ins[1], ins[2])
    pair = (_space(src), _space(dst))
    # a move fills its destination's valid region (pto-isa TEXTRACT / TMOV: dst.GetValidRow())
    rows, cols = conv.valid(op, len(op.ins))
    if op in conv.zn_users and src is not dst and _space(src) == "l1":
        if pair not in (("l1", "l0a"), ("l1", "l0b")):
            raise ConversionError(op, f"requires a move to left or right from a ZN mat tile, got "
                                      f"{pair[0]}->{pair[1]}")
        # the source is held as the Nz of its transpose: the move transposes back, and the start
        # (row, col) of the ZN tile is (col, row) of the held one
        swapped = (start[1], start[0]) if start is not None else None
        if pair[1] == "l0a":  # A^T held: the fractals turn on the way
            new = pto.MteL1L0AOp(src, dst, rows, cols, swapped, transpose=True,
                                 load3d=_load3d(conv, src, "a"))
        else:  # B^T held: already Zn inside each fractal
            new = pto.MteL1L0BOp(src, dst, rows, cols, swapped, transpose=True)
        conv.emit(op, new)
        _replace(op)
        return
    if pair == ("l1", "l0a"):
        new = pto.MteL1L0AOp(src, dst, rows, cols, start)
    elif pair == ("l1", "l0b"):  # B's fractals turn on the way (zz / nz -> zn)
        new = pto.MteL1L0BOp(src, dst, rows, cols, start, load3d=_load3d(conv, src, "b"))
    elif pair == ("l0c", "l1") and fp is not None and all(_const(v) == 0 for v in start or ()):
        # TMOV_FP / TEXTRACT_FP at (0, 0): the vector-quant fixpipe (passes/ptoas_fp.py)
        new = pto.FixpipeOp(src, dst, rows, cols, layout="nz2nz", relu=relu,
                            quant=ptoas_fp.vector_mode(op, src, dst, conv.target),
                            vector=ptoas_fp.quant_vector(op, fp, cols))
    elif pair == ("l0c", "l1") and fp is not None:
        raise ConversionError(op, "has the fp form at a run-time or non-zero start: pto-isa "
                                  "offsets the quant words by the start column (SetFPC), which "
                                  "mmair does not model")
    elif pair == ("l0c", "l1") and start is None:
        new = pto.FixpipeOp(src, dst, rows, cols, layout="nz2nz", quant=_quant(src, dst),
                            relu=relu)
    elif pair == ("l1", "bt") and start is None:
        new = pto.MteL1BtOp(src, dst, cols)
    elif pair == ("l1", "fb") and start is None:
        new = ptoas_fp.scaling_move(op, src, dst, rows, cols)
    else:
        raise ConversionError(op, f"requires a cube move (mat->left, mat->right, acc->mat, "
                                  f"mat->bias, mat->scaling), got {pair[0]}->{pair[1]}")
    conv.emit(op, new)
    _replace(op)


def _load3d(conv: _Converter, src: SSAValue, operand: str) -> bool:
    """Whether the fractal-transposing move of `operand` from `src` is pto-isa's Load3Dv2 form:
    its TEXTRACT / TMOV turn 2- and 4-byte operands with img2colv2, which reads an Nz tile that
    no LoadData of a2 / a3 reads for 32-bit elements (isa `load3d_needed`). Other moves are
    modelled as LoadData: the same data on the same pipe."""
    tile = src.type
    return isinstance(tile, pto.TileType) and isa_params.load3d_needed(
        tile.element_name, get_target(conv.target), operand, tile.layout_name)


def _tmatmul(conv: _Converter, op: Operation) -> None:
    _options(op, ("accPhase",))
    name = op.name
    if len(op.outs) != 1:
        raise ConversionError(op, f"requires one outs value, got {len(op.outs)}")
    ins, (dst,) = list(op.ins), op.outs
    bias = None
    first = 0  # the operand index of lhs
    if name.endswith(".acc"):
        if len(ins) != 3:
            raise ConversionError(op, "requires ins(%acc_in, %lhs, %rhs) outs(%dst)")
        if _space(ins[0]) != "l0c":  # PTO.cpp verifyAccTileCommon
            raise ConversionError(op, "expects acc_in to be in the acc address space")
        # pto-isa's TMATMUL_ACC(cOut, cIn, a, b) runs mad on cOut with init off and never reads
        # cIn: the product accumulates into outs (a different tile too)
        ins, first = ins[1:], 1
    elif name.endswith(".bias"):
        if len(ins) != 3:
            raise ConversionError(op, "requires ins(%lhs, %rhs, %bias)")
        bias = ins[2]
        ins = ins[:2]
    if len(ins) != 2:
        raise ConversionError(op, f"requires ins(%lhs, %rhs), got {len(ins)} values")
    lhs, rhs = ins
    # m, k from the left tile's valid region and n from the right one's (pto-isa TMATMUL_IMPL:
    # aMatrix.GetValidRow / GetValidCol, bMatrix.GetValidCol); a gemv has m = 1 and takes k from
    # the right tile (TGEMV_IMPL: bMatrix.GetValidRow)
    m, k = conv.valid(op, first)
    k_rhs, n = conv.valid(op, first + 1)
    gemv = name.startswith("pto.tgemv")
    if gemv:
        _check_gemv_shapes(op, (m, k), (k_rhs, n), conv.static_region(op, len(op.ins)))
        m, k = conv.index(op, 1), k_rhs
    nd_lhs = isinstance(lhs.type, pto.TileType) and lhs.type.layout_name == "nd"
    # a5's TMATMUL always passes GEMV off to mad (pto-isa a5 TMatmul.hpp: gemvCtrl = true)
    off = not gemv and not nd_lhs and get_target(conv.target).gemv_disable
    if not gemv and not off and not nd_lhs and _dims(lhs)[0] >= 16 and _const(m) != 16:
        # a2 / a3 TMATMUL: "if (m == 1) m = 16; // avoid gemv mode" (pto-isa a2a3 TMatmul.hpp),
        # at run time when m is a value
        if _const(m) == 1:
            m = conv.index(op, 16)
        elif _const(m) is None:
            one = conv.emit(op, arith.CmpiOp(m, conv.index(op, 1), "eq"))
            m = conv.emit(op, arith.SelectOp(one.results[0], conv.index(op, 16), m)).results[0]
    args = (m, n, k)
    if bias is not None:
        new: Operation = pto.MadBiasOp(lhs, rhs, dst, bias, *args, disable_gemv=off)
    elif name.endswith(".acc"):
        new = pto.MadAccOp(lhs, rhs, dst, *args, disable_gemv=off)
    else:
        new = pto.MadOp(lhs, rhs, dst, *args, disable_gemv=off)
    conv.emit(op, new)
    _replace(op)


def _check_gemv_shapes(op: Operation, lhs: tuple[SSAValue, SSAValue],
                       rhs: tuple[SSAValue, SSAValue], dst: tuple[int | None, int | None]) -> None:
    """PTOAS's tgemv rules on static valid regions (PTO.cpp verifyGemvTileOperandsA2A3: a run-time
    size is not checked there either)."""
    (lhs_rows, lhs_cols), (rhs_rows, rhs_cols) = (tuple(_const(v) for v in pair)
                                                  for pair in (lhs, rhs))
    dst_rows, dst_cols = dst
    if lhs_rows not in (None, 1):
        raise ConversionError(op, "expects lhs valid_shape[0] to be 1 for tgemv")
    if dst_rows not in (None, 1):
        raise ConversionError(op, "expects dst valid_shape[0] to be 1 for tgemv")
    if None not in (lhs_cols, rhs_rows) and lhs_cols != rhs_rows:
        raise ConversionError(op, f"expects lhs valid_shape[1] to equal rhs valid_shape[0], but "
                                  f"got {lhs_cols} vs {rhs_rows}")
    if None not in (rhs_cols, dst_cols) and rhs_cols != dst_cols:
        raise ConversionError(op, f"expects rhs valid_shape[1] to equal dst valid_shape[1], but "
                                  f"got {rhs_cols} vs {dst_cols}")


# tstore / tmov from acc convert by the element types alone (PTOAS's TStoreOp/TMovOp without a
# pre-quant clause): the mmair quant mode that pairs them.
_QUANT = {("f32", "f16"): "f322f16", ("f32", "bf16"): "f322bf16"}


def _quant(src: SSAValue, dst: SSAValue) -> str:
    pair = (str(_element(src)), str(_element(dst)))
    return _QUANT.get(pair, "none")


def _element(value: SSAValue) -> Attribute:
    t = value.type
    return t.element_type if isinstance(t, pto.TileType | MemRefType) else t


def _tstore(conv: _Converter, op: Operation) -> None:
    asked = _options(op, ("atomicType", "stPhase", "reluPreMode"))
    relu = "relu" in asked
    # atomic_add: pto-isa's TSTORE sets the atomic type of the GM elements
    # (`SetAtomicAdd<GlobalData::DType>`); mmair's verifier checks it per target
    atomic = "add" if "atomic" in asked else None
    fp = op.fp
    scalar = op.plain_ins[1] if len(op.plain_ins) == 2 else None  # ins(%src : T, %q : i64)
    src, dst = (op.plain_ins[0], op.outs[0]) if fp is not None or scalar is not None \
        else _one_in_one_out(op)
    if _space(src) != "l0c":
        raise ConversionError(op, f"requires ins in loc=acc (mmair models the cube tstore), got "
                                  f"{_space(src)}")
    # tstore writes its source's valid region (docs/isa/tile-op/04-dma-data-movement.md)
    rows, cols = conv.valid(op, 0)
    if scalar is not None:  # TSTORE with a preQuantScalar: the scalar-quant fixpipe
        new = pto.FixpipeOp(src, dst, rows, cols, relu=relu, atomic=atomic, scalar=scalar,
                            quant=ptoas_fp.scalar_mode(op, src, dst, conv.target))
    elif fp is None:
        new = pto.FixpipeOp(src, dst, rows, cols, quant=_quant(src, dst), relu=relu, atomic=atomic)
    else:  # TSTORE_FP: the vector-quant fixpipe (passes/ptoas_fp.py)
        new = pto.FixpipeOp(src, dst, rows, cols, relu=relu, atomic=atomic,
                            quant=ptoas_fp.vector_mode(op, src, dst, conv.target),
                            vector=ptoas_fp.quant_vector(op, fp, cols))
    conv.emit(op, new)
    _replace(op)


def _pipe(op: Operation, name: str) -> str:
    if name not in PIPES:
        raise ConversionError(op, f"requires pipe in [{', '.join(PIPES)}], got {name}")
    return PIPES[name]


def _event(op: Operation, name: str) -> int:
    if not name.startswith("EVENT_ID") or not name[8:].isdigit():
        raise ConversionError(op, f"requires event EVENT_ID<n>, got {name}")
    return int(name[8:])


def _flag(conv: _Converter, op: P.SetFlagOp | P.WaitFlagOp) -> None:
    cls = pto.SetFlagOp if isinstance(op, P.SetFlagOp) else pto.WaitFlagOp
    conv.emit(op, cls(_pipe(op, op.src_pipe.data), _pipe(op, op.dst_pipe.data),
                      _event(op, op.event_id.data)))
    _replace(op)


def _flag_dyn(conv: _Converter, op: S.SetFlagDynOp | S.WaitFlagDynOp) -> None:
    """The event id stays a value: mmair's flag takes it as its runtime `event` operand, and the
    checker judges the id the kernel computes (its range too)."""
    cls = pto.SetFlagOp if isinstance(op, S.SetFlagDynOp) else pto.WaitFlagOp
    conv.emit(op, cls(_pipe(op, op.src_pipe.data), _pipe(op, op.dst_pipe.data), op.event))
    _replace(op)


def _syncall(conv: _Converter, op: S.SyncAllOp) -> None:
    """A hard or soft syncall of the cube cores is mmair's all-core barrier; the soft form's GM
    workspace is where the hardware keeps its counters, which mmair's barrier does not need."""
    core_type = op.core_type.value.data
    if core_type == "aiv_only":
        raise ConversionError(op, "is a vector-core barrier (core_type aiv_only); mmair models "
                                  "the cube cores only: core_type in [aic_only, mix]")
    if op.used_cores is not None:
        raise ConversionError(op, "requires no used_cores: mmair's pto.sync_all waits for every "
                                  "core of the launch, a barrier over part of it is not modelled")
    conv.emit(op, pto.SyncAllOp())
    _replace(op)


def _barrier(conv: _Converter, op: P.BarrierOp) -> None:
    conv.emit(op, pto.PipeBarrierOp(_pipe(op, op.pipe.data)))
    _replace(op)


def _block(conv: _Converter, op: Operation) -> None:
    query = conv.emit(op, pto.BlockIdxOp() if isinstance(op, P.GetBlockIdxOp) else pto.BlockNumOp())
    cast = conv.emit(op, arith.IndexCastOp(query.results[0], i64))
    op.results[0].replace_all_uses_with(cast.results[0])
    _replace(op)


def _set_valid(conv: _Converter, op: P.SetValidShapeOp) -> None:
    """Its effect is in `conv.regions` already (ptoas_valid): the ops after it take the sizes."""
    _replace(op)


_HANDLERS = {
    P.SetValidShapeOp: _set_valid, P.AllocTileOp: _alloc, P.PartitionViewOp: _view, P.TLoadOp: _tload, P.TMovOp: _tmov,
    P.TExtractOp: _tmov, P.TMatmulOp: _tmatmul, P.TMatmulAccOp: _tmatmul,
    P.TMatmulBiasOp: _tmatmul, P.TGemvOp: _tmatmul, P.TGemvAccOp: _tmatmul,
    P.TGemvBiasOp: _tmatmul, P.TStoreOp: _tstore, P.SetFlagOp: _flag, P.WaitFlagOp: _flag,
    P.BarrierOp: _barrier, P.GetBlockIdxOp: _block, P.GetBlockNumOp: _block,
    S.SetFlagDynOp: _flag_dyn, S.WaitFlagDynOp: _flag_dyn, S.SyncAllOp: _syncall,
}
