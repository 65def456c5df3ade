// A do-nothing service worker: the site only tries to register it. Recording and replay
// contexts block service workers, and the page must render either way.
self.addEventListener("install", () => self.skipWaiting());
