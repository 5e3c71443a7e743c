// The outbox keeps entries written while offline, in IndexedDB, until they
// are sent to POST /api/captures. Both the pages (app.js) and the service
// worker (sw.js, through importScripts) load it, so it is a plain script
// that puts its functions on self.recurOutbox.
(() => {
  const name = "recur-outbox";
  const table = "kept"; // entries, by [user, id]
  // The user signed in on this device as its pages last saw it: the
  // service worker, which cannot tell, keeps a form for them, and the
  // offline page shows their entries when the server cannot be asked.
  // Signing out forgets it.
  const device = "device";
  // How long a send may take before another tab or the worker may try
  // the same entry again.
  const claimFor = 30000;
  // The path Recur is served under: a page names it (data-base), the
  // worker is served at <base>/sw.js.
  const base = typeof document !== "undefined" ? document.documentElement.dataset.base || "" : self.location.pathname.replace(/\/sw\.js$/, "");

  // Version 2 keys each entry by its writer's user id and the entry's own
  // id, so that entries are only ever read for one person; version 1 kept
  // them by id alone, with the last user seen as a fallback owner.
  function open() {
    return new Promise((resolve, reject) => {
      const req = indexedDB.open(name, 2);
      req.onupgradeneeded = (ev) => upgrade(req.result, req.transaction, ev.oldVersion);
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
  }

  // upgrade makes the tables, moving version 1's entries to their writers.
  function upgrade(db, tx, from) {
    const kept = db.createObjectStore(table, { keyPath: ["user", "id"] });
    db.createObjectStore(device);
    if (from !== 1) return;
    tx.objectStore("entries").getAll().onsuccess = (ev) => {
      const old = ev.target.result;
      const last = old.find((e) => e.id === "~user")?.user || "";
      for (const e of old) {
        if (e.id !== "~user" && (e.user || last)) kept.put({ ...e, user: e.user || last });
      }
      db.deleteObjectStore("entries");
    };
  }

  // run calls f with the store of table in one transaction and resolves
  // with what f's last request answered, once the transaction is done.
  async function run(mode, f, store = table) {
    const db = await open();
    try {
      return await new Promise((resolve, reject) => {
        const tx = db.transaction(store, mode);
        let result;
        const req = f(tx.objectStore(store));
        if (req) req.onsuccess = () => (result = req.result);
        tx.oncomplete = () => resolve(result);
        tx.onerror = tx.onabort = () => reject(tx.error);
      });
    } finally {
      db.close();
    }
  }

  // setUser remembers who is signed in on the page and, when the page
  // names it, the language it speaks: the server's refusals of an entry
  // sent later, by the worker too, are asked for in it.
  async function setUser(user, lang) {
    await run("readwrite", (s) => s.put(user, "user"), device);
    if (lang) await run("readwrite", (s) => s.put(lang, "lang"), device);
  }

  // forget forgets who was signed in: nobody is.
  function forget() {
    return run("readwrite", (s) => s.delete("user"), device);
  }

  // lang is the language of the pages the signed-in person reads.
  async function lang() {
    if (typeof document !== "undefined" && document.body?.dataset.user) return document.documentElement.lang;
    return (await run("readonly", (s) => s.get("lang"), device).catch(() => "")) || "";
  }

  // deviceUser is who the pages last saw signed in, or "".
  async function deviceUser() {
    return (await run("readonly", (s) => s.get("user"), device)) || "";
  }

  // mine is the key range of user's entries.
  const mine = (user) => IDBKeyRange.bound([user], [user, []]);

  // add keeps an entry of user (or of whoever is signed in on the device):
  // its text and the moment it is about. An entry of nobody is not kept.
  async function add(text, occurredAt, user) {
    user = user || (await deviceUser());
    if (!user) throw new Error("Nobody is signed in on this device.");
    const id = `${Date.now()}-${Math.random().toString(36).slice(2)}`;
    await run("readwrite", (s) => s.put({ id, user, text, occurred_at: occurredAt, sending: 0 }));
    return id;
  }

  // all lists the entries kept for user, oldest first; none for nobody.
  async function all(user) {
    if (!user) return [];
    return (await run("readonly", (s) => s.getAll(mine(user)))) || [];
  }

  // removeAll drops every entry kept for user.
  function removeAll(user) {
    return user ? run("readwrite", (s) => s.delete(mine(user))) : Promise.resolve();
  }

  // signedIn is the id of whoever the browser is signed in as, or "".
  async function signedIn() {
    try {
      const res = await fetch(`${base}/api/users/me`, { credentials: "same-origin", headers: { Accept: "application/json" } });
      return res.ok ? (await res.json()).data.id : "";
    } catch {
      return "";
    }
  }

  // claim marks an entry as being sent and resolves with it, or with null
  // when it is gone or someone else is sending it.
  async function claim(user, id) {
    const db = await open();
    try {
      return await new Promise((resolve, reject) => {
        const tx = db.transaction(table, "readwrite");
        const s = tx.objectStore(table);
        let claimed = null;
        s.get([user, id]).onsuccess = (ev) => {
          const e = ev.target.result;
          if (!e || Date.now() - e.sending < claimFor) return;
          e.sending = Date.now();
          s.put(e);
          claimed = e;
        };
        tx.oncomplete = () => resolve(claimed);
        tx.onerror = tx.onabort = () => reject(tx.error);
      });
    } finally {
      db.close();
    }
  }

  // sendAll sends every entry kept for whoever the browser is signed in
  // as, oldest first, and resolves with how many were sent. Another
  // person's entries wait for them, so that nothing written by one lands
  // in another's journal. An entry stays when it cannot be sent (no
  // connection, signed out); it is tried again at the next chance. An
  // entry the server refuses (400, 413 or 422: the entry itself is at
  // fault) stays too, with the server's sentence in refused (or, when it
  // gave none, its status, for the page to say in words): it is not sent
  // again, and the entries after it are.
  async function sendAll() {
    let sent = 0;
    // Nothing kept, nothing to ask: the question of who is signed in is
    // only put when there is something to send.
    const kept = await run("readonly", (s) => s.getAll());
    if (!kept.some((e) => !e.refused)) return 0;
    const user = await signedIn();
    if (!user) return 0;
    const entries = (await all(user)).sort((a, b) => (a.id < b.id ? -1 : 1));
    const headers = { "Content-Type": "application/json", Accept: "application/json" };
    const said = await lang();
    if (said) headers["Accept-Language"] = said;
    for (const { id, refused } of entries) {
      if (refused) continue;
      const e = await claim(user, id);
      if (!e) continue;
      let res = null;
      try {
        res = await fetch(`${base}/api/captures`, {
          method: "POST",
          credentials: "same-origin",
          headers,
          body: JSON.stringify({ text: e.text, occurred_at: e.occurred_at }),
        });
      } catch {
        // Still offline.
      }
      if (res?.ok) {
        await run("readwrite", (s) => s.delete([user, id]));
        sent++;
      } else if (res && [400, 413, 422].includes(res.status)) {
        const why = (await refusal(res)) || res.status;
        await run("readwrite", (s) => s.put({ ...e, sending: 0, refused: why }));
      } else {
        await run("readwrite", (s) => s.put({ ...e, sending: 0 }));
        break;
      }
    }
    return sent;
  }

  // refusal is the sentence of an answer refusing an entry: the first
  // under errors, else its message, else "".
  async function refusal(res) {
    const body = await res.json().catch(() => ({}));
    const first = Object.values(body.errors || {}).flat()[0];
    return String(first || body.message || "");
  }

  // remove drops an entry kept for user, once its text is safe elsewhere.
  function remove(user, id) {
    return run("readwrite", (s) => s.delete([user, id]));
  }

  self.recurOutbox = { add, all, claimFor, deviceUser, forget, remove, removeAll, sendAll, setUser, signedIn };
})();
