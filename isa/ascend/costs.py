"""Cycle costs of the pto ops per Ascend target: the numbers behind `mmair-run --timing`.

An AI Core runs each pipe's instructions in order; the executor's timeline (executor/engine/timeline.py)
places every pipe event at max(its pipe is free, its happens-before predecessors have finished) and
gives it the duration this module computes. Every constant below names its public source or is
marked ASSUMPTION (no public calibrated figure found); docs/costs.md is the table with sources.

Main source: CANN's per-SoC platform files (`platform_config/<SoC>.ini`, section
`[AICoreMemoryRates]` in bytes per cycle, `[AICoreSpec] cube_freq` in MHz, `[DtypeMKN]` the cube's
m x k x n step per element type), the numbers the CANN compiler's own cost model reads. A data
move costs `latency + ceil(bytes / rate)`; a mad costs one cube step (16 x k0 x 16, k0 = 32 bytes
of the input element) per cycle plus a pipeline latency. Pure Python, no xDSL.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import ceil

from mmair.isa.ascend.pipes import CUBE_CORES
from mmair.isa.ascend.targets import element_bits


@dataclass(frozen=True)
class Rate:
    """A data path: `bytes_per_cycle` sustained and `latency` cycles before the first byte."""

    bytes_per_cycle: float
    latency: int
    source: str

    def cycles(self, nbytes: int) -> int:
        return self.latency + ceil(nbytes / self.bytes_per_cycle)


@dataclass(frozen=True)
class Costs:
    """The cost constants of one target (module docstring; docs/costs.md)."""

    target: str
    clock_mhz: float
    clock_source: str
    gm_read: Rate  # MTE2: GM -> L1 / UB from DDR (HBM): an L2 miss, this core's share
    gm_write: Rate  # MTE3 UB -> GM and FIX L0C -> GM to DDR (HBM) when there is no L2
    l1_l0a: Rate  # MTE1
    l1_l0b: Rate  # MTE1 (also L1 -> BT)
    l0c_out: Rate  # FIX: L0C -> L1 / UB (on-chip destination)
    vector_bytes_per_cycle: int  # V: one 256-byte repeat per cycle
    mad_latency: int
    fix_latency: int
    quant_latency: int  # extra FIX latency when the fixpipe converts (quantizes) on the way
    flag_latency: int  # a set_flag reaching its wait_flag
    barrier_latency: int
    issue_cycles: int  # every pipe instruction occupies its pipe at least this long
    l2_bytes: int = 0  # L2 capacity shared by all cores of a launch (0: no L2)
    l2_line_bytes: int = 512
    l2_read: Rate | None = None  # a GM read that hits L2
    l2_write: Rate | None = None  # a GM write (write-back L2: every write lands in L2)
    cores: int = 1  # AI Cores sharing the DDR read bandwidth
    ddr_chip_read: float = 0.0  # bytes per cycle the DDR gives all cores together
    sources: tuple[tuple[str, str], ...] = ()
    """(field, source) of the L2 and DDR figures (the rates carry their own)."""

    @property
    def gm_write_rate(self) -> Rate:
        """The rate a GM write runs at: L2's when the target has one (write-back), else DDR's."""
        return self.l2_write if self.l2_bytes and self.l2_write is not None else self.gm_write

    def ddr_read_share(self, readers: int) -> float:
        """Bytes per cycle one core reads from DDR while `readers` cores read DDR at once: an
        equal share of the chip's DDR bandwidth, at most what the core's read port takes (the
        L2 read rate: DDR data reaches the core through L2; without L2, the per-core DDR rate).
        With every core reading, the share is the ini's per-core `ddr_read_rate`."""
        port = self.l2_read if self.l2_bytes and self.l2_read is not None else self.gm_read
        if not self.ddr_chip_read:
            return self.gm_read.bytes_per_cycle
        return min(port.bytes_per_cycle, self.ddr_chip_read / max(readers, 1))


_CANN_INI = "CANN platform_config/{soc}.ini [AICoreMemoryRates] / [AICoreSpec]"

