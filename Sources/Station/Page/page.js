// The station page. Changes arrive pushed (Server-Sent Events, GET /api/events): the pick list,
// the pill, the signed-in worker and each scan's outcome, which is heard (WebAudio tones, no sound
// files) and seen (a full-width flash in blue or orange with an icon and a word). If the event
// stream fails the page polls instead. Taps flip the row at once (before the request returns) and
// go to POST /api/taps, which answers as soon as the tap is durable on the station.
"use strict";
const $ = (selector) => document.querySelector(selector);
let tasks = [];
let pickList = { batchId: null, tasks: [] };
let workers = { requireSignIn: false, signedIn: null, workers: [] };
let lastActive = null;
let lastSeq = 0;
let primed = false;

// How long a request may wait for the station: a browser holds at most six connections to it, so
// with many tabs open (each one's event stream holds one) a tap can queue unseen for minutes.
const ANSWER_WAIT_MS = 10000;

async function api(path, body) {
  const options = body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  };
  options.signal = AbortSignal.timeout(ANSWER_WAIT_MS);
  let response;
  try {
    response = await fetch(path, options);
  } catch (error) {
    if (error.name !== "TimeoutError") throw new Error("the station is not answering: " + error.message);
    throw new Error("the station did not answer in 10 s (too many tabs of this page open?): check the row before tapping again");
  }
  const data = await response.json();
  if (!response.ok) throw new Error(data.message || response.statusText);
  return data;
}

// ---- Sound: one short tone pattern per outcome, made with WebAudio ----

const sounds = {
  accepted: { type: "sine", notes: [880], length: 0.12 },
  taskComplete: { type: "sine", notes: [660, 990], length: 0.12 },
  batchComplete: { type: "sine", notes: [523, 659, 784, 1047], length: 0.14 },
  refused: { type: "square", notes: [196, 196], length: 0.18 },
};
let audio = null;
let muted = localStorage.getItem("muted") === "true";
let volume = Number(localStorage.getItem("volume") || "70");

function play(feedback) {
  const sound = sounds[feedback];
  if (!sound || muted || volume === 0) return;
  try {
    audio = audio || new (window.AudioContext || window.webkitAudioContext)();
    if (audio.state === "suspended") audio.resume();
    let start = audio.currentTime;
    for (const note of sound.notes) {
      const oscillator = audio.createOscillator();
      const gain = audio.createGain();
      oscillator.type = sound.type;
      oscillator.frequency.value = note;
      gain.gain.value = (volume / 100) * (sound.type === "square" ? 0.25 : 0.5);
      oscillator.connect(gain).connect(audio.destination);
      oscillator.start(start);
      oscillator.stop(start + sound.length);
      start += sound.length + 0.03;
    }
  } catch (error) {
    // No audio device: the flash still shows.
  }
}

function renderSound() {
  $("#mute").textContent = muted ? "Sound: off" : "Sound: on";
  $("#mute").setAttribute("aria-pressed", String(muted));
  $("#volume").value = volume;
}

// ---- What a scan looks like: the banner, and a flash readable from 2 m ----

const flashes = {
  accepted: ["ok", "✓", "OK"], taskComplete: ["ok", "✓", "DONE"], batchComplete: ["ok", "✓✓", "BATCH DONE"],
  refused: ["no", "✗", "NO"], info: ["info", "ℹ", ""],
};
let flashTimer = null;

// A tap that went through takes down the refusal an earlier tap left (it no longer applies); a
// scan's, or anything shown since, stays.
let tapRefusal = null;
function clearRefusal() {
  const banner = $("#last-scan");
  if (tapRefusal !== null && banner.textContent === tapRefusal) showScan("info", "");
  tapRefusal = null;
}

// `accepted` true or false, or "info" for news that is neither (a badge signed in, a batch opened).
function showScan(accepted, message) {
  const banner = $("#last-scan");
  banner.className = `scan ${accepted === "info" ? "idle" : accepted ? "accepted" : "rejected"}`;
  banner.textContent = message;
}

