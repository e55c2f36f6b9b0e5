"""A local Label Studio server (sqlite) for the embedded default and the tests."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from aipipe.errors import UserError
from aipipe.services.process import ServerProcess, start_server

ADMIN_USER = "admin@aipipe.local"


def label_studio_env(files_root: Path, home: Path) -> dict[str, str]:
    """Environment for a local, offline Label Studio: legacy tokens on, local files served."""
    return {
        "LABEL_STUDIO_ENABLE_LEGACY_API_TOKEN": "true",
        "SSRF_PROTECTION_ENABLED": "false",
        "LABEL_STUDIO_LOCAL_FILES_SERVING_ENABLED": "true",
        "LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT": str(files_root),
        "SENTRY_DSN": "",
        "FRONTEND_SENTRY_DSN": "",
        "COLLECT_ANALYTICS": "false",
        "HOME": str(home),
    }


def start_label_studio(root: Path, *, port: int, token: str, password: str,
                       timeout_s: float = 420.0) -> ServerProcess:
    """Start ``label-studio`` on 127.0.0.1 with data under ``root``; wait until /health answers.

    ``token`` becomes the admin's legacy API token on the first start (it must be set then).
    """
    executable = shutil.which("label-studio", path=str(Path(sys.executable).parent)) or shutil.which("label-studio")
    if executable is None:
        raise UserError("the Label Studio server is not installed: pip install 'aipipe[dev]'", field="label-studio")
    files_root = root / "files"
    files_root.mkdir(parents=True, exist_ok=True)
    argv = [executable, "start", "--no-browser", "--internal-host", "127.0.0.1", "--port", str(port),
            "--data-dir", str(root / "data"), "--username", ADMIN_USER, "--password", password,
            "--user-token", token, "--enable-legacy-api-token", "--log-level", "WARNING"]
    server = start_server("label-studio", argv, url=f"http://127.0.0.1:{port}", log=root / "label-studio.log",
                          cwd=root, env=label_studio_env(files_root, root))
    try:
        server.wait_healthy("/health", timeout_s)
    except BaseException:
        server.stop()
        raise
    return server