# ASSUMPTIONS shared by every target (no public calibrated figure found; docs/costs.md):
GM_LATENCY = 200
"""ASSUMPTION: cycles from an MTE2 / MTE3 request to the first GM byte (HBM through L2)."""
ONCHIP_LATENCY = 16
"""ASSUMPTION: cycles before the first byte of an on-chip move (L1 -> L0, L0C -> L1)."""
MAD_LATENCY = 16
"""ASSUMPTION: cube pipeline depth in cycles (a mad's result lands this long after its last step)."""
FIX_LATENCY = 32
"""ASSUMPTION: fixpipe start-up in cycles (per instruction)."""
QUANT_LATENCY = 8
"""ASSUMPTION: extra fixpipe cycles when it converts on the way (quantization is done in-line
("随路") at the fixpipe's byte rate, so only a start-up cost is added)."""
FLAG_LATENCY = 2
"""ASSUMPTION: cycles from a set_flag firing to the matching wait_flag releasing its pipe."""
BARRIER_LATENCY = 2
"""ASSUMPTION: cycles a pipe_barrier adds once the pipe has drained."""
L2_LINE_BYTES = 512
"""ASSUMPTION: the L2 line (the unit the L2 model keeps or evicts) is 512 bytes, the GM access
granule Ascend's tiling guides align to (no public L2 line size found)."""
L2_LATENCY = GM_LATENCY
"""ASSUMPTION: an L2 hit has the GM latency too (only the rate differs between hit and miss)."""
VECTOR_REPEAT_BYTES = 256
"""Ascend C vector instructions process one 256-byte repeat (8 x 32-byte blocks) per iteration
(Ascend C API reference, "repeatTimes" of the vector instructions); ASSUMPTION: one per cycle."""
CUBE_K_BYTES = 32
"""The cube's k step is one 32-byte C0 of the input element: 16 for f16/bf16, 32 for s8, 64 for s4
(CANN platform_config [DtypeMKN]: Default=16,16,16, DT_INT8=16,32,16, DT_INT4=16,64,16), 8 for
f32 (k0 of an f32 fractal, Ascend C Mmad)."""
CUBE_MN = 16
"""The cube's m and n step ([AICoreSpec] cube_m_size = cube_n_size = 16)."""


def _ini(soc: str) -> str:
    return _CANN_INI.format(soc=soc)


@dataclass(frozen=True)
class _L2:
    """The L2 figures of one SoC: capacity (`[SoCInfo] l2_size`), per-core read and write rates
    (`[AICoreMemoryRates] l2_read_rate / l2_write_rate`), and where they come from."""

    size: int
    read: int
    write: int
    source: str


_A2_L2_SRC = ("CANN platform_config/Ascend910B*.ini: [SoCInfo] l2_size=201326592, "
              "[AICoreMemoryRates] l2_read_rate=110, l2_write_rate=86; CATLASS "
              "include/acot/arch/arch.hpp AscendC910B3 L2CacheByte = 192 * 1024 * 1024")
_L2_TABLE: dict[str, _L2] = {
    "a2": _L2(201326592, 110, 86, _A2_L2_SRC),
    "a3": _L2(201326592, 110, 86, f"ASSUMPTION: as a2 ({_A2_L2_SRC})"),
    "a5": _L2(201326592, 110, 86, f"ASSUMPTION: as a2, no public 950 L2 figure found ({_A2_L2_SRC})"),
    "910": _L2(33554432, 110, 86, "ASSUMPTION: 32 MB (Ascend 910 product brief), rates as a2"),
    "310p": _L2(8388608, 110, 86, "ASSUMPTION: 8 MB, rates as a2 (no public figure found)"),
    "200i_a2": _L2(4194304, 110, 86, "ASSUMPTION: 4 MB, rates as a2 (no public figure found)"),
}


def _target_costs(target: str, clock: int, clock_src: str, ddr: int, ddr_w: int, l0a: int,
                  l0b: int, l0c: int, rate_src: str) -> Costs:
    l2 = _L2_TABLE[target]
    cores = CUBE_CORES[target]
    return Costs(
        target=target, clock_mhz=clock, clock_source=clock_src,
        gm_read=Rate(ddr, GM_LATENCY, f"ddr_read_rate, {rate_src}"),
        gm_write=Rate(ddr_w, GM_LATENCY, f"ddr_write_rate, {rate_src}"),
        l1_l0a=Rate(l0a, ONCHIP_LATENCY, f"l1_to_l0_a_rate, {rate_src}"),
        l1_l0b=Rate(l0b, ONCHIP_LATENCY, f"l1_to_l0_b_rate, {rate_src}"),
        l0c_out=Rate(l0c, ONCHIP_LATENCY, f"l0_c_to_ub_rate, {rate_src}"),
        vector_bytes_per_cycle=VECTOR_REPEAT_BYTES,
        mad_latency=MAD_LATENCY, fix_latency=FIX_LATENCY, quant_latency=QUANT_LATENCY,
        flag_latency=FLAG_LATENCY, barrier_latency=BARRIER_LATENCY, issue_cycles=1,
        l2_bytes=l2.size, l2_line_bytes=L2_LINE_BYTES,
        l2_read=Rate(l2.read, L2_LATENCY, f"l2_read_rate, {l2.source}"),
        l2_write=Rate(l2.write, L2_LATENCY, f"l2_write_rate, {l2.source}"),
        cores=cores, ddr_chip_read=float(ddr * cores),
        sources=(
            ("l2_bytes", f"l2_size, {l2.source}"),
            ("l2_line_bytes", "ASSUMPTION (L2_LINE_BYTES)"),
            ("cores", "ai_core_cnt (isa/ascend/pipes.py CUBE_CORES)"),
            ("ddr_chip_read", f"ddr_read_rate x ai_core_cnt: the ini's per-core DDR rate is each "
                              f"core's share when all cores read ({rate_src})"),
        ),
    )


