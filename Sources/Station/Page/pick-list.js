// The pick list: the card with the next pick, the batch's progress and the list below it; taps,
// which flip the count at once (before the request returns) and go to POST /api/taps; and later
// refusals (the server did not count what the station did), each heard and flashed once.
"use strict";

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

