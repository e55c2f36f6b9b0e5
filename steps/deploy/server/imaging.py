"""CPU work of a request: decode + preprocess into a slot, and postprocess logits into top-k classes.

Decoding is bounded before it starts: the header gives the size (``Image.open`` is lazy), JPEG is
decoded at a reduced scale (``Image.draft``), and the work left is estimated from the header; a
request over the per-request budget is refused (400) without decoding a pixel. The estimate also
tells the worker which lane to use (:data:`CHEAP_WORK_NS`).
"""

from __future__ import annotations

import base64
import binascii
import io
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import orjson
from PIL import Image

MAX_PIXELS = 40_000_000  # declared size limit for any format, checked from the header
MAX_JPEG_SCANS = 100  # progressive "scan bombs" repeat cheap scans over every block; real files have ~10
MAX_TOP_K = 1000
FORMATS = ("JPEG", "PNG", "WEBP", "BMP", "GIF", "TIFF")  # the only decoders tried (no EPS, PSD, …)
# Decode cost model, conservative for one core of the 2-core dev VM (PNG/TIFF/WebP decode + convert +
# resize ≈ 4-11 ns per pixel; baseline JPEG entropy decoding ≈ 5 ns per byte at any draft scale).
NS_PER_PIXEL = 12
NS_PER_JPEG_BYTE = 6
WORK_BUDGET_NS = 250_000_000  # per request: a non-JPEG image may have about 20 MP, a draft-decoded JPEG 40 MP
CHEAP_WORK_NS = 2_000_000  # at most this: decoded at once; more: in the worker's low-priority lane
JSON_DEPTH_LIMIT = 1024  # orjson's own nesting limit: deeper documents are refused while parsing


class BadRequest(ValueError):
    """The request cannot be served as sent (answered 400 with this message)."""


def parse_top_k(value: Any, default: int) -> int:
    """Validate a ``top_k`` from a JSON body or query string."""
    if value is None:
        return default
    if isinstance(value, bool):
        raise BadRequest("top_k: must be an integer")
    try:
        number = int(value)
    except (TypeError, ValueError, OverflowError):
        raise BadRequest(f"top_k: must be an integer, got {str(value)[:40]!r}") from None
    if isinstance(value, float) and value != number:
        raise BadRequest(f"top_k: must be an integer, got {value!r}")
    if not 1 <= number <= MAX_TOP_K:
        raise BadRequest(f"top_k: must be in 1..{MAX_TOP_K}, got {number}")
    return number


def parse_json_request(payload: bytes | memoryview, default_top_k: int) -> tuple[bytes, int]:
    """``{"image": "<base64>", "top_k": k}`` → (image bytes, top_k).

    Parsed with orjson, which refuses nesting deeper than :data:`JSON_DEPTH_LIMIT` as it goes (the
    standard library's parser recurses until the interpreter's limit and raises RecursionError).
    """
    try:
        doc = orjson.loads(payload)
    except orjson.JSONDecodeError as exc:
        if "depth limit" in str(exc):
            raise BadRequest(f"body: JSON nested deeper than {JSON_DEPTH_LIMIT} levels") from None
        raise BadRequest(f"body: invalid JSON ({exc})") from None
    if not isinstance(doc, dict):
        raise BadRequest("body: expected a JSON object with an 'image' field")
    encoded = doc.get("image")
    if not isinstance(encoded, str) or not encoded:
        raise BadRequest("image: expected a base64 string")
    if encoded.startswith("data:") and "," in encoded:  # data URL
        encoded = encoded.split(",", 1)[1]
    try:
        data = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise BadRequest("image: not valid base64") from None
    return data, parse_top_k(doc.get("top_k"), default_top_k)


REPLICA_DECODE_MAX_PIXELS = 4_200_000  # larger JPEGs are decoded by the worker (bounds a replica's batch memory)
REPLICA_DECODE_MODES = ("RGB", "L")  # YCbCr and grayscale JPEGs; CMYK/YCCK go to the worker


@dataclass
class Opened:
    """An image whose header is read and checked; ``work_ns`` estimates what decoding it costs."""

    image: Image.Image
    work_ns: int
    pixels: int = 0  # declared in the header (before any draft scaling)

    def replica_decodable(self, size: int, capacity: int) -> bool:
        """Whether a replica's batch JPEG decoder may take it: a baseline JPEG of ``size`` bytes that fits
        the slot's byte area (``capacity``), in a colour mode it converts, of at most
        :data:`REPLICA_DECODE_MAX_PIXELS` pixels."""
        image = self.image
        return (image.format == "JPEG" and not image.info.get("progressive") and 0 < size <= capacity
                and image.mode in REPLICA_DECODE_MODES and self.pixels <= REPLICA_DECODE_MAX_PIXELS)


