"""A faster parse of the pto ops' declarative custom form (printed IR and errors unchanged)."""

from __future__ import annotations

from xdsl.ir import Operation
from xdsl.irdl import AttrSizedOperandSegments, IRDLOperation

# ------------------------------------------------------------------------------------------------
# Parsing the custom form faster
# ------------------------------------------------------------------------------------------------

# Generated kernels repeat a few pto ops with the same types thousands of times. xDSL's declarative
# format parse checks the parsed types and attributes against the op's constraints, infers the
# operand and result types it does not spell, and rebuilds the op through `build` (argument-list
# checks, a new `operandSegmentSizes` array) for every op. All of that is a function of the op class,
# the number of operands in each group, the parsed types and the parsed properties and attributes:
# the first op of each kind runs the stock path; an equal one reuses its inferred types and segment
# array (attributes are immutable values, so sharing one instance is exact) and is created directly.
# Parse errors are never memoized: they keep coming from the stock path.
_FORMAT_MEMO: dict[tuple, tuple] = {}
_FORMAT_MEMO_LIMIT = 4096
_SEGMENTS = AttrSizedOperandSegments.attribute_name


def _format_parse(cls: type[IRDLOperation], parser) -> IRDLOperation:
    from xdsl.irdl.declarative_assembly_format import ParsingState

    program = cls._format_program
    op_def = cls.get_irdl_definition()
    state = ParsingState(cls)
    for stmt in program.stmts:
        stmt.parse(parser, state)
    key: tuple | None = (
        cls,
        tuple(map(len, state.operands)),
        tuple(None if types is None else tuple(types) for types in state.operand_types),
        tuple(None if types is None else tuple(types) for types in state.result_types),
        tuple(state.properties.items()),
        tuple(state.attributes.items()),
    )
    try:
        memo = _FORMAT_MEMO.get(key)
    except TypeError:  # an attribute that is not hashable: no memo for this op
        key = memo = None
    if memo is None:
        program.resolve_constraint_variables(state, op_def)
        inferred_operands = program.resolve_operand_types(state, op_def)
        inferred_results = program.resolve_result_types(state, op_def)
    else:
        inferred_operands, result_types, segments = memo
    pos = parser.pos
    operands = [
        parser.resolve_operands(unresolved, types, pos)
        for unresolved, types in zip(state.operands, inferred_operands, strict=True)
    ]
    if memo is None:
        op = cls.build(
            result_types=inferred_results,
            operands=operands,
            attributes=state.attributes,
            properties=state.properties,
            regions=state.regions,
            successors=state.successors,
        )
        if key is not None:
            if len(_FORMAT_MEMO) >= _FORMAT_MEMO_LIMIT:
                _FORMAT_MEMO.clear()
            _FORMAT_MEMO[key] = (inferred_operands, op.result_types, op.properties.get(_SEGMENTS))
        return op
    # What `build` makes of the same arguments: its checks passed for this key already.
    properties = state.properties
    if segments is not None:
        properties[_SEGMENTS] = segments
    op = cls.__new__(cls)
    Operation.__init__(
        op,
        operands=[value for group in operands for value in group],
        result_types=result_types,
        properties=properties,
        attributes=state.attributes,
    )
    return op


def _use_format_parse(*classes: type[IRDLOperation]) -> None:
    from xdsl.irdl.declarative_assembly_format import FormatProgram

    for cls in classes:
        op_def = cls.get_irdl_definition()
        assert op_def.assembly_format is not None and not op_def.regions and not op_def.successors
        # The program `irdl_op_definition` compiled for the stock `parse` (held by its closure);
        # compiled again only if xDSL ever stores it elsewhere.
        cells = getattr(cls.parse.__func__, "__closure__", None) or ()
        programs = [c.cell_contents for c in cells if isinstance(c.cell_contents, FormatProgram)]
        cls._format_program = (
            programs[0] if programs else FormatProgram.from_str(op_def.assembly_format, op_def)
        )
        cls.parse = classmethod(_format_parse)
