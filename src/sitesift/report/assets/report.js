/* sitesift report: behaviour of the page views and of the Site Style Tree explorer.
 *
 * The framed pages run no script of their own (sandbox without allow-scripts, a CSP and no
 * <script> left in them). The frames are sandboxed *with* allow-same-origin, so this script,
 * in the report's document, can reach into them: it attaches the hover and click handlers
 * from outside, shows the mark's score and reason in a tooltip of the report, links marks
 * to the blocks of the text column, and keeps links inside the frame from navigating.
 * Without this script (or if the frame cannot be reached) the marks still show, and each
 * marked element's title attribute carries the same words as a plain tooltip.
 */
(function () {
  "use strict";

  function $(sel, root) { return (root || document).querySelector(sel); }
  function $$(sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined) { e.textContent = text; }
    return e;
  }
  function readJSON(id) {
    var node = document.getElementById(id);
    return node ? JSON.parse(node.textContent) : null;
  }

  /* ---------------------------------------------------------------- page view */

  function initPage(data) {
    var tip = $("#tip");
    var panes = $$(".pane");
    var cols = $$(".col");
    var tabs = $$(".tabs button");
    var left = $("#pick-left"), right = $("#pick-right");
    var mode = "0";

    function show(newMode) {
      mode = newMode;
      var compare = mode === "compare";
      document.body.classList.toggle("compare", compare);
      tabs.forEach(function (b) { b.setAttribute("aria-selected", String(b.dataset.tab === mode)); });
      var visible = compare ? [left.value, right.value] : [mode];
      panes.forEach(function (p) { p.hidden = visible.indexOf(p.dataset.i) < 0; });
      cols.forEach(function (c) { c.hidden = c.dataset.i !== mode; });
      if (compare) {  /* the right pane after the left one, whatever their order */
        var l = panes[Number(left.value)], r = panes[Number(right.value)];
        l.style.order = "0"; r.style.order = "1";
      }
    }
    tabs.forEach(function (b) { b.addEventListener("click", function () { show(b.dataset.tab); }); });
    [left, right].forEach(function (s) { if (s) { s.addEventListener("change", function () { show("compare"); }); } });

    var showNoise = $("#show-noise");
    showNoise.addEventListener("change", function () {
      $("aside.text").classList.toggle("show-noise", showNoise.checked);
    });

    function tipFor(method, m) {
      var mark = data.methods[method].marks[m];
      tip.textContent = "";
      var head = el("div");
      head.appendChild(el("span", "lab " + mark[0], mark[0]));
      head.appendChild(document.createTextNode(" score " + mark[1].toFixed(2) + " · " +
        data.methods[method].name + (mark[4] === "block" ? " · text block relabelled" : "")));
      tip.appendChild(head);
      tip.appendChild(el("div", "path", mark[3]));
      tip.appendChild(el("div", "why", mark[2]));
    }
    function placeTip(frame, x, y) {
      var r = frame.getBoundingClientRect();
      var left = r.left + x + 14, top = r.top + y + 16;
      tip.hidden = false;
      var w = tip.offsetWidth, h = tip.offsetHeight;
      if (left + w > window.innerWidth - 4) { left = Math.max(4, r.left + x - w - 10); }
      if (top + h > window.innerHeight - 4) { top = Math.max(4, r.top + y - h - 10); }
      tip.style.left = left + "px";
      tip.style.top = top + "px";
    }
    function blocksOf(method, m) {
      return $$('.col[data-i="' + method + '"] .b[data-m="' + m + '"]');
    }

    function hook(frame, method) {
      var doc;
      try { doc = frame.contentDocument; } catch (e) { return; }
      if (!doc || !doc.documentElement || !doc.documentElement.hasAttribute("data-ss-doc") ||
          frame.dataset.hooked) { return; }
      frame.dataset.hooked = "1";
      /* our tooltip replaces the fallback titles; the page's own come back */
      $$("[data-ss]", doc).forEach(function (n) {
        if (n.hasAttribute("data-ss-t0")) { n.setAttribute("title", n.getAttribute("data-ss-t0")); }
        else { n.removeAttribute("title"); }
      });
      var current = null;
      function clear() {
        if (current) {
          current.removeAttribute("data-ss-hover");
          blocksOf(method, current.getAttribute("data-ss")).forEach(function (b) { b.classList.remove("hl"); });
          current = null;
        }
        tip.hidden = true;
      }
      doc.addEventListener("mouseover", function (e) {
        var target = e.target && e.target.closest ? e.target.closest("[data-ss]") : null;
        if (target === current) { return; }
        clear();
        if (!target) { return; }
        current = target;
        current.setAttribute("data-ss-hover", "");
        var m = current.getAttribute("data-ss");
        tipFor(method, Number(m));
        placeTip(frame, e.clientX, e.clientY);
        blocksOf(method, m).forEach(function (b) { b.classList.add("hl"); });
      });
      doc.addEventListener("mousemove", function (e) { if (current) { placeTip(frame, e.clientX, e.clientY); } });
      doc.addEventListener("mouseleave", clear);
      doc.documentElement.addEventListener("mouseleave", clear);
      /* nothing in the frame navigates or submits */
      doc.addEventListener("click", function (e) { e.preventDefault(); }, true);
      doc.addEventListener("submit", function (e) { e.preventDefault(); }, true);
      /* compare: the two frames show the same page, so they scroll together */
      var win = frame.contentWindow;
      win.addEventListener("scroll", function () {
        if (mode !== "compare" || frame.dataset.syncing) { return; }
        panes.forEach(function (p) {
          var other = $("iframe", p);
          if (!other || other === frame || p.hidden || !other.contentWindow) { return; }
          other.dataset.syncing = "1";
          other.contentWindow.scrollTo(win.scrollX, win.scrollY);
          window.requestAnimationFrame(function () { delete other.dataset.syncing; });
        });
      });
    }
    panes.forEach(function (p) {
      var frame = $("iframe", p);
      if (!frame) { return; }
      var method = Number(p.dataset.i);
      frame.addEventListener("load", function () { hook(frame, method); });
      hook(frame, method);  /* in case it loaded before this script ran */
    });

    /* the text column: a block points at its mark in the frame */
    cols.forEach(function (col) {
      var method = col.dataset.i;
      var frame = $('.pane[data-i="' + method + '"] iframe');
      function target(b) {
        try {
          var doc = frame && frame.contentDocument;
          return doc ? doc.querySelector('[data-ss="' + b.dataset.m + '"]') : null;
        } catch (e) { return null; }
      }
      $$(".b[data-m]", col).forEach(function (b) {
        b.addEventListener("mouseenter", function () {
          var t = target(b);
          if (t) { t.setAttribute("data-ss-focus", ""); }
        });
        b.addEventListener("mouseleave", function () {
          var t = target(b);
          if (t) { t.removeAttribute("data-ss-focus"); }
        });
        b.addEventListener("click", function () {
          var t = target(b);
          if (t) { t.scrollIntoView({block: "center"}); }
        });
      });
    });
    show("0");
  }

  /* ---------------------------------------------------------------- style tree */

  var LABELS = {n: "noisy", m: "meaningful", p: "possible", e: "empty"};

  function initTree(data) {
    var nodes = data.nodes;
    var root = $("#tree");
    var parentOf = null;  /* node -> [parent node, style index], on the first path found */

    function fmt(x) { return x.toFixed(3); }
    function tagOf(key) { return key.split("|")[0]; }
    /* div|class=a b|id=x -> div.a.b#x: enough to tell siblings apart in a style node's list */
    function shortKey(key) {
      var parts = key.split("|"), out = parts[0];
      parts.slice(1).forEach(function (p) {
        if (p.indexOf("class=") === 0) { out += "." + p.slice(6).split(" ").join("."); }
        else if (p.indexOf("id=") === 0) { out += "#" + p.slice(3); }
      });
      return out;
    }

    function elementItem(i) {
      var n = nodes[i];
      var li = el("li", "el " + n[5]);
      li.dataset.node = String(i);
      var row = el("div", "row");
      var tog = el("button", "tog", "▸");
      tog.type = "button";
      tog.disabled = n[6].length === 0;
      tog.setAttribute("aria-expanded", "false");
      tog.setAttribute("aria-label", "expand");
      row.appendChild(tog);
      row.appendChild(el("span", "key", n[0]));
      row.appendChild(el("span", "lab l-" + n[5], LABELS[n[5]]));
      row.appendChild(el("span", "imp", "NodeImp " + fmt(n[3]) + " · CompImp " + fmt(n[4])));
      var pages = "in " + n[1] + " of " + data.pages + " pages";
      if (n[2]) { pages += " (a leaf in " + n[2] + ")"; }
      row.appendChild(el("span", "imp", pages));
      if (n[7].length) {
        var local = el("span", "imp", n[7].length + " locally noisy block" + (n[7].length > 1 ? "s" : ""));
        local.title = n[7].join("\n");
        row.appendChild(local);
      }
      li.appendChild(row);
      tog.addEventListener("click", function () { toggle(li); });
      return li;
    }

    function styleItem(i, s) {
      var style = nodes[i][6][s];
      var li = el("li", "style");
      li.dataset.style = String(s);
      var row = el("div", "row");
      var tog = el("button", "tog", "▸");
      tog.type = "button";
      tog.setAttribute("aria-expanded", "false");
      tog.setAttribute("aria-label", "expand");
      row.appendChild(tog);
      var keys = style[2].map(function (c) { return shortKey(nodes[c][0]); });
      var shown = keys.slice(0, 10).join(" ") + (keys.length > 10 ? " …" : "");
      row.appendChild(el("span", "", "style node · " + style[0] + " page" + (style[0] === 1 ? "" : "s") +
        " · CompImp " + fmt(style[1]) + " · " + keys.length + " element node" +
        (keys.length === 1 ? "" : "s") + ": " + shown));
      li.appendChild(row);
      tog.addEventListener("click", function () { toggle(li); });
      return li;
    }

    function build(li) {
      var ul = el("ul");
      if (li.classList.contains("el")) {
        var i = Number(li.dataset.node);
        nodes[i][6].forEach(function (_, s) { ul.appendChild(styleItem(i, s)); });
      } else {
        var owner = Number(li.parentNode.parentNode.dataset.node);
        nodes[owner][6][Number(li.dataset.style)][2].forEach(function (c) { ul.appendChild(elementItem(c)); });
      }
      li.appendChild(ul);
      return ul;
    }

    function toggle(li, open) {
      var tog = $(".tog", li);
      var ul = li.querySelector(":scope > ul");
      var expand = open === undefined ? !ul || ul.hidden : open;
      if (expand && !ul) { ul = build(li); }
      if (ul) { ul.hidden = !expand; }
      tog.textContent = expand ? "▾" : "▸";
      tog.setAttribute("aria-expanded", String(expand));
    }

    function parents() {
      if (parentOf) { return parentOf; }
      parentOf = {0: null};
      var queue = [0];
      for (var q = 0; q < queue.length; q++) {
        var i = queue[q];
        nodes[i][6].forEach(function (style, s) {
          style[2].forEach(function (c) {
            if (!(c in parentOf)) { parentOf[c] = [i, s]; queue.push(c); }
          });
        });
      }
      return parentOf;
    }

    function reveal(i) {
      var chain = [];
      var up = parents();
      for (var k = i; up[k]; k = up[k][0]) { chain.unshift(up[k]); }
      var li = root.querySelector(":scope > li");
      chain.forEach(function (step, depth) {
        toggle(li, true);
        var styleLi = li.querySelector(':scope > ul > li[data-style="' + step[1] + '"]');
        toggle(styleLi, true);
        var next = depth + 1 < chain.length ? chain[depth + 1][0] : i;
        li = styleLi.querySelector(':scope > ul > li[data-node="' + next + '"]');
      });
      $$(".flash", root).forEach(function (f) { f.classList.remove("flash"); });
      li.classList.add("flash");
      li.scrollIntoView({block: "center"});
    }

    var search = $("#q"), results = $("#results");
    search.addEventListener("input", function () {
      var q = search.value.trim().toLowerCase();
      results.textContent = "";
      if (!q) { return; }
      var exact = [], partial = [];
      nodes.forEach(function (n, i) {
        var key = n[0].toLowerCase();
        if (tagOf(key) === q) { exact.push(i); } else if (key.indexOf(q) >= 0) { partial.push(i); }
      });
      var hits = exact.concat(partial);
      var counts = {};
      hits.forEach(function (i) { counts[nodes[i][5]] = (counts[nodes[i][5]] || 0) + 1; });
      var summary = hits.length + " element node" + (hits.length === 1 ? "" : "s") +
        Object.keys(counts).map(function (c) { return " · " + counts[c] + " " + LABELS[c]; }).join("");
      results.appendChild(el("div", "muted", summary + (hits.length > 200 ? " (first 200 listed)" : "")));
      hits.slice(0, 200).forEach(function (i) {
        var n = nodes[i];
        var b = el("button", "hit", n[0] + "  [" + LABELS[n[5]] + ", CompImp " + fmt(n[4]) + ", " + n[1] + " pages]");
        b.type = "button";
        b.addEventListener("click", function () { reveal(i); });
        results.appendChild(b);
      });
    });

    root.appendChild(elementItem(0));
    /* open the root and follow single-style chains a few levels, as far as the page body */
    var li = root.querySelector(":scope > li");
    for (var depth = 0; depth < 4 && li; depth++) {
      var n = nodes[Number(li.dataset.node)];
      if (!n[6].length) { break; }
      toggle(li, true);
      if (n[6].length !== 1) { break; }
      var styleLi = li.querySelector(":scope > ul > li");
      toggle(styleLi, true);
      li = n[6][0][2].length === 1 ? styleLi.querySelector(":scope > ul > li") : null;
    }
  }

  var page = readJSON("ss-data");
  if (page) { initPage(page); }
  var tree = readJSON("ss-tree");
  if (tree) { initTree(tree); }
})();
