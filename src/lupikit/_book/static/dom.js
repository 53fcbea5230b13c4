// What the served pages' scripts (panel.js, live.js) share: the page's notebook and token, and a
// small element builder. No library, no address outside this server.
window.lupikit = (function () {
  "use strict";
  const meta = (name) => (document.querySelector(`meta[name="${name}"]`) || {}).content;
  const el = (tag, attrs = {}, ...children) => {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === "text") node.textContent = v; else node.setAttribute(k, v);
    }
    for (const c of children) node.append(c);
    return node;
  };
  // where a script puts its part: the book's article, else the page's main part
  const article = () => document.querySelector("article.bd-article") || document.querySelector("main") ||
    document.body;
  const onReady = (start) => {
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
  };
  return { notebook: meta("lupikit-notebook"), token: meta("lupikit-token"), el, article, onReady };
})();
