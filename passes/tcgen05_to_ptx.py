"""tcgen05-to-ptx: translate a tcgen05 kernel (one CTA, one warpgroup) into a PTX module.

Each `func.func` becomes a `.visible .entry` run by 128 threads (4 warps); memref arguments are
`.param .u64` global pointers, except that a tensor read through a `tcgen05.make_tensor_map` is the
host's tensor map, a `.param .align 64 .b8 NAME_tmap_i[128]` (also a pointer when the kernel uses
it otherwise). The IR is sequential; the PTX keeps its meaning this way:

* scalar arithmetic (`arith`, `scf.for`, `scf.if`) runs in every thread (uniform values);
* tensor-core and TMA issue ops (`tcgen05.mma`, `commit`, `cp`, `shift`, `mbarrier_init`,
  `mbarrier_arrive`, `tma_load`) run in thread 0 only (in a kernel with `tcgen05.elect_sync`: the
  lane `elect.sync` elects in warp 0, which is also the value of `elect_sync`); `mbarrier_wait` loops on `mbarrier.try_wait.parity` in
  every thread; `mbarrier_inval` is a `bar.sync` (every thread has passed its waits on the
  barrier) and `mbarrier.inval` in thread 0;
* warp-collective ops run in their warp: `tcgen05.alloc` / `dealloc` / `relinquish_alloc_permit`
  in warp 0 (the TMEM address goes through a shared word and `bar.sync`), `tcgen05.ld/st warp(w)`
  in warp w (an ld's registers are first zeroed in every thread, so that ptxas sees them
  defined on every path); `wait::ld/st` and the fences in every thread;
* `tcgen05.smem_alloc offset(o)` is `o` bytes into one `.shared .align 1024` array; a shared-memory
  descriptor from `make_smem_desc` gets that array's address added to its start field;
* `memref.copy` GM -> SMEM is a cooperative 4-byte copy by all threads followed by
  `fence.proxy.async.shared::cta` (the tensor core reads SMEM through the async proxy) and
  `bar.sync 0`; `memref.copy` of `tcgen05.ld` registers to GM stores each thread's row (of a
  `memref.subview` of the registers' first rows and columns: only the lanes below that count
  store, only those columns), `st.global.b32` per register, or `st.global.b16` per half of a
  `.pack::16b` register (16-bit registers memref);
  a `memref.subview` of a 32-bit TMEM buffer with static offsets is its address plus
  (lane << 16) + column (the scale-factor windows of a block-scaled matmul).

Anything else raises `PtxEmitError` naming the op. Mnemonics follow the PTX ISA
(https://docs.nvidia.com/cuda/parallel-thread-execution/, tcgen05 and mbarrier sections); the
tests assemble the output with ptxas for sm_100a.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import (
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
)
from xdsl.ir import Block, Operation, SSAValue

from mmair.dialects import tcgen05
from mmair.isa.tcgen05.forms import MmaForm, mma_ptx
from mmair.isa.tcgen05.idesc import encode_idesc
from mmair.isa.tcgen05.smem import encode_smem_desc
from mmair.isa.tcgen05.targets import PTX_VERSION
from mmair.isa.tcgen05.tmem_moves import LD_ST_SHAPES

THREADS = 128
DYNAMIC = -9223372036854775808


class PtxEmitError(Exception):
    def __init__(self, op: Operation, message: str) -> None:
        super().__init__(f"'{op.name}' op {message}")
        self.op = op


def _space(t: MemRefType) -> str:
    space = t.memory_space
    if isinstance(space, tcgen05.SpaceAttr):
        return space.data.value
    return "gm"


def _elt_bytes(t: MemRefType) -> int:
    bits = getattr(t.element_type, "bitwidth", None)
    if not isinstance(bits, int) or bits % 8:
        raise ValueError(f"no byte size for {t.element_type}")
    return bits // 8


def _strides(t: MemRefType) -> list[int]:
    strides = t.get_strides() if hasattr(t, "get_strides") else None
    if strides is None or any(s is None for s in strides):
        shape = t.get_shape()
        out, acc = [], 1
        for dim in reversed(shape):
            out.append(acc)
            acc *= dim
        return list(reversed(out))
    return [int(s) for s in strides]  # type: ignore[arg-type]


def _contiguous(t: MemRefType) -> bool:
    shape = t.get_shape()
    acc, strides = 1, _strides(t)
    for dim, stride in zip(reversed(shape), reversed(strides), strict=True):
        if dim != 1 and stride != acc:
            return False
        acc *= dim
    return True


@dataclass
class _Kernel:
    name: str
    lines: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=lambda: {"r": 0, "rd": 0, "p": 0, "rs": 0})
    values: dict[SSAValue, object] = field(default_factory=dict)
    labels: int = 0
    smem_bytes: int = 16
    tmem_slots: int = 0
    params: list[str] = field(default_factory=list)
    #: the kernel runs in a cluster of two CTAs (cta_group::2 or a cluster op)
    cluster: bool = False
    #: register tuples of tcgen05.ld results and the warps that use them
    ld_sets: list[tuple[tuple[str, ...], set[int]]] = field(default_factory=list)

    def reg(self, kind: str) -> str:
        n = self.counts[kind]
        self.counts[kind] = n + 1
        return f"%{kind}{n}"

    def label(self, what: str) -> str:
        self.labels += 1
        return f"$L_{what}_{self.labels}"

    def emit(self, line: str) -> None:
        self.lines.append("  " + line + ";" if not line.endswith(":") else line)


class PtxEmitter:
    """Translate the kernels of a module; `emit()` returns the PTX text."""

    def __init__(self, module: ModuleOp, target: str = "sm_100a") -> None:
        self.module = module
        self.target = target

    def emit(self) -> str:
        kernels = [self._kernel(f) for f in self.module.ops if isinstance(f, func.FuncOp)]
        out = [f".version {PTX_VERSION}", f".target {self.target}", ".address_size 64", ""]
        for k in kernels:
            out.append(f".shared .align 1024 .b8 {k.name}_smem[{k.smem_bytes}];")
            if k.tmem_slots:
                out.append(f".shared .align 4 .b32 {k.name}_tmem_slot[{k.tmem_slots}];")
            out.append(f".visible .entry {k.name}(" + ", ".join(k.params) + ")")
            out.append(".maxntid 128, 1, 1")
            if k.cluster:  # a CTA pair: launched as clusters of 2 CTAs
                out.append(".reqnctapercluster 2, 1, 1")
            out.append("{")
            for kind, n in k.counts.items():
                if n:
                    width = {"p": "pred", "rd": "b64", "rs": "b16"}.get(kind, "b32")
                    out.append(f"  .reg .{width} %{kind}<{n}>;")
            out += k.lines
            out.append("  ret;")
            out.append("}")
            out.append("")
        return "\n".join(out)

    # -- kernel prologue ---------------------------------------------------------------------------

    def _kernel(self, f: func.FuncOp) -> _Kernel:
        k = _Kernel(f.sym_name.data)
        self.k = k
        self.tid = k.reg("r")
        self.warp = k.reg("r")
        self.leader = k.reg("p")
        self.warp0 = k.reg("p")
        self.smem_base = k.reg("r")
        self.smem_enc = k.reg("rd")
        k.emit(f"mov.u32 {self.tid}, %tid.x")
        k.emit(f"shr.u32 {self.warp}, {self.tid}, 5")
        k.emit(f"setp.eq.u32 {self.warp0}, {self.warp}, 0")
        if any(isinstance(op, tcgen05.ElectSyncOp) for op in f.walk()):
            # The issuing thread is the elected lane of warp 0 (`elect.sync` in every warp, as
            # it needs the whole member mask; `tcgen05.elect_sync` is this predicate).
            elected = k.reg("p")
            k.emit(f"elect.sync _|{elected}, 0xffffffff")
            k.emit(f"and.pred {self.leader}, {elected}, {self.warp0}")
        else:
            k.emit(f"setp.eq.u32 {self.leader}, {self.tid}, 0")
        k.emit(f"mov.u32 {self.smem_base}, {k.name}_smem")
        tmp = k.reg("r")
        k.emit(f"shr.u32 {tmp}, {self.smem_base}, 4")
        k.emit(f"cvt.u64.u32 {self.smem_enc}, {tmp}")
        for i, arg in enumerate(f.body.block.args):
            if not isinstance(arg.type, MemRefType) or _space(arg.type) != "gm":
                raise PtxEmitError(f, f"argument {i} must be a global-memory memref, got {arg.type}")
            mapped = [use.operation for use in arg.uses
                      if isinstance(use.operation, tcgen05.MakeTensorMapOp)]
            if mapped:
                # The host's cuTensorMapEncodeTiled object: a 128-byte, 64-byte aligned kernel
                # parameter; TMA reads it through its generic address (PTX ISA §5.5.8).
                param = f"{k.name}_tmap_{i}"
                k.params.append(f".param .align 64 .b8 {param}[128]")
                reg = k.reg("rd")
                k.emit(f"mov.b64 {reg}, {param}")
                k.emit(f"cvta.param.u64 {reg}, {reg}")
                for make in mapped:
                    k.values[make.result] = reg
            if len(mapped) == len(list(arg.uses)) and mapped:
                continue  # only TMA reads the tensor: the map holds its address
            param = f"{k.name}_param_{i}"
            k.params.append(f".param .u64 {param}")
            reg = k.reg("rd")
            k.emit(f"ld.param.u64 {reg}, [{param}]")
            k.emit(f"cvta.to.global.u64 {reg}, {reg}")
            k.values[arg] = reg
        self._block(f.body.block)
        k.cluster = k.cluster or any(
            op.name.startswith("tcgen05.") and getattr(op.properties.get("cta_group"), "value",
                                                       None) is not None
            and op.properties["cta_group"].value.data == 2 for op in f.walk())
        return k

    # -- ops ----------------------------------------------------------------------------------------

    def _block(self, block: Block) -> None:
        for op in block.ops:
            self._op(op)

    def _v(self, value: SSAValue) -> str:
        reg = self.k.values.get(value)
        if not isinstance(reg, str):
            raise PtxEmitError(value.owner if isinstance(value.owner, Operation) else
                               next(iter(self.module.ops)), f"uses a value the emitter has no "
                               f"register for ({value.type})")
        return reg

    def _kind(self, value: SSAValue) -> str:
        t = value.type
        if isinstance(t, IndexType) or (isinstance(t, IntegerType) and t.width.data == 64):
            return "rd"
        if isinstance(t, IntegerType) and t.width.data == 1:
            return "p"
        return "r"

    def _leader(self, line: str) -> None:
        skip = self.k.label("skip")
        self.k.emit(f"@!{self.leader} bra {skip}")
        self.k.emit(line)
        self.k.lines.append(f"{skip}:")

    def _op(self, op: Operation) -> None:  # noqa: C901 - one dispatch
        k = self.k
        if isinstance(op, func.ReturnOp | scf.YieldOp):
            return
        if isinstance(op, arith.ConstantOp):
            value = op.value
            if not isinstance(value, IntegerAttr):
                raise PtxEmitError(op, f"only integer constants are emitted, got {value}")
            reg = k.reg(self._kind(op.result))
            if reg.startswith("%p"):
                k.emit(f"setp.ne.u32 {reg}, {int(value.value.data) & 1}, 0")
            elif reg.startswith("%rd"):
                k.emit(f"mov.b64 {reg}, {value.value.data}")
            else:
                k.emit(f"mov.b32 {reg}, {value.value.data}")
            k.values[op.result] = reg
            return
        binary = {arith.AddiOp: "add", arith.SubiOp: "sub", arith.MuliOp: "mul.lo",
                  arith.DivUIOp: "div", arith.RemUIOp: "rem", arith.AndIOp: "and",
                  arith.OrIOp: "or", arith.ShLIOp: "shl"}
        for cls, mnemonic in binary.items():
            if isinstance(op, cls):
                kind = self._kind(op.result)
                width = {"rd": "u64", "r": "u32"}.get(kind)
                if width is None:
                    raise PtxEmitError(op, "on i1 is not emitted")
                if mnemonic in ("and", "or"):
                    width = width.replace("u", "b")
                if mnemonic == "shl":
                    width = width.replace("u", "b")
                reg = k.reg(kind)
                k.emit(f"{mnemonic}.{width} {reg}, {self._v(op.lhs)}, {self._v(op.rhs)}")
                k.values[op.result] = reg
                return
        if isinstance(op, arith.CmpiOp):
            kind = self._kind(op.lhs)
            width = "64" if kind == "rd" else "32"
            pred = ["eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"][op.predicate.value.data]
            signed = pred in ("lt", "le", "gt", "ge")
            reg = k.reg("p")
            k.emit(f"setp.{pred}.{'s' if signed else 'u'}{width} {reg}, {self._v(op.lhs)}, "
                   f"{self._v(op.rhs)}")
            k.values[op.result] = reg
            return
        if isinstance(op, arith.IndexCastOp):
            src, dst = self._kind(op.input), self._kind(op.result)
            if src == dst:
                k.values[op.result] = self._v(op.input)
                return
            reg = k.reg(dst)
            k.emit(f"cvt.u{'64' if dst == 'rd' else '32'}.u{'64' if src == 'rd' else '32'} {reg}, "
                   f"{self._v(op.input)}")
            k.values[op.result] = reg
            return
        if isinstance(op, scf.ForOp):
            if op.iter_args:
                raise PtxEmitError(op, "with iter_args is not emitted")
            iv = k.reg("rd")
            head, done = k.label("for"), k.label("endfor")
            k.emit(f"mov.b64 {iv}, {self._v(op.lb)}")
            k.lines.append(f"{head}:")
            cond = k.reg("p")
            k.emit(f"setp.ge.s64 {cond}, {iv}, {self._v(op.ub)}")
            k.emit(f"@{cond} bra {done}")
            k.values[op.body.block.args[0]] = iv
            self._block(op.body.block)
            k.emit(f"add.s64 {iv}, {iv}, {self._v(op.step)}")
            k.emit(f"bra {head}")
            k.lines.append(f"{done}:")
            return
        if isinstance(op, scf.IfOp):
            if op.results:
                raise PtxEmitError(op, "with results is not emitted")
            other, done = k.label("else"), k.label("endif")
            k.emit(f"@!{self._v(op.cond)} bra {other}")
            self._block(op.true_region.block)
            k.emit(f"bra {done}")
            k.lines.append(f"{other}:")
            if op.false_region.blocks:
                self._block(op.false_region.block)
            k.lines.append(f"{done}:")
            return
        self._memory_op(op)

    def _memory_op(self, op: Operation) -> None:  # noqa: C901 - one dispatch
        k = self.k
        if isinstance(op, tcgen05.MakeIdescOp):
            reg = k.reg("r")
            k.emit(f"mov.b32 {reg}, {encode_idesc(op.desc.desc)}")
            k.values[op.result] = reg
            return
        if isinstance(op, tcgen05.MakeSmemDescOp):
            reg = k.reg("rd")
            k.emit(f"add.s64 {reg}, {self.smem_enc}, {encode_smem_desc(op.desc.desc)}")
            k.values[op.result] = reg
            return
        if isinstance(op, tcgen05.SmemAllocOp):
            t = op.buffer.type
            assert isinstance(t, MemRefType)
            size = op.offset.value.data
            nbytes = _elt_bytes(t)
            for dim in t.get_shape():
                nbytes *= dim
            k.smem_bytes = max(k.smem_bytes, size + nbytes)
            reg = k.reg("r")
            k.emit(f"add.u32 {reg}, {self.smem_base}, {size}")
            k.values[op.buffer] = reg
            return
        if isinstance(op, memref.SubviewOp):
            self._subview(op)
            return
        if isinstance(op, memref.CopyOp):
            self._copy(op)
            return
        if isinstance(op, tcgen05.AllocOp):
            slot = k.tmem_slots
            k.tmem_slots += 1
            addr = k.reg("r")
            k.emit(f"mov.u32 {addr}, {k.name}_tmem_slot")
            if slot:
                k.emit(f"add.u32 {addr}, {addr}, {4 * slot}")
            skip = k.label("alloc")
            k.emit(f"@!{self.warp0} bra {skip}")
            k.emit(f"tcgen05.alloc.cta_group::{op.cta_group.value.data}.sync.aligned.shared::cta"
                   f".b32 [{addr}], {op.columns.value.data}")
            k.lines.append(f"{skip}:")
            k.emit("tcgen05.fence::before_thread_sync")
            k.emit("bar.sync 0")
            k.emit("tcgen05.fence::after_thread_sync")
            reg = k.reg("r")
            k.emit(f"ld.shared.u32 {reg}, [{addr}]")
            k.values[op.tmem] = reg
            self._columns = getattr(self, "_columns", {})
            self._columns[op.tmem] = op.columns.value.data
            return
        if isinstance(op, tcgen05.DeallocOp):
            columns = getattr(self, "_columns", {}).get(op.tmem)
            if columns is None:
                raise PtxEmitError(op, "frees a value that is not a tcgen05.alloc result")
            k.emit("tcgen05.fence::before_thread_sync")
            k.emit("bar.sync 0")
            skip = k.label("dealloc")
            k.emit(f"@!{self.warp0} bra {skip}")
            k.emit(f"tcgen05.dealloc.cta_group::{op.cta_group.value.data}.sync.aligned.b32 "
                   f"{self._v(op.tmem)}, {columns}")
            k.lines.append(f"{skip}:")
            return
        if isinstance(op, tcgen05.RelinquishAllocPermitOp):
            skip = k.label("relinquish")
            k.emit(f"@!{self.warp0} bra {skip}")
            k.emit(f"tcgen05.relinquish_alloc_permit.cta_group::{op.cta_group.value.data}"
                   ".sync.aligned")
            k.lines.append(f"{skip}:")
            return
        if isinstance(op, tcgen05.MmaOp):
            form = op.form()
            operands: dict[str, object] = {
                "d": f"[{self._v(op.d)}]",
                "a": f"[{self._v(op.a)}]" if form.a_tmem else self._v(op.a),
                "b": self._v(op.b), "idesc": self._v(op.idesc),
                "enable_input_d": self._v(op.enable_input_d),
            }
            if op.sparse_metadata is not None:
                operands["metadata"] = f"[{self._v(op.sparse_metadata)}]"
            if op.scale_a is not None and op.scale_b is not None:
                operands["scales"] = (f"[{self._v(op.scale_a)}]", f"[{self._v(op.scale_b)}]")
            if op.disable_output_lane:
                operands["lanes"] = tuple(self._v(v) for v in op.disable_output_lane)
            if op.zero_column_mask is not None:
                operands["zcm"] = self._v(op.zero_column_mask)
            self._leader(mma_ptx(form, **operands))
            return
        if isinstance(op, tcgen05.CommitOp):
            head = (f"tcgen05.commit.cta_group::{op.cta_group.value.data}.mbarrier::arrive::"
                    "one.shared::cluster")
            if op.cta_mask is None:
                self._leader(f"{head}.b64 [{self._v(op.mbarrier)}]")
                return
            # ctaMask is a 16-bit operand (one bit per CTA of the cluster): narrow the i16 value,
            # which lives in a 32-bit register like every other integer.
            mask = k.reg("rs")
            k.emit(f"cvt.u16.u32 {mask}, {self._v(op.cta_mask)}")
            self._leader(f"{head}.multicast::cluster.b64 [{self._v(op.mbarrier)}], {mask}")
            return
        if isinstance(op, tcgen05.MbarrierInitOp):
            self._leader(f"mbarrier.init.shared::cta.b64 [{self._v(op.mbarrier)}], "
                         f"{op.count.value.data}")
            k.emit("fence.mbarrier_init.release.cluster")
            k.emit("bar.sync 0")
            return
        if isinstance(op, tcgen05.MbarrierInvalOp):
            k.emit("bar.sync 0")  # every thread has passed its waits on the barrier
            self._leader(f"mbarrier.inval.shared::cta.b64 [{self._v(op.mbarrier)}]")
            return
        if isinstance(op, tcgen05.MbarrierArriveOp):
            if op.expect_tx is None:
                self._leader(f"mbarrier.arrive.shared::cta.b64 _, [{self._v(op.mbarrier)}]")
            else:
                self._leader(f"mbarrier.arrive.expect_tx.shared::cta.b64 _, "
                             f"[{self._v(op.mbarrier)}], {op.expect_tx.value.data}")
            return
        if isinstance(op, tcgen05.MbarrierWaitOp):
            parity = k.reg("r")
            k.emit(f"selp.u32 {parity}, 1, 0, {self._v(op.parity)}")
            loop = k.label("wait")
            done = k.reg("p")
            k.lines.append(f"{loop}:")
            k.emit(f"mbarrier.try_wait.parity.shared::cta.b64 {done}, [{self._v(op.mbarrier)}], "
                   f"{parity}")
            k.emit(f"@!{done} bra {loop}")
            return
        simple = {
            tcgen05.WaitLdOp: "tcgen05.wait::ld.sync.aligned",
            tcgen05.WaitStOp: "tcgen05.wait::st.sync.aligned",
            tcgen05.FenceBeforeThreadSyncOp: "tcgen05.fence::before_thread_sync",
            tcgen05.FenceAfterThreadSyncOp: "tcgen05.fence::after_thread_sync",
        }
        for cls, line in simple.items():
            if isinstance(op, cls):
                k.emit(line)
                return
        if isinstance(op, tcgen05.MakeTensorMapOp):
            return  # the kernel parameter (prologue)
        if isinstance(op, tcgen05.ElectSyncOp):
            k.values[op.pred] = self.leader  # elected in the prologue
            return
        if isinstance(op, tcgen05.FenceProxyAsyncOp):
            k.emit("fence.proxy.async.shared::cta")
            return
        if isinstance(op, tcgen05.TmaLoadOp):
            self._tma_load(op)
            return
        if isinstance(op, tcgen05.ClusterSyncOp):
            k.emit("barrier.cluster.arrive.release.aligned")
            k.emit("barrier.cluster.wait.acquire.aligned")
            k.cluster = True
            return
        if isinstance(op, tcgen05.ClusterRankOp):
            reg = k.reg("r")
            k.emit(f"mov.u32 {reg}, %cluster_ctarank")
            k.values[op.rank] = reg
            k.cluster = True
            return
        if isinstance(op, tcgen05.LdOp | tcgen05.StOp):
            self._ld_st(op)
            return
        if isinstance(op, tcgen05.CpOp):
            mods = [f"cta_group::{op.cta_group.value.data}", op.shape.data]
            if op.multicast is not None:
                mods.append(op.multicast.data)
            if op.decompress is not None:
                mods.append(op.decompress.data)
            self._leader(f"tcgen05.cp.{'.'.join(mods)} [{self._v(op.tmem)}], {self._v(op.src)}")
            return
        if isinstance(op, tcgen05.ShiftOp):
            self._leader(f"tcgen05.shift.cta_group::{op.cta_group.value.data}.down "
                         f"[{self._v(op.tmem)}]")
            return
        raise PtxEmitError(op, "is not supported by tcgen05-to-ptx")

    def _tma_load(self, op: tcgen05.TmaLoadOp) -> None:
        """PTX `cp.async.bulk.tensor.Nd.dst.global.tile.mbarrier::complete_tx::bytes`, issued by
        the leader (PTX ISA §9.7.9.25.5.2)."""
        k = self.k
        coords = ", ".join(self._v(c) for c in op.coords)
        head = (f"cp.async.bulk.tensor.{len(op.coords)}d.shared::{op.destination}.global.tile"
                ".mbarrier::complete_tx::bytes")
        tail = ""
        if op.cta_mask is not None:
            head += ".multicast::cluster"
            mask = k.reg("rs")
            k.emit(f"cvt.u16.u32 {mask}, {self._v(op.cta_mask)}")
            tail = f", {mask}"
            k.cluster = True
        bar = self._v(op.mbarrier)
        if op.cta_group is not None:
            head += f".cta_group::{op.cta_group.value.data}"
        if op.cta_group is not None and op.cta_group.value.data == 2:
            # .cta_group::2: the complete-tx goes to the barrier at the same offset in the even
            # CTA of the pair (the executor's model, CUTLASS's SM100_TMA_2SM_LOAD): map it there
            leader, mapped = k.reg("r"), k.reg("r")
            k.emit(f"mov.u32 {leader}, %cluster_ctarank")
            k.emit(f"and.b32 {leader}, {leader}, 0xfffffffe")
            k.emit(f"mapa.shared::cluster.u32 {mapped}, {bar}, {leader}")
            bar = mapped
            k.cluster = True
        self._leader(f"{head} [{self._v(op.dst)}], [{self._v(op.tensor_map)}, {{{coords}}}], "
                     f"[{bar}]{tail}")

    def _subview(self, op: memref.SubviewOp) -> None:
        k = self.k
        regs = k.values.get(op.source)
        if isinstance(regs, tuple):  # the first rows and columns of tcgen05.ld registers
            sizes = list(op.static_sizes.get_values())  # (a clipped store)
            offsets = list(op.static_offsets.get_values())
            columns = op.source.type.get_shape()[-1]  # type: ignore[attr-defined]
            if any(o != 0 for o in offsets) or op.sizes or sizes[-1] > columns:
                raise PtxEmitError(op, "of tcgen05.ld registers is emitted only for their first "
                                       "rows and columns (static sizes)")
            k.values[op.result] = (regs[0], regs[1], sizes[0], sizes[-1])
            return
        src_t = op.source.type
        assert isinstance(src_t, MemRefType)
        space = _space(src_t)
        if space == "tmem":
            self._tmem_subview(op, src_t)
            return
        strides = _strides(src_t)
        elt = _elt_bytes(src_t)
        dynamic = iter(op.offsets)
        base = self._v(op.source)
        static = 0
        terms: list[tuple[str, int]] = []
        for offset, stride in zip(op.static_offsets.get_values(), strides, strict=True):
            if offset == DYNAMIC:
                terms.append((self._v(next(dynamic)), stride * elt))
            else:
                static += offset * stride * elt
        wide = space == "gm"
        reg = k.reg("rd" if wide else "r")
        k.emit(f"add.u{'64' if wide else '32'} {reg}, {base}, {static}")
        for index, scale in terms:
            if wide:
                k.emit(f"mad.lo.u64 {reg}, {index}, {scale}, {reg}")
            else:
                low = k.reg("r")
                k.emit(f"cvt.u32.u64 {low}, {index}")
                k.emit(f"mad.lo.u32 {reg}, {low}, {scale}, {reg}")
        k.values[op.result] = reg

    def _tmem_subview(self, op: memref.SubviewOp, src_t: MemRefType) -> None:
        """A static window of a 32-bit TMEM buffer (rows = lanes, columns = cells): its TMEM
        address is the buffer's plus (row << 16) + column (the address's lane and column
        fields)."""
        offsets = list(op.static_offsets.get_values())
        if op.offsets or len(offsets) != 2 or _elt_bytes(src_t) != 4:
            raise PtxEmitError(op, "of tensor memory is emitted only with static offsets into a "
                                   "2-D buffer of 32-bit elements (use lane/column on ld/st)")
        k = self.k
        reg = k.reg("r")
        k.emit(f"add.u32 {reg}, {self._v(op.source)}, {(offsets[0] << 16) + offsets[1]}")
        k.values[op.result] = reg

    def _copy(self, op: memref.CopyOp) -> None:
        k = self.k
        src_t, dst_t = op.source.type, op.destination.type
        assert isinstance(src_t, MemRefType) and isinstance(dst_t, MemRefType)
        regs = k.values.get(op.source)
        if isinstance(regs, tuple):  # tcgen05.ld registers -> GM rows
            warp, names = regs[0], regs[1]
            if _space(dst_t) != "gm" or _strides(dst_t)[-1] != 1:
                raise PtxEmitError(op, "stores tcgen05.ld registers only to a GM memref with unit "
                                       "inner stride")
            row_bytes = _strides(dst_t)[0] * _elt_bytes(dst_t)
            skip = k.label("store")
            mine = k.reg("p")
            k.emit(f"setp.ne.u32 {mine}, {self.warp}, {warp}")
            k.emit(f"@{mine} bra {skip}")
            lane = k.reg("r")
            k.emit(f"and.b32 {lane}, {self.tid}, 31")
            rows, columns = regs[2:] if len(regs) > 2 else (32, None)
            if rows < 32:  # only the first rows of the warp's 32 (a clipped window)
                outside = k.reg("p")
                k.emit(f"setp.ge.u32 {outside}, {lane}, {rows}")
                k.emit(f"@{outside} bra {skip}")
            wide = k.reg("rd")
            k.emit(f"cvt.u64.u32 {wide}, {lane}")
            addr = k.reg("rd")
            k.emit(f"mad.lo.u64 {addr}, {wide}, {row_bytes}, {self._v(op.destination)}")
            if _elt_bytes(src_t) == 2:  # .pack::16b registers: two 16-bit values each
                halves = []
                for name in names:
                    low, high = k.reg("rs"), k.reg("rs")
                    k.emit(f"mov.b32 {{{low}, {high}}}, {name}")
                    halves += [low, high]
                for i, half in enumerate(halves[:columns]):
                    k.emit(f"st.global.b16 [{addr}+{2 * i}], {half}")
            else:
                for i, name in enumerate(names[:columns]):
                    k.emit(f"st.global.b32 [{addr}+{4 * i}], {name}")
            k.lines.append(f"{skip}:")
            return
        spaces = (_space(src_t), _space(dst_t))
        if spaces not in (("gm", "smem"), ("smem", "gm"), ("gm", "gm")):
            raise PtxEmitError(op, f"from {spaces[0]} to {spaces[1]} is not emitted (TMEM data "
                                   "moves with tcgen05.ld/st/cp)")
        if not (_contiguous(src_t) and _contiguous(dst_t)):
            raise PtxEmitError(op, "is emitted for contiguous memrefs only")
        nbytes = _elt_bytes(src_t)
        for dim in src_t.get_shape():
            nbytes *= dim
        if nbytes % 4:
            raise PtxEmitError(op, f"copies {nbytes} bytes, not a multiple of 4")
        i = k.reg("r")
        head, done = k.label("copy"), k.label("endcopy")
        k.emit(f"shl.b32 {i}, {self.tid}, 2")
        k.lines.append(f"{head}:")
        end = k.reg("p")
        k.emit(f"setp.ge.u32 {end}, {i}, {nbytes}")
        k.emit(f"@{end} bra {done}")
        word = k.reg("r")
        for role, value, space in (("ld", op.source, spaces[0]), ("st", op.destination, spaces[1])):
            if space == "gm":
                wide, addr = k.reg("rd"), k.reg("rd")
                k.emit(f"cvt.u64.u32 {wide}, {i}")
                k.emit(f"add.u64 {addr}, {self._v(value)}, {wide}")
            else:
                addr = k.reg("r")
                k.emit(f"add.u32 {addr}, {self._v(value)}, {i}")
            state = "global" if space == "gm" else "shared"
            if role == "ld":
                k.emit(f"ld.{state}.b32 {word}, [{addr}]")
            else:
                k.emit(f"st.{state}.b32 [{addr}], {word}")
        k.emit(f"add.u32 {i}, {i}, {4 * THREADS}")
        k.emit(f"bra {head}")
        k.lines.append(f"{done}:")
        k.emit("fence.proxy.async.shared::cta")
        k.emit("bar.sync 0")

    def _ld_st(self, op: tcgen05.LdOp | tcgen05.StOp) -> None:
        k = self.k
        shape, num = op.shape.data, op.num.value.data
        split = 0 if op.split is None else op.split.value.data
        count = LD_ST_SHAPES[shape][1] * num
        addr = k.reg("r")
        offset = (op.lane.value.data << 16) + op.column.value.data
        k.emit(f"add.u32 {addr}, {self._v(op.tmem)}, {offset}")
        warp = op.warp.value.data
        names = self._ld_registers(count, warp) if isinstance(op, tcgen05.LdOp) else ()
        for name in names:
            # defined in every thread: the load and the store that reads these registers are
            # separate warp branches, and a register ptxas cannot prove defined on every path
            # stays live across the whole kernel
            k.emit(f"mov.b32 {name}, 0")
        skip = k.label("ldst")
        mine = k.reg("p")
        k.emit(f"setp.ne.u32 {mine}, {self.warp}, {warp}")
        k.emit(f"@{mine} bra {skip}")
        if isinstance(op, tcgen05.LdOp):
            pack = ".pack::16b" if op.pack is not None else ""
            k.emit(f"tcgen05.ld.sync.aligned.{shape}.x{num}{pack}.b32 {{{', '.join(names)}}}, "
                   f"[{addr}]" + (f", {split}" if shape == "16x32bx2" else ""))
            k.values[op.regs] = (warp, names)
        else:
            regs = k.values.get(op.regs)
            if not isinstance(regs, tuple):
                raise PtxEmitError(op, "stores registers that come from a tcgen05.ld only")
            unpack = ".unpack::16b" if op.unpack is not None else ""
            k.emit(f"tcgen05.st.sync.aligned.{shape}.x{num}{unpack}.b32 [{addr}]"
                   + (f", {split}" if shape == "16x32bx2" else "") + f", {{{', '.join(regs[1])}}}")
        k.lines.append(f"{skip}:")


    def _ld_registers(self, count: int, warp: int) -> tuple[str, ...]:
        """Registers for a tcgen05.ld of `warp`. The lds of different warps run in disjoint
        threads, so they may share register names (each thread holds only its warp's values);
        one warp never gets the same names twice, so its own earlier loads stay intact."""
        sets = self.k.ld_sets
        for names, users in sets:
            if len(names) == count and warp not in users:
                users.add(warp)
                return names
        names = tuple(self.k.reg("r") for _ in range(count))
        sets.append((names, {warp}))
        return names


def emit_ptx(module: ModuleOp) -> str:
    """The PTX module of every kernel in `module` (target from `tcgen05.target`, else sm_100a)."""
    target = module.attributes.get(tcgen05.TARGET_ATTR)
    name = target.data if isinstance(target, StringAttr) else "sm_100a"
    return PtxEmitter(module, name).emit()


__all__ = ["MmaForm", "PtxEmitError", "PtxEmitter", "emit_ptx"]
