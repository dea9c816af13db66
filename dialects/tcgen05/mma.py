"""`tcgen05.mma` and its verifier."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects.builtin import (
    I32,
    IntegerAttr,
    MemRefType,
    StringAttr,
    UnitAttr,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import (
    MemoryReadEffect,
    MemoryWriteEffect,
)

from mmair.dialects.tcgen05._verify import (
    _check_cta_group,
    _error,
    _int_prop,
    _static_idesc,
    _static_smem_desc,
    _static_zcmask,
    _target_of,
)
from mmair.dialects.tcgen05.memory import _buffer_start
from mmair.dialects.tcgen05.types import (
    TMEM,
    _in_space,
)
from mmair.dialects.types import element_name_or_none
from mmair.isa.tcgen05 import rules
from mmair.isa.tcgen05.errors import DescriptorError
from mmair.isa.tcgen05.forms import MmaForm, block_scale_spelling
from mmair.isa.tcgen05.idesc import BLOCK_SCALED_KINDS, KINDS, InstrDesc
from mmair.isa.tcgen05.zcmask import ZeroColumnMask


def normalise_scale_vec(kind: str, scale_vec: str | None) -> str | None:
    """The stored spelling of a block-scale vector size: `1X`/`2X`/`4X` (`.scale_vec::NX`) or
    `block16`/`block32`. Both spellings are kept: they are different PTX (`.scale_vec::NX` needs
    an sm_1xxa target, R32)."""
    if scale_vec is None:
        return None
    upper = scale_vec.upper()
    if upper in ("1X", "2X", "4X"):
        return upper
    return scale_vec.lower() if scale_vec.lower() in ("block16", "block32") else scale_vec


_MODIFIER_FLAGS = ("ws", "sparse", "ashift")


@irdl_op_definition
class MmaOp(IRDLOperation):
    """`tcgen05.mma`: D (TMEM) = A x B (+ D), the PTX `tcgen05.mma{.ws}{.sp}` family.

    ```
    tcgen05.mma kind(f16) cta_group(1) %d, %a, %b, %idesc, %enable_input_d
        : memref<128x256xf32, #tcgen05.space<tmem>>, i64
    tcgen05.mma kind(mxf4nvf4) cta_group(2) block_scale(4X) %d, %a, %b, %idesc, %en
        scale(%sfa, %sfb) : <d type>, i64, <scale_a type>, <scale_b type>
    ```
    Modifiers (before the operands): `ws`, `sparse`, `block_scale` / `block_scale(1X|2X|4X|block16|
    block32)` (stored as 1X/2X/4X), `ashift`, `collector(a|b0..b3, fill|use|lastuse|discard)`.
    Optional operand groups (after them): `metadata(%m)` (sparse), `scale(%sfa, %sfb)`
    (block_scale), `disable_output_lane(%w0, ...)` (4 or 8 i32), `zero_column_mask(%z)` (.ws),
    `scale_input_d(N)`. `a` is an i64 SMEM descriptor or a TMEM memref; the types after `:` are
    those of d, a, and the TMEM operands metadata, scale_a, scale_b when present.
    """

    name = "tcgen05.mma"

    d = operand_def(MemRefType)
    a = operand_def()
    b = operand_def(i64)
    idesc = operand_def(i32)
    enable_input_d = operand_def(i1)
    sparse_metadata = opt_operand_def(MemRefType)
    scale_a = opt_operand_def(MemRefType)
    scale_b = opt_operand_def(MemRefType)
    disable_output_lane = var_operand_def(i32)
    zero_column_mask = opt_operand_def(i64)

    kind = prop_def(StringAttr)
    cta_group = prop_def(IntegerAttr[I32])
    ws = opt_prop_def(UnitAttr)
    sparse = opt_prop_def(UnitAttr)
    block_scale = opt_prop_def(UnitAttr)
    scale_vec = opt_prop_def(StringAttr)
    collector_usage = opt_prop_def(StringAttr)
    ashift = opt_prop_def(UnitAttr)
    scale_input_d = opt_prop_def(IntegerAttr[I32])

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(
        self,
        d: SSAValue | Operation,
        a: SSAValue | Operation,
        b: SSAValue | Operation,
        idesc: SSAValue | Operation,
        enable_input_d: SSAValue | Operation,
        *,
        kind: str,
        cta_group: int = 1,
        ws: bool = False,
        sparse_metadata: SSAValue | Operation | None = None,
        scales: tuple[SSAValue | Operation, SSAValue | Operation] | None = None,
        scale_vec: str | None = None,
        disable_output_lane: Sequence[SSAValue | Operation] = (),
        zero_column_mask: SSAValue | Operation | None = None,
        collector_usage: str | None = None,
        ashift: bool = False,
        scale_input_d: int | None = None,
    ) -> None:
        vec = normalise_scale_vec(kind, scale_vec)
        properties: dict[str, Attribute | None] = {
            "kind": StringAttr(kind),
            "cta_group": IntegerAttr(cta_group, i32),
            "ws": UnitAttr() if ws else None,
            "sparse": UnitAttr() if sparse_metadata is not None else None,
            "block_scale": UnitAttr() if scales is not None else None,
            "scale_vec": StringAttr(vec) if vec is not None else None,
            "collector_usage": StringAttr(collector_usage) if collector_usage else None,
            "ashift": UnitAttr() if ashift else None,
            "scale_input_d": IntegerAttr(scale_input_d, i32) if scale_input_d is not None else None,
        }
        super().__init__(
            operands=[
                d, a, b, idesc, enable_input_d,
                [] if sparse_metadata is None else [sparse_metadata],
                [] if scales is None else [scales[0]],
                [] if scales is None else [scales[1]],
                list(disable_output_lane),
                [] if zero_column_mask is None else [zero_column_mask],
            ],
            properties={k: v for k, v in properties.items() if v is not None},
        )

    # -- syntax ---------------------------------------------------------------------------------

    @classmethod
    def parse(cls, parser: Parser) -> MmaOp:
        props: dict[str, Attribute] = {}
        parser.parse_keyword("kind")
        with parser.in_parens():
            kind = parser.parse_identifier(" (an mma kind)")
        parser.parse_keyword("cta_group")
        with parser.in_parens():
            cta_group = parser.parse_integer(allow_boolean=False)
        props["kind"] = StringAttr(kind)
        props["cta_group"] = IntegerAttr(cta_group, i32)
        while True:
            flag = parser.parse_optional_keyword_in(
                (*_MODIFIER_FLAGS, "block_scale", "collector")
            )
            if flag is None:
                break
            if flag in _MODIFIER_FLAGS:
                props[flag] = UnitAttr()
            elif flag == "block_scale":
                props["block_scale"] = UnitAttr()
                if parser.parse_optional_punctuation("(") is not None:
                    number = parser.parse_optional_integer(allow_boolean=False)
                    if number is not None:
                        suffix = parser.parse_identifier(" ('x' of a scale vector size)")
                        spelled = f"{number}{suffix}"
                    else:
                        spelled = parser.parse_identifier(" (a block-scale vector size)")
                    parser.parse_punctuation(")")
                    props["scale_vec"] = StringAttr(normalise_scale_vec(kind, spelled) or spelled)
            else:
                with parser.in_parens():
                    buffer = parser.parse_identifier(" (a collector buffer: a, b0..b3)")
                    parser.parse_punctuation(",")
                    usage = parser.parse_identifier(" (a collector usage)")
                props["collector_usage"] = StringAttr(f"{buffer}::{usage}")

        def operand() -> UnresolvedOperand:
            return parser.parse_unresolved_operand()

        main = [operand()]
        for _ in range(4):
            parser.parse_punctuation(",")
            main.append(operand())
        groups: dict[str, list[UnresolvedOperand]] = {}
        while True:
            group = parser.parse_optional_keyword_in(
                ("metadata", "scale", "disable_output_lane", "zero_column_mask", "scale_input_d")
            )
            if group is None:
                break
            if group in groups or (group == "scale_input_d" and "scale_input_d" in props):
                parser.raise_error(f"'{group}' is given twice")
            if group == "scale_input_d":
                with parser.in_parens():
                    props["scale_input_d"] = IntegerAttr(
                        parser.parse_integer(allow_boolean=False), i32
                    )
            else:
                groups[group] = parser.parse_comma_separated_list(
                    parser.Delimiter.PAREN, operand
                )
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        d_type = parser.parse_type()
        parser.parse_punctuation(",")
        a_type = parser.parse_type()

        def tmem_operands(group: str, count: int) -> list[SSAValue]:
            values = groups.get(group, [])
            if values and len(values) != count:
                parser.raise_error(f"'{group}' takes {count} operand(s), got {len(values)}")
            resolved = []
            for value in values:
                parser.parse_punctuation(",")
                resolved.append(parser.resolve_operand(value, parser.parse_type()))
            return resolved

        metadata = tmem_operands("metadata", 1)
        scales = tmem_operands("scale", 2)
        op = cls.build(
            operands=[
                parser.resolve_operand(main[0], d_type),
                parser.resolve_operand(main[1], a_type),
                parser.resolve_operand(main[2], i64),
                parser.resolve_operand(main[3], i32),
                parser.resolve_operand(main[4], i1),
                metadata,
                scales[:1],
                scales[1:],
                [parser.resolve_operand(v, i32) for v in groups.get("disable_output_lane", [])],
                [parser.resolve_operand(v, i64) for v in groups.get("zero_column_mask", [])],
            ],
            properties=props,
            attributes=attrs,
        )
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" kind({self.kind.data}) cta_group({self.cta_group.value.data})")
        if self.ws is not None:
            printer.print_string(" ws")
        if self.sparse is not None:
            printer.print_string(" sparse")
        if self.block_scale is not None:
            printer.print_string(" block_scale")
            if self.scale_vec is not None:
                printer.print_string(f"({self.scale_vec.data})")
        if self.ashift is not None:
            printer.print_string(" ashift")
        if self.collector_usage is not None:
            buffer, _, usage = self.collector_usage.data.partition("::")
            printer.print_string(f" collector({buffer}, {usage})")
        printer.print_string(" ")
        printer.print_list(
            (self.d, self.a, self.b, self.idesc, self.enable_input_d), printer.print_operand
        )
        groups = (
            ("metadata", [self.sparse_metadata] if self.sparse_metadata else []),
            ("scale", [v for v in (self.scale_a, self.scale_b) if v is not None]),
            ("disable_output_lane", list(self.disable_output_lane)),
            ("zero_column_mask", [self.zero_column_mask] if self.zero_column_mask else []),
        )
        for keyword, values in groups:
            if values:
                printer.print_string(f" {keyword}(")
                printer.print_list(values, printer.print_operand)
                printer.print_string(")")
        if self.scale_input_d is not None:
            printer.print_string(f" scale_input_d({self.scale_input_d.value.data})")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        types = [self.d.type, self.a.type]
        types += [v.type for v in (self.sparse_metadata, self.scale_a, self.scale_b) if v is not None]
        printer.print_list(types, printer.print_attribute)

    # -- verification ---------------------------------------------------------------------------

    @property
    def a_in_tmem(self) -> bool:
        return isinstance(self.a.type, MemRefType)

    def form(self) -> MmaForm:
        """The PTX instruction form of this op (modifiers and operand presence)."""
        return MmaForm(
            cta_group=self.cta_group.value.data,
            kind=self.kind.data,
            ws=self.ws is not None,
            sparse=self.sparse is not None,
            block_scale=block_scale_spelling(
                None if self.scale_vec is None else self.scale_vec.data,
                self.block_scale is not None,
            ),
            ashift=self.ashift is not None,
            collector=self.collector,
            a_tmem=self.a_in_tmem,
            disable_output_lane=len(self.disable_output_lane) or None,
            scale_input_d=_int_prop(self.scale_input_d),
            zero_column_mask=self.zero_column_mask is not None,
        )

    @property
    def collector(self) -> str | None:
        return None if self.collector_usage is None else self.collector_usage.data

    def _rule(self, check: Callable[[], object], what: str = "") -> None:
        """Run an isa check; its DescriptorError becomes this op's verifier error."""
        try:
            check()
        except DescriptorError as err:
            raise _error(self, f"{what}{err}") from err

    def verify_(self) -> None:
        kind = self.kind.data
        if kind not in KINDS:
            raise _error(self, f"requires kind in {', '.join(KINDS)}, got {kind}")
        cta_group = self.cta_group.value.data
        _check_cta_group(self, cta_group)
        ws = self.ws is not None
        sparse = self.sparse is not None
        block_scale = self.block_scale is not None
        self._verify_operand_types()
        if sparse != (self.sparse_metadata is not None):
            raise _error(self, "requires a metadata operand exactly when the mma is sparse, got "
                               f"sparse = {str(sparse).lower()} with "
                               f"{'a' if self.sparse_metadata else 'no'} metadata operand")
        scales = [name for name, operand in (("scale_a", self.scale_a), ("scale_b", self.scale_b))
                  if operand is not None]
        if block_scale != (len(scales) == 2):
            given = {0: "no scale operands", 2: "both scale operands"}.get(
                len(scales), f"only the {''.join(scales)} operand")
            raise _error(self, "requires scale_a and scale_b operands exactly with block_scale, got "
                               f"block_scale = {str(block_scale).lower()} with {given}")
        if block_scale and kind not in BLOCK_SCALED_KINDS:
            raise _error(self, f"requires kind in {', '.join(BLOCK_SCALED_KINDS)} with block_scale, "
                               f"got {kind}")
        scale_vec = None if self.scale_vec is None else self.scale_vec.data
        if scale_vec is not None and not block_scale:
            raise _error(self, f"requires block_scale with scale_vec, got scale_vec = {scale_vec}")
        if scale_vec is not None and scale_vec not in rules.SCALE_VECS:
            raise _error(self, f"requires scale_vec in {', '.join(rules.SCALE_VECS)}, "
                               f"got {scale_vec}")
        target = _target_of(self)
        form = self.form()
        errors = rules.mma_form_errors(form, target or rules.DEFAULT_TARGET)
        if errors and target is None and any(
            rules.mma_form_legal(form, t) for t in rules.TCGEN05_TARGETS
        ):
            errors = []  # legal on some target; the module names none
        if errors:
            raise _error(self, str(errors[0]))

        idesc = _static_idesc(self, self.idesc, kind)
        if idesc is not None:
            self._verify_idesc(idesc, cta_group, ws, sparse, scale_vec, target)
        # M is only known with a static idesc; 128 passes the M-dependent parts of R25/R28
        # (the executor checks them on the run-time descriptor).
        m = idesc.m if idesc is not None else 128
        collector_a = self.collector if self.collector and self.collector.startswith("a::") else None
        self._rule(lambda: rules.check_ashift(self.ashift is not None, a_in_tmem=self.a_in_tmem,
                                              m=m, collector_a=collector_a))
        if self.zero_column_mask is not None:
            zcm = _static_zcmask(self, self.zero_column_mask)
            # An unknown mask still has to sit on a .ws mma (R23); an all-zero mask checks only that.
            self._rule(lambda: rules.check_zcmask(zcm or ZeroColumnMask(), m=m, ws=ws,
                                                  cta_group=cta_group),
                       "zero_column_mask: " if zcm is not None else "")
        operands = [("b", self.b)] if self.a_in_tmem else [("a", self.a), ("b", self.b)]
        for operand, value in operands:
            desc = _static_smem_desc(self, value, operand)
            if desc is None:
                continue
            major = None
            if idesc is not None:
                transposed = idesc.transpose_a if operand == "a" else idesc.transpose_b
                major = "mn" if transposed else "k"
            start = _buffer_start(self, desc.start)
            self._rule(lambda desc=desc, major=major, start=start: rules.check_smem_desc(
                desc, kind=kind, major=major, pattern_start=start, target=target),
                f"{operand} descriptor: ")

    def _verify_operand_types(self) -> None:
        if not _in_space(self.d.type, TMEM):
            raise _error(self, f"requires d in tensor memory (a memref in #tcgen05.space<tmem>), "
                               f"got {self.d.type}")
        if self.a.type != i64 and not _in_space(self.a.type, TMEM):
            raise _error(self, f"requires a to be an i64 shared-memory descriptor or a memref in "
                               f"#tcgen05.space<tmem>, got {self.a.type}")
        for name in ("sparse_metadata", "scale_a", "scale_b"):
            value = getattr(self, name)
            if value is not None and not _in_space(value.type, TMEM):
                raise _error(self, f"requires {name} in tensor memory (a memref in "
                                   f"#tcgen05.space<tmem>), got {value.type}")

    def _verify_idesc(self, idesc: InstrDesc, cta_group: int, ws: bool, sparse: bool,
                      scale_vec: str | None, target: str | None) -> None:
        self._rule(lambda: rules.check_idesc(idesc, cta_group=cta_group, ws=ws,
                                             a_in_tmem=self.a_in_tmem, scale_vec=scale_vec,
                                             target=target), "idesc: ")
        if idesc.sparse != sparse:
            raise _error(self, f"requires idesc sparse = {str(sparse).lower()} (the mma is "
                               f"{'sparse' if sparse else 'dense'}), got "
                               f"{str(idesc.sparse).lower()}")
        d_type = self.d.type
        assert isinstance(d_type, MemRefType)
        dtype = idesc.dtype if idesc.dtype is not None else "f32"
        found = element_name_or_none(d_type.element_type)
        if found != dtype:
            raise _error(self, f"requires d element type {dtype} (the idesc dtype), got "
                               f"{d_type.element_type}")
        shape = d_type.get_shape()
        # cta_group::2: each CTA of the pair holds its half of D's rows in its own TMEM.
        rows = idesc.m // self.cta_group.value.data
        if len(shape) != 2 or (shape[0] >= 0 and shape[0] < rows) or (
            shape[1] >= 0 and shape[1] < idesc.n
        ):
            share = "" if rows == idesc.m else f"this CTA's {rows}x{idesc.n} share of "
            raise _error(self, f"requires d to hold {share}the {idesc.m}x{idesc.n} tile of the "
                               f"idesc, got {d_type}")
        if self.a_in_tmem:
            a_type = self.a.type
            assert isinstance(a_type, MemRefType)
            found = element_name_or_none(a_type.element_type)
            if found != idesc.atype:
                raise _error(self, f"requires a element type {idesc.atype} (the idesc atype), "
                                   f"got {a_type.element_type}")


# ----------------------------------------------------------------------------------------------
# Whole-kernel ops: TMEM <-> registers, SMEM -> TMEM, completion tracking (commit, mbarrier)
