"""What the CLI and the server do with runs: submit, drive, resume, stop, retry, resubmit.

A run is driven by exactly one process at a time (``aipipe run`` in the foreground, or a worker
thread of ``aipipe server``). The driver records its pid and a heartbeat in the store and polls
the store for stop requests, so ``aipipe stop`` works from any process. A run whose driver died
(kill -9) is continued by ``aipipe run --resume NAME`` or by the next ``aipipe server`` start:
the executor keeps every Succeeded node and re-runs only what had not finished.
"""

from __future__ import annotations

import contextlib
import copy
import shutil
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from aipipe.config import Config
from aipipe.confine import confined
from aipipe.engine.control import SHUTDOWN, apply_to_workflow, shutdown_message
from aipipe.engine.logs import CappedLogWriter
from aipipe.engine.names import now_rfc3339
from aipipe.engine.phases import NodePhase, NodeType
from aipipe.engine.store import (
    CLUSTER_WORKFLOW_TEMPLATE,
    COMPLETED_LABEL,
    COMPLETED_PHASES,
    PHASE_LABEL,
    WORKFLOW_TEMPLATE,
    RunStore,
)
from aipipe.engine.wfmeta import submitted_with_metadata
from aipipe.engine.wfref import resolve_workflow_spec
from aipipe.errors import AipipeError, ConflictError, NotFoundError, UserError

TERMINATED_MESSAGE = "terminated by user"
HEARTBEAT_SECONDS = 0.5
STOP_WAIT_SECONDS = 15.0
CONTROL_WAIT_SECONDS = 10.0
RESUBMITTED_FROM_LABEL = "workflows.argoproj.io/resubmitted-from-workflow"
_KEEP_ON_RETRY = frozenset({NodePhase.SUCCEEDED, NodePhase.SKIPPED})
_LEAF_TYPES = frozenset({NodeType.POD, NodeType.CONTAINER, NodeType.SUSPEND, NodeType.SKIPPED})


