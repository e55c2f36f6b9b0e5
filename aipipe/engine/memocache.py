"""The memoization cache of Argo's ``template.memoize``, kept in the local ConfigMap store.

As Argo keeps it: the cache is ConfigMap ``cache.configMap.name`` and each memoize key one of its keys, whose
value is the entry's JSON (``nodeID``, ``outputs``, ``creationTimestamp``, ``lastHitTimestamp``); locally
that is the file ``<home>/configmaps/NAME/KEY`` (:mod:`aipipe.engine.configmaps`). The engine labels the
ConfigMaps it creates as caches and, as Argo does, refuses to write into one without that label (a ConfigMap of
settings that happens to share the name). Reads and writes hold one lock file across engine processes and
replace a key's file atomically, so runs sharing a cache never see or leave half an entry.
"""

from __future__ import annotations

import fcntl
import json
import os
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from aipipe.engine.configmaps import ConfigMapStore

CACHE_LABEL = ("workflows.argoproj.io/configmap-type", "Cache")  # the label Argo requires on a cache ConfigMap
MAX_CONFIGMAP_CHARS = 1048576  # Kubernetes' limit on a ConfigMap's data, which Argo's cache hits as an error
LOCK_NAME = ".memoize.lock"  # beside the ConfigMaps' folders (a name no ConfigMap can have)


class MemoError(Exception):
    """The cache cannot be read or written (Argo marks the node Error with this message)."""


def now_stamp() -> str:
    """A Kubernetes ``metav1.Time``: RFC 3339, whole seconds, UTC."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def stamp_age(stamp: str) -> float:
    """Seconds since the ``metav1.Time`` ``stamp``; ValueError when it is not one."""
    when = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    if when.tzinfo is None:
        raise ValueError(f"{stamp!r} has no time zone")
    return (datetime.now(UTC) - when).total_seconds()


class MemoCache:
    """Entries of the cache ConfigMaps under ``store.root``; ``name`` and ``key`` are checked by the caller
    (:class:`aipipe.engine.memo.Memo`) and again here by the store's own name rules."""

    def __init__(self, store: ConfigMapStore) -> None:
        self.store = store

    @contextmanager
    def _locked(self) -> Iterator[None]:
        self.store.root.mkdir(parents=True, exist_ok=True)
        with open(self.store.root / LOCK_NAME, "a+") as handle:  # its own open file: threads exclude each other too
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def load(self, name: str, key: str) -> dict[str, Any] | None:
        """The entry under ``key`` (its ``lastHitTimestamp`` set to now and written back, as Argo's Load does),
        or None when the ConfigMap or the key does not exist or is empty."""
        with self._locked():
            folder = self.store.folder(name, "memoize.cache.configMap.name")
            if not folder.is_dir():
                return None
            self._check_label(name)
            path = folder / key
            text = path.read_text() if path.is_file() else ""
            if not text:
                return None
            entry = _parse(text)
            entry["lastHitTimestamp"] = now_stamp()
            _replace(path, json.dumps(entry))
            return entry

    def save(self, name: str, key: str, node_id: str, outputs: Mapping[str, Any], missing_only: bool = False) -> None:
        """Store ``outputs`` under ``key`` (a new entry, created now), creating the labelled ConfigMap when it
        does not exist; ``missing_only`` leaves an entry the key already has."""
        stamp = now_stamp()
        text = json.dumps({"nodeID": node_id, "outputs": dict(outputs), "creationTimestamp": stamp,
                           "lastHitTimestamp": stamp})
        with self._locked():
            folder = self.store.folder(name, "memoize.cache.configMap.name")
            if folder.is_dir():
                self._check_label(name)
            else:
                folder.mkdir(parents=True)
                self.store.set_labels(name, dict([CACHE_LABEL]))
            others = self.store.data(name) or {}
            if missing_only and others.get(key):
                return
            others.pop(key, None)
            size = sum(len(k) + len(v) for k, v in others.items()) + len(key) + len(text)
            if size > MAX_CONFIGMAP_CHARS:
                raise MemoError(f"error creating cache entry: ConfigMap {name!r} is invalid: []: Too long: must have "
                                f"at most {MAX_CONFIGMAP_CHARS} characters (delete entries from {folder}, or use "
                                "another cache)")
            _replace(folder / key, text)

    def _check_label(self, name: str) -> None:
        label, value = CACHE_LABEL
        found = self.store.labels(name).get(label)
        if found is None:
            raise MemoError(f"memoization configmap doesn't have {label} label, refusing to use it (ConfigMap "
                            f"{name!r} was not made by a memoized node; use another cache name)")
        if found != value:
            raise MemoError(f"memoization configmap doesn't have label {label} = {value}, refusing to use it")


_ENTRY_FIELDS = {name.lower(): name for name in ("nodeID", "outputs", "creationTimestamp", "lastHitTimestamp",
                                                 "expiresAt")}


def _parse(text: str) -> dict[str, Any]:
    problem = "it is not an object"
    try:
        entry = json.loads(text)
        if isinstance(entry, dict):
            entry = _canonical_fields(entry)
            for field in ("creationTimestamp", "lastHitTimestamp"):
                if entry.get(field):
                    stamp_age(str(entry[field]))
            return entry
    except ValueError as exc:
        problem = str(exc)
    raise MemoError(f"malformed cache entry: could not unmarshal JSON; unable to parse: {problem}")


def _canonical_fields(entry: dict[str, Any]) -> dict[str, Any]:
    """The entry with its known fields under their own names: Go's decoder, which reads Argo's entries, matches
    field names case-insensitively (an older entry's ``NodeID`` is its ``nodeID``), an exact name winning."""
    out = dict(entry)
    for key, value in entry.items():
        field = _ENTRY_FIELDS.get(key.lower())
        if field is not None and key != field:
            del out[key]
            if field not in entry:
                out[field] = value
    return out


def _replace(path: Path, text: str) -> None:
    """Write ``path`` whole or not at all: a temporary file (a name no ConfigMap key can have) renamed over it."""
    fd, temporary = tempfile.mkstemp(prefix="@tmp-", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
