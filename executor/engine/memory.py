"""Simulated on-chip memories of an Ascend AI Core (and, later, a Blackwell SM).

Each on-chip buffer (L1, L0A, L0B, L0C, UB, BT, FB) is one byte-addressed numpy `uint8` array of the
target's capacity (`mmair.isa.ascend.targets.get_target(t).capacity`). A `Tile` is a typed numpy VIEW
of that array at its byte offset, with the tile's physical shape (`layouts.physical_shape`), so two
tiles that overlap in the address space alias exactly as on hardware: a `pto.reinterpret` or an
explicitly placed `pto.alloc` sees the bytes another tile wrote.

Placement: `pto.alloc {offset = N}` places the tile at byte N of its space; without an offset a simple
bump allocator per space hands out the next aligned address. An alloc op gets its address the first
time it runs and keeps it (the executor caches the tile per op), so an alloc inside a loop is one
buffer, as a static address assignment would make it. Out of capacity, misaligned or out of bounds
raises `ExecutionError`.

GM is not simulated here: GM data are the numpy arrays passed as memref arguments.

The 4-bit types (s4, e2m1) are stored two per byte on hardware; their tiles keep `physical` as the
packed bytes (`storage` is uint8) and `values()` / `store_values()` unpack and pack them.

Other spaces plug in through `Memory.add_space(name, capacity, alignment)`: Blackwell SMEM is a plain
byte space (228 KB per CTA); TMEM (128 lanes x 512 columns of 32-bit cells = 256 KB) is a byte space
of 128 * 512 * 4 bytes whose `cells()` view is (lanes, columns) uint32, addressed by lane and column.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from math import prod

import numpy as np

from mmair.executor.engine.errors import ExecutionError
from mmair.isa.ascend import layouts
from mmair.isa.ascend.targets import DEFAULT_TARGET, Target, element_bits, get_target
from mmair.isa.dtypes import is_packed_4bit, numpy_dtype, storage_dtype
from mmair.isa.tcgen05.layouts import TMEM_LANES

GM_IMAGE_BYTES = 256 << 20
"""Most bytes `MemorySpace.gm_images` keeps (copies + images); beyond it the cache starts over."""



class GmWrites:
    """Write generations of the GM buffers of a run, for the GM conversion cache of
    `kernels.mte_gm_l1` (speed only).

    GM data are numpy arrays (memref arguments and allocations); views of one share its buffer.
    A kernel that writes GM calls `wrote(view)`, which bumps the generation of the array owning
    the view's bytes. A cached conversion of a GM window is then valid while its array's
    generation is unchanged: a dict look-up instead of comparing the window with a kept copy.
    That is sound only if every write to GM goes through such a kernel, so `tracked` is off by
    default (the cache validates by content, which sees any write) and the runner turns it on for
    one-core runs of modules whose ops it knows (`runner.GM_WRITES_KNOWN`)."""

    __slots__ = ("generation", "read_only", "tracked")

    def __init__(self) -> None:
        self.tracked = False
        self.generation: dict[int, int] = {}
        """id of the owning array -> number of writes seen (absent: none)."""
        self.read_only: ReadOnlyGm | None = None
        """The images of windows of the run's GM arrays that no op can write (`ReadOnlyGm`);
        set by the runner, shared by the cores of one process."""

    @staticmethod
    def owner(view: np.ndarray) -> np.ndarray:
        """The array whose buffer `view` is a view of (numpy collapses chains of views)."""
        while isinstance(view.base, np.ndarray):
            view = view.base
        return view

    def wrote(self, view: np.ndarray) -> None:
        """A kernel wrote (some of) `view`'s bytes."""
        if self.tracked:
            key = id(self.owner(view))
            self.generation[key] = self.generation.get(key, 0) + 1


