"""The tile plan of a `tcgen05.matmul` lowering: kind, CTA tile, K block, TMA boxes, SMEM ring.

`tcgen05.matmul` (D[M, N] = A[M, K] x B[K, N] on global memrefs) is lowered by
`passes/tcgen05_lower_matmul.py` into the kernel CUTLASS writes for one CTA (docs/tcgen05-tma.md,
"The tcgen05.matmul lowering"). Every number of that kernel is decided here, from the hardware
facts of the other `isa.tcgen05` modules:

* the MMA kind of the operand types (`KIND_OF_TYPE`): f16/bf16 -> kind::f16, f32 -> kind::tf32
  (f32 data read as tf32, the low 13 mantissa bits ignored), e4m3/e5m2 -> kind::f8f6f4; D is f32;
* the CTA tile: M = 128 (`cta_group::1`, every dense kind), N the smallest legal MMA N that covers
  the columns of one of ceil(N / 256) column tiles (a multiple of the 128-byte swizzle atom when B
  is MN-major);
* the K block: one 128-byte swizzle row of K (`sw128` everywhere), i.e. 4 MMAs of the kind's K;
* the operands' SMEM images: a K-major operand (A as given, B given transposed) is one TMA box
  [K block, rows] = rows of 128 bytes, descriptor SBO = 1024 (8 rows); an MN-major operand (A
  given transposed, B as given) is rows / atom boxes [atom, K block] of one 128-byte atom of the
  M/N dimension each, LBO = the box bytes (the step between atoms), SBO = 1024 (8 K rows);
* the ring: as many stages (A tile + B tile) as fit in the CTA's SMEM next to the mbarriers,
  at most one per K block of the whole kernel;
* the accumulator: TMEM columns for one tile (a power of two >= 32), two buffers when both fit.

Remainder tiles need nothing here: TMA fills box elements outside the tensor with zeros (the
loads stay full boxes, the transaction count stays the box bytes), and the epilogue stores only
the rows and columns inside D. Global row strides must be multiples of 16 bytes (TMA5), so K (or
M/N of a transposed operand) must fill whole 16-byte units: `check_plan` reports the operand.
Block-scaled kinds, sub-byte f8f6f4 types (packed TMA formats), f16 D and `cta_group::2` are
not planned (`UNSUPPORTED`).
"""

from __future__ import annotations

from dataclasses import dataclass

from mmair.isa.tcgen05 import layouts, shapes
from mmair.isa.tcgen05.errors import DescriptorError
from mmair.isa.tcgen05.idesc import InstrDesc
from mmair.isa.tcgen05.rules import check_idesc, check_smem_desc
from mmair.isa.tcgen05.smem import SmemDesc
from mmair.isa.tcgen05.tma import TensorMap, check_tensor_map
from mmair.isa.tcgen05.tmem_moves import LD_ST_NUMS

#: Operand element type -> (MMA kind, the type name in the instruction descriptor).
KIND_OF_TYPE: dict[str, tuple[str, str]] = {
    "f16": ("f16", "f16"), "bf16": ("f16", "bf16"), "f32": ("tf32", "tf32"),
    "e4m3": ("f8f6f4", "e4m3"), "e5m2": ("f8f6f4", "e5m2"),
}
#: The tensor-map dtype TMA copies each operand type with (8-bit floats move as bytes).
TMA_DTYPE: dict[str, str] = {"f16": "f16", "bf16": "bf16", "f32": "f32", "e4m3": "u8",
                             "e5m2": "u8"}
#: D (accumulator and output) element types.
D_TYPES: tuple[str, ...] = ("f32",)
#: What the lowering does not plan (the op verifier names it when asked for).
UNSUPPORTED = ("block-scaled kinds (mxf8f6f4, mxf4, mxf4nvf4: scale factors in TMEM), sub-byte "
               "f8f6f4 types (e2m1, e2m3, e3m2: packed TMA formats), f16 D, cta_group::2")

TILE_M = 128
MAX_TILE_N = 256
SWIZZLE = "sw128"
SWIZZLE_ROW_BYTES = 128  # one row of the 128B swizzle pattern
SWIZZLE_ATOM_BYTES = 1024  # 8 rows of it: the SBO of every operand image
BARRIER_BYTES = 8  # one mbarrier (i64)
#: SMEM kept for the mbarriers after the ring (full/empty per stage, two accumulator barriers).
BARRIER_RESERVE = 1024
#: tcgen05.ld 32x32b: one column per .num repetition, .x1 .. .x128.
MAX_LD_COLUMNS = max(LD_ST_NUMS)


