"""mmair-run --check-numpy on the tcgen05.mma forms beyond the plain one: block-scaled (mxf8f6f4,
mxf4, mxf4nvf4 with UE8M0 and UE4M3 scale vectors), sparse A (2:4 and tf32 1:2 metadata), .ws with
a zero-column mask and a column shift, disable_output_lane with scale_input_d.

Each kernel takes its SMEM image and TMEM contents (scales, metadata, initial D) from GM arrays
made from random data. Three results are compared: the executor's D, the reference's D (the
--check-numpy line must say ok) and D computed here in float64 from the logical A, B, scales and
masks (the PTX ISA definitions, written out independently). An injected executor fault (one
executor helper monkeypatched) must make --check-numpy fail.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from tcgen05_testing import compact_desc

from mmair.executor.tcgen05 import kernels as tk
from mmair.executor.tcgen05.elements import encode_scale
from mmair.executor.tcgen05.memories import SharedMemory, TensorMemory
from mmair.executor.tcgen05.operands import (
    write_scale_factors,
    write_smem_operand,
    write_sparse_metadata,
)
from mmair.isa.tcgen05 import (
    InstrDesc,
    ZeroColumnMask,
    encode_idesc,
    encode_smem_desc,
    encode_zcmask,
    layouts,
)
from mmair.tools.run import main

E2M1 = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.5, -1, -1.5, -2, -3, -4, -6])
SMEM_BYTES = 0x8000
B_START = 0x4000
TMEM_T = "memref<128x32xi32, #tcgen05.space<tmem>>"


class Kernel:
    """One tcgen05.mma kernel and its GM inputs, built from logical operands."""

    def __init__(self, kind: str, m: int, n: int, a: np.ndarray, b_nk: np.ndarray, atype: str,
                 btype: str, **idesc_fields) -> None:
        self.kind, self.m, self.n = kind, m, n
        smem = SharedMemory()
        abits = layouts.smem_element_bits(kind, atype)
        bbits = layouts.smem_element_bits(kind, btype)
        da = compact_desc("k", "none", abits, a.shape[0], a.shape[1], 0)
        db = compact_desc("k", "none", bbits, b_nk.shape[0], b_nk.shape[1], B_START)
        write_smem_operand(smem, da, a, major="k", type_name=atype, kind=kind)
        write_smem_operand(smem, db, b_nk, major="k", type_name=btype, kind=kind)
        self.inputs: dict[str, np.ndarray] = {"img": smem.data[:SMEM_BYTES].copy()}
        self.words = {"idesc": (encode_idesc(InstrDesc(kind=kind, m=m, n=n, atype=atype,
                                                       btype=btype, **idesc_fields)), "i32"),
                      "a_desc": (encode_smem_desc(da), "i64"),
                      "b_desc": (encode_smem_desc(db), "i64")}
        self.tmem_inputs: list[str] = []
        self.d_init: np.ndarray | None = None
        self.enable = "false"

    def tmem(self, name: str, fill) -> None:  # noqa: ANN001 - fill(TensorMemory, address)
        """A 32-column TMEM buffer `name` whose cells `fill` writes (lane 0, column 0)."""
        scratch = TensorMemory()
        at = scratch.alloc(32)
        fill(scratch, at)
        self.inputs[f"{name}_img"] = scratch.cells[:, :32].view(np.int32).copy()
        self.tmem_inputs.append(name)

    def source(self, modifiers: str, groups: str, types: str) -> str:
        d_t = f"memref<{self.m}x{self.n}xf32, #tcgen05.space<tmem>>"
        gm_d = f"memref<{self.m}x{self.n}xf32>"
        args = ["%img: memref<32768xui8>"] + [f"%{t}_img: memref<128x32xi32>"
                                               for t in self.tmem_inputs]
        if self.d_init is not None:
            args.append(f"%d_init: {gm_d}")
        lines = [f"    %{name} = arith.constant {value} : {t}"
                 for name, (value, t) in self.words.items()]
        lines += [
            "    %s = tcgen05.smem_alloc offset(0) : memref<32768xui8, #tcgen05.space<smem>>",
            '    "memref.copy"(%img, %s) : (memref<32768xui8>, memref<32768xui8, '
            '#tcgen05.space<smem>>) -> ()',
            f"    %d = tcgen05.alloc cta_group(1) columns({max(self.n, 32)}) : {d_t}",
        ]
        if self.d_init is not None:
            lines.append(f'    "memref.copy"(%d_init, %d) : ({gm_d}, {d_t}) -> ()')
        for t in self.tmem_inputs:
            lines += [f"    %{t} = tcgen05.alloc cta_group(1) columns(32) : {TMEM_T}",
                      f'    "memref.copy"(%{t}_img, %{t}) : (memref<128x32xi32>, {TMEM_T}) -> ()']
        lines += [
            f"    %en = arith.constant {self.enable}",
            f"    tcgen05.mma kind({self.kind}) cta_group(1) {modifiers} %d, %a_desc, %b_desc, "
            f"%idesc, %en {groups} : {d_t}, i64{types}",
            f'    "memref.copy"(%d, %out) : ({d_t}, {gm_d}) -> ()',
            "    func.return",
        ]
        return ('builtin.module attributes {tcgen05.target = "sm_100a"} {\n'
                f"  func.func @k({', '.join(args)}, %out: {gm_d}) {{\n"
                + "\n".join(lines) + "\n  }\n}\n")

    def run(self, tmp_path: Path, capsys, modifiers: str, groups: str = "",
            types: str = "") -> tuple[int, str, np.ndarray]:
        path = tmp_path / "k.mlir"
        path.write_text(self.source(modifiers, groups, types))
        if self.d_init is not None:
            self.inputs["d_init"] = self.d_init.astype(np.float32)
        argv = [str(path), "--check-numpy", "--output", f"out={tmp_path / 'out.npy'}"]
        for name, array in self.inputs.items():
            np.save(tmp_path / f"{name}.npy", array)
            argv += ["--input", f"{name}={tmp_path / name}.npy"]
        code = main(argv)
        out, err = capsys.readouterr()
        assert "Traceback" not in err
        got = np.load(tmp_path / "out.npy") if code == 0 else np.zeros(0)
        return code, out + err, got


def check_line(out: str) -> str:
    line = next(x for x in out.splitlines() if x.startswith("check out = "))
    assert line.startswith("check out = numpy tcgen05.mma reference: ")
    return line


def printed_atol(line: str) -> float:
    return float(re.search(r"with rtol [\d.e+-]+, atol ([\d.e+-]+): ok$", line).group(1))


# ---- block scaling ---------------------------------------------------------------------------


BLOCK_CASES = [
    # kind, atype, btype, block_scale modifier, K elements per scale, scale type, sfa_id, sfb_id
    ("mxf8f6f4", "e4m3", "e2m1", "block_scale", 32, "ue8m0", 1, 3),
    ("mxf4", "e2m1", "e2m1", "block_scale(2X)", 32, "ue8m0", 2, 0),
    ("mxf4nvf4", "e2m1", "e2m1", "block_scale(4X)", 16, "ue4m3", 0, 0),
]


def block_scaled(rng, kind, atype, btype, block, scale_type, sfa_id, sfb_id):
    m, n = 128, 64
    k = 32 if kind == "mxf8f6f4" else 64
    a, b = rng.choice(E2M1, (m, k)), rng.choice(E2M1, (k, n))
    chunks = k // block
    if scale_type == "ue8m0":
        sfa, sfb = 2.0 ** rng.integers(-3, 4, (m, chunks)), 2.0 ** rng.integers(-3, 4, (chunks, n))
    else:  # UE4M3 values that are not powers of two
        pick = np.array([0.25, 0.375, 0.5, 0.75, 1, 1.25, 1.5, 2, 3, 6])
        sfa, sfb = rng.choice(pick, (m, chunks)), rng.choice(pick, (chunks, n))
    kernel = Kernel(kind, m, n, a, b.T, atype, btype, dtype=None, scale_type=scale_type,
                    sfa_id=sfa_id, sfb_id=sfb_id)
    kernel.tmem("sfa", lambda t, at: write_scale_factors(t, at, encode_scale(sfa, scale_type), sfa_id))
    kernel.tmem("sfb", lambda t, at: write_scale_factors(t, at, encode_scale(sfb.T, scale_type),
                                                         sfb_id))
    # D[i, j] = sum_k A[i, k] SA[i, k // block] B[k, j] SB[k // block, j]
    expected = (a * np.repeat(sfa, block, axis=1)) @ (b * np.repeat(sfb, block, axis=0))
    return kernel, expected


@pytest.mark.parametrize("case", BLOCK_CASES, ids=[c[0] + "-" + c[3] for c in BLOCK_CASES])
def test_block_scaled(tmp_path, capsys, case):
    kind, atype, btype, modifier, block, scale_type, sfa_id, sfb_id = case
    kernel, expected = block_scaled(np.random.default_rng(7), kind, atype, btype, block,
                                    scale_type, sfa_id, sfb_id)
    code, out, got = kernel.run(tmp_path, capsys, modifier, "scale(%sfa, %sfb)",
                                f", {TMEM_T}, {TMEM_T}")
    assert code == 0, out
    assert check_line(out).endswith(": ok")
    np.testing.assert_array_equal(got, expected.astype(np.float32))


def test_block_scaled_executor_fault_is_caught(tmp_path, capsys, monkeypatch):
    kernel, _ = block_scaled(np.random.default_rng(8), *BLOCK_CASES[0][:3], *BLOCK_CASES[0][4:])
    real = tk.decode_ue8m0
    monkeypatch.setattr(tk, "decode_ue8m0", lambda codes: real(codes) * np.float32(2))
    code, out, _ = kernel.run(tmp_path, capsys, "block_scale", "scale(%sfa, %sfb)",
                              f", {TMEM_T}, {TMEM_T}")
    assert code == 1
    assert ": FAILED (" in check_line(out)


# ---- sparse A --------------------------------------------------------------------------------


def sparse_kernel(rng, kind: str):
    m, n = 128, 64
    k, ab = (32, "f16") if kind == "f16" else (16, "tf32")
    if kind == "f16":  # 2:4: two of each four K positions, nibble = the two positions (ISA table)
        pairs = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
        nibble_of = {p: p[0] | p[1] << 2 for p in pairs}
        choice = rng.integers(0, len(pairs), (m, k // 4))
        positions = np.array(pairs)[choice]  # (m, groups, 2)
        nibbles = np.vectorize(lambda c: nibble_of[pairs[c]])(choice)
        group = 4
    else:  # tf32 1:2: nibble 0b0100 = the first position, 0b1110 = the second
        second = rng.integers(0, 2, (m, k // 2))
        positions = second[..., None]
        nibbles = np.where(second == 1, 0b1110, 0b0100)
        group = 2
    stored = rng.uniform(-2, 2, (m, k // 2)).astype(np.float16).astype(np.float64)
    dense = np.zeros((m, k))
    rows = np.arange(m)[:, None, None]
    columns = np.arange(positions.shape[1])[None, :, None] * group + positions
    dense[rows, columns] = stored.reshape(m, positions.shape[1], -1)
    b = rng.uniform(-2, 2, (k, n)).astype(np.float16).astype(np.float64)
    kernel = Kernel(kind, m, n, stored, b.T, ab, ab, dtype="f32", sparse=True)
    kernel.tmem("meta", lambda t, at: write_sparse_metadata(t, at, nibbles))
    return kernel, dense @ b


@pytest.mark.parametrize("kind", ["f16", "tf32"])
def test_sparse(tmp_path, capsys, kind):
    kernel, expected = sparse_kernel(np.random.default_rng(3), kind)
    code, out, got = kernel.run(tmp_path, capsys, "sparse", "metadata(%meta)", f", {TMEM_T}")
    assert code == 0, out
    line = check_line(out)
    assert line.endswith(": ok")
    atol = printed_atol(line)
    np.testing.assert_allclose(got, expected, rtol=2.4e-7, atol=atol)


def test_sparse_executor_fault_is_caught(tmp_path, capsys, monkeypatch):
    kernel, _ = sparse_kernel(np.random.default_rng(4), "f16")
    real = tk.densify_sparse_a
    # The executor expands each row with the metadata of the next row.
    monkeypatch.setattr(tk, "densify_sparse_a",
                        lambda kind, stored, nibbles, k: real(kind, stored, np.roll(nibbles, 1, 0), k))
    code, out, _ = kernel.run(tmp_path, capsys, "sparse", "metadata(%meta)", f", {TMEM_T}")
    assert code == 1
    assert ": FAILED (" in check_line(out)


# ---- .ws: zero-column mask and shift -----------------------------------------------------------


def ws_kernel(rng):
    m, n, k, shift = 64, 64, 16, 8
    z = ZeroColumnMask(start=(0, 3, 0, 0), first=(1, 0, 0, 0), nonzero=True, skip=2, use=4,
                       shift=shift)
    # The mask, from the PTX ISA generation rule: sub-mask i (of 2 for M = 64, N/2 bits each)
    # starts `start[i]` bits into a repeating run of skip + 1 ones and use + 1 zeros, beginning
    # with ones when first[i] is 1.
    masked = []
    for i in range(2):
        ones, zeros = [1] * (z.skip + 1), [0] * (z.use + 1)
        pattern = ones + zeros if z.first[i] else zeros + ones
        masked += [bool(pattern[(z.start[i] + bit) % 8]) for bit in range(n // 2)]
    a = rng.uniform(-2, 2, (m, k)).astype(np.float16).astype(np.float64)
    b_all = rng.uniform(-2, 2, (k, n + shift)).astype(np.float16).astype(np.float64)
    kernel = Kernel("f16", m, n, a, b_all.T, "f16", "f16", dtype="f32", max_shift=8)
    kernel.words["zcm"] = (encode_zcmask(z), "i64")
    b_used = np.where(np.array(masked)[None, :], 0.0, b_all[:, shift:])
    return kernel, a @ b_used


def test_ws_zero_column_mask_and_shift(tmp_path, capsys):
    kernel, expected = ws_kernel(np.random.default_rng(5))
    code, out, got = kernel.run(tmp_path, capsys, "ws", "zero_column_mask(%zcm)")
    assert code == 0, out
    line = check_line(out)
    assert line.endswith(": ok")
    atol = printed_atol(line)
    np.testing.assert_allclose(got, expected, rtol=2.4e-7, atol=atol)


def test_ws_executor_fault_is_caught(tmp_path, capsys, monkeypatch):
    kernel, _ = ws_kernel(np.random.default_rng(6))
    real = tk.zcmask_columns
    monkeypatch.setattr(tk, "zcmask_columns", lambda z, m, n: ~real(z, m, n))
    code, out, _ = kernel.run(tmp_path, capsys, "ws", "zero_column_mask(%zcm)")
    assert code == 1
    assert ": FAILED (" in check_line(out)


# ---- disable_output_lane and scale_input_d ---------------------------------------------------


def masked_kernel(rng):
    m, n, k = 128, 64, 16
    a = rng.uniform(-2, 2, (m, k)).astype(np.float16).astype(np.float64)
    b = rng.uniform(-2, 2, (k, n)).astype(np.float16).astype(np.float64)
    d0 = rng.uniform(-4, 4, (m, n)).astype(np.float32).astype(np.float64)
    words = [0x0000_00F1, 0x8000_0000, 0, 0xFFFF_0000]  # lanes 0, 4-7, 63 and 112-127
    kernel = Kernel("f16", m, n, a, b.T, "f16", "f16", dtype="f32")
    for i, w in enumerate(words):
        kernel.words[f"w{i}"] = (w - (1 << 32) if w >= 1 << 31 else w, "i32")
    kernel.d_init, kernel.enable = d0, "true"
    disabled = np.zeros(m, dtype=bool)
    disabled[[0, 4, 5, 6, 7, 63]] = True
    disabled[112:] = True
    # D = A B + D * 2^-3 on the enabled lanes; the disabled lanes keep D.
    expected = np.where(disabled[:, None], d0, a @ b + d0 / 8)
    return kernel, expected


GROUPS = "disable_output_lane(%w0, %w1, %w2, %w3) scale_input_d(3)"


def test_disable_output_lane_and_scale_input_d(tmp_path, capsys):
    kernel, expected = masked_kernel(np.random.default_rng(9))
    code, out, got = kernel.run(tmp_path, capsys, "", GROUPS)
    assert code == 0, out
    line = check_line(out)
    assert line.endswith(": ok")
    atol = printed_atol(line)
    np.testing.assert_allclose(got, expected, rtol=2.4e-7, atol=atol)
    np.testing.assert_array_equal(got[:8][[0, 4, 5, 6, 7]], expected[:8][[0, 4, 5, 6, 7]])


def test_disable_output_lane_executor_fault_is_caught(tmp_path, capsys, monkeypatch):
    kernel, _ = masked_kernel(np.random.default_rng(10))
    real = tk._lane_enable_mask
    # Lane numbering off by one.
    monkeypatch.setattr(tk, "_lane_enable_mask",
                        lambda words, lane, m: np.roll(real(words, lane, m), 1))
    code, out, _ = kernel.run(tmp_path, capsys, "", GROUPS)
    assert code == 1
    assert ": FAILED (" in check_line(out)
