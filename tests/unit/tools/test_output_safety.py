"""Output files never replace what a tool reads, nor a file that is not theirs
(`tools/outputs.py`): `mmair-run --output` refuses the kernel, an `--input` or `--check` file
(also under another name: a symlink, a hard link), and an existing file that is not a .npy unless
`--force`; `mmair-opt -o`, `mmair-translate -o` and `mmair-show memory -o` refuse their input.
Every refusal is one `error:` line, exit 1, before any work, and the file is left as it was."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from mmair.tools import opt, run, show, translate

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
KERNEL = """func.func @k(%a: memref<4xf32>, %c: memref<4xf32>) {
  "memref.copy"(%a, %c) : (memref<4xf32>, memref<4xf32>) -> ()
  func.return
}
"""


@pytest.fixture
def kernel(tmp_path: Path) -> Path:
    path = tmp_path / "k.mlir"
    path.write_text(KERNEL)
    return path


def _refused(capsys, code: int, *needles: str) -> str:
    out, err = capsys.readouterr()
    assert code == 1, err
    assert out == ""
    assert len(err.splitlines()) == 1 and "error: " in err and "Traceback" not in err
    for needle in needles:
        assert needle in err
    return err


def test_run_output_onto_the_kernel_is_refused_and_the_kernel_kept(kernel, capsys):
    code = run.main([str(kernel), "--output", f"c={kernel}"])
    _refused(capsys, code, f"--output c '{kernel}' is the kernel", "refusing to overwrite")
    assert kernel.read_text() == KERNEL


def test_run_output_onto_an_input_npy_is_refused(kernel, tmp_path, capsys):
    a = tmp_path / "a.npy"
    np.save(a, np.arange(4, dtype=np.float32))
    before = a.read_bytes()
    code = run.main([str(kernel), "--input", f"a={a}", "--output", f"c={a}"])
    _refused(capsys, code, "is the --input of a")
    assert a.read_bytes() == before


def test_run_output_onto_a_check_file_through_a_symlink_is_refused(kernel, tmp_path, capsys):
    want = tmp_path / "want.npy"
    np.save(want, np.zeros(4, np.float32))
    link = tmp_path / "link.npy"
    link.symlink_to(want)
    code = run.main([str(kernel), "--check", f"c={want}", "--output", f"c={link}"])
    _refused(capsys, code, "is the --check file of c")


def test_run_output_onto_a_hard_link_of_the_kernel_is_refused(kernel, tmp_path, capsys):
    other = tmp_path / "other.npy"
    os.link(kernel, other)
    code = run.main([str(kernel), "--output", f"c={other}"])
    _refused(capsys, code, "is the kernel")
    assert kernel.read_text() == KERNEL


def test_run_output_onto_an_existing_non_npy_file_needs_force(kernel, tmp_path, capsys):
    notes = tmp_path / "notes.txt"
    notes.write_text("keep me")
    code = run.main([str(kernel), "--output", f"c={notes}"])
    _refused(capsys, code, f"--output c '{notes}' exists and is not a .npy file",
             "its name does not end in .npy", "--force")
    assert notes.read_text() == "keep me"
    assert run.main([str(kernel), "--output", f"c={notes}", "--force"]) == 0
    assert np.load(notes).shape == (4,)


def test_run_output_onto_a_npy_named_file_that_is_no_array_needs_force(kernel, tmp_path, capsys):
    fake = tmp_path / "c.npy"
    fake.write_text("not an array")
    code = run.main([str(kernel), "--output", f"c={fake}"])
    _refused(capsys, code, "it does not hold a .npy array")
    assert fake.read_text() == "not an array"


def test_run_output_replaces_an_existing_npy_and_writes_special_files(kernel, tmp_path, capsys):
    out = tmp_path / "c.npy"
    np.save(out, np.ones(9))
    assert run.main([str(kernel), "--output", f"c={out}"]) == 0
    assert np.load(out).shape == (4,)
    assert run.main([str(kernel), "--output", f"c={os.devnull}"]) == 0
    capsys.readouterr()


def test_run_two_outputs_into_one_file_are_refused(kernel, tmp_path, capsys):
    out = tmp_path / "o.npy"
    code = run.main([str(kernel), "--output", f"a={out}", "--output", f"c={out}"])
    _refused(capsys, code, "one file cannot hold two outputs")


def test_run_timeline_onto_the_kernel_is_refused(tmp_path, capsys):
    kernel = tmp_path / "m.json"
    kernel.write_text((EXAMPLES / "matmul_f16.mlir").read_text())
    code = run.main([str(kernel), "--timeline", str(kernel)])
    _refused(capsys, code, "--timeline", "is the kernel")


def test_opt_translate_and_show_refuse_to_write_over_their_input(tmp_path, capsys):
    source = tmp_path / "k.mlir"
    text = (EXAMPLES / "tcgen05_gemm_kloop.mlir").read_text()
    source.write_text(text)
    _refused(capsys, opt.main([str(source), "-o", str(source)]), "-o", "is the input")
    _refused(capsys, translate.main(["--target", "ptx", str(source), "-o", str(source)]),
             "is the input")
    png = tmp_path / "k.png"
    png.write_text(text)
    _refused(capsys, show.main(["memory", str(png), "-o", str(png)]), "is the kernel")
    assert source.read_text() == text and png.read_text() == text
