"""containerSet templates: several containers of one node (one pod), run as their ``dependencies`` allow.

The node is a Pod node with one child of type ``Container`` per container (``<node>.<container>``). The container
named ``main`` (else the last one) is the node's main process, run by :class:`aipipe.engine.pod.PodRunner` as for a
container template (its inputs, outputs, stdout result, deadline); the others run beside it here, each once
every container it depends on has succeeded. With the set's ``retryStrategy`` a container that exits non-zero
runs again in the same pod (its files kept), ``retries`` runs in all, ``duration`` apart, as Argo's executor
retries it. A container that still fails fails the node (``<name>: Error (exit code N)``); the containers that
depend on it never start and their nodes end Failed, as Argo ends the unfinished container nodes of a failed pod.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Mapping
from typing import Any

from aipipe.engine.halt import Cancellation
from aipipe.engine.nodes import NodeTree, node_id, now_iso
from aipipe.engine.phases import NodePhase, NodeType
from aipipe.engine.retry import parse_duration
from aipipe.engine.runners.base import Handle
from aipipe.engine.runners.local import LocalRunner
from aipipe.engine.sidecars import Extra, failure
from aipipe.errors import UserError

Track = Callable[[str, Handle | None], None]  # (container name, running handle or None once it ended)


def split_set(tmpl: Mapping[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The main container (with the set's volume mounts) and the others, each with them too (the set is
    validated at submit: :func:`aipipe.engine.lintrules.container_set`)."""
    cset = tmpl.get("containerSet") or {}
    shared = list(cset.get("volumeMounts") or [])
    containers = [{**c, "volumeMounts": [*shared, *(c.get("volumeMounts") or [])]}
                  for c in cset.get("containers") or []]
    main = next((c for c in containers if c.get("name") == "main"), containers[-1])
    return main, [c for c in containers if c is not main]


@dataclasses.dataclass
class SetRetry:
    """What is left of a containerSet's ``retryStrategy`` for one container: ``retries`` more runs, ``pause``
    seconds apart. ``retries: N`` allows N runs in all: Argo's executor retries with a backoff of N steps (the
    field's API doc says N + 1; the executor's code and its e2e test
    TestWorkflowTemplateWithRetryStrategyInContainerSet give N)."""

    retries: int
    pause: float

    @classmethod
    def of(cls, tmpl: Mapping[str, Any]) -> SetRetry:
        raw = (tmpl.get("containerSet") or {}).get("retryStrategy") or {}
        field = "containerSet.retryStrategy"
        try:
            retries = int(str(raw.get("retries") or 0))
        except ValueError as exc:
            raise UserError(f"must be an integer, got {raw.get('retries')!r}", field=f"{field}.retries") from exc
        pause = parse_duration(raw["duration"], f"{field}.duration") if raw.get("duration") else 0.0
        return cls(max(retries - 1, 0), pause)

    def again(self, stop: Cancellation) -> bool:
        """Whether the container that just failed runs again (after the pause; False once ``stop`` is set)."""
        if self.retries <= 0:
            return False
        self.retries -= 1
        return not stop.wait(self.pause)


