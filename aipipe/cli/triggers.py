"""``aipipe triggers apply|register-label-studio|watch`` and ``aipipe cron list|get|suspend|resume``.

Triggers go to ``aipipe server`` (``--server``/``ARGO_SERVER``, its token read as every command reads it):
WorkflowTemplates through the Argo API, WorkflowEventBindings stored and listed as Argo lists them;
or, with ``--kubernetes``, to a cluster through the kubernetes client (server-side apply of the
WorkflowTemplates, WorkflowEventBindings, argo-events EventSources and Sensors).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Any

import requests
import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from aipipe.cli.build import DEFAULT_PIPELINE, NamespaceOpt, ServerOpt, _config, cron_app
from aipipe.compile.sources import documents_from_paths
from aipipe.config import Config
from aipipe.errors import AuthError, NotFoundError, ServiceUnavailable, UserError
from aipipe.validation import check_name

triggers_app = typer.Typer(help="Event triggers: Label Studio webhooks, data drops (cron/).", no_args_is_help=True)
out = Console(highlight=False, soft_wrap=True)
TIMEOUT_SECONDS = 30
TRIGGER_KINDS = ("WorkflowTemplate", "WorkflowEventBinding", "EventSource", "Sensor")
CLUSTER_KINDS = {"WorkflowTemplate": ("argoproj.io", "workflowtemplates"),
                 "WorkflowEventBinding": ("argoproj.io", "workfloweventbindings"),
                 "EventSource": ("argoproj.io", "eventsources"), "Sensor": ("argoproj.io", "sensors")}
FIELD_MANAGER = "aipipe"
LABEL_STUDIO_ACTIONS = ["ANNOTATION_CREATED", "ANNOTATIONS_CREATED", "ANNOTATION_UPDATED"]


class ArgoHttp:
    """JSON calls to an Argo Server API (``aipipe server``) with its bearer token; errors as aipipe's."""

    def __init__(self, cfg: Config) -> None:
        from aipipe.argo.client import local_server_token

        self.server = str(cfg.get("argo.server")).rstrip("/")
        if not self.server.startswith(("http://", "https://")):
            raise UserError(f"must start with http:// or https://, got {self.server!r}", field="argo.server")
        self.namespace = str(cfg.get("argo.namespace"))
        self.token = str(cfg.get("argo.token") or local_server_token(cfg, self.server))
        self.session = requests.Session()
        self.session.verify = bool(cfg.get("argo.verify_ssl"))
        if self.token:
            self.session.headers["Authorization"] = f"Bearer {self.token}"

    def call(self, method: str, path: str, body: Any = None) -> Any:
        url = f"{self.server}{path}"
        try:
            response = self.session.request(method, url, json=body, timeout=TIMEOUT_SECONDS)
        except requests.RequestException as exc:
            raise ServiceUnavailable(f"cannot reach Argo server at {self.server}: {type(exc).__name__}") from exc
        if response.ok:
            return response.json()
        try:
            message = str(response.json().get("message") or response.text)
        except ValueError:
            message = response.text[:200]
        if response.status_code in (401, 403):
            raise AuthError(f"{message} (HTTP {response.status_code}; check ARGO_TOKEN, or AIPIPE_HOME/server.token "
                            "for a local aipipe server)")
        if response.status_code == 404:
            raise NotFoundError(message)
        if response.status_code < 500:
            raise UserError(message)
        raise ServiceUnavailable(f"Argo server at {self.server} answered {response.status_code}: {message}")


# -- apply ----------------------------------------------------------------------------------------
def trigger_documents(paths: list[Path] | None, cfg: Config) -> list[dict[str, Any]]:
    """The trigger manifests of ``paths`` (files or folders), or the project's own (the pipeline's cron/)."""
    if paths:
        docs = [d for _, d in documents_from_paths(paths, cfg)]
    else:
        from aipipe.compile import compile_pipeline

        docs = compile_pipeline(DEFAULT_PIPELINE, cfg).events
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for doc in docs:
        if doc.get("kind") in TRIGGER_KINDS:
            found.setdefault((str(doc["kind"]), str((doc.get("metadata") or {}).get("name"))), doc)
    if not found:
        raise UserError(f"no {', '.join(TRIGGER_KINDS)} found", field=", ".join(map(str, paths or [])) or "paths")
    order = {kind: i for i, kind in enumerate(TRIGGER_KINDS)}  # templates before what submits them
    return sorted(found.values(), key=lambda d: order[d["kind"]])


