"""TMA: the tensor map, `cp.async.bulk.tensor`, `elect.sync`, `fence.proxy.async`.

A CUTLASS-style Blackwell kernel never fills shared memory with a plain copy: one elected thread
(`elect.sync`) issues `cp.async.bulk.tensor`, which copies a *box* of a global tensor into SMEM,
swizzled as the box's *tensor map* says, and performs a complete-tx of the box's bytes on an
mbarrier; the thread that waits for the data first raised the mbarrier's tx-count with
`mbarrier.arrive.expect_tx` (`tcgen05.mbarrier_arrive ... expect_tx(N)`), and the phase completes
when every arrival and every expected byte has arrived (`tcgen05.mbarrier_wait`, a
`mbarrier.try_wait.parity` loop).

* `#tcgen05.tensor_map<dtype = f16, dims = [64, 128], strides = [128], box = [64, 128],
  element_strides = [1, 1], interleave = none, swizzle = sw128, oob_fill = zero>`: the fields of
  the driver's `cuTensorMapEncodeTiled`, innermost dimension first (`strides`: bytes, dims 1..);
  `element_strides`, `interleave`, `swizzle` and `oob_fill` may be left out (1s, none, none, zero);
  the interleave modes are `none`, `"16b"`, `"32b"` (quoted: they start with a digit).
* `%tm = tcgen05.make_tensor_map %a, #tcgen05.tensor_map<...> : memref<128x64xf16>`: the tensor map
  of the global tensor `%a` (an i64: the generic address of the 128-byte map, which PTX passes as a
  `.param .align 64 .b8 [128]` kernel parameter). The map must describe `%a`: its dims are the
  memref's shape reversed, its strides the memref's, its element width the memref's.
* `tcgen05.tma_load %dst, %tm[%x, %y], %bar (cluster)? (multicast(%mask))? (cta_group(2))? :
  memref<..., smem>, memref<1xi64, smem>`: PTX `cp.async.bulk.tensor.2d.shared::{cta,cluster}
  .global.tile.mbarrier::complete_tx::bytes{.multicast::cluster}{.cta_group::2}`; the coordinates
  are i32 (`.s32`), innermost first; `%dst` holds exactly the box's bytes.
* `%p = tcgen05.elect_sync : i1`: PTX `elect.sync _|%p, 0xffffffff` (one lane of the warp is
  elected; the executor's one-thread model is that lane, so it is true).
* `tcgen05.fence_proxy_async`: PTX `fence.proxy.async.shared::cta` (orders the thread's generic
  proxy SMEM writes before later async-proxy accesses).

Every rule is `mmair.isa.tcgen05.tma` (TMA1-TMA18); this module turns its `DescriptorError`s into
`VerifyException`s.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    I32,
    ArrayAttr,
    IntAttr,
    IntegerAttr,
    MemRefType,
    StringAttr,
    UnitAttr,
    i1,
    i16,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, ParametrizedAttribute, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from mmair.dialects.tcgen05._verify import _error, _memref_bytes
from mmair.dialects.tcgen05.memory import SmemAllocOp
from mmair.dialects.tcgen05.sync import _check_mbarrier
from mmair.dialects.tcgen05.types import SMEM, TMEM, _in_space
from mmair.isa.tcgen05 import tma
from mmair.isa.tcgen05.errors import DescriptorError

_LIST_FIELDS = ("dims", "strides", "box", "element_strides")
_NAME_FIELDS = ("dtype", "interleave", "swizzle", "oob_fill")
_DEFAULTS: dict[str, str] = {"interleave": "none", "swizzle": "none", "oob_fill": "zero"}


def _ints(values: Sequence[int]) -> ArrayAttr[IntAttr]:
    return ArrayAttr([IntAttr(v) for v in values])


def tensor_map_from_items(items: dict[str, object]) -> tma.TensorMap:
    """A `TensorMap` from `key = value` items (missing optional fields take their defaults)."""
    known = _LIST_FIELDS + _NAME_FIELDS
    for key in items:
        if key not in known:
            raise DescriptorError("key", key, ", ".join(known), None, "is not a tensor-map field")
    for key in ("dtype", "dims", "strides", "box"):
        if key not in items:
            raise DescriptorError(key, None, "a value", None, "is missing", value_text="(missing)")
    lists: dict[str, tuple[int, ...]] = {}
    for key in _LIST_FIELDS:
        value = items.get(key)
        if value is None:  # element_strides: all 1
            value = [1] * len(lists["box"])
        if not isinstance(value, list):
            raise DescriptorError(key, value, "a list of integers [a, b, ...]", None, "is not a list")
        lists[key] = tuple(value)
    names: dict[str, str] = {}
    for key in _NAME_FIELDS:
        value = items.get(key, _DEFAULTS.get(key))
        if not isinstance(value, str):
            raise DescriptorError(key, value, "a name", None, "is not a name")
        names[key] = value
    return tma.TensorMap(names["dtype"], lists["dims"], lists["strides"], lists["box"],
                         lists["element_strides"], names["interleave"], names["swizzle"],
                         names["oob_fill"])


@irdl_attr_definition
class TensorMapAttr(ParametrizedAttribute):
    """`#tcgen05.tensor_map<dtype = f16, dims = [64, 128], strides = [128], box = [64, 128],
    swizzle = sw128>` (module docstring): the fields of `cuTensorMapEncodeTiled`."""

    name = "tcgen05.tensor_map"

    dtype: StringAttr
    dims: ArrayAttr[IntAttr]
    strides: ArrayAttr[IntAttr]
    box: ArrayAttr[IntAttr]
    element_strides: ArrayAttr[IntAttr]
    interleave: StringAttr
    swizzle: StringAttr
    oob_fill: StringAttr

    def __init__(self, m: tma.TensorMap) -> None:
        super().__init__(StringAttr(m.dtype), _ints(m.dims), _ints(m.strides), _ints(m.box),
                         _ints(m.element_strides), StringAttr(m.interleave),
                         StringAttr(m.swizzle), StringAttr(m.oob_fill))

    @property
    def map(self) -> tma.TensorMap:
        return tma.TensorMap(
            self.dtype.data, tuple(v.data for v in self.dims), tuple(v.data for v in self.strides),
            tuple(v.data for v in self.box), tuple(v.data for v in self.element_strides),
            self.interleave.data, self.swizzle.data, self.oob_fill.data)

    def verify(self) -> None:
        try:
            tma.check_tensor_map(self.map)
        except DescriptorError as err:
            raise VerifyException(f"#tcgen05.tensor_map: {err}") from err

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        items: dict[str, object] = {}
        spans: dict[str, tuple[int, int]] = {}
        start = parser.pos

        def parse_item() -> None:
            key_start = parser.pos
            key = parser.parse_identifier(" (a tensor-map field)")
            parser.parse_punctuation("=")
            value_start = parser.pos
            value: object
            if parser.parse_optional_punctuation("[") is not None:
                value = []
                if parser.parse_optional_punctuation("]") is None:
                    value = parser.parse_comma_separated_list(
                        parser.Delimiter.NONE, lambda: parser.parse_integer(allow_boolean=False))
                    parser.parse_punctuation("]")
            elif (text := parser.parse_optional_str_literal()) is not None:
                value = text
            elif (number := parser.parse_optional_integer(allow_boolean=False)) is not None:
                value = number
            else:
                value = parser.parse_identifier(" for a tensor-map field value")
            if key in items:
                parser.raise_error(f"tensor-map field '{key}' is given twice", key_start,
                                   parser.pos)
            items[key] = value
            spans[key] = (key_start if key not in _LIST_FIELDS + _NAME_FIELDS else value_start,
                          parser.pos)

        parser.parse_comma_separated_list(parser.Delimiter.ANGLE, parse_item)
        try:
            m = tensor_map_from_items(items)
            tma.check_tensor_map(m)
        except DescriptorError as err:
            field = err.value if err.field == "key" and isinstance(err.value, str) else \
                err.field.split("[")[0]
            parser.raise_error(f"#tcgen05.tensor_map: {err}", *spans.get(field, (start, parser.pos)))
        attr = TensorMapAttr(m)
        return (attr.dtype, attr.dims, attr.strides, attr.box, attr.element_strides,
                attr.interleave, attr.swizzle, attr.oob_fill)

    def print_parameters(self, printer: Printer) -> None:
        m = self.map
        text = (f"dtype = {m.dtype}, dims = [{', '.join(map(str, m.dims))}], "
                f"strides = [{', '.join(map(str, m.strides))}], "
                f"box = [{', '.join(map(str, m.box))}]")
        if any(s != 1 for s in m.element_strides):
            text += f", element_strides = [{', '.join(map(str, m.element_strides))}]"
        for key in ("interleave", "swizzle", "oob_fill"):
            value = getattr(m, key)
            if value != _DEFAULTS[key]:
                text += f", {key} = {value if value.isidentifier() else repr(value)}"
        with printer.in_angle_brackets():
            printer.print_string(text)


def memref_tensor_map_mismatch(m: tma.TensorMap, type_: MemRefType) -> str | None:
    """Why map `m` does not describe a global memref of `type_` (None: it does)."""
    bits = getattr(type_.element_type, "bitwidth", None)
    if bits != m.element_bits:
        return (f"dtype {m.dtype} ({m.element_bits}-bit) to match the tensor's "
                f"{type_.element_type} ({bits}-bit elements)")
    shape = tuple(type_.get_shape())
    if any(d < 0 for d in shape):
        return None  # a dynamic shape: checked when the executor runs it
    if tuple(reversed(shape)) != m.dims:
        return (f"dims [{', '.join(map(str, m.dims))}] to be the tensor's shape innermost first, "
                f"[{', '.join(map(str, reversed(shape)))}]")
    strides = type_.get_strides()
    if strides is None or any(s is None for s in strides):
        return None
    byte_strides = tuple(s * bits // 8 for s in reversed(strides))[1:]
    if byte_strides != m.strides or (strides and strides[-1] != 1):
        return (f"strides [{', '.join(map(str, m.strides))}] to be the tensor's byte strides of "
                f"dims 1.., [{', '.join(map(str, byte_strides))}] (and a unit inner stride)")
    return None


@irdl_op_definition
class MakeTensorMapOp(IRDLOperation):
    """`%tm = tcgen05.make_tensor_map %a, #tcgen05.tensor_map<...> : memref<...>` (module
    docstring): the tensor map of global tensor `%a`, as an i64 (the map's generic address)."""

    name = "tcgen05.make_tensor_map"

    tensor = operand_def(MemRefType)
    map = prop_def(TensorMapAttr)
    result = result_def(i64)

    traits = traits_def(Pure())
    assembly_format = "$tensor `,` qualified($map) attr-dict `:` type($tensor)"

    def __init__(self, tensor: SSAValue | Operation, m: tma.TensorMap | TensorMapAttr) -> None:
        attr = m if isinstance(m, TensorMapAttr) else TensorMapAttr(m)
        super().__init__(operands=[tensor], properties={"map": attr}, result_types=[i64])

    def verify_(self) -> None:
        type_ = self.tensor.type
        assert isinstance(type_, MemRefType)
        if _in_space(type_, SMEM) or _in_space(type_, TMEM):
            raise _error(self, f"requires a global-memory tensor (a memref without a tcgen05 "
                               f"space), got {type_}")
        why = memref_tensor_map_mismatch(self.map.map, type_)
        if why is not None:
            raise _error(self, f"requires the tensor map to describe its tensor {type_}: {why}")


def _static_offset(value: SSAValue) -> int | None:
    """The SMEM offset of a `tcgen05.smem_alloc` result used whole (None when not static)."""
    owner = value.owner
    if isinstance(owner, SmemAllocOp):
        return owner.offset.value.data
    return None


def tensor_map_of(value: SSAValue) -> tma.TensorMap | None:
    """The tensor map a `tcgen05.make_tensor_map` result carries (None for another value)."""
    owner = value.owner
    return owner.map.map if isinstance(owner, MakeTensorMapOp) else None


@irdl_op_definition
class TmaLoadOp(IRDLOperation):
    """`tcgen05.tma_load %dst, %tm[%x, %y], %bar : memref<..., smem>, memref<1xi64, smem>`
    (module docstring): a tile-mode global -> shared `cp.async.bulk.tensor` that completes the
    box's bytes on `%bar` (`.mbarrier::complete_tx::bytes`)."""

    name = "tcgen05.tma_load"

    dst = operand_def(MemRefType)
    tensor_map = operand_def(i64)
    coords = var_operand_def(i32)
    mbarrier = operand_def(MemRefType)
    cta_mask = opt_operand_def(i16)
    cluster = opt_prop_def(UnitAttr)
    cta_group = opt_prop_def(IntegerAttr[I32])

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = (
        "$dst `,` $tensor_map `[` $coords `]` `,` $mbarrier (`cluster` $cluster^)? "
        "(`multicast` `(` $cta_mask^ `)`)? (`cta_group` `(` $cta_group^ `)`)? attr-dict "
        "`:` type($dst) `,` type($mbarrier)"
    )

    def __init__(self, dst: SSAValue | Operation, tensor_map: SSAValue | Operation,
                 coords: Sequence[SSAValue | Operation], mbarrier: SSAValue | Operation,
                 cta_mask: SSAValue | Operation | None = None, cluster: bool = False,
                 cta_group: int | None = None) -> None:
        properties: dict[str, Attribute] = {}
        if cluster or cta_mask is not None:
            properties["cluster"] = UnitAttr()
        if cta_group is not None:
            properties["cta_group"] = IntegerAttr(cta_group, i32)
        super().__init__(operands=[dst, tensor_map, list(coords), mbarrier,
                                   [] if cta_mask is None else [cta_mask]],
                         properties=properties)

    @property
    def destination(self) -> str:
        return "cluster" if self.cluster is not None else "cta"

    def verify_(self) -> None:
        type_ = self.dst.type
        if not _in_space(type_, SMEM):
            raise _error(self, f"requires a destination in shared memory (a memref in "
                               f"#tcgen05.space<smem>), got {type_}")
        _check_mbarrier(self, self.mbarrier)
        m = tensor_map_of(self.tensor_map)
        if m is None:
            if self.cta_group is not None and self.cta_group.value.data not in (1, 2):
                raise _error(self, f"cta_group = {self.cta_group.value.data} is not legal; "
                                   "legal: 1, 2 [TMA18]")
            return
        assert isinstance(type_, MemRefType)
        size = _memref_bytes(type_)
        try:
            tma.check_copy(m, len(self.coords), size, _static_offset(self.dst), self.destination,
                           self.cta_mask is not None,
                           None if self.cta_group is None else self.cta_group.value.data)
        except DescriptorError as err:
            raise _error(self, str(err)) from err


@irdl_op_definition
class ElectSyncOp(IRDLOperation):
    """`%p = tcgen05.elect_sync : i1`: PTX `elect.sync _|%p, 0xffffffff` (module docstring)."""

    name = "tcgen05.elect_sync"
    pred = result_def(i1)
    assembly_format = "attr-dict `:` type($pred)"

    def __init__(self) -> None:
        super().__init__(result_types=[i1])


@irdl_op_definition
class FenceProxyAsyncOp(IRDLOperation):
    """`tcgen05.fence_proxy_async`: PTX `fence.proxy.async.shared::cta` (module docstring)."""

    name = "tcgen05.fence_proxy_async"
    assembly_format = "attr-dict"

    def __init__(self) -> None:
        super().__init__()