class ContainerNodes:
    """The Container child nodes of a containerSet's Pod node."""

    def __init__(self, tree: NodeTree, pod_id: str, names: list[str]) -> None:
        self.tree, self.pod_id = tree, pod_id
        pod = tree.get(pod_id) or {}
        self.ids: dict[str, str] = {}
        for name in names:
            full = f"{pod.get('name', pod_id)}.{name}"
            cid = self.ids[name] = node_id(tree.workflow_name, full)
            tree.put(cid, id=cid, name=full, displayName=name,
                     type=NodeType.CONTAINER, phase=NodePhase.PENDING, boundaryID=pod.get("boundaryID"),
                     templateName=pod.get("templateName"), startedAt=now_iso(), finishedAt=None)
            tree.add_child(pod_id, cid)
        tree.commit()

    @classmethod
    def of_set(cls, tree: NodeTree, pod_id: str, tmpl: Mapping[str, Any], main: Mapping[str, Any],
               others: list[dict[str, Any]]) -> ContainerNodes | None:
        """A containerSet's Container nodes, Pending (None for other templates)."""
        if tmpl.get("containerSet") is None:
            return None
        return cls(tree, pod_id, [*(str(c.get("name")) for c in others), str(main.get("name") or "main")])

    def running(self, name: str) -> None:
        self.tree.put(self.ids[name], phase=NodePhase.RUNNING, startedAt=now_iso())
        self.tree.commit()

    def fail_all(self, message: str) -> None:
        """The pod failed before its containers ran (an init container failed): every container node fails."""
        for name in self.ids:
            self.ended(name, NodePhase.FAILED, message)

    def ended(self, name: str, phase: NodePhase, message: str | None = None) -> None:
        record = self.tree.get(self.ids[name]) or {}
        if record.get("phase") in (NodePhase.SUCCEEDED, NodePhase.FAILED, NodePhase.ERROR):
            return
        self.tree.put(self.ids[name], phase=phase, finishedAt=now_iso(), **({"message": message} if message else {}))
        self.tree.commit()


class ContainerGraph:
    """Runs the containers other than main, each in a thread once its dependencies have succeeded."""

    def __init__(self, extras: list[Extra], deps: Mapping[str, list[str]], main: str, runner: LocalRunner,
                 nodes: ContainerNodes, track: Track, stop: Cancellation, retry: SetRetry) -> None:
        self.extras, self.deps, self.main, self.runner = extras, deps, main, runner
        self.nodes, self.track, self.stop, self.retry = nodes, track, stop, retry
        self.done = {name: threading.Event() for name in [*(e.name for e in extras), main]}
        self.ok: dict[str, bool] = {}
        self.problems: list[str] = []
        self.threads = [threading.Thread(target=self._run, args=(e,), daemon=True) for e in extras]
        for thread in self.threads:
            thread.start()

    def wait_for(self, name: str) -> bool:
        """Wait for the containers ``name`` depends on; True when they all succeeded."""
        for dep in self.deps.get(name) or []:
            self.done[dep].wait()
        return all(self.ok.get(dep) for dep in self.deps.get(name) or [])

    def main_ended(self, ok: bool) -> None:
        self.ok[self.main] = ok
        self.done[self.main].set()

    def finish(self) -> str | None:
        """Wait for every container; the first failure's message (None when all succeeded)."""
        if not self.done[self.main].is_set():
            self.main_ended(False)
        for thread in self.threads:
            thread.join()
        return self.problems[0] if self.problems else None

    def _run(self, extra: Extra) -> None:
        ok = False
        try:
            if not self.wait_for(extra.name) or self.stop.is_set():
                self.nodes.ended(extra.name, NodePhase.FAILED, "a container it depends on did not succeed")
                return
            self.nodes.running(extra.name)
            retry = dataclasses.replace(self.retry)
            while True:
                try:
                    handle = self.runner.start(extra.spec)
                except (OSError, UserError) as exc:  # its view could not be set up: it fails, as a pod that can't start
                    message = f"{extra.name}: failed to start: {exc}"
                    self.problems.append(message)
                    self.nodes.ended(extra.name, NodePhase.FAILED, message)
                    return
                self.track(extra.name, handle)
                try:
                    result = handle.wait()
                finally:
                    self.track(extra.name, None)
                ok = not result.start_error and result.exit_code == 0 and not result.killed
                if ok or result.killed or result.start_error or not retry.again(self.stop):
                    break
            extra.on_end()
            if ok:
                self.nodes.ended(extra.name, NodePhase.SUCCEEDED)
            else:
                message = "stopped" if result.killed else failure(extra.name, result.exit_code, result.start_error)
                self.problems.append(message)
                self.nodes.ended(extra.name, NodePhase.FAILED, message)
        finally:
            self.ok[extra.name] = ok
            self.done[extra.name].set()
