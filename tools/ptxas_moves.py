"""Assemble every tcgen05 data-movement form (ld, st, cp, shift) with ptxas and cache the verdicts.

    python -m mmair.tools.ptxas_moves            # refresh tests/ptxas/move_forms.tsv (seconds)
    python -m mmair.tools.ptxas_moves --compare  # mmair's verdict vs the cached one

The form space (`move_forms`): `tcgen05.ld` / `tcgen05.st` of every shape x `.num` (.x1 ... .x128)
x `.pack::16b` / `.unpack::16b` x with or without the immHalfSplitoff immediate; `tcgen05.cp` of
every shape x warp multicast (none, `.warpx4`, `.warpx2::02_13`, `.warpx2::01_23`) x decompression
(none, `.b8x16.b6x16_p32`, `.b8x16.b4x16_p64`) x cta_group; `tcgen05.shift` x cta_group. Each form
is one PTX instruction; the register vector of an ld/st has the count the shape and .num give
(`tmem_moves.LD_ST_SHAPES`: base x num), legal or not. mmair's verdict is its verifier's rules
(`rules.check_ld_st`, the `.16x32bx2` <=> immHalfSplitoff rule of `dialects/tcgen05/`,
`tmem_moves.check_cp`, `rules.check_shift_target`). The cache lists the forms ptxas accepts, each
with the targets that accept it.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from dataclasses import dataclass
from pathlib import Path

from mmair.isa.tcgen05 import rules, tmem_moves
from mmair.isa.tcgen05.errors import DescriptorError
from mmair.tools.ptxas import find_ptxas, judge_lines, ptxas_version
from mmair.tools.ptxas_forms import PTXAS_TARGETS

#: Targets judged: the .target spelling -> the -arch value (`ptxas_forms.PTXAS_TARGETS`).
TARGETS: dict[str, str] = {target: arch for target, (_, arch) in PTXAS_TARGETS.items()}
CACHE = Path(__file__).resolve().parent.parent / "tests" / "ptxas" / "move_forms.tsv"
MULTICASTS = (None, "warpx4", "warpx2::02_13", "warpx2::01_23")


@dataclass(frozen=True)
class MoveForm:
    """One data-movement instruction form."""

    op: str  # "ld", "st", "cp", "shift"
    shape: str = ""
    num: int = 1
    pack: bool = False  # .pack::16b (ld) / .unpack::16b (st)
    split: bool = False  # the immHalfSplitoff immediate is written
    multicast: str | None = None
    decompress: str | None = None
    cta_group: int = 1

    def key(self) -> str:
        """The PTX instruction (without `;`): the key of the cached verdicts."""
        if self.op in ("ld", "st"):
            regs = tmem_moves.LD_ST_SHAPES[self.shape][1] * self.num
            vector = "{" + ", ".join(f"%r{i + 1}" for i in range(regs)) + "}"
            packing = {"ld": ".pack::16b", "st": ".unpack::16b"}[self.op] if self.pack else ""
            head = f"tcgen05.{self.op}.sync.aligned.{self.shape}.x{self.num}{packing}.b32"
            imm = ", 2" if self.split else ""
            if self.op == "ld":
                return f"{head} {vector}, [%r0]{imm}"
            return f"{head} [%r0]{imm}, {vector}"
        if self.op == "cp":
            mods = "".join(f".{m}" for m in (self.shape, self.multicast, self.decompress) if m)
            return f"tcgen05.cp.cta_group::{self.cta_group}{mods} [%r0], %rd0"
        return f"tcgen05.shift.cta_group::{self.cta_group}.down [%r0]"


def move_forms() -> list[MoveForm]:
    forms = []
    for op in ("ld", "st"):
        for shape in tmem_moves.LD_ST_SHAPES:
            for num in tmem_moves.LD_ST_NUMS:
                for pack in (False, True):
                    for split in (False, True):
                        forms.append(MoveForm(op, shape, num, pack, split))
    for cta in (1, 2):
        for shape in tmem_moves.CP_SHAPES:
            for multicast in MULTICASTS:
                for decompress in (None, *tmem_moves.CP_DECOMPRESSIONS):
                    forms.append(MoveForm("cp", shape, multicast=multicast, decompress=decompress,
                                          cta_group=cta))
        forms.append(MoveForm("shift", cta_group=cta))
    return forms


def mmair_error(form: MoveForm, target: str) -> str | None:
    """mmair's verdict on `target`: None (legal) or the first rule it breaks."""
    try:
        if form.op == "shift":
            rules.check_shift_target(target)
        elif form.op in ("ld", "st"):
            rules.check_ld_st(form.shape, form.num, lane=0, warp=0)
            if form.split != (form.shape == "16x32bx2"):
                return "immHalfSplitoff is written exactly for .16x32bx2 (R33)"
        elif form.op == "cp":
            tmem_moves.check_cp(form.shape, form.multicast, form.decompress)
    except DescriptorError as err:
        return str(err)
    return None


