"""Local runs on the embedded engine: run, list, get, logs, stop, retry, resubmit, templates list, server.

State lives in ``AIPIPE_HOME`` (env or ``home:`` in aipipe.yaml). ``aipipe run`` drives its run in
the foreground with a live tree of nodes and exits 0 only when the run Succeeded, like
``argo submit --wait``; Ctrl-C stops the run's processes and marks it Failed "terminated by user".
"""

from __future__ import annotations

import datetime as dt
import json
import signal
import threading
import time
import uuid
from pathlib import Path
from typing import Annotated, Any

import typer
import yaml
from rich.console import Console, Group
from rich.live import Live
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from aipipe.config import load_config
from aipipe.engine.names import pod_name
from aipipe.engine.service import EngineService
from aipipe.engine.store import CLUSTER_WORKFLOW_TEMPLATE, COMPLETED_PHASES, WORKFLOW_TEMPLATE
from aipipe.errors import UserError

console = Console(highlight=False)
STOP_WAIT_SECONDS = 30.0
FOLLOW_POLL_SECONDS = 0.3
PHASE_STYLE = {
    "Succeeded": ("✔", "green"), "Failed": ("✖", "red"), "Error": ("⚠", "red"), "Running": ("●", "cyan"),
    "Pending": ("◷", "yellow"), "Skipped": ("○", "dim"), "Omitted": ("○", "dim"),
}
_GROUP_TYPES = {"StepGroup", "TaskGroup"}


def _service() -> EngineService:
    return EngineService(load_config())


# -- rendering ---------------------------------------------------------------------------------
def _time(stamp: str | None) -> dt.datetime | None:
    return dt.datetime.fromisoformat(stamp.replace("Z", "+00:00")) if stamp else None


def duration(item: dict[str, Any]) -> str:
    """``1m02s`` between startedAt and finishedAt (or now while running); "" before the start."""
    start = _time(item.get("startedAt"))
    if start is None:
        return ""
    end = _time(item.get("finishedAt")) or dt.datetime.now(dt.UTC)
    seconds = max(0, int((end - start).total_seconds()))
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


def _phase_text(phase: str) -> Text:
    symbol, style = PHASE_STYLE.get(phase, ("?", "white"))
    return Text(f"{symbol} {phase or 'Pending'}", style=style)


def _node_label(node: dict[str, Any]) -> Text:
    symbol, style = PHASE_STYLE.get(node.get("phase", ""), ("◷", "yellow"))
    label = Text(f"{symbol} ", style=style)
    label.append(node.get("displayName") or node.get("name", "?"), style="bold")
    template = node.get("templateName") or (node.get("templateRef") or {}).get("template")
    if template:
        label.append(f" ({template})", style="dim")
    progress = node.get("progress", "") if node.get("type") != "Pod" else ""
    extras = [x for x in (duration(node), progress) if x and x != "0/0"]
    if extras:
        label.append("  " + "  ".join(extras))
    if node.get("message") and node.get("phase") not in ("Succeeded", "Running"):
        label.append(f"  {node['message']}", style=style)
    return label


def render_workflow(workflow: dict[str, Any]) -> Group:
    """Header lines and the node tree (step/task groups folded into their parents)."""
    meta, status = workflow.get("metadata", {}), workflow.get("status", {})
    header = Text.assemble(("Name:     ", "bold"), meta.get("name", "?"), "\n", ("Status:   ", "bold"),
                           _phase_text(status.get("phase", "")), "\n", ("Duration: ", "bold"), duration(status))
    if status.get("progress"):
        header.append_text(Text.assemble("\n", ("Progress: ", "bold"), status["progress"]))
    if status.get("message"):
        header.append_text(Text.assemble("\n", ("Message:  ", "bold"), status["message"]))
    nodes: dict[str, dict[str, Any]] = status.get("nodes", {})
    root_id = meta.get("name") if meta.get("name") in nodes else next(iter(nodes), None)
    if root_id is None:
        return Group(header)
    tree = Tree(_node_label(nodes[root_id]))
    _add_children(tree, nodes, nodes[root_id], {root_id})
    return Group(header, Text(""), tree)


def _add_children(branch: Tree, nodes: dict[str, dict[str, Any]], node: dict[str, Any], seen: set[str]) -> None:
    for child_id in node.get("children", []):
        child = nodes.get(child_id)
        if child is None or child_id in seen:
            continue
        seen.add(child_id)
        if child.get("type") in _GROUP_TYPES:
            _add_children(branch, nodes, child, seen)
        else:
            _add_children(branch.add(_node_label(child)), nodes, child, seen)


