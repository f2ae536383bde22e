// "Call lead": one button in the header. A tap calls the shift lead (the fleet page shows "Needs
// help" until the lead clears it); while the call is on, the button says "Lead called" and offers
// Cancel. The state comes from the station (GET /api/help), so a reload or another tab shows it too,
// and a call the lead cleared ends here within a few seconds.
"use strict";
(() => {
  const box = document.createElement("span");
  box.id = "help";
  const call = document.createElement("button");
  call.type = "button";
  call.id = "call-lead";
  call.textContent = "Call lead";
  const called = document.createElement("span");
  called.id = "lead-called";
  called.setAttribute("role", "status");
  called.textContent = "Lead called";
  const cancel = document.createElement("button");
  cancel.type = "button";
  cancel.id = "cancel-call";
  cancel.textContent = "Cancel";
  box.append(call, called, cancel);
  (document.querySelector("#help-slot") || document.querySelector("header") || document.body).appendChild(box);

  function show(state) {
    const on = Boolean(state && state.help);
    call.hidden = on;
    called.hidden = !on;
    cancel.hidden = !on;
  }

  async function send(method, path) {
    try {
      const response = await fetch(path, {
        method, cache: "no-store", credentials: "same-origin",
        headers: method === "POST" ? { "Content-Type": "application/json" } : {},
        body: method === "POST" ? "{}" : undefined,
      });
      if (response.ok) show(await response.json());
    } catch (error) {
      // Offline from its own station is rare; the next poll shows the truth.
    }
  }

  call.addEventListener("click", () => send("POST", "/api/help"));
  cancel.addEventListener("click", () => send("POST", "/api/help/cancel"));
  show(null);
  send("GET", "/api/help");
  setInterval(() => send("GET", "/api/help"), 3000);
})();
