// Installs the service worker (sw.js), which keeps entries written offline.
// Without it, or without JavaScript, the pages work as before.
if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {
    // No worker (a private window, an old browser): entries written
    // offline are still kept by the page itself (app.js).
  });
}
