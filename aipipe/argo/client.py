"""Argo Server client over Hera's ``WorkflowsService``, with errors mapped to aipipe's.

Unreachable server -> ServiceUnavailable naming the URL; 401/403 -> AuthError; 409 ->
ConflictError; 404 -> NotFoundError; 400/422 -> UserError with the server's message; 5xx ->
ServiceUnavailable.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit

import pydantic
import requests
from hera.exceptions import HeraException
from hera.workflows.models import (
    CreateCronWorkflowRequest,
    CreateOptions,
    CronWorkflow,
    LintCronWorkflowRequest,
    UpdateCronWorkflowRequest,
    Workflow,
    WorkflowCreateRequest,
    WorkflowTemplate,
    WorkflowTemplateCreateRequest,
    WorkflowTemplateLintRequest,
    WorkflowTemplateUpdateRequest,
)
from hera.workflows.service import WorkflowsService

from aipipe.config import Config
from aipipe.errors import AipipeError, AuthError, ConflictError, NotFoundError, ServiceUnavailable, UserError
from aipipe.validation import check_namespace

T = TypeVar("T")
DRY_RUN = CreateOptions(dry_run=["All"])
TIMEOUT_SECONDS = 30


def _dump(model: Any) -> dict[str, Any]:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


class _Session(requests.Session):
    """Adds a timeout (Hera's service sets none) and remembers the last HTTP status, which Hera's
    exceptions keep only for some codes."""

    last_status = 0

    def request(self, *args: Any, **kwargs: Any) -> requests.Response:
        kwargs.setdefault("timeout", TIMEOUT_SECONDS)
        self.last_status = 0
        response = super().request(*args, **kwargs)
        self.last_status = response.status_code
        return response


@dataclass(frozen=True)
class Applied:
    """What ``apply`` did to one resource."""

    kind: str
    name: str
    action: str  # created | updated | unchanged | would create | would update


class ArgoClient:
    """Talks to one Argo Server namespace; every call maps HTTP failures to aipipe errors."""

    def __init__(self, server: str, namespace: str, token: str = "", verify_ssl: bool = True) -> None:
        server = server.strip().rstrip("/")
        if not server.startswith(("http://", "https://")):
            raise UserError(f"must start with http:// or https://, got {server!r}", field="argo.server")
        self.server = server
        self.namespace = check_namespace(namespace, field="argo.namespace")
        self.session = _Session()
        self.service = WorkflowsService(host=server + "/", verify_ssl=verify_ssl, token=token or None,
                                        namespace=namespace, session=self.session)

    @classmethod
    def from_config(cls, cfg: Config) -> ArgoClient:
        """Server, namespace, token and TLS verification from the config; the token is ARGO_TOKEN, else
        (for a server on this machine only) the local ``aipipe server``'s ``AIPIPE_HOME/server.token``."""
        server = cfg.get("argo.server")
        return cls(server, cfg.get("argo.namespace"), cfg.get("argo.token") or local_server_token(cfg, server),
                   bool(cfg.get("argo.verify_ssl")))

    def ui_url(self, name: str) -> str:
        """The Argo UI page of a workflow."""
        return f"{self.server}/workflows/{self.namespace}/{name}"

    @contextmanager
    def _errors(self, what: str) -> Iterator[None]:
        try:
            yield
        except requests.exceptions.SSLError as exc:
            raise ServiceUnavailable(f"TLS error talking to Argo server at {self.server} ({what}): {exc}") from exc
        except requests.exceptions.RequestException as exc:
            raise ServiceUnavailable(f"cannot reach Argo server at {self.server} ({what}): "
                                     f"{type(exc).__name__}") from exc
        except pydantic.ValidationError as exc:
            raise AipipeError(f"unexpected response from Argo server at {self.server} ({what}): "
                              f"{exc.error_count()} field(s) do not match the Argo API, first: "
                              f"{_first_error(exc)}") from exc
        except HeraException as exc:
            status = getattr(exc, "status_code", None) or self.session.last_status
            raise _map_status(status, f"{what}: {_server_message(exc)}", self.server) from exc

    def _call(self, what: str, fn: Callable[[], T]) -> T:
        with self._errors(what):
            return fn()

    # --- workflows ---------------------------------------------------------------------------

    def create_workflow(self, workflow: dict[str, Any], dry_run: bool = False) -> dict[str, Any]:
        """Create a Workflow; returns the server's copy (with ``metadata.name``)."""
        req = WorkflowCreateRequest(workflow=_model(Workflow, workflow), namespace=self.namespace,
                                    server_dry_run=dry_run or None)
        return _dump(self._call(f"create Workflow {_name(workflow)}", lambda: self.service.create_workflow(req)))

    def get_workflow(self, name: str) -> dict[str, Any]:
        return _dump(self._call(f"get Workflow {name}", lambda: self.service.get_workflow(name)))

    def get_workflow_template(self, name: str) -> dict[str, Any]:
        """The stored WorkflowTemplate (``kind``/``apiVersion`` filled in: the server may omit them)."""
        found = _dump(self._call(f"get WorkflowTemplate {name}", lambda: self.service.get_workflow_template(name)))
        return {"apiVersion": "argoproj.io/v1alpha1", "kind": "WorkflowTemplate", **found}

    # --- create-or-update of WorkflowTemplates and CronWorkflows -------------------------------

    def apply(self, docs: list[dict[str, Any]], dry_run: bool = False) -> list[Applied]:
        """Create or update each WorkflowTemplate/CronWorkflow; every item is dry-run on the server
        first, so a batch with one invalid item writes nothing. ``dry_run`` stops after that."""
        for doc in docs:
            if doc.get("kind") not in ("WorkflowTemplate", "CronWorkflow"):
                raise UserError(f"cannot apply kind {doc.get('kind')!r}", field=_name(doc))
        exists = [self._dry_run(doc) for doc in docs]
        same = [existing and self._unchanged(doc) for doc, existing in zip(docs, exists, strict=True)]
        if dry_run:
            return [Applied(d["kind"], _name(d), "unchanged" if u else "would update" if e else "would create")
                    for d, e, u in zip(docs, exists, same, strict=True)]
        return [Applied(doc["kind"], _name(doc), "unchanged") if unchanged else self._write(doc, existing)
                for doc, existing, unchanged in zip(docs, exists, same, strict=True)]

    def _unchanged(self, doc: dict[str, Any]) -> bool:
        """True when the server's copy has the same spec, labels and annotations as ``doc``."""
        kind, name = doc["kind"], _name(doc)
        current: WorkflowTemplate | CronWorkflow
        wanted: WorkflowTemplate | CronWorkflow
        with self._errors(f"get {kind} {name}"):
            if kind == "WorkflowTemplate":
                current, wanted = self.service.get_workflow_template(name), _model(WorkflowTemplate, doc)
            else:
                current, wanted = self.service.get_cron_workflow(name), _model(CronWorkflow, doc)
        return (_dump(current.spec) == _dump(wanted.spec)
                and (current.metadata.labels or {}) == (wanted.metadata.labels or {})
                and (current.metadata.annotations or {}) == (wanted.metadata.annotations or {}))

    def _dry_run(self, doc: dict[str, Any]) -> bool:
        """Validate one item on the server without writing; True when it already exists."""
        kind, name = doc["kind"], _name(doc)
        try:
            with self._errors(f"dry-run {kind} {name}"):
                if kind == "WorkflowTemplate":
                    self.service.create_workflow_template(WorkflowTemplateCreateRequest(
                        template=_model(WorkflowTemplate, doc), namespace=self.namespace,
                        create_options=DRY_RUN))
                else:
                    self.service.create_cron_workflow(CreateCronWorkflowRequest(
                        cron_workflow=_model(CronWorkflow, doc), namespace=self.namespace,
                        create_options=DRY_RUN))
            return False
        except ConflictError:
            with self._errors(f"lint {kind} {name}"):  # exists: the update is validated by the lint endpoint
                if kind == "WorkflowTemplate":
                    self.service.lint_workflow_template(WorkflowTemplateLintRequest(
                        template=_model(WorkflowTemplate, doc), namespace=self.namespace))
                else:
                    self.service.lint_cron_workflow(LintCronWorkflowRequest(
                        cron_workflow=_model(CronWorkflow, doc), namespace=self.namespace))
            return True

    def _write(self, doc: dict[str, Any], existing: bool) -> Applied:
        kind, name = doc["kind"], _name(doc)
        with self._errors(f"{'update' if existing else 'create'} {kind} {name}"):
            if kind == "WorkflowTemplate":
                model = _model(WorkflowTemplate, doc)
                if not existing:
                    self.service.create_workflow_template(
                        WorkflowTemplateCreateRequest(template=model, namespace=self.namespace))
                else:
                    current = self.service.get_workflow_template(name)
                    model.metadata.resource_version = current.metadata.resource_version
                    self.service.update_workflow_template(
                        name, WorkflowTemplateUpdateRequest(template=model, namespace=self.namespace))
            else:
                cron = _model(CronWorkflow, doc)
                if not existing:
                    self.service.create_cron_workflow(
                        CreateCronWorkflowRequest(cron_workflow=cron, namespace=self.namespace))
                else:
                    current_cron = self.service.get_cron_workflow(name)
                    cron.metadata.resource_version = current_cron.metadata.resource_version
                    self.service.update_cron_workflow(
                        name, UpdateCronWorkflowRequest(cron_workflow=cron, namespace=self.namespace))
        return Applied(kind, name, "updated" if existing else "created")


def local_server_token(cfg: Config, server: str) -> str:
    """The token of the ``aipipe server`` in ``AIPIPE_HOME`` when ``server`` is a loopback URL ("" otherwise):
    it is never sent to another machine."""
    from aipipe.server.loopback import loopback_host
    from aipipe.server.token import read_token

    host = urlsplit(server.strip()).netloc
    if not host or not loopback_host(host):
        return ""
    return read_token(cfg.home) or ""


M = TypeVar("M", bound=pydantic.BaseModel)


def _model(cls: type[M], doc: dict[str, Any]) -> M:
    """The Hera model of a manifest; a manifest that does not fit the Argo API is a UserError."""
    try:
        return cls.model_validate(doc)
    except pydantic.ValidationError as exc:
        raise UserError(f"not a valid {cls.__name__}: {_first_error(exc)}", field=_name(doc)) from exc


def _first_error(exc: pydantic.ValidationError) -> str:
    first = exc.errors()[0]
    return f"{'.'.join(map(str, first['loc']))}: {first['msg']}"


def _name(doc: dict[str, Any]) -> str:
    meta = doc.get("metadata") or {}
    return str(meta.get("name") or meta.get("generateName") or "?")


def _server_message(exc: HeraException) -> str:
    """The server's own message out of Hera's "Server returned status code N with message: `…`"."""
    text = str(exc)
    _, sep, rest = text.partition("with message: `")
    return rest.rstrip("`") if sep else text


def _map_status(status: int, message: str, server: str) -> Exception:
    if status in (401, 403):
        return AuthError(f"{message} (HTTP {status}; check ARGO_TOKEN, or AIPIPE_HOME/server.token for a local "
                         "aipipe server)")
    if status == 409:
        return ConflictError(message)
    if status == 404:
        return NotFoundError(message)
    if status >= 500 or status == 0:
        return ServiceUnavailable(f"Argo server at {server} failed: {message}")
    return UserError(message)
