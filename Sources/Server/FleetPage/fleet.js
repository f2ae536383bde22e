// The shift lead's screen: every station of the organisation, one line each (a card on a phone),
// worst first, in words. Signing in exchanges the token once for the server's session cookie (which
// this script cannot read), so a reload or a new tab goes straight to the fleet. A new call for help
// blinks and sounds until the lead says it is seen. Everything from the server is written with
// textContent, never as HTML.
"use strict";

const refreshSeconds = (() => {
  const asked = Number(new URLSearchParams(location.search).get("refresh"));
  return Number.isInteger(asked) && asked >= 1 && asked <= 60 ? asked : 5;
})();
// The calls for help the lead has seen (station and since), kept across tabs and reloads.
const SEEN_KEY = "scanpick.fleet.seenHelp";
// What makes a station unable to send: its queue paused for one of these, in words.
const CANT_SEND = {
  unauthorized: "token refused", forbidden: "not allowed", no_token: "no token set",
  clock_skew: "clock is wrong", tls: "secure connection failed", tls_ca_not_installed: "certificate not trusted",
  not_the_api: "wrong server address", redirected: "wrong server address", invalid_worker: "worker refused",
};
// The order of severity, worst first; each station's level is the first that applies.
const LEVELS = ["help", "unseen", "cant-send", "refused", "stuck", "behind", "attention", "ok"];
const LEVEL_WORDS = {
  help: ["needs help", "need help"], unseen: ["not seen", "not seen"], "cant-send": ["can't send", "can't send"],
  refused: ["with refused actions", "with refused actions"], stuck: ["stuck", "stuck"], behind: ["behind", "behind"],
  attention: ["needs attention", "need attention"], ok: ["OK", "OK"],
};

let timer = null;
let latest = null;
let audio = null;
let alarmTimer = null;

const $ = (selector) => document.querySelector(selector);

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

/** A duration in words: "45 s", "12 min", "3 h 5 min", "2 d". */
function duration(seconds) {
  if (!Number.isFinite(seconds)) return "";
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return s + " s";
  if (s < 3600) return Math.floor(s / 60) + " min";
  if (s < 86400) {
    const minutes = Math.floor((s % 3600) / 60);
    return Math.floor(s / 3600) + " h" + (minutes ? " " + minutes + " min" : "");
  }
  return Math.floor(s / 86400) + " d";
}

/** Seconds from a station's time (its clock) to the server's now. */
function since(stationTime, station, serverNow) {
  const at = Date.parse(stationTime);
  if (!Number.isFinite(at)) return NaN;
  return (serverNow - (at - 1000 * (station.clockOffsetSeconds || 0))) / 1000;
}

function plural(n, one, many) { return n + " " + (n === 1 ? one : many); }

function seenCalls() {
  try { return new Set(JSON.parse(localStorage.getItem(SEEN_KEY) || "[]")); } catch (error) { return new Set(); }
}

function callKey(station) { return station.station + "\n" + station.help.since; }

function markSeen(station) {
  const seen = seenCalls();
  seen.add(callKey(station));
  // Only the calls still on are kept, so the list never grows.
  const live = new Set((latest ? latest.stations : []).filter((s) => s.help).map(callKey));
  localStorage.setItem(SEEN_KEY, JSON.stringify([...seen].filter((key) => live.has(key))));
}

/** How the lead reads a station: its level, the status in words, and what else applies. */
function judge(station, serverNow) {
  const notes = [];
  const problems = station.problems || [];
  const cantSend = (station.attention || []).find((item) => CANT_SEND[item.code]);
  const unsent = station.pending + station.inFlight;
  const behindFor = since(station.oldestPendingAt, station, serverNow);
  const words = {
    help: () => "Needs help",
    unseen: () => "Not seen for " + duration((serverNow - Date.parse(station.lastSeenAt)) / 1000),
    "cant-send": () => "Can't send: " + (station.tokenRefusedAt ? CANT_SEND.unauthorized : CANT_SEND[cantSend.code]),
    refused: () => plural(station.dead, "refused action", "refused actions"),
    stuck: () => stuckWords(station, serverNow),
    behind: () => "Behind: " + unsent + " waiting" + (Number.isFinite(behindFor) ? " for " + duration(behindFor) : ""),
    attention: () => attentionWords(station),
  };
  const levels = [];
  if (problems.includes("help") && station.help) levels.push("help");
  // Silent, and the server refused its token meanwhile: that is why (it says so before "Not seen").
  if (station.tokenRefusedAt) levels.push("cant-send");
  if (problems.includes("stale")) levels.push("unseen");
  if (cantSend && !station.tokenRefusedAt) levels.push("cant-send");
  if (problems.includes("dead_letters")) levels.push("refused");
  // One action the server keeps failing, holding back the rest of the station's line.
  if (station.stuck) levels.push("stuck");
  if (problems.includes("backlog")) levels.push("behind");
  if (problems.includes("attention") && (!cantSend || attentionWords(station, cantSend) !== "")
      && !(station.stuck && attentionWords(station) === "")) levels.push("attention");
  for (const level of levels.slice(1)) notes.push(words[level]());
  if (levels[0] === "help") {
    const ago = since(station.help.since, station, serverNow);
    notes.unshift((station.help.by || "The picker") + " called" + (Number.isFinite(ago) ? " " + duration(ago) + " ago" : ""));
  }
  if (levels[0] === "stuck") {
    notes.unshift("The server keeps failing it (" + plural(station.stuck.tries, "try", "tries") + "): support can set it aside");
  }
  const level = levels[0] || "ok";
  return { level, words: level === "ok" ? "OK" : words[level](), notes };
}

