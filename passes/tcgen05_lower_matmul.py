"""`tcgen05-lower-matmul`: lower `tcgen05.matmul` to a CUTLASS-style Blackwell kernel (one CTA,
or with `cta-group=2` a CTA pair).

The plan (tile, K block, boxes, descriptors, stage count, TMEM buffers) is
`mmair.isa.tcgen05.matmul.plan_matmul`; this pass writes the kernel it describes (the schedule
and a picture of the ring: docs/tcgen05-tma.md, "The tcgen05.matmul lowering"):

    for g in 0 .. tiles * k_blocks + stages - 1:       one flat, software-pipelined loop
      if g < tiles * k_blocks:  PRODUCE block g         (stage g % S, use g / S)
        wait empty[s] (phase use - 1) when g >= S       the MMAs that read the stage completed
        elected: arrive full[s] expect_tx(stage bytes); tma_load A and B boxes -> full[s]
      if g >= S - 1:  CONSUME block c = g - (S - 1)
        wait full[s] (phase use); elected: the block's MMAs into acc[tile % 2]
        (accumulate from the tile's second MMA), commit -> empty[s]; on the tile's last block
        commit -> acc_full[tile % 2], then the EPILOGUE of the previous tile (of this tile
        with one accumulator buffer)
    EPILOGUE of the last tile (two buffers)
    EPILOGUE t: wait acc_full[t % 2] (phase t / 2 % 2); tcgen05.ld 32x32b per warp and column
      chunk (.pack::16b for an f16 D: `plan.epilogue_loads`); wait_ld; memref.copy of the rows
      and columns inside D (static sizes per edge case)

The epilogue of tile t runs while the MMAs of tile t + 1 fill the other accumulator buffer. With
one buffer (two do not fit TMEM next to a block-scaled kernel's scale factors) the epilogue of
tile t runs right after its last commit, and the MMAs of t + 1 follow it in program order (after
its wait_ld). Remainder tiles load full boxes (TMA fills outside the tensor with
zeros) and store clipped windows. The kernel is emitted as MLIR text (the same ops a hand-written
kernel has, see examples/tcgen05_gemm_tma.mlir), parsed, and spliced in place of the matmul.

`cta-group=2` writes CUTLASS's 2-SM kernel on a CTA pair (docs/tcgen05-tma.md, "The CTA-pair
kernel"): both CTAs run the loop above on their own ring (A rows m0 + 128 rank, B rows
n0 + N/2 rank), their copies `.cta_group::2` into the leader's full barrier, which only the
leader announces (both CTAs' bytes), waits and consumes with `cta_group(2)` MMAs whose commits
multicast to both CTAs; each CTA's epilogue stores its TMEM rows, and the CTAs meet at
`tcgen05.cluster_sync` after the allocations and after each epilogue that frees an accumulator.
A block-scaled pair also copies each CTA's scale atoms (its 128 A rows', all the tile's B
columns') onto the leader's barrier, and the leader's `tcgen05.cp` `cta_group(2)` moves them into
each CTA's TMEM before its `block_scale` MMAs.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType, ModuleOp, StringAttr
from xdsl.parser import Parser
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from mmair.dialects import tcgen05
from mmair.dialects.types import element_type
from mmair.isa.tcgen05 import scale_atoms
from mmair.isa.tcgen05.errors import DescriptorError
from mmair.isa.tcgen05.matmul import CTA_GROUPS, MatmulPlan, OperandPlan, ScaleOperandPlan
from mmair.isa.tcgen05.tma import PADDED_TYPES
from mmair.passes.pass_errors import PassOpError

DYN = "-9223372036854775808"
SMEM = "#tcgen05.space<smem>"
TMEM = "#tcgen05.space<tmem>"
BAR = f"memref<1xi64, strided<[1], offset: ?>, {SMEM}>"


def _subview(result: str, source: str, source_type: str, dynamic: list[str],
             offsets: list[str | int], sizes: list[int], result_type: str) -> str:
    """A generic-form `memref.subview` (unit strides); offsets "?" take the `dynamic` values."""
    static = ", ".join(DYN if o == "?" else str(o) for o in offsets)
    operands = ", ".join([source, *dynamic])
    types = ", ".join([source_type] + ["index"] * len(dynamic))
    return (f'{result} = "memref.subview"({operands}) <{{static_offsets = array<i64: {static}>, '
            f'static_sizes = array<i64: {", ".join(map(str, sizes))}>, static_strides = '
            f'array<i64: {", ".join("1" * len(sizes))}>, operandSegmentSizes = array<i32: 1, '
            f'{len(dynamic)}, 0, 0>}}> : ({types}) -> {result_type}')


@dataclass
class _Emitter:
    plan: MatmulPlan
    a_type: str
    b_type: str
    d_type: str
    a_elem: str
    b_elem: str
    relinquish: bool = True
    scale_types: tuple[str, str] | None = None  # the scale memrefs' types (block-scaled)
    scale_elem: str = ""

    def __post_init__(self) -> None:
        self.group = self.plan.cta_group
        self.pair = self.group == 2
        self.lines: list[str] = []
        self.depth = 1
        self.counter = 0
        self.constants: dict[tuple[int, str], str] = {}

    # ---- helpers --------------------------------------------------------------------------
    def emit(self, line: str) -> None:
        self.lines.append("  " * self.depth + line)

    def fresh(self, hint: str) -> str:
        self.counter += 1
        return f"%{hint}{self.counter}"

    def const(self, value: int, type_: str = "index") -> str:
        key = (value, type_)
        if key not in self.constants:
            name = f"%c{value}" if type_ == "index" else f"%c{value}_{type_}"
            name = name.replace("-", "m")
            self.constants[key] = name
        return self.constants[key]

    def op(self, hint: str, text: str) -> str:
        name = self.fresh(hint)
        self.emit(f"{name} = {text}")
        return name

    def block(self, head: str) -> Iterator[None]:
        self.emit(head + " {")
        self.depth += 1
        yield
        self.depth -= 1
        self.emit("}")

    def if_(self, cond: str) -> Iterator[None]:
        return self.block(f"scf.if {cond}")

    def else_(self) -> None:
        self.depth -= 1
        self.emit("} else {")
        self.depth += 1

    def parity(self, phase: str) -> str:
        bit = self.op("bit", f"arith.remui {phase}, {self.const(2)} : index")
        return self.op("parity", f"arith.cmpi ne, {bit}, {self.const(0)} : index")

    def barrier(self, index: str) -> str:
        bars = f"memref<{2 * self.plan.stages + 2}xi64, {SMEM}>"
        name = self.fresh("bar")
        self.emit(_subview(name, "%bars", bars, [index], ["?"], [1], BAR))
        return name

    def i32(self, value: str) -> str:
        return self.op("i", f"arith.index_cast {value} : index to i32")

    # ---- the kernel -------------------------------------------------------------------------
    def stage_type(self, operand: OperandPlan, elem: str) -> str:
        p = self.plan
        if operand.major == "k":
            cols, elem = self.k_columns(operand, elem)
            return f"memref<{p.stages}x{operand.rows}x{cols}x{elem}, {SMEM}>"
        elem = self.smem_elem(operand, elem)
        return f"memref<{p.stages}x{operand.boxes}x{p.block_k}x{operand.atom}x{elem}, {SMEM}>"

    @staticmethod
    def smem_elem(operand: OperandPlan, elem: str) -> str:
        """The SMEM buffer's element type: sub-byte types live in i8 containers (packed two per
        byte for kind::mxf4*, one 16-byte unit per 16 elements for the padded f8f6f4 types)."""
        sub_byte = operand.element_bits < 8 or operand.tensor_map.dtype in PADDED_TYPES
        return "i8" if sub_byte else elem

    def k_columns(self, operand: OperandPlan, elem: str) -> tuple[int, str]:
        """(columns, element type) of a K-major tile row in SMEM: a sub-byte operand's row is
        bytes (`smem_elem`), two 4-bit elements per byte for kind::mxf4*."""
        container = self.smem_elem(operand, elem)
        if container != elem:  # a row of bytes
            return self.plan.block_k * operand.element_bits // 8, container
        return self.plan.block_k, elem

    def box_type(self, operand: OperandPlan, elem: str) -> str:
        p = self.plan
        if operand.major == "k":
            cols, elem = self.k_columns(operand, elem)
            return f"memref<{operand.rows}x{cols}x{elem}, strided<[{cols}, 1], " \
                   f"offset: ?>, {SMEM}>"
        elem = self.smem_elem(operand, elem)
        return f"memref<{p.block_k}x{operand.atom}x{elem}, strided<[{operand.atom}, 1], " \
               f"offset: ?>, {SMEM}>"

    def tensor_map(self, name: str, value: str, operand: OperandPlan, type_: str) -> None:
        m = operand.tensor_map
        self.emit(f"{name} = tcgen05.make_tensor_map {value}, #tcgen05.tensor_map<dtype = "
                  f"{m.dtype}, dims = [{', '.join(map(str, m.dims))}], strides = "
                  f"[{', '.join(map(str, m.strides))}], box = [{', '.join(map(str, m.box))}], "
                  f"swizzle = {m.swizzle}> : {type_}")

    def smem_desc(self, name: str, operand: OperandPlan, start: int) -> None:
        self.emit(f"{name} = tcgen05.make_smem_desc #tcgen05.smem_desc<start = {start}, lbo = "
                  f"{operand.lbo}, sbo = {operand.sbo}, base_offset = 0, lbo_mode = relative, "
                  f"swizzle = {operand.swizzle}>")

    def scale_stage_type(self, operand: ScaleOperandPlan) -> str:
        return (f"memref<{self.plan.stages}x{operand.atoms_mn}x{operand.atoms_k}x"
                f"{scale_atoms.ATOM_LANES}x{scale_atoms.ATOM_ROW_BYTES}x{self.scale_elem}, {SMEM}>")

    def scale_box_type(self, operand: ScaleOperandPlan) -> str:
        lanes, row = scale_atoms.ATOM_LANES, scale_atoms.ATOM_ROW_BYTES
        return (f"memref<{operand.atoms_mn}x{operand.atoms_k}x{lanes}x{row}x{self.scale_elem}, "
                f"strided<[{operand.atoms_k * lanes * row}, {lanes * row}, {row}, 1], "
                f"offset: ?>, {SMEM}>")

    def scale_tmem_type(self, operand: ScaleOperandPlan) -> str:
        return f"memref<128x{operand.alloc_columns}xi32, {TMEM}>"

    def scale_view_type(self, operand: ScaleOperandPlan, column: int, columns: int) -> str:
        return (f"memref<128x{columns}xi32, strided<[{operand.alloc_columns}, 1], offset: "
                f"{column}>, {TMEM}>")

    def scale_tmem(self) -> None:
        """The scale factors' TMEM (one K block's atoms, rewritten by the cps of every block:
        cp and mma execute in issue order) and the static column windows the cps and MMAs use."""
        p = self.plan
        assert p.scales is not None
        self.views: dict[tuple[str, int, int], str] = {}
        for name, operand in (("sa", p.scales.a), ("sb", p.scales.b)):
            t = self.scale_tmem_type(operand)
            self.emit(f"%{name}_t = tcgen05.alloc cta_group({self.group}) columns("
                      f"{operand.alloc_columns}) : {t}")
            windows = {(operand.column(i, j), scale_atoms.ATOM_COLUMNS)
                       for i in range(operand.atoms_k) for j in range(operand.atoms_mn)}
            mma_columns = scale_atoms.ATOM_COLUMNS * operand.atoms_mn
            windows |= {(operand.column(p.scales.mma_scales(mma)[0], 0), mma_columns)
                        for mma in range(p.mmas_per_block)}
            for column, columns in sorted(windows):
                view = f"%{name}_c{column}_{columns}"
                self.emit(_subview(view, f"%{name}_t", t, [], [0, column], [128, columns],
                                   self.scale_view_type(operand, column, columns)))
                self.views[(name, column, columns)] = view

    @property
    def d_elem(self) -> str:
        """The MLIR element type of D (f32, f16; s32 is i32)."""
        return str(element_type(self.plan.dtype))

    def acc_type(self) -> str:
        return f"memref<{self.plan.cta_tile_m}x{self.plan.tile_n}x{self.d_elem}, {TMEM}>"

    def body(self) -> str:
        p = self.plan
        d = p.idesc()
        flags = "".join(f", {f} = true" for f, on in (("transpose_a", d.transpose_a),
                                                      ("transpose_b", d.transpose_b),
                                                      ("saturate", d.saturate)) if on)
        if self.pair:  # the CTA's rank in the pair; rank 0, the leader, issues the MMAs
            self.emit("%rank_i32 = tcgen05.cluster_rank : i32")
            self.emit("%rank = arith.index_cast %rank_i32 : i32 to index")
            self.emit(f"%leader = arith.cmpi eq, %rank_i32, {self.const(0, 'i32')} : i32")
            self.emit(f"%pair_mask = arith.constant {(1 << self.group) - 1} : i16")
        self.tensor_map("%tma_a", "%a", p.a, self.a_type)
        self.tensor_map("%tma_b", "%b", p.b, self.b_type)
        if p.scales is None:
            self.emit(f"%idesc = tcgen05.make_idesc #tcgen05.idesc<kind = {p.kind}, dtype = "
                      f"{p.dtype}, atype = {p.atype}, btype = {p.btype}, m = {p.tile_m}, n = "
                      f"{p.tile_n}{flags}>")
        else:
            assert self.scale_types is not None
            self.tensor_map("%tma_sa", "%sa", p.scales.a, self.scale_types[0])
            self.tensor_map("%tma_sb", "%sb", p.scales.b, self.scale_types[1])
            for mma in range(p.mmas_per_block):  # one descriptor per SF id
                d = p.idesc(mma)
                self.emit(f"%idesc{mma} = tcgen05.make_idesc #tcgen05.idesc<kind = {p.kind}, "
                          f"atype = {p.atype}, btype = {p.btype}, m = {p.tile_m}, n = "
                          f"{p.tile_n}{flags}, scale_type = {d.scale_type}, sfa_id = "
                          f"{d.sfa_id}, sfb_id = {d.sfb_id}>")
        self.smem_desc("%a_desc0", p.a, p.a_offset)
        self.smem_desc("%b_desc0", p.b, p.b_offset)
        self.emit(f"%a_stages = tcgen05.smem_alloc offset({p.a_offset}) : "
                  f"{self.stage_type(p.a, self.a_elem)}")
        self.emit(f"%b_stages = tcgen05.smem_alloc offset({p.b_offset}) : "
                  f"{self.stage_type(p.b, self.b_elem)}")
        if p.scales is not None:
            for name, operand, offset in (("sa", p.scales.a, p.sfa_offset),
                                          ("sb", p.scales.b, p.sfb_offset)):
                self.emit(f"%{name}_desc0 = tcgen05.make_smem_desc #tcgen05.smem_desc<start = "
                          f"{offset}, lbo = {scale_atoms.CP_LBO}, sbo = {scale_atoms.CP_SBO}, "
                          f"base_offset = 0, lbo_mode = relative, swizzle = none>")
                self.emit(f"%{name}_stages = tcgen05.smem_alloc offset({offset}) : "
                          f"{self.scale_stage_type(operand)}")
        nbars = 2 * p.stages + 2
        self.emit(f"%bars = tcgen05.smem_alloc offset({p.barrier_offset}) : "
                  f"memref<{nbars}xi64, {SMEM}>")
        for _ in self.block(f"scf.for %i = {self.const(0)} to {self.const(nbars)} step "
                            f"{self.const(1)}"):
            bar = self.barrier("%i")
            self.emit(f"tcgen05.mbarrier_init {bar} count(1) : {BAR}")
        self.emit("tcgen05.fence_proxy_async")
        accs = [f"%acc{i}" for i in range(p.acc_buffers)]
        for acc in accs:
            self.emit(f"{acc} = tcgen05.alloc cta_group({self.group}) columns({p.acc_columns})"
                      f" : {self.acc_type()}")
        if p.scales is not None:
            self.scale_tmem()
        if self.relinquish:  # not when a later op of the kernel still allocates TMEM
            self.emit(f"tcgen05.relinquish_alloc_permit cta_group({self.group})")
        if self.pair:  # both CTAs' mbarriers and TMEM exist before the peer's copies and the MMAs
            self.cluster_sync()
        total = p.tiles * p.k_blocks
        lag = p.stages - 1
        for _ in self.block(f"scf.for %g = {self.const(0)} to {self.const(total + lag)} step "
                            f"{self.const(1)}"):
            produce = self.op("produce", f"arith.cmpi ult, %g, {self.const(total)} : index")
            for _ in self.if_(produce):
                self.produce("%g")
            consume = self.op("consume", f"arith.cmpi uge, %g, {self.const(lag)} : index")
            for _ in self.if_(consume):
                block = self.op("blk", f"arith.subi %g, {self.const(lag)} : index")
                self.consume(block, accs)
        if len(accs) == 2:
            self.epilogue(self.const(p.tiles - 1), accs)
        for acc in accs:
            self.emit(f"tcgen05.dealloc cta_group({self.group}) {acc} : {self.acc_type()}")
        if p.scales is not None:
            for name, operand in (("sa", p.scales.a), ("sb", p.scales.b)):
                self.emit(f"tcgen05.dealloc cta_group({self.group}) %{name}_t : "
                          f"{self.scale_tmem_type(operand)}")
        self.emit("func.return")
        consts = [f"  {name} = arith.constant {value} : {type_}"
                  for (value, type_), name in self.constants.items()]
        return "\n".join(consts + self.lines)

    def cluster_sync(self) -> None:
        """Both CTAs of the pair meet (their tcgen05 ops ordered around the barrier)."""
        self.emit("tcgen05.fence_before_thread_sync")
        self.emit("tcgen05.cluster_sync")
        self.emit("tcgen05.fence_after_thread_sync")

    def cta_origin(self, origin: str, rows: int) -> str:
        """The first row of this CTA's part of a tile (`rows` per CTA) from the tile's first."""
        if not self.pair:
            return origin
        offset = self.op("half", f"arith.muli %rank, {self.const(rows)} : index")
        return self.op("row", f"arith.addi {origin}, {offset} : index")

    def coordinates(self, block: str) -> tuple[str, str, str, str]:
        """(stage, use, tile, k block) of a flat block number."""
        p = self.plan
        stage = self.op("stage", f"arith.remui {block}, {self.const(p.stages)} : index")
        use = self.op("use", f"arith.divui {block}, {self.const(p.stages)} : index")
        tile = self.op("tile", f"arith.divui {block}, {self.const(p.k_blocks)} : index")
        kb = self.op("kb", f"arith.remui {block}, {self.const(p.k_blocks)} : index")
        return stage, use, tile, kb

    def tile_origin(self, tile: str) -> tuple[str, str, str, str]:
        """(tile row, tile column, m0, n0) of a tile number."""
        p = self.plan
        tm = self.op("tm", f"arith.divui {tile}, {self.const(p.tiles_n)} : index")
        tn = self.op("tn", f"arith.remui {tile}, {self.const(p.tiles_n)} : index")
        m0 = self.op("m0_", f"arith.muli {tm}, {self.const(p.tile_m)} : index")
        n0 = self.op("n0_", f"arith.muli {tn}, {self.const(p.tile_n)} : index")
        return tm, tn, m0, n0

    def produce(self, block: str) -> None:
        p = self.plan
        stage, use, tile, kb = self.coordinates(block)
        refill = self.op("refill", f"arith.cmpi uge, {block}, {self.const(p.stages)} : index")
        for _ in self.if_(refill):
            prev = self.op("prev", f"arith.subi {use}, {self.const(1)} : index")
            parity = self.parity(prev)
            index = self.op("ei", f"arith.addi {stage}, {self.const(p.stages)} : index")
            empty = self.barrier(index)
            self.emit(f"tcgen05.mbarrier_wait {empty}, {parity} : {BAR}")
        full = self.barrier(stage)
        _, _, m0, n0 = self.tile_origin(tile)
        m0 = self.cta_origin(m0, p.a.rows)  # a CTA pair: this CTA's A rows and B rows
        n0 = self.cta_origin(n0, p.b.rows)
        k0 = self.op("k0_", f"arith.muli {kb}, {self.const(p.block_k)} : index")
        k0_i = self.i32(k0)
        copies: list[str] = []
        for name, operand, elem, origin in (("a", p.a, self.a_elem, m0),
                                            ("b", p.b, self.b_elem, n0)):
            stages, box_t = self.stage_type(operand, elem), self.box_type(operand, elem)
            for box in range(operand.boxes):
                dst = self.fresh(f"{name}_dst")
                if operand.major == "k":
                    self.emit(_subview(dst, f"%{name}_stages", stages, [stage], ["?", 0, 0],
                                       [1, operand.rows, self.k_columns(operand, elem)[0]],
                                       box_t))
                else:
                    self.emit(_subview(dst, f"%{name}_stages", stages, [stage],
                                       ["?", box, 0, 0], [1, 1, p.block_k, operand.atom], box_t))
                row = origin if not operand.box_rows(box) else self.op(
                    "row", f"arith.addi {origin}, {self.const(operand.box_rows(box))} : index")
                row_i = self.i32(row)
                coords = (k0_i, row_i) if operand.major == "k" else (row_i, k0_i)
                # a pair: .shared::cluster .cta_group::2, complete-tx on the leader's barrier
                pair = " cluster cta_group(2)" if self.pair else ""
                copies.append(f"tcgen05.tma_load {dst}, %tma_{name}[{coords[0]}, {coords[1]}], "
                              f"{full}{pair} : {box_t}, {BAR}")
        if p.scales is not None:
            copies += self.scale_copies(stage, kb, tile, full)
        elected = self.op("elected", "tcgen05.elect_sync : i1")
        for _ in self.if_(elected):
            arrive = f"tcgen05.mbarrier_arrive {full} expect_tx({p.tx_bytes}) : {BAR}"
            if self.pair:  # only the leader's barrier counts the stage (both CTAs' bytes)
                for _ in self.if_("%leader"):
                    self.emit(arrive)
            else:
                self.emit(arrive)
            for copy in copies:
                self.emit(copy)

    def scale_copies(self, stage: str, kb: str, tile: str, full: str) -> list[str]:
        """The TMA copies of a stage's scale atoms: box [16, 32, atoms_k, atoms_mn] at
        (0, 0, K atom, M/N atom) of the tile. A pair: each CTA copies the atoms of its 128 A rows
        (row tile 2 tm + rank) and all of the tile's B columns, onto the leader's barrier."""
        p = self.plan
        assert p.scales is not None
        tm, tn, _, _ = self.tile_origin(tile)
        if self.pair:  # this CTA's 128-row part of the tile (one SFA atom of 128 rows)
            twice = self.op("tm2_", f"arith.muli {tm}, {self.const(2)} : index")
            tm = self.op("tm_cta", f"arith.addi {twice}, %rank : index")
        pair = " cluster cta_group(2)" if self.pair else ""
        copies = []
        for name, operand, index in (("sa", p.scales.a, tm), ("sb", p.scales.b, tn)):
            dst = self.fresh(f"{name}_dst")
            box_t = self.scale_box_type(operand)
            self.emit(_subview(dst, f"%{name}_stages", self.scale_stage_type(operand), [stage],
                               ["?", 0, 0, 0, 0], [1, operand.atoms_mn, operand.atoms_k,
                                                   scale_atoms.ATOM_LANES,
                                                   scale_atoms.ATOM_ROW_BYTES], box_t))
            k_atom = self.i32(self.op("ka", f"arith.muli {kb}, {self.const(operand.atoms_k)} "
                                            f": index"))
            mn_atom = self.i32(self.op("ma", f"arith.muli {index}, "
                                             f"{self.const(operand.atoms_mn)} : index"))
            zero = self.const(0, "i32")
            copies.append(f"tcgen05.tma_load {dst}, %tma_{name}[{zero}, {zero}, {k_atom}, "
                          f"{mn_atom}], {full}{pair} : {box_t}, {BAR}")
        return copies

    def scale_cps(self, stage_i: str) -> None:
        """tcgen05.cp .32x128b.warpx4 of every scale atom of the stage into its TMEM columns."""
        p = self.plan
        assert p.scales is not None
        for name, operand in (("sa", p.scales.a), ("sb", p.scales.b)):
            base = self.op(f"{name}_adv", f"arith.muli {stage_i}, "
                                          f"{self.const(operand.tile_bytes >> 4, 'i64')} : i64")
            for i in range(operand.atoms_k):
                for j in range(operand.atoms_mn):
                    offset = self.const(operand.atom_offset(i, j) >> 4, "i64")
                    start = self.op("so", f"arith.addi {base}, {offset} : i64")
                    desc = self.op(f"{name}_desc", f"arith.addi %{name}_desc0, {start} : i64")
                    column = operand.column(i, j)
                    view = self.views[(name, column, scale_atoms.ATOM_COLUMNS)]
                    self.emit(f"tcgen05.cp cta_group({self.group}) shape("
                              f'"{scale_atoms.CP_SHAPE}") multicast("{scale_atoms.CP_MULTICAST}") '
                              f"{view}, {desc} : "
                              f"{self.scale_view_type(operand, column, scale_atoms.ATOM_COLUMNS)}")

    def consume(self, block: str, accs: list[str]) -> None:
        p = self.plan
        stage, use, tile, kb = self.coordinates(block)
        last = self.op("last", f"arith.cmpi eq, {kb}, {self.const(p.k_blocks - 1)} : index")
        if self.pair:  # the leader issues the pair's MMAs; both CTAs run the epilogues
            for _ in self.if_("%leader"):
                self.issue(block, stage, use, tile, kb, last, accs)
        else:
            self.issue(block, stage, use, tile, kb, last, accs)
        for _ in self.if_(last):
            if len(accs) == 1:  # the next tile's MMAs overwrite the one buffer: drain it now
                self.epilogue(tile, accs)
                if self.pair:  # ... in both CTAs before the leader issues them
                    self.cluster_sync()
                continue
            has_prev = self.op("has_prev", f"arith.cmpi uge, {tile}, {self.const(1)} : index")
            for _ in self.if_(has_prev):
                prev = self.op("prev_tile", f"arith.subi {tile}, {self.const(1)} : index")
                self.epilogue(prev, accs)
                if self.pair:  # tile + 1 reuses prev's buffer: both CTAs have read it
                    self.cluster_sync()

    def commit(self, bar: str) -> None:
        """Commit the issued MMAs to `bar`; a pair: to the barrier of both CTAs."""
        mask = " multicast(%pair_mask)" if self.pair else ""
        self.emit(f"tcgen05.commit cta_group({self.group}) {bar}{mask} : {BAR}")

    def issue(self, block: str, stage: str, use: str, tile: str, kb: str, last: str,
              accs: list[str]) -> None:
        """Wait for the stage, issue its MMAs from one elected thread, commit."""
        p = self.plan
        full = self.barrier(stage)
        parity = self.parity(use)
        self.emit(f"tcgen05.mbarrier_wait {full}, {parity} : {BAR}")
        self.emit("tcgen05.fence_after_thread_sync")
        stage_i = self.op("si", f"arith.index_cast {stage} : index to i64")
        # descriptor start fields are bytes >> 4
        a_base = self.op("a_adv", f"arith.muli {stage_i}, "
                                  f"{self.const(p.a.tile_bytes >> 4, 'i64')} : i64")
        b_base = self.op("b_adv", f"arith.muli {stage_i}, "
                                  f"{self.const(p.b.tile_bytes >> 4, 'i64')} : i64")
        first_mma = self.op("mma0_", f"arith.muli {kb}, {self.const(p.mmas_per_block)} : index")
        empty_i = self.op("ei", f"arith.addi {stage}, {self.const(p.stages)} : index")
        empty = self.barrier(empty_i)
        buf = self.op("buf", f"arith.remui {tile}, {self.const(2)} : index") \
            if len(accs) == 2 else self.const(0)
        acc_i = self.op("ai", f"arith.addi {buf}, {self.const(2 * p.stages)} : index")
        acc_full = self.barrier(acc_i)
        elected = self.op("elected", "tcgen05.elect_sync : i1")
        for _ in self.if_(elected):
            if p.scales is not None:
                self.scale_cps(stage_i)
            mmas = self.scaled_mmas if p.scales is not None else self.mmas
            self.for_accs(buf, accs, lambda acc, mmas=mmas: mmas(acc, a_base, b_base, first_mma))
            self.commit(empty)
            for _ in self.if_(last):
                self.commit(acc_full)

    def for_accs(self, buf: str, accs: list[str], body) -> None:
        if len(accs) == 1:
            body(accs[0])
            return
        is0 = self.op("buf0", f"arith.cmpi eq, {buf}, {self.const(0)} : index")
        for _ in self.if_(is0):
            body(accs[0])
            self.else_()
            body(accs[1])

    def mmas(self, acc: str, a_base: str, b_base: str, first_mma: str) -> None:
        """The block's MMAs; `first_mma` is the tile's number of the block's first MMA (D is
        overwritten by MMA 0 of the tile, accumulated into by the others)."""
        p = self.plan
        a_step = self.const(p.a.k_step_bytes(p.mma_k) >> 4, "i64")
        b_step = self.const(p.b.k_step_bytes(p.mma_k) >> 4, "i64")
        kk = self.fresh("kk")
        for _ in self.block(f"scf.for {kk} = {self.const(0)} to {self.const(p.mmas_per_block)} "
                            f"step {self.const(1)}"):
            kk_i = self.op("kki", f"arith.index_cast {kk} : index to i64")
            a_off = self.op("ao", f"arith.muli {kk_i}, {a_step} : i64")
            b_off = self.op("bo", f"arith.muli {kk_i}, {b_step} : i64")
            a_sum = self.op("as", f"arith.addi {a_base}, {a_off} : i64")
            b_sum = self.op("bs", f"arith.addi {b_base}, {b_off} : i64")
            a_desc = self.op("a_desc", f"arith.addi %a_desc0, {a_sum} : i64")
            b_desc = self.op("b_desc", f"arith.addi %b_desc0, {b_sum} : i64")
            number = self.op("mma_no", f"arith.addi {first_mma}, {kk} : index")
            accumulate = self.op("accumulate", f"arith.cmpi ne, {number}, {self.const(0)} : index")
            self.emit(f"tcgen05.mma kind({p.kind}) cta_group({self.group}) {acc}, {a_desc}, "
                      f"{b_desc}, %idesc, {accumulate} : {self.acc_type()}, i64")

    def scaled_mmas(self, acc: str, a_base: str, b_base: str, first_mma: str) -> None:
        """The block's block-scaled MMAs, unrolled: each has its own SF ids (idesc) and the TMEM
        columns of its K atom's scale factors."""
        p = self.plan
        assert p.scales is not None
        for kk in range(p.mmas_per_block):
            a_off = self.const(kk * p.a.k_step_bytes(p.mma_k) >> 4, "i64")
            b_off = self.const(kk * p.b.k_step_bytes(p.mma_k) >> 4, "i64")
            a_sum = self.op("as", f"arith.addi {a_base}, {a_off} : i64")
            b_sum = self.op("bs", f"arith.addi {b_base}, {b_off} : i64")
            a_desc = self.op("a_desc", f"arith.addi %a_desc0, {a_sum} : i64")
            b_desc = self.op("b_desc", f"arith.addi %b_desc0, {b_sum} : i64")
            number = self.op("mma_no", f"arith.addi {first_mma}, {self.const(kk)} : index")
            accumulate = self.op("accumulate", f"arith.cmpi ne, {number}, {self.const(0)} : index")
            k_atom, _ = p.scales.mma_scales(kk)
            views, types = [], []
            for name, operand in (("sa", p.scales.a), ("sb", p.scales.b)):
                column = operand.column(k_atom, 0)
                columns = scale_atoms.ATOM_COLUMNS * operand.atoms_mn
                views.append(self.views[(name, column, columns)])
                types.append(self.scale_view_type(operand, column, columns))
            vec = "" if p.scales.scale_vec is None else f"({p.scales.scale_vec})"
            self.emit(f"tcgen05.mma kind({p.kind}) cta_group({self.group}) block_scale{vec} {acc}, "
                      f"{a_desc}, {b_desc}, %idesc{kk}, {accumulate} scale({views[0]}, {views[1]}) : "
                      f"{self.acc_type()}, i64, {types[0]}, {types[1]}")

    def epilogue(self, tile: str, accs: list[str]) -> None:
        p = self.plan
        buf = self.op("ebuf", f"arith.remui {tile}, {self.const(2)} : index") \
            if len(accs) == 2 else self.const(0)
        phase = self.op("ephase", f"arith.divui {tile}, {self.const(len(accs))} : index")
        parity = self.parity(phase)
        acc_i = self.op("ai", f"arith.addi {buf}, {self.const(2 * p.stages)} : index")
        acc_full = self.barrier(acc_i)
        self.emit(f"tcgen05.mbarrier_wait {acc_full}, {parity} : {BAR}")
        self.emit("tcgen05.fence_after_thread_sync")
        tm, tn, m0, n0 = self.tile_origin(tile)
        rows_last, cols_last = p.m - (p.tiles_m - 1) * p.tile_m, p.n - (p.tiles_n - 1) * p.tile_n

        def cases(index: str, tiles: int, last: int, full: int, what: str):
            """(condition, size if true, size otherwise); no condition when one size fits all
            tiles of the dimension (it divides, or there is one tile)."""
            if last == full or tiles == 1:
                return None, last, last
            cond = self.op(what, f"arith.cmpi eq, {index}, {self.const(tiles - 1)} : index")
            return cond, last, full

        def split(case, body) -> None:
            cond, last, full = case
            if cond is None:
                body(last)
                return
            for _ in self.if_(cond):
                body(last)
                self.else_()
                body(full)

        def per_cta(rows: int, body) -> None:
            """A pair: each CTA stores its part of the tile's `rows` (the peer's may be empty)."""
            if not self.pair:
                body(rows, m0)
                return
            half = p.cta_tile_m
            own = [min(rows, half), max(0, rows - half)]
            if own[0] == own[1]:
                body(own[0], self.cta_origin(m0, half))
                return
            for _ in self.if_("%leader"):
                body(own[0], m0)
                if own[1]:
                    self.else_()
                    body(own[1], self.op("row", f"arith.addi {m0}, {self.const(half)} : index"))

        row_case = cases(tm, p.tiles_m, rows_last, p.tile_m, "last_m")
        col_case = cases(tn, p.tiles_n, cols_last, p.tile_n, "last_n")
        split(row_case, lambda rows: per_cta(rows, lambda cta_rows, cta_m0: split(
            col_case, lambda cols: self.for_accs(
                buf, accs, lambda acc: self.store(acc, cta_rows, cols, cta_m0, n0)))))

    def store(self, acc: str, rows: int, cols: int, m0: str, n0: str) -> None:
        """tcgen05.ld of the tile's `rows` x `cols` corner and its copy into D, one column chunk
        at a time (a chunk's registers die at its copy: at most 128 per thread are live). A
        16-bit D is loaded packed (`plan.epilogue_loads`): the registers are its halves."""
        p = self.plan
        e = self.d_elem
        warps = [(w, min(32, rows - 32 * w)) for w in range(p.cta_tile_m // 32) if rows > 32 * w]
        for load in p.epilogue_loads(cols):
            values, stored = load.values, load.stored
            regs_t = f"memref<32x{values}x{e}>"
            pack = " pack" if load.pack else ""
            loads = []
            for warp, _ in warps:
                regs = self.fresh("r")
                self.emit(f'{regs} = tcgen05.ld shape("32x32b") num({load.num}) warp({warp}) '
                          f"lane({32 * warp}) column({load.column}){pack} {acc} : "
                          f"{self.acc_type()} -> {regs_t}")
                loads.append(regs)
            self.emit("tcgen05.wait_ld")
            col = self.op("col", f"arith.addi {n0}, {self.const(load.column)} : index")
            for regs, (warp, warp_rows) in zip(loads, warps, strict=True):
                row = self.op("row", f"arith.addi {m0}, {self.const(32 * warp)} : index")
                window_t = f"memref<{warp_rows}x{stored}x{e}, strided<[{p.n}, 1], offset: ?>>"
                window = self.fresh("d_win")
                self.emit(_subview(window, "%d", self.d_type, [row, col], ["?", "?"],
                                   [warp_rows, stored], window_t))
                source, source_t = regs, regs_t
                if warp_rows < 32 or stored < values:  # the first rows / columns
                    source = self.fresh("rows")
                    clipped_t = f"memref<{warp_rows}x{stored}x{e}, strided<[{values}, 1]>>"
                    self.emit(_subview(source, regs, source_t, [], [0, 0], [warp_rows, stored],
                                       clipped_t))
                    source_t = clipped_t
                self.emit(f'"memref.copy"({source}, {window}) : ({source_t}, {window_t}) -> ()')


def kernel_text(op: tcgen05.MatmulOp, target: str, relinquish: bool = True,
                cta_group: int = 1) -> str:
    """The lowered kernel of `op` as an MLIR module of one function @kernel(%a, %b, %d);
    `relinquish`: give up the CTA's TMEM allocation permit after the accumulators; `cta_group`
    2: the CTA-pair kernel (raises `DescriptorError` when the matmul cannot have one)."""
    types = [v.type for v in _operands(op)]
    assert all(isinstance(t, MemRefType) for t in types)
    a_t, b_t, d_t = (str(t) for t in types[:3])
    scale_types = (str(types[3]), str(types[4])) if len(types) == 5 else None
    scale_elem = str(types[3].element_type) if scale_types else ""  # type: ignore[union-attr]
    emitter = _Emitter(op.plan(cta_group), a_t, b_t, d_t, str(types[0].element_type),  # type: ignore[union-attr]
                       str(types[1].element_type), relinquish,  # type: ignore[union-attr]
                       scale_types, scale_elem)
    body = emitter.body()
    args = f"%a: {a_t}, %b: {b_t}, %d: {d_t}"
    if scale_types is not None:
        args += f", %sa: {scale_types[0]}, %sb: {scale_types[1]}"
    return (f'builtin.module attributes {{tcgen05.target = "{target}"}} {{\n'
            f"  func.func @kernel({args}) {{\n{body}\n  }}\n}}\n")


def _operands(op: tcgen05.MatmulOp) -> list:
    """The matmul's GM operands: a, b, d, and the scale factors of a block-scaled one."""
    scales = [op.scale_a, op.scale_b] if op.scale_a is not None else []
    return [op.a, op.b, op.d, *scales]


def _allocates_later(op: tcgen05.MatmulOp) -> bool:
    """Whether an op after `op` in its function allocates TMEM (a matmul or a tcgen05.alloc)."""
    kernel = op.parent_op()
    while kernel is not None and not isinstance(kernel, func.FuncOp):
        kernel = kernel.parent_op()
    if kernel is None:
        return False
    after = False
    for other in kernel.walk():
        if other is op:
            after = True
        elif after and isinstance(other, tcgen05.MatmulOp | tcgen05.AllocOp):
            return True
    return False


def lower_matmul(ctx: Context, op: tcgen05.MatmulOp, target: str, cta_group: int = 1) -> None:
    """Replace `op` by its kernel (the ops of `kernel_text`, operands substituted). The kernel
    owns the CTA's SMEM from offset 0 and allocates its own TMEM (freed at its end), so several
    matmuls of a function run one after the other."""
    try:
        text = kernel_text(op, target, relinquish=not _allocates_later(op), cta_group=cta_group)
    except DescriptorError as err:
        raise PassOpError(op, f"cannot be lowered with cta-group={cta_group}: {err}") from err
    module = Parser(ctx, text, "tcgen05-lower-matmul").parse_module()
    kernel = next(o for o in module.walk() if isinstance(o, func.FuncOp))
    body = kernel.body.block
    for arg, value in zip(body.args, _operands(op), strict=True):
        arg.replace_all_uses_with(value)
    for inner in list(body.ops):
        if isinstance(inner, func.ReturnOp):
            break
        inner.detach()
        for nested in inner.walk():  # the template's own positions mean nothing to the user
            nested.location = op.location
        op.parent_block().insert_op_before(inner, op)  # type: ignore[union-attr]
    op.detach()
    op.erase()


@dataclass(frozen=True)
class Tcgen05LowerMatmulPass(ModulePass):
    """Lower every `tcgen05.matmul` to the TMA / tcgen05.mma / tcgen05.ld kernel of its plan."""

    name = "tcgen05-lower-matmul"

    cta_group: int = 1
    """1: the one-CTA kernel; 2: the CTA-pair kernel (M = 256 tiles, `cta_group::2` MMAs issued
    by the leader CTA; block-scaled kinds too). The plan's M = 128 tile never needs a pair: 2 is opt-in, as
    CUTLASS's 2-SM schedules are."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.cta_group not in CTA_GROUPS:
            raise PassFailedException(f"{self.name}: requires cta-group in "
                                      f"[{', '.join(map(str, CTA_GROUPS))}], got {self.cta_group}")
        target = op.attributes.get(tcgen05.TARGET_ATTR)
        name = target.data if isinstance(target, StringAttr) else "sm_100a"
        for matmul in [o for o in op.walk() if isinstance(o, tcgen05.MatmulOp)]:
            lower_matmul(ctx, matmul, name, self.cta_group)
