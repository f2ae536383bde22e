// The station page: the picker's screen. The next pick is a card at the top (location, product,
// count, tote), the batch's progress and the list below it. Changes arrive pushed (Server-Sent
// Events, GET /api/events): the pick list, the pill, the signed-in worker and each scan's outcome,
// which is heard (WebAudio tones, no sound files) and seen (a full-width flash in blue or orange with
// an icon and a word). If the event stream fails the page polls instead. Taps flip the count at once
// (before the request returns) and go to POST /api/taps, which answers as soon as the tap is durable
// on the station. Counts are set on an on-screen keypad: the page never calls prompt(), alert() or
// confirm(). What it shows a picker names products and locations; ids, statuses and error codes are
// for Diagnostics.
"use strict";
const $ = (selector) => document.querySelector(selector);
let tasks = [];
let pickList = { batchId: null, tasks: [], refusals: [] };
let workers = { requireSignIn: false, signedIn: null, workers: [] };
let timeZone = undefined;  // the station's (GET /api/status), for every time shown
let lastActive = null;
let lastSeq = 0;
let primed = false;

// How long a request may wait for the station: a browser holds at most six connections to it, so
// with many tabs open (each one's event stream holds one) a tap can queue unseen for minutes.
const ANSWER_WAIT_MS = 10000;

// A refusal of the station's API: `code` and `message` are for Diagnostics, never for the picker.
class StationError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

async function api(path, body) {
  const options = body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  };
  options.signal = AbortSignal.timeout(ANSWER_WAIT_MS);
  let response;
  try {
    response = await fetch(path, options);
  } catch (error) {
    const slow = error.name === "TimeoutError";
    noteError(path, slow ? "no answer in 10 s" : error.message);
    throw new StationError(0, slow ? "timeout" : "unreachable", slow
      ? "The station did not answer in time: look at the count before tapping again"
      : "The station is not answering: look at the count before tapping again");
  }
  let data = null;
  try {
    data = await response.json();
  } catch (error) {
    data = null;
  }
  if (!response.ok) {
    const code = (data && data.error) || "unknown";
    noteError(path, `${response.status} ${code}: ${(data && data.message) || response.statusText}`);
    throw new StationError(response.status, code, (data && data.message) || "");
  }
  return data;
}

// The technical side of what went wrong, for support in Diagnostics (the newest 30).
function noteError(what, detail) {
  const item = document.createElement("li");
  item.textContent = `${clock(new Date())} ${what}: ${detail}`;
  const list = $("#page-errors");
  list.prepend(item);
  while (list.children.length > 30) list.lastChild.remove();
}

// ---- Words: products, locations, counts, and times in the station's own time zone ----

const productOf = (task) => task.name || task.sku;
const unitsDone = (task) => task.qtyPicked + (task.qtyShort || 0);
const isDone = (task) => unitsDone(task) >= task.qtyRequired;

function clock(date) {
  try {
    return new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", timeZone }).format(date);
  } catch (error) {
    return date.toTimeString().slice(0, 5);
  }
}

function when(iso) {
  const date = new Date(iso);
  if (!iso || Number.isNaN(date.getTime())) return "";
  const day = (d) => new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(d);
  try {
    if (day(date) === day(new Date())) return clock(date);
    return new Intl.DateTimeFormat(undefined, { day: "numeric", month: "short", hour: "2-digit", minute: "2-digit", timeZone }).format(date);
  } catch (error) {
    return iso;
  }
}

