"""WorkflowTemplate of the `deploy` step (contract DEPLOY)."""

from __future__ import annotations

from hera.workflows import WorkflowTemplate

from aipipe.config import Config
from aipipe.contract import DEPLOY
from pipelines.templates._common import StepResources, step_template
from steps.deploy.render import DEPLOYER_ACCOUNT

# The deployer applies Deployments/Services: it runs as the least-privilege account that
# `python -m steps.deploy --dry-run` renders with its Role (steps.deploy.render.render_rbac).
RESOURCES = StepResources(cpu="1", memory="1Gi", deadline_seconds=1800, service_account=DEPLOYER_ACCOUNT)


def build(cfg: Config) -> WorkflowTemplate:
    """``aipipe-deploy-v1``: one container template running ``python -m steps.deploy``."""
    return step_template(DEPLOY, cfg, RESOURCES)
