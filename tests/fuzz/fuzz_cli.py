"""Robustness fuzzer of the mmair command lines: options, option values and file kinds.

    python tests/fuzz/fuzz_cli.py --commands 3000 --seed 1      # the full run (about 2-4 minutes)
    python tests/fuzz/fuzz_cli.py --seed 1 --replay 17          # one command line, verbosely

`fuzz_ir.py` mutates the IR; this one keeps the IR valid and mutates everything else. Command line
i of seed s is a pure function of (s, i): a tool (mmair-opt, mmair-run, mmair-desc, mmair-show,
mmair-translate, mmair-tune), a valid base command line for it (mmair-run's with the newer options:
--timing, --timing-only, --timeline, --blocks, --numerics, --sync-check, --check-coverage, --jobs,
the default --max-ops, --json, --force, a target of the other family, and a tcgen05 kernel), then
one to three mutations:

* options: drop one, duplicate one, add an unknown option or one of another tool, swap two, cut
  a `--flag=value` in the middle;
* values: extreme or malformed numbers (-1, 0, 2^63, 1e309, nan, 0x, ''), unicode, a pass
  pipeline with a wrong pass, option name or option value, an unknown target, `NAME=` without a
  file;
* file kinds, for every argument that names a file: missing, a directory, empty, binary junk,
  not UTF-8, `-` (standard input, empty here), and `.npy` files that hold void, string, complex,
  object (pickled), structured, datetime, 0-d, bool, wrong-shape, wrong-dtype, truncated arrays,
  headers with a huge shape, `<f1`/`|V1`/`|V2` low-precision headers, raw uint8/uint16 bits;
  output paths into a missing folder, onto a folder, onto `/dev/full`, `/dev/null` or a symlink,
  onto the kernel, an input .npy or a file that is not a .npy; pictures named .png/.svg/.pdf;
  `/dev/zero` as an endless input.

Each command runs in-process (`fuzz_ir.run_tool`) and is classified as `fuzz_ir` does, except that
exit 2 is the documented code for a bad command line: `ok` (exit 0), `diag` (exit 1 or 2 with one
`error:` line), and the failures `internal`, `crash` (a traceback, another exit code, no `error:`
line), `hang`, `oom`; a command line that changes a file it reads (the kernel, an `--input`)
is a `crash` too. The quick version runs in the test suite (`tests/unit/project/test_fuzz_cli.py`).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

FUZZ_DIR = Path(__file__).resolve().parent
REPO_ROOT = FUZZ_DIR.parent.parent


def _load(name: str, file: str):
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, FUZZ_DIR / file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


fuzz_ir = _load("mmair_fuzz_ir", "fuzz_ir.py")

OUTCOMES = fuzz_ir.OUTCOMES
FAILURES = fuzz_ir.FAILURES
TOOLS = ("mmair-opt", "mmair-run", "mmair-desc", "mmair-show", "mmair-translate", "mmair-tune")

GEMM = """builtin.module attributes {pto.target = "a2"} {
  func.func @gemm(%a: memref<30x40xf16>, %b: memref<40x48xf16>, %c: memref<30x48xf32>) -> index {
    %m = arith.constant 30 : index
    %k = arith.constant 40 : index
    %n = arith.constant 48 : index
    %a1 = pto.alloc : !pto.tile<l1, 30x40xf16, nz>
    %b1 = pto.alloc : !pto.tile<l1, 40x48xf16, zz>
    %a0 = pto.alloc : !pto.tile<l0a, 30x40xf16, zz>
    %b0 = pto.alloc : !pto.tile<l0b, 40x48xf16, zn>
    %c0 = pto.alloc : !pto.tile<l0c, 30x48xf32, nz>
    pto.mte_gm_l1 %a, %a1, %m, %k : memref<30x40xf16>, !pto.tile<l1, 30x40xf16, nz>
    pto.mte_gm_l1 %b, %b1, %k, %n : memref<40x48xf16>, !pto.tile<l1, 40x48xf16, zz>
    pto.set_flag mte2 -> mte1, 0
    pto.wait_flag mte2 -> mte1, 0
    pto.mte_l1_l0a %a1, %a0, %m, %k : !pto.tile<l1, 30x40xf16, nz>, !pto.tile<l0a, 30x40xf16, zz>
    pto.mte_l1_l0b %b1, %b0, %k, %n : !pto.tile<l1, 40x48xf16, zz>, !pto.tile<l0b, 40x48xf16, zn>
    pto.set_flag mte1 -> m, 0
    pto.wait_flag mte1 -> m, 0
    pto.mad %a0, %b0, %c0, %m, %n, %k : !pto.tile<l0a, 30x40xf16, zz>, !pto.tile<l0b, 40x48xf16, zn>, !pto.tile<l0c, 30x48xf32, nz>
    pto.set_flag m -> fix, 0
    pto.wait_flag m -> fix, 0
    pto.fixpipe %c0, %c, %m, %n : !pto.tile<l0c, 30x48xf32, nz>, memref<30x48xf32>
    func.return %m : index
  }
}
"""

MATMUL = """builtin.module attributes {pto.target = "a2"} {
  func.func @mm(%a: memref<20x24xbf16>, %b: memref<24x40xbf16>, %c: memref<20x40xbf16>) {
    pto.matmul %a, %b, %c : memref<20x24xbf16>, memref<24x40xbf16>, memref<20x40xbf16>
    func.return
  }
}
"""

EXTREMES = ("-1", "0", "1", "-0", "2", "65536", str(2**31), str(2**63), str(2**64), "1e309",
            "nan", "inf", "-inf", "0x", "0x10", "1.5", "", " ", "x", "é", "\u202e", "--", "-",
            "=", "a=b=c", "NUL\x01")
PIPELINES = ("mmair-lower", "cse,canonicalize", "pto-tile-matmul{tile-m=16}", "pto-tile-matmul{tile_m=x}",
             "pto-tile-matmul{nope=1}", "nope", "mmair-lower{target=b9}", "cse{", "", ",",
             "pto-assign-addresses,pto-assign-addresses", "pto-tile-matmul{tile-m=-16}",
             "pto-tile-matmul{tile-m=99999999999999999999}", "mmair-lower{target=a5}",
             "mmair-lower{tile-k=32 tile-k-l1=64}", "mmair-lower{tile-k=32 tile-k-l1=48}",
             "pto-tile-matmul{tiling=rule}", "pto-tile-matmul{tiling=x}", "mmair-lower{multi-buffer=1}")
FOREIGN = ("--json", "--check-numpy", "--split-input-file", "--verify-diagnostics", "--raw-bits",
           "--inputs=int", "--inputs=float", "--stats", "-v", "--version", "--help", "--kind",
           "--target", "--entry", "--max-ops", "--print-op-generic", "--no-such-option",
           "--output-format=mlir", "--output-format=nope", "--mmair-target=a5", "--layout=qq",
           "--timing", "--timing-only", "--timeline", "--blocks", "--blocks=0", "--numerics=exact",
           "--numerics=nope", "--sync-check=off", "--check-coverage", "--jobs", "--jobs=2",
           "--target=ptx", "--workers", "--tiles-m", "--buffers=3", "--progress=on", "--force",
           "--blocks=-1", "--buffer-start", "--space=l0b", "--layout=dn", "--target=a2",
           "--costs", "--costs=ptoisa", "--costs=nope.json", "--tiles-k-l1", "--tiles-k-l1=0",
           "--tiles-m-l1=64", "--l1-slots=3", "--l0c-slots", "--swizzle=x", "--keep", "--keep=-1")
# Options added to mmair-run's base command line (the new ones get exercised unmutated too).
RUN_EXTRAS = ([], [], ["--timing"], ["--blocks", "2"], ["--sync-check=off"], ["--numerics=exact"],
              ["--check-coverage", "c"], ["--jobs", "2"], ["--stats"], ["--json"], ["--force"],
              ["--target", "sm_100a"], ["--check", "c=c_ref.npy"])


def _seed_chunks(name: str) -> list[str]:
    """The `// -----` chunks of an IR fuzzer seed file."""
    return (FUZZ_DIR / "seeds" / name).read_text().split("// -----")


def make_files(root: Path) -> dict[str, str]:
    """The file kinds the mutations draw from (name -> path)."""
    files: dict[str, str] = {}

    def put(name: str, data: bytes | str) -> None:
        path = root / name
        path.write_bytes(data.encode() if isinstance(data, str) else data)
        files[name] = str(path)

    def npy(name: str, array: np.ndarray, **kw) -> None:
        path = root / name
        np.save(path, array, **kw)
        files[name] = str(path)

    import ml_dtypes

    put("gemm.mlir", GEMM)
    put("matmul.mlir", MATMUL)
    put("tcgen05.mlir", (REPO_ROOT / "examples" / "tcgen05_mma_f16.mlir").read_text())
    # Raw Ascend C parameter forms (the IR fuzzer's seeds): the s4 matmul expanded to copy_nd2nz /
    # load_2d / load_2d_transpose / mmad / fixpipe_copy, and a5's fp4x2 DN2NZ with a runtime nValue.
    put("raw_s4.mlir", _seed_chunks("raw_matmuls.mlir")[0])
    put("raw_dn.mlir", _seed_chunks("raw_4bit.mlir")[1])
    put("tcgen05_kloop.mlir", (REPO_ROOT / "examples" / "tcgen05_gemm_kloop.mlir").read_text())
    put("empty.mlir", "")
    put("junk.bin", bytes(range(256)) * 4)
    put("latin1.mlir", "// \xe9\n".encode("latin1"))
    put("bad.mlir", "func.func @f( {\n")
    (root / "dir").mkdir()
    files["dir"] = str(root / "dir")
    files["missing"] = str(root / "missing.npy")
    files["missing_dir_out"] = str(root / "nodir" / "out")
    files["dev_full"] = "/dev/full"
    files["dev_null"] = os.devnull  # an output written in place, never replaced
    files["dev_zero"] = "/dev/zero"  # an input that never ends
    (root / "link").symlink_to(root / "link_target")
    files["symlink"] = str(root / "link")  # an output written through the link
    rng = np.random.default_rng(0)
    npy("a.npy", rng.uniform(-1, 1, (30, 40)).astype(np.float16))
    npy("b.npy", rng.uniform(-1, 1, (40, 48)).astype(np.float16))
    npy("c_ref.npy", np.zeros((30, 48), np.float32))
    npy("void2.npy", np.zeros((30, 40), "V2"))
    npy("void4.npy", np.zeros((30, 48), "V4"))
    npy("str.npy", np.array(["a", "b"]))
    npy("complex.npy", np.zeros((30, 48), np.complex64))
    npy("object.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    npy("struct.npy", np.zeros(3, [("a", "i4"), ("b", "f4")]))
    npy("date.npy", np.array([np.datetime64("2020-01-01")]))
    npy("scalar.npy", np.float16(1.0))
    npy("bool.npy", np.zeros((30, 40), bool))
    npy("wrong_shape.npy", np.zeros((3, 4), np.float16))
    npy("wrong_dtype.npy", np.zeros((30, 40), np.float64))
    npy("bf16.npy", rng.uniform(-1, 1, (20, 24)).astype(ml_dtypes.bfloat16))
    npy("e5m2.npy", np.zeros((30, 40), ml_dtypes.float8_e5m2))
    npy("u16.npy", np.zeros((20, 24), np.uint16))
    npy("u8.npy", np.full((30, 40), 0xFF, np.uint8))
    npy("s4.npy", rng.integers(-8, 8, (70, 130)).astype(ml_dtypes.int4))
    npy("s4_bits.npy", rng.integers(0, 16, (70, 130)).astype(np.uint8))
    npy("e2m1.npy", rng.integers(0, 16, (32, 64)).astype(np.uint8).view(ml_dtypes.float4_e2m1fn))
    npy("fortran.npy", np.asfortranarray(rng.uniform(-1, 1, (30, 40)).astype(np.float16)))
    good = (root / "a.npy").read_bytes()
    put("truncated.npy", good[: len(good) // 2])
    put("header_only.npy", good[:128])
    put("huge_shape.npy", good.replace(b"'shape': (30, 40)", b"'shape': (99999999999, 9)"))
    put("bad_header.npy", b"\x93NUMPY\x01\x00\x10\x00{'descr': 1}    \n")
    put("v9.npy", b"\x93NUMPY\x09\x00")
    put("costs.json", '{"l2_bytes": 0, "gm_read": {"bytes_per_cycle": 40}}')
    put("costs_bad_key.json", '{"gm_read": {"rate": 40}}')
    put("costs_bad_value.json", '{"mad_latency": -3, "targets": {"a9": {}}}')
    put("costs_not_json.json", '{"mad_latency": ')
    return files


_COSTS_FILES = ("costs.json", "costs_bad_key.json", "costs_bad_value.json", "costs_not_json.json")


@dataclass
class Command:
    tool: str
    argv: list[str]
    mutations: list[str]


def _base(tool: str, files: dict[str, str], rng: random.Random, out: str) -> list[str]:
    if tool == "mmair-opt":
        return [files[rng.choice(["gemm.mlir", "matmul.mlir", "raw_s4.mlir"])], "-o", out] + \
            rng.choice([[], ["-p", "mmair-lower"], ["--split-input-file"], ["--target", "a5"]])
    if tool == "mmair-run":
        out = out + ".npy"
        base = [files["gemm.mlir"], "--check-numpy", "--input", f"a={files['a.npy']}",
                "--output", f"c={out}", "--seed", "1"]  # the default --max-ops
        pick = rng.random()
        if pick < 0.15:
            return [files["tcgen05.mlir"], "--check-numpy", "--numerics",
                    rng.choice(["default", "exact"]), "--output", f"d={out}"]
        if pick < 0.25:
            return [files["gemm.mlir"], "--timeline", rng.choice([out + ".json", out + ".png"]),
                    "--input", f"a={files['a.npy']}"] + rng.choice([[], ["--timing-only"]]) + \
                rng.choice([[], [], ["--costs", "ptoisa"]] +
                           [["--costs", files[c]] for c in _COSTS_FILES])
        if pick < 0.6:
            return base + rng.choice(RUN_EXTRAS)
        if pick < 0.7:
            return rng.choice([
                [files["raw_s4.mlir"], "--check-numpy", "--input", f"a={files['s4.npy']}",
                 "--output", f"c={out}"],
                [files["raw_s4.mlir"], "--raw-bits", "--input", f"a={files['s4_bits.npy']}",
                 "--output", f"c={out}"],
                [files["raw_dn.mlir"], "--input", "n=32", "--input", f"g={files['e2m1.npy']}"],
            ]) + rng.choice(RUN_EXTRAS)
        return [files["matmul.mlir"], "--check-numpy", "--json", "--input",
                f"a={files['bf16.npy']}"]
    if tool == "mmair-translate":
        return [files["tcgen05_kloop.mlir"], "--target", "ptx"] + rng.choice(
            [[], ["-o", out + ".ptx"], ["-o", files["tcgen05_kloop.mlir"]]])
    if tool == "mmair-tune":
        # One tile configuration and one buffer count: one job, estimated in this process.
        return ["32", "48", "64", "--tiles-m", "32", "--tiles-n", "48", "--tiles-k", "64",
                "--tiles-m-l1", "0", "--tiles-n-l1", "0",
                "--buffers", "1", "--workers", "1", "--no-verify", "--progress", "off"] + \
            rng.choice([[], ["--json"], ["--target", "a5"], ["--types", "bf16,f32"],
                        ["--tiles-k-l1", "0,64"], ["--blocks", "2"], ["--costs", "ptoisa"],
                        ["--tiles-m-l1", "0,64"], ["--l1-slots", "1"], ["--l0c-slots", "2"],
                        ["--blocks", "2", "--swizzle", "0,2"], ["--keep", "0"]] +
                       [["--costs", files[c]] for c in _COSTS_FILES])
    if tool == "mmair-desc":
        return rng.choice([["decode", "idesc", "0x08400010", "--kind", "f16"],
                           ["decode", "smem", "0x4000404000010040", "--json"],
                           ["decode", "smem", "0x4000404000010040", "--buffer-start",
                            rng.choice(["0x400", "-16", "0x40000"])],
                           ["decode", "zcmask", "0x0203028301020100", "--m", "32", "--n", "64",
                            "--json"],
                           ["encode", "#tcgen05.idesc<kind = f16, dtype = f32, atype = f16, "
                                      "btype = f16, m = 128, n = 256>"]])
    picture = out + rng.choice([".png", ".svg", ".pdf"])
    return rng.choice([["layout", "--shape", "2x16", "--type", "f16", "--layout", "nd", "-o", picture],
                       ["layout", "--shape", "16x32", "--layout", rng.choice(["nz", "zn", "zz"]),
                        "--space", rng.choice(["l1", "l0a", "l0b", "l0c"]), "-o", picture],
                       ["memory", files["matmul.mlir"], "-o", picture]])


def _mutate(argv: list[str], files: dict[str, str], rng: random.Random) -> tuple[list[str], str]:
    kind = rng.choice(["drop", "dup", "foreign", "swap", "cut", "value", "value", "file", "file",
                       "file", "pipeline", "name_eq"])
    argv = list(argv)
    if not argv:
        return ["--help"], "empty"
    i = rng.randrange(len(argv))
    if kind == "drop":
        del argv[i]
    elif kind == "dup":
        argv[i:i] = argv[i:i + 2]
    elif kind == "foreign":
        argv.insert(i, rng.choice(FOREIGN))
    elif kind == "swap" and len(argv) > 1:
        j = rng.randrange(len(argv))
        argv[i], argv[j] = argv[j], argv[i]
    elif kind == "cut":
        argv[i] = argv[i][: rng.randrange(len(argv[i]) + 1)]
    elif kind == "value":
        options = [k for k, a in enumerate(argv[:-1]) if a.startswith("-")]
        k = rng.choice(options) + 1 if options else i
        argv[k] = rng.choice(EXTREMES)
    elif kind == "file":
        name = rng.choice(sorted(files))
        paths = [k for k, a in enumerate(argv) if "/" in a or a.endswith((".mlir", ".npy", ".png"))]
        k = rng.choice(paths) if paths else i
        if "=" in argv[k] and not argv[k].startswith("#"):
            argv[k] = argv[k].split("=", 1)[0] + "=" + files[name]
        else:
            argv[k] = files[name] if name != "stdin" else "-"
        kind = f"file:{name}"
    elif kind == "pipeline":
        argv += ["-p", rng.choice(PIPELINES)]
    elif kind == "name_eq":
        argv += [rng.choice(["--input", "--output", "--check"]),
                 rng.choice(["a=", "=x", "zz=" + files["a.npy"], "c", "c=" + files["void4.npy"],
                             "a=" + files["u8.npy"], "c=" + files["dir"], "c=/dev/full",
                             "c=" + files["gemm.mlir"], "a=" + files["a.npy"],
                             "c=" + files["junk.bin"]])]
    return argv, kind


def command(seed: int, index: int, files: dict[str, str], out: str) -> Command:
    rng = random.Random(f"cli:{seed}:{index}")
    tool = rng.choice(TOOLS)
    argv = _base(tool, files, rng, out)
    mutations = []
    for _ in range(rng.choice([1, 1, 2, 3])):
        argv, kind = _mutate(argv, files, rng)
        mutations.append(kind)
    if rng.random() < 0.05 and tool in ("mmair-opt", "mmair-run"):
        argv.append("--raw-bits" if tool == "mmair-run" else "-")
    return Command(tool, argv, mutations)


def _mains():
    from mmair.tools import desc, opt, run, show, translate, tune

    return {"mmair-opt": opt.main, "mmair-run": run.main, "mmair-desc": desc.main,
            "mmair-show": show.main, "mmair-translate": translate.main, "mmair-tune": tune.main}


_WRITES = ("-o", "--output", "--timeline")
_NOT_FILES = ("-p", "--passes")
"""Options whose value is text, never a file the tool reads (a pass pipeline)."""


def _writes(option: str) -> bool:
    """An output option, as written or abbreviated (argparse takes a unique prefix: `--o`)."""
    return option in _WRITES or (option.startswith("--") and len(option) > 2 and
                                 any(w.startswith(option) for w in _WRITES if w.startswith("--")))


def read_files(argv: list[str]) -> list[str]:
    """The regular files a command line reads (every file argument that is not the value of an
    output option): no tool may change them (`tools/outputs.py`), whatever the mutations did."""
    found = []
    for k, arg in enumerate(argv):
        if k > 0 and (_writes(argv[k - 1]) or argv[k - 1] in _NOT_FILES):
            continue
        if "=" in arg and _writes(arg.split("=", 1)[0]):
            continue
        path = arg.split("=", 1)[1] if "=" in arg and not arg.startswith("#") else arg
        if os.path.isfile(path) and not path.startswith("/dev/"):
            found.append(path)
    return found


def _read(path: str) -> bytes | None:
    try:
        return Path(path).read_bytes()
    except OSError:
        return None


def classify(result) -> str:
    """fuzz_ir's outcome, with exit 2 plus an `error:` line counted as a diagnostic."""
    if result.outcome == "crash" and result.rc == 2 and "error:" in result.stderr \
            and "Traceback" not in result.stderr:
        return "diag"
    return result.outcome


