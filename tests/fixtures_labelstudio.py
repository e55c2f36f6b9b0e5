"""A real Label Studio server (sqlite, temp data dir, 127.0.0.1), started once per test session.

Use the ``label_studio`` fixture: ``.url``, ``.token`` (a fixed legacy token), ``.files_root``
(the local-files document root), and helpers to create projects, import or upload tasks and
annotate them through the API. ``.env()`` gives LABEL_STUDIO_URL / LABEL_STUDIO_API_KEY for steps.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import requests

from steps.export_annotations import seed
from steps.export_annotations.client import LabelStudioSource, Retry

LEGACY_TOKEN = "aipipe0test0legacy0token0000000000000001"
STARTUP_TIMEOUT_S = float(os.environ.get("AIPIPE_TEST_LS_STARTUP_S", "420"))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class LabelStudioServer:
    """A running Label Studio and the API helpers tests need."""

    url: str
    token: str
    files_root: Path
    data_dir: Path  # uploads are under media/upload/<project id>/

    def source(self, api_key: str | None = None) -> LabelStudioSource:
        return LabelStudioSource(self.url, api_key or self.token, Retry(2, 0.2))

    def env(self, api_key: str | None = None) -> dict[str, str]:
        return {"LABEL_STUDIO_URL": self.url, "LABEL_STUDIO_API_KEY": api_key or self.token}

    def create_project(self, title: str, label_config: str) -> int:
        created = self.source().client.projects.create(title=title, label_config=label_config)
        return int(created.id or 0)

    def import_tasks(self, project_id: int, tasks: Sequence[dict[str, Any]]) -> list[int]:
        """Import tasks given as their ``data`` dicts; returns the task ids in order."""
        request: Any = list(tasks)
        response = self.source().client.projects.import_tasks(id=project_id, request=request, return_task_ids=True)
        return list(response.model_dump()["task_ids"])

    def upload_images(self, project_id: int, files: Sequence[tuple[str, bytes]]) -> list[int]:
        return seed.upload_images(self.source(), project_id, files)

    def annotate(self, task_id: int, result: list[dict[str, Any]], *, ground_truth: bool = False,
                 was_cancelled: bool = False) -> int:
        return seed.annotate(self.source(), task_id, result, ground_truth=ground_truth, was_cancelled=was_cancelled)

    def add_local_storage(self, project_id: int, folder: Path) -> None:
        """Connect a local-files storage (a folder below ``files_root``) so /data/local-files/ serves it."""
        self.source().client.import_storage.local.create(project=project_id, path=str(folder), use_blob_urls=True,
                                                         title=f"local {folder.name}")

    def create_view(self, project_id: int, title: str, filter_items: list[dict[str, Any]]) -> int:
        """A Data Manager view (tab) whose filters are ``filter_items`` joined with "and"; its id."""
        view = self.source().client.views.create(project=project_id, data={
            "title": title, "filters": {"conjunction": "and", "items": filter_items}})
        return int(view.id)

    def personal_access_token(self) -> str:
        """A new personal access token (a JWT refresh token) of the admin user."""
        return str(self.source().client.tokens.create().token)


def _wait_healthy(url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"label-studio exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            if requests.get(f"{url}/health", timeout=2).status_code == 200:
                return
        except requests.RequestException:
            pass
        time.sleep(1.0)
    raise RuntimeError(f"label-studio not healthy after {STARTUP_TIMEOUT_S:.0f} s:\n{log.read_text()[-3000:]}")


@pytest.fixture(scope="session")
def label_studio(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabelStudioServer]:
    """Start ``label-studio`` once per session; stop it at the end."""
    executable = shutil.which("label-studio", path=str(Path(sys.executable).parent)) or shutil.which("label-studio")
    if executable is None:
        pytest.fail("the label-studio server is not installed (pip install label-studio)")
    root = tmp_path_factory.mktemp("label-studio")
    files_root = root / "files"
    files_root.mkdir()
    data_dir = root / "data"
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ,
           "LABEL_STUDIO_ENABLE_LEGACY_API_TOKEN": "true", "SSRF_PROTECTION_ENABLED": "false",
           "LABEL_STUDIO_LOCAL_FILES_SERVING_ENABLED": "true",
           "LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT": str(files_root),
           "SENTRY_DSN": "", "FRONTEND_SENTRY_DSN": "", "COLLECT_ANALYTICS": "false", "HOME": str(root)}
    log = root / "label-studio.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [executable, "start", "--no-browser", "--internal-host", "127.0.0.1", "--port", str(port),
             "--data-dir", str(data_dir), "--username", "admin@example.com", "--password", "aipipe-test-pass",
             "--user-token", LEGACY_TOKEN, "--enable-legacy-api-token", "--log-level", "WARNING"],
            stdout=out, stderr=subprocess.STDOUT, env=env, cwd=root, start_new_session=True)
    try:
        _wait_healthy(url, proc, log)
        yield LabelStudioServer(url=url, token=LEGACY_TOKEN, files_root=files_root, data_dir=data_dir)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
