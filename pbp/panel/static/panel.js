/* pbp panel: the encounter page's live refresh and its parts loaded on demand (SCALE-5).
 *
 * Live refresh: polls the page's JSON endpoint (data-live-url) every data-live-interval ms
 * with the version it holds (?v=) and, in the X-Live-Have header, each fragment's hash
 * (from #live-hashes, then from each answer). The server answers 204 No Content when nothing
 * changed (one query, no cookie) or only the fragments whose hash differs, rendered and escaped by its own
 * templates, and the order of the round's posts (one fragment each, "post-<id>"). A region
 * the narrator is typing in, or that holds an open form, is left alone until the next tick.
 * Backs off while the tab is hidden or the server fails.
 *
 * On demand: a <details data-fetch> (an override form, an earlier round) fetches its body
 * when first opened, from its data-fetch URL or else the plain link it holds; an <a data-expand> (the rest of a long post) replaces the post's
 * text in place. Without script the same URLs are plain links to pages.
 */
(function () {
  "use strict";

  function fetchFragment(url, done, fail) {
    var req = new XMLHttpRequest();
    req.open("GET", url);
    req.setRequestHeader("X-Fragment", "1");
    req.onload = function () { if (req.status === 200) { done(req.responseText); } else if (fail) { fail(); } };
    req.onerror = function () { if (fail) { fail(); } };
    req.send();
  }

  /* <details data-fetch>: its body fetched once, when opened (toggle does not bubble: capture). */
  document.addEventListener("toggle", function (ev) {
    var d = ev.target;
    if (!d || d.tagName !== "DETAILS" || !d.open || !d.hasAttribute("data-fetch") || d.getAttribute("data-loaded")) { return; }
    d.setAttribute("data-loaded", "loading");
    var slot = d.querySelector(".slot") || d;
    var link = slot.querySelector("a[href]");
    var target = d.getAttribute("data-fetch") || (link && link.getAttribute("href"));
    if (!target) { return; }
    fetchFragment(target, function (html) {
      /* focus stays where the narrator put it: on the summary; if they had tabbed on to
         the stand-in link, it moves to the form's first field */
      var had = slot.contains(document.activeElement);
      slot.innerHTML = html;
      d.setAttribute("data-loaded", "yes");
      var first = slot.querySelector("input:not([type=hidden]), select, textarea");
      if (had && first) { first.focus(); }
    }, function () { d.removeAttribute("data-loaded"); });
  }, true);

  /* <a data-expand>: the whole text of a long post, in place of its start. */
  document.addEventListener("click", function (ev) {
    var a = ev.target && ev.target.closest ? ev.target.closest("a[data-expand]") : null;
    if (!a) { return; }
    ev.preventDefault();
    var body = a.closest(".body");
    fetchFragment(a.getAttribute("href"), function (html) { if (body) { body.innerHTML = html; } });
  });

  /* Confirmation for forms that say so (post now, re-resolve). */
  document.addEventListener("submit", function (ev) {
    var msg = ev.target.getAttribute && ev.target.getAttribute("data-confirm");
    if (msg && !window.confirm(msg)) { ev.preventDefault(); }
  });

  var root = document.querySelector("[data-live-url]");
  if (!root) { return; }
  var url = root.getAttribute("data-live-url");
  var base = parseInt(root.getAttribute("data-live-interval") || "5000", 10);
  var version = root.getAttribute("data-live-version") || "";
  var status = document.getElementById("live-status");
  var list = document.getElementById(root.getAttribute("data-live-order") || "posts-list");
  var held = document.getElementById("live-hashes");
  var state = held ? JSON.parse(held.textContent) : {hashes: {}, order: []};
  var hashes = state.hashes || {};
  var delay = base;
  var pending = {};
  var order = null;

  function busy(region) {
    var a = document.activeElement;
    if (a && a !== document.body && region.contains(a) && /INPUT|SELECT|TEXTAREA/.test(a.tagName)) { return true; }
    return region.querySelector("details[open]") !== null;
  }

  function region(name) { return document.querySelector('[data-live="' + name + '"]'); }

  function place(name, html) {
    /* a post's fragment is its whole <article>; any other fills its region */
    var el = region(name);
    if (name.indexOf("post-") === 0) {
      var tmp = document.createElement("div");
      tmp.innerHTML = html;
      var fresh = tmp.firstElementChild;
      if (!fresh) { return true; }
      if (el) {
        if (busy(el)) { return false; }
        el.parentNode.replaceChild(fresh, el);
      } else if (list) { list.appendChild(fresh); }
      return true;
    }
    if (!el) { return true; }
    if (busy(el)) { return false; }
    el.innerHTML = html;
    return true;
  }

  function arrange() {
    /* the round's posts in the server's order; a post no longer in the round goes */
    if (!list || !order) { return; }
    var keep = {};
    order.forEach(function (id) {
      var el = document.getElementById("post-" + id);
      if (el && el.parentNode === list) { list.appendChild(el); keep[id] = true; }
    });
    Array.prototype.slice.call(list.children).forEach(function (el) {
      var id = (el.id || "").replace("post-", "");
      if (!keep[id] && !busy(el)) { list.removeChild(el); }
    });
    order = null;
  }

  function apply() {
    Object.keys(pending).forEach(function (name) {
      if (place(name, pending[name])) { delete pending[name]; }
    });
    arrange();
  }

  function say(text) { if (status) { status.textContent = text; } }

  function have() {
    return Object.keys(hashes).map(function (k) { return k + ":" + hashes[k]; }).join(",");
  }

  function tick() {
    if (document.hidden) { schedule(base * 3); return; }
    var req = new XMLHttpRequest();
    req.open("GET", url + (url.indexOf("?") < 0 ? "?" : "&") + "v=" + encodeURIComponent(version));
    req.setRequestHeader("Accept", "application/json");
    req.setRequestHeader("X-Live-Have", have());
    req.onload = function () {
      var data = null;
      if (req.status === 204) { data = {changed: false}; }   // nothing changed: no body
      if (req.status === 200) {
        try { data = JSON.parse(req.responseText); } catch (e) { data = null; }
      }
      if (data) {
        if (data.changed) {
          version = data.version;
          Object.keys(data.fragments || {}).forEach(function (k) { pending[k] = data.fragments[k]; });
          Object.keys(data.hashes || {}).forEach(function (k) { hashes[k] = data.hashes[k]; });
          if (data.order) {
            order = data.order;
            var now = {};
            order.forEach(function (id) { now["post-" + id] = true; });
            Object.keys(hashes).forEach(function (k) { if (k.indexOf("post-") === 0 && !now[k]) { delete hashes[k]; } });
          }
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
})();
