"""What the mutation harness mutates and which tests judge each mutant (docs/mutation.md).

An area is a list of source globs (repository-relative), the operators applied to them, and the
test subset that must kill their mutants: pytest files/node ids (tests/unit) and lit files or
folders (tests/filecheck). Globs that match nothing are skipped, so an area can name modules that
are still being written (the concurrency engine's checkers) and picks them up when they land.
Add a module here when it lands, and its tests to the subset: each mutant runs only the tests of
the subset that execute its lines (selection.py), so a wide subset costs one coverage run.
"""

from __future__ import annotations

from dataclasses import dataclass

# One check disabled. The deep run (`--deep`) also shifts/negates the checks' conditions
# (gcmp, gbool): ~2.5x the mutants, over the 30-minute budget on 2 cores.
VERIFIER_OPS = ("guard", "require", "call")
DEEP_OPS = ("gcmp", "gbool")
# A check disabled, or one numeric behaviour altered.
NUMERIC_OPS = ("guard", "require", "call", "gcmp", "round", "dtype", "mask", "clamp",
               "transpose", "swap", "ifexp")
# Checkers: a report suppressed, the condition of a report shifted or negated, a conditional
# value ignored. (Comparisons outside report conditions, `cmp`, are mostly equivalent mutants in
# the overlap arithmetic: add `--ops` to include them.)
CHECKER_OPS = ("guard", "require", "call", "gcmp", "gbool", "ifexp", "swap")
# Semantic operators (mutants.py): a record not kept or not replaced, a key part dropped, an
# element of a footprint left out, the named bookkeeping bugs of semantic.py. A checker whose
# tests only notice a check switched off scores high on CHECKER_OPS and still misses these.
SEMANTIC_OPS = ("stmt", "key", "elem", "semantic")
# The overlap arithmetic of the byte sets (dialects/pto/access.py): every comparison, `+`/`-`
# and off-by-one, not only those of report conditions.
ARITH_OPS = ("cmp", "arith", "offby1")


@dataclass(frozen=True)
class Area:
    name: str
    sources: tuple[str, ...]
    ops: tuple[str, ...]
    pytest: tuple[str, ...] = ()
    lit: tuple[str, ...] = ()
    # (source glob, pytest, lit): a narrower subset for the sources that match (first match wins);
    # the others use the area's whole subset. Rarely needed: a mutant runs only the tests of its
    # subset that execute its lines (selection.py), so a wide subset costs one coverage run.
    exclude: tuple[str, ...] = ()  # sources another area owns
    focus: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = ()
    # (source glob, operators, functions): more operators for the files that match, inside the
    # named functions only (() = the whole file); a file not in `sources` joins the area with
    # just these mutants (the MMA footprint of executor/tcgen05/kernels.py, insert-sync's ids).
    extra: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = ()


