"""Checks shared by the pto verifiers: one `_error` format (`'pto.op' op requires ...`), the
module's target, static operand values and the tile/memref operand rules every op group uses."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp, NoneAttr, StringAttr
from xdsl.ir import Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

from mmair.dialects.pto.types import TARGET_ATTR, TileType, _fmt_set, _fmt_shape, legal_layouts
from mmair.dialects.types import element_name_or_none
from mmair.isa.ascend import targets as isa
from mmair.isa.ascend.targets import Target

Value = SSAValue | Operation  # what op constructors take for an operand


# ----------------------------------------------------------------------------------------------
# Shared verifier helpers
# ----------------------------------------------------------------------------------------------


def _error(op: Operation, text: str) -> VerifyException:
    return VerifyException(f"'{op.name}' op {text}")


def target_of(op: Operation) -> Target:
    """The target named by the nearest enclosing `builtin.module` with a `pto.target` attribute
    (default `a2`); an unknown name is a `VerifyException` listing the legal targets."""
    current: Operation | None = op
    while current is not None:
        if isinstance(current, ModuleOp) and TARGET_ATTR in current.attributes:
            attr = current.attributes[TARGET_ATTR]
            name = attr.data if isinstance(attr, StringAttr) else str(attr)
            try:
                return isa.get_target(name)
            except isa.UnknownTargetError:
                raise _error(
                    op, f"requires {TARGET_ATTR} in {_fmt_set(isa.TARGET_NAMES)}, got {attr}"
                ) from None
        current = current.parent_op()
    return isa.get_target(isa.DEFAULT_TARGET)


def static_value(value: SSAValue | None) -> int | None:
    """The integer defined by an `arith.constant` with an IntegerAttr, else None (runtime value)."""
    if value is None:
        return None
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _static_in_range(
    op: Operation, field: str, value: SSAValue | None, bounds: tuple[int, int]
) -> int | None:
    """The static value of `field`, after checking it is positive (G3) and in range (G4)."""
    v = static_value(value)
    if v is None:
        return None
    lo, hi = bounds
    if lo >= 1 and v <= 0:
        raise _error(op, f"requires {field} to be positive, got {v}")
    if not lo <= v <= hi:
        raise _error(op, f"requires {field} in [{lo}, {hi}], got {v}")
    return v


def _check_space_exists(op: Operation, space: str, target: Target) -> None:
    if not target.has_space(space):
        raise _error(op, f"{space} buffer is not supported on target {target.name}")


def _check_layout(op: Operation, role: str, tile: TileType, target: Target) -> None:
    """The tile's space exists on the target and its layout is legal there (L0A zz/nz, ...)."""
    space = tile.space_name
    _check_space_exists(op, space, target)
    legal = legal_layouts(space, target)
    if tile.layout_name not in legal:
        raise _error(
            op,
            f"requires {role} layout in {_fmt_set(legal)} for {space} on target {target.name}, "
            f"got {tile.layout_name}",
        )
    if space == "l0a" and tile.layout_name == "nd" and tile.matrix_shape[0] != 1:
        raise _error(
            op,
            f"requires {role} nd layout in l0a only for a 1-row GEMV vector, "
            f"got {_fmt_shape(tile.logical_shape)}",
        )


def _tile_in(op: Operation, role: str, value: SSAValue, spaces: Sequence[str]) -> TileType:
    """The tile type of `value`, checked to live in one of `spaces` (G1)."""
    t = value.type
    if not isinstance(t, TileType):
        raise _error(op, f"requires {role} to be a !pto.tile in {'/'.join(spaces)}, got {t}")
    if t.space_name not in spaces:
        raise _error(op, f"requires {role} in {'/'.join(spaces)}, got {t.space_name}")
    return t


def _gm_memref(op: Operation, role: str, value: SSAValue) -> MemRefType:
    """The memref type of a GM operand (a memref without memory space) (G1). Every caller's
    operand is already a memref (its operand_def, or an isinstance test of a memref|tile one)."""
    t = value.type
    assert isinstance(t, MemRefType), f"{role} is constrained to a memref"
    if not isinstance(t.memory_space, NoneAttr):
        raise _error(op, f"requires {role} in gm (a memref without memory space), got {t.memory_space}")
    return t


def _memref_element(op: Operation, role: str, t: MemRefType) -> str:
    elem = element_name_or_none(t.element_type)
    if elem is None:
        raise _error(op, f"requires {role} element type with an isa name, got {t.element_type}")
    return elem


