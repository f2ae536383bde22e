// The station page: the picker's screen. The next pick is a card at the top (location, product,
// count, tote), the batch's progress and the list below it. Changes arrive pushed (Server-Sent
// Events, GET /api/events): the pick list, the pill, the signed-in worker and each scan's outcome,
// which is heard (WebAudio tones, no sound files) and seen (a full-width flash in blue or orange with
// an icon and a word). If the event stream fails the page polls instead. Taps flip the count at once
// (before the request returns) and go to POST /api/taps, which answers as soon as the tap is durable
// on the station. Counts are set on an on-screen keypad: the page never calls prompt(), alert() or
// confirm(). What it shows a picker names products and locations; ids, statuses and error codes are
// for Diagnostics.
//
// This script, loaded last, keeps the page up to date (pushed events, else polling), takes keys and
// wires the controls; basics.js, pick-list.js, keypad.js, batches.js and support.js hold the rest.
"use strict";

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