@dataclass(frozen=True)
class OperandPlan:
    """How one operand tile (rows = the M or N extent of the CTA tile) reaches SMEM."""

    role: str  # "a" or "b"
    major: str  # "k" or "mn"
    rows: int  # the tile's M (A) or N (B) extent
    block_k: int
    element_bits: int
    tensor_map: TensorMap
    boxes: int  # copies per stage (MN-major: one per 128-byte atom of rows)

    @property
    def swizzle(self) -> str:
        return self.tensor_map.swizzle

    @property
    def tile_bytes(self) -> int:
        return self.rows * self.block_k * self.element_bits // 8

    @property
    def box_bytes(self) -> int:
        return self.tensor_map.box_bytes

    @property
    def atom(self) -> int:
        """Elements of one 128-byte swizzle row."""
        return SWIZZLE_ROW_BYTES * 8 // self.element_bits

    @property
    def lbo(self) -> int:
        return 16 if self.major == "k" else self.box_bytes

    @property
    def sbo(self) -> int:
        """8 rows of 128 bytes; 4 K rows with 32-byte atomicity (`layouts.SWIZZLE_ATOM_K_ROWS`)."""
        rows = layouts.SWIZZLE_ATOM_K_ROWS.get(self.swizzle, 8) if self.major == "mn" else 8
        return rows * SWIZZLE_ROW_BYTES

    def smem_desc(self, start: int) -> SmemDesc:
        return SmemDesc(start=start, lbo=self.lbo, sbo=self.sbo, swizzle=self.swizzle)

    def k_step_bytes(self, mma_k: int) -> int:
        """Bytes the descriptor's start advances per MMA along K inside one stage."""
        if self.major == "k":
            return mma_k * self.element_bits // 8
        return mma_k * SWIZZLE_ROW_BYTES

    def box_offset(self, box: int) -> int:
        """Byte offset of copy `box` inside the stage's tile."""
        return box * self.box_bytes

    def box_rows(self, box: int) -> int:
        """The first M/N row copy `box` holds, relative to the tile's first row. Its
        coordinates (innermost first) are (K start, row) K-major, (row, K start) MN-major."""
        return box * self.atom if self.major == "mn" else 0


