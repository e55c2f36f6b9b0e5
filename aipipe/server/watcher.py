"""A watcher of the storage root for ``aipipe server``: new objects under a prefix (a data drop) are
posted to the event endpoint as a standard S3 event notification, the body a MinIO webhook sends.

``s3://`` roots are listed with the minio SDK (each object's ETag as the store reports it); ``file://``
roots are walked (the ETag is the file's MD5, as S3 gives for a single-part upload; the bucket is
reported as :data:`LOCAL_BUCKET` and keys are relative to the root). Each scan posts one event with a
record per object not posted before by this watcher; the server remembers what it saw, so objects
posted again after a restart start nothing.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from aipipe.config import Config
from aipipe.storage import S3Backend, join, parse_uri

LOCAL_BUCKET = "local"
EVENT_NAME = "s3:ObjectCreated:Put"
MAX_RECORDS = 1000  # per posted event; the rest go in the next scans
DISCRIMINATOR = "s3"


@dataclass(frozen=True)
class StoredObject:
    bucket: str
    key: str
    etag: str
    size: int


def data_prefix_uri(cfg: Config, prefix: str) -> str:
    """The watched place: ``<storage root>/<prefix>``."""
    root = str(cfg.get("storage.root") or (Path(cfg.home) / "store").as_uri())
    return join(root, prefix)


def key_prefix(cfg: Config, prefix: str) -> tuple[str, str]:
    """(bucket, key prefix) the records of a data drop carry, for bindings to select on."""
    loc = parse_uri(data_prefix_uri(cfg, prefix))
    if loc.scheme == "s3":
        return loc.bucket, loc.key.rstrip("/") + "/"
    return LOCAL_BUCKET, prefix.strip("/") + "/"


def s3_event(objects: list[StoredObject], now: datetime | None = None) -> dict[str, Any]:
    """The notification MinIO posts to a webhook target (AWS's ``Records`` plus ``EventName``/``Key``)."""
    when = (now or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    records = [{
        "eventVersion": "2.0", "eventSource": "minio:s3", "awsRegion": "", "eventTime": when,
        "eventName": EVENT_NAME, "userIdentity": {"principalId": "aipipe"},
        "requestParameters": {"sourceIPAddress": "127.0.0.1"}, "responseElements": {},
        "s3": {"s3SchemaVersion": "1.0", "configurationId": "aipipe-watcher",
               "bucket": {"name": o.bucket, "ownerIdentity": {"principalId": "aipipe"},
                          "arn": f"arn:aws:s3:::{o.bucket}"},
               "object": {"key": quote(o.key), "size": o.size, "eTag": o.etag,
                          "sequencer": hashlib.sha1(f"{o.key}@{o.etag}".encode()).hexdigest()[:16].upper()}},
    } for o in objects]
    first = objects[0]
    return {"EventName": EVENT_NAME, "Key": f"{first.bucket}/{first.key}", "Records": records}


@dataclass
class StorageWatcher:
    """Lists the watched prefix and posts what is new through ``post`` (the event endpoint's client)."""

    cfg: Config
    prefix: str
    post: Callable[[dict[str, Any]], None]
    posted: set[tuple[str, str, str]] = field(default_factory=set)

    def scan(self) -> int:
        """One pass; returns the number of objects posted."""
        new = [o for o in self._objects() if (o.bucket, o.key, o.etag) not in self.posted][:MAX_RECORDS]
        if not new:
            return 0
        self.post(s3_event(new))
        self.posted.update((o.bucket, o.key, o.etag) for o in new)
        return len(new)

    def _objects(self) -> Iterator[StoredObject]:
        loc = parse_uri(data_prefix_uri(self.cfg, self.prefix))
        if loc.scheme == "s3":
            backend = S3Backend(self.cfg.get("storage.s3_endpoint"), self.cfg.get("storage.s3_access_key"),
                                self.cfg.get("storage.s3_secret_key"), self.cfg.get("storage.s3_region"))
            if not backend.client.bucket_exists(loc.bucket):
                return
            prefix = loc.key.rstrip("/") + "/"
            for obj in backend.client.list_objects(loc.bucket, prefix=prefix, recursive=True):
                if obj.object_name and not obj.is_dir:
                    yield StoredObject(loc.bucket, obj.object_name, str(obj.etag or "").strip('"'), int(obj.size or 0))
            return
        root = Path(loc.key)
        base = root.parents[len(Path(self.prefix.strip("/")).parts) - 1] if self.prefix.strip("/") else root
        if not root.is_dir():
            return
        for dirpath, _dirs, files in os.walk(root):
            for name in sorted(files):
                path = Path(dirpath, name)
                if name.endswith(".tmp") or not path.is_file() or path.is_symlink():
                    continue
                yield StoredObject(LOCAL_BUCKET, path.relative_to(base).as_posix(), _md5(path), path.stat().st_size)


def _md5(path: Path) -> str:
    digest = hashlib.md5(usedforsecurity=False)
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()
