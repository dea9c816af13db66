"""tcgen05-lower-matmul of block-scaled matmuls (`scale(%sa, %sb)`: kind::mxf8f6f4, mxf4 and
mxf4nvf4 with UE8M0 or UE4M3 scales): the scale
atoms travel by TMA with the stages and reach TMEM by tcgen05.cp; the kernel runs clean under the
asynchronous checker, equals numpy with the scales applied (computed here from the logical scale
matrices, not from the atoms the kernel reads), passes --check-numpy in the default and the
exact numerics mode, and a wrong SF id in the lowering fails --check-numpy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tcgen05_scaled_testing import scaled_inputs as _inputs
from tcgen05_scaled_testing import scaled_kernel_file as _kernel

from mmair.isa.tcgen05 import matmul as plan_module
from mmair.isa.tcgen05.scale_atoms import atoms_from_logical, atoms_shape, logical_from_atoms
from mmair.tools.run import main

CASES = [
    (200, 80, 208, "e4m3", "e5m2", False, False, "ue8m0"),  # remainder rows, partial K block
    (144, 264, 144, "e5m2", "e4m3", True, True, "ue8m0"),  # A MN-major, two column tiles of 256
    (128, 256, 1024, "e4m3", "e4m3", False, True, "ue8m0"),  # 8 K blocks, a 4-stage ring refills
    (200, 80, 320, "e2m1", "e2m1", False, True, "ue8m0"),  # kind::mxf4: 2 scales per MMA
    (200, 80, 320, "e2m1", "e2m1", False, True, "ue4m3"),  # kind::mxf4nvf4 block16
]


@pytest.mark.parametrize(("m", "n", "k", "ea", "eb", "ta", "tb", "scale"), CASES,
                         ids=[f"{c[0]}x{c[1]}x{c[2]}-{c[3]}x{c[4]}{'-ta' * c[5]}{'-tb' * c[6]}"
                              f"-{c[7]}" for c in CASES])
def test_block_scaled_matmul_is_clean_and_equals_numpy_with_scales(
        tmp_path: Path, capsys, m: int, n: int, k: int, ea: str, eb: str, ta: bool,
        tb: bool, scale: str) -> None:
    path = _kernel(tmp_path, m, n, k, ea, eb, ta, tb, scale)
    want, inputs = _inputs(tmp_path, m, n, k, ea, eb, ta, tb, scale)
    code = main([str(path), *inputs, "--output", f"d={tmp_path / 'd.npy'}", "--check-numpy"])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "check d = numpy tcgen05.matmul reference (the logical product)" in out.out
    assert np.array_equal(np.load(tmp_path / "d.npy"), want)


SUB_BYTE_CASES = [  # kind::mxf8f6f4 with sub-byte operands: padded TMA, the 8-bit plan
    (200, 80, 256, "e2m3", "e3m2", False, True, None),  # remainder rows, both fp6
    (256, 72, 256, "e2m1", "e2m1", True, True, "mxf8f6f4"),  # A M-major; e2m1 asked as mxf8f6f4
    (130, 13, 128, "e2m1", "e4m3", False, True, None),  # a fp4 x fp8 pair, N = 13
]


@pytest.mark.parametrize(("m", "n", "k", "ea", "eb", "ta", "tb", "kind"), SUB_BYTE_CASES,
                         ids=[f"{c[0]}x{c[1]}x{c[2]}-{c[3]}x{c[4]}{'-ta' * c[5]}{'-tb' * c[6]}"
                              for c in SUB_BYTE_CASES])
def test_mxf8f6f4_with_sub_byte_types_equals_numpy_in_both_modes(
        tmp_path: Path, capsys, m: int, n: int, k: int, ea: str, eb: str, ta: bool, tb: bool,
        kind: str | None) -> None:
    assert plan_module.plan_matmul(m, n, k, ea, eb, "f32", ta, tb, scale_types=(
        "ue8m0", "ue8m0"), kind=kind).kind == "mxf8f6f4"
    path = _kernel(tmp_path, m, n, k, ea, eb, ta, tb, kind=kind)
    want, inputs = _inputs(tmp_path, m, n, k, ea, eb, ta, tb)
    for mode in ("default", "exact"):  # small integers times powers of two: exact in f32
        out = tmp_path / f"d_{mode}.npy"
        code = main([str(path), *inputs, "--numerics", mode, "--output", f"d={out}",
                     "--check-numpy"])
        text = capsys.readouterr()
        assert code == 0, text.err
        assert text.out.endswith(": ok\n")
        assert np.array_equal(np.load(out), want)


def test_the_plan_of_a_block_scaled_matmul() -> None:
    plan = plan_module.plan_matmul(144, 264, 144, "e5m2", "e4m3", "f32", True, True,
                                   scale_types=("ue8m0", "ue8m0"))
    assert (plan.kind, plan.tile_n, plan.tiles_n, plan.acc_buffers) == ("mxf8f6f4", 256, 2, 1)
    s = plan.scales
    assert s is not None and (s.a.atoms_mn, s.b.atoms_mn, s.a.atoms_k) == (1, 2, 1)
    assert s.b.tensor_map.dims == (16, 32, 2, 3) and s.b.tensor_map.box == (16, 32, 1, 2)
    assert [plan.idesc(i).sfa_id for i in range(4)] == [0, 1, 2, 3]
    assert plan.tx_bytes == 128 * 128 + 256 * 128 + 512 + 1024
    nv = plan_module.plan_matmul(200, 80, 320, "e2m1", "e2m1", "f32", False, True,
                                 scale_types=("e4m3", "e4m3"))
    assert nv.kind == "mxf4nvf4" and nv.scales is not None and nv.scales.scale_vec == "block16"
    # K block 256 = 16 blocks of 16 = 4 K atoms; one atom per MMA (SF id 0)
    assert [nv.scales.mma_scales(i) for i in range(4)] == [(0, 0), (1, 0), (2, 0), (3, 0)]
    mx = plan_module.plan_matmul(200, 80, 320, "e2m1", "e2m1", "f32", False, True,
                                 scale_types=("ue8m0", "ue8m0"))
    assert mx.kind == "mxf4" and mx.scales is not None
    assert [mx.scales.mma_scales(i) for i in range(4)] == [(0, 0), (0, 2), (1, 0), (1, 2)]
    assert mx.a.tensor_map.dtype == "b4x16" and mx.a.tensor_map.box == (256, 128)
    padded = plan_module.plan_matmul(200, 80, 256, "e2m1", "e2m1", "f32", False, True,
                                     scale_types=("ue8m0", "ue8m0"), kind="mxf8f6f4")
    # asked for, e2m1 x e2m1 is kind::mxf8f6f4: padded 16-byte units, the 8-bit K block of 128
    assert padded.a.tensor_map.dtype == "b4x16_p64" and padded.a.tensor_map.box == (128, 128)
    assert padded.tx_bytes == 128 * 64 + 80 * 64 + 512 + 512  # packed bytes and the scale atoms


def test_default_and_exact_numerics_pass_check_numpy_on_real_inputs(tmp_path: Path,
                                                                    capsys) -> None:
    path = _kernel(tmp_path, 200, 80, 208, "e4m3", "e5m2", False, False)
    results = []
    for mode in ("default", "exact"):
        out = tmp_path / f"d_{mode}.npy"
        code = main([str(path), "--numerics", mode, "--check-numpy", "--output", f"d={out}"])
        text = capsys.readouterr()
        assert code == 0, text.err
        assert text.out.endswith(": ok\n")
        results.append(np.load(out))
    np.testing.assert_allclose(results[0], results[1], rtol=1e-5, atol=1e-3)


def test_wrong_sf_id_in_the_lowering_fails_check_numpy(tmp_path: Path, capsys,
                                                        monkeypatch) -> None:
    # every MMA reads the scale of the K atom's first block: the kernel's own tcgen05.mma
    # reference would agree with it, the logical product does not
    monkeypatch.setattr(plan_module.ScalePlan, "mma_scales", lambda self, mma: (0, 0))
    path = _kernel(tmp_path, 200, 80, 208, "e4m3", "e5m2", False, False)
    _, inputs = _inputs(tmp_path, 200, 80, 208, "e4m3", "e5m2", False, False)
    assert main([str(path), *inputs, "--sync-check=off", "--check-numpy"]) == 1
    out = capsys.readouterr().out
    assert "check d = numpy tcgen05.matmul reference (the logical product): max abs error" in out
    assert ": FAILED (" in out


def test_scale_atoms_round_trip_and_place_a_scale_where_the_cp_reads_it() -> None:
    codes = np.arange(200 * 7, dtype=np.int64).reshape(200, 7).astype(np.uint16)
    atoms = atoms_from_logical(codes, fill=9999)
    assert atoms.shape == atoms_shape(200, 7 * 32, 32) == (2, 2, 32, 16)
    # row 37 = 32 x 1 + 5, block 6 = 4 x 1 + 2: atom [0, 1], lane 5, byte 4 x 1 + 2
    assert atoms[0, 1, 5, 6] == codes[37, 6]
    assert atoms[1, 1, 31, 15] == 9999  # row 255, block 7: padding
    assert np.array_equal(logical_from_atoms(atoms)[:200, :7], codes)
