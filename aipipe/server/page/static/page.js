// aipipe run pages: live refresh through EventSource on the Argo API's Server-Sent Event streams, node
// details, followed logs and the run actions. Our own code, no libraries.
"use strict";

const RETRY_MS = 2000;
const DEBOUNCE_MS = 250;

// Watch `url` with EventSource: `onEvent` runs for each frame and whenever the stream (re)opens, so
// nothing missed while it was down stays stale; <body data-live> says how the stream is.
function watch(url, onEvent) {
  const source = new EventSource(url);
  const mark = (state) => { document.body.dataset.live = state; };
  source.onopen = () => { mark("live"); onEvent(); };
  source.onmessage = () => onEvent();
  source.onerror = () => mark(source.readyState === EventSource.CLOSED ? "closed" : "reconnecting");
  window.addEventListener("pagehide", () => source.close());
}

function debounced(fn) {
  let pending = null;
  return () => {
    if (pending === null) pending = setTimeout(() => { pending = null; fn(); }, DEBOUNCE_MS);
  };
}

async function fetchText(url) {
  const response = await fetch(url, { credentials: "same-origin", cache: "no-store" });
  if (response.redirected) window.location.reload();  // signed out: the server sent us to /login
  if (!response.ok || response.redirected) throw new Error(`${response.status} ${response.statusText}`);
  return response.text();
}

// Replace `element`'s content by the server-rendered (escaped) fragment at `url` (left alone when unchanged).
const shown = new WeakMap();
async function refresh(element, url) {
  try {
    const text = await fetchText(url);
    if (shown.get(element) !== text) {
      element.innerHTML = text;
      shown.set(element, text);
    }
    return true;
  } catch (err) {
    return false;
  }
}

function initRuns() {
  const box = document.getElementById("runs");
  const ns = encodeURIComponent(box.dataset.namespace);
  const update = debounced(() => refresh(box, box.dataset.fragment));
  watch(`/api/v1/workflow-events/${ns}`, update);
}

// One log stream per shown node, with follow; reopened (from the start) while the node still runs.
const logs = { source: null };

function stopLogs() {
  if (logs.source) logs.source.close();
  logs.source = null;
}

function nodeFinished() {
  const info = document.querySelector("#node-panel .node-info");
  return info !== null && ["Succeeded", "Failed", "Error", "Skipped", "Omitted"].includes(info.dataset.phase);
}

function logLine(data) {
  try {
    const result = JSON.parse(data).result;
    return result && typeof result.content === "string" ? result.content : null;
  } catch (err) {
    return null;
  }
}

function startLogs(pre) {
  stopLogs();
  pre.textContent = "";
  const source = new EventSource(pre.dataset.logUrl);
  logs.source = source;
  source.onopen = () => { pre.dataset.stream = "open"; };
  source.onmessage = (event) => {
    const line = logLine(event.data);
    if (line === null) return;
    const stick = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 4;
    pre.append(line + "\n");
    if (stick) pre.scrollTop = pre.scrollHeight;
  };
  source.onerror = () => {  // the stream ended (the node finished) or broke
    source.close();
    pre.dataset.stream = "ended";
    if (logs.source === source && !nodeFinished()) {
      setTimeout(() => { if (logs.source === source) startLogs(pre); }, RETRY_MS);
    }
  };
}

function initRun() {
  const run = document.getElementById("run");
  const live = document.getElementById("live");
  const panel = document.getElementById("node-panel");
  const status = document.getElementById("action-status");
  const ns = encodeURIComponent(run.dataset.namespace);
  const name = encodeURIComponent(run.dataset.name);
  let selected = null;

  function markSelected() {
    live.querySelectorAll("g.node, tr.node").forEach((g) => g.classList.toggle("selected", g.dataset.nodeId === selected));
  }

  async function showNode(nodeId) {
    selected = nodeId;
    markSelected();
    stopLogs();
    if (await refresh(panel, `${run.dataset.fragment}/nodes/${encodeURIComponent(nodeId)}`)) {
      const pre = document.getElementById("logs");
      if (pre) startLogs(pre);
    }
  }

  async function update() {
    await refresh(live, run.dataset.fragment);
    markSelected();
    const info = panel.querySelector(".node-info");
    if (selected && info) {
      try {
        const holder = document.createElement("div");
        holder.innerHTML = await fetchText(`${run.dataset.fragment}/nodes/${encodeURIComponent(selected)}`);
        const fresh = holder.querySelector(".node-info");
        if (fresh && fresh.dataset.nodeId === selected) info.replaceWith(fresh);
      } catch (err) { /* next event */ }
    }
  }

  live.addEventListener("click", (event) => {
    const node = event.target.closest("g.node, tr.node");
    if (node) { showNode(node.dataset.nodeId); return; }
    const button = event.target.closest("button.action");
    if (button) act(button.dataset.action);
  });
  live.addEventListener("keydown", (event) => {
    const node = event.target.closest("g.node, tr.node");
    if (node && (event.key === "Enter" || event.key === " ")) { event.preventDefault(); showNode(node.dataset.nodeId); }
  });

  async function act(action) {
    status.textContent = `${action}…`;
    status.className = "muted";
    try {
      const response = await fetch(`/api/v1/workflows/${ns}/${name}/${action}`, {
        method: "PUT", credentials: "same-origin", headers: { "Content-Type": "application/json" }, body: "{}",
      });
      const body = await response.json().catch(() => ({}));
      if (!response.ok) throw new Error(body.message || `${response.status} ${response.statusText}`);
      status.textContent = `${action}: done`;
      const made = body.metadata && body.metadata.name;
      if (made && made !== run.dataset.name) {
        window.location.href = `/runs/${encodeURIComponent(body.metadata.namespace)}/${encodeURIComponent(made)}`;
        return;
      }
      update();
    } catch (err) {
      status.textContent = `${action} failed: ${err.message}`;
      status.className = "message failed";
    }
  }

  const field = encodeURIComponent(`metadata.name=${run.dataset.name}`);
  watch(`/api/v1/workflow-events/${ns}?listOptions.fieldSelector=${field}`, debounced(update));
}

document.addEventListener("DOMContentLoaded", () => {
  const view = document.body.dataset.view;
  if (view === "runs") initRuns();
  if (view === "run") initRun();
});
