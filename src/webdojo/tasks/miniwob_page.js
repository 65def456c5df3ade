// webdojo's page script for MiniWoB++ task pages, added at the end of every page it serves.
// It does what the package's own Python environment does through Selenium, inside the page:
// seed Math.random from ?seed=, start the episode without the START cover (before the load
// event, so that the load waits for the episode's images), and record how the episode ended
// in localStorage (read by the verifier from the final state) and in the global the
// observation reads (the episode ends when the page says it is done). The page's instruction
// becomes its title, which every observation shows.
(function () {
  var KEY = "__STORAGE_KEY__";
  var TIME_LIMIT_MS = __TIME_LIMIT_MS__;
  var seed = new URLSearchParams(location.search).get("seed") || "0";
  var recorded = false;
  window.__DONE_GLOBAL__ = false;
  try { localStorage.removeItem(KEY); } catch (e) { /* no storage: nothing to clear */ }

  function record() {
    var raw = Number(WOB_RAW_REWARD_GLOBAL);
    var result = {
      reward: Number(WOB_REWARD_GLOBAL), raw_reward: raw, done: WOB_DONE_GLOBAL === true,
      reason: WOB_REWARD_REASON == null ? null : String(WOB_REWARD_REASON),
      success: raw > 0, seed: seed,
    };
    try { localStorage.setItem(KEY, JSON.stringify(result)); } catch (e) { /* opaque origin */ }
    window.__DONE_GLOBAL__ = true;
  }

  function start() {
    if (typeof core === "undefined" || typeof genProblem !== "function") return;
    var end = core.endEpisode;
    core.endEpisode = function () {
      var live = core.EP_TIMER !== null; // core ignores every end but the first
      var out = end.apply(this, arguments);
      if (live && !recorded) { recorded = true; record(); }
      return out;
    };
    // the page's own limit (7-30 s) would end slow agents by wall time: lift it far away
    core.EPISODE_MAX_TIME = TIME_LIMIT_MS;
    core.startEpisode(); // builds the cover and display if the page's onload has not
    Math.seedrandom(seed);
    core.startEpisodeReal();
    // its countdown of the lifted limit would tick every second: page text that changes with
    // the wall clock alone, so two runs of one episode would observe different pages
    if (typeof core.clearTimer === "function") {
      core.clearTimer();
      var shown = document.getElementById("timer-countdown");
      if (shown) shown.textContent = "no limit";
    }
    // the instruction, drawn from the seed, becomes the title: every observation carries it
    try { document.title = core.getUtterance(); } catch (e) { /* a page without #query */ }
  }

  // The episode starts at DOMContentLoaded, not at load: the page's own onload (set in its
  // <head>) runs first, here, once. The images of what genProblem draws (email-inbox's icons,
  // jQuery UI's close button...) are then requested before the load event, which waits for
  // them, and so does reset: its first observation no longer shows whichever had arrived.
  function begin() {
    var onload = window.onload;
    window.onload = null;
    if (typeof onload === "function") {
      try { onload.call(window, new Event("load")); } catch (e) { reportError(e); }
    }
    start();
    void document.body.offsetHeight; // style now, so CSS url() images are requested now
  }
  document.addEventListener("DOMContentLoaded", begin);
})();
