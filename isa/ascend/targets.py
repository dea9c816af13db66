"""Ascend targets: buffers, capacities, alignments, element types and per-op type tables.

The Ascend AI Core has a cube unit (matrix engine) fed by a chain of on-chip buffers:
GM (global memory) -> L1 (cbuf) -> L0A / L0B -> cube -> L0C, then Fixpipe writes L0C back to
GM / L1 / UB (UB is the vector unit's buffer). BT (bias table) and FB (fixpipe buffer) hold
per-column bias and quant parameters. Each product generation ("target") differs in buffer
sizes, in the element types each instruction accepts and in a few features (NZ2DN, L0C->UB,
fp8/hif8, GatherMask counter-mode method).

Everything here comes from public Ascend sources (Ascend C API pages, pto-isa, CANN docs; listed
with the tables in docs/ascend.md and quoted in the comments); "[open]" marks a value no public source states and that we assumed.

Conventions:
* Element types are short isa names (`f16`, `s8`, `e4m3`, ...; see `ELEMENT_TYPES`).
* Sizes are bytes unless a name says elements. `capacity["gm"]` is `None`: GM is unbounded.
  For any other space `None` means the target has no such buffer.
* Ranges are inclusive `(lo, hi)` tuples of the values a *static* operand may take. Sizes start at 1
  because a static size of 0 is a verifier error in mmair (docs/pto-raw-params.md §3); a runtime
  0 is a no-op.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

# --------------------------------------------------------------------------------------------
# Names
# --------------------------------------------------------------------------------------------

TARGET_NAMES: tuple[str, ...] = ("a2", "a3", "a5", "310p", "200i_a2", "910")
DEFAULT_TARGET = "a2"

SPACES: tuple[str, ...] = ("gm", "l1", "l0a", "l0b", "l0c", "ub", "bt", "fb")

# isa element type names -> width in bits (docs/design.md "Element type names").
_ELEMENT_BITS: dict[str, int] = {
    "f16": 16,
    "bf16": 16,
    "f32": 32,
    "tf32": 32,  # f32 container, low 13 mantissa bits ignored
    "s4": 4,
    "s8": 8,
    "s16": 16,
    "s32": 32,
    "u8": 8,
    "u16": 16,
    "u32": 32,
    "u64": 64,
    "e4m3": 8,
    "e5m2": 8,
    "hif8": 8,
    "e2m3": 6,
    "e3m2": 6,
    "e2m1": 4,
}
ELEMENT_TYPES: tuple[str, ...] = tuple(_ELEMENT_BITS)

# Fractal constants (docs/ascend.md, "Fractal layouts").
C0_BYTES = 32  # one C0 block: the inner width of an L0A/L0B/L1 fractal
M0 = 16  # fractal height (M0 = N0 = 16)
FRACTAL_BYTES = 512  # an L0A/L0B fractal: 16 x C0 bytes
L0C_C0_ELEMENTS = 16  # an L0C fractal is always 16 x 16 elements


class UnknownTargetError(ValueError):
    """A target name outside `TARGET_NAMES`."""

    def __init__(self, name: object) -> None:
        super().__init__(
            f"unknown Ascend target {name!r}, expected one of {', '.join(TARGET_NAMES)}"
        )
        self.name = name


class UnknownElementTypeError(ValueError):
    """An element type name outside `ELEMENT_TYPES`."""

    def __init__(self, elem: object) -> None:
        super().__init__(
            f"unknown element type {elem!r}, expected one of {', '.join(ELEMENT_TYPES)}"
        )
        self.elem = elem


def _check_space(space: str) -> None:
    if space not in SPACES:
        raise ValueError(f"unknown memory space {space!r}, expected one of {', '.join(SPACES)}")


def element_bits(elem: str) -> int:
    """Width of one element in bits (s4 -> 4, f16 -> 16, ...)."""
    try:
        return _ELEMENT_BITS[elem]
    except KeyError:
        raise UnknownElementTypeError(elem) from None


def element_bytes(elem: str) -> int | float:
    """Size of one element in bytes: an int for whole-byte types, 0.5 for 4-bit (s4, e2m1)
    and 0.75 for 6-bit types. Use `element_bits` when you need exact integer arithmetic."""
    bits = element_bits(elem)
    return bits // 8 if bits % 8 == 0 else bits / 8


def c0_elements(elem: str, space: str) -> int:
    """Inner fractal width c0 (= K0) in elements: 32 bytes / sizeof(elem), and 16 in L0C
    whatever the type (docs/ascend.md: an L0C fractal is 16 x 16 elements)."""
    _check_space(space)
    bits = element_bits(elem)
    if space == "l0c":
        return L0C_C0_ELEMENTS
    if (C0_BYTES * 8) % bits:
        raise ValueError(f"element type {elem!r} ({bits} bits) does not tile a 32-byte C0 block")
    return C0_BYTES * 8 // bits


# --------------------------------------------------------------------------------------------
# Op-level facts (docs/ascend.md lists them with their sources)
# --------------------------------------------------------------------------------------------

# Mmad (§7): m, n, k each in [1, 4095] (static 0 is an error, §12d).
MMAD_MNK_RANGE: tuple[int, int] = (1, 4095)
MMAD_DST_ALIGN = 1024  # L0C dst: 256 elements of a 32-bit C
MMAD_SRC_ALIGN = 512  # fm (L0A) and filter (L0B)
MMAD_BIAS_ALIGN = 64  # BT granularity (§13.1: seed says 128 B, current docs 64 B)
L1_BT_SRC_ALIGN = 32  # L1 -> BT copy source (CCE copy_cbuf_to_bt: src 32 B aligned)
MMAD_UNIT_FLAGS: tuple[int, ...] = (0, 2, 3)

# GM -> L1 ND2NZ (§5), field -> inclusive range. Sizes start at 1 (§12d).
ND2NZ_RANGES: Mapping[str, tuple[int, int]] = MappingProxyType(
    {
        "nd_num": (1, 4095),
        "n_value": (1, 16384),
        "d_value": (1, 65535),
        "src_nd_matrix_stride": (0, 65535),
        "src_d_value": (1, 65535),
        "dst_nz_c0_stride": (1, 16384),
        "dst_nz_n_stride": (1, 16384),
        "dst_nz_matrix_stride": (0, 16384),
    }
)
# a5 widens dValue to u32 and the source strides to u64 (§5).
ND2NZ_RANGES_A5: Mapping[str, tuple[int, int]] = MappingProxyType(
    {
        **ND2NZ_RANGES,
        "d_value": (1, 2**32 - 1),
        "src_nd_matrix_stride": (0, 2**64 - 1),
        "src_d_value": (1, 2**64 - 1),
    }
)
# a5 DN2NZ: dValue up to 2^21-1, source strides up to 2^40-1 (§5).
DN2NZ_RANGES: Mapping[str, tuple[int, int]] = MappingProxyType(
    {
        **ND2NZ_RANGES,
        "d_value": (1, 2**21 - 1),
        "src_nd_matrix_stride": (0, 2**40 - 1),
        "src_d_value": (1, 2**40 - 1),
    }
)
ND2NZ_DST_ALIGN = 32  # L1 dst
ND2NZ_SRC_ALIGN = 1  # GM src
ND2NZ_SMALL_C0_MAX_D = 4  # a5 enableSmallC0 only with dValue <= 4

# L1 -> L0A/L0B LoadData2D (§6.1).
LOAD2D_REPEAT_RANGE: tuple[int, int] = (1, 255)
LOAD2D_STRIDE_RANGE: tuple[int, int] = (0, 65535)  # u16 srcStride / dstGap (512 B units)
LOAD2D_V2_STEP_RANGE: tuple[int, int] = (1, 255)  # a5 mStep / kStep
LOAD2D_SRC_ALIGN = 32  # L1
LOAD2D_DST_ALIGN = 512  # L0A / L0B
# GM -> L1 LoadData (`GMToL1-2D矩阵搬运（LoadData）.md`): "目的地址必须32字节对齐。源地址必须1字节对齐".
LOAD2D_GM_DST_ALIGN = 32  # L1
LOAD2D_GM_SRC_ALIGN = 1  # GM
# A hardware-transposed tile must be padded to whole transpose blocks (§6.2, [inf]):
# element bits -> block edge in elements (b8: 32x32, b16: 16x16, b32: 16x16).
TRANSPOSE_BLOCK_ELEMENTS: Mapping[int, int] = MappingProxyType({4: 64, 8: 32, 16: 16, 32: 16})

# Fixpipe (§8.1).
FIXPIPE_LAYOUTS: tuple[str, ...] = ("nz2nd", "nz2nz", "nz2dn")
FIXPIPE_N_SIZE_RANGE: tuple[int, int] = (1, 4095)
# nSize must be a multiple of 16 (8 with channel split) for NZ output only; NZ2ND/NZ2DN take any n
# (CCE intrinsic Fixpipe doc: the NZ2ND loop writes columns j*16 + c < nSize).
FIXPIPE_N_SIZE_MULTIPLE = 16
FIXPIPE_N_SIZE_MULTIPLE_CHANNEL_SPLIT = 8
# mSize maximum per layout. nz2dn is not stated in the sources [open]; we use the nz2nd bound.
FIXPIPE_M_SIZE_RANGE: Mapping[str, tuple[int, int]] = MappingProxyType(
    {"nz2nd": (1, 8192), "nz2nz": (1, 65535), "nz2dn": (1, 8192)}
)
FIXPIPE_SRC_STRIDE_RANGE: tuple[int, int] = (0, 65535)  # unit C0_Size = 16 * sizeof(L0C elem)
FIXPIPE_ND_NUM_RANGE: tuple[int, int] = (1, 65535)
FIXPIPE_SRC_ND_STRIDE_RANGE_V220: tuple[int, int] = (0, 512)  # unit C0_Size (§12b)
FIXPIPE_DST_ND_STRIDE_RANGE_V220: tuple[int, int] = (0, 65535)
FIXPIPE_DST_ND_STRIDE_RANGE_A5: tuple[int, int] = (1, 2**32 - 1)
FIXPIPE_SRC_ALIGN = 64  # L0C
# Destination alignment: GM 1 B for ND, 32 B for NZ/DN.
FIXPIPE_GM_DST_ALIGN: Mapping[str, int] = MappingProxyType({"nz2nd": 1, "nz2nz": 32, "nz2dn": 32})
FIXPIPE_SRC_TYPES: frozenset[str] = frozenset({"f32", "s32"})

# GM atomic stores (Ascend C SetAtomicAdd / SetAtomicMax / SetAtomicMin, pto-isa SetAtomicAdd,
# PTOAS AccStoreAtomicOp): a store to GM in atomic mode combines each value it writes with the
# bytes already there (old + value, max, min) in the atomic type, which is the type of the GM
# elements (pto-isa TSTORE: `SetAtomicAdd<GlobalData::DType>()`). Per target: `gm_atomic`
# (op -> legal element types) and `gm_atomic_sources` (the buffers whose store to GM can be
# atomic: "VECOUT / L0C / L1 -> GM" on A2 / A3, "UB / L0C -> GM" on Ascend 950).
GM_ATOMIC_OPS: tuple[str, ...] = ("add", "max", "min")
_ATOMIC_ALL = frozenset("s8 s16 f16 bf16 s32 f32".split())


def mmad_footprint_bytes(m: int, n: int, k: int, lhs: str, rhs: str, dst: str) -> tuple[int, int, int]:
    """(L0A, L0B, L0C) bytes an m x n x k Mmad reads/writes: whole fractals (§7.4, §7.5):
    ceil(m/16)*ceil(k/K0) and ceil(k/K0)*ceil(n/16) fractals of 512 B, ceil(m/16)*ceil(n/16)
    L0C fractals of 256 elements. With m == 1 (GEMV) L0A holds a contiguous 1 x K vector, which
    still occupies ceil(k*sizeof/512) whole fractals, i.e. the same bytes."""
    m1, n1 = -(-m // M0), -(-n // M0)
    k1a = -(-k // c0_elements(lhs, "l0a"))
    k1b = -(-k // c0_elements(rhs, "l0b"))
    l0c = m1 * n1 * M0 * L0C_C0_ELEMENTS * element_bits(dst) // 8
    return (m1 * k1a * FRACTAL_BYTES, k1b * n1 * FRACTAL_BYTES, l0c)


def transpose_block_elements(elem: str) -> int:
    """Edge (in elements) of the square block a hardware transpose works on; a transposed tile's
    padded extents must be multiples of it (§6.2: b8 32, b16 16, b32 16, b4 64)."""
    return TRANSPOSE_BLOCK_ELEMENTS[element_bits(elem)]


def fixpipe_c0_size_bytes(l0c_elem: str) -> int:
    """Fixpipe stride unit C0_Size = 16 * sizeof(L0C element) bytes (64 B for f32/s32)."""
    return L0C_C0_ELEMENTS * element_bits(l0c_elem) // 8


# GatherMask (§9, §13.5).
GATHER_REPEAT_BYTES = 256  # one normal-mode repeat
GATHER_REPEAT_TIMES_RANGE: tuple[int, int] = (1, 255)
GATHER_BLOCK_STRIDE_RANGE: tuple[int, int] = (0, 255)  # u8 src0BlockStride (32 B units)
GATHER_SRC0_REPEAT_STRIDE_RANGE: tuple[int, int] = (0, 65535)  # u16 (32 B units)
GATHER_SRC1_REPEAT_STRIDE_RANGE: tuple[int, int] = (0, 255)  # u8 (32 B units)
GATHER_COUNTER_MASK_RANGE: tuple[int, int] = (1, 2**32 - 1)
GATHER_ALIGN = 32  # dst, src0, src1 in UB
GATHER_BLOCK_BYTES = 32  # the stride unit (DataBlock)
GATHER_A5_BUILTIN_SCRATCH_BYTES = 8 * 1024  # a5: a built-in pattern uses 8 KB of UB

# --------------------------------------------------------------------------------------------
# Fixpipe quant modes (§8.3)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class QuantMode:
    """One Fixpipe `quantPre` mode.

    `operand` is what the mode reads besides the accumulator: "none" (no parameter),
    "scalar" (the 64-bit QUANT_PRE word, see quant.py) or "vector" (a per-column u64 word
    vector in L1)."""

    name: str
    pairs: frozenset[tuple[str, str]]  # legal (L0C src elem, dst elem)
    operand: str
    a5_only: bool = False

    @property
    def is_vector(self) -> bool:
        return self.operand == "vector"

    @property
    def is_scalar(self) -> bool:
        return self.operand == "scalar"


def _quant_modes() -> dict[str, QuantMode]:
    modes: list[QuantMode] = [
        QuantMode("none", frozenset({("f32", "f32"), ("s32", "s32")}), "none"),
        QuantMode("f322f16", frozenset({("f32", "f16")}), "none"),
        QuantMode("f322bf16", frozenset({("f32", "bf16")}), "none"),
    ]
    # Scale modes come as a scalar form and a per-column vector form ("v" prefix).
    scaled: list[tuple[str, frozenset[tuple[str, str]], bool]] = [
        ("deqf16", frozenset({("s32", "f16")}), False),
        ("qf322b8_pre", frozenset({("f32", "s8"), ("f32", "u8")}), False),
        ("req8", frozenset({("s32", "s8"), ("s32", "u8")}), False),
        ("qf322fp8_pre", frozenset({("f32", "e4m3")}), True),
        ("qf322hif8_pre", frozenset({("f32", "hif8")}), True),
        ("qf322hif8_pre_hybrid", frozenset({("f32", "hif8")}), True),
        ("qs322bf16_pre", frozenset({("s32", "bf16")}), True),
        ("qf322f16_pre", frozenset({("f32", "f16")}), True),
        ("qf322bf16_pre", frozenset({("f32", "bf16")}), True),
        ("qf322f32_pre", frozenset({("f32", "f32")}), True),
    ]
    for name, pairs, a5_only in scaled:
        modes.append(QuantMode(name, pairs, "scalar", a5_only))
        modes.append(QuantMode("v" + name, pairs, "vector", a5_only))
    return {m.name: m for m in modes}


QUANT_MODES: Mapping[str, QuantMode] = MappingProxyType(_quant_modes())
BASE_QUANT_MODES: frozenset[str] = frozenset(n for n, m in QUANT_MODES.items() if not m.a5_only)
A5_QUANT_MODES: frozenset[str] = frozenset(QUANT_MODES)


def get_quant_mode(name: str) -> QuantMode:
    """The `QuantMode` called `name` (lower case); ValueError names the legal set."""
    try:
        return QUANT_MODES[name]
    except KeyError:
        raise ValueError(
            f"unknown quant mode {name!r}, expected one of {', '.join(QUANT_MODES)}"
        ) from None


# --------------------------------------------------------------------------------------------
# Targets (§2, §4, §5-§9)
# --------------------------------------------------------------------------------------------

K = 1024

_BASE_ALIGNMENT: Mapping[str, int] = MappingProxyType(
    {"gm": 1, "l1": 32, "l0a": 512, "l0b": 512, "l0c": 64, "ub": 32, "bt": 64, "fb": 64}
)


@dataclass(frozen=True)
class Target:
    """The hardware facts of one Ascend target. Build with `get_target(name)`."""

    name: str
    arch: int  # __NPU_ARCH__
    product: str
    capacity: Mapping[str, int | None]  # bytes; gm None = unbounded, else None = no such buffer
    alignment: Mapping[str, int]  # start-address granularity in bytes per space (§2)
    l0a_layout: str  # "zz", or "nz" on a5 (§4, §12a)
    mmad_types: frozenset[tuple[str, str, str]]  # (lhs, rhs, dst)
    mmad_bias: bool  # the bias form (cmatrixSource=1) exists
    mmad_bias_types: frozenset[tuple[str, str, str]]  # combos that have a bias form
    fixpipe_destinations: frozenset[str]
    fixpipe_types: Mapping[str, frozenset[tuple[str, str]]]  # dst space -> {(src, dst)}
    fixpipe_params: str | None  # Ascend C struct: "v220", "arch3510", "m300" or None
    fixpipe_none_to_l1: bool  # quant "none" allowed for L0C->L1 (not on a2/a3, §8.3 / F3)
    quant_modes: frozenset[str]
    nz2dn: bool  # Fixpipe NZ2DN (a5)
    nd2nz: bool  # GM->L1 ND2NZ
    dn2nz: bool  # GM->L1 DN2NZ (a5)
    small_c0: bool  # ND2NZ enableSmallC0 (a5)
    nd2nz_types: frozenset[str]
    load2d_types: frozenset[str]
    transpose_bits: frozenset[int]  # element widths the L1->L0 move can transpose per fractal
    gather_mask_types: Mapping[str, str]  # src0/dst elem -> pattern word elem
    gather_mask_patterns: tuple[int, ...]  # legal built-in patterns
    gather_counter_method: int  # 1, 2 (310p), 0 = no GatherMask
    gemv_disable: bool  # Mmad disableGemv exists (a5)
    k_direction_align: bool  # Mmad kDirectionAlign exists (a2/a3)
    unit_flag: bool  # Mmad/Fixpipe unitFlag exists
    notes: tuple[str, ...] = field(default=())
    # Mmad with m = 1 runs as GEMV (L0A read as an nd vector) unless disabled: every target
    # (seed-Mmad product list A2/A3/200I-A2/310P/910; Ascend C GEMV.md adds 950). See params.py.
    gemv_default: bool = True
    gm_atomic: Mapping[str, frozenset[str]] = field(default_factory=lambda: MappingProxyType({}))
    gm_atomic_sources: frozenset[str] = frozenset()
    # (L1, BT) element pairs the L1 -> BT bias load converts (CCE copy_cbuf_to_bt convControl):
    # pto-isa's TMOV to a bias tile sets it for half -> float on a2/a3 and for half / bfloat16
    # -> float on a5 (include/pto/npu/{a2a3,a5}/TMov.hpp); PTOAS's MteL1BtOp verifier lists
    # f16->f32 and bf16->f32. Other targets: no source, so none.
    bias_load_conversions: frozenset[tuple[str, str]] = frozenset()

    # -- queries -------------------------------------------------------------------------

    def has_space(self, space: str) -> bool:
        """True if the target has buffer `space` (GM always exists)."""
        _check_space(space)
        return space == "gm" or self.capacity[space] is not None

    def bias_type(self, lhs: str) -> str:
        """Bias element type of the Mmad bias form for left operand `lhs` (= dst type):
        s32 for integer inputs, f32 otherwise. ValueError if there is no bias form."""
        for a, _b, dst in self.mmad_bias_types:
            if a == lhs:
                return dst
        raise ValueError(f"Mmad with bias is not supported for lhs {lhs!r} on target {self.name}")

    def mmad_dst_types(self, lhs: str, rhs: str) -> frozenset[str]:
        """Legal accumulator types for an `lhs` x `rhs` Mmad."""
        return frozenset(d for a, b, d in self.mmad_types if (a, b) == (lhs, rhs))

    @property
    def has_fixpipe(self) -> bool:
        return bool(self.fixpipe_destinations)

    @property
    def has_gather_mask(self) -> bool:
        return bool(self.gather_mask_types)

    def gm_atomic_types(self, op: str) -> frozenset[str]:
        """The GM element types a store in atomic mode `op` (`GM_ATOMIC_OPS`) may update."""
        return self.gm_atomic.get(op, frozenset())

    def fixpipe_quant_ok(self, dst_space: str, quant: str, src: str, dst: str) -> bool:
        """True if Fixpipe L0C(`src`) -> `dst_space`(`dst`) with `quant` is legal: the
        destination exists, (src, dst) is in the §8.4 table, the mode exists on the target and
        converts src to dst, and `none` is not used for L0C->L1 on a2/a3 (§8.3, F3)."""
        if dst_space not in self.fixpipe_destinations or quant not in self.quant_modes:
            return False
        if (src, dst) not in self.fixpipe_types.get(dst_space, frozenset()):
            return False
        if (src, dst) not in QUANT_MODES[quant].pairs:
            return False
        return not (quant == "none" and dst_space == "l1" and not self.fixpipe_none_to_l1)

    def fixpipe_quant_modes_for(self, dst_space: str, src: str, dst: str) -> frozenset[str]:
        """All quant modes that make `fixpipe_quant_ok` true for this combination."""
        return frozenset(q for q in self.quant_modes if self.fixpipe_quant_ok(dst_space, q, src, dst))

    def nd2nz_ranges(self, dn: bool = False) -> Mapping[str, tuple[int, int]]:
        """ND2NZ (or, with `dn`, DN2NZ) static field ranges for this target."""
        if dn:
            return DN2NZ_RANGES
        return ND2NZ_RANGES_A5 if self.arch == 3510 else ND2NZ_RANGES

    def check_space_capacity(self, space: str, nbytes: int) -> bool:
        """True if `nbytes` fit in `space` (GM is unbounded)."""
        cap = self.capacity[space]
        if space == "gm":
            return True
        return cap is not None and nbytes <= cap


def _freeze(m: Mapping[str, frozenset[tuple[str, str]]]) -> Mapping[str, frozenset[tuple[str, str]]]:
    return MappingProxyType(dict(m))


def _pairs(src: str, dsts: str) -> frozenset[tuple[str, str]]:
    return frozenset((src, d) for d in dsts.split())


_MMAD_2201: frozenset[tuple[str, str, str]] = frozenset(
    {
        ("s8", "s8", "s32"),
        ("f16", "f16", "f32"),
        ("f32", "f32", "f32"),
        ("bf16", "bf16", "f32"),
        ("s4", "s4", "s32"),
    }
)
_MMAD_3510: frozenset[tuple[str, str, str]] = frozenset(
    {
        ("s8", "s8", "s32"),
        ("f16", "f16", "f32"),
        ("f32", "f32", "f32"),
        ("bf16", "bf16", "f32"),
        ("e4m3", "e4m3", "f32"),
        ("e4m3", "e5m2", "f32"),
        ("e5m2", "e4m3", "f32"),
        ("e5m2", "e5m2", "f32"),
        ("hif8", "hif8", "f32"),
    }
)
_MMAD_2002: frozenset[tuple[str, str, str]] = frozenset(
    {
        ("s8", "s8", "s32"),
        ("u8", "s8", "s32"),
        ("u8", "u8", "s32"),
        ("f16", "f16", "f16"),
        ("f16", "f16", "f32"),
        ("s4", "s4", "s32"),
    }
)
_MMAD_1001: frozenset[tuple[str, str, str]] = frozenset(
    {
        ("u8", "u8", "u32"),
        ("s8", "s8", "s32"),
        ("u8", "s8", "s32"),
        ("f16", "f16", "f16"),
        ("f16", "f16", "f32"),
    }
)

_FIXPIPE_GM_2201 = _pairs("f32", "s8 u8 f16 bf16 f32") | _pairs("s32", "s8 u8 f16 s32")
_FIXPIPE_L1_2201 = _pairs("f32", "s8 u8 f16 bf16") | _pairs("s32", "s8 u8 f16")
_FIXPIPE_GM_3510 = _pairs("f32", "s8 u8 hif8 e4m3 f16 bf16 f32") | _pairs("s32", "s8 u8 f16 bf16 s32")

_ND2NZ_2201 = frozenset("s4 s8 u8 s16 u16 s32 u32 f16 bf16 f32".split())
_LOAD2D_2201 = frozenset("s4 s8 u8 s16 u16 f16 bf16 s32 u32 f32".split())
_FP8_KINDS = frozenset("e4m3 e5m2 hif8 e2m1".split())
# L1->L0 fractal transpose: LoadData2D `ifTranspose` does b16 only, but LoadDataWithTranspose
# (Ascend C API page "LoadDataWithTranspose": A2, A3, 200I/500 A2, 950; not 310P / 910) adds
# b8 (32x32 blocks) and b32 (16x16 blocks), Ascend C `LoadDataWithTranspose.md`. 310p / 910 have b16 only.
_TRANSPOSE_2201 = frozenset({8, 16, 32})

_GATHER_2201: Mapping[str, str] = MappingProxyType(
    {"s16": "u16", "u16": "u16", "f16": "u16", "bf16": "u16", "s32": "u32", "u32": "u32", "f32": "u32"}
)
_GATHER_3510: Mapping[str, str] = MappingProxyType({**_GATHER_2201, "s8": "u8", "u8": "u8"})
_GATHER_2002: Mapping[str, str] = MappingProxyType(
    {k: v for k, v in _GATHER_2201.items() if k != "bf16"}
)


def _capacity(
    ub: int, l1: int, l0c: int, bt: int | None, fb: int | None
) -> Mapping[str, int | None]:
    return MappingProxyType(
        {"gm": None, "l1": l1, "l0a": 64 * K, "l0b": 64 * K, "l0c": l0c, "ub": ub, "bt": bt, "fb": fb}
    )


def _bias_types(types: frozenset[tuple[str, str, str]]) -> frozenset[tuple[str, str, str]]:
    # No bias form for s4 (§7.2).
    return frozenset(t for t in types if t[0] != "s4")


def _atomic(**ops: frozenset[str]) -> Mapping[str, frozenset[str]]:
    return MappingProxyType(dict(ops))


def _a2_like(name: str, product: str) -> Target:
    return Target(
        name=name,
        arch=2201,
        product=product,
        capacity=_capacity(ub=192 * K, l1=512 * K, l0c=128 * K, bt=1 * K, fb=2 * K),
        alignment=_BASE_ALIGNMENT,
        l0a_layout="zz",
        mmad_types=_MMAD_2201,
        mmad_bias=True,
        mmad_bias_types=_bias_types(_MMAD_2201),
        fixpipe_destinations=frozenset({"gm", "l1"}),
        fixpipe_types=_freeze({"gm": _FIXPIPE_GM_2201, "l1": _FIXPIPE_L1_2201}),
        fixpipe_params="v220",
        fixpipe_none_to_l1=False,
        quant_modes=BASE_QUANT_MODES,
        nz2dn=False,
        nd2nz=True,
        dn2nz=False,
        small_c0=False,
        nd2nz_types=_ND2NZ_2201,
        load2d_types=_LOAD2D_2201,
        transpose_bits=_TRANSPOSE_2201,
        gather_mask_types=_GATHER_2201,
        gather_mask_patterns=tuple(range(1, 8)),
        gather_counter_method=1,
        gemv_disable=False,
        k_direction_align=True,
        unit_flag=True,
        gm_atomic=_atomic(add=_ATOMIC_ALL, max=_ATOMIC_ALL, min=_ATOMIC_ALL),
        gm_atomic_sources=frozenset({"ub", "l0c", "l1"}),
        bias_load_conversions=frozenset({("f16", "f32")}),
    )


_TARGETS: dict[str, Target] = {
    "a2": _a2_like("a2", "Atlas A2 (Ascend 910B)"),
    "a3": _a2_like("a3", "Atlas A3 (Ascend 910C)"),
    "a5": Target(
        name="a5",
        arch=3510,
        product="Ascend 950PR / 950DT",
        # UB: 256 K hardware (248 K usable by default in Ascend C); mmair checks the hardware size.
        capacity=_capacity(ub=256 * K, l1=512 * K, l0c=256 * K, bt=4 * K, fb=4 * K),
        alignment=_BASE_ALIGNMENT,
        l0a_layout="nz",
        mmad_types=_MMAD_3510,
        mmad_bias=True,
        mmad_bias_types=_MMAD_3510,
        fixpipe_destinations=frozenset({"gm", "l1", "ub"}),
        # L1 and UB destinations: the sources only give the GM table; we assume the same [open].
        fixpipe_types=_freeze({"gm": _FIXPIPE_GM_3510, "l1": _FIXPIPE_GM_3510, "ub": _FIXPIPE_GM_3510}),
        fixpipe_params="arch3510",
        fixpipe_none_to_l1=True,
        quant_modes=A5_QUANT_MODES,
        nz2dn=True,
        nd2nz=True,
        dn2nz=True,
        small_c0=True,
        # Ascend 950 ND2NZ / DN2NZ GM -> A1/B1 type lists: fp4x2_e2m1_t, no int4b_t
        # (docs/pto-raw-params.md, decisions: "s4 ND2NZ on a5").
        nd2nz_types=(_ND2NZ_2201 - {"s4"}) | _FP8_KINDS,
        # Not listed per type in the sources [open]: the a2 set plus the fp8/hif8/fp4 kinds.
        load2d_types=_LOAD2D_2201 | _FP8_KINDS,
        transpose_bits=frozenset({4, 8, 16, 32}),
        gather_mask_types=_GATHER_3510,
        gather_mask_patterns=tuple(range(1, 8)),
        gather_counter_method=1,
        gemv_disable=True,
        k_direction_align=False,
        unit_flag=True,
        # Ascend 950: SetAtomicAdd / Max / Min, int8 ... float; "UB / L0C Buffer -> GM".
        gm_atomic=_atomic(add=_ATOMIC_ALL, max=_ATOMIC_ALL, min=_ATOMIC_ALL),
        gm_atomic_sources=frozenset({"ub", "l0c"}),
        bias_load_conversions=frozenset({("f16", "f32"), ("bf16", "f32")}),
    ),
    "310p": Target(
        name="310p",
        arch=2002,
        product="Atlas inference series AI Core (310P)",
        capacity=_capacity(ub=256 * K, l1=1024 * K, l0c=256 * K, bt=None, fb=None),
        alignment=_BASE_ALIGNMENT,
        l0a_layout="zz",
        mmad_types=_MMAD_2002,
        mmad_bias=False,
        mmad_bias_types=frozenset(),
        fixpipe_destinations=frozenset(),
        fixpipe_types=_freeze({}),
        fixpipe_params=None,
        fixpipe_none_to_l1=False,
        quant_modes=frozenset(),
        nz2dn=False,
        nd2nz=True,
        dn2nz=False,
        small_c0=False,
        nd2nz_types=frozenset("s16 u16 s32 u32 f16 f32".split()),
        load2d_types=frozenset("s4 s8 u8 s16 u16 f16".split()),
        transpose_bits=frozenset({16}),
        gather_mask_types=_GATHER_2002,
        gather_mask_patterns=tuple(range(1, 7)),
        gather_counter_method=2,
        gemv_disable=False,
        k_direction_align=False,
        unit_flag=False,
        # Atlas inference AI Core: SetAtomicAdd int16 / half / float, VECOUT -> GM only.
        gm_atomic=_atomic(add=frozenset({"s16", "f16", "f32"})),
        gm_atomic_sources=frozenset({"ub"}),
        notes=("ND2NZ needs 8 KB of UB scratch",),
    ),
    "200i_a2": Target(
        name="200i_a2",
        arch=3002,
        product="Atlas 200I/500 A2 (310B)",
        # BT / FB sizes are not in the sources [open]: assumed equal to 2201.
        capacity=_capacity(ub=248 * K, l1=1024 * K, l0c=128 * K, bt=1 * K, fb=2 * K),
        alignment=_BASE_ALIGNMENT,
        l0a_layout="zz",
        mmad_types=_MMAD_2201,
        mmad_bias=True,
        mmad_bias_types=_bias_types(_MMAD_2201),
        fixpipe_destinations=frozenset({"gm"}),
        fixpipe_types=_freeze({"gm": _FIXPIPE_GM_2201}),
        fixpipe_params="m300",
        fixpipe_none_to_l1=False,  # no L1 destination at all
        quant_modes=BASE_QUANT_MODES,
        nz2dn=False,
        nd2nz=False,
        dn2nz=False,
        small_c0=False,
        nd2nz_types=frozenset(),
        load2d_types=_LOAD2D_2201 - {"s4"},
        transpose_bits=_TRANSPOSE_2201,
        gather_mask_types=_GATHER_2002,
        gather_mask_patterns=tuple(range(1, 8)),
        gather_counter_method=1,
        gemv_disable=False,
        k_direction_align=False,
        unit_flag=False,
        # 200I/500 A2: SetAtomicAdd int16 / half / int32 / float, VECOUT / L0C / L1 -> GM;
        # SetAtomicMax / Min are not supported there.
        gm_atomic=_atomic(add=frozenset({"s16", "f16", "s32", "f32"})),
        gm_atomic_sources=frozenset({"ub", "l0c", "l1"}),
    ),
    "910": Target(
        name="910",
        arch=1001,
        product="Atlas training series (Ascend 910, first generation)",
        capacity=_capacity(ub=256 * K, l1=1024 * K, l0c=256 * K, bt=None, fb=None),
        # 1001 alignments are not in the sources [open]: assumed equal to 2002.
        alignment=_BASE_ALIGNMENT,
        l0a_layout="zz",
        mmad_types=_MMAD_1001,
        mmad_bias=False,
        mmad_bias_types=frozenset(),
        fixpipe_destinations=frozenset(),
        fixpipe_types=_freeze({}),
        fixpipe_params=None,
        fixpipe_none_to_l1=False,
        quant_modes=frozenset(),
        nz2dn=False,
        nd2nz=False,
        dn2nz=False,
        small_c0=False,
        nd2nz_types=frozenset(),
        load2d_types=frozenset("s8 u8 s16 u16 f16".split()),
        transpose_bits=frozenset({16}),
        gather_mask_types=MappingProxyType({}),
        gather_mask_patterns=(),
        gather_counter_method=0,
        gemv_disable=False,
        k_direction_align=False,
        unit_flag=False,
        # Atlas training series: SetAtomicAdd float, VECOUT -> GM only.
        gm_atomic=_atomic(add=frozenset({"f32"})),
        gm_atomic_sources=frozenset({"ub"}),
    ),
}
assert tuple(_TARGETS) == TARGET_NAMES


def get_target(name: str) -> Target:
    """The `Target` called `name`; raises `UnknownTargetError` naming the legal set."""
    try:
        return _TARGETS[name]
    except (KeyError, TypeError):
        raise UnknownTargetError(name) from None
