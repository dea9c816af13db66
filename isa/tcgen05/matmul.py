"""The tile plan of a `tcgen05.matmul` lowering: kind, CTA tile, K block, TMA boxes, SMEM ring.

`tcgen05.matmul` (D[M, N] = A[M, K] x B[K, N] on global memrefs) is lowered by
`passes/tcgen05_lower_matmul.py` into the kernel CUTLASS writes for one CTA (docs/tcgen05-tma.md,
"The tcgen05.matmul lowering"). Every number of that kernel is decided here, from the hardware
facts of the other `isa.tcgen05` modules:

* the MMA kind of the operand types (`KIND_OF_TYPE`): f16/bf16 -> kind::f16, f32 -> kind::tf32
  (f32 data read as tf32, the low 13 mantissa bits ignored), e4m3/e5m2/e2m3/e3m2/e2m1 (any pair)
  -> kind::f8f6f4, s8/u8 (any pair) -> kind::i8; D is one of the kind's accumulator types (`D_TYPES`, from the descriptor's
  dtype table `idesc.LEGAL_DTYPES`): f32, or f16 for f16 x f16 (R3), s32 for kind::i8;
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
* the accumulator: TMEM columns for one tile (a power of two >= 32), two buffers when both fit;
  a 16-bit D holds one value per 32-bit cell (the low half), so it takes as many columns as an
  f32 D, and the epilogue reads it with `tcgen05.ld .pack::16b` (two columns per register,
  `MatmulPlan.epilogue_loads`).

Remainder tiles need nothing here: TMA fills box elements outside the tensor with zeros (the
loads stay full boxes, the transaction count stays the box bytes), and the epilogue stores only
the rows and columns inside D. Global row strides must be multiples of 16 bytes (TMA5), so K (or
M/N of a transposed operand) must fill whole 16-byte units: `check_plan` reports the operand.
Block-scaled kinds (`BLOCK_SCALED`: mxf8f6f4 with e4m3/e5m2/e2m3/e3m2/e2m1 and UE8M0; mxf4 /
mxf4nvf4 with packed e2m1 and UE8M0 or UE4M3) add the scale factors (`ScalePlan`): the operands' CUTLASS
scale-factor atoms (`isa.tcgen05.scale_atoms`) are TMA boxes of each stage next to the A and B
tiles, copied SMEM -> TMEM by `tcgen05.cp .32x128b.warpx4` before the block's MMAs, each MMA
selecting its K blocks with the descriptor's SF ids. With more than one column tile the tile N is
a multiple of 128, so a column tile starts on a scale atom. The sub-byte f8f6f4 types take the
8-bit plan (one SMEM byte slot per element) and move as the padded TMA types
(`PADDED_TMA_DTYPE`: packed rows in global memory, 16 elements + padding per 16-byte SMEM unit;
the transaction count is the packed bytes, `TensorMap.box_bytes`). kind::mxf8f6f4 takes
them the same way (block-scaled: `kind = "mxf8f6f4"` for e2m1 x e2m1, which is kind::mxf4 by
default, `DEFAULT_SCALED_ORDER`). An f16 D of kind::f8f6f4 is not a legal descriptor (R2).

`cta_group = 2` plans CUTLASS's 2-SM kernel (`KernelTmaWarpSpecialized2SmSm100`, the
`SM100_MMA_*_2x1SM_SS` atoms) on a CTA pair: the MMA tile is M = 256 (`TILE_M * 2`) by N; each
CTA of the pair holds its 128 rows of A and its N / 2 rows of B (B split across the pair) in its
own ring at the same SMEM offsets, so the operand plans `a` and `b` are one CTA's (rows 128 and
N / 2) and `tx_bytes` is what the leader CTA's full barrier receives from both CTAs' copies
(CUTLASS's `TmaTransactionBytes` x `size(AtomThrShapeMNK)`). Each CTA's TMEM holds its 128 D rows
by N columns. A block-scaled pair (CUTLASS's 2-SM block-scaled kernels) gives each CTA the
scale factors of its 128 A rows and of ALL the tile's N columns of B (`MMA_ScaleFactor` of the
2x1SM atoms is the 1-SM MMA of M / 2 rows and N columns): the scale plans `scales.a` and
`scales.b` are one CTA's (so `tx_bytes` counts them twice too), and the leader's
`tcgen05.cp.cta_group::2` copies each CTA's SMEM atoms into that CTA's TMEM.
"""

