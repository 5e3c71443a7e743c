// The outbox keeps entries written while offline, in IndexedDB, until they
// are sent to POST /api/captures. Both the pages (app.js) and the service
// worker (sw.js, through importScripts) load it, so it is a plain script
// that puts its functions on self.recurOutbox.
(() => {
  const name = "recur-outbox";
  const table = "entries";
  // How long a send may take before another tab or the worker may try
  // the same entry again.
  const claimFor = 30000;

  function open() {
    return new Promise((resolve, reject) => {
      const req = indexedDB.open(name, 1);
      req.onupgradeneeded = () => req.result.createObjectStore(table, { keyPath: "id" });
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
  }

  // run calls f with the table in one transaction and resolves with what
  // f's last request answered, once the transaction is done.
  async function run(mode, f) {
    const db = await open();
    try {
      return await new Promise((resolve, reject) => {
        const tx = db.transaction(table, mode);
        let result;
        const req = f(tx.objectStore(table));
        if (req) req.onsuccess = () => (result = req.result);
        tx.oncomplete = () => resolve(result);
        tx.onerror = tx.onabort = () => reject(tx.error);
      });
    } finally {
      db.close();
    }
  }

  // The record that remembers who last used this browser, so that an
  // entry kept by the worker (which cannot tell) belongs to someone.
  const lastUser = "~user";

  // setUser remembers who is signed in on the page.
  function setUser(user) {
    return run("readwrite", (s) => s.put({ id: lastUser, user }));
  }

  // orLast is user, or the last one seen when not given.
  async function orLast(user) {
    return user || (await run("readonly", (s) => s.get(lastUser)))?.user || "";
  }

  // add keeps an entry of user: its text and the moment it is about.
  async function add(text, occurredAt, user) {
    user = await orLast(user);
    const id = `${Date.now()}-${Math.random().toString(36).slice(2)}`;
    await run("readwrite", (s) => s.put({ id, user, text, occurred_at: occurredAt, sending: 0 }));
    return id;
  }

  // all lists the entries kept for user.
  async function all(user) {
    user = await orLast(user);
    const list = await run("readonly", (s) => s.getAll());
    return list.filter((e) => e.id !== lastUser && e.user === user);
  }

  // signedIn is the id of whoever the browser is signed in as, or "".
  async function signedIn() {
    try {
      const res = await fetch("/api/users/me", { credentials: "same-origin", headers: { Accept: "application/json" } });
      return res.ok ? (await res.json()).data.id : "";
    } catch {
      return "";
    }
  }

  // claim marks an entry as being sent and resolves with it, or with null
  // when it is gone or someone else is sending it.
  async function claim(id) {
    const db = await open();
    try {
      return await new Promise((resolve, reject) => {
        const tx = db.transaction(table, "readwrite");
        const s = tx.objectStore(table);
        let claimed = null;
        s.get(id).onsuccess = (ev) => {
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
  // fault) stays too, with the server's sentence in refused: it is not
  // sent again, and the entries after it are.
  async function sendAll() {
    let sent = 0;
    // Nothing kept, nothing to ask: the question of who is signed in is
    // only put when there is something to send.
    const kept = await run("readonly", (s) => s.getAll());
    if (!kept.some((e) => e.id !== lastUser && !e.refused)) return 0;
    const user = await signedIn();
    if (!user) return 0;
    const entries = (await all(user)).sort((a, b) => (a.id < b.id ? -1 : 1));
    for (const { id, refused } of entries) {
      if (refused) continue;
      const e = await claim(id);
      if (!e) continue;
      let res = null;
      try {
        res = await fetch("/api/captures", {
          method: "POST",
          credentials: "same-origin",
          headers: { "Content-Type": "application/json", Accept: "application/json" },
          body: JSON.stringify({ text: e.text, occurred_at: e.occurred_at }),
        });
      } catch {
        // Still offline.
      }
      if (res?.ok) {
        await run("readwrite", (s) => s.delete(id));
        sent++;
      } else if (res && [400, 413, 422].includes(res.status)) {
        const why = await refusal(res);
        await run("readwrite", (s) => s.put({ ...e, sending: 0, refused: why }));
      } else {
        await run("readwrite", (s) => s.put({ ...e, sending: 0 }));
        break;
      }
    }
    return sent;
  }

  // refusal is the sentence of an answer refusing an entry: the first
  // under errors, else its message.
  async function refusal(res) {
    const body = await res.json().catch(() => ({}));
    const first = Object.values(body.errors || {}).flat()[0];
    return String(first || body.message || `The server refused the entry (${res.status}).`);
  }

  // remove drops a kept entry, once its text is safe elsewhere.
  function remove(id) {
    return run("readwrite", (s) => s.delete(id));
  }

  self.recurOutbox = { add, all, remove, sendAll, setUser };
})();