def forms_digest(forms: list[MoveForm]) -> str:
    return hashlib.sha256("\n".join(f.key() for f in forms).encode()).hexdigest()[:16]


def ptxas_verdicts(forms: list[MoveForm], ptxas: str) -> dict[str, set[str]]:
    """form key -> the targets on which ptxas accepts it (one kernel per target and cta_group:
    ptxas rejects mixing cta_groups in a kernel)."""
    accepted: dict[str, set[str]] = {f.key(): set() for f in forms}
    for target, arch in TARGETS.items():
        for cta in (1, 2):
            group = [f for f in forms if f.cta_group == cta]
            verdict = judge_lines([f.key() for f in group], target, arch, ptxas)
            for i, form in enumerate(group):
                if verdict[i] is None:
                    accepted[form.key()].add(target)
    return accepted


def write_cache(path: Path, forms: list[MoveForm], accepted: dict[str, set[str]],
                version: str) -> None:
    lines = [f"# ptxas verdicts on tcgen05 ld/st/cp/shift forms; ptxas {version}; regenerate "
             "with `python -m mmair.tools.ptxas_moves`",
             f"# forms: {len(forms)} (digest {forms_digest(forms)}); listed: the forms some "
             "target accepts, with those targets",
             "# targets: " + " ".join(TARGETS)]
    for form in forms:
        ok = [t for t in TARGETS if t in accepted[form.key()]]
        if ok:
            lines.append(f"{form.key()}\t{','.join(ok)}")
    path.write_text("\n".join(lines) + "\n")


def read_cache(path: Path = CACHE) -> tuple[int, str, list[str], dict[str, set[str]]]:
    """(form count, digest, targets, form key -> accepting targets)."""
    count, digest, targets, accepted = 0, "", [], {}
    for line in path.read_text().splitlines():
        if line.startswith("# forms:"):
            count = int(line.split()[2])
            digest = line.split("digest ", 1)[1].split(")")[0]
        elif line.startswith("# targets:"):
            targets = line.split(":", 1)[1].split()
        elif line and not line.startswith("#"):
            key, ok = line.split("\t")
            accepted[key] = set(ok.split(","))
    return count, digest, targets, accepted


def disagreements(accepted: dict[str, set[str]], forms: list[MoveForm]) -> list[str]:
    """Forms and targets where mmair's verdict is not ptxas's."""
    out = []
    for form in forms:
        for target in TARGETS:
            legal = mmair_error(form, target) is None
            if legal != (target in accepted.get(form.key(), ())):
                out.append(f"{target}: {form.key()}: mmair {'accepts' if legal else 'rejects'}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mmair.tools.ptxas_moves",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--compare", action="store_true", help="compare with the cache only")
    args = parser.parse_args(argv)
    forms = move_forms()
    if not args.compare:
        ptxas = find_ptxas()
        if ptxas is None:
            print("error: ptxas not found (pip install nvidia-cuda-nvcc)", file=sys.stderr)
            return 1
        write_cache(CACHE, forms, ptxas_verdicts(forms, ptxas), ptxas_version(ptxas))
    _, _, _, accepted = read_cache()
    wrong = disagreements(accepted, forms)
    print(f"{len(forms) * len(TARGETS) - len(wrong)} / {len(forms) * len(TARGETS)} "
          "(form, target) verdicts agree")
    for line in wrong:
        print(line)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
