"""Ascend cube unit and vector GatherMask: targets, buffers, type tables, fractal layouts.

Modules (pure Python + numpy, no xDSL):
* `targets`: target table (`get_target`), memory spaces, capacities, alignments, element types,
  Mmad / ND2NZ / LoadData / Fixpipe / GatherMask ranges and type tables, Fixpipe quant modes.
* `layouts`: nd/dn/nz/zz/zn/nn index maps, physical shapes, pack/unpack, `blocked_view`.
* `quant`: the Fixpipe QUANT_PRE word (encode/decode, hardware scale rounding).
* `gather`: GatherMask patterns, repeat plans and src0 addressing.
"""
