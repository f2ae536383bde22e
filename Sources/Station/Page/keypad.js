// The on-screen keypad: counts, how many were not picked, a support PIN. The page never calls
// prompt(), alert() or confirm().
"use strict";

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