function dateOnly(iso) {
  const date = new Date(`${iso}T12:00:00Z`);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(undefined, { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" }).format(date);
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

// ---- What happened: the banner, and a flash readable from 2 m ----

const flashes = {
  accepted: ["ok", "✓", "OK"], taskComplete: ["ok", "✓", "DONE"], batchComplete: ["ok", "✓✓", "BATCH DONE"],
  refused: ["no", "✗", "NO"], info: ["info", "ℹ", ""],
};
let flashTimer = null;

// `accepted` true or false, or "info" for news that is neither (a badge signed in, a batch opened).
// Whatever shows next replaces it: a success takes down an earlier refusal.
function showScan(accepted, message) {
  const banner = $("#last-scan");
  banner.className = `scan ${accepted === "info" ? "idle" : accepted ? "accepted" : "rejected"}`;
  banner.textContent = message;
}

function flash(feedback, message, holdMs) {
  const [kind, icon, word] = flashes[feedback] || flashes.info;
  const element = $("#flash");
  element.className = kind;
  element.querySelector(".icon").textContent = icon;
  element.querySelector(".word").textContent = word;
  element.querySelector(".detail").textContent = message;
  element.hidden = false;
  clearTimeout(flashTimer);
  flashTimer = setTimeout(() => { element.hidden = true; }, holdMs || (feedback === "refused" ? 1200 : 600));
}

function refuse(message) {
  showScan(false, message);
  play("refused");
  flash("refused", message);
}

function applyScan(scan) {
  if (!scan || scan.seq <= lastSeq) return;
  lastSeq = scan.seq;
  showScan(scan.feedback === "info" ? "info" : scan.accepted, scan.message);
  // A counted scan's task changes at once; the pick list that follows confirms it.
  const counted = scan.pickTask;
  const known = counted ? tasks.find((task) => task.id === counted.id) : null;
  if (known) {
    known.qtyPicked = counted.qtyPicked;
    known.pending = true;
    if (!isDone(known)) pickList.activeTaskId = known.id;
    render();
    const row = rowOf(known.id);
    if (row && !isDone(known)) row.scrollIntoView({ block: "nearest" });
  }
  play(scan.feedback);
  flash(scan.feedback, scan.message);
}

// ---- The pick list: the card, the progress and the list ----

const rowOf = (id) => document.querySelector(`#pick-list tr[data-task="${CSS.escape(id)}"]`);

function renderPickList(list) {
  pickList = list;
  tasks = list.tasks;
  render();
  // The row the picker is on stays in view when a scan selects another one (not when the page opens).
  if (list.activeTaskId && lastActive !== null && list.activeTaskId !== lastActive) {
    const active = rowOf(list.activeTaskId);
    if (active) active.scrollIntoView({ block: "nearest" });
  }
  lastActive = list.activeTaskId || "";
  const over = batchOver();
  if (list.batchId === null || over) showBatches(over ? "done" : "none");
  else if (batchesShown === "none" || batchesShown === "done") { $("#batches").hidden = true; batchesShown = null; }
}

const batchOver = () => pickList.batchId !== null
  && (pickList.closed || (pickList.tasks.length > 0 && pickList.tasks.every(isDone)));

function render() {
  renderCard();
  renderProgress();
  renderRows();
}

function activeTask() {
  return tasks.find((task) => task.id === pickList.activeTaskId && !isDone(task)) || tasks.find((task) => !isDone(task));
}

function renderCard() {
  const card = $("#card");
  const refusals = pickList.refusals || [];
  noticeRefusals(refusals);
  // A later refusal comes first: the picker acts on it before the next pick.
  $("#refusal").hidden = refusals.length === 0;
  card.classList.toggle("refused", refusals.length > 0);
  if (refusals.length > 0) {
    const first = refusals[0];
    $("#refusal-message").textContent = first.message;
    $("#refusal-more").textContent = refusals.length > 1 ? `and ${refusals.length - 1} more after this one` : "";
    $("#refusal-done").setAttribute("aria-label", `Done: ${first.message}`);
    $("#next").hidden = true;
    $("#card-empty").hidden = true;
    return;
  }
  const task = activeTask();
  $("#next").hidden = !task;
  $("#card-empty").hidden = !!task;
  card.classList.toggle("done", !task && pickList.batchId !== null);
  if (!task) {
    const status = pickList.status || (pickList.closed ? "closed" : "open");
    $("#card-empty-title").textContent = pickList.batchId === null
      ? "No batch is open: choose one, or scan a batch label"
      : status === "closed" ? "This batch is closed: open the next one" : "Batch complete: every line is done";
    $("#card-finish").hidden = !(pickList.batchId !== null && status === "complete");
    return;
  }
  $("#card-location").textContent = task.location;
  $("#card-product").textContent = productOf(task);
  $("#card-picked").textContent = task.qtyPicked;
  $("#card-required").textContent = task.qtyRequired;
  $("#card-short").textContent = task.qtyShort ? ` · ${task.qtyShort} short` : "";
  const details = [];
  if (task.tote !== undefined && task.tote !== null) details.push(["tote", `Tote ${task.tote}`]);
  if (task.lot) details.push(["lot", `Lot ${task.lot}`]);
  if (task.bestBefore) details.push(["best-before", `Best before ${dateOnly(task.bestBefore)}`]);
  if (task.caseQty) details.push(["case", `Case of ${task.caseQty}`]);
  details.push(["code", `code …${String(task.barcode).slice(-4)}`]);
  $("#card-details").replaceChildren(...details.map(([kind, text]) => {
    const span = document.createElement("span");
    span.className = kind;
    span.textContent = text;
    return span;
  }));
  const name = `${productOf(task)} at ${task.location}`;
  $("#card-pick").setAttribute("aria-label", `Picked one more: ${name}`);
  $("#card-set").setAttribute("aria-label", `Set the count: ${name}`);
  $("#card-cant").setAttribute("aria-label", `Can't pick: ${name}`);
  $("#card-pick").dataset.task = task.id;
}

function renderProgress() {
  const shown = pickList.batchId !== null && tasks.length > 0;
  $("#progress").hidden = !shown;
  if (!shown) return;
  const lines = tasks.filter(isDone).length;
  const required = tasks.reduce((sum, task) => sum + task.qtyRequired, 0);
  const picked = tasks.reduce((sum, task) => sum + Math.min(task.qtyPicked, task.qtyRequired), 0);
  const short = tasks.reduce((sum, task) => sum + (task.qtyShort || 0), 0);
  $("#progress-text").textContent = `${lines} of ${tasks.length} lines done · ${picked} of ${required} units picked`
    + (short ? ` · ${short} short` : "");
  for (const [id, done, total] of [["#progress-lines", lines, tasks.length], ["#progress-units", picked + short, required]]) {
    const meter = $(id);
    meter.setAttribute("aria-valuemax", String(total));
    meter.setAttribute("aria-valuenow", String(done));
    meter.querySelector("span").style.width = `${total ? Math.min(100, (100 * done) / total) : 0}%`;
  }
}

function renderRows() {
  const active = activeTask();
  const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.task : null;
  const body = $("#pick-list tbody");
  body.replaceChildren(...tasks.map((task) => {
    const row = document.createElement("tr");
    row.dataset.task = task.id;
    row.tabIndex = 0;
    row.className = [
      active && task.id === active.id ? "active" : "",
      isDone(task) ? "complete" : "",
      task.pending ? "pending" : "",
      task.refused ? "refused" : "",
    ].join(" ");
    const name = `${productOf(task)} at ${task.location}`;
    row.setAttribute("aria-label", `${name}: ${task.qtyPicked} of ${task.qtyRequired}${isDone(task) ? ", done" : ""}`);
    if (task.refused) row.title = "The server did not count an action on this line: support sees it in Diagnostics.";
    const location = document.createElement("td");
    location.className = "location";
    location.textContent = task.location;
    const product = document.createElement("td");
    product.className = "product";
    product.textContent = productOf(task);
    const sub = [];
    if (task.tote !== undefined && task.tote !== null) sub.push(`Tote ${task.tote}`);
    if (task.qtyLocked > 0) sub.push(`${task.qtyLocked} in a box`);
    if (task.qtyShort) sub.push(`${task.qtyShort} short`);
    if (sub.length) {
      const extra = document.createElement("span");
      extra.className = "sub";
      extra.textContent = sub.join(" · ");
      product.append(extra);
    }
    const picked = document.createElement("td");
    picked.className = "picked";
    picked.textContent = `${task.qtyPicked} of ${task.qtyRequired}`;
    const actions = document.createElement("td");
    actions.className = "actions";
    const pick = document.createElement("button");
    pick.type = "button";
    pick.textContent = "+1";
    pick.className = "pick";
    pick.tabIndex = -1;
    pick.setAttribute("aria-label", `Picked one more: ${name}`);
    pick.onclick = () => tap(task, { kind: "pick", qty: 1 });
    const set = document.createElement("button");
    set.type = "button";
    set.textContent = "Set";
    set.className = "set";
    set.tabIndex = -1;
    set.setAttribute("aria-label", `Set the count: ${name}`);
    set.onclick = () => askCount(task);
    actions.append(pick, set);
    row.append(location, product, picked, actions);
    return row;
  }));
  if (focused) {
    const row = rowOf(focused);
    if (row) row.focus({ preventScroll: true });
  }
}

// ---- Taps ----

async function tap(task, change) {
  // The count flips on this frame; the server is never waited for.
  const before = { qtyPicked: task.qtyPicked, qtyShort: task.qtyShort, pending: task.pending };
  if (change.kind === "pick") task.qtyPicked += change.qty;
  else if (change.kind === "setQty") task.qtyPicked = change.to;
  else if (change.kind === "short") task.qtyShort = (task.qtyShort || 0) + change.qty;
  task.pending = true;
  render();
  const name = `${productOf(task)} at ${task.location}`;
  try {
    await api("/api/taps", { pickTaskId: task.id, ...change });
    showScan(true, change.kind === "pick" ? `✓ ${name}: ${task.qtyPicked} of ${task.qtyRequired}`
      : change.kind === "setQty" ? `✓ ${name}: count set to ${change.to} of ${task.qtyRequired}`
        : `✓ ${name}: ${change.qty} not picked, recorded`);
  } catch (error) {
    // Not counted: the count as it was.
    Object.assign(task, before);
    render();
    refuse(`✗ ${tapRefusal(error, task, name)}`);
  }
  if (!streaming) refresh();
}

// A tap's refusal in a picker's words: the station's own (it names the product and location) when
// it is one of its refusals, else what happened and what to do.
function tapRefusal(error, task, name) {
  if (["refused", "stale_count", "invalid_quantity"].includes(error.code) && error.message) return error.message;
  if (error.code === "batch_closed") return `Not counted: this batch is closed; open the next one under Batches`;
  if (error.code === "sign_in_required") return `Not counted: scan your badge first (${name})`;
  if (error.code === "timeout" || error.code === "unreachable") return `${error.message} (${name})`;
  return `Not counted: ${name}; try again, and call support if it happens again`;
}

// ---- The keypad: counts, how many were not picked, a support PIN ----

let keypad = null;  // { title, value, max, reasons, reason, masked, ok(value, reason), aria }

function openKeypad(options) {
  keypad = { value: "", reason: null, ...options };
  $("#keypad-title").textContent = options.title;
  const reasons = $("#keypad-reasons");
  reasons.replaceChildren(...(options.reasons || []).map(([value, label]) => {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = label;
    button.dataset.reason = value;
    button.setAttribute("aria-pressed", "false");
    button.setAttribute("aria-label", `${label}: ${options.subject}`);
    button.onclick = () => {
      keypad.reason = value;
      for (const other of reasons.children) other.setAttribute("aria-pressed", String(other === button));
      $("#keypad-note").textContent = "";
    };
    return button;
  }));
  $("#keypad-keys").replaceChildren(...["1", "2", "3", "4", "5", "6", "7", "8", "9", "⌫", "0", "C"].map((key) => {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = key;
    button.dataset.key = key;
    const what = key === "⌫" ? "Delete the last digit" : key === "C" ? "Clear" : key;
    button.setAttribute("aria-label", `${what}: ${options.subject}`);
    button.onclick = () => keypadKey(key);
    return button;
  }));
  $("#keypad-ok").setAttribute("aria-label", `OK: ${options.subject}`);
  $("#keypad-cancel").setAttribute("aria-label", `Cancel: ${options.subject}`);
  $("#keypad-hint").textContent = options.hint || "";
  $("#keypad-note").textContent = "";
  keypad.value = options.start === undefined ? "" : String(options.start);
  showKeypadValue();
  $("#keypad").hidden = false;
  $("#keypad-ok").focus();
}

function showKeypadValue() {
  $("#keypad-value").textContent = keypad.masked ? "•".repeat(keypad.value.length) : keypad.value;
}

function keypadKey(key) {
  if (!keypad) return;
  if (key === "⌫") keypad.value = keypad.value.slice(0, -1);
  else if (key === "C") keypad.value = "";
  else if (keypad.value.length < (keypad.maxDigits || 6)) keypad.value = keypad.value === "0" && !keypad.masked ? key : keypad.value + key;
  $("#keypad-note").textContent = "";
  showKeypadValue();
}

function closeKeypad() {
  $("#keypad").hidden = true;
  keypad = null;
}

function keypadOK() {
  if (!keypad) return;
  const current = keypad;
  if (current.reasons && !current.reason) { $("#keypad-note").textContent = "Choose why first"; return; }
  if (current.value === "") { $("#keypad-note").textContent = "Type a number first"; return; }
  const problem = current.check ? current.check(current.value) : null;
  if (problem) { $("#keypad-note").textContent = problem; return; }
  closeKeypad();
  current.ok(current.value, current.reason);
}

// "Set count": the count as it should be, from 0 to what the line wants.
function askCount(task) {
  const name = `${productOf(task)} at ${task.location}`;
  const from = task.qtyPicked;
  openKeypad({
    title: `Set the count: ${name}`, subject: `count of ${name}`, start: from, hint: `of ${task.qtyRequired}`,
    check: (value) => Number(value) > task.qtyRequired ? `At most ${task.qtyRequired}: that is all the line wants` : null,
    ok: (value) => {
      const to = Number(value);
      if (to === task.qtyPicked) return;  // the count as it is: nothing to send
      tap(task, { kind: "setQty", from: task.qtyPicked, to });
    },
  });
}

// "Can't pick": why, and how many will not be picked (at most what is left).
function askShort(task) {
  const name = `${productOf(task)} at ${task.location}`;
  const left = task.qtyRequired - unitsDone(task);
  openKeypad({
    title: `Can't pick: ${name}`, subject: `not picked of ${name}`, start: left, hint: `not picked, of ${left} left`,
    reasons: [["not_found", "Not found"], ["damaged", "Damaged"], ["other", "Other"]],
    check: (value) => Number(value) < 1 ? "At least 1" : Number(value) > left ? `At most ${left}: that is what is left` : null,
    ok: (value, reason) => tap(task, { kind: "short", qty: Number(value), reason }),
  });
}

// ---- A later refusal: the server did not count what the station did ----

// Each refusal is heard and flashed once, however often the page reloads; its card stays until
// the picker says it is dealt with (the station keeps it).
const heard = new Set(JSON.parse(localStorage.getItem("refusalsHeard") || "[]"));
let flashedHere = new Set();

function noticeRefusals(refusals) {
  for (const refusal of refusals) {
    const key = `${refusal.id}@${refusal.at}`;
    if (!heard.has(key)) {
      heard.add(key);
      localStorage.setItem("refusalsHeard", JSON.stringify([...heard].slice(-100)));
      play("refused");
    }
    if (!flashedHere.has(key)) {
      flashedHere.add(key);
      flash("refused", refusal.message, 2500);
    }
  }
}

async function acknowledgeRefusal() {
  const first = (pickList.refusals || [])[0];
  if (!first) return;
  try {
    renderPickList(await api(`/api/refusals/${first.id}/acknowledge`, {}));
    showScan("info", `Done: ${first.message.replace(/^Put back /, "put back ")}`);
  } catch (error) {
    if (error.code === "no_such_refusal") refresh();
    else refuse("✗ That was not recorded: tap Done again");
  }
}

// ---- Batches: the open ones, from the server or (offline) the station's cache ----

let batchesShown = null;

async function showBatches(reason) {
  if (batchesShown === reason && !$("#batches").hidden) return;
  batchesShown = reason;
  const panel = $("#batches");
  panel.hidden = false;
  panel.classList.toggle("done", reason === "done");
  $("#batches-title").textContent = reason === "done" ? "Batch complete: open the next one"
    : reason === "none" ? "No batch is open: choose one, or scan a batch label" : "Open a batch";
  let lists;
  try {
    lists = await batchChoices();
  } catch (error) {
    $("#batches-note").textContent = error.code === "busy" ? "The station is busy: try again in a moment"
      : "The batches could not be listed: try again in a moment";
    $("#batch-list").replaceChildren();
    return;
  }
  const fromCache = lists.some((choices) => choices.fromCache);
  const count = lists.reduce((sum, choices) => sum + choices.batches.length, 0);
  const note = $("#batches-note");
  note.className = fromCache ? "offline" : "";
  note.textContent = fromCache
    ? "Offline: the batches this station has saved (the server may have closed some)."
    : `${count} open ${count === 1 ? "batch" : "batches"}.`;
  $("#batch-list").replaceChildren(...lists.flatMap((choices) => choices.batches.map((batch, index) => {
    const item = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.batch = batch.id;
    const made = when(batch.createdAt);
    button.textContent = (lists.length > 1 ? `${choices.org} · ` : "")
      + `${made ? `Batch of ${made}` : `Batch ${index + 1}`} · ${batch.tasks} ${batch.tasks === 1 ? "line" : "lines"}, ${batch.complete} done`
      + (batch.id === pickList.batchId ? " · open here" : "") + (choices.fromCache ? " · saved here" : "");
    if (batch.id === pickList.batchId) button.className = "current";
    button.onclick = () => openBatch(batch.id, choices.org);
    item.append(button);
    return item;
  })));
}

// The open batches to choose from: the station's organisation's, or, on a station with several
// and no batch open, each organisation's in turn.
async function batchChoices() {
  try {
    return [await api("/api/batches")];
  } catch (error) {
    if (error.code !== "which_organisation") throw error;
  }
  const { organisations } = await api("/api/organisations");
  const lists = [];
  for (const org of organisations) lists.push(await api(`/api/batches?org=${encodeURIComponent(org)}`));
  return lists;
}

async function openBatch(id, org) {
  try {
    renderPickList(await api(`/api/batches/${encodeURIComponent(id)}/open`, { org }));
    $("#batches").hidden = true;
    batchesShown = null;
    showScan(true, `✓ Batch open: ${tasks.length} lines`);
  } catch (error) {
    refuse(`✗ That batch could not be opened: ${error.code === "server_needed"
      ? "this station needs the server to open it the first time; try again when it is online"
      : error.code === "busy" ? "the station is busy; try again in a moment"
        : error.code === "server_answer_refused" ? "the server sent it in a form this station cannot use; call support"
        : "try again, and call support if it happens again"}`);
  }
}

async function finishBatch() {
  try {
    await api(`/api/batches/${encodeURIComponent(pickList.batchId)}/close`, {});
    showScan(true, "✓ Batch finished: open the next one");
    refresh();
  } catch (error) {
    refuse(`✗ The batch could not be finished now: ${error.code === "server_unreachable" || error.code === "unreachable"
      ? "the server cannot be reached; try again when it is back" : "try again, and call support if it happens again"}`);
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
    button.type = "button";
    button.dataset.worker = worker.id;
    button.textContent = worker.name;
    button.onclick = () => api("/api/sign-in", { workerId: worker.id })
      .then(renderWorkers, () => refuse("✗ That name could not sign in: scan your badge, or call support"));
    return button;
  }));
}

// ---- The pill: in words, what needs a person first ----

// What a picker reads for each thing that needs a person; the technical message is in Diagnostics.
const attentionWords = {
  unauthorized: "Can't send: the server does not accept this station",
  forbidden: "Can't send: the server does not accept this station",
  no_token: "Can't send: this station is not set up for this work",
  not_the_api: "Can't send: the server address is wrong",
  clock_skew: "Can't send: this station's clock is wrong",
  invalid_worker: "Can't send: the picker's badge is not accepted",
  camera_not_found: "Camera not found",
  scanner_unavailable: "Scanner not found",
  scanner_input_ended: "Scanner stopped",
  database_failed: "The station's storage failed",
  refresh_failed: "Can't update the list from the server",
};

function attentionWord(item) {
  if (attentionWords[item.code]) return attentionWords[item.code];
  if (/tls|certificate/.test(item.code)) return "Can't send: the server's certificate is not trusted";
  return "Needs support";
}

function renderStatus(status) {
  if (status.timeZone) timeZone = status.timeZone;
  const pill = $("#pill");
  const attention = status.attention || [];
  pill.className = `pill ${status.online ? "online" : "offline"} ${status.dead > 0 ? "dead" : ""}`
    + (attention.length > 0 ? " attention" : "");
  const words = [...new Set(attention.map(attentionWord))];
  const waiting = status.pending === null ? null : status.pending + status.inFlight;
  pill.textContent = (words.length > 0 ? `${words.join(" · ")} (call support) · ` : "")
    + (status.online ? "Online" : "Offline")
    + (status.online && status.serverReady === false ? " · server busy" : "")
    + (waiting === null ? " · count unknown" : waiting === 0 ? " · all sent" : ` · ${waiting} waiting to send`)
    + (status.dead > 0 ? ` · ${status.dead} not counted` : "");
  $("#attention-list").replaceChildren(...attention.map((item) => {
    const entry = document.createElement("li");
    entry.textContent = `${item.code}: ${item.message}`;
    return entry;
  }));
  $("#scanner").textContent = status.scanner || "";
  if (!primed) {
    // The scan shown before the page opened is shown, not played again.
    primed = true;
    if (status.lastScan) { lastSeq = status.lastScan.seq; showScan(status.lastScan.accepted, status.lastScan.message); }
  } else if (status.lastScan) applyScan(status.lastScan);
}

// ---- Support: a role, signed in by badge or PIN ----

let support = JSON.parse(sessionStorage.getItem("support") || "null");  // {name, session}

function renderSupport() {
  $("#support-out").hidden = !!support;
  $("#support-in").hidden = !support;
  $("#support-who").textContent = support ? support.name : "";
  for (const button of document.querySelectorAll("#queue .support-only")) button.hidden = !support;
}

async function signInSupport(credential) {
  try {
    const answer = await api("/api/support/sign-in", credential);
    support = { name: answer.name, session: answer.session };
    sessionStorage.setItem("support", JSON.stringify(support));
    $("#support-note").textContent = "";
    $("#support-badge").value = "";
    renderSupport();
    refreshDiagnostics();
  } catch (error) {
    $("#support-note").textContent = error.code === "support_locked" ? "Too many wrong tries: wait a minute"
      : error.code === "support_not_configured" ? "Support sign-in is not set up at this station"
        : "That badge or PIN is not support's";
  }
}

function signOutSupport() {
  if (support) api("/api/support/sign-out", { session: support.session }).catch(() => {});
  support = null;
  sessionStorage.removeItem("support");
  renderSupport();
  refreshDiagnostics();
}

// A support action; a session that ended asks for the sign-in again.
function supportAction(path, body) {
  if (!support) return;
  api(path, { ...body, session: support.session }).then(refresh, (error) => {
    if (error.code === "support_required") signOutSupport();
    $("#support-note").textContent = error.code === "support_required" ? "Your sign-in ended: sign in again"
      : "That did not work: see this screen's errors below";
  });
}

let clearArmed = { id: null, until: 0 };

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
    const button = (label, className, action) => {
      const element = document.createElement("button");
      element.type = "button";
      element.textContent = label;
      element.className = `${className} support-only`;
      element.hidden = !support;
      element.onclick = action;
      return element;
    };
    if (action.state === "dead") {
      cell.append(button("Retry", "retry", () => supportAction(`/api/queue/${action.id}/retry`, {})));
      // Clearing takes two touches within 5 s: the first asks, the second clears (recorded in the
      // station log). The question outlives the queue's redraws.
      const armed = clearArmed.id === action.id && clearArmed.until > Date.now();
      const clear = button(armed ? "Clear: sure?" : "Clear", "clear", () => {
        if (!(clearArmed.id === action.id && clearArmed.until > Date.now())) {
          clearArmed = { id: action.id, until: Date.now() + 5000 };
          clear.textContent = "Clear: sure?";
          setTimeout(() => { if (clear.isConnected && clearArmed.until <= Date.now()) clear.textContent = "Clear"; }, 5100);
          return;
        }
        clearArmed = { id: null, until: 0 };
        supportAction(`/api/queue/${action.id}/clear`, {});
      });
      cell.append(clear);
    } else if (action.state === "pending") {
      cell.append(button("Park", "park", () => supportAction(`/api/queue/${action.id}/park`, {})));
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
    button.type = "button";
    button.dataset.status = status;
    button.textContent = `Retry all ${count} refused with ${status}`;
    button.onclick = () => supportAction("/api/queue/retry-all", { status });
    return button;
  }));
}

