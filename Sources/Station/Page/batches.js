// Batches (the open ones, from the server or, offline, the station's cache) and who is picking.
"use strict";

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

