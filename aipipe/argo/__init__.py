"""Argo Server client (over Hera's WorkflowsService) and workflow watching."""

from aipipe.argo.client import Applied, ArgoClient
from aipipe.argo.watch import DONE_PHASES, wait_for

__all__ = ["DONE_PHASES", "Applied", "ArgoClient", "wait_for"]