from __future__ import annotations

from dataclasses import dataclass

from mmair.isa.tcgen05 import layouts, scale_atoms, shapes
from mmair.isa.tcgen05.errors import DescriptorError
from mmair.isa.tcgen05.idesc import LEGAL_DTYPES, InstrDesc
from mmair.isa.tcgen05.rules import check_idesc, check_smem_desc
from mmair.isa.tcgen05.smem import SmemDesc
from mmair.isa.tcgen05.tma import DATA_TYPES, TensorMap, check_tensor_map, stride_unit
from mmair.isa.tcgen05.tmem_moves import LD_ST_NUMS
from mmair.isa.tcgen05.types import EIGHT_BIT_TYPES, TYPE_BITS

#: Operand element type -> (MMA kind, the type name in the instruction descriptor).
KIND_OF_TYPE: dict[str, tuple[str, str]] = {
    "f16": ("f16", "f16"), "bf16": ("f16", "bf16"), "f32": ("tf32", "tf32"),
    "e4m3": ("f8f6f4", "e4m3"), "e5m2": ("f8f6f4", "e5m2"), "e2m3": ("f8f6f4", "e2m3"),
    "e3m2": ("f8f6f4", "e3m2"), "e2m1": ("f8f6f4", "e2m1"), "s8": ("i8", "s8"), "u8": ("i8", "u8"),
}
#: The tensor-map dtype TMA copies each operand type with (8-bit types move as bytes).
TMA_DTYPE: dict[str, str] = {"f16": "f16", "bf16": "bf16", "f32": "f32", "e4m3": "u8",
                             "e5m2": "u8", "s8": "u8", "u8": "u8",
                             "e2m1": "b4x16"}  # e2m1: kind::mxf4*, packed
#: The tensor-map dtype of the sub-byte types under kind::f8f6f4 / mxf8f6f4: packed in global
#: memory, one 16-byte SMEM unit per 16 elements (CUTLASS's `float_e2m1_unpacksmem_t` etc. ->
#: CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B / 16U6_ALIGN16B, `cute/arch/copy_sm90_desc.hpp`).
PADDED_TMA_DTYPE: dict[str, str] = {"e2m1": "b4x16_p64", "e2m3": "b6x16_p32",
                                    "e3m2": "b6x16_p32"}
#: D (accumulator and output) element types of each dense kind: the descriptor's dtype table
#: (`idesc.LEGAL_DTYPES`, R2; kind::f8f6f4 accumulates in f32 only, as the seed tables decide);
#: whether an operand pair allows one (bf16 needs an f32 D, R3) is `rules.check_idesc`'s.
D_TYPES: dict[str, tuple[str, ...]] = {
    kind: LEGAL_DTYPES[kind] for kind in ("f16", "tf32", "f8f6f4", "i8")
}
#: D of the block-scaled kinds (no dtype field: f32).
SCALED_D_TYPE = "f32"
#: CTA group sizes the lowering plans (`cta_group`: 2 is the CTA-pair kernel, module docstring).
CTA_GROUPS = (1, 2)
#: idesc fields -> the matmul operand they come from (a descriptor error names the operand).
_OPERAND_FIELD = {"atype": "a element type", "btype": "b element type",
                  "dtype": "d element type"}
