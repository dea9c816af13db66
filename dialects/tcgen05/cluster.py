"""Cluster ops: `cluster_rank`, `cluster_sync`."""

from __future__ import annotations

from xdsl.dialects.builtin import (
    i32,
)
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    result_def,
)


@irdl_op_definition
class ClusterRankOp(IRDLOperation):
    """`%r = tcgen05.cluster_rank : i32`: the CTA's rank in its cluster (PTX `%cluster_ctarank`).
    A `cta_group::2` kernel runs on a CTA pair: ranks 0 and 1 (the peer of rank r is r ^ 1)."""

    name = "tcgen05.cluster_rank"
    rank = result_def(i32)
    assembly_format = "attr-dict `:` type($rank)"


@irdl_op_definition
class ClusterSyncOp(IRDLOperation):
    """`tcgen05.cluster_sync`: every thread of every CTA of the cluster arrives and waits (PTX
    `barrier.cluster.arrive` + `barrier.cluster.wait`, release / acquire). A CTA pair uses it so
    that the peer's shared memory is filled before the leader issues a `cta_group::2` MMA."""

    name = "tcgen05.cluster_sync"
    assembly_format = "attr-dict"
