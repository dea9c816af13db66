"""pypto's SPMD block arguments: the names pypto gives the launch's block index and count.

Kernels pypto exports through PTOAS take `%__pypto_spmd_block_idx` and `%__pypto_spmd_block_num`
as trailing scalar arguments instead of calling `pto.get_block_idx` / `pto.get_block_num`
(passes/ptoas_spmd.py reads them as those queries; docs/ptoas.md "pypto's SPMD block
arguments"). The names live here, below both the conversion and the executor that gives a run
no values for them."""

SPMD_BLOCK_INDEX = "__pypto_spmd_block_idx"
SPMD_BLOCK_COUNT = "__pypto_spmd_block_num"


def is_spmd_block_argument(name: str) -> bool:
    return name in (SPMD_BLOCK_INDEX, SPMD_BLOCK_COUNT)
