"""mmair-opt: exit codes and MLIR-style diagnostics for bad input, never a traceback."""

from pathlib import Path

import pytest

from mmair.tools.opt import main

GOOD = "func.func @f(%a: i32) -> i32 {\n  func.return %a : i32\n}\n"


def run(tmp_path: Path, text: str, *args: str) -> tuple[int, str, str]:
    path = tmp_path / "input.mlir"
    path.write_text(text)
    return main([str(path), *args]), str(path)


def test_valid_module_prints_and_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, _ = run(tmp_path, GOOD)
    out = capsys.readouterr()
    assert rc == 0
    assert "func.func @f(%a: i32) -> i32" in out.out
    assert out.err == ""


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("func.func @f(%a: i32) -> i32 {\n  func.return %a", 2, "error: Expected ':'"),  # truncated
        ('"nope.op"() : () -> ()\n', 1, "error: Operation nope.op is not registered"),  # unknown op
        ("func.func @f(%a: i32) -> i32 {\n  %b = arith.addi %a, %a : i64\n  func.return %b : i32\n}\n",
         2, "error: operand is used with type i64"),  # wrong type
        ("%c = arith.constant 99999999999 : i8\n", 1, "error:"),  # out-of-range attribute
    ],
)
def test_parse_errors_are_one_located_diagnostic(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, line: int, message: str
) -> None:
    rc, path = run(tmp_path, text)
    err = capsys.readouterr().err
    assert rc == 1
    assert err.startswith(f"{path}:{line}:")
    assert message in err
    assert "Traceback" not in err


def test_verifier_error_names_op_and_quotes_source(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc, path = run(tmp_path, "func.func @f(%a: i32) -> i64 {\n  func.return %a : i32\n}\n")
    err = capsys.readouterr().err.splitlines()
    assert rc == 1
    assert err[0].startswith(f"{path}:2:3: error: 'func.return' op ")
    assert err[1] == "  func.return %a : i32"
    assert err[2] == "  ^"


def test_split_input_file_keeps_whole_file_line_numbers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = GOOD + "// -----\n" + "func.func @g(%a: i32) -> i64 {\n  func.return %a : i32\n}\n"
    rc, path = run(tmp_path, text, "--split-input-file", "--verify-diagnostics")
    out = capsys.readouterr().out
    assert rc == 0
    assert f"{path}:6:3: error: 'func.return' op" in out
    assert "// -----" in out


@pytest.mark.parametrize(
    "args",
    [["-p", "no-such-pass"], ["-p", "canonicalize{"], ["--no-such-flag"], ["--target", "b9"], ["--mmair-target", "b9"]],
)
def test_bad_pipeline_or_option_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    rc, _ = run(tmp_path, GOOD, *args)
    err = capsys.readouterr().err
    assert rc == 2
    assert len(err.strip().splitlines()) == 1
    assert "error" in err


def test_missing_input_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path / "absent.mlir")]) == 1
    assert "error: cannot read input" in capsys.readouterr().err


def test_output_file(tmp_path: Path) -> None:
    out = tmp_path / "out.mlir"
    rc, _ = run(tmp_path, GOOD, "-o", str(out))
    assert rc == 0
    assert "func.func @f" in out.read_text()
