"""Instruction-descriptor test vectors (PTX Tables 42-44), shared by the isa and dialect tests."""

from mmair.isa.tcgen05.idesc import InstrDesc

# Computed from PTX Tables 42-44 and matched to CUTLASS bit for bit).
IDESC_VECTORS: list[tuple[InstrDesc, int]] = [
    (InstrDesc("f16", 128, 256, "f16", "f16", "f32"), 0x08400010),
    (InstrDesc("f16", 64, 8, "bf16", "bf16", "f32", transpose_a=True), 0x04028490),
    (InstrDesc("tf32", 128, 128, "tf32", "tf32", "f32"), 0x08200910),
    (InstrDesc("f8f6f4", 128, 64, "e4m3", "e5m2", "f32"), 0x08100410),
    (InstrDesc("f8f6f4", 64, 8, "e2m1", "e3m2", "f32"), 0x04021290),
    (InstrDesc("i8", 128, 256, "s8", "u8", "s32", saturate=True), 0x084000A8),
    (InstrDesc("f16", 64, 16, "f16", "f16", "f16", negate_a=True, transpose_b=True), 0x04052000),
    (InstrDesc("f16", 128, 128, "bf16", "bf16", "f32", sparse=True, sparsity_selector=2), 0x08200496),
    (InstrDesc("f16", 32, 64, "f16", "f16", "f32", max_shift=32), 0xC2100010),
    (InstrDesc("f16", 256, 256, "f16", "f16", "f32"), 0x10400010),
    (InstrDesc("mxf8f6f4", 128, 256, "e2m1", "e4m3", scale_type="ue8m0", sfa_id=1, sfb_id=2),
     0x28C002A0),
    (InstrDesc("mxf8f6f4", 256, 128, "e4m3", "e4m3", scale_type="ue8m0"), 0x10A00000),
    (InstrDesc("mxf4nvf4", 256, 128, "e2m1", "e2m1", scale_type="ue4m3", k=64), 0x10200480),
    (InstrDesc("mxf4", 128, 64, "e2m1", "e2m1", scale_type="ue8m0", sfa_id=2, sfb_id=2, k=96),
     0xC89004A0),
]

# Every row passes the rules except the last: K = 96 needs M = 256 and cta_group::2 (R16).
VALID_IDESC_VECTORS = IDESC_VECTORS[:-1]
