"""`pto.load_2d_gm`: LoadData with LoadData2DParams from GM to L1 (CCE `load_gm_to_cbuf`), the
only LoadData path where addrMode 1 (the source fractal index decreasing) is honoured.

Sources: Ascend C `LoadData_2D.md` (section 控制地址更新方式: GM -> L1, float, startIndex 6,
repeatTimes 4, srcStride 2, dstGap 2, addrMode 1) and `GMToL1-2D矩阵搬运（LoadData）.md` (the Nz2Nz
call example, half, m = k = 32), the Ascend C pseudo-code `load2d.py` (`addr_calc_mode = 1 if
addrMode == 0 else -1`) and the implementations in `impl/basic_api/dav_*/kernel_operator_mm_impl.h`.
Expected layouts are written out from the documented formulas here, never from the kernel.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from pto_testing import parse

from mmair.dialects import pto
from mmair.dialects.pto import footprint
from mmair.executor.ascend import raw_kernels as rk
from mmair.executor.engine.errors import ExecutionError
from mmair.executor.runner import run_module
from mmair.isa.ascend import params as isa_params
from mmair.isa.ascend.pipes import Pipe, PipeError, pipe_of
from mmair.isa.ascend.targets import TARGET_NAMES, get_target
from mmair.tools.diagnostics import OpVerifyError
from tests.unit.passes.test_pto_expand_params import synced


def fractal_ids(values: np.ndarray, per: int) -> list[int]:
    return [int(v) for v in values.reshape(-1, per)[:, 0]]


# ------------------------------------------------------------------------------------------------
# The documented examples
# ------------------------------------------------------------------------------------------------


def test_addr_mode_dec_doc_example():
    """控制地址更新方式 (float, GM -> L1): startIndex 6, repeatTimes 4, srcStride 2, dstGap 2,
    addrMode 1: "源操作数地址每次迭代在前一个地址的基础上减去srcStride", so source fractals 6, 4, 2,
    0 land in destination slots 0, 3, 6, 9 (dstGap 2: two fractals between)."""
    gm = np.repeat(np.arange(8), 128).astype(np.float32)  # fractal f holds f
    l1 = np.full(10 * 128, -1, np.float32)
    rk.load2d(gm.view(np.uint8), l1.view(np.uint8), rk.Load2D(6, 4, 2, 2), bits=32, addr_mode=1)
    assert fractal_ids(l1, 128) == [6, -1, -1, 4, -1, -1, 2, -1, -1, 0]
    # addrMode 0, same fields: 6, 8, 10, 12 (the increasing form the L1 -> L0 path always uses)
    gm16 = np.repeat(np.arange(16), 128).astype(np.float32)
    rk.load2d(gm16.view(np.uint8), l1.view(np.uint8), rk.Load2D(6, 4, 2, 2), bits=32)
    assert fractal_ids(l1, 128) == [6, -1, -1, 8, -1, -1, 10, -1, -1, 12]


def test_addr_mode_dec_below_the_operand_start_is_an_error():
    gm = np.zeros(8 * 128, np.float32)
    l1 = np.zeros(10 * 128, np.float32)
    with pytest.raises(ExecutionError, match=r"negative for i = 3 \(start_index 5, src_stride 2"):
        rk.load2d(gm.view(np.uint8), l1.view(np.uint8), rk.Load2D(5, 4, 2, 2), bits=32,
                  addr_mode=1)


def test_gm_to_l1_nz2nz_doc_example():
    """GMToL1-2D矩阵搬运 调用示例 (half, m = k = 32, fractal 16 x 16): A is Nz in GM; for i < M1:
    LoadData(a1[i*256], aGM[i*256], {repeatTimes K1, srcStride M1, dstGap M1 - 1}) copies it to L1
    as Nz (fractal k1*M1 + m1 -> the same slot)."""
    m = k = 32
    m1, k1 = m // 16, k // 16
    a = np.arange(m * k, dtype=np.float32).astype(np.float16).reshape(m, k)
    a_nz = a.reshape(m1, 16, k1, 16).transpose(2, 0, 1, 3).reshape(-1)  # (K1, M1, 16, 16)
    l1 = np.full(m * k, -1, np.float16)
    for i in range(m1):
        rk.load2d(a_nz.view(np.uint8)[i * 512:], l1.view(np.uint8)[i * 512:],
                  rk.Load2D(0, k1, m1, m1 - 1), bits=16)
    np.testing.assert_array_equal(l1, a_nz)


# ------------------------------------------------------------------------------------------------
# Through the IR: verifier, executor, --check-numpy reference, pipe, footprints
# ------------------------------------------------------------------------------------------------

# A 32 x 32 x 32 f16 matmul whose A comes from GM as Nz fractals stored in REVERSED order (GM
# fractal j holds Nz fractal F-1-j): one load_2d_gm with addrMode 1 from the last fractal puts
# them back in order in L1. B is staged with ND2NZ; then SplitA / SplitB, Mmad, Fixpipe.
DEC_KERNEL = """builtin.module attributes {pto.target = "TARGET"} {
  func.func @k(%a: memref<1024xf16>, %b: memref<32x32xf16>, %c: memref<32x32xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    %c256 = arith.constant 256 : index
    %c512 = arith.constant 512 : index
    %a1 = pto.alloc : !pto.tile<l1, 32x32xf16, nz>
    %b1 = pto.alloc : !pto.tile<l1, 32x32xf16, nz>
    %a2 = pto.alloc : !pto.tile<l0a, 32x32xf16, zz>
    %b2 = pto.alloc : !pto.tile<l0b, 32x32xf16, zn>
    %acc = pto.alloc : !pto.tile<l0c, 32x32xf32, nz>
    pto.load_2d_gm %a[%c0], %a1[%c0] start_index %c3 repeat_times %c4 src_stride %c1 dst_gap %c0 {addr_mode = 1 : i64} : memref<1024xf16>, !pto.tile<l1, 32x32xf16, nz>
    pto.copy_nd2nz %b, %b1[%c0] nd_num %c1 n_value %c32 d_value %c32 src_nd_matrix_stride %c0 src_d_value %c32 dst_nz_c0_stride %c32 dst_nz_n_stride %c1 dst_nz_matrix_stride %c0 : memref<32x32xf16>, !pto.tile<l1, 32x32xf16, nz>
    pto.load_2d %a1[%c0], %a2[%c0] start_index %c0 repeat_times %c2 src_stride %c2 dst_gap %c0 : !pto.tile<l1, 32x32xf16, nz>, !pto.tile<l0a, 32x32xf16, zz>
    pto.load_2d %a1[%c256], %a2[%c512] start_index %c0 repeat_times %c2 src_stride %c2 dst_gap %c0 : !pto.tile<l1, 32x32xf16, nz>, !pto.tile<l0a, 32x32xf16, zz>
    pto.load_2d %b1[%c0], %b2[%c0] start_index %c0 repeat_times %c2 src_stride %c2 dst_gap %c0 if_transpose : !pto.tile<l1, 32x32xf16, nz>, !pto.tile<l0b, 32x32xf16, zn>
    pto.load_2d %b1[%c256], %b2[%c512] start_index %c0 repeat_times %c2 src_stride %c2 dst_gap %c0 if_transpose : !pto.tile<l1, 32x32xf16, nz>, !pto.tile<l0b, 32x32xf16, zn>
    pto.mmad %a2, %b2, %acc, %c32, %c32, %c32 : !pto.tile<l0a, 32x32xf16, zz>, !pto.tile<l0b, 32x32xf16, zn>, !pto.tile<l0c, 32x32xf32, nz>
    pto.fixpipe_copy %acc[%c0], %c n_size %c32 m_size %c32 src_stride %c32 dst_stride %c32 nd_num %c1 src_nd_stride %c0 dst_nd_stride %c0 : !pto.tile<l0c, 32x32xf32, nz>, memref<32x32xf32>
    func.return
  }
}
"""


def dec_kernel(target: str = "a2") -> str:
    return DEC_KERNEL.replace("TARGET", target)


def reversed_nz(a: np.ndarray) -> np.ndarray:
    """Nz fractals of A (32 x 32 f16: (K1, M1, 16, 16)) in reversed fractal order, flat."""
    frac = a.reshape(2, 16, 2, 16).transpose(2, 0, 1, 3).reshape(4, 256)
    return np.ascontiguousarray(frac[::-1]).reshape(-1)


@pytest.mark.parametrize("target", ["a2", "a3"])
def test_dec_kernel_computes_a_times_b(target):
    ctx, module = parse(dec_kernel(target))
    synced(ctx, module)
    rng = np.random.default_rng(7)
    a = rng.standard_normal((32, 32)).astype(np.float16)
    b = rng.standard_normal((32, 32)).astype(np.float16)
    got = run_module(module, inputs={"a": reversed_nz(a), "b": b}, sync_check=True).outputs["c"]
    np.testing.assert_allclose(got, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-3,
                               atol=1e-3)


def test_dec_kernel_passes_check_numpy(tmp_path, capsys):
    from mmair.tools.run import main

    path = tmp_path / "k.mlir"
    path.write_text(dec_kernel())
    code = main([str(path), "-p", "pto-insert-sync", "--check-numpy"])
    out, err = capsys.readouterr()
    assert code == 0, err
    checks = [line for line in out.splitlines() if line.startswith("check ")]
    assert checks and all(line.endswith(": ok") for line in checks), out


def test_reference_follows_the_dec_order():
    """The --check-numpy reference runs the executor's index math: with addrMode 0 (same fields
    from fractal 0 up) the reference reads other data and computes another C."""
    from mmair.executor.reference import reference_outputs

    ctx, module = parse(dec_kernel())
    synced(ctx, module)
    rng = np.random.default_rng(3)
    inputs = {"a": reversed_nz(rng.standard_normal((32, 32)).astype(np.float16)),
              "b": rng.standard_normal((32, 32)).astype(np.float16)}
    result = run_module(module, inputs=inputs)
    entry = next(op for op in module.walk() if op.name == "func.func")
    refs, _ = reference_outputs(module, entry, inputs, result, None)
    np.testing.assert_allclose(refs[0].values, result.outputs["c"], rtol=1e-3, atol=1e-3)


RUNTIME = """builtin.module attributes {pto.target = "TARGET"} {
  func.func @k(%gm: memref<4096xf16>, %s: index, %g: index) {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %l1 = pto.alloc : !pto.tile<l1, 160x16xf16, nz>
    pto.load_2d_gm %gm[%c0], %l1[%c0] start_index %s repeat_times %c4 src_stride %c2 dst_gap %g ATTRS : memref<4096xf16>, !pto.tile<l1, 160x16xf16, nz>
    func.return
  }
}
"""


@pytest.mark.parametrize(("target", "attrs", "start", "gap", "message"), [
    ("a2", "{addr_mode = 1 : i64}", 5, 0, r"7:5: error: 'pto.load_2d_gm' op addrMode 1 \(dec\) reads "
     r"fractal start_index - src_stride\*i, which is negative for i = 3"),
    ("a2", "{addr_mode = 1 : i64}", 6, 5, r"7:5: error: 'pto.load_2d_gm' op dst byte 9727 is beyond "
     r"the 5120-byte dst buffer"),
    ("a2", "", 10, 0, r"7:5: error: 'pto.load_2d_gm' op src byte 8703 is beyond the 8192-byte src"),
    ("910", "", 0, 1, r"7:5: error: 'pto.load_2d_gm' op requires dst_gap 0 on target 910, got 1"),
])
def test_runtime_values_are_checked(tmp_path, capsys, target, attrs, start, gap, message):
    """Runtime parameters the verifier cannot see: one diagnostic at the op, exit 1."""
    from mmair.tools.run import main

    path = tmp_path / "k.mlir"
    path.write_text(RUNTIME.replace("TARGET", target).replace("ATTRS", attrs))
    assert main([str(path), "--input", f"s={start}", "--input", f"g={gap}"]) == 1
    _out, err = capsys.readouterr()
    assert "Traceback" not in err
    assert len(re.findall(message, err)) == 1, err


def test_pipe_is_mte2_v1_before_a5_v2_on_a5():
    for name in TARGET_NAMES:
        target = get_target(name)
        if name == "a5":
            with pytest.raises(PipeError, match="has no LoadData2DParams gm->l1"):
                pipe_of("load_2d_gm", "gm", "l1", target)
            assert pipe_of("load_2d_v2_gm", "gm", "l1", target) is Pipe.MTE2
        else:
            assert pipe_of("load_2d_gm", "gm", "l1", target) is Pipe.MTE2
            with pytest.raises(PipeError, match="has no LoadData2DParamsV2"):
                pipe_of("load_2d_v2_gm", "gm", "l1", target)


def test_exact_footprint_of_a_dec_load():
    """The race checker sees exactly the fractals a dec load reads (6, 4, 2, 0 of GM: the run
    from fractal 0 with stride 2) and writes (slots 0, 3, 6, 9 of L1)."""
    _ctx, module = parse(one())  # f32, startIndex 6, repeatTimes 4, srcStride 2, dstGap 2, dec
    op = next(o for o in module.walk() if isinstance(o, pto.Load2DGmOp))
    gm = np.zeros(8 * 128, np.float32)

    class Tile:  # the executor Tile fields the footprint reads
        space, offset, nbytes, name, element = "l1", 1024, 5120, "%l1", "f32"
        physical = np.zeros(1280, np.float32)

    values = [gm, 0, Tile(), 0, 6, 4, 2, 2]
    acc = footprint.Footprint(op).accesses(values)
    read = [a for a in acc if not a.write]
    write = [a for a in acc if a.write]
    assert [(a.space, a.start, a.width, a.rows, a.stride) for a in read] == \
        [("gm", 0, 512, 4, 1024)]
    assert [(a.space, a.start, a.width, a.rows, a.stride) for a in write] == \
        [("l1", 1024, 512, 4, 1536)]


# ------------------------------------------------------------------------------------------------
# Verifier (the messages are also in tests/filecheck/dialects/pto/pto_params_invalid.mlir)
# ------------------------------------------------------------------------------------------------

ONE = """builtin.module attributes {pto.target = "TARGET"} {
  func.func @k(%gm: memref<4096xSRC>) {
    %c0 = arith.constant 0 : index
    %s = arith.constant START : index
    %r = arith.constant REPEAT : index
    %st = arith.constant STRIDE : index
    %g = arith.constant GAP : index
    %l1 = pto.alloc : !pto.tile<l1, ROWSx16xDST, nz>
    pto.load_2d_gm %gm[%c0], %l1[%c0] start_index %s repeat_times %r src_stride %st dst_gap %g ATTRS : memref<4096xSRC>, !pto.tile<l1, ROWSx16xDST, nz>
    func.return
  }
}
"""


def one(target="a2", src="f32", dst="f32", start=6, repeat=4, stride=2, gap=2, mode=1) -> str:
    attrs = f"{{addr_mode = {mode} : i64}}" if mode is not None else ""
    return (ONE.replace("TARGET", target).replace("SRC", src).replace("DST", dst)
            .replace("START", str(start)).replace("REPEAT", str(repeat))
            .replace("STRIDE", str(stride)).replace("GAP", str(gap)).replace("ATTRS", attrs)
            .replace("ROWS", "160" if dst == "f16" else "80"))  # ten 512-byte fractals


def verify(text: str) -> None:
    parse(text)  # parses and runs the verifiers (tools/diagnostics.verify_module)


@pytest.mark.parametrize("target", ["a2", "a3", "310p", "200i_a2"])
def test_dec_verifies_on_targets_with_the_gm_path(target):
    dst = "f16" if target == "310p" else "f32"
    _ctx, module = parse(one(target, dst, dst))  # verifies
    (op,) = [o for o in module.walk() if isinstance(o, pto.Load2DGmOp)]
    assert op.decrements


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(target="a5"), "load_2d_gm is not supported on target a5"),
        (dict(target="910", src="f16", dst="f16"),
         r"requires addr_mode in \[0\] on target 910, got 1"),
        (dict(target="910", src="f16", dst="f16", mode=None),
         r"requires dst_gap 0 on target 910 .*got 2"),
        (dict(mode=2), r"requires addr_mode in \[0, 1\] on target a2, got 2"),
        (dict(start=5), r"requires start_index >= src_stride \* \(repeat_times - 1\) = 6 with "
                        r"addr_mode 1 .*got 5"),
        (dict(repeat=0), r"requires repeat_times \(repeatTimes\) to be positive, got 0"),
        (dict(repeat=256, start=600), r"requires repeat_times \(repeatTimes\) in \[1, 255\], got 256"),
        (dict(src="i32"), r"requires src element type f32 \(the dst type.*got s32"),
        (dict(target="310p"), r"requires element type in \[.*\] on target 310p, got f32"),
        (dict(gap=3), "requires the fractals inside the 5120-byte dst tile, they end at byte 6656"),
    ],
)
def test_verifier_rules(kwargs, message):
    with pytest.raises(OpVerifyError, match=message):
        verify(one(**kwargs))


def test_gm_types_drop_the_4_bit_ones():
    for name in TARGET_NAMES:
        target = get_target(name)
        types = isa_params.load2d_gm_types(target)
        if name == "a5":
            assert types == frozenset()
            continue
        assert types == frozenset(e for e in target.load2d_types if e != "s4")
    assert isa_params.load2d_gm_types(get_target("910")) == frozenset("s8 u8 s16 u16 f16".split())


# ------------------------------------------------------------------------------------------------
# Ascend 950: LoadData2DParamsV2 from GM to L1 (`GMToL1-2D矩阵搬运V2（LoadData）.md`)
# ------------------------------------------------------------------------------------------------


def test_v2_gm_doc_example():
    """调用示例 (half): GM holds an 80 x 80 Nz matrix (5 x 5 fractals, fractal (m1, k1) at
    k1*5 + m1); {mStartPosition 2, kStartPosition 2, mStep 2, kStep 3, srcStride 5, dstStride 3}
    moves the 2 x 3 window from fractal (2, 2) into 9 L1 fractals: window fractal (i, j) to slot
    j*3 + i (slots 2, 5, 8 stay untouched)."""
    gm = np.repeat(np.arange(25), 256).astype(np.float16)  # fractal f holds f
    l1 = np.full(9 * 256, -1, np.float16)
    rk.load2d_v2(gm.view(np.uint8), l1.view(np.uint8), rk.Load2DV2(2, 2, 2, 3, 5, 3), bits=16)
    expect = [-1] * 9
    for i in range(2):
        for j in range(3):
            expect[j * 3 + i] = (2 + j) * 5 + 2 + i
    assert fractal_ids(l1, 256) == expect == [12, 13, -1, 17, 18, -1, 22, 23, -1]


V2_KERNEL = """builtin.module attributes {pto.target = "a5"} {
  func.func @k(%a: memref<1024xf16>, %b: memref<32x32xf16>, %c: memref<32x32xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %a1 = pto.alloc : !pto.tile<l1, 32x32xf16, nz>
    %b1 = pto.alloc : !pto.tile<l1, 32x32xf16, nz>
    %a2 = pto.alloc : !pto.tile<l0a, 32x32xf16, nz>
    %b2 = pto.alloc : !pto.tile<l0b, 32x32xf16, zn>
    %acc = pto.alloc : !pto.tile<l0c, 32x32xf32, nz>
    pto.load_2d_v2_gm %a[%c0], %a1[%c0] m_start_position %c0 k_start_position %c0 m_step %c2 k_step %c2 src_stride %c2 dst_stride %c2 : memref<1024xf16>, !pto.tile<l1, 32x32xf16, nz>
    pto.copy_nd2nz %b, %b1[%c0] nd_num %c1 n_value %c32 d_value %c32 src_nd_matrix_stride %c0 src_d_value %c32 dst_nz_c0_stride %c32 dst_nz_n_stride %c1 dst_nz_matrix_stride %c0 : memref<32x32xf16>, !pto.tile<l1, 32x32xf16, nz>
    pto.load_2d_v2 %a1[%c0], %a2[%c0] m_start_position %c0 k_start_position %c0 m_step %c2 k_step %c2 src_stride %c2 dst_stride %c2 : !pto.tile<l1, 32x32xf16, nz>, !pto.tile<l0a, 32x32xf16, nz>
    pto.load_2d_v2 %b1[%c0], %b2[%c0] m_start_position %c0 k_start_position %c0 m_step %c2 k_step %c2 src_stride %c2 dst_stride %c2 if_transpose : !pto.tile<l1, 32x32xf16, nz>, !pto.tile<l0b, 32x32xf16, zn>
    pto.mmad %a2, %b2, %acc, %c32, %c32, %c32 : !pto.tile<l0a, 32x32xf16, nz>, !pto.tile<l0b, 32x32xf16, zn>, !pto.tile<l0c, 32x32xf32, nz>
    pto.fixpipe_copy %acc[%c0], %c n_size %c32 m_size %c32 src_stride %c32 dst_stride %c32 nd_num %c1 src_nd_stride %c0 dst_nd_stride %c0 : !pto.tile<l0c, 32x32xf32, nz>, memref<32x32xf32>
    func.return
  }
}
"""


def nz_flat(a: np.ndarray) -> np.ndarray:
    """Nz of a 32 x 32 matrix (fractal (m1, k1) at k1*2 + m1), flat."""
    return np.ascontiguousarray(a.reshape(2, 16, 2, 16).transpose(2, 0, 1, 3)).reshape(-1)


def test_v2_gm_kernel_computes_a_times_b():
    """a5: A given in GM as Nz fractals, LoadData2DParamsV2 GM -> L1 (one 2 x 2 window), then the
    V2 L1 -> L0A / L0B loads, Mmad and Fixpipe: A x B, with the sync checker on."""
    ctx, module = parse(V2_KERNEL)
    synced(ctx, module)
    rng = np.random.default_rng(9)
    a = rng.standard_normal((32, 32)).astype(np.float16)
    b = rng.standard_normal((32, 32)).astype(np.float16)
    got = run_module(module, inputs={"a": nz_flat(a), "b": b}, sync_check=True).outputs["c"]
    np.testing.assert_allclose(got, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-3,
                               atol=1e-3)


def test_v2_gm_kernel_passes_check_numpy(tmp_path, capsys):
    from mmair.tools.run import main

    path = tmp_path / "k.mlir"
    path.write_text(V2_KERNEL)
    assert main([str(path), "-p", "pto-insert-sync", "--check-numpy"]) == 0
    out, _err = capsys.readouterr()
    checks = [line for line in out.splitlines() if line.startswith("check ")]
    assert checks and all(line.endswith(": ok") for line in checks), out


def test_v2_gm_exact_footprint():
    """The doc example's window: GM fractals 12, 13 / 17, 18 / 22, 23 (runs of two, 5 apart),
    L1 slots 0-1, 3-4, 6-7 (runs of two, 3 apart)."""
    text = V2_KERNEL.replace("m_start_position %c0 k_start_position %c0 m_step %c2 k_step %c2 "
                             "src_stride %c2 dst_stride %c2 : memref", "m_start_position %m0 "
                             "k_start_position %k0 m_step %ms k_step %ks src_stride %ss "
                             "dst_stride %ds : memref")
    text = text.replace("    %c32 = arith.constant 32 : index\n", "    %c32 = arith.constant 32 : "
                        "index\n    %m0, %k0, %ms, %ks, %ss, %ds = \"test.op\"() : () -> (index, "
                        "index, index, index, index, index)\n")
    _ctx, module = parse(text)
    op = next(o for o in module.walk() if isinstance(o, pto.Load2DV2GmOp))
    gm = np.zeros(25 * 256, np.float16)

    class Tile:  # the executor Tile fields the footprint reads
        space, offset, nbytes, name, element = "l1", 0, 9 * 512, "%a1", "f16"
        physical = np.zeros(9 * 256, np.float16)

    values = [gm, 0, Tile(), 0, 2, 2, 2, 3, 5, 3]
    acc = footprint.Footprint(op).accesses(values)
    assert sorted((a.space, a.write, a.start, a.width, a.rows, a.stride) for a in acc) == [
        ("gm", False, 12 * 512, 1024, 3, 5 * 512), ("l1", True, 0, 1024, 3, 3 * 512)]


V2_ONE = """builtin.module attributes {pto.target = "TARGET"} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %gm, %l1 = "test.op"() : () -> (memref<1024xSRC>, !pto.tile<l1, 32x32xDST, nz>)
  pto.load_2d_v2_gm %gm[%c0], %l1[%c0] m_start_position %c0 k_start_position %c0 m_step %c2 k_step %c2 src_stride %c2 dst_stride %c2 : memref<1024xSRC>, !pto.tile<l1, 32x32xDST, nz>
}
"""


@pytest.mark.parametrize(("target", "src", "dst", "message"), [
    ("a2", "f16", "f16", r"load_2d_v2_gm is not supported on target a2 \(LoadData2DParamsV2 is "
                         r"Ascend 950 only\)"),
    ("a5", "i16", "i16", r"requires element type in \[.*\] on target a5, got s16"),
    ("a5", "bf16", "f16", r"requires src element type f16 \(the dst type.*got bf16"),
])
def test_v2_gm_verifier_rules(target, src, dst, message):
    text = V2_ONE.replace("TARGET", target).replace("SRC", src).replace("DST", dst)
    with pytest.raises(OpVerifyError, match=message):
        parse(text)
    _ctx, module = parse(V2_ONE.replace("TARGET", "a5").replace("SRC", "f16").replace("DST", "f16"))
    assert [op for op in module.walk() if isinstance(op, pto.Load2DV2GmOp)]


# ------------------------------------------------------------------------------------------------
# Ascend 950: fp4x2_e2m1_t through LoadData2DParamsV2 GM -> L1 (packed bytes, 16 x 64 fractals)
# ------------------------------------------------------------------------------------------------

V2_FP4 = """builtin.module attributes {pto.target = "a5"} {
  func.func @k(%g: memref<4096xf4E2M1FN>, %off: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %l1 = pto.alloc : !pto.tile<l1, 32x64xf4E2M1FN, nz>
    pto.load_2d_v2_gm %g[%off], %l1[%c0] m_start_position %c1 k_start_position %c0 m_step %c1 k_step %c2 src_stride %c2 dst_stride %c1 : memref<4096xf4E2M1FN>, !pto.tile<l1, 32x64xf4E2M1FN, nz>
    func.return
  }
}
"""


@pytest.mark.parametrize("offset", [0, 2, 6])
def test_v2_gm_fp4x2_moves_packed_fractals(offset):
    """fp4x2_e2m1_t (listed by `GMToL1-2D矩阵搬运V2（LoadData）.md`): a 512-byte fractal holds
    1024 e2m1 codes, two a byte (code 2b in the low nibble of byte b, the int4b_t/fp4x2 packing).
    The window {mStart 1, kStart 0, mStep 1, kStep 2, srcStride 2, dstStride 1} moves GM fractals
    1 and 3 (counted from the operand start, `offset` elements into GM) to L1 fractals 0 and 1."""
    import ml_dtypes

    from mmair.executor.runner import make_interpreter

    _ctx, module = parse(V2_FP4)
    codes = np.random.default_rng(offset).integers(0, 16, 4096 + offset).astype(np.uint8)
    gm = codes.view(ml_dtypes.float4_e2m1fn)
    interp, memory = make_interpreter(module, "a5")
    interp.call_op("k", (gm, offset))
    window = codes[offset:]
    want = []
    for f in (1, 3):
        frac = window[f * 1024:(f + 1) * 1024]
        want.append(frac[0::2] | (frac[1::2] << 4))  # low nibble first, written out here
    got = memory.space("l1").data[:1024]
    assert got.tobytes() == np.concatenate(want).astype(np.uint8).tobytes()
    run_module(module, inputs={"g": gm[:4096], "off": 0}, sync_check=True)  # the race checker too


def test_v2_gm_fp4x2_needs_a_byte_aligned_gm_start():
    """A 4-bit GM operand starting inside a byte (an odd element) cannot be addressed."""
    import ml_dtypes

    _ctx, module = parse(V2_FP4)
    gm = np.zeros(4096, np.uint8).view(ml_dtypes.float4_e2m1fn)
    with pytest.raises(ExecutionError, match=r"requires a 4-bit GM operand to start on a byte "
                                             r"boundary \(an even element\), got element 3"):
        run_module(module, inputs={"g": gm, "off": 3})


def test_v2_gm_fp4x2_exact_footprint():
    """The race checker's boxes of the fp4x2 window, in bytes: GM holds one e2m1 element a numpy
    byte, so a fractal is 1024 GM bytes (fractals 1 and 3 from element 2: bytes 1026 and 3074);
    the L1 tile holds two a byte, so a fractal is 512 L1 bytes (slots 0 and 1)."""
    import ml_dtypes

    _ctx, module = parse(V2_FP4)
    op = next(o for o in module.walk() if isinstance(o, pto.Load2DV2GmOp))
    gm = np.zeros(4098, np.uint8).view(ml_dtypes.float4_e2m1fn)  # 2 + four fractals

    class Tile:  # the executor Tile fields the footprint reads
        space, offset, nbytes, name, element = "l1", 0, 1024, "%l1", "e2m1"
        physical = np.zeros(1024, np.uint8)

    values = [gm, 2, Tile(), 0, 1, 0, 1, 2, 2, 1]
    acc = footprint.Footprint(op).accesses(values)
    cells = {(a.space, a.start + r * a.stride + w)
             for a in acc for r in range(a.rows) for w in range(a.width)}
    gm_bytes = {c for s, c in cells if s == "gm"}
    l1_bytes = {c for s, c in cells if s == "l1"}
    assert gm_bytes == set(range(2 + 1024, 2 + 2048)) | set(range(2 + 3072, 2 + 4096))
    assert l1_bytes == set(range(1024))
