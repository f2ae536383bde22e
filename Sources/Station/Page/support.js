// The pill (in words, what needs a person first) and Diagnostics: support signed in by badge or
// PIN, the queue's actions and the station's log. Ids, statuses and error codes are shown here only.
"use strict";

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