function applyScan(scan) {
  if (!scan || scan.seq <= lastSeq) return;
  lastSeq = scan.seq;
  showScan(scan.feedback === "info" ? "info" : scan.accepted, scan.message);
  // A counted scan's row changes at once; the pick list that follows confirms it.
  const counted = scan.pickTask;
  const row = counted ? document.querySelector(`tr[data-task="${counted.id}"]`) : null;
  const known = counted ? tasks.find((task) => task.id === counted.id) : null;
  if (known) known.qtyPicked = counted.qtyPicked;
  if (row) {
    row.querySelector(".picked").textContent = `${counted.qtyPicked}/${counted.qtyRequired}`;
    row.classList.add("pending");
    row.classList.toggle("complete", counted.qtyPicked >= counted.qtyRequired);
    if (counted.qtyPicked < counted.qtyRequired) {
      for (const active of document.querySelectorAll("#pick-list tr.active")) active.classList.remove("active");
      row.classList.add("active");
      row.scrollIntoView({ block: "nearest" });
    }
  }
  play(scan.feedback);
  const [kind, icon, word] = flashes[scan.feedback] || flashes.info;
  const flash = $("#flash");
  flash.className = kind;
  flash.querySelector(".icon").textContent = icon;
  flash.querySelector(".word").textContent = word;
  flash.querySelector(".detail").textContent = scan.message;
  flash.hidden = false;
  clearTimeout(flashTimer);
  flashTimer = setTimeout(() => { flash.hidden = true; }, scan.feedback === "refused" ? 1200 : 600);
}

// ---- The pick list ----

function renderPickList(list) {
  pickList = list;
  tasks = list.tasks;
  $("#batch").textContent = list.batchId ? `batch ${list.batchId}${list.closed ? " (closed)" : ""}` : "";
  $("#empty").hidden = list.batchId !== null;
  const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.task : null;
  const body = $("#pick-list tbody");
  body.replaceChildren(...list.tasks.map((task) => {
    const row = document.createElement("tr");
    row.dataset.task = task.id;
    row.tabIndex = 0;
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
    pick.tabIndex = -1;
    pick.onclick = () => tap(task, { kind: "pick", qty: 1 });
    const set = document.createElement("button");
    set.textContent = "Set…";
    set.className = "set";
    set.tabIndex = -1;
    set.onclick = () => askCount(task);
    actions.append(pick, set);
    row.append(picked, locked, actions);
    return row;
  }));
  if (focused) {
    const row = document.querySelector(`tr[data-task="${focused}"]`);
    if (row) row.focus({ preventScroll: true });
  }
  // The row the picker is on stays in view when a scan selects another one.
  if (list.activeTaskId && list.activeTaskId !== lastActive) {
    const active = document.querySelector(`tr[data-task="${list.activeTaskId}"]`);
    if (active) active.scrollIntoView({ block: "nearest" });
  }
  lastActive = list.activeTaskId;
  const over = list.batchId !== null && (list.closed || (list.tasks.length > 0 && list.tasks.every((t) => t.qtyPicked >= t.qtyRequired)));
  if (list.batchId === null || over) showBatches(over ? "done" : "none");
  else if (batchesShown === "none" || batchesShown === "done") { $("#batches").hidden = true; batchesShown = null; }
}

function askCount(task) {
  // Cancel (null) or an empty answer sends nothing (Number(null) would be 0); so does anything
  // but a whole number, with a word why.
  const answer = prompt(`Picked count for ${task.location}`, task.qtyPicked);
  if (answer === null || answer.trim() === "") return;
  if (!/^\d+$/.test(answer.trim())) {
    showScan(false, `"${answer}" is not a whole number: the count of ${task.location} was not changed`);
    return;
  }
  const to = Number(answer.trim());
  if (to === task.qtyPicked) return;  // the count as it is: nothing to send
  if (to > task.qtyRequired) {
    showScan(false, `${to} is more than the ${task.qtyRequired} wanted at ${task.location}: the count was not changed`);
    return;
  }
  tap(task, { kind: "setQty", from: task.qtyPicked, to });
}

async function tap(task, change) {
  // The row flips on this frame; the server is never waited for.
  const next = change.kind === "pick" ? task.qtyPicked + change.qty : change.to;
  const row = document.querySelector(`tr[data-task="${task.id}"]`);
  const before = row.querySelector(".picked").textContent;
  const wasPending = row.classList.contains("pending");
  row.querySelector(".picked").textContent = `${next}/${task.qtyRequired}`;
  row.classList.add("pending");
  try {
    await api("/api/taps", { pickTaskId: task.id, ...change });
    clearRefusal();
  } catch (error) {
    // Not counted: the row as it was, marked only if it was before.
    row.querySelector(".picked").textContent = before;
    row.classList.toggle("pending", wasPending);
    showScan(false, error.message);
    tapRefusal = error.message;
    play("refused");
  }
  if (!streaming) refresh();
}

// ---- Batches: the open ones, from the server or (offline) the station's cache ----

let batchesShown = null;

