"""CPU work of a request: decode + preprocess into a slot, and postprocess logits into top-k classes."""

from __future__ import annotations

import base64
import binascii
import io
import json
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
from PIL import Image

MAX_PIXELS = 40_000_000  # larger images are refused (decompression bombs)
MAX_TOP_K = 1000


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
    except (TypeError, ValueError):
        raise BadRequest(f"top_k: must be an integer, got {value!r}") from None
    if isinstance(value, float) and value != number:
        raise BadRequest(f"top_k: must be an integer, got {value!r}")
    if not 1 <= number <= MAX_TOP_K:
        raise BadRequest(f"top_k: must be in 1..{MAX_TOP_K}, got {number}")
    return number


def parse_json_request(payload: bytes | memoryview, default_top_k: int) -> tuple[bytes, int]:
    """``{"image": "<base64>", "top_k": k}`` → (image bytes, top_k)."""
    try:
        doc = json.loads(bytes(payload))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
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

    def decode(self, data: bytes | memoryview) -> Image.Image:
        """Decode to an RGB image of the input size; undecodable data raises :class:`BadRequest`."""
        if len(data) == 0:
            raise BadRequest("image: empty body")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error", Image.DecompressionBombWarning)
                image: Image.Image = Image.open(io.BytesIO(data))
                if image.width * image.height > MAX_PIXELS:
                    raise BadRequest(f"image: {image.width}x{image.height} is larger than {MAX_PIXELS} pixels")
                image.draft("RGB", (self.size, self.size))  # JPEG: decode at a reduced scale
                image = image.convert("RGB")
                if image.size != (self.size, self.size):
                    image = image.resize((self.size, self.size), Image.Resampling.BILINEAR)
        except BadRequest:
            raise
        except (OSError, SyntaxError, ValueError, Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
            raise BadRequest(f"image: cannot decode ({exc})") from None
        return image

    def into(self, data: bytes | memoryview, out: np.ndarray) -> None:
        """Decode ``data`` and write the normalised float32 (3, H, W) tensor into ``out``."""
        pixels = np.asarray(self.decode(data), dtype=np.uint8)
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
