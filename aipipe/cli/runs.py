"""Local runs on the embedded engine: run, list, get, logs, stop, retry, resubmit, templates list, server.

State lives in ``AIPIPE_HOME`` (env or ``home:`` in aipipe.yaml). ``aipipe run`` drives its run in
the foreground with a live tree of nodes and exits 0 only when the run Succeeded, like
``argo submit --wait``; Ctrl-C stops the run's processes and marks it Failed "terminated by user".
"""

from __future__ import annotations

import datetime as dt
import signal
import threading
import time
import uuid
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.live import Live
from rich.table import Table

from aipipe.cli.output import OutputOpt, emit_objects, output_format
from aipipe.cli.preflight import check_writable
from aipipe.cli.view import (
    age,
    duration,
    note_for,
    note_of,
    phase_text,
    pods_progress,
    render_workflow,
    transition_line,
    transitions,
)
from aipipe.config import load_config
from aipipe.engine.control import RESUME, SHUTDOWN, STOP, SUSPEND, TERMINATE
from aipipe.engine.names import pod_name
from aipipe.engine.nodes import owned_nodes
from aipipe.engine.service import EngineService
from aipipe.engine.store import CLUSTER_WORKFLOW_TEMPLATE, COMPLETED_PHASES, WORKFLOW_TEMPLATE, RunStore
from aipipe.errors import UserError
from aipipe.validation import check_name

console = Console(highlight=False)
STOP_WAIT_SECONDS = 30.0
FOLLOW_POLL_SECONDS = 0.3
VIEW_POLL_SECONDS = 0.5


def _run_name(value: str | None) -> str | None:
    """A run name given on the command line, checked like the API server checks it (DNS-1123)."""
    return None if value is None else check_name(value, field="NAME")


RunName = Annotated[str, typer.Argument(help="run name", callback=_run_name)]


def _service() -> EngineService:
    cfg = load_config()
    check_writable(cfg)
    return EngineService(cfg)


# -- driving in the foreground -------------------------------------------------------------------
class NodeNotes:
    """The last line each node of one run wrote, read from the store as it grows."""

    def __init__(self, store: RunStore, uid: str) -> None:
        self.store, self.uid, self.after = store, uid, 0
        self.notes: dict[str, str] = {}

    def update(self) -> dict[str, str]:
        for chunk in self.store.read_logs(self.uid, self.after):
            self.after = chunk.seq
            note = note_of(chunk.content)
            if note:
                self.notes[chunk.node_id] = note
        return self.notes


def drive_foreground(service: EngineService, workflow: dict[str, Any], driver_id: str | None = None) -> dict[str, Any]:
    """Drive a stored run here with a live view (one line per node transition without a terminal);
    Ctrl-C / SIGTERM stop it. Returns the final object."""
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
    notes = NodeNotes(service.store, meta["uid"])
    try:
        if console.is_terminal:
            _live_tree(service, workflow, thread, notes)
        else:
            _transition_lines(service, workflow, thread, notes)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["final"]


def _current(service: EngineService, workflow: dict[str, Any]) -> dict[str, Any]:
    meta = workflow["metadata"]
    return service.store.get_workflow(meta["namespace"], meta["name"])


def _live_tree(service: EngineService, workflow: dict[str, Any], thread: threading.Thread, notes: NodeNotes) -> None:
    with Live(render_workflow(workflow), console=console, refresh_per_second=4, transient=False) as live:
        thread.start()
        while thread.is_alive():
            thread.join(0.25)
            live.update(render_workflow(_current(service, workflow), notes.update()))
        live.update(render_workflow(_current(service, workflow), notes.update()))