class ReadOnlyGm:
    """Operand images of windows of the GM arrays that no op of the run can write (speed only).

    A GEMM loads every window of A and B many times (each A tile once per column of C tiles,
    each B tile once per row), and every core of a multi-core launch loads its own. For an
    array that nothing writes (the runner decides: `runner.read_only_gm`; the arguments an op may
    write are copies) a window's conversion to the Mmad compute dtype is made once per run and
    process, on its first load, and shared by every core of the process: no validation (the
    bytes cannot change), where the per-space cache (`MemorySpace.gm_images`) of a multi-core
    run compares the window with a kept copy on every hit. The images stay C-contiguous
    windows: a view of one whole-array image was measured slower in the mads (the sgemm packs
    its operands from 128 rows 8 KiB apart instead of one 128 KiB block). At most
    `GM_IMAGE_BYTES` are kept; beyond it windows are converted on every load."""

    def __init__(self, arrays: list[np.ndarray]) -> None:
        self.arrays: dict[int, np.ndarray] = {}
        """id -> the array owning the argument's bytes (`GmWrites.owner`: a worker's arguments
        are views of shared memory), when it holds exactly those bytes."""
        for a in arrays:
            owner = GmWrites.owner(a)
            if owner.nbytes == a.nbytes and owner.ctypes.data == a.ctypes.data:
                self.arrays[id(owner)] = owner
        self.images: dict[tuple, np.ndarray] = {}
        """(window address, shape, strides, compute dtype) -> image."""
        self.nbytes = 0
        self.lock = threading.Lock()  # cores of one process share it; mads may run on threads

    def window_image(self, window: np.ndarray, ctype: np.dtype,
                     convert: Callable[[np.ndarray, np.dtype], np.ndarray]) -> np.ndarray | None:
        """`convert(window, ctype)`, made once per window of a read-only array; None for a
        window of any other array."""
        owner = window
        while isinstance(owner.base, np.ndarray):  # numpy collapses chains of views
            owner = owner.base
        if self.arrays.get(id(owner)) is not owner:
            return None
        key = (window.ctypes.data, window.shape, window.strides, ctype)
        image = self.images.get(key)
        if image is None:
            image = convert(window, ctype)
            with self.lock:
                if self.nbytes + image.nbytes <= GM_IMAGE_BYTES:
                    image = self.images.setdefault(key, image)
                    self.nbytes += image.nbytes
        return image


@dataclass(eq=False)
class Pending:
    """A write of padded-logical [0:rows, 0:cols] of a tile not made yet: `write()` makes it
    (on the space's `store`, never through `Tile.physical`). `key` names the tile's bytes and
    layout (offset, layout, shape, element); [lo, hi) is the tile's byte range."""

    lo: int
    hi: int
    key: tuple
    rows: int
    cols: int
    write: Callable[[], None]
    acc: np.ndarray | None = None
    """The array `write` writes when the tile's owner may update it in place (an L0C
    accumulator no other tile shares), else None."""