async function showBatches(reason) {
  if (batchesShown === reason && !$("#batches").hidden) return;
  batchesShown = reason;
  const panel = $("#batches");
  panel.hidden = false;
  panel.classList.toggle("done", reason === "done");
  $("#batches-title").textContent = reason === "done" ? `Batch ${pickList.batchId} complete: open the next one`
    : reason === "none" ? "No batch is open: choose one, or scan a batch label" : "Open a batch";
  let choices;
  try {
    choices = await api("/api/batches");
  } catch (error) {
    $("#batches-note").textContent = error.message;
    $("#batch-list").replaceChildren();
    return;
  }
  const note = $("#batches-note");
  note.className = choices.fromCache ? "offline" : "";
  note.textContent = choices.fromCache
    ? `Offline: the batches of ${choices.org} this station has cached (the server may have closed some).`
    : `${choices.batches.length} open batches of ${choices.org}.`;
  $("#batch-list").replaceChildren(...choices.batches.map((batch) => {
    const item = document.createElement("li");
    const button = document.createElement("button");
    button.dataset.batch = batch.id;
    button.textContent = `${batch.id} · ${batch.complete}/${batch.tasks} done${choices.fromCache ? " · cached" : ""}`;
    if (batch.id === pickList.batchId) button.className = "current";
    button.onclick = () => openBatch(batch.id, choices.org);
    item.append(button);
    return item;
  }));
}

async function openBatch(id, org) {
  try {
    renderPickList(await api(`/api/batches/${encodeURIComponent(id)}/open`, { org }));
    $("#batches").hidden = true;
    batchesShown = null;
    showScan(true, `batch ${id} open`);
  } catch (error) {
    showScan(false, error.message);
    play("refused");
  }
}

// ---- Who is picking ----

function renderWorkers(answer) {
  workers = answer;
  const signedIn = answer.signedIn;
  $("#worker").textContent = signedIn ? `Picker: ${signedIn.name || signedIn.id}` : "";
  $("#sign-out").hidden = !signedIn;
  $("#sign-in").hidden = !(answer.requireSignIn && !signedIn);
  $("#worker-list").replaceChildren(...answer.workers.map((worker) => {
    const button = document.createElement("button");
    button.dataset.worker = worker.id;
    button.textContent = worker.name;
    button.onclick = () => api("/api/sign-in", { workerId: worker.id }).then(renderWorkers, (e) => showScan(false, e.message));
    return button;
  }));
}

// ---- The pill ----

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
  if (!primed) {
    // The scan shown before the page opened is shown, not played again.
    primed = true;
    if (status.lastScan) { lastSeq = status.lastScan.seq; showScan(status.lastScan.accepted, status.lastScan.message); }
  } else if (status.lastScan) applyScan(status.lastScan);
}

// ---- Support ----

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
  // Dead letters of one kind (the same refusal) are retried at once, e.g. after a token fix.
  const byStatus = new Map();
  for (const action of actions.filter((a) => a.state === "dead" && a.lastStatus)) {
    byStatus.set(action.lastStatus, (byStatus.get(action.lastStatus) || 0) + 1);
  }
  $("#retry-all").replaceChildren(...[...byStatus].map(([status, count]) => {
    const button = document.createElement("button");
    button.dataset.status = status;
    button.textContent = `Retry all ${count} refused with ${status}`;
    button.onclick = () => {
      const by = supportName();
      if (by) api("/api/queue/retry-all", { status, by }).then(refresh, (error) => showScan(false, error.message));
    };
    return button;
  }));
}

function renderLog(entries) {
  $("#station-log tbody").replaceChildren(...entries.map((entry) => {
    const row = document.createElement("tr");
    for (const text of [entry.at, entry.event, entry.actionId === null ? "" : `#${entry.actionId}`, entry.by || ""]) {
      const cell = document.createElement("td");
      cell.textContent = text;
      row.append(cell);
    }
    row.title = entry.detail;
    return row;
  }));
}

// Support's retries and clears name who did them in the station log: the name field, else asked once.
function supportName() {
  const field = $("#support-name");
  let name = field.value.trim();
  if (!name) {
    name = (prompt("Your name, for the station log", localStorage.getItem("supportName") || "") || "").trim();
    field.value = name;
  }
  if (name) localStorage.setItem("supportName", name);
  return name;
}

// ---- Keeping up: pushed events, else polling ----

let streaming = false;
let pollTimer = null;

async function refresh() {
  try {
    const [list, status, who] = await Promise.all([api("/api/pick-list"), api("/api/status"), api("/api/workers")]);
    renderPickList(list);
    renderStatus(status);
    renderWorkers(who);
  } catch (error) {
    $("#pill").textContent = "station not answering";
  }
  refreshDiagnostics();
}