function renderLog(entries) {
  $("#station-log tbody").replaceChildren(...entries.map((entry) => {
    const row = document.createElement("tr");
    for (const text of [when(entry.at), entry.event, entry.actionId === null ? "" : `#${entry.actionId}`, entry.by || ""]) {
      const cell = document.createElement("td");
      cell.textContent = text;
      row.append(cell);
    }
    row.title = entry.detail;
    return row;
  }));
}

// ---- Keeping up: pushed events, else polling ----

let streaming = false;
let pollTimer = null;

async function refresh() {
  try {
    const [list, status, who] = await Promise.all([api("/api/pick-list"), api("/api/status"), api("/api/workers")]);
    renderStatus(status);
    renderPickList(list);
    renderWorkers(who);
  } catch (error) {
    $("#pill").className = "pill offline";
    $("#pill").textContent = "The station is not answering";
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
    // noted in this screen's errors
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

// ---- Keys: a scan is never a tap ----

// A handheld scanner in keyboard mode that the station does not hold types a code as a burst of
// keys ended by Enter: that goes to the station as a scan (POST /api/scans), through its checks.
// Keys typed by a person (further apart) are shortcuts; Enter on a row counts nothing.
const BURST_GAP_MS = 60;
const MIN_CODE = 3;
const burst = { text: "", last: 0, timer: null };

function endBurst() {
  clearTimeout(burst.timer);
  const typed = burst.text;
  burst.text = "";
  return typed;
}

function shortcut(key) {
  if (key === "m") { $("#mute").click(); return; }
  if (key === "b") { $("#toggle-batches").click(); return; }
  if (key === "d") { $("#toggle-diagnostics").click(); return; }
  if (key === "c") { $("#toggle-camera").click(); return; }
  const row = document.activeElement && document.activeElement.closest ? document.activeElement.closest("tr[data-task]") : null;
  const task = row ? tasks.find((t) => t.id === row.dataset.task) : null;
  if (!task) return;
  if (key === "+") tap(task, { kind: "pick", qty: 1 });
  if (key === "s") askCount(task);
}

function keysTyped() {
  for (const key of endBurst()) shortcut(key);
}

async function scanTyped(code) {
  try {
    await api("/api/scans", { code });  // its outcome comes as the station's scan event
  } catch (error) {
    refuse("✗ That scan was not recorded: scan it again");
  }
}

function keypadKeys(event) {
  if (/^[0-9]$/.test(event.key)) keypadKey(event.key);
  else if (event.key === "Backspace") keypadKey("⌫");
  else if (event.key === "Escape") closeKeypad();
  else if (event.key === "Enter" && !(event.target && event.target.matches && event.target.matches("button"))) keypadOK();
  else return;
  event.preventDefault();
}

document.addEventListener("keydown", (event) => {
  if (event.target.matches && event.target.matches("input, textarea")) return;  // a support badge scanned into its field
  if (keypad) { keypadKeys(event); return; }
  if (event.repeat) return;  // a key held down is one press
  const now = event.timeStamp;
  // Space on a focused button presses it, as ever; inside a burst it is part of the code.
  const printable = event.key.length === 1 && !event.ctrlKey && !event.metaKey && !event.altKey
    && !(event.key === " " && !burst.text);
  if (printable) {
    if (burst.text && now - burst.last > BURST_GAP_MS) keysTyped();
    burst.text += event.key;
    burst.last = now;
    clearTimeout(burst.timer);
    burst.timer = setTimeout(keysTyped, BURST_GAP_MS + 40);
    event.preventDefault();
    return;
  }
  if (event.key === "Enter") {
    // A burst's Enter ends a scan; any other Enter (on a row, or typed) counts nothing.
    const fast = burst.text && now - burst.last <= BURST_GAP_MS;
    if (fast && burst.text.length >= MIN_CODE) scanTyped(endBurst());
    else if (burst.text) keysTyped();
    if (!(event.target.matches && event.target.matches("button"))) event.preventDefault();
    if (fast) event.preventDefault();
    return;
  }
  if (event.key === "Escape" && !$("#batches").hidden) { $("#batches").hidden = true; batchesShown = null; return; }
  if (event.key === "ArrowDown" || event.key === "ArrowUp") {
    const row = document.activeElement && document.activeElement.closest ? document.activeElement.closest("tr[data-task]") : null;
    const rows = [...document.querySelectorAll("#pick-list tbody tr")];
    const index = row ? rows.indexOf(row) : -1;
    const next = rows[Math.max(0, Math.min(rows.length - 1, index + (event.key === "ArrowDown" ? 1 : -1)))];
    if (next) { next.focus(); event.preventDefault(); }
  }
});

// ---- The controls ----

// The live view is fetched only while shown: the station encodes nothing for nobody.
$("#toggle-camera").onclick = () => {
  const panel = $("#camera");
  const view = $("#camera-view");
  panel.hidden = !panel.hidden;
  if (panel.hidden) { view.removeAttribute("src"); return; }
  $("#camera-note").textContent = "";
  view.onerror = async () => {
    // The picture's own request says nothing of why it failed: ask again, and let go at once.
    let why = "No picture: this station has no camera running (a handheld scanner has none).";
    const asking = new AbortController();
    try {
      const answer = await fetch("/api/preview.mjpeg", { signal: asking.signal });
      if (!answer.ok) {
        const refusal = await answer.json();
        if (refusal.error === "too_many_viewers") why = "No picture: too many screens are watching the camera; close the camera view on another one.";
      }
    } catch (error) {
      // unreachable or refused: the usual words stand
    }
    asking.abort();
    $("#camera-note").textContent = why;
  };
  view.src = `/api/preview.mjpeg?t=${Date.now()}`;
};
$("#toggle-diagnostics").onclick = () => {
  $("#diagnostics").hidden = !$("#diagnostics").hidden;
  renderSupport();
  refreshDiagnostics();
  if (!$("#diagnostics").hidden) $("#diagnostics").scrollIntoView({ block: "start" });
};
$("#toggle-batches").onclick = () => {
  if ($("#batches").hidden) showBatches("chosen"); else { $("#batches").hidden = true; batchesShown = null; }
};
$("#toggle-tools").onclick = () => {
  const open = !$("#top").classList.contains("open");
  $("#top").classList.toggle("open", open);
  $("#toggle-tools").setAttribute("aria-expanded", String(open));
};
$("#toggle-list").onclick = () => {
  const list = $("#pick-list");
  list.hidden = !list.hidden;
  localStorage.setItem("listFolded", String(list.hidden));
  $("#toggle-list").textContent = list.hidden ? "Show the list" : "Hide the list";
  $("#toggle-list").setAttribute("aria-expanded", String(!list.hidden));
};
if (localStorage.getItem("listFolded") === "true") $("#toggle-list").click();
$("#card-pick").onclick = () => { const task = activeTask(); if (task) tap(task, { kind: "pick", qty: 1 }); };
$("#card-set").onclick = () => { const task = activeTask(); if (task) askCount(task); };
$("#card-cant").onclick = () => { const task = activeTask(); if (task) askShort(task); };
$("#card-batches").onclick = () => showBatches("chosen");
$("#card-finish").onclick = finishBatch;
$("#refusal-done").onclick = acknowledgeRefusal;
$("#keypad-ok").onclick = keypadOK;
$("#keypad-cancel").onclick = closeKeypad;
$("#sign-out").onclick = () => api("/api/sign-out", {}).then(renderWorkers, () => refuse("✗ Signing out did not work: try again"));
$("#mute").onclick = () => { muted = !muted; localStorage.setItem("muted", String(muted)); renderSound(); };
$("#volume").oninput = () => { volume = Number($("#volume").value); localStorage.setItem("volume", String(volume)); };
$("#support-badge-form").onsubmit = (event) => {
  event.preventDefault();
  const badge = $("#support-badge").value.trim();
  if (badge) signInSupport({ badge });
};
$("#support-pin").onclick = () => openKeypad({
  title: "Support PIN", subject: "support PIN", masked: true, maxDigits: 12,
  check: (value) => value.length < 4 ? "A PIN has at least 4 digits" : null,
  ok: (pin) => {
    const name = $("#support-name").value.trim();
    signInSupport(name ? { pin, name } : { pin });
  },
});
$("#support-sign-out").onclick = signOutSupport;
renderSound();
renderSupport();
refresh();
listen();
setInterval(refreshDiagnostics, 2000);
