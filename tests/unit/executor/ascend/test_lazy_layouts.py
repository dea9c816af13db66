"""Lazy fractal layouts (`executor/ascend/lazy.py`): with deferred byte writes, every output and
every byte of every on-chip space after the run are those of the eager path (`lazy.ENABLED =
False`), on random lowered matmuls (f16, bf16, s8, f32; transposes; bias; a2 and a5) and on the
examples; a raw-byte observer (a reinterpret, `Tile.physical`) sees the bytes the eager kernels
would have written."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import mmair.executor.runner as runner
from mmair.executor.ascend import kernels, lazy
from mmair.executor.engine.memory import Memory
from mmair.tools.run import main as run_main

EXAMPLES = sorted(p for p in (pathlib.Path(__file__).parents[4] / "examples").glob("*.mlir")
                  if not p.name.startswith("tcgen05"))


def _recording(monkeypatch) -> list[Memory]:
    """Every `Memory` the runner creates from now on."""
    made: list[Memory] = []

    class Recorded(Memory):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(runner, "Memory", Recorded)
    return made


def _cli_run(monkeypatch, capsys, argv: list[str], enabled: bool):
    """mmair-run `argv` with lazy layouts on or off: (GM outputs, bytes of every space)."""
    monkeypatch.setattr(lazy, "ENABLED", enabled)
    memories = _recording(monkeypatch)
    seen: list = []
    real = runner.run_module

    def spy(*args, **kwargs):
        result = real(*args, **kwargs)
        seen.append(result)
        return result

    monkeypatch.setattr(runner, "run_module", spy)
    code = run_main(argv)
    out, err = capsys.readouterr()
    assert code == 0, (out, err)
    outputs = {name: array.tobytes() for name, array in seen[-1].outputs.items()}
    spaces = [{name: space.data.tobytes() for name, space in mem.spaces.items()}
              for mem in memories]
    return outputs, spaces


def _same_run(monkeypatch, capsys, argv: list[str]) -> None:
    eager = _cli_run(monkeypatch, capsys, argv, enabled=False)
    deferred = _cli_run(monkeypatch, capsys, argv, enabled=True)
    assert deferred[0] == eager[0], "GM outputs differ"
    assert deferred[1] == eager[1], "on-chip bytes differ"


_ELT = {"f16": "f16", "bf16": "bf16", "s8": "i8", "f32": "f32", "s32": "i32"}


def _matmul(tmp_path: pathlib.Path, m: int, n: int, k: int, ab: str, acc: str, target: str,
            ta: bool, tb: bool, bias: bool) -> pathlib.Path:
    sa = f"memref<{k}x{m}x{_ELT[ab]}>" if ta else f"memref<{m}x{k}x{_ELT[ab]}>"
    sb = f"memref<{n}x{k}x{_ELT[ab]}>" if tb else f"memref<{k}x{n}x{_ELT[ab]}>"
    sc, sbias = f"memref<{m}x{n}x{_ELT[acc]}>", f"memref<{n}x{_ELT[acc]}>"
    args = f"%a: {sa}, %b: {sb}, %c: {sc}" + (f", %bias: {sbias}" if bias else "")
    flags = (" transpose_a" if ta else "") + (" transpose_b" if tb else "") + \
        (f" bias %bias : {sbias}" if bias else "")
    path = tmp_path / "mm.mlir"
    path.write_text(
        f'builtin.module attributes {{pto.target = "{target}"}} {{\n'
        f"  func.func @mm({args}) {{\n"
        f"    pto.matmul %a, %b, %c{flags} : {sa}, {sb}, {sc}\n"
        "    func.return\n  }\n}\n")
    return path


CASES = [  # (m, n, k, ab, acc, target, transpose_a, transpose_b, bias)
    (256, 256, 512, "f16", "f32", "a2", False, False, False),  # whole fractals: all deferred
    (130, 70, 300, "f16", "f32", "a2", False, False, False),  # tails: partly eager
    (100, 200, 90, "f16", "f32", "a5", True, False, False),
    (64, 96, 48, "f16", "f32", "a2", False, True, True),
    (150, 40, 260, "bf16", "f32", "a2", False, False, False),
    (96, 128, 200, "s8", "s32", "a2", False, False, False),
    (120, 64, 72, "f32", "f32", "a5", False, False, False),
    (33, 17, 65, "f16", "f16", "a5", True, True, False),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: "x".join(map(str, c[:3])) + "-" +
                         "-".join(str(v) for v in c[3:]))
@pytest.mark.parametrize("inputs", ["int", "real"])
def test_lowered_matmul_outputs_and_bytes_match_the_eager_path(monkeypatch, capsys, tmp_path,
                                                              case, inputs):
    path = _matmul(tmp_path, *case)
    slots = 2 if case[1] % 2 else 1
    _same_run(monkeypatch, capsys, [str(path), "-p", f"mmair-lower{{multi_buffer={slots}}}",
                                    "--inputs", inputs, "--seed", str(case[0])])


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_every_example_matches_the_eager_path(monkeypatch, capsys, example):
    _same_run(monkeypatch, capsys, [str(example)])


def test_a_reinterpret_sees_the_bytes_of_a_deferred_load():
    mem = Memory("a2")
    tile = mem.place("l1", (32, 32), "nz", "f16", 0)
    gm = (np.arange(32 * 32, dtype=np.float32).reshape(32, 32) / 8).astype(np.float16)
    kernels.mte_gm_l1(gm, tile, 32, 30)
    assert mem.space("l1").pending, "the load should be deferred"
    view = mem.reinterpret(tile, (32 * 32,), "nd", "u16")
    expected = np.zeros((32, 32), np.float16)
    expected[:, :30] = gm[:, :30]
    blocked = expected.reshape(2, 16, 2, 16).transpose(2, 0, 1, 3)  # nz: column blocks outer
    assert np.array_equal(view.physical.reshape(-1), blocked.reshape(-1).view(np.uint16))
    assert not mem.space("l1").pending


def test_a_byte_write_after_a_deferred_load_is_not_overwritten_by_it():
    mem = Memory("a2")
    tile = mem.place("l1", (16, 16), "nz", "f16", 0)
    kernels.mte_gm_l1(np.ones((16, 16), np.float16), tile, 16, 16)
    alias = mem.reinterpret(tile, (256,), "nd", "f16")
    kernels.copy_gm_to_tile(np.full(8, 7, np.float16), alias)  # an eager kernel on the bytes
    assert not mem.space("l1").pending and tile.image is None
    flat = tile.physical.reshape(-1)
    assert np.array_equal(flat[:8], np.full(8, 7, np.float16))
    assert np.array_equal(flat[8:], np.ones(248, np.float16))


@pytest.mark.parametrize("dtype", [np.float16, np.int8, np.uint8, np.float32])
def test_roundtrip_exact_types_are_deferred(dtype):
    ctype = kernels._compute_dtype({np.float16: "f16", np.int8: "s8", np.uint8: "u8",
                                    np.float32: "f32"}[dtype])
    assert lazy.exact_roundtrip(np.dtype(dtype), ctype)


def test_bf16_is_not_deferred_its_nan_payloads_do_not_survive_the_roundtrip():
    import ml_dtypes

    assert not lazy.exact_roundtrip(np.dtype(ml_dtypes.bfloat16), np.dtype(np.float32))
