"""PTOAS's FP forms and L1 -> FB moves, converted for `ptoas_to_mmair` (docs/ptoas.md "The
fixpipe buffer (FB) and the FP forms"):

    pto.tmov ins(%mat : ...) outs(%scaling : ...)                 -> pto.mte_l1_fb
    pto.tstore ins(%acc : ... fp %fp : ...) outs(%view : ...)      -> pto.fixpipe ... vector %fp
    pto.tmov ins(%acc : ..., %fp : ...) outs(%mat : ...)           -> pto.fixpipe nz2nz ... vector
    pto.textract ins(%acc, %r, %c : ..., index, index fp %fp : ...) outs(%mat : ...)   (the same)
    pto.tmov / tstore ins(%acc : ..., %q : i64) ..., textract ins(%acc, %r, %c, %q ...)
                                                    -> pto.fixpipe ... scalar %q (pre-quant scalar)

The FP forms are pto-isa's TSTORE_FP / TMOV_FP / TEXTRACT_FP: `SetFPC` writes the scaling
tile's FB address into FPC (QUANT_PRE_ADDR, 128-byte units), then the fixpipe runs in the vector
quant mode of the (accumulator, output) element types (`GetVectorPreQuantMode`), reading one u64
QUANT_PRE word per output channel from there (isa.ascend.quant). The tile's bytes are those
words: mmair converts a scaling tile of 64-bit elements and refuses any other element type at
the op (what the bytes of an f16 / f32 scaling tile mean is not settled by the sources; pto-isa
also allows int64, which mmair's tiles do not hold).

The pre-quant scalar forms are the same fixpipe with the i64 `preQuantScalar` as its one QUANT_PRE
word, in the scalar mode of the element types (`GetScalarPreQuantMode`, `scalar_mode`).

PTOAS's verifier rules for these forms are the PTOAS ops' own (dialects/ptoas/fp_rules.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, MemRefType
from xdsl.ir import Operation, SSAValue

from mmair.dialects import pto
from mmair.dialects.types import element_name_or_none
from mmair.isa.ascend import params as isa_params
from mmair.isa.ascend.targets import get_target


def _const(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _error(op: Operation, message: str) -> Exception:
    from mmair.passes.ptoas_to_mmair import ConversionError  # (it imports this module)

    return ConversionError(op, message)


def quant_vector(op: Operation, fp: SSAValue, n: SSAValue) -> SSAValue:
    """The u64 FB tile the fixpipe reads its quant words from (the converted scaling tile), after
    the checks that make the read well defined: u64 words, a 128-byte aligned FB address,
    room for one word per channel."""
    tile = fp.type
    assert isinstance(tile, pto.TileType)
    element = tile.element_name
    if element != "u64":
        raise _error(
            op, f"has an fp (scaling) tile of element type {element}: mmair models the FP form's "
                f"scaling tile as pto-isa's fixpipe reads it, one u64 QUANT_PRE word per output "
                f"channel at the tile's FB address (SetFPC), so it requires a ui64 scaling tile; "
                f"what the bytes of a {element} scaling tile mean is not modelled "
                f"(docs/ptoas.md)")
    owner = fp.owner
    if isinstance(owner, pto.AllocOp) and owner.offset is not None:
        offset = owner.offset.value.data
        unit = isa_params.FPC_QUANT_ADDR_UNIT
        if offset % unit:
            raise _error(
                op, f"requires the fp (scaling) tile at an FB address that is a multiple of "
                    f"{unit} bytes (FPC holds it in {unit}-byte units), got {offset}")
    channels = _const(n)
    words = 1
    for d in tile.logical_shape:
        words *= int(d)
    if channels is not None and channels > words:
        size = isa_params.QUANT_WORD_BYTES
        raise _error(
            op, f"has an fp (scaling) tile of {words} quant words ({words * size} bytes) for "
                f"{channels} output channels: the fixpipe reads one {size}-byte word per channel "
                f"({channels * size} bytes), past the end of the tile")
    return fp


def vector_mode(op: Operation, src: SSAValue, dst: SSAValue, target: str) -> str:
    """pto-isa's vector quant mode for the FP form (isa `vector_quant_mode`), or a diagnostic."""
    to_gm = isinstance(dst.type, MemRefType)
    s, d = (_element(op, v) for v in (src, dst))
    mode = isa_params.vector_quant_mode(get_target(target), s, d, to_gm)
    if mode is None:
        raise _error(
            op, f"has an fp (scaling) tile for {s} -> {d}, for which pto-isa's FP form picks no "
                f"vector quant mode that mmair models on target {target} "
                f"(GetVectorPreQuantMode{'Gm' if to_gm and target == 'a5' else ''})")
    return mode


