"""cta_group::2 on a CTA pair (executor/tcgen05/cta_pair.py, tcgen05_kernels.mma_pair): numerics
against numpy, the multicast commit, the cluster barrier, and the faults a pair kernel can have
(each one diagnostic at its op); variants of the pair example (the odd rank issuing, negative
descriptor constants, scale_input_d, commit masks), and the cluster and pair seam through the
Python API (same-interval races, the hand-off, deadlocks)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from run_variants import run_lowered, write_variant
from tcgen05_testing import TCGEN05_CONTEXT
from xdsl.dialects import test as test_dialect
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, StringAttr
from xdsl.parser import Parser

from mmair.executor.engine.errors import ExecutionError
from mmair.executor.engine.turns import Abort
from mmair.executor.tcgen05.cta_pair import Cluster, PairSeam, uses_cta_pair
from mmair.executor.tcgen05.exact import fused_mma
from mmair.executor.tcgen05.kernels import mma_pair, pair_smem_spans
from mmair.executor.tcgen05.memories import SharedMemory, Tcgen05ExecutionError, TensorMemory
from mmair.executor.tcgen05.operands import read_d, write_d, write_smem_operand
from mmair.isa.tcgen05 import InstrDesc, SmemDesc, encode_idesc, encode_smem_desc
from mmair.tools.run import main

ROOT = Path(__file__).resolve().parents[4]
EXAMPLE = ROOT / "examples" / "tcgen05_gemm_pair.mlir"
LINES = EXAMPLE.read_text().splitlines()
RNG = np.random.default_rng(21)


def _line(fragment: str) -> int:
    return next(i + 1 for i, x in enumerate(LINES) if fragment in x)


def _inputs(tmp_path: Path) -> tuple[list[str], np.ndarray]:
    a = RNG.integers(-4, 5, (256, 16)).astype(np.float16)
    b = RNG.integers(-4, 5, (16, 128)).astype(np.float16)
    np.save(tmp_path / "a.npy", a.reshape(2, 128, 2, 8).transpose(0, 2, 1, 3).copy())
    np.save(tmp_path / "b.npy", b.T.reshape(2, 64, 2, 8).transpose(0, 2, 1, 3).copy())
    args = ["--input", f"a={tmp_path / 'a.npy'}", "--input", f"b={tmp_path / 'b.npy'}"]
    return args, a.astype(np.float32) @ b.astype(np.float32)


def test_pair_gemm_matches_numpy(capsys, tmp_path: Path) -> None:
    args, expected = _inputs(tmp_path)
    for check in ("on", "off"):
        code, err = run_lowered(capsys, EXAMPLE, *args, f"--sync-check={check}", "--output",
                         f"d={tmp_path / 'd.npy'}")
        assert code == 0, err
        np.testing.assert_array_equal(np.load(tmp_path / "d.npy"), expected)


def test_commit_without_the_peer_in_its_mask_leaves_the_peer_waiting(capsys,
                                                                       tmp_path: Path) -> None:
    path = write_variant(tmp_path, "mask1", [x.replace("%both = arith.constant 3 : i16",
                                                  "%both = arith.constant 1 : i16")
                                        for x in LINES])
    code, err = run_lowered(capsys, path)
    assert code == 1
    wait = _line("tcgen05.mbarrier_wait %bar")
    assert err.startswith(
        f"{path}:{wait}:5: error: 'tcgen05.mbarrier_wait' op deadlock: CTA 1 of the CTA pair "
        "waits on phase parity 0 of the mbarrier at SMEM 0x1800, which can never happen "
        "(CTA 0 ended)")


def test_commit_mask_beyond_the_pair_is_refused(capsys, tmp_path: Path) -> None:
    path = write_variant(tmp_path, "mask4", [x.replace("%both = arith.constant 3 : i16",
                                                  "%both = arith.constant 7 : i16")
                                        for x in LINES])
    code, err = run_lowered(capsys, path)
    assert code == 1
    assert "'tcgen05.commit' op multicasts to CTA mask 0x0007, which names CTAs beyond its " \
           "cluster of 2 CTAs (ranks 0, 1) (in CTA 0 of the CTA pair)" in err


def test_peer_smem_written_after_the_cluster_barrier_is_a_race(capsys, tmp_path: Path) -> None:
    lines = list(LINES)
    copy = lines.pop(_line('"memref.copy"(%b_half, %b_smem)') - 1)
    sync = next(i for i, x in enumerate(lines) if "tcgen05.cluster_sync" in x)
    lines.insert(sync + 1, copy)
    path = write_variant(tmp_path, "late_copy", lines)
    mma = next(i + 1 for i, x in enumerate(lines) if "tcgen05.mma kind" in x)
    # The asynchronous checker (one engine for both CTAs; the default):
    code, err = run_lowered(capsys, path)
    assert code == 1
    assert err.startswith(
        f"{path}:{mma}:7: error: 'tcgen05.mma' op race on smem bytes [4096, 6144) (%b_smem of "
        "CTA 1) between CTAs 1 and 0 of the CTA pair: 'tcgen05.mma' at "
        f"{path}:{mma}:7 (the tensor core's async unit) reads them, 'memref.copy' at "
        f"{path}:{sync + 2}:5 (the issuing thread, CTA 1) writes them; no tcgen05.cluster_sync "
        "(or mbarrier phase the thread waited) orders them")
    # --sync-check=off keeps the barrier-interval check of the pair:
    code, err = run_lowered(capsys, path, "--sync-check=off")
    assert code == 1
    assert err.startswith(
        f"{path}:{mma}:7: error: 'tcgen05.mma' op race on smem bytes [4096, 6144) of CTA 1 of the "
        f"CTA pair: 'tcgen05.mma' reads them, 'memref.copy' at {path}:{sync + 2}:5 writes them, "
        "in the same interval between tcgen05.cluster_sync barriers")


def test_peer_smem_in_no_buffer_is_named_shared_memory_of_its_cta(capsys, tmp_path: Path) -> None:
    # The late copy of the test above, with %b_smem allocated 16 bytes past where B's
    # descriptor points: the MMA's read of CTA 1's B, [4096, 6144), starts in no
    # tcgen05.smem_alloc buffer of that CTA.
    lines = list(LINES)
    copy = lines.pop(_line('"memref.copy"(%b_half, %b_smem)') - 1)
    sync = next(i for i, x in enumerate(lines) if "tcgen05.cluster_sync" in x)
    lines.insert(sync + 1, copy)
    lines = [x.replace("smem_alloc offset(4096)", "smem_alloc offset(4112)")
             .replace("smem_alloc offset(6144)", "smem_alloc offset(8192)") for x in lines]
    path = write_variant(tmp_path, "late_copy_gap", lines)
    mma = next(i + 1 for i, x in enumerate(lines) if "tcgen05.mma kind" in x)
    code, err = run_lowered(capsys, path)
    assert code == 1
    assert err.startswith(
        f"{path}:{mma}:7: error: 'tcgen05.mma' op race on smem bytes [4112, 6144) (shared memory "
        "of CTA 1 / %b_smem of CTA 1) between CTAs 1 and 0 of the CTA pair: 'tcgen05.mma' at "
        f"{path}:{mma}:7 (the tensor core's async unit) reads them, 'memref.copy' at "
        f"{path}:{sync + 2}:5 (the issuing thread, CTA 1) writes them; no tcgen05.cluster_sync "
        "(or mbarrier phase the thread waited) orders them")


def test_mma_before_the_peer_allocated_its_tmem(capsys, tmp_path: Path) -> None:
    path = write_variant(tmp_path, "no_sync", [x for x in LINES if "tcgen05.cluster_sync" not in x])
    code, err = run_lowered(capsys, path)
    assert code == 1
    assert "'tcgen05.mma' op requires D in allocated TMEM columns, got column 0, which is not " \
           "allocated (access to columns [0, 128)) (D rows 128..255 in the tensor memory of " \
           "CTA 1 of the pair) (in CTA 0 of the CTA pair)" in err


def test_pair_kernel_refuses_coverage(capsys) -> None:
    code, err = run_lowered(capsys, EXAMPLE, "--check-coverage", "d")
    assert code == 1
    assert "error: --timing and --check-coverage are not modelled for a cta_group::2 kernel " \
           "(a CTA pair)" in err


def _pair_setup(m_rows: int, n: int, k: int, type_name: str) -> tuple[list, list, int, int]:
    """Two CTAs with A halves at 0 and B halves at 0x4000 (K-major, no swizzle)."""
    ctas = [(SharedMemory(), TensorMemory()) for _ in range(2)]
    a = RNG.integers(-3, 4, (2 * m_rows, k)).astype(np.float64)
    b = RNG.integers(-3, 4, (k, n)).astype(np.float64)
    a_desc = SmemDesc(start=0, lbo=m_rows * 16, sbo=128, base_offset=0, swizzle="none")
    b_desc = SmemDesc(start=0x4000, lbo=n // 2 * 16, sbo=128, base_offset=0, swizzle="none")
    for c, (smem, tmem) in enumerate(ctas):
        tmem.alloc(256)
        write_smem_operand(smem, a_desc, a[c * m_rows:(c + 1) * m_rows], major="k",
                           type_name=type_name, kind="f16")
        write_smem_operand(smem, b_desc, b[:, c * n // 2:(c + 1) * n // 2].T, major="k",
                           type_name=type_name, kind="f16")
    return ctas, [a, b], encode_smem_desc(a_desc), encode_smem_desc(b_desc)


def test_mma_pair_accumulates_and_honours_the_8_word_lane_mask() -> None:
    ctas, (a, b), a_word, b_word = _pair_setup(128, 64, 16, "bf16")
    old = RNG.integers(-8, 9, (256, 64)).astype(np.float32)
    for c, (_, tmem) in enumerate(ctas):
        write_d(tmem, 0, "f32", old[128 * c:128 * (c + 1)])
    words = [0] * 8
    words[5] = 1 << 3  # lane 163 (bit 3 of word 5) = lane 35 of CTA 1 keeps its old row
    idesc = encode_idesc(InstrDesc(kind="f16", m=256, n=64, atype="bf16", btype="bf16",
                                   dtype="f32"))
    mma_pair(ctas, kind="f16", d=0, a=a_word, b=b_word, idesc=idesc, enable_input_d=True,
             disable_output_lane=words)
    expected = a @ b + old
    expected[163] = old[163]
    got = np.concatenate([read_d(tmem, 0, "f32", 128, 64) for _, tmem in ctas])
    np.testing.assert_array_equal(got, expected)


def test_mma_pair_in_exact_numerics_is_each_ctas_rows_of_the_one_cta_mma() -> None:
    # a pair MMA's D row is the fused dot product `mma` computes for that row (the same K chunk,
    # the same C): CTA c's rows equal the one-CTA MMA of its A half with all of B, bit for bit
    ctas, (a, b), a_word, b_word = _pair_setup(128, 64, 16, "bf16")
    pair = encode_idesc(InstrDesc(kind="f16", m=256, n=64, atype="bf16", btype="bf16",
                                  dtype="f32"))
    old = RNG.standard_normal((256, 64)).astype(np.float32)
    for c, (_, tmem) in enumerate(ctas):
        write_d(tmem, 0, "f32", old[128 * c:128 * (c + 1)])
    mma_pair(ctas, kind="f16", d=0, a=a_word, b=b_word, idesc=pair, enable_input_d=True,
             numerics="exact")
    got = np.concatenate([read_d(tmem, 0, "f32", 128, 64) for _, tmem in ctas])
    want = fused_mma("f16", a.astype(np.float64), b.T.astype(np.float64), old, atype="bf16",
                     btype="bf16", d_type="f32")
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


def test_mma_pair_refuses_what_it_does_not_model() -> None:
    ctas, _, a_word, b_word = _pair_setup(64, 64, 16, "f16")
    idesc = encode_idesc(InstrDesc(kind="f16", m=128, n=64, atype="f16", btype="f16",
                                   dtype="f32"))
    with pytest.raises(Tcgen05ExecutionError, match=r"cta_group::2 with M = 128 \(Layout B/C; "
                       r"only M = 256, Layout A, is modelled\)"):
        mma_pair(ctas, kind="f16", d=0, a=a_word, b=b_word, idesc=idesc, enable_input_d=False)


def test_pair_mma_with_a_in_tmem_is_refused_at_the_op(capsys, tmp_path: Path) -> None:
    # A in tensor memory on a CTA pair is not modelled: one diagnostic at the MMA, with and
    # without the asynchronous checker (never a crash reading a TMEM memref as a descriptor).
    lines = list(LINES)
    mma = _line("tcgen05.mma kind")
    alloc = _line("%acc = tcgen05.alloc")
    tmem_a = "memref<128x16xf16, #tcgen05.space<tmem>>"
    lines[alloc - 1] += f"\n    %a_tmem = tcgen05.alloc cta_group(2) columns(32) : {tmem_a}"
    lines[mma - 1] = lines[mma - 1].replace("%acc, %a_desc,", "%acc, %a_tmem,").replace(
        "#tcgen05.space<tmem>>, i64", f"#tcgen05.space<tmem>>, {tmem_a}")
    lines = "\n".join(lines).splitlines()
    path = write_variant(tmp_path, "pair_a_tmem", lines)
    mma = next(i + 1 for i, x in enumerate(lines) if "tcgen05.mma kind" in x)
    for check in ("on", "off"):
        code, err = run_lowered(capsys, path, f"--sync-check={check}")
        assert code == 1
        assert err.startswith(f"{path}:{mma}:7: error: 'tcgen05.mma' op uses cta_group::2 with A "
                              "in tensor memory, which the executor does not model"), err


def test_pair_smem_spans_of_a_in_tmem_are_b_only() -> None:
    # A in TMEM (a = None) has no SMEM span: only B's half is read from each CTA's SMEM.
    idesc = encode_idesc(InstrDesc(kind="f16", m=256, n=64, atype="f16", btype="f16",
                                   dtype="f32"))
    b_word = encode_smem_desc(SmemDesc(start=0x4000, lbo=512, sbo=128))
    a_word = encode_smem_desc(SmemDesc(start=0, lbo=2048, sbo=128))
    with_a = pair_smem_spans("f16", idesc, a_word, b_word)
    # A: 128 rows x 16 f16 = 4096 bytes; B's half: 32 columns x 16 f16 = 1024 bytes.
    assert with_a == ((0, 4096), (0x4000, 0x4000 + 1024))
    assert pair_smem_spans("f16", idesc, None, b_word) == with_a[1:]


def test_check_numpy_reference_runs_the_pair_and_catches_a_wrong_executor(capsys, monkeypatch,
                                                                           tmp_path: Path) -> None:
    args, _ = _inputs(tmp_path)
    code = main([str(EXAMPLE), "-p", "mmair-lower", "--check-numpy", *args])
    out = capsys.readouterr().out
    assert code == 0
    assert out.startswith("check d = numpy tcgen05.mma reference: ") and out.rstrip().endswith(
        ": ok")
    from mmair.executor.tcgen05 import functions as executor_tcgen05

    real = executor_tcgen05.mma_pair
    # A fault: the pair's CTAs taken in the wrong order (B halves and D rows swapped).
    monkeypatch.setattr(executor_tcgen05, "mma_pair",
                        lambda ctas, **kw: real(list(reversed(ctas)), **kw))
    code = main([str(EXAMPLE), "-p", "mmair-lower", "--check-numpy", *args])
    out = capsys.readouterr().out
    assert code == 1
    assert "check d = numpy tcgen05.mma reference: " in out and "FAILED" in out


def test_checker_sees_the_peer_reading_d_before_the_mma_completes(capsys, tmp_path: Path) -> None:
    # CTA 1 loads its D rows right after the cluster barrier, without waiting for the commit's
    # phase: the pair MMA (issued later by CTA 0) writes those TMEM cells unordered with the load.
    lines = list(LINES)
    wait = _line("tcgen05.mbarrier_wait %bar")
    lines[wait - 1] = f"    scf.if %leader {{\n  {lines[wait - 1]}\n    }}"  # only CTA 0 waits
    # The dealloc comes after a second barrier (CTA 1 must not free its TMEM under the MMA).
    dealloc = _line("tcgen05.dealloc")
    lines.insert(dealloc - 1, "    tcgen05.cluster_sync")
    lines = "\n".join(lines).splitlines()
    path = write_variant(tmp_path, "early_d", lines)
    code, err = run_lowered(capsys, path)
    assert code == 1
    mma = next(i + 1 for i, x in enumerate(lines) if "tcgen05.mma kind" in x)
    assert err.startswith(f"{path}:{mma}:7: error: 'tcgen05.mma' op race on TMEM lanes [96, 128) "
                          "x columns [0, 128) (%acc of CTA 1) between CTAs 1 and 0 of the CTA "
                          "pair: 'tcgen05.mma'")
    assert "'tcgen05.ld' at" in err and "(the TMEM load path, CTA 1) reads them" in err


def test_pair_shift_and_cp_move_both_ctas_rows(capsys, tmp_path: Path) -> None:
    # After the MMA and its wait, a cta_group::2 shift of %acc moves lanes 0..31 of columns 0..7
    # down one lane in BOTH CTAs; each CTA then copies its 128 D rows to GM through the TMEM
    # memref (lane 0 is undefined: NaN there).
    lines = list(LINES)
    wait = _line("tcgen05.mbarrier_wait %bar")
    shift = ["    tcgen05.cluster_sync",  # both CTAs saw phase 0 before the next commit
             "    scf.if %leader {",
             "      tcgen05.shift cta_group(2) %acc : memref<128x128xf32, #tcgen05.space<tmem>>",
             "      %again = arith.constant 3 : i16",
             "      tcgen05.commit cta_group(2) %bar multicast(%again) : "
             "memref<1xi64, #tcgen05.space<smem>>",
             "    }",
             "    %phase1 = arith.constant true",
             "    tcgen05.mbarrier_wait %bar, %phase1 : memref<1xi64, #tcgen05.space<smem>>",
             "    %c128x = arith.constant 128 : index",
             "    %half_row = arith.muli %rank, %c128x : index",
             '    %d_half = "memref.subview"(%d, %half_row) <{static_offsets = array<i64: '
             "-9223372036854775808, 0>, static_sizes = array<i64: 128, 128>, static_strides = "
             "array<i64: 1, 1>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : "
             "(memref<256x128xf32>, index) -> memref<128x128xf32, strided<[128, 1], offset: ?>>",
             '    "memref.copy"(%acc, %d_half) : (memref<128x128xf32, #tcgen05.space<tmem>>, '
             "memref<128x128xf32, strided<[128, 1], offset: ?>>) -> ()"]
    epilogue = [x for x in lines[wait:] if "tcgen05.ld" not in x and "tcgen05.wait_ld" not in x
                and '"memref.copy"(%r' not in x]
    path = write_variant(tmp_path, "pair_shift", lines[:wait] + shift + epilogue)
    args, expected = _inputs(tmp_path)
    code, err = run_lowered(capsys, path, *args, "--output", f"d={tmp_path / 'd.npy'}")
    assert code == 0, err
    d = np.load(tmp_path / "d.npy")
    for base in (0, 128):  # each CTA's half
        assert np.isnan(d[base, :8]).all()
        np.testing.assert_array_equal(d[base + 1:base + 32, :8], expected[base:base + 31, :8])
        np.testing.assert_array_equal(d[base + 32:base + 128], expected[base + 32:base + 128])
        np.testing.assert_array_equal(d[base:base + 32, 8:], expected[base:base + 32, 8:])
    # The same with a cta_group::2 tcgen05.cp .128x256b of SMEM [0, 4096) (each CTA's A rows)
    # into columns 0..7 of %acc: each CTA's lanes receive ITS OWN SMEM's bytes (the peer's A
    # rows differ), the other columns keep the MMA's D.
    cp = [x.replace("      tcgen05.shift cta_group(2) %acc : memref<128x128xf32, "
                    "#tcgen05.space<tmem>>",
                    '      tcgen05.cp cta_group(2) shape("128x256b") %acc, %src : '
                    "memref<128x128xf32, #tcgen05.space<tmem>>") for x in shift]
    cp.insert(0, "    %src = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 0, lbo = 128, "
                 "sbo = 256, base_offset = 0, lbo_mode = relative, swizzle = none>")
    path = write_variant(tmp_path, "pair_cp", lines[:wait] + cp + epilogue)
    args, expected = _inputs(tmp_path)
    code, err = run_lowered(capsys, path, *args, "--output", f"d={tmp_path / 'd.npy'}")
    assert code == 0, err
    d = np.load(tmp_path / "d.npy")
    a = np.load(tmp_path / "a.npy")  # [CTA half, K core group, 128 rows, 8]: the SMEM image
    rows = np.arange(128)
    for c in range(2):
        units = a.reshape(2, 2, 128, 8)[c].reshape(256, 8)  # 16-byte unit kg * 128 + row
        # K-major, no swizzle: row r, 16-byte chunk j at (r // 8) SBO + (r % 8) 16 + j LBO
        bits = np.concatenate([units[(rows // 8) * 16 + rows % 8 + 8 * j].view(np.uint32)
                               for j in range(2)], axis=1)
        np.testing.assert_array_equal(d[128 * c:128 * c + 128, :8].view(np.uint32), bits)
        np.testing.assert_array_equal(d[128 * c:128 * c + 128, 8:],
                                      expected[128 * c:128 * c + 128, 8:])
    assert not np.array_equal(d[:128, :8], d[128:, :8])


# The pair's commit masks and cta_group::2 outside a pair


def _kernel(body: str, *params: str) -> str:
    return "func.func @k(" + ", ".join(params) + ") {\n" + body + "\n  func.return\n}\n"


PAIR_D = "memref<128x128xf32, #tcgen05.space<tmem>>"


@pytest.mark.parametrize("op", [
    "  %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, "
    "btype = f16, m = 256, n = 128>\n"
    f"  %w = arith.constant {encode_smem_desc(SmemDesc(0, 2048, 128))} : i64\n"
    "  %en = arith.constant false\n"
    f"  tcgen05.mma kind(f16) cta_group(2) %d, %w, %w, %idesc, %en : {PAIR_D}, i64",
    f"  tcgen05.shift cta_group(2) %d : {PAIR_D}",
])
def test_interpreter_refuses_cta_group_2_outside_a_pair(op):
    from tcgen05_testing import run_kernel

    from mmair.executor.engine.errors import ExecutionError

    body = f"  %d = tcgen05.alloc cta_group(2) columns(128) : {PAIR_D}\n{op}"
    with pytest.raises(ExecutionError, match=r"op uses cta_group::2 outside a CTA pair$"):
        run_kernel(_kernel(body))


def _pair_example_with_mask(tmp_path, constant: str):
    from run_variants import write_variant

    example = Path(__file__).resolve().parents[4] / "examples" / "tcgen05_gemm_pair.mlir"
    lines = example.read_text().splitlines()
    edited = [x.replace("%both = arith.constant 3 : i16", f"%both = arith.constant {constant}")
              for x in lines]
    wait = next(i + 1 for i, x in enumerate(lines) if "tcgen05.mbarrier_wait %bar" in x)
    return write_variant(tmp_path, "mask", edited), wait


def test_pair_commit_to_the_peer_only_leaves_the_issuer_waiting(capsys, tmp_path):
    from run_variants import run_lowered

    # mask 0b10: the arrival goes to CTA 1 only; CTA 0 (the issuer) waits for ever
    path, wait = _pair_example_with_mask(tmp_path, "2 : i16")
    code, err = run_lowered(capsys, path)
    assert code == 1
    assert err.startswith(
        f"{path}:{wait}:5: error: 'tcgen05.mbarrier_wait' op deadlock: CTA 0 of the CTA pair "
        "waits on phase parity 0 of the mbarrier at SMEM 0x1800, which can never happen")


def test_pair_commit_mask_is_the_i16_bit_pattern(capsys, tmp_path):
    from run_variants import run_lowered

    path, _ = _pair_example_with_mask(tmp_path, "-1 : i16")  # 0xFFFF: every CTA of 16
    code, err = run_lowered(capsys, path)
    assert code == 1
    assert "'tcgen05.commit' op multicasts to CTA mask 0xffff, which names CTAs beyond its " \
           "cluster of 2 CTAs (ranks 0, 1) (in CTA 0 of the CTA pair)" in err


# Variants of the pair example through mmair-run: the odd rank issuing, swizzled descriptors given
# as negative constants, scale_input_d, reserved idesc bits, A in TMEM


PAIR, PAIR_LINES = EXAMPLE, LINES


def _pair_inputs(tmp_path: Path) -> tuple[list[str], np.ndarray]:
    """K-blocked GM inputs of the pair example (its header) and the numpy product."""
    a = RNG.integers(-4, 5, (256, 16)).astype(np.float16)
    b = RNG.integers(-4, 5, (16, 128)).astype(np.float16)
    np.save(tmp_path / "a.npy", a.reshape(2, 128, 2, 8).transpose(0, 2, 1, 3).copy())
    np.save(tmp_path / "b.npy", b.T.reshape(2, 64, 2, 8).transpose(0, 2, 1, 3).copy())
    args = ["--input", f"a={tmp_path / 'a.npy'}", "--input", f"b={tmp_path / 'b.npy'}"]
    return args, a.astype(np.float32) @ b.astype(np.float32)


def _rank1_leads(lines: list[str]) -> list[str]:
    """The pair example with CTA 1 (the odd rank) issuing the MMA and the commit."""
    leader = "%leader = arith.cmpi eq, %rank_i32, %c0_i32 : i32"
    assert sum(leader in x for x in lines) == 1
    return [x.replace(leader, "%c1_i32 = arith.constant 1 : i32\n    "
                      "%leader = arith.cmpi eq, %rank_i32, %c1_i32 : i32") for x in lines]


def test_pair_mma_issued_by_the_odd_rank(capsys, tmp_path: Path) -> None:
    # The pair of rank 1 is CTAs 0 and 1 (rank & ~1): D rows 0..127 land in CTA 0's TMEM.
    path = write_variant(tmp_path, "rank1", _rank1_leads(PAIR_LINES))
    args, expected = _pair_inputs(tmp_path)
    code, err = run_lowered(capsys, path, *args, "--output", f"d={tmp_path / 'd.npy'}")
    assert code == 0, err
    np.testing.assert_array_equal(np.load(tmp_path / "d.npy"), expected)


def test_pair_shift_issued_by_the_odd_rank_moves_both_ctas(capsys, tmp_path: Path) -> None:
    # As test_tcgen05_pair's shift test, with CTA 1 issuing the MMA, the shift and the commits:
    # lanes 0..31 of columns 0..7 move down one lane in both CTAs (lane 0 undefined: NaN).
    lines = _rank1_leads(PAIR_LINES)
    wait = next(i for i, x in enumerate(lines) if "tcgen05.mbarrier_wait %bar" in x) + 1
    shift = ["    tcgen05.cluster_sync",
             "    scf.if %leader {",
             "      tcgen05.shift cta_group(2) %acc : memref<128x128xf32, #tcgen05.space<tmem>>",
             "      %again = arith.constant 3 : i16",
             "      tcgen05.commit cta_group(2) %bar multicast(%again) : "
             "memref<1xi64, #tcgen05.space<smem>>",
             "    }",
             "    %phase1 = arith.constant true",
             "    tcgen05.mbarrier_wait %bar, %phase1 : memref<1xi64, #tcgen05.space<smem>>",
             "    %c128x = arith.constant 128 : index",
             "    %half_row = arith.muli %rank, %c128x : index",
             '    %d_half = "memref.subview"(%d, %half_row) <{static_offsets = array<i64: '
             "-9223372036854775808, 0>, static_sizes = array<i64: 128, 128>, static_strides = "
             "array<i64: 1, 1>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : "
             "(memref<256x128xf32>, index) -> memref<128x128xf32, strided<[128, 1], offset: ?>>",
             '    "memref.copy"(%acc, %d_half) : (memref<128x128xf32, #tcgen05.space<tmem>>, '
             "memref<128x128xf32, strided<[128, 1], offset: ?>>) -> ()"]
    epilogue = [x for x in lines[wait:] if "tcgen05.ld" not in x and "tcgen05.wait_ld" not in x
                and '"memref.copy"(%r' not in x]
    path = write_variant(tmp_path, "rank1_shift", lines[:wait] + shift + epilogue)
    args, expected = _pair_inputs(tmp_path)
    code, err = run_lowered(capsys, path, *args, "--output", f"d={tmp_path / 'd.npy'}")
    assert code == 0, err
    d = np.load(tmp_path / "d.npy")
    for base in (0, 128):  # each CTA's half
        assert np.isnan(d[base, :8]).all()
        np.testing.assert_array_equal(d[base + 1:base + 32, :8], expected[base:base + 31, :8])
        np.testing.assert_array_equal(d[base + 32:base + 128], expected[base + 32:base + 128])
        np.testing.assert_array_equal(d[base:base + 32, 8:], expected[base:base + 32, 8:])


def _signed(word: int, bits: int) -> int:
    """The word as MLIR prints a signless integer constant with its top bit set: negative."""
    return word - (1 << bits) if word >> (bits - 1) else word


def test_pair_mma_takes_swizzled_descriptors_given_as_negative_constants(capsys,
                                                                        tmp_path: Path) -> None:
    # sw32 puts swizzle code 6 in bits 61-63: both i64 descriptor constants are negative. Each
    # CTA's GM halves are the SMEM images write_smem_operand makes for those descriptors (the
    # kernel copies them byte for byte into SMEM).
    a_desc, b_desc = SmemDesc(0, 16, 256, swizzle="sw32"), SmemDesc(4096, 16, 256, swizzle="sw32")
    a_word, b_word = _signed(encode_smem_desc(a_desc), 64), _signed(encode_smem_desc(b_desc), 64)
    assert a_word < 0 and b_word < 0
    a = RNG.integers(-4, 5, (256, 16)).astype(np.float16)
    b = RNG.integers(-4, 5, (16, 128)).astype(np.float16)
    a_gm, b_gm = np.empty((2, 2, 128, 8), np.float16), np.empty((2, 2, 64, 8), np.float16)
    for rank in range(2):
        image = SharedMemory()
        write_smem_operand(image, a_desc, a[128 * rank:128 * rank + 128], major="k",
                           type_name="f16", kind="f16")
        write_smem_operand(image, b_desc, b.T[64 * rank:64 * rank + 64], major="k",
                           type_name="f16", kind="f16")
        a_gm[rank] = image.data[:4096].view(np.float16).reshape(2, 128, 8)
        b_gm[rank] = image.data[4096:6144].view(np.float16).reshape(2, 64, 8)
    np.save(tmp_path / "a.npy", a_gm)
    np.save(tmp_path / "b.npy", b_gm)
    lines = []
    for line in PAIR_LINES:
        if "%a_desc = tcgen05.make_smem_desc" in line:
            line = f"    %a_desc = arith.constant {a_word} : i64"
        elif "%b_desc = tcgen05.make_smem_desc" in line:
            line = f"    %b_desc = arith.constant {b_word} : i64"
        lines.append(line)
    assert sum("arith.constant -" in x for x in lines) == 2
    path = write_variant(tmp_path, "swizzled", lines)
    for check in ("on", "off"):
        code, err = run_lowered(capsys, path, "--input", f"a={tmp_path / 'a.npy'}", "--input",
                                f"b={tmp_path / 'b.npy'}", f"--sync-check={check}",
                                "--output", f"d={tmp_path / 'd.npy'}")
        assert code == 0, err
        np.testing.assert_array_equal(np.load(tmp_path / "d.npy"),
                                      a.astype(np.float32) @ b.astype(np.float32))


def test_pair_mma_scales_the_accumulator_by_scale_input_d(capsys, tmp_path: Path) -> None:
    # A second pair MMA accumulates with scale_input_d(1): D = P + P * 2^-1 for P = A x B
    # (integer inputs: every value is exact in f32).
    mma = next(i for i, x in enumerate(PAIR_LINES) if "tcgen05.mma kind(f16) cta_group(2)" in x)
    again = ("      %accumulate = arith.constant true\n"
             "      tcgen05.mma kind(f16) cta_group(2) %acc, %a_desc, %b_desc, %idesc, %accumulate "
             "scale_input_d(1) : memref<128x128xf32, #tcgen05.space<tmem>>, i64")
    path = write_variant(tmp_path, "scaled", PAIR_LINES[:mma + 1] + [again]
                         + PAIR_LINES[mma + 1:])
    args, product = _pair_inputs(tmp_path)
    code, err = run_lowered(capsys, path, *args, "--output", f"d={tmp_path / 'd.npy'}")
    assert code == 0, err
    np.testing.assert_array_equal(np.load(tmp_path / "d.npy"), product + product / 2)


def test_pair_idesc_with_its_top_bit_set_is_refused_by_its_reserved_bits(capsys,
                                                                        tmp_path: Path) -> None:
    # Bit 31 of a kind::f16 instruction descriptor (max shift code 2 in bits 30-31, .ws only)
    # set at run time: the i32 value is negative; the interpreter reads the unsigned word, so the
    # refusal is the max-shift rule R10, not "not a 32-bit word".
    idesc = next(i for i, x in enumerate(PAIR_LINES) if "%idesc = tcgen05.make_idesc" in x)
    lines = list(PAIR_LINES)
    lines[idesc:idesc + 1] = [lines[idesc].replace("%idesc =", "%idesc_word ="),
                              "    %top_bit = arith.constant -2147483648 : i32",
                              "    %idesc = arith.ori %idesc_word, %top_bit : i32"]
    path = write_variant(tmp_path, "idesc_bit31", lines)
    code, err = run_lowered(capsys, path)
    assert code == 1
    mma = next(i + 1 for i, x in enumerate(lines) if "tcgen05.mma kind(f16)" in x)
    assert err.startswith(
        f"{path}:{mma}:7: error: 'tcgen05.mma' op requires a legal tcgen05.mma form: max_shift = "
        "16 is not legal without .ws; legal: 0 (max shift is for tcgen05.mma.ws) [R10] (in CTA 0 "
        "of the CTA pair)\n")


def test_pair_mma_with_a_in_tensor_memory_is_refused_as_not_modelled(capsys,
                                                                     tmp_path: Path) -> None:
    # The interpreter passes A's TMEM address (not a descriptor word) to the pair kernel, which
    # refuses A in TMEM for cta_group::2 with one diagnostic at the op.
    lines = []
    for line in PAIR_LINES:
        if "tcgen05.mma kind(f16) cta_group(2)" in line:
            lines.append("      %a_tmem = tcgen05.alloc cta_group(2) columns(32) : "
                         "memref<128x16xf16, #tcgen05.space<tmem>>")
            line = line.replace("%acc, %a_desc,", "%acc, %a_tmem,").replace(
                ", i64", ", memref<128x16xf16, #tcgen05.space<tmem>>")
        lines.append(line)
    path = write_variant(tmp_path, "a_in_tmem", lines)
    code, err = run_lowered(capsys, path)
    assert code == 1
    mma = next(i + 1 for i, x in enumerate(lines) if "tcgen05.mma kind(f16)" in x)
    assert err.startswith(f"{path}:{mma}:7: error: 'tcgen05.mma' op uses cta_group::2 with A in "
                          "tensor memory, which the executor does not model (in CTA 0 of the CTA "
                          "pair)\n")


# The cluster and the pair seam (executor/tcgen05/cta_pair.py) through the Python API


def located_op(line: int) -> test_dialect.TestOp:
    op = test_dialect.TestOp()
    op.location = FileLineColLoc(StringAttr("k.mlir"), IntAttr(line), IntAttr(5))
    return op


RACE_TAIL = ("in the same interval between tcgen05.cluster_sync barriers (a cta_group::2 MMA "
             "reads the peer CTA's shared memory: a cluster barrier must order the peer's writes "
             "before it)")


def test_a_peer_write_after_a_pair_mma_read_in_the_same_interval_is_a_race():
    # CTA 0's pair MMA reads CTA 1's SMEM bytes [4096, 6144) before either CTA passed a barrier.
    cluster, mma = Cluster(), located_op(9)
    cluster.peer_read(0, 1, 4096, 6144, mma)
    # Writes that do not overlap those bytes (the ends are exclusive), or CTA 0's writes to its own
    # SMEM, are no race; neither is CTA 1's write once it passed the next cluster barrier.
    cluster.smem_write(1, 6144, 8192, located_op(3))
    cluster.smem_write(1, 0, 4096, located_op(3))
    cluster.smem_write(0, 4096, 6144, located_op(3))
    cluster.passed[1] = 1
    cluster.smem_write(1, 4096, 6144, located_op(3))
    cluster.passed[1] = 0
    with pytest.raises(ExecutionError, match=re.escape(
            "race on smem bytes [6000, 6144) of CTA 1 of the CTA pair: 'test.op' writes them, "
            f"'test.op' at k.mlir:9:5 reads them, {RACE_TAIL}")):
        cluster.smem_write(1, 6000, 6200, located_op(4))


def test_a_pair_mma_reading_bytes_the_peer_wrote_in_the_same_interval_is_a_race():
    # CTA 1's thread wrote its SMEM bytes [4096, 6144); then CTA 0's pair MMA reads CTA 1's SMEM.
    cluster = Cluster()
    cluster.smem_write(1, 4096, 6144, located_op(3))
    cluster.peer_read(0, 1, 6144, 8192, located_op(9))  # adjacent: no overlap
    cluster.peer_read(0, 1, 0, 4096, located_op(9))
    cluster.peer_read(1, 0, 4096, 6144, located_op(9))  # CTA 0's SMEM, which nobody wrote
    with pytest.raises(ExecutionError, match=re.escape(
            "race on smem bytes [4096, 4097) of CTA 1 of the CTA pair: 'test.op' reads them, "
            f"'test.op' at k.mlir:3:5 writes them, {RACE_TAIL}")):
        cluster.peer_read(0, 1, 2048, 4097, located_op(9))


def test_a_cta_waiting_when_no_cta_can_run_aborts_with_a_deadlock_report():
    # CTA 1 ended; CTA 0 waits for a phase that never completes: the hand-off finds no runnable
    # CTA, records the deadlock, and CTA 0's thread must not go on past its wait.
    cluster, wait = Cluster(), located_op(7)
    cluster.done[1] = True
    with pytest.raises(Abort, match="^$"):
        cluster.wait_until(0, lambda: False, "waits on phase parity 0 of the mbarrier", wait)
    assert cluster.aborted and cluster.turn == -1
    assert str(cluster.error) == ("'test.op' op deadlock: CTA 0 of the CTA pair waits on phase "
                                  "parity 0 of the mbarrier, which can never happen (CTA 1 ended)")
    assert 0 in cluster.waiting


PAIR_KERNEL = """func.func @k() {{
  tcgen05.relinquish_alloc_permit cta_group({group})
  func.return
}}"""


@pytest.mark.parametrize(("group", "pair"), [(2, True), (1, False)])
def test_a_cta_group_2_op_makes_the_kernel_a_cta_pair(group, pair):
    module = Parser(TCGEN05_CONTEXT, PAIR_KERNEL.format(group=group)).parse_module()
    assert uses_cta_pair(module) is pair


class _Cta:
    """The part of a CTA's `Tcgen05Functions` PairSeam reads: its shared memory's bytes."""

    def __init__(self, size: int) -> None:
        self.smem = type("Smem", (), {"data": np.zeros(size, np.uint8)})()


def test_pair_seam_records_the_byte_span_of_a_thread_write_into_its_smem():
    cluster = Cluster()
    cluster.ctas = [_Cta(8192), _Cta(8192)]
    seam = PairSeam(cluster, 1)
    smem = cluster.ctas[1].smem.data
    copy, store = located_op(3), located_op(4)
    # A strided (4, 8) float32 view at byte 4096 with rows 64 bytes apart: the copy's bytes run
    # from the first element to the end of the last, 4096 + 3 * 64 + 7 * 4 + 4 = 4320.
    view = smem[4096:4096 + 256].view(np.float32).reshape(4, 16)[:, :8]
    seam._record(view, copy)
    # One stored element (2, 5) of that view: byte 4096 + 2 * 64 + 5 * 4 = 4244, four bytes.
    seam._record(view, store, (2, 5))
    # Not recorded: an empty view, memory outside the CTA's SMEM (a GM array), a non-array value.
    seam._record(view[:0], copy)
    seam._record(np.zeros((4, 8), np.float32), copy)
    seam._record(None, copy)
    assert [(r, lo, end, interval) for r, lo, end, interval, _ in cluster.smem_writes] == [
        (1, 4096, 4320, 0), (1, 4244, 4248, 0)]


def test_the_hand_off_passes_the_turn_to_the_other_cta():
    # CTA 0 waits; CTA 1 is runnable and takes the turn (no deadlock, nothing aborted).
    cluster = Cluster()
    with cluster.cond:
        cluster.waiting[0] = (lambda: False, "waits", None)
        cluster._hand_off(0)
    assert cluster.turn == 1 and not cluster.aborted and cluster.error is None