# -- driving in the foreground -------------------------------------------------------------------
def drive_foreground(service: EngineService, workflow: dict[str, Any], driver_id: str | None = None) -> dict[str, Any]:
    """Drive a stored run here with a live view; Ctrl-C / SIGTERM stop it. Returns the final object."""
    meta = workflow["metadata"]
    console.print(f"Name: {meta['name']}")
    stop = threading.Event()
    outcome: dict[str, Any] = {}

    def drive() -> None:
        try:
            outcome["final"] = service.drive(workflow, stop=stop, driver_id=driver_id)
        except BaseException as exc:
            outcome["error"] = exc

    def request_stop(signum: int, frame: Any) -> None:
        stop.set()

    thread = threading.Thread(target=drive, name="driver")
    previous = {sig: signal.signal(sig, request_stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        with Live(render_workflow(workflow), console=console, refresh_per_second=4, transient=False) as live:
            thread.start()
            while thread.is_alive():
                thread.join(0.25)
                live.update(render_workflow(service.store.get_workflow(meta["namespace"], meta["name"])))
            live.update(render_workflow(service.store.get_workflow(meta["namespace"], meta["name"])))
        if not console.is_terminal:
            console.line()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["final"]


def _finish(final: dict[str, Any]) -> None:
    phase = final.get("status", {}).get("phase")
    if phase != "Succeeded":
        raise typer.Exit(1)


# -- commands ----------------------------------------------------------------------------------
def run(
    pipeline: Annotated[Path | None, typer.Argument(help="pipeline .py or Workflow .yaml")] = None,
    parameter: Annotated[list[str] | None, typer.Option("--parameter", "-p", help="NAME=VALUE (repeatable)")] = None,
    resume: Annotated[str | None, typer.Option("--resume", help="continue the stored run NAME")] = None,
) -> None:
    """Run a pipeline now on the embedded engine (exit 0 only when it Succeeded)."""
    service = _service()
    if resume:
        if pipeline or parameter:
            raise UserError("continues a stored run: give no PIPELINE or -p with it", field="--resume")
        _finish(drive_foreground(service, service.resumable(resume)))
        return
    if pipeline is None:
        raise UserError("give a pipeline .py or Workflow .yaml (or --resume NAME)", field="PIPELINE")
    from aipipe.compile import compile_pipeline, parse_assignments

    compiled = compile_pipeline(pipeline, service.cfg, parse_assignments(parameter or []))
    driver_id = uuid.uuid4().hex
    workflow = service.submit(compiled.workflow, templates=compiled.templates, driver_id=driver_id)
    _finish(drive_foreground(service, workflow, driver_id))


def list_runs() -> None:
    """List local runs, newest first."""
    table = Table("NAME", "STATUS", "AGE", "DURATION", "MESSAGE", box=None, header_style="bold")
    now = dt.datetime.now(dt.UTC)
    for workflow in _service().store.list_workflows():
        meta, status = workflow["metadata"], workflow.get("status", {})
        created = _time(meta.get("creationTimestamp")) or now
        age = int((now - created).total_seconds())
        table.add_row(meta["name"], _phase_text(status.get("phase", "")), _age(age), duration(status),
                      status.get("message", ""))
    console.print(table)


def _age(seconds: int) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def get(
    name: Annotated[str, typer.Argument(help="run name")],
    output: Annotated[str, typer.Option("--output", "-o", help="json | yaml | wide (tree)")] = "wide",
) -> None:
    """Show a run: the Argo-shaped Workflow object (-o json|yaml) or its node tree."""
    if output not in ("json", "yaml", "wide"):
        raise UserError(f"expected json, yaml or wide, got {output!r}", field="--output")
    workflow = _service().store.find_workflow(name)
    if output == "json":
        print(json.dumps(workflow, indent=2))
    elif output == "yaml":
        print(yaml.safe_dump(workflow, sort_keys=False), end="")
    else:
        console.print(render_workflow(workflow))


def _pick_node(workflow: dict[str, Any], wanted: str) -> str:
    """The node id for ``wanted``: a node id, pod name, node name or display name."""
    name = workflow["metadata"]["name"]
    for node_id, node in workflow.get("status", {}).get("nodes", {}).items():
        pod = pod_name(name, node.get("name", node_id), node.get("templateName", ""))
        if wanted in (node_id, pod, node.get("name"), node.get("displayName")):
            return node_id
    raise UserError(f"run {name} has no node {wanted!r} (see `aipipe get {name}`)", field="NODE")


def _with_descendants(nodes: dict[str, Any], node_id: str) -> set[str]:
    """``node_id`` and every node below it (a task's retries, a DAG's tasks)."""
    found, todo = set(), [node_id]
    while todo:
        current = todo.pop()
        if current not in found:
            found.add(current)
            todo.extend(nodes.get(current, {}).get("children", []))
    return found


def logs(
    name: Annotated[str, typer.Argument(help="run name")],
    node: Annotated[str | None, typer.Argument(help="node id, pod name or display name")] = None,
    follow: Annotated[bool, typer.Option("--follow", "-f", help="wait for more output until the run ends")] = False,
) -> None:
    """Print the output of a run's nodes (secret values are masked)."""
    service = _service()
    workflow = service.store.find_workflow(name)
    node_id = _pick_node(workflow, node) if node else None
    uid, after = workflow["metadata"]["uid"], 0
    while True:
        nodes = workflow.get("status", {}).get("nodes", {})
        wanted = _with_descendants(nodes, node_id) if node_id else None
        chunks = service.store.read_logs(uid, after)
        for chunk in chunks:
            after = chunk.seq
            if wanted is not None and chunk.node_id not in wanted:
                continue
            if node_id and len(wanted or ()) == 1:
                print(chunk.content, end="", flush=True)
            else:
                label = nodes.get(chunk.node_id, {}).get("displayName", chunk.node_id)
                for line in chunk.content.splitlines():
                    print(f"{label}: {line}", flush=True)
        if not follow or (not chunks and workflow.get("status", {}).get("phase") in COMPLETED_PHASES):
            return
        time.sleep(FOLLOW_POLL_SECONDS)
        workflow = service.store.find_workflow(name)


def stop(name: Annotated[str, typer.Argument(help="run name")]) -> None:
    """Stop a run: its processes are killed and it ends Failed "terminated by user"."""
    service = _service()
    workflow = service.stop(name)
    deadline = time.monotonic() + STOP_WAIT_SECONDS
    while workflow.get("status", {}).get("phase") not in COMPLETED_PHASES and time.monotonic() < deadline:
        time.sleep(0.2)
        workflow = service.store.find_workflow(name)
    status = workflow.get("status", {})
    console.print(f"{name}: {status.get('phase', '?')} {status.get('message', '')}".rstrip())


def retry(
    name: Annotated[str, typer.Argument(help="run name")],
    parameter: Annotated[list[str] | None, typer.Option("--parameter", "-p", help="NAME=VALUE")] = None,
) -> None:
    """Re-run a Failed run from its failed nodes (succeeded nodes are kept), in the foreground."""
    service = _service()
    _finish(drive_foreground(service, service.prepare_retry(name, parameters=parameter or [])))


def resubmit(
    name: Annotated[str, typer.Argument(help="run name")],
    parameter: Annotated[list[str] | None, typer.Option("--parameter", "-p", help="NAME=VALUE")] = None,
) -> None:
    """Start a new run from the spec of NAME, in the foreground."""
    service = _service()
    driver_id = uuid.uuid4().hex
    workflow = service.prepare_resubmit(name, parameters=parameter or [], driver_id=driver_id)
    _finish(drive_foreground(service, workflow, driver_id))


def templates_list() -> None:
    """List the WorkflowTemplates and ClusterWorkflowTemplates known to the local engine."""
    store = _service().store
    table = Table("KIND", "NAMESPACE", "NAME", "CREATED", box=None, header_style="bold")
    for kind in (WORKFLOW_TEMPLATE, CLUSTER_WORKFLOW_TEMPLATE):
        for item in store.list_resources(kind):
            meta = item["metadata"]
            table.add_row(kind, meta.get("namespace", ""), meta["name"], meta.get("creationTimestamp", ""))
    console.print(table)


def server(
    port: Annotated[int, typer.Option("--port", help="port on 127.0.0.1")] = 2746,
    auth_token: Annotated[str | None, typer.Option(
        "--auth-token", envvar="AIPIPE_SERVER_TOKEN", show_envvar=False,
        help="the token to require (env AIPIPE_SERVER_TOKEN); default: AIPIPE_HOME/server.token, made on "
             "first start")] = None,
    auth_mode: Annotated[str, typer.Option("--auth-mode", help="client: require the token (default); server: "
                                           "no authentication (Argo's name), with a warning")] = "client",
    max_body_mib: Annotated[float, typer.Option("--max-body-mib", help="largest request body, MiB")] = 4.0,
) -> None:
    """Serve the Argo Server API on 127.0.0.1 (token required) and drive the runs submitted to it."""
    if not 0 < port < 65536:
        raise UserError(f"{port} is not a TCP port", field="--port")
    if not 0 < max_body_mib <= 1024:
        raise UserError(f"expected a size in MiB between 0 and 1024, got {max_body_mib}", field="--max-body-mib")
    from aipipe.server.app import serve

    serve(load_config(), port, auth_token, auth_mode, max_body_mib)


def register(app: typer.Typer) -> None:
    """Add the run commands (and ``templates list`` to the ``templates`` group of aipipe.cli.build)."""
    app.command("run")(run)
    app.command("list")(list_runs)
    app.command("get")(get)
    app.command("logs")(logs)
    app.command("stop")(stop)
    app.command("retry")(retry)
    app.command("resubmit")(resubmit)
    app.command("server")(server)
    try:
        from aipipe.cli.build import templates_app
    except ImportError:  # TODO(integration): aipipe.cli.build lands with the compiler
        templates_app = typer.Typer(help="WorkflowTemplates", no_args_is_help=True)
        app.add_typer(templates_app, name="templates")
    templates_app.command("list")(templates_list)
