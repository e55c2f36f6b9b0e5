"""``python -m steps.deploy.server --engine-dir PATH …``: the serving runtime in the foreground."""

from __future__ import annotations

import asyncio

from aipipe.stepkit import run_step

from .app import serve
from .config import parse_config


def main() -> None:
    config = parse_config()
    asyncio.run(serve(config))


if __name__ == "__main__":
    run_step("serve", main)
