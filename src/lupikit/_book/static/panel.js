// The panel "Rerun with other parameters" of a notebook page, when the book is served by `lupikit serve`.
// It reads the notebook's form from the server, checks the values there (field by field) and shows the
// `lupikit run` command that runs them. No library, no address outside this server.
(function () {
  "use strict";
  const { notebook, token, el, article, onReady } = window.lupikit;
  if (!notebook || !token) return;
  const api = `/api/notebooks/${notebook}`;
  const shown = (value) => (typeof value === "string" ? value : JSON.stringify(value));

  function build(form) {
    const panel = el("details", { class: "lupikit-panel", id: "lupikit-panel" });
    panel.append(el("summary", { text: "Rerun with other parameters" }));
    const body = el("form", { class: "lupikit-form", novalidate: "" });
    const fields = {};
    if (form.presets.length > 1) {
      const select = el("select", { name: "preset", id: "lupikit-preset" });
      for (const p of form.presets) select.append(el("option", { value: p, text: p }));
      const row = el("div", { class: "lupikit-row" },
        el("label", { for: "lupikit-preset", text: "preset" }), select,
        el("span", { class: "lupikit-help", text: "the notebook's presets: the first is its default" }),
        el("span", { class: "lupikit-error", "data-for": "preset" }));
      body.append(row);
      select.addEventListener("change", () => lockPreset(form, fields, select.value));
    }
    for (const p of form.parameters) {
      const id = `lupikit-p-${p.name}`;
      const input = p.type === "bool"
        ? el("select", { name: p.name, id }, el("option", { value: "true", text: "true" }),
             el("option", { value: "false", text: "false" }))
        : el("input", { name: p.name, id, type: "text", spellcheck: "false" });
      input.value = p.type === "bool" ? String(p.default) : shown(p.default);
      input.dataset.default = input.value;
      fields[p.name] = input;
      body.append(el("div", { class: "lupikit-row" },
        el("label", { for: id, text: `${p.name} (${p.type})` }), input,
        el("span", { class: "lupikit-help", text: p.help + (p.range ? ` ${p.range}` : "") }),
        el("span", { class: "lupikit-error", "data-for": p.name })));
    }
    const check = el("button", { type: "submit", class: "lupikit-check", text: "Check the values" });
    const run = el("button", { type: "button", class: "lupikit-run", text: "Run" });
    const out = el("pre", { class: "lupikit-command", hidden: "" });
    const progress = el("div", { class: "lupikit-progress", hidden: "" });
    body.append(el("div", { class: "lupikit-actions" }, check, run, el("a", { href: "/runs", text: "all runs" })),
                out, progress);
    // a sweep: a list of values for one parameter, the other fields as they are
    const swept = el("select", { name: "sweep-param", id: "lupikit-sweep-param" });
    for (const p of form.parameters) swept.append(el("option", { value: p.name, text: p.name }));
    const sweepValues = el("input", { type: "text", id: "lupikit-sweep-values", spellcheck: "false",
                                      placeholder: "values: 1, 2, 3 (lists: [..]; [..])" });
    const sweepRun = el("button", { type: "button", class: "lupikit-sweep-run", text: "Run a sweep" });
    const sweepOut = el("div", { class: "lupikit-sweep", hidden: "" });
    body.append(el("div", { class: "lupikit-row lupikit-sweep-row" },
      el("label", { for: "lupikit-sweep-param", text: "sweep one parameter" }), swept,
      el("span", {}, sweepValues, " ", sweepRun),
      el("span", { class: "lupikit-error", "data-for": "sweep" })), sweepOut);
    sweepRun.addEventListener("click", () => start_sweep(body, fields, out, swept.value, sweepValues.value,
                                                          sweepOut));
    body.addEventListener("submit", (e) => { e.preventDefault(); submit(body, fields, out); });
    run.addEventListener("click", () => start_run(body, fields, out, progress));
    panel.append(body);
    return panel;
  }

  function collect(body, fields) {
    const values = {};
    for (const [name, input] of Object.entries(fields)) {
      if (!input.disabled && input.value !== input.dataset.default) values[name] = input.value;
    }
    const select = body.querySelector("select[name=preset]");
    return { values, preset: select ? select.value : null };
  }

  function show_errors(body, errors, out) {
    for (const span of body.querySelectorAll(".lupikit-error")) span.textContent = "";
    for (const [name, message] of Object.entries(errors)) {
      const span = body.querySelector(`.lupikit-error[data-for="${CSS.escape(name)}"]`);
      if (span) span.textContent = message; else { out.hidden = false; out.textContent = message; }
    }
  }

  async function start_run(body, fields, out, progress) {
    const { values, preset } = collect(body, fields);
    const response = await fetch("/api/runs", {
      method: "POST", headers: { "Content-Type": "application/json", "X-Lupikit-Token": token },
      body: JSON.stringify({ notebook, values, preset }), credentials: "same-origin",
    });
    const result = await response.json().catch(() => ({}));
    show_errors(body, result.errors || {}, out);
    if (!response.ok || !result.id) return;
    progress.hidden = false;
    follow(result.id, progress);
  }

  async function start_sweep(body, fields, out, param, text, where) {
    const { values, preset } = collect(body, fields);
    delete values[param];
    const response = await fetch("/api/sweeps", {
      method: "POST", headers: { "Content-Type": "application/json", "X-Lupikit-Token": token },
      body: JSON.stringify({ notebook, values, preset, param, sweep: text }), credentials: "same-origin",
    });
    const result = await response.json().catch(() => ({}));
    show_errors(body, result.errors || {}, out);
    if (!response.ok || !result.id) return;
    where.hidden = false;
    follow_sweep(result.id, where);
  }

  async function follow_sweep(id, where) {
    const list = el("ol", { class: "lupikit-sweep-runs" });
    const result = el("div", { class: "lupikit-sweep-result" });
    where.replaceChildren(list, result);
    for (;;) {
      const response = await fetch(`/api/sweeps/${id}`, { credentials: "same-origin" });
      if (!response.ok) { result.textContent = `the sweep is gone (${response.status})`; return; }
      const s = await response.json();
      list.replaceChildren(...s.statuses.map((r, i) => {
        const what = r.state === "running" ? `running, cell ${r.cell} of ${r.cells || "?"}`
          : r.state === "queued" ? `waiting, place ${r.place}` : r.state;
        const item = el("li", { text: `${s.param} = ${s.labels[i]}: ${what} ` });
        if (r.page) item.append(el("a", { href: r.page, text: "page" }));
        return item;
      }));
      if (s.done) {
        const table = el("table", { class: "lupikit-claims lupikit-sweep-table" });
        table.append(el("tr", {}, el("th", { text: "claim" }), ...s.labels.map((l) => el("th", { text: l })),
                        el("th", { text: "pass rate" })));
        for (const row of s.table) {
          table.append(el("tr", {}, el("td", { text: row.claim }),
            ...row.outcomes.map((o) => el("td", { text: o || "", class: `lupikit-outcome-${(o || "none").replace(/ /g, "-")}` })),
            el("td", { text: row.pass_rate === null ? "" : `${Math.round(100 * row.pass_rate)} %` })));
        }
        result.replaceChildren(el("img", { src: s.plot, alt: `Claims that held at each value of ${s.param}`,
                                           class: "lupikit-sweep-plot" }), table);
        return;
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
  }

  function copy_button(text) {
    const button = el("button", { type: "button", class: "lupikit-copy", text: "copy" });
    button.addEventListener("click", async () => {
      try { await navigator.clipboard.writeText(text); button.textContent = "copied"; }
      catch (e) { button.textContent = "select the command and copy it"; }
    });
    return button;
  }

  function fmt(x) { return x === null || x === undefined ? "" : (typeof x === "number" ? x.toPrecision(4) : String(x)); }

  function claims_table(claims) {
    const table = el("table", { class: "lupikit-claims" });
    table.append(el("tr", {}, el("th", { text: "claim" }), el("th", { text: "this run" }),
      el("th", { text: "value" }), el("th", { text: "recorded (paper preset)" }), el("th", { text: "interval" })));
    for (const c of claims) {
      const r = c.recorded || {};
      const row = el("tr", { class: c.differs ? "lupikit-differs" : "" },
        el("td", { text: c.id, title: c.statement || "" }), el("td", { text: c.verdict || "" }),
        el("td", { text: fmt(c.value) + (c.threshold ? ` (${c.threshold})` : "") }),
        el("td", { text: c.recorded ? `${r.verdict} over ${r.seeds} seeds` : "not recorded" }),
        el("td", { text: r.interval ? `${fmt(r.interval[0])} to ${fmt(r.interval[1])}` : "" }));
      table.append(row);
    }
    return table;
  }

  async function follow(id, progress) {
    const bar = el("progress", { max: "1", value: "0" });
    const label = el("span", { class: "lupikit-progress-label" });
    const cancel = el("button", { type: "button", text: "Cancel" });
    const result = el("div", { class: "lupikit-result" });
    progress.replaceChildren(bar, label, cancel, result);
    cancel.addEventListener("click", () => fetch(`/api/runs/${id}/cancel`, {
      method: "POST", headers: { "X-Lupikit-Token": token }, credentials: "same-origin" }));
    for (;;) {
      const response = await fetch(`/api/runs/${id}`, { credentials: "same-origin" });
      if (!response.ok) { label.textContent = `the run is gone (${response.status})`; return; }
      const s = await response.json();
      if (s.state === "queued") {
        label.textContent = ` waiting: place ${s.place} in the queue`;
      } else if (s.state === "running") {
        if (s.cells) { bar.max = s.cells; bar.value = s.cell; }
        const eta = s.estimate ? ` of about ${Math.round(s.estimate)} s` : "";
        label.textContent = ` cell ${s.cell} of ${s.cells || "?"}, ${Math.round(s.elapsed)} s${eta}`;
      } else {
        cancel.remove();
        bar.max = 1; bar.value = s.state === "done" ? 1 : 0;
        label.textContent = ` ${s.state} in ${Math.round(s.elapsed)} s` + (s.error ? `: ${s.error}` : "");
        const links = el("p", {});
        if (s.page) links.append(el("a", { href: s.page, text: "the executed notebook's page" }), " · ");
        if (s.notebook_file) links.append(el("a", { href: s.notebook_file, text: "download (.ipynb)" }), " · ");
        links.append(el("code", { text: s.command }), " ", copy_button(s.command));
        result.replaceChildren(links, claims_table(s.claims || []));
        return;
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
  }

  function lockPreset(form, fields, preset) {
    const sets = form.preset_sets[preset] || {};
    for (const [name, input] of Object.entries(fields)) {
      const set = Object.prototype.hasOwnProperty.call(sets, name);
      input.disabled = set && preset !== form.presets[0];
      if (input.disabled) input.value = sets[name] === null ? "(computed by the preset)" : shown(sets[name]);
      else if (input.value === "(computed by the preset)") input.value = input.dataset.default;
    }
  }

  async function submit(body, fields, out) {
    const { values, preset } = collect(body, fields);
    const response = await fetch(`${api}/check`, {
      method: "POST", headers: { "Content-Type": "application/json", "X-Lupikit-Token": token },
      body: JSON.stringify({ values, preset }), credentials: "same-origin",
    });
    if (!response.ok) { out.hidden = false; out.textContent = await response.text(); return; }
    const result = await response.json();
    show_errors(body, result.errors, out);
    if (result.command) { out.hidden = false; out.textContent = result.command; }
    else if (Object.keys(result.errors).length) out.hidden = true;
  }

  async function start() {
    const inline = document.getElementById("lupikit-form");  // the server puts the form in the page
    let form = inline ? JSON.parse(inline.textContent) : null;
    if (form === null) {
      const response = await fetch(`${api}/form`, { credentials: "same-origin" });
      if (!response.ok) return;
      form = await response.json();
    }
    const panel = build(form);
    article().prepend(panel);
    // when the panel was ready, in ms from the navigation's start (benchmarks/bench_serve.py reads it)
    document.documentElement.dataset.lupikitPanelReady = String(Math.round(performance.now()));
  }
  onReady(start);
})();