def _check_widths(op: Operation, src: str, dst: str) -> None:
    """G7: moves copy bytes, so both sides need the same element width."""
    sb, db = isa.element_bits(src), isa.element_bits(dst)
    if sb != db:
        raise _error(
            op,
            "requires source and destination element byte widths to match, "
            f"got {src} ({sb} bits) and {dst} ({db} bits)",
        )


def _check_covers(
    op: Operation, role: str, tile: TileType, need: tuple[int | None, int | None], names: str
) -> None:
    """M4: the tile's logical (rows, cols) hold the static extents `need` (None = runtime)."""
    have = tile.matrix_shape
    if any(n is not None and n > h for n, h in zip(need, have, strict=True)):
        shown = "x".join("?" if n is None else str(n) for n in need)
        raise _error(
            op, f"requires {role} tile of at least {shown} ({names}), got {_fmt_shape(have)}"
        )


def _memref_dims(t: MemRefType) -> tuple[int | None, ...]:
    return tuple(None if d < 0 else d for d in t.get_shape())


def _check_memref_covers(
    op: Operation, role: str, t: MemRefType, need: tuple[int | None, int | None], names: str
) -> None:
    """A 2-D GM memref holds `need` rows x cols, and its row pitch is at least `need` cols."""
    if t.get_num_dims() != 2:
        raise _error(op, f"requires {role} memref of rank 2, got rank {t.get_num_dims()}")
    rows, cols = _memref_dims(t)
    strides = t.get_strides()
    pitch = strides[0] if strides is not None else None
    if pitch is not None and pitch < 0:  # derived from a dynamic extent
        pitch = None
    if need[0] is not None and rows is not None and need[0] > rows:
        raise _error(op, f"requires {role} of at least {need[0]} rows ({names}), got {rows}")
    if need[1] is not None and cols is not None and need[1] > cols:
        raise _error(op, f"requires {role} of at least {need[1]} columns ({names}), got {cols}")
    if need[1] is not None and pitch is not None and pitch < need[1]:
        raise _error(op, f"requires {role} row pitch >= {need[1]} ({names}), got {pitch}")


def _check_atomic(op: Operation, target: Target, src_space: str, dst_space: str,
                  dst_elem: str) -> None:
    """A store's `atomic` mode (`isa.GM_ATOMIC_OPS`): a GM destination, a source buffer the
    target's atomic stores read from, and an element type the mode updates on the target."""
    attr = op.properties.get("atomic")
    if attr is None:
        return
    mode = attr.data  # type: ignore[attr-defined]
    if mode not in isa.GM_ATOMIC_OPS:
        raise _error(op, f"requires atomic in {_fmt_set(isa.GM_ATOMIC_OPS)}, got {mode}")
    if dst_space != "gm":
        raise _error(op, f"requires a gm dst for atomic {mode} (atomic stores update GM), got "
                         f"{dst_space}")
    if src_space not in target.gm_atomic_sources:
        raise _error(op, f"atomic {mode} from {src_space} to gm is not supported on target "
                         f"{target.name} (atomic stores from "
                         f"{_fmt_set(target.gm_atomic_sources)})")
    legal = target.gm_atomic_types(mode)
    if dst_elem not in legal:
        raise _error(op, f"requires dst element type in {_fmt_set(legal)} for atomic {mode} on "
                         f"target {target.name}, got {dst_elem}")


def atomic_kind(op: Operation) -> str:
    """What a store in atomic mode does to GM, `"add f32"` (mode and the GM element type), or
    "" for a plain store: two atomic accesses of one kind to the same bytes do not race."""
    attr = op.properties.get("atomic")
    if attr is None:
        return ""
    dst = op.dst  # type: ignore[attr-defined]  (pto.fixpipe, pto.fixpipe_copy)
    elem = element_name_or_none(dst.type.element_type) if isinstance(dst.type, MemRefType) else None
    return f"{attr.data} {elem}"  # type: ignore[attr-defined]


def check_bias_load_types(op: Operation, role: str, src: str, dst: str, target: Target) -> None:
    """An L1 -> BT load keeps the element type or converts as the target's bias load does."""
    if src == dst or (src, dst) in target.bias_load_conversions:
        return
    legal = sorted({f"{dst}"} | {a for a, b in target.bias_load_conversions if b == dst})
    raise _error(op, f"requires {role} element type in {_fmt_set(set(legal))} for a {dst} bias "
                     f"(the same type, or a conversion of the bias load on target "
                     f"{target.name}), got {src}")
