"""The run store: Argo-shaped Workflow objects, templates, cron workflows and node logs in sqlite.

One file, ``<AIPIPE_HOME>/engine.db``, in WAL mode, shared by the threads of ``aipipe server``
and by separate ``aipipe`` CLI processes. Every write bumps a store-wide sequence that becomes the
object's ``metadata.resourceVersion``, so watchers in any process find changes with one query.
Secret values never reach it: the executor hands out only masked logs and secret-free objects.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from aipipe.engine.dbfile import SqliteFile
from aipipe.engine.names import generate_name, new_uid, now_rfc3339
from aipipe.errors import ConflictError, NotFoundError, UserError
from aipipe.services.process import process_alive
from aipipe.validation import check_name, check_namespace, qualified

WORKFLOW = "Workflow"
WORKFLOW_TEMPLATE = "WorkflowTemplate"
CLUSTER_WORKFLOW_TEMPLATE = "ClusterWorkflowTemplate"
CRON_WORKFLOW = "CronWorkflow"
WORKFLOW_EVENT_BINDING = "WorkflowEventBinding"
RESOURCE_KINDS = (WORKFLOW_TEMPLATE, CLUSTER_WORKFLOW_TEMPLATE, CRON_WORKFLOW, WORKFLOW_EVENT_BINDING)
COMPLETED_PHASES = frozenset({"Succeeded", "Failed", "Error"})
PHASE_LABEL = "workflows.argoproj.io/phase"
COMPLETED_LABEL = "workflows.argoproj.io/completed"
HEARTBEAT_STALE_SECONDS = 30.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS seq (id INTEGER PRIMARY KEY CHECK (id = 1), value INTEGER NOT NULL);
INSERT OR IGNORE INTO seq (id, value) VALUES (1, 0);
CREATE TABLE IF NOT EXISTS workflows (
    namespace TEXT NOT NULL, name TEXT NOT NULL, uid TEXT NOT NULL UNIQUE,
    phase TEXT NOT NULL DEFAULT '', created TEXT NOT NULL, object TEXT NOT NULL, version INTEGER NOT NULL,
    driver_id TEXT, driver_pid INTEGER, driver_host TEXT, heartbeat REAL, stop_message TEXT,
    PRIMARY KEY (namespace, name));
CREATE INDEX IF NOT EXISTS workflows_version ON workflows (version);
CREATE TABLE IF NOT EXISTS deleted_workflows (
    uid TEXT PRIMARY KEY, namespace TEXT NOT NULL, name TEXT NOT NULL, object TEXT NOT NULL,
    version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS resources (
    kind TEXT NOT NULL, namespace TEXT NOT NULL, name TEXT NOT NULL, uid TEXT NOT NULL,
    created TEXT NOT NULL, object TEXT NOT NULL, version INTEGER NOT NULL,
    PRIMARY KEY (kind, namespace, name));
CREATE TABLE IF NOT EXISTS node_logs (
    id INTEGER PRIMARY KEY AUTOINCREMENT, workflow_uid TEXT NOT NULL, node_id TEXT NOT NULL,
    ts REAL NOT NULL, content TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS node_logs_workflow ON node_logs (workflow_uid, id);
CREATE INDEX IF NOT EXISTS node_logs_node ON node_logs (workflow_uid, node_id, id);
CREATE INDEX IF NOT EXISTS node_logs_ts ON node_logs (ts);
CREATE TABLE IF NOT EXISTS controls (id INTEGER PRIMARY KEY AUTOINCREMENT, uid TEXT NOT NULL, action TEXT NOT NULL);
"""


@dataclass(frozen=True)
class Driver:
    """Who drives a run: a process (pid on a host) and a random id per driving session."""

    driver_id: str
    pid: int
    host: str
    heartbeat: float

    def is_alive(self, now: float | None = None) -> bool:
        """False when the process is gone (same host) or its heartbeat went stale."""
        now = time.time() if now is None else now
        if now - self.heartbeat > HEARTBEAT_STALE_SECONDS:
            return False
        if self.host != socket.gethostname():
            return True
        return process_alive(self.pid)


