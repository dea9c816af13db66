"""The tcgen05 half of the numpy reference (`mmair.executor.reference`).

`tcgen05.matmul` is D = A x B in float64 on its GM operands (`run_matmul`; an f16 D's
tolerance adds the rounding of the accumulator after each MMA of the lowering). Other
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
(`executor/tcgen05/cta_pair.py`): an M = 256 pair MMA computes each CTA's 128 D rows from its
own A rows and the B halves of both CTAs (block-scaled: with the scale factors in that CTA's
TMEM).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import ml_dtypes
import numpy as np
from xdsl.interpreter import Interpreter, PythonValues, impl, register_impls

from mmair.executor.engine.errors import ExecutionError
from mmair.executor.engine.tolerance import ReferenceError, Tolerance, output_tolerance


def _saturated_chunks(a: np.ndarray, b: np.ndarray, mma_k: int) -> np.ndarray:
    """kind::i8 with the saturate bit: D = sat(... sat(sat(P_0) + P_1) ... + P_last), P_j the
    products of K chunk j (one MMA of the lowering, in K order), sat the clamp to s32. Each
    chunk's sum is exact in float64 (|P_j| <= 32 * 255 * 255)."""
    lo, hi = np.iinfo(np.int32).min, np.iinfo(np.int32).max
    d = np.zeros((a.shape[0], b.shape[1]), np.int64)
    for start in range(0, a.shape[1], mma_k):
        chunk = a[:, start:start + mma_k] @ b[start:start + mma_k]
        d = np.clip(d + chunk.astype(np.int64), lo, hi)
    return d


def _tmem_bytes(cells: np.ndarray) -> np.ndarray:
    """TMEM cells (lanes x columns of 32 bits) as (lanes, columns, 4) bytes, byte b = bits
    [8b, 8b + 8) of a cell."""
    return cells.view("<u4").view(np.uint8).reshape(cells.shape[0], cells.shape[1], 4)


def _scale_values(codes: np.ndarray, scale_type: str) -> np.ndarray:
    """Scale-factor bytes -> float64 (PTX ISA §9.7.16.10.7 "Block scaling"): UE8M0 is 2^(e-127)
    with 0xFF NaN (the OCP MX E8M0 scale); UE4M3 is E4M3 without the sign bit (bit 7 ignored)."""
    if scale_type == "ue8m0":
        return codes.astype(np.uint8).view(ml_dtypes.float8_e8m0fnu).astype(np.float64)
    return (codes.astype(np.uint8) & 0x7F).view(ml_dtypes.float8_e4m3fn).astype(np.float64)


def _scaled(a: np.ndarray, b: np.ndarray, sa: np.ndarray, sb: np.ndarray,
            scales) -> tuple[np.ndarray, np.ndarray]:
    """A [M, K] and B [K, N] with their block scales applied, over K padded to whole scale
    atoms (zeros): the MMAs read every scale of an atom, padding included, so a NaN code there
    makes the row NaN as it does on the tensor core."""
    from mmair.isa.tcgen05.scale_atoms import logical_from_atoms

    m, k = a.shape
    n = b.shape[1]
    values = [_scale_values(logical_from_atoms(s.view(np.uint8)), scales.scale_type)
              for s in (sa, sb)]
    padded = values[0].shape[1] * scales.vector
    a_pad = np.zeros((m, padded))
    b_pad = np.zeros((padded, n))
    a_pad[:, :k], b_pad[:k] = a, b
    with np.errstate(invalid="ignore", over="ignore"):
        a_pad *= np.repeat(values[0][:m], scales.vector, axis=1)
        b_pad *= np.repeat(values[1][:n], scales.vector, axis=1).T
    return a_pad, b_pad


