"""Embedded engine: runs Argo Workflow manifests locally with Argo v4.1 semantics.

Entry points: :class:`aipipe.engine.executor.WorkflowExecutor` (``run(stop)`` -> final workflow),
:func:`aipipe.engine.context.default_context`, :func:`aipipe.engine.validate.validate_workflow`,
:func:`aipipe.engine.nodes.reset_for_retry`.

Modules: ``executor`` (the run from entrypoint to exit handler) over ``runtime`` (the run's shared state and
node records, addressed by ``noderef.NodeRef``) and ``invoke`` (one invocation: ``bind`` inputs, retries, slots,
locks) dispatching to one ``handler.TemplateHandler`` per template kind: ``leaf`` (container, script),
``steps``, ``dag``, ``suspend``, ``containerset``; ``daemons`` (daemon steps: readiness, ended with their
parent) and ``sidecars`` (sidecars and init containers beside a node's main process); ``children`` (loops, when,
hooks of steps and tasks), ``manifest`` (typed views of the steps, tasks, steps/dag bodies, template heads
and run spec the core reads), ``outputs``, ``phases`` (node phase and type enums), ``settings`` (what the entry
point configures) and ``execution`` (the run's context; ``context`` builds both from aipipe's Config),
``arguments`` (a call's arguments), ``gate`` (parallelism and failFast of a template's children), ``edges``
(Argo's ``children``/``outboundNodes``), ``control`` and ``runcontrol`` (suspend, resume, set, stop, terminate);
``template`` ({{…}} substitution), ``expr`` over ``grammar/`` (one lark grammar for expr-lang, govaluate
``when`` and ``depends``), ``graph`` (depends logic), ``pod`` (one container/script node; its environment in
``podenv``, its outputs in ``podoutputs``) with ``volumes`` over ``runners.local`` (mount namespaces), ``io``
(artifacts), ``images`` (image -> local runtime, shims in ``shims/bin``), ``secrets``, ``configmaps``, ``gpu``
and ``gpupool`` (the machine's GPU leases and queue), ``locks`` and ``semaphores`` (synchronization), ``retry``,
``nodes`` (status tree), ``validate``, ``wfmeta`` (``workflowMetadata``, ``labelsFrom``). ``store``, ``service``
and ``names`` are the run store and process model built on top.
"""
