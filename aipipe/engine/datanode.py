"""Data templates: list the artifact repository, transform the list with expr-lang, as Argo's ``argoexec data``
(``workflow/data/data.go``) does.

``source.artifactPaths`` names a key prefix (``s3.key``; none: the whole repository, since the embedded engine has
one repository and resolves every artifact key in it); the source is every object key under it, recursively, as
the keys a later step's ``s3.key: "{{item}}"`` reads. Each ``transformation[].expression`` then runs with that
value as ``data``. The node's ``outputs.result`` is the final value as Go's ``json.Marshal`` writes it. Errors
carry Argo's wording ("unable to process data template: …").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aipipe.engine.calls import Call
from aipipe.engine.expr import ExprError, evaluate
from aipipe.engine.grammar.values import to_json
from aipipe.engine.handler import NodeResult
from aipipe.engine.io import artifact_key, key_uri
from aipipe.engine.noderef import NodeRef
from aipipe.engine.phases import NodePhase
from aipipe.engine.runtime import Runtime
from aipipe.engine.template import Scope, TemplateError, render_deep
from aipipe.errors import UserError

MAX_KEYS = 100_000  # a listing past this fails the node rather than fill the run's state
DATA_FAILURE = "unable to process data template"  # how Argo words every failure of one


class DataFailure(Exception):
    """The source or a transformation failed; the message is Argo's chain of reasons."""


class DataHandler:
    """Runs a ``data`` template in the engine: no process, one listing and the expressions."""

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt

    def run(self, call: Call, node: NodeRef, scope: Scope) -> NodeResult:
        self.rt.enter(node)
        try:
            spec = render_deep(call.template.get("data") or {}, scope, f"{node.display}.data")
        except TemplateError as exc:
            return {"phase": NodePhase.ERROR, "message": str(exc), "terminal": exc.absent}
        try:
            data = transform(self._source(spec.get("source") or {}), spec.get("transformation") or [])
        except DataFailure as exc:
            return {"phase": NodePhase.FAILED, "message": f"{DATA_FAILURE}: {exc}"}
        return {"phase": NodePhase.SUCCEEDED, "outputs": {"result": to_json(data)}}

    def _source(self, source: Mapping[str, Any]) -> list[str]:
        """The object keys under ``artifactPaths``' key, relative to the repository's root."""
        paths = source.get("artifactPaths")
        if not isinstance(paths, Mapping):
            raise DataFailure("unable to process data source: no valid source is used for data template")
        ctx = self.rt.ctx
        root = ctx.artifact_root.rstrip("/")
        try:
            key = artifact_key(paths) or ""
            prefix = key_uri(root, key)
            found = ctx.storage.list(prefix + "/" if key else prefix)  # as Argo: the key is a folder, not a stem
        except (UserError, OSError) as exc:
            raise DataFailure(f"unable to process data source: unable to source artifact paths: {exc}") from exc
        if len(found) > MAX_KEYS:
            raise DataFailure(f"unable to process data source: over {MAX_KEYS} objects under {prefix}, the embedded "
                              "engine's bound for a data template")
        return [uri[len(root):].lstrip("/") for uri in found]


def transform(data: Any, steps: list[Mapping[str, Any]]) -> Any:
    """Each step's ``expression`` applied in turn, reading the value so far as ``data``."""
    for i, step in enumerate(steps):
        if not step.get("expression"):
            continue
        try:
            data = evaluate(str(step["expression"]), {"data": data})
        except ExprError as exc:
            raise DataFailure(f"unable to process data transformation: error processing data step {i}: {exc}") from exc
    return data
