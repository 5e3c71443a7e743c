// Unsaved writing survives leaving the page: what is typed into an entry's
// text box (a form marked data-draft) is kept in this browser's
// localStorage, for the person signed in and that form alone, until the
// form is saved. Signing out forgets the person's drafts (viewer.js).

import { t } from "./i18n.js";

const prefix = "recur-draft:";

// keyOf names the draft of form for user: by the path the form is sent to,
// so a new entry and each entry's edit keep drafts of their own.
function keyOf(user, form) {
  return `${prefix}${user}:${new URL(form.action, location.href).pathname}`;
}

function read(key) {
  try {
    return JSON.parse(localStorage.getItem(key) || "null");
  } catch {
    return null;
  }
}

// Storage may be full or refused (a private window): the draft is then
// not kept, and the page works as without it.
function put(key, draft) {
  try {
    localStorage.setItem(key, JSON.stringify(draft));
  } catch {
    // Not kept.
  }
}

function drop(key) {
  try {
    localStorage.removeItem(key);
  } catch {
    // Nothing kept.
  }
}

// keepDrafts keeps the drafts of user's forms on the page and brings back
// one left unsaved. A form sent and answered without an error is saved: its
// draft goes. A form the server shows again with an error keeps its draft.
export function keepDrafts(user) {
  if (!user) return;
  for (const form of document.querySelectorAll("form[data-draft]")) {
    const field = form.elements.text;
    if (!field) continue;
    const key = keyOf(user, form);
    const draft = read(key);
    const refused = form.querySelector("[aria-invalid=true]");
    if (refused && field.value) {
      put(key, { text: field.value });
    } else if (draft && (draft.sent || draft.text === field.defaultValue)) {
      drop(key);
    } else if (draft && field.value === field.defaultValue) {
      field.value = draft.text;
      restored(form, field, key);
    } else if (field.value !== field.defaultValue) {
      put(key, { text: field.value }); // typed before this script ran
    }
    field.addEventListener("input", () => {
      if (field.value === field.defaultValue) drop(key);
      else put(key, { text: field.value });
    });
    // Sent as a page (the script did not take it over): saved once the
    // next page comes without an error. Taken over by the script, the
    // form is reset when saved or kept in the outbox.
    form.addEventListener("submit", (e) => {
      if (!e.defaultPrevented && navigator.onLine && read(key)) put(key, { text: field.value, sent: true });
    });
    form.addEventListener("reset", () => drop(key));
  }
}

// restored says a draft was brought back, with a button to drop it.
function restored(form, field, key) {
  const note = document.createElement("p");
  note.className = "muted small";
  note.dataset.draftNote = "";
  note.setAttribute("role", "status");
  const discard = document.createElement("button");
  discard.type = "button";
  discard.className = "quiet";
  discard.textContent = t("Discard");
  discard.addEventListener("click", () => {
    field.value = field.defaultValue;
    drop(key);
    note.remove();
    field.focus();
  });
  note.append(`${t("Your unsaved text is back.")} `, discard);
  field.after(note);
}

// forgetDrafts drops every draft of user kept in this browser.
export function forgetDrafts(user) {
  try {
    for (const key of Object.keys(localStorage)) {
      if (key.startsWith(`${prefix}${user}:`)) localStorage.removeItem(key);
    }
  } catch {
    // Nothing kept.
  }
}
