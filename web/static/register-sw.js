// Installs the service worker (sw.js), which keeps entries written offline.
// Without it, or without JavaScript, the pages work as before.
if ("serviceWorker" in navigator) {
  // Its scope is the path Recur is served under (the page's data-base).
  const base = document.documentElement.dataset.base || "";
  navigator.serviceWorker.register(`${base}/sw.js`, { scope: `${base}/` }).catch(() => {
    // No worker (a private window, an old browser): entries written
    // offline are still kept by the page itself (app.js).
  });
  // The worker keeps the offline page in the language of the pages last
  // seen (the signed-in person's, which the browser's may not be).
  if (!document.querySelector("[data-offline]")) {
    navigator.serviceWorker.ready.then((r) => r.active?.postMessage({ offlineLang: document.documentElement.lang })).catch(() => {});
  }
}
