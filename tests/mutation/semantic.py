"""Named semantic mutants: bugs of the checkers' bookkeeping that no generic operator makes.

Each entry is an edit of one source file, made where its `anchor` text occurs (it must occur
exactly once in the file), and the kind of bug it models. They come from an independent audit of
the checker (issue 28): how access records are kept and replaced, pruning, which conflicts are
races. The generic semantic operators (`stmt`, `key`, `elem`, `offby1` in mutants.py) make the
rest of that audit's mutants: a record not replaced, the core dropped from a flag key, an
operand left out of the MMA footprint, an event id not reserved.

Left out as equivalent (the audit of issue 28): a read also compared with another lane's reads
in the early skip of `_check_record` (it then scans only that lane's writes: the same verdict),
pruning that scans past the first unordered record (records are kept in epoch order, so there is
none after it to drop).

An anchor that no longer occurs exactly once is a *stale* entry: `named_mutants` raises, so a
refactoring of the checker cannot silently drop a mutant (update the anchor with the code).
"""

from __future__ import annotations

from dataclasses import dataclass

from mutants import Mutant


@dataclass(frozen=True)
class Named:
    path: str
    anchor: str
    replacement: str
    what: str


NAMED: tuple[Named, ...] = (
    # -- records: what a new access replaces -----------------------------------------------------
    Named("executor/engine/hb.py",
          "        rd.pop(region, None)\n        rd[region] = (n, ev, a, a.start, a.end)",
          "        rd.pop(region, None)\n        group[0].pop(region, None)\n"
          "        rd[region] = (n, ev, a, a.start, a.end)",
          "a read replaces its lane's write record of the same bytes (Event path)"),
    Named("executor/engine/hb.py",
          "                rd.pop(region, None)\n                rd[region] = (n, owner, a, start, end)",
          "                rd.pop(region, None)\n                group[0].pop(region, None)\n"
          "                rd[region] = (n, owner, a, start, end)",
          "a read replaces its lane's write record of the same bytes (batched path)"),
    # -- which pairs conflict --------------------------------------------------------------------
    Named("executor/engine/hb.py",
          "            for recs in (group[0], group[1]) if write else (group[0],):",
          "            for recs in (group[0], group[1]):",
          "a read-read pair is a race (batched path)"),
    Named("executor/engine/hb.py",
          "        for recs in (group[0], group[1]) if a.write else (group[0],):",
          "        for recs in (group[0], group[1]):",
          "a read-read pair is a race (Event path)"),
    # -- pruning ---------------------------------------------------------------------------------
    Named("executor/engine/hb.py",
          "floor = [min(c[q] for c in self.clock) for q in range(self.lanes)]",
          "floor = [max(c[q] for c in self.clock) for q in range(self.lanes)]",
          "prune by the lane that knows most of q, not the one that knows least"),
    Named("executor/engine/hb.py",
          "                        if rec[0] > bound:\n                            break",
          "                        if rec[0] > bound + 1:\n                            break",
          "prune one record past the bound (a record still unordered with some lane)"),
    # -- flags: one bit per core -----------------------------------------------------------------
    Named("executor/engine/events.py",
          "            self.key = flag_key(core, src, dst, event_id)",
          "            self.key = flag_key(0, src, dst, event_id)",
          "an Event's flag bit shared by every core"),
    Named("executor/engine/seam.py",
          "            key = flag_key(self.core, plan.src, plan.dst, event_id)",
          "            key = flag_key(0, plan.src, plan.dst, event_id)",
          "a run-time event id's flag bit shared by every core"),
)


def named_mutants(path: str, text: bytes) -> list[Mutant]:
    """The named mutants of file `path` (repository-relative) with contents `text`."""
    out = []
    for entry in NAMED:
        if entry.path != path:
            continue
        anchor = entry.anchor.encode()
        count = text.count(anchor)
        if count != 1:
            raise ValueError(f"stale named mutant in {path}: anchor found {count} times "
                             f"(tests/mutation/semantic.py): {entry.what}")
        start = text.index(anchor)
        line = text.count(b"\n", 0, start) + 1
        out.append(Mutant(path, line, "semantic", entry.what, start, start + len(anchor),
                          entry.replacement.encode()))
    return out
