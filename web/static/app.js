// Recur's pages work without this script; it only adds Ctrl/Cmd+Enter to
// save an entry, live status of entries and news of patterns, both pushed
// by the server.

const words = {
  queued: "Waiting to be read",
  processing: "Being read",
  processed: "Read",
  failed: "Could not be read",
};

// Where a status stands in one run, to order two events of the same
// moment: a run goes queued, processing, then processed or failed.
const rank = { queued: 0, processing: 1, processed: 2, failed: 2 };

// Ctrl+Enter or Cmd+Enter in a textarea sends its form.
document.addEventListener("keydown", (e) => {
  if (e.key === "Enter" && (e.ctrlKey || e.metaKey) && e.target instanceof HTMLTextAreaElement && e.target.form) {
    e.preventDefault();
    e.target.form.requestSubmit();
  }
});

// A year drawn wider than a phone shows today's square, not January.
document.querySelector(".scroll .today")?.scrollIntoView({ block: "nearest", inline: "center" });

// newer reports whether an event (status, updatedAt) is later than what
// the element shows. Events can arrive out of order (a worker may claim an
// entry before its queued event is sent), so the one with the latest
// updated_at wins; the times are all UTC with six fractional digits, so
// they compare as strings.
function newer(el, status, updatedAt) {
  const shown = el.dataset.updatedAt || "";
  if (updatedAt !== shown) return updatedAt > shown;
  return (rank[status] ?? 0) > (rank[el.dataset.status] ?? 0);
}

// retryForm is the "try again" form the server draws for a failed entry.
function retryForm(id) {
  const form = document.createElement("form");
  form.method = "post";
  form.action = `/entries/${encodeURIComponent(id)}/retry`;
  form.className = "retry";
  const p = document.createElement("p");
  p.className = "error";
  p.textContent = "This entry could not be read: the model kept answering with something unusable. Your text is kept.";
  const button = document.createElement("button");
  button.type = "submit";
  button.textContent = "Try again";
  form.append(p, button);
  return form;
}

// setStatus shows a capture's new status wherever the page lists it.
function setStatus(id, status, updatedAt) {
  for (const el of document.querySelectorAll(`[data-capture-id="${CSS.escape(id)}"]`)) {
    if (!newer(el, status, updatedAt)) continue;
    const was = el.dataset.status;
    el.dataset.status = status;
    el.dataset.updatedAt = updatedAt;
    if (el.title) el.title = words[status] || status;
    const w = el.querySelector("[data-status-words]");
    if (w) w.textContent = words[status] || status;
    const retry = el.querySelector("form.retry, form[action$='/retry']");
    if (status === "failed" && !retry && w) {
      w.after(retryForm(id));
    } else if (status !== "failed" && retry) {
      retry.remove();
    }
    // One entry's page shows what was found only as drawn by the server:
    // offer it rather than reload under someone editing.
    if ("detail" in el.dataset && was !== status && status === "processed") {
      showNews(el, "This entry has been read.", location.pathname, "Show what was found");
      for (const note of el.querySelectorAll("[data-earlier]")) note.hidden = true;
    }
  }
}

// showNews puts a short notice with a link at the top of the page (or into
// box), replacing the one before.
function showNews(box, text, href, label) {
  const main = box || document.querySelector("main");
  if (!main) return;
  let note = main.querySelector(":scope > [data-news]");
  if (!note) {
    note = document.createElement("p");
    note.className = "news";
    note.dataset.news = "";
    note.setAttribute("role", "status");
    main.prepend(note);
  }
  const a = document.createElement("a");
  a.href = href;
  a.textContent = label;
  note.replaceChildren(text + " ", a);
}

// Live updates only for a signed-in page whose browser can listen.
if (document.querySelector("header form.signout") && "EventSource" in window) {
  const events = new EventSource("/api/captures/events");
  events.addEventListener("capture", (e) => {
    try {
      const { id, status, updated_at: updatedAt } = JSON.parse(e.data);
      if (id && status && updatedAt) setStatus(id, status, updatedAt);
    } catch {
      // A message that is not JSON is no status change.
    }
  });
  events.addEventListener("pattern", (e) => {
    try {
      const { id, name, state } = JSON.parse(e.data);
      if (id && name && state === "open") {
        showNews(null, `A pattern showed up: ${name}.`, `/patterns/${encodeURIComponent(id)}`, "See it");
      }
    } catch {
      // A message that is not JSON is no pattern.
    }
  });
  // The browser reconnects by itself after a dropped connection; when the
  // server refuses the stream (signed out, too many open), it stops.
  // Statuses missed meanwhile show on the next load.
}