async function refreshDiagnostics() {
  if ($("#diagnostics").hidden) return;
  try {
    const [queue, log] = await Promise.all([api("/api/queue"), api("/api/log")]);
    renderQueue(queue);
    renderLog(log);
  } catch (error) {
    showScan(false, error.message);
  }
}

function poll(on) {
  if (on && !pollTimer) pollTimer = setInterval(refresh, 700);
  if (!on && pollTimer) { clearInterval(pollTimer); pollTimer = null; }
}

function listen() {
  if (!window.EventSource) { poll(true); return; }
  const events = new EventSource("/api/events");
  const on = (name, apply) => events.addEventListener(name, (event) => {
    streaming = true;
    poll(false);
    apply(JSON.parse(event.data));
  });
  on("pickList", renderPickList);
  on("status", (status) => { renderStatus(status); refreshDiagnostics(); });
  on("worker", renderWorkers);
  on("scan", applyScan);
  on("tap", () => {});
  // The browser reconnects by itself; until it does (or if it gives up) the page polls.
  events.onerror = () => {
    streaming = false;
    poll(true);
    if (events.readyState === EventSource.CLOSED) setTimeout(listen, 5000);
  };
}

// ---- Keys: a person can do everything without a mouse ----

function rowKey(event) {
  const row = document.activeElement && document.activeElement.closest ? document.activeElement.closest("tr[data-task]") : null;
  const rows = [...document.querySelectorAll("#pick-list tbody tr")];
  if (event.key === "ArrowDown" || event.key === "ArrowUp") {
    const index = row ? rows.indexOf(row) : -1;
    const next = rows[Math.max(0, Math.min(rows.length - 1, index + (event.key === "ArrowDown" ? 1 : -1)))];
    if (next) { next.focus(); event.preventDefault(); }
    return;
  }
  if (!row) return;
  const task = tasks.find((t) => t.id === row.dataset.task);
  if (!task) return;
  if (event.key === "Enter" || event.key === "+") { tap(task, { kind: "pick", qty: 1 }); event.preventDefault(); }
  if (event.key === "s") { askCount(task); event.preventDefault(); }
}

document.addEventListener("keydown", (event) => {
  if (event.target.matches && event.target.matches("input")) return;
  if (event.repeat) return;  // a key held down is one press: a picker leaning on Enter picks once
  if (event.key === "m") { $("#mute").click(); return; }
  if (event.key === "b") { $("#toggle-batches").click(); return; }
  if (event.key === "d") { $("#toggle-diagnostics").click(); return; }
  if (event.key === "c") { $("#toggle-camera").click(); return; }
  rowKey(event);
});

// The live view is fetched only while shown: the station encodes nothing for nobody.
$("#toggle-camera").onclick = () => {
  const panel = $("#camera");
  const view = $("#camera-view");
  panel.hidden = !panel.hidden;
  if (panel.hidden) { view.removeAttribute("src"); return; }
  $("#camera-note").textContent = "";
  view.onerror = async () => {
    // The picture's own request says nothing of why it failed: ask again, and let go at once.
    let why = "No picture: the station has no camera running (a handheld scanner has none).";
    const asking = new AbortController();
    try {
      const answer = await fetch("/api/preview.mjpeg", { signal: asking.signal });
      if (!answer.ok) {
        const refusal = await answer.json();
        if (refusal.error === "too_many_viewers") why = `No picture: ${refusal.message}; close the camera view on another screen.`;
      }
    } catch (error) {
      // unreachable or refused: the usual words stand
    }
    asking.abort();
    $("#camera-note").textContent = why;
  };
  view.src = `/api/preview.mjpeg?t=${Date.now()}`;
};
$("#toggle-diagnostics").onclick = () => { $("#diagnostics").hidden = !$("#diagnostics").hidden; refreshDiagnostics(); };
$("#toggle-batches").onclick = () => {
  if ($("#batches").hidden) showBatches("chosen"); else { $("#batches").hidden = true; batchesShown = null; }
};
$("#sign-out").onclick = () => api("/api/sign-out", {}).then(renderWorkers, (e) => showScan(false, e.message));
$("#mute").onclick = () => { muted = !muted; localStorage.setItem("muted", String(muted)); renderSound(); };
$("#volume").oninput = () => { volume = Number($("#volume").value); localStorage.setItem("volume", String(volume)); };
$("#support-name").value = localStorage.getItem("supportName") || "";
renderSound();
refresh();
listen();
setInterval(refreshDiagnostics, 2000);
