// Live code cells of a notebook page served by `lupikit serve`: the switch "Live code" makes the page's
// code cells editable and runs them on a kernel of this machine, through the server's WebSocket
// (/api/live/<notebook>, behind the token); outputs replace the page's own, in place. Run all runs every
// code cell of the notebook in order (also those the page hides), and stops at the first error.
// No library, no address outside this server.
(function () {
  "use strict";
  const { notebook, token, el, article, onReady } = window.lupikit;
  if (!notebook || !token) return;
  const ansi = (text) => String(text).replace(/\x1b\[[0-9;]*[A-Za-z]/g, "");
  const joined = (text) => (Array.isArray(text) ? text.join("") : String(text ?? ""));

  let socket = null;
  let cells = [];          // the notebook's code cells: {source, tags, page: {input, output, textarea, saved}}
  const pending = {};      // cell index -> resolve(status) of the run waiting for it
  const ui = {};

  function bar() {
    const toggle = el("input", { type: "checkbox", id: "lupikit-live" });
    ui.runAll = el("button", { type: "button", text: "Run all", disabled: "" });
    ui.restart = el("button", { type: "button", text: "Restart", disabled: "" });
    ui.interrupt = el("button", { type: "button", text: "Interrupt", disabled: "" });
    ui.status = el("span", { class: "lupikit-live-status", text: "" });
    const node = el("div", { class: "lupikit-live-bar", id: "lupikit-live-bar" },
      el("label", { for: "lupikit-live" }, toggle, " Live code"), ui.runAll, ui.restart, ui.interrupt,
      ui.status);
    toggle.addEventListener("change", () => (toggle.checked ? on() : off()));
    ui.runAll.addEventListener("click", runAll);
    // the status says "restarting" at once, so that "kernel ready" means the new kernel
    ui.restart.addEventListener("click", () => { setStatus("restarting…"); enable(false); send({ type: "restart" }); });
    ui.interrupt.addEventListener("click", () => send({ type: "interrupt" }));
    ui.toggle = toggle;
    return node;
  }

  function setStatus(text) { ui.status.textContent = text; }
  function enable(flag) { for (const b of [ui.runAll, ui.restart, ui.interrupt]) b.disabled = !flag; }
  function send(message) { if (socket && socket.readyState === 1) socket.send(JSON.stringify(message)); }

  // the page's cells, matched to the notebook's code cells by their text (the page may hide some)
  function match(pageCells) {
    const norm = (s) => s.replace(/\s+$/g, "").replace(/^\s+/g, "");
    let next = 0;
    for (const div of pageCells) {
      const pre = div.querySelector(".cell_input pre");
      if (!pre) continue;
      const text = norm(pre.textContent);
      for (let i = next; i < cells.length; i++) {
        if (norm(cells[i].source) === text) { cells[i].page = { div }; next = i + 1; break; }
      }
    }
  }

  function makeEditable(cell, index) {
    const div = cell.page.div;
    const input = div.querySelector(".cell_input");
    let output = div.querySelector(".cell_output");
    cell.page.savedInput = input.cloneNode(true);
    cell.page.savedOutput = output ? output.cloneNode(true) : null;
    if (!output) { output = el("div", { class: "cell_output docutils container" }); div.append(output); }
    const textarea = el("textarea", { class: "lupikit-live-code", spellcheck: "false",
                                      rows: String(Math.max(2, cell.source.split("\n").length)),
                                      "data-cell": String(index) });
    textarea.value = cell.source;
    const run = el("button", { type: "button", class: "lupikit-live-run", text: "Run" });
    const prompt = el("span", { class: "lupikit-live-prompt", text: "[ ]" });
    textarea.addEventListener("input", () => {
      textarea.rows = Math.max(2, textarea.value.split("\n").length);
    });
    textarea.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && e.shiftKey) { e.preventDefault(); runCell(index); }
    });
    run.addEventListener("click", () => runCell(index));
    input.replaceChildren(el("div", { class: "lupikit-live-cell" }, prompt, run), textarea);
    input.hidden = false;
    for (const d of div.querySelectorAll("details.hide")) d.open = true;
    Object.assign(cell.page, { input, output, textarea, prompt });
  }

  function restore(cell) {
    const p = cell.page;
    if (!p || !p.input) return;
    p.input.replaceWith(p.savedInput);
    if (p.savedOutput) p.output.replaceWith(p.savedOutput); else p.output.remove();
    cell.page = { div: p.div };
  }

  function render(output) {
    if (output.output_type === "stream") {
      return el("pre", { class: `lupikit-live-stream lupikit-live-${output.name}`, text: ansi(output.text) });
    }
    if (output.output_type === "error") {
      return el("pre", { class: "lupikit-live-error", text: ansi((output.traceback || []).join("\n")) ||
        `${output.ename}: ${output.evalue}` });
    }
    const data = output.data || {};
    if (data["text/html"] !== undefined) {
      const div = el("div", { class: "lupikit-live-html" });
      div.innerHTML = joined(data["text/html"]);
      return div;
    }
    for (const kind of ["image/png", "image/jpeg"]) {
      if (data[kind] !== undefined) return el("img", { src: `data:${kind};base64,${joined(data[kind]).trim()}` });
    }
    if (data["image/svg+xml"] !== undefined) {
      const div = el("div", { class: "lupikit-live-svg" });
      div.innerHTML = joined(data["image/svg+xml"]);
      return div;
    }
    if (data["text/latex"] !== undefined) return el("div", { class: "tex2jax_process", text: joined(data["text/latex"]) });
    if (data["text/markdown"] !== undefined) return el("pre", { text: joined(data["text/markdown"]) });
    return el("pre", { class: "lupikit-live-text", text: joined(data["text/plain"]) });
  }

  function onMessage(event) {
    const msg = JSON.parse(event.data);
    const cell = cells[msg.cell];
    const out = cell && cell.page && cell.page.output;
    if (msg.type === "status") {
      const words = { starting: "starting a kernel…", idle: "kernel ready", restarting: "restarting…" };
      setStatus(msg.message ? `${msg.state}: ${msg.message}` : (words[msg.state] || msg.state));
      enable(msg.state === "idle");
    } else if (msg.type === "output" && out) {
      out.append(render(msg.output));
      if (window.MathJax && window.MathJax.typesetPromise) window.MathJax.typesetPromise([out]).catch(() => {});
    } else if (msg.type === "output" && msg.output.output_type === "error") {
      setStatus(`error in a hidden cell: ${msg.output.ename}: ${msg.output.evalue}`);
    } else if (msg.type === "clear" && out) {
      out.replaceChildren();
    } else if (msg.type === "done") {
      if (cell && cell.page && cell.page.prompt) {
        cell.page.prompt.textContent = `[${msg.execution_count ?? " "}]`;
        cell.page.div.classList.remove("lupikit-live-running");
      }
      if (msg.message) setStatus(msg.message);
      const resolve = pending[msg.cell];
      delete pending[msg.cell];
      if (resolve) resolve(msg.status);
    } else if (msg.type === "error") {
      setStatus(msg.message);
    }
  }

  function runCell(index) {
    const cell = cells[index];
    const code = cell.page && cell.page.textarea ? cell.page.textarea.value : cell.source;
    if (cell.page && cell.page.output) {
      cell.page.output.replaceChildren();
      cell.page.prompt.textContent = "[*]";
      cell.page.div.classList.add("lupikit-live-running");
    }
    return new Promise((resolve) => {
      pending[index] = resolve;
      send({ type: "execute", cell: index, code });
    });
  }

  async function runAll() {
    for (let i = 0; i < cells.length; i++) {
      setStatus(`running cell ${i + 1} of ${cells.length}…`);
      const status = await runCell(i);
      if (status !== "ok") { setStatus(`stopped at cell ${i + 1} of ${cells.length}: ${status}`); return; }
    }
    setStatus(`ran all ${cells.length} cells`);
  }

  async function on() {
    const response = await fetch(`/api/notebooks/${notebook}/cells`, { credentials: "same-origin" });
    if (!response.ok) { setStatus(`no cells (${response.status})`); ui.toggle.checked = false; return; }
    cells = (await response.json()).cells.map((c) => ({ ...c, page: null }));
    match(article().querySelectorAll("div.cell"));
    cells.forEach((cell, i) => { if (cell.page) makeEditable(cell, i); });
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    socket = new WebSocket(`${scheme}://${location.host}/api/live/${notebook}?token=${encodeURIComponent(token)}`);
    socket.addEventListener("message", onMessage);
    socket.addEventListener("close", () => { enable(false); if (ui.toggle.checked) setStatus("disconnected"); });
    document.body.classList.add("lupikit-live-on");
  }

  function off() {
    if (socket) socket.close();
    socket = null;
    cells.forEach(restore);
    cells = [];
    enable(false);
    setStatus("");
    document.body.classList.remove("lupikit-live-on");
  }

  onReady(() => article().prepend(bar()));
})();
