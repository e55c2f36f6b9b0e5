"""Prometheus metrics of one service (own registry, so several services can live in one process)."""

from __future__ import annotations

from typing import Any, Protocol

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from . import protocol as p

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256)


class LiveState(Protocol):
    """What the gauges read from the running service at each scrape."""

    def in_flight(self) -> int: ...

    def replicas_ready(self) -> int: ...


class ServiceMetrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.requests = Counter("aipipe_serving_requests", "Prediction requests by HTTP status code", ["code"],
                                registry=r)
        self.latency = Histogram("aipipe_serving_request_latency_seconds", "Prediction latency at the proxy",
                                 buckets=LATENCY_BUCKETS, registry=r)
        self.batch_size = Histogram("aipipe_serving_batch_size", "Requests per engine batch", buckets=BATCH_BUCKETS,
                                    registry=r)
        self.decoded = Counter("aipipe_serving_images_decoded", "Images served, by who decoded them (the CPU "
                               "workers, or the model replica on its device)", ["by"], registry=r)
        self.queue_depth = Gauge("aipipe_serving_queue_depth", "Requests in flight (shared-memory slots in use)",
                                 registry=r)
        self.queue_capacity = Gauge("aipipe_serving_queue_capacity", "Shared-memory slots (in-flight bound)",
                                    registry=r)
        self.replicas_ready = Gauge("aipipe_serving_replicas_ready", "GPU processes with a loaded engine", registry=r)
        self.gpu_restarts = Counter("aipipe_serving_gpu_process_restarts", "GPU process restarts", ["replica"],
                                    registry=r)
        self.worker_restarts = Counter("aipipe_serving_cpu_worker_restarts", "CPU worker restarts", ["worker"],
                                       registry=r)

    def bind(self, state: LiveState, capacity: int, replicas: int, workers: int) -> None:
        """Gauges read live from ``state`` when scraped; every replica's and worker's counter starts at 0."""
        self.queue_depth.set_function(state.in_flight)
        self.queue_capacity.set(capacity)
        self.replicas_ready.set_function(state.replicas_ready)
        for by in p.DECODED_BY.values():
            self.decoded.labels(by=by)
        for index in range(replicas):
            self.gpu_restarts.labels(replica=str(index))
        for index in range(workers):
            self.worker_restarts.labels(worker=str(index))

    def apply(self, report: dict[str, Any]) -> None:
        """Add a worker acceptor's report (:class:`~.front.FrontStats`) to these metrics."""
        for code, count in report.get("codes", {}).items():
            self.requests.labels(code=code).inc(count)
        for seconds in report.get("latencies", []):
            self.latency.observe(seconds)
        for size in report.get("batches", []):
            self.batch_size.observe(size)
        for by, count in report.get("decoded", {}).items():
            if int(by) in p.DECODED_BY:
                self.decoded.labels(by=p.DECODED_BY[int(by)]).inc(count)

    def render(self) -> bytes:
        return generate_latest(self.registry)
