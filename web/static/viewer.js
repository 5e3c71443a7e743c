// Whose unsent entries a page may show, and what becomes of them when
// their writer signs out. Entries kept on the device (outbox.js) are shown
// only to the person signed in who wrote them.

import "./outbox.js";
import { forgetDrafts } from "./draft.js";
import { t } from "./i18n.js";

const outbox = self.recurOutbox;
const base = document.documentElement.dataset.base || ""; // the path Recur is served under

// viewer resolves with the id of the person the page is for, or "" for
// nobody. A page the server drew for someone says so (data-user), and the
// device remembers them; any other page the server drew is nobody's, and
// the device forgets who was signed in. The offline page is drawn for
// nobody (the worker keeps a copy): the server is asked, and when it
// cannot be reached, the device's memory answers.
export async function viewer() {
  const user = document.body.dataset.user || "";
  if (!outbox) return user;
  if (user) {
    await outbox.setUser(user, document.documentElement.lang).catch(() => {});
    return user;
  }
  if (!document.querySelector("[data-offline]")) {
    await outbox.forget().catch(() => {});
    return "";
  }
  let res = null;
  try {
    res = await fetch(`${base}/api/users/me`, { credentials: "same-origin", headers: { Accept: "application/json" } });
  } catch {
    return outbox.deviceUser().catch(() => "");
  }
  if (res.ok) {
    const id = (await res.json()).data.id;
    await outbox.setUser(id).catch(() => {});
    return id;
  }
  await outbox.forget().catch(() => {});
  return "";
}

// askAtSignOut makes the sign-out button ask, when entries of user wait on
// this device, whether to keep them to send at the next sign-in or delete
// them; either way the device then forgets who was signed in, and the
// user's unsaved drafts.
export function askAtSignOut(user) {
  const form = document.querySelector("header form.signout");
  if (!form || !user) return;
  if (!outbox) {
    form.addEventListener("submit", () => forgetDrafts(user));
    return;
  }
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const waiting = await outbox.all(user).catch(() => []);
    if (!waiting.length) {
      forgetDrafts(user);
      await outbox.forget().catch(() => {});
      form.submit();
      return;
    }
    const dialog = unsentDialog(waiting.length);
    document.body.append(dialog);
    dialog.addEventListener("close", async () => {
      const answer = dialog.returnValue;
      dialog.remove();
      if (answer !== "keep" && answer !== "delete") return; // stays signed in
      forgetDrafts(user);
      if (answer === "delete") await outbox.removeAll(user).catch(() => {});
      await outbox.forget().catch(() => {});
      form.submit();
    });
    dialog.showModal();
  });
}

// unsentDialog asks what to do with n entries not sent yet.
function unsentDialog(n) {
  const dialog = document.createElement("dialog");
  dialog.dataset.testid = "unsent";
  dialog.className = "card";
  const form = document.createElement("form");
  form.method = "dialog";
  const p = document.createElement("p");
  p.textContent = t("%d entries written on this device are not in your journal yet. They are shown only to you, once you sign in here again.", n);
  const choices = document.createElement("div");
  choices.className = "actions";
  const button = (value, label, className) => {
    const b = document.createElement("button");
    b.value = value;
    b.textContent = label;
    if (className) b.className = className;
    return b;
  };
  choices.append(
    button("keep", t("Keep them to send later, and sign out", n)),
    button("delete", t("Delete them, and sign out", n), "danger"),
    button("stay", t("Stay signed in"), "quiet"),
  );
  form.append(p, choices);
  dialog.append(form);
  return dialog;
}
