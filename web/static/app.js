// Recur's pages work without this script; it only adds Ctrl/Cmd+Enter to
// save an entry, live status of entries and news of patterns, both pushed
// by the server.

import "./outbox.js";
import { askAtSignOut, viewer } from "./viewer.js";
import { keepDrafts } from "./draft.js";
import { t } from "./i18n.js";

// The path Recur is served under ("" at the root), which every URL here starts with.
const base = document.documentElement.dataset.base || "";

const words = {
  queued: t("Waiting to be read"),
  processing: t("Being read"),
  processed: t("Read"),
  failed: t("Could not be read"),
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
  form.action = `${base}/entries/${encodeURIComponent(id)}/retry`;
  form.className = "retry";
  const p = document.createElement("p");
  p.className = "error";
  p.textContent = t("This entry could not be read: the model kept answering with something unusable. Your text is kept.");
  const button = document.createElement("button");
  button.type = "submit";
  button.textContent = t("Try again");
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
    // A listed entry's placeholder becomes a link to what was found.
    const reading = el.querySelector(".findings.reading");
    if (reading && (status === "processed" || status === "failed")) {
      if (status === "failed") {
        reading.remove();
      } else {
        const a = document.createElement("a");
        a.href = `${base}/entries/${encodeURIComponent(id)}`;
        a.textContent = t("Read: show what was found");
        reading.replaceChildren(a);
        reading.classList.remove("reading");
      }
    }
    // One entry's page shows what was found only as drawn by the server:
    // offer it rather than reload under someone editing.
    if ("detail" in el.dataset && was !== status && status === "processed") {
      showNews(el, t("This entry has been read."), location.pathname, t("Show what was found"));
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

// The latest status each entry's events told, for an entry put on the page
// after its events came (one written without a reload); the oldest are
// forgotten past a hundred.
const seen = new Map();

function remember(id, status, updatedAt) {
  const was = seen.get(id);
  if (was && (was.updatedAt > updatedAt || (was.updatedAt === updatedAt && (rank[was.status] ?? 0) >= (rank[status] ?? 0)))) return;
  seen.delete(id);
  seen.set(id, { status, updatedAt });
  if (seen.size > 100) seen.delete(seen.keys().next().value);
}

// Live updates only for a signed-in page whose browser can listen.
if (document.querySelector("header form.signout") && "EventSource" in window) {
  const events = new EventSource(`${base}/api/captures/events`);
  // The page says whether its stream is open (data-live on the root): the
  // server sends a stream only what happens once it is open.
  events.addEventListener("open", () => (document.documentElement.dataset.live = ""));
  events.addEventListener("error", () => delete document.documentElement.dataset.live);
  const english = (document.documentElement.lang || "en").split("-")[0] === "en";
  events.addEventListener("capture", (e) => {
    try {
      const { id, status, updated_at: updatedAt } = JSON.parse(e.data);
      if (id && status && updatedAt) {
        remember(id, status, updatedAt);
        setStatus(id, status, updatedAt);
      }
    } catch {
      // A message that is not JSON is no status change.
    }
  });
  events.addEventListener("pattern", (e) => {
    try {
      const { id, name, state } = JSON.parse(e.data);
      // The stream names a pattern in English, as analysed; a page in
      // another language says the news without it (the link shows the
      // pattern by its name in the page's language).
      if (id && name && state === "open") {
        const news = english ? t("A pattern showed up: %s.", name) : t("A pattern showed up.");
        showNews(null, news, `${base}/patterns/${encodeURIComponent(id)}`, t("See it"));
      }
    } catch {
      // A message that is not JSON is no pattern.
    }
  });
  // The browser reconnects by itself after a dropped connection; when the
  // server refuses the stream (signed out, too many open), it stops.
  // Statuses missed meanwhile show on the next load.
  // Signing out ends the stream first: a request for it still on its way
  // would otherwise reach the server after the session ended, and be
  // refused with a 401 the console shows.
  document.querySelector("header form.signout").addEventListener("submit", () => events.close());
}

// A copy button next to a field shown once (an app's token) copies it;
// without JavaScript the field is there to select by hand.
for (const button of document.querySelectorAll("button[data-copy]")) {
  const field = document.querySelector(button.dataset.copy);
  if (!field || !navigator.clipboard) continue;
  button.hidden = false;
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(field.value);
      button.textContent = t("Copied");
    } catch {
      field.select();
      button.textContent = t("Press Ctrl+C to copy");
    }
  });
}

