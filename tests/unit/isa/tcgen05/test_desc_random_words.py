"""Random 32-bit and 64-bit words through the tcgen05 descriptor decoders and validators: only the
documented `DescriptorError` may be raised, and every word that decodes re-encodes to itself and
survives the attribute-text round trip; `mmair-desc decode`'s reports agree with them. 20 000
words of each width here; the full million is
`python tests/fuzz/fuzz_desc.py --words 1000000`."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from mmair.isa.tcgen05 import DescriptorError, decode_idesc, decode_smem_desc, decode_zcmask


def _load_fuzz_desc():
    name = "mmair_fuzz_desc"
    if name not in sys.modules:
        path = Path(__file__).resolve().parents[3] / "fuzz" / "fuzz_desc.py"
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


fuzz_desc = _load_fuzz_desc()


def test_random_words():
    result = fuzz_desc.fuzz_words(20_000, seed=11)
    assert result.failures == []
    assert result.words == 40_000
    # Both outcomes occur for every decoder (the bit-flipped valid words get past the
    # reserved-bit checks), so the validators behind them ran too.
    for decoder in ("decode_idesc", "decode_smem_desc", "decode_zcmask"):
        assert result.outcomes[(decoder, "ok")] > 500
        assert result.outcomes[(decoder, "DescriptorError")] > 500
    for checker in ("check_idesc(any context)", "check_idesc(context)", "check_smem_desc",
                    "check_zcmask", "zcmask_columns", "kinds_for_idesc"):
        assert result.outcomes[(checker, "ok")] > 0
    # mmair-desc decode's reports ran on every 4th word, each listing an error exactly when the
    # decoder or the rules refused the word (else a failure above).
    for report in ("idesc_report", "smem_report", "zcmask_report"):
        assert result.outcomes[(report, "ok")] > 500


def test_a_report_that_disagrees_with_the_verifier_is_a_failure():
    result = fuzz_desc.DescFuzzResult()
    fuzz_desc._check_report(result, "idesc_report", 0x10, lambda: ({}, []), refused=True)
    fuzz_desc._check_report(result, "idesc_report", 0x10, lambda: ({}, ["R1"]), refused=False)
    fuzz_desc._check_report(result, "idesc_report", 0x10, lambda: ({}, ["R1"]), refused=True)
    assert [f.split(":")[1].strip() for f in result.failures] == [
        "the report lists 0 error(s) () but the decoder and rules refuse the word",
        "the report lists 1 error(s) (R1) but the decoder and rules accept the word"]


@pytest.mark.parametrize("word", [-1, 1 << 64, 2**200, 1.5, "0x10", None, True])
def test_non_words_are_descriptor_errors(word):
    for decode in (lambda w: decode_idesc(w, "f16"), decode_smem_desc, decode_zcmask):
        with pytest.raises(DescriptorError, match=r"is not a (32|64)-bit word; legal: 0x0\.\."):
            decode(word)


def test_unknown_kind_is_a_descriptor_error():
    with pytest.raises(DescriptorError, match="kind = f17 is not a tcgen05.mma kind"):
        decode_idesc(0x08400010, "f17")