@dataclass(frozen=True)
class LogChunk:
    """One appended piece of a node's output."""

    seq: int
    node_id: str
    ts: float
    content: str


@dataclass(frozen=True)
class Snapshot:
    """One state of a run, serialised: what the store writes."""

    uid: str
    phase: str
    text: str


def serialize_workflow(workflow: dict[str, Any]) -> Snapshot:
    """Serialise a run's state once, with Argo's phase labels; resourceVersion is the store's (set on read)."""
    meta = workflow["metadata"]
    phase = workflow.get("status", {}).get("phase", "")
    stamped = {**workflow, "metadata": {**meta, "labels": _phase_labels(meta.get("labels"), phase)}}
    stamped["metadata"].pop("resourceVersion", None)
    return Snapshot(meta["uid"], phase, dump_json(stamped))


def dump_json(obj: Any) -> str:
    """JSON text of a stored object: orjson (a run's whole tree is written after each change, so this is on every
    node's path), or the standard library for what orjson refuses (an integer past 64 bits in a user's field)."""
    try:
        return orjson.dumps(obj).decode()
    except TypeError:
        return json.dumps(obj)


def _phase_labels(labels: dict[str, str] | None, phase: str) -> dict[str, str]:
    """The object's labels plus Argo's phase / completed labels."""
    out = dict(labels or {})
    if phase:
        out[PHASE_LABEL] = phase
    out[COMPLETED_LABEL] = "true" if phase in COMPLETED_PHASES else "false"
    return out


