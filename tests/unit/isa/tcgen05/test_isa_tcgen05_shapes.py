"""tcgen05.mma shapes (PTX Table 39) and the ld/st register counts (isa/tcgen05/tmem_moves.py)."""

from __future__ import annotations

import pytest

from mmair.isa.tcgen05 import tmem_moves
from mmair.isa.tcgen05.errors import DescriptorError
from mmair.isa.tcgen05.shapes import mma_k, transposed_8bit_b_n, valid_m, valid_n


def test_dense_m() -> None:
    for kind in ("tf32", "f16", "f8f6f4", "i8"):
        assert valid_m(kind, 1, False, False) == (64, 128)
        assert valid_m(kind, 2, False, True) == (128, 256)
        assert valid_m(kind, 1, True, True) == (32, 64, 128)
        assert valid_m(kind, 2, True, False) == ()  # .ws has no cta_group::2


def test_block_scaled_m() -> None:
    for kind in ("mxf8f6f4", "mxf4", "mxf4nvf4"):
        assert valid_m(kind, 1, False, False) == (128,)
        assert valid_m(kind, 2, False, False) == (128, 256)
        assert valid_m(kind, 2, False, True) == (256,)
        assert valid_m(kind, 1, True, False) == ()


def test_n_tables() -> None:
    assert valid_n("f16", 1, False, False) == tuple(range(8, 257, 8))
    assert valid_n("mxf4", 2, False, False) == tuple(range(16, 257, 16))
    assert valid_n("tf32", 1, True, False) == (64, 128, 256)
    assert valid_n("tf32", 1, True, True) == (64, 128)
    # PTX i8 row (CUTLASS would reject N = 24; mmair follows PTX, §5).
    assert valid_n("i8", 1, False, False) == (8, 16, 24, 32, *range(48, 257, 16))
    assert 40 not in valid_n("i8", 1, False, False)
    assert valid_n("i8", 2, False, False) == tuple(range(32, 257, 32))
    assert transposed_8bit_b_n(1) == tuple(range(16, 257, 16))
    assert transposed_8bit_b_n(2) == tuple(range(32, 257, 32))


@pytest.mark.parametrize(
    ("kind", "sparse", "k96", "k"),
    [("tf32", False, False, 8), ("tf32", True, False, 16), ("f16", False, False, 16),
     ("f16", True, False, 32), ("f8f6f4", False, False, 32), ("i8", True, False, 64),
     ("mxf8f6f4", False, False, 32), ("mxf4", False, False, 64), ("mxf4", True, False, 128),
     ("mxf4nvf4", False, True, 96)],
)
def test_mma_k(kind: str, sparse: bool, k96: bool, k: int) -> None:
    assert mma_k(kind, sparse, k96) == k


@pytest.mark.parametrize(("kind", "sparse"), [("f16", False), ("mxf4", True)])
def test_k96_only_dense_mxf4(kind: str, sparse: bool) -> None:
    with pytest.raises(DescriptorError, match=r"\[R16\]$") as err:
        mma_k(kind, sparse, True)
    assert err.value.rule == "R16"


@pytest.mark.parametrize(
    ("kind", "cta_group", "message"),
    [("f32", 1, "kind = f32 is not a tcgen05.mma kind"),
     ("f16", 3, "cta_group = 3 is not a CTA group size; legal: 1, 2")],
)
def test_bad_arguments(kind: str, cta_group: int, message: str) -> None:
    with pytest.raises(DescriptorError, match=message):
        valid_m(kind, cta_group, False, False)


def test_valid_n_checks_its_kind_and_cta_group_and_names_an_empty_set() -> None:
    from mmair.isa.tcgen05.shapes import n_legal_text

    with pytest.raises(DescriptorError, match=r"^kind = f32 is not a tcgen05\.mma kind; legal: "):
        valid_n("f32", 1, False, False)
    with pytest.raises(DescriptorError, match=r"^cta_group = 3 is not a CTA group size; legal: 1, 2$"):
        valid_n("f16", 3, False, False)
    assert valid_n("mxf4", 1, True, False) == ()  # no .ws form of a block-scaled kind
    assert n_legal_text(()) == "none (this MMA form does not exist)"
    # PTX Table 41: dense f16 N is 8..256 step 8 with cta_group::1, step 16 with cta_group::2
    assert n_legal_text(valid_n("f16", 1, False, False)) == "8..256 step 8"
    assert n_legal_text(valid_n("f16", 2, False, False)) == "16..256 step 16"


def test_mma_k_checks_its_kind() -> None:
    with pytest.raises(DescriptorError, match=r"^kind = f32 is not a tcgen05\.mma kind; legal: "):
        mma_k("f32", False)


def test_ld_st_may_use_all_128_registers_of_a_thread():
    # R33: at most 128 32-bit registers per thread; .16x256b holds 4 per repetition, .32x32b 1.
    assert tmem_moves.ld_st_registers("16x256b", 32) == 128
    assert tmem_moves.ld_st_registers("32x32b", 128) == 128