@dataclass
class Summary:
    tried: int = 0
    per_tool: dict[str, Counter] = field(default_factory=lambda: {t: Counter() for t in TOOLS})
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def failed(self) -> int:
        return len(self.failures)

    def table(self) -> str:
        width = max(len(name) for name in self.per_tool) + 1
        lines = [f"{self.tried} command lines in {self.seconds:.0f} s",
                 f"{'':{width}}" + "".join(f"{o:>10}" for o in OUTCOMES)]
        for name, counter in self.per_tool.items():
            lines.append(f"{name:{width}}" + "".join(f"{counter[o]:>10}" for o in OUTCOMES))
        return "\n".join(lines)


def run_commands(indices, seed: int = 1, timeout: float = 10.0, verbose: bool = False) -> Summary:
    summary = Summary()
    mains = _mains()
    start = time.perf_counter()
    stdin = sys.stdin
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="mmair-fuzz-cli-") as workdir:
        files = make_files(Path(workdir))
        out = os.path.join(workdir, "out.bin")
        # A mutated value may become a relative output path ("-1", "c"): keep it in the
        # temporary folder, not in the caller's working directory.
        os.chdir(workdir)
        try:
            _run_all(indices, seed, timeout, verbose, summary, mains, files, out, stdin)
        finally:
            os.chdir(cwd)
    summary.seconds = time.perf_counter() - start
    return summary


