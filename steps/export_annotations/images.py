"""Fetching a task's image from wherever it points, and checking that it decodes.

Supported: Label Studio uploads (``/data/upload/…``) and local-files storage
(``/data/local-files/?d=…``) fetched from Label Studio with the API token; ``http(s)://`` URLs;
``data:`` URLs; ``s3://`` URIs through :mod:`aipipe.storage`. ``file://`` is refused (counted as
missing): a task must not make the step read files of the machine it runs on.
A missing or unreadable image raises :class:`ImageProblem` (counted, never fatal); Label Studio
itself failing raises ServiceUnavailable through the retry policy.
"""

from __future__ import annotations

import base64
import binascii
import io
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from urllib.parse import unquote_to_bytes, urljoin, urlparse

from aipipe.errors import AipipeError, NotFoundError, ServiceUnavailable
from aipipe.storage import Storage

from .client import Retry, call_with_retries
from .skips import SkippedTask

FORMAT_EXTENSIONS = {"PNG": "png", "JPEG": "jpg", "GIF": "gif", "BMP": "bmp", "WEBP": "webp", "TIFF": "tiff"}
MAX_IMAGE_BYTES = 64 << 20
MAX_PIXELS = 100_000_000
WEB_ATTEMPTS = 2  # a dead image host is counted quickly; Label Studio itself gets the full retry policy


class ImageProblem(SkippedTask):
    """A task's image cannot be used."""


@dataclass(frozen=True)
class DecodedImage:
    ext: str
    width: int
    height: int


def decode(data: bytes) -> DecodedImage:
    """Check that bytes are a whole image Pillow can decode; its extension and size."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as image:
            if image.width * image.height > MAX_PIXELS:
                raise ImageProblem("corrupt_image", f"{image.width}x{image.height} exceeds {MAX_PIXELS} pixels")
            image.load()
            fmt = image.format or ""
            size = image.size
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, Image.DecompressionBombError) as exc:
        if isinstance(exc, ImageProblem):
            raise
        raise ImageProblem("corrupt_image", f"not a decodable image: {exc}") from exc
    if fmt not in FORMAT_EXTENSIONS:
        raise ImageProblem("corrupt_image", f"unsupported image format {fmt or 'unknown'}")
    return DecodedImage(FORMAT_EXTENSIONS[fmt], size[0], size[1])


def decode_data_url(url: str) -> bytes:
    """The payload of a ``data:[<type>][;base64],<data>`` URL."""
    header, sep, payload = url[5:].partition(",")
    if not sep:
        raise ImageProblem("missing_image", "malformed data URL")
    if header.endswith(";base64"):
        try:
            return base64.b64decode(payload, validate=False)
        except (binascii.Error, ValueError) as exc:
            raise ImageProblem("corrupt_image", f"bad base64 in data URL: {exc}") from exc
    return unquote_to_bytes(payload)


class ImageFetcher:
    """Fetches image bytes for task URLs; one HTTP session, Label Studio auth for its own paths."""

    def __init__(self, ls_url: str, auth_headers: Callable[[], Mapping[str, str]], storage: Storage,
                 retry: Retry, timeout: float = 30.0) -> None:
        import requests

        self.ls_url = ls_url.rstrip("/") + "/"
        self.ls_netloc = urlparse(self.ls_url).netloc
        self.auth_headers = auth_headers
        self.storage = storage
        self.retry = retry
        self.timeout = timeout
        self.session = requests.Session()

    def fetch(self, url: str) -> bytes:
        if not isinstance(url, str) or not url.strip():
            raise ImageProblem("missing_image", "the task has no image URL")
        url = url.strip()
        scheme = urlparse(url).scheme
        if scheme == "data":
            return decode_data_url(url)
        if scheme == "s3":
            try:
                return self.storage.get_bytes(url)
            except NotFoundError as exc:
                raise ImageProblem("missing_image", str(exc)) from exc
            except AipipeError as exc:
                raise ImageProblem("missing_image", f"cannot read {url}: {exc}") from exc
        if scheme in ("", "http", "https"):
            absolute = urljoin(self.ls_url, url)
            if urlparse(absolute).netloc == self.ls_netloc:
                return self._from_label_studio(absolute)
            return self._from_web(absolute)
        raise ImageProblem("missing_image", f"unsupported image URL scheme {scheme!r}")

    def _get(self, url: str, headers: Mapping[str, str]) -> bytes:
        import requests

        with self.session.get(url, headers=dict(headers), timeout=self.timeout, stream=True) as resp:
            if resp.status_code >= 400:
                err = requests.HTTPError(f"HTTP {resp.status_code}", response=resp)
                err.status_code = resp.status_code  # type: ignore[attr-defined]
                raise err
            chunks, size = [], 0
            for chunk in resp.iter_content(1 << 16):
                size += len(chunk)
                if size > MAX_IMAGE_BYTES:
                    raise ImageProblem("missing_image", f"larger than {MAX_IMAGE_BYTES >> 20} MiB")
                chunks.append(chunk)
            return b"".join(chunks)

    def _from_label_studio(self, url: str) -> bytes:
        """A file Label Studio serves: missing (4xx, or 5xx while it is healthy) is counted; down is exit 3."""
        import requests

        def attempt() -> bytes:
            try:
                return self._get(url, self.auth_headers())
            except requests.HTTPError as exc:
                status = getattr(exc, "status_code", 0)
                if status >= 500 and self._healthy():  # Label Studio answers 500 for a deleted upload
                    raise ImageProblem("missing_image", f"{url}: HTTP {status} from a healthy Label Studio") from exc
                raise

        try:
            return call_with_retries(attempt, url=self.ls_url.rstrip("/"), what=f"download {url}", retry=self.retry)
        except ServiceUnavailable:
            raise
        except (AipipeError, OSError) as exc:
            raise ImageProblem("missing_image", f"{url}: {exc}") from exc

    def _healthy(self) -> bool:
        import requests

        try:
            return self.session.get(urljoin(self.ls_url, "health"), timeout=5).status_code == 200
        except requests.RequestException:
            return False

    def _from_web(self, url: str) -> bytes:
        """Any other URL: every failure, after at most one retry of a transient one, is counted, never fatal."""
        retry = Retry(min(self.retry.attempts, WEB_ATTEMPTS), self.retry.base)
        try:
            return call_with_retries(lambda: self._get(url, {}), url=url, what="download the image", retry=retry)
        except (AipipeError, OSError) as exc:
            raise ImageProblem("missing_image", f"{url}: {exc}") from exc
