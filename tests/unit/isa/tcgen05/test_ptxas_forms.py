"""mmair's tcgen05.mma form rules against ptxas 13.5's verdicts (tests/ptxas/mma_forms.tsv).

The cache holds what ptxas accepted on each target for every form of `all_mma_forms()`; it is
refreshed by `python -m mmair.tools.ptxas_forms` (or here with MMAIR_REFRESH_PTXAS=1). When ptxas is
installed (the `nvidia-cuda-nvcc` wheel of the test extra), a slice of the forms is re-assembled to
check that the cache is what this ptxas says.
"""

from __future__ import annotations

import os

import pytest

from mmair.isa.tcgen05.forms import MmaForm, all_mma_forms, mma_ptx
from mmair.isa.tcgen05.rules import PTXAS_DIFFERENCES, mma_form_errors, mma_form_legal
from mmair.isa.tcgen05.targets import TCGEN05_TARGETS
from mmair.tools import ptxas_forms
from mmair.tools.ptxas import find_ptxas, judge_lines

FORMS = list(all_mma_forms())


@pytest.fixture(scope="module")
def cache() -> ptxas_forms.Cache:
    ptxas = find_ptxas()
    if os.environ.get("MMAIR_REFRESH_PTXAS") == "1" and ptxas is not None:
        verdicts = ptxas_forms.ptxas_verdicts(FORMS, list(ptxas_forms.PTXAS_TARGETS), ptxas)
        ptxas_forms.write_cache(ptxas_forms.CACHE, FORMS, verdicts, "refreshed by the test")
    return ptxas_forms.read_cache()


def test_cache_covers_the_form_space(cache: ptxas_forms.Cache) -> None:
    assert cache.count == len(FORMS)
    assert cache.digest == ptxas_forms.forms_digest(FORMS)
    assert cache.targets == list(ptxas_forms.PTXAS_TARGETS)
    assert set(cache.targets) == set(TCGEN05_TARGETS)
    keys = {f.key() for f in FORMS}
    assert len(keys) == len(FORMS)  # one PTX text per form
    assert set(cache.accepted) <= keys


def test_mmair_agrees_with_ptxas_on_every_form_and_target(cache: ptxas_forms.Cache) -> None:
    results = ptxas_forms.compare(cache, FORMS)
    for agreement in results:
        assert agreement.wrong == [], agreement.target
        assert agreement.agree + len(agreement.known) == agreement.total == len(FORMS)
    # The documented differences are real ones (each is seen), and only on the i8 targets.
    known = {a.target: len(a.known) for a in results}
    assert known == {t: (36 if t in ("sm_100a", "sm_110a", "sm_101a") else 0) for t in known}
    for agreement in results:
        for key, why in agreement.known:
            assert why == PTXAS_DIFFERENCES[0][0]
            assert "kind::i8" in key


def test_the_cache_is_what_this_ptxas_says(cache: ptxas_forms.Cache) -> None:
    ptxas = find_ptxas()
    if ptxas is None:
        pytest.skip("ptxas binary not installed (pip install nvidia-cuda-nvcc)")
    # Every form sm_100a accepts plus every 97th form, re-assembled for sm_100a and sm_103f.
    sample = [f for i, f in enumerate(FORMS)
              if i % 97 == 0 or "sm_100a" in cache.accepted.get(f.key(), ())]
    for target in ("sm_100a", "sm_103f"):
        spelled, arch = ptxas_forms.PTXAS_TARGETS[target]
        for cta in (1, 2):
            forms = [f for f in sample if f.cta_group == cta]
            verdict = judge_lines([f.key() for f in forms], spelled, arch, ptxas)
            for i, form in enumerate(forms):
                expected = target in cache.accepted.get(form.key(), ())
                assert (verdict[i] is None) == expected, (target, form.key(), verdict[i])


# Rules found by assembling forms (each was missing before; the message names the rule).
@pytest.mark.parametrize(
    "form, target, message",
    [
        (MmaForm(kind="mxf8f6f4", block_scale="block32", disable_output_lane=4), "sm_100a",
         "disable_output_lane = 4 is not legal with .block_scale"),
        (MmaForm(kind="mxf8f6f4", block_scale="block32", ashift=True, a_tmem=True), "sm_100a",
         "ashift = true is not legal with .block_scale"),
        (MmaForm(kind="f16", ws=True, ashift=True, a_tmem=True), "sm_100a",
         "ashift = true is not legal with .ws"),
        (MmaForm(kind="i8"), "sm_103a", "kind = i8 is not supported on sm_103a"),
        (MmaForm(kind="i8"), "sm_107a", "kind = i8 is not supported on sm_107a"),
        (MmaForm(kind="mxf4", sparse=True, block_scale="block32"), "sm_100f",
         "sparse = true is not supported on sm_100f"),
        (MmaForm(kind="mxf4nvf4", block_scale="scale_vec::4X"), "sm_103f",
         "scale_vec = scale_vec::4X is not supported on sm_103f"),
        (MmaForm(kind="f16", scale_input_d=3), "sm_110a",
         "scale_input_d = 3 is not supported on sm_110a"),
        (MmaForm(kind="f16", zero_column_mask=True), "sm_100a",
         "zero-column mask = present is not legal without .ws"),
    ],
)
def test_rules_found_with_ptxas(form: MmaForm, target: str, message: str) -> None:
    errors = [str(e) for e in mma_form_errors(form, target)]
    assert any(message in e for e in errors), errors


def test_old_target_names_are_aliases() -> None:
    i8 = MmaForm(kind="i8")
    assert mma_form_legal(i8, "sm_101a") and mma_form_legal(i8, "sm_110a")
    assert not mma_form_legal(i8, "sm_101f")
    assert mma_ptx(i8) == "tcgen05.mma.cta_group::1.kind::i8 [%r1], %rd1, %rd2, %r2, %p1"


def test_every_error_is_reported() -> None:
    form = MmaForm(cta_group=2, kind="mxf4", ws=True, ashift=True, disable_output_lane=4)
    fields = [(e.field, e.rule) for e in mma_form_errors(form, "sm_100f")]
    assert fields == [("cta_group", "R29"), ("kind", "R29"), ("ashift", "R28"),
                      ("disable_output_lane", "R26"), ("block_scale", "R30")]