@dataclass(frozen=True)
class MatmulPlan:
    m: int
    n: int
    k: int
    kind: str
    atype: str  # idesc type names
    btype: str
    dtype: str
    tile_m: int
    tile_n: int
    block_k: int
    mma_k: int
    a: OperandPlan
    b: OperandPlan
    stages: int
    acc_columns: int
    acc_buffers: int

    @property
    def tiles_m(self) -> int:
        return -(-self.m // self.tile_m)

    @property
    def tiles_n(self) -> int:
        return -(-self.n // self.tile_n)

    @property
    def tiles(self) -> int:
        return self.tiles_m * self.tiles_n

    @property
    def k_blocks(self) -> int:
        return -(-self.k // self.block_k)

    @property
    def mmas_per_block(self) -> int:
        return self.block_k // self.mma_k

    @property
    def stage_bytes(self) -> int:
        return self.a.tile_bytes + self.b.tile_bytes

    @property
    def a_offset(self) -> int:
        return 0

    @property
    def b_offset(self) -> int:
        return self.stages * self.a.tile_bytes

    @property
    def barrier_offset(self) -> int:
        return self.stages * self.stage_bytes

    @property
    def tx_bytes(self) -> int:
        """expect_tx of one stage: every box of A and B."""
        return self.a.boxes * self.a.box_bytes + self.b.boxes * self.b.box_bytes

    @property
    def smem_bytes(self) -> int:
        return self.barrier_offset + (2 * self.stages + 2) * BARRIER_BYTES

    def idesc(self) -> InstrDesc:
        return InstrDesc(kind=self.kind, m=self.tile_m, n=self.tile_n, atype=self.atype,
                         btype=self.btype, dtype=self.dtype, transpose_a=self.a.major == "mn",
                         transpose_b=self.b.major == "mn")

    def epilogue_columns(self, columns: int) -> list[tuple[int, int]]:
        """(first column, count) of the tcgen05.ld loads covering `columns` columns of a tile:
        powers of two (the .num values) up to MAX_LD_COLUMNS, largest first."""
        out, start = [], 0
        while start < columns:
            count = min(MAX_LD_COLUMNS, 1 << ((columns - start).bit_length() - 1))
            out.append((start, count))
            start += count
        return out


def _operand(role: str, major: str, rows: int, extent: int, k: int, block_k: int,
             elem: str, bits: int) -> OperandPlan:
    """The tensor map of an operand of `extent` rows (M or N) and K columns in global memory."""
    dtype = TMA_DTYPE[elem]
    # R22: an MN-major tf32 operand needs 128B swizzle with 32-byte atomicity
    swizzle = "sw128_base32b" if major == "mn" and bits == 32 else SWIZZLE
    inner = k if major == "k" else extent
    if inner * bits % 128:
        raise DescriptorError(f"{role} row", f"{inner} x {elem}", "a multiple of 16 bytes",
                              "TMA5", f"({inner * bits // 8} bytes) cannot be a TMA tensor row "
                              f"(the global stride of {role} given "
                              f"{'transposed' if (major == 'mn') == (role == 'a') else 'as is'})")
    if major == "k":  # global [extent, k] row-major: dims innermost first [k, extent]
        m = TensorMap(dtype, (k, extent), (inner * bits // 8,), (block_k, rows), (1, 1),
                      swizzle=swizzle)
        boxes = 1
    else:  # global [k, extent] row-major
        atom = SWIZZLE_ROW_BYTES * 8 // bits
        m = TensorMap(dtype, (extent, k), (inner * bits // 8,), (atom, block_k), (1, 1),
                      swizzle=swizzle)
        boxes = rows // atom
    return OperandPlan(role, major, rows, block_k, bits, m, boxes)


def _tile_n(kind: str, n: int, b_major: str, b_type: str, atom: int) -> int:
    legal = shapes.valid_n(kind, 1, False, False)
    if b_major == "mn" and b_type in ("e4m3", "e5m2"):
        legal = tuple(v for v in legal if v in shapes.transposed_8bit_b_n(1))
    need = -(-n // -(-n // MAX_TILE_N))
    step = atom if b_major == "mn" else 8
    return min(v for v in legal if v >= need and v % step == 0)


def plan_matmul(m: int, n: int, k: int, a_type: str, b_type: str, d_type: str,
                transpose_a: bool, transpose_b: bool, target: str = "sm_100a") -> MatmulPlan:
    """The plan of D[m, n] = A[m, k] x B[k, n] (`transpose_a`: A given as A^T [k, m];
    `transpose_b`: B given as B^T [n, k]). Raises `DescriptorError` for what cannot be planned."""
    if a_type not in KIND_OF_TYPE:
        raise DescriptorError("a element type", a_type, ", ".join(KIND_OF_TYPE), None,
                              "has no tcgen05.matmul kind")
    kind, atype = KIND_OF_TYPE[a_type]
    b_kind, btype = KIND_OF_TYPE.get(b_type, (None, None))
    if b_kind != kind or btype is None:
        legal = ", ".join(t for t, (kd, _) in KIND_OF_TYPE.items() if kd == kind)
        raise DescriptorError("b element type", b_type, legal, None,
                              f"does not pair with a {a_type} a (kind::{kind})")
    if d_type not in D_TYPES:
        raise DescriptorError("d element type", d_type, ", ".join(D_TYPES), None,
                              "is not a tcgen05.matmul accumulator")
    bits = layouts.smem_element_bits(kind, atype)
    mma_k = shapes.mma_k(kind, False)
    block_k = SWIZZLE_ROW_BYTES * 8 // bits
    atom = block_k
    a_major = "mn" if transpose_a else "k"
    b_major = "k" if transpose_b else "mn"
    tile_n = _tile_n(kind, n, b_major, b_type, atom)
    a = _operand("a", a_major, TILE_M, m, k, block_k, a_type, bits)
    b = _operand("b", b_major, tile_n, n, k, block_k, b_type, bits)
    acc_columns = min(c for c in layouts.TMEM_ALLOC_COLUMNS if c >= tile_n)
    buffers = 2 if 2 * acc_columns <= layouts.TMEM_COLUMNS else 1
    stage_bytes = a.tile_bytes + b.tile_bytes
    blocks = -(-m // TILE_M) * -(-n // tile_n) * -(-k // block_k)
    stages = max(1, min((layouts.SMEM_BYTES_PER_CTA - BARRIER_RESERVE) // stage_bytes, blocks))
    plan = MatmulPlan(m, n, k, kind, atype, btype, d_type, TILE_M, tile_n, block_k, mma_k, a, b,
                      stages, acc_columns, buffers)
    check_idesc(plan.idesc(), cta_group=1, ws=False, target=target)
    for operand, start in ((a, plan.a_offset), (b, plan.b_offset)):
        check_smem_desc(operand.smem_desc(start), kind=kind, major=operand.major,
                        pattern_start=start, target=target)
        try:
            check_tensor_map(operand.tensor_map)
        except DescriptorError as err:
            raise DescriptorError(f"{operand.role} tensor map {err.field}", err.value, err.legal,
                                  err.rule, err.reason, value_text=err.value_text) from None
    return plan


__all__ = ["D_TYPES", "KIND_OF_TYPE", "TILE_M", "UNSUPPORTED", "MatmulPlan", "OperandPlan",
           "plan_matmul"]