#: Block-scaled kinds the lowering plans: kind -> (operand types, {scale memref element type:
#: (scale type, K elements per scale, the tcgen05.mma block_scale spelling or None for the
#: kind's default)}). A UE4M3 scale is an e4m3 memref (its sign bit is ignored).
BLOCK_SCALED: dict[str, tuple[tuple[str, ...], dict[str, tuple[str, int, str | None]]]] = {
    "mxf8f6f4": (("e4m3", "e5m2", "e2m3", "e3m2", "e2m1"), {"ue8m0": ("ue8m0", 32, None)}),
    "mxf4": (("e2m1",), {"ue8m0": ("ue8m0", 32, None)}),
    "mxf4nvf4": (("e2m1",), {"e4m3": ("ue4m3", 16, "block16"), "ue8m0": ("ue8m0", 32, "block32")}),
}
#: The kind a matmul with scale operands takes without a `kind` attribute: the first of these
#: whose operand types hold both A's and B's and whose scales hold the scale type (e2m1 x e2m1
#: stays packed kind::mxf4 / mxf4nvf4; `kind = "mxf8f6f4"` asks for the padded 8-bit layout).
DEFAULT_SCALED_ORDER = ("mxf4", "mxf4nvf4", "mxf8f6f4")
#: The kinds whose operands are K-major only (no transpose bits, R15).
K_MAJOR_ONLY = ("mxf4", "mxf4nvf4")

TILE_M = 128
"""D rows of one CTA's tile (the MMA's M with cta_group::1, half of it with cta_group::2)."""
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
        """The copy's transaction bytes (packed: padded sub-byte types count their data only)."""
        return self.tensor_map.box_bytes

    @property
    def smem_box_bytes(self) -> int:
        """The SMEM bytes one copy covers (padding included)."""
        return self.tensor_map.smem_box_bytes

    @property
    def atom(self) -> int:
        """Elements of one 128-byte swizzle row."""
        return SWIZZLE_ROW_BYTES * 8 // self.element_bits

    @property
    def lbo(self) -> int:
        return 16 if self.major == "k" else self.smem_box_bytes

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
        return box * self.smem_box_bytes

    def box_rows(self, box: int) -> int:
        """The first M/N row copy `box` holds, relative to the tile's first row. Its
        coordinates (innermost first) are (K start, row) K-major, (row, K start) MN-major."""
        return box * self.atom if self.major == "mn" else 0


@dataclass(frozen=True)
class ScaleOperandPlan:
    """How the scale factors of one operand tile reach TMEM: one TMA box per stage of `atoms_k`
    atoms along K by `atoms_mn` along M/N (innermost first: the 16 bytes of an atom row, its 32
    rows, K atoms, M/N atoms), then one tcgen05.cp per atom."""

    role: str  # "a" or "b"
    atoms_mn: int
    atoms_k: int
    tensor_map: TensorMap

    @property
    def tile_bytes(self) -> int:
        return scale_atoms.ATOM_BYTES * self.atoms_mn * self.atoms_k

    @property
    def box_bytes(self) -> int:
        return self.tensor_map.box_bytes

    def atom_offset(self, k_atom: int, mn_atom: int) -> int:
        """Byte offset of an atom inside the stage's box (the box's row-major order)."""
        return (mn_atom * self.atoms_k + k_atom) * scale_atoms.ATOM_BYTES

    def column(self, k_atom: int, mn_atom: int) -> int:
        """TMEM column (from the allocation's first) the atom is copied to: the M/N atoms of one
        K atom side by side, so an MMA's rows r read column r // 32 from the K atom's first."""
        return scale_atoms.ATOM_COLUMNS * (k_atom * self.atoms_mn + mn_atom)

    @property
    def columns(self) -> int:
        return scale_atoms.ATOM_COLUMNS * self.atoms_mn * self.atoms_k

    @property
    def alloc_columns(self) -> int:
        return min(c for c in layouts.TMEM_ALLOC_COLUMNS if c >= self.columns)


