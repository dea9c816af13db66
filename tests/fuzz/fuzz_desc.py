"""Random descriptor words through the tcgen05 decoders and validators (`mmair.isa.tcgen05`).

    python tests/fuzz/fuzz_desc.py --words 1000000 --seed 1

Each random 32-bit word is decoded as an instruction descriptor under one kind (cycling through
`KINDS`), validated with `rules.check_idesc` in an unknown context and in one random concrete
context, and offered to `kinds_for_idesc`; each random 64-bit word is decoded as a shared-memory
descriptor (validated with `check_smem_desc` for a random kind / major-ness / target) and as a
zero-column mask (validated with `check_zcmask` and expanded with `zcmask_columns` for a random
M x N). Half of the words are uniform; the other half are valid encodings with one to three
flipped bits, so that the decoders are also exercised past their reserved-bit checks.

A word that decodes must re-encode to itself and survive the attribute-text round trip
(`format_descriptor` -> `parse_descriptor_text`). Every fourth word also goes through the report
of `mmair-desc decode` (`idesc_report`, `smem_report`, `zcmask_report` in the same context),
which must list an error exactly when the decoder or the rule check refused the word. The only exception allowed anywhere is the
documented `DescriptorError`; anything else is a failure, reported with the word and traceback.
`fuzz_words` is the entry point of the pytest run (`tests/unit/isa/tcgen05/test_desc_random_words.py`).
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from mmair.isa.tcgen05 import (
    KINDS,
    DescriptorError,
    decode_idesc,
    decode_smem_desc,
    decode_zcmask,
    encode_idesc,
    encode_smem_desc,
    encode_zcmask,
    kinds_for_idesc,
    zcmask_columns,
)
from mmair.isa.tcgen05.diagnose import idesc_report, smem_report, zcmask_report
from mmair.isa.tcgen05.rules import TCGEN05_TARGETS, check_idesc, check_smem_desc, check_zcmask
from mmair.isa.tcgen05.text import format_descriptor, parse_descriptor_text

# Valid words to flip bits of (from tests/filecheck/tools/desc.mlir and the tcgen05 reference).
IDESC_SEEDS: tuple[int, ...] = (0x08400010, 0x10200480, 0x084020A8, 0x08200490, 0x04100010)
SMEM_SEEDS: tuple[int, ...] = (0x4000404000010040, 0xC000402000100100, 0x0000404000010000)
ZCMASK_SEEDS: tuple[int, ...] = (0x0203028301020100, 0x0000000000000000, 0x0102030000000000)


@dataclass
class DescFuzzResult:
    words: int = 0
    outcomes: Counter = field(default_factory=Counter)
    """(decoder, "ok" | "DescriptorError") -> count."""
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0


def _words(rng: np.random.Generator, count: int, bits: int, seeds: tuple[int, ...]) -> list[int]:
    """`count` words: half uniform, half seed words with 1-3 random bits flipped."""
    half = count // 2
    if bits == 32:
        uniform = rng.integers(0, 1 << 32, size=half, dtype=np.uint64)
    else:
        uniform = rng.integers(0, np.iinfo(np.uint64).max, size=half, dtype=np.uint64, endpoint=True)
    base = np.array(seeds, dtype=np.uint64)[rng.integers(0, len(seeds), size=count - half)]
    flips = np.zeros(count - half, dtype=np.uint64)
    for _ in range(3):
        bit = rng.integers(0, bits, size=count - half).astype(np.uint64)
        use = rng.random(count - half) < 0.6
        flips ^= np.where(use, np.uint64(1) << bit, np.uint64(0))
    flips[flips == 0] = 1
    return [int(w) for w in np.concatenate([uniform, base ^ flips])]


def _attempt(result: DescFuzzResult, name: str, word: int, fn: Callable[[], object]) -> object:
    """Run `fn`; count ok / DescriptorError; record anything else as a failure."""
    try:
        value = fn()
    except DescriptorError as err:
        if not str(err) or "\n" in str(err):
            result.failures.append(f"{name} {word:#x}: DescriptorError text is not one line: {err!r}")
        result.outcomes[(name, "DescriptorError")] += 1
        return None
    except Exception:  # noqa: BLE001 - anything else is the finding
        result.failures.append(f"{name} {word:#x}:\n{traceback.format_exc()}")
        return None
    result.outcomes[(name, "ok")] += 1
    return value


def _check_round_trip(result: DescFuzzResult, name: str, word: int, d: object,
                      encode: Callable[[object], int]) -> None:
    def round_trip() -> None:
        again = encode(d)
        if again != word:
            raise AssertionError(f"re-encodes to {again:#x}")
        text = format_descriptor(d)  # type: ignore[arg-type]
        if parse_descriptor_text(text) != d:
            raise AssertionError(f"text {text!r} parses to another descriptor")

    try:
        round_trip()
    except Exception:  # noqa: BLE001
        result.failures.append(f"{name} round trip {word:#x}:\n{traceback.format_exc()}")


REPORT_EVERY = 4
"""Every REPORT_EVERY-th word also goes through the `mmair-desc decode` report."""


def _check_report(result: DescFuzzResult, name: str, word: int, report: Callable[[], object],
                  refused: bool) -> None:
    """`mmair-desc decode`'s report of a word (`isa/tcgen05/diagnose.py`, every field and every
    error) must not raise, and must list an error exactly when the decoder or the rule check in
    the same context refused the word (`refused`): a word reported clean that the verifier
    refuses, or the other way round, is a failure."""
    out = _attempt(result, name, word, report)
    if out is None:
        return
    errors = out[1]  # type: ignore[index]
    if bool(errors) != refused:
        result.failures.append(
            f"{name} {word:#x}: the report lists {len(errors)} error(s) "
            f"({'; '.join(map(str, errors))}) but the decoder and rules "
            f"{'refuse' if refused else 'accept'} the word")


def _refuses(fn: Callable[[], object]) -> bool:
    try:
        fn()
    except DescriptorError:
        return True
    return False


def fuzz_words(count: int, seed: int = 1, max_failures: int = 20) -> DescFuzzResult:
    """`count` 32-bit and `count` 64-bit random words through the decoders (see module doc)."""
    rng = np.random.default_rng(seed)
    pick = np.random.default_rng(seed + 1)
    result = DescFuzzResult()
    start = time.perf_counter()
    kinds = list(KINDS)
    targets = [None, *TCGEN05_TARGETS]
    for i, word in enumerate(_words(rng, count, 32, IDESC_SEEDS)):
        kind = kinds[i % len(kinds)]
        d = _attempt(result, "decode_idesc", word, lambda w=word, k=kind: decode_idesc(w, k))
        if d is not None:
            _check_round_trip(result, "idesc", word, d, encode_idesc)  # type: ignore[arg-type]
            _attempt(result, "check_idesc(any context)", word,
                     lambda d=d: check_idesc(d, cta_group=None, ws=None, target=None))
            cta, ws, target = (int(pick.integers(1, 3)), bool(pick.integers(0, 2)),
                               targets[int(pick.integers(0, len(targets)))])
            _attempt(result, "check_idesc(context)", word,
                     lambda d=d, c=cta, w=ws, t=target: check_idesc(d, cta_group=c, ws=w, target=t))
        if i % REPORT_EVERY == 0:
            cta, ws, target = (int(pick.integers(1, 3)), bool(pick.integers(0, 2)),
                               targets[int(pick.integers(0, len(targets)))])
            refused = d is None or _refuses(
                lambda d=d, c=cta, w=ws, t=target: check_idesc(d, cta_group=c, ws=w, target=t))
            _check_report(result, "idesc_report", word,
                          lambda w=word, k=kind, c=cta, s=ws, t=target: idesc_report(
                              w, k, cta_group=c, ws=s, target=t), refused)
        if i % 16 == 0:
            _attempt(result, "kinds_for_idesc", word, lambda w=word: kinds_for_idesc(w))
        if len(result.failures) >= max_failures:
            break
    majors = [None, "k", "mn"]
    for i, word in enumerate(_words(rng, count, 64, SMEM_SEEDS + ZCMASK_SEEDS)):
        s = _attempt(result, "decode_smem_desc", word, lambda w=word: decode_smem_desc(w))
        if s is not None:
            _check_round_trip(result, "smem_desc", word, s, encode_smem_desc)  # type: ignore[arg-type]
            kind = [None, *kinds][int(pick.integers(0, len(kinds) + 1))]
            major = majors[int(pick.integers(0, 3))]
            target = targets[int(pick.integers(0, len(targets)))]
            _attempt(result, "check_smem_desc", word,
                     lambda s=s, k=kind, m=major, t=target, known=(s.start if word & 1 else None): check_smem_desc(
                         s, kind=k, major=m, pattern_start=known, target=t))
        if i % REPORT_EVERY == 0:
            kind = [None, *kinds][int(pick.integers(0, len(kinds) + 1))]
            major = majors[int(pick.integers(0, 3))]
            target = targets[int(pick.integers(0, len(targets)))]
            known = s.start if s is not None and word & 1 else None
            refused = s is None or _refuses(
                lambda s=s, k=kind, m=major, p=known, t=target: check_smem_desc(
                    s, kind=k, major=m, pattern_start=p, target=t))
            _check_report(result, "smem_report", word,
                          lambda w=word, k=kind, m=major, p=known, t=target: smem_report(
                              w, kind=k, major=m, pattern_start=p, target=t), refused)
        z = _attempt(result, "decode_zcmask", word, lambda w=word: decode_zcmask(w))
        if z is not None:
            _check_round_trip(result, "zcmask", word, z, encode_zcmask)  # type: ignore[arg-type]
            m = [None, 32, 64, 128, 256][int(pick.integers(0, 5))]
            _attempt(result, "check_zcmask", word, lambda z=z, m=m: check_zcmask(z, m=m))
            if i % REPORT_EVERY == 0:
                _check_report(result, "zcmask_report", word,
                              lambda w=word, m=m: zcmask_report(w, m=m),
                              _refuses(lambda z=z, m=m: check_zcmask(z, m=m)))
            n = int(pick.integers(0, 34)) * 8
            _attempt(result, "zcmask_columns", word,
                     lambda z=z, m=m, n=n: zcmask_columns(z, m if m is not None else 128, n))
        if len(result.failures) >= max_failures:
            break
    result.words = 2 * count
    result.seconds = time.perf_counter() - start
    return result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Random descriptor words through the tcgen05 decoders.")
    p.add_argument("--words", type=int, default=1_000_000, help="32-bit words, and as many 64-bit")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    result = fuzz_words(args.words, args.seed)
    print(f"{args.words} 32-bit and {args.words} 64-bit words in {result.seconds:.0f} s")
    for (name, outcome), n in sorted(result.outcomes.items()):
        print(f"  {name:28} {outcome:16} {n}")
    print(f"failures (exceptions other than DescriptorError, broken round trips): {len(result.failures)}")
    for failure in result.failures:
        print(failure)
    return 1 if result.failures else 0


if __name__ == "__main__":
    sys.exit(main())
