"""Valid `tcgen05.mma` shapes (PTX ISA 9.2 §9.7.16.2.1, Table 39).

M and N come from the instruction descriptor; K is implied by the kind and sparsity (a dense MMA
consumes 32 bytes of K per row), except that mxf4/mxf4nvf4 choose K = 64 or 96 with idesc bit 31.
The legal M and N depend on the kind, on `.cta_group::1/2`, on `.ws` and on `.sp`.
mmair follows PTX where CUTLASS is stricter: kind::i8 with cta_group::1 allows N = 24.
"""

from __future__ import annotations

from mmair.isa.tcgen05.errors import DescriptorError
from mmair.isa.tcgen05.idesc import BLOCK_SCALED_KINDS, MXF4_KINDS, check_kind

_STEP8 = tuple(range(8, 257, 8))
_STEP16 = tuple(range(16, 257, 16))
_I8_CTA1 = (8, 16, 24, 32, *range(48, 257, 16))
_I8_CTA2 = tuple(range(32, 257, 32))
_WS_DENSE_N = (64, 128, 256)
_WS_SPARSE_N = (64, 128)

#: Dense K (elements) of each kind; a sparse MMA has twice this K.
DENSE_K: dict[str, int] = {
    "tf32": 8, "f16": 16, "f8f6f4": 32, "i8": 32, "mxf8f6f4": 32, "mxf4": 64, "mxf4nvf4": 64,
}


def _check_cta_group(cta_group: object) -> int:
    if cta_group not in (1, 2):
        raise DescriptorError("cta_group", cta_group, "1, 2", None, "is not a CTA group size")
    return cta_group  # type: ignore[return-value]


def valid_m(kind: str, cta_group: int, ws: bool, sparse: bool) -> tuple[int, ...]:
    """The M values of a kind::`kind` MMA (empty when the form itself does not exist)."""
    check_kind(kind)
    _check_cta_group(cta_group)
    if ws:
        return (32, 64, 128) if cta_group == 1 and kind not in BLOCK_SCALED_KINDS else ()
    if kind in BLOCK_SCALED_KINDS:
        if cta_group == 1:
            return (128,)
        return (256,) if sparse else (128, 256)
    return (64, 128) if cta_group == 1 else (128, 256)


def valid_n(kind: str, cta_group: int, ws: bool, sparse: bool) -> tuple[int, ...]:
    """The N values of a kind::`kind` MMA (empty when the form itself does not exist)."""
    check_kind(kind)
    _check_cta_group(cta_group)
    if ws:
        if cta_group != 1 or kind in BLOCK_SCALED_KINDS:
            return ()
        return _WS_SPARSE_N if sparse else _WS_DENSE_N
    if kind == "i8":
        return _I8_CTA1 if cta_group == 1 else _I8_CTA2
    return _STEP8 if cta_group == 1 else _STEP16


def n_legal_text(values: tuple[int, ...]) -> str:
    """A short description of a set of N values for error messages."""
    if not values:
        return "none (this MMA form does not exist)"
    if values == _STEP8:
        return "8..256 step 8"
    if values == _STEP16:
        return "16..256 step 16"
    if values == _I8_CTA1:
        return "8, 16, 24, 32, 48..256 step 16"
    if values == _I8_CTA2:
        return "32..256 step 32"
    return ", ".join(map(str, values))


def transposed_8bit_b_n(cta_group: int) -> tuple[int, ...]:
    """Table 50: N of an MMA whose 8-bit B is N-major (transposed)."""
    return _STEP16 if _check_cta_group(cta_group) == 1 else _I8_CTA2


def mma_k(kind: str, sparse: bool, k96: bool = False) -> int:
    """K of one MMA: the kind's dense K, doubled when sparse; 96 for dense mxf4* with bit 31."""
    check_kind(kind)
    if k96:
        if kind not in MXF4_KINDS:
            raise DescriptorError("k", 96, "64 (kind::mxf4, mxf4nvf4 only)", "R16",
                                  f"is not selectable for kind::{kind}")
        if sparse:
            raise DescriptorError("k", 96, "64 (sparse K = 128)", "R16",
                                  "is only available for a dense MMA")
        return 96
    return DENSE_K[kind] * (2 if sparse else 1)
