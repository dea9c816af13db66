"""The numpy reference of `mmair-run --check-numpy`: a second, logical interpretation of the IR.

The reference is not a fixed kernel shape (c = a @ b): it is derived from the IR's semantics. The
entry function runs a second time on the same inputs with the same control flow (func, scf, arith,
memref from the executor), but every pto tile is a LOGICAL matrix in float64 (no fractal layout,
no byte memory, no address), so the run only says which GM buffers feed which `mad` and which
`fixpipe` writes which GM window:

* `mte_gm_l1`, `mte_l1_l0a/b` (start row/column, transpose), `mte_l1_bt`, `mte_gm_ub`,
  `mte_ub_gm`: copies of logical regions;
* `reinterpret`: a view of the same bits in another type (a write through either tile is
  bit-cast into the other);
* `mad`, `mad_acc`, `mad_bias`: C = A @ B (+ C, + bias row) exactly in float64 (integer L0C
  saturated to s32);
* `fixpipe`: the conversion written out in numpy from the op's quant mode and its QUANT_PRE word
  (fields decoded by `mmair.isa.ascend.quant`): ReLU, scale, shift, round half to even, offset,
  saturation; the value is then stored into the GM memref, i.e. rounded in the OUTPUT type.
* the raw Ascend C parameter forms (`copy_nd2nz`, `copy_dn2nz`, `load_2d`, `load_2d_gm`,
  `load_2d_transpose`, `load_2d_v2`, `load_2d_v2_gm`, `copy_l1_bt`, `mmad`, `fixpipe_copy`): each tile is kept rounded up to whole
  fractals, so that its physical image (`LogicalTile.physical`, the layout's index map) is
  exact, padding included; the parameters are followed with the executor's index math
  (`raw_kernels`), the arithmetic is the reference's own (float64 product, `convert`);
* hif8 tiles hold the decoded values (`isa.ascend.hif8`), written back to GM as their bytes.

tcgen05 kernels run their buffers (SMEM, TMEM, copies) on the executor's memories, but each
`tcgen05.mma` is replaced by numpy on the operands its descriptors describe: A (M x K) and B
(N x K) read through the shared-memory descriptors, D = A @ B^T (+ D) in float64 with the
instruction descriptor's negations, stored in D's type. Each form follows its PTX ISA definition
(§9.7.16.10.9 "tcgen05.mma"), written out here in numpy: block scaling multiplies every K block of
A row i by its scale factor SA[i, blk] and of B column j by SB[j, blk] (UE8M0 / UE4M3 bytes read
from TMEM); a sparse A is expanded to M x K with zeros at the positions its metadata nibbles do not
select; `.ws` reads B column j + shift for output column j and zeros the columns its zero-column
mask selects; disable_output_lane keeps the old D rows of the lanes whose bit is set;
scale_input_d multiplies the old D by 2^-N; `.ashift` shifts A's rows in TMEM down one row
first, the first row NaN (undefined). A cta_group::2 kernel runs its reference on a CTA pair
(`executor/tcgen05/cta_pair.py`): a dense M = 256 pair MMA computes each CTA's 128 D rows from its
own A rows and the B halves of both CTAs.

Every GM memref that the executor's run or the reference run changed is compared. The tolerance
comes from the types and the sums (`Reference.rtol/atol`, printed with the check): rtol = two units
in the last place of the output type (both results are rounded to it); atol = K * eps(f32) *
max(|A| @ |B|) for float accumulation of K products (the worst-case error of a float sum of K
terms in any order) plus the output type's smallest subnormal; 1 for quantized integer outputs
(rounding at a .5 boundary), 0 for exact integer outputs; plus, for outputs that depend on a
Fixpipe result stored in an L1/UB tile, the per-element bound `LogicalTile.error` carried from
that rounding. `random_inputs` makes the default inputs: real values
(uniform in [-2, 2], rounded to the element type) so that rounding bugs show, or small integers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType
from xdsl.interpreter import InterpreterFunctions
from xdsl.ir import Operation

from mmair.dialects import pto
from mmair.dialects.types import element_name
from mmair.dialects.value_names import value_label
from mmair.executor.ascend.reference import ReferencePtoFunctions, array_base
from mmair.executor.engine.errors import ExecutionError
from mmair.executor.engine.tolerance import ReferenceError, Tolerance
from mmair.executor.tcgen05.reference import reference_tcgen05_functions
from mmair.isa.ascend.hif8 import HIF8_VALUES, encode_hif8_exact
from mmair.isa.dtypes import FLOAT_ELEMENTS

# ---- random inputs -----------------------------------------------------------------------------


def random_scale_codes(shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """UE8M0 codes of 2^-2 .. 2^2 (never the NaN code 0xFF)."""
    return rng.integers(125, 130, size=shape).astype(np.uint8)


def random_values(element: str, dtype: np.dtype, shape: tuple[int, ...], kind: str,
                  rng: np.random.Generator) -> np.ndarray:
    """Seeded data of one argument: `kind` "real" gives float types uniform values in [-2, 2]
    (rounded to the type; hif8: codes of values drawn from its values in [-2, 2]); "int" and
    integer types small integers (s8 in [-8, 8], other signed in [-16, 16], unsigned in [0, 8))."""
    if element == "hif8":  # bytes: real values in [-2, 2] (or small integers), as their codes
        values = HIF8_VALUES if kind == "real" else np.arange(-3.0, 4.0)
        pool = values[np.isfinite(values) & (np.abs(values) <= 2.0)]
        return encode_hif8_exact(rng.choice(pool, size=shape)).reshape(shape)
    if element == "ue8m0":  # block-scale factors: 2^-2 .. 2^2 (products stay exact)
        return random_scale_codes(shape, rng).view(dtype)
    if element in FLOAT_ELEMENTS:
        if kind == "real":
            return rng.uniform(-2.0, 2.0, size=shape).astype(dtype)
        return rng.integers(-3, 4, size=shape).astype(dtype)
    if dtype.kind == "i":
        lo = -8 if dtype.itemsize == 1 else -16
        return rng.integers(lo, -lo + 1, size=shape).astype(dtype)
    return rng.integers(0, 8, size=shape).astype(dtype)


def random_inputs(entry, given: dict[str, Any], kind: str, seed: int,
                  max_gm_bytes: int | None) -> dict[str, np.ndarray]:
    """Random arrays for the entry's statically shaped memref arguments that `given` lacks (the
    runner reports the others)."""
    from mmair.dialects.types import memref_dtype
    from mmair.executor.runner import InputError, argument_names
    from mmair.executor.upstream.memref import check_gm_size

    rng = np.random.default_rng(seed)
    made: dict[str, np.ndarray] = {}
    for name, t in zip(argument_names(entry), entry.function_type.inputs.data, strict=True):
        if name in given or not isinstance(t, MemRefType):
            continue
        if any(d == DYNAMIC_INDEX for d in t.get_shape()):
            continue
        try:
            dtype = memref_dtype(t)
            element = element_name(t.element_type)
        except ValueError:
            continue
        try:
            check_gm_size(t.get_shape(), dtype, max_gm_bytes, f"argument '{name}'")
        except ExecutionError as err:
            raise InputError(err.message) from None
        made[name] = random_values(element, dtype, tuple(t.get_shape()), kind, rng)
    return made



# ---- the reference run ---------------------------------------------------------------------------


@dataclass
class Reference:
    """The reference of one GM output."""

    name: str
    values: np.ndarray
    rtol: float
    atol: float
    description: str


def reference_outputs(module, entry, inputs: dict[str, Any], result, target: str | None,
                      max_ops: int | None = None, blocks: int = 1,
                      fresh: dict[Operation | None, float] | None = None,
                      ) -> tuple[list[Reference], tuple[Any, ...]]:
    """References of the GM memrefs that the run (`result`, from `run_module` on `inputs`) or the
    reference run changed, and the reference run's return values (block 0's on `blocks` cores:
    every core runs the reference on the shared GM arrays, in the executor's turns). `fresh`:
    `ReferencePtoFunctions.fresh`."""
    from mmair.executor.engine.interpreter import MmairInterpreter
    from mmair.executor.engine.memory import Memory
    from mmair.executor.runner import module_target, prepare_arguments
    from mmair.executor.upstream.arith import ArithFunctions
    from mmair.executor.upstream.func import FuncFunctions
    from mmair.executor.upstream.memref import MemRefFunctions
    from mmair.executor.upstream.scf import ScfFunctions

    names, values = prepare_arguments(entry, dict(inputs), 0, None)
    from mmair.executor.tile_args import TileArgument

    if any(isinstance(v, TileArgument) for v in values):
        raise ReferenceError("--check-numpy has no reference for a kernel with tile arguments "
                             "(the run seeds their bytes; the reference holds logical values)")
    before = {n: v.copy() for n, v in zip(names, values, strict=True) if isinstance(v, np.ndarray)}
    cube = ReferencePtoFunctions(target=module_target(module, target), fresh=dict(fresh or {}))
    uses_tcgen05 = any(op.name.startswith("tcgen05.") for op in module.walk())
    logical = any(op.name == "tcgen05.matmul" for op in module.walk())
    interp = MmairInterpreter(module, max_ops=max_ops)
    functions: list[InterpreterFunctions] = [FuncFunctions(), ScfFunctions(), ArithFunctions(),
                                             MemRefFunctions(max_gm_bytes=None), cube]
    tc = None
    if uses_tcgen05:
        tc = reference_tcgen05_functions()(memory=Memory(module_target(module, target)))
        functions.append(tc)
    for f in functions:
        interp.register_implementations(f, override=True)
    from mmair.executor.tcgen05.cta_pair import run_pair, uses_cta_pair

    try:
        if blocks > 1:
            results = _run_reference_blocks(module, entry, values, cube, blocks, max_ops)
        elif uses_tcgen05 and uses_cta_pair(module):  # a CTA pair: one reference per CTA
            peers = [tc]

            def make(rank: int) -> tuple[Any, None]:
                if rank == 0:
                    return interp, None
                peer = MmairInterpreter(module, max_ops=max_ops)
                peers.append(reference_tcgen05_functions()(
                    memory=Memory(module_target(module, target))))
                for f in (FuncFunctions(), ScfFunctions(), ArithFunctions(),
                          MemRefFunctions(max_gm_bytes=None), cube, peers[-1]):
                    peer.register_implementations(f, override=True)
                return peer, None

            _, pair_results = run_pair(make, entry, values)
            results = tuple(pair_results[0])
            for peer_tc in peers[1:]:
                tc.tolerance.widen(peer_tc.tolerance.rtol, peer_tc.tolerance.atol)
        else:
            results = tuple(interp.call_op(entry, tuple(values)))
    except ExecutionError as err:
        implemented = interp._impls._impl_dict  # pyright: ignore[reportPrivateUsage]
        if err.op is not None and type(err.op) not in implemented:
            raise ReferenceError("no numpy reference for this op, so --check-numpy cannot check "
                                 "this kernel (the executor itself runs the op)", err.op) from None
        raise
    refs: list[Reference] = []
    arrays = dict(zip(names, values, strict=True))
    for name, start in before.items():
        got, ref = result.outputs[name], arrays[name]
        if np.array_equal(start.view(np.uint8), ref.view(np.uint8)) \
                and np.array_equal(start.view(np.uint8), got.view(np.uint8)):
            continue
        tol = cube.tolerances.get(array_base(ref))
        if tol is None:
            tol = tc.tolerance if tc is not None else Tolerance()
        what = "numpy reference of the IR"
        if uses_tcgen05:
            what = "numpy tcgen05.matmul reference (the logical product)" if logical \
                else "numpy tcgen05.mma reference"
        refs.append(Reference(name, ref, tol.rtol, tol.atol, what))
    if not refs and not results:
        raise ReferenceError(f"@{entry.sym_name.data} writes no GM memref, nothing to compare")
    return refs, results


UNWRITTEN_TILES_NAMED = 16
"""`unwritten_reads` names the tiles among the first this many `pto.alloc` ops (one reference run
each; the diagnosis runs only after a failed comparison)."""


def unwritten_reads(module, entry, inputs: dict[str, Any], result, target: str | None,
                    bad: dict[str, np.ndarray], max_ops: int | None = None,
                    blocks: int = 1) -> list[str] | None:
    """Why an output differs from its reference, when the kernel read on-chip bytes that no op
    wrote: the executor's buffers are byte memories that keep an earlier tile's data at the same
    address (as the hardware does), the reference's tiles start as zeros. `bad` holds, per GM
    output name, the elements that failed the comparison. If every one of them changes when the
    reference's fresh tiles hold 1 instead of 0, returns the names of the tiles (their
    `pto.alloc` results) whose fresh content reaches them (possibly none found among the first
    `UNWRITTEN_TILES_NAMED`); otherwise None: the difference is not explained that way."""

    def changed(fresh: dict[Operation | None, float]) -> dict[str, np.ndarray] | None:
        try:
            refs, _ = reference_outputs(module, entry, inputs, result, target, max_ops, blocks,
                                        fresh)
        except ExecutionError:
            return None
        by_name = {ref.name: ref.values for ref in refs}
        out = {}
        for name, mask in bad.items():
            if name not in by_name or by_name[name].shape != mask.shape:
                return None
            zero = np.asarray(zeros[name], np.float64)
            one = np.asarray(by_name[name], np.float64)
            out[name] = ~((zero == one) | (np.isnan(zero) & np.isnan(one)))
        return out

    if any(op.name.startswith("tcgen05.") for op in module.walk()):
        return None  # its buffers are the executor's memories: nothing starts as zeros
    try:
        zeros = {ref.name: ref.values for ref in reference_outputs(
            module, entry, inputs, result, target, max_ops, blocks)[0]}
    except ExecutionError:
        return None
    every = changed({None: 1.0})
    if every is None or not all(np.all(every[n] | ~mask) for n, mask in bad.items()):
        return None
    names = []
    allocs = [op for op in module.walk() if isinstance(op, pto.AllocOp)]
    for op in allocs[:UNWRITTEN_TILES_NAMED]:
        one = changed({op: 1.0})
        if one is not None and any(np.any(one[n] & mask) for n, mask in bad.items()):
            names.append(value_label(op.buffer, str(op.buffer)))
    return names


def _run_reference_blocks(module, entry, values: list[Any], cube: ReferencePtoFunctions,
                          blocks: int, max_ops: int | None) -> tuple[Any, ...]:
    """The reference on `blocks` cores sharing the GM `values`: each core has its own logical
    tiles (its own `ReferencePtoFunctions`); their GM tolerances are merged into `cube`'s.
    Returns block 0's results."""
    from mmair.executor.engine.interpreter import MmairInterpreter
    from mmair.executor.engine.multicore import Launch
    from mmair.executor.upstream.arith import ArithFunctions
    from mmair.executor.upstream.func import FuncFunctions
    from mmair.executor.upstream.memref import MemRefFunctions
    from mmair.executor.upstream.scf import ScfFunctions

    if any(op.name.startswith("tcgen05.") for op in module.walk()):
        raise ReferenceError("--check-numpy of a multi-core launch covers pto kernels only")
    launch = Launch(blocks)
    cores = []
    for block in range(blocks):
        core = ReferencePtoFunctions(target=cube.target, block=block, blocks=blocks, launch=launch,
                                     fresh=cube.fresh)
        interp = MmairInterpreter(module, max_ops=max_ops)
        for f in (FuncFunctions(), ScfFunctions(), ArithFunctions(),
                  MemRefFunctions(max_gm_bytes=None), core):
            interp.register_implementations(f, override=True)
        cores.append((core, interp))
    results = launch.run([lambda i=i: tuple(i.call_op(entry, tuple(values)))
                          for _, i in cores])
    for core, _ in cores:
        for base, tol in core.tolerances.items():
            cube.tolerances.setdefault(base, Tolerance()).widen(tol.rtol, tol.atol)
    return results[0]


