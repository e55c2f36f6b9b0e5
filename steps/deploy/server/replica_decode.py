"""JPEG decoding inside a model replica: a batch of encoded images in, the normalised input batch out.

On CUDA this is nvJPEG through ``torchvision.io.decode_jpeg(device="cuda")`` (one batched call), then a
resize and the normalisation on the GPU, on the stream the engine runs on: the CPU workers only parse
HTTP and copy bytes. On a CPU replica the same code runs on libjpeg-turbo (how CPU-only hosts and CI
exercise this path; without torchvision, which CPU-only installs may lack, a CPU replica decodes with
PIL). torch and torchvision are imported when a decoder is made, never at module import.

Images of one size are resized together (``antialias=True``, the filter PIL's BILINEAR applies when it
shrinks, so both paths see nearly the same pixels), in chunks of at most :data:`CHUNK_PIXELS` decoded
pixels so a batch of large photos stays within a bounded amount of device memory.

nvJPEG writes on a stream of torchvision's own, into tensors the caching allocator hands out for the *current*
stream. Decoding on the engine's stream could be given memory that work still queued there (the batch in flight)
uses; so on CUDA the decoded images come from a stream of their own, which nothing else allocates from, and
:attr:`Decoded.keep` holds them until the caller knows the engine's stream has read them (its batch finished).
"""

from __future__ import annotations

import io
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import numpy as np

CHUNK_PIXELS = 16_000_000  # decoded pixels converted to float at a time (192 MB of float32 RGB)


@dataclass
class Decoded:
    """The decoded batch (``n`` x C x H x W float32 on the device), the positions the decoder refused, and the
    decoded images, to be kept until the batch's work on the device is done (see the module's docstring)."""

    batch: Any
    refused: list[int]
    keep: list[Any]


def decoder_for(device: str, preprocess: dict[str, Any]) -> tuple[JpegDecoder | None, str]:
    """A decoder for ``device`` and what decodes (``"nvjpeg"``, ``"libjpeg-turbo"``, ``"pil"``), or None and
    why not (CUDA without a working torchvision)."""
    try:
        import torchvision.io  # noqa: F401
    except (ImportError, RuntimeError) as exc:  # RuntimeError: a torchvision built for another torch
        if device == "cuda":
            return None, f"torchvision cannot be imported ({type(exc).__name__}: {exc})"[:300]
        return JpegDecoder(device, preprocess, use_pil=True), "pil"
    decoder = JpegDecoder(device, preprocess)
    return decoder, "nvjpeg" if decoder.device.type == "cuda" else "libjpeg-turbo"


