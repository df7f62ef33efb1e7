"""Rendering pages in headless Chromium: `chromium` drives the browser (Playwright, offline,
bounded), `rendering` holds what a rendering is (each DomNode's box) and how the browser's
nodes are aligned to sitesift's; `collect.js` is the script run in the page."""
