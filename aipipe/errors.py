"""Error types shared by the CLI, the engine and every step.

Each error carries the process exit code of the step contract:
0 success, 2 user/input error (never retried), 3 external service unavailable (retried),
anything else is a crash.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """Exit codes of the step contract; templates retry only SERVICE_UNAVAILABLE and crashes."""

    OK = 0
    USER_ERROR = 2
    SERVICE_UNAVAILABLE = 3


class AipipeError(Exception):
    """Base class; ``exit_code`` is what a command exits with when this reaches the top."""

    exit_code: int = 1

    def __init__(self, message: str, *, field: str | None = None) -> None:
        self.field = field
        self.reason = message  # the message without its field
        super().__init__(f"{field}: {message}" if field else message)


class UserError(AipipeError):
    """Bad input from the user (a flag, a file, a parameter): fails at once, never retried."""

    exit_code = ExitCode.USER_ERROR


class AuthError(UserError):
    """Credentials were refused (HTTP 401/403): retrying cannot help."""


class ConflictError(UserError):
    """The object already exists (HTTP 409)."""


class NotFoundError(UserError):
    """A named object does not exist."""


class ServiceUnavailable(AipipeError):
    """An external service (Label Studio, S3, MLflow, Argo) is unreachable or answered 5xx."""

    exit_code = ExitCode.SERVICE_UNAVAILABLE
