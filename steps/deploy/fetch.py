"""Fetch an engine bundle from storage into a local folder (the deployer, and the pod's init container).

``python -m steps.deploy.fetch --engine-uri URI --dest DIR`` (configuration from the environment).
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path
from typing import Any

from aipipe.contract import ENGINE_MANIFEST
from aipipe.errors import NotFoundError, UserError
from aipipe.storage import Storage, join


def read_manifest(storage: Storage, engine_uri: str) -> dict[str, Any]:
    """The bundle's engine.json, read without downloading the engine."""
    uri = join(engine_uri, ENGINE_MANIFEST)
    if not storage.exists(uri):
        raise NotFoundError(f"no {ENGINE_MANIFEST} under {engine_uri}: not an engine bundle", field="engine-uri")
    try:
        data = json.loads(storage.get_text(uri))
    except json.JSONDecodeError as exc:
        raise UserError(f"{uri} is not JSON: {exc}", field="engine-uri") from exc
    if not isinstance(data, dict):
        raise UserError(f"{uri} must be a JSON object", field="engine-uri")
    return data


def fetch_engine(storage: Storage, engine_uri: str, dest: Path) -> Path:
    """Copy the whole bundle at ``engine_uri`` into ``dest`` (a fresh folder); returns ``dest``."""
    read_manifest(storage, engine_uri)
    dest = Path(dest)
    local = storage.local_path(engine_uri)
    if local is not None:
        shutil.copytree(local, dest, dirs_exist_ok=True)
    else:
        storage.download_dir(engine_uri, dest)
    return dest


def main(argv: list[str] | None = None) -> None:
    from aipipe.config import load_config
    from aipipe.stepkit import run_step

    parser = argparse.ArgumentParser(prog=f"python -m {__package__}.fetch", description=__doc__)
    parser.add_argument("--engine-uri", required=True)
    parser.add_argument("--dest", required=True)
    args = parser.parse_args(argv)
    run_step("fetch-engine", lambda: print(fetch_engine(Storage.from_config(load_config()), args.engine_uri,
                                                         Path(args.dest))))


if __name__ == "__main__":
    main()
