"""The names of SSA values as the user wrote them, for diagnostics and `mmair-run`'s argument names.

xDSL's parser keeps a value's name as its `name_hint`, but drops a trailing `_<digits>` (so that
printing, which adds such suffixes to tell equal hints apart, does not grow them on each round
trip): `%l1_0` and `%l1_1` both get the hint `l1`, and `%x_1` the hint `x`. Messages built from
the hint would then name two buffers alike, and an input `x_1=file.npy` would not match.

`tools.diagnostics.LocatingParser` (the parser of every mmair tool) therefore records, for each
value it defines, the spelling in the source (`l1_0`; `a#1` for result 1 of `%a:2 = ...`; `0` for
`%0`) in a side table, together with the hint xDSL gave it. `value_name` returns that spelling
while the hint is unchanged, and the hint otherwise: a pass that renames a value (`multi-buffer`'s
`%a_s0`) or creates a new one names it by its hint, as the printed IR does. The printed IR and
xDSL's `name_hint` are left unchanged. The table holds its values weakly (it does not keep a
module alive) and costs one dictionary entry per value defined by the parser.
"""

from __future__ import annotations

from collections.abc import Sequence
from weakref import WeakKeyDictionary

from xdsl.ir import SSAValue

_WRITTEN: WeakKeyDictionary[SSAValue, tuple[str, str | None]] = WeakKeyDictionary()
"""value -> (its name as written, without `%`; the `name_hint` the parser gave it)."""


def record_written_names(name: str, values: Sequence[SSAValue]) -> None:
    """Record that the source defined `values` as `%name` (one value) or `%name:N` (N values)."""
    if len(values) == 1:
        value = values[0]
        _WRITTEN[value] = (name, value.name_hint)
        return
    for index, value in enumerate(values):
        _WRITTEN[value] = (f"{name}#{index}", value.name_hint)


def written_name(value: SSAValue) -> str | None:
    """The name the source gave `value` (without `%`), None when it was not parsed by
    `LocatingParser` or a pass renamed it since."""
    entry = _WRITTEN.get(value)
    if entry is not None and entry[1] == value.name_hint:
        return entry[0]
    return None


def value_name(value: SSAValue) -> str | None:
    """The name of `value` without `%` as the user reads it: as written in the source (module
    docstring), else its `name_hint`; None when it has neither."""
    written = written_name(value)
    return written if written is not None else value.name_hint


def value_label(value: SSAValue, unnamed: str = "") -> str:
    """`%name` of `value` for a message (`value_name`), `unnamed` when it has no name."""
    name = value_name(value)
    return f"%{name}" if name else unnamed


def name_derived(value: SSAValue, base: SSAValue, suffix: str) -> None:
    """Name `value` (a pass's copy or renaming of `base`) `<base's hint><suffix>`, and for messages
    `<base's name as written><suffix>`: `%l1_0` and `%l1_1` become `%l1_0_s0` and `%l1_1_s0` in
    messages though both print as `%l1_s0` (xDSL's printer then adds its own suffixes). With the
    suffix "", `value` takes over `base`'s names (an op replaced by an equivalent one)."""
    hint, written = base.name_hint, written_name(base)
    value.name_hint = f"{hint}{suffix}" if hint else None
    if written is not None:
        _WRITTEN[value] = (f"{written}{suffix}", value.name_hint)