def overlapping_tiles(module) -> tuple[str, str, str, int, int] | None:
    """A tile read after another tile sharing its bytes (both placed at explicit offsets) was
    written since the tile's own last write, in program order: (read tile, writing tile, space,
    lo, hi), or None. The executor's buffers are byte memories, so that write changed what the
    read sees; the reference keeps each tile's data apart. Tiles that only reuse an address one
    after the other (pto-assign-addresses does) are not reported."""
    from mmair.dialects import pto
    from mmair.dialects.pto.effects import memory_operands
    from mmair.dialects.value_names import value_label

    spans: dict[Any, tuple[str, int, int]] = {}
    for op in module.walk():
        if isinstance(op, pto.AllocOp) and op.offset is not None:
            lo = op.offset.value.data
            spans[op.buffer] = (op.buffer.type.space_name, lo, lo + op.buffer.type.footprint_bytes())
    written_since: dict[Any, set[Any]] = {tile: set() for tile in spans}
    for op in module.walk():
        for index, role in memory_operands(op):
            tile = op.operands[index]
            if tile not in spans:
                continue
            if role.read and written_since[tile]:
                other = next(iter(written_since[tile]))
                space, lo, hi = spans[tile]
                _, olo, ohi = spans[other]
                return (value_label(tile), value_label(other), space, max(lo, olo), min(hi, ohi))
            if role.write:
                written_since[tile] = set()
                space, lo, hi = spans[tile]
                for other, (ospace, olo, ohi) in spans.items():
                    if other is not tile and ospace == space and olo < hi and lo < ohi:
                        written_since[other].add(tile)
    return None