def _run_all(indices, seed: int, timeout: float, verbose: bool, summary: Summary, mains: dict,
             files: dict[str, str], out: str, stdin) -> None:
    """Run and classify command lines `indices` (see `run_commands`)."""
    for index in indices:
        cmd = command(seed, index, files, out)
        before = {path: _read(path) for path in read_files(cmd.argv)}
        sys.stdin = open(os.devnull)  # `-` reads an empty standard input
        try:
            result = fuzz_ir.run_tool(mains[cmd.tool], cmd.argv, timeout)
        finally:
            sys.stdin.close()
            sys.stdin = stdin
        outcome = classify(result)
        clobbered = [path for path, data in before.items() if _read(path) != data]
        for path in clobbered:  # put the input back for the next command lines
            Path(path).write_bytes(before[path])
        if clobbered:
            outcome = "crash"
            result.detail = f"an input file was overwritten: {', '.join(clobbered)}"
        summary.tried += 1
        summary.per_tool[cmd.tool][outcome] += 1
        if verbose:
            print(f"[{index}] {cmd.tool} {cmd.argv!r} ({', '.join(cmd.mutations)}): {outcome} "
                  f"rc={result.rc}\n{result.stderr}{result.detail}")
        if outcome in FAILURES:
            summary.failures.append(f"[{index}] {cmd.tool} {cmd.argv!r} ({', '.join(cmd.mutations)}): "
                                    f"{outcome}: {result.detail.strip()[-1500:]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=10.0)
    parser.add_argument("--replay", type=int, default=None)
    args = parser.parse_args(argv)
    indices = [args.replay] if args.replay is not None else range(args.commands)
    summary = run_commands(indices, args.seed, args.timeout, verbose=args.replay is not None)
    print(summary.table())
    for failure in summary.failures[:20]:
        print(failure)
    return 1 if summary.failed else 0


if __name__ == "__main__":
    sys.exit(main())