def _transition_lines(service: EngineService, workflow: dict[str, Any], thread: threading.Thread,
                      notes: NodeNotes) -> None:
    """Without a terminal (CI, ``make demo | tee``): one plain line per node transition, then the run's end."""
    seen: dict[str, Any] = {}
    thread.start()
    while True:
        running = thread.is_alive()
        current = _current(service, workflow)
        nodes = current.get("status", {}).get("nodes", {})
        found = notes.update()
        for node_id in transitions(seen, nodes, skip=current["metadata"]["name"]):  # the run's end: last line
            print(transition_line(nodes, node_id, note_for(nodes, found, node_id)), flush=True)
        seen = {nid: dict(node) for nid, node in nodes.items()}
        if not running:
            break
        thread.join(VIEW_POLL_SECONDS)
    status = current.get("status", {})
    message = f" ({status['message']})" if status.get("message") else ""
    print(f"{current['metadata']['name']}: {status.get('phase', '?')} in {duration(status)}{message}", flush=True)


def _finish(final: dict[str, Any]) -> None:
    phase = final.get("status", {}).get("phase")
    if phase != "Succeeded":
        raise typer.Exit(1)


# -- commands ----------------------------------------------------------------------------------
def run(
    pipeline: Annotated[Path | None, typer.Argument(help="pipeline .py or Workflow .yaml")] = None,
    parameter: Annotated[list[str] | None, typer.Option("--parameter", "-p", help="NAME=VALUE (repeatable)")] = None,
    resume: Annotated[str | None, typer.Option("--resume", help="continue the stored run NAME",
                                                               callback=_run_name)] = None,
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
    from aipipe.compile.inline import inline_templates
    from aipipe.compile.strict import refuse_undeclared

    compiled = compile_pipeline(pipeline, service.cfg, parse_assignments(parameter or []))
    refuse_undeclared(compiled.workflow, *compiled.templates)  # decoded strictly, as `argo submit` does
    driver_id = uuid.uuid4().hex
    # the run carries the templates it compiled; the store `aipipe server` uses is left as the user applied it
    workflow = service.submit(inline_templates(compiled.workflow, compiled.templates), driver_id=driver_id)
    _finish(drive_foreground(service, workflow, driver_id))


def list_runs(output: OutputOpt = None) -> None:
    """List local runs, newest first (-o wide adds progress and parameters)."""
    fmt = output_format(output)
    workflows = _service().store.list_workflows()
    if fmt and emit_objects(fmt, workflows, lambda: [w["metadata"]["name"] for w in workflows]):
        return
    wide = fmt == "wide"
    columns = ["NAME", "STATUS", "AGE", "DURATION", *(["PROGRESS"] if wide else []), "MESSAGE",
               *(["PARAMETERS"] if wide else [])]
    table = Table(*columns, box=None, header_style="bold")
    now = dt.datetime.now(dt.UTC)
    for workflow in workflows:
        meta, status = workflow["metadata"], workflow.get("status", {})
        stamp = meta.get("creationTimestamp")
        created = dt.datetime.fromisoformat(stamp.replace("Z", "+00:00")) if stamp else now
        row = [meta["name"], phase_text(status.get("phase", "")), age(int((now - created).total_seconds())),
               duration(status)]
        if wide:
            row.append(pods_progress(status.get("nodes", {})))
        row.append(status.get("message", ""))
        if wide:
            params = ((workflow.get("spec") or {}).get("arguments") or {}).get("parameters") or []
            row.append(",".join(f"{p.get('name')}={p.get('value', '')}" for p in params))
        table.add_row(*row)
    console.print(table)


def get(
    name: RunName,
    output: OutputOpt = None,
) -> None:
    """Show a run: its node tree with each failed node's last line (-o wide adds pod names), or the
    Argo-shaped Workflow object (-o json|yaml)."""
    fmt = output_format(output)
    service = _service()
    workflow = service.store.find_workflow(name)
    if fmt and emit_objects(fmt, workflow, lambda: [workflow["metadata"]["name"]]):
        return
    notes = NodeNotes(service.store, workflow["metadata"]["uid"]).update()
    console.print(render_workflow(workflow, notes, wide=fmt == "wide"))


def _pick_node(workflow: dict[str, Any], wanted: str) -> str:
    """The node id for ``wanted``: a node id, pod name, node name or display name."""
    name = workflow["metadata"]["name"]
    for node_id, node in workflow.get("status", {}).get("nodes", {}).items():
        pod = pod_name(name, node.get("name", node_id), node.get("templateName", ""))
        if wanted in (node_id, pod, node.get("name"), node.get("displayName")):
            return node_id
    raise UserError(f"run {name} has no node {wanted!r} (see `aipipe get {name}`)", field="NODE")


def logs(
    name: RunName,
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
        wanted = set(owned_nodes(nodes, node_id)) if node_id else None
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


def _shutdown(name: str, strategy: str) -> None:
    service = _service()
    workflow = service.control(name, None, {"action": SHUTDOWN, "strategy": strategy})
    deadline = time.monotonic() + STOP_WAIT_SECONDS
    while workflow.get("status", {}).get("phase") not in COMPLETED_PHASES and time.monotonic() < deadline:
        time.sleep(0.2)
        workflow = service.store.find_workflow(name)
    status = workflow.get("status", {})
    console.print(f"{name}: {status.get('phase', '?')} {status.get('message', '')}".rstrip())


def stop(name: RunName) -> None:
    """Stop a run as Argo's Stop does: running nodes end Failed, exit handlers still run."""
    _shutdown(name, STOP)


def terminate(name: RunName) -> None:
    """Terminate a run as Argo's Terminate does: running nodes end Failed and no exit handler runs."""
    _shutdown(name, TERMINATE)


def suspend(name: RunName) -> None:
    """Suspend a run: running nodes go on, nothing new starts until `aipipe resume`."""
    workflow = _service().control(name, None, {"action": SUSPEND})
    console.print(f"{name}: suspended" if workflow.get("spec", {}).get("suspend") else f"{name}: not suspended")


def resume(
    name: RunName,
    node_field_selector: Annotated[str, typer.Option(
        "--node-field-selector", help="resume only these suspend nodes, e.g. displayName=approve")] = "",
) -> None:
    """Resume a suspended run and its waiting `suspend` nodes (or only the nodes the selector picks)."""
    _service().control(name, None, {"action": RESUME, "nodeFieldSelector": node_field_selector})
    console.print(f"{name}: resumed")


def retry(
    name: RunName,
    parameter: Annotated[list[str] | None, typer.Option("--parameter", "-p", help="NAME=VALUE")] = None,
) -> None:
    """Re-run a Failed run from its failed nodes (succeeded nodes are kept), in the foreground."""
    service = _service()
    _finish(drive_foreground(service, service.prepare_retry(name, parameters=parameter or [])))


def resubmit(
    name: RunName,
    parameter: Annotated[list[str] | None, typer.Option("--parameter", "-p", help="NAME=VALUE")] = None,
) -> None:
    """Start a new run from the spec of NAME, in the foreground."""
    service = _service()
    driver_id = uuid.uuid4().hex
    workflow = service.prepare_resubmit(name, parameters=parameter or [], driver_id=driver_id)
    _finish(drive_foreground(service, workflow, driver_id))


def templates_list(output: OutputOpt = None) -> None:
    """List the WorkflowTemplates and ClusterWorkflowTemplates known to the local engine."""
    fmt = output_format(output)
    store = _service().store
    found = [(kind, item) for kind in (WORKFLOW_TEMPLATE, CLUSTER_WORKFLOW_TEMPLATE)
             for item in store.list_resources(kind)]
    if fmt and emit_objects(fmt, [i for _, i in found], lambda: [i["metadata"]["name"] for _, i in found]):
        return
    table = Table("KIND", "NAMESPACE", "NAME", "CREATED", *(["TEMPLATES"] if fmt == "wide" else []), box=None,
                  header_style="bold")
    for kind, item in found:
        meta = item["metadata"]
        row = [kind, meta.get("namespace", ""), meta["name"], meta.get("creationTimestamp", "")]
        if fmt == "wide":
            row.append(",".join(str(t.get("name")) for t in (item.get("spec") or {}).get("templates") or []))
        table.add_row(*row)
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
    app.command("terminate")(terminate)
    app.command("suspend")(suspend)
    app.command("resume")(resume)
    app.command("retry")(retry)
    app.command("resubmit")(resubmit)
    app.command("server")(server)
    from aipipe.cli.build import templates_app

    templates_app.command("list")(templates_list)
