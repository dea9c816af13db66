"""Element and scale-factor type names used by the Blackwell tcgen05 MMA.

The names are the mmair isa names of docs/design.md. The NVIDIA *codes* for these types differ per
instruction-descriptor layout (E2M1 is 5 under kind::f8f6f4 but 1 under kind::mxf4), so the code
tables live with the layouts in `idesc.py`; this module only lists the names and their bit widths.
"""

from __future__ import annotations

#: A/B/D element types that appear in some tcgen05 instruction descriptor.
TYPE_NAMES: tuple[str, ...] = (
    "f16", "bf16", "tf32", "f32", "s32", "e4m3", "e5m2", "e2m3", "e3m2", "e2m1", "u8", "s8",
)

#: Block-scale factor types (bit 23 of the block-scaled layouts).
SCALE_TYPES: tuple[str, ...] = ("ue8m0", "ue4m3")

#: Bits of one element as the math sees it (tf32 is stored in a 32-bit container).
TYPE_BITS: dict[str, int] = {
    "f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "s32": 32,
    "e4m3": 8, "e5m2": 8, "e2m3": 6, "e3m2": 6, "e2m1": 4, "u8": 8, "s8": 8,
    "ue8m0": 8, "ue4m3": 8,
}

#: Types that are 8 bits wide in shared memory; Table 50's N rule for an N-major B applies to them.
EIGHT_BIT_TYPES: frozenset[str] = frozenset({"e4m3", "e5m2", "u8", "s8"})
