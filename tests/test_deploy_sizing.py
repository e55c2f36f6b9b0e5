"""Sizing: replicas that fit a GPU memory budget, per-replica caps, CPU workers from the compute share."""

from __future__ import annotations

import pytest

from aipipe.errors import UserError
from steps.deploy.sizing import size_service


@pytest.mark.parametrize(("memory_mb", "budget", "replicas", "cap"), [
    (1229, 5120, 4, 1254),  # the seed's 1.2 GB engine: 4 in 5 GB
    (1200, 5120, 4, 1254),
    (1300, 5120, 3, 1672),  # 3.86 fit -> 3, each capped at its even share
    (2500, 5120, 2, 2508),
    (5017, 5120, 1, 5017),  # exactly one after 2% headroom
    (512, 8192, 15, 535),
    ("1228.8", "5120", 4, 1254),  # parameters arrive as strings; fractions round up
])
def test_replicas_fit_the_budget_after_headroom(memory_mb, budget, replicas, cap):
    sizing = size_service(memory_mb, budget, 50)
    assert sizing.replicas == replicas
    assert sizing.gpu_memory_mb_per_replica == cap
    assert sizing.gpu_memory_mb_per_replica >= sizing.memory_mb
    assert sizing.replicas * sizing.gpu_memory_mb_per_replica + sizing.headroom_mib <= sizing.budget_mib


def test_a_tiny_measured_footprint_counts_as_the_floor():
    assert size_service("0.0", 1024, 50).memory_mb == 64  # CPU-measured RSS growth of a tiny model
    assert size_service("0.0", 1024, 50).replicas == 15


def test_headroom_is_configurable():
    assert size_service(1229, 5120, 50, headroom_percent=0).replicas == 4
    assert size_service(1229, 5120, 50, headroom_percent=10).replicas == 3


@pytest.mark.parametrize(("compute", "per_gpu", "limit", "workers"), [
    (100, 8, None, 8), (50, 8, None, 4), (30, 8, None, 3), (1, 8, None, 1), (50, 8, 2, 2), (100, 4, None, 4),
])
def test_cpu_workers_follow_the_compute_share(compute, per_gpu, limit, workers):
    sizing = size_service(1229, 5120, compute, cpu_workers_per_gpu=per_gpu, max_cpu_workers=limit)
    assert sizing.cpu_workers == workers and sizing.compute_percent == compute


@pytest.mark.parametrize(("args", "field"), [
    ((6000, 5120, 50), "gpu-memory-mib"),  # not even one replica fits
    ((-1, 5120, 50), "memory-mb"),
    (("abc", 5120, 50), "memory-mb"),
    ((1229, -5, 50), "gpu-memory-mib"),
    ((1229, 5120, 150), "gpu-compute-percent"),
    ((1229, 5120, "nan"), "gpu-compute-percent"),
])
def test_bad_sizing_input_names_the_flag(args, field):
    with pytest.raises(UserError) as err:
        size_service(*args)
    assert err.value.field == field and err.value.exit_code == 2


def test_a_budget_too_small_says_how_much_is_needed():
    with pytest.raises(UserError, match="at least 6123 MiB"):
        size_service(6000, 5120, 50)
