// Recur's service worker. It keeps what a person writes while offline: a
// write form sent without a connection is kept in the outbox (outbox.js)
// and sent when the connection is back, by the page or by a background
// sync, even after the tab was closed. It caches only what holds nobody's
// data (the offline page, the stylesheet, scripts and icons), so a journal
// is never shown from a cache, to its owner or anyone else.
// Recur may be served under a path (base_url https://home.example/journal):
// the worker is at <base>/sw.js, and every URL it names is under base.
const base = self.location.pathname.replace(/\/sw\.js$/, "");
importScripts(`${base}/static/outbox.js`);

// Every script a page loads is in the shell: one missing would fail to load
// on the offline page, and on any page whose request for it is cut short.
const cacheName = "recur-shell-v8";
const shell = ["/offline", "/static/style.css", "/static/app.js", "/static/outbox.js", "/static/viewer.js", "/static/draft.js", "/static/i18n.js", "/static/register-sw.js", "/static/push.js", "/static/icon.svg"];

self.addEventListener("install", (e) => {
  e.waitUntil(caches.open(cacheName).then((c) => c.addAll(shell.map((p) => base + p))).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (e) => {
  e.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== cacheName).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

// keepForm keeps a write form that could not be sent and answers with the
// offline page, which lists it as waiting to send.
async function keepForm(request) {
  const form = await request.formData();
  const text = String(form.get("text") || "").trim();
  if (text) {
    try {
      // Kept for whoever the pages last saw signed in; with nobody signed
      // in there is no one to keep it for (the offline page then offers no
      // form).
      await self.recurOutbox.add(text, when(form.get("date"), form.get("time")));
      await self.registration.sync?.register("outbox").catch(() => {});
    } catch {
      // Not kept: the offline page says to sign in.
    }
  }
  return Response.redirect(`${base}/offline`, 303);
}

// when is the moment a form's date and time name, read in this device's
// zone, or now.
function when(date, time) {
  if (!date) return new Date().toISOString();
  return new Date(`${date}T${time || "12:00"}`).toISOString();
}

self.addEventListener("fetch", (e) => {
  const r = e.request;
  const url = new URL(r.url);
  if (url.origin !== self.location.origin || url.pathname.startsWith(`${base}/api/`)) return; // the network alone
  if (r.method === "POST" && url.pathname === `${base}/entries` && r.mode === "navigate") {
    // A form sent by a page's script is the script's to keep.
    e.respondWith(fetch(r.clone()).catch(() => keepForm(r)));
  } else if (r.method === "GET" && r.mode === "navigate") {
    // Pages always from the network; the offline page only when there is none.
    e.respondWith(fetch(r).catch(() => caches.match(`${base}/offline`)));
  } else if (r.method === "GET" && url.pathname.startsWith(`${base}/static/`)) {
    // Pages name the files under their version (/static/<version>/app.js);
    // the shell keeps each under its name alone.
    const name = url.pathname.slice(url.pathname.lastIndexOf("/") + 1);
    e.respondWith(fetch(r).catch(() => caches.match(`${base}/static/${name}`)));
  }
});

// tell tells the open pages that the worker has tried the outbox: a page
// that found its entries claimed by the worker lists them anew, and sends
// itself what the worker could not.
async function tell() {
  const pages = await self.clients.matchAll({ type: "window" });
  for (const p of pages) p.postMessage("outbox");
}

self.addEventListener("sync", (e) => {
  if (e.tag === "outbox") e.waitUntil(self.recurOutbox.sendAll().finally(tell));
});

// A page says its language: the offline page is kept in it, fetched again
// when it changes, so that it speaks as the pages do.
let offlineLang = "";
self.addEventListener("message", (e) => {
  const lang = e.data?.offlineLang;
  if (typeof lang !== "string" || !lang || lang === offlineLang) return;
  e.waitUntil((async () => {
    const res = await fetch(`${base}/offline`, { headers: { "Accept-Language": lang } });
    if (!res.ok) return;
    await (await caches.open(cacheName)).put(`${base}/offline`, res);
    offlineLang = lang;
  })().catch(() => {}));
});

// A push message (Web Push, from the server's notifier) is shown as a
// notification: {title, body, type, url}, url a path of the web app.
self.addEventListener("push", (e) => {
  let m = {};
  try {
    m = e.data ? e.data.json() : {};
  } catch {
    m = { body: e.data?.text() };
  }
  e.waitUntil(self.registration.showNotification(m.title || "Recur", {
    body: m.body || "",
    tag: m.type || "recur",
    icon: `${base}/static/icon-192.png`,
    data: { url: m.url || "/" },
  }));
});

// A click on a notification opens its page: in a Recur window already
// open, or in a new one. Only a path of the web app is opened.
self.addEventListener("notificationclick", (e) => {
  e.notification.close();
  const path = String(e.notification.data?.url || "/");
  const target = new URL(base + (path.startsWith("/") && !path.startsWith("//") ? path : "/"), self.location.origin).href;
  e.waitUntil((async () => {
    const wins = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
    const win = wins.find((w) => new URL(w.url).origin === self.location.origin);
    if (win) {
      await win.focus();
      return win.navigate(target);
    }
    return self.clients.openWindow(target);
  })());
});