def scalar_mode(op: Operation, src: SSAValue, dst: SSAValue, target: str) -> str:
    """pto-isa's scalar quant mode for a pre-quant scalar form (isa `scalar_quant_mode`), or a
    diagnostic."""
    to_gm = isinstance(dst.type, MemRefType)
    s, d = (_element(op, v) for v in (src, dst))
    mode = isa_params.scalar_quant_mode(get_target(target), s, d, to_gm)
    if mode is None:
        raise _error(
            op, f"has a pre-quant scalar for {s} -> {d}, for which pto-isa's form picks no "
                f"scalar quant mode that mmair models on target {target} "
                f"(GetScalarPreQuantMode{'Gm' if to_gm and target == 'a5' else ''})")
    return mode


def pre_quant_move(conv, op: Operation, src: SSAValue, dst: SSAValue, relu: bool,
                   start: Sequence[SSAValue], scalar: SSAValue) -> Operation:
    """tmov / textract acc -> mat with a pre-quant scalar: pto-isa's TMOV / TEXTRACT with a u64
    `preQuantScalar`, the fixpipe in the scalar quant mode of the element types with that word."""
    t = dst.type
    if not isinstance(t, pto.TileType) or t.space_name != "l1":
        raise _error(op, f"requires a pre-quant scalar move acc -> mat, got "
                         f"{getattr(t, 'space_name', t)} as the destination")
    if any(_const(v) != 0 for v in start):
        raise _error(op, "has the pre-quant scalar form at a run-time or non-zero start, which "
                         "mmair does not model (it moves the whole acc tile)")
    rows, cols = conv.valid(op, len(op.ins))
    return pto.FixpipeOp(src, dst, rows, cols, layout="nz2nz", relu=relu, scalar=scalar,
                         quant=scalar_mode(op, src, dst, conv.target))


def _element(op: Operation, value: SSAValue) -> str:
    t = value.type
    if isinstance(t, pto.TileType):
        return t.element_name
    _gm_view(op, value)
    assert isinstance(t, MemRefType)
    return element_name_or_none(t.element_type) or str(t.element_type)


def _gm_view(op: Operation, value: SSAValue) -> None:
    """A GM operand must be a converted view (a partition_view of a make_tensor_view)."""
    if not isinstance(value.type, MemRefType):
        raise _error(op, f"requires a GM view made by partition_view of a make_tensor_view, got "
                         f"{value.type}")


def scaling_move(op: Operation, src: SSAValue, dst: SSAValue, rows: SSAValue,
                 cols: SSAValue) -> Operation:
    """`tmov` mat -> scaling: pto-isa's TMovToFb, one burst of the row's bytes
    (`copy_cbuf_to_fbuf`); it moves one-row tiles only ("When TileType is Scaling, row must be
    1", include/pto/npu/{a2a3,a5}/TMov.hpp)."""
    for value in (src, dst):
        t = value.type
        if isinstance(t, pto.TileType) and len(t.logical_shape) == 2 and \
                int(t.logical_shape[0]) != 1:
            raise _error(op, f"requires one-row mat and scaling tiles for a move to scaling "
                             f"(pto-isa TMovToFb: \"When TileType is Scaling, row must be 1\"), "
                             f"got {'x'.join(str(int(d)) for d in t.logical_shape)}")
    if _const(rows) not in (None, 1):
        raise _error(op, f"requires a valid region of one row for a move to scaling, got "
                         f"{_const(rows)} rows")
    return pto.MteL1FbOp(src, dst, cols)


def is_param_row(tile: SSAValue) -> bool:
    """An nd mat tile of 64-bit elements: FIXPIPE parameters (quant words) staged for FB."""
    t = tile.type
    return isinstance(t, pto.TileType) and t.space_name == "l1" and t.layout_name == "nd" \
        and t.element_bits == 64


def param_row_load(conv, op: Operation, src: SSAValue, dst: SSAValue, cols: SSAValue) -> Operation:
    """`tload` of quant words into a one-row nd mat tile: pto-isa's TLOAD of an ND tile is a
    DataCopy of its bytes (no ND2NZ), `copy_gm_to_cbuf` in whole 32-byte blocks."""
    t = dst.type
    assert isinstance(t, pto.TileType)
    _gm_view(op, src)
    n = _const(cols)
    if len(t.logical_shape) == 2 and int(t.logical_shape[0]) != 1 or n is None:
        raise _error(op, "requires a one-row mat tile with a static valid region for a load of "
                         "64-bit quant words")
    unit = isa_params.GM_L1_UNIT_BYTES
    blocks = -(-n * t.element_bits // 8 // unit)
    ix = conv.index
    return pto.CopyGmL1Op(src, ix(op, 0), dst, ix(op, 0), ix(op, 1), ix(op, blocks), ix(op, 0),
                          ix(op, 0))
