// The station page's basics, loaded first: the state the other scripts share, the station's API,
// the words a picker reads (products, locations, counts and times in the station's time zone), the
// tones (WebAudio, no sound files) and the flash that shows what happened. The scripts are loaded
// in order by index.html (basics, pick-list, keypad, batches, support, page) and share one scope.
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

