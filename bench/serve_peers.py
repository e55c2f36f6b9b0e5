"""What the serving benchmark measures ours against, each a real server on loopback:

- ``NaiveServer(copies=1)``: one aiohttp process that decodes (PIL) and infers (PyTorch FP32, batch 1) inline;
- ``NaiveServer(copies=N)``: the **competent peer**, N such processes sharing one port through ``SO_REUSEPORT``
  (what ``gunicorn -w N`` or N uvicorn workers give a user who writes no batching);
- ``TrivialFront``: one aiohttp process whose handler reads the body and answers a fixed JSON: the HTTP
  ceiling of a single-process aiohttp front, like ours.
"""

from __future__ import annotations

import io
import json
import os
import socket
from pathlib import Path
from typing import Any

import numpy as np

from bench.loadgen import CTX, make_jpegs


def _reuse_port_socket(port: int) -> socket.socket:
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind(("127.0.0.1", port))
    return sock


def _naive_server(model_dir: str, device: str, port: int, threads: int, ready: Any) -> None:
    """aiohttp app whose handler decodes and infers inline: one request at a time, batch 1, FP32."""
    import torch
    from aiohttp import web
    from PIL import Image

    from mlkit.engine.backends.torch_backend import load_module

    torch.set_num_threads(threads)
    root = Path(model_dir)
    model = load_module(root).to(device).eval()
    spec = json.loads((root / "preprocess.json").read_text())
    classes = json.loads((root / "classes.json").read_text())
    size = int(spec["input_size"])
    mean = torch.tensor(spec["mean"], device=device).view(1, 3, 1, 1)
    std = torch.tensor(spec["std"], device=device).view(1, 3, 1, 1)

    def infer(data: bytes) -> dict[str, Any]:
        image = Image.open(io.BytesIO(data)).convert("RGB").resize((size, size), Image.Resampling.BILINEAR)
        x = torch.from_numpy(np.array(image)).to(device).permute(2, 0, 1).unsqueeze(0).float().div(255)
        with torch.inference_mode():
            probs = torch.softmax(model((x - mean) / std), dim=1)[0]
            top = torch.topk(probs, min(5, probs.shape[0]))
        values, indices = top.values.cpu().tolist(), top.indices.cpu().tolist()
        return {"predictions": [{"class": classes[i], "index": i, "probability": p}
                                for i, p in zip(indices, values, strict=True)]}

    async def predict(request: web.Request) -> web.Response:
        return web.json_response(infer(await request.read()))

    sample = make_jpegs(1, seed=99)[0]
    for _ in range(5):
        infer(sample)
    _serve([web.post("/v1/predict", predict)], port, ready)


def _trivial_front(port: int, ready: Any) -> None:
    """Reads each body and answers a small fixed JSON: what one aiohttp process can move at most."""
    from aiohttp import web

    body = json.dumps({"model_version": "trivial", "predictions": [{"class": "x", "index": 0,
                                                                     "probability": 1.0}]}).encode()

    async def predict(request: web.Request) -> web.Response:
        await request.read()
        return web.Response(body=body, content_type="application/json")

    _serve([web.post("/v1/predict", predict)], port, ready)


def _serve(routes: list[Any], port: int, ready: Any) -> None:
    from aiohttp import web

    app = web.Application(client_max_size=8 * 1024 * 1024)
    app.add_routes(routes)
    sock = _reuse_port_socket(port)
    ready.send("ready")
    web.run_app(app, sock=sock, access_log=None, print=None, handle_signals=True)


class _Processes:
    """Server processes sharing one loopback port (SO_REUSEPORT); the first socket reserves the port."""

    def __init__(self, target: Any, args_for: Any, copies: int, timeout_s: float = 300) -> None:
        self._reserve = _reuse_port_socket(0)
        self.port = self._reserve.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.procs = []
        for _ in range(copies):
            read, write = CTX.Pipe(duplex=False)
            proc = CTX.Process(target=target, args=(*args_for(self.port), write), daemon=True)
            proc.start()
            self.procs.append(proc)
            if not read.poll(timeout_s) or read.recv() != "ready":
                self.stop()
                raise RuntimeError(f"{target.__name__} did not start")
        self._reserve.close()  # not listening: the kernel hands connections to the copies only

    def stop(self) -> None:
        for proc in self.procs:
            proc.terminate()
        for proc in self.procs:
            proc.join(10)
        self._reserve.close()


class NaiveServer(_Processes):
    """``copies`` naive servers on one port; ``threads`` torch threads each (a peer gives each copy one)."""

    def __init__(self, model_dir: Path, device: str, copies: int = 1, threads: int | None = None) -> None:
        per_copy = threads or max(1, min(4, (os.cpu_count() or 1) // copies))
        super().__init__(_naive_server, lambda port: (str(model_dir), device, port, per_copy), copies)


class TrivialFront(_Processes):
    def __init__(self) -> None:
        super().__init__(_trivial_front, lambda port: (port,), 1)
