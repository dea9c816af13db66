"""Windows of GM arguments that no op writes are converted once per run and process and shared
by its cores (`memory.ReadOnlyGm`, issue 30): outputs and on-chip bytes are bit-identical to the
per-space cache (`MemorySpace.gm_images`), one core or several, in process or on the pool; a
written argument keeps the validated cache."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.parser import Parser
from xdsl.passes import PassPipeline

import mmair.executor.runner as runner
from mmair.executor.ascend import kernels
from mmair.executor.engine.memory import Memory, ReadOnlyGm
from mmair.passes import get_all_passes
from mmair.tools.opt import MmairOptMain

_ELT = {"f16": "f16", "bf16": "bf16", "s8": "i8", "f32": "f32", "s32": "i32"}


def _lowered(m: int, n: int, k: int, ab: str, acc: str, tb: bool, pipeline: str):
    sa, sc = f"memref<{m}x{k}x{_ELT[ab]}>", f"memref<{m}x{n}x{_ELT[acc]}>"
    sb = f"memref<{n}x{k}x{_ELT[ab]}>" if tb else f"memref<{k}x{n}x{_ELT[ab]}>"
    text = (f'builtin.module attributes {{pto.target = "a2"}} {{\n'
            f"  func.func @mm(%a: {sa}, %b: {sb}, %c: {sc}) {{\n"
            f"    pto.matmul %a, %b, %c{' transpose_b' if tb else ''} : {sa}, {sb}, {sc}\n"
            "    func.return\n  }\n}\n")
    tool = MmairOptMain(args=[])
    module = Parser(tool.ctx, text).parse_module()
    PassPipeline.parse_spec(get_all_passes(), pipeline).apply(tool.ctx, module)
    return module


def _inputs(m: int, n: int, k: int, ab: str, tb: bool) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(m * 7 + n)
    dtype = {"f16": np.float16, "s8": np.int8, "f32": np.float32}.get(ab)
    if dtype is None:  # bf16
        from ml_dtypes import bfloat16 as dtype
    shape_b = (n, k) if tb else (k, n)
    if ab == "s8":
        return {"a": rng.integers(-128, 128, (m, k)).astype(np.int8),
                "b": rng.integers(-128, 128, shape_b).astype(np.int8)}
    return {"a": rng.standard_normal((m, k)).astype(dtype),
            "b": rng.standard_normal(shape_b).astype(dtype)}


def _run(monkeypatch, module, inputs, shared: bool, **kwargs):
    """(GM outputs, every space's bytes) with or without the read-only images."""
    made: list[Memory] = []

    class Recorded(Memory):
        def __init__(self, *args, **kw):
            super().__init__(*args, **kw)
            made.append(self)

    monkeypatch.setattr(runner, "Memory", Recorded)
    if not shared:
        monkeypatch.setattr(runner, "_read_only_images", lambda *a: ReadOnlyGm([]))
        monkeypatch.setattr(runner, "read_only_arguments", lambda *a: [])
    result = runner.run_module(module, inputs=inputs, **kwargs)
    monkeypatch.undo()
    return ({k: v.tobytes() for k, v in result.outputs.items()},
            [{name: s.data.tobytes() for name, s in mem.spaces.items()} for mem in made])


CASES = [  # (m, n, k, ab, acc, transpose_b)
    (256, 128, 512, "f16", "f32", False),
    (200, 140, 300, "f16", "f32", False),  # remainder tiles
    (130, 150, 300, "f16", "f32", True),  # B held transposed: dn2nz windows
    (150, 140, 260, "bf16", "f32", False),
    (96, 160, 200, "s8", "s32", False),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: "x".join(map(str, c[:3])) + "-" + c[3])
@pytest.mark.parametrize("blocks", [1, 3])
def test_outputs_and_bytes_equal_the_per_space_cache(monkeypatch, case, blocks):
    m, n, k, ab, acc, tb = case
    module = _lowered(m, n, k, ab, acc, tb, f"mmair-lower{{tiling=rule blocks={blocks}}}")
    inputs = _inputs(m, n, k, ab, tb)
    shared = _run(monkeypatch, module, inputs, True, blocks=blocks)
    own = _run(monkeypatch, module, inputs, False, blocks=blocks)
    assert shared[0] == own[0], "GM outputs differ"
    if blocks == 1:
        assert shared[1] == own[1], "on-chip bytes differ"


def test_the_pool_with_read_only_images_equals_the_in_process_run(monkeypatch):
    from mmair.executor.engine.multicore_pool import available

    if not available():
        pytest.skip("no fork start method on this platform")
    module = _lowered(300, 280, 260, "f16", "f32", False, "mmair-lower{tiling=rule blocks=4}")
    inputs = _inputs(300, 280, 260, "f16", False)
    before = {k: v.copy() for k, v in inputs.items()}
    pooled = runner.run_module(module, inputs=inputs, blocks=4, jobs=2)
    alone = runner.run_module(module, inputs=inputs, blocks=4, jobs=1)
    for name in ("a", "b", "c"):  # a and b are not copied back: they hold their input bytes
        assert pooled.outputs[name].tobytes() == alone.outputs[name].tobytes(), name
    for name, value in before.items():
        assert pooled.outputs[name].tobytes() == value.tobytes()


def test_each_window_is_converted_once_for_all_cores(monkeypatch):
    module = _lowered(256, 512, 512, "f16", "f32", False, "mmair-lower{tiling=rule blocks=4}")
    inputs = _inputs(256, 512, 512, "f16", False)
    converted: list[tuple[int, ...]] = []
    loads: list[tuple] = []
    real_convert, real_load = kernels._convert, kernels.mte_gm_l1

    def counting(values, ctype):
        if values.shape != (65536,):  # not the lazy layouts' round-trip check of all patterns
            converted.append(values.shape)
        return real_convert(values, ctype)

    def loading(gm, *args):
        loads.append((gm.ctypes.data, gm.shape))
        return real_load(gm, *args)

    monkeypatch.setattr(kernels, "_convert", counting)
    monkeypatch.setattr(kernels, "mte_gm_l1", loading)
    runner.run_module(module, inputs=inputs, blocks=4)
    assert len(converted) == len(set(loads)) < len(loads) / 2  # once per window, any core


def test_only_arguments_no_op_writes_are_read_only():
    module = _lowered(64, 64, 64, "f16", "f32", False, "mmair-lower{tiling=rule}")
    entry = runner.find_entry(module)
    _, values = runner.prepare_arguments(entry, _inputs(64, 64, 64, "f16", False), 0, None)
    assert runner.read_only_arguments(module, entry, values) == [0, 1]  # a, b; not c


def test_a_window_of_an_unregistered_array_is_not_imaged():
    a, c = np.ones((32, 32), np.float16), np.ones((32, 32), np.float16)
    images = ReadOnlyGm([a])
    f32 = np.dtype(np.float32)
    assert images.window_image(c[:16], f32, kernels._convert) is None
    first = images.window_image(a[:16], f32, kernels._convert)
    assert first is images.window_image(a[:16], f32, kernels._convert)  # converted once
    assert images.window_image(a[16:], f32, kernels._convert) is not first
    np.testing.assert_array_equal(first, a[:16].astype(np.float32))
    part = ReadOnlyGm([a[:16]])  # a view of part of an array: its owner is not read-only
    assert part.window_image(a[:8], f32, kernels._convert) is None


@pytest.mark.parametrize("case", CASES[:3], ids=lambda c: "x".join(map(str, c[:3])))
def test_read_only_inputs_are_the_callers_arrays_and_give_the_copied_runs_bytes(case):
    """`run_module` passes a C-contiguous input that no op writes as a read-only view of the
    caller's array (no copy into fresh pages); a strided one is copied. Both runs give the same
    bytes, the written C is a copy, and the caller's arrays are left as they were."""
    m, n, k, ab, acc, tb = case
    module = _lowered(m, n, k, ab, acc, tb, "mmair-lower{tiling=rule}")
    inputs = _inputs(m, n, k, ab, tb)
    inputs["c"] = np.full((m, n), 2.0, np.float32)
    before = {name: v.copy() for name, v in inputs.items()}
    shared = runner.run_module(module, inputs=inputs)
    for name in ("a", "b"):
        assert np.shares_memory(shared.outputs[name], inputs[name])
        assert not shared.outputs[name].flags.writeable
    assert not np.shares_memory(shared.outputs["c"], inputs["c"])
    strided = {name: np.repeat(v, 2, axis=1)[:, ::2] for name, v in inputs.items()}
    copied = runner.run_module(module, inputs=strided)
    assert not np.shares_memory(copied.outputs["a"], strided["a"])
    for name, value in before.items():
        assert inputs[name].tobytes() == value.tobytes(), name
        assert shared.outputs[name].tobytes() == copied.outputs[name].tobytes(), name
