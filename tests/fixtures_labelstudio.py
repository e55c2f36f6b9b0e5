"""A real Label Studio server (sqlite, temp data dir, 127.0.0.1), started once per test session.

Use the ``label_studio`` fixture: ``.url``, ``.token`` (a fixed legacy token), ``.files_root``
(the local-files document root), and helpers to create projects, import or upload tasks and
annotate them through the API. ``.env()`` gives LABEL_STUDIO_URL / LABEL_STUDIO_API_KEY for steps.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from aipipe.errors import AipipeError
from aipipe.services.labelstudio import start_label_studio
from aipipe.services.process import free_port
from steps.export_annotations import seed
from steps.export_annotations.client import LabelStudioSource, Retry

LEGACY_TOKEN = "aipipe0test0legacy0token0000000000000001"
STARTUP_TIMEOUT_S = float(os.environ.get("AIPIPE_TEST_LS_STARTUP_S", "420"))


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


@pytest.fixture(scope="session")
def label_studio(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabelStudioServer]:
    """Start ``label-studio`` once per session; stop it at the end."""
    root = tmp_path_factory.mktemp("label-studio")
    try:
        server = start_label_studio(root, port=free_port(), token=LEGACY_TOKEN, password="aipipe-test-pass",
                                    timeout_s=STARTUP_TIMEOUT_S)
    except AipipeError as exc:
        pytest.fail(f"label-studio did not start: {exc}")
    try:
        yield LabelStudioServer(url=server.url, token=LEGACY_TOKEN, files_root=root / "files",
                                data_dir=root / "data")
    finally:
        server.stop()