AREAS: tuple[Area, ...] = (
    Area(
        "verifiers-pto",
        sources=("dialects/pto.py", "dialects/pto/*.py", "dialects/types.py",
                 "isa/ascend/targets.py", "isa/ascend/layouts.py", "isa/ascend/gather.py",
                 "isa/ascend/pipes.py"),
        exclude=("dialects/pto/effects.py", "dialects/pto/access.py", "dialects/pto/gm_access.py",
                 "dialects/pto/raw_footprints.py", "dialects/pto/footprint.py"),  # checkers area
        ops=VERIFIER_OPS,
        pytest=("tests/unit/dialects/pto/test_pto_dialect*.py",
                "tests/unit/dialects/pto/test_pto_sync*.py",
                "tests/unit/dialects/test_verifier_api.py",
                "tests/unit/isa/ascend/test_isa_ascend_*.py",
                "tests/unit/tools/test_parser_fast_paths.py",
                "tests/unit/executor/ascend/test_load_2d_gm.py"),
        lit=("tests/filecheck/dialects/pto",),
    ),
    Area(
        "verifiers-tcgen05",
        sources=("dialects/tcgen05/*.py", "isa/tcgen05/*.py"),
        ops=VERIFIER_OPS,
        pytest=("tests/unit/dialects/tcgen05/test_tcgen05_dialect*.py",
                "tests/unit/isa/tcgen05/test_isa_tcgen05_*.py",
                "tests/unit/dialects/test_verifier_api.py", "tests/unit/tools/test_desc_cli.py",
                "tests/unit/isa/tcgen05/test_ptxas_forms.py",
                # the isa/tcgen05 helpers only the executor and the checkers call
                "tests/unit/isa/tcgen05/test_tcgen05_layout_figures.py",
                "tests/unit/executor/tcgen05/test_tcgen05_exact.py",
                "tests/unit/executor/tcgen05/test_tcgen05_async.py",
                "tests/unit/executor/tcgen05/test_tcgen05_pair.py"),
        lit=("tests/filecheck/dialects/tcgen05", "tests/filecheck/tools/desc.mlir"),
    ),
    Area(
        "executor-pto",
        sources=("executor/ascend/kernels.py", "executor/engine/dtypes.py", "executor/ascend/functions.py",
                 "isa/ascend/quant.py", "isa/ascend/hif8.py", "executor/ascend/raw_kernels.py",
                 "executor/engine/memory.py", "executor/engine/multicore.py"),
        ops=NUMERIC_OPS,
        pytest=("tests/unit/executor/ascend/test_executor_kernels.py",
                "tests/unit/executor/test_executor_edges*.py",
                "tests/unit/isa/ascend/test_isa_ascend_quant.py",
                "tests/unit/dialects/test_verifier_api.py",
                "tests/unit/executor/test_executor_ir.py",
                "tests/unit/executor/test_executor_faults.py",
                "tests/unit/executor/engine/test_executor_memory.py",
                "tests/unit/executor/ascend/test_executor_all_targets.py",
                "tests/unit/executor/ascend/test_kernel_size_checks.py",
                "tests/unit/executor/ascend/test_raw_params_examples.py",
                "tests/unit/passes/test_pto_expand_params.py",
                "tests/unit/executor/test_perf_caches.py",
                "tests/unit/executor/ascend/test_load_2d_gm.py",
                "tests/unit/executor/ascend/test_raw_4bit.py",
                "tests/unit/executor/ascend/test_raw_*.py",
                # the raw forms' runtime faults under --jobs, the checker and the async checker
                "tests/unit/executor/engine/test_exec_jobs.py",
                "tests/unit/executor/engine/test_sync_checker_ir.py",
                "tests/unit/executor/tcgen05/test_tcgen05_async.py",
                "tests/unit/executor/ascend/test_b32_transposed_a.py",
                "tests/unit/executor/test_check_numpy_raw.py", "tests/unit/isa/ascend/test_hif8.py",
                "tests/unit/executor/ascend/test_gm_generations.py",
                "tests/unit/executor/engine/test_multicore*.py",
                "tests/unit/passes/test_multicore_split.py"),
    ),
    Area(
        "executor-tcgen05",
        sources=("executor/tcgen05/*.py",),
        # async_checker is a checker (the checkers area); reference.py is the numpy oracle the
        # tests compare against (as executor/ascend/reference.py, outside every area before the
        # executor became packages: mutating the oracle measures the oracle, not the executor)
        exclude=("executor/tcgen05/async_checker.py", "executor/tcgen05/reference.py"),
        ops=NUMERIC_OPS,
        pytest=("tests/unit/executor/tcgen05/*.py", "tests/unit/dialects/tcgen05/*.py",
                "tests/unit/isa/tcgen05/test_tcgen05_layout_figures.py",
                "tests/unit/passes/test_tcgen05_passes.py",
                "tests/unit/passes/test_tcgen05_to_ptx.py",
                "tests/unit/executor/test_executor_edges.py",
                "tests/unit/executor/test_executor_faults.py",
                "tests/unit/executor/test_check_numpy_tcgen05_forms.py",
                "tests/unit/executor/test_check_numpy.py",
                # isa/tcgen05 helpers pinned together with the executor's use of them
                "tests/unit/isa/tcgen05/test_isa_tcgen05_diagnose.py",
                "tests/unit/isa/tcgen05/test_isa_tcgen05_rules.py",
                "tests/unit/isa/tcgen05/test_isa_tcgen05_shapes.py",
                "tests/unit/isa/tcgen05/test_isa_tcgen05_text.py"),
    ),
    Area(
        "checkers",
        sources=("executor/engine/hb.py", "executor/engine/scheduler.py", "executor/engine/events.py",
                 "executor/engine/seam.py", "dialects/pto/effects.py", "dialects/pto/access.py",
                 "dialects/pto/gm_access.py", "dialects/pto/raw_footprints.py",
                 "dialects/pto/footprint.py", "executor/tcgen05/async_checker.py"),
        ops=CHECKER_OPS + SEMANTIC_OPS,
        extra=(("dialects/pto/access.py", ARITH_OPS, ()),
               ("executor/tcgen05/kernels.py", SEMANTIC_OPS + ("ifexp",), ("mma_footprint",)),
               ("executor/tcgen05/functions.py", SEMANTIC_OPS,
                ("run_mbarrier_init", "run_mbarrier_inval", "_mbarrier")),
               ("passes/pto_insert_sync.py", SEMANTIC_OPS + CHECKER_OPS, ("assign_event_ids",))),
        pytest=("tests/unit/executor/engine/test_sync_engine*.py",
                "tests/unit/dialects/pto/test_pto_effects*.py",
                "tests/unit/executor/engine/test_checker_edges*.py",
                "tests/unit/executor/engine/test_sync_checker_ir*.py",
                # the checker's light items, scalar events, red-team cases, overflow over every
                # legal schedule, the verdict under shuffled schedules (not test_sync_fast_paths /
                # test_sync_read_only_gm: their parametrize lists run every kernel while pytest
                # collects, which makes every engine line select the whole subset)
                "tests/unit/executor/engine/test_sync_light_items.py",
                "tests/unit/executor/engine/test_sync_scalar_events.py",
                "tests/unit/executor/engine/test_sync_redteam.py",
                "tests/unit/executor/engine/test_sync_overflow_schedules.py",
                "tests/unit/executor/engine/test_scalar_stall_orders.py",
                "tests/unit/executor/engine/test_verdict_schedules.py",
                "tests/unit/passes/test_pto_insert_sync*.py",
                "tests/unit/executor/engine/test_hb*.py",
                "tests/unit/executor/engine/test_scheduler*.py",
                "tests/unit/executor/engine/test_events*.py",
                "tests/unit/executor/engine/test_race*.py",
                "tests/unit/executor/engine/test_deadlock*.py",
                "tests/unit/dialects/pto/test_effects*.py",
                "tests/unit/executor/engine/test_engine*.py",
                "tests/unit/executor/test_executor_lowering_rule.py",
                "tests/unit/executor/ascend/test_raw_footprints.py",
                "tests/unit/executor/ascend/test_raw_footprint_params.py",
                # the raw forms' runtime checks, the f16 table, QUANT_PRE words
                "tests/unit/executor/ascend/test_raw_kernels.py",
                "tests/unit/executor/ascend/test_executor_kernels.py",
                "tests/unit/isa/ascend/test_isa_ascend_quant.py",
                "tests/unit/executor/ascend/test_load_2d_gm.py",
                "tests/unit/executor/ascend/test_raw_4bit.py",
                "tests/unit/executor/engine/test_multicore.py",
                # the predecessors the engine records for a timeline (`HappensBefore._link`)
                "tests/unit/executor/engine/test_timeline_predecessors.py",
                "tests/unit/executor/tcgen05/test_tcgen05_async*.py",
                "tests/unit/executor/tcgen05/test_tcgen05_pair.py",
                "tests/unit/executor/engine/test_exec_jobs.py",
                "tests/unit/executor/tcgen05/test_tcgen05_gemm_example.py",
                # the semantic operators' behaviours (issue 28): records, pruning, flag bits,
                # overlap, the MMA footprint, mbarrier lives
                "tests/unit/executor/engine/test_checker_semantics.py",
                "tests/unit/executor/tcgen05/test_tcgen05_mma_footprint.py",
                "tests/unit/executor/tcgen05/test_tcgen05_mbarrier_inval.py",
                # the TMA-vs-descriptor layout check, a shift's TMEM write, the phase parity a
                # wait may alias, the CTA-pair kernel's barrier and copy keys
                "tests/unit/executor/tcgen05/test_tcgen05_tma.py",
                "tests/unit/executor/tcgen05/test_tcgen05_shift.py",
                "tests/unit/executor/tcgen05/test_tcgen05_phase_aliasing.py",
                "tests/unit/passes/test_tcgen05_lower_matmul_pair.py"),
    ),
)