class JpegDecoder:
    """Batch-decodes JPEG bytes to RGB, resizes to the input size and normalises per ``preprocess.json``."""

    def __init__(self, device: str, preprocess: dict[str, Any], *, use_pil: bool = False) -> None:
        import torch

        self.use_pil = use_pil
        self.device = torch.device(device)
        self.size = int(preprocess["input_size"])
        mean = torch.tensor(preprocess["mean"], dtype=torch.float32).reshape(1, 3, 1, 1)
        std = torch.tensor(preprocess["std"], dtype=torch.float32).reshape(1, 3, 1, 1)
        self.scale = (1.0 / (255.0 * std)).to(self.device)  # (x / 255 - mean) / std == x * scale + bias
        self.bias = (-mean / std).to(self.device)
        self.bgr = preprocess.get("color", "RGB") == "BGR"
        self.alloc_stream = torch.cuda.Stream(self.device) if self.device.type == "cuda" and not use_pil else None

    def decode(self, blobs: list[np.ndarray]) -> Decoded:
        """Decode ``blobs`` (uint8 arrays of encoded JPEG); the output keeps their order, refused rows are
        left unset (their positions listed)."""
        import torch

        images, refused = self._decode_all([torch.from_numpy(b) for b in blobs])
        out = torch.empty((len(blobs), 3, self.size, self.size), dtype=torch.float32, device=self.device)
        by_size: dict[tuple[int, int], list[int]] = defaultdict(list)
        for i, image in enumerate(images):
            if image is not None:
                by_size[(int(image.shape[1]), int(image.shape[2]))].append(i)
        for (height, width), rows in by_size.items():
            step = max(1, CHUNK_PIXELS // (height * width))
            for start in range(0, len(rows), step):
                chunk = rows[start:start + step]
                pixels = torch.stack([images[i] for i in chunk]).float()
                put_rows(out, chunk, self._resize_normalise(pixels))
        return Decoded(out, refused, images)

    def _decode_all(self, data: list[Any]) -> tuple[list[Any], list[int]]:
        """One batched decode; when it raises (one bad image fails the batch) each image is tried alone."""
        if self.use_pil:
            return _pil_decode_all(data)
        if self.alloc_stream is None:
            return self._nvjpeg_or_turbo(data)
        import torch

        with torch.cuda.stream(self.alloc_stream):
            return self._nvjpeg_or_turbo(data)

    def _nvjpeg_or_turbo(self, data: list[Any]) -> tuple[list[Any], list[int]]:
        from torchvision.io import ImageReadMode, decode_jpeg

        device = str(self.device)
        try:
            return list(decode_jpeg(data, mode=ImageReadMode.RGB, device=device)), []
        except RuntimeError:
            pass
        images: list[Any] = []
        refused: list[int] = []
        for i, blob in enumerate(data):
            try:
                images.append(decode_jpeg(blob, mode=ImageReadMode.RGB, device=device))
            except RuntimeError:
                images.append(None)
                refused.append(i)
        return images, refused

    def _resize_normalise(self, pixels: Any) -> Any:
        import torch.nn.functional as F

        if tuple(pixels.shape[2:]) != (self.size, self.size):
            pixels = F.interpolate(pixels, size=(self.size, self.size), mode="bilinear", antialias=True,
                                   align_corners=False)
        if self.bgr:
            pixels = pixels.flip(1)
        return pixels.mul_(self.scale).add_(self.bias)  # ``pixels`` is always a fresh tensor here


def put_rows(out: Any, rows: list[int], values: Any) -> None:
    """``out[rows] = values`` without stalling the host on CUDA.

    Indexing a CUDA tensor with a Python list copies the index to the GPU from pageable memory, and PyTorch
    waits for the stream (every batch queued on it) before such a copy: the replica would wait for the batch in
    flight before it could queue the next. Consecutive rows (the usual case: one image size) are a slice, a
    copy on the device; other rows go through an index in page-locked memory, copied without a wait."""
    run = _as_slice(rows)
    if run is not None:
        out[run] = values
    else:
        out.index_copy_(0, device_index(rows, out.device), values)


def take_rows(batch: Any, rows: list[int]) -> Any:
    """``batch[rows]`` without stalling the host on CUDA (see :func:`put_rows`)."""
    run = _as_slice(rows)
    return batch[run] if run is not None else batch.index_select(0, device_index(rows, batch.device))


def _as_slice(rows: list[int]) -> slice | None:
    """``rows`` as a slice when they are consecutive and ascending, else None."""
    return slice(rows[0], rows[0] + len(rows)) if rows == list(range(rows[0], rows[0] + len(rows))) else None


def device_index(rows: list[int], device: Any) -> Any:
    """``rows`` as an index tensor on ``device``, copied from page-locked memory without waiting on CUDA."""
    import torch

    index = torch.tensor(rows, dtype=torch.long)
    if device.type != "cuda":
        return index
    return index.pin_memory().to(device, non_blocking=True)


def _pil_decode_all(data: list[Any]) -> tuple[list[Any], list[int]]:
    """PIL decodes each image to an RGB CHW uint8 tensor (a CPU replica without torchvision)."""
    import torch
    from PIL import Image

    images: list[Any] = []
    refused: list[int] = []
    for i, blob in enumerate(data):
        try:
            with Image.open(io.BytesIO(blob.numpy().tobytes()), formats=("JPEG",)) as image:
                pixels = np.asarray(image.convert("RGB"))
            images.append(torch.from_numpy(pixels.transpose(2, 0, 1).copy()))
        except (OSError, SyntaxError, ValueError):
            images.append(None)
            refused.append(i)
    return images, refused
