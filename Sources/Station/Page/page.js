// The station page: polls the local API, renders the pick list, the pill, the last scan and the
// queue. Taps flip the row at once (before the request returns) and go to POST /api/taps, which
// answers as soon as the tap is durable on the station.
"use strict";
const $ = (selector) => document.querySelector(selector);
let tasks = [];

async function api(path, body) {
  const options = body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  };
  const response = await fetch(path, options);
  const data = await response.json();
  if (!response.ok) throw new Error(data.message || response.statusText);
  return data;
}

function renderPickList(list) {
  tasks = list.tasks;
  $("#batch").textContent = list.batchId ? `batch ${list.batchId}` : "";
  $("#empty").hidden = list.batchId !== null;
  const body = $("#pick-list tbody");
  body.replaceChildren(...list.tasks.map((task) => {
    const row = document.createElement("tr");
    row.dataset.task = task.id;
    row.className = [
      task.id === list.activeTaskId ? "active" : "",
      task.qtyPicked >= task.qtyRequired ? "complete" : "",
      task.pending ? "pending" : "",
      task.refused ? "refused" : "",
    ].join(" ");
    if (task.refused) row.title = "The server refused an action on this row: support retries or clears it (Diagnostics).";
    for (const text of [task.location, task.sku, task.barcode]) {
      const cell = document.createElement("td");
      cell.textContent = text;
      row.append(cell);
    }
    const picked = document.createElement("td");
    picked.className = "picked";
    picked.textContent = `${task.qtyPicked}/${task.qtyRequired}`;
    const locked = document.createElement("td");
    locked.textContent = task.qtyLocked;
    const actions = document.createElement("td");
    const pick = document.createElement("button");
    pick.textContent = "+1";
    pick.className = "pick";
    pick.onclick = () => tap(task, { kind: "pick", qty: 1 });
    const set = document.createElement("button");
    set.textContent = "Set…";
    set.onclick = () => {
      // Cancel (null) or an empty answer sends nothing (Number(null) would be 0); so does anything
      // but a whole number, with a word why.
      const answer = prompt(`Picked count for ${task.location}`, task.qtyPicked);
      if (answer === null || answer.trim() === "") return;
      if (!/^\d+$/.test(answer.trim())) {
        showScan(false, `"${answer}" is not a whole number: the count of ${task.location} was not changed`);
        return;
      }
      tap(task, { kind: "setQty", from: task.qtyPicked, to: Number(answer.trim()) });
    };
    actions.append(pick, set);
    row.append(picked, locked, actions);
    return row;
  }));
}

async function tap(task, change) {
  // The row flips on this frame; the server is never waited for.
  const next = change.kind === "pick" ? task.qtyPicked + change.qty : change.to;
  const row = document.querySelector(`tr[data-task="${task.id}"]`);
  const before = row.querySelector(".picked").textContent;
  row.querySelector(".picked").textContent = `${next}/${task.qtyRequired}`;
  row.classList.add("pending");
  try {
    await api("/api/taps", { pickTaskId: task.id, ...change });
  } catch (error) {
    row.querySelector(".picked").textContent = before;
    showScan(false, error.message);
  }
  refresh();
}

function showScan(accepted, message) {
  const banner = $("#last-scan");
  banner.className = `scan ${accepted ? "accepted" : "rejected"}`;
  banner.textContent = message;
}

function renderStatus(status) {
  const pill = $("#pill");
  const attention = status.attention || [];
  pill.className = `pill ${status.online ? "online" : "offline"} ${status.dead > 0 ? "dead" : ""}`
    + (attention.length > 0 ? " attention" : "");
  // Something a person must fix comes first, in words: the queue is paused, the camera is gone, …
  pill.textContent = (attention.length > 0 ? `needs attention: ${attention.map((a) => a.message).join(" · ")} · ` : "")
    + `${status.online ? "online" : "offline"} · `
    + (status.online && status.serverReady === false ? "server database down · " : "")
    + (status.pending === null ? "? pending" : `${status.pending + status.inFlight} pending`)
    + (status.dead > 0 ? ` · ${status.dead} dead` : "");
  pill.title = `server ${status.server}`;
  $("#scanner").textContent = status.scanner || "";
  if (status.lastScan) showScan(status.lastScan.accepted, status.lastScan.message);
}

function renderQueue(actions) {
  $("#queue tbody").replaceChildren(...actions.slice().reverse().map((action) => {
    const row = document.createElement("tr");
    row.className = action.state;
    for (const text of [action.state === "dead" ? "×" : action.id, action.label, action.state, action.tries,
      action.lastError || ""]) {
      const cell = document.createElement("td");
      cell.textContent = text;
      row.append(cell);
    }
    const cell = document.createElement("td");
    if (action.state === "dead") {
      const retry = document.createElement("button");
      retry.textContent = "Retry";
      retry.onclick = () => {
        const by = supportName();
        if (by) api(`/api/queue/${action.id}/retry`, { by }).then(refresh, (error) => showScan(false, error.message));
      };
      const clear = document.createElement("button");
      clear.textContent = "Clear";
      clear.className = "clear";
      clear.onclick = () => {
        if (!confirm(`Clear #${action.id} (${action.label})? It is recorded in the station log.`)) return;
        const by = supportName();
        if (by) api(`/api/queue/${action.id}/clear`, { by }).then(refresh, (error) => showScan(false, error.message));
      };
      cell.append(retry, clear);
    }
    row.append(cell);
    return row;
  }));
}

// Support's retries and clears name who did them in the station log: asked once, then remembered here.
function supportName() {
  const known = localStorage.getItem("supportName") || "";
  const name = (prompt("Your name, for the station log", known) || "").trim();
  if (name) localStorage.setItem("supportName", name);
  return name;
}

async function refresh() {
  try {
    const [list, status, queue] = await Promise.all([api("/api/pick-list"), api("/api/status"), api("/api/queue")]);
    renderPickList(list);
    renderStatus(status);
    renderQueue(queue);
  } catch (error) {
    $("#pill").textContent = "station not answering";
  }
}

$("#toggle-diagnostics").onclick = () => { $("#diagnostics").hidden = !$("#diagnostics").hidden; };
refresh();
setInterval(refresh, 700);