// An import's progress bar follows its job batch while the page is open;
// without JavaScript a refresh link shows the count instead.
const batch = document.querySelector("[data-batch]");
if (batch && batch.dataset.progress !== "100") {
  const bar = batch.querySelector("[data-batch-bar]");
  const said = batch.querySelector("[data-batch-words]");
  batch.querySelector("[data-batch-refresh]")?.remove();
  const follow = async () => {
    let b;
    try {
      const res = await fetch(`${base}/api/job-batches/${encodeURIComponent(batch.dataset.batch)}`, { headers: { Accept: "application/json" } });
      if (!res.ok) return; // signed out or gone: the page keeps what it showed
      ({ data: b } = await res.json());
    } catch {
      setTimeout(follow, 5000); // offline for a moment: try again later
      return;
    }
    bar.value = b.progress;
    bar.textContent = `${b.progress} %`;
    batch.dataset.progress = String(b.progress);
    const done = b.finished_at || b.cancelled_at;
    said.textContent = done
      ? t("Done: %[2]d of %[1]d entries read.", b.total_jobs, b.processed_jobs) + (b.failed_jobs ? ` ${t("%d could not be read.", b.failed_jobs)}` : "")
      : `${b.progress} %: ${t("%[2]d of %[1]d entries read, %[3]d waiting.", b.total_jobs, b.processed_jobs, b.pending_jobs)}`;
    if (!done) setTimeout(follow, 1000);
  };
  follow();
}

// Entries written offline wait in the outbox (outbox.js) and are listed at
// the top of the journal as waiting to send, until the connection is back.
const write = document.querySelector("form[data-testid=write]");
const outbox = self.recurOutbox;
// Whose entries the page may show; settled before any are shown.
const known = viewer().catch(() => "");

// showWaiting lists the entries in the outbox under the write form, and
// then marks the form as checked (data-outbox-checked).
async function showWaiting() {
  if (!write || !outbox) return;
  try {
    await listWaiting();
  } finally {
    write.dataset.outboxChecked = "";
  }
}

// armed holds the refused entries whose remove button was pressed once:
// the list is drawn again whenever the outbox is tried, and a second press
// must still find the button asking for good.
const armed = new Set();

async function listWaiting() {
  const user = await known;
  if (!user && document.querySelector("[data-offline]")) {
    // Nobody to keep an entry for: no form, and a word on signing in.
    write.hidden = true;
    document.querySelector("[data-offline-signin]")?.removeAttribute("hidden");
  }
  const entries = await outbox.all(user).catch(() => []);
  let list = document.querySelector("[data-outbox]");
  if (!entries.length) {
    list?.remove();
    return;
  }
  if (!list) {
    list = document.createElement("section");
    list.dataset.outbox = "";
    list.setAttribute("aria-label", t("Waiting to send"));
    write.after(list);
  }
  list.replaceChildren(...entries.map((e) => {
    const li = document.createElement("article");
    li.className = "card entry";
    li.dataset.outboxId = e.id;
    li.dataset.status = e.refused ? "refused" : "waiting";
    const meta = document.createElement("p");
    meta.className = "meta status";
    // refused is the server's sentence, or its status when it gave none.
    const why = typeof e.refused === "number" ? t("The server refused the entry (%d).", e.refused) : e.refused;
    meta.textContent = e.refused
      ? t("Not saved: %s It is kept on this device only: copy the text, write the entry again, then remove it here.", why)
      : t("Waiting to send: kept on this device until the connection is back");
    const text = document.createElement("p");
    text.className = "text";
    text.textContent = e.text;
    li.append(meta, text);
    if (e.refused) {
      // Removing asks twice: the text is nowhere else.
      const remove = document.createElement("button");
      remove.type = "button";
      const arm = () => {
        remove.className = "danger";
        remove.textContent = t("Remove for good: the text is not saved anywhere else");
      };
      remove.className = "quiet";
      remove.textContent = t("Remove from this device");
      if (armed.has(e.id)) arm();
      remove.addEventListener("click", async () => {
        if (!armed.has(e.id)) {
          armed.add(e.id);
          arm();
          return;
        }
        armed.delete(e.id);
        await outbox.remove(e.user, e.id);
        await listWaiting();
      });
      li.append(remove);
    }
    return li;
  }));
}

// retry is the timer that tries the outbox again while entries wait to be
// sent and the page stays open: one that another tab or the worker held
// (its send may have been cut short, as when the browser stops the worker)
// is sent once the hold runs out, and one the server could not take then
// is tried again, 2 seconds later, then 4, 8 and so on up to as long as a
// hold lasts (backoff), for as long as none gets through.
let retry = 0;
let backoff = 0;

// sendWaiting sends the outbox and says so when something arrived.
async function sendWaiting() {
  if (!outbox || !navigator.onLine) return;
  const sent = await outbox.sendAll().catch(() => 0);
  await showWaiting();
  if (sent) {
    showNews(null, t("%d entries written offline were sent.", sent), `${base}/`, t("Show the journal"));
  }
  clearTimeout(retry);
  const left = (await outbox.all(await known).catch(() => [])).filter((e) => !e.refused);
  if (!left.length) {
    backoff = 0;
    return;
  }
  // A held entry is tried a second after its hold runs out; the others
  // after the backoff.
  backoff = sent ? 0 : Math.min(backoff ? backoff * 2 : 2000, outbox.claimFor);
  const now = Date.now();
  const next = Math.min(...left.map((e) => (e.sending ? e.sending + outbox.claimFor - now + 1000 : backoff || 2000)));
  retry = setTimeout(sendWaiting, Math.max(next, 0));
}