def reference_tcgen05_functions():
    """`Tcgen05Functions` with a numpy `tcgen05.mma` (module docstring); imported lazily so that
    pto-only runs do not load the tcgen05 executor."""
    from mmair.dialects import tcgen05
    from mmair.executor.tcgen05 import elements as tc_elements
    from mmair.executor.tcgen05 import operands as tc_operands
    from mmair.executor.tcgen05.functions import Tcgen05Functions
    from mmair.isa.tcgen05 import decode_idesc, layouts, rules
    from mmair.isa.tcgen05.idesc import BLOCK_SCALED_KINDS
    from mmair.isa.tcgen05.zcmask import decode_zcmask, zcmask_columns

    @register_impls
    @dataclass
    class ReferenceTcgen05Functions(Tcgen05Functions):
        tolerance: Tolerance = field(default_factory=Tolerance)

        def _lanes(self, view: np.ndarray, what: str, lanes: int, columns: int,
                   tmem=None) -> np.ndarray:
            """The TMEM cells [lane, lane + lanes) x [column, column + columns) at `view` (of
            this CTA's TMEM, or of `tmem`: a pair CTA's)."""
            address = self.tmem_address(view, what)
            lane, column = layouts.tmem_lane(address), layouts.tmem_column(address)
            cells = (self.tmem if tmem is None else tmem).cells
            if lane + lanes > cells.shape[0] or column + columns > cells.shape[1]:
                raise ExecutionError(f"reference: {what} [{lanes} lanes x {columns} columns] at "
                                     f"lane {lane} column {column} is beyond TMEM")
            return cells[lane:lane + lanes, column:column + columns]

        def _densify(self, kind: str, stored: np.ndarray, view: np.ndarray, k: int) -> np.ndarray:
            """Sparse A (PTX ISA §9.7.16.10.6 "Sparse matrices"): row i's metadata is a run of
            nibbles from lane i (nibble g at bits [4g, 4g+4) of the row's bytes); nibble g says
            at which dense K positions of group g the stored values of that group sit."""
            m = stored.shape[0]
            group, kept = layouts.SPARSE_GROUPS[kind]
            count = layouts.sparse_metadata_nibbles(kind, k)
            raw = _tmem_bytes(self._lanes(view, "the sparse metadata", m, -(-count // 8)))
            raw = raw.reshape(m, -1)
            nibbles = np.empty((m, 2 * raw.shape[1]), np.uint8)
            nibbles[:, 0::2], nibbles[:, 1::2] = raw & 0xF, raw >> 4
            positions, valid = layouts.sparse_dense_positions(kind, nibbles[:, :count])
            if not valid.all():
                row, g = (int(x[0]) for x in np.nonzero(~valid))
                raise ReferenceError(f"reference: undefined sparse metadata nibble "
                                     f"0b{int(nibbles[row, g]):04b} at row {row} group {g}")
            dense = np.zeros((m, k))
            column = (np.arange(count)[None, :, None] * group + positions).reshape(m, -1)
            np.put_along_axis(dense, column, stored[:, :column.shape[1]], axis=1)
            return dense

        def _scales(self, view: np.ndarray, what: str, rows: int, own_lane: bool, chunks: int,
                    sf_id: int, scale_type: str, tmem=None) -> np.ndarray:
            """(rows, chunks) scale factors: operand row r at TMEM lane r (A, `own_lane`) or
            r % 32 (B), column + r // 32, bytes sf_id .. sf_id + chunks - 1 of that cell
            (`isa.tcgen05.layouts`, "Block-scale factors in TMEM")."""
            if sf_id + chunks > 4:
                raise ReferenceError(f"reference: {what} needs bytes {sf_id}..{sf_id + chunks - 1}"
                                     " of a 32-bit cell")
            row = np.arange(rows)
            lane_in_quadrant, column = layouts.scale_factor_cells(row)
            lane = row if own_lane else lane_in_quadrant
            cells = _tmem_bytes(self._lanes(view, what, layouts.TMEM_LANES,
                                            int(column.max()) + 1, tmem))
            codes = cells[lane[:, None], column[:, None], sf_id + np.arange(chunks)[None, :]]
            return _scale_values(codes, scale_type)

        @impl(tcgen05.MatmulOp)
        def run_matmul(self, interp: Interpreter, op, args: PythonValues) -> PythonValues:
            """`tcgen05.matmul`: D = A x B in float64 on the GM operands as the plan's kind reads
            them (f32 as tf32), stored as D's type (rounded to nearest; an s32 D wraps, or with
            `saturate` clamps after each MMA's K chunk). `mmair-run --check-numpy` runs this on the
            module before `mmair-lower`, so the lowered kernel is compared with the logical
            product, not with its own descriptors."""
            a_arr, b_arr, d_arr = args[:3]
            plan = op.plan()
            a = tc_elements.decode_elements(a_arr.view(f"u{a_arr.dtype.itemsize}"), plan.atype)
            b = tc_elements.decode_elements(b_arr.view(f"u{b_arr.dtype.itemsize}"), plan.btype)
            a = np.asarray(a, np.float64)
            b = np.asarray(b, np.float64)
            a = a.T if op.is_transpose_a else a
            b = b.T if op.is_transpose_b else b
            if plan.scales is not None:
                a, b = _scaled(a, b, args[3], args[4], plan.scales)
            with np.errstate(invalid="ignore", over="ignore"):
                result = a @ b
                magnitude = np.abs(a) @ np.abs(b)
            # A 16-bit D is the accumulator: every MMA of the lowering rounds it to its type
            # (tcgen05-numerics step 5), ceil(K / MMA K) times, each off by at most half an ulp,
            # <= 2**-11 of the partial sum, which `magnitude` bounds.
            accumulated = 0.0
            if d_arr.dtype.kind == "f" and d_arr.dtype.itemsize == 2:
                roundings = -(-a.shape[1] // plan.mma_k)
                bound = float(np.max(magnitude)) if magnitude.size else 0.0
                accumulated = roundings * float(ml_dtypes.finfo(d_arr.dtype).eps) / 2 * bound
            self.tolerance.widen(*output_tolerance(d_arr.dtype, "f32", result, magnitude,
                                                    a.shape[1], False, input_error=accumulated))
            if d_arr.dtype.kind == "i" and op.is_saturate:
                result = _saturated_chunks(a, b, plan.mma_k)
            elif d_arr.dtype.kind == "i":  # kind::i8: exact (float64 is exact below 2**53),
                result = (result.astype(np.int64) + 2**31) % 2**32 - 2**31  # wrapped to s32
            with np.errstate(over="ignore"):
                d_arr[...] = result.astype(d_arr.dtype)
            return ()

        @impl(tcgen05.MmaOp)
        def run_mma(self, interp: Interpreter, op, args: PythonValues) -> PythonValues:
            """D = (A x SA) (B x SB)^T (+ D * 2^-scale_input_d) in float64, from the PTX ISA
            definition of each form, on operands read through the descriptors (module docstring)."""
            values = dict(zip(op.operands, args, strict=True))
            kind = op.kind.data
            if op.cta_group.value.data == 2:
                return self._run_mma_pair(op, values)
            unsupported = [what for what, present in (
                (".ashift of kind::i8 (an integer D row cannot be marked undefined)",
                 op.ashift is not None and kind == "i8"),)
                if present]
            if unsupported:
                raise ReferenceError(f"tcgen05.mma with {', '.join(unsupported)} has no numpy "
                                     "reference")
            try:
                desc = decode_idesc(int(values[op.idesc]) & 0xFFFFFFFF, kind)
                m, n, k = rules.mma_shape(desc)
                zcm = None if op.zero_column_mask is None else \
                    decode_zcmask(int(values[op.zero_column_mask]) & (2**64 - 1))
                masked = None if zcm is None else zcmask_columns(zcm, m, n)
            except Exception as err:  # noqa: BLE001 - the executor run reported the same word
                raise ExecutionError(f"reference: {err}") from None
            if desc.sparsity_selector:
                raise ReferenceError("tcgen05.mma with a sparsity selector has no numpy reference")
            sparse = op.sparse is not None
            k_stored = k // 2 if sparse else k
            shift = zcm.shift if zcm is not None else 0
            if op.a_in_tmem:
                if op.ashift is not None:
                    # .ashift: "shifts the rows of the A matrix down by one row, except for the
                    # last row" (PTX ISA "tcgen05.mma"); the first row receives nothing defined
                    # (NaN here, so the D row computed from it is NaN), and A stays shifted.
                    view = values[op.a]
                    view[1:m] = view[:m - 1].copy()
                    view[0] = np.nan
                raw = values[op.a].view(f"u{values[op.a].dtype.itemsize}")
                a = tc_elements.decode_elements(raw[:m, :k_stored], desc.atype)
            else:
                a = tc_operands.read_smem_operand(self.smem, int(values[op.a]) & (2**64 - 1),
                                         major="mn" if desc.transpose_a else "k",
                                         type_name=desc.atype, kind=kind, mn=m, k=k_stored,
                                         what="operand A")
            # .ws: output column j reads B column j + shift; the zero-column mask zeroes columns.
            b = tc_operands.read_smem_operand(self.smem, int(values[op.b]) & (2**64 - 1),
                                     major="mn" if desc.transpose_b else "k",
                                     type_name=desc.btype, kind=kind, mn=n + shift, k=k,
                                     what="operand B")
            a = np.asarray(a, dtype=np.float64) * (-1.0 if desc.negate_a else 1.0)
            b = np.asarray(b, dtype=np.float64)[shift:shift + n] * (-1.0 if desc.negate_b else 1.0)
            if masked is not None:
                b[masked] = 0.0
            if sparse:
                a = self._densify(kind, a, values[op.sparse_metadata], k)
            if kind in BLOCK_SCALED_KINDS:
                vec = op.scale_vec.data if op.scale_vec is not None else None
                vec = {"block16": "4X", "block32": "1X" if kind == "mxf8f6f4" else "2X",
                       None: "1X" if kind == "mxf8f6f4" else "2X"}.get(vec, vec)
                block = layouts.SCALE_BLOCK_K[vec]
                sa = self._scales(values[op.scale_a], "scale_A", m, True, k // block, desc.sfa_id,
                                  desc.scale_type)
                sb = self._scales(values[op.scale_b], "scale_B", n + shift, False, k // block,
                                  desc.sfb_id, desc.scale_type)[shift:shift + n]
                a = a * np.repeat(sa, block, axis=1)
                b = b * np.repeat(sb, block, axis=1)
            d_addr = self.tmem_address(values[op.d], "d")
            dtype = desc.dtype or ("s32" if kind == "i8" else "f32")
            with np.errstate(invalid="ignore", over="ignore"):
                result = a @ b.T
                magnitude = np.abs(a) @ np.abs(b).T
            old = tc_operands.read_d(self.tmem, d_addr, dtype, m, n).astype(np.float64)
            if bool(values[op.enable_input_d]):
                scaled = old * 2.0 ** -(op.scale_input_d.value.data if op.scale_input_d else 0)
                result = result + scaled
                magnitude = magnitude + np.abs(scaled)
            # disable_output_lane: bit i of the words (word 0 first, LSB first) set = TMEM lane i
            # keeps its old D row (PTX ISA §9.7.16.10.9 "tcgen05.mma", disable-output-lane).
            keep = np.zeros(m, dtype=bool)
            if op.disable_output_lane:
                words = [int(values[w]) & 0xFFFFFFFF for w in op.disable_output_lane]
                lane = layouts.tmem_lane(d_addr)
                bits = np.unpackbits(np.array(words, "<u4").view(np.uint8), bitorder="little")
                keep = bits[lane:lane + m].astype(bool)
            result[keep] = old[keep]
            if kind == "i8":
                info = np.iinfo(np.int32)
                result = np.clip(result, info.min, info.max) if desc.saturate else \
                    ((result.astype(np.int64) + 2**31) % 2**32 - 2**31)
                tc_operands.write_d(self.tmem, d_addr, "s32", result.astype(np.int32))
                return ()
            out = np.float16 if dtype == "f16" else np.float32
            self.tolerance.widen(*output_tolerance(np.dtype(out), "f32", result, magnitude, k,
                                                    False))
            with np.errstate(over="ignore"):
                tc_operands.write_d(self.tmem, d_addr, dtype, result)
            return ()

        def _run_mma_pair(self, op, values: dict) -> PythonValues:
            """cta_group::2, M = 256 on the CTA pair (docs/tcgen05-async.md "CTA pairs"): CTA c
            holds D rows [128 c, +128) = A rows from its own SMEM x B, whose columns
            [N/2 c, N/2 (c + 1)) are in CTA c's SMEM; float64, negations, + D 2^-scale_input_d,
            disable_output_lane over the pair's 256 lanes. Block-scaled: CTA c scales its A rows
            and all N columns of B with the factors in its own TMEM (`tcgen05_kernels.mma_pair`)."""
            kind = op.kind.data
            desc = decode_idesc(int(values[op.idesc]) & 0xFFFFFFFF, kind)
            m, n, k = rules.mma_shape(desc)
            if self.cluster is None or m != 256 or op.sparse is not None or op.a_in_tmem:
                raise ReferenceError("tcgen05.mma cta_group::2 has a numpy reference only for a "
                                     "dense or block-scaled M = 256 MMA with A in shared memory "
                                     "on a CTA pair")
            first = self.rank & ~1
            pair = self.cluster.ctas[first:first + 2]
            a_word = int(values[op.a]) & (2**64 - 1)
            b_word = int(values[op.b]) & (2**64 - 1)

            def operand(smem, word, major, type_name, rows, what):
                return np.asarray(tc_operands.read_smem_operand(
                    smem, word, major="mn" if major else "k", type_name=type_name, kind=kind,
                    mn=rows, k=k, what=what), dtype=np.float64)

            b = np.concatenate([operand(cta.smem, b_word, desc.transpose_b, desc.btype, n // 2,
                                        "operand B") for cta in pair])
            b = b * (-1.0 if desc.negate_b else 1.0)
            d_addr = self.tmem_address(values[op.d], "d")
            dtype = desc.dtype or ("s32" if kind == "i8" else "f32")
            lanes = np.zeros(256, dtype=bool)
            if op.disable_output_lane:
                words = [int(values[w]) & 0xFFFFFFFF for w in op.disable_output_lane]
                lanes = np.unpackbits(np.array(words, "<u4").view(np.uint8),
                                      bitorder="little").astype(bool)
            for c, cta in enumerate(pair):
                a = operand(cta.smem, a_word, desc.transpose_a, desc.atype, 128, "operand A")
                a = a * (-1.0 if desc.negate_a else 1.0)
                b_c = b
                if kind in BLOCK_SCALED_KINDS:
                    vec = op.scale_vec.data if op.scale_vec is not None else None
                    vec = {"block16": "4X", "block32": "1X" if kind == "mxf8f6f4" else "2X",
                           None: "1X" if kind == "mxf8f6f4" else "2X"}.get(vec, vec)
                    block = layouts.SCALE_BLOCK_K[vec]
                    sa = self._scales(values[op.scale_a], "scale_A", 128, True, k // block,
                                      desc.sfa_id, desc.scale_type, cta.tmem)
                    sb = self._scales(values[op.scale_b], "scale_B", n, False, k // block,
                                      desc.sfb_id, desc.scale_type, cta.tmem)
                    a = a * np.repeat(sa, block, axis=1)
                    b_c = b * np.repeat(sb, block, axis=1)
                with np.errstate(invalid="ignore", over="ignore"):
                    result = a @ b_c.T
                    magnitude = np.abs(a) @ np.abs(b_c).T
                old = tc_operands.read_d(cta.tmem, d_addr, dtype, 128, n).astype(np.float64)
                if bool(values[op.enable_input_d]):
                    scaled = old * 2.0 ** -(op.scale_input_d.value.data if op.scale_input_d
                                            else 0)
                    result = result + scaled
                    magnitude = magnitude + np.abs(scaled)
                lane = layouts.tmem_lane(d_addr)
                keep = lanes[128 * c + lane:128 * c + lane + 128]
                result[keep] = old[keep]
                if kind == "i8":
                    info = np.iinfo(np.int32)
                    result = np.clip(result, info.min, info.max) if desc.saturate else \
                        ((result.astype(np.int64) + 2**31) % 2**32 - 2**31)
                    tc_operands.write_d(cta.tmem, d_addr, "s32", result.astype(np.int32))
                    continue
                out = np.float16 if dtype == "f16" else np.float32
                self.tolerance.widen(*output_tolerance(np.dtype(out), "f32", result, magnitude,
                                                        k, False))
                with np.errstate(over="ignore"):
                    tc_operands.write_d(cta.tmem, d_addr, dtype, result)
            return ()

    return ReferenceTcgen05Functions
