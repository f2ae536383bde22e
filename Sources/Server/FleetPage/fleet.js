// The fleet page: asks for the organisation's token once (session storage: this tab only), reads
// GET /api/stations with it, and refreshes itself. Everything from the server is written with
// textContent, never as HTML.
"use strict";

const TOKEN_KEY = "scanpick.fleetToken";
const SEVERITY = ["stale", "dead_letters", "backlog", "attention", "ok"];
const refreshSeconds = (() => {
  const asked = Number(new URLSearchParams(location.search).get("refresh"));
  return Number.isInteger(asked) && asked >= 1 && asked <= 60 ? asked : 5;
})();
let timer = null;

const $ = (selector) => document.querySelector(selector);

function cell(text, className) {
  const td = document.createElement("td");
  td.textContent = text === null || text === undefined ? "" : String(text);
  if (className) td.className = className;
  return td;
}

function ago(iso, serverNow) {
  if (!iso) return "";
  const seconds = Math.round((serverNow - Date.parse(iso)) / 1000);
  if (!Number.isFinite(seconds)) return iso;
  if (seconds < 60) return Math.max(0, seconds) + " s ago";
  if (seconds < 3600) return Math.floor(seconds / 60) + " min ago";
  if (seconds < 86400) return Math.floor(seconds / 3600) + " h ago";
  return Math.floor(seconds / 86400) + " d ago";
}

function showForm(message) {
  clearTimeout(timer);
  sessionStorage.removeItem(TOKEN_KEY);
  $("#token-form").hidden = false;
  $("#fleet").hidden = true;
  $("#forget").hidden = true;
  $("#summary").textContent = "";
  $("#updated").textContent = "";
  $("#message").textContent = message || "";
  $("#token").focus();
}

function render(answer) {
  const serverNow = Date.parse(answer.serverTime);
  const stations = answer.stations.slice().sort((a, b) =>
    SEVERITY.indexOf(a.status) - SEVERITY.indexOf(b.status) || (a.station < b.station ? -1 : 1));
  const rows = stations.map((station) => {
    const tr = document.createElement("tr");
    tr.dataset.station = station.station;
    tr.dataset.status = station.status;
    tr.appendChild(cell(station.station, "name"));
    const status = cell("", "status-cell");
    const badge = document.createElement("span");
    badge.className = "status status-" + (SEVERITY.includes(station.status) ? station.status : "ok");
    badge.textContent = station.status;
    badge.title = station.problems.join(", ");
    status.appendChild(badge);
    tr.appendChild(status);
    tr.appendChild(cell(ago(station.lastSeenAt, serverNow), "seen"));
    tr.appendChild(cell(station.pending, "number pending"));
    tr.appendChild(cell(station.inFlight, "number"));
    tr.appendChild(cell(station.dead, "number dead"));
    // On the server's clock; a time the browser cannot read is shown as sent, never a thrown error
    // that would leave the whole table unrendered.
    const queuedAt = Date.parse(station.oldestPendingAt) - 1000 * (station.clockOffsetSeconds || 0);
    const oldest = !station.oldestPendingAt || station.pending + station.inFlight === 0 ? ""
      : Number.isFinite(queuedAt) ? ago(new Date(queuedAt).toISOString(), serverNow) : station.oldestPendingAt;
    tr.appendChild(cell(oldest.replace(" ago", ""), "oldest"));
    tr.appendChild(cell(station.camera, "camera"));
    tr.appendChild(cell(station.scanners, "number"));
    tr.appendChild(cell(station.batchId, "batch"));
    tr.appendChild(cell(station.workerId, "worker"));
    tr.appendChild(cell(station.version, "version"));
    const notes = station.attention.map((item) => item.message);
    if (Math.abs(station.clockOffsetSeconds || 0) > 300) {
      notes.push("clock " + Math.round(station.clockOffsetSeconds) + " s off the server's");
    }
    tr.appendChild(cell(notes.join(" · "), "attention"));
    return tr;
  });
  $("#fleet tbody").replaceChildren(...rows);
  const counts = {};
  for (const station of stations) counts[station.status] = (counts[station.status] || 0) + 1;
  $("#summary").textContent = stations.length === 0
    ? "no station has reported yet"
    : stations.length + (stations.length === 1 ? " station: " : " stations: ") +
      SEVERITY.filter((s) => counts[s]).map((s) => counts[s] + " " + s).join(", ");
  $("#updated").textContent = "updated " + new Date(serverNow).toLocaleTimeString();
  $("#fleet").hidden = false;
  $("#token-form").hidden = true;
  $("#forget").hidden = false;
  $("#message").textContent = "";
}

async function refresh() {
  clearTimeout(timer);
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (!token) return showForm("");
  try {
    const response = await fetch("/api/stations", {
      headers: { "Authorization": "Bearer " + token }, cache: "no-store", credentials: "omit",
    });
    if (response.status === 401) return showForm("The server refused that token: enter the organisation's token.");
    if (!response.ok) throw new Error("the server answered " + response.status);
    render(await response.json());
  } catch (error) {
    $("#message").textContent = "Cannot read the stations (" + error.message + "); trying again.";
  }
  timer = setTimeout(refresh, refreshSeconds * 1000);
}

$("#token-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const token = $("#token").value.trim();
  if (!token) return;
  sessionStorage.setItem(TOKEN_KEY, token);
  $("#token").value = "";
  refresh();
});

$("#forget").addEventListener("click", () => showForm("Token forgotten."));

refresh();
