"""Step ``deploy``: size, render and roll out the inference service on a fraction of a GPU (contract in contract.py).

``server/`` is the serving runtime; the rest is the deployer: ``sizing`` (replicas and CPU workers from
the budget), ``providers`` (one class per fractional-GPU provider), ``render`` (Kubernetes objects and
their schema check), ``kube`` (server-side apply, rollout, rollback), ``local`` (detached local
deployments), ``health`` (the gate both targets use) and ``step`` (the step's flow).
"""