def apply_to_server(cfg: Config, docs: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    """WorkflowTemplates and WorkflowEventBindings onto ``aipipe server``; argo-events kinds are left out."""
    from aipipe.argo import ArgoClient

    http = ArgoHttp(cfg)
    done: list[tuple[str, str, str]] = []
    templates = [d for d in docs if d["kind"] == "WorkflowTemplate"]
    if templates:
        done += [(a.kind, a.name, a.action) for a in ArgoClient.from_config(cfg).apply(templates)]
    for doc in docs:
        name = str(doc["metadata"]["name"])
        if doc["kind"] == "WorkflowEventBinding":
            http.call("POST", f"/api/v1/workflow-event-bindings/{http.namespace}", {"workflowEventBinding": doc})
            done.append((doc["kind"], name, "applied"))
        elif doc["kind"] in ("EventSource", "Sensor"):
            done.append((doc["kind"], name, "skipped (a cluster kind: --kubernetes)"))
    return done


def apply_to_cluster(cfg: Config, docs: list[dict[str, Any]], context: str | None) -> list[tuple[str, str, str]]:
    """Server-side apply (field manager ``aipipe``) of every trigger kind through the kubernetes client."""
    from kubernetes import client, config
    from kubernetes.client.rest import ApiException
    from kubernetes.config.config_exception import ConfigException

    try:
        api_client = config.new_client_from_config(context=context)
    except (ConfigException, OSError) as exc:
        raise UserError(f"no usable kubeconfig: {exc}", field="KUBECONFIG") from exc
    api = client.CustomObjectsApi(api_client)
    namespace = str(cfg.get("argo.namespace"))
    done = []
    for doc in docs:
        group, plural = CLUSTER_KINDS[doc["kind"]]
        name = str(doc["metadata"]["name"])
        try:
            api.patch_namespaced_custom_object(group, "v1alpha1", namespace, plural, name, doc,
                                               field_manager=FIELD_MANAGER, force=True,
                                               _content_type="application/apply-patch+yaml",
                                               _request_timeout=TIMEOUT_SECONDS)
        except ApiException as exc:
            if exc.status in (401, 403):
                raise AuthError(f"{doc['kind']} {name}: {exc.reason} (HTTP {exc.status})") from exc
            raise UserError(f"{exc.reason} (HTTP {exc.status}): {str(exc.body)[:300]}",
                            field=f"{doc['kind']} {name}") from exc
        except Exception as exc:  # urllib3 connection errors
            if type(exc).__module__.startswith("urllib3"):
                raise ServiceUnavailable(f"cannot reach the Kubernetes API: {type(exc).__name__}") from exc
            raise
        done.append((doc["kind"], name, "applied"))
    return done


@triggers_app.command("apply")
def triggers_apply(
    paths: Annotated[list[Path] | None, typer.Argument(help="trigger .py/.yaml files or folders (default: the "
                                                            "project's own, from cron/)")] = None,
    kubernetes: Annotated[bool, typer.Option("--kubernetes", help="apply to the cluster of the kubeconfig "
                                                                  "instead of aipipe server")] = False,
    context: Annotated[str | None, typer.Option("--context", help="kubeconfig context (with --kubernetes)")] = None,
    server: ServerOpt = None,
    namespace: NamespaceOpt = None,
) -> None:
    """Install the triggers: on aipipe server (templates, WorkflowEventBindings) or on a cluster."""
    cfg = _config(server, namespace)
    docs = trigger_documents(paths, cfg)
    done = apply_to_cluster(cfg, docs, context) if kubernetes else apply_to_server(cfg, docs)
    table = Table("kind", "name", "action", title=f"{'kubernetes' if kubernetes else cfg.get('argo.server')} "
                                                  f"namespace {cfg.get('argo.namespace')}")
    for row in done:
        table.add_row(*map(escape, row))
    out.print(table)


# -- Label Studio ---------------------------------------------------------------------------------
def event_url(cfg: Config) -> str:
    """Where Label Studio posts: ``triggers.event_url``, else the Argo server's event endpoint."""
    from cron.label_studio_webhook import DISCRIMINATOR

    given = str(cfg.get("triggers.event_url") or "")
    if given:
        if not given.startswith(("http://", "https://")):
            raise UserError(f"must start with http:// or https://, got {given!r}", field="triggers.event_url")
        return given
    return f"{str(cfg.get('argo.server')).rstrip('/')}/api/v1/events/{cfg.get('argo.namespace')}/{DISCRIMINATOR}"


def register_webhook(cfg: Config, project: int, url: str, token: str) -> tuple[int, str]:
    """Create (or update, when one with ``url`` exists) the project's webhook; returns (id, action)."""
    from label_studio_sdk.client import LabelStudio

    ls_url, api_key = str(cfg.get("label_studio.url")), str(cfg.get("label_studio.api_key"))
    if not api_key:
        raise UserError("is required to register a webhook", field="LABEL_STUDIO_API_KEY")
    ls = LabelStudio(base_url=ls_url, api_key=api_key, timeout=TIMEOUT_SECONDS)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    settings: dict[str, Any] = {"url": url, "send_payload": True, "send_for_all_actions": False,
                                "headers": headers, "actions": LABEL_STUDIO_ACTIONS, "is_active": True}
    try:
        existing = [w for w in ls.webhooks.list(project=str(project)) if w.url == url and w.project == project]
        if existing:
            hook = existing[0]
            ls.webhooks.update(int(hook.id or 0), **settings)
            return int(hook.id or 0), "updated"
        created = ls.webhooks.create(project=project, **settings)
    except Exception as exc:
        status = getattr(exc, "status_code", None)
        if status in (401, 403):
            raise AuthError(f"Label Studio at {ls_url} refused the API key (HTTP {status})") from exc
        if status == 404:
            raise NotFoundError(f"Label Studio project {project} not found at {ls_url}") from exc
        if status is not None:
            raise UserError(f"Label Studio at {ls_url} answered {status}: {getattr(exc, 'body', '')}") from exc
        if isinstance(exc, (OSError, ConnectionError)) or type(exc).__module__.startswith("httpx"):
            raise ServiceUnavailable(f"cannot reach Label Studio at {ls_url}: {type(exc).__name__}") from exc
        raise
    return int(created.id or 0), "created"


@triggers_app.command("register-label-studio")
def register_label_studio(
    project: Annotated[int, typer.Argument(help="Label Studio project id", min=1)],
    url: Annotated[str | None, typer.Option("--url", help="event URL Label Studio posts to (default: "
                                                           "triggers.event_url, else the server's "
                                                           "/api/v1/events/<namespace>/label-studio)")] = None,
    server: ServerOpt = None,
    namespace: NamespaceOpt = None,
) -> None:
    """Register the retrain webhook on a Label Studio project (label-studio-sdk), with the server's token."""
    from aipipe.argo.client import local_server_token

    cfg = _config(server, namespace)
    target = url or event_url(cfg)
    if not target.startswith(("http://", "https://")):
        raise UserError(f"must start with http:// or https://, got {target!r}", field="--url")
    token = str(cfg.get("argo.token") or local_server_token(cfg, str(cfg.get("argo.server"))))
    hook_id, action = register_webhook(cfg, project, target, token)
    out.print(f"webhook {hook_id} {action} on Label Studio project {project}: {escape(target)}"
              f"{' (with the server token)' if token else ''}")


# -- storage watcher --------------------------------------------------------------------------------
@triggers_app.command("watch")
def triggers_watch(
    interval: Annotated[float, typer.Option("--interval", help="seconds between scans", min=1.0)] = 10.0,
    once: Annotated[bool, typer.Option("--once", help="scan once and exit")] = False,
    server: ServerOpt = None,
    namespace: NamespaceOpt = None,
) -> None:
    """Watch <storage root>/<triggers.data_prefix> and post new objects to the server's event endpoint
    (S3 event notifications, discriminator ``s3``)."""
    from aipipe.server.watcher import DISCRIMINATOR, StorageWatcher, data_prefix_uri
    from cron._common import trigger_params

    cfg = _config(server, namespace)
    http = ArgoHttp(cfg)
    prefix = trigger_params(cfg)["data_prefix"]
    watcher = StorageWatcher(cfg, prefix, lambda event: http.call(
        "POST", f"/api/v1/events/{http.namespace}/{DISCRIMINATOR}", event))
    out.print(f"watching {escape(data_prefix_uri(cfg, prefix))} -> {escape(http.server)}")
    while True:
        posted = watcher.scan()
        if posted:
            out.print(f"posted {posted} new object(s)")
        if once:
            return
        time.sleep(interval)


# -- cron -------------------------------------------------------------------------------------------
def _cron_path(http: ArgoHttp, name: str = "", action: str = "") -> str:
    path = f"/api/v1/cron-workflows/{http.namespace}"
    if name:
        path += f"/{check_name(name, 'CronWorkflow.argoproj.io', field='NAME')}"
    return path + (f"/{action}" if action else "")


def _cron_row(cron: dict[str, Any]) -> tuple[str, ...]:
    spec, status = cron.get("spec") or {}, cron.get("status") or {}
    schedules = list(spec.get("schedules") or []) + ([spec["schedule"]] if spec.get("schedule") else [])
    return (cron["metadata"]["name"], ", ".join(schedules), spec.get("timezone") or "", str(bool(spec.get("suspend"))),
            status.get("lastScheduledTime") or "-", str(len(status.get("active") or [])),
            str(status.get("succeeded", 0)), str(status.get("failed", 0)))


CRON_COLUMNS = ("NAME", "SCHEDULES", "TIMEZONE", "SUSPENDED", "LAST SCHEDULED", "ACTIVE", "SUCCEEDED", "FAILED")


def columns(rows: list[tuple[str, ...]]) -> list[str]:
    """Rows as aligned plain-text lines (like ``kubectl get``), never wrapped or cut."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["   ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip() for row in rows]


@cron_app.command("list")
def cron_list(server: ServerOpt = None, namespace: NamespaceOpt = None) -> None:
    """The CronWorkflows on the server: schedules, suspended, last run, active/succeeded/failed."""
    http = ArgoHttp(_config(server, namespace))
    items = http.call("GET", _cron_path(http)).get("items") or []
    if not items:
        out.print(f"no CronWorkflows in namespace {escape(http.namespace)}")
        return
    for line in columns([CRON_COLUMNS, *(_cron_row(c) for c in items)]):
        out.print(escape(line))


@cron_app.command("get")
def cron_get(name: Annotated[str, typer.Argument(help="CronWorkflow name")], server: ServerOpt = None,
             namespace: NamespaceOpt = None) -> None:
    """One CronWorkflow's schedule and status."""
    http = ArgoHttp(_config(server, namespace))
    row = _cron_row(http.call("GET", _cron_path(http, name)))
    for label, value in zip(CRON_COLUMNS, row, strict=True):
        out.print(f"{label.lower() + ':':16}{escape(value)}")


def _set_suspend(name: str, action: str, server: str | None, namespace: str | None) -> None:
    http = ArgoHttp(_config(server, namespace))
    http.call("PUT", _cron_path(http, name, action), {"name": name, "namespace": http.namespace})
    out.print(f"{escape(name)} {action}d")


@cron_app.command("suspend")
def cron_suspend(name: Annotated[str, typer.Argument(help="CronWorkflow name")], server: ServerOpt = None,
                 namespace: NamespaceOpt = None) -> None:
    """Stop scheduling a CronWorkflow (its running workflows go on)."""
    _set_suspend(name, "suspend", server, namespace)


@cron_app.command("resume")
def cron_resume(name: Annotated[str, typer.Argument(help="CronWorkflow name")], server: ServerOpt = None,
                namespace: NamespaceOpt = None) -> None:
    """Schedule a suspended CronWorkflow again."""
    _set_suspend(name, "resume", server, namespace)


def register(app: typer.Typer) -> None:
    """Add ``aipipe triggers``; the ``cron`` commands join the ``aipipe cron`` group of aipipe.cli.build."""
    app.add_typer(triggers_app, name="triggers")
