"""tcgen05-to-ptx (`mmair-translate --target ptx`): every emitted example assembles with ptxas
for sm_100a; unsupported IR is one diagnostic."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from mmair.isa.tcgen05.idesc import decode_idesc
from mmair.tools.ptxas import assemble, find_ptxas

ROOT = Path(__file__).resolve().parents[3]
EMITTED = [ROOT / "examples" / "tcgen05_gemm_kloop.mlir", ROOT / "examples" / "tcgen05_gemm_pair.mlir",
           ROOT / "tests" / "ptxas" / "kernel_ops.mlir", ROOT / "examples" / "tcgen05_gemm_tma.mlir",
           ROOT / "tests" / "ptxas" / "tma_ops.mlir", ROOT / "tests" / "ptxas" / "matmul.mlir"]


def translate(path: Path, *options: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mmair.tools.translate", "--target", "ptx",
                           *options, str(path)], capture_output=True, text=True, check=False)


@pytest.mark.parametrize("path", EMITTED, ids=lambda p: p.name)
def test_emitted_ptx_assembles_for_sm_100a(path: Path) -> None:
    proc = translate(path)
    assert proc.returncode == 0, proc.stderr
    ptx = proc.stdout
    assert ptx.startswith(".version ") and "\n.target sm_100a\n" in ptx
    ptxas = find_ptxas()
    if ptxas is None:
        pytest.skip("ptxas binary not installed (pip install nvidia-cuda-nvcc; it is in the "
                    "test extra)")
    result = assemble(ptx, "sm_100a", ptxas)
    assert result.returncode == 0, (result.errors, result.other)


def test_pair_matmul_ptx_assembles_and_is_the_cta_pair_kernel() -> None:
    proc = translate(ROOT / "tests" / "ptxas" / "matmul_pair.mlir", "--cta-group", "2")
    assert proc.returncode == 0, proc.stderr
    ptx = proc.stdout
    ptxas = find_ptxas()
    if ptxas is not None:
        result = assemble(ptx, "sm_100a", ptxas)
        assert result.returncode == 0, (result.errors, result.other)
    kernel = ptx.split(".visible .entry f16_pair(")[1].split(".visible .entry")[0]
    assert ".reqnctapercluster 2, 1, 1" in kernel
    # each CTA copies its A half and B half; the complete-tx goes to the even CTA's barrier
    copy = ("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
            ".cta_group::2 [")
    assert kernel.count(copy) == 2
    assert kernel.count("mapa.shared::cluster.u32 ") == 2
    assert kernel.count("and.b32 ") >= 2 and "0xfffffffe" in kernel
    # only the leader announces a stage: both CTAs' bytes, (128 + 64) rows x 128 bytes x 2
    assert re.search(r"mbarrier\.arrive\.expect_tx\.shared::cta\.b64 _, \[%r\d+\], 49152;", kernel)
    assert "tcgen05.mma.cta_group::2.kind::f16 [" in kernel
    assert kernel.count("tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster"
                        ".multicast::cluster.b64 [") == 2  # the stage's, the accumulator's
    assert "tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32" in kernel
    assert kernel.count("barrier.cluster.arrive.release.aligned;") >= 2
    assert "tcgen05.mma.cta_group::2.kind::tf32 [" in ptx
    assert "tcgen05.mma.cta_group::2.kind::i8 [" in ptx
    # the block-scaled pair: both CTAs' scale boxes complete on the leader's barrier, the
    # leader's cta_group::2 copies move each CTA's atoms into its TMEM (1 SFA + 2 SFB atoms)
    scaled = ptx.split(".visible .entry mxf8f6f4_pair(")[1].split(".visible .entry")[0]
    assert ".param .align 64 .b8 mxf8f6f4_pair_tmap_4[128]" in ptx  # the SFB tensor map
    assert scaled.count("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::"
                        "complete_tx::bytes.cta_group::2 [") == 2
    assert scaled.count("tcgen05.cp.cta_group::2.32x128b.warpx4 [") == 3
    assert scaled.count("tcgen05.mma.cta_group::2.kind::mxf8f6f4.block_scale [") == 4
    assert "cta_group::1" not in scaled
    assert "tcgen05.mma.cta_group::2.kind::mxf4.block_scale [" in ptx
    assert "tcgen05.mma.cta_group::2.kind::mxf4nvf4.block_scale.block16 [" in ptx


def test_translate_cta_group_out_of_range_is_a_usage_error() -> None:
    proc = translate(ROOT / "tests" / "ptxas" / "matmul_pair.mlir", "--cta-group", "3")
    assert proc.returncode == 2
    assert proc.stderr.startswith("mmair-translate: error: argument --cta-group: invalid choice: "
                                  "3 (choose from 1, 2)")


def test_gemm_ptx_has_the_kernel_structure() -> None:
    ptx = translate(EMITTED[0]).stdout
    assert ".visible .entry gemm(.param .u64 gemm_param_0, .param .u64 gemm_param_1, " \
           ".param .u64 gemm_param_2)" in ptx
    assert ptx.count("tcgen05.mma.cta_group::1.kind::f16 [") == 1  # inside the K loop
    assert ptx.count("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64") == 2
    assert ptx.count("tcgen05.ld.sync.aligned.32x32b.x128.b32") == 4
    assert "mbarrier.try_wait.parity.shared::cta.b64" in ptx
    assert "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32" in ptx
    assert "tcgen05.dealloc.cta_group::1.sync.aligned.b32" in ptx
    assert "fence.proxy.async.shared::cta" in ptx


def test_tma_gemm_ptx_passes_tensor_maps_as_param_objects() -> None:
    ptx = translate(ROOT / "examples" / "tcgen05_gemm_tma.mlir").stdout
    # The TMA-only tensors are the host's 128-byte tensor maps; D stays a pointer.
    assert ".visible .entry gemm(.param .align 64 .b8 gemm_tmap_0[128], .param .align 64 .b8 " \
           "gemm_tmap_1[128], .param .u64 gemm_param_2)" in ptx
    assert ptx.count("cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::"
                     "bytes [") == 4  # A and B, in the two branches of the stage
    assert "elect.sync _|" in ptx
    assert ptx.count("mbarrier.arrive.expect_tx.shared::cta.b64 _, [") == 2


def test_matmul_ptx_is_its_lowering_with_tensor_map_parameters() -> None:
    ptx = translate(ROOT / "tests" / "ptxas" / "matmul.mlir").stdout
    # one kernel per function; A and B only feed TMA (tensor maps), D is a pointer
    assert ".visible .entry f16_remainder(.param .align 64 .b8 f16_remainder_tmap_0[128], " \
           ".param .align 64 .b8 f16_remainder_tmap_1[128], .param .u64 f16_remainder_param_2)" \
           in ptx
    kernel = ptx.split(".visible .entry f16_remainder(")[1].split(".visible .entry")[0]
    # a stage: one A box and two B boxes (B MN-major: two 64-column atoms), 32768 bytes
    assert kernel.count("mbarrier.arrive.expect_tx.shared::cta.b64 _, [") == 1
    assert re.search(r"mbarrier\.arrive\.expect_tx\.shared::cta\.b64 _, \[%r\d+\], 32768;", kernel)
    assert kernel.count("cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::"
                        "bytes [") == 3
    assert kernel.count("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32") == 2
    assert "tcgen05.mma.cta_group::1.kind::tf32 [" in ptx
    assert "tcgen05.mma.cta_group::1.kind::f8f6f4 [" in ptx
    scaled = ptx.split(".visible .entry mxf8f6f4(")[1].split(".visible .entry")[0]
    # A, B and their scale atoms are tensor maps; a stage: A, two B atoms, one atom of SA and SB
    assert scaled.startswith(".param .align 64 .b8 mxf8f6f4_tmap_0[128], .param .align 64 .b8 "
                             "mxf8f6f4_tmap_1[128], .param .u64 mxf8f6f4_param_2, .param .align "
                             "64 .b8 mxf8f6f4_tmap_3[128], .param .align 64 .b8 "
                             "mxf8f6f4_tmap_4[128])")
    assert re.search(r"mbarrier\.arrive\.expect_tx\.shared::cta\.b64 _, \[%r\d+\], 33792;", scaled)
    assert scaled.count("cp.async.bulk.tensor.4d.shared::cta.global.tile.mbarrier::"
                        "complete_tx::bytes [") == 2
    assert scaled.count("tcgen05.cp.cta_group::1.32x128b.warpx4 [") == 2
    # 4 MMAs per K block, each with its own SF ids (idesc), into either accumulator
    assert scaled.count("tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale [") == 8
    nvf4 = ptx.split(".visible .entry mxf4nvf4(")[1]
    # 4 K atoms of SA and of SB per stage (16 UE4M3 scales per row of a 256-element K block)
    assert nvf4.count("tcgen05.cp.cta_group::1.32x128b.warpx4 [") == 8
    assert nvf4.count("tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16 [") == 8


def test_matmul_ptx_of_kind_i8_and_an_f16_accumulator() -> None:
    ptx = translate(ROOT / "tests" / "ptxas" / "matmul.mlir").stdout
    i8 = ptx.split(".visible .entry i8_mixed(")[1].split(".visible .entry")[0]
    assert "tcgen05.mma.cta_group::1.kind::i8 [" in i8
    assert "tcgen05.ld.sync.aligned.32x32b.x64.b32 {" in i8 and ".pack::16b" not in i8
    f16 = ptx.split(".visible .entry f16_acc(")[1].split(".visible .entry")[0]
    assert "tcgen05.mma.cta_group::1.kind::f16 [" in f16
    # N = 13: packed loads of 8, 4 and 2 columns (.x4, .x2, .x1), the last storing one column
    for num in (4, 2, 1):
        assert f"tcgen05.ld.sync.aligned.32x32b.x{num}.pack::16b.b32 {{" in f16
    assert "st.global.b32" not in f16
    stores = re.findall(r"st\.global\.b16 \[%rd\d+\+(\d+)\], %rs\d+;", f16)
    # each warp's window of a row stores its 13 columns once: 8 + 4 + 1 halves of 4 + 2 + 1
    # registers (the x1 load's high half, column 13, is not stored)
    windows = f16.count("tcgen05.ld.sync.aligned.32x32b.x1.pack::16b.b32 {")
    assert windows and len(stores) == 13 * windows
    assert sorted({int(offset) for offset in stores}) == list(range(0, 16, 2))
    assert re.search(r"mov\.b32 \{%rs\d+, %rs\d+\}, %r\d+;", f16)


def _mma_idesc_words(kernel: str) -> set[int]:
    """The instruction descriptor words of a kernel's tcgen05.mma (constants moved into the
    register the MMA names)."""
    consts = dict(re.findall(r"mov\.b32 (%r\d+), (\d+);", kernel))
    regs = re.findall(r"tcgen05\.mma\.[^\[]*\[[^\]]*\], %rd\d+, %rd\d+, (%r\d+),", kernel)
    return {int(consts[r]) for r in regs}


def test_matmul_ptx_sets_the_i8_saturate_bit_only_when_asked() -> None:
    ptx = translate(ROOT / "tests" / "ptxas" / "matmul.mlir").stdout
    kernels = {name: ptx.split(f".visible .entry {name}(")[1].split(".visible .entry")[0]
               for name in ("i8_saturate", "i8_mixed")}
    saturated, wrapped = (_mma_idesc_words(kernels[n]) for n in ("i8_saturate", "i8_mixed"))
    assert len(saturated) == 1 and len(wrapped) == 1
    assert [decode_idesc(w, "i8").saturate for w in (*saturated, *wrapped)] == [True, False]
    assert all(w >> 3 & 1 for w in saturated)  # Table 42: bit 3, "Saturate for integer types"


def test_matmul_ptx_of_sub_byte_f8f6f4_types() -> None:
    ptx = translate(ROOT / "tests" / "ptxas" / "matmul.mlir").stdout
    kernel = ptx.split(".visible .entry f8f6f4_sub_byte(")[1].split(".visible .entry")[0]
    assert "tcgen05.mma.cta_group::1.kind::f8f6f4 [" in kernel
    words = _mma_idesc_words(kernel)
    assert [(decode_idesc(w, "f8f6f4").atype, decode_idesc(w, "f8f6f4").btype)
            for w in words] == [("e2m1", "e3m2")]
    # a stage: 128 x 128 e2m1 (8192 packed bytes) and 72 x 128 e3m2 (6912): the packed bytes
    assert re.search(r"mbarrier\.arrive\.expect_tx\.shared::cta\.b64 _, \[%r\d+\], 15104;", kernel)
    scaled = ptx.split(".visible .entry mxf8f6f4_sub_byte(")[1].split(".visible .entry")[0]
    assert scaled.count("tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale [") == 8
    assert {(decode_idesc(w, "mxf8f6f4").atype, decode_idesc(w, "mxf8f6f4").btype)
            for w in _mma_idesc_words(scaled)} == {("e2m3", "e2m1")}


def test_tma_forms_print_every_qualifier() -> None:
    ptx = translate(ROOT / "tests" / "ptxas" / "tma_ops.mlir").stdout
    assert "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes" \
           ".multicast::cluster.cta_group::2 [" in ptx
    for rank in range(1, 6):
        assert f"cp.async.bulk.tensor.{rank}d." in ptx
    # %v is read by TMA and copied by the threads: a tensor map and a pointer.
    assert ".param .align 64 .b8 tma_tmap_0[128], .param .u64 tma_param_0," in ptx


def test_unsupported_op_is_one_diagnostic(tmp_path: Path) -> None:
    # A TMEM memref copied to GM: the hardware moves TMEM data with tcgen05.ld only.
    proc = translate(ROOT / "examples" / "tcgen05_mma_f16.mlir")
    assert proc.returncode == 1
    assert "tcgen05_mma_f16.mlir:" in proc.stderr
    assert "'memref.copy' op from tmem to gm is not emitted (TMEM data moves with " \
           "tcgen05.ld/st/cp)" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_bad_option_exits_2() -> None:
    proc = subprocess.run([sys.executable, "-m", "mmair.tools.translate", "--target", "llvm",
                           "x.mlir"], capture_output=True, text=True, check=False)
    assert proc.returncode == 2 and "invalid choice: 'llvm'" in proc.stderr


def test_commit_with_a_multicast_mask_is_emitted() -> None:
    # kernel_ops.mlir commits once plainly and once with ctaMask = 1 (i16 narrowed to a .b16
    # register); the assembling test above has ptxas accept both forms.
    ptx = translate(EMITTED[2]).stdout
    plain = "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r"
    assert ptx.count(plain) == 1
    lines = ptx.splitlines()
    at = next(i for i, x in enumerate(lines) if ".multicast::cluster.b64" in x)
    narrow = next(x for x in lines if "cvt.u16.u32" in x).strip()
    mask = narrow.split()[1].rstrip(",")
    assert lines[at].strip().startswith(
        "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64")
    assert lines[at].strip().endswith(f", {mask};")
    assert "  .reg .b16 %rs<1>;" in ptx


def test_pair_ptx_runs_as_a_cluster_of_two() -> None:
    ptx = translate(EMITTED[1]).stdout
    assert ".reqnctapercluster 2, 1, 1" in ptx
    assert "mov.u32 %r4, %cluster_ctarank;" in ptx
    assert "  barrier.cluster.arrive.release.aligned;\n  barrier.cluster.wait.acquire.aligned;" in ptx
    assert ptx.count("tcgen05.mma.cta_group::2.kind::f16 [") == 1
    assert ptx.count("tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster."
                     "multicast::cluster.b64") == 1
    assert ".reqnctapercluster" not in translate(EMITTED[0]).stdout
