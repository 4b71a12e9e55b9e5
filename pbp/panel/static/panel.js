/* pbp panel: live refresh of the encounter page without a reload.
 *
 * Polls the page's JSON endpoint (data-live-url) every data-live-interval ms with the
 * last version it saw; the server answers {changed:false} or fresh fragments, rendered
 * and escaped by the server's templates. A region the narrator is typing in, or that
 * holds an open override form, is left alone until the next tick. Backs off while the
 * tab is hidden or the server fails.
 */
(function () {
  "use strict";
  var root = document.querySelector("[data-live-url]");
  if (!root) { return; }
  var url = root.getAttribute("data-live-url");
  var base = parseInt(root.getAttribute("data-live-interval") || "5000", 10);
  var version = root.getAttribute("data-live-version") || "";
  var status = document.getElementById("live-status");
  var delay = base;
  var pending = {};

  function busy(region) {
    var a = document.activeElement;
    if (a && a !== document.body && region.contains(a) && /INPUT|SELECT|TEXTAREA/.test(a.tagName)) { return true; }
    return region.querySelector("details[open]") !== null;
  }

  function apply() {
    Object.keys(pending).forEach(function (name) {
      var region = document.querySelector('[data-live="' + name + '"]');
      if (!region) { delete pending[name]; return; }
      if (busy(region)) { return; }
      region.innerHTML = pending[name];
      delete pending[name];
    });
  }

  function say(text) { if (status) { status.textContent = text; } }

  function tick() {
    if (document.hidden) { schedule(base * 3); return; }
    var req = new XMLHttpRequest();
    req.open("GET", url + (url.indexOf("?") < 0 ? "?" : "&") + "v=" + encodeURIComponent(version));
    req.setRequestHeader("Accept", "application/json");
    req.onload = function () {
      var data = null;
      if (req.status === 200) {
        try { data = JSON.parse(req.responseText); } catch (e) { data = null; }
      }
      if (data) {
        if (data.changed) {
          version = data.version;
          Object.keys(data.fragments || {}).forEach(function (k) { pending[k] = data.fragments[k]; });
          root.setAttribute("data-live-version", version);
          say(root.getAttribute("data-live-updated") + " " + new Date().toLocaleTimeString());
        }
        apply();
        delay = base;
      } else if (req.status === 200 || req.status === 401 || req.status === 403 || req.status === 404) {
        say(root.getAttribute("data-live-stopped")); return;
      } else {
        delay = Math.min(delay * 2, 60000);
      }
      schedule(delay);
    };
    req.onerror = function () { delay = Math.min(delay * 2, 60000); schedule(delay); };
    req.send();
  }

  function schedule(ms) { window.setTimeout(tick, ms); }
  schedule(base);

  /* Confirmation for forms that say so (post now, re-resolve). */
  document.addEventListener("submit", function (ev) {
    var msg = ev.target.getAttribute && ev.target.getAttribute("data-confirm");
    if (msg && !window.confirm(msg)) { ev.preventDefault(); }
  });
})();
