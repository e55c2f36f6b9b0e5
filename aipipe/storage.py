"""One storage module for every step and the engine.

URIs are ``s3://bucket/key`` (through the ``minio`` SDK, imported lazily so GPU images need
not carry it) or ``file:///abs/path`` (the embedded default). Local writes are atomic
(temporary file, then rename); S3 object puts are atomic by nature.
"""

from __future__ import annotations

import builtins
import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import unquote, urlparse

from aipipe.confine import confined
from aipipe.errors import NotFoundError, ServiceUnavailable, UserError

if TYPE_CHECKING:
    from aipipe.config import Config


@dataclass(frozen=True)
class Location:
    """A parsed storage URI."""

    scheme: str  # "s3" or "file"
    bucket: str  # s3 bucket; "" for file
    key: str  # s3 object key, or the absolute local path for file

    @property
    def uri(self) -> str:
        if self.scheme == "s3":
            return f"s3://{self.bucket}/{self.key}"
        return Path(self.key).as_uri()


def parse_uri(uri: str) -> Location:
    """Parse ``s3://bucket/key`` or ``file:///abs/path``; anything else is a user error."""
    parsed = urlparse(uri)
    if parsed.scheme == "s3":
        if not parsed.netloc:
            raise UserError(f"S3 URI has no bucket: {uri!r}", field="uri")
        return Location("s3", parsed.netloc, parsed.path.lstrip("/"))
    if parsed.scheme == "file":
        path = unquote(parsed.path)
        if parsed.netloc not in ("", "localhost") or not path.startswith("/"):
            raise UserError(f"file URI must be absolute (file:///abs/path): {uri!r}", field="uri")
        return Location("file", "", os.path.normpath(path))
    raise UserError(f"unsupported storage URI {uri!r}: use s3://bucket/key or file:///abs/path", field="uri")


def join(uri: str, *parts: str) -> str:
    """Append path parts to a storage URI; a part with a ``..`` segment is refused (it would leave the prefix)."""
    base = uri.rstrip("/")
    for part in parts:
        if part and ".." in part.split("/"):
            raise UserError(f"{part!r} must not contain '..'", field="key")
    extra = "/".join(p.strip("/") for p in parts if p)
    return f"{base}/{extra}" if extra else base


@dataclass
class StorageStats:
    """Counts of calls that move bytes; tests use them to prove idempotence."""

    uploads: int = 0
    downloads: int = 0


class Backend(Protocol):
    def put_file(self, loc: Location, src: Path) -> None: ...
    def get_file(self, loc: Location, dest: Path) -> None: ...
    def get_bytes(self, loc: Location) -> bytes: ...
    def etag(self, loc: Location) -> str | None: ...
    def list(self, loc: Location) -> Iterator[Location]: ...
    def delete(self, loc: Location) -> None: ...


class LocalBackend:
    """``file://`` URIs; writes go to a temporary file in the target folder, then rename."""

    def put_file(self, loc: Location, src: Path) -> None:
        dest = Path(loc.key)
        dest.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".tmp")
        os.close(fd)
        try:
            shutil.copyfile(src, tmp)
            os.replace(tmp, dest)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def get_file(self, loc: Location, dest: Path) -> None:
        src = Path(loc.key)
        if not src.is_file():
            raise NotFoundError(f"no such object: {loc.uri}", field="uri")
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)

    def get_bytes(self, loc: Location) -> bytes:
        try:
            return Path(loc.key).read_bytes()
        except (FileNotFoundError, IsADirectoryError) as exc:
            raise NotFoundError(f"no such object: {loc.uri}", field="uri") from exc

    def etag(self, loc: Location) -> str | None:
        path = Path(loc.key)
        if not path.is_file():
            return None
        digest = hashlib.md5(usedforsecurity=False)
        with path.open("rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                digest.update(chunk)
        return digest.hexdigest()

    def list(self, loc: Location) -> Iterator[Location]:
        root = Path(loc.key)
        if root.is_file():
            yield loc
            return
        if not root.is_dir():
            return
        for path in sorted(root.rglob("*")):
            if path.is_file() and not path.name.endswith(".tmp"):
                yield Location("file", "", str(path))

    def delete(self, loc: Location) -> None:
        path = Path(loc.key)
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)


