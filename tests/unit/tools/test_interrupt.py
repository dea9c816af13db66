"""Ctrl-C (SIGINT) in every tool: one line `interrupted` on stderr, exit 130, no traceback, and no
worker process outlives the tool (`tools/stdio.py`).

Each tool runs as its console script does (`sys.argv[0]` is the script's name, then the tool's
`main`) in a session of its own, and gets SIGINT on its whole process group, as a terminal's
Ctrl-C sends it, while it is busy: reading a standard input that never ends, running a loop that
never ends, or sweeping tilings on worker processes."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mmair.tools import stdio

ROOT = Path(__file__).resolve().parents[3]

SPIN = """func.func @spin() -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 1000000000000 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
    %s = arith.addi %acc, %c1 : index
    scf.yield %s : index
  }
  func.return %r : index
}
"""


def _launch(tool: str, module: str, *args: str, stdin=subprocess.DEVNULL) -> subprocess.Popen:
    code = (f"import sys; sys.argv[0] = {tool!r}; import mmair.tools; "
            f"from mmair.tools.{module} import main; sys.exit(main({list(args)!r}))")
    # The tool as a user's shell starts it: SIGINT at its default, whatever the test runner
    # inherited (a background job or nohup ignores it, and an ignored SIGINT stays ignored,
    # tools/stdio.py).
    return subprocess.Popen([sys.executable, "-c", code], stdin=stdin, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT.parent)},
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _group_gone(pgid: int) -> bool:
    """No process of the group is left (read from /proc: every process's group id)."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        with contextlib.suppress(OSError):  # the process ended while we looked
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[2]) == pgid:  # state, ppid, pgrp
                return False
    return True


def _interrupt(proc: subprocess.Popen, after: float) -> tuple[int, str, str]:
    time.sleep(after)
    assert proc.poll() is None, proc.communicate()
    os.killpg(proc.pid, signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while not _group_gone(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _group_gone(proc.pid), "a process of the tool outlived it"
    return proc.returncode, out, err


def _assert_interrupted(code: int, err: str) -> None:
    assert code == 130
    assert err == "interrupted\n"


@pytest.mark.parametrize(("tool", "module", "args"), [
    ("mmair-opt", "opt", ("-",)),
    ("mmair-run", "run", ("-",)),
    ("mmair-translate", "translate", ("--target", "ptx", "-")),
    ("mmair-show", "show", ("memory", "-", "-o", "never.png")),
])
def test_ctrl_c_while_reading_an_endless_stdin_prints_interrupted_and_exits_130(
        tool, module, args, tmp_path):
    read_end, write_end = os.pipe()  # kept open: the tool waits for more input
    try:
        proc = _launch(tool, module, *args, stdin=read_end)
        code, out, err = _interrupt(proc, 2.5)
    finally:
        os.close(read_end)
        os.close(write_end)
    _assert_interrupted(code, err)
    assert out == ""


def test_ctrl_c_in_a_runaway_kernel_prints_interrupted_and_exits_130(tmp_path):
    kernel = tmp_path / "spin.mlir"
    kernel.write_text(SPIN)
    out_file = tmp_path / "c.npy"
    proc = _launch("mmair-run", "run", str(kernel), "--max-ops", "0", "--timeline",
                   str(tmp_path / "t.json"))
    code, out, err = _interrupt(proc, 3.0)
    _assert_interrupted(code, err)
    assert not out_file.exists() and not list(tmp_path.glob(".mmair-*"))


def test_ctrl_c_in_a_multi_process_launch_stops_every_worker(tmp_path):
    kernel = tmp_path / "spin.mlir"
    kernel.write_text(SPIN.replace("func.func @spin() -> index", "func.func @spin(%g: memref<4xf32>) -> index"))
    proc = _launch("mmair-run", "run", str(kernel), "--max-ops", "0", "--blocks", "2",
                   "--jobs", "2", "--sync-check=off")
    code, _, err = _interrupt(proc, 3.5)
    _assert_interrupted(code, err)


def test_ctrl_c_in_mmair_tune_stops_its_workers_and_exits_130():
    proc = _launch("mmair-tune", "tune", "2048", "2048", "2048", "--workers", "2",
                   "--progress", "off", "--no-verify")
    code, out, err = _interrupt(proc, 4.0)
    _assert_interrupted(code, err)
    assert out == ""


@pytest.mark.parametrize("argv0", ["mmair-desc", "-m"])
def test_ctrl_c_while_a_tool_still_imports_prints_interrupted_and_exits_130(argv0):
    # mmair-desc answers in a fraction of a second; this pins the start-up handler every console
    # script (and `python -m mmair.tools.X`, whose argv[0] is "-m" while its parent packages are
    # imported) arms when it imports mmair.tools, before the tool's main runs.
    code = (f"import sys, time; sys.argv[0] = {argv0!r}; import mmair.tools; "
            "print('armed', flush=True); time.sleep(60)")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT.parent)})
    assert proc.stdout is not None and proc.stdout.readline() == "armed\n"
    code_, _, err = _interrupt(proc, 0.0)
    _assert_interrupted(code_, err)


def test_a_library_import_of_the_tools_leaves_sigint_alone():
    # pytest itself is no console script: importing mmair.tools must not take over its Ctrl-C.
    assert signal.getsignal(signal.SIGINT) is not stdio._interrupted_at_startup


@pytest.mark.parametrize(("module", "argv", "patched"), [
    ("desc", ["decode", "idesc", "0x08400010", "--kind", "f16"], "idesc_report"),
    ("tune", ["32", "32", "32", "--workers", "1", "--no-verify"], "ranked_candidates"),
    ("show", ["layout", "--shape", "16x16", "--type", "f16"], "_run_layout"),
    ("opt", ["-"], "read_input_text"),
])
def test_a_keyboard_interrupt_anywhere_in_main_is_one_line_and_exit_130(
        module, argv, patched, monkeypatch, capsys):
    import importlib

    tool = importlib.import_module(f"mmair.tools.{module}")

    def stop(*_a, **_k):
        raise KeyboardInterrupt

    monkeypatch.setattr(tool, patched, stop)
    assert tool.main(argv) == stdio.INTERRUPTED
    captured = capsys.readouterr()
    assert captured.err == "interrupted\n"
    assert captured.out == ""
