"""The GPU pool's decisions, pure: where a request goes, who is next in the queue, whom to preempt.

**Placement.** A share claims memory (MiB; ``None``: all of the GPU's memory, i.e. a GPU nobody else is on) and
compute (``cores``, percent; ``None``: no claim, time-sliced with the others). A GPU never holds more memory or
more than 100 % compute than it has. Bin-packing (the default) picks the GPU left fullest after the share, by
memory and compute share together, so shares pack onto as few GPUs as possible; ``spread`` picks the emptiest.
A GPU of unknown memory takes a memory share only whole and only when nobody is on it (the last resort).

**Queue.** Waiters go by effective priority (higher first), then arrival. Aging: a waiter's effective priority is
its priority plus one per ``aging_s`` seconds waited. Strict order: a waiter is granted only when every waiter
ahead of it fits too. Hence the bound: a waiter of priority ``p`` is only ever overtaken by a waiter of priority
``q > p`` that arrived less than ``(q - p) * aging_s`` seconds after it (or by the one that preempted it), so
with a top priority ``P`` nobody arriving ``(P - p) * aging_s`` seconds later goes ahead of it.

**Preemption.** When the head of the queue does not fit, it may take the room of leases of strictly lower
priority that are marked preemptible: on each GPU the lowest priority goes first, the newest first within a
priority, then any that is not needed after all is spared; the GPUs needing the cheapest victims win (lowest
highest-priority victim, then fewest). Leases already told to go count as gone, so the head does not ask for
more while they end. A preempted waiter waits behind the waiter that preempted it until that one is granted.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from aipipe.engine.gpu import GpuInfo, GpuRequest, Inventory, Lease

FULL_CORES = 100
BINPACK, SPREAD = "binpack", "spread"


@dataclass(frozen=True)
class Waiter:
    """A request in the queue: ``behind`` is the id of the waiter that preempted it (it waits behind that one)."""

    id: int
    request: GpuRequest
    priority: int
    since: float
    behind: int | None = None


@dataclass(frozen=True)
class Held:
    """A lease held now, as preemption sees it; ``preempting``: already told to go."""

    id: int
    lease: Lease
    priority: int
    preemptible: bool
    since: float
    preempting: bool = False


@dataclass(frozen=True)
class _Load:
    """What one GPU has handed out: memory (MiB), compute (%), whether all its memory is taken, its lease count."""

    memory_mb: int = 0
    cores: int = 0
    full: bool = False
    count: int = 0


def _loads(leases: Iterable[Lease]) -> dict[int, _Load]:
    loads: dict[int, _Load] = {}
    for lease in leases:
        was = loads.get(lease.gpu, _Load())
        loads[lease.gpu] = _Load(was.memory_mb + (lease.memory_mb or 0), was.cores + (lease.cores or 0),
                                 was.full or lease.memory_mb is None, was.count + 1)
    return loads


def _option(gpu: GpuInfo, load: _Load, request: GpuRequest) -> tuple[bool, float, Lease] | None:
    """(last resort, fraction of the GPU left free after it, the lease) for one share of ``request`` on ``gpu``,
    None when it does not fit there now."""
    cores = request.cores or 0
    if load.full or load.cores + cores > FULL_CORES:
        return None
    if request.memory_mb is None or not gpu.memory_mb:
        if load.count:
            return None
        return request.memory_mb is not None, 0.0, Lease(gpu.index, None, request.cores)
    left = gpu.memory_mb - load.memory_mb - request.memory_mb
    if left < 0:
        return None
    return False, left / gpu.memory_mb + (FULL_CORES - load.cores - cores) / FULL_CORES, \
        Lease(gpu.index, request.memory_mb, request.cores)


def place(inventory: Inventory, leases: Iterable[Lease], request: GpuRequest,
          placement: str = BINPACK) -> list[Lease] | None:
    """Where ``request``'s shares go now given the ``leases`` held (one per GPU), or None when they do not fit."""
    loads = _loads(leases)
    options = []
    for gpu in inventory.gpus:
        found = _option(gpu, loads.get(gpu.index, _Load()), request)
        if found is not None:
            resort, free, lease = found
            options.append((resort, -free if placement == SPREAD else free, gpu.index, lease))
    options.sort(key=lambda o: o[:3])
    return [o[3] for o in options[:request.count]] if len(options) >= request.count else None


