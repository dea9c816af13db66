"""The raw Mmad: L0A x L0B (+ BT bias) -> L0C with MmadParams field by field.

m, n, k, `cmatrixInitVal`, `cmatrixSource`, `isBias`, `unitFlag` and the explicit GEMV switch
(`disable_gemv`) as Ascend C passes them; the verifier applies the target's type table and the
Mmad GEMV rule from `isa/ascend`. Two CTRL-register modes ride on the op (`isa.ascend.mad_modes`):
`tf32_mode` (f32 inputs rounded to TF32) and `sat` = "sat" / "nosat" (float saturation).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import IndexType, IntegerAttr, StringAttr, UnitAttr, i64
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
)

from mmair.dialects.pto._verify import (
    Value,
    _error,
    _fmt_set,
    _tile_in,
    target_of,
)
from mmair.dialects.pto.raw_fields import PARAM_TRAITS, check_fields
from mmair.dialects.pto.types import TileType
from mmair.isa.ascend import mad_modes
from mmair.isa.ascend import params as isa_params


@irdl_op_definition
class MmadOp(IRDLOperation):
    """Mmad(dst, fm, filter[, bias], MmadParams). L0A is read as Zz (Nz on a5) with
    ceil(m/16) x ceil(k/K0) fractals, or as an nd vector when the GEMV rule applies (m = 1 and no
    `disable_gemv`); L0B as Zn (ceil(k/K0) x ceil(n/16)); L0C written as Nz (ceil(m/16) rows of
    fractals). `cmatrix_init_val` (default true): C = A x B; false: C += A x B from L0C
    (`cmatrix_source` false) or C = A x B + bias from BT (`cmatrix_source` true, with the bias
    operand). `unit_flag` (0, 2, 3) is the Mmad/Fixpipe fine-grained handshake (ordering only);
    `k_direction_align` pads an f32 K to 16 (a2/a3)."""

    name = "pto.mmad"
    MEMO_VERIFY: ClassVar[bool] = True

    lhs = operand_def(TileType)
    rhs = operand_def(TileType)
    dst = operand_def(TileType)
    bias = opt_operand_def(TileType)
    m = operand_def(IndexType)
    n = operand_def(IndexType)
    k = operand_def(IndexType)
    unit_flag = opt_prop_def(IntegerAttr)
    cmatrix_init_val = opt_prop_def(IntegerAttr)  # bool; absent = true (the struct default)
    cmatrix_source = opt_prop_def(UnitAttr)
    k_direction_align = opt_prop_def(UnitAttr)
    disable_gemv = opt_prop_def(UnitAttr)
    sat = opt_prop_def(StringAttr)  # "sat" / "nosat"; absent: IEEE propagation (as nosat)
    tf32_mode = opt_prop_def(StringAttr)  # "round_even" / "round_away"

    traits = PARAM_TRAITS
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$lhs `,` $rhs `,` $dst (`bias` $bias^ `:` type($bias))? `,` $m `,` $n `,` $k attr-dict "
        "`:` type($lhs) `,` type($rhs) `,` type($dst)"
    )

    def __init__(self, lhs: Value, rhs: Value, dst: Value, m: Value, n: Value, k: Value, *,
                 bias: Value | None = None, init_zero: bool = True, unit_flag: int = 0,
                 k_direction_align: bool = False, disable_gemv: bool = False,
                 sat: str | None = None, tf32_mode: str | None = None) -> None:
        super().__init__(
            operands=[lhs, rhs, dst, [] if bias is None else [bias], m, n, k],
            properties={
                "unit_flag": IntegerAttr(unit_flag, i64) if unit_flag else None,
                "cmatrix_init_val": None if init_zero or bias is not None
                else IntegerAttr(0, 1),
                "cmatrix_source": UnitAttr() if bias is not None else None,
                "k_direction_align": UnitAttr() if k_direction_align else None,
                "disable_gemv": UnitAttr() if disable_gemv else None,
                "sat": None if sat is None else StringAttr(sat),
                "tf32_mode": None if tf32_mode is None else StringAttr(tf32_mode),
            },
        )

    @property
    def init_zero(self) -> bool:
        return self.cmatrix_init_val is None or bool(self.cmatrix_init_val.value.data)

    def verify_(self) -> None:
        target = target_of(self)
        lhs = _tile_in(self, "lhs", self.lhs, ("l0a",))
        rhs = _tile_in(self, "rhs", self.rhs, ("l0b",))
        dst = _tile_in(self, "dst", self.dst, ("l0c",))
        combo = (lhs.element_name, rhs.element_name, dst.element_name)
        if combo not in target.mmad_types:
            raise _error(self, f"unsupported element type combination ({combo[0]}, {combo[1]}) "
                               f"-> {combo[2]} on target {target.name}")
        check_fields(self, dict(isa_params.MMAD_FIELDS))
        if self.unit_flag is not None:
            uf = self.unit_flag.value.data
            if uf not in isa_params.MMAD_UNIT_FLAG_VALUES:
                raise _error(self, f"requires unit_flag in {_fmt_set(isa_params.MMAD_UNIT_FLAG_VALUES)}"
                                   f", got {uf}")
            if uf and not target.unit_flag:
                raise _error(self, f"unit_flag is not supported on target {target.name}")
        if (self.cmatrix_source is not None) != (self.bias is not None):
            raise _error(self, "requires a bias operand in bt exactly when cmatrix_source is set")
        if self.bias is not None:
            if not target.mmad_bias:
                raise _error(self, f"cmatrix_source (bias) is not supported on target {target.name}")
            bias = _tile_in(self, "bias", self.bias, ("bt",))
            if bias.element_name != dst.element_name:
                raise _error(self, f"requires bias element type {dst.element_name}, got "
                                   f"{bias.element_name}")
            if self.cmatrix_init_val is not None and not self.init_zero:
                raise _error(self, "cmatrix_init_val = false takes C from L0C, not from the bias")
        if self.k_direction_align is not None:
            if not target.k_direction_align:
                raise _error(self, f"k_direction_align is not supported on target {target.name}")
            if lhs.element_name != "f32":
                raise _error(self, f"k_direction_align requires f32 operands, got {lhs.element_name}")
        if self.disable_gemv is not None and not target.gemv_disable:
            raise _error(self, f"disable_gemv is not supported on target {target.name}")
        self._verify_modes(combo)

    def _verify_modes(self, combo: tuple[str, str, str]) -> None:
        if self.tf32_mode is not None:
            mode = self.tf32_mode.data
            if mode not in mad_modes.TF32_MODES:
                raise _error(self, f"requires tf32_mode in {_fmt_set(mad_modes.TF32_MODES)}, got "
                                   f"{mode}")
            if combo != mad_modes.TF32_ELEMENTS:
                raise _error(self, f"tf32_mode requires f32 x f32 -> f32, got ({combo[0]}, "
                                   f"{combo[1]}) -> {combo[2]}")
        if self.sat is not None:
            mode = self.sat.data
            if mode not in mad_modes.SAT_MODES:
                raise _error(self, f"requires sat in {_fmt_set(mad_modes.SAT_MODES)}, got {mode}")
            from mmair.isa.dtypes import FLOAT_ELEMENTS  # loads numpy: only for a sat clause

            if not all(e in FLOAT_ELEMENTS or e == "hif8" for e in combo):
                raise _error(self, f"sat requires a float element type combination, got "
                                   f"({combo[0]}, {combo[1]}) -> {combo[2]}")

