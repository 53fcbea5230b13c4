// Loaded by a wrapper page (tests/test_book.py): opens each page listed in ?pages=a,b,c in a 1280-px
// frame, waits for MathJax, and records the text outside code and math that still looks like TeX
// (a control sequence or a dollar sign), every display equation wider than the text column, and the
// code blocks, outputs and output tables that do not fit it.
(async function () {
  const out = document.getElementById("result");
  const pages = new URLSearchParams(location.search).get("pages").split(",");
  const results = {};
  const skip = "pre, code, script, style, mjx-container, .highlight, .cell_input, .MathJax, .linenos, kbd, samp, .sig, .headerlink";
  for (const page of pages) {
    const frame = document.createElement("iframe");
    frame.style.width = "1280px"; frame.style.height = "900px";
    document.body.appendChild(frame);
    await new Promise((ok) => { frame.onload = ok; frame.src = page; });
    const win = frame.contentWindow, doc = frame.contentDocument;
    for (let k = 0; k < 100 && !(win.MathJax && win.MathJax.startup && win.MathJax.startup.promise); k++)
      await new Promise((ok) => setTimeout(ok, 50));
    if (win.MathJax && win.MathJax.startup) { try { await win.MathJax.startup.promise; } catch (e) {} }
    const texts = [];
    const walker = doc.createTreeWalker(doc.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!el || el.closest(skip)) continue;
      const t = n.textContent;
      if (/\\[A-Za-z]+|\$/.test(t)) texts.push(t.trim().slice(0, 160));
    }
    const column = doc.querySelector("article.bd-article") || doc.querySelector("main") || doc.body;
    const width = column.getBoundingClientRect().width;
    const wide = [];
    for (const m of doc.querySelectorAll('mjx-container[display="true"]')) {
      const inner = m.querySelector("mjx-math") || m;
      const w = inner.getBoundingClientRect().width;
      let tex = "";
      try { tex = win.MathJax.startup.document.getMathItemsWithin(m)[0].math; } catch (e) { tex = m.textContent; }
      if (w > width + 1) wide.push({width: Math.round(w), column: Math.round(width), tex: tex.slice(0, 300)});
    }
    // code and outputs that do not fit the column: a <pre> that scrolls sideways (its lines longer than
    // the characters that fit), and an output table wider than its output area
    const clipped = [];
    for (const pre of doc.querySelectorAll("pre")) {
      if (pre.closest("mjx-container") || pre.id === "result") continue;
      if (pre.scrollWidth <= pre.clientWidth + 1) continue;
      const span = doc.createElement("span");
      span.textContent = "0".repeat(100);
      pre.appendChild(span);
      const charWidth = span.getBoundingClientRect().width / 100;
      span.remove();
      const style = win.getComputedStyle(pre);
      const room = pre.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      const fits = Math.floor(room / charWidth);
      const long = pre.textContent.split("\n").filter((l) => l.length > fits);
      const kind = pre.closest(".cell_output, .output") ? "output" : "code";
      clipped.push({kind, fits, lines: long.length, first: long.slice(0, 3).map((l) => l.slice(0, 100))});
    }
    for (const table of doc.querySelectorAll(".cell_output table, .output table")) {
      const area = table.closest(".cell_output, .output");
      const w = table.getBoundingClientRect().width;
      if (w > area.clientWidth + 1) {
        const caption = table.querySelector("caption");
        clipped.push({kind: "table", fits: Math.round(area.clientWidth), lines: 1, width: Math.round(w),
                      first: [(caption ? caption.textContent : table.textContent).trim().slice(0, 100)]});
      }
    }
    results[page] = {texts, wide, clipped, math: doc.querySelectorAll("mjx-container").length,
                     column: Math.round(width)};
    frame.remove();
  }
  out.textContent = JSON.stringify(results);
})();
