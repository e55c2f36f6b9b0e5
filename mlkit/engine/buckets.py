"""The batch sizes an engine captures a CUDA graph for (imports nothing: the serving replica and the PyTorch
backend both read it)."""

from __future__ import annotations


def batch_buckets(max_batch: int) -> list[int]:
    """Batch sizes that get their own CUDA graph (a batch runs padded to the first bucket that holds it):
    1, 2, 4, every fourth size to 32, then multiples of 8 at most a quarter apart, and ``max_batch``. Powers
    of two alone run up to half a batch as padding (17 rows as 32, 33 as 64); these run at most 3 rows extra
    below 32 and a quarter of the batch above it. Every graph shares one memory pool, so a bucket costs a
    capture, not memory."""
    sizes = [size for size in (1, 2, 4) if size < max_batch]
    size = 8
    while size < max_batch:
        sizes.append(size)
        size += 4 if size < 32 else max(8, size // 4 // 8 * 8)
    return [*sizes, max_batch]