class S3Backend:
    """``s3://`` URIs through the minio SDK."""

    def __init__(self, endpoint: str, access_key: str, secret_key: str, region: str) -> None:
        try:
            from minio import Minio
        except ImportError as exc:  # pragma: no cover - GPU images without minio
            raise UserError("s3:// storage needs the 'minio' package", field="storage.root") from exc
        parsed = urlparse(endpoint or "https://s3.amazonaws.com")
        if not parsed.netloc:
            raise UserError(f"not a URL: {endpoint!r}", field="storage.s3_endpoint")
        self.endpoint = endpoint
        self.client = Minio(parsed.netloc, access_key=access_key or None, secret_key=secret_key or None,
                            secure=parsed.scheme == "https", region=region or None)

    def _call(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        from minio.error import InvalidResponseError, S3Error, ServerError
        from urllib3.exceptions import HTTPError

        try:
            return fn(*args, **kwargs)
        except S3Error as exc:
            if exc.code in ("NoSuchKey", "NoSuchBucket"):
                raise NotFoundError(f"{exc.code}: {exc.bucket_name}/{exc.object_name}", field="uri") from exc
            if exc.code in ("AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch"):
                raise UserError(f"S3 refused the credentials ({exc.code})", field="storage.s3_access_key") from exc
            raise ServiceUnavailable(f"S3 error at {self.endpoint}: {exc.code}") from exc
        except (InvalidResponseError, ServerError) as exc:
            status = getattr(exc, "_code", None) or getattr(exc, "_status_code", None)
            if status in (401, 403):
                raise UserError(f"S3 at {self.endpoint} refused the request ({status}): check the credentials",
                                field="storage.s3_access_key") from exc
            raise ServiceUnavailable(f"S3 endpoint {self.endpoint} answered {status or 'badly'}") from exc
        except (HTTPError, OSError) as exc:
            raise ServiceUnavailable(f"S3 endpoint {self.endpoint} unreachable: {exc}") from exc

    def ensure_bucket(self, bucket: str) -> None:
        if not self._call(self.client.bucket_exists, bucket):
            self._call(self.client.make_bucket, bucket)

    def put_file(self, loc: Location, src: Path) -> None:
        self.ensure_bucket(loc.bucket)
        self._call(self.client.fput_object, loc.bucket, loc.key, str(src))

    def get_file(self, loc: Location, dest: Path) -> None:
        dest.parent.mkdir(parents=True, exist_ok=True)
        self._call(self.client.fget_object, loc.bucket, loc.key, str(dest))

    def get_bytes(self, loc: Location) -> bytes:
        resp = self._call(self.client.get_object, loc.bucket, loc.key)
        try:
            return resp.read()
        finally:
            resp.close()
            resp.release_conn()

    def etag(self, loc: Location) -> str | None:
        try:
            return self._call(self.client.stat_object, loc.bucket, loc.key).etag
        except NotFoundError:
            return None

    def list(self, loc: Location) -> Iterator[Location]:
        if not self._call(self.client.bucket_exists, loc.bucket):
            return
        for obj in self._call(self.client.list_objects, loc.bucket, prefix=loc.key, recursive=True):
            yield Location("s3", loc.bucket, obj.object_name)

    def delete(self, loc: Location) -> None:
        for item in list(self.list(loc)):
            self._call(self.client.remove_object, item.bucket, item.key)


@dataclass
class Storage:
    """Reads and writes objects by URI; one instance per process, built from the config."""

    s3_endpoint: str = ""
    s3_access_key: str = ""
    s3_secret_key: str = ""
    s3_region: str = "us-east-1"
    stats: StorageStats = field(default_factory=StorageStats)
    _s3: S3Backend | None = field(default=None, repr=False)
    _local: LocalBackend = field(default_factory=LocalBackend, repr=False)

    @classmethod
    def from_config(cls, cfg: Config) -> Storage:
        return cls(
            s3_endpoint=cfg.get("storage.s3_endpoint"),
            s3_access_key=cfg.get("storage.s3_access_key"),
            s3_secret_key=cfg.get("storage.s3_secret_key"),
            s3_region=cfg.get("storage.s3_region"),
        )

    def _backend(self, loc: Location) -> Backend:
        if loc.scheme == "file":
            return self._local
        if self._s3 is None:
            self._s3 = S3Backend(self.s3_endpoint, self.s3_access_key, self.s3_secret_key, self.s3_region)
        return self._s3

    def put_file(self, uri: str, src: str | Path) -> str:
        loc = parse_uri(uri)
        self._backend(loc).put_file(loc, Path(src))
        self.stats.uploads += 1
        return loc.uri

    def put_bytes(self, uri: str, data: bytes) -> str:
        with tempfile.NamedTemporaryFile(delete=False) as tmp:
            tmp.write(data)
        try:
            return self.put_file(uri, tmp.name)
        finally:
            os.unlink(tmp.name)

    def put_text(self, uri: str, text: str) -> str:
        return self.put_bytes(uri, text.encode())

    def get_file(self, uri: str, dest: str | Path) -> Path:
        loc = parse_uri(uri)
        self._backend(loc).get_file(loc, Path(dest))
        self.stats.downloads += 1
        return Path(dest)

    def get_bytes(self, uri: str) -> bytes:
        loc = parse_uri(uri)
        data = self._backend(loc).get_bytes(loc)
        self.stats.downloads += 1
        return data

    def get_text(self, uri: str) -> str:
        return self.get_bytes(uri).decode()

    def exists(self, uri: str) -> bool:
        return self.etag(uri) is not None

    def etag(self, uri: str) -> str | None:
        """Content tag of an object (MD5 for local files and single-part S3 puts), None if absent."""
        loc = parse_uri(uri)
        return self._backend(loc).etag(loc)

    def list(self, prefix_uri: str) -> list[str]:
        """URIs of every object under a prefix (recursive), sorted."""
        loc = parse_uri(prefix_uri)
        return sorted(item.uri for item in self._backend(loc).list(loc))

    def delete(self, uri: str) -> None:
        """Delete an object, or everything under a prefix."""
        loc = parse_uri(uri)
        self._backend(loc).delete(loc)

    def upload_dir(self, local_dir: str | Path, uri: str) -> builtins.list[str]:  # `list` is a method here
        """Upload every file below ``local_dir`` to ``uri``; returns the object URIs."""
        root = Path(local_dir)
        return [self.put_file(join(uri, p.relative_to(root).as_posix()), p)
                for p in sorted(root.rglob("*")) if p.is_file()]

    def download_dir(self, uri: str, local_dir: str | Path) -> Path:
        """Download every object under ``uri`` into ``local_dir`` (a local URI is copied)."""
        root = Path(local_dir)
        base = parse_uri(uri).key.rstrip("/")
        for item in self.list(uri):
            rel = parse_uri(item).key[len(base):].lstrip("/")
            self.get_file(item, confined(root, rel, field="key"))
        return root

    def local_path(self, uri: str) -> Path | None:
        """The filesystem path of a ``file://`` URI (no copy), else None."""
        loc = parse_uri(uri)
        return Path(loc.key) if loc.scheme == "file" else None