def effective_priority(waiter: Waiter, now: float, aging_s: float) -> int:
    """The waiter's priority raised by one per ``aging_s`` seconds waited (no aging when ``aging_s`` <= 0)."""
    if aging_s <= 0:
        return waiter.priority
    return waiter.priority + math.floor(max(now - waiter.since, 0.0) / aging_s)


def queue_order(waiters: Iterable[Waiter], now: float, aging_s: float) -> list[Waiter]:
    """The queue, first in line first; a preempted waiter stays behind the waiter that preempted it."""
    ranked = sorted(waiters, key=lambda w: (-effective_priority(w, now, aging_s), w.since, w.id))
    ids = {w.id for w in ranked}
    order: list[Waiter] = []
    held_back: dict[int, list[Waiter]] = {}
    for waiter in ranked:
        if waiter.behind in ids and waiter.behind not in {w.id for w in order}:
            held_back.setdefault(waiter.behind, []).append(waiter)
            continue
        order.append(waiter)
        pending = held_back.pop(waiter.id, [])
        while pending:
            nxt = pending.pop(0)
            order.append(nxt)
            pending.extend(held_back.pop(nxt.id, []))
    return order


def admit(inventory: Inventory, leases: Sequence[Lease], order: Sequence[Waiter],
          placement: str = BINPACK) -> list[tuple[Waiter, list[Lease]]]:
    """The waiters granted now (strict order: the longest prefix of ``order`` that fits) and their leases."""
    held = list(leases)
    granted = []
    for waiter in order:
        placed = place(inventory, held, waiter.request, placement)
        if placed is None:
            break
        granted.append((waiter, placed))
        held += placed
    return granted


def _victims_on(gpu: GpuInfo, held: Sequence[Held], head: Waiter) -> list[Held] | None:
    """The fewest, cheapest leases on ``gpu`` whose going lets one share of ``head`` fit there; None if none do."""
    one = GpuRequest(1, head.request.memory_mb, head.request.cores)
    alone = Inventory((gpu,), "")
    mine = [h for h in held if h.lease.gpu == gpu.index]
    candidates = sorted((h for h in mine if h.preemptible and h.priority < head.priority),
                        key=lambda h: (h.priority, -h.since, -h.id))
    taken: list[Held] = []

    def fits(gone: list[Held]) -> bool:
        return place(alone, [h.lease for h in mine if h not in gone], one) is not None

    for victim in candidates:
        if fits(taken):
            break
        taken.append(victim)
    if not fits(taken):
        return None
    for victim in reversed(list(taken)):  # spare the dearest ones the others make unnecessary
        if fits([t for t in taken if t is not victim]):
            taken.remove(victim)
    return taken


def victims(inventory: Inventory, held: Sequence[Held], head: Waiter) -> list[Held] | None:
    """The leases to preempt so that ``head`` fits: [] when it fits once those already going are gone (wait),
    None when no preemption makes it fit."""
    staying = [h for h in held if not h.preempting]
    per_gpu = []
    for gpu in inventory.gpus:
        found = _victims_on(gpu, staying, head)
        if found is not None:
            cost = (max((v.priority for v in found), default=-math.inf), len(found), gpu.index)
            per_gpu.append((cost, found))
    if len(per_gpu) < head.request.count:
        return None
    per_gpu.sort(key=lambda c: c[0])
    return [v for _, found in per_gpu[:head.request.count] for v in found]
