// Recur's pages work without this script; it only adds Ctrl/Cmd+Enter to
// save an entry and live status of entries pushed by the server.

const words = {
  queued: "Waiting to be read",
  processing: "Being read",
  processed: "Read",
  failed: "Could not be read",
};

// Ctrl+Enter or Cmd+Enter in a textarea sends its form.
document.addEventListener("keydown", (e) => {
  if (e.key === "Enter" && (e.ctrlKey || e.metaKey) && e.target instanceof HTMLTextAreaElement && e.target.form) {
    e.preventDefault();
    e.target.form.requestSubmit();
  }
});

// setStatus shows a capture's new status wherever the page lists it. A
// failed entry gets its "try again" form, which only the server draws, so
// the page is reloaded for it.
function setStatus(id, status) {
  let reload = false;
  for (const el of document.querySelectorAll(`[data-capture-id="${CSS.escape(id)}"]`)) {
    if (el.dataset.status === status) continue;
    el.dataset.status = status;
    const w = el.querySelector("[data-status-words]");
    if (w) w.textContent = words[status] || status;
    if (status === "failed") reload = true;
  }
  if (reload) location.reload();
}

// Live updates only where entries are listed and the browser can listen.
if (document.querySelector("[data-capture-id]") && "EventSource" in window) {
  const events = new EventSource("/api/captures/events");
  events.addEventListener("capture", (e) => {
    try {
      const { id, status } = JSON.parse(e.data);
      if (id && status) setStatus(id, status);
    } catch {
      // A message that is not JSON is no status change.
    }
  });
  // Until the server has the event stream, it answers 404 and the browser
  // would retry forever: stop, the page still shows the status as of load.
  events.addEventListener("error", () => {
    if (events.readyState === EventSource.CLOSED) return;
    if (!navigator.onLine) return;
    events.close();
  });
}