_A2_SRC = _ini("Ascend910B2C")
_COSTS: dict[str, Costs] = {
    # Ascend 910B: cube_freq=1800, ddr 32 B/cycle, L1->L0A 512, L1->L0B 256, L0C->UB 256.
    "a2": _target_costs("a2", 1800, f"cube_freq, {_A2_SRC}", 32, 32, 512, 256, 256, _A2_SRC),
    # Ascend 910C: ASSUMPTION: the 910B figures (same AIC-C-220 core; no public .ini found).
    "a3": _target_costs("a3", 1800, f"ASSUMPTION: as a2 ({_A2_SRC})", 32, 32, 512, 256, 256,
                        f"ASSUMPTION: as a2 ({_A2_SRC})"),
    # Ascend 950PR: cube_freq=1650, ddr 27, L1->L0A 256, L1->L0B 256, L0C->UB 128.
    "a5": _target_costs("a5", 1650, f"cube_freq, {_ini('Ascend950PR_957bx')}", 27, 27, 256, 256,
                        128, _ini("Ascend950PR_957bx")),
    # Ascend 310P and the 200I A2 (310B): ASSUMPTION: the 910 rates at 1000 MHz (no public
    # platform file found for them).
    "310p": _target_costs("310p", 1000, "ASSUMPTION (no public figure found)", 32, 32, 512, 256,
                          256, f"ASSUMPTION: as 910 ({_ini('Ascend910A')})"),
    "200i_a2": _target_costs("200i_a2", 1000, "ASSUMPTION (no public figure found)", 32, 32, 512,
                             256, 256, f"ASSUMPTION: as 910 ({_ini('Ascend910A')})"),
    # Ascend 910 (910A): cube_freq=1000, same rates as 910B.
    "910": _target_costs("910", 1000, f"cube_freq, {_ini('Ascend910A')}", 32, 32, 512, 256, 256,
                         _ini("Ascend910A")),
}


def costs(target: str | Costs) -> Costs:
    """The cost constants of `target` (a name of `targets.TARGET_NAMES`; a `Costs` is itself, so
    that every function below also takes a calibrated table, `isa.ascend.calibration`)."""
    if isinstance(target, Costs):
        return target
    try:
        return _COSTS[target]
    except KeyError:
        raise ValueError(f"no cost table for Ascend target {target!r} "
                         f"(known: {', '.join(_COSTS)})") from None