// keep puts the write form's entry in the outbox, to be sent once the
// connection is back.
async function keep() {
  const text = write.elements.text.value.trim();
  if (!text) return;
  const date = write.elements.date?.value;
  const time = write.elements.time?.value;
  const at = date ? new Date(`${date}T${time || "12:00"}`) : new Date();
  await outbox.add(text, at.toISOString(), await known);
  write.reset();
  await showWaiting();
  navigator.serviceWorker?.ready.then((r) => r.sync?.register("outbox")).catch(() => {});
}

// onJournal says the page is the journal's first page, not a search's
// results nor a filtered list: there a new entry goes at the top without a
// reload.
function onJournal() {
  const q = new URLSearchParams(location.search);
  const narrowed = ["q", "feeling", "pattern", "person", "place", "from", "to"].some((k) => q.get(k));
  return location.pathname === `${base}/` && !narrowed && (q.get("page") || "1") === "1";
}

// sendLive sends the write form and puts the new entry at the top of the
// journal, or says what is wrong with the form. It answers "offline" when
// the server could not be reached, and "as-usual" for any other answer
// (signed out, say), which the form, sent as usual, then shows.
async function sendLive() {
  let res, body;
  try {
    res = await fetch(write.action, {
      method: "POST",
      credentials: "same-origin",
      headers: { Accept: "application/json" },
      body: new URLSearchParams(new FormData(write)),
    });
    body = res.headers.get("Content-Type")?.startsWith("application/json") ? await res.json() : null;
  } catch {
    if (!res) return "offline";
  }
  if (res.status === 201 && body?.data?.html) {
    showWritten(body.data);
    write.reset();
    showWriteError(null);
    return "done";
  }
  if (res.status === 422 && body?.errors) {
    showWriteError(body.errors);
    return "done";
  }
  return "as-usual";
}

// showWritten puts an entry the server drew at the top of its day, or of
// the journal under a new heading, with the latest status its events told.
function showWritten({ id, date, heading, html }) {
  document.querySelector("main > section.empty")?.remove();
  let day = document.getElementById(`day-${date}`)?.closest("section.day");
  if (!day) {
    day = document.createElement("section");
    day.className = "day";
    day.setAttribute("aria-labelledby", `day-${date}`);
    const h = document.createElement("h2");
    h.id = `day-${date}`;
    h.textContent = heading;
    const ol = document.createElement("ol");
    ol.className = "entries";
    day.append(h, ol);
    const first = document.querySelector("main > section.day, main > nav.pager");
    if (first) first.before(day);
    else document.querySelector("main").append(day);
  }
  const item = document.createElement("template");
  item.innerHTML = html; // drawn by the server's template, which escaped the text
  day.querySelector("ol.entries").prepend(item.content);
  const s = seen.get(id);
  if (s) setStatus(id, s.status, s.updatedAt);
}

// showWriteError shows the form's sentences by their fields (text or
// date), or clears them when errors is null.
function showWriteError(errors) {
  let p = write.querySelector("#write-error");
  for (const f of write.querySelectorAll("[aria-invalid]")) {
    f.removeAttribute("aria-invalid");
    f.removeAttribute("aria-describedby");
  }
  if (!errors) {
    p?.remove();
    return;
  }
  const [field, sentences] = Object.entries(errors)[0];
  if (!p) {
    p = document.createElement("p");
    p.id = "write-error";
    p.className = "error";
    p.setAttribute("role", "alert");
    write.querySelector(".actions").before(p);
  }
  p.textContent = sentences[0];
  const input = write.elements[field];
  if (input) {
    input.setAttribute("aria-invalid", "true");
    input.setAttribute("aria-describedby", "write-error");
    input.closest("details")?.setAttribute("open", "");
    input.focus();
  }
}

if (write) {
  let sending = false;
  write.addEventListener("submit", async (e) => {
    const live = onJournal() && navigator.onLine;
    if (!live && (navigator.onLine || !outbox)) return; // the form goes as usual
    e.preventDefault();
    if (sending) return;
    sending = true;
    try {
      const how = live ? await sendLive() : "offline";
      if (how === "offline" && outbox) await keep();
      else if (how !== "done") write.submit();
    } finally {
      sending = false;
    }
  });
}

known.then(askAtSignOut);
// Drafts are kept from the first key pressed: a page the server drew for
// someone names them.
keepDrafts(document.body.dataset.user || "");

// On a phone the main nav scrolls sideways when its words are long: the
// current page's link is brought into its view.
const current = document.querySelector(".top nav a[aria-current=page]");
const nav = current?.parentElement;
if (nav && nav.scrollWidth > nav.clientWidth) {
  nav.scrollLeft = current.offsetLeft - nav.offsetLeft - (nav.clientWidth - current.offsetWidth) / 2;
}

if (write && outbox) {
  window.addEventListener("online", sendWaiting);
  // The worker's background sync may hold an entry while the page tries:
  // when it is done, the page looks again.
  navigator.serviceWorker?.addEventListener("message", (e) => {
    if (e.data === "outbox") sendWaiting();
  });
  navigator.serviceWorker?.startMessages();
  showWaiting().then(sendWaiting);
}
