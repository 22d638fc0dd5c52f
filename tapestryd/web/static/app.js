// tapestry calendar: status strip, agent filter and colours, drag-and-drop upload with receipts.
// Plain browser JavaScript, no libraries; every change is a same-origin request carrying the
// page's CSRF token (meta csrf-token) in the X-CSRF-Token header.
"use strict";

const csrf = () => document.querySelector('meta[name="csrf-token"]').content;
const maxUploadMb = () => Number(document.querySelector('meta[name="max-upload-mb"]').content);

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v; else node.setAttribute(k, v);
  }
  for (const child of children) node.append(child);
  return node;
}

// ---- status strip ---------------------------------------------------------------------
function setItem(id, text, level) {
  const item = document.getElementById(id);
  if (!item) return;
  item.textContent = text;
  item.className = "status-item " + (level || "");
}

function ago(iso) {
  const seconds = (Date.now() - Date.parse(iso)) / 1000;
  if (!isFinite(seconds)) return iso;
  if (seconds < 90) return "just now";
  if (seconds < 5400) return Math.round(seconds / 60) + " min ago";
  if (seconds < 129600) return Math.round(seconds / 3600) + " h ago";
  return Math.round(seconds / 86400) + " days ago";
}

async function refreshStatus() {
  const strip = document.getElementById("status");
  if (!strip) return;
  try {
    const s = await (await fetch(strip.dataset.url, { headers: { Accept: "application/json" } })).json();
    const d = s.daemon || {};
    setItem("status-daemon", d.running ? (d.error ? "daemon: " + d.error : "daemon running " + d.version)
      : "daemon not running", d.running ? (d.error ? "warn" : "ok") : "warn");
    const lag = Math.max(0, ...Object.values(s.lag || {}));
    setItem("status-lag", "projector lag " + lag, lag > 0 ? "warn" : "ok");
    const nodes = s.nodes || {};
    const dirty = (nodes.dirty || 0), stale = (nodes.context_stale || 0);
    setItem("status-dirty", dirty + " dirty · " + stale + " stale", dirty > 0 ? "warn" : "ok");
    const imp = s.last_import;
    setItem("status-import", imp ? "last import " + ago(imp.occurred_at) : "no import yet", "");
  } catch (err) {
    setItem("status-daemon", "status unavailable", "bad");
  }
}

// ---- agents: filter and colours -------------------------------------------------------
function setupAgents() {
  const form = document.getElementById("agent-filter");
  if (!form) return;
  form.querySelectorAll(".agent-toggle").forEach((box) => box.addEventListener("change", () => form.submit()));
  form.querySelectorAll(".color-pick").forEach((pick) => pick.addEventListener("change", () => saveColor(pick)));
}

async function saveColor(pick) {
  const response = await fetch("/api/agents/color", {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf() },
    body: JSON.stringify({ agent: pick.dataset.agent, color: pick.value }),
  });
  const answer = await response.json();
  if (!answer.ok) { alert(answer.error); return; }
  const sheet = document.querySelector('link[href^="/agents.css"]');
  sheet.href = "/agents.css?v=" + Date.now();
}

// ---- uploads ------------------------------------------------------------------------
// The ingest receipt: {"files": [{..., "errors": [str]}], "totals": {"messages_new", "messages_known",
// "conversations_new", "conversations_known", "skipped": {reason: n}, "errors": n}, "failed": bool}.
function receiptRows(receipt) {
  const t = receipt.totals || {};
  const skipped = Object.values(t.skipped || {}).reduce((a, b) => a + Number(b || 0), 0);
  return [["new", "new messages", t.messages_new], ["known", "already known", t.messages_known],
          ["conversations", "new conversations", t.conversations_new], ["skipped", "skipped", skipped],
          ["errors", "errors", t.errors]];
}

function showReceipt(row, receipt) {
  const list = el("dl", { class: "receipt" });
  for (const [key, label, value] of receiptRows(receipt)) {
    list.append(el("dt", {}, label), el("dd", { "data-count": key }, String(Number(value || 0))));
  }
  row.append(list);
  const reasons = Object.entries((receipt.totals || {}).skipped || {}).map(([why, n]) => n + " × " + why);
  if (reasons.length) row.append(el("p", { class: "hint" }, "skipped: " + reasons.join(", ")));
  const errors = (receipt.files || []).flatMap((f) => f.errors || []);
  if (errors.length) row.append(el("ul", { class: "errors" }, ...errors.slice(0, 20).map((e) => el("li", {}, String(e)))));
}

function pollJob(row, job, status) {
  fetch("/api/upload/" + encodeURIComponent(job.id)).then((r) => r.json()).then((answer) => {
    const current = answer.job || {};
    if (current.state === "importing") {
      status.textContent = "importing… " + Math.round((Date.now() - row.started) / 1000) + " s";
      setTimeout(() => pollJob(row, job, status), 400);
      return;
    }
    row.querySelector("progress").remove();
    row.classList.add(current.state === "done" ? "done" : "failed");
    row.dataset.state = current.state || "failed";
    status.textContent = current.state === "done" ? "imported" : "failed: " + (current.error || answer.error);
    if (current.receipt) showReceipt(row, current.receipt);
    refreshStatus();
  });
}

function fail(row, status, message) {
  row.querySelector("progress").remove();
  row.classList.add("failed");
  row.dataset.state = "failed";
  status.textContent = message;
}

function upload(file) {
  const status = el("div", { class: "upload-status" }, "uploading…");
  const bar = el("progress", { max: "100", value: "0" });
  const row = el("li", { class: "upload", "data-name": file.name }, el("div", { class: "name" }, file.name), bar, status);
  row.started = Date.now();
  document.getElementById("uploads").prepend(row);
  if (file.size > maxUploadMb() * 1048576) {
    fail(row, status, "too large: the limit is " + maxUploadMb() + " MB a file ([web] max_upload_mb)");
    return;
  }
  const query = new URLSearchParams({ name: file.name, agent: document.getElementById("upload-agent").value,
                                       parser: document.getElementById("upload-parser").value });
  const xhr = new XMLHttpRequest();
  xhr.open("POST", "/api/upload?" + query.toString());
  xhr.setRequestHeader("X-CSRF-Token", csrf());
  xhr.setRequestHeader("Content-Type", "application/octet-stream");
  xhr.upload.onprogress = (e) => { if (e.lengthComputable) bar.value = Math.round(100 * e.loaded / e.total); };
  xhr.onload = () => {
    let answer = {};
    try { answer = JSON.parse(xhr.responseText); } catch (err) { answer = { error: "HTTP " + xhr.status }; }
    if (xhr.status !== 202) { fail(row, status, answer.error || "HTTP " + xhr.status); return; }
    bar.removeAttribute("value");
    status.textContent = "importing…";
    pollJob(row, answer.job, status);
  };
  xhr.onerror = () => fail(row, status, "the upload was interrupted");
  xhr.send(file);
}

function setupUploads() {
  const drop = document.getElementById("drop");
  const input = document.getElementById("upload-file");
  if (!drop) return;
  ["dragenter", "dragover"].forEach((t) => document.addEventListener(t, (e) => { e.preventDefault(); drop.classList.add("over"); }));
  ["dragleave", "dragend"].forEach((t) => document.addEventListener(t, () => drop.classList.remove("over")));
  document.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    Array.from(e.dataTransfer.files || []).forEach(upload);
  });
  input.addEventListener("change", () => { Array.from(input.files).forEach(upload); input.value = ""; });
}

document.addEventListener("DOMContentLoaded", () => {
  setupAgents();
  setupUploads();
  refreshStatus();
  setInterval(refreshStatus, 10000);
});
