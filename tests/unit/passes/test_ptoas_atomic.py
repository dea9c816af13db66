"""GM atomic stores from PTOAS input: tile-level `tstore {atomicType = atomic_add}` and VPTO
`mte_l0c_gm ..., atomic(type = T, op = add | max | min)` become mmair's `pto.fixpipe` /
`pto.fixpipe_copy` with `atomic`; they run as read-modify-write of GM in its element type (held
against numpy directly), two atomic updates of one kind do not race, an atomic update and a plain
access of the same bytes do."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from mmair.dialects import pto
from mmair.dialects.ptoas import ptoas_context
from mmair.executor.engine.events import SyncError
from mmair.executor.runner import run_module
from mmair.passes.ptoas_to_mmair import ConversionError, convert_module
from mmair.tools.diagnostics import verify_module

SPLITK = "tests/filecheck/ptoas/atomic_splitk.pto"
GEMM = "tests/filecheck/ptoas/vpto/gemm_kloop.pto"
_ATOMIC = " {atomicType = #pto<atomic_type atomic_add>}"


def _converted(text: str) -> ModuleOp:
    module = Parser(ptoas_context(), text).parse_module()
    module.verify()
    convert_module(module)
    verify_module(module)
    return module


def _read(path: str) -> str:
    with open(path) as f:
        return f.read()


def _inputs(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"a": rng.uniform(-1, 1, (32, 64)).astype(np.float16),
            "b": rng.uniform(-1, 1, (64, 32)).astype(np.float16),
            "c": rng.uniform(-1, 1, (32, 32)).astype(np.float32)}


def test_two_cores_atomically_add_their_split_k_products_into_c() -> None:
    x = _inputs(np.random.default_rng(3))
    module = _converted(_read(SPLITK))
    stores = [op for op in module.walk() if isinstance(op, pto.FixpipeOp)]
    assert [op.atomic.data for op in stores] == ["add"]
    out = run_module(module, inputs=dict(x), blocks=2, sync_check=True).outputs["c"]
    product = x["a"].astype(np.float32) @ x["b"].astype(np.float32)
    np.testing.assert_allclose(out, x["c"] + product, rtol=1e-5, atol=1e-5)


def _one_core_two_stores(first: bool, second: bool) -> str:
    """The split-K kernel on one core, storing C twice with no barrier between the stores
    (atomic add or plain, each)."""
    text = _read(SPLITK)
    store = next(line for line in text.splitlines() if line.strip().startswith("pto.tstore"))
    plain = store.replace(_ATOMIC, "")
    return text.replace(store, (store if first else plain) + "\n" + (store if second else plain))


def test_two_atomic_adds_of_the_same_bytes_do_not_race() -> None:
    x = _inputs(np.random.default_rng(4))
    out = run_module(_converted(_one_core_two_stores(True, True)), inputs=dict(x),
                     sync_check=True).outputs["c"]
    product = x["a"][:, :32].astype(np.float32) @ x["b"][:32].astype(np.float32)
    np.testing.assert_allclose(out, x["c"] + 2 * product, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(("first", "second", "verbs"), [
    (True, False, ("writes them", "updates them atomically \\(add f32\\)")),
    (False, True, ("updates them atomically \\(add f32\\)", "writes them")),
])
def test_an_atomic_add_and_a_plain_store_of_the_same_bytes_race(first, second, verbs) -> None:
    module = _converted(_one_core_two_stores(first, second))
    with pytest.raises(SyncError, match=(
            f"race on bytes \\[0, 4096\\) of GM buffer %c: 'pto.tstore' \\(mmair pto.fixpipe\\) "
            f"\\(pipe fix\\) {verbs[0]}, 'pto.tstore' \\(mmair pto.fixpipe\\) \\(pipe fix\\) "
            f"{verbs[1]}; no pipe_barrier\\(fix\\) between them")):
        run_module(module, inputs=_inputs(np.random.default_rng(5)), sync_check=True)


def _vpto_gemm(clause: str) -> str:
    return _read(GEMM).replace("%c0, %c0, nz2nd\n", f"%c0, %c0, nz2nd, {clause}\n")


@pytest.mark.parametrize(("op", "combine"), [
    ("add", np.add), ("max", np.maximum), ("min", np.minimum)])
def test_vpto_atomic_store_combines_with_gm(op: str, combine) -> None:
    rng = np.random.default_rng(6)
    a = rng.uniform(-1, 1, (32, 64)).astype(np.float16)
    b = rng.uniform(-1, 1, (64, 32)).astype(np.float16)
    c = rng.uniform(-4, 4, (32, 32)).astype(np.float32)
    module = _converted(_vpto_gemm(f"atomic(type = f32, op = {op})"))
    store = next(o for o in module.walk() if isinstance(o, pto.FixpipeCopyOp))
    assert store.atomic.data == op
    out = run_module(module, inputs={"a": a.ravel(), "b": b.ravel(), "c": c.ravel()},
                     sync_check=True).outputs["c"].reshape(32, 32)
    expected = combine(c, a.astype(np.float32) @ b.astype(np.float32))
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


def test_a_vpto_atomic_type_other_than_the_gm_element_type_is_refused() -> None:
    with pytest.raises(ConversionError, match=(
            r"'pto.mte_l0c_gm' op has atomic\(type = f16\) with a f32 destination: the atomic "
            r"type must be the destination's element type \(f32\)")):
        _converted(_vpto_gemm("atomic(type = f16, op = add)"))


def test_mmair_to_ptoas_writes_an_atomic_add_store_as_tstore_atomic_add() -> None:
    import io

    from xdsl.context import Context
    from xdsl.printer import Printer

    from mmair.passes.mmair_to_ptoas import MmairToPtoasPass

    module = _converted(_read(SPLITK))
    MmairToPtoasPass().apply(Context(), module)
    text = io.StringIO()
    Printer(stream=text).print_op(module)
    stores = [line for line in text.getvalue().splitlines() if "pto.tstore" in line]
    assert len(stores) == 1 and stores[0].endswith("{atomicType = #pto.atomic_type<atomic_add>}")
    again = _converted(text.getvalue())
    assert [op.atomic.data for op in again.walk() if isinstance(op, pto.FixpipeOp)] == ["add"]
