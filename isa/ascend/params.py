"""The Ascend C hardware parameter structs of the cube path, field by field, per target.

The tile-level `pto` ops (`mte_gm_l1`, `mte_l1_l0a/l0b`, `mad*`, `fixpipe`) state *what* moves; the
hardware instructions take the parameter structs of Ascend C, which state *how* (counts, strides in
their own units, flags). This module holds those structs' fields, their value ranges per target
and their units, and the GEMV rule of Mmad. Sources (CANN Ascend C API, `gitcode.com/cann/asc-devkit`,
`docs/zh/api/SIMD-API/基础API/矩阵计算（ISASI）/...`; structs in `include/basic_api/kernel_struct_*.h`):

* `Nd2NzParams` (DataCopy GM -> L1 with ND2NZ): ndNum, nValue, dValue, srcNdMatrixStride,
  srcDValue, dstNzC0Stride, dstNzNStride, dstNzMatrixStride.
* `LoadData2DParams` (LoadData 2D, L1 -> L0A/L0B): startIndex, repeatTimes, srcStride, dstGap,
  ifTranspose, addrMode (sid is deprecated and ignored).
* `LoadData2dTransposeParams` (LoadDataWithTranspose): startIndex, repeatTimes, srcStride, dstGap,
  dstFracGap, addrMode.
* `MmadParams`: m, n, k, unitFlag, cmatrixSource, cmatrixInitVal, kDirectionAlign, disableGemv (a5).
* `FixpipeParamsV220` (a2/a3; `FixpipeParamsM300` on 200i_a2 has the same fields) and
  `FixpipeParamsArch3510` (a5, with `Nz2NdParams` / `Nz2DnParams`): nSize, mSize, srcStride,
  dstStride, quantPre, deqScalar, reluEn, unitFlag, isChannelSplit, ndNum, srcNdStride,
  dstNdStride (a5 NZ2DN: dnNum, srcNzMatrixStride, dstDnMatrixStride, srcNzC0Stride).

Ranges are inclusive `(lo, hi)` of a *static* value. A size field whose documented range starts at 0
("0 = the instruction is not executed") starts at 1 here: a static 0 is a verifier error in mmair,
a runtime 0 a no-op (decision "zero sizes", docs/pto-raw-params.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from mmair.isa.ascend.targets import (
    DN2NZ_RANGES,
    FIXPIPE_DST_ND_STRIDE_RANGE_A5,
    FIXPIPE_DST_ND_STRIDE_RANGE_V220,
    FIXPIPE_M_SIZE_RANGE,
    FIXPIPE_N_SIZE_RANGE,
    FIXPIPE_ND_NUM_RANGE,
    FIXPIPE_SRC_ND_STRIDE_RANGE_V220,
    FIXPIPE_SRC_STRIDE_RANGE,
    FRACTAL_BYTES,
    LOAD2D_REPEAT_RANGE,
    LOAD2D_STRIDE_RANGE,
    LOAD2D_V2_STEP_RANGE,
    MMAD_MNK_RANGE,
    MMAD_UNIT_FLAGS,
    ND2NZ_RANGES,
    ND2NZ_RANGES_A5,
    ND2NZ_SMALL_C0_MAX_D,
    QUANT_MODES,
    Target,
    element_bits,
)

U16 = (0, 2**16 - 1)
SID_RANGE = (0, 2**8 - 1)  # u8 `sid` of LoadData2DParams(V2): reserved, not processed
# LoadData2DParams.addrMode: 0 increments, 1 decrements the source fractal index; "目前仅GM->L1
# Buffer通路支持配置" (LoadData_2D.md), so the L1 -> L0A/L0B form takes 0 only.
LOAD2D_L1_ADDR_MODES: tuple[int, ...] = (0,)
U32 = (0, 2**32 - 1)

# ------------------------------------------------------------------------------------------------
# GEMV (Mmad with m = 1)
# ------------------------------------------------------------------------------------------------


def gemv_active(target: Target, m: int, disable_gemv: bool) -> bool:
    """True when an Mmad of `m` rows runs as GEMV on `target`: m == 1 and GEMV not switched off.

    Sources: seed-Mmad ("When M = 1, GEMV is enabled by default ... reads L0A in ND format") for
    A2, A3, 200I/500 A2, 310P AI Core and training 910; Ascend C `GEMV.md`: on Ascend 950 (a5)
    `MmadParams.disableGemv = true` turns it off, no other product has the field."""
    return m == 1 and target.gemv_default and not (disable_gemv and target.gemv_disable)


GEMV_RULE = (
    "with m = 1 the cube runs as GEMV and reads L0A as an nd vector (Ascend C Mmad: 'When M = 1, "
    "GEMV is enabled by default')"
)

# ------------------------------------------------------------------------------------------------
# Field tables
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Field:
    """One struct field: mmair name, Ascend C name, static range, unit (for messages and docs)."""

    name: str
    c_name: str
    range: tuple[int, int]
    unit: str = ""
    size: bool = False  # 0 means "not executed" in hardware; a static 0 is an error in mmair


def _table(*fields: Field) -> Mapping[str, Field]:
    return MappingProxyType({f.name: f for f in fields})


# The ranges live once, in isa/ascend/targets.py (ND2NZ_RANGES, ND2NZ_RANGES_A5, DN2NZ_RANGES);
# these tables add each field's Ascend C name and unit. A 4-bit copy is the b8 one ("当输入数据类型
# 是b4时，ND2NZ过程中数据是基于b8类型进行处理，因此参数需要根据b8类型进行设置"): its "elements" are bytes.
ND2NZ_FIELDS: Mapping[str, Field] = _table(
    Field("nd_num", "ndNum", ND2NZ_RANGES["nd_num"], "matrices", size=True),
    Field("n_value", "nValue", ND2NZ_RANGES["n_value"], "rows", size=True),
    Field("d_value", "dValue", ND2NZ_RANGES["d_value"], "elements", size=True),
    Field("src_nd_matrix_stride", "srcNdMatrixStride", ND2NZ_RANGES["src_nd_matrix_stride"],
          "elements"),
    Field("src_d_value", "srcDValue", ND2NZ_RANGES["src_d_value"], "elements"),
    Field("dst_nz_c0_stride", "dstNzC0Stride", ND2NZ_RANGES["dst_nz_c0_stride"], "C0 (32 B)"),
    Field("dst_nz_n_stride", "dstNzNStride", ND2NZ_RANGES["dst_nz_n_stride"], "C0 (32 B)"),
    Field("dst_nz_matrix_stride", "dstNzMatrixStride", ND2NZ_RANGES["dst_nz_matrix_stride"],
          "elements"),
)
# Ascend 950 (a5) widens dValue to u32 and the source strides to u64 (Nd2NzParams of arch 3510).
ND2NZ_FIELDS_A5: Mapping[str, Field] = _table(
    *(Field(f.name, f.c_name, ND2NZ_RANGES_A5[f.name], f.unit, f.size)
      for f in ND2NZ_FIELDS.values())
)

# Dn2NzParams (DataCopy GM -> L1 with DN2NZ, Ascend 950 only): the source is D rows of N columns
# (row pitch srcDValue), so a source column becomes NZ rows; the destination fields are ND2NZ's.
DN2NZ_FIELDS: Mapping[str, Field] = _table(
    Field("dn_num", "dnNum", DN2NZ_RANGES["nd_num"], "matrices", size=True),
    Field("n_value", "nValue", DN2NZ_RANGES["n_value"], "columns", size=True),
    Field("d_value", "dValue", DN2NZ_RANGES["d_value"], "rows", size=True),
    Field("src_dn_matrix_stride", "srcDnMatrixStride", DN2NZ_RANGES["src_nd_matrix_stride"],
          "elements"),
    Field("src_d_value", "srcDValue", DN2NZ_RANGES["src_d_value"], "elements"),
    *(ND2NZ_FIELDS[name] for name in ("dst_nz_c0_stride", "dst_nz_n_stride",
                                       "dst_nz_matrix_stride")),
)

# DN2NZ of 4-bit data is the b8 copy as well; its source rows (the inner axis, nValue) must be of
# an even length: Ascend C `DataCopyGM2L1DN2NZImpl` (dav_3510) asserts "if src datatype is 4bit,
# the inner axis must be an even number" before the b8 call.
DN2NZ_B4_N_MULTIPLE = 2

# enableSmallC0 (template flag of DataCopy ND2NZ / DN2NZ, Ascend 950 only): with dValue <= 4 the C0
# block is 4 elements (4 * sizeof(T) bytes), the d tail of each row is zero-filled to 4, the
# C0/N strides are not used, and the whole destination matrix is zero-filled to 32 bytes.
SMALL_C0_ELEMENTS = 4
SMALL_C0_MAX_D = ND2NZ_SMALL_C0_MAX_D


def small_c0_supported(target: Target) -> bool:
    """Ascend C ND2NZ page: "针对Ascend 950PR/Ascend 950DT，新增enableSmallC0参数 ... 其他型号不支持"."""
    return target.arch == 3510


LOAD2D_FIELDS: Mapping[str, Field] = _table(
    Field("start_index", "startIndex", U16, "fractals (512 B)"),
    Field("repeat_times", "repeatTimes", LOAD2D_REPEAT_RANGE, "fractals", size=True),
    Field("src_stride", "srcStride", LOAD2D_STRIDE_RANGE, "fractals (512 B), start to start"),
    Field("dst_gap", "dstGap", LOAD2D_STRIDE_RANGE, "fractals (512 B), end to start"),
)
# LoadData2DParams on the GM -> L1 (A1/B1) path, the CCE `load_gm_to_cbuf` (Ascend C
# `GMToL1-2D矩阵搬运（LoadData）.md`, PIPE_MTE2): the L1 -> L0 fields and ranges (same objects), plus
# addrMode, which only this path honours: 0 (inc) reads fractal startIndex + srcStride*i, 1 (dec)
# startIndex - srcStride*i (`load2d.py`: `addr_calc_mode = 1 if addrMode == 0 else -1`).
LOAD2D_GM_FIELDS: Mapping[str, Field] = LOAD2D_FIELDS
LOAD2D_GM_ADDR_MODES: tuple[int, ...] = (0, 1)
LOAD2D_GM_ADDR_MODE_NAMES: Mapping[int, str] = MappingProxyType({0: "inc", 1: "dec"})


def load2d_gm_supported(target: Target) -> bool:
    """LoadData2DParams GM -> L1 (`load_gm_to_cbuf`) on every target but Ascend 950: there
    `LoadData_2D.md` lists only L1 -> L0A/L0B, and Ascend C maps the GM -> L1 call onto the V2
    instruction `load_gm_to_cbuf_2dv2` (`impl/basic_api/dav_3510/kernel_operator_mm_impl.h`:
    mStep = srcStride, kStep = repeatTimes), whose window is not the fractal sequence of the V1
    formula (docs/pto-raw-params.md §3, decision "GM -> L1 LoadData on a5")."""
    return target.arch != 3510


def load2d_gm_types(target: Target) -> frozenset[str]:
    """Element types of LoadData GM -> L1: the target's LoadData types without the 4-bit ones
    (`LoadData_2D.md`: "int4b_t仅支持L1 Buffer->L0A Buffer、L1 Buffer->L0B Buffer通路"; the
    GM -> L1 page lists b8/b16/b32 on A2/A3, u8 ... float on 200I/500 A2, u8/s8/u16/s16/half on
    310P AI Core and 910)."""
    if not load2d_gm_supported(target):
        return frozenset()
    return frozenset(e for e in target.load2d_types if element_bits(e) >= 8)


def load2d_gm_addr_modes(target: Target) -> tuple[int, ...]:
    """addrMode values of LoadData GM -> L1: inc and dec, except on 910 (arch 1001), where
    Ascend C passes `(addr_cal_mode_t)0` whatever the struct says
    (`impl/basic_api/dav_c100/kernel_operator_mm_impl.h`; dav_c220, dav_m200 and dav_m300 pass
    `dec` for addrMode 1)."""
    return (0,) if target.arch == 1001 else LOAD2D_GM_ADDR_MODES


def load2d_gm_dst_gap_supported(target: Target) -> bool:
    """GM -> L1 LoadData dstGap: "针对Atlas 训练系列产品不支持dstGap设置参数" (910; its
    `load_gm_to_cbuf` call has no dstGap argument, dav_c100)."""
    return target.arch != 1001


LOAD2D_TRANSPOSE_FIELDS: Mapping[str, Field] = _table(
    Field("start_index", "startIndex", U16, "square blocks"),
    Field("repeat_times", "repeatTimes", LOAD2D_REPEAT_RANGE, "square blocks", size=True),
    Field("src_stride", "srcStride", U16, "square blocks, start to start"),
    Field("dst_gap", "dstGap", U16, "fractals (512 B), end of an iteration's first fractal to start"),
    Field("dst_frac_gap", "dstFracGap", U16, "fractals (512 B), inside an iteration"),
)

# LoadData2DParamsV2 (Ascend 950's LoadData L1 -> L0A/L0B): a window of mStep x kStep fractals of an
# Nz source [M, K] (fractal (m1, k1) at k1*srcStride + m1) starting at fractal
# (kStartPosition*srcStride + mStartPosition), written Nz with K-direction fractal stride dstStride;
# with ifTranspose the window is transposed as a whole (Ascend C `LoadData_2D_V2.md`; srcStride is
# an int32 in the struct, the doc uses |srcStride|: mmair takes it non-negative).
LOAD2D_V2_FIELDS: Mapping[str, Field] = _table(
    Field("m_start_position", "mStartPosition", U32, "16 elements (M)"),
    Field("k_start_position", "kStartPosition", U32, "32 B (K)"),
    Field("m_step", "mStep", LOAD2D_V2_STEP_RANGE, "16 elements (M)", size=True),
    Field("k_step", "kStep", LOAD2D_V2_STEP_RANGE, "32 B (K)", size=True),
    Field("src_stride", "srcStride", (0, 2**31 - 1), "fractals (512 B), K direction"),
    Field("dst_stride", "dstStride", U16, "fractals (512 B), K direction"),
)
# ifTranspose turns whole squares: the field that counts them must be a multiple of the square's
# fractals (b4 mStep % 4, b8 mStep % 2, b32 kStep % 2).
LOAD2D_V2_TRANSPOSE_MULTIPLE: Mapping[int, tuple[str, int]] = MappingProxyType(
    {4: ("m_step", 4), 8: ("m_step", 2), 16: ("m_step", 1), 32: ("k_step", 2)}
)


def load2d_v2_supported(target: Target) -> bool:
    """LoadData with LoadData2DParamsV2 exists on Ascend 950 (a5) only."""
    return target.arch == 3510


# LoadData2DParamsV2 from GM to L1 (Ascend 950: `GMToL1-2D矩阵搬运V2（LoadData）.md`, CCE
# `load_gm_to_cbuf_2dv2`, PIPE_MTE2): the L1 -> L0 fields (same objects), no ifTranspose ("本通路场景
# 下不支持转置"). Types as the page lists them, with no 16-bit integers (the page has none); its
# fp4x2_e2m1_t is mmair's e2m1 (fp4x2_e1m2_t has no mmair element type). The instruction moves
# 512-byte fractals, so a 4-bit window is 16 x 64 elements a fractal, two a byte (the packed bytes
# of GM, `layouts.pack_nibbles`), as for the other raw 4-bit copies.
LOAD2D_V2_GM_FIELDS: Mapping[str, Field] = LOAD2D_V2_FIELDS
LOAD2D_V2_GM_TYPES: frozenset[str] = frozenset(
    "u8 s8 hif8 e5m2 e4m3 e2m1 f16 bf16 u32 s32 f32".split())


def load2d_v2_gm_types(target: Target) -> frozenset[str]:
    """Element types of LoadData2DParamsV2 GM -> L1 on `target` (Ascend 950 only)."""
    return LOAD2D_V2_GM_TYPES if load2d_v2_supported(target) else frozenset()


# DataCopy L1 -> BiasTable (Ascend C `DataCopy(dst, src, DataCopyParams)` with dst in C2 and src in
# C1; the CCE intrinsic `copy_cbuf_to_bt(dst, src, convControl, nBurst, lenBurst, sourceGap,
# dstGap)`, PIPE_MTE1): blockCount bursts of blockLen units, gaps end to start. CCE page: lenBurst
# and dstGap in 64 B, sourceGap in 32 B, dst 64 B aligned, src 32 B aligned. The CCE page prints
# nBurst as [2, 2^12-1], but every use we found (pto-isa TMovToBt of a2a3 and a5, the vllm-ascend
# l1_to_bt iterator) passes nBurst 1: mmair takes [1, 4095] (docs/pto-raw-params.md, decisions).
# DataCopy GM -> L1 with DataCopyParams (CCE `copy_gm_to_cbuf`: nBurst, lenBurst, srcGap, dstGap,
# in 32-byte blocks; Ascend C DataCopyParams: blockCount [1, 4095], blockLen [1, 65535],
# srcStride / dstStride [0, 65535], "单位为32B" for a GM <-> local copy; gaps end to start).
GM_L1_FIELDS: Mapping[str, Field] = _table(
    Field("block_count", "blockCount (nBurst)", (1, 4095), "bursts", size=True),
    Field("block_len", "blockLen (lenBurst)", (1, 2**16 - 1), "32 B", size=True),
    Field("src_gap", "srcStride (srcGap)", U16, "32 B, end to start"),
    Field("dst_gap", "dstStride (dstGap)", U16, "32 B, end to start"),
)
GM_L1_UNIT_BYTES = 32

L1_BT_FIELDS: Mapping[str, Field] = _table(
    Field("block_count", "blockCount (nBurst)", (1, 4095), "bursts", size=True),
    Field("block_len", "blockLen (lenBurst)", (1, 2**16 - 1), "BT units (64 B; a5 32 B)", size=True),
    Field("src_gap", "srcStride (sourceGap)", U16, "32 B, end to start"),
    Field("dst_gap", "dstStride (dstGap)", U16, "BT units (64 B; a5 32 B), end to start"),
)
L1_BT_SRC_GAP_BYTES = 32


def l1_bt_unit_bytes(target: Target) -> int:
    """Bytes of one blockLen / dstGap unit of the L1 -> BT copy: 64 on 2201/3002 (CCE
    `copy_cbuf_to_bt`: lenBurst and dstGap "64B"; pto-isa a2a3 `TMovToBt` BURST_LEN_UNIT 64); 32 on
    Ascend 950 (pto-isa a5 `TMovToBt`: BURST_LEN_UNIT 32 with its 4 KB table; that dstGap moves
    with it, as the Kirin9030 note of the Ascend C compatibility page says for both fields, is
    our inference)."""
    return 32 if target.arch == 3510 else 64


def l1_fb_unit_bytes(target: Target) -> int:
    """Bytes of one burst unit of the L1 -> FB (fixpipe buffer) copy `copy_cbuf_to_fbuf`: 128 on
    2201/3002 (pto-isa a2a3 `TMovToFb`: BURST_LEN_UNIT 128), 64 on Ascend 950 (pto-isa a5
    `TMovToFb`: BURST_LEN_UNIT_SHIFT 6). pto-isa moves a scaling tile of whole units only
    ("col * sizeof(srcType) must be aligned to 128"); mmair asks the same of every L1 -> FB move."""
    return 64 if target.arch == 3510 else 128


FPC_QUANT_ADDR_UNIT = 128
"""FPC[15:8] (QUANT_PRE_ADDR) holds the FB address of the quant words in 128-byte units (pto-isa
`SetFPC`: `(addr >> 7) << 8`, "uint of 128(2^7)bytes"): a scaling tile read by a vector-quant
fixpipe must start on a multiple of 128 bytes, or the hardware reads the words below it."""
QUANT_WORD_BYTES = 8  # one u64 QUANT_PRE word per output channel (isa.ascend.quant)


def vector_quant_mode(target: Target, src: str, dst: str, to_gm: bool = False) -> str | None:
    """The vector-quant fixpipe mode pto-isa's FP forms (TSTORE_FP / TMOV_FP / TEXTRACT_FP) pick
    for accumulator type `src` and output type `dst` (`GetVectorPreQuantMode`,
    include/pto/npu/{a2a3,a5}/common.hpp; a5 GM stores `GetVectorPreQuantModeGm`, TStore.hpp):
    the `v` mode of mmair's QUANT_MODES for that pair that `target` has (the HiF8 one without
    hybrid rounding), or None where pto-isa picks NoQuant or a mode mmair lacks (VSHIFTS322S16).
    f32 -> f32 is scaled only on the way to GM (a5 VQF322F32_PRE is in the GM table only)."""
    if (src, dst) == ("f32", "f32") and not to_gm:
        return None
    for name, mode in QUANT_MODES.items():
        if mode.is_vector and not name.endswith("_hybrid") and (src, dst) in mode.pairs \
                and name in target.quant_modes:
            return name
    return None


def scalar_quant_mode(target: Target, src: str, dst: str, to_gm: bool = False) -> str | None:
    """The scalar-quant fixpipe mode pto-isa's pre-quant scalar forms (TSTORE / TMOV / TEXTRACT
    with a `preQuantScalar` u64) pick for accumulator type `src` and output type `dst`
    (`GetScalarPreQuantMode`, include/pto/npu/{a2a3,a5}/common.hpp; a5 GM stores
    `GetScalarPreQuantModeGm`, TStore.hpp): the scalar mode of mmair's QUANT_MODES for that pair
    that `target` has (HiF8 without hybrid rounding), or None. f32 -> f32 and f32 -> e4m3 are
    scalar modes only on the way to GM (a5's local table has no QF322F32_PRE and names the
    vector VQF322FP8_PRE for e4m3, which a scalar form cannot feed)."""
    if (src, dst) in (("f32", "f32"), ("f32", "e4m3")) and not to_gm:
        return None
    for name, mode in QUANT_MODES.items():
        if mode.is_scalar and not name.endswith("_hybrid") and (src, dst) in mode.pairs \
                and name in target.quant_modes:
            return name
    return None


MMAD_FIELDS: Mapping[str, Field] = _table(
    Field("m", "m", MMAD_MNK_RANGE, "rows", size=True),
    Field("n", "n", MMAD_MNK_RANGE, "columns", size=True),
    Field("k", "k", MMAD_MNK_RANGE, "elements", size=True),
)
MMAD_UNIT_FLAG_VALUES: tuple[int, ...] = MMAD_UNIT_FLAGS  # 0 off, 2 keep, 3 clear after

FIXPIPE_COMMON_FIELDS: tuple[Field, ...] = (
    Field("n_size", "nSize", FIXPIPE_N_SIZE_RANGE, "columns", size=True),
    Field("m_size", "mSize", FIXPIPE_M_SIZE_RANGE["nz2nz"], "rows", size=True),  # less for ND/DN
    Field("src_stride", "srcStride", FIXPIPE_SRC_STRIDE_RANGE, "C0_Size (16 * sizeof(L0C elem))"),
    Field("dst_stride", "dstStride", (1, 2**32 - 1), "elements (ND/DN row) or 32 B (V220 NZ)"),
)
FIXPIPE_ND_M_MAX = FIXPIPE_M_SIZE_RANGE["nz2nd"][1]
FIXPIPE_V220_FIELDS: Mapping[str, Field] = _table(
    *FIXPIPE_COMMON_FIELDS,
    Field("nd_num", "ndNum", FIXPIPE_ND_NUM_RANGE, "matrices", size=True),
    Field("src_nd_stride", "srcNdStride", FIXPIPE_SRC_ND_STRIDE_RANGE_V220, "C0_Size"),
    Field("dst_nd_stride", "dstNdStride", FIXPIPE_DST_ND_STRIDE_RANGE_V220, "elements"),
)
FIXPIPE_A5_FIELDS: Mapping[str, Field] = _table(
    *FIXPIPE_COMMON_FIELDS,
    Field("nd_num", "Nz2NdParams.ndNum / Nz2DnParams.dnNum", FIXPIPE_ND_NUM_RANGE, "matrices",
          size=True),
    Field("src_nd_stride", "srcNdStride / srcNzMatrixStride", U16, "C0_Size"),
    # dstNdStride is [1, 2^32-1]; dstDnMatrixStride [0, 2^32-1] (a single matrix ignores it).
    Field("dst_nd_stride", "dstNdStride / dstDnMatrixStride", (0, FIXPIPE_DST_ND_STRIDE_RANGE_A5[1]),
          "elements"),
    Field("src_nz_c0_stride", "Nz2DnParams.srcNzC0Stride", (1, 65535), "C0_Size"),
)


# Fixpipe NZ output: the column width of one destination Z block. Channel split (f32 to GM only,
# not with NZ2ND/NZ2DN or unitFlag: Ascend C `F32-Channel-Split.md`) cuts each 16 x 16 fractal into
# two 16 x 8 blocks; b8 NZ output merges two adjacent 16 x 16 fractals into one 16 x 32 block and an
# odd trailing 16 channels stay a 16 x 16 block (`Int8-Channel-Merge.md`); b4 merges four into
# 16 x 64 (`NZ2NZ.md` constraints). Every block keeps 512-byte fractal rows of 16.
FIXPIPE_SPLIT_BLOCK_COLS = 8
FIXPIPE_CHANNEL_SPLIT_DST = "gm"


def fixpipe_nz_block_cols(dst_bits: int, channel_split: bool) -> int:
    """Channels per destination Z block of a Fixpipe NZ output of `dst_bits`-bit elements."""
    if channel_split:
        return FIXPIPE_SPLIT_BLOCK_COLS
    return {8: 32, 4: 64}.get(dst_bits, 16)


def fixpipe_nz_dst_widths(dst_elem: str, dst_space: str) -> tuple[int, ...]:
    """The Z-block widths (channels) a Fixpipe NZ output of `dst_elem` into `dst_space` can write:
    the default block (16; b8 32 by channel merge; b4 64) and, for f32 into GM, 8 with channel
    split. An nz destination whose own block width (c0) is another one cannot receive the
    hardware's blocks: e.g. an f32 or s32 nz tile in L1/UB has 16 x 8 fractals, but channel split
    exists to GM only (Ascend C `F32-Channel-Split.md`; the a5 tensor API `Fixpipe.md`:
    "通道拆分：输出到GM、数据类型为float到float，输出格式为NZ时，支持通道拆分")."""
    widths = {fixpipe_nz_block_cols(element_bits(dst_elem), False)}
    if dst_elem == "f32" and dst_space == FIXPIPE_CHANNEL_SPLIT_DST:
        widths.add(FIXPIPE_SPLIT_BLOCK_COLS)
    return tuple(sorted(widths))


def nd2nz_fields(target: Target) -> Mapping[str, Field]:
    return ND2NZ_FIELDS_A5 if target.arch == 3510 else ND2NZ_FIELDS


def fixpipe_fields(target: Target) -> Mapping[str, Field]:
    return FIXPIPE_A5_FIELDS if target.fixpipe_params == "arch3510" else FIXPIPE_V220_FIELDS


def load2d_transpose_supported(target: Target) -> bool:
    """LoadDataWithTranspose exists on A2, A3, 200I/500 A2 and 950 (not 310P / 910): Ascend C
    `LoadDataWithTranspose.md` product list; the same targets transpose b8 and b32."""
    return 8 in target.transpose_bits


# LoadDataWithTranspose of int4b_t: "b4数据类型仅在目的操作数为L0B Buffer的时候支持" on A2/A3 (their
# type lists: L0B int4b_t, int8_t, ...; L0A without int4b_t) and 200I/500 A2; Ascend 950's list
# has no int4b_t (`LoadDataWithTranspose.md`, 数据类型 and 约束说明).
LOAD2D_TRANSPOSE_B4_ARCHS = frozenset({2201, 3002})
LOAD2D_TRANSPOSE_B4_DST = "l0b"


def load2d_transpose_bits(target: Target, dst_space: str) -> frozenset[int]:
    """Element widths LoadDataWithTranspose takes on `target` into `dst_space` (l0a / l0b)."""
    if not load2d_transpose_supported(target):
        return frozenset()
    b4 = target.arch in LOAD2D_TRANSPOSE_B4_ARCHS and dst_space == LOAD2D_TRANSPOSE_B4_DST
    return frozenset({8, 16, 32} | ({4} if b4 else set()))


def fractal_transpose_bits(target: Target, dst_space: str) -> frozenset[int]:
    """Element widths whose fractals an L1 -> `dst_space` (l0a / l0b) move can transpose on
    `target`: the target's transposes (`Target.transpose_bits`: LoadData ifTranspose b16,
    LoadDataWithTranspose b8/b32, Ascend 950's LoadData2DParamsV2 windows) plus the b4 squares
    LoadDataWithTranspose writes into L0B on A2/A3 and 200I/500 A2 (SplitBTransposeForS4S8)."""
    return target.transpose_bits | (load2d_transpose_bits(target, dst_space) & {4})


def load2d_dst_gap_effective(target: Target) -> bool:
    """Ascend C `LoadData_2D.md`: on Ascend 950 (a5) "setting dstGap has no effect"."""
    return target.arch != 3510


def fractal_elements(elem: str) -> int:
    """Elements in one 512-byte L0A/L0B/L1 fractal (b16: 256)."""
    return FRACTAL_BYTES * 8 // element_bits(elem)


def transpose_square(elem: str) -> tuple[int, int, int]:
    """LoadDataWithTranspose geometry for `elem`: (fractals per square block, square edge,
    fractal rows). b8: 2 fractals of 16 x 32 stacked into 32 x 32; b16: 1 fractal of 16 x 16;
    b32: 2 fractals of 16 x 8 side by side into 16 x 16 (Ascend C `load_data_with_transpose.py`);
    b4: 4 fractals of 16 x 64 stacked into 64 x 64 (`LoadDataWithTranspose.md`, int4b_t)."""
    bits = element_bits(elem)
    if bits == 4:
        return (4, 64, 16)
    if bits == 8:
        return (2, 32, 16)
    if bits == 16:
        return (1, 16, 16)
    if bits == 32:
        return (2, 16, 16)
    raise ValueError(f"LoadDataWithTranspose does not take {bits}-bit elements ({elem}) in mmair")


def b_l1_layout_for_transpose(elem: str) -> str:
    """The L1 layout of B[K, N] whose fractals the transposing L1 -> L0B (Zn) load reads, per
    element width (Ascend C load_data sample, SplitB*): b16 `zz` (LoadData ifTranspose turns
    each 16 x 16 fractal; nz works as well); b32 `zz` (SplitBTransposeForB32, Nd2Zz staging:
    LoadDataWithTranspose squares of two 16 x 8 fractals side by side along n); b8 and b4 `nz`
    (SplitBTransposeForS4S8, ND2NZ staging: squares of fractals stacked along k, which Nz keeps
    adjacent and Zz does not, so no load turns zz b8/b4 fractals into zn ones)."""
    return "nz" if element_bits(elem) <= 8 else "zz"


def b_l1_layouts_for_transpose(elem: str, target: Target) -> tuple[str, ...]:
    """Every L1 layout of B[K, N] some transposing L1 -> L0B (Zn) load on `target` reads: b16
    nz and zz (LoadData ifTranspose turns each fractal); b8/b4 nz (the LoadDataWithTranspose
    squares stack two fractals along k); b32 zz (its squares put two 16 x 8 fractals side by side
    along n, adjacent in Zz, R1 fractals apart in Nz), and nz as well on Ascend 950, whose
    LoadData2DParamsV2 transposes an Nz window as a whole."""
    bits = element_bits(elem)
    if bits == 16:
        return ("nz", "zz")
    if bits == 32:
        return ("nz", "zz") if load2d_v2_supported(target) else ("zz",)
    return ("nz",)


def a_l1_layout_for_transpose(elem: str) -> str:
    """The L1 layout of A^T[K, M] (an A given transposed) that the transposing L1 -> L0A (Zz)
    load reads before Ascend 950: b16 and b8 `nz` (LoadData ifTranspose turns each fractal;
    LoadDataWithTranspose b8 squares stack two 16 x 32 fractals along k, adjacent in Nz), b32 `zz`
    (its squares put two 16 x 8 fractals side by side along m, adjacent in Zz: Ascend C
    `LoadDataWithTranspose.md`, "fp32场景下，源操作数2个连续的16*8分形将被合并为1个16*16的方块矩阵
    ... 要求L1 Buffer上的A矩阵满足ZZ或ZN排布", and its float example "A矩阵LoadDataWithTranspose:
    Zz -> Zz")."""
    return "zz" if element_bits(elem) == 32 else "nz"


LOAD3D_TRANSPOSE_BITS: frozenset[int] = frozenset({16, 32})
"""Element widths whose fractal-transposing L1 -> L0A / L0B move can be a Load3Dv2
(`img2colv2_cbuf_to_ca` / `img2colv2_cbuf_to_cb` with its transpose flag, after `set_fmatrix` /
`set_fmatrix_b`). pto-isa's TEXTRACT / TMOV make every such move of a 2- or 4-byte operand this
way on a2/a3 (include/pto/common/arch/memory/textract_common.hpp: TExtractToATranspose,
TExtractToBTranspose, TExtractToBTransposeCompact; 1-byte operands take
load_cbuf_to_c[ab]_transpose instead). Load3Dv2 reads its source as an Nz feature map
(`LOAD3D_L1_LAYOUT`), so an f32 B (or A^T) staged Nz reaches L0 this way, which no LoadData of a
target before Ascend 950 can do (`b_l1_layouts_for_transpose`)."""

LOAD3D_L1_LAYOUT = "nz"
"""The L1 layout a Load3Dv2 move reads: the feature map's C1HWC0 order, Nz fractals of c0 columns
(pto-isa's TEXTRACT asserts an Nz source, `SLayout::RowMajor` fractals in column-major blocks)."""


def load3d_needed(elem: str, target: Target, operand: str, l1_layout: str) -> bool:
    """Whether a fractal-transposing L1 -> L0 move of `operand` ('a': A^T held in L1, 'b': B)
    from an `l1_layout` tile needs Load3Dv2: no LoadData of `target` reads that layout and
    Load3Dv2 does (what pto-isa's TEXTRACT / TMOV emit for the tile-level move)."""
    legal = (a_l1_layouts_for_transpose if operand == "a" else b_l1_layouts_for_transpose)(
        elem, target)
    return l1_layout not in legal and l1_layout == LOAD3D_L1_LAYOUT \
        and element_bits(elem) in LOAD3D_TRANSPOSE_BITS


def a_l1_layouts_for_transpose(elem: str, target: Target) -> tuple[str, ...]:
    """Every L1 layout of A^T[K, M] some transposing L1 -> L0A load on `target` reads: b16 nz and
    zz (LoadData ifTranspose turns each fractal), b8/b4 nz, b32 zz (`a_l1_layout_for_transpose`).
    On Ascend 950 (L0A Nz; LoadData2DParamsV2 transposes an Nz window) both layouts are accepted:
    pto-expand-params lowers b16 from either and b8/b32 from nz (V2 windows); a b8/b32 A^T in zz
    stays tile-level (no raw form in mmair: an open point, docs/pto-raw-params.md)."""
    if load2d_v2_supported(target):
        return ("nz", "zz")
    bits = element_bits(elem)
    if bits == 16:
        return ("nz", "zz")
    return (a_l1_layout_for_transpose(elem),)

