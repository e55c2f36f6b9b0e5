"""The GPU pool's pure policy on synthetic inventories: placement, queue order with aging, preemption.

The simulations drive :mod:`aipipe.engine.gpupolicy` the way the pool does (each tick: ends, requeues, arrivals,
grants of the queue's fitting prefix, victims for a head that does not fit) with seeded random arrivals, and check
the invariants at every step.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import pytest

from aipipe.engine.gpu import GpuInfo, GpuRequest, Inventory, Lease, fits_at_all
from aipipe.engine.gpupolicy import (
    BINPACK,
    SPREAD,
    Held,
    Waiter,
    admit,
    effective_priority,
    place,
    queue_order,
    victims,
)

GRACE_TICKS = 2


def assert_not_overcommitted(inventory: Inventory, leases: list[Lease]) -> None:
    for gpu in inventory.gpus:
        mine = [lease for lease in leases if lease.gpu == gpu.index]
        assert sum(lease.cores or 0 for lease in mine) <= 100, mine
        if any(lease.memory_mb is None for lease in mine):
            assert len(mine) == 1, mine  # all of its memory: nobody else on it
        elif gpu.memory_mb:
            assert sum(lease.memory_mb or 0 for lease in mine) <= gpu.memory_mb, mine


@dataclass
class Job:
    waiter: Waiter
    left: int  # ticks of work left (a preempted job checkpoints: it loses none)
    preemptible: bool
    leases: list[Held] = field(default_factory=list)
    ends_at: int | None = None  # set when told to go: the end of its grace


def random_request(rng: random.Random) -> GpuRequest:
    kind = rng.random()
    if kind < 0.2:
        return GpuRequest(rng.choice([1, 1, 2]))
    if kind < 0.3:
        return GpuRequest(1, None, rng.randint(10, 60))
    return GpuRequest(rng.choice([1, 1, 1, 2]), rng.randint(1, 40) * 1024, rng.choice([None, rng.randint(5, 70)]))


class Sim:
    """The pool's loop over a synthetic machine, checking the invariants as it goes."""

    def __init__(self, inventory: Inventory, aging_s: float, seed: int) -> None:
        self.inventory, self.aging_s, self.rng = inventory, aging_s, random.Random(seed)
        self.waiting: dict[int, Job] = {}
        self.running: dict[int, Job] = {}
        self.next_id = 1
        self.granted_at: dict[int, int] = {}  # job's first waiter id -> tick of its last grant
        self.preemptions = 0
        self.preempted_for: dict[int, int] = {}  # a job told to go -> the waiter it goes for

    def arrive(self, now: int, priority: int, request: GpuRequest, preemptible: bool, work: int) -> Waiter:
        waiter = Waiter(self.next_id, request, priority, float(now))
        self.next_id += 1
        self.waiting[waiter.id] = Job(waiter, work, preemptible)
        return waiter

    def held(self) -> list[Held]:
        return [h for job in self.running.values() for h in job.leases]

    def tick(self, now: int) -> None:
        for wid, job in list(self.running.items()):
            if job.ends_at is not None and now >= job.ends_at:  # preempted: queued again behind its preemptor
                del self.running[wid]
                behind = self.preempted_for.pop(wid)
                again = Waiter(self.next_id, job.waiter.request, job.waiter.priority, job.waiter.since, behind)
                self.next_id += 1
                self.waiting[again.id] = Job(again, job.left, job.preemptible)
                continue
            if job.ends_at is None:
                job.left -= 1
                if job.left <= 0:
                    del self.running[wid]
        order = queue_order([j.waiter for j in self.waiting.values()], now, self.aging_s)
        granted = admit(self.inventory, [h.lease for h in self.held()], order)
        self.check_order(order, [w for w, _ in granted], now)
        for waiter, placed in granted:
            job = self.waiting.pop(waiter.id)
            job.leases = [Held(waiter.id * 100 + i, lease, waiter.priority, job.preemptible, float(now))
                          for i, lease in enumerate(placed)]
            self.running[waiter.id] = job
            self.granted_at[waiter.id] = now
        assert_not_overcommitted(self.inventory, [h.lease for h in self.held()])
        if order and not granted:
            self.preempt_for(order[0], now)

    def preempt_for(self, head: Waiter, now: int) -> None:
        held = self.held()
        going = {h.id for h in held if self.running[h.id // 100].ends_at is not None}
        marked = [Held(h.id, h.lease, h.priority, h.preemptible, h.since, h.id in going) for h in held]
        chosen = victims(self.inventory, marked, head)
        if not chosen:
            return
        for victim in chosen:
            assert victim.preemptible and victim.priority < head.priority and victim.id not in going
        gone = going | {v.id for v in chosen}
        left = [h.lease for h in held if h.id not in gone]
        assert place(self.inventory, left, head.request) is not None  # it frees enough
        if head.request.count == 1:  # and no more than it needs: sparing any one victim leaves it short
            for victim in chosen:
                assert place(self.inventory, [*left, victim.lease], head.request) is None
        for victim in chosen:
            job = self.running[victim.id // 100]
            if job.ends_at is None:
                job.ends_at = now + GRACE_TICKS
                self.preempted_for[victim.id // 100] = head.id
                self.preemptions += 1

    def check_order(self, order: list[Waiter], granted: list[Waiter], now: int) -> None:
        """Strict order, and the aging bound: a later arrival B goes ahead of a waiter A (or of the one A waits
        behind) only if B.since - A.since < (B.priority - A.priority) * aging_s."""
        assert granted == order[:len(granted)]
        if self.aging_s <= 0:
            return  # no aging, no bound
        waiting = {w.id: w for w in order}  # as the queue stood at this look

        def may_pass(b: Waiter, a: Waiter) -> bool:
            return b.since <= a.since or b.id == a.id or b.since - a.since < (b.priority - a.priority) * self.aging_s

        for b in granted:
            for a in order[len(granted):]:
                preemptor = waiting.get(a.behind) if a.behind is not None else None
                assert may_pass(b, a) or (preemptor is not None and may_pass(b, preemptor)), (b, a, now)


def machine(rng: random.Random, count: int) -> Inventory:
    return Inventory(tuple(GpuInfo(i, rng.choice([16384, 40960, 81920])) for i in range(count)), "synthetic")


@pytest.mark.parametrize("seed", range(6))
def test_random_arrivals_never_overcommit_keep_order_and_preempt_only_lower_priority(seed: int) -> None:
    rng = random.Random(seed)
    sim = Sim(machine(rng, rng.randint(2, 8)), aging_s=rng.choice([5.0, 20.0]), seed=seed)
    for now in range(400):
        for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
            request = random_request(rng)
            if fits_at_all(sim.inventory, request):
                continue  # refused when asked (it could never be granted)
            sim.arrive(now, rng.randint(0, 3), request, rng.random() < 0.6, rng.randint(2, 12))
        sim.tick(now)
    assert sim.granted_at and sim.preemptions > 0  # the run exercised grants and preemption


def test_a_low_priority_waiter_is_granted_within_the_aging_bound_and_starves_without_aging() -> None:
    inventory = Inventory((GpuInfo(0, 81920),), "one GPU")
    for aging_s, granted in ((10.0, True), (0.0, False)):
        sim = Sim(inventory, aging_s, seed=1)
        low = sim.arrive(0, 0, GpuRequest(1), False, 1)
        for now in range(300):  # a stream of priority-3 whole-GPU jobs, one each tick, that keep the GPU busy
            sim.arrive(now, 3, GpuRequest(1), False, 1)
            sim.tick(now)
        assert (low.id in sim.granted_at) is granted
        if granted:  # overtaken only by arrivals within (3 - 0) * 10 s of it: granted once those are through
            assert sim.granted_at[low.id] <= 3 * aging_s + 31


def test_aging_raises_priority_one_level_per_interval() -> None:
    waiter = Waiter(1, GpuRequest(1), 2, since=100.0)
    assert [effective_priority(waiter, now, 30.0) for now in (100.0, 129.9, 130.0, 160.0)] == [2, 2, 3, 4]
    assert effective_priority(waiter, 1000.0, 0.0) == 2
    late_high = Waiter(2, GpuRequest(1), 3, since=150.0)
    assert [w.id for w in queue_order([late_high, waiter], 155.0, 30.0)] == [1, 2]  # 2+1 ties 3: earlier first
    assert [w.id for w in queue_order([late_high, waiter], 125.0, 30.0)] == [2, 1]


def test_a_preempted_waiter_waits_behind_its_preemptor() -> None:
    high = Waiter(5, GpuRequest(1), 3, since=50.0)
    victim = Waiter(6, GpuRequest(1), 0, since=0.0, behind=5)
    other = Waiter(7, GpuRequest(1), 1, since=60.0)
    assert [w.id for w in queue_order([victim, other, high], 200.0, 30.0)] == [5, 6, 7]
    assert [w.id for w in queue_order([victim, other], 200.0, 30.0)] == [6, 7]  # granted: back to its aged place


def test_placement_packs_by_memory_and_compute_or_spreads() -> None:
    inventory = Inventory((GpuInfo(0, 81920), GpuInfo(1, 81920), GpuInfo(2, 40960)), "test")
    busy = [Lease(0, 20480, 50), Lease(1, 20480, 10)]
    share = GpuRequest(1, 10240, 40)
    assert place(inventory, busy, share, BINPACK) == [Lease(0, 10240, 40)]  # fullest after it (memory + compute)
    assert place(inventory, busy, share, SPREAD) == [Lease(2, 10240, 40)]  # the emptiest
    assert place(inventory, busy, GpuRequest(1, 10240, 60), BINPACK) == [Lease(1, 10240, 60)]  # 50 + 60 > 100
    assert place(inventory, busy, GpuRequest(3, 1024, 60)) is None
    assert place(inventory, busy, GpuRequest(1, None, 30)) == [Lease(2, None, 30)]  # compute only: all memory
    assert place(inventory, [*busy, Lease(2, 1024)], GpuRequest(1, None, 30)) is None


def test_preemption_takes_the_newest_lowest_priority_leases_and_never_equal_or_unpreemptible() -> None:
    inventory = Inventory((GpuInfo(0, 81920), GpuInfo(1, 81920)), "test")
    held = [Held(1, Lease(0, 40960), 1, True, since=10.0), Held(2, Lease(0, 40960), 1, True, since=20.0),
            Held(3, Lease(1, 40960), 2, False, since=5.0), Held(4, Lease(1, 40960), 0, True, since=1.0)]
    head = Waiter(9, GpuRequest(1, 40960), 2, since=30.0)
    assert [v.id for v in victims(inventory, held, head) or []] == [4]  # priority 0 before the priority-1 ones
    bigger = Waiter(9, GpuRequest(1, 81920), 2, since=30.0)
    assert [v.id for v in victims(inventory, held, bigger) or []] == [2, 1]  # GPU 1 holds an unpreemptible lease
    assert victims(inventory, held, Waiter(9, GpuRequest(1, 81920), 1, since=30.0)) is None  # equal: never
    going = [Held(2, Lease(0, 40960), 1, True, 20.0, preempting=True), *held[:1], *held[2:]]
    assert victims(inventory, going, head) == []  # room already being freed: wait for it
    assert victims(inventory, held[:1] + held[2:3], Waiter(9, GpuRequest(2), 5, since=0.0)) is None