class RunStore(SqliteFile):
    """Thread-safe access to the engine database (one sqlite connection per thread)."""

    SCHEMA = _SCHEMA

    @classmethod
    def from_home(cls, home: Path) -> RunStore:
        return cls(Path(home) / "engine.db")

    @staticmethod
    def _next_version(db: sqlite3.Connection) -> int:
        db.execute("UPDATE seq SET value = value + 1 WHERE id = 1")
        return int(db.execute("SELECT value FROM seq WHERE id = 1").fetchone()[0])

    def current_version(self) -> int:
        return int(self._conn().execute("SELECT value FROM seq WHERE id = 1").fetchone()[0])

    # -- workflows -------------------------------------------------------------------------
    def create_workflow(self, workflow: dict[str, Any], namespace: str, driver_id: str | None = None
                        ) -> dict[str, Any]:
        """Insert a new Workflow: name from ``generateName`` when needed, uid, timestamps, phase Pending.

        With ``driver_id`` this process claims the run in the same transaction, so no other
        process (a restarting server) takes it for an orphan before its driver starts.
        """
        obj = json.loads(json.dumps(workflow))
        meta = obj.setdefault("metadata", {})
        meta["namespace"] = check_namespace(str(namespace))
        if not meta.get("name") and not meta.get("generateName"):
            raise UserError("metadata.name or metadata.generateName is required", field="metadata")
        if meta.get("name"):
            check_name(str(meta["name"]))
        else:
            check_name(generate_name(str(meta["generateName"])), field="metadata.generateName")
        obj.setdefault("apiVersion", "argoproj.io/v1alpha1")
        obj["kind"] = WORKFLOW
        meta["uid"] = new_uid()
        meta["creationTimestamp"] = now_rfc3339()
        obj.setdefault("status", {}).setdefault("phase", "Pending")
        explicit = bool(meta.get("name"))
        for _ in range(20):
            if not explicit:
                meta["name"] = generate_name(str(meta["generateName"]))
            try:
                with self._write() as db:
                    version = self._next_version(db)
                    self._stamp(obj, version)
                    db.execute(
                        "INSERT INTO workflows (namespace, name, uid, phase, created, object, version, driver_id, "
                        "driver_pid, driver_host, heartbeat) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (namespace, meta["name"], meta["uid"], obj["status"]["phase"], meta["creationTimestamp"],
                         json.dumps(obj), version, driver_id, os.getpid() if driver_id else None,
                         socket.gethostname() if driver_id else None, time.time() if driver_id else None))
                return obj
            except sqlite3.IntegrityError as exc:
                if explicit:
                    raise ConflictError(f'workflows.argoproj.io "{meta["name"]}" already exists') from exc
        raise ConflictError(f"could not generate a unique name from {meta['generateName']!r}")

    @staticmethod
    def _stamp(obj: dict[str, Any], version: int) -> None:
        meta = obj["metadata"]
        meta["resourceVersion"] = str(version)
        meta["labels"] = _phase_labels(meta.get("labels"), obj.get("status", {}).get("phase", ""))

    def save_workflow(self, workflow: dict[str, Any]) -> int:
        """Persist a new state of an existing run (by uid); returns its new resourceVersion.

        Serialised once (the executor calls this after every state change); NotFoundError when
        the run was deleted meanwhile.
        """
        snapshot = serialize_workflow(workflow)
        with self._write() as db:
            version = self._next_version(db)
            cur = db.execute("UPDATE workflows SET phase = ?, object = ?, version = ? WHERE uid = ?",
                             (snapshot.phase, snapshot.text, version, snapshot.uid))
            if cur.rowcount == 0:
                raise NotFoundError(f"workflow with uid {snapshot.uid} not found (deleted?)")
        return version

    _COLUMNS = "object, version"

    @staticmethod
    def _load(row: sqlite3.Row) -> dict[str, Any]:
        obj = json.loads(row["object"])
        obj["metadata"]["resourceVersion"] = str(row["version"])
        return obj

    def get_workflow(self, namespace: str, name: str) -> dict[str, Any]:
        row = self._conn().execute(f"SELECT {self._COLUMNS} FROM workflows WHERE namespace = ? AND name = ?",
                                   (namespace, name)).fetchone()
        if row is None:
            raise NotFoundError(f'workflows.argoproj.io "{name}" not found')
        return self._load(row)

    def workflow_by_uid(self, uid: str) -> dict[str, Any] | None:
        """A run by its uid, or None."""
        row = self._conn().execute(f"SELECT {self._COLUMNS} FROM workflows WHERE uid = ?", (uid,)).fetchone()
        return None if row is None else self._load(row)

    def find_workflow(self, name: str, namespace: str | None = None) -> dict[str, Any]:
        """A run by name, in ``namespace`` or (when None) in whichever namespace holds it."""
        if namespace is not None:
            return self.get_workflow(namespace, name)
        rows = self._conn().execute(f"SELECT {self._COLUMNS} FROM workflows WHERE name = ?", (name,)).fetchall()
        if not rows:
            raise NotFoundError(f"no run named {name!r} (see `aipipe list`)")
        if len(rows) > 1:
            raise UserError(f"several runs are named {name!r}; give the namespace", field="name")
        return self._load(rows[0])

    def list_workflows(self, namespace: str | None = None) -> list[dict[str, Any]]:
        """Runs, newest first; ``namespace`` None or "" lists every namespace."""
        sql = f"SELECT {self._COLUMNS} FROM workflows"
        args: tuple[Any, ...] = ()
        if namespace:
            sql += " WHERE namespace = ?"
            args = (namespace,)
        rows = self._conn().execute(sql + " ORDER BY created DESC, version DESC", args).fetchall()
        return [self._load(r) for r in rows]

    def delete_workflow(self, namespace: str, name: str) -> dict[str, Any]:
        with self._write() as db:
            row = db.execute("SELECT uid, object FROM workflows WHERE namespace = ? AND name = ?",
                             (namespace, name)).fetchone()
            if row is None:
                raise NotFoundError(f'workflows.argoproj.io "{name}" not found')
            obj = json.loads(row["object"])
            version = self._next_version(db)
            db.execute("DELETE FROM workflows WHERE uid = ?", (row["uid"],))
            db.execute("DELETE FROM node_logs WHERE workflow_uid = ?", (row["uid"],))
            db.execute("DELETE FROM controls WHERE uid = ?", (row["uid"],))
            db.execute("INSERT OR REPLACE INTO deleted_workflows (uid, namespace, name, object, version) "
                       "VALUES (?, ?, ?, ?, ?)", (row["uid"], namespace, name, row["object"], version))
        obj["metadata"]["resourceVersion"] = str(version)
        return obj

    def workflow_changes(self, since: int, namespace: str | None = None) -> list[tuple[str, dict[str, Any]]]:
        """``(MODIFIED|DELETED, object)`` for every run written after store version ``since``, oldest first."""
        clause = " AND namespace = ?" if namespace else ""
        args: tuple[Any, ...] = (since, namespace) if namespace else (since,)
        db = self._conn()
        rows = [("MODIFIED", r) for r in db.execute(f"SELECT {self._COLUMNS} FROM workflows WHERE version > ?"
                                                    + clause, args)]
        rows += [("DELETED", r) for r in db.execute(f"SELECT {self._COLUMNS} FROM deleted_workflows "
                                                   "WHERE version > ?" + clause, args)]
        rows.sort(key=lambda item: item[1]["version"])
        return [(kind, self._load(row)) for kind, row in rows]

    # -- drivers and stop requests ---------------------------------------------------------
    def driver(self, uid: str) -> Driver | None:
        row = self._conn().execute("SELECT driver_id, driver_pid, driver_host, heartbeat FROM workflows "
                                   "WHERE uid = ?", (uid,)).fetchone()
        if row is None or row["driver_id"] is None:
            return None
        return Driver(row["driver_id"], row["driver_pid"], row["driver_host"], row["heartbeat"])

    def claim(self, uid: str, driver_id: str) -> bool:
        """Become the driver of a run unless a live one holds it; clears an old stop request."""
        with self._write() as db:
            row = db.execute("SELECT driver_id, driver_pid, driver_host, heartbeat FROM workflows WHERE uid = ?",
                             (uid,)).fetchone()
            if row is None:
                raise NotFoundError(f"workflow with uid {uid} not found")
            if row["driver_id"] not in (None, driver_id):
                current = Driver(row["driver_id"], row["driver_pid"], row["driver_host"], row["heartbeat"])
                if current.is_alive():
                    return False
            db.execute("UPDATE workflows SET driver_id = ?, driver_pid = ?, driver_host = ?, heartbeat = ?, "
                       "stop_message = NULL WHERE uid = ?",
                       (driver_id, os.getpid(), socket.gethostname(), time.time(), uid))
        return True

    def heartbeat(self, uid: str, driver_id: str) -> str | None:
        """Refresh the driver's heartbeat; returns the pending stop message, if any."""
        with self._write() as db:
            db.execute("UPDATE workflows SET heartbeat = ? WHERE uid = ? AND driver_id = ?",
                       (time.time(), uid, driver_id))
            row = db.execute("SELECT stop_message FROM workflows WHERE uid = ?", (uid,)).fetchone()
        return None if row is None else row["stop_message"]

    def release(self, uid: str, driver_id: str) -> None:
        with self._write() as db:
            db.execute("UPDATE workflows SET driver_id = NULL, driver_pid = NULL, driver_host = NULL, "
                       "heartbeat = NULL WHERE uid = ? AND driver_id = ?", (uid, driver_id))

    def request_stop(self, uid: str, message: str) -> None:
        with self._write() as db:
            db.execute("UPDATE workflows SET stop_message = ? WHERE uid = ?", (message, uid))

    def push_control(self, uid: str, action: dict[str, Any]) -> int:
        """Queue a control action (suspend, resume, set, shutdown) for the run's driver; returns its id."""
        with self._write() as db:
            cur = db.execute("INSERT INTO controls (uid, action) VALUES (?, ?)", (uid, json.dumps(action)))
        return int(cur.lastrowid or 0)

    def pending_controls(self, uid: str) -> list[tuple[int, dict[str, Any]]]:
        """The run's queued control actions, oldest first, as (id, action); :meth:`ack_control` removes one."""
        rows = self._conn().execute("SELECT id, action FROM controls WHERE uid = ? ORDER BY id", (uid,)).fetchall()
        return [(int(r["id"]), json.loads(r["action"])) for r in rows]

    def ack_control(self, control_id: int) -> None:
        with self._write() as db:
            db.execute("DELETE FROM controls WHERE id = ?", (control_id,))

    def control_pending(self, control_id: int) -> bool:
        return self._conn().execute("SELECT 1 FROM controls WHERE id = ?", (control_id,)).fetchone() is not None

    def stop_requested(self, uid: str) -> str | None:
        row = self._conn().execute("SELECT stop_message FROM workflows WHERE uid = ?", (uid,)).fetchone()
        return None if row is None else row["stop_message"]

    def unfinished_workflows(self) -> list[dict[str, Any]]:
        """Runs not yet Succeeded/Failed/Error (candidates for resuming)."""
        rows = self._conn().execute(f"SELECT {self._COLUMNS} FROM workflows WHERE phase NOT IN (?, ?, ?) "
                                    "ORDER BY version", tuple(COMPLETED_PHASES)).fetchall()
        return [self._load(r) for r in rows]

    # -- node logs -------------------------------------------------------------------------
    def append_log(self, workflow_uid: str, node_id: str, content: str) -> None:
        with self._write() as db:
            db.execute("INSERT INTO node_logs (workflow_uid, node_id, ts, content) VALUES (?, ?, ?, ?)",
                       (workflow_uid, node_id, time.time(), content))

    def node_log_rows(self, workflow_uid: str, node_id: str, limit: int, after: int = 0) -> list[tuple[int, int]]:
        """The oldest ``(id, bytes)`` rows of one node's log with an id above ``after``, at most ``limit``."""
        rows = self._conn().execute(
            "SELECT id, length(CAST(content AS BLOB)) AS size FROM node_logs "
            "WHERE workflow_uid = ? AND node_id = ? AND id > ? ORDER BY id LIMIT ?",
            (workflow_uid, node_id, after, limit)).fetchall()
        return [(int(r["id"]), int(r["size"])) for r in rows]

    def first_log_row(self, workflow_uid: str, node_id: str) -> tuple[int, str] | None:
        """``(id, content)`` of one node's oldest log row, if any."""
        row = self._conn().execute("SELECT id, content FROM node_logs WHERE workflow_uid = ? AND node_id = ? "
                                   "ORDER BY id LIMIT 1", (workflow_uid, node_id)).fetchone()
        return None if row is None else (int(row["id"]), str(row["content"]))

    def node_log_bytes(self, workflow_uid: str, node_id: str) -> int:
        row = self._conn().execute("SELECT COALESCE(SUM(length(CAST(content AS BLOB))), 0) FROM node_logs "
                                   "WHERE workflow_uid = ? AND node_id = ?", (workflow_uid, node_id)).fetchone()
        return int(row[0])

    def replace_log_head(self, workflow_uid: str, node_id: str, drop_ids: list[int], head_id: int | None,
                         head: str, content: str) -> int:
        """In one transaction: delete rows ``drop_ids`` (the node's oldest), write ``head`` as row ``head_id``
        (new: in the place of the oldest dropped row, so it reads first), then append ``content``.

        Returns the head's row id.
        """
        with self._write() as db:
            for row_id in drop_ids:
                db.execute("DELETE FROM node_logs WHERE id = ?", (row_id,))
            if head_id is not None:
                db.execute("UPDATE node_logs SET content = ? WHERE id = ?", (head, head_id))
            else:
                cur = db.execute("INSERT INTO node_logs (id, workflow_uid, node_id, ts, content) "
                                 "VALUES (?, ?, ?, ?, ?)",
                                 (min(drop_ids) if drop_ids else None, workflow_uid, node_id, time.time(), head))
                head_id = int(cur.lastrowid or 0)
            if content:
                db.execute("INSERT INTO node_logs (workflow_uid, node_id, ts, content) VALUES (?, ?, ?, ?)",
                           (workflow_uid, node_id, time.time(), content))
        return head_id

    def prune_logs(self, before: float) -> int:
        """Delete finished runs' node logs written before ``before`` (epoch seconds); returns the rows deleted."""
        finished = "SELECT uid FROM workflows WHERE phase IN (?, ?, ?)"
        args = (before, *sorted(COMPLETED_PHASES))
        if self._conn().execute(f"SELECT 1 FROM node_logs WHERE ts < ? AND workflow_uid IN ({finished}) LIMIT 1",
                                args).fetchone() is None:
            return 0
        with self._write() as db:
            cur = db.execute(f"DELETE FROM node_logs WHERE ts < ? AND workflow_uid IN ({finished})", args)
        return int(cur.rowcount)

    def read_logs(self, workflow_uid: str, after: int = 0, node_id: str | None = None) -> list[LogChunk]:
        sql = "SELECT id, node_id, ts, content FROM node_logs WHERE workflow_uid = ? AND id > ?"
        args: tuple[Any, ...] = (workflow_uid, after)
        if node_id is not None:
            sql += " AND node_id = ?"
            args = (*args, node_id)
        rows = self._conn().execute(sql + " ORDER BY id", args).fetchall()
        return [LogChunk(r["id"], r["node_id"], r["ts"], r["content"]) for r in rows]

    # -- templates and cron workflows --------------------------------------------------------
    def put_resource(self, kind: str, obj: dict[str, Any], namespace: str = "", *, create_only: bool = False,
                     must_exist: bool = False) -> dict[str, Any]:
        """Create or replace a WorkflowTemplate, ClusterWorkflowTemplate or CronWorkflow."""
        if kind not in RESOURCE_KINDS:
            raise ValueError(kind)
        obj = json.loads(json.dumps(obj))
        meta = obj.setdefault("metadata", {})
        if kind == CLUSTER_WORKFLOW_TEMPLATE:
            namespace = ""
        else:
            meta["namespace"] = check_namespace(str(namespace))
        obj.setdefault("apiVersion", "argoproj.io/v1alpha1")
        obj["kind"] = kind
        explicit = bool(meta.get("name"))
        if not explicit and not meta.get("generateName"):
            raise UserError("metadata.name or metadata.generateName is required", field="metadata")
        if explicit:
            check_name(str(meta["name"]), kind=qualified(kind))
        else:
            check_name(generate_name(str(meta["generateName"])), kind=qualified(kind), field="metadata.generateName")
        with self._write() as db:
            if not explicit:
                meta["name"] = generate_name(meta["generateName"])
            row = db.execute("SELECT uid, created FROM resources WHERE kind = ? AND namespace = ? AND name = ?",
                             (kind, namespace, meta["name"])).fetchone()
            if row is not None and create_only:
                raise ConflictError(f'{_plural(kind)} "{meta["name"]}" already exists')
            if row is None and must_exist:
                raise NotFoundError(f'{_plural(kind)} "{meta["name"]}" not found')
            meta["uid"] = row["uid"] if row else new_uid()
            meta["creationTimestamp"] = row["created"] if row else now_rfc3339()
            version = self._next_version(db)
            meta["resourceVersion"] = str(version)
            db.execute("INSERT OR REPLACE INTO resources (kind, namespace, name, uid, created, object, version) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (kind, namespace, meta["name"], meta["uid"], meta["creationTimestamp"], json.dumps(obj),
                        version))
        return obj

    def get_resource(self, kind: str, name: str, namespace: str = "") -> dict[str, Any] | None:
        row = self._conn().execute("SELECT object FROM resources WHERE kind = ? AND namespace = ? AND name = ?",
                                   (kind, "" if kind == CLUSTER_WORKFLOW_TEMPLATE else namespace, name)).fetchone()
        return None if row is None else json.loads(row["object"])

    def list_resources(self, kind: str, namespace: str | None = None) -> list[dict[str, Any]]:
        sql, args = "SELECT object FROM resources WHERE kind = ?", [kind]
        if namespace and kind != CLUSTER_WORKFLOW_TEMPLATE:
            sql, args = sql + " AND namespace = ?", [kind, namespace]
        rows = self._conn().execute(sql + " ORDER BY namespace, name", args).fetchall()
        return [json.loads(r["object"]) for r in rows]

    def delete_resource(self, kind: str, name: str, namespace: str = "") -> None:
        with self._write() as db:
            cur = db.execute("DELETE FROM resources WHERE kind = ? AND namespace = ? AND name = ?",
                             (kind, "" if kind == CLUSTER_WORKFLOW_TEMPLATE else namespace, name))
            if cur.rowcount == 0:
                raise NotFoundError(f'{_plural(kind)} "{name}" not found')


def _plural(kind: str) -> str:
    return f"{kind.lower()}s.argoproj.io"