class Preprocessor:
    """Decode (JPEG draft mode), resize to the input size, normalise per ``preprocess.json``, write CHW."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.size = int(spec["input_size"])
        mean = np.asarray(spec["mean"], dtype=np.float32)
        std = np.asarray(spec["std"], dtype=np.float32)
        self.bgr = spec.get("color", "RGB") == "BGR"
        # (x / 255 - mean) / std == x * scale + bias
        self.scale = (1.0 / (255.0 * std)).reshape(3, 1, 1)
        self.bias = (-mean / std).reshape(3, 1, 1)

    def open(self, data: bytes) -> Opened:
        """Read the header, refuse images over the limits, set up JPEG draft decoding; decodes nothing."""
        if len(data) == 0:
            raise BadRequest("image: empty body")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # MAX_PIXELS is lower
                image: Image.Image = Image.open(io.BytesIO(data), formats=FORMATS)
        except Image.DecompressionBombError:
            raise BadRequest(f"image: larger than {MAX_PIXELS} pixels") from None
        except (OSError, SyntaxError, ValueError) as exc:
            raise BadRequest(f"image: cannot decode ({exc})") from None
        width, height = image.size
        if width * height > MAX_PIXELS:
            raise BadRequest(f"image: {width}x{height} is larger than {MAX_PIXELS} pixels")
        work = width * height * NS_PER_PIXEL
        if image.format == "JPEG":
            scans = data.count(b"\xff\xda")
            if scans > MAX_JPEG_SCANS:
                raise BadRequest(f"image: JPEG with {scans} scans (the limit is {MAX_JPEG_SCANS})")
            if not image.info.get("progressive"):  # baseline: the reduced scale is all that is decoded
                image.draft("RGB", (self.size, self.size))
                work = image.width * image.height * NS_PER_PIXEL + len(data) * NS_PER_JPEG_BYTE
        if work > WORK_BUDGET_NS:
            raise BadRequest(f"image: decoding this {width}x{height} {image.format} would take about "
                             f"{work / 1e6:.0f} ms of CPU, over the {WORK_BUDGET_NS / 1e6:.0f} ms budget per "
                             f"request; send a smaller image (or a baseline JPEG)")
        return Opened(image, work, width * height)

    def finish(self, opened: Opened) -> Image.Image:
        """Decode an opened image to RGB at the input size; undecodable data raises :class:`BadRequest`."""
        try:
            image = opened.image.convert("RGB")
            if image.size != (self.size, self.size):
                image = image.resize((self.size, self.size), Image.Resampling.BILINEAR)
        except (OSError, SyntaxError, ValueError, Image.DecompressionBombError) as exc:
            raise BadRequest(f"image: cannot decode ({exc})") from None
        return image

    def decode(self, data: bytes | memoryview) -> Image.Image:
        """Decode to an RGB image of the input size; undecodable or too costly data raises :class:`BadRequest`."""
        return self.finish(self.open(bytes(data)))

    def write(self, opened: Opened, out: np.ndarray) -> None:
        """Decode an opened image and write the normalised float32 (3, H, W) tensor into ``out``."""
        self._normalise(self.finish(opened), out)

    def into(self, data: bytes | memoryview, out: np.ndarray) -> None:
        """Decode ``data`` and write the normalised float32 (3, H, W) tensor into ``out``."""
        self._normalise(self.decode(data), out)

    def _normalise(self, image: Image.Image, out: np.ndarray) -> None:
        pixels = np.asarray(image, dtype=np.uint8)
        chw = pixels.transpose(2, 0, 1)
        if self.bgr:
            chw = chw[::-1]
        np.multiply(chw, self.scale, out=out)
        out += self.bias

    def tensor(self, data: bytes | memoryview) -> np.ndarray:
        out = np.empty((3, self.size, self.size), dtype=np.float32)
        self.into(data, out)
        return out


def top_k(logits: np.ndarray, classes: Sequence[str], k: int) -> list[dict[str, Any]]:
    """Softmax over one logits row, the ``k`` most probable classes, best first."""
    z = logits.astype(np.float64)
    if not np.all(np.isfinite(z)):
        raise ArithmeticError("the model produced non-finite outputs")
    z -= z.max()
    probs = np.exp(z)
    probs /= probs.sum()
    k = min(k, probs.shape[0])
    best = np.argpartition(-probs, k - 1)[:k]
    best = best[np.argsort(-probs[best], kind="stable")]
    return [{"class": classes[i], "index": int(i), "probability": float(probs[i])} for i in best]
