"""mmair's rules for tcgen05 ld/st/cp/shift forms against ptxas 13.5's verdicts
(tests/ptxas/move_forms.tsv, refreshed by `python -m mmair.tools.ptxas_moves`). When ptxas is
installed, the sm_100a verdicts are re-assembled to check that the cache is what it says."""

from __future__ import annotations

import pytest

from mmair.tools import ptxas_moves
from mmair.tools.ptxas import find_ptxas, judge_lines

FORMS = ptxas_moves.move_forms()


def test_cache_covers_the_form_space() -> None:
    count, digest, targets, accepted = ptxas_moves.read_cache()
    assert count == len(FORMS) == 442
    assert digest == ptxas_moves.forms_digest(FORMS)
    assert targets == list(ptxas_moves.TARGETS)
    assert set(accepted) <= {f.key() for f in FORMS}


def test_mmair_agrees_with_ptxas_on_every_move_form_and_target() -> None:
    _, _, _, accepted = ptxas_moves.read_cache()
    assert ptxas_moves.disagreements(accepted, FORMS) == []
    # The space has both verdicts for every op (the comparison is not vacuous).
    for op in ("ld", "st", "cp"):
        verdicts = {ptxas_moves.mmair_error(f, "sm_100a") is None for f in FORMS if f.op == op}
        assert verdicts == {True, False}, op
    shift = next(f for f in FORMS if f.op == "shift")
    assert ptxas_moves.mmair_error(shift, "sm_100a") is None
    assert "does not support tcgen05.shift" in str(ptxas_moves.mmair_error(shift, "sm_100f"))


def test_the_cache_is_what_this_ptxas_says_on_sm_100a() -> None:
    ptxas = find_ptxas()
    if ptxas is None:
        pytest.skip("ptxas binary not installed (pip install nvidia-cuda-nvcc)")
    _, _, _, accepted = ptxas_moves.read_cache()
    for cta in (1, 2):
        group = [f for f in FORMS if f.cta_group == cta]
        verdict = judge_lines([f.key() for f in group], "sm_100a", "sm_100a", ptxas)
        for i, form in enumerate(group):
            assert (verdict[i] is None) == ("sm_100a" in accepted.get(form.key(), ())), form.key()
