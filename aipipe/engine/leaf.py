"""Container, script and containerSet templates: one node each, through :class:`aipipe.engine.pod.PodRunner`.

A ``daemon: true`` template's node hands back ``Running`` (``daemoned``) once its process is ready, and a
thread of its own ends the node later (:mod:`aipipe.engine.daemons`).
"""

from __future__ import annotations

import threading

from aipipe.engine.calls import Call
from aipipe.engine.daemons import DAEMON_IP, Daemon
from aipipe.engine.handler import NodeResult
from aipipe.engine.noderef import NodeRef
from aipipe.engine.phases import PASSED_PHASES, NodePhase
from aipipe.engine.pod import PodRunner
from aipipe.engine.runtime import Runtime
from aipipe.engine.template import Scope


class LeafHandler:
    """Runs a container or script node's process to its end (a daemon's: until it is ready)."""

    def __init__(self, rt: Runtime, pods: PodRunner) -> None:
        self.rt = rt
        self.pods = pods

    def run(self, call: Call, node: NodeRef, scope: Scope) -> NodeResult:
        self.rt.enter(node)  # a retry's attempt, when its retry node belongs to an exit handler
        if not call.head.daemon:
            return self.pods.run(node.id, node.name, call, scope, self.rt.tree)
        ready = threading.Event()
        lock = threading.Lock()
        handed: list[bool] = []  # set once the node is Running/daemoned: the worker ends it from then on
        ended: list[NodeResult] = []

        def work() -> None:
            result = self.pods.run(node.id, node.name, call, scope, self.rt.tree, on_ready=ready.set)
            with lock:
                if not handed:
                    ended.append(result)
            ready.set()
            if handed:
                self._end(node.id, result)

        threading.Thread(target=work, daemon=True, name=f"daemon-{node.id}").start()
        ready.wait()
        with lock:
            if ended:  # the process ended (or its probe never passed) before it was ready: an ordinary node
                return ended[0]
            if not self.pods.daemons.add(Daemon(node.id, node.boundary, lambda: self.pods.kill(node.id))):
                self.pods.kill(node.id)
            self.rt.tree.put(node.id, phase=NodePhase.RUNNING, daemoned=True, podIP=DAEMON_IP)
            self.rt.tree.commit()
            handed.append(True)
        return {"phase": NodePhase.RUNNING, "daemoned": True}

    def _end(self, nid: str, result: NodeResult) -> None:
        """The daemon's process ended: Failed when a stop or terminate of the run killed it (also where its
        boundary, cut short by the stop, released it at the same moment), Succeeded when the engine ended it
        (its boundary completed, the run ended), else what its process gave."""
        rt = self.rt
        result = dict(result)
        phase, message = result.pop("phase"), result.pop("message", None)
        if rt.halted(nid) and phase not in PASSED_PHASES:
            phase, message = NodePhase.FAILED, rt.abort_reason or message
        elif self.pods.daemons.is_released(nid):
            phase, message = NodePhase.SUCCEEDED, None
        result.pop("terminal", None)
        self._undaemon(nid)
        rt.finish_node(nid, phase, message, **result)
        daemon = self.pods.daemons.take(nid)
        if daemon is not None:
            for on_end in daemon.followers:
                on_end(phase, message, result.get("outputs"))
            daemon.done.set()

    def _undaemon(self, nid: str) -> None:
        with self.rt.tree.lock:
            self.rt.tree.nodes.get(nid, {}).pop("daemoned", None)