/** "Stuck: pick A1 · ×1 for 14 min, 37 waiting": the action the server keeps failing, by its label. */
function stuckWords(station, serverNow) {
  const stuck = station.stuck;
  const failing = since(stuck.failingSince, station, serverNow);
  return "Stuck: " + stuck.label + (Number.isFinite(failing) ? " for " + duration(failing) : "")
    + (stuck.behind > 0 ? ", " + stuck.behind + " waiting" : "");
}

/** What else needs a person, in short: the camera, the clock, or the station's own sentence (the
 * empty string when there is nothing but a stuck action, which has words of its own). */
function attentionWords(station, except) {
  const parts = [];
  if (station.camera === "missing") parts.push("Camera missing");
  if (Math.abs(station.clockOffsetSeconds || 0) > 300) {
    parts.push("Clock " + duration(Math.abs(station.clockOffsetSeconds)) + " off");
  }
  for (const item of station.attention || []) {
    if (item === except || CANT_SEND[item.code] || item.code === "camera_not_found") continue;
    if (station.stuck && item.code === "action_stuck") continue;
    parts.push(item.message.length > 90 ? item.message.slice(0, 89) + "…" : item.message);
  }
  if (except || (station.stuck && !parts.length)) return parts.join(" · ");
  return parts.length ? parts.join(" · ") : "Needs attention";
}

function showSignIn(message) {
  clearTimeout(timer);
  stopAlarm();
  latest = null;
  $("#sign-in").hidden = false;
  $("#fleet").hidden = true;
  $("#sign-out").hidden = true;
  $("#sound").hidden = true;
  $("#summary").textContent = "";
  $("#updated").textContent = "";
  $("#alert").textContent = "";
  $("#message").textContent = message || "";
  $("#token").focus();
}

function render(answer) {
  latest = answer;
  const serverNow = Date.parse(answer.serverTime);
  const judged = answer.stations.map((station) => ({ station, ...judge(station, serverNow) }));
  const age = (j) => j.level === "help" ? since(j.station.help.since, j.station, serverNow)
    : j.level === "unseen" ? (serverNow - Date.parse(j.station.lastSeenAt)) / 1000 : 0;
  judged.sort((a, b) => LEVELS.indexOf(a.level) - LEVELS.indexOf(b.level) || (age(b) || 0) - (age(a) || 0)
    || (a.station.station < b.station.station ? -1 : a.station.station > b.station.station ? 1 : 0));
  const seen = seenCalls();
  const alarms = [];
  const rows = judged.map((j) => {
    const station = j.station;
    const tr = el("tr");
    tr.dataset.station = station.station;
    tr.dataset.level = j.level;
    tr.appendChild(el("td", "station", station.station));

    const picker = el("td", "picker" + (station.workerName ? "" : " none"), station.workerName || "—");
    picker.dataset.label = "Picker";
    tr.appendChild(picker);

    const batch = el("td", "batch");
    batch.dataset.label = "Batch";
    const progress = station.batchProgress;
    if (progress && progress.total > 0) {
      const box = el("span", "progress");
      const bar = el("progress");
      bar.max = progress.total;
      bar.value = progress.done;
      bar.setAttribute("aria-label", "Lines done");
      box.append(bar, el("span", "count", progress.done + " of " + progress.total));
      batch.appendChild(box);
    } else {
      batch.appendChild(el("span", "none", "No batch"));
    }
    tr.appendChild(batch);

    const idleFor = since(station.lastActionAt, station, serverNow);
    const idle = el("td", "idle" + (Number.isFinite(idleFor) ? "" : " none"),
      !Number.isFinite(idleFor) ? "No scans" : idleFor < 60 ? "Just now" : duration(idleFor));
    idle.dataset.label = "Idle";
    tr.appendChild(idle);

    const status = el("td", "state");
    status.appendChild(el("span", "status", j.words));
    if (j.notes.length) status.appendChild(el("span", "more", j.notes.join(" · ")));
    tr.appendChild(status);

    const actions = el("td", "actions");
    if (j.level === "help") {
      const unseen = !seen.has(callKey(station));
      if (unseen) {
        tr.classList.add("alarm");
        alarms.push(station);
        const ok = el("button", "seen", "Seen");
        ok.type = "button";
        ok.addEventListener("click", () => { markSeen(station); render(latest); });
        actions.appendChild(ok);
      }
      const clear = el("button", "clear", "Clear call");
      clear.type = "button";
      clear.addEventListener("click", () => clearCall(station));
      actions.appendChild(clear);
    }
    tr.appendChild(actions);
    return tr;
  });
  $("#fleet tbody").replaceChildren(...rows);

  const counts = {};
  for (const j of judged) counts[j.level] = (counts[j.level] || 0) + 1;
  $("#summary").textContent = judged.length === 0 ? "No station has reported yet"
    : plural(judged.length, "station", "stations") + ": " + LEVELS.filter((l) => counts[l])
      .map((l) => counts[l] + " " + LEVEL_WORDS[l][counts[l] === 1 ? 0 : 1]).join(", ");
  $("#updated").textContent = "Updated " + new Date(serverNow).toLocaleTimeString();
  $("#fleet").hidden = false;
  $("#sign-in").hidden = true;
  $("#sign-out").hidden = false;
  $("#message").textContent = "";
  $("#alert").textContent = alarms.length === 0 ? ""
    : "Needs help: " + alarms.map((s) => s.station + (s.help.by ? " (" + s.help.by + ")" : "")).join(", ");
  if (alarms.length) startAlarm(); else stopAlarm();
  // Until this tab may play sound (a tap on the page first, in most browsers), the lead is told.
  $("#sound").hidden = audio !== null && audio.state === "running";
}

