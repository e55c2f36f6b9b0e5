"""``aipipe compile | lint | submit | templates apply | cron apply``: thin commands over the library.

``templates_app`` and ``cron_app`` are the ``aipipe templates`` / ``aipipe cron`` groups; other CLI
areas add their commands to them (e.g. ``templates list``) by importing them.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from aipipe.compile import compile_pipeline, dump_yaml, parse_assignments, write_manifests
from aipipe.compile.diagnostics import ERROR, Diagnostic, has_errors
from aipipe.compile.lint import lint_documents
from aipipe.compile.references import template_refs
from aipipe.compile.sources import documents_from_paths
from aipipe.config import Config, load_config
from aipipe.errors import NotFoundError, UserError
from aipipe.validation import check_namespace

if TYPE_CHECKING:
    from aipipe.argo import ArgoClient
    from aipipe.compile import CompiledPipeline

DEFAULT_PIPELINE = Path(__file__).resolve().parents[2] / "pipelines" / "retrain.py"  # from any directory
COMPILE_FORMATS = ("yaml", "json")

templates_app = typer.Typer(help="Reusable WorkflowTemplates (one per step, aipipe-<step>-v1).", no_args_is_help=True)
cron_app = typer.Typer(help="CronWorkflows (scheduled retrains from cron/).", no_args_is_help=True)
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)

ParamOpt = Annotated[list[str] | None, typer.Option("-p", "--parameter", help="pipeline parameter NAME=VALUE",
                                                    metavar="NAME=VALUE")]
SchemaOpt = Annotated[Path | None, typer.Option("--schema-dir", help="folder of Argo CRD YAML(.gz) files for the "
                                                                      "structural check")]
ServerOpt = Annotated[str | None, typer.Option("--server", help="Argo Server URL (default: config argo.server)")]
DryRunOpt = Annotated[bool, typer.Option("--dry-run", help="validate on the server (serverDryRun) and write "
                                                         "nothing")]
NamespaceOpt = Annotated[str | None, typer.Option("--namespace", "-n", help="namespace (default: argo.namespace)")]


def _config(server: str | None = None, namespace: str | None = None) -> Config:
    if namespace is not None:
        check_namespace(namespace, field="--namespace")
    return load_config(cli={"argo.server": server, "argo.namespace": namespace})


def print_diagnostics(diagnostics: list[Diagnostic], console: Console = err) -> None:
    """One line per finding: location, severity, message."""
    for d in diagnostics:
        colour = "red" if d.severity == ERROR else "yellow"
        console.print(f"[bold]{escape(d.location())}[/bold]: [{colour}]{d.severity}[/{colour}]: {escape(d.message)}")


def lint_or_fail(docs: list[tuple[str, dict[str, Any]]], schema_dir: Path | None,
                 known: Sequence[dict[str, Any]] = ()) -> None:
    """Lint before anything reaches a server; errors are printed and raise UserError.

    ``known`` are WorkflowTemplates that ``templateRef``s may name beside those in ``docs``."""
    found = lint_documents(docs, schema_dir, known)
    print_diagnostics(found)
    if has_errors(found):
        count = sum(d.severity == ERROR for d in found)
        raise UserError(f"{count} lint error(s); nothing was sent to the server")


def compile_cmd(
    pipeline: Annotated[Path, typer.Argument(help="pipeline .py file (or a Workflow .yaml)")],
    out_dir: Annotated[Path | None, typer.Option("--out-dir", help="write one YAML file per resource here; "
                                                                   "default: print to stdout")] = None,
    output: Annotated[str, typer.Option("--output", "-o", help="printed format: yaml | json")] = "yaml",
    parameter: ParamOpt = None,
) -> None:
    """Compile a pipeline into its Workflow, WorkflowTemplates, CronWorkflows, argo-events triggers and (with an
    http(s) MLflow) the Argo UI links ConfigMap."""
    if output not in COMPILE_FORMATS:
        raise UserError(f"expected yaml or json, got {output!r} (-o is the output format, as in every aipipe "
                        f"command; to write files use --out-dir {output})", field="--output")
    compiled = compile_pipeline(pipeline, _config(), parse_assignments(parameter or []))
    if out_dir is None:
        docs = [*compiled.documents(), *compiled.events, *([compiled.links] if compiled.links else [])]
        if output == "json":
            sys.stdout.write(json.dumps(docs, indent=2) + "\n")
        else:
            sys.stdout.write("---\n".join(dump_yaml(d) for d in docs))  # raw YAML: no rich markup or emoji
        return
    for path in write_manifests(compiled, out_dir):
        err.print(f"wrote {path}")


def lint_cmd(
    paths: Annotated[list[Path], typer.Argument(help="manifest files, folders of them, or pipeline .py files")],
    schema_dir: SchemaOpt = None,
) -> None:
    """Check manifests: the Argo CRD schema (with --schema-dir) and references, cycles, arguments."""
    docs = documents_from_paths(paths, _config())
    found = lint_documents(docs, schema_dir)
    print_diagnostics(found, out)
    errors = sum(d.severity == ERROR for d in found)
    checked = f"{len(docs)} manifest(s)" + (" against the CRD schemas" if schema_dir else "")
    if errors:
        out.print(f"[red]{errors} error(s)[/red] in {checked}")
        raise typer.Exit(1)
    out.print(f"[green]ok[/green]: {checked}, {len(found)} warning(s)")


def submit_cmd(
    pipeline: Annotated[Path, typer.Argument(help="pipeline .py file or Workflow .yaml")],
    parameter: ParamOpt = None,
    server: ServerOpt = None,
    namespace: NamespaceOpt = None,
    wait: Annotated[bool, typer.Option("--wait", help="follow node progress until done; fail if it fails")] = False,
    schema_dir: SchemaOpt = None,
) -> None:
    """Submit a pipeline to Argo (Hera's own CLI has no submit; this is the command)."""
    from aipipe.argo import ArgoClient, wait_for

    cfg = _config(server, namespace)
    compiled = compile_pipeline(pipeline, cfg, parse_assignments(parameter or []))
    client = ArgoClient.from_config(cfg)
    known = [*compiled.templates, *_server_templates(client, compiled)]
    lint_or_fail([(str(compiled.source), compiled.workflow)], schema_dir, known)
    try:
        created = client.create_workflow(compiled.workflow)
    except UserError as exc:
        if "workflowtemplate" in str(exc).lower() and "not found" in str(exc).lower():
            raise UserError(f"{exc} (apply the templates first: aipipe templates apply)") from exc
        raise
    name = created["metadata"]["name"]
    out.print(f"submitted [bold]{name}[/bold]: {client.ui_url(name)}")
    if not wait:
        return
    status = wait_for(client, name, _print_node)
    phase = status.get("phase")
    message = f": {escape(status['message'])}" if status.get("message") else ""
    out.print(f"{name}: [{'green' if phase == 'Succeeded' else 'red'}]{phase}[/]{message}")
    if phase != "Succeeded":
        raise typer.Exit(1)


def _print_node(node: str, phase: str, message: str) -> None:
    out.print(f"  {escape(node)}: {phase}" + (f" ({escape(message)})" if message else ""))


def _server_templates(client: ArgoClient, compiled: CompiledPipeline) -> list[dict[str, Any]]:
    """WorkflowTemplates the workflow references that the pipeline does not define, read from the server
    (a missing one stays unknown, so lint reports it)."""
    return _referenced_on_server(client, [compiled.workflow], compiled.templates)


def _referenced_on_server(client: ArgoClient, docs: Sequence[dict[str, Any]],
                          local: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The WorkflowTemplates ``docs`` reference that ``local`` does not hold, as the server has them."""
    have = {str((t.get("metadata") or {}).get("name")) for t in local}
    wanted = set().union(*(template_refs(d) for d in docs)) if docs else set()
    found = []
    for name in sorted(wanted - have):
        try:
            found.append(client.get_workflow_template(name))
        except NotFoundError:
            continue
    return found


def _apply(kind: str, paths: list[Path] | None, server: str | None, namespace: str | None,
           schema_dir: Path | None, dry_run: bool) -> None:
    """Apply the ``kind`` resources of pipeline/resource .py files, YAML files and folders; templateRefs
    resolve against the WorkflowTemplates found beside them, then against the server's."""
    from aipipe.argo import ArgoClient

    cfg = _config(server, namespace)
    paths = paths or [DEFAULT_PIPELINE]
    everything = documents_from_paths(paths, cfg)
    docs = _distinct([(f, d) for f, d in everything if d.get("kind") == kind])
    if not docs:
        raise UserError(f"no {kind} found in {', '.join(map(str, paths))}")
    client = ArgoClient.from_config(cfg)
    known = [d for _, d in everything if d.get("kind") in ("WorkflowTemplate", "ClusterWorkflowTemplate")]
    if kind == "CronWorkflow":
        known += _referenced_on_server(client, [d for _, d in docs], known)
    lint_or_fail(docs, schema_dir, known)
    table = Table("kind", "name", "action", title=f"{client.server} namespace {client.namespace}")
    for item in client.apply([d for _, d in docs], dry_run=dry_run):
        table.add_row(item.kind, item.name, item.action)
    out.print(table)


def _distinct(docs: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    """One of each resource found twice (a folder holding a pipeline and its templates); two different
    resources with one name are an error."""
    seen: dict[tuple[str, str], tuple[str, dict[str, Any]]] = {}
    for file, doc in docs:
        key = (str(doc.get("kind")), str((doc.get("metadata") or {}).get("name")))
        if key in seen and seen[key][1] != doc:
            raise UserError(f"{key[0]} {key[1]} differs from the one in {seen[key][0]}", field=file)
        seen.setdefault(key, (file, doc))
    return list(seen.values())


@templates_app.command("apply")
def templates_apply(
    paths: Annotated[list[Path] | None, typer.Argument(help="pipeline or template .py files, WorkflowTemplate "
                                                            ".yaml files, or folders (default: the bundled "
                                                            "pipelines/retrain.py)")] = None,
    server: ServerOpt = None,
    namespace: NamespaceOpt = None,
    schema_dir: SchemaOpt = None,
    dry_run: DryRunOpt = False,
) -> None:
    """Create or update the WorkflowTemplates: lint all, dry-run all on the server, then write."""
    _apply("WorkflowTemplate", paths, server, namespace, schema_dir, dry_run)


@cron_app.command("apply")
def cron_apply(
    paths: Annotated[list[Path] | None, typer.Argument(help="pipeline or cron .py files, CronWorkflow .yaml "
                                                            "files, or folders (default: the bundled "
                                                            "pipelines/retrain.py)")] = None,
    server: ServerOpt = None,
    namespace: NamespaceOpt = None,
    schema_dir: SchemaOpt = None,
    dry_run: DryRunOpt = False,
) -> None:
    """Create or update the CronWorkflows: lint all, dry-run all on the server, then write."""
    _apply("CronWorkflow", paths, server, namespace, schema_dir, dry_run)


def register(app: typer.Typer) -> None:
    """Add the build commands and the ``templates`` / ``cron`` groups to the ``aipipe`` app."""
    app.command("compile")(compile_cmd)
    app.command("lint")(lint_cmd)
    app.command("submit")(submit_cmd)
    app.add_typer(templates_app, name="templates")
    app.add_typer(cron_app, name="cron")
