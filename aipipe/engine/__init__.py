"""Embedded engine: runs Argo Workflow manifests locally with Argo v4.1 semantics.

Public entry points: :class:`aipipe.engine.executor.WorkflowExecutor`,
:func:`aipipe.engine.context.default_context`, :func:`aipipe.engine.validate.validate_workflow`.
"""