def cube_k0(elem: str) -> int:
    """Elements of the cube's k step for input element `elem` (`CUBE_K_BYTES`)."""
    return max(1, CUBE_K_BYTES * 8 // element_bits(elem))


def mad_steps(m: int, n: int, k: int, elem: str) -> int:
    """Cube steps of an m x k x n mad: one 16 x k0 x 16 fractal product per cycle."""
    return ceil(m / CUBE_MN) * ceil(n / CUBE_MN) * ceil(k / cube_k0(elem))


def mad_cycles(target: str | Costs, m: int, n: int, k: int, elem: str) -> int:
    """Cycles the cube (pipe M) is busy with an m x k x n mad of `elem` inputs."""
    return costs(target).mad_latency + mad_steps(m, n, k, elem)


# The raw Ascend C parameter forms (dialects/pto/params.py) run on the data paths of the tile-level
# moves they lower from (`pipes.pipe_of`: the same pipe and memories), so each is charged the rate
# of that path: kind -> the tile-level kind, or None where the L0 destination picks it.
RAW_MOVE_PATHS: dict[str, str | None] = {
    "copy_nd2nz": "mte_gm_l1",  # DataCopy Nd2NzParams: GM -> L1, MTE2
    "copy_dn2nz": "mte_gm_l1",  # DataCopy Dn2NzParams: GM -> L1, MTE2
    "copy_gm_l1": "mte_gm_l1",  # DataCopy DataCopyParams (copy_gm_to_cbuf): GM -> L1, MTE2
    "load_2d_gm": "mte_gm_l1",  # load_gm_to_cbuf: GM -> L1, MTE2
    "load_2d_v2_gm": "mte_gm_l1",  # load_gm_to_cbuf_2dv2: GM -> L1, MTE2
    "load_2d": None,  # LoadData: L1 -> L0A / L0B, MTE1
    "load_2d_transpose": None,
    "load_2d_v2": None,
    "copy_l1_bt": "mte_l1_bt",  # copy_cbuf_to_bt: L1 -> BT, MTE1
}


GM_READ_PATHS = ("mte_gm_l1", "mte_gm_ub")
"""The tile-level move kinds that read GM (through L2): what the L2 model re-prices."""


def gm_read_kind(kind: str) -> bool:
    """Whether pipe op kind `kind` (tile level or raw form) reads GM on MTE2."""
    return kind in GM_READ_PATHS or RAW_MOVE_PATHS.get(kind) in GM_READ_PATHS


def move_cycles(target: str | Costs, kind: str, nbytes: int, dst_space: str = "") -> int:
    """Cycles of a data move of `nbytes` (the bytes written) by op kind (`pipes.pipe_of` kinds;
    a raw form is charged as the tile-level move on its path, `RAW_MOVE_PATHS`, the L1 -> L0
    loads by `dst_space`)."""
    c = costs(target)
    if kind in RAW_MOVE_PATHS:
        kind = RAW_MOVE_PATHS[kind] or ("mte_l1_l0a" if dst_space == "l0a" else "mte_l1_l0b")
    if kind in ("mte_gm_l1", "mte_gm_ub"):
        return c.gm_read.cycles(nbytes)
    if kind == "mte_ub_gm":
        return c.gm_write_rate.cycles(nbytes)
    if kind == "mte_l1_l0a":
        return c.l1_l0a.cycles(nbytes)
    # L1 -> FB: no source gives its rate; charged as the other L1 -> side-buffer copy (L1 -> BT)
    if kind in ("mte_l1_l0b", "mte_l1_bt", "mte_l1_fb"):
        return c.l1_l0b.cycles(nbytes)
    raise ValueError(f"no move cost for op kind {kind!r}")


def fixpipe_cycles(target: str | Costs, nbytes: int, dst_space: str, quantized: bool) -> int:
    """Cycles of a fixpipe writing `nbytes` to `dst_space`: L0C read at the L0C rate, the write
    at the GM rate for GM, plus the start-up (and the conversion start-up when `quantized`)."""
    c = costs(target)
    write = c.gm_write_rate
    rate = min(c.l0c_out.bytes_per_cycle, write.bytes_per_cycle) if dst_space == "gm" \
        else c.l0c_out.bytes_per_cycle
    latency = c.fix_latency + (c.quant_latency if quantized else 0) + \
        (write.latency if dst_space == "gm" else 0)
    return latency + ceil(nbytes / rate)


def gather_mask_cycles(target: str | Costs, src_bytes: int) -> int:
    """Cycles of a GatherMask on the vector pipe reading `src_bytes`: one 256-byte repeat each."""
    c = costs(target)
    return c.issue_cycles + ceil(src_bytes / c.vector_bytes_per_cycle)


def sync_cycles(target: str | Costs, kind: str) -> int:
    """set_flag / wait_flag / pipe_barrier: the latency they add on their pipe."""
    c = costs(target)
    if kind in ("set_flag", "wait_flag"):
        return c.flag_latency
    return c.barrier_latency


def seconds(target: str | Costs, cycles: int) -> float:
    """`cycles` at the target's core clock."""
    return cycles / (costs(target).clock_mhz * 1e6)


__all__ = [
    "RAW_MOVE_PATHS", "Costs", "Rate", "costs", "cube_k0", "fixpipe_cycles", "gather_mask_cycles", "mad_cycles",
    "GM_READ_PATHS", "gm_read_kind", "mad_steps", "move_cycles", "seconds", "sync_cycles",
]
