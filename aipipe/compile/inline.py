"""A Workflow that carries the WorkflowTemplates it was compiled with, for a local run.

``aipipe run`` and ``aipipe demo`` run exactly what they compiled, and never write the template store
that ``aipipe server`` (and ``templates apply``) use: each ``templateRef`` to a template the pipeline
defines becomes a template of the Workflow itself, with the same name when that name is free. This is
what Argo does at run time (a running workflow keeps the templates it resolved in
``status.storedTemplates``), done before submission. References to templates the pipeline does not
define stay ``templateRef``s, resolved against the store as before.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator, Mapping, MutableMapping
from typing import Any

Library = Mapping[str, Mapping[str, Mapping[str, Any]]]  # WorkflowTemplate name -> template name -> template


def _library(templates: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Mapping[str, Any]]]:
    return {str(t["metadata"]["name"]): {str(x["name"]): x for x in (t.get("spec") or {}).get("templates") or []}
            for t in templates if t.get("kind") in ("WorkflowTemplate", "ClusterWorkflowTemplate")}


def _calls(tmpl: MutableMapping[str, Any]) -> Iterator[MutableMapping[str, Any]]:
    """Every place in a template that names another template: DAG tasks, steps and their lifecycle hooks."""
    items: list[MutableMapping[str, Any]] = list((tmpl.get("dag") or {}).get("tasks") or [])
    items += [step for group in tmpl.get("steps") or [] for step in group or []]
    for item in items:
        yield item
        yield from (item.get("hooks") or {}).values()


class _Inliner:
    def __init__(self, workflow: dict[str, Any], library: Library) -> None:
        self.spec = workflow.setdefault("spec", {})
        self.spec.setdefault("templates", [])
        self.library = library
        self.taken = {str(t.get("name")) for t in self.spec["templates"]}
        self.inlined: dict[tuple[str, str], str] = {}  # (WorkflowTemplate, template) -> name in the Workflow

    def rewrite(self, calls: Iterable[MutableMapping[str, Any]], owner: str | None) -> None:
        """Point ``calls`` (made inside WorkflowTemplate ``owner``, or the Workflow when None) at inlined copies."""
        for call in calls:
            ref = call.get("templateRef")
            if isinstance(ref, Mapping) and str(ref.get("name")) in self.library and not ref.get("clusterScope"):
                target = (str(ref["name"]), str(ref.get("template")))
            elif owner is not None and isinstance(call.get("template"), str):
                target = (owner, call["template"])
            else:
                continue
            if target[1] not in self.library[target[0]]:
                continue  # left as it is: lint and the engine name the missing template
            call.pop("templateRef", None)
            call["template"] = self.inline(*target)

    def inline(self, owner: str, name: str) -> str:
        if (owner, name) in self.inlined:
            return self.inlined[(owner, name)]
        local = name if name not in self.taken else f"{owner}-{name}"
        self.taken.add(local)
        self.inlined[(owner, name)] = local
        tmpl = copy.deepcopy(dict(self.library[owner][name]))
        tmpl["name"] = local
        self.spec["templates"].append(tmpl)
        self.rewrite(_calls(tmpl), owner)
        return local


def inline_templates(workflow: Mapping[str, Any], templates: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """A copy of ``workflow`` whose references to ``templates`` are replaced by copies inside it."""
    out = copy.deepcopy(dict(workflow))
    library = _library(templates)
    if not library:
        return out
    inliner = _Inliner(out, library)
    for tmpl in list(inliner.spec["templates"]):
        inliner.rewrite(_calls(tmpl), None)
    hooks = (out["spec"].get("hooks") or {}).values()
    inliner.rewrite(hooks, None)
    return out
