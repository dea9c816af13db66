"""Assemble every `tcgen05.mma` instruction form with ptxas and cache the verdicts.

    python -m mmair.tools.ptxas_forms            # refresh tests/ptxas/mma_forms.tsv (~1 min)
    python -m mmair.tools.ptxas_forms --compare  # mmair's verdict vs the cached one, per target

The form space is `mmair.isa.tcgen05.forms.all_mma_forms()`. For each tcgen05 target ptxas knows
(`PTXAS_TARGETS`), the forms of one cta_group are assembled together in one kernel per batch (ptxas
rejects mixing cta_groups in a kernel), so each batch costs one or two ptxas calls.
The cache file lists the forms that some target accepts, with those targets (about 1000 of the
~50000 forms); the header holds the size and a digest of the form space.

The old names sm_101a/sm_101f (CUDA 12.8/12.9) were renamed sm_110a/sm_110f in CUDA 13: ptxas 13
has no `-arch=sm_101a`, but still assembles a module written for `.target sm_101a` when asked for
sm_110a. They are judged that way.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from mmair.isa.tcgen05.forms import MmaForm, all_mma_forms
from mmair.isa.tcgen05.rules import PTXAS_DIFFERENCES, mma_form_errors, mma_form_legal
from mmair.tools.ptxas import find_ptxas, judge_lines, ptxas_version

#: target -> (the `.target` spelling, the `-arch` value).
PTXAS_TARGETS: dict[str, tuple[str, str]] = {
    "sm_100a": ("sm_100a", "sm_100a"),
    "sm_100f": ("sm_100f", "sm_100f"),
    "sm_103a": ("sm_103a", "sm_103a"),
    "sm_103f": ("sm_103f", "sm_103f"),
    "sm_107a": ("sm_107a", "sm_107a"),
    "sm_107f": ("sm_107f", "sm_107f"),
    "sm_110a": ("sm_110a", "sm_110a"),
    "sm_110f": ("sm_110f", "sm_110f"),
    "sm_101a": ("sm_101a", "sm_110a"),
    "sm_101f": ("sm_101f", "sm_110f"),
}
CACHE = Path(__file__).resolve().parent.parent / "tests" / "ptxas" / "mma_forms.tsv"
BATCH = 6000


def ptxas_verdicts(
    forms: list[MmaForm], targets: Iterable[str], ptxas: str
) -> dict[str, dict[str, str | None]]:
    """form key -> target -> None (accepted) or ptxas's first error."""
    out: dict[str, dict[str, str | None]] = {f.key(): {} for f in forms}
    for target in targets:
        spelled, arch = PTXAS_TARGETS[target]
        for cta in (1, 2):
            group = [f for f in forms if f.cta_group == cta]
            for start in range(0, len(group), BATCH):
                batch = group[start:start + BATCH]
                verdict = judge_lines([f.key() for f in batch], spelled, arch, ptxas)
                for i, form in enumerate(batch):
                    out[form.key()][target] = verdict[i]
    return out


def forms_digest(forms: Iterable[MmaForm]) -> str:
    """sha256 of the form keys in enumeration order: ties a cache file to the form space."""
    return hashlib.sha256("\n".join(f.key() for f in forms).encode()).hexdigest()[:16]


def write_cache(
    path: Path, forms: list[MmaForm], verdicts: dict[str, dict[str, str | None]], version: str
) -> None:
    """Write the forms that some target accepts; every other form of the space is rejected."""
    targets = list(PTXAS_TARGETS)
    lines = [
        f"# ptxas verdicts on tcgen05.mma forms; ptxas {version}; regenerate with "
        "`python -m mmair.tools.ptxas_forms`",
        f"# forms: {len(forms)} (digest {forms_digest(forms)}); listed: the forms some target "
        "accepts, with those targets; every other form is rejected by ptxas on every target",
        "# targets: " + " ".join(targets),
    ]
    for form in forms:
        per_target = verdicts[form.key()]
        accepted = [t for t in targets if per_target.get(t, "?") is None]
        if accepted:
            lines.append(f"{form.key()}\t{','.join(accepted)}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


@dataclass
class Cache:
    targets: list[str]
    count: int
    digest: str
    #: form key -> the targets on which ptxas accepts it (absent: accepted nowhere)
    accepted: dict[str, set[str]]


def read_cache(path: Path = CACHE) -> Cache:
    targets: list[str] = []
    count, digest = 0, ""
    accepted: dict[str, set[str]] = {}
    for line in path.read_text().splitlines():
        if line.startswith("# targets:"):
            targets = line.split(":", 1)[1].split()
        elif line.startswith("# forms:"):
            count = int(line.split()[2])
            digest = line.split("digest ", 1)[1].split(")")[0]
        if not line or line.startswith("#"):
            continue
        key, ok = line.split("\t")
        accepted[key] = set(ok.split(","))
    return Cache(targets, count, digest, accepted)


@dataclass
class Agreement:
    target: str
    agree: int
    total: int
    #: forms where mmair follows the ISA against ptxas (rules.PTXAS_DIFFERENCES)
    known: list[tuple[str, str]]
    #: other disagreements: (form key, "mmair accepts" | "mmair rejects: <error>")
    wrong: list[tuple[str, str]]


def compare(cache: Cache, forms: list[MmaForm] | None = None) -> list[Agreement]:
    """mmair's verdict (rules.mma_form_errors) against ptxas's cached verdict, per target."""
    forms = list(all_mma_forms()) if forms is None else forms
    keys = [form.key() for form in forms]
    out = []
    for target in cache.targets:
        agreement = Agreement(target, 0, 0, [], [])
        for form, key in zip(forms, keys, strict=True):
            ptxas_ok = target in cache.accepted.get(key, ())
            agreement.total += 1
            if mma_form_legal(form, target) == ptxas_ok:
                agreement.agree += 1
                continue
            errors = mma_form_errors(form, target)
            known = [d for d, pred, verdict in PTXAS_DIFFERENCES
                     if verdict == ptxas_ok and pred(form, target)]
            if known:
                agreement.known.append((key, known[0]))
            else:
                agreement.wrong.append((key, f"mmair rejects: {errors[0]}" if errors
                                        else "mmair accepts"))
        out.append(agreement)
    return out


def agreement_table(cache_path: Path = CACHE) -> str:
    cache = read_cache(cache_path)
    lines = ["target   agree/total   ISA-over-ptxas  other"]
    for a in compare(cache):
        lines.append(f"{a.target:8} {a.agree:6}/{a.total:<6} {len(a.known):8}  {len(a.wrong):8}")
        lines += [f"    {key}  ({why})" for key, why in a.wrong[:10]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mmair.tools.ptxas_forms",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--compare", action="store_true",
                        help="only compare mmair with the cached verdicts")
    parser.add_argument("--cache", type=Path, default=CACHE)
    parser.add_argument("--targets", nargs="*", default=list(PTXAS_TARGETS),
                        choices=list(PTXAS_TARGETS))
    args = parser.parse_args(argv)
    if not args.compare:
        ptxas = find_ptxas()
        if ptxas is None:
            print("error: ptxas not found (pip install nvidia-cuda-nvcc)", file=sys.stderr)
            return 1
        forms = list(all_mma_forms())
        verdicts = ptxas_verdicts(forms, args.targets, ptxas)
        write_cache(args.cache, forms, verdicts, ptxas_version(ptxas))
        print(f"wrote {args.cache} ({len(forms)} forms x {len(args.targets)} targets)")
    print(agreement_table(args.cache))
    return 0


if __name__ == "__main__":
    sys.exit(main())
