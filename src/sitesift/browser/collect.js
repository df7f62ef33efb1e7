// Walks the rendered DOM exactly as sitesift.dom builds DomNodes and returns one entry per
// DomNode, in the same (pre)order: the Python side zips the two lists. The rules mirror
// sitesift/dom.py (`_Doc.expand`, `_visible`, `_hidden`, MAX_DEPTH); the skipped tags and
// the depth limit come from Python so they have one source. Entry:
//   [signature, x, y, w, h, visible, display, background, fontSize, fontWeight]
// with absolute CSS-pixel boxes (viewport box + scroll offset).
(args) => {
  const skipped = new Set(args.skipped);
  const maxDepth = args.maxDepth;
  const objectShowsItself = new RegExp(args.objectShowsItself, "i");
  const maxNodes = args.maxNodes;
  const hiddenStyle = /display\s*:\s*none|visibility\s*:\s*hidden/i;
  // Python's str.isspace(), not JS's \s: the #text rule must decide alike on both sides.
  const onlySpace =
    /^[\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/;
  const sx = window.scrollX, sy = window.scrollY;
  const range = document.createRange();
  const out = [];

  const visibleElement = (el) => {
    const tag = el.localName;
    if (!tag || skipped.has(tag) || "-_!".includes(tag[0])) return false;
    if (tag === "object" && !el.getAttribute("classid") &&
        objectShowsItself.test((el.getAttribute("type") || el.getAttribute("data") || "").trim())) {
      return false;
    }
    if (el.hasAttribute("hidden") || el.getAttribute("aria-hidden") === "true") return false;
    const style = el.getAttribute("style");
    return !(style && hiddenStyle.test(style));
  };
  const colour = (value) =>
    !value || value === "transparent" || /^rgba\(.*,\s*0\)$/.test(value) ? null : value;
  const styleEntry = (el, rect, sig) => {
    const cs = getComputedStyle(el);
    const shown = cs.display !== "none" && cs.visibility === "visible" &&
      parseFloat(cs.opacity || "1") > 0;
    return [sig, rect.left + sx, rect.top + sy, rect.width, rect.height, shown, cs.display,
      colour(cs.backgroundColor), parseFloat(cs.fontSize) || 0,
      parseInt(cs.fontWeight, 10) || 400];
  };
  const signature = (el) =>
    el.localName + "#" + (el.getAttribute("id") || "") + "." + (el.getAttribute("class") || "");
  // Children as DomNode builds them: visible elements and runs of adjacent text nodes
  // (Chromium splits very long text into several nodes; Lexbor keeps one).
  const kidsOf = (el) => {
    const kids = [];
    let run = null;
    for (let c = el.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 3) {
        if (run) run.push(c); else { run = [c]; kids.push(run); }
        continue;
      }
      run = null;
      if (c.nodeType === 1 && visibleElement(c)) kids.push(c);
    }
    return kids;
  };
  // The page's own <style> elements (counted before ours below joins them).
  const inlineStyles = document.querySelectorAll("style").length;
  // A scripting browser would not draw <noscript>; sitesift's DOM skips it too.
  const hide = document.createElement("style");
  hide.textContent = "noscript { display: none !important; }";
  (document.head || document.documentElement).appendChild(hide);
  const body = document.body;
  if (!body) return { error: "the rendered document has no body" };
  // Stack items: [element, depth] or [text run, parent element].
  const stack = [[body, 1]];
  while (stack.length) {
    if (out.length > maxNodes) return { error: `more than ${maxNodes} elements` };
    const [item, depthOrParent] = stack.pop();
    if (Array.isArray(item)) {  // a #text DomNode: its box is the run's, its style the parent's
      range.setStartBefore(item[0]);
      range.setEndAfter(item[item.length - 1]);
      out.push(styleEntry(depthOrParent, range.getBoundingClientRect(), "#text#."));
      continue;
    }
    const depth = depthOrParent;
    out.push(styleEntry(item, item.getBoundingClientRect(), signature(item)));
    if (depth >= maxDepth) continue;  // dom.py flattens deeper levels into text
    const kids = kidsOf(item);
    let elements = false, texts = false;
    for (const k of kids) {
      if (Array.isArray(k)) {
        const text = k.map((t) => t.data).join("");
        if (text && !onlySpace.test(text)) texts = true;
      } else {
        elements = true;
      }
    }
    const next = [];
    for (const k of kids) {
      if (!Array.isArray(k)) next.push([k, depth + 1]);
      else if (elements && texts && !onlySpace.test(k.map((t) => t.data).join("")))
        next.push([k, item]);
    }
    for (let i = next.length - 1; i >= 0; i--) stack.push(next[i]);
  }
  const doc = document.documentElement;
  return {
    width: Math.max(doc.scrollWidth, body.scrollWidth, doc.clientWidth),
    height: Math.max(doc.scrollHeight, body.scrollHeight, doc.clientHeight),
    nodes: out,
    inlineStyles,
  };
}