/** Sound for this tab, from a tap: signing in or "Turn sound on". */
function unlockSound() {
  try {
    if (!audio) audio = new AudioContext();
    audio.resume().then(() => { $("#sound").hidden = true; }).catch(() => {});
  } catch (error) {
    // No sound here: the blinking row and the banner still say it.
  }
}

// The alarm: two high tones now and every 4 seconds while a call is unseen. A browser plays sound
// only after a tap on the page; until then "Turn sound on" shows.
function startAlarm() {
  if (alarmTimer === null) {
    ring();
    alarmTimer = setInterval(ring, 4000);
  }
  $("#sound").hidden = audio !== null && audio.state === "running";
}

function stopAlarm() {
  clearInterval(alarmTimer);
  alarmTimer = null;
}

function ring() {
  try {
    if (!audio) audio = new AudioContext();
    if (audio.state !== "running") audio.resume().catch(() => {});
    [0, 0.35].forEach((offset) => {
      const tone = audio.createOscillator();
      const gain = audio.createGain();
      tone.type = "square";
      tone.frequency.value = 1320;
      gain.gain.value = 0.25;
      tone.connect(gain);
      gain.connect(audio.destination);
      tone.start(audio.currentTime + offset);
      tone.stop(audio.currentTime + offset + 0.2);
    });
  } catch (error) {
    // No sound here: the blinking row and the banner still say it.
  }
  $("#sound").hidden = audio !== null && audio.state === "running";
}

async function clearCall(station) {
  markSeen(station);
  try {
    const response = await fetch("/api/stations/" + encodeURIComponent(station.station) + "/help/clear", {
      method: "POST", credentials: "same-origin", cache: "no-store",
      headers: { "Content-Type": "application/json" }, body: JSON.stringify({ since: station.help.since }),
    });
    if (response.status === 401) return showSignIn("Your sign-in has ended: enter the organisation's token.");
    if (!response.ok) throw new Error();
  } catch (error) {
    $("#message").textContent = "The call could not be cleared; try again.";
  }
  refresh();
}

async function refresh() {
  clearTimeout(timer);
  try {
    const response = await fetch("/api/stations", { credentials: "same-origin", cache: "no-store" });
    if (response.status === 401) return showSignIn("");
    if (!response.ok) throw new Error();
    render(await response.json());
  } catch (error) {
    $("#message").textContent = "Cannot reach the server; trying again.";
  }
  timer = setTimeout(refresh, refreshSeconds * 1000);
}

$("#sign-in").addEventListener("submit", async (event) => {
  event.preventDefault();
  const token = $("#token").value.trim();
  if (!token) return;
  unlockSound();
  $("#token").value = "";
  try {
    const response = await fetch("/fleet/session", {
      method: "POST", credentials: "same-origin", cache: "no-store",
      headers: { "Content-Type": "application/json" }, body: JSON.stringify({ token }),
    });
    if (response.status === 401) return showSignIn("That token was refused: check it and try again.");
    if (!response.ok) throw new Error();
  } catch (error) {
    return showSignIn("Cannot reach the server to sign in; try again.");
  }
  refresh();
});

$("#sign-out").addEventListener("click", async () => {
  try {
    await fetch("/fleet/session", { method: "DELETE", credentials: "same-origin", cache: "no-store" });
  } catch (error) {
    // Signed out here either way: the page forgets the fleet.
  }
  showSignIn("Signed out.");
});

$("#sound").addEventListener("click", unlockSound);

refresh();