@dataclass(frozen=True)
class ScalePlan:
    """The scale factors of a block-scaled matmul (module docstring)."""

    scale_type: str
    vector: int  # K elements per scale factor
    mma_blocks: int  # scale blocks one MMA consumes (its K / vector)
    a: ScaleOperandPlan
    b: ScaleOperandPlan
    a_shape: tuple[int, ...]  # the scale memrefs' shapes (`scale_atoms.atoms_shape`)
    b_shape: tuple[int, ...]
    scale_vec: str | None = None  # the MMA's block_scale(...) spelling (None: the default)

    def mma_scales(self, mma: int) -> tuple[int, int]:
        """(K atom, SF id) of the block's MMA number `mma`: its first scale block's atom and the
        byte of the TMEM cell that holds it."""
        return divmod(mma * self.mma_blocks, scale_atoms.ATOM_BLOCKS)


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
    scales: ScalePlan | None = None
    saturate: bool = False  # kind::i8: every MMA clamps its s32 sum (idesc bit 3, R4)
    cta_group: int = 1  # 2: the CTA-pair kernel (module docstring); tile_m is then 256

    @property
    def cta_tile_m(self) -> int:
        """D rows of one CTA's part of a tile (its TMEM lanes, the rows its epilogue stores)."""
        return self.tile_m // self.cta_group

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
    def scale_bytes(self) -> int:
        """SMEM of one stage's scale factors (A's, then B's)."""
        s = self.scales
        return 0 if s is None else s.a.tile_bytes + s.b.tile_bytes

    @property
    def stage_bytes(self) -> int:
        return self.a.tile_bytes + self.b.tile_bytes + self.scale_bytes

    @property
    def a_offset(self) -> int:
        return 0

    @property
    def b_offset(self) -> int:
        return self.stages * self.a.tile_bytes

    @property
    def sfa_offset(self) -> int:
        return self.stages * (self.a.tile_bytes + self.b.tile_bytes)

    @property
    def sfb_offset(self) -> int:
        s = self.scales
        return self.sfa_offset + (0 if s is None else self.stages * s.a.tile_bytes)

    @property
    def barrier_offset(self) -> int:
        return self.stages * self.stage_bytes

    @property
    def tx_bytes(self) -> int:
        """expect_tx of one stage: every box of A and B (and of their scale factors); with
        cta_group = 2 the boxes of both CTAs, which all complete on the leader CTA's barrier."""
        s = self.scales
        scale = 0 if s is None else s.a.box_bytes + s.b.box_bytes
        own = self.a.boxes * self.a.box_bytes + self.b.boxes * self.b.box_bytes + scale
        return own * self.cta_group

    @property
    def smem_bytes(self) -> int:
        return self.barrier_offset + (2 * self.stages + 2) * BARRIER_BYTES

    def idesc(self, mma: int = 0) -> InstrDesc:
        """The instruction descriptor of the block's MMA number `mma` (block-scaled kinds: its
        SF ids; the dense descriptor is the same for all)."""
        if self.scales is None:
            return InstrDesc(kind=self.kind, m=self.tile_m, n=self.tile_n, atype=self.atype,
                             btype=self.btype, dtype=self.dtype, transpose_a=self.a.major == "mn",
                             transpose_b=self.b.major == "mn", saturate=self.saturate)
        _, sf_id = self.scales.mma_scales(mma)
        return InstrDesc(kind=self.kind, m=self.tile_m, n=self.tile_n, atype=self.atype,
                         btype=self.btype, transpose_a=self.a.major == "mn",
                         transpose_b=self.b.major == "mn", scale_type=self.scales.scale_type,
                         sfa_id=sf_id, sfb_id=sf_id, saturate=self.saturate)

    def epilogue_columns(self, columns: int) -> list[tuple[int, int]]:
        """(first column, count) of the tcgen05.ld loads covering `columns` columns of a tile:
        powers of two (the .num values) up to MAX_LD_COLUMNS, largest first."""
        out, start = [], 0
        while start < columns:
            count = min(MAX_LD_COLUMNS, 1 << ((columns - start).bit_length() - 1))
            out.append((start, count))
            start += count
        return out

    @property
    def d_bits(self) -> int:
        return TYPE_BITS[self.dtype]

    @property
    def d_pack(self) -> bool:
        """A 16-bit D (one value in the low half of each 32-bit cell) is loaded with
        `.pack::16b`: register c of a load holds the values of columns 2c and 2c + 1."""
        return self.d_bits == 16

    def epilogue_loads(self, columns: int) -> list[EpilogueLoad]:
        """The tcgen05.ld .32x32b loads of one warp covering `columns` columns of a tile: the
        registers they need (one per column, or per two columns of a packed 16-bit D) in
        `epilogue_columns` pieces; a packed load of an odd column count reads one column more
        than it stores (inside the tile: N tiles are multiples of 8)."""
        per = 2 if self.d_pack else 1
        return [EpilogueLoad(first * per, num, self.d_pack,
                             min(num * per, columns - first * per))
                for first, num in self.epilogue_columns(-(-columns // per))]


@dataclass(frozen=True)
class EpilogueLoad:
    """One epilogue `tcgen05.ld .32x32b.x{num}{.pack::16b}` at tile column `column`, whose
    registers hold `stored` columns of D (the first ones of the `num * 2` of a packed load)."""

    column: int
    num: int
    pack: bool
    stored: int

    @property
    def values(self) -> int:
        """D values per thread the registers hold (two per register when packed)."""
        return self.num * (2 if self.pack else 1)


def _operand(role: str, major: str, rows: int, extent: int, k: int, block_k: int,
             elem: str, bits: int, kind: str) -> OperandPlan:
    """The tensor map of an operand of `extent` rows (M or N) and K columns in global memory
    (`bits`: an element in SMEM; the global rows are packed, `gm_bits` per element)."""
    dtype = PADDED_TMA_DTYPE[elem] if elem in PADDED_TMA_DTYPE and \
        kind in layouts.PADDED_SUB_BYTE_KINDS else TMA_DTYPE[elem]
    gm_bits = DATA_TYPES[dtype]
    # R22: an MN-major tf32 operand needs 128B swizzle with 32-byte atomicity
    swizzle = "sw128_base32b" if major == "mn" and bits == 32 else SWIZZLE
    inner = k if major == "k" else extent
    unit = stride_unit(dtype)
    if inner * gm_bits % (8 * unit):
        raise DescriptorError(f"{role} row", f"{inner} x {elem}", f"a multiple of {unit} bytes",
                              "TMA5", f"({inner * gm_bits / 8:g} bytes) cannot be a TMA tensor row "
                              f"(the global stride of {role} given "
                              f"{'transposed' if (major == 'mn') == (role == 'a') else 'as is'})")
    if major == "k":  # global [extent, k] row-major: dims innermost first [k, extent]
        m = TensorMap(dtype, (k, extent), (inner * gm_bits // 8,), (block_k, rows), (1, 1),
                      swizzle=swizzle)
        boxes = 1
    else:  # global [k, extent] row-major
        atom = SWIZZLE_ROW_BYTES * 8 // bits
        m = TensorMap(dtype, (extent, k), (inner * gm_bits // 8,), (atom, block_k), (1, 1),
                      swizzle=swizzle)
        boxes = rows // atom
    return OperandPlan(role, major, rows, block_k, bits, m, boxes)


def _tile_n(kind: str, n: int, b_major: str, b_type: str, atom: int, scaled: bool,
            cta_group: int = 1) -> int:
    """The tile's N: a legal MMA N whose 1 / cta_group part (one CTA's B rows) is whole 8-row
    core-matrix groups (K-major) or whole swizzle atoms (MN-major)."""
    legal = shapes.valid_n(kind, cta_group, False, False)
    if b_major == "mn" and b_type in EIGHT_BIT_TYPES:  # R8
        legal = tuple(v for v in legal if v in shapes.transposed_8bit_b_n(cta_group))
    need = -(-n // -(-n // MAX_TILE_N))
    step = (atom if b_major == "mn" else 8) * cta_group
    if scaled and n > MAX_TILE_N:  # every column tile starts on a scale atom of B
        step = max(step, scale_atoms.ATOM_ROWS)
    return min(v for v in legal if v >= need and v % step == 0)


def _block_scaled_kind(kind: str | None, a_type: str, b_type: str, scale_types: tuple[str, str],
                       transpose_a: bool, transpose_b: bool) -> tuple[str, str, int, str | None]:
    """(kind, scale type, K elements per scale, block_scale spelling) of a matmul with scale
    operands; without `kind`: the kind of the operand types (e2m1 with e4m3 scales: mxf4nvf4)."""
    if kind is None:
        kind = next((kd for kd in DEFAULT_SCALED_ORDER if a_type in BLOCK_SCALED[kd][0]
                     and b_type in BLOCK_SCALED[kd][0] and scale_types[0] in BLOCK_SCALED[kd][1]),
                    "mxf8f6f4")
    if kind not in BLOCK_SCALED:
        raise DescriptorError("kind", kind, ", ".join(BLOCK_SCALED), None,
                              "is not a block-scaled kind (the matmul has scale operands)")
    types, by_scale = BLOCK_SCALED[kind]
    for role, elem in (("a", a_type), ("b", b_type)):
        if elem not in types:
            raise DescriptorError(f"{role} element type", elem, ", ".join(types), None,
                                  f"is not a kind::{kind} operand the lowering plans")
    legal = ", ".join(f"{e} ({t})" if e != t else e for e, (t, _, _) in by_scale.items())
    if scale_types[0] not in by_scale:
        raise DescriptorError("scale_a element type", scale_types[0], legal, "R14",
                              f"is not a kind::{kind} scale type")
    if scale_types[1] != scale_types[0]:
        raise DescriptorError("scale_b element type", scale_types[1],
                              f"{scale_types[0]} (scale_a's)", "R14",
                              "is not the scale type of scale_a (one scale type per MMA)")
    if kind in K_MAJOR_ONLY and (transpose_a or not transpose_b):
        role, given = ("a", "transposed (A^T [K, M])") if transpose_a else \
            ("b", "as is (B [K, N])")
        raise DescriptorError(f"{role} layout", given, "a as is and b transposed (B^T [N, K])",
                              "R15", f"is MN-major, which kind::{kind} cannot read (no "
                              f"transpose bits)")
    scale_type, vector, spelling = by_scale[scale_types[0]]
    return kind, scale_type, vector, spelling


def _scale_operand(role: str, rows: int, k: int, tile_rows: int, block_k: int,
                   vector: int) -> tuple[ScaleOperandPlan, tuple[int, ...]]:
    """The scale atoms of an operand of `rows` rows over K = `k`, as TMA boxes of one stage."""
    shape = scale_atoms.atoms_shape(rows, k, vector)
    rt, kt, lanes, row = shape
    atom = scale_atoms.ATOM_BYTES
    atoms_k = block_k // (scale_atoms.ATOM_BLOCKS * vector)
    atoms_mn = -(-tile_rows // scale_atoms.ATOM_ROWS)
    m = TensorMap("u8", (row, lanes, kt, rt), (row, atom, atom * kt),
                  (row, lanes, atoms_k, atoms_mn), (1, 1, 1, 1))
    return ScaleOperandPlan(role, atoms_mn, atoms_k, m), shape


def plan_matmul(m: int, n: int, k: int, a_type: str, b_type: str, d_type: str,
                transpose_a: bool, transpose_b: bool, target: str = "sm_100a",
                scale_types: tuple[str, str] | None = None,
                kind: str | None = None, saturate: bool = False,
                cta_group: int = 1) -> MatmulPlan:
    """The plan of D[m, n] = A[m, k] x B[k, n] (`transpose_a`: A given as A^T [k, m];
    `transpose_b`: B given as B^T [n, k]); `scale_types`: the element types of the scale
    operands of a block-scaled matmul, `kind` its kind when given; `saturate`: the descriptor's
    saturate bit (kind::i8 only, R4); `cta_group`: 2 for the CTA-pair kernel (module
    docstring). Raises `DescriptorError` for what cannot be planned."""
    scaled = scale_types is not None
    if cta_group not in CTA_GROUPS:
        raise DescriptorError("cta_group", cta_group, ", ".join(map(str, CTA_GROUPS)), "R31",
                              "is not a CTA group size")
    if scaled:
        assert scale_types is not None
        kind, scale_type, vector, spelling = _block_scaled_kind(kind, a_type, b_type,
                                                                scale_types, transpose_a,
                                                                transpose_b)
        atype, btype = a_type, b_type
    else:
        if kind is not None and kind != KIND_OF_TYPE.get(a_type, (kind,))[0]:
            raise DescriptorError("kind", kind, "the operand types' kind, or a block-scaled kind "
                                  "with scale operands", None, "needs scale(%sa, %sb) operands"
                                  if kind in BLOCK_SCALED else "does not match the operand types")
        if a_type not in KIND_OF_TYPE:
            raise DescriptorError("a element type", a_type, ", ".join(KIND_OF_TYPE), None,
                                  "has no tcgen05.matmul kind")
        kind, atype = KIND_OF_TYPE[a_type]
        b_kind, btype = KIND_OF_TYPE.get(b_type, (None, None))
        if b_kind != kind or btype is None:
            legal = ", ".join(t for t, (kd, _) in KIND_OF_TYPE.items() if kd == kind)
            raise DescriptorError("b element type", b_type, legal, None,
                                  f"does not pair with a {a_type} a (kind::{kind})")
    legal_d = (SCALED_D_TYPE,) if scaled else D_TYPES[kind]
    if d_type not in legal_d:
        raise DescriptorError("d element type", d_type, ", ".join(legal_d),
                              "R11" if scaled else "R2", f"is not a kind::{kind} accumulator")
    bits = layouts.smem_element_bits(kind, atype)
    mma_k = shapes.mma_k(kind, False)
    block_k = SWIZZLE_ROW_BYTES * 8 // bits
    atom = block_k
    a_major = "mn" if transpose_a else "k"
    b_major = "k" if transpose_b else "mn"
    tile_n = _tile_n(kind, n, b_major, b_type, atom, scaled, cta_group)
    tile_m = TILE_M * cta_group
    a = _operand("a", a_major, TILE_M, m, k, block_k, a_type, bits, kind)  # one CTA's rows
    b = _operand("b", b_major, tile_n // cta_group, n, k, block_k, b_type, bits, kind)
    scales = None
    if scaled:
        sa, sa_shape = _scale_operand("a", m, k, TILE_M, block_k, vector)
        sb, sb_shape = _scale_operand("b", n, k, tile_n, block_k, vector)
        scales = ScalePlan(scale_type, vector, mma_k // vector, sa, sb, sa_shape, sb_shape,
                           spelling)
    sf_columns = 0 if scales is None else scales.a.alloc_columns + scales.b.alloc_columns
    acc_columns = min(c for c in layouts.TMEM_ALLOC_COLUMNS if c >= tile_n)
    buffers = 2 if 2 * acc_columns + sf_columns <= layouts.TMEM_COLUMNS else 1
    stage_bytes = a.tile_bytes + b.tile_bytes
    if scales is not None:
        stage_bytes += scales.a.tile_bytes + scales.b.tile_bytes
    blocks = -(-m // tile_m) * -(-n // tile_n) * -(-k // block_k)
    stages = max(1, min((layouts.SMEM_BYTES_PER_CTA - BARRIER_RESERVE) // stage_bytes, blocks))
    plan = MatmulPlan(m, n, k, kind, atype, btype, d_type, tile_m, tile_n, block_k, mma_k, a, b,
                      stages, acc_columns, buffers, scales, saturate, cta_group)
    for mma in range(plan.mmas_per_block if scaled else 1):
        try:
            check_idesc(plan.idesc(mma), cta_group=cta_group, ws=False, target=target)
        except DescriptorError as err:  # an operand type the descriptor cannot take
            if err.field not in _OPERAND_FIELD:
                raise
            raise DescriptorError(_OPERAND_FIELD[err.field], err.value, err.legal, err.rule,
                                  err.reason, value_text=err.value_text) from None
    for operand, start in ((a, plan.a_offset), (b, plan.b_offset)):
        check_smem_desc(operand.smem_desc(start), kind=kind, major=operand.major,
                        pattern_start=start, target=target)
    maps = [(operand.role, operand.tensor_map) for operand in (a, b)]
    if scales is not None:
        maps += [(f"scale_{s.role}", s.tensor_map) for s in (scales.a, scales.b)]
    for role, tensor_map in maps:
        try:
            check_tensor_map(tensor_map)
        except DescriptorError as err:
            raise DescriptorError(f"{role} tensor map {err.field}", err.value, err.legal,
                                  err.rule, err.reason, value_text=err.value_text) from None
    return plan


__all__ = ["BLOCK_SCALED", "CTA_GROUPS", "DEFAULT_SCALED_ORDER", "D_TYPES", "KIND_OF_TYPE",
           "K_MAJOR_ONLY", "SCALED_D_TYPE", "TILE_M", "EpilogueLoad", "MatmulPlan", "OperandPlan",
           "ScaleOperandPlan", "ScalePlan", "plan_matmul"]
