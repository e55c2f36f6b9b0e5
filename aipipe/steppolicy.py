"""What the platform gives every step's template, whatever the step: retries, Secret keys, plain env.

The contract doc states these, and the template builder applies them.
"""

from __future__ import annotations

from aipipe.config import KEYS_BY_NAME
from aipipe.errors import ExitCode

# Exit code 2 (user/input error) is never retried; 3 (service unavailable) and crashes are, except in a step
# that already waited out its own bounded retries (StepResources.retries_unavailable=False).
RETRY_EXPRESSION = f"asInt(lastRetry.exitCode) != {int(ExitCode.USER_ERROR)}"
RETRY_EXPRESSION_NOT_UNAVAILABLE = (f"{RETRY_EXPRESSION} && "
                                    f"asInt(lastRetry.exitCode) != {int(ExitCode.SERVICE_UNAVAILABLE)}")
RETRY_LIMIT = 3
RETRY_POLICY = "Always"  # failures and infrastructure errors (evicted/preempted pods), minus the expression
BACKOFF_DURATION = "15s"
BACKOFF_FACTOR = 2
BACKOFF_MAX_DURATION = "15m"

# Secrets every step may need: S3 credentials are absent when storage is file:// (optional).
STORAGE_SECRETS = ("storage.s3_access_key", "storage.s3_secret_key")

# Non-secret configuration passed to every step as plain env values resolved at compile time.
PLAIN_ENV_KEYS = (
    "label_studio.url",
    "label_studio.wait_seconds",
    "storage.s3_endpoint",
    "storage.s3_region",
    "mlflow.model_name",
)


def retry_expression(retries_unavailable: bool) -> str:
    """The retryStrategy expression of a step (see :attr:`aipipe.contract.StepResources.retries_unavailable`)."""
    return RETRY_EXPRESSION if retries_unavailable else RETRY_EXPRESSION_NOT_UNAVAILABLE


def secret_key_name(config_key: str) -> str:
    """Key inside the Kubernetes Secret for a secret config key: its env var, kebab-case.

    ``label_studio.api_key`` (LABEL_STUDIO_API_KEY) -> ``label-studio-api-key``.
    """
    return KEYS_BY_NAME[config_key].env.lower().replace("_", "-")
