"""Embedded engine: runs Argo Workflow manifests locally with Argo v4.1 semantics.

Entry points: :class:`aipipe.engine.executor.WorkflowExecutor` (``run(stop)`` -> final workflow),
:func:`aipipe.engine.context.default_context`, :func:`aipipe.engine.validate.validate_workflow`,
:func:`aipipe.engine.nodes.reset_for_retry`.

Modules: ``executor`` (driver, inputs, retries, hooks, exit handlers) with ``steps``, ``dag`` and
``outputs`` (its parts); ``template`` ({{…}} substitution), ``expr`` (expr-lang and govaluate),
``graph`` (depends logic), ``pod`` (one container/script node) over ``runners.local`` (mount
namespaces), ``io`` (artifacts), ``images`` (image -> local runtime, shims in ``shims/bin``),
``secrets``, ``gpu``, ``locks`` (mutexes), ``retry``, ``nodes`` (status tree), ``validate``.
``store``, ``service`` and ``names`` are the run store and process model built on top.
"""