class EngineService:
    """Runs in one run store, driven by this process when asked."""

    def __init__(self, cfg: Config, store: RunStore | None = None) -> None:
        self.cfg = cfg
        self.store = store or RunStore.from_home(cfg.home)
        self.default_namespace = str(cfg.get("argo.namespace"))
        self.prune_logs()

    def prune_logs(self) -> int:
        """Drop finished runs' node logs older than ``engine.log_retention_days`` (at start and each drive)."""
        from aipipe.engine.logs import prune_old_logs

        return prune_old_logs(self.store, float(self.cfg.get("engine.log_retention_days")))

    def run_dir(self, uid: str) -> Path:
        """A run's scratch folder, ``<home>/runs/<uid>`` (refused if the uid would lead anywhere else)."""
        return confined(self.cfg.home, "runs", uid, field="metadata.uid")

    # -- templates ---------------------------------------------------------------------------
    def template_lookup(self, namespace: str) -> Callable[[str, str], dict[str, Any] | None]:
        """The executor's view of the WorkflowTemplates of ``namespace`` and every ClusterWorkflowTemplate."""

        def lookup(kind: str, name: str) -> dict[str, Any] | None:
            return self.store.get_resource(kind, name, namespace)

        return lookup

    def register_templates(self, manifests: Iterable[dict[str, Any]], namespace: str | None = None) -> list[str]:
        """Create or replace WorkflowTemplates / ClusterWorkflowTemplates; returns their names."""
        names = []
        for manifest in manifests:
            kind = manifest.get("kind", WORKFLOW_TEMPLATE)
            if kind not in (WORKFLOW_TEMPLATE, CLUSTER_WORKFLOW_TEMPLATE):
                raise UserError(f"expected a WorkflowTemplate or ClusterWorkflowTemplate, got {kind!r}", field="kind")
            stored = self.store.put_resource(kind, manifest, namespace or self.default_namespace)
            names.append(stored["metadata"]["name"])
        return names

    # -- submitting --------------------------------------------------------------------------
    def validate(self, workflow: dict[str, Any], namespace: str | None = None, *, as_template: bool = False) -> None:
        """Refuse a spec the executor would reject, before anything runs (UserError naming the reason);
        ``as_template``: a WorkflowTemplate's spec, whose arguments come at submit."""
        from aipipe.compile.strict import refuse_misshapen
        from aipipe.engine.validate import validate_workflow

        if not isinstance(workflow, dict) or workflow.get("kind", "Workflow") != "Workflow":
            raise UserError("expected a Workflow manifest", field="kind")
        if not isinstance(workflow.get("spec"), dict):
            raise UserError("a Workflow needs a spec", field="spec")
        refuse_misshapen(workflow)  # as Argo's server decodes the body: a value of the wrong shape is refused
        validate_workflow(workflow, self.template_lookup(namespace or self.default_namespace), as_template=as_template)

    def submit(self, workflow: dict[str, Any], namespace: str | None = None, *,
               templates: Iterable[dict[str, Any]] = (), dry_run: bool = False,
               driver_id: str | None = None) -> dict[str, Any]:
        """Register ``templates``, validate, and store a new Pending run (nothing runs yet)."""
        namespace = namespace or workflow.get("metadata", {}).get("namespace") or self.default_namespace
        manifests = list(templates)
        if manifests and not dry_run:
            self.register_templates(manifests, namespace)
        self.validate(workflow, namespace)
        # spec.workflowMetadata (labels, annotations, labelsFrom): set at submit, where Argo's controller
        # sets them when it first sees the run (one it cannot set errs the run when it starts)
        workflow = submitted_with_metadata(workflow, resolve_workflow_spec(workflow, self.template_lookup(namespace)))
        workflow.pop("status", None)
        if dry_run:
            workflow.setdefault("metadata", {})["namespace"] = namespace
            return workflow
        return self.store.create_workflow(workflow, namespace, driver_id=driver_id)

    # -- driving -----------------------------------------------------------------------------
    def drive(self, workflow: dict[str, Any], *, stop: threading.Event | None = None,
              driver_id: str | None = None, detach: threading.Event | None = None) -> dict[str, Any]:
        """Run (or continue) a stored run in this thread until it finishes; returns the final object.

        Each state the executor hands over is written before the executor goes on (it coalesces
        bursts itself), so a Succeeded node is on disk before anything after it starts, and other
        processes (``aipipe get``, the server's watch, a later ``--resume``) see the latest state.

        ``detach`` (set before ``stop``) lets go of the run as a crash would: nothing more is written,
        the run's processes are ended, and the stored run stays Running for the next driver to resume.
        """
        from aipipe.engine.context import default_context
        from aipipe.engine.executor import WorkflowExecutor

        meta = workflow["metadata"]
        uid, namespace, name = meta["uid"], meta["namespace"], meta["name"]
        driver_id = driver_id or uuid.uuid4().hex
        if not self.store.claim(uid, driver_id):
            holder = self.store.driver(uid)
            raise ConflictError(f"run {name} is being driven by process {holder.pid if holder else '?'}")
        stop = stop or threading.Event()
        detach = detach or threading.Event()
        done = threading.Event()

        def persist(obj: dict[str, Any]) -> None:
            if detach.is_set():
                return
            try:
                self.store.save_workflow(obj)
            except NotFoundError:  # deleted while running: stop it
                stop.set()

        self.prune_logs()
        logs = CappedLogWriter(self.store, uid, int(self.cfg.get("engine.max_log_bytes")))
        ctx = default_context(self.cfg, self.run_dir(uid), templates=self.template_lookup(namespace),
                              on_change=persist, on_log=logs.append)
        executor = WorkflowExecutor(copy.deepcopy(workflow), ctx)
        beat = threading.Thread(target=self._heartbeat, args=(uid, driver_id, stop, done, executor.control.apply),
                                daemon=True, name=f"heartbeat-{name}")
        beat.start()
        try:
            final = executor.run(stop)
            persist(final)
            return final
        except Exception as exc:
            if detach.is_set():
                raise
            message = str(exc) if isinstance(exc, AipipeError) else f"engine error: {exc!r}"
            with contextlib.suppress(NotFoundError):
                self._mark_finished(self.store.get_workflow(namespace, name), NodePhase.ERROR.value, message)
            raise
        finally:
            done.set()
            beat.join()
            self.store.release(uid, driver_id)

    def _heartbeat(self, uid: str, driver_id: str, stop: threading.Event, done: threading.Event,
                   on_control: Callable[[dict[str, Any]], None]) -> None:
        while not done.wait(HEARTBEAT_SECONDS):
            if self.store.heartbeat(uid, driver_id) is not None:
                stop.set()
            for control_id, action in self.store.pending_controls(uid):
                on_control(action)  # applied and written before it is acknowledged
                self.store.ack_control(control_id)

    def resumable(self, name: str, namespace: str | None = None) -> dict[str, Any]:
        """A stored run that has not finished (e.g. its driver was killed with -9), ready for :meth:`drive`."""
        workflow = self.store.find_workflow(name, namespace)
        phase = workflow.get("status", {}).get("phase", "")
        if phase in COMPLETED_PHASES:
            raise UserError(f"run {name} already finished ({phase}); use `aipipe retry` or `aipipe resubmit`",
                            field="name")
        return workflow

    def orphaned(self) -> list[dict[str, Any]]:
        """Unfinished runs without a live driver: what a restarted server continues."""
        out = []
        for workflow in self.store.unfinished_workflows():
            driver = self.store.driver(workflow["metadata"]["uid"])
            if driver is None or not driver.is_alive():
                out.append(workflow)
        return out

    # -- stop, retry, resubmit -----------------------------------------------------------------
    def stop(self, name: str, namespace: str | None = None, message: str = TERMINATED_MESSAGE) -> dict[str, Any]:
        """Ask the driver to stop the run (it kills its processes); a run nobody drives is failed at once."""
        workflow = self.store.find_workflow(name, namespace)
        if workflow.get("status", {}).get("phase") in COMPLETED_PHASES:
            return workflow
        uid = workflow["metadata"]["uid"]
        driver = self.store.driver(uid)
        if driver is not None and driver.is_alive():
            self.store.request_stop(uid, message)
            return workflow
        return self._mark_finished(workflow, NodePhase.FAILED.value, message)

    def control(self, name: str, namespace: str | None, action: dict[str, Any]) -> dict[str, Any]:
        """Suspend, resume, set or shut down a run the way Argo's server does (``aipipe.engine.control``).

        The action is checked against the stored run (a refusal is a UserError in Argo's words) and then
        queued for the run's driver, which applies it to the live run at its next heartbeat; this waits
        (up to ``CONTROL_WAIT_SECONDS``) until the driver has written the result, so a following action
        sees it, as with Argo. A run nobody drives is changed in the store (and a shutdown ends it at once).
        Returns the run as changed.
        """
        workflow = self.store.find_workflow(name, namespace)
        if action.get("action") == SHUTDOWN and not action.get("nodeFieldSelector") and \
                workflow.get("status", {}).get("phase") in COMPLETED_PHASES:
            raise ConflictError(f"cannot shutdown a completed workflow: workflow: {name!r}, namespace: "
                                f"{workflow['metadata']['namespace']!r}")
        changed = apply_to_workflow(action, workflow)
        uid = workflow["metadata"]["uid"]
        driver = self.store.driver(uid)
        if driver is not None and driver.is_alive():
            control_id = self.store.push_control(uid, action)
            deadline = time.monotonic() + CONTROL_WAIT_SECONDS
            while self.store.control_pending(control_id) and time.monotonic() < deadline:
                time.sleep(0.05)
            if self.store.control_pending(control_id):
                return changed  # the driver is busy: it applies the action when it can
            with contextlib.suppress(NotFoundError):
                return self.store.get_workflow(changed["metadata"]["namespace"], name)
            return changed
        shutdown = changed["spec"].get("shutdown") if action.get("action") == SHUTDOWN else None
        if shutdown and not action.get("nodeFieldSelector"):
            self.store.save_workflow(changed)
            return self._mark_finished(self.store.get_workflow(changed["metadata"]["namespace"], name),
                                       NodePhase.FAILED.value,
                                       shutdown_message(shutdown))
        self.store.save_workflow(changed)
        return self.store.get_workflow(changed["metadata"]["namespace"], name)

    def delete(self, name: str, namespace: str | None = None) -> None:
        """Stop the run if it runs, forget it and its logs, and remove its scratch area once nobody drives it."""
        workflow = self.stop(name, namespace)
        uid = workflow["metadata"]["uid"]
        deadline = time.monotonic() + STOP_WAIT_SECONDS
        driver = self.store.driver(uid)
        while driver is not None and driver.is_alive() and time.monotonic() < deadline:
            time.sleep(0.1)  # the driver is killing the run's processes
            driver = self.store.driver(uid)
        self.store.delete_workflow(workflow["metadata"]["namespace"], name)
        if driver is None or not driver.is_alive():  # a driver still busy keeps its files
            shutil.rmtree(self.run_dir(uid), ignore_errors=True)

    def _mark_finished(self, workflow: dict[str, Any], phase: str, message: str) -> dict[str, Any]:
        """End a run nobody drives: kill the processes its dead driver left behind, then record ``phase``."""
        from aipipe.engine.pod import PodRunner

        status = workflow.setdefault("status", {})
        now = now_rfc3339()
        for node in status.get("nodes", {}).values():
            if node.get("phase") in (None, "", NodePhase.PENDING, NodePhase.RUNNING):
                PodRunner.kill_orphan(node)
                node.update(phase=phase, message=message, finishedAt=now)
        status.update(phase=phase, message=message, finishedAt=now)
        self.store.save_workflow(workflow)
        return self.store.get_workflow(workflow["metadata"]["namespace"], workflow["metadata"]["name"])

    def prepare_retry(self, name: str, namespace: str | None = None, *, restart_successful: bool = False,
                      node_field_selector: str = "", parameters: Iterable[str] = ()) -> dict[str, Any]:
        """Reset a Failed/Error run the way ``argo retry`` does; the caller then drives it."""
        workflow = self.store.find_workflow(name, namespace)
        phase = workflow.get("status", {}).get("phase", "")
        if phase not in (NodePhase.FAILED, NodePhase.ERROR):
            raise UserError(f"run {name} is {phase or 'not started'}; only Failed or Error runs can be retried",
                            field="name")
        driver = self.store.driver(workflow["metadata"]["uid"])
        if driver is not None and driver.is_alive():
            raise ConflictError(f"run {name} is still being driven by process {driver.pid}")
        retried = formulate_retry(workflow, restart_successful, node_field_selector)
        _apply_parameters(retried, parameters)
        self.store.save_workflow(retried)
        return self.store.get_workflow(retried["metadata"]["namespace"], name)

    def prepare_resubmit(self, name: str, namespace: str | None = None, *, parameters: Iterable[str] = (),
                         driver_id: str | None = None) -> dict[str, Any]:
        """A new Pending run from the spec of ``name`` (``argo resubmit``); the caller then drives it."""
        old = self.store.find_workflow(name, namespace)
        meta = old["metadata"]
        labels = {k: v for k, v in meta.get("labels", {}).items() if k not in (PHASE_LABEL, COMPLETED_LABEL)}
        labels[RESUBMITTED_FROM_LABEL] = meta["name"]
        new = {"apiVersion": old.get("apiVersion", "argoproj.io/v1alpha1"), "kind": "Workflow",
               "metadata": {"generateName": f"{meta['name']}-", "labels": labels,
                            "annotations": dict(meta.get("annotations", {}))},
               "spec": {k: v for k, v in copy.deepcopy(old["spec"]).items() if k != "shutdown"}}
        _apply_parameters(new, parameters)
        return self.submit(new, meta["namespace"], driver_id=driver_id)


