"""``python -m steps.deploy.server --engine-dir PATH …``: the serving runtime in the foreground."""

from __future__ import annotations

import asyncio
import os

from aipipe.stepkit import run_step

from .app import serve
from .config import parse_config, within_share


def main() -> None:
    config = within_share(parse_config(), os.environ)
    asyncio.run(serve(config))


if __name__ == "__main__":
    run_step("serve", main, gpu_cap=False)  # the replicas keep to the node's share (within_share)
