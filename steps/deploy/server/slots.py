"""The shared-memory slot pool through which CPU workers and GPU processes exchange tensors.

Segments are allocated once at start, with a fixed size: ``<prefix>-in`` holds one float32
input tensor (C, H, W) per slot, ``<prefix>-out`` one logits row per slot and, when the replicas decode
JPEGs themselves, ``<prefix>-enc`` one encoded image of at most ``encoded_bytes`` per slot. The proxy owns the
free list (a slot per in-flight request, so the pool size is the service's queue bound); workers
and GPU processes only attach and read/write the slot a control message names. The segments
belong to the supervisor: a child that dies owns nothing, and the per-service prefix
(``aipipe-srv-<pid>-<token>``) lets shutdown, and a later service, remove leftovers for certain.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from dataclasses import dataclass
from multiprocessing import shared_memory
from pathlib import Path

import numpy as np

from aipipe.errors import UserError
from aipipe.services.process import process_alive

SHM_DIR = Path("/dev/shm")
PREFIX_ROOT = "aipipe-srv-"


def new_prefix() -> str:
    """A name prefix unique to this service: the supervisor's pid and a random token."""
    return f"{PREFIX_ROOT}{os.getpid()}-{secrets.token_hex(4)}"


@dataclass(frozen=True)
class PoolLayout:
    """What a process needs to attach the pool: names and shapes (picklable, tiny)."""

    prefix: str
    slots: int
    input_shape: tuple[int, int, int]
    num_classes: int
    encoded_bytes: int = 0  # per slot, for JPEGs the replica decodes; 0 = no such segment

    @property
    def input_name(self) -> str:
        return f"{self.prefix}-in"

    @property
    def encoded_name(self) -> str:
        return f"{self.prefix}-enc"

    @property
    def output_name(self) -> str:
        return f"{self.prefix}-out"

    def input_bytes(self) -> int:
        return self.slots * int(np.prod(self.input_shape)) * 4

    def output_bytes(self) -> int:
        return self.slots * self.num_classes * 4


class SlotPool:
    """Views over the segments: ``inputs[slot]`` (C, H, W), ``outputs[slot]`` (classes,) and
    ``encoded[slot]`` (encoded_bytes,) uint8."""

    def __init__(self, layout: PoolLayout, *, create: bool) -> None:
        self.layout = layout
        self._owner = create
        sizes = [(layout.input_name, layout.input_bytes()), (layout.output_name, layout.output_bytes())]
        if layout.encoded_bytes:
            sizes.append((layout.encoded_name, layout.slots * layout.encoded_bytes))
        self._segments: list[shared_memory.SharedMemory] = []
        try:
            for name, size in sizes:
                self._segments.append(shared_memory.SharedMemory(name, create=create, size=size))
        except BaseException:
            for segment in self._segments:
                self._release(segment)
            raise
        if create:
            self._reserve()
        self.inputs: np.ndarray = np.ndarray((layout.slots, *layout.input_shape), dtype=np.float32,
                                             buffer=self._segments[0].buf)
        self.outputs: np.ndarray = np.ndarray((layout.slots, layout.num_classes), dtype=np.float32,
                                              buffer=self._segments[1].buf)
        self.encoded: np.ndarray = (np.ndarray((layout.slots, layout.encoded_bytes), dtype=np.uint8,
                                               buffer=self._segments[2].buf)
                                    if layout.encoded_bytes else np.empty((0, 0), dtype=np.uint8))

    def _reserve(self) -> None:
        """Back every page now: a /dev/shm too small fails here with a clear error, not SIGBUS later."""
        for segment in self._segments:
            try:
                os.posix_fallocate(segment._fd, 0, segment.size)  # type: ignore[attr-defined]
            except OSError as exc:
                self.close()
                total = sum(s.size for s in self._segments) / 2**20
                raise UserError(f"cannot reserve {total:.0f} MiB of shared memory in {SHM_DIR} for "
                                f"{self.layout.slots} slots ({exc.strerror}); lower --queue-size or enlarge /dev/shm",
                                field="queue-size") from None

    @classmethod
    def create(cls, layout: PoolLayout) -> SlotPool:
        return cls(layout, create=True)

    @classmethod
    def attach(cls, layout: PoolLayout) -> SlotPool:
        return cls(layout, create=False)

    def _release(self, segment: shared_memory.SharedMemory) -> None:
        segment.close()
        if self._owner:
            with contextlib.suppress(FileNotFoundError):
                segment.unlink()

    def close(self) -> None:
        """Drop the views and detach; the creator also unlinks the segments."""
        self.inputs = self.outputs = np.empty(0, dtype=np.float32)
        self.encoded = np.empty((0, 0), dtype=np.uint8)
        for segment in self._segments:
            self._release(segment)


def segments(prefix: str) -> list[Path]:
    """The files under /dev/shm whose names start with ``prefix``."""
    if not SHM_DIR.is_dir():
        return []
    return sorted(p for p in SHM_DIR.iterdir() if p.name.startswith(prefix))


def remove_segments(prefix: str) -> list[str]:
    """Unlink every segment of a service (after shutdown or a crash); returns the names removed."""
    removed = []
    for path in segments(prefix):
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
            removed.append(path.name)
    return removed


def remove_stale_segments() -> list[str]:
    """Unlink segments of services whose supervisor process no longer exists (killed with -9)."""
    removed: list[str] = []
    for path in segments(PREFIX_ROOT):
        pid_text = path.name[len(PREFIX_ROOT):].split("-", 1)[0]
        if pid_text.isdigit() and not process_alive(int(pid_text)):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
                removed.append(path.name)
    return removed
