"""Argo's well-known label and annotation keys that aipipe's server, pages and pipelines share."""

from __future__ import annotations

TITLE_ANNOTATION = "workflows.argoproj.io/title"  # what the Argo UI shows as a run's name
DESCRIPTION_ANNOTATION = "workflows.argoproj.io/description"  # Markdown under it
TEMPLATE_LABEL = "workflows.argoproj.io/workflow-template"  # a run submitted from a WorkflowTemplate
CLUSTER_TEMPLATE_LABEL = "workflows.argoproj.io/cluster-workflow-template"  # ... or a ClusterWorkflowTemplate