@dataclass
class MemorySpace:
    """One byte-addressed on-chip buffer."""

    name: str
    capacity: int
    alignment: int
    store: np.ndarray = field(repr=False)
    """The space's bytes as last materialized; `data` (and every tile's `physical`) first makes
    the pending writes (`pending`)."""
    next_free: int = 0  # bump allocator
    peak: int = 0  # highest byte address + 1 any tile has occupied
    imaged: list[Tile] = field(default_factory=list, repr=False)
    """Tiles of this space that hold an operand image (`Tile.image`)."""
    gm_images: dict[tuple, tuple] = field(default_factory=dict, repr=False)
    """Converted GM windows loaded into this space: key -> (copy of the GM elements, image);
    see `kernels.mte_gm_l1`. Bounded by `GM_IMAGE_BYTES`."""
    gm_image_bytes: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    """Guards `imaged` and `gm_images`: kernels of independent ops may run on threads
    (`scheduler.ThreadedRuns`) and update these caches at the same time."""
    gm: GmWrites = field(default_factory=GmWrites, repr=False)
    """The write generations of GM (shared by the spaces of one `Memory`)."""
    pending: list[Pending] = field(default_factory=list, repr=False)
    """Writes of tile bytes not made yet (lazy fractal layouts, `executor/ascend/lazy.py`),
    pairwise disjoint in bytes, so that they can be made in any order."""

    @property
    def data(self) -> np.ndarray:
        """The space's bytes (every pending write made first)."""
        if self.pending:
            self.flush(0, self.capacity)
        return self.store

    def flush(self, lo: int, hi: int) -> None:
        """Make the pending writes that touch bytes [lo, hi): someone observes or writes them."""
        with self.lock:
            kept = []
            for p in self.pending:
                if p.lo < hi and lo < p.hi:
                    p.write()
                else:
                    kept.append(p)
            self.pending = kept

    def pend(self, write: Pending) -> None:
        """Record `write` instead of making it. An earlier pending write of the same tile whose
        region `write` covers is dropped (its bytes are all overwritten); any other one it
        overlaps is made first (keeps the order of writes to every byte)."""
        with self.lock:
            kept = []
            for p in self.pending:
                if p.lo < write.hi and write.lo < p.hi:
                    if p.key == write.key and p.rows <= write.rows and p.cols <= write.cols:
                        continue
                    p.write()
                else:
                    kept.append(p)
            kept.append(write)
            self.pending = kept

    @classmethod
    def create(cls, name: str, capacity: int, alignment: int) -> MemorySpace:
        return cls(name, capacity, alignment, np.zeros(capacity, dtype=np.uint8))

    def check_range(self, offset: int, nbytes: int, what: str) -> None:
        """Raise ExecutionError unless [offset, offset + nbytes) is aligned and inside the space."""
        if offset < 0 or offset % self.alignment:
            raise ExecutionError(
                f"requires {what} offset aligned to {self.alignment} bytes in {self.name}, got {offset}"
            )
        if offset + nbytes > self.capacity:
            raise ExecutionError(
                f"{what} of {nbytes} bytes at offset {offset} exceeds the {self.name} capacity of "
                f"{self.capacity} bytes (ends at {offset + nbytes})"
            )

    def bump(self, nbytes: int, what: str) -> int:
        """The next free aligned address for `nbytes`; raises when the space is full."""
        # Start above everything placed so far (explicit offsets included), so that a bump-allocated
        # tile never lands on an explicitly placed one that already ran.
        start = max(self.next_free, self.peak)
        offset = -(-start // self.alignment) * self.alignment
        if offset + nbytes > self.capacity:
            raise ExecutionError(
                f"{what} of {nbytes} bytes does not fit in {self.name}: {offset} bytes already "
                f"allocated, capacity {self.capacity} bytes"
            )
        self.next_free = offset + nbytes
        return offset

    def invalidate(self, offset: int, nbytes: int) -> None:
        """Bytes [offset, offset + nbytes) are about to be written: drop the operand image of every
        tile that overlaps them."""
        end = offset + nbytes
        with self.lock:
            kept = []
            for tile in self.imaged:
                if tile.offset < end and offset < tile.offset + tile.nbytes:
                    tile.image = None
                else:
                    kept.append(tile)
            self.imaged = kept

    def view(self, offset: int, dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
        """A typed view of the bytes at `offset` (made before reading through it: `Tile`)."""
        nbytes = prod(shape) * dtype.itemsize
        return self.store[offset : offset + nbytes].view(dtype).reshape(shape)

    def cells(self, lanes: int = TMEM_LANES) -> np.ndarray:
        """The space as a (lanes, columns) uint32 array (TMEM-style lane/column addressing)."""
        return self.data.view(np.uint32).reshape(lanes, -1)


@dataclass(eq=False)
class Tile:
    """A typed buffer in an on-chip space: a numpy view with the physical shape of its layout.

    `shape` is the logical shape (what the data means), `physical` the view of the space's bytes with
    `layouts.physical_shape(...)` (packed uint8 bytes for 4-bit types)."""

    space: str
    offset: int
    shape: tuple[int, ...]
    layout: str
    element: str
    store: np.ndarray = field(repr=False)
    """The view of the space's bytes as last materialized: `physical` is what kernels use."""
    nbytes: int = 0
    name: str = ""
    _blocked: np.ndarray | None = field(default=None, repr=False)
    mem: MemorySpace | None = field(default=None, repr=False)
    """The space holding the tile (None for a free-standing tile: no operand images then)."""
    image: np.ndarray | None = field(default=None, repr=False)
    """Operand image: the tile's logical [0:r, 0:c] (r, c = image.shape) converted to the Mmad
    compute dtype (f32 for float elements, f64 for integers), recorded by the data moves and read
    by `pto.mad` instead of converting the bytes again. It is exactly the converted bytes: any
    write to bytes of the tile drops it (`MemorySpace.invalidate`, called by every writing
    kernel through `Tile.will_write`); image arrays are never modified in place."""

    @property
    def physical(self) -> np.ndarray:
        """The tile's bytes with its physical shape and element dtype, pending writes to them
        made first (a kernel that reads or writes bytes sees them as the hardware would)."""
        mem = self.mem
        if mem is not None and mem.pending:
            mem.flush(self.offset, self.offset + self.nbytes)
        return self.store

    @property
    def key(self) -> tuple:
        """What names the tile's bytes and their meaning (for `MemorySpace.pend`)."""
        return (self.offset, self.layout, self.shape, self.element)

    @property
    def rows(self) -> int:
        return 1 if len(self.shape) == 1 else self.shape[0]

    @property
    def cols(self) -> int:
        return self.shape[-1]

    def __post_init__(self) -> None:
        self.packed = is_packed_4bit(self.element)
        """4-bit elements, two per byte (kept packed in `store`)."""

    @property
    def dtype(self) -> np.dtype:
        return numpy_dtype(self.element)

    @property
    def physical_shape(self) -> tuple[int, ...]:
        return layouts.physical_shape(self.layout, self.shape, self.element, self.space)

    @property
    def label(self) -> str:
        return f"tile {self.name}" if self.name else "tile"

    def values(self) -> np.ndarray:
        """The physical array with one numpy element per element (a view, except for 4-bit types,
        where it is an unpacked copy to be written back with `store_values`)."""
        if not self.packed:
            return self.physical
        n = prod(self.physical_shape)
        signed = self.element == "s4"
        raw = layouts.unpack_nibbles(self.physical, n, signed=signed)
        if self.element == "e2m1":  # the nibbles are codes (store_values packs them as such)
            return raw.view(np.uint8).view(self.dtype).reshape(self.physical_shape)
        return raw.astype(self.dtype).reshape(self.physical_shape)

    def store_values(self, values: np.ndarray) -> None:
        """Write back an array obtained from `values()` (no-op for the views of byte-sized types)."""
        if values is self.physical:
            return
        self.will_write()
        if self.packed:
            packed = layouts.pack_nibbles(values.astype(np.int8) if self.element != "e2m1"
                                          else values.view(np.uint8))
            self.physical[: packed.size] = packed
        else:
            self.physical[...] = values

    def will_write(self) -> None:
        """The tile's bytes are about to be written: make the pending writes to them, then drop
        the images that cover them."""
        mem = self.mem
        if mem is not None:
            if mem.pending:
                mem.flush(self.offset, self.offset + self.nbytes)
            if mem.imaged:
                mem.invalidate(self.offset, self.nbytes)

    def set_image(self, image: np.ndarray | None) -> None:
        """Record `image` (see `image`) after a write of the tile's logical region."""
        mem = self.mem
        if mem is None or image is None:
            return
        with mem.lock:
            self.image = image
            if self not in mem.imaged:
                mem.imaged.append(self)

    def blocked(self) -> np.ndarray:
        """4-D view [r1, r0, c1, c0] of the physical array (see `layouts.blocked_view`)."""
        mem = self.mem
        if mem is not None and mem.pending:
            mem.flush(self.offset, self.offset + self.nbytes)
        return self.stored_blocked()

    def stored_blocked(self) -> np.ndarray:
        """`blocked()` of `store`, without making pending writes (for those writes only)."""
        if self._blocked is None:
            self._blocked = layouts.blocked_view(self.store, self.layout)
        return self._blocked


class Memory:
    """The on-chip memories of one core of `target` (spaces are created on first use)."""

    def __init__(self, target: str | Target | None = None):
        if not isinstance(target, Target):
            target = get_target(target or DEFAULT_TARGET)
        self.target = target
        self.spaces: dict[str, MemorySpace] = {}
        self._extra: dict[str, tuple[int, int]] = {}
        self.gm = GmWrites()
        """Write generations of GM (`GmWrites`); `tracked` is set by the runner."""

    def add_space(self, name: str, capacity: int, alignment: int) -> MemorySpace:
        """Register a space the Ascend target table does not have (e.g. Blackwell `smem`, `tmem`)."""
        self._extra[name] = (capacity, alignment)
        self.spaces[name] = MemorySpace.create(name, capacity, alignment)
        self.spaces[name].gm = self.gm
        return self.spaces[name]

    def space(self, name: str) -> MemorySpace:
        found = self.spaces.get(name)
        if found is not None:
            return found
        if name == "gm":
            raise ExecutionError("gm is not an on-chip space: GM data are memref arguments")
        capacity = self.target.capacity.get(name)
        if capacity is None:
            raise ExecutionError(f"memory space {name} does not exist on target {self.target.name}")
        created = MemorySpace.create(name, capacity, self.target.alignment[name])
        created.gm = self.gm
        self.spaces[name] = created
        return created

    def place(
        self,
        space: str,
        shape: tuple[int, ...],
        layout: str,
        element: str,
        offset: int | None = None,
        name: str = "",
    ) -> Tile:
        """A tile at byte `offset` of `space` (bump-allocated when None), checked for alignment
        and capacity."""
        mem = self.space(space)
        pshape = layouts.physical_shape(layout, tuple(shape), element, space)
        nbytes = -(-prod(pshape) * element_bits(element) // 8)
        what = f"buffer {name}" if name else "buffer"
        if offset is None:
            offset = mem.bump(nbytes, what)
        mem.check_range(offset, nbytes, what)
        mem.peak = max(mem.peak, offset + nbytes)
        dtype = storage_dtype(element)
        view_shape = (nbytes,) if is_packed_4bit(element) else pshape
        physical = mem.view(offset, dtype, view_shape)
        return Tile(space, offset, tuple(shape), layout, element, physical, nbytes, name, mem=mem)

    def reinterpret(
        self, tile: Tile, shape: tuple[int, ...], layout: str, element: str, name: str = ""
    ) -> Tile:
        """The bytes of `tile` seen with another tile type (same space and start address)."""
        return self.place(tile.space, shape, layout, element, tile.offset, name or tile.name)

    def peak_bytes(self) -> dict[str, int]:
        """Highest address + 1 used in each space that was touched."""
        return {name: mem.peak for name, mem in self.spaces.items() if mem.peak > 0}