def _apply_parameters(workflow: dict[str, Any], parameters: Iterable[str]) -> None:
    """Override ``spec.arguments.parameters`` from ``name=value`` strings (as ``argo resubmit -p``)."""
    params = workflow["spec"].setdefault("arguments", {}).setdefault("parameters", [])
    for item in parameters:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UserError(f"expected name=value, got {item!r}", field="parameters")
        for param in params:
            if param.get("name") == key:
                param["value"] = value
                break
        else:
            params.append({"name": key, "value": value})


def _matches(node: dict[str, Any], selector: str) -> bool:
    """A small field selector over node fields: ``key=value`` / ``key!=value``, comma-separated."""
    for term in filter(None, (t.strip() for t in selector.split(","))):
        negate = "!=" in term
        key, _, value = term.partition("!=" if negate else "=")
        actual = str(node.get(key.strip(), ""))
        if (actual == value.strip()) == negate:
            return False
    return True


def formulate_retry(workflow: dict[str, Any], restart_successful: bool = False,
                    node_field_selector: str = "") -> dict[str, Any]:
    """Argo's retry: failed leaf nodes and exit handlers are dropped (exit handlers run again), unfinished
    parents are set Running again.

    Succeeded and Skipped nodes are kept unless ``restart_successful`` and they match the selector.
    """
    workflow = copy.deepcopy(workflow)
    workflow.setdefault("spec", {}).pop("shutdown", None)  # as Argo: a retried run is no longer shut down
    status = workflow.setdefault("status", {})
    nodes: dict[str, dict[str, Any]] = status.get("nodes", {})
    drop: set[str] = set()
    for node_id, node in nodes.items():
        restart = restart_successful and bool(node_field_selector) and _matches(node, node_field_selector)
        exit_handler = node.get("name", "").endswith(".onExit")
        if node.get("phase") in _KEEP_ON_RETRY and not restart and not exit_handler:
            continue
        if exit_handler or node.get("type") in _LEAF_TYPES:
            drop.add(node_id)
        else:
            node["phase"] = NodePhase.RUNNING.value
            for key in ("finishedAt", "message", "outputs"):
                node.pop(key, None)
    drop |= _descendants(nodes, drop)
    for node_id in drop:
        nodes.pop(node_id, None)
    for node in nodes.values():
        if "children" in node:
            node["children"] = [c for c in node["children"] if c not in drop]
        if "outboundNodes" in node:
            node["outboundNodes"] = [c for c in node["outboundNodes"] if c not in drop]
    status["phase"] = NodePhase.RUNNING.value
    for key in ("finishedAt", "message", "outputs"):
        status.pop(key, None)
    return workflow


def _descendants(nodes: dict[str, dict[str, Any]], roots: set[str]) -> set[str]:
    found: set[str] = set()
    todo = list(roots)
    while todo:
        for child in nodes.get(todo.pop(), {}).get("children", []):
            if child not in found and child not in roots:
                found.add(child)
                todo.append(child)
    return found
