// Turns on Web Push for this device from Settings › Notifications: asks
// for permission, subscribes through the service worker with the server's
// VAPID key, and registers the subscription at /api/push-subscriptions.
import { t } from "./i18n.js";

const section = document.querySelector("[data-testid=push]");
const button = section?.querySelector("[data-testid=push-on]");
const status = section?.querySelector("[data-testid=push-status]");
const base = document.documentElement.dataset.base || "";

// keyBytes turns the base64url VAPID key into the bytes subscribe wants.
function keyBytes(b64url) {
  const b64 = b64url.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (b64url.length % 4)) % 4);
  return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
}

async function turnOn() {
  button.disabled = true;
  try {
    if ((await Notification.requestPermission()) !== "granted") {
      status.textContent = t("Notifications are blocked for Recur in this browser; allow them in its site settings and try again.");
      return;
    }
    const reg = await navigator.serviceWorker.ready;
    const sub = (await reg.pushManager.getSubscription()) ||
      (await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(section.dataset.vapidKey) }));
    const res = await fetch(`${base}/api/push-subscriptions`, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(sub.toJSON()),
    });
    if (!res.ok) {
      const body = await res.json().catch(() => ({}));
      const errors = Object.values(body.errors || {}).flat();
      status.textContent = errors[0] || body.message || t("The server answered %d.", res.status);
      return;
    }
    location.assign(`${base}/settings/notifications?done=push`);
  } catch (err) {
    status.textContent = t("This browser could not subscribe: %s", err.message);
  } finally {
    button.disabled = false;
  }
}

if (button && "serviceWorker" in navigator && "PushManager" in window && "Notification" in window) {
  button.hidden = false;
  status.textContent = Notification.permission === "denied"
    ? t("Notifications are blocked for Recur in this browser; allow them in its site settings first.")
    : "";
  button.addEventListener("click", turnOn);
}
