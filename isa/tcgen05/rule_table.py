"""The tcgen05 validity rules R1-R33 as data: what each checks, its public source, where mmair
checks it. `docs/tcgen05-rules.md` is generated from this table (`docs/generate_docs.py`), and a
test keeps the table, the rule ids raised by `mmair.isa.tcgen05` and the page in step.

Sources: the PTX ISA (NVIDIA, "Parallel Thread Execution ISA", chapter 9.7.16 "TensorCore 5th
Generation Family Instructions"; "T42" is its Table 42, "9.7.16.10.8.4" a section), CUTLASS
(`cute/atom/mma_traits_sm100.hpp`, `cute/arch/mma_sm100_desc.hpp`), the MLIR NVVM dialect
(`mlir/lib/Dialect/LLVMIR/IR/NVVMDialect.cpp`), ptxas 13.0 (accepted / rejected syntax), Triton
(`TCGen5MMAOp::verify`), Mosaic GPU (JAX). Where sources disagree mmair follows PTX, and says so.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    id: str
    group: str
    checks: str
    source: str
    enforced_by: str
    """The function (or decoder) of `mmair.isa.tcgen05` that raises `DescriptorError` with this
    id, or "not modelled"."""


IDESC_DENSE = "Instruction descriptor, dense kinds (tf32, f16, f8f6f4, i8)"
IDESC_SCALED = "Instruction descriptor, block-scaled kinds (mxf8f6f4, mxf4, mxf4nvf4)"
SMEM = "Shared-memory matrix descriptor"
ZCMASK = "Zero-column mask descriptor"
INSTR = "Instruction level"

RULES: tuple[Rule, ...] = (
    Rule("R1", IDESC_DENSE, "Bits 6, 23 and 29 are 0 (Triton uses bit 29 for a newer architecture's "
         "K size; mmair rejects it)", "PTX T42", "decode_idesc"),
    Rule("R2", IDESC_DENSE, "dtype: tf32 -> f32; f16 -> f16 or f32; f8f6f4 -> f32 (the seed "
         "tables decide: a newer PTX revision's Table 45 also allows f16, not accepted by "
         "default); i8 -> s32 (the block-scaled kinds have no dtype field: f32)",
         "PTX T42", "check_idesc"),
    Rule("R3", IDESC_DENSE, "atype/btype from the kind's code set; kind f16 with D = f16 needs "
         "A = B = f16, bf16 needs D = f32, f16 x bf16 is rejected; f8f6f4 any pair of "
         "e4m3/e5m2/e2m3/e3m2/e2m1; i8 each of u8/s8; tf32 both tf32",
         "PTX T39, T42; Mosaic GPU (equal A/B types)", "check_idesc"),
    Rule("R4", IDESC_DENSE, "saturate = 1 only for i8", "PTX T42", "check_idesc"),
    Rule("R5", IDESC_DENSE, "i8: the negate bits are 0", "PTX T42, T49", "check_idesc"),
    Rule("R6", IDESC_DENSE, "Sparsity selector 0 when dense; also 0 for sparse i8 and f8f6f4",
         "PTX 9.7.16.10.8.4", "check_idesc"),
    Rule("R7", IDESC_DENSE, "(M, N) valid for the kind, cta_group, .ws and sparsity; K follows "
         "from the kind", "PTX T39", "check_idesc"),
    Rule("R8", IDESC_DENSE, "8-bit types with a transposed B: N as the transposed-B table allows",
         "PTX T50", "check_idesc"),
    Rule("R9", IDESC_DENSE, "Transpose bits only where the kind allows them; A in tensor memory "
         "implies transpose A = 0", "PTX T49; CUTLASS", "check_idesc"),
    Rule("R10", IDESC_DENSE, "max_shift (bits 30-31) non-zero only with .ws (PTX defines the field "
         "only for .ws)", "PTX T42 (mmair rule)", "check_idesc"),
    Rule("R11", IDESC_SCALED, "Reserved bits are 0: mxf8f6f4 bits 0-1, 3, 6, 24-26, 31; mxf4* "
         "bits 0-1, 3, 6, 12, 24-26 (Triton's uses of bit 31 / bit 3 are rejected)",
         "PTX T43, T44", "decode_idesc"),
    Rule("R12", IDESC_SCALED, "M in {128, 256} and valid for cta_group and sparsity", "PTX T39",
         "check_idesc"),
    Rule("R13", IDESC_SCALED, "Scale-factor ids: mxf8f6f4 0-3; mxf4/mxf4nvf4 0 or 2; with "
         ".scale_vec::4X or .block16 only 0", "PTX T43, T44, 9.7.16.10.7", "check_idesc"),
    Rule("R14", IDESC_SCALED, "Scale type: mxf8f6f4 and mxf4 UE8M0; mxf4nvf4 UE8M0 or UE4M3, UE4M3 "
         "only with 4X/block16", "PTX T44, T55", "check_idesc"),
    Rule("R15", IDESC_SCALED, "mxf4*: atype = btype = e2m1 and no transposes; mxf8f6f4 types as "
         "R3's f8f6f4 set", "PTX T44", "check_idesc"),
    Rule("R16", IDESC_SCALED, "K = 96 (bit 31) only dense, cta_group::2, M = 256, on sm_103a",
         "PTX T39 and its note", "check_idesc"),
    Rule("R17", SMEM, "Bits 14-15 and 30-31 are 0, bits 46-48 are 0b001, bits 53-60 are 0 "
         "(Triton's bit 53 is rejected)", "PTX T40", "decode_smem_desc"),
    Rule("R18", SMEM, "Swizzle code not 3, 5 or 7", "PTX T40", "decode_smem_desc"),
    Rule("R19", SMEM, "Start address, LBO and SBO in bytes are 16-byte aligned and < 2^18",
         "PTX T40", "check_smem_desc"),
    Rule("R20", SMEM, "LBO mode 1 (absolute) needs swizzle code 2, a K-major operand (its idesc "
         "transpose bit 0), base offset 0 and target sm_103a", "PTX 9.7.16.3.1.2",
         "check_smem_desc"),
    Rule("R21", SMEM, "With a static start address: base offset 0 on the swizzle repeat boundary, "
         "else (addr >> 7) & 7; no swizzle means base offset 0", "PTX T41", "check_smem_desc"),
    Rule("R22", SMEM, "Swizzle code 1 (128B with 32B atoms) exactly for an MN-major tf32 operand; "
         "K-major with it is rejected", "PTX T52, T53; CUTLASS (static_assert on K-major)",
         "check_smem_desc"),
    Rule("R23", ZCMASK, "Only on tcgen05.mma.ws{.sp}, cta_group::1", "PTX (syntax)", "check_zcmask"),
    Rule("R24", ZCMASK, "Bits 36-38 and 62-63 are 0", "PTX T45", "decode_zcmask"),
    Rule("R25", ZCMASK, "Column shift <= 16 when M = 32, <= 32 otherwise", "PTX T45",
         "check_zcmask"),
    Rule("R26", INSTR, "disable-output-lane: 4 x b32 for cta_group::1, 8 x b32 for cta_group::2; "
         "not with .ws", "PTX; MLIR NVVM; ptxas", "check_disable_output_lane"),
    Rule("R27", INSTR, "scale-input-d in [0, 15], only kind::f16 and kind::tf32 (ptxas also accepts "
         "i8; mmair follows PTX)", "PTX", "check_scale_input_d"),
    Rule("R28", INSTR, ".ashift needs A in tensor memory, M in {128, 256}, collector::a not fill/use",
         "PTX; MLIR NVVM; ptxas", "check_ashift"),
    Rule("R29", INSTR, ".ws needs cta_group::1, kind f16/tf32/f8f6f4/i8, collector b0..b3 only, no "
         "disable-output-lane, no scale-input-d; without .ws only collector::a",
         "PTX; ptxas", "check_ws"),
    Rule("R30", INSTR, "Block-scale vector size: mxf8f6f4 1X/block32; mxf4 2X/block32; mxf4nvf4 an "
         "explicit 2X/block32 or 4X/block16; block16 only for mxf4nvf4",
         "PTX; MLIR NVVM; ptxas", "check_block_scale"),
    Rule("R31", INSTR, "One cta_group value in all tcgen05 instructions of a kernel",
         "PTX; ptxas", "check_cta_groups"),
    Rule("R32", INSTR, "Target features: kind::i8 only on sm_100a/sm_110a (alias sm_101a); "
         ".scale_vec::NX and sparse mxf4/mxf4nvf4 only on a targets; no scale-input-d on sm_110a/f; "
         "tcgen05.shift only on a targets",
         "PTX; ptxas 13.5", "mma_form_errors"),
    Rule("R33", INSTR, "tcgen05.ld/st: the .num x shape table (registers per thread <= 128) and "
         "the lanes inside the warp's quarter 32w..32w+31",
         "PTX; MLIR NVVM; ptxas 13.5", "check_ld_st"),
)


def rule(rule_id: str) -> Rule:
    for r in RULES:
        if r.id == rule_id:
            return r
    raise KeyError(rule_id)
